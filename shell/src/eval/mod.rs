//! `mend eval`: many attempts over many tasks under one budget, sharded across processes or
//! machines, and the report of pass@k from their results files (issue 14).

pub mod attempts;
pub mod cli;
pub mod passk;
pub mod progress;
pub mod report;
pub mod results;
pub mod shard;
pub mod suite;
