//! `mend eval`: many attempts over many tasks under one budget, sharded across processes or
//! machines, and the report of pass@k from their results files (issue 14), as text, JSON or a
//! page (issue 15).

pub mod attempt_pages;
pub mod attempts;
pub mod check;
pub mod check_file;
pub mod check_run;
pub mod cli;
pub mod cost;
pub mod page;
pub mod page_names;
pub mod passk;
pub mod progress;
pub mod report;
pub mod results;
pub mod shard;
pub mod suite;
