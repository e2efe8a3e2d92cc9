//! The [`Arguments`] of a call, in the forms the binding and the tests hand
//! the guard, and the long strings a transport passes beside its bytes.

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
