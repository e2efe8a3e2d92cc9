//! Opt-in cycle detection (`cycles: { maxPeriod, repeats }`): loops that
//! alternate between two to five calls, which consecutive-call runs miss.
//!
//! A cycle of period P is complete when the latest `P × repeats` tracked calls
//! are `repeats` back-to-back copies of one block of P calls that are not all
//! the same call (a run of one call is the run-length tiers' business). Calls
//! are compared by their chain key.
//!
//! State per agent is O(maxPeriod), whatever `repeats` is: the last maxPeriod
//! keys and tool names, and for each period P the length of the current streak
//! of calls whose key equals the key P calls back. The latest `P × repeats`
//! calls repeat a block of P exactly when that streak is at least
//! `P × (repeats − 1)`.

use crate::key::CallKey;

/// Periods tracked: 2 to [`MAX_PERIOD`].
pub const MIN_PERIOD: usize = 2;
pub const MAX_PERIOD: usize = 5;

/// Validated `cycles` settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CycleConfig {
    /// Longest block looked for, 2 to 5.
    pub max_period: usize,
    /// Copies of the block in a row that make a cycle, an integer >= 2 (as f64: JavaScript allows 1e21).
    pub repeats: f64,
}

impl CycleConfig {
    pub fn new(max_period: usize, repeats: f64) -> Self {
        Self {
            max_period: max_period.clamp(MIN_PERIOD, MAX_PERIOD),
            repeats,
        }
    }
}

/// A cycle completed by the latest call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleHit {
    /// The block's tool names as UTF-16 code units, in call order (the latest call's tool last).
    pub tools: Vec<Vec<u16>>,
    /// Copies of the block seen back to back.
    pub repeats: u64,
}

#[derive(Debug, Clone)]
struct Slot {
    key: CallKey,
    tool: Vec<u16>,
}

/// One agent's recent calls, as far as cycles need them.
#[derive(Debug, Clone)]
pub struct CycleTracker {
    /// The last `max_period` calls; call number `n` (from 0) sits at `n % max_period`.
    recent: Vec<Slot>,
    /// Tracked calls seen.
    calls: u64,
    /// `streaks[P - 2]`: how many of the latest calls in a row each equal the call P before it.
    streaks: [u64; MAX_PERIOD - 1],
    /// The period of the cycle already reported, until its streak breaks.
    reported: Option<usize>,
}

impl CycleTracker {
    pub fn new(config: &CycleConfig) -> Self {
        Self {
            recent: Vec::with_capacity(config.max_period),
            calls: 0,
            streaks: [0; MAX_PERIOD - 1],
            reported: None,
        }
    }

    /// The slot of the call `back` calls before the next one (1 = the latest), if kept.
    fn back(&self, back: usize, max_period: usize) -> Option<&Slot> {
        let back = back as u64;
        if back == 0 || back > self.calls || back > max_period as u64 {
            return None;
        }
        self.recent
            .get(((self.calls - back) % max_period as u64) as usize)
    }

    /// Records one tracked call; returns the cycle it completes, unless that
    /// cycle's run was already reported. The cycle is then reported: nothing
    /// more until its streak breaks and a cycle forms anew.
    // `CallKey` is treated as opaque (`Eq + Clone`), so it is cloned even while it is `Copy`.
    #[allow(clippy::clone_on_copy)]
    pub fn push(&mut self, key: &CallKey, tool: &[u16], config: &CycleConfig) -> Option<CycleHit> {
        let max = config.max_period;
        for period in MIN_PERIOD..=max {
            let repeats_block = self.back(period, max).is_some_and(|slot| slot.key == *key);
            if let Some(streak) = self.streaks.get_mut(period - MIN_PERIOD) {
                *streak = if repeats_block {
                    streak.saturating_add(1)
                } else {
                    0
                };
            }
        }
        let at = (self.calls % max as u64) as usize;
        match self.recent.get_mut(at) {
            Some(slot) => {
                slot.key = key.clone();
                slot.tool.clear();
                slot.tool.extend_from_slice(tool);
            }
            None => self.recent.push(Slot {
                key: key.clone(),
                tool: tool.to_vec(),
            }),
        }
        self.calls = self.calls.saturating_add(1);

        if let Some(period) = self.reported {
            if self.streak(period) > 0 {
                return None;
            }
            self.reported = None;
        }
        let hit = (MIN_PERIOD..=max).find(|&period| {
            // Exact while streaks stay below 2^53, which a process never reaches.
            let needed = period as f64 * (config.repeats - 1.0);
            self.streak(period) as f64 >= needed && !self.all_same(period, max)
        })?;
        self.reported = Some(hit);
        let tools = (1..=hit)
            .rev()
            .filter_map(|back| self.back(back, max).map(|slot| slot.tool.clone()))
            .collect();
        let repeats = self.streak(hit) / hit as u64 + 1;
        Some(CycleHit { tools, repeats })
    }

    fn streak(&self, period: usize) -> u64 {
        self.streaks
            .get(period.wrapping_sub(MIN_PERIOD))
            .copied()
            .unwrap_or(0)
    }

