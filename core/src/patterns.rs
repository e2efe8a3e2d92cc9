//! Tool-name patterns: `*` matches any run of characters (none included), every
//! other character is literal, and a pattern must match the whole name.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::ConfigError;

/// Which tools take part in the chain: `include` (empty means all) minus `exclude`.
#[derive(Debug, Clone)]
pub struct ToolFilter {
    include: Option<GlobSet>,
    exclude: GlobSet,
}

impl ToolFilter {
    pub fn new(include: &[String], exclude: &[String]) -> Result<Self, ConfigError> {
        let include = if include.is_empty() {
            None
        } else {
            Some(compile("include", include)?)
        };
        Ok(Self {
            include,
            exclude: compile("exclude", exclude)?,
        })
    }

    /// Whether calls to `tool` count; untracked calls neither count nor reset.
    pub fn is_tracked(&self, tool: &str) -> bool {
        // Without patterns (the default) every tool counts; spare globset's candidate setup.
        if self.include.is_none() && self.exclude.is_empty() {
            return true;
        }
        self.include.as_ref().is_none_or(|set| set.is_match(tool)) && !self.exclude.is_match(tool)
    }
}

fn compile(field: &'static str, patterns: &[String]) -> Result<GlobSet, ConfigError> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(&to_glob(pattern))
            .literal_separator(false)
            .backslash_escape(false)
            .build()
            .map_err(|error| ConfigError::InvalidPattern {
                field,
                pattern: pattern.clone(),
                reason: error.to_string(),
            })?;
        set.add(glob);
    }
    set.build().map_err(|error| ConfigError::InvalidPattern {
        field,
        pattern: patterns.join(", "),
        reason: error.to_string(),
    })
}

/// Rewrites a `*`-wildcard pattern as a glob whose only wildcard is `*`: each other
/// glob metacharacter becomes a one-character class, and runs of `*` collapse to
/// one (so `**` never takes globset's recursive meaning; the match is the same).
fn to_glob(pattern: &str) -> String {
    let mut glob = String::with_capacity(pattern.len() + 8);
    for c in pattern.chars() {
        match c {
            '*' if glob.ends_with('*') => {}
            '*' => glob.push('*'),
            '?' | '[' | ']' | '{' | '}' | '\\' => {
                glob.push('[');
                glob.push(c);
                glob.push(']');
            }
            c => glob.push(c),
        }
    }
    glob
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(include: &[&str], exclude: &[&str]) -> ToolFilter {
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        ToolFilter::new(&owned(include), &owned(exclude)).unwrap()
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
