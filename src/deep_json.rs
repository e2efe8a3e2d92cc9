//! JSON text for values nested too deep for V8's `JSON.stringify`, following
//! its rules (`toJSON`, dropped members, `null` holes, cycle and `BigInt`
//! errors) with an explicit stack instead of recursion.

use napi::sys::napi_value;
use napi::Result;
use repeat_tool_guard_core::{write_js_number, write_string_literal};

use crate::js::{ErrorClass, Js};
use crate::kind::Kind;

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
    fn new(js: &mut Js) -> Result<Self> {
        let global = js.global()?;
        let constructor = js.named(global, c"Set")?;
        let set = js.construct(constructor)?;
        Ok(Self {
            set,
            has: js.named(set, c"has")?,
            add: js.named(set, c"add")?,
            delete: js.named(set, c"delete")?,
        })
    }

    fn enter(&self, js: &mut Js, object: napi_value) -> Result<()> {
        let has = js.call(self.has, self.set, &[object])?;
        if js.boolean(has)? {
            return Err(js.throw(
                ErrorClass::TypeError,
                "Converting circular structure to JSON",
            ));
        }
        js.call(self.add, self.set, &[object]).map(drop)
    }

    fn leave(&self, js: &mut Js, object: napi_value) -> Result<()> {
        js.call(self.delete, self.set, &[object]).map(drop)
    }
}

/// JavaScript functions for what Node-API cannot tell: `Array.isArray` (which
/// sees through proxies, as `JSON.stringify` does) and boxed primitives.
struct Helpers {
    is_array: napi_value,
    array: napi_value,
    to_string_tag: napi_value,
    number: napi_value,
    string: napi_value,
    number_value_of: napi_value,
    string_value_of: napi_value,
    boolean_value_of: napi_value,
    bigint_value_of: napi_value,
}

impl Helpers {
    fn new(js: &mut Js) -> Result<Self> {
        let global = js.global()?;
        let array = js.named(global, c"Array")?;
        let object_prototype = js.path(global, &[c"Object", c"prototype"])?;
        Ok(Self {
            is_array: js.named(array, c"isArray")?,
            array,
            to_string_tag: js.named(object_prototype, c"toString")?,
            number: js.named(global, c"Number")?,
            string: js.named(global, c"String")?,
            number_value_of: js.path(global, &[c"Number", c"prototype", c"valueOf"])?,
            string_value_of: js.path(global, &[c"String", c"prototype", c"valueOf"])?,
            boolean_value_of: js.path(global, &[c"Boolean", c"prototype", c"valueOf"])?,
            bigint_value_of: js.path(global, &[c"BigInt", c"prototype", c"valueOf"])?,
        })
    }

    fn is_array(&self, js: &mut Js, value: napi_value) -> Result<bool> {
        let is_array = js.call(self.is_array, self.array, &[value])?;
        js.boolean(is_array)
    }

    /// A `Number`, `String`, `Boolean` or `BigInt` object becomes its primitive,
    /// as `JSON.stringify` unwraps them (by `ToNumber`, `ToString`, or the value).
    fn unbox(&self, js: &mut Js, value: napi_value) -> Result<napi_value> {
        if js.kind(value)? != Kind::Object {
            return Ok(value);
        }
        let tag = js.call(self.to_string_tag, value, &[])?;
        let tag = js.utf8(tag)?;
        // `probe` (the box's own valueOf) throws unless `value` really is a box: the
        // tag can be faked with Symbol.toStringTag. Numbers and strings are then
        // converted by ToNumber / ToString, as JSON.stringify does; the others are
        // their primitive.
        let (probe, convert) = match tag.as_str() {
            "[object Number]" => (self.number_value_of, Some(self.number)),
            "[object String]" => (self.string_value_of, Some(self.string)),
            "[object Boolean]" => (self.boolean_value_of, None),
            "[object BigInt]" => (self.bigint_value_of, None),
            _ => return Ok(value),
        };
        let Ok(primitive) = js.call(probe, value, &[]) else {
            js.take_exception();
            return Ok(value);
        };
        match convert {
            None => Ok(primitive),
            Some(convert) => js.call(convert, js.undefined()?, &[value]),
        }
    }
}

/// V8's longest string (2^29 - 24 one-byte characters): past it `JSON.stringify`
/// throws, and so does this walk, before it could exhaust memory.
const MAX_TEXT: usize = (1 << 29) - 24;

fn too_long(js: &mut Js) -> napi::Error {
    js.throw(ErrorClass::RangeError, "Invalid string length")
}

/// `JSON.stringify(root)` without a depth limit; `None` where it would give `undefined`.
pub fn to_json(js: &mut Js, root: napi_value) -> Result<Option<String>> {
    let ancestors = Ancestors::new(js)?;
    let helpers = Helpers::new(js)?;
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
        let value = helpers.unbox(js, value)?;
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
                if helpers.is_array(js, value)? {
                    // LengthOfArrayLike, as JSON.stringify reads it (a proxy has no napi length).
                    let length = js.named(value, c"length")?;
                    let length = js.number(length)?;
                    let len = if length.is_nan() || length <= 0.0 {
                        0
                    } else {
                        length.min(usize::MAX as f64) as usize
                    };
                    // Every element prints at least one character and a comma.
                    if len.saturating_mul(2) > MAX_TEXT.saturating_sub(out.len()) {
                        return Err(too_long(js));
                    }
                    out.push('[');
                    tasks.push(Task::Close {
                        bracket: ']',
                        object: value,
                    });
                    // `len` fits in u32: the check above keeps it under V8's longest string.
                    for index in (0..u32::try_from(len).unwrap_or(u32::MAX)).rev() {
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

/// `value.toJSON(key)` when `value` (an object, a function or a `BigInt`) has a callable `toJSON`.
fn apply_to_json(js: &mut Js, value: napi_value, holder: &Holder) -> Result<napi_value> {
    if !matches!(
        js.kind(value)?,
        Kind::Object | Kind::Function | Kind::BigInt
    ) {
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
