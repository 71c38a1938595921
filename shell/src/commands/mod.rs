//! One file per command, each thin: it reads its options, builds a [`crate::session`] over a
//! [`crate::workspace`], and reports. `init` has its own folder.

pub mod chat;
pub mod conformance;
pub mod init;
pub mod outcome;
pub mod replay;
pub mod resume;
pub mod run;
pub mod show;
