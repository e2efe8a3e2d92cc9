//! Tool-name patterns: `*` matches any run of UTF-16 code units (none
//! included) other than line terminators, as the reference's `.*` does (its
//! regular expression has no `u` flag, so `.` takes one code unit, a lone
//! surrogate or half of a pair); every other code unit is literal, and a
//! pattern must match the whole name. Patterns and names are code units as
//! JavaScript holds them, lone surrogates included.
//!
//! Matched by hand rather than with a glob engine: tool names are not paths,
//! and path globbing's rules (separators, a name's "extension", `\` on
//! Windows) would make some names match differently from the reference.

use std::collections::HashMap;

/// Which tools take part in the chain: `include` (empty means all) minus `exclude`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolFilter {
    pub(crate) include: Vec<Vec<u16>>,
    pub(crate) exclude: Vec<Vec<u16>>,
}

impl ToolFilter {
    /// Whether calls to `tool` count; untracked calls neither count nor reset.
    pub fn is_tracked(&self, tool: &[u16]) -> bool {
        if self.include.is_empty() && self.exclude.is_empty() {
            return true;
        }
        (self.include.is_empty() || matches_any(&self.include, tool))
            && !matches_any(&self.exclude, tool)
    }
}

/// Tool names whose answer is known. Names come from the tool registry, so
/// there are few; the cap only bounds a caller inventing names without end.
pub const TOOL_CACHE_LIMIT: usize = 1024;

/// An answer per tool name (which override, which keys to leave out), worked out once.
#[derive(Debug, Clone)]
pub struct ToolCache<T> {
    answers: HashMap<Vec<u16>, T>,
}

impl<T> Default for ToolCache<T> {
    fn default() -> Self {
        Self {
            answers: HashMap::new(),
        }
    }
}

impl<T: Clone> ToolCache<T> {
    /// `tool`'s answer, from `work` the first time.
    pub fn get(&mut self, tool: &[u16], work: impl FnOnce() -> T) -> T {
        if let Some(known) = self.answers.get(tool) {
            return known.clone();
        }
        let answer = work();
        if self.answers.len() >= TOOL_CACHE_LIMIT {
            self.answers.clear();
        }
        self.answers.insert(tool.to_vec(), answer.clone());
        answer
    }
}

/// Whether `tool` matches any of `patterns`, by the same rules as `include` / `exclude`.
pub fn matches_any(patterns: &[Vec<u16>], tool: &[u16]) -> bool {
    patterns.iter().any(|p| matches_within_lines(p, tool))
}

/// JavaScript's line terminators, which a regular expression's `.` does not match.
fn is_line_terminator(unit: u16) -> bool {
    matches!(unit, 0x0a | 0x0d | 0x2028 | 0x2029)
}

/// The code unit of `*`.
const STAR: u16 = b'*' as u16;

