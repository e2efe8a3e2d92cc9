//! [`Guard`]: ties the modules together the way the plugin uses them, and
//! [`tier_at`], the run-length tier for a run.

use crate::arguments::Arguments;
use crate::canonical::key_form_head;
use crate::chains::{Advanced, Chains, Step};
use crate::config::GuardConfig;
use crate::error::CanonicalError;
use crate::ignore::KeyPath;
use crate::key::{call_key, write_key_form, CallKey};
use crate::reminders::{self, Reminder, Tier};
use crate::scratch::Scratch;
use crate::similar;
use crate::stats::Stats;
use crate::windows::{self, CallDigest, WindowConfig};

/// One tool call, as [`Guard::observe`] takes it.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    /// The agent's id, in UTF-16 code units.
    pub agent: &'a [u16],
    /// The tool's name, in UTF-16 code units.
    pub tool: &'a [u16],
    pub arguments: Arguments<'a>,
    /// The tool's result, which `sameResultOnly` compares (its canonical
    /// `{ content, isError }`); `None` is "no result", a value of its own.
    /// Ignored, and never read, when `sameResultOnly` is off.
    pub result: Option<Arguments<'a>>,
    /// Whether the caller has already found the tool tracked
    /// ([`Guard::is_tracked`]): the guard then counts the call without checking.
    pub known_tracked: bool,
}

impl<'a> Call<'a> {
    /// A call without a result, its tool still to be checked.
    pub fn new(agent: &'a [u16], tool: &'a [u16], arguments: Arguments<'a>) -> Self {
        Self {
            agent,
            tool,
            arguments,
            result: None,
            known_tracked: false,
        }
    }

    /// The call with the tool's result.
    #[must_use]
    pub fn with_result(self, result: Option<Arguments<'a>>) -> Self {
        Self { result, ..self }
    }

    /// The call of a tool the caller has already found tracked.
    #[must_use]
    pub fn known_tracked(self) -> Self {
        Self {
            known_tracked: true,
            ..self
        }
    }
}

/// The restores of one call [`Guard::restore_times`] replays at least before it
/// skips any: more than any window (`MAX_WINDOW`, 64) or cycle history (5 calls
/// a block, up to 51 blocks) holds.
pub const REPLAYED: u64 = 256;

fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// What the opt-in path reads of a call ([`Guard::called`]).
struct Called {
    /// Whether it is its agent's last call again.
    same: bool,
    /// Its key, where one is needed ([`Step::key`]).
    key: Option<CallKey>,
    /// Its digest, for `noProgress` and `failures` (`None`: both off).
    digest: Option<CallDigest>,
    /// `similar`'s sample of a call that is not its agent's last again.
    sample: Option<Vec<u16>>,
}

/// Watches every agent's tool calls and says when a reminder is due.
///
/// Agent ids and tool names are UTF-16 code units, as JavaScript holds them:
/// names that differ only in a lone surrogate are different names.
#[derive(Debug)]
pub struct Guard {
    config: GuardConfig,
    /// Whether any opt-in feature is on; false keeps every call on the reference's path.
    extended: bool,
    chains: Chains,
    scratch: Scratch,
    stats: Stats,
    /// Whether the last call counted on the reference's path extended its agent's run.
    repeated: bool,
}

/// Whether `config` turns on a tier that reads results ([`Tier::reads_results`]).
fn a_tier_reads_results(config: &GuardConfig) -> bool {
    (Tier::ALL.into_iter()).any(|tier| tier.reads_results() && tier.is_on(config))
}

/// The run-length tier due at `run`: gentle at the first threshold, detailed
/// at each later one and, with `repeat_every`, every that many calls past the last.
#[inline]
fn tier_at(thresholds: &[f64], repeat_every: Option<f64>, run: u64) -> Option<Tier> {
    // Exact for every run a process can reach (< 2^53).
    let at = run as f64;
    let (&first, &last) = (thresholds.first()?, thresholds.last()?);
    // Most calls: a run shorter than the first threshold.
    if at < first {
        None
    } else if at == first {
        Some(Tier::Gentle)
    } else if at <= last {
        thresholds
            .binary_search_by(|t| t.total_cmp(&at))
            .ok()
            .map(|_| Tier::Detailed)
    } else {
        repeat_every
            .filter(|every| (at - last) % every == 0.0)
            .map(|_| Tier::Detailed)
    }
}

