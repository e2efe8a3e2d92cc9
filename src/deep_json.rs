//! JSON text for values nested too deep for V8's `JSON.stringify`, following
//! its rules (`toJSON`, dropped members, `null` holes, cycle and BigInt
//! errors) with an explicit stack instead of recursion.

use napi::sys::napi_value;
use napi::Result;
use repeat_tool_guard_core::canonical::write_string_literal;
use repeat_tool_guard_core::number::write_js_number;

use crate::js::{ErrorClass, Js, Kind};

/// The key a value is held under, which `toJSON` receives.
enum Holder {
    Top,
    Index(u32),
    Key(napi_value),
}

enum Task {
    Visit { value: napi_value, holder: Holder },
    Close { bracket: char, object: napi_value },
}

/// The open objects on the current path, in a JavaScript `Set`, to report cycles.
struct Ancestors {
    set: napi_value,
    has: napi_value,
    add: napi_value,
    delete: napi_value,
}

impl Ancestors {
    fn new(js: Js) -> Result<Self> {
        let set = js.construct(js.named(js.global()?, c"Set")?)?;
        Ok(Self {
            set,
            has: js.named(set, c"has")?,
            add: js.named(set, c"add")?,
            delete: js.named(set, c"delete")?,
        })
    }

    fn enter(&self, js: Js, object: napi_value) -> Result<()> {
        if js.boolean(js.call(self.has, self.set, &[object])?)? {
            return Err(js.throw(
                ErrorClass::TypeError,
                "Converting circular structure to JSON",
            ));
        }
        js.call(self.add, self.set, &[object]).map(drop)
    }

    fn leave(&self, js: Js, object: napi_value) -> Result<()> {
        js.call(self.delete, self.set, &[object]).map(drop)
    }
}

/// V8's longest string (2^29 - 24 one-byte characters): past it `JSON.stringify`
/// throws, and so does this walk, before it could exhaust memory.
const MAX_TEXT: usize = (1 << 29) - 24;

fn too_long(js: Js) -> napi::Error {
    js.throw(ErrorClass::RangeError, "Invalid string length")
}

/// `JSON.stringify(root)` without a depth limit; `None` where it would give `undefined`.
pub fn to_json(js: Js, root: napi_value) -> Result<Option<String>> {
    let ancestors = Ancestors::new(js)?;
    let mut out = String::new();
    // One entry per open container: whether it has an element yet.
    let mut written: Vec<bool> = Vec::new();
    let mut tasks = vec![Task::Visit {
        value: root,
        holder: Holder::Top,
    }];
    while let Some(task) = tasks.pop() {
        if out.len() > MAX_TEXT {
            return Err(too_long(js));
        }
        let (value, holder) = match task {
            Task::Close { bracket, object } => {
                out.push(bracket);
                written.pop();
                ancestors.leave(js, object)?;
                continue;
            }
            Task::Visit { value, holder } => (value, holder),
        };
        let value = apply_to_json(js, value, &holder)?;
        let kind = js.kind(value)?;
        let no_json_form = matches!(kind, Kind::Undefined | Kind::Function | Kind::Symbol);
        match (&holder, no_json_form) {
            (Holder::Top, true) => return Ok(None),
            (Holder::Key(_), true) => continue,
            _ => {}
        }
        if let Some(any) = written.last_mut() {
            if *any {
                out.push(',');
            }
            *any = true;
        }
        if let Holder::Key(key) = holder {
            write_string_literal(&js.utf16(key)?, &mut out);
            out.push(':');
        }
        match kind {
            Kind::Undefined | Kind::Function | Kind::Symbol | Kind::Null => out.push_str("null"),
            Kind::Boolean => out.push_str(if js.boolean(value)? { "true" } else { "false" }),
            Kind::Number => {
                let number = js.number(value)?;
                if number.is_finite() {
                    write_js_number(number, &mut out);
                } else {
                    out.push_str("null");
                }
            }
            Kind::String => write_string_literal(&js.utf16(value)?, &mut out),
            Kind::BigInt => {
                return Err(js.throw(
                    ErrorClass::TypeError,
                    "Do not know how to serialize a BigInt",
                ))
            }
            Kind::Object | Kind::External => {
                ancestors.enter(js, value)?;
                written.push(false);
                if js.is_array(value)? {
                    let len = js.array_length(value)? as usize;
                    // Every element prints at least one character and a comma.
                    if len.saturating_mul(2) > MAX_TEXT.saturating_sub(out.len()) {
                        return Err(too_long(js));
                    }
                    out.push('[');
                    tasks.push(Task::Close {
                        bracket: ']',
                        object: value,
                    });
                    for index in (0..len as u32).rev() {
                        tasks.push(Task::Visit {
                            value: js.element(value, index)?,
                            holder: Holder::Index(index),
                        });
                    }
                } else {
                    out.push('{');
                    tasks.push(Task::Close {
                        bracket: '}',
                        object: value,
                    });
                    let keys = js.keys(value)?;
                    for index in (0..js.array_length(keys)?).rev() {
                        let key = js.element(keys, index)?;
                        tasks.push(Task::Visit {
                            value: js.property(value, key)?,
                            holder: Holder::Key(key),
                        });
                    }
                }
            }
        }
    }
    Ok(Some(out))
}

/// `value.toJSON(key)` when `value` is an object with a callable `toJSON`.
fn apply_to_json(js: Js, value: napi_value, holder: &Holder) -> Result<napi_value> {
    if js.kind(value)? != Kind::Object {
        return Ok(value);
    }
    let to_json = js.named(value, c"toJSON")?;
    if js.kind(to_json)? != Kind::Function {
        return Ok(value);
    }
    let key = match holder {
        Holder::Top => js.string("")?,
        Holder::Index(index) => js.string(&index.to_string())?,
        Holder::Key(key) => *key,
    };
    js.call(to_json, value, &[key])
}
