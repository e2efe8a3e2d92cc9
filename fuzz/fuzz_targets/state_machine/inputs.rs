//! What the state machine's ops draw from: names over a tricky alphabet, pools of
//! arguments, results and agent ids, and the key paths `ignoreArguments` may name.

use arbitrary::Arbitrary;
use repeat_tool_guard_core::Arguments;

/// A short tool name or pattern over an alphabet rich in glob and regex metacharacters.
/// Line terminators included: the reference's `.*` does not match them, and neither may `*`.
/// Lone surrogates, U+FFFD and the halves of a pair too: `*` takes one code unit.
#[derive(Arbitrary, Debug, Clone)]
pub(crate) struct Name(pub(crate) Vec<u8>);

pub(crate) const ALPHABET: [&[u16]; 27] = [
    &[0x61],
    &[0x62],
    &[0x5f],
    &[0x2a],
    &[0x2a],
    &[0x2e],
    &[0x3f],
    &[0x5b],
    &[0x5d],
    &[0x7b],
    &[0x7d],
    &[0x2c],
    &[0x5c],
    &[0x2f],
    &[0x5e],
    &[0x24],
    &[0x28],
    &[0xe9],
    // 😀, and each of its halves alone.
    &[0xd83d, 0xde00],
    &[0xd83d],
    &[0xde00],
    &[0xd800],
    &[0xdbff],
    &[0xfffd],
    &[0x0],
    &[0x0a],
    &[0x2028],
];

impl Name {
    pub(crate) fn text(&self) -> Vec<u16> {
        self.0
            .iter()
            .take(8)
            .flat_map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()].iter().copied())
            .collect()
    }
}

/// A string's UTF-16 code units.
pub(crate) fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Key paths `ignoreArguments` may name: (as configured, the names it stands for).
pub(crate) const KEYS: [(&str, &[&str]); 7] = [
    ("a", &["a"]),
    ("b", &["b"]),
    ("0", &["0"]),
    ("a.x", &["a", "x"]),
    ("__proto__.x", &["__proto__", "x"]),
    (r"x\.y", &["x.y"]),
    ("task_progress", &["task_progress"]),
];

/// A key path of `ignoreArguments`: as configured, and the names it stands for.
pub(crate) type KeyNames = (String, Vec<Vec<u16>>);
/// One `ignoreArguments` entry as the model holds it: its patterns and its keys.
pub(crate) type IgnoreModel = (Vec<Vec<u16>>, Vec<KeyNames>);

pub(crate) const SIMILARITIES: [f64; 4] = [0.5, 0.7, 0.85, 1.0];

/// Words that drifting calls are made of: short ones change a lot from call to call, long ones little.
pub(crate) const WORDS: [&str; 3] = ["q", "needle", "a much longer search pattern"];

#[derive(Arbitrary, Debug, Clone)]
pub(crate) enum Args {
    Pool(u8),
    Json(String),
    Text(Vec<u16>),
    Deep { depth: u16, object: bool },
}

/// JSON texts with equivalent spellings next to each other, invalid ones among them.
pub(crate) const POOL: [&str; 24] = [
    r#"{"a":1,"b":2}"#,
    r#" { "b" : 2.0 , "a" : 1e0 } "#,
    r#"{"b":2,"a":1,"a":1}"#,
    r#"{}"#,
    r#"[]"#,
    r#""x""#,
    r#""\u0078""#,
    r#"{"1":1,"0":0,"a":[]}"#,
    r#"{"a":[],"0":0,"1":1}"#,
    "{\"\u{1f600}\":1,\"\u{ff5e}\":2}",
    r#"{"\uff5e":2,"\ud83d\ude00":1}"#,
    r#""\ud800""#,
    r#"-0"#,
    r#"0"#,
    r#"1e21"#,
    r#"1000000000000000000000"#,
    r#"9007199254740993"#,
    r#"{"__proto__":{"x":1}}"#,
    r#"{"constructor":null}"#,
    r#"{"#,
    r#"[1,]"#,
    r#"1e400"#,
    r#"null"#,
    r#""\u0000\u001f\"\\""#,
];

/// Tool results as `{ content, isError }` JSON: equal ones spelled differently, an invalid one.
pub(crate) const RESULTS: [&str; 12] = [
    r#"{"content":[{"type":"text","text":"ok"}],"isError":false}"#,
    r#"{"isError":false,"content":[{"text":"ok","type":"text"}]}"#,
    r#"{"content":[{"type":"text","text":"ok"}],"isError":true}"#,
    r#"{"content":[{"type":"text","text":"progress 2"}],"isError":false}"#,
    r#"{"isError":false}"#,
    r#"{"content":[],"isError":false}"#,
    r#"{"content":["#,
    // Failures that differ only in a volatile part, and a text that merely holds an error word.
    r#"{"content":[{"type":"text","text":"Error: no such file a-7"}],"isError":false}"#,
    r#"{"content":[{"type":"text","text":"Error: no such file b-19"}],"isError":false}"#,
    r#"{"content":[{"type":"text","text":"ERROR: No such file a-7"}],"isError":false}"#,
    r#"{"content":[{"type":"text","text":"terror 3"}],"isError":false}"#,
    // An error word after a line break starts a word.
    r#"{"content":[{"type":"text","text":"done\nError: x"}],"isError":false}"#,
];

/// Agent ids, three of them told apart only by a lone surrogate or U+FFFD.
pub(crate) const AGENTS: [&[u16]; 8] = [
    &[0x61],
    &[0x62],
    &[0x61, 0x67, 0x65, 0x6e, 0x74, 0x2d, 0xd83d, 0xde00],
    &[],
    &[0x61, 0x0],
    &[0x61, 0xd800],
    &[0x61, 0xdbff],
    &[0x61, 0xfffd],
];

pub(crate) fn agent(index: u8) -> &'static [u16] {
    AGENTS[usize::from(index) % AGENTS.len()]
}

/// Owned arguments, so a call can be repeated.
pub(crate) enum Owned {
    Json(String),
    Text(Vec<u16>),
}

impl Owned {
    pub(crate) fn from(args: &Args) -> Self {
        match args {
            Args::Pool(i) => Owned::Json(POOL[usize::from(*i) % POOL.len()].to_owned()),
            Args::Json(text) => Owned::Json(text.clone()),
            Args::Text(units) => Owned::Text(units.clone()),
            Args::Deep { depth, object } => {
                let depth = usize::from(*depth % 512);
                Owned::Json(if *object {
                    format!("{}0{}", "{\"k\":".repeat(depth), "}".repeat(depth))
                } else {
                    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
                })
            }
        }
    }

    pub(crate) fn arguments(&self) -> Arguments<'_> {
        match self {
            Owned::Json(text) => Arguments::Json(text),
            Owned::Text(units) => Arguments::Text(units),
        }
    }
}