/// The run-length reminder of `tier`: gentle, or detailed with the arguments quoted.
fn run_reminder(
    config: &GuardConfig,
    tier: Tier,
    tool: &[u16],
    run: u64,
    arguments: Arguments<'_>,
    ignored: &[KeyPath],
) -> Result<Reminder, CanonicalError> {
    Ok(match tier {
        Tier::Gentle => reminders::gentle(run),
        _ => reminders::detailed(tool, run, arguments, config.preview_chars, ignored)?,
    })
}

/// The end of a call counted on the reference's path, keyed or not, or counted
/// again: the counters, and the run's reminder, if any.
#[inline]
fn counted(
    config: &GuardConfig,
    stats: &mut Stats,
    tool: &[u16],
    run: u64,
    arguments: Arguments<'_>,
) -> Result<Option<Reminder>, CanonicalError> {
    stats.observed += 1;
    // Most calls: no reminder due, nothing more to do.
    let Some(tier) = tier_at(&config.thresholds, None, run) else {
        return Ok(None);
    };
    remind(config, stats, tier, tool, run, arguments)
}

/// The reminder `counted` found due, counted.
#[cold]
fn remind(
    config: &GuardConfig,
    stats: &mut Stats,
    tier: Tier,
    tool: &[u16],
    run: u64,
    arguments: Arguments<'_>,
) -> Result<Option<Reminder>, CanonicalError> {
    let reminder = run_reminder(config, tier, tool, run, arguments, &[])?;
    stats.reminded(reminder.tier);
    Ok(Some(reminder))
}

impl Guard {
    pub fn new(config: GuardConfig) -> Self {
        Self {
            extended: config.has_extensions(),
            config,
            chains: Chains::default(),
            scratch: Scratch::default(),
            stats: Stats::default(),
            repeated: false,
        }
    }

    /// Whether the last call counted (by [`Guard::observe`] or
    /// [`Guard::observe_again`]) on the reference's path extended its agent's
    /// run: it repeated the agent's call before, and the same call again can
    /// be counted by [`Guard::observe_again`]. Never with an opt-in feature on.
    pub fn repeated(&self) -> bool {
        self.repeated
    }

    /// Whether `observe` reads results (`sameResultOnly`, or a tier on that reads them:
    /// [`Tier::reads_results`]): callers pass them only then.
    pub fn takes_results(&self) -> bool {
        self.config.same_result_only || a_tier_reads_results(&self.config)
    }

    /// Calls counted and reminders returned since the guard was made.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Validated thresholds, ascending.
    pub fn thresholds(&self) -> &[f64] {
        &self.config.thresholds
    }

    /// The validated config, a profile's settings applied: what the plugin and the hook read of
    /// it (`perResponse`, `stopAt`, `resume`) is read here, never from the config as given.
    pub fn config(&self) -> &GuardConfig {
        &self.config
    }

    pub fn is_tracked(&self, tool: &[u16]) -> bool {
        self.config.filter.is_tracked(tool)
    }

    /// Counts one call and returns the reminder due for it, if any. Untracked
    /// calls change nothing (unless the caller vouches for the tool with
    /// [`Call::known_tracked`]); a call whose arguments or result fail to
    /// canonicalize changes nothing either.
    pub fn observe(&mut self, call: Call<'_>) -> Result<Option<Reminder>, CanonicalError> {
        let Call {
            agent,
            tool,
            arguments,
            result,
            known_tracked,
        } = call;
        self.repeated = false;
        if !known_tracked && !self.is_tracked(tool) {
            return Ok(None);
        }
        if self.extended {
            let reminder = self.observe_extended(agent, tool, arguments, result);
            self.scratch.trim();
            if let Ok(Some(reminder)) = &reminder {
                self.stats.reminded(reminder.tier);
            }
            return reminder;
        }
        let run = self
            .chains
            .advance(agent, tool, arguments, &mut self.scratch);
        self.scratch.trim();
        let run = run?;
        self.repeated = run > 1;
        counted(&self.config, &mut self.stats, tool, run, arguments)
    }

