//! How a run ended that never reached its loop: mend itself could not run the tests before it
//! (a witness that cannot load in a pytest mend does not know, a broken interpreter), so the
//! model was asked nothing. The record keeps what mend said and where the copy was left, so the
//! failure can be read (`mend show`) and looked into after the run.

use serde::{Deserialize, Serialize};

/// Where in the run mend could not go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HarnessStage {
    /// The tests before the loop gave no verdict: the model was never asked anything.
    BeforeLoop,
}

/// A run that ended as a harness error (exit 6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HarnessEnd {
    /// How far the run came before the harness failed.
    pub at: HarnessStage,
    /// The error as mend printed it: what failed, with which runner, and what to do.
    pub message: String,
    /// The copy the tests ran in, kept for the user to look into.
    pub copy: String,
}

impl HarnessEnd {
    /// How the run ended, in words (what mend said is [`HarnessEnd::message`]).
    pub fn headline(&self) -> &'static str {
        match self.at {
            HarnessStage::BeforeLoop => {
                "the run ended as a harness error before its loop; the model was asked nothing"
            }
        }
    }
}
