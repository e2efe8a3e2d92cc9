//! Counters for observability (`stats()`): per guard, never per agent, plain
//! integers bumped on the call path.

use crate::reminders::Tier;

/// What a guard has seen and said since it was made (`clear()` keeps them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tracked calls counted into a chain (untracked calls and calls whose
    /// arguments have no canonical form are not).
    pub observed: u64,
    /// Reminders returned, every tier.
    pub reminders: u64,
    pub gentle: u64,
    pub detailed: u64,
    pub cycle: u64,
    pub similar: u64,
    pub no_progress: u64,
    pub failure: u64,
    pub stop: u64,
}

impl Stats {
    pub(crate) fn reminded(&mut self, tier: Tier) {
        self.reminders += 1;
        match tier {
            Tier::Gentle => self.gentle += 1,
            Tier::Detailed => self.detailed += 1,
            Tier::Cycle => self.cycle += 1,
            Tier::Similar => self.similar += 1,
            Tier::NoProgress => self.no_progress += 1,
            Tier::Failure => self.failure += 1,
            Tier::Stop => self.stop += 1,
        }
    }
}