    /// [`Guard::observe`] of the last call counted, again: the same agent,
    /// tool and arguments (the plugin found them equal). Its agent's run grows
    /// by one, and nothing is read or hashed again. `None` when the guard
    /// cannot count the call so: no call yet, the agent's chain dropped since,
    /// an opt-in feature that reads the arguments, or a detailed reminder due
    /// that would quote arguments not kept (JSON text, or too large).
    pub fn observe_again(&mut self) -> Option<Result<Option<Reminder>, CanonicalError>> {
        if self.extended {
            return None;
        }
        let (config, stats) = (&self.config, &mut self.stats);
        let counted = self.chains.again(|run, last| match last {
            Some((tool, arguments)) => Some(counted(config, stats, tool, run, arguments)),
            // A call too large to keep: counted unless its reminder quotes it (a gentle one
            // reads neither tool nor arguments).
            None if tier_at(&config.thresholds, None, run) != Some(Tier::Detailed) => {
                Some(counted(config, stats, &[], run, Arguments::Text(&[])))
            }
            None => None,
        })?;
        self.repeated = true;
        Some(counted)
    }

    /// What the opt-in path reads of a call. Whether it is its agent's last call again is told by
    /// their bytes where they can tell (`last_call`), else by keys; the call is hashed with BLAKE3
    /// (a key) only then, or for `cycles`, or where `ignoreArguments` may make other bytes the same
    /// call.
    fn called(
        &mut self,
        agent: &[u16],
        tool: &[u16],
        arguments: Arguments<'_>,
        ignored: &[KeyPath],
    ) -> Result<Called, CanonicalError> {
        let scratch = &mut self.scratch;
        let verdict = match self.chains.compare_last(agent, tool, arguments, scratch) {
            // Bytes that differ may differ only where `ignoreArguments` does not look.
            Some(false) if !ignored.is_empty() => None,
            verdict => verdict,
        };
        write_key_form(tool, arguments, scratch, ignored)?;
        let form = &scratch.form;
        // Only the windows read it: the tiers that read results.
        let digest = a_tier_reads_results(&self.config).then(|| windows::call_digest(form));
        let needs_key = self.config.cycles.is_some() || !ignored.is_empty() || verdict.is_none();
        let key = needs_key.then(|| CallKey::of(form));
        // Read off the form before `last_key`, which may write the last call's form over it.
        let sample = match self.config.similar {
            Some(_) if verdict != Some(true) => key_form_head(form, similar::SAMPLE_UNITS),
            _ => None,
        };
        let same = match verdict {
            Some(same) => same,
            None => self.chains.last_key(agent, scratch) == key,
        };
        Ok(Called {
            same,
            key,
            digest,
            sample: sample.filter(|_| !same),
        })
    }

    /// The opt-in path. One reminder per call at most, by [`Tier::precedence`]: a run-length
    /// reminder due on the same call as a cycle wins, and the cycle counts as reported.
    fn observe_extended(
        &mut self,
        agent: &[u16],
        tool: &[u16],
        arguments: Arguments<'_>,
        result: Option<Arguments<'_>>,
    ) -> Result<Option<Reminder>, CanonicalError> {
        // `ignoreArguments`: the keys left out of this tool's calls, if any.
        let ignored = self.config.ignore.paths_for(tool);
        let ignored = ignored.as_deref().unwrap_or_default();
        let called = self.called(agent, tool, arguments, ignored);
        self.scratch.trim();
        let called = called?;
        // `perResponse`: the agent's last call again in the same model response is left out.
        if self.config.per_response && called.same && self.chains.in_response(agent) {
            return Ok(None);
        }
        let result_given = result;
        // Digested before the chain moves, so a result without canonical form changes nothing.
        let result = match result {
            Some(result) if self.config.same_result_only => {
                let digest = call_key(&[], result, &mut self.scratch);
                self.scratch.trim();
                Some(digest?)
            }
            _ => None,
        };
        let similar = self
            .config
            .similar
            .as_ref()
            .map(|config| (config, called.sample));
        // `noProgress` and `failures`: what each compares, the result without its volatile parts.
        let compared = match called.digest {
            Some(call) => windows::compared(
                self.config.no_progress.as_ref(),
                self.config.failures.as_ref(),
                (call, tool),
                result_given,
                &mut self.scratch,
            ),
            None => Ok((None, None)),
        };
        self.scratch.trim();
        let (no_progress, failures) = compared?;
        let step = Step {
            same: called.same,
            key: called.key,
            arguments,
            result,
            tool,
            cycles: self.config.cycles.as_ref(),
            similar,
            no_progress,
            failures,
        };
        let Advanced {
            run,
            cycle,
            near,
            similar,
            unchanged,
            no_progress,
            failed,
            failures,
        } = self.chains.advance_extended(agent, step);
        self.stats.observed += 1;
        let config = &mut self.config;
        let thresholds = config.overrides.thresholds_for(tool, &config.thresholds);
        let due_run = tier_at(thresholds, config.repeat_every, run);
        let config = &self.config;
        // Each tier's count at this call, and whether its reminder is due (the hard stop's: below).
        let at = |tier: Tier| match tier {
            Tier::Gentle | Tier::Detailed => (run, due_run == Some(tier)),
            Tier::Cycle => (cycle.as_ref().map_or(0, |hit| hit.repeats), cycle.is_some()),
            Tier::Similar => (near, similar),
            Tier::NoProgress => (unchanged, no_progress),
            Tier::Failure => (failed, failures),
            Tier::Stop => (0, false),
        };
        // `stopAt`: reached by the largest count of the tiers that count toward it.
        let counts = Tier::ALL
            .into_iter()
            .filter(|tier| tier.counts_toward_stop());
        let largest = counts.map(|tier| at(tier).0).max().unwrap_or(0);
        let stopped = config.stop_at.is_some_and(|at| largest as f64 >= at);
        // One reminder per call: of those due, the tier's of the lowest precedence.
        let due = |tier: Tier| at(tier).1 || (tier == Tier::Stop && stopped);
        let winner = Tier::ALL.into_iter().filter(|&tier| due(tier));
        let Some(tier) = winner.min_by_key(|tier| tier.precedence()) else {
            return Ok(None);
        };
        let window = |of: Option<WindowConfig>| of.map_or(0, |c| c.window as u64);
        let windows = (window(config.no_progress), window(config.failures));
        Ok(match tier {
            Tier::Gentle | Tier::Detailed => {
                Some(run_reminder(config, tier, tool, run, arguments, ignored)?)
            }
            Tier::Cycle => cycle.map(|hit| reminders::cycle(hit.tools, hit.repeats)),
            Tier::Similar => Some(reminders::similar(tool, near)),
            Tier::NoProgress => Some(reminders::no_progress(tool, unchanged, windows.0)),
            Tier::Failure => Some(reminders::failures(tool, failed, windows.1)),
            Tier::Stop => Some(reminders::stop(tool, largest)),
        })
    }

