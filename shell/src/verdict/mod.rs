//! The verdict: the independent test runs before and after the loop ([`test_run`] runs one,
//! [`verify`] reads it), read from the runner's JUnit report ([`junit`]) or pytest's summary
//! line ([`summary`]) and checked against what mend's pytest plugin heard ([`witness`]).

pub(crate) mod checks;
pub(crate) mod contract;
pub(crate) mod decide;
pub(crate) mod ending;
pub(crate) mod given;
pub(crate) mod junit;
pub(crate) mod known;
pub mod load_failure;
pub(crate) mod note;
pub(crate) mod progress;
pub(crate) mod python_reach;
pub(crate) mod reach;
pub(crate) mod readers;
pub(crate) mod shrunk;
pub(crate) mod summary;
pub(crate) mod test_run;
pub(crate) mod tripwire;
pub(crate) mod untrusted;
pub mod verify;
pub(crate) mod witness;
