//! The transition function: one session of the coding-agent loop as a pure state machine.
//!
//! This file holds the state, the dispatch of each input and the questions a caller may ask.
//! The phases live next to it: reading the model's answer (`streaming`), the end of a turn and
//! what comes next (`end_of_turn`), running the turn's calls (`tools`), and how a session ends
//! (`stops`).

mod end_of_turn;
mod repair;
mod stops;
mod streaming;
mod tools;

use crate::prelude::*;

use alloc::collections::VecDeque;
use alloc::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::action::Action;
use crate::assemble::TurnAssembly;
use crate::config::{Config, ConfigError};
use crate::context::{TodoItem, ToolStats};
use crate::event::Event;
use crate::input::{CallId, Input, Millis};
use crate::protocol::Decoder;
use crate::repeat::RepeatGuard;
use crate::schema::ToolSpec;
use crate::stop::{Stop, StopReason};
use crate::window::{Budget, TrimReason, Trimmed};
use crate::wire::Message;

/// One coding-agent session: a conversation with a model that may call tools.
///
/// # Contract
///
/// - [`Session::new`] checks the config and queues the first actions: a `model_start` event and
///   the `SendRequest` for turn 1.
/// - Every action, the first ones included, is taken the same way: [`Session::poll_action`] (or
///   [`Session::drain_actions`]) until it says `None`. The caller performs them in order and
///   reports what happened through [`Session::handle`], one [`Input`] at a time: the lines of the
///   current response body, then its end or its failure; the outcome of each dispatched tool; a
///   cancel; the deadline. Each input queues the actions it leads to.
/// - Nothing runs concurrently: at most one request and at most one tool call are in flight, and
///   the session waits for each answer before it asks for the next thing.
/// - Time only comes from the caller, as the `now` of each call, and only moves forward.
///   [`Session::next_deadline`] says when the caller should send `DeadlinePassed`.
/// - The session ends with exactly one `Stop` action. After it, every input queues nothing.
/// - An input that makes no sense in the current phase (a tool result nobody asked for, a line
///   while tools run) yields one `input_rejected` event naming the case (a [`crate::Rejection`]) and
///   changes nothing else.
///
/// The session holds no I/O handle: it can be cloned, compared, serialized mid-turn and resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    config: Config,
    /// The streak of identical calls, across turns.
    repeats: RepeatGuard,
    /// Set when the guard has seen enough: the session stops once the turn's results are in.
    stop_for_repeating: Option<String>,
    /// Results so far per tool, for the per-turn context.
    stats: ToolStats,
    /// The model's TODO list, kept through the `todo` tool.
    todo: Vec<TodoItem>,
    /// Prompt + generated tokens of the finished turns, as the server counted them.
    #[serde(default)]
    tokens_used: u64,
    /// What the context window has cost so far (only used with [`Config::window`]).
    #[serde(default)]
    budget: Budget,
    conversation: Vec<Arc<Message>>,
    /// The offered tools, shared by every request.
    tools: Arc<[ToolSpec]>,
    /// A turn whose broken call is being asked for again under a grammar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    repairing: Option<repair::Repairing>,
    phase: Phase,
    /// Actions decided and not yet taken by the caller, oldest first. Serialized with the rest,
    /// so a session restored mid-way still owes them; absent in sessions saved before it existed.
    #[serde(default, skip_serializing_if = "VecDeque::is_empty")]
    queued: Queue,
}

/// Where the phases push the actions they decide.
type Queue = VecDeque<Action>;

/// What a session continued from a stopped one carries over; a new session starts empty.
#[derive(Default)]
struct Carried {
    stats: ToolStats,
    todo: Vec<TodoItem>,
    budget: Budget,
}

/// Where the session is. The turn number counts requests sent, from 1. Private: callers ask the
/// session questions ([`Session::turn`], [`Session::is_streaming`], [`Session::stopped`]) instead,
/// so that the phases can change without breaking them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Phase {
    /// A request is out; its lines are being assembled.
    Streaming {
        turn: u32,
        assembly: TurnAssembly,
        decoder: Box<Decoder>,
    },
    /// The turn completed with calls; they are answered one at a time in the model's order.
    RunningTools {
        turn: u32,
        waiting: VecDeque<CheckedCall>,
        in_flight: Option<CheckedCall>,
    },
    Stopped {
        turn: u32,
        stop: Stop,
    },
}

/// A model call after validation: either runnable arguments or the message explaining why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct CheckedCall {
    index: u32,
    call_id: CallId,
    /// The server's id, echoed as `tool_call_id` in the result message when present.
    wire_id: Option<String>,
    name: String,
    verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
enum Verdict {
    Accepted { arguments: Map<String, Value> },
    Refused { message: String },
}

impl Session {
    /// Starts a session, with its first actions queued: a `model_start` event and the
    /// `SendRequest` of turn 1, taken like every later action ([`Session::poll_action`]).
    /// Refuses a config it cannot honour (e.g. `max_turns` of 0).
    pub fn new(config: Config) -> Result<Session, ConfigError> {
        config.check()?;
        let conversation = crate::instructions::opening(&config);
        let tools = config.tools.clone().into();
        Ok(Session::opened(
            config,
            conversation,
            tools,
            Carried::default(),
        ))
    }

