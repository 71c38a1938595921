//! Hooks in Claude Code's shape: commands the task file names (`[hooks]`) that mend runs before
//! a call (`PreToolUse`, which may block it or rewrite its arguments), after it (`PostToolUse`,
//! which may object to its result) and when the model is done (`Stop`). They read Claude Code's
//! JSON on stdin and answer as Claude Code's hooks answer, so an existing hook works unchanged;
//! unlike Claude Code, any failure of a hook blocks. They run in the sandbox, as the tests do,
//! and every decision is kept in the record, which a replay reuses rather than running them again.

pub(crate) mod answer;
pub(crate) mod call;
pub(crate) mod config;
pub(crate) mod gate;
pub(crate) mod input;
pub(crate) mod record;
pub(crate) mod spawn;
pub(crate) mod stop;

pub(crate) use config::Hooks;
pub(crate) use record::HookRun;

#[cfg(test)]
mod tests;
