//! The context window: what a request costs in tokens before it is sent, the oldest tool results
//! shortened when it would not fit, and a server that read fewer tokens than it was sent caught.
//!
//! **The estimate** errs high. Before the server has counted anything it takes 3 bytes of text a
//! token (tokenizers of current models give 3.5–4.5 on code, JSON and English); once a turn has
//! been counted (`prompt_eval_count`, `prompt_tokens`, `input_tokens`), the bytes per token that
//! count showed, less a tenth. The bytes are those the model reads: every message's text,
//! reasoning and calls, a few bytes per message for the chat template, and the tool schemas.
//!
//! **The check** after each turn: a server that fits an oversized prompt by dropping its front
//! (Ollama does, and answers 200) reports a smaller count. The count is clearly too small when
//! it reaches the whole window, or falls under what the bytes sent must at least have cost: the
//! previous turn's count (less its hint, less an eighth for template differences) plus the
//! appended text at 6 bytes a token, or, without a comparable previous turn, all the text at 6
//! bytes a token (no tokenizer averages more on code and prose).
//!
//! **Fitting**: when the estimate passes the share of the window (`trim_percent`, and never
//! leaving less than the output cap), the oldest tool results are shortened first, to their head
//! and tail with a marker that says what was cut and that the tool can be called again. Never
//! the messages before the model's first turn (the system prompt, the task, the project's
//! instructions), never the last two turns. The conversation itself is shortened, so what is
//! sent is what the session holds and a replay rebuilds it exactly; the requests stay
//! append-only after it. Each result is also capped on arrival at a quarter of the window.

use crate::prelude::*;

use alloc::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::schema::ToolSpec;
use crate::wire::{Message, Role};

mod error;
mod measure;
mod shorten;

pub use error::WindowError;

use measure::{kept_from, Measured, Size};
#[cfg(test)]
use shorten::{cut_middle, escaped_len};
use shorten::{shorten_message, shorten_value, MIN_CUT_BYTES};

/// The share of the window a prompt may fill before older tool results are shortened.
pub const DEFAULT_TRIM_PERCENT: u8 = 75;
/// The smallest window a session accepts: below it, the tool schemas alone would not fit.
pub const MIN_WINDOW_TOKENS: u32 = 1024;

/// Bytes per token, in thousandths, before the server has counted a turn: high on purpose.
const DEFAULT_BYTES_PER_TOKEN_MILLI: u64 = 3000;
/// The most bytes per token any tokenizer averages on code and prose: the floor of a count.
const MAX_BYTES_PER_TOKEN: u64 = 6;
/// The fewest bytes per token any tokenizer averages on code, JSON and prose (byte-level
/// tokenizers reach 1 only on random bytes): a request's largest possible size.
const MIN_BYTES_PER_TOKEN: u64 = 2;
/// What a tool result keeps of its text when the window needs the room: head and tail (a
/// second pass keeps [`MIN_CUT_BYTES`] when that is not enough).
const TRIMMED_KEEP_BYTES: usize = 1024;

/// The context window a session keeps within (for Ollama, the `num_ctx` of every request).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// The window, in tokens: prompt and output together.
    pub tokens: u32,
    /// The share of the window, in percent, a prompt may fill before older tool results are
    /// shortened.
    #[serde(default = "default_trim_percent")]
    pub trim_percent: u8,
}

fn default_trim_percent() -> u8 {
    DEFAULT_TRIM_PERCENT
}

impl Window {
    /// A window of `tokens`, shortened from [`DEFAULT_TRIM_PERCENT`].
    pub fn new(tokens: u32) -> Window {
        Window {
            tokens,
            trim_percent: DEFAULT_TRIM_PERCENT,
        }
    }

    /// Whether the session can keep within it.
    pub(crate) fn is_usable(&self) -> bool {
        self.tokens >= MIN_WINDOW_TOKENS && (1..=100).contains(&self.trim_percent)
    }

