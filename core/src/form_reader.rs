//! A key form's arguments read back in place and walked with a [`Visitor`],
//! checking every tag and length and the members' order: the detailed
//! reminder quotes the arguments the plugin wrote. Iterative: input depth
//! never becomes Rust stack depth.

use crate::error::CanonicalError;
use crate::form::read_string;
use crate::form::tag::{ARRAY, END, FALSE, NARROW, NULL, NUMBER, OBJECT, TRUE, WIDE};
use crate::key_order::Key;
use crate::value::{Scalar, Str, Visitor};

/// An open container during [`walk`]: whether it is an object, whether a
/// value was read in it yet, and for an object the last key read.
#[derive(Debug, Default)]
pub(crate) struct FormFrame {
    object: bool,
    first: bool,
    last_key: Vec<u16>,
}

/// Walks the arguments' form (a key form past its tool name) with `visitor`,
/// checking every tag and length, that members come in canonical order with
/// no key twice, that every container is closed, and that nothing trails.
/// Iterative: input depth never becomes Rust stack depth.
pub(crate) fn walk(
    form: &[u8],
    frames: &mut Vec<FormFrame>,
    units: &mut Vec<u16>,
    visitor: &mut impl Visitor,
) -> Result<(), CanonicalError> {
    let invalid = CanonicalError::InvalidEncoding;
    frames.clear();
    let mut at = 0;
    loop {
        // Close what ends here, then read a key if the value is a member's.
        if let Some(frame) = frames.last_mut() {
            if form.get(at) == Some(&END) {
                at += 1;
                if frame.object {
                    visitor.close_object();
                } else {
                    visitor.close_array();
                }
                frames.pop();
                if frames.is_empty() {
                    return if at == form.len() {
                        Ok(())
                    } else {
                        Err(invalid(at))
                    };
                }
                continue;
            }
            if frame.object {
                let (key, end) = read_string(form, at)?;
                units.clear();
                units.extend(key.units());
                if !frame.first
                    && Key::Units(&frame.last_key)
                        .canonical_cmp(&Key::Units(units))
                        .is_ge()
                {
                    return Err(invalid(at));
                }
                visitor.key(&Key::Units(units), frame.first);
                std::mem::swap(&mut frame.last_key, units);
                at = end;
            } else if !frame.first {
                visitor.element_separator();
            }
            frame.first = false;
        }
        let tag = *form.get(at).ok_or(invalid(at))?;
        at = match tag {
            NULL => {
                visitor.scalar(Scalar::Null);
                at + 1
            }
            FALSE | TRUE => {
                visitor.scalar(Scalar::Bool(tag == TRUE));
                at + 1
            }
            NUMBER => {
                let bits = form
                    .get(at + 1..)
                    .and_then(|rest| rest.first_chunk::<8>())
                    .ok_or(invalid(at))?;
                let value = f64::from_le_bytes(*bits);
                // Only what the writers write: finite, and 0 rather than -0.
                if !value.is_finite() || (value == 0.0 && value.is_sign_negative()) {
                    return Err(invalid(at));
                }
                visitor.scalar(Scalar::Number(value));
                at + 9
            }
            NARROW | WIDE => {
                let (text, end) = read_string(form, at)?;
                units.clear();
                units.extend(text.units());
                visitor.scalar(Scalar::Str(Str::Units(units)));
                end
            }
            ARRAY | OBJECT => {
                let object = tag == OBJECT;
                if object {
                    visitor.open_object();
                } else {
                    visitor.open_array();
                }
                frames.push(FormFrame {
                    object,
                    first: true,
                    last_key: Vec::new(),
                });
                at += 1;
                continue;
            }
            _ => return Err(invalid(at)),
        };
        if frames.is_empty() {
            return if at == form.len() {
                Ok(())
            } else {
                Err(invalid(at))
            };
        }
    }
}
