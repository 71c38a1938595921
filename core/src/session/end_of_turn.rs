//! The end of a turn. Its `done` chunk is accounted for (tokens, the window, a cut-off output);
//! a complete turn then decides what comes next: stop, or run its calls. Once every call has its
//! result, the turn is over: the next request, or a stop at a budget.

use crate::prelude::*;

use alloc::collections::VecDeque;
use alloc::sync::Arc;

use crate::action::Action;
use crate::assemble::TurnAssembly;
use crate::event::Event;
use crate::protocol::Done;
use crate::repeat::Repeat;
use crate::stop::{StopCause, StopReason};
use crate::text_calls::{self, Signs};

use super::tools::check_call;
use super::{count, Phase, Queue, Session, Verdict};

impl Session {
    /// The turn's `done` arrived: it is complete unless the server cut the prompt or the output.
    pub(super) fn finish_turn(&mut self, turn: u32, done: Done, actions: &mut Queue) {
        let Phase::Streaming { assembly, .. } = &mut self.phase else {
            return;
        };
        let assembly = core::mem::take(assembly);
        let turn_tokens = done
            .metrics
            .prompt_eval_count
            .unwrap_or(0)
            .saturating_add(done.metrics.eval_count.unwrap_or(0));
        self.tokens_used = self.tokens_used.saturating_add(turn_tokens);
        let counted = done.metrics.prompt_eval_count;
        let cached = done.metrics.prompt_eval_cached_count;
        actions.push_back(Action::Emit(Event::ModelDone {
            turn,
            done_reason: done.reason.clone(),
            tool_calls: count(assembly.calls.len()),
            metrics: done.metrics,
        }));
        // A prompt the server cut: the turn answered a conversation without its start.
        if let Some(window) = self.config.window {
            match self.budget.counted(&window, counted, cached) {
                Err(error) => {
                    self.stop_on_window(error, actions);
                    return;
                }
                Ok(Some(partial)) => actions.push_back(Action::Emit(Event::PromptCountPartial {
                    turn,
                    tokens: partial.tokens,
                    cached: partial.cached,
                    at_least: partial.at_least,
                })),
                Ok(None) => {}
            }
        }
        if let Some(repairing) = self.repairing.take() {
            // A cut-off repair is no answer: the broken turn's text stays its answer.
            let answer = (!done.cut_off).then_some(assembly);
            self.finish_repair(turn, repairing, answer, actions);
            return;
        }
        if done.cut_off {
            let reason = done.reason.as_deref().unwrap_or("length");
            let mut detail = format!(
                "the model's output was cut off by the token limit (done_reason: {reason})"
            );
            if !assembly.calls.is_empty() {
                detail.push_str(&format!(
                    "; none of its {} tool call(s) ran",
                    assembly.calls.len()
                ));
            }
            let cause = Some(StopCause::TokenLimit);
            self.stop_because(
                StopReason::IncompleteModelTurn,
                Some(detail),
                cause,
                actions,
            );
            return;
        }
        self.complete_turn(turn, assembly, actions);
    }

    /// The decision for a complete turn: calls written out in its text become its calls (when
    /// the config allows), each call is checked against the offered tools and the repetition
    /// guard, the turn joins the conversation, and then the session either stops (no call: a
    /// blank or a final answer) or starts running the calls.
    fn complete_turn(&mut self, turn: u32, mut assembly: TurnAssembly, actions: &mut Queue) {
        // One pass over the text of a turn without native calls finds the signs of written
        // calls, for the readers and the repair decision both.
        let signs = (self.config.text_tool_calls && assembly.calls.is_empty())
            .then(|| Signs::of(&assembly.content));
        if let Some(signs) = &signs {
            if let Some(calls) = text_calls::recover(
                turn,
                &mut assembly,
                signs,
                &self.config.tools,
                self.config.text_call_family.as_deref(),
            ) {
                actions.push_back(Action::Emit(Event::RecoveredFromText { turn, calls }));
            }
        }
        let Err(assembly) = self.try_repair(turn, assembly, signs, actions) else {
            return;
        };
        self.decide(turn, assembly, actions);
    }

    /// The turn's calls, as they now stand, are checked and run; without any, the session stops.
    pub(super) fn decide(&mut self, turn: u32, assembly: TurnAssembly, actions: &mut Queue) {
        let blank = assembly.content.trim().is_empty();
        let mut waiting = VecDeque::with_capacity(assembly.calls.len());
        for (index, call) in assembly.calls.iter().enumerate() {
            let mut checked = check_call(turn, count(index), call, &self.config);
            match self.repeats.observe(call, self.config.repeat_limits) {
                Repeat::Fresh => {}
                Repeat::Refuse { message } => checked.verdict = Verdict::Refused { message },
                Repeat::Stop { message } => {
                    self.stop_for_repeating = Some(message.clone());
                    checked.verdict = Verdict::Refused { message };
                }
            }
            waiting.push_back(checked);
        }
        self.conversation.push(Arc::new(assembly.into_message()));
        if waiting.is_empty() {
            let reason = if blank {
                StopReason::EmptyResponse
            } else {
                StopReason::AssistantFinished
            };
            self.stop(reason, None, actions);
            return;
        }
        self.phase = Phase::RunningTools {
            turn,
            waiting,
            in_flight: None,
        };
        self.advance_tools(actions);
    }

    /// Every call of `turn` has its result: the next request, unless the repetition guard, the
    /// turn budget or the token budget ends the session first (in that order).
    pub(super) fn after_results(&mut self, turn: u32, actions: &mut Queue) {
        if let Some(detail) = self.stop_for_repeating.take() {
            self.stop(StopReason::Repeating, Some(detail), actions);
        } else if turn >= self.config.max_turns {
            let detail = format!("the budget of {} turn(s) is spent", self.config.max_turns);
            self.stop(StopReason::MaxTurns, Some(detail), actions);
        } else if let Some(budget) = self.budget_spent() {
            let detail = format!(
                "the budget of {budget} token(s) is spent ({} used)",
                self.tokens_used
            );
            self.stop(StopReason::BudgetExceeded, Some(detail), actions);
        } else {
            self.start_turn(turn + 1, actions);
        }
    }

    /// The token budget, once the finished turns have gone past it.
    pub(super) fn budget_spent(&self) -> Option<u64> {
        self.config
            .token_budget
            .filter(|budget| self.tokens_used > *budget)
    }
}
