//! The readers behind one entry point: [`visit`] walks any [`Arguments`] in
//! canonical order (JSON text and the transport read onto the tape, which
//! does the walking; a raw string as one string), with buffers kept in
//! [`Scratch`].

use crate::error::CanonicalError;
use crate::tape::{Frame, Member, Open, Tape, Token};
use crate::value::{Arguments, Pieces, Scalar, Str, Visitor};
use crate::{json, transport};

/// Buffers reused from call to call, so a small call allocates nothing.
#[derive(Debug, Default)]
pub struct Scratch {
    tokens: Vec<Token>,
    pub(crate) open: Vec<Open>,
    frames: Vec<Frame>,
    members: Vec<Member>,
    /// Escaped JSON keys and wide transport keys, decoded to UTF-16, back to back.
    decoded: Vec<u16>,
    /// The key form being written (see `digester`): at most three blocks of 16 KB, kept.
    pub(crate) form: Vec<u8>,
}

/// Buffers larger than this are given back after a call.
pub(crate) const KEEP: usize = 1 << 14;

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
        decoded,
        ..
    } = scratch;
    let (text, bytes, pieces) = match arguments {
        Arguments::Json(text) => {
            json::parse(text.as_bytes(), tokens, open)?;
            (text, &[][..], Pieces::NONE)
        }
        Arguments::Transport { bytes, pieces } => {
            transport::parse(
                bytes,
                (pieces.narrow.len(), pieces.wide.len()),
                tokens,
                open,
            )?;
            ("", bytes, pieces)
        }
        Arguments::Text(units) => {
            visitor.scalar(Scalar::Str(Str::Units(units)));
            return Ok(());
        }
    };
    let tape = Tape {
        text,
        bytes,
        pieces,
        tokens,
    };
    tape.walk(frames, members, decoded, visitor);
    Ok(())
}
