//! One file (or folder) per command: `command` reads the command's arguments (`cli/`), builds
//! what it needs over a [`crate::attempt`] and a [`crate::workspace`], and reports. `finish` is
//! the one end of a session (`run`, `resume`, `replay`, `chat`), over `outcome`'s parts.

pub mod apply;
pub mod chat;
pub mod conformance;
pub mod eval;
pub(crate) mod finish;
pub mod images;
pub mod init;
pub(crate) mod outcome;
pub mod replay;
pub mod resume;
pub mod run;
pub mod show;
pub mod task;
mod unbegun;
pub mod verify;