    /// The estimate above which older tool results are shortened: the share of the window, and
    /// never so much that the output cap (`num_predict`) no longer fits after the prompt.
    fn trim_above(&self, num_predict: i32) -> u64 {
        let tokens = u64::from(self.tokens);
        let share = tokens * u64::from(self.trim_percent) / 100;
        let output = u64::try_from(num_predict).unwrap_or(0);
        share.min(tokens.saturating_sub(output))
    }

    /// The size a tool result may have on arrival: a quarter of the window, at the default
    /// bytes per token.
    fn result_cap_bytes(&self) -> usize {
        let bytes = u64::from(self.tokens) * DEFAULT_BYTES_PER_TOKEN_MILLI / 1000 / 4;
        usize::try_from(bytes).unwrap_or(usize::MAX)
    }
}

/// The conservative estimate of a request's prompt tokens before the server has counted any:
/// what `mend task` prints for the first request.
pub fn estimate_prompt_tokens(messages: &[Arc<Message>], tools: &[ToolSpec]) -> u64 {
    let bytes = Size::of(messages).all + measure::tools_bytes(tools);
    tokens_of(bytes, DEFAULT_BYTES_PER_TOKEN_MILLI)
}

/// Why a tool result was shortened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrimReason {
    /// On arrival: the result alone was over a quarter of the window.
    Capped,
    /// Before a request: the prompt would have passed its share of the window.
    Window,
}

