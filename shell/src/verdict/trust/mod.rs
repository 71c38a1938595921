//! Whether a test run's report can be believed: what mend's pytest plugin heard ([`witness`]),
//! what mend's unittest watcher heard ([`unittest_watch`]), what the shared folders show
//! ([`tripwire`]), added lines that reach into the run ([`reach`],
//! [`python_reach`]) and which of those the change did not write ([`known`]), and the reasons a
//! report is not trusted, in words ([`untrusted`]).

pub(crate) mod known;
pub(crate) mod loaded_first;
pub(crate) mod printed;
pub(crate) mod python_reach;
pub(crate) mod reach;
pub(crate) mod tripwire;
pub(crate) mod unittest_watch;
pub(crate) mod untrusted;
pub(crate) mod witness;
