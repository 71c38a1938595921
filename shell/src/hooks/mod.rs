//! Hooks in Claude Code's shape: commands the task file names (`[hooks]`) that mend runs before
//! a call (`PreToolUse`, which may block it or rewrite its arguments), after it (`PostToolUse`,
//! which may object to its result) and when the model is done (`Stop`). They read Claude Code's
//! JSON on stdin and answer as Claude Code's hooks answer, so an existing hook works unchanged;
//! unlike Claude Code, any failure of a hook blocks. They run in the sandbox, as the tests do,
//! and every decision is kept in the record, which a replay reuses rather than running them again.
//!
//! The `[hooks]` table is the task's (`task::hooks`), and what a record keeps of each run is the
//! record's (`record::hook_run`); both are plain values, below this room. What the runs come to
//! for a call is [`outcome`].

pub(crate) mod answer;
pub(crate) mod call;
pub(crate) mod gate;
pub(crate) mod input;
pub(crate) mod outcome;
pub(crate) mod spawn;
pub(crate) mod stop;
pub(crate) mod verify;

#[cfg(test)]
mod claude_code_tests;
#[cfg(test)]
mod tests;
