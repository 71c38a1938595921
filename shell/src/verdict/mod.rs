//! The verdict: the independent test runs before and after the loop ([`test_run`] runs one,
//! [`verify`] reads it), read from the runner's JUnit report ([`junit`]) or pytest's summary
//! line ([`summary`]) and checked against what mend's pytest plugin heard ([`witness`]).

pub mod checks;
pub mod contract;
pub mod decide;
pub mod ending;
pub mod given;
pub mod junit;
pub mod known;
pub mod load_failure;
pub mod progress;
pub mod python_reach;
pub mod reach;
pub mod readers;
pub mod shrunk;
pub mod summary;
pub mod test_run;
pub mod untrusted;
pub mod verify;
pub mod witness;
