//! What the independent checks saw around the loop, and the verdict they give.

use serde::{Deserialize, Serialize};

use crate::verdict::contract::Contract;
use crate::verdict::decide::{decide, Evidence, Verdict};
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
    /// The first run's tests by id, and what became of each (absent without test ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Contract>,
    /// Files that changed in the loop's copy but are not the tools' change: ignored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub written_by_tests: Vec<String>,
}

impl Checks {
    /// The verdict on what the checks saw (see [`crate::verdict::decide`]).
    pub fn verdict(&self) -> Verdict {
        decide(&Evidence {
            tests_after: &self.tests_after,
            contract: self.contract.as_ref(),
            test_files_changed: self.test_files_changed(),
            diff: &self.diff,
            test_file_sha256_before: &self.test_file_sha256_before,
        })
    }

    pub fn passed(&self) -> bool {
        self.verdict().passed
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
            contract: None,
            written_by_tests: Vec::new(),
        };
        assert_eq!(
            (checks("aa").passed(), checks("ff").passed()),
            (true, false)
        );
    }
}
