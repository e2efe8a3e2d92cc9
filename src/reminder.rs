//! The reminder as JavaScript receives it, from the core's.

use napi::bindgen_prelude::Utf16String;
use napi_derive::napi;

/// A reminder due for the call just observed.
#[napi(object)]
pub struct Reminder {
    /// Which rule the reminder comes from: `gentle` at the first threshold, `detailed` at every
    /// later one (and, with `repeatEvery`, past the last); the opt-in detections' own tiers; `stop`
    /// when a count reached `stopAt` (the plugin ends the agent's turn).
    #[napi(ts_type = "Tier")]
    pub tier: String,
    /// The run length that reached the threshold; for `cycle`, the block's repetitions.
    pub count: f64,
    /// The text the model reads, exactly as the reference plugin words it (for `gentle` and `detailed`).
    pub text: Utf16String,
    /// The repeated block's tools, in call order, where the tier has one (`cycle`).
    pub tools: Option<Vec<Utf16String>>,
}

impl From<repeat_tool_guard_core::Reminder> for Reminder {
    fn from(reminder: repeat_tool_guard_core::Reminder) -> Self {
        Self {
            tier: reminder.tier.as_str().to_owned(),
            count: reminder.count as f64,
            text: reminder.text.into(),
            tools: (!reminder.tools.is_empty())
                .then(|| reminder.tools.into_iter().map(Utf16String::from).collect()),
        }
    }
}
