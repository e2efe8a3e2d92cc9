//! JavaScript's Number-to-String conversion (ECMA-262 `Number::toString`).
//!
//! Canonical arguments and validation messages must show numbers exactly as
//! JavaScript does (`1e+21`, `5e-324`, `-0` → `0`). Rust's `{:e}` already gives
//! the shortest round-trip digits; only the layout differs, so that is all this
//! module does.

use std::fmt::Write;

/// Appends `String(value)` as JavaScript computes it.
pub fn write_js_number(value: f64, out: &mut String) {
    if value.is_nan() {
        out.push_str("NaN");
        return;
    }
    if value.is_infinite() {
        out.push_str(if value > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    if value == 0.0 {
        // Both zeros print as "0".
        out.push('0');
        return;
    }
    // Integers below 2^53 print as plain digits; `as i64` is exact for them.
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        let _ = write!(out, "{}", value as i64);
        return;
    }
    if value < 0.0 {
        out.push('-');
    }
    let mut scientific = String::with_capacity(32);
    let _ = write!(scientific, "{:e}", value.abs());
    // `{:e}` of a finite, non-zero f64 is always "d[.ddd]e[-]x".
    let (mantissa, exponent) = scientific
        .split_once('e')
        .unwrap_or((scientific.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = even_on_tie(value.abs(), digits, exponent);
    layout(&digits, exponent + 1, out);
}

/// When the value lies exactly halfway between two shortest candidates,
/// `Number::toString` takes the even one; Rust's shortest digits take the
/// other. `digits` are Rust's for `value` (positive) with decimal exponent
/// `exponent`; returns the digits JavaScript prints.
fn even_on_tie(value: f64, digits: String, exponent: i32) -> String {
    let odd = digits.bytes().last().is_some_and(|d| (d - b'0') % 2 == 1);
    if !odd {
        return digits;
    }
    // The exact decimal value: a double has at most 767 significant digits.
    let exact = format!("{value:.767e}");
    let Some((mantissa, exact_exponent)) = exact.split_once('e') else {
        return digits;
    };
    if exact_exponent.parse::<i32>().ok() != Some(exponent) {
        return digits;
    }
    let exact: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let k = digits.len();
    let halfway_after = |prefix: &[u8]| {
        exact.get(..k) == Some(prefix)
            && exact.get(k) == Some(&b'5')
            && exact
                .get(k + 1..)
                .is_some_and(|rest| rest.iter().all(|&d| d == b'0'))
    };
    let mut lower = digits.clone().into_bytes();
    if let Some(last) = lower.last_mut() {
        // An odd ASCII digit, so at least b'1': no underflow.
        *last -= 1;
    }
    let candidate = if halfway_after(&lower) {
        // Halfway between `lower` (even) and `digits`.
        lower
    } else if halfway_after(digits.as_bytes()) {
        // Halfway between `digits` and the next one up (even): add one, carrying.
        let mut upper = digits.clone().into_bytes();
        let mut carry = true;
        for d in upper.iter_mut().rev() {
            if !carry {
                break;
            }
            if *d == b'9' {
                *d = b'0';
            } else {
                *d += 1;
                carry = false;
            }
        }
        if carry {
            // 99…9 + 1 changes the exponent; leave such a value as Rust printed it.
            return digits;
        }
        upper
    } else {
        return digits;
    };
    let candidate = String::from_utf8(candidate).unwrap_or_default();
    let trimmed = candidate.trim_end_matches('0');
    // Take it only if it names the same double (it should: it is as close as Rust's).
    let back: Option<f64> = format!("0.{trimmed}e{}", exponent + 1).parse().ok();
    if !trimmed.is_empty() && back == Some(value) {
        trimmed.to_owned()
    } else {
        digits
    }
}

/// Lays out `0.digits × 10^n` by the rules of `Number::toString` (steps 6–10).
fn layout(digits: &str, n: i32, out: &mut String) {
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = n - 1;
        let _ = write!(out, "e{}{}", if e < 0 { '-' } else { '+' }, e.abs());
    }
}

/// `String(value)` as an owned string.
pub fn js_number_to_string(value: f64) -> String {
    let mut out = String::new();
    write_js_number(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::js_number_to_string as s;

    #[test]
    fn formats_like_javascript() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (2.5, "2.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (9007199254740993.0, "9007199254740992"),
            (0.000001, "0.000001"),
            (0.0000001, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (-1e-7, "-1e-7"),
            (4294967295.0, "4294967295"),
        ];
        for (value, expected) in cases {
            assert_eq!(s(*value), *expected, "String({value:?})");
        }
        // Exactly halfway between two shortest candidates: the even one, as V8 prints.
        for (exact, expected) in [
            ("1251472842895692.25", "1251472842895692.2"),
            ("12843489228590.3125", "12843489228590.312"),
            ("261711569948893.625", "261711569948893.62"),
            ("-914072943276800.25", "-914072943276800.2"),
        ] {
            let value: f64 = exact.parse().unwrap();
            assert_eq!(s(value), expected, "String({exact})");
        }
    }
}
