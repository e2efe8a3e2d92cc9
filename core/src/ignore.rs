//! Opt-in `ignoreArguments: [{ tools, keys }]`: argument keys left out of a
//! call for tools matching `tools`, before it is keyed, sampled for
//! similarity or quoted. A key is a path of names into nested objects,
//! separated by `.`; within a name `\.` is a dot and `\\` a backslash. Paths
//! go through objects only: a name never matches inside an array.

use std::sync::Arc;

use crate::patterns::{matches_any, ToolCache};

const DOT: u16 = b'.' as u16;
const BACKSLASH: u16 = b'\\' as u16;

/// One key path: the text as configured (for the reminder) and its names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPath {
    pub text: Vec<u16>,
    names: Vec<Vec<u16>>,
}

impl KeyPath {
    /// Parses `text`; `None` when a name is empty or an escape is not `\.` or `\\`.
    pub fn parse(text: &[u16]) -> Option<Self> {
        let mut names = vec![Vec::new()];
        let mut units = text.iter().copied();
        while let Some(unit) = units.next() {
            match unit {
                DOT => names.push(Vec::new()),
                BACKSLASH => match units.next() {
                    Some(escaped @ (DOT | BACKSLASH)) => names.last_mut()?.push(escaped),
                    _ => return None,
                },
                other => names.last_mut()?.push(other),
            }
        }
        names.iter().all(|name| !name.is_empty()).then(|| Self {
            text: text.to_vec(),
            names,
        })
    }

    /// The names, decoded, in order.
    pub(crate) fn names(&self) -> &[Vec<u16>] {
        &self.names
    }
}

/// One validated entry: patterns and key paths, neither empty.
#[derive(Debug, Clone, PartialEq)]
pub struct IgnoreEntry {
    pub tools: Vec<Vec<u16>>,
    pub keys: Vec<KeyPath>,
}

/// The entries, with each tool name's paths cached.
#[derive(Debug, Clone, Default)]
pub struct IgnoreRules {
    entries: Vec<IgnoreEntry>,
    cache: ToolCache<Arc<[KeyPath]>>,
}

/// Equal when the entries are (the cache is what was worked out from them).
impl PartialEq for IgnoreRules {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl IgnoreRules {
    pub fn new(entries: Vec<IgnoreEntry>) -> Self {
        Self {
            entries,
            cache: ToolCache::default(),
        }
    }

    /// The paths left out of `tool`'s calls: those of every matching entry, in
    /// config order, once each; `None` when there are no entries at all.
    pub fn paths_for(&mut self, tool: &[u16]) -> Option<Arc<[KeyPath]>> {
        if self.entries.is_empty() {
            return None;
        }
        let entries = &self.entries;
        Some(self.cache.get(tool, || {
            let mut paths: Vec<KeyPath> = Vec::new();
            for entry in entries
                .iter()
                .filter(|entry| matches_any(&entry.tools, tool))
            {
                for key in &entry.keys {
                    if !paths.contains(key) {
                        paths.push(key.clone());
                    }
                }
            }
            paths.into()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arguments::Arguments;
    use crate::scratch::Scratch;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn path(text: &str) -> KeyPath {
        KeyPath::parse(&units(text)).unwrap_or_else(|| panic!("{text} is a path"))
    }

    /// The canonical text of `json` without `paths`, and the paths that removed something.
    fn without(json: &str, paths: &[&str]) -> (String, Vec<String>) {
        let paths: Vec<KeyPath> = paths.iter().map(|p| path(p)).collect();
        let mut out = String::new();
        let removed = Arguments::Json(json)
            .write_canonical_without(&mut out, &paths, &mut Scratch::default())
            .unwrap();
        (
            out,
            removed
                .iter()
                .map(|p| String::from_utf16_lossy(p))
                .collect(),
        )
    }

    #[test]
    fn paths_are_names_separated_by_dots_with_two_escapes() {
        let names = |text: &str| {
            KeyPath::parse(&units(text)).map(|p| {
                p.names
                    .iter()
                    .map(|n| String::from_utf16_lossy(n))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(names("a"), Some(vec!["a".into()]));
        assert_eq!(
            names("a.b.c"),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(names(r"a\.b"), Some(vec!["a.b".into()]));
        assert_eq!(names(r"a\\.b"), Some(vec![r"a\".into(), "b".into()]));
        for bad in ["", ".", "a.", ".a", "a..b", r"a\", r"a\b", r"\"] {
            assert_eq!(names(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn named_members_are_left_out_at_any_object_depth_but_not_inside_arrays() {
        let json = r#"{"e":[{"a":1}],"b":{"d":3,"c":2},"a":1,"x.y":4}"#;
        assert_eq!(
            without(json, &["a", "b.c", "e.a", r"x\.y", "missing.key"]),
            (
                r#"{"b":{"d":3},"e":[{"a":1}]}"#.into(),
                vec!["a".into(), "b.c".into(), r"x\.y".into()]
            )
        );
        // The first member left out: no comma before the next.
        assert_eq!(
            without(r#"{"b":2,"a":{"z":[1,{"q":2}]}}"#, &["a"]),
            (r#"{"b":2}"#.into(), vec!["a".into()])
        );
        // Every member left out, and a path through a value that is no object.
        assert_eq!(
            without(r#"{"a":{"b":1}}"#, &["a.b"]),
            (r#"{"a":{}}"#.into(), vec!["a.b".into()])
        );
        assert_eq!(
            without(r#"{"a":5,"b":[1]}"#, &["a.b", "b.0"]),
            (r#"{"a":5,"b":[1]}"#.into(), vec![])
        );
        // Not an object at the top: nothing to leave out.
        assert_eq!(
            without(r#"[{"a":1}]"#, &["a"]),
            (r#"[{"a":1}]"#.into(), vec![])
        );
        assert_eq!(without(r#""a""#, &["a"]), (r#""a""#.into(), vec![]));
    }

    #[test]
    fn escaped_and_wide_keys_match_by_code_units() {
        assert_eq!(
            without(r#"{"\u00e9t\u00e9":1,"b":2}"#, &["été"]),
            (r#"{"b":2}"#.into(), vec!["été".into()])
        );
        assert_eq!(without(r#"{"😀":1,"b":2}"#, &["😀"]).0, r#"{"b":2}"#);
    }

    #[test]
    fn a_tools_paths_are_every_matching_entrys_once_each() {
        let entry = |tools: &[&str], keys: &[&str]| IgnoreEntry {
            tools: tools.iter().map(|t| units(t)).collect(),
            keys: keys.iter().map(|k| path(k)).collect(),
        };
        let mut rules = IgnoreRules::new(vec![
            entry(&["*"], &["task_progress"]),
            entry(&["grep", "read"], &["id", "task_progress"]),
        ]);
        let texts = |paths: Option<Arc<[KeyPath]>>| {
            paths
                .unwrap()
                .iter()
                .map(|p| String::from_utf16_lossy(&p.text))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            texts(rules.paths_for(&units("grep"))),
            ["task_progress", "id"]
        );
        assert_eq!(
            texts(rules.paths_for(&units("grep"))),
            ["task_progress", "id"]
        );
        assert_eq!(texts(rules.paths_for(&units("write"))), ["task_progress"]);
        assert!(IgnoreRules::default().paths_for(&units("grep")).is_none());
    }
}
