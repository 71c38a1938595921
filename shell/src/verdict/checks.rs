//! What the independent checks saw around the loop, and the verdict they give.

use serde::{Deserialize, Serialize};

use crate::verdict::verify::TestRun;

/// What the independent check saw around the loop: the tests and the hashes before and after,
/// and the diff. A record stores these as they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    pub tests_before: TestRun,
    /// The verdict.
    pub tests_after: TestRun,
    /// SHA-256 of the task's test files (see [`set_sha256`]); before and after must be equal.
    pub test_file_sha256_before: String,
    pub test_file_sha256_after: String,
    /// SHA-256 of the editable files.
    pub source_sha256_before: String,
    pub source_sha256_after: String,
    /// The unified diff of the editable files, original against the copy after the run (empty
    /// when nothing changed).
    #[serde(default)]
    pub diff: String,
}

/// The verdict: the final tests pass, and they are the tests the run started with. A run that
/// changed its own test files (through a link, or the shell tool) proves nothing.
pub fn verdict_passes(
    tests_after: &TestRun,
    test_files_before: &str,
    test_files_after: &str,
) -> bool {
    tests_after.passed() && test_files_before == test_files_after
}

impl Checks {
    pub fn passed(&self) -> bool {
        verdict_passes(
            &self.tests_after,
            &self.test_file_sha256_before,
            &self.test_file_sha256_after,
        )
    }

    pub fn test_files_changed(&self) -> bool {
        self.test_file_sha256_before != self.test_file_sha256_after
    }
}

#[cfg(test)]
mod tests {
    use super::Checks;
    use crate::verdict::summary::Summary;
    use crate::verdict::verify::TestRun;

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
            tests_after: passing.clone(),
            test_file_sha256_before: "aa".to_owned(),
            test_file_sha256_after: test_file_sha256_after.to_owned(),
            source_sha256_before: "bb".to_owned(),
            source_sha256_after: "cc".to_owned(),
            diff: String::new(),
        };
        assert_eq!(
            (checks("aa").passed(), checks("ff").passed()),
            (true, false)
        );
    }
}
