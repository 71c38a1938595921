//! The verdict: the independent test runs before and after the loop, split by the question each
//! part answers. [`read`] says what a test run reported (the run itself, its JUnit report or the
//! runner's own output); [`trust`] says whether that report can be believed (mend's pytest
//! witness, the tripwire on shared folders, added code that reaches into the run, a suite that
//! shrank); [`grade`] says what it comes to (the contract of the first run, the task's given
//! lists, the one decision every command asks). [`final_run`] is the check after the loop that
//! asks all three.

pub mod final_run;
pub(crate) mod grade;
pub mod read;
pub(crate) mod trust;
