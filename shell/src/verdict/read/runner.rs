//! What graded a run: the test runner's version and what it ran on, as mend's pytest witness
//! told it, so a verdict, its record and its page say which grading ran.

use std::fmt;

use serde::{Deserialize, Serialize};

/// pytest's, pluggy's and Python's versions, as the run's own interpreter had them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runner {
    /// pytest's version.
    pub pytest: String,
    /// pluggy's version, pytest's plugin system.
    pub pluggy: String,
    /// Python's version.
    pub python: String,
}

impl fmt::Display for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pytest {}, pluggy {}, Python {}",
            self.pytest, self.pluggy, self.python
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Runner;

    #[test]
    fn a_runner_reads_as_its_three_versions() {
        let runner = Runner {
            pytest: "9.2.0".to_owned(),
            pluggy: "1.7.0".to_owned(),
            python: "3.11.7".to_owned(),
        };
        assert_eq!(
            (runner.to_string(), serde_json::to_value(&runner).unwrap()),
            (
                "pytest 9.2.0, pluggy 1.7.0, Python 3.11.7".to_owned(),
                serde_json::json!({"pytest": "9.2.0", "pluggy": "1.7.0", "python": "3.11.7"})
            )
        );
    }
}
