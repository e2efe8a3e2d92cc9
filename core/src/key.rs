//! The chain key of a call: its key form kept as it is when it is at most
//! [`INLINE`] bytes (most calls: comparing it is exact and costs no hashing)
//! and otherwise as its 256-bit BLAKE3 digest. Either way a chain's size does
//! not grow with the arguments while detection still covers every byte of
//! them: two different calls share a key only through a BLAKE3 collision.

/// Binary forms up to this many bytes are the key themselves.
pub const INLINE: usize = 128;

/// [`CallKey::len`] of a key holding a digest rather than a binary form.
const DIGEST: u8 = u8::MAX;

/// The chain key of one call: a short binary form, or the digest of a longer one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CallKey {
    /// The binary form's length, or [`DIGEST`]: a digest and a form never compare equal.
    len: u8,
    /// The form, or the digest, zero-padded.
    bytes: [u8; INLINE],
}

/// A call's key before it is stored: the key form where it was written
/// (`digest`), (at most [`INLINE`] bytes), or its digest. The chain compares it with the
/// key it holds in place ([`CallKey::is`]) and copies it only when it differs,
/// so the common repeated call builds and moves no [`CallKey`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum KeyForm<'a> {
    Inline(&'a [u8]),
    Digest([u8; blake3::OUT_LEN]),
}

impl KeyForm<'_> {
    /// The (tag, meaningful bytes) a [`CallKey`] holds for this form, its other bytes zero.
    fn parts(&self) -> (u8, &[u8]) {
        match self {
            // An inline form has at most INLINE (< DIGEST) bytes.
            KeyForm::Inline(form) => (form.len() as u8, form),
            KeyForm::Digest(hash) => (DIGEST, hash),
        }
    }
}

impl CallKey {
    /// Whether this is the key `form` stands for: `*self == CallKey::from(form)`,
    /// without building it (both are zero past their meaningful bytes).
    pub(crate) fn is(&self, form: &KeyForm<'_>) -> bool {
        let (len, bytes) = form.parts();
        self.len == len
            && self
                .bytes
                .get(..bytes.len())
                .is_some_and(|held| held == bytes)
    }

    /// Makes this the key `form` stands for, in place.
    pub(crate) fn set(&mut self, form: &KeyForm<'_>) {
        let (len, bytes) = form.parts();
        let (head, tail) = self.bytes.split_at_mut(bytes.len().min(INLINE));
        head.copy_from_slice(bytes.get(..head.len()).unwrap_or_default());
        tail.fill(0);
        self.len = len;
    }

    /// The form this key stands for (the inverse of [`CallKey::set`]).
    pub(crate) fn form(&self) -> KeyForm<'_> {
        if self.len == DIGEST {
            let mut hash = [0; blake3::OUT_LEN];
            hash.copy_from_slice(self.bytes.get(..blake3::OUT_LEN).unwrap_or_default());
            KeyForm::Digest(hash)
        } else {
            KeyForm::Inline(self.bytes.get(..usize::from(self.len)).unwrap_or_default())
        }
    }
}

impl From<&KeyForm<'_>> for CallKey {
    fn from(form: &KeyForm<'_>) -> Self {
        let mut key = Self {
            len: 0,
            bytes: [0; INLINE],
        };
        key.set(form);
        key
    }
}
