//! Per-agent chains of identical calls: each agent's last call (`last_call`),
//! its key and run length, and, only when an opt-in feature needs them, the
//! last result's digest and the recent calls that cycles look at.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

use crate::arguments::Arguments;
use crate::cycles::{CycleConfig, CycleHit, CycleTracker};
use crate::error::CanonicalError;
use crate::key::{call_key, CallKey};
use crate::last_call::LastCall;
use crate::scratch::Scratch;
use crate::similar::{SimilarConfig, SimilarRun};
use crate::windows::{CallDigest, Counted, Recent, WindowConfig};

/// A chain before its first call has a run of 0.
#[derive(Debug, Clone, Default)]
struct Chain {
    /// The last call's key; `None` while it is not written: a call its bytes tell apart from the
    /// one before ([`LastCall::compare`]) is keyed only if a later call needs it.
    key: Option<CallKey>,
    run: u64,
    last: LastCall,
    /// `None` unless [`Chains::advance_extended`] was used (an opt-in feature is on).
    extra: Option<Box<Extra>>,
}

impl Chain {
    /// The last call's key, written now if it was not.
    fn key(&mut self, scratch: &mut Scratch) -> Option<CallKey> {
        if self.key.is_none() {
            self.key = self.last.with_call(|call| {
                call.and_then(|(tool, arguments)| call_key(tool, arguments, scratch).ok())
            });
        }
        self.key
    }
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
    /// Whether it is its agent's last call again.
    pub same: bool,
    /// Its key, where one is needed: always with `cycles`, which compares keys; `None`: the chain
    /// keys the call from its kept bytes if a later call asks.
    pub key: Option<CallKey>,
    /// The call's arguments, kept as the agent's last call.
    pub arguments: Arguments<'a>,
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
    /// Records a tracked call on the reference's path and returns the length of the run it
    /// belongs to. A call the agent's last call tells apart by its bytes is counted without a
    /// key. A call that fails to canonicalize changes nothing.
    pub(crate) fn advance(
        &mut self,
        agent: &[u16],
        tool: &[u16],
        arguments: Arguments<'_>,
        scratch: &mut Scratch,
    ) -> Result<u64, CanonicalError> {
        let chain = self.chain_of(agent);
        let verdict = match chain.run {
            0 => None,
            _ => chain.last.compare(tool, arguments, scratch),
        };
        let same = match verdict {
            Some(same) => {
                chain.key = chain.key.filter(|_| same);
                same
            }
            None => match call_key(tool, arguments, scratch) {
                Ok(key) => {
                    let same = chain.run > 0 && chain.key(scratch) == Some(key);
                    chain.key = Some(key);
                    same
                }
                Err(error) => {
                    if chain.run == 0 {
                        self.forget(agent);
                    }
                    return Err(error);
                }
            },
        };
        if same {
            chain.run = chain.run.saturating_add(1);
        } else {
            chain.run = 1;
            chain.last.keep(tool, arguments);
        }
        Ok(chain.run)
    }

    /// The last call counted (its agent's chain is the last one) again: `f` is given its run
    /// grown by one and, when they are kept, its tool and arguments; the run grows when `f`
    /// counts the call (`Some`).
    pub(crate) fn again<R>(
        &mut self,
        f: impl FnOnce(u64, Option<(&[u16], Arguments<'_>)>) -> Option<R>,
    ) -> Option<R> {
        let (_, chain) = self.last.as_mut().filter(|(_, chain)| chain.run > 0)?;
        let run = chain.run.saturating_add(1);
        let counted = chain.last.with_call(|call| f(run, call))?;
        chain.run = run;
        Some(counted)
    }

    /// Whether `tool` with `arguments` is the agent's last call again by their bytes
    /// ([`LastCall::compare`]); `None` before its first call or when the bytes cannot tell.
    pub(crate) fn compare_last(
        &self,
        agent: &[u16],
        tool: &[u16],
        arguments: Arguments<'_>,
        scratch: &mut Scratch,
    ) -> Option<bool> {
        let chain = self.find(agent).filter(|chain| chain.run > 0)?;
        chain.last.compare(tool, arguments, scratch)
    }

    /// The agent's last call's key, keyed now from its kept bytes if it was not; `None` before its
    /// first call.
    pub(crate) fn last_key(&mut self, agent: &[u16], scratch: &mut Scratch) -> Option<CallKey> {
        let chain = self.find_mut(agent).filter(|chain| chain.run > 0)?;
        chain.key(scratch)
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

    /// [`Chains::advance`] with the opt-in features: the run grows only while
    /// both key and result repeat, and the call goes to the agent's cycle
    /// tracker (keys only) and its near-identical run.
    // `CallKey` is treated as opaque (`Eq + Clone`), so it is cloned even while it is `Copy`.
    #[allow(clippy::clone_on_copy)]
    pub fn advance_extended(&mut self, agent: &[u16], step: Step<'_>) -> Advanced {
        let Step {
            same,
            key,
            arguments,
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
        chain.run = if chain.run > 0 && same && results_equal {
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
        let hit = cycles.zip(key).and_then(|(config, key)| {
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
        chain.last.keep(tool, arguments);
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

    /// Whether the agent's last call was made in its current model response (`perResponse`).
    pub fn in_response(&self, agent: &[u16]) -> bool {
        self.find(agent)
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
mod tests;
