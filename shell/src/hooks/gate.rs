//! The hooks of one event run for one call, in the order the task file lists them, each to its
//! answer; the first that blocks ends the list (the call is blocked whatever the rest would say).

use crate::clock::millis;
use crate::hooks::answer;
use crate::hooks::input::{self, Call, Common};
use crate::hooks::spawn::{self, Place};
use crate::interrupt::Cut;
use crate::record::hook_run::{Decision, HookEvent, HookRun};
use crate::task::hooks::HookCommand;

/// Where and as whom a session's hooks run.
pub(crate) struct Gate<'a> {
    pub place: Place<'a>,
    pub session_id: &'a str,
}

impl Gate<'_> {
    fn common(&self) -> Common<'_> {
        Common {
            session_id: self.session_id,
            cwd: self.place.root.as_str(),
        }
    }

    /// Runs `commands` for a tool event about `call`; a cut (Ctrl-C, the deadline) stops them.
    pub(crate) fn tool_event(
        &self,
        event: HookEvent,
        commands: &[&HookCommand],
        call: &Call,
    ) -> Result<Vec<HookRun>, Cut> {
        let for_mend = input::tool_event(&self.common(), event, call, false);
        let for_claude_code = input::tool_event(&self.common(), event, call, true);
        self.run_all(event, commands, &|command| match command.claude_code {
            true => for_claude_code.clone(),
            false => for_mend.clone(),
        })
    }

    /// Runs the Stop hooks, telling them the model's last words.
    pub(crate) fn stop_event(
        &self,
        commands: &[&HookCommand],
        last_message: Option<&str>,
        active: bool,
    ) -> Result<Vec<HookRun>, Cut> {
        let stdin = input::stop_event(&self.common(), last_message, active);
        self.run_all(HookEvent::Stop, commands, &|_| stdin.clone())
    }

    fn run_all(
        &self,
        event: HookEvent,
        commands: &[&HookCommand],
        stdin: &dyn Fn(&HookCommand) -> Vec<u8>,
    ) -> Result<Vec<HookRun>, Cut> {
        let mut runs = Vec::new();
        for command in commands {
            let spawned = spawn::run(
                self.place,
                &command.command,
                stdin(command),
                command.timeout,
            );
            let answer = answer::read(event, command.require_decision, spawned.ending?);
            let blocked = matches!(answer.decision, Decision::Block { .. });
            runs.push(HookRun {
                event,
                command: command.command.clone(),
                decision: answer.decision,
                additional_context: answer.additional_context,
                duration_ms: millis(spawned.elapsed),
            });
            if blocked {
                break;
            }
        }
        Ok(runs)
    }
}

/// A name for a session that no other on this machine has: the process and the time.
pub(crate) fn session_id() -> String {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!("mend-{}-{}", std::process::id(), since_epoch.as_millis())
}
