//! JavaScript's Number-to-String conversion (ECMA-262 `Number::toString`).
//!
//! Canonical arguments and validation messages must show numbers exactly as
//! JavaScript does (`1e+21`, `5e-324`, `-0` → `0`, the even digits on a tie):
//! `ryu-js` prints them so.

/// `String(value)` as JavaScript computes it, written in `buffer`.
pub(crate) fn js_number(value: f64, buffer: &mut ryu_js::Buffer) -> &str {
    // `-0` prints as `0`; ryu-js keeps the sign.
    buffer.format(if value == 0.0 { 0.0 } else { value })
}

/// `String(value)` as JavaScript computes it.
pub fn js_number_to_string(value: f64) -> String {
    js_number(value, &mut ryu_js::Buffer::new()).to_owned()
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
