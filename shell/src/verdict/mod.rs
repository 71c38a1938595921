//! The verdict: the independent test runs before and after the loop ([`verify`]), read from
//! the runner's JUnit report ([`junit`]) or pytest's summary line ([`summary`]).

pub mod checks;
pub mod contract;
pub mod decide;
pub mod ending;
pub mod junit;
pub mod progress;
pub mod python_reach;
pub mod reach;
pub mod summary;
pub mod untrusted;
pub mod verify;
pub mod witness;
