//! What `mend eval` works with: many attempts over many tasks under one budget, sharded across
//! processes or machines, and the report of pass@k from their results files, as text, JSON or a
//! page. The command itself is `commands/eval.rs`.

pub(crate) mod attempt_pages;
pub(crate) mod attempts;
pub(crate) mod check;
pub(crate) mod check_file;
pub(crate) mod check_run;
pub(crate) mod compare;
pub(crate) mod cost;
pub(crate) mod import;
pub(crate) mod page;
pub(crate) mod page_names;
pub(crate) mod page_why;
pub(crate) mod passk;
pub(crate) mod prepared;
pub(crate) mod progress;
pub(crate) mod report;
pub(crate) mod results;
pub(crate) mod run_output;
mod running;
pub(crate) mod shard;
pub(crate) mod suite;
mod task_folder;
pub(crate) mod why;
pub(crate) mod why_counts;
