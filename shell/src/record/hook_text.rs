//! A hook's run as a person reads it (the text of a run, `mend show`, the page): which hook, on
//! what, its decision and reason, its time; and whether a call was blocked, so a blocked call
//! reads as blocked, not as a failed tool.

use super::hook_run::{Decision, HookEvent, HookRun};

/// The text line for one hook's run about the call to `tool`.
pub fn line(tool: &str, run: &HookRun) -> String {
    let decision = match &run.decision {
        Decision::Pass => "pass".to_owned(),
        Decision::Allow {
            updated_input: None,
        } => "allow".to_owned(),
        Decision::Allow {
            updated_input: Some(_),
        } => "allow, with new arguments".to_owned(),
        Decision::Block { reason } => format!("BLOCKED: {reason}"),
    };
    format!(
        "hook {} `{}` on {tool}: {decision} ({} ms)",
        run.event.name(),
        run.command,
        run.duration_ms
    )
}

/// Whether a `PreToolUse` hook blocked the call (it never ran).
pub fn blocked(runs: &[HookRun]) -> Option<&HookRun> {
    runs.iter().find(|run| {
        run.event == HookEvent::PreToolUse && matches!(run.decision, Decision::Block { .. })
    })
}

#[cfg(test)]
mod tests {
    use super::{blocked, line};
    use crate::record::hook_run::{Decision, HookEvent, HookRun};

    #[test]
    fn each_decision_reads_as_itself() {
        let run = |event, decision| HookRun {
            event,
            command: "python3 guard.py".to_owned(),
            decision,
            additional_context: None,
            duration_ms: 12,
        };
        let runs = [
            run(
                HookEvent::PostToolUse,
                Decision::Block {
                    reason: "lint".to_owned(),
                },
            ),
            run(HookEvent::PreToolUse, Decision::Pass),
            run(
                HookEvent::PreToolUse,
                Decision::Block {
                    reason: "tests are protected".to_owned(),
                },
            ),
        ];
        assert_eq!(
            (
                runs.iter().map(|run| line("write_file", run)).collect::<Vec<_>>(),
                blocked(&runs).map(|run| run.duration_ms),
                blocked(&runs[..2]).is_some(),
            ),
            (
                vec![
                    "hook PostToolUse `python3 guard.py` on write_file: BLOCKED: lint (12 ms)".to_owned(),
                    "hook PreToolUse `python3 guard.py` on write_file: pass (12 ms)".to_owned(),
                    "hook PreToolUse `python3 guard.py` on write_file: BLOCKED: tests are protected (12 ms)".to_owned(),
                ],
                Some(12),
                false
            )
        );
    }
}