/// One shortened tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Trimmed {
    /// Its position in the conversation.
    pub message: u32,
    /// The tool that produced it.
    pub name: String,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// What the session remembers about the window between turns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Budget {
    /// Bytes per token the last count showed, in thousandths.
    observed_milli: Option<u64>,
    /// The bytes of the tool schemas, measured once.
    tools_bytes: Option<u64>,
    /// The conversation's size so far, and how far shortening has looked.
    #[serde(default)]
    measured: Measured,
    /// The request in flight.
    sent: Option<Sent>,
    /// The last counted request, while the conversation has only grown since.
    counted: Option<Counted>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Sent {
    /// All the text, reasoning included, with overheads: what the estimate and the calibration
    /// use.
    bytes: u64,
    /// The text without reasoning (chat templates may drop old reasoning): what the floor uses.
    plain_bytes: u64,
    estimate: u64,
    /// Where the session's own conversation ends; the rest is the per-turn hint.
    conversation_len: usize,
    /// The conversation's own plain bytes, the hint and the tools left out.
    #[serde(default)]
    conversation_plain: u64,
    hint_bytes: u64,
    /// The count of the request before, when this one only appended to it, and the plain bytes
    /// appended.
    grew_from: Option<(u64, u64)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Counted {
    tokens: u64,
    conversation_len: usize,
    /// The conversation's plain bytes then (absent from a session saved by an older mend: the
    /// next request is then checked as if it had no comparable turn before it).
    #[serde(default)]
    conversation_plain: Option<u64>,
    hint_bytes: u64,
}

/// A request that fits, or why none can be sent.
pub(crate) struct Fit {
    pub estimate: u64,
    pub trimmed: Vec<Trimmed>,
}

impl Budget {
    /// The calibration of an earlier session of the same conversation, without its turns (its
    /// tools may differ, so they are measured again).
    pub(crate) fn continued(&self) -> Budget {
        Budget {
            observed_milli: self.observed_milli,
            ..Budget::default()
        }
    }

    fn bytes_per_token_milli(&self) -> u64 {
        match self.observed_milli {
            Some(observed) => (observed * 9 / 10).clamp(1000, DEFAULT_BYTES_PER_TOKEN_MILLI * 2),
            None => DEFAULT_BYTES_PER_TOKEN_MILLI,
        }
    }

    /// Shortens the oldest tool results until the request fits its share of the window, then
    /// remembers what is sent. `hint` is what the request carries after the conversation.
    pub(crate) fn fit(
        &mut self,
        window: &Window,
        num_predict: i32,
        conversation: &mut [Arc<Message>],
        hint: &[Arc<Message>],
        tools: &[ToolSpec],
    ) -> Result<Fit, WindowError> {
        let tools_bytes = *self
            .tools_bytes
            .get_or_insert_with(|| measure::tools_bytes(tools));
        let ratio = self.bytes_per_token_milli();
        let hint = Size::of(hint);
        let fixed = tools_bytes + hint.all;
        let limit = window.trim_above(num_predict);
        let mut size = self.measured.catch_up(conversation);
        let mut trimmed = Vec::new();
        if tokens_of(fixed + size.all, ratio) > limit {
            (size, trimmed) = self.shorten_oldest(conversation, |size| {
                tokens_of(fixed + size.all, ratio) <= limit
            });
        }
        let estimate = tokens_of(fixed + size.all, ratio);
        if estimate > u64::from(window.tokens) {
            self.sent = None;
            return Err(WindowError::TooLarge {
                estimate,
                window: window.tokens,
            });
        }
        let grew_from = self.counted.as_ref().and_then(|counted| {
            let before = counted.conversation_plain?;
            (counted.conversation_len <= conversation.len()).then(|| {
                let floor = (counted.tokens - counted.tokens.min(counted.hint_bytes)) * 7 / 8;
                (floor, size.plain.saturating_sub(before) + hint.plain)
            })
        });
        self.sent = Some(Sent {
            bytes: fixed + size.all,
            plain_bytes: tools_bytes + hint.plain + size.plain,
            estimate,
            conversation_len: conversation.len(),
            conversation_plain: size.plain,
            hint_bytes: hint.plain,
            grew_from,
        });
        Ok(Fit { estimate, trimmed })
    }

    /// Shortens tool results, oldest first, until `fits` says the conversation's size is enough:
    /// a first pass keeps a kilobyte of each, and a long run in a small window may need a
    /// second, down to a glimpse of each. Never before the model's first turn, never in its last
    /// two. Returns the size after, and what was shortened.
    fn shorten_oldest(
        &mut self,
        conversation: &mut [Arc<Message>],
        fits: impl Fn(Size) -> bool,
    ) -> (Size, Vec<Trimmed>) {
        let mut size = self.measured.catch_up(conversation);
        let mut trimmed: Vec<Trimmed> = Vec::new();
        let Some(kept_from) = kept_from(conversation) else {
            return (size, trimmed);
        };
        for (pass, keep) in [TRIMMED_KEEP_BYTES, MIN_CUT_BYTES].into_iter().enumerate() {
            let mut index = self.measured.trim_from(conversation, pass);
            while index < kept_from && !fits(size) {
                let shortened = match conversation[index].role {
                    Role::Tool => shorten_message(&conversation[index], keep),
                    _ => None,
                };
                if let Some(shortened) = shortened {
                    let (before, after) =
                        (conversation[index].content.len(), shortened.content.len());
                    size = self.measured.shortened((before - after) as u64);
                    let message = u32::try_from(index).unwrap_or(u32::MAX);
                    // Shortened twice for one request: one shortening, from its size before either.
                    match trimmed.iter_mut().find(|trim| trim.message == message) {
                        Some(earlier) => earlier.bytes_after = after as u64,
                        None => trimmed.push(Trimmed {
                            message,
                            name: shortened.tool_name.clone().unwrap_or_default(),
                            bytes_before: before as u64,
                            bytes_after: after as u64,
                        }),
                    }
                    conversation[index] = Arc::new(shortened);
                }
                index += 1;
            }
            self.measured.looked_at(pass, index);
        }
        if !trimmed.is_empty() {
            // What was counted is no longer a prefix of what is sent.
            self.counted = None;
        }
        (size, trimmed)
    }

    /// The server counted `tokens` for the request in flight, `cached` of them (or besides them)
    /// from its prompt cache: an error when it clearly cut the prompt to fit its window, a
    /// [`PartialCount`] when the count is below what was sent but nothing can have been cut (a
    /// server that counts only the tokens it processed anew). A turn without a count checks
    /// nothing.
    pub(crate) fn counted(
        &mut self,
        window: &Window,
        tokens: Option<u64>,
        cached: Option<u64>,
    ) -> Result<Option<PartialCount>, WindowError> {
        let Some(sent) = self.sent.take() else {
            return Ok(None);
        };
        let tokens = tokens.unwrap_or(0);
        let cached = cached.unwrap_or(0);
        if tokens == 0 && cached == 0 {
            self.counted = None;
            return Ok(None);
        }
        let floor = match sent.grew_from {
            Some((before, appended)) => before + appended / MAX_BYTES_PER_TOKEN,
            None => sent.plain_bytes / MAX_BYTES_PER_TOKEN,
        };
        let whole = u64::from(window.tokens);
        let whole_count = match judge(&sent, whole, floor, tokens, cached) {
            Count::Whole(count) => count,
            Count::Cut => {
                self.counted = None;
                return Err(WindowError::PromptCut {
                    read: tokens,
                    at_least: floor,
                    estimate: sent.estimate,
                    window: whole,
                });
            }
            Count::New => {
                // Not the request's size: neither a calibration nor a base for the next floor.
                self.counted = None;
                return Ok(Some(PartialCount {
                    tokens,
                    cached,
                    at_least: floor,
                }));
            }
        };
        self.observed_milli = Some(sent.bytes * 1000 / whole_count);
        self.counted = Some(Counted {
            tokens: whole_count,
            conversation_len: sent.conversation_len,
            conversation_plain: Some(sent.conversation_plain),
            hint_bytes: sent.hint_bytes,
        });
        Ok(None)
    }

    /// A result about to enter the conversation (`text`: its JSON), cut to a quarter of the
    /// window when it is larger: the shortened value, its JSON, and the size before.
    pub(crate) fn cap(window: &Window, result: &Value, text: &str) -> Option<(Value, String, u64)> {
        let cap = window.result_cap_bytes();
        if text.len() <= cap {
            return None;
        }
        let mut value = result.clone();
        shorten_value(&mut value, cap, text.len());
        let shortened = value.to_string();
        Some((value, shortened, text.len() as u64))
    }
}

/// The words of a server error that mean the prompt did not fit its context window (Ollama,
/// OpenAI, Anthropic, llama.cpp's server, vLLM).
pub(crate) fn is_context_error(message: &str) -> bool {
    const PHRASES: [&str; 8] = [
        "context length",
        "context_length",
        "context window",
        "maximum context",
        "prompt is too long",
        "prompt too long",
        "exceeds the available context",
        "exceed_context_size",
    ];
    let message = message.to_ascii_lowercase();
    PHRASES.iter().any(|phrase| message.contains(phrase))
}

/// A prompt count below the request's size, which cannot be a cut: the server counted the
/// tokens it processed anew (a prompt-cache hit, or a server that leaves the cached ones out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PartialCount {
    /// The prompt tokens the server counted.
    pub tokens: u64,
    /// The tokens it said came from its cache (0 when it said none).
    pub cached: u64,
    /// What the request held at least.
    pub at_least: u64,
}