/// Whether `name` matches `pattern` as `^…$` with each `*` as `.*`: one row of
/// a table per pattern code unit, so time is length × length and no stack;
/// runs of `*` match as one.
fn matches_within_lines(pattern: &[u16], name: &[u16]) -> bool {
    // reach[j]: the pattern read so far matches the first j code units of the name.
    let mut reach = vec![false; name.len() + 1];
    if let Some(first) = reach.first_mut() {
        *first = true;
    }
    let mut next = vec![false; name.len() + 1];
    for &p in pattern {
        for j in 0..next.len() {
            let before = j.checked_sub(1);
            let prev_unit = before.and_then(|b| name.get(b)).copied();
            let diagonal = before.and_then(|b| reach.get(b)).copied().unwrap_or(false);
            let matched = if p == STAR {
                // None of the name, or one more non-terminator than the star already took.
                reach.get(j).copied().unwrap_or(false)
                    || (prev_unit.is_some_and(|u| !is_line_terminator(u))
                        && before.and_then(|b| next.get(b)).copied().unwrap_or(false))
            } else {
                diagonal && prev_unit == Some(p)
            };
            if let Some(slot) = next.get_mut(j) {
                *slot = matched;
            }
        }
        std::mem::swap(&mut reach, &mut next);
    }
    reach.last().copied().unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl ToolFilter {
        pub(crate) fn new(include: &[Vec<u16>], exclude: &[Vec<u16>]) -> Self {
            Self {
                include: include.to_vec(),
                exclude: exclude.to_vec(),
            }
        }
    }

    impl<T> ToolCache<T> {
        /// How many names are cached.
        pub(crate) fn len(&self) -> usize {
            self.answers.len()
        }
    }

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn filter(include: &[&str], exclude: &[&str]) -> Filter {
        let owned = |list: &[&str]| list.iter().map(|s| units(s)).collect::<Vec<_>>();
        Filter(ToolFilter::new(&owned(include), &owned(exclude)))
    }

    /// A [`ToolFilter`] asked with `&str` names.
    struct Filter(ToolFilter);

    impl Filter {
        fn is_tracked(&self, tool: &str) -> bool {
            self.0.is_tracked(&units(tool))
        }
    }

    #[test]
    fn empty_include_tracks_everything() {
        assert!(filter(&[], &[]).is_tracked("grep"));
        assert!(filter(&[], &[]).is_tracked(""));
    }

    #[test]
    fn star_matches_any_run_including_none_and_slashes() {
        let f = filter(&["mcp_*", "a*b*c"], &[]);
        for name in [
            "mcp_",
            "mcp_x",
            "mcp_a/b\\c",
            "abc",
            "a/b/c",
            "aXbYc",
            "a**b",
        ] {
            let expect = name != "a**b";
            assert_eq!(f.is_tracked(name), expect, "{name}");
        }
        assert!(!f.is_tracked("xmcp_"));
        assert!(filter(&["**"], &[]).is_tracked("any/thing"));
    }

    #[test]
    fn metacharacters_are_literal() {
        for pattern in [
            "a.b", "a?b", "[ab]", "a{b,c}", "a\\b", "a]b", "!x", "a-b", "^$+()|",
        ] {
            let f = filter(&[pattern], &[]);
            assert!(f.is_tracked(pattern), "{pattern} matches itself");
        }
        assert!(!filter(&["a.b"], &[]).is_tracked("axb"));
        assert!(!filter(&["a?b"], &[]).is_tracked("axb"));
        assert!(!filter(&["[ab]"], &[]).is_tracked("a"));
        assert!(!filter(&["a{b,c}"], &[]).is_tracked("ab"));
        assert!(
            !filter(&["a\\*"], &[]).is_tracked("a*"),
            "backslash does not escape"
        );
        assert!(filter(&["a\\*"], &[]).is_tracked("a\\zz"));
    }

    #[test]
    fn names_are_not_paths() {
        // A path glob engine finds no file name (so no "extension") in these.
        for (pattern, name) in [
            ("*.", ".."),
            ("*.", "a."),
            ("*/", "a/"),
            ("a*", "a/.."),
            ("*", ""),
        ] {
            assert!(
                filter(&[pattern], &[]).is_tracked(name),
                "{pattern} on {name:?}"
            );
        }
        assert!(
            filter(&["a\\b"], &[]).is_tracked("a\\b"),
            "a backslash is literal everywhere"
        );
    }

    #[test]
    fn star_stops_at_line_terminators_as_the_references_dot_does() {
        let f = filter(&["mcp_*"], &[]);
        for name in ["mcp_a\nb", "mcp_\r", "mcp_\u{2028}x", "mcp_\u{2029}"] {
            assert!(!f.is_tracked(name), "{name:?}");
        }
        assert!(f.is_tracked("mcp_x"));
        // A literal line break in the pattern still matches itself.
        assert!(filter(&["a\n*"], &[]).is_tracked("a\nbc"));
        assert!(!filter(&["a\n*"], &[]).is_tracked("a\nb\nc"));
        assert!(!filter(&["*"], &["x*"]).is_tracked("y\nz"));
        assert!(filter(&["*\n*"], &[]).is_tracked("ab\ncd"));
        assert!(filter(&[], &["todo*"]).is_tracked("todo\nx"));
    }

    #[test]
    fn whole_name_must_match_and_case_counts() {
        let f = filter(&["grep"], &[]);
        assert!(f.is_tracked("grep"));
        assert!(!f.is_tracked("grep2"));
        assert!(!f.is_tracked("xgrep"));
        assert!(!f.is_tracked("GREP"));
    }

    #[test]
    fn exclude_wins_over_include() {
        let f = filter(&["*"], &["todo_*"]);
        assert!(f.is_tracked("grep"));
        assert!(!f.is_tracked("todo_write"));
    }

    #[test]
    fn names_and_patterns_are_code_units_and_star_takes_lone_surrogates() {
        let lone = |text: &str, unit: u16| {
            let mut units = units(text);
            units.push(unit);
            units
        };
        let (x_d800, x_dbff, x_fffd) = (lone("x", 0xd800), lone("x", 0xdbff), units("x\u{fffd}"));
        let only = |pattern: &[u16]| ToolFilter::new(&[pattern.to_vec()], &[]);
        assert!(only(&x_d800).is_tracked(&x_d800));
        assert!(!only(&x_d800).is_tracked(&x_dbff));
        assert!(
            !only(&x_fffd).is_tracked(&x_d800),
            "U+FFFD is not a lone surrogate"
        );
        assert!(!only(&x_d800).is_tracked(&x_fffd));
        let excluding = ToolFilter::new(&[], std::slice::from_ref(&x_d800));
        assert!(!excluding.is_tracked(&x_d800));
        assert!(excluding.is_tracked(&x_dbff));
        // `.` without the `u` flag: one code unit, either half of a pair or a lone surrogate.
        assert!(only(&units("x*")).is_tracked(&x_d800));
        assert!(only(&units("x?*")).is_tracked(&units("x?\u{1f600}")));
        let mut star_then_low = units("a*");
        star_then_low.push(0xde00);
        assert!(
            only(&star_then_low).is_tracked(&units("a\u{1f600}")),
            "the star takes the high half, the low half matches itself"
        );
        let mut one_half = units("a");
        one_half.push(0xd83d);
        assert!(!only(&one_half).is_tracked(&units("a\u{1f600}")));
    }
}
