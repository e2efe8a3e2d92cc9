//! The agent id and tool name the hot path's last call started with.

use napi::Result;
use repeat_tool_guard_core::read_string;

use crate::header::malformed;

/// The agent id and tool name a call's bytes start with, as UTF-16 code
/// units (lone surrogates kept), with the bytes they came from: the next call
/// mostly brings the same ones, which are then compared in one go and neither
/// read nor converted. Kept in the guards' thread-local table
/// (`registry::with_prefix`), so that a call looks up one thread-local.
#[derive(Default)]
pub(crate) struct Prefix {
    /// The agent id's and the tool name's strings (empty: none known).
    form: Vec<u8>,
    agent: Vec<u16>,
    tool: Vec<u16>,
}

impl Prefix {
    /// The agent id and tool name that `bytes` start with, and where the arguments start.
    pub(crate) fn read(&mut self, bytes: &[u8]) -> Result<(&[u16], &[u16], usize)> {
        let known = &self.form[..];
        // Strings are prefix-free: bytes that start with two whole strings' forms hold those strings.
        let starts_with_known = bytes.get(..known.len()).is_some_and(|head| head == known);
        if known.is_empty() || !starts_with_known {
            self.parse(bytes)?;
        }
        Ok((&self.agent, &self.tool, self.form.len()))
    }

    fn parse(&mut self, bytes: &[u8]) -> Result<()> {
        self.form.clear();
        let (agent, tool_at) = read_string(bytes, 0).map_err(|_| malformed("agent id"))?;
        let (tool, end) = read_string(bytes, tool_at).map_err(|_| malformed("tool name"))?;
        agent.to_units(&mut self.agent);
        tool.to_units(&mut self.tool);
        self.form
            .extend_from_slice(bytes.get(..end).unwrap_or_default());
        Ok(())
    }
}
