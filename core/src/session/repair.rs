//! A broken call asked for again: a turn without a native call whose text looks like an
//! attempted call no reader accepts gets one more request, the next turn, whose answer the server
//! must keep to the offered tools' call schema (thinking off). A call that comes back joins the
//! broken turn as its call, validated like any other; anything else leaves the text as the answer.

use crate::prelude::*;

use alloc::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::assemble::TurnAssembly;
use crate::event::Event;
use crate::protocol::Protocol;
use crate::text_calls::{repair, Signs};
use crate::think::Think;

use super::{Queue, Session};

/// The broken turn, kept while its repair is out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Repairing {
    turn: u32,
    assembly: TurnAssembly,
}

impl Session {
    /// Sends the repair request for `assembly` when it needs one and the session can afford it;
    /// gives the turn back otherwise. `signs` are its text's, found when text calls are read
    /// and the turn has no native call (`None` otherwise: no repair).
    pub(super) fn try_repair(
        &mut self,
        turn: u32,
        assembly: TurnAssembly,
        signs: Option<Signs>,
        actions: &mut Queue,
    ) -> Result<(), TurnAssembly> {
        // Only servers that enforce a schema (Ollama's `format`, llama-server's and vLLM's
        // `response_format`) can be asked; one repair a turn, within the turn and token budgets
        // (a repair is a request like any other).
        let grammar = matches!(
            self.config.protocol,
            Protocol::OllamaNdjson | Protocol::OpenaiSse
        );
        let wanted = self.config.text_tool_calls
            && grammar
            && assembly.calls.is_empty()
            && turn < self.config.max_turns
            && self.budget_spent().is_none()
            && !self.config.tools.is_empty()
            && signs.is_some_and(|signs| {
                repair::attempted(&assembly.content, &signs, &self.config.tools)
            });
        if !wanted {
            return Err(assembly);
        }
        let next = turn + 1;
        let mut body = self.request(next);
        body.messages.truncate(self.conversation.len());
        body.messages
            .push(Arc::new(assembly.clone().into_message()));
        body.messages.push(Arc::new(repair::ask()));
        body.think = Think::Off;
        body.format = Some(repair::schema(&self.config.tools));
        self.repairing = Some(Repairing { turn, assembly });
        actions.push_back(Action::Emit(Event::RepairRequested {
            turn: next,
            broken_turn: turn,
        }));
        self.send(next, body, actions);
        Ok(())
    }

    /// The repair's `answer` arrived (`None`: cut off): the broken turn goes on with the call
    /// it holds, or with its text as the answer.
    pub(super) fn finish_repair(
        &mut self,
        turn: u32,
        repairing: Repairing,
        answer: Option<TurnAssembly>,
        actions: &mut Queue,
    ) {
        let Repairing {
            turn: broken,
            mut assembly,
        } = repairing;
        let read = answer.and_then(|answer| {
            repair::read_answer(&answer.content, &assembly.content, &self.config.tools)
        });
        let event = match read {
            Some((mut call, recorded)) => {
                // Every protocol's history needs an id to pair a call with its result.
                call.id = Some(format!("repair_{broken}_0"));
                assembly.calls.push(call);
                Event::RecoveredFromText {
                    turn,
                    calls: vec![recorded],
                }
            }
            None => Event::RepairUnusable {
                turn,
                broken_turn: broken,
            },
        };
        actions.push_back(Action::Emit(event));
        self.decide(turn, assembly, actions);
    }
}
