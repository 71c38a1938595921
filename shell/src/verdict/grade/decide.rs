//! The verdict, decided in one place from what the independent runs saw: the final tests pass,
//! the report is trusted, the contract of the first run holds test by test, and the tests are
//! the ones the run started with. Every command, record and page asks this module.

use serde::{Deserialize, Serialize};

use crate::verdict::check::TestRun;
use crate::verdict::grade::contract::{Contract, Transition, NAMED_IDS};
use crate::verdict::grade::given::Graded;
use crate::verdict::grade::skips::{skipped_contract_tests, skipped_given_tests};
use crate::verdict::trust::python_reach::PythonReach;
use crate::verdict::trust::reach::change_warnings;

/// What the verdict rests on.
pub(crate) struct Evidence<'a> {
    pub tests_after: &'a TestRun,
    /// `None` when the runs give no test ids (`test.report = "exit_code"`) or for older records.
    pub contract: Option<&'a Contract>,
    pub test_files_changed: bool,
    /// The change as a unified diff, read for lines that reach into the test run.
    pub diff: &'a str,
    /// The digest of the task's test files when the run started.
    pub test_file_sha256_before: &'a str,
    /// Protected files the code under test wrote while the loop's tests ran, with what each is.
    pub protected_written_by_tests: &'a [String],
    /// The given tests' grade (`test.fail_to_pass`, `test.pass_to_pass`): with it, the
    /// resolved rule replaces "the final tests pass" and the derived contract.
    pub given: Option<&'a Graded>,
    /// The added Python read as a syntax tree (see [`crate::verdict::trust::python_reach`]); `None`:
    /// the diff's words are read instead, Python files too.
    pub python_reaches: Option<&'a [PythonReach]>,
    /// The files held out of the attempt and put back for the final run: tests the change never
    /// saw, so a verdict that rests on them rests on tests it could not rewrite.
    pub held_out: &'a [String],
}

/// What the digest of no file at all is (see `workspace::changes::set_sha256`): SHA-256 of the
/// empty manifest. (A single empty test file has it too; then the warning is one too many.)
const NO_FILES_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub passed: bool,
    /// Why it failed, or for a pass, what it could not check: each a sentence a person reads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// What a person should look at in the change, pass or fail (see [`crate::verdict::trust::reach`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Verdict {
    pub fn headline(&self) -> &'static str {
        if self.passed {
            "PASS"
        } else {
            "FAIL"
        }
    }
}

pub(crate) fn decide(evidence: &Evidence) -> Verdict {
    let mut warnings = Vec::new();
    if evidence.test_file_sha256_before == NO_FILES_SHA256 && evidence.held_out.is_empty() {
        warnings.push("the verdict rests on no protected test file: test.files in the task file matches nothing, so a change could have rewritten the tests; name the test files there".to_owned());
    }
    if !evidence.protected_written_by_tests.is_empty() {
        warnings.push(format!(
            "while the loop's tests ran, the code under test wrote files the verdict rests on: {}; they are no part of the change, and the final tests ran with the originals",
            evidence.protected_written_by_tests.join(", ")
        ));
    }
    warnings.extend(change_warnings(evidence.diff, evidence.python_reaches));
    if evidence.given.is_some() {
        warnings.extend(skipped_given_tests(evidence.tests_after));
    }
    Verdict {
        warnings,
        ..judge(evidence)
    }
}

fn judge(evidence: &Evidence) -> Verdict {
    let after = evidence.tests_after;
    let mut reasons = Vec::new();
    if let Some(graded) = evidence.given {
        // Other tests may fail, as SWE-bench allows; a report mend does not trust, or a run
        // stopped before its end, grades nothing.
        if after.not_trusted.is_some() || after.exit_code.is_none() {
            reasons.push(format!("the independent final tests: {}", after.describe()));
        }
        reasons.extend(graded.reasons(NAMED_IDS));
    } else if !after.passed() {
        reasons.push(format!("the independent final tests: {}", after.describe()));
    }
    if evidence.test_files_changed {
        reasons.push(
            "the run changed the task's test files, so its final tests prove nothing".to_owned(),
        );
    }
    match evidence.contract {
        Some(_) if evidence.given.is_some() => {}
        Some(contract) => {
            reasons.extend(broken_contract(contract));
            reasons.extend(skipped_contract_tests(after, contract));
        }
        None if after.by_exit_code && after.passed() => {
            let weaker = "judged by the exit code alone (test.report = \"exit_code\"): the weaker rule, with no test ids to hold the change to";
            return Verdict {
                passed: reasons.is_empty(),
                reasons: if reasons.is_empty() {
                    vec![weaker.to_owned()]
                } else {
                    reasons
                },
                warnings: Vec::new(),
            };
        }
        None => {}
    }
    Verdict {
        passed: reasons.is_empty(),
        reasons,
        warnings: Vec::new(),
    }
}

