//! Per-agent chains of identical calls: each agent's last call key and run
//! length, and, only when an opt-in feature needs them, the last result's
//! digest and the recent calls that cycles look at.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

use crate::cycles::{CycleConfig, CycleHit, CycleTracker};
use crate::key::{CallKey, KeyForm};
use crate::similar::{SimilarConfig, SimilarRun};
use crate::windows::{CallDigest, Counted, Recent, WindowConfig};

/// A chain before its first call has a run of 0, whatever its key.
#[derive(Debug, Clone, Default)]
struct Chain {
    key: CallKey,
    run: u64,
    /// Whether the last call's key is not written yet: it is the call the
    /// guard's memo keeps (`memo`), keyed only when needed ([`Chains::settle`]).
    pending: bool,
    /// `None` unless [`Chains::advance_extended`] was used (an opt-in feature is on).
    extra: Option<Box<Extra>>,
}

/// What the opt-in features keep per agent; bounded, never argument text.
#[derive(Debug, Clone, Default)]
struct Extra {
    /// The last call's result digest (`sameResultOnly`); `None`: no result given, or not compared.
    result: Option<CallKey>,
    cycles: Option<CycleTracker>,
    similar: Option<SimilarRun>,
    /// `noProgress`'s window.
    recent: Option<Recent>,
    /// `failures`' window.
    failures: Option<Recent>,
    /// Whether the last call was made in the agent's current model response (`perResponse`).
    in_response: bool,
}

