//! What `mend eval` works with: many attempts over many tasks under one budget, sharded across
//! processes or machines, and the report of pass@k from their results files, as text, JSON or a
//! page. The command itself is `commands/eval.rs`.

pub mod attempt_pages;
pub mod attempts;
pub mod check;
pub mod check_file;
pub mod check_run;
pub mod compare;
pub mod cost;
pub mod import;
pub mod page;
pub mod page_names;
pub mod page_why;
pub mod passk;
pub mod progress;
pub mod report;
pub mod results;
pub mod shard;
pub mod suite;
pub mod why;
pub mod why_counts;