/// The promises of the first run that the final run broke, in words: the count, then the first
/// ids.
fn broken_contract(contract: &Contract) -> Option<String> {
    let broken: Vec<&Transition> = contract.broken().collect();
    if broken.is_empty() {
        return None;
    }
    let named: Vec<String> = broken
        .iter()
        .take(NAMED_IDS)
        .map(|transition| transition.describe())
        .collect();
    let more = broken.len().saturating_sub(NAMED_IDS);
    // The counts are the contract's tally, as `mend show` and the page print it.
    let mut text = format!(
        "the tests by id: {}; not passing after the change: {}",
        contract.tally().describe(),
        named.join("; ")
    );
    if more > 0 {
        text.push_str(&format!("; and {more} more"));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::{decide, Evidence, Verdict};
    use crate::verdict::check::TestRun;
    use crate::verdict::grade::contract::{Contract, Transition};
    use crate::verdict::read::outcome::CaseOutcome;
    use crate::verdict::read::summary::Summary;

    fn passing() -> TestRun {
        TestRun {
            exit_code: Some(0),
            summary: Some(Summary {
                passed: 4,
                ..Summary::default()
            }),
            ..TestRun::default()
        }
    }

    /// What the run left, with nothing else against it: the test files unchanged and protected
    /// (digest `aa`), an empty diff, no given tests, no syntax tree and nothing held out.
    fn evidence<'a>(after: &'a TestRun, contract: Option<&'a Contract>) -> Evidence<'a> {
        Evidence {
            tests_after: after,
            contract,
            test_files_changed: false,
            diff: "",
            test_file_sha256_before: "aa",
            protected_written_by_tests: &[],
            given: None,
            python_reaches: None,
            held_out: &[],
        }
    }

    fn moved(id: &str, before: CaseOutcome, after: Option<CaseOutcome>) -> Transition {
        Transition {
            id: id.to_owned(),
            before: Some(before),
            after,
        }
    }

    #[test]
    fn a_passing_run_that_lost_a_failing_test_is_no_pass() {
        let contract = Contract {
            fail_to_pass: vec![moved("t::a", CaseOutcome::Failed, None)],
            pass_to_pass: vec![moved(
                "t::b",
                CaseOutcome::Passed,
                Some(CaseOutcome::Passed),
            )],
            added: Vec::new(),
        };
        let after = passing();
        let verdict = decide(&evidence(&after, Some(&contract)));
        assert_eq!(
            verdict,
            Verdict {
                passed: false,
                reasons: vec!["the tests by id: 0 of 1 failing before now pass, 1 of 1 passing before still pass; not passing after the change: t::a: failed → did not run".to_owned()],
                warnings: Vec::new(),
            }
        );
    }

    /// The case once seen: one failing test still failing among 179 that kept passing. The
    /// reason's counts are the tally `mend show` and the page print, in the same words.
    #[test]
    fn the_reason_counts_as_show_counts() {
        let mut pass_to_pass: Vec<Transition> = (0..179)
            .map(|at| {
                moved(
                    &format!("t::p{at:03}"),
                    CaseOutcome::Passed,
                    Some(CaseOutcome::Passed),
                )
            })
            .collect();
        pass_to_pass.sort_by(|a, b| a.id.cmp(&b.id));
        let contract = Contract {
            fail_to_pass: vec![moved(
                "t::bug",
                CaseOutcome::Failed,
                Some(CaseOutcome::Failed),
            )],
            pass_to_pass,
            added: Vec::new(),
        };
        let after = TestRun {
            exit_code: Some(1),
            summary: Some(Summary {
                passed: 179,
                failed: 1,
                ..Summary::default()
            }),
            ..TestRun::default()
        };
        let verdict = decide(&evidence(&after, Some(&contract)));
        let show = format!("Tests by id: {}", contract.tally().describe());
        assert_eq!(
            (verdict.reasons, show),
            (
                vec![
                    "the independent final tests: 1 failed · 179 passed".to_owned(),
                    "the tests by id: 0 of 1 failing before now pass, 179 of 179 passing before still pass; not passing after the change: t::bug: failed → failed".to_owned(),
                ],
                "Tests by id: 0 of 1 failing before now pass, 179 of 179 passing before still pass".to_owned()
            )
        );
    }

    #[test]
    fn the_exit_code_rule_passes_but_says_it_is_the_weaker_one() {
        let after = TestRun {
            exit_code: Some(0),
            by_exit_code: true,
            ..TestRun::default()
        };
        let verdict = decide(&evidence(&after, None));
        assert_eq!(
            (verdict.passed, verdict.reasons.len()),
            (true, 1),
            "{verdict:?}"
        );
    }

    #[test]
    fn an_untrusted_report_or_changed_test_files_fail() {
        let mut after = passing();
        after.not_trusted = Some(crate::verdict::trust::untrusted::Untrusted::ExitAltered {
            session: 1,
            process: 0,
        });
        let verdict = decide(&Evidence {
            test_files_changed: true,
            ..evidence(&after, None)
        });
        assert_eq!(
            verdict,
            Verdict {
                passed: false,
                reasons: vec![
                    "the independent final tests: 4 passed — the exit code was altered: pytest ended its session with 1, but the process exited with 0".to_owned(),
                    "the run changed the task's test files, so its final tests prove nothing"
                        .to_owned(),
                ],
                warnings: Vec::new(),
            }
        );
    }

    #[test]
    fn no_protected_test_file_is_a_warning_unless_the_tests_were_held_out() {
        let after = passing();
        let warnings = |held_out: &[String]| {
            decide(&Evidence {
                test_file_sha256_before: super::NO_FILES_SHA256,
                held_out,
                ..evidence(&after, None)
            })
            .warnings
        };
        assert_eq!(
            (warnings(&[]), warnings(&["tests/test_new.py".to_owned()])),
            (
                vec!["the verdict rests on no protected test file: test.files in the task file matches nothing, so a change could have rewritten the tests; name the test files there".to_owned()],
                Vec::new()
            )
        );
    }
}
