//! Tool-name patterns: `*` matches any run of characters (none included) other
//! than line terminators, as the reference's `.*` does; every other character
//! is literal, and a pattern must match the whole name.
//!
//! Matched by hand rather than with a glob engine: tool names are not paths,
//! and path globbing's rules (separators, a name's "extension", `\` on
//! Windows) would make some names match differently from the reference.

/// Which tools take part in the chain: `include` (empty means all) minus `exclude`.
#[derive(Debug, Clone)]
pub struct ToolFilter {
    include: Vec<String>,
    exclude: Vec<String>,
}

impl ToolFilter {
    pub fn new(include: &[String], exclude: &[String]) -> Self {
        Self {
            include: include.to_vec(),
            exclude: exclude.to_vec(),
        }
    }

    /// Whether calls to `tool` count; untracked calls neither count nor reset.
    pub fn is_tracked(&self, tool: &str) -> bool {
        if self.include.is_empty() && self.exclude.is_empty() {
            return true;
        }
        let name: Vec<char> = tool.chars().collect();
        let any = |patterns: &[String]| patterns.iter().any(|p| matches_within_lines(p, &name));
        (self.include.is_empty() || any(&self.include)) && !any(&self.exclude)
    }
}

/// Whether `tool` matches any of `patterns`, by the same rules as `include` / `exclude`.
pub fn matches_any(patterns: &[String], tool: &str) -> bool {
    if patterns.is_empty() {
        return false;
    }
    let name: Vec<char> = tool.chars().collect();
    patterns.iter().any(|p| matches_within_lines(p, &name))
}

/// JavaScript's line terminators, which a regular expression's `.` does not match.
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// Whether `name` matches `pattern` as `^…$` with each `*` as `.*`: one row of
/// a table per pattern character, so time is length × length and no stack;
/// runs of `*` match as one.
fn matches_within_lines(pattern: &str, name: &[char]) -> bool {
    // reach[j]: the pattern read so far matches the first j characters of the name.
    let mut reach = vec![false; name.len() + 1];
    if let Some(first) = reach.first_mut() {
        *first = true;
    }
    for p in pattern.chars() {
        let mut next = vec![false; name.len() + 1];
        for j in 0..next.len() {
            let before = j.checked_sub(1);
            let prev_char = before.and_then(|b| name.get(b)).copied();
            let diagonal = before.and_then(|b| reach.get(b)).copied().unwrap_or(false);
            let matched = if p == '*' {
                // None of the name, or one more non-terminator than the star already took.
                reach.get(j).copied().unwrap_or(false)
                    || (prev_char.is_some_and(|c| !is_line_terminator(c))
                        && before.and_then(|b| next.get(b)).copied().unwrap_or(false))
            } else {
                diagonal && prev_char == Some(p)
            };
            if let Some(slot) = next.get_mut(j) {
                *slot = matched;
            }
        }
        reach = next;
    }
    reach.last().copied().unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(include: &[&str], exclude: &[&str]) -> ToolFilter {
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        ToolFilter::new(&owned(include), &owned(exclude))
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
}
