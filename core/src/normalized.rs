//! A result's canonical text with its volatile parts removed, as `noProgress` and `failures`
//! compare it (`windows`): every run of hexadecimal digits and hyphens that holds a decimal digit
//! reads as one `#`. [`Normalizer`] is a canonical-text sink, so the text is normalized as it is
//! written, in pieces, and never kept whole.

use crate::canonical::Sink;
use crate::scan;

/// Whether a byte belongs to a run that may be replaced: a hexadecimal digit or a hyphen. A
/// table: one load a byte where the tests take several.
const RUN: [bool; 256] = {
    let mut run = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        run[byte] = (byte as u8).is_ascii_hexdigit() || byte == b'-' as usize;
        byte += 1;
    }
    run
};

fn in_run(byte: u8) -> bool {
    RUN[usize::from(byte)]
}

/// Writes the canonical text it is given into `out`, normalized, and its first `head_bytes` bytes
/// as they are into `head`.
pub(crate) struct Normalizer<'a> {
    out: &'a mut Vec<u8>,
    head: &'a mut Vec<u8>,
    head_bytes: usize,
    /// Whether `out` ends with the `#` of a run that the next piece may go on with.
    open: bool,
}

impl<'a> Normalizer<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>, head: &'a mut Vec<u8>, head_bytes: usize) -> Self {
        Self {
            out,
            head,
            head_bytes,
            open: false,
        }
    }

    /// Takes the next piece of the text. Only decimal digits are looked for: most text has none
    /// for long stretches (where hexadecimal letters are everywhere), and is copied as it is up to
    /// the next; a run is then found around the digit, back into what was copied (from an earlier
    /// piece too) and on to its end.
    fn take(&mut self, piece: &[u8]) {
        let room = self.head_bytes.saturating_sub(self.head.len());
        self.head
            .extend_from_slice(piece.get(..room).unwrap_or(piece));
        let mut rest = piece;
        if self.open {
            let len = rest.iter().position(|&b| !in_run(b)).unwrap_or(rest.len());
            rest = rest.get(len..).unwrap_or_default();
            self.open = rest.is_empty();
        }
        while let Some(digit) = scan::first(rest, scan::digits) {
            let (before, from) = rest.split_at(digit);
            match before.iter().rposition(|&b| !in_run(b)) {
                Some(at) => self
                    .out
                    .extend_from_slice(before.get(..=at).unwrap_or_default()),
                // The run started before this piece: what was copied of it goes.
                None => {
                    while self.out.last().is_some_and(|&b| in_run(b)) {
                        self.out.pop();
                    }
                }
            }
            self.out.push(b'#');
            let len = from.iter().position(|&b| !in_run(b)).unwrap_or(from.len());
            rest = from.get(len..).unwrap_or_default();
            if rest.is_empty() {
                self.open = true;
                return;
            }
        }
        self.out.extend_from_slice(rest);
    }
}

impl Sink for Normalizer<'_> {
    fn write(&mut self, chunk: &str) {
        self.take(chunk.as_bytes());
    }
    fn write_ascii(&mut self, chunk: &[u8]) {
        self.take(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_maximal_run_that_holds_a_digit_is_replaced_wherever_the_pieces_end() {
        // The rule read plainly: maximal runs of hexadecimal digits and hyphens, one at a time.
        fn plainly(text: &[u8]) -> Vec<u8> {
            let mut out = Vec::new();
            for group in text.chunk_by(|&a, &b| in_run(a) == in_run(b)) {
                if group.iter().all(|&b| in_run(b)) && group.iter().any(u8::is_ascii_digit) {
                    out.push(b'#');
                } else {
                    out.extend_from_slice(group);
                }
            }
            out
        }
        const ALPHABET: &[u8] = b"0a-Fz \\\"#";
        // Every text of up to 6 bytes over an alphabet of each kind of byte, in every split into
        // pieces.
        let mut texts = vec![Vec::new()];
        for len in 1..=6 {
            let longer: Vec<Vec<u8>> = texts
                .iter()
                .filter(|t| t.len() == len - 1)
                .flat_map(|t| ALPHABET.iter().map(move |&b| [&t[..], &[b]].concat()))
                .collect();
            texts.extend(longer);
        }
        for text in texts {
            for cuts in 0..1_u32 << text.len().saturating_sub(1) {
                let (mut out, mut head) = (Vec::new(), Vec::new());
                let mut sink = Normalizer::new(&mut out, &mut head, 3);
                let mut start = 0;
                for end in 1..=text.len() {
                    if end == text.len() || cuts & (1 << (end - 1)) != 0 {
                        sink.write_ascii(&text[start..end]);
                        start = end;
                    }
                }
                assert_eq!(
                    out,
                    plainly(&text),
                    "{:?} {cuts:b}",
                    String::from_utf8_lossy(&text)
                );
                assert_eq!(head, &text[..text.len().min(3)]);
            }
        }
    }
}
