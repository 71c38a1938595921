//! `mend show`: the terminal summary of a record, and the `--html` page in a real browser.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
#![allow(clippy::too_many_lines)] // the 80-line rule is for code; a scenario reads top to bottom

#[path = "../common/mod.rs"]
mod common;

mod page;
mod summary;