    /// Whether the latest `period` calls are all the same call.
    fn all_same(&self, period: usize, max_period: usize) -> bool {
        let Some(latest) = self.back(1, max_period) else {
            return true;
        };
        (2..=period).all(|back| {
            self.back(back, max_period)
                .is_some_and(|slot| slot.key == latest.key)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &[u16]) -> CallKey {
        crate::key::call_key(
            name,
            crate::Arguments::Json("{}"),
            &mut crate::scratch::Scratch::default(),
        )
        .unwrap()
    }

    /// Feeds `calls` (one letter each: the tool name) and returns, per call, the hit as "tools×repeats".
    fn run(config: CycleConfig, calls: &str) -> Vec<Option<String>> {
        let mut tracker = CycleTracker::new(&config);
        calls
            .chars()
            .map(|c| {
                let name: Vec<u16> = c.to_string().encode_utf16().collect();
                tracker.push(&key(&name), &name, &config).map(|hit| {
                    let tools: Vec<String> = hit
                        .tools
                        .iter()
                        .map(|t| String::from_utf16_lossy(t))
                        .collect();
                    format!("{}×{}", tools.join(","), hit.repeats)
                })
            })
            .collect()
    }

    fn fired(config: CycleConfig, calls: &str) -> Vec<(usize, String)> {
        run(config, calls)
            .into_iter()
            .enumerate()
            .filter_map(|(i, hit)| hit.map(|h| (i + 1, h)))
            .collect()
    }

    #[test]
    fn period_two_fires_once_when_complete() {
        let config = CycleConfig::new(3, 3.0);
        assert_eq!(fired(config, "ABABABABAB"), vec![(6, "A,B×3".to_owned())]);
    }

    #[test]
    fn period_three_names_the_block_in_order() {
        let config = CycleConfig::new(3, 2.0);
        assert_eq!(fired(config, "XABCABC"), vec![(7, "A,B,C×2".to_owned())]);
        // A block may hold one call twice, as long as not all its calls are the same.
        assert_eq!(fired(config, "AABAAB"), vec![(6, "A,A,B×2".to_owned())]);
    }

    #[test]
    fn the_smallest_period_wins() {
        // ABABABAB is also a period-4 cycle; period 2 completes first and is the one reported.
        let config = CycleConfig::new(4, 2.0);
        assert_eq!(fired(config, "ABABABAB"), vec![(4, "A,B×2".to_owned())]);
    }

    #[test]
    fn one_call_repeated_is_not_a_cycle() {
        let config = CycleConfig::new(5, 2.0);
        assert_eq!(fired(config, "AAAAAAAAAAAA"), vec![]);
        assert_eq!(fired(config, "AAAAABAB"), vec![(8, "A,B×2".to_owned())]);
    }

    #[test]
    fn periods_beyond_max_period_are_not_looked_for() {
        assert_eq!(fired(CycleConfig::new(2, 2.0), "ABCABCABC"), vec![]);
        assert_eq!(
            fired(CycleConfig::new(3, 2.0), "ABCABCABC"),
            vec![(6, "A,B,C×2".to_owned())]
        );
    }

    #[test]
    fn fires_again_only_after_the_cycle_breaks_and_forms_anew() {
        let config = CycleConfig::new(2, 2.0);
        assert_eq!(fired(config, "ABABABAB"), vec![(4, "A,B×2".to_owned())]);
        assert_eq!(
            fired(config, concat!("ABABAB", "C", "ABAB")),
            vec![(4, "A,B×2".to_owned()), (11, "A,B×2".to_owned())]
        );
        // Broken and formed anew with the other phase: B,A.
        assert_eq!(
            fired(config, concat!("ABAB", "B", "ABAB")),
            vec![(4, "A,B×2".to_owned()), (8, "B,A×2".to_owned())]
        );
    }

    #[test]
    fn repeats_are_counted_for_large_settings() {
        let config = CycleConfig::new(2, 5.0);
        let calls = "AB".repeat(5);
        assert_eq!(fired(config, &calls), vec![(10, "A,B×5".to_owned())]);
        assert_eq!(fired(CycleConfig::new(5, 1e21), &"AB".repeat(50)), vec![]);
    }

    #[test]
    fn state_does_not_grow_with_repeats_or_calls() {
        let config = CycleConfig::new(3, 1000.0);
        let mut tracker = CycleTracker::new(&config);
        for i in 0..10_000 {
            let name = [[u16::from(b'A')], [u16::from(b'B')]][i % 2];
            tracker.push(&key(&name), &name, &config);
        }
        assert_eq!(tracker.recent.len(), 3);
        assert!(tracker.recent.capacity() <= 3);
    }

    #[test]
    fn the_block_names_its_tools_by_code_unit() {
        let config = CycleConfig::new(2, 2.0);
        let mut tracker = CycleTracker::new(&config);
        let (a, b) = (vec![u16::from(b'x'), 0xd800], vec![u16::from(b'x'), 0xdbff]);
        let hits: Vec<_> = [&a, &b, &a, &b]
            .into_iter()
            .map(|name| tracker.push(&key(name), name, &config))
            .collect();
        assert_eq!(
            hits.last().cloned().flatten().map(|hit| hit.tools),
            Some(vec![a, b]),
            "two tools, told apart by their lone surrogates"
        );
    }
}
