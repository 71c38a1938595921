//! Why a request cannot go out in the context window, or came back cut: the cause of a
//! `context_exceeded` stop, typed so a caller matches on it; its `Display` is the stop's detail.

use serde::{Deserialize, Serialize};

/// Why the conversation no longer fits the context window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WindowError {
    /// The next request is larger than the window and nothing older is left to shorten.
    TooLarge {
        /// The request's estimated size, in tokens.
        estimate: u64,
        /// The context window, in tokens.
        window: u32,
    },
    /// The server read fewer prompt tokens than the request held, or its whole window: it
    /// dropped the front of the prompt.
    PromptCut {
        /// The prompt tokens the server counted.
        read: u64,
        /// What the request held at least, in tokens.
        at_least: u64,
        /// mend's estimate of the request, in tokens.
        estimate: u64,
        /// The context window mend assumed, in tokens.
        window: u64,
    },
}

impl core::fmt::Display for WindowError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            WindowError::TooLarge { estimate, window } => write!(
                f,
                "the next request needs about {estimate} tokens and the context window holds \
                 {window}; nothing older is left to shorten (the system prompt, the task and \
                 the last two turns are kept whole): raise num_ctx if the model and the machine \
                 allow it"
            ),
            WindowError::PromptCut {
                read,
                at_least,
                estimate,
                window,
            } => {
                if read >= window {
                    write!(
                        f,
                        "the server read {read} prompt tokens, its whole context window"
                    )?;
                } else {
                    write!(
                        f,
                        "the server read {read} prompt tokens where the request held at least \
                         {at_least}"
                    )?;
                }
                write!(
                    f,
                    " (mend estimated {estimate}): it dropped the front of the prompt to fit, so \
                     the model no longer saw the task; mend assumed a window of {window} tokens: \
                     set num_ctx (or --num-ctx) to what the server really holds"
                )
            }
        }
    }
}
