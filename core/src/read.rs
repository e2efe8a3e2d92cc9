//! The readers behind one entry point: [`visit`] walks any [`Arguments`] in
//! canonical order (JSON text through the tape, a key form through the form
//! reader, a raw string as one string), with buffers kept in [`Scratch`].

use crate::error::CanonicalError;
use crate::form_reader::{self, FormFrame};
use crate::json::{Open, Token};
use crate::tape::{Frame, Member, Tape};
use crate::value::{Arguments, Scalar, Str, Visitor};

/// Buffers reused from call to call, so a small call allocates nothing.
#[derive(Debug, Default)]
pub struct Scratch {
    tokens: Vec<Token>,
    open: Vec<Open>,
    frames: Vec<Frame>,
    members: Vec<Member>,
    form_frames: Vec<FormFrame>,
    /// A key form's current string, decoded to UTF-16.
    form_units: Vec<u16>,
    /// Escaped JSON keys, decoded to UTF-16, back to back.
    decoded: Vec<u16>,
    /// The digest's input block: zeroed as it grows (to 16 KB at most), then
    /// kept whole, not trimmed, so a call writes into it without zeroing.
    pub(crate) block: Vec<u8>,
}

/// Buffers larger than this are given back after a call.
const KEEP: usize = 1 << 14;

impl Scratch {
    /// Drops buffers a large call grew, so one huge call does not pin its memory.
    pub(crate) fn trim(&mut self) {
        fn trim<T>(buffer: &mut Vec<T>) {
            buffer.clear();
            if buffer.capacity() > KEEP {
                *buffer = Vec::new();
            }
        }
        trim(&mut self.tokens);
        trim(&mut self.open);
        trim(&mut self.frames);
        trim(&mut self.members);
        trim(&mut self.form_frames);
        trim(&mut self.form_units);
        trim(&mut self.decoded);
    }
}

/// Walks `arguments` in canonical order with `visitor`, using `scratch`'s buffers.
pub(crate) fn visit(
    arguments: Arguments<'_>,
    scratch: &mut Scratch,
    visitor: &mut impl Visitor,
) -> Result<(), CanonicalError> {
    let Scratch {
        tokens,
        open,
        frames,
        members,
        form_frames,
        form_units,
        decoded,
        ..
    } = scratch;
    match arguments {
        Arguments::Json(text) => {
            Tape::parse_json(text, tokens, open)?.walk(frames, members, decoded, visitor);
        }
        Arguments::Form { key, arguments_at } => {
            let form = key
                .get(arguments_at..)
                .ok_or(CanonicalError::InvalidEncoding(arguments_at))?;
            form_reader::walk(form, form_frames, form_units, visitor)?;
        }
        Arguments::Text(units) => visitor.scalar(Scalar::Str(Str::Units(units))),
    }
    Ok(())
}
