//! The config as the binding read it: one raw value per option of
//! [`OPTIONS`], in its order, and its validation into a [`GuardConfig`].

use crate::config::{GuardConfig, RawValue};
use crate::error::ConfigError;
use crate::options::{OptionSpec, OPTIONS};

/// The config as the binding read it: one value per option of [`OPTIONS`], in its order.
#[derive(Debug, Clone, PartialEq)]
pub struct RawConfig {
    values: Vec<RawValue>,
}

impl Default for RawConfig {
    /// Every key absent.
    fn default() -> Self {
        Self {
            values: vec![RawValue::Missing; OPTIONS.len()],
        }
    }
}

impl RawConfig {
    /// The config with option `name` set to `value`.
    ///
    /// # Panics
    /// When `name` is no option's: a programming error of the caller.
    #[must_use]
    pub fn with(mut self, name: &str, value: RawValue) -> Self {
        let index = OPTIONS
            .iter()
            .position(|option| option.name == name)
            .unwrap_or_else(|| panic!("no option named {name}"));
        if let Some(slot) = self.values.get_mut(index) {
            *slot = value;
        }
        self
    }

    /// The value of option `name` (`Missing` for a name that is no option's).
    pub fn get(&self, name: &str) -> &RawValue {
        OPTIONS
            .iter()
            .position(|option| option.name == name)
            .and_then(|index| self.values.get(index))
            .unwrap_or(&RawValue::Missing)
    }

    /// Each option with its value, in validation order.
    pub fn options(&self) -> impl Iterator<Item = (&'static OptionSpec, &RawValue)> {
        OPTIONS.iter().zip(&self.values)
    }
}

impl GuardConfig {
    /// Validates every option in [`OPTIONS`]' order; absent keys keep their defaults.
    pub fn from_raw(raw: &RawConfig) -> Result<Self, ConfigError> {
        let mut config = GuardConfig::default();
        for (option, value) in raw.options() {
            (option.apply)(value, &mut config)?;
        }
        Ok(config)
    }
}
