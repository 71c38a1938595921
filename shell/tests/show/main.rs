//! `mend show`: the terminal summary of a record, and the `--html` page in a real browser.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
// The 80-line rule is for the crates' code; a scenario test reads top to bottom.
#![allow(clippy::too_many_lines)]

#[path = "../common/mod.rs"]
mod common;

mod page;
mod summary;