    /// A new session over `conversation` under `config` (checked by the caller), with this
    /// one's TODO list and tool statistics, a fresh turn budget and repetition guard; its first
    /// actions send turn 1.
    pub(crate) fn continued(&self, conversation: Vec<Arc<Message>>, config: Config) -> Session {
        let carried = Carried {
            stats: self.stats.clone(),
            todo: self.todo.clone(),
            budget: self.budget.continued(),
        };
        Session::opened(config, conversation, Arc::clone(&self.tools), carried)
    }

    /// The one constructor body: every session starts streaming turn 1, its request queued.
    fn opened(
        config: Config,
        conversation: Vec<Arc<Message>>,
        tools: Arc<[ToolSpec]>,
        carried: Carried,
    ) -> Session {
        let decoder = config.protocol.decoder();
        let mut session = Session {
            config,
            repeats: RepeatGuard::default(),
            stop_for_repeating: None,
            stats: carried.stats,
            todo: carried.todo,
            tokens_used: 0,
            budget: carried.budget,
            conversation,
            tools,
            repairing: None,
            phase: Phase::Streaming {
                turn: 1,
                assembly: TurnAssembly::default(),
                decoder: Box::new(decoder),
            },
            queued: Queue::new(),
        };
        let mut queued = Queue::new();
        session.start_turn(1, &mut queued);
        session.queued = queued;
        session
    }

    /// Feeds one input at time `now`. What the session decides is queued behind any action not
    /// yet taken: take them in order with [`Session::poll_action`] or [`Session::drain_actions`].
    pub fn handle(&mut self, now: Millis, input: Input) {
        if matches!(self.phase, Phase::Stopped { .. }) {
            return;
        }
        // The queue is moved out while the phases push onto it, so they can borrow `self`.
        let mut queued = core::mem::take(&mut self.queued);
        let kind = input.kind();
        let outcome = match input {
            Input::StreamLine(line) => self.on_line(&line.bytes, &mut queued),
            Input::StreamEnd => self.on_stream_end(&mut queued),
            Input::TransportFailed { error } => self.on_stream_failure(error, &mut queued),
            Input::ToolFinished { call_id, outcome } => {
                self.on_tool_finished(&call_id, outcome, &mut queued)
            }
            Input::Cancel => {
                self.stop(StopReason::Cancelled, None, &mut queued);
                Ok(())
            }
            Input::DeadlinePassed => self.on_deadline(now, &mut queued),
        };
        if let Err(reason) = outcome {
            queued.push_back(Action::Emit(Event::InputRejected {
                input: kind,
                reason,
            }));
        }
        self.queued = queued;
    }

    /// The next action to perform, oldest first; `None` when the session waits for an input.
    /// Perform each before feeding the input it asks for.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.queued.pop_front()
    }

    /// Every queued action, oldest first, emptying the queue.
    pub fn drain_actions(&mut self) -> alloc::collections::vec_deque::Drain<'_, Action> {
        self.queued.drain(..)
    }

    /// When the caller must send `DeadlinePassed`, if the session has a deadline and is running.
    pub fn next_deadline(&self) -> Option<Millis> {
        match self.phase {
            Phase::Stopped { .. } => None,
            _ => self.config.deadline,
        }
    }

    /// The conversation so far: system, user, then each complete turn and its tool results.
    pub fn conversation(&self) -> &[Arc<Message>] {
        &self.conversation
    }

    /// The config the session was started with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The turn in progress (1-based: how many requests have been sent), or the last one once
    /// the session has stopped.
    pub fn turn(&self) -> u32 {
        match self.phase {
            Phase::Streaming { turn, .. }
            | Phase::RunningTools { turn, .. }
            | Phase::Stopped { turn, .. } => turn,
        }
    }

    /// Prompt + generated tokens of the turns finished so far, as the server counted them in
    /// each `done` (what [`Config::token_budget`] is compared with).
    pub fn tokens_used(&self) -> u64 {
        self.tokens_used
    }

    /// True while the current response body is wanted: the shell stops reading once this is false.
    pub fn is_streaming(&self) -> bool {
        matches!(self.phase, Phase::Streaming { .. })
    }

    /// The stop, once the session has ended.
    pub fn stopped(&self) -> Option<&Stop> {
        match &self.phase {
            Phase::Stopped { stop, .. } => Some(stop),
            _ => None,
        }
    }
}

fn trimmed_event(turn: u32, reason: TrimReason, trimmed: Trimmed) -> Action {
    Action::Emit(Event::ContextTrimmed {
        turn,
        message: trimmed.message,
        name: trimmed.name,
        reason,
        bytes_before: trimmed.bytes_before,
        bytes_after: trimmed.bytes_after,
    })
}

/// Counts within one turn: a stream line is capped far below `u32::MAX` calls.
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
