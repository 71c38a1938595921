//! What the independent check after the loop saw: the tests on the final tree, the change it was
//! given, and the files the loop's tests wrote. Records store it as it is; with the test files'
//! digest from before the loop it gives the verdict.

use serde::{Deserialize, Serialize};

use crate::verdict::check::TestRun;
use crate::verdict::grade::contract::Contract;
use crate::verdict::grade::decide::{decide, Evidence, Verdict};
use crate::verdict::grade::given::{Graded, HeldAndGiven};
use crate::verdict::trust::python_reach::PythonReach;

/// The independent check after the conversation, and what it had changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ending {
    /// The verdict.
    pub tests_after: TestRun,
    pub test_file_sha256_after: String,
    pub source_sha256_after: String,
    /// The unified diff of the editable files, original against the copy at the end (empty when
    /// nothing changed).
    #[serde(default)]
    pub diff: String,
    /// The first run's tests by id and what became of each: `fail_to_pass`, `pass_to_pass`,
    /// `added` (absent without test ids, and in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Contract>,
    /// Files that changed in the loop's copy but are not the tools' change (written while the
    /// tests ran): left out of the final tests and of the patch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub written_by_tests: Vec<String>,
    /// Of those, the ones the verdict rests on (test files, test configuration), with what each
    /// is: the final tests ran with the originals, and the verdict names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protected_written_by_tests: Vec<String>,
    /// The given tests' four groups (`test.fail_to_pass`, `test.pass_to_pass`), judged on the
    /// final run alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<Graded>,
    /// The files held out of the attempt and put back for the final run (`test.held_out`,
    /// and those `test.patch` writes), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_out: Vec<String>,
    /// What the `.git` of the copy the final tests ran in held (`copy.history`): "only what
    /// BASE (COMMIT) reaches", or none. Absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<String>,
    /// The added Python that reaches into the test run, read as a syntax tree (absent in older
    /// records, and when the reader could not run: then the diff's words are read instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python_reaches: Option<Vec<PythonReach>>,
}

impl Ending {
    /// The verdict on this ending, for a loop that started with test files of
    /// `test_file_sha256_before`.
    pub fn verdict(&self, test_file_sha256_before: &str) -> Verdict {
        decide(&Evidence {
            tests_after: &self.tests_after,
            contract: self.contract.as_ref(),
            test_files_changed: self.test_files_changed(test_file_sha256_before),
            diff: &self.diff,
            test_file_sha256_before,
            protected_written_by_tests: &self.protected_written_by_tests,
            given: self.given.as_ref(),
            python_reaches: self.python_reaches.as_deref(),
            held_out: &self.held_out,
        })
    }

    /// The given tests' grade and the held-out files, as the verdict event shows them.
    pub fn held_and_given(&self) -> HeldAndGiven {
        HeldAndGiven {
            given: self.given.clone(),
            held_out: self.held_out.clone(),
        }
    }

    /// Whether the test files the final run used differ from those of before the loop (then its
    /// tests prove nothing).
    pub fn test_files_changed(&self, test_file_sha256_before: &str) -> bool {
        self.test_file_sha256_after != test_file_sha256_before
    }
}