    /// Counts a call from an agent's past (a resumed session's log) into its
    /// chain, as [`Guard::observe`] would, but returns no reminder and leaves
    /// the stats alone: those were the past's.
    pub fn restore(&mut self, call: Call<'_>) -> Result<(), CanonicalError> {
        self.restore_times(call, 1)
    }

    /// [`Guard::restore`] of the same call `times` times in a row, in work that
    /// stops growing past [`REPLAYED`] of them and a period of the windows: by
    /// then every window, sample and cycle history holds only this call, and the
    /// further calls only lengthen its run. (With `perResponse`, calls in a row are one response,
    /// in which a repeat is left out: then one restore is all there is.)
    pub fn restore_times(&mut self, call: Call<'_>, times: u64) -> Result<(), CanonicalError> {
        let stats = self.stats;
        // A window's reminders come back every `window` calls of one call: what is skipped is
        // whole periods of every window, so that the windows are left as the full count leaves them.
        let period = [&self.config.no_progress, &self.config.failures]
            .into_iter()
            .flatten()
            .fold(1, |period, config| lcm(period, config.window as u64));
        let replayed = if self.config.per_response {
            times.min(1)
        } else if times > REPLAYED {
            times - (times - REPLAYED) / period * period
        } else {
            times
        };
        let mut counted = Ok(None);
        for _ in 0..replayed {
            counted = self.observe(call);
            if counted.is_err() {
                break;
            }
        }
        let tracked = call.known_tracked || self.is_tracked(call.tool);
        if counted.is_ok() && tracked && times > replayed && !self.config.per_response {
            self.chains.lengthen(call.agent, times - replayed);
        }
        self.stats = stats;
        counted.map(|_| ())
    }

    /// The agent's next call starts a new model response (`perResponse`; without it, nothing).
    pub fn next_response(&mut self, agent: &[u16]) {
        self.chains.next_response(agent);
    }

    /// A user prompt: the agent's chain starts over.
    pub fn reset(&mut self, agent: &[u16]) {
        self.chains.forget(agent);
    }

    /// The agent is gone: its state is dropped.
    pub fn dispose(&mut self, agent: &[u16]) {
        self.chains.forget(agent);
    }

    /// Every agent's chain is dropped (the plugin is unloaded); the guard stays usable.
    pub fn clear(&mut self) {
        self.chains = Chains::default();
    }

    /// Agents holding chain state.
    pub fn agent_count(&self) -> usize {
        self.chains.len()
    }
}

#[cfg(test)]
mod tests;
