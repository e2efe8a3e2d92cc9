//! The agent id and tool name the hot path's last call started with.

use napi::Result;
use repeat_tool_guard_core::{bytes_equal, read_string, tag::TOOL};

use crate::wire::{malformed, out_of_range};

/// The agent id and tool name a call's bytes start with, as UTF-16 code
/// units (lone surrogates kept), with the bytes they came from: the next call mostly brings the same ones, which
/// are then compared in one go and neither read nor converted. Kept in the
/// guards' thread-local table (`registry::with_prefix`), so that a call
/// looks up one thread-local.
#[derive(Default)]
pub(crate) struct Prefix {
    /// The agent id's form, the tool tag and the tool name's form (empty: none known).
    form: Vec<u8>,
    /// Where in `form` the key form (its tool tag) starts.
    key_start: usize,
    agent: Vec<u16>,
    tool: Vec<u16>,
}

impl Prefix {
    /// The agent id and tool name that `bytes` start with, the key form
    /// starting at `key_start` (within `bytes`), and where its arguments start.
    pub(crate) fn read(
        &mut self,
        bytes: &[u8],
        key_start: usize,
    ) -> Result<(&[u16], &[u16], usize)> {
        let known = &self.form[..];
        // The form is prefix-free: bytes that start with a whole string's form hold that string.
        let starts_with_known = bytes
            .get(..known.len())
            .is_some_and(|head| bytes_equal(head, known));
        if known.is_empty() || key_start != self.key_start || !starts_with_known {
            self.parse(bytes, key_start)?;
        }
        Ok((&self.agent, &self.tool, self.form.len() - key_start))
    }

    fn parse(&mut self, bytes: &[u8], key_start: usize) -> Result<()> {
        self.form.clear();
        let (agent_form, key) = bytes
            .split_at_checked(key_start)
            .ok_or_else(|| out_of_range("key start"))?;
        match read_string(agent_form, 0) {
            Ok((agent, end)) if end == key_start => agent.to_units(&mut self.agent),
            _ => return Err(malformed("agent id")),
        }
        let end = match key.first() {
            Some(&TOOL) => {
                let (tool, end) = read_string(key, 1).map_err(|_| malformed("tool name"))?;
                tool.to_units(&mut self.tool);
                end
            }
            _ => return Err(malformed("tool name")),
        };
        self.form.extend_from_slice(&bytes[..key_start + end]);
        self.key_start = key_start;
        Ok(())
    }
}
