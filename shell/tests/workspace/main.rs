//! The copy a run works on and the sandbox it runs in, on projects in the shape of real ones:
//! what the sandbox hides, installed dependencies shared rather than copied, editable installs,
//! files no copy should choke on, other toolchains, stale builds, `mend init` guessing a task
//! file, and `mend apply` bringing a run's change back to the original.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
#![allow(clippy::too_many_lines)] // the 80-line rule is for code; a scenario reads top to bottom

#[path = "../common/mod.rs"]
mod common;

mod apply;
mod editable;
mod egg_link;
mod init;
mod sandbox;
mod set_up;
mod share;
mod stale_build;
mod survivable;
mod toolchains;
