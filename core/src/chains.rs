//! Per-agent chains of identical calls.
//!
//! A chain holds a 256-bit BLAKE3 digest of (tool name, full canonical
//! arguments) instead of the text itself, so its size does not grow with the
//! arguments while detection still covers every byte of them: two different
//! calls share a key only through a BLAKE3 collision.

use std::collections::HashMap;

use crate::canonical::{Arguments, CanonicalError, Sink};

/// The chain key of one call.
pub type CallKey = [u8; 32];

/// Feeds canonical text to BLAKE3 in blocks large enough for its SIMD paths.
struct DigestSink {
    hasher: blake3::Hasher,
    buffer: Vec<u8>,
}

const DIGEST_BLOCK: usize = 16 * 1024;

impl Sink for DigestSink {
    fn write(&mut self, chunk: &str) {
        if self.buffer.len() + chunk.len() > DIGEST_BLOCK {
            self.hasher.update(&self.buffer);
            self.buffer.clear();
        }
        if chunk.len() >= DIGEST_BLOCK {
            self.hasher.update(chunk.as_bytes());
        } else {
            self.buffer.extend_from_slice(chunk.as_bytes());
        }
    }
}

/// Digest of (tool, canonical arguments); the tool name is length-prefixed so
/// no (tool, arguments) pair can run into another.
pub fn call_key(tool: &str, arguments: Arguments<'_>) -> Result<CallKey, CanonicalError> {
    let mut sink = DigestSink {
        hasher: blake3::Hasher::new(),
        buffer: Vec::with_capacity(DIGEST_BLOCK),
    };
    sink.hasher.update(&(tool.len() as u64).to_le_bytes());
    sink.hasher.update(tool.as_bytes());
    arguments.write_canonical(&mut sink)?;
    sink.hasher.update(&sink.buffer);
    Ok(*sink.hasher.finalize().as_bytes())
}

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
        call_key(tool, Arguments::Json(json)).unwrap()
    }

    #[test]
    fn key_ignores_property_order_but_not_tool_or_values() {
        assert_eq!(
            key("grep", r#"{"a":1,"b":2}"#),
            key("grep", r#"{ "b":2, "a":1 }"#)
        );
        assert_ne!(key("grep", r#"{"a":1}"#), key("find", r#"{"a":1}"#));
        assert_ne!(key("grep", r#"{"a":1}"#), key("grep", r#"{"a":2}"#));
    }

    #[test]
    fn key_covers_bytes_far_past_any_preview() {
        let long = "x".repeat(1 << 20);
        assert_ne!(
            key("t", &format!("[\"{long}a\"]")),
            key("t", &format!("[\"{long}b\"]"))
        );
    }

    #[test]
    fn raw_string_and_json_string_share_a_key() {
        let units: Vec<u16> = "hi\n".encode_utf16().collect();
        assert_eq!(
            call_key("t", Arguments::Text(&units)).unwrap(),
            key("t", r#""hi\n""#)
        );
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
