//! The verdict: the independent test runs before and after the loop, split by the question each
//! part answers. [`read`] says what a test run reported (the run itself, a runner's JUnit report
//! or its own output); [`trust`] says whether that can be believed (mend's pytest witness, whose
//! account is a pytest run's report, the tripwire on shared folders, added code that reaches
//! into the run); [`check`] runs
//! the task's tests once and asks both, giving a [`check::TestRun`]; [`grade`] says what the runs
//! come to (the contract of the first run, the task's given lists, a suite that shrank, the one
//! decision every command asks). [`final_run`] is the one run of the tests on a changed tree,
//! for every command that judges a change: arrows point read < trust < check < grade < final_run.

pub mod check;
pub(crate) mod final_run;
pub(crate) mod grade;
pub mod read;
pub(crate) mod trust;
