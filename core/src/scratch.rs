//! One entry point: [`Reading::write`] writes any [`Arguments`]' key form (a
//! transport checked, then written by `key_form`; JSON text written into a
//! transport first; a raw string as one string) to a `FormSink`, with buffers
//! kept in [`Scratch`].

use crate::arguments::Arguments;
use crate::error::CanonicalError;
use crate::form::{all_narrow, push_units, FormStr};
use crate::ignore::KeyPath;
use crate::key_form::{self, FormSink, Walk};
use crate::transport::Open;
use crate::{json, transport};

/// Buffers reused from call to call, so a small call allocates nothing.
#[derive(Debug, Default)]
pub struct Scratch {
    pub(crate) reading: Reading,
    /// The key form being written.
    pub(crate) form: Vec<u8>,
    /// A result's form with its volatile parts removed, the first bytes of its strings, and a
    /// wide string as bytes (`FormStr::as_bytes`), for `windows`.
    pub(crate) normalized: Vec<u8>,
    pub(crate) said: Vec<u8>,
    pub(crate) text: Vec<u8>,
}

/// Buffers larger than this are given back after a call.
pub(crate) const KEEP: usize = 1 << 14;

/// What reading arguments into their key form takes.
#[derive(Debug, Default)]
pub(crate) struct Reading {
    pub(crate) open: Vec<Open>,
    pub(crate) walk: Walk,
    /// JSON text in the transport's encoding, its open containers, and its strings' code units.
    converted: Vec<u8>,
    converting: Vec<(usize, bool)>,
    units: Vec<u16>,
}

impl Scratch {
    /// Drops buffers a large call grew, so one huge call does not pin its memory.
    pub(crate) fn trim(&mut self) {
        fn trim<T>(buffer: &mut Vec<T>) {
            buffer.clear();
            if buffer.capacity() > KEEP {
                *buffer = Vec::new();
            }
        }
        let reading = &mut self.reading;
        trim(&mut reading.open);
        trim(&mut reading.walk.frames);
        trim(&mut reading.walk.members);
        trim(&mut reading.converted);
        trim(&mut reading.converting);
        trim(&mut reading.units);
        trim(&mut self.form);
        trim(&mut self.normalized);
        trim(&mut self.said);
        trim(&mut self.text);
    }
}

impl Reading {
    /// Writes the key form of `arguments`, without the members the key paths `ignored` name, to
    /// `out`; `walk.removed` then says which of those paths left something out.
    pub(crate) fn write(
        &mut self,
        arguments: Arguments<'_>,
        ignored: &[KeyPath],
        out: &mut impl FormSink,
    ) -> Result<(), CanonicalError> {
        let Reading {
            open,
            walk,
            converted,
            converting,
            units,
        } = self;
        let bytes = match arguments {
            Arguments::Json(text) => {
                json::to_transport(text.as_bytes(), converted, converting, units)?;
                &converted[..]
            }
            Arguments::Transport(bytes) => bytes,
            Arguments::Text(text) => {
                let narrow = all_narrow(text);
                converted.clear();
                push_units(converted, text, narrow);
                out.string(FormStr {
                    wide: !narrow,
                    bytes: converted,
                });
                walk.removed.clear();
                walk.removed.resize(ignored.len(), false);
                return Ok(());
            }
        };
        transport::check(bytes, open)?;
        key_form::write(bytes, ignored, out, walk);
        Ok(())
    }
}
