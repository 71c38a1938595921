//! mend's records in the formats other tools read. `atif`: a record as an ATIF trajectory (the
//! Agent Trajectory Interchange Format of Harbor and the `atif` package): `mend export --atif` for
//! one record, `mend eval report --atif DIR` for every attempt of an eval. `swebench`: an eval's
//! attempts in the layout SWE-bench's harness grades (`mend eval export --swebench DIR`).

pub(crate) mod atif;
pub(crate) mod atif_steps;
pub(crate) mod atif_verdict;
pub mod command;
pub(crate) mod eval_atif;
pub(crate) mod swebench;
pub(crate) mod swebench_log;
