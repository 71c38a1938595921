//! mend's records in the formats other tools read. `atif`: a record as an ATIF trajectory (the
//! Agent Trajectory Interchange Format of Harbor and the `atif` package): `mend export --atif` for
//! one record, `mend eval report --atif DIR` for every attempt of an eval.

pub(crate) mod atif;
pub(crate) mod atif_steps;
pub(crate) mod atif_verdict;
pub mod command;
pub(crate) mod eval_atif;
