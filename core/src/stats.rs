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
    /// Reminders returned by tier, in [`Tier::ALL`]'s order.
    by_tier: [u64; Tier::ALL.len()],
}

impl Stats {
    /// Counts a reminder of `tier`.
    pub fn reminded(&mut self, tier: Tier) {
        self.reminders += 1;
        if let Some(count) = self.by_tier.get_mut(tier as usize) {
            *count += 1;
        }
    }

    /// Reminders of `tier` returned.
    pub fn of(&self, tier: Tier) -> u64 {
        self.by_tier.get(tier as usize).copied().unwrap_or_default()
    }
}
