//! mend's records in the formats other tools read. `atif`: a record as an ATIF trajectory (the
//! Agent Trajectory Interchange Format of Harbor and the `atif` package): `mend export --atif` for
//! one record, `mend eval report --atif DIR` for every attempt of an eval.

pub mod atif;
pub mod atif_steps;
pub mod atif_verdict;
pub mod command;
pub mod eval_atif;
