//! `mend show`: the terminal summary of a record, and the `--html` page in a real browser.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants

#[path = "../common/mod.rs"]
mod common;

mod page;
mod summary;
