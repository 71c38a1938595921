//! What the runs come to: the contract the first run fixes ([`contract`]), the grade of a task
//! that gives its tests ([`given`]) on the outcomes as SWE-bench's harness reads them ([`listed`]), a suite that shrank ([`shrunk`]), what the check after the
//! loop saw ([`ending`], [`checks`]), and the verdict decided from all of it in one place
//! ([`decide`]).

pub(crate) mod checks;
pub(crate) mod contract;
pub(crate) mod decide;
pub(crate) mod ending;
pub(crate) mod given;
pub(crate) mod listed;
pub(crate) mod shrunk;
pub(crate) mod skips;
