//! The repeat-tool-guard core, free of napi so `cargo test` drives it directly.
//!
//! One module per concept: arguments parsed into a tape (`tape`, from JSON
//! text or the plugin's [`encoded`] form), written as [`canonical`] text or
//! hashed into a [`digest`]; tool-name [`patterns`], per-agent [`chains`],
//! [`reminders`], validated [`config`]. [`Guard`] ties them together the way
//! the plugin uses them.

pub mod canonical;
pub mod chains;
pub mod config;
pub mod digest;
pub mod encoded;
pub mod error;
pub mod number;
pub mod patterns;
pub mod reminders;
mod tape;

pub use canonical::{canonicalize_json, Arguments, CanonicalError};
pub use config::{GuardConfig, RawConfig, RawValue};
pub use error::ConfigError;
pub use reminders::{Reminder, Tier};

use chains::Chains;
use digest::call_key;
use tape::Scratch;

/// Watches every agent's tool calls and says when a reminder is due.
#[derive(Debug)]
pub struct Guard {
    config: GuardConfig,
    chains: Chains,
    scratch: Scratch,
}

impl Guard {
    pub fn new(config: GuardConfig) -> Self {
        Self {
            config,
            chains: Chains::default(),
            scratch: Scratch::default(),
        }
    }

    /// Validated thresholds, ascending.
    pub fn thresholds(&self) -> &[f64] {
        &self.config.thresholds
    }

    pub fn is_tracked(&self, tool: &str) -> bool {
        self.config.filter.is_tracked(tool)
    }

    /// Counts one call and returns the reminder due for it, if any. Untracked
    /// calls change nothing; a call whose arguments fail to canonicalize
    /// changes nothing either.
    pub fn observe(
        &mut self,
        agent: &str,
        tool: &str,
        arguments: Arguments<'_>,
    ) -> Result<Option<Reminder>, CanonicalError> {
        if !self.is_tracked(tool) {
            return Ok(None);
        }
        self.observe_tracked(agent, tool, arguments)
    }

    /// [`Guard::observe`] for a caller that has already checked [`Guard::is_tracked`].
    pub fn observe_tracked(
        &mut self,
        agent: &str,
        tool: &str,
        arguments: Arguments<'_>,
    ) -> Result<Option<Reminder>, CanonicalError> {
        let key = call_key(tool, arguments, &mut self.scratch);
        self.scratch.trim();
        let run = self.chains.advance(agent, key?);
        let thresholds = &self.config.thresholds;
        // Exact for every run a process can reach (< 2^53).
        let at = run as f64;
        if thresholds.first() == Some(&at) {
            return Ok(Some(reminders::gentle(run)));
        }
        if thresholds.binary_search_by(|t| t.total_cmp(&at)).is_ok() {
            return reminders::detailed(tool, run, arguments, self.config.preview_chars).map(Some);
        }
        Ok(None)
    }

    /// A user prompt: the agent's chain starts over.
    pub fn reset(&mut self, agent: &str) {
        self.chains.forget(agent);
    }

    /// The agent is gone: its state is dropped.
    pub fn dispose(&mut self, agent: &str) {
        self.chains.forget(agent);
    }

    /// Agents holding chain state.
    pub fn agent_count(&self) -> usize {
        self.chains.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(thresholds: &[f64], include: &[&str], exclude: &[&str]) -> Guard {
        let strings = |list: &[&str]| {
            RawValue::List(
                list.iter()
                    .map(|s| RawValue::String(s.to_string()))
                    .collect(),
            )
        };
        let raw = RawConfig {
            thresholds: RawValue::List(thresholds.iter().map(|&t| RawValue::Number(t)).collect()),
            include: strings(include),
            exclude: strings(exclude),
            arguments_preview_chars: RawValue::Missing,
        };
        Guard::new(GuardConfig::from_raw(&raw).unwrap())
    }

    fn tiers(guard: &mut Guard, agent: &str, calls: &[(&str, &str)]) -> Vec<Option<(Tier, u64)>> {
        calls
            .iter()
            .map(|(tool, json)| {
                guard
                    .observe(agent, tool, Arguments::Json(json))
                    .unwrap()
                    .map(|r| (r.tier, r.count))
            })
            .collect()
    }

    #[test]
    fn escalates_at_each_threshold_and_is_silent_after_the_last() {
        let mut g = guard(&[3.0, 5.0, 8.0], &[], &[]);
        let fired: Vec<_> = (1..=12)
            .filter_map(|_| g.observe("a", "grep", Arguments::Json("{}")).unwrap())
            .map(|r| (r.tier, r.count))
            .collect();
        assert_eq!(
            fired,
            vec![(Tier::Gentle, 3), (Tier::Detailed, 5), (Tier::Detailed, 8)]
        );
    }

    #[test]
    fn gentle_is_keyed_to_the_smallest_threshold() {
        let mut g = guard(&[4.0, 2.0], &[], &[]);
        let got = tiers(&mut g, "a", &[("t", "1"); 4]);
        assert_eq!(
            got,
            vec![
                None,
                Some((Tier::Gentle, 2)),
                None,
                Some((Tier::Detailed, 4))
            ]
        );
    }

    #[test]
    fn untracked_calls_are_transparent() {
        let mut g = guard(&[2.0], &[], &["todo_*"]);
        let got = tiers(
            &mut g,
            "a",
            &[("grep", "\"X\""), ("todo_write", "{}"), ("grep", "\"X\"")],
        );
        assert_eq!(got, vec![None, None, Some((Tier::Gentle, 2))]);
        let mut g = guard(&[2.0], &["read*"], &[]);
        let got = tiers(&mut g, "a", &[("read", "1"), ("grep", "1"), ("read", "1")]);
        assert_eq!(got, vec![None, None, Some((Tier::Gentle, 2))]);
    }

    #[test]
    fn a_different_call_restarts_the_run() {
        let mut g = guard(&[2.0], &[], &[]);
        let got = tiers(
            &mut g,
            "a",
            &[("t", "1"), ("t", "2"), ("t", "2"), ("u", "2"), ("u", "2")],
        );
        assert_eq!(
            got,
            vec![
                None,
                None,
                Some((Tier::Gentle, 2)),
                None,
                Some((Tier::Gentle, 2))
            ]
        );
    }

    #[test]
    fn reset_and_dispose_drop_state() {
        let mut g = guard(&[2.0], &[], &[]);
        g.observe("a", "t", Arguments::Json("1")).unwrap();
        g.observe("b", "t", Arguments::Json("1")).unwrap();
        assert_eq!(g.agent_count(), 2);
        g.reset("a");
        assert!(g.observe("a", "t", Arguments::Json("1")).unwrap().is_none());
        g.dispose("a");
        g.dispose("b");
        g.dispose("never-seen");
        assert_eq!(g.agent_count(), 0);
    }

    #[test]
    fn invalid_arguments_leave_the_chain_alone() {
        let mut g = guard(&[2.0], &[], &[]);
        g.observe("a", "t", Arguments::Json("1")).unwrap();
        assert!(g.observe("a", "t", Arguments::Json("{")).is_err());
        assert_eq!(
            g.observe("a", "t", Arguments::Json("1"))
                .unwrap()
                .map(|r| r.count),
            Some(2)
        );
    }
}
