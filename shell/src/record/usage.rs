//! What each turn cost, as the server counted it and as mend estimated it: the figures a person
//! needs to see whether the window, the cache and the machine keep up.

use mend_core::{TrimReason, TurnMetrics};
use serde::{Deserialize, Serialize};

/// One turn's accounting. Every figure is absent when the server did not give what it needs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnUsage {
    /// mend's estimate of the prompt before sending it, and the window it had to fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_prompt_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// The part of the prompt the server took from its cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// The part of the output that was the model's reasoning, where the server says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_tokens: Option<u64>,
    /// Time spent loading the model before this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_ms: Option<u64>,
    /// Prompt tokens read per second, the cached ones left out (they were not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens_per_s: Option<f64>,
}

impl TurnUsage {
    /// The server's figures of a turn, with the estimate mend sent it with.
    pub fn of(metrics: &TurnMetrics, estimate: Option<(u64, u32)>) -> TurnUsage {
        let read = metrics
            .prompt_eval_count
            .map(|count| count.saturating_sub(metrics.prompt_eval_cached_count.unwrap_or(0)));
        TurnUsage {
            estimated_prompt_tokens: estimate.map(|(tokens, _)| tokens),
            window: estimate.map(|(_, window)| window),
            prompt_tokens: metrics.prompt_eval_count,
            cached_tokens: metrics.prompt_eval_cached_count,
            output_tokens: metrics.eval_count,
            thinking_tokens: metrics.thinking_eval_count,
            load_ms: metrics.load_duration_ns.map(|ns| ns / 1_000_000),
            prompt_tokens_per_s: per_second(read, metrics.prompt_eval_duration_ns),
            output_tokens_per_s: per_second(metrics.eval_count, metrics.eval_duration_ns),
        }
    }

    /// One line for a person: `prompt 3120 tokens (2900 cached; estimated 3400 of 16384) · output
    /// 85 · load 210 ms · reading 850 tokens/s · writing 31 tokens/s`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(prompt) = self.prompt_tokens {
            let mut notes = Vec::new();
            if let Some(cached) = self.cached_tokens {
                notes.push(format!("{cached} cached"));
            }
            if let (Some(estimate), Some(window)) = (self.estimated_prompt_tokens, self.window) {
                notes.push(format!("estimated {estimate} of {window}"));
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join("; "))
            };
            parts.push(format!("prompt {prompt} tokens{notes}"));
        }
        if let Some(output) = self.output_tokens {
            match self.thinking_tokens {
                Some(thinking) => parts.push(format!("output {output} ({thinking} thinking)")),
                None => parts.push(format!("output {output}")),
            }
        }
        if let Some(load) = self.load_ms {
            parts.push(format!("load {load} ms"));
        }
        if let Some(speed) = self.prompt_tokens_per_s {
            parts.push(format!("reading {speed:.0} tokens/s"));
        }
        if let Some(speed) = self.output_tokens_per_s {
            parts.push(format!("writing {speed:.1} tokens/s"));
        }
        parts.join(" · ")
    }
}

/// A tool result shortened to fit the context window, as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trim {
    /// The result's position in the conversation, from 0.
    pub message: u32,
    pub name: String,
    pub reason: TrimReason,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

impl Trim {
    /// One line for a person.
    pub fn describe(&self) -> String {
        let why = match self.reason {
            TrimReason::Capped => "on arrival, over a quarter of the context window",
            TrimReason::Window => "to fit the context window",
        };
        format!(
            "shortened the {} result (message {}) from {} to {} bytes, {why}",
            self.name, self.message, self.bytes_before, self.bytes_after
        )
    }
}

/// The least time a rate is taken over: below it a server's fixed cost per call (scheduling,
/// a batch's set-up) and its clock's granularity are most of the duration, so 6 tokens read from
/// a warm cache in 2 ms would print as 3000 tokens/s, a figure of the overhead, not the machine.
const RATE_FLOOR_NS: u64 = 50_000_000;

/// The fewest tokens a rate is taken over: below it one token more or less moves the rate by
/// over a tenth.
const RATE_FLOOR_TOKENS: u64 = 10;

/// Tokens per second, to a tenth, when there were enough tokens and enough time to mean one
/// (see [`RATE_FLOOR_NS`], [`RATE_FLOOR_TOKENS`]).
fn per_second(tokens: Option<u64>, duration_ns: Option<u64>) -> Option<f64> {
    let tokens = tokens.filter(|tokens| *tokens >= RATE_FLOOR_TOKENS)?;
    let ns = duration_ns.filter(|ns| *ns >= RATE_FLOOR_NS)?;
    Some((tokens as f64 * 1e9 / ns as f64 * 10.0).round() / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figures_of_a_turn_come_from_the_server_and_the_estimate() {
        let metrics = TurnMetrics {
            total_duration_ns: Some(3_000_000_000),
            load_duration_ns: Some(210_000_000),
            prompt_eval_count: Some(3120),
            prompt_eval_cached_count: Some(2900),
            prompt_eval_duration_ns: Some(250_000_000),
            eval_count: Some(85),
            thinking_eval_count: Some(60),
            eval_duration_ns: Some(2_750_000_000),
        };
        let usage = TurnUsage::of(&metrics, Some((3400, 16384)));
        assert_eq!(
            usage,
            TurnUsage {
                estimated_prompt_tokens: Some(3400),
                window: Some(16384),
                prompt_tokens: Some(3120),
                cached_tokens: Some(2900),
                output_tokens: Some(85),
                thinking_tokens: Some(60),
                load_ms: Some(210),
                prompt_tokens_per_s: Some(880.0),
                output_tokens_per_s: Some(30.9),
            }
        );
        assert_eq!(
            usage.describe(),
            "prompt 3120 tokens (2900 cached; estimated 3400 of 16384) · output 85 (60 thinking) · load 210 ms · reading 880 tokens/s · writing 30.9 tokens/s"
        );
        assert_eq!(TurnUsage::of(&TurnMetrics::default(), None).describe(), "");
    }

    #[test]
    fn no_rate_is_given_from_too_few_tokens_or_too_short_a_time() {
        let turn = |read: u64, read_ns: u64, written: u64, written_ns: u64| {
            let usage = TurnUsage::of(
                &TurnMetrics {
                    prompt_eval_count: Some(2000 + read),
                    prompt_eval_cached_count: Some(2000),
                    prompt_eval_duration_ns: Some(read_ns),
                    eval_count: Some(written),
                    eval_duration_ns: Some(written_ns),
                    ..TurnMetrics::default()
                },
                None,
            );
            (usage.prompt_tokens_per_s, usage.output_tokens_per_s)
        };
        assert_eq!(
            [
                // Six tokens read past a warm cache in 2 ms; three written in 40 ms.
                turn(6, 2_000_000, 3, 40_000_000),
                // Enough tokens, too short a time.
                turn(400, 49_000_000, 40, 49_999_999),
                // Enough time, too few tokens.
                turn(9, 900_000_000, 9, 900_000_000),
                // At the floors.
                turn(10, 50_000_000, 10, 50_000_000),
            ],
            [
                (None, None),
                (None, None),
                (None, None),
                (Some(200.0), Some(200.0))
            ]
        );
    }
}
