//! One entry point: [`visit`] walks any [`Arguments`] in canonical order (a
//! transport read onto the tape, which does the walking; JSON text written
//! into a transport first; a raw string as one string), with buffers kept in
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
    /// Wide keys, decoded to UTF-16, back to back.
    decoded: Vec<u16>,
    /// JSON text in the transport's encoding, its open containers, and its strings' code units.
    converted: Vec<u8>,
    converting: Vec<(usize, bool)>,
    units: Vec<u16>,
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
        trim(&mut self.converted);
        trim(&mut self.converting);
        trim(&mut self.units);
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
        converted,
        converting,
        units,
        ..
    } = scratch;
    let (bytes, pieces) = match arguments {
        Arguments::Json(text) => {
            json::to_transport(text.as_bytes(), converted, converting, units)?;
            (&converted[..], Pieces::NONE)
        }
        Arguments::Transport { bytes, pieces } => (bytes, pieces),
        Arguments::Text(units) => {
            visitor.scalar(Scalar::Str(Str::Units(units)));
            return Ok(());
        }
    };
    transport::parse(
        bytes,
        (pieces.narrow.len(), pieces.wide.len()),
        tokens,
        open,
    )?;
    let tape = Tape {
        bytes,
        pieces,
        tokens,
    };
    tape.walk(frames, members, decoded, visitor);
    Ok(())
}
