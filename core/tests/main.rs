//! The core's integration tests, one binary: each area a folder of modules, the builders they
//! share in `support`. The session driven from outside as a caller drives it (`session`), the
//! protocols' names (`protocol`), the context window (`window`), calls written as text
//! (`text_calls`), and the crate's purity (`purity`).
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
#![allow(clippy::too_many_lines)] // the 80-line rule is for code; a scenario reads top to bottom

mod protocol;
mod purity;
mod session;
mod support;
mod text_calls;
mod window;
