//! Reading the model's answer: the request of each turn, the lines of its response body, and the
//! ways a stream can end before its `done`.

use crate::prelude::*;

use alloc::sync::Arc;

use crate::action::Action;
use crate::assemble::TurnAssembly;
use crate::context::hint;
use crate::event::Event;
use crate::input::TransportError;
use crate::protocol::{Deltas, LineDecoded};
use crate::rejection::Rejection;
use crate::stop::{StopCause, StopReason};
use crate::window::{is_context_error, TrimReason};
use crate::wire::ChatRequest;

use super::{trimmed_event, Phase, Queue, Session};

impl Session {
    pub(super) fn on_line(&mut self, line: &[u8], actions: &mut Queue) -> Result<(), Rejection> {
        let Phase::Streaming {
            turn,
            assembly,
            decoder,
        } = &mut self.phase
        else {
            return Err(Rejection::NoResponseOpen);
        };
        let turn = *turn;
        let deltas = match decoder.decode_line(line) {
            Ok(LineDecoded::Blank) => return Ok(()),
            Ok(LineDecoded::Chunk(deltas)) => deltas,
            Ok(LineDecoded::ServerError { message }) => {
                let detail = format!("the server reported an error mid-stream: {message}");
                self.stop(StopReason::ModelError, Some(detail), actions);
                return Ok(());
            }
            Err(error) => {
                self.stop(StopReason::ModelError, Some(error.message), actions);
                return Ok(());
            }
        };
        // The fragments move into the events after the assembly has copied them.
        let Deltas {
            thinking,
            content,
            tool_calls,
            signed_thinking,
            done,
        } = deltas;
        assembly.absorb(&thinking, &content, tool_calls, signed_thinking);
        if !thinking.is_empty() {
            actions.push_back(Action::Emit(Event::ThinkingDelta {
                turn,
                text: thinking,
            }));
        }
        if !content.is_empty() {
            actions.push_back(Action::Emit(Event::TextDelta {
                turn,
                text: content,
            }));
        }
        if let Some(done) = done {
            self.finish_turn(turn, *done, actions);
        }
        Ok(())
    }

    pub(super) fn on_stream_end(&mut self, actions: &mut Queue) -> Result<(), Rejection> {
        if !self.is_streaming() {
            return Err(Rejection::NoResponseOpen);
        }
        let detail = "the stream ended without a `done` chunk".to_owned();
        self.stop(StopReason::IncompleteModelTurn, Some(detail), actions);
        Ok(())
    }

    pub(super) fn on_stream_failure(
        &mut self,
        error: TransportError,
        actions: &mut Queue,
    ) -> Result<(), Rejection> {
        if !self.is_streaming() {
            return Err(Rejection::NoResponseOpen);
        }
        let detail = error.describe();
        let reason = match &error {
            TransportError::Http { body, .. }
                if is_context_error(&crate::input::server_message(body)) =>
            {
                StopReason::ContextExceeded
            }
            _ => StopReason::ModelError,
        };
        let cause = Some(StopCause::Transport(error));
        self.stop_because(reason, Some(detail), cause, actions);
        Ok(())
    }

    pub(super) fn start_turn(&mut self, turn: u32, actions: &mut Queue) {
        let body = self.request(turn);
        self.send(turn, body, actions);
    }

    /// Fits `body` to the window (what it carries after the conversation counts as its hint),
    /// then sends it as the request of `turn`.
    pub(super) fn send(&mut self, turn: u32, mut body: ChatRequest, actions: &mut Queue) {
        let mut estimate = None;
        if let Some(window) = self.config.window {
            let hint = &body.messages[self.conversation.len()..];
            let fitted = self.budget.fit(
                &window,
                self.config.options.num_predict,
                &mut self.conversation,
                hint,
                &self.tools,
            );
            match fitted {
                Ok(fit) => {
                    // Only the shortened messages change: rebuilding the whole request would
                    // cost more than the shortening itself in a long conversation.
                    for trimmed in &fit.trimmed {
                        let at = trimmed.message as usize;
                        body.messages[at] = Arc::clone(&self.conversation[at]);
                    }
                    for trimmed in fit.trimmed {
                        actions.push_back(trimmed_event(turn, TrimReason::Window, trimmed));
                    }
                    estimate = Some(Event::PromptEstimate {
                        turn,
                        tokens: fit.estimate,
                        window: window.tokens,
                    });
                }
                Err(error) => {
                    self.stop_on_window(error, actions);
                    return;
                }
            }
        }
        self.phase = Phase::Streaming {
            turn,
            assembly: TurnAssembly::default(),
            decoder: Box::new(self.config.protocol.decoder()),
        };
        actions.push_back(Action::Emit(Event::ModelStart { turn }));
        actions.extend(estimate.map(Action::Emit));
        actions.push_back(Action::SendRequest {
            turn,
            body,
            protocol: self.config.protocol,
        });
    }

    pub(super) fn request(&self, turn: u32) -> ChatRequest {
        let mut messages = self.conversation.clone();
        if let Some(context) = &self.config.context {
            // After the conversation, never in it: each request gets the hint of its own turn.
            messages.push(Arc::new(hint(
                context,
                turn,
                self.config.max_turns,
                &self.stats,
                &self.todo,
            )));
        }
        ChatRequest {
            model: self.config.model.clone(),
            messages,
            tools: Arc::clone(&self.tools),
            stream: true,
            think: self.config.think,
            keep_alive: self.config.keep_alive,
            options: self.config.options.clone(),
            format: None,
            schema_field: self.config.schema_field,
        }
    }
}
