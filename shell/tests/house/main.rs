//! The house rules a newcomer relies on: the documents stand alone, the shell's files import
//! each other without circles, and every command-line failure ends with one clear message and
//! its documented exit code.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
#![allow(clippy::too_many_lines)] // the 80-line rule is for code; a scenario reads top to bottom

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod docs;
mod import_circles;
mod output;
