//! The [`Arguments`] of a call, in the forms the binding and the tests hand
//! the guard.

/// The arguments of one call, in one of the forms the binding can get cheaply.
#[derive(Clone, Copy, Debug)]
pub enum Arguments<'a> {
    /// JSON text of the value (unsorted keys are fine).
    Json(&'a str),
    /// A JavaScript string value (the loop's raw-string fallback), as UTF-16.
    Text(&'a [u16]),
    /// A value as the plugin's JavaScript writes it (`transport`): members in
    /// their own order. Canonicalized here like JSON text, and checked in full.
    Transport(&'a [u8]),
}