/// One tracked call as the opt-in features see it.
pub struct Step<'a> {
    pub key: CallKey,
    /// The result digest to compare (`sameResultOnly`), `None` when no result was given or when
    /// results are not compared: two `None`s are equal.
    pub result: Option<CallKey>,
    /// The tool name's UTF-16 code units.
    pub tool: &'a [u16],
    pub cycles: Option<&'a CycleConfig>,
    /// `similar`'s config and the call's sample (`None` for the same call as the agent's last).
    pub similar: Option<(&'a SimilarConfig, Option<Vec<u16>>)>,
    /// `noProgress`'s config and what it compares ([`crate::windows::compared`]).
    pub no_progress: Option<(&'a WindowConfig, CallDigest)>,
    /// `failures`' config and what it compares ([`crate::windows::compared`]).
    pub failures: Option<(&'a WindowConfig, Option<Counted>)>,
}

/// What one tracked call did to its agent's chain ([`Chains::advance_extended`]).
pub struct Advanced {
    pub run: u64,
    /// The cycle it completes (`cycles`).
    pub cycle: Option<CycleHit>,
    /// The near-identical run it belongs to (`similar`; 0: off).
    pub near: u64,
    /// Whether that run brings `similar`'s reminder (it reached `minCalls` with this call).
    pub similar: bool,
    /// The same call with the same result in the window, this one included (`noProgress`; 0: off).
    pub unchanged: u64,
    /// Whether that count brings `noProgress`'s reminder.
    pub no_progress: bool,
    /// The same failure of the tool in the window, once per arguments, this one included
    /// (`failures`; 0: off).
    pub failed: u64,
    /// Whether that count brings `failures`' reminder.
    pub failures: bool,
}

/// Every agent's current run, by agent id as UTF-16 code units (as JavaScript
/// holds it: ids that differ only in a lone surrogate are different agents).
#[derive(Debug, Default)]
pub struct Chains {
    /// Fx hashing (rustc-hash, already in the build through napi): a few
    /// instructions for a short agent id where the default `SipHash` takes ~170.
    /// It is not flood-resistant, but agent ids come from the host harness, not
    /// from model output or other untrusted input, so nobody picks colliding ids.
    by_agent: HashMap<Vec<u16>, Chain, FxBuildHasher>,
    /// The chain of the agent that called last, kept out of `by_agent`: most
    /// calls come from the same agent as the one before, and then find their
    /// chain without hashing the id or probing the map.
    last: Option<(Vec<u16>, Chain)>,
}

impl Chains {
    /// Records a tracked call, by its key form, and returns the length of the run it belongs to.
    /// The form is compared with the chain's key in place, and copied into it only when it differs.
    pub(crate) fn advance_form(&mut self, agent: &[u16], form: &KeyForm<'_>) -> u64 {
        let chain = self.chain_of(agent);
        debug_assert!(!chain.pending, "a pending chain is settled first");
        if chain.run > 0 && chain.key.is(form) {
            chain.run = chain.run.saturating_add(1);
        } else {
            chain.run = 1;
            chain.key.set(form);
        }
        chain.run
    }

    /// Records a tracked call of the agent that called last, known to be its
    /// last call again (`same`) or another, without its key: the chain is then
    /// pending until [`Chains::settle`]. `None` (nothing changed) when the
    /// agent is not the one that called last, or its chain was dropped since.
    pub(crate) fn advance_known(&mut self, agent: &[u16], same: bool) -> Option<u64> {
        let chain = match &mut self.last {
            Some((id, chain)) if chain.run > 0 && id == agent => chain,
            _ => return None,
        };
        if same {
            chain.run = chain.run.saturating_add(1);
        } else {
            chain.run = 1;
            chain.pending = true;
        }
        Some(chain.run)
    }

    /// Gives the agent's pending chain its last call's key.
    pub(crate) fn settle(&mut self, agent: &[u16], key: CallKey) {
        if let Some(chain) = self.find_mut(agent).filter(|chain| chain.pending) {
            chain.key = key;
            chain.pending = false;
        }
    }

    /// Whether `key` is the agent's last call's (without touching the chain).
    pub fn repeats(&self, agent: &[u16], key: &CallKey) -> bool {
        self.find(agent)
            .is_some_and(|chain| chain.run > 0 && chain.key == *key)
    }

    /// The agent's chain, if it has one (without making it the last).
    fn find(&self, agent: &[u16]) -> Option<&Chain> {
        match &self.last {
            Some((id, chain)) if id == agent => Some(chain),
            _ => self.by_agent.get(agent),
        }
    }

    /// [`Chains::find`], to change the chain.
    fn find_mut(&mut self, agent: &[u16]) -> Option<&mut Chain> {
        match &mut self.last {
            Some((id, chain)) if id == agent => Some(chain),
            _ => self.by_agent.get_mut(agent),
        }
    }

    /// The agent's chain, made the last one (a new agent's with a run of 0).
    /// The chain it replaces as the last goes back into the map.
    fn chain_of(&mut self, agent: &[u16]) -> &mut Chain {
        let is_last = matches!(&self.last, Some((id, _)) if id == agent);
        if !is_last {
            let found = self.by_agent.remove_entry(agent);
            let entry = found.unwrap_or_else(|| (agent.to_vec(), Chain::default()));
            if let Some((id, chain)) = self.last.replace(entry) {
                self.by_agent.insert(id, chain);
            }
        }
        let (_, chain) = self
            .last
            .get_or_insert_with(|| (agent.to_vec(), Chain::default()));
        chain
    }

    /// [`Chains::advance_form`] with the opt-in features: the run grows only while
    /// both key and result repeat, and the call goes to the agent's cycle
    /// tracker (keys only) and its near-identical run.
    // `CallKey` is treated as opaque (`Eq + Clone`), so it is cloned even while it is `Copy`.
    #[allow(clippy::clone_on_copy)]
    pub fn advance_extended(&mut self, agent: &[u16], step: Step<'_>) -> Advanced {
        let Step {
            key,
            result,
            tool,
            cycles,
            similar,
            no_progress,
            failures,
        } = step;
        let chain = self.chain_of(agent);
        let extra = chain.extra.get_or_insert_with(Default::default);
        let results_equal = extra.result == result;
        chain.run = if chain.run > 0 && chain.key == key && results_equal {
            chain.run.saturating_add(1)
        } else {
            1
        };
        extra.result = result;
        let (near, similar) = similar.map_or((0, false), |(config, sample)| {
            extra.similar.get_or_insert_with(Default::default).push(
                tool,
                sample,
                results_equal,
                config,
            )
        });
        let hit = cycles.and_then(|config| {
            extra
                .cycles
                .get_or_insert_with(|| CycleTracker::new(config))
                .push(&key, tool, config)
        });
        let (unchanged, no_progress) = no_progress.map_or((0, false), |(config, call)| {
            extra.recent.get_or_insert_with(Default::default).push(
                Some(Counted {
                    digest: call,
                    arguments: None,
                }),
                config,
            )
        });
        let (failed, failures) = failures.map_or((0, false), |(config, failure)| {
            extra
                .failures
                .get_or_insert_with(Default::default)
                .push(failure, config)
        });
        chain.key = key;
        extra.in_response = true;
        Advanced {
            run: chain.run,
            cycle: hit,
            near,
            similar,
            unchanged,
            no_progress,
            failed,
            failures,
        }
    }

    /// Whether `key` is the agent's last call again within the same model response (`perResponse`).
    pub fn repeats_in_response(&self, agent: &[u16], key: &CallKey) -> bool {
        self.repeats(agent, key)
            && self
                .find(agent)
                .and_then(|chain| chain.extra.as_ref())
                .is_some_and(|extra| extra.in_response)
    }

    /// The agent's next call starts a new model response (`perResponse`).
    pub fn next_response(&mut self, agent: &[u16]) {
        if let Some(extra) = self.find_mut(agent).and_then(|chain| chain.extra.as_mut()) {
            extra.in_response = false;
        }
    }

    /// Lengthens the agent's run by `extra` calls of its last call (restored calls, past those
    /// replayed, by `Guard::restore_times`); nothing for an agent without a run.
    pub fn lengthen(&mut self, agent: &[u16], extra: u64) {
        if let Some(chain) = self.find_mut(agent).filter(|chain| chain.run > 0) {
            chain.run = chain.run.saturating_add(extra);
        }
    }

    /// Drops an agent's chain; its next tracked call starts a new run.
    pub fn forget(&mut self, agent: &[u16]) {
        if matches!(&self.last, Some((id, _)) if id == agent) {
            self.last = None;
        }
        self.by_agent.remove(agent);
        // Give memory back after a burst of agents (a million agents come and go).
        if self.by_agent.capacity() > 64 && self.by_agent.len() < self.by_agent.capacity() / 4 {
            self.by_agent.shrink_to(self.by_agent.len() * 2);
        }
    }

    pub fn len(&self) -> usize {
        self.by_agent.len() + usize::from(self.last.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Chains {
        /// Records a tracked call and returns the length of the run it belongs to.
        fn advance(&mut self, agent: &[u16], key: CallKey) -> u64 {
            self.advance_form(agent, &key.form())
        }

        fn is_empty(&self) -> bool {
            self.len() == 0
        }
    }

    fn key(tool: &str, json: &str) -> CallKey {
        let tool: Vec<u16> = tool.encode_utf16().collect();
        crate::key::call_key(
            &tool,
            crate::Arguments::Json(json),
            &mut crate::scratch::Scratch::default(),
        )
        .unwrap()
    }

    /// An agent id's code units.
    fn id(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    #[test]
    fn runs_count_per_agent() {
        let mut chains = Chains::default();
        let (a, b) = (key("t", "1"), key("t", "2"));
        assert_eq!(chains.advance(&id("x"), a), 1);
        assert_eq!(chains.advance(&id("y"), a), 1);
        assert_eq!(chains.advance(&id("x"), a), 2);
        assert_eq!(chains.advance(&id("x"), b), 1);
        assert_eq!(chains.advance(&id("y"), a), 2);
        chains.forget(&id("y"));
        assert_eq!(chains.len(), 1);
        chains.forget(&id("unknown"));
        assert_eq!(chains.advance(&id("y"), a), 1);
    }

    #[test]
    fn the_last_agents_chain_hands_over() {
        let mut chains = Chains::default();
        let (a, b) = (key("t", "1"), key("t", "2"));
        // Agents taking turns, each run kept while another agent's chain is the last one.
        for round in 1..=3 {
            for agent in ["x", "y", "z"] {
                assert_eq!(chains.advance(&id(agent), a), round, "{agent}");
            }
        }
        assert_eq!(chains.len(), 3);
        assert_eq!(chains.advance(&id("y"), b), 1, "a new key restarts the run");
        // Forgetting the last agent, and one in the map.
        chains.forget(&id("y"));
        assert_eq!(chains.len(), 2);
        assert_eq!(chains.advance(&id("y"), b), 1);
        chains.forget(&id("x"));
        assert_eq!(chains.advance(&id("z"), a), 4);
        assert_eq!(chains.advance(&id("x"), a), 1);
        assert_eq!(chains.len(), 3);
        for agent in ["x", "y", "z"] {
            chains.forget(&id(agent));
        }
        assert!(chains.is_empty());
        assert_eq!(chains.advance(&id("z"), a), 1);
    }

    const T: &[u16] = &[b't' as u16];

    fn step(key: CallKey, result: Option<CallKey>, cycles: Option<&CycleConfig>) -> Step<'_> {
        Step {
            key,
            result,
            tool: T,
            cycles,
            similar: None,
            no_progress: None,
            failures: None,
        }
    }

    #[test]
    #[allow(clippy::clone_on_copy)]
    fn extended_runs_need_the_same_result_too() {
        let mut chains = Chains::default();
        let (a, r1, r2) = (key("t", "1"), key("", "1"), key("", "2"));
        let run = |chains: &mut Chains, result: Option<CallKey>| {
            chains
                .advance_extended(&id("x"), step(a.clone(), result, None))
                .run
        };
        assert_eq!(run(&mut chains, Some(r1)), 1);
        assert_eq!(run(&mut chains, Some(r1)), 2);
        assert_eq!(
            run(&mut chains, Some(r2)),
            1,
            "a new result restarts the run"
        );
        assert_eq!(run(&mut chains, Some(r2)), 2);
        assert_eq!(run(&mut chains, None), 1, "no result is a value of its own");
        assert_eq!(run(&mut chains, None), 2);
        chains.forget(&id("x"));
        assert!(chains.is_empty());
    }

    #[test]
    #[allow(clippy::clone_on_copy)]
    fn extended_feeds_cycles_by_key_only() {
        let mut chains = Chains::default();
        let config = CycleConfig::new(2, 2.0);
        let (a, b) = (key("t", "1"), key("t", "2"));
        let hits: Vec<_> = [a.clone(), b.clone(), a, b]
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                let result = Some(key("", &i.to_string()));
                chains
                    .advance_extended(&id("x"), step(k, result, Some(&config)))
                    .cycle
            })
            .collect();
        assert_eq!(hits.iter().filter(|h| h.is_some()).count(), 1);
        assert_eq!(hits[3].as_ref().map(|h| h.repeats), Some(2));
    }
}
