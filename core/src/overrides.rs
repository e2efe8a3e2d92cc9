//! Opt-in per-tool thresholds (`overrides: [{ tools, thresholds }]`): the first
//! entry with a pattern matching the tool's name supplies its thresholds; other
//! tools keep the global ones. Patterns follow `include` / `exclude`'s rules.

use crate::patterns::{matches_any, ToolCache};

/// One validated entry: patterns (not empty) and thresholds (ascending, distinct, >= 2).
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// Tool-name patterns as UTF-16 code units.
    pub tools: Vec<Vec<u16>>,
    pub thresholds: Vec<f64>,
}

/// The entries, with each tool name's answer cached.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    entries: Vec<Override>,
    /// Tool name → index of its entry, or `None` for the global thresholds.
    cache: ToolCache<Option<usize>>,
}

/// Equal when the entries are (the cache is what was worked out from them).
impl PartialEq for Overrides {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Overrides {
    pub fn new(entries: Vec<Override>) -> Self {
        Self {
            entries,
            cache: ToolCache::default(),
        }
    }

    /// The thresholds `tool` uses: the first matching entry's, else `global`.
    pub fn thresholds_for<'a>(&'a mut self, tool: &[u16], global: &'a [f64]) -> &'a [f64] {
        if self.entries.is_empty() {
            return global;
        }
        let entries = &self.entries;
        let index = self.cache.get(tool, || {
            entries
                .iter()
                .position(|entry| matches_any(&entry.tools, tool))
        });
        match index.and_then(|i| self.entries.get(i)) {
            Some(entry) => &entry.thresholds,
            None => global,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Overrides {
        pub(crate) fn is_empty(&self) -> bool {
            self.entries.is_empty()
        }

        pub(crate) fn entries(&self) -> &[Override] {
            &self.entries
        }
    }

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn entry(tools: &[&str], thresholds: &[f64]) -> Override {
        Override {
            tools: tools.iter().map(|s| units(s)).collect(),
            thresholds: thresholds.to_vec(),
        }
    }

    /// [`Overrides::thresholds_for`] of a `&str` name, copied out.
    fn for_name(o: &mut Overrides, tool: &str, global: &[f64]) -> Vec<f64> {
        o.thresholds_for(&units(tool), global).to_vec()
    }

    #[test]
    fn first_match_wins_and_others_keep_the_global_thresholds() {
        let mut o = Overrides::new(vec![
            entry(&["poll_*", "wait"], &[10.0]),
            entry(&["poll_status", "build"], &[2.0, 4.0]),
        ]);
        let global = [3.0, 5.0, 8.0];
        assert_eq!(for_name(&mut o, "poll_status", &global), &[10.0]);
        assert_eq!(for_name(&mut o, "wait", &global), &[10.0]);
        assert_eq!(for_name(&mut o, "build", &global), &[2.0, 4.0]);
        assert_eq!(for_name(&mut o, "grep", &global), &global);
        // Answers come from the cache the second time, unchanged.
        assert_eq!(for_name(&mut o, "build", &global), &[2.0, 4.0]);
        assert_eq!(
            for_name(&mut o, "poll\nx", &global),
            &global,
            "* stops at line terminators"
        );
    }

    #[test]
    fn the_cache_stays_bounded() {
        let mut o = Overrides::new(vec![entry(&["x"], &[2.0])]);
        for i in 0..3000 {
            for_name(&mut o, &format!("tool{i}"), &[3.0]);
        }
        assert!(o.cache.len() <= crate::patterns::TOOL_CACHE_LIMIT);
        assert_eq!(for_name(&mut o, "x", &[3.0]), &[2.0]);
    }

    #[test]
    fn no_entries_means_global() {
        let mut o = Overrides::default();
        assert_eq!(for_name(&mut o, "a", &[3.0]), &[3.0]);
        assert_eq!(o.cache.len(), 0);
    }

    #[test]
    fn names_are_matched_and_cached_by_code_unit() {
        let lone = |unit: u16| vec![u16::from(b'x'), unit];
        let mut o = Overrides::new(vec![Override {
            tools: vec![lone(0xd800)],
            thresholds: vec![2.0],
        }]);
        let global = [3.0];
        for _ in 0..2 {
            assert_eq!(o.thresholds_for(&lone(0xd800), &global), &[2.0]);
            assert_eq!(o.thresholds_for(&lone(0xdbff), &global), &global);
            assert_eq!(o.thresholds_for(&units("x\u{fffd}"), &global), &global);
        }
        assert_eq!(o.cache.len(), 3, "one cache entry per name");
    }
}
