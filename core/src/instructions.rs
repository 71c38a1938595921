//! The opening of a conversation: the system prompt, the project's instructions (its
//! `AGENTS.md`, when the caller gives them) and the task. These messages are pinned: whatever
//! shortens a long conversation to fit the model's window must leave them whole, since a model
//! that lost them no longer knows its job or the project's rules.

use crate::prelude::*;

use alloc::sync::Arc;

use crate::config::Config;
use crate::wire::{Message, Role};

/// The first messages of a session's conversation, in order: the system prompt, then the
/// project's instructions as a second system message when there are any, then the task.
pub(crate) fn opening(config: &Config) -> Vec<Arc<Message>> {
    let mut messages = vec![Arc::new(Message::system(config.system_prompt.clone()))];
    if let Some(instructions) = &config.instructions {
        messages.push(Arc::new(Message::system(instructions.clone())));
    }
    messages.push(Arc::new(Message::user(config.task.clone())));
    messages
}

impl Config {
    /// The estimate of the first request's prompt, in tokens, that a session under this config
    /// would state in its first `prompt_estimate` (the opening, the turn-1 hint with `context`,
    /// the tools), without starting one: what `mend task`, `mend run` and `mend chat` print
    /// beside the window.
    pub fn first_request_tokens(&self) -> u64 {
        let mut messages = opening(self);
        if let Some(context) = &self.context {
            let stats = crate::context::ToolStats::default();
            let hint = crate::context::hint(context, 1, self.max_turns, &stats, &[]);
            messages.push(Arc::new(hint));
        }
        crate::window::estimate_prompt_tokens(&messages, &self.tools)
    }
}

/// How many messages at the start of `conversation` are pinned (never shortened or dropped):
/// the opening, up to and including the first user message (the task).
pub fn pinned_messages(conversation: &[Arc<Message>]) -> usize {
    conversation
        .iter()
        .position(|message| message.role == Role::User)
        .map_or(conversation.len(), |task| task + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instructions_come_after_the_system_prompt_and_are_pinned_with_it() {
        let mut config = Config::new("m", "You repair code.", "Fix it.", Vec::new());
        let without = opening(&config);
        config.instructions = Some("Run `make test` before you finish.".to_owned());
        let with = opening(&config);
        let expected = vec![
            Arc::new(Message::system("You repair code.")),
            Arc::new(Message::system("Run `make test` before you finish.")),
            Arc::new(Message::user("Fix it.")),
        ];
        assert_eq!(with, expected);
        assert_eq!(without, vec![expected[0].clone(), expected[2].clone()]);
        let mut longer = with.clone();
        longer.push(Arc::new(Message::tool_result(
            "run_tests",
            None,
            "{}".to_owned(),
        )));
        assert_eq!(
            (
                pinned_messages(&with),
                pinned_messages(&without),
                pinned_messages(&longer)
            ),
            (3, 2, 3)
        );
    }

    #[test]
    fn anthropic_reads_the_instructions_as_a_paragraph_of_its_system_text() {
        let config = Config {
            instructions: Some("Use tabs.".to_owned()),
            protocol: crate::protocol::Protocol::AnthropicSse,
            ..Config::new("m", "You repair code.", "Fix it.", Vec::new())
        };
        let mut session = crate::session::Session::new(config).unwrap();
        let actions: Vec<_> = session.drain_actions().collect();
        let Some(crate::action::Action::SendRequest { body, protocol, .. }) = actions.last() else {
            panic!("turn 1 is sent: {actions:?}");
        };
        let sent: serde_json::Value = serde_json::from_slice(&protocol.request_body(body)).unwrap();
        assert_eq!(
            (&sent["system"], &sent["messages"]),
            (
                &serde_json::json!("You repair code.\n\nUse tabs."),
                &serde_json::json!([{"role": "user", "content": "Fix it."}])
            )
        );
    }
}
