//! Images without Docker, end to end with real parts on this machine: an image built with umoci
//! from this machine's Python, Debian's distribution registry (alone and behind a token
//! service), `mend images` pulling, unpacking, listing and pruning, hostile and corrupt images
//! refused with nothing kept, and a task's tests run inside the image under bubblewrap.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
#![allow(clippy::too_many_lines)] // the 80-line rule is for code; a scenario reads top to bottom

#[path = "../common/mod.rs"]
mod common;

mod cache;
mod conda_env;
mod eval_image;
mod hostile;
mod interrupt;
mod pull;
mod record;
mod run_inside;
mod support;
