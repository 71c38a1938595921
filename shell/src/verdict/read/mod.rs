//! How a test run's result is read: the run itself ([`test_run`]), the runner's JUnit report
//! ([`junit`], refused with a [`junit_error`]) or its own output ([`readers`], [`summary`], [`progress`]), what its exit means
//! ([`note`]), what one test came to ([`outcome`]), why a run never got to its tests
//! ([`load_failure`]), whether it never reached a runner at all ([`missing_runner`]) and what
//! graded it ([`runner`]).

pub(crate) mod junit;
pub mod junit_error;
pub mod load_failure;
pub(crate) mod missing_runner;
pub(crate) mod note;
pub(crate) mod outcome;
pub(crate) mod progress;
pub(crate) mod readers;
pub mod runner;
pub(crate) mod summary;
pub mod test_run;
pub mod witness_code;
