//! How much the model is asked to think, and how each protocol is told.
//!
//! Its JSON is what older records and task files hold: `true` and `false` for on and off, and the
//! level's name (`"low"`, `"medium"`, `"high"`) for models that take one, as gpt-oss does.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// Whether, and how hard, the model is asked to think.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Think {
    /// Asked not to think.
    Off,
    /// Thinking on, at the model's own level (what the server does by default elsewhere than
    /// Ollama: only Ollama is sent `think: true`).
    #[default]
    On,
    /// A short reasoning.
    Low,
    /// A medium reasoning.
    Medium,
    /// A long reasoning.
    High,
}

impl Think {
    /// Every setting, by the name [`Think::name`] gives it.
    pub const ALL: [Think; 5] = [
        Think::Off,
        Think::On,
        Think::Low,
        Think::Medium,
        Think::High,
    ];

    /// The word users write: `off`, `on`, `low`, `medium` or `high`.
    pub fn name(self) -> &'static str {
        match self {
            Think::Off => "off",
            Think::On => "on",
            Think::Low => "low",
            Think::Medium => "medium",
            Think::High => "high",
        }
    }

    /// Parses a user's word ([`Think::name`], or `true`/`false`).
    pub fn from_name(name: &str) -> Option<Think> {
        match name {
            "true" => Some(Think::On),
            "false" => Some(Think::Off),
            _ => Think::ALL.into_iter().find(|think| think.name() == name),
        }
    }

    /// Whether the model thinks at all.
    pub fn is_on(self) -> bool {
        self != Think::Off
    }

    /// The level, when one was asked for.
    pub fn level(self) -> Option<&'static str> {
        match self {
            Think::Low | Think::Medium | Think::High => Some(self.name()),
            Think::Off | Think::On => None,
        }
    }

    /// Anthropic's `budget_tokens` for a level: at least the 1024 it requires, and below the
    /// output cap (`max_tokens`), which must hold the answer too. `None` when no budget fits.
    pub(crate) fn anthropic_budget(self, max_tokens: i32) -> Option<i64> {
        let wanted = match self {
            Think::Low => 1024,
            Think::Medium => 4096,
            Think::High => 16384,
            Think::Off | Think::On => return None,
        };
        let room = i64::from(max_tokens) / 2;
        let budget = wanted.min(room);
        (budget >= 1024).then_some(budget)
    }
}

impl core::fmt::Display for Think {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Think {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.level() {
            Some(level) => serializer.serialize_str(level),
            None => serializer.serialize_bool(self.is_on()),
        }
    }
}

impl<'de> Deserialize<'de> for Think {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Think, D::Error> {
        deserializer.deserialize_any(ThinkVisitor)
    }
}

struct ThinkVisitor;

impl Visitor<'_> for ThinkVisitor {
    type Value = Think;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("true, false, \"low\", \"medium\" or \"high\"")
    }

    fn visit_bool<E: de::Error>(self, on: bool) -> Result<Think, E> {
        Ok(if on { Think::On } else { Think::Off })
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Think, E> {
        Think::from_name(name).ok_or_else(|| E::invalid_value(de::Unexpected::Str(name), &self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    #[test]
    fn its_json_is_a_bool_or_the_levels_name_and_reads_back() {
        let written: Vec<String> = Think::ALL
            .iter()
            .map(|think| serde_json::to_string(think).unwrap_or_default())
            .collect();
        assert_eq!(
            written,
            ["false", "true", "\"low\"", "\"medium\"", "\"high\""]
        );
        let read: Vec<Think> = written
            .iter()
            .filter_map(|json| serde_json::from_str(json).ok())
            .collect();
        assert_eq!(read, Think::ALL);
        assert!(serde_json::from_str::<Think>("\"max\"").is_err());
        assert!(serde_json::from_str::<Think>("1").is_err());
    }

    #[test]
    fn anthropic_budgets_fit_the_output_cap_or_are_not_sent() {
        let budgets: Vec<Option<i64>> = [Think::Low, Think::Medium, Think::High, Think::On]
            .iter()
            .map(|think| think.anthropic_budget(8192))
            .collect();
        assert_eq!(budgets, [Some(1024), Some(4096), Some(4096), None]);
        assert_eq!(Think::High.anthropic_budget(2048), Some(1024));
        assert_eq!(Think::Low.anthropic_budget(1500), None);
    }
}