/// What a server's prompt count means.
enum Count {
    /// The request's size, in the server's tokens.
    Whole(u64),
    /// The server dropped the front of the prompt.
    Cut,
    /// Only the tokens processed anew: the request fitted.
    New,
}

/// Reads a count (`tokens`, and `cached` as the server gave it beside them) against a request
/// that held at least `floor` tokens, in a window of `whole`.
///
/// A count of the whole window, or a low one for a request that could not have fitted (its
/// largest possible size reaches the window, or the count is what a truncating server keeps: more
/// than half the window), is a cut. A count that reaches the floor with the cached tokens added
/// is the whole prompt counted in two parts. Any other low count is of new tokens only.
fn judge(sent: &Sent, whole: u64, floor: u64, tokens: u64, cached: u64) -> Count {
    if tokens >= whole {
        return Count::Cut;
    }
    if tokens >= floor {
        return Count::Whole(tokens);
    }
    let largest = sent.bytes / MIN_BYTES_PER_TOKEN;
    if largest >= whole || tokens > whole / 2 {
        return Count::Cut;
    }
    let together = tokens.saturating_add(cached);
    if together >= floor && together < whole {
        return Count::Whole(together);
    }
    Count::New
}

fn tokens_of(bytes: u64, milli: u64) -> u64 {
    (bytes * 1000).div_ceil(milli.max(1))
}

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
