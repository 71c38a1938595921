//! What the independent checks saw around the loop, and the verdict they give.

use serde::{Deserialize, Serialize};

use crate::verdict::check::TestRun;
use crate::verdict::grade::decide::Verdict;
use crate::verdict::grade::ending::Ending;

/// What the independent check saw around the loop: the tests and the digests before it, and
/// what the check after it saw ([`Ending`]). A record stores these as they are, the ending's
/// fields beside the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    pub tests_before: TestRun,
    /// SHA-256 of the task's test files (see [`set_sha256`]); the ending's must be equal.
    ///
    /// [`set_sha256`]: crate::workspace::changes::set_sha256
    pub test_file_sha256_before: String,
    /// SHA-256 of the editable files.
    pub source_sha256_before: String,
    #[serde(flatten)]
    pub after: Ending,
}

impl Checks {
    /// The verdict on what the checks saw (see [`crate::verdict::grade::decide`]).
    pub fn verdict(&self) -> Verdict {
        self.after.verdict(&self.test_file_sha256_before)
    }

    pub fn passed(&self) -> bool {
        self.verdict().passed
    }

    pub fn test_files_changed(&self) -> bool {
        self.after.test_files_changed(&self.test_file_sha256_before)
    }
}

#[cfg(test)]
mod tests {
    use super::Checks;
    use crate::verdict::check::TestRun;
    use crate::verdict::grade::ending::Ending;
    use crate::verdict::read::summary::Summary;

    #[test]
    fn passing_tests_count_only_when_the_test_files_are_the_ones_the_run_started_with() {
        let passing = TestRun {
            exit_code: Some(0),
            summary: Some(Summary {
                passed: 4,
                ..Summary::default()
            }),
            duration_ms: 1,
            ..TestRun::default()
        };
        let checks = |test_file_sha256_after: &str| Checks {
            tests_before: passing.clone(),
            test_file_sha256_before: "aa".to_owned(),
            source_sha256_before: "bb".to_owned(),
            after: Ending {
                tests_after: passing.clone(),
                test_file_sha256_after: test_file_sha256_after.to_owned(),
                source_sha256_after: "cc".to_owned(),
                diff: String::new(),
                contract: None,
                written_by_tests: Vec::new(),
                protected_written_by_tests: Vec::new(),
                given: None,
                held_out: Vec::new(),
                history: None,
                python_reaches: None,
            },
        };
        assert_eq!(
            (checks("aa").passed(), checks("ff").passed()),
            (true, false)
        );
    }
}
