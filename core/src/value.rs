//! The value vocabulary every reader produces and every writer consumes:
//! the [`Arguments`] of a call as the binding gets them, the scalars and
//! strings a walk in canonical order yields, and the [`Visitor`] it yields
//! them to. The tape's walk (`tape`) calls a visitor; writers (`canonical`,
//! `digest`) are visitors.

use crate::key_order::Key;

/// The arguments of one call, in one of the forms the binding can get cheaply.
#[derive(Clone, Copy, Debug)]
pub enum Arguments<'a> {
    /// JSON text of the value (unsorted keys are fine).
    Json(&'a str),
    /// A JavaScript string value (the loop's raw-string fallback), as UTF-16.
    Text(&'a [u16]),
    /// A value as the plugin's JavaScript writes it (`transport`): members
    /// in their own order, long strings passed as they are, in `pieces`.
    /// Canonicalized here like JSON text, and checked in full.
    Transport { bytes: &'a [u8], pieces: Pieces<'a> },
}

/// The long strings a transport passes as they are, each list referred to by
/// index: `narrow` ones, every code unit at most 0xff and one byte each
/// (`transport_tag::LONG`), and `wide` ones, as UTF-16 (`transport_tag::LONG_WIDE`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pieces<'a> {
    pub narrow: &'a [&'a [u8]],
    pub wide: &'a [&'a [u16]],
}

impl Pieces<'_> {
    /// None at all.
    pub const NONE: Pieces<'static> = Pieces {
        narrow: &[],
        wide: &[],
    };
}

/// A string of a value, resolved against its source.
#[derive(Clone, Copy)]
pub(crate) enum Str<'a> {
    /// UTF-16 code units.
    Units(&'a [u16]),
    /// Code units of at most 0xff, one byte each (from the transport).
    Narrow(&'a [u8]),
    /// Code units, two bytes each, little-endian (from the transport).
    Wide(&'a [u8]),
}

/// A scalar of a value, resolved against its source.
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    Number(f64),
    Str(Str<'a>),
}

/// Receives a value in canonical order: object members sorted, duplicates
/// resolved, members without a JSON form left out.
pub(crate) trait Visitor {
    fn scalar(&mut self, value: Scalar<'_>);
    fn open_array(&mut self);
    fn close_array(&mut self);
    fn open_object(&mut self);
    fn close_object(&mut self);
    /// Before every array element but the first.
    fn element_separator(&mut self);
    /// The key of the next member; `first` for the object's first member.
    fn key(&mut self, key: &Key<'_>, first: bool);
    /// Whether the visitor wants no more: the walk may stop early (a capped sample).
    #[inline(always)]
    fn full(&self) -> bool {
        false
    }
}

impl<'a> From<&Key<'a>> for Str<'a> {
    fn from(key: &Key<'a>) -> Self {
        match *key {
            Key::Units(units) => Str::Units(units),
            Key::Narrow(bytes) => Str::Narrow(bytes),
        }
    }
}
