//! Per-agent chains of identical calls: each agent's last call key and run length.

use std::collections::HashMap;

use crate::digest::CallKey;

#[derive(Debug, Clone, Copy)]
struct Chain {
    key: CallKey,
    run: u64,
}

/// Every agent's current run.
#[derive(Debug, Default)]
pub struct Chains {
    by_agent: HashMap<String, Chain>,
}

impl Chains {
    /// Records a tracked call and returns the length of the run it belongs to.
    pub fn advance(&mut self, agent: &str, key: CallKey) -> u64 {
        if let Some(chain) = self.by_agent.get_mut(agent) {
            chain.run = if chain.key == key {
                chain.run.saturating_add(1)
            } else {
                1
            };
            chain.key = key;
            return chain.run;
        }
        self.by_agent
            .insert(agent.to_owned(), Chain { key, run: 1 });
        1
    }

    /// Drops an agent's chain; its next tracked call starts a new run.
    pub fn forget(&mut self, agent: &str) {
        self.by_agent.remove(agent);
        // Give memory back after a burst of agents (a million agents come and go).
        if self.by_agent.capacity() > 64 && self.by_agent.len() < self.by_agent.capacity() / 4 {
            self.by_agent.shrink_to(self.by_agent.len() * 2);
        }
    }

    pub fn len(&self) -> usize {
        self.by_agent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_agent.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(tool: &str, json: &str) -> CallKey {
        crate::digest::call_key(tool, crate::Arguments::Json(json), &mut Default::default())
            .unwrap()
    }

    #[test]
    fn runs_count_per_agent() {
        let mut chains = Chains::default();
        let (a, b) = (key("t", "1"), key("t", "2"));
        assert_eq!(chains.advance("x", a), 1);
        assert_eq!(chains.advance("y", a), 1);
        assert_eq!(chains.advance("x", a), 2);
        assert_eq!(chains.advance("x", b), 1);
        assert_eq!(chains.advance("y", a), 2);
        chains.forget("y");
        assert_eq!(chains.len(), 1);
        chains.forget("unknown");
        assert_eq!(chains.advance("y", a), 1);
    }
}
