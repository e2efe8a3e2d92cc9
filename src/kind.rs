//! JavaScript's `typeof`, the one vocabulary of value kinds the binding's modules share.

use napi::ValueType;

/// JavaScript's `typeof`, as Node-API reports it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Undefined,
    Null,
    Boolean,
    Number,
    String,
    Symbol,
    Object,
    Function,
    BigInt,
    External,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Undefined => "undefined",
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Symbol => "symbol",
            Kind::Object => "object",
            Kind::Function => "function",
            Kind::BigInt => "bigint",
            Kind::External => "external",
        }
    }
}

impl From<ValueType> for Kind {
    fn from(value_type: ValueType) -> Self {
        match value_type {
            ValueType::Undefined => Kind::Undefined,
            ValueType::Null => Kind::Null,
            ValueType::Boolean => Kind::Boolean,
            ValueType::Number => Kind::Number,
            ValueType::String => Kind::String,
            ValueType::Symbol => Kind::Symbol,
            ValueType::Function => Kind::Function,
            ValueType::BigInt => Kind::BigInt,
            ValueType::External => Kind::External,
            ValueType::Object | ValueType::Unknown => Kind::Object,
        }
    }
}
