//! The grade of a task that gives its tests (`test.fail_to_pass`, `test.pass_to_pass`), as
//! SWE-bench's harness grades an instance, judged on the final run alone: a listed test that
//! should go from failing to passing succeeds when it passed (or failed as it was marked to,
//! xfail); one that should keep passing succeeds when it passed, xfailed or was skipped; any
//! other outcome, and a test that did not run at all, is a failure. The task is resolved when
//! both groups have no failure.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::task::{GivenTests, SkippedPassToPass};
use crate::verdict::grade::listed::{passes, AsListed};
use crate::verdict::read::outcome::CaseOutcome;

/// What the verdict of a benchmark-style task adds: the given tests' four groups and the files
/// held out of the attempt and put back for the final run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldAndGiven {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<Graded>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_out: Vec<String>,
}

impl HeldAndGiven {
    /// The verdict's lines about them, as text output shows them under the verdict.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.given.iter().flat_map(Graded::lines).collect();
        if !self.held_out.is_empty() {
            lines.push(format!(
                "held out of the attempt, put back for the final run: {}",
                self.held_out.join(", ")
            ));
        }
        lines
    }
}

/// A listed test that did not succeed, with what it came to (`None`: it did not run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missed {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<CaseOutcome>,
}

impl Missed {
    /// `tests/x.py::t (failed)`, `… (did not run)`.
    pub fn describe(&self) -> String {
        let outcome = self.outcome.map_or("did not run", CaseOutcome::word);
        format!("{} ({outcome})", self.id)
    }
}

/// One list's tests, split by how they came out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    pub success: Vec<String>,
    pub failure: Vec<Missed>,
}

/// The four groups SWE-bench reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graded {
    pub fail_to_pass: Group,
    pub pass_to_pass: Group,
    /// A listed id that stands for other whole ids than itself (cut at a space, or truncated),
    /// with the whole ids of the tests it was graded on.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub read_as: BTreeMap<String, Vec<String>>,
    /// Tests of `pass_to_pass` that were skipped, and how they were counted: where the two rules
    /// (`test.skipped_pass_to_pass`) would grade the run differently, the verdict says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_pass_to_pass: Vec<String>,
    #[serde(default, skip_serializing_if = "is_kept")]
    pub skipped_counted: SkippedCounted,
}

/// How the skipped tests of `pass_to_pass` were counted (records keep it as a word).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkippedCounted {
    #[default]
    Kept,
    Broken,
}

fn is_kept(counted: &SkippedCounted) -> bool {
    *counted == SkippedCounted::Kept
}

impl Graded {
    /// `given` judged on the final run's outcomes by id, as SWE-bench's harness judges the same
    /// run from its log ([`AsListed`]).
    pub fn grade(given: &GivenTests, cases: &BTreeMap<String, CaseOutcome>) -> Graded {
        let listed = AsListed::of(cases, given.ids);
        let mut read_as = BTreeMap::new();
        let mut group = |ids: &[String], succeeds: fn(CaseOutcome) -> bool| {
            let mut group = Group::default();
            for id in ids {
                let keyed = listed.resolve(id);
                if let Some(keyed) = keyed.filter(|keyed| keyed.whole != [id.clone()]) {
                    read_as.insert(id.clone(), keyed.whole.clone());
                }
                match keyed.map(|keyed| keyed.outcome) {
                    Some(outcome) if succeeds(outcome) => group.success.push(id.clone()),
                    outcome => group.failure.push(Missed {
                        id: id.clone(),
                        outcome,
                    }),
                }
            }
            group
        };
        let fail_to_pass = group(&given.fail_to_pass, passes);
        // A skipped test that should keep passing is not a regression, as the harness counts it,
        // unless the task asks for the stricter rule.
        let (pass_to_pass, skipped_counted) = match given.skipped {
            SkippedPassToPass::Kept => (
                group(&given.pass_to_pass, |outcome| {
                    passes(outcome) || outcome == CaseOutcome::Skipped
                }),
                SkippedCounted::Kept,
            ),
            SkippedPassToPass::Broken => {
                (group(&given.pass_to_pass, passes), SkippedCounted::Broken)
            }
        };
        let skipped_pass_to_pass = given
            .pass_to_pass
            .iter()
            .filter(|id| {
                listed.resolve(id).map(|keyed| keyed.outcome) == Some(CaseOutcome::Skipped)
            })
            .cloned()
            .collect();
        Graded {
            fail_to_pass,
            pass_to_pass,
            read_as,
            skipped_pass_to_pass,
            skipped_counted,
        }
    }

    /// Every listed test succeeded.
    pub fn resolved(&self) -> bool {
        self.fail_to_pass.failure.is_empty() && self.pass_to_pass.failure.is_empty()
    }

    /// Why it is not resolved, a sentence per group with failures, naming its first `named`
    /// tests.
    pub fn reasons(&self, named: usize) -> Vec<String> {
        [
            ("FAIL_TO_PASS", &self.fail_to_pass),
            ("PASS_TO_PASS", &self.pass_to_pass),
        ]
        .into_iter()
        .filter(|(_, group)| !group.failure.is_empty())
        .map(|(name, group)| {
            let shown: Vec<String> = group
                .failure
                .iter()
                .take(named)
                .map(Missed::describe)
                .collect();
            let more = group.failure.len().saturating_sub(named);
            let total = group.failure.len() + group.success.len();
            let mut text = format!(
                "{name}: {} of the {total} given tests did not pass: {}",
                group.failure.len(),
                shown.join(", ")
            );
            if more > 0 {
                text.push_str(&format!("; and {more} more"));
            }
            text
        })
        .collect()
    }

    /// The groups as counts, one line each (`FAIL_TO_PASS: 2 success, 1 failure`), then each
    /// listed id that stands for a longer one, with the whole ids.
    pub fn lines(&self) -> Vec<String> {
        let line = |name: &str, group: &Group| {
            format!(
                "{name}: {} success, {} failure",
                group.success.len(),
                group.failure.len()
            )
        };
        let mut lines = vec![
            line("FAIL_TO_PASS", &self.fail_to_pass),
            line("PASS_TO_PASS", &self.pass_to_pass),
        ];
        lines.extend(self.read_as.iter().map(|(listed, whole)| {
            format!(
                "`{listed}` as SWE-bench's parser spells it: {}",
                whole.join(", ")
            )
        }));
        lines.extend(self.skipped_line());
        lines
    }

    /// The skipped tests of `pass_to_pass` and the rule that counted them, with what the other
    /// rule would have said.
    fn skipped_line(&self) -> Option<String> {
        if self.skipped_pass_to_pass.is_empty() {
            return None;
        }
        let rule = match self.skipped_counted {
            SkippedCounted::Kept => {
                "counted as kept, as SWE-bench's harness counts them (test.skipped_pass_to_pass = \"broken\" counts them as failures)"
            }
            SkippedCounted::Broken => {
                "counted as failures (test.skipped_pass_to_pass = \"broken\"; SWE-bench's harness counts them as kept)"
            }
        };
        Some(format!(
            "PASS_TO_PASS skipped, {rule}: {}",
            self.skipped_pass_to_pass.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{Graded, Group, HeldAndGiven, Missed, SkippedCounted};
    use crate::task::{GivenTests, ListedIds, SkippedPassToPass};
    use crate::verdict::read::outcome::CaseOutcome::{
        self, Error, Failed, Passed, Skipped, Xfailed,
    };

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    fn missed(id: &str, outcome: Option<CaseOutcome>) -> Missed {
        Missed {
            id: id.to_owned(),
            outcome,
        }
    }

    #[test]
    fn each_outcome_lands_in_the_group_the_resolved_rule_puts_it() {
        let given = GivenTests {
            fail_to_pass: ids(&["f_pass", "f_xfail", "f_skip", "f_fail", "f_error", "f_gone"]),
            pass_to_pass: ids(&["p_pass", "p_xfail", "p_skip", "p_fail", "p_error", "p_gone"]),
            ids: ListedIds::Whole,
            skipped: SkippedPassToPass::Kept,
        };
        let cases: BTreeMap<String, CaseOutcome> = [
            ("f_pass", Passed),
            ("f_xfail", Xfailed),
            ("f_skip", Skipped),
            ("f_fail", Failed),
            ("f_error", Error),
            ("p_pass", Passed),
            ("p_xfail", Xfailed),
            ("p_skip", Skipped),
            ("p_fail", Failed),
            ("p_error", Error),
            ("unlisted", Failed),
        ]
        .into_iter()
        .map(|(id, outcome)| (id.to_owned(), outcome))
        .collect();
        let graded = Graded::grade(&given, &cases);
        assert_eq!(
            graded,
            Graded {
                fail_to_pass: Group {
                    success: ids(&["f_pass", "f_xfail"]),
                    failure: vec![
                        missed("f_skip", Some(Skipped)),
                        missed("f_fail", Some(Failed)),
                        missed("f_error", Some(Error)),
                        missed("f_gone", None),
                    ],
                },
                pass_to_pass: Group {
                    success: ids(&["p_pass", "p_xfail", "p_skip"]),
                    failure: vec![
                        missed("p_fail", Some(Failed)),
                        missed("p_error", Some(Error)),
                        missed("p_gone", None),
                    ],
                },
                read_as: BTreeMap::new(),
                skipped_pass_to_pass: ids(&["p_skip"]),
                skipped_counted: SkippedCounted::Kept,
            }
        );
        assert_eq!(
            (graded.resolved(), graded.reasons(10)),
            (
                false,
                vec![
                    "FAIL_TO_PASS: 4 of the 6 given tests did not pass: f_skip (skipped), f_fail (failed), f_error (error), f_gone (did not run)".to_owned(),
                    "PASS_TO_PASS: 3 of the 6 given tests did not pass: p_fail (failed), p_error (error), p_gone (did not run)".to_owned(),
                ]
            )
        );
    }

    #[test]
    fn resolved_when_every_listed_test_succeeds_whatever_else_failed() {
        let given = GivenTests {
            fail_to_pass: ids(&["a"]),
            pass_to_pass: Vec::new(),
            ids: ListedIds::Whole,
            skipped: SkippedPassToPass::Kept,
        };
        let cases = BTreeMap::from([("a".to_owned(), Passed), ("other".to_owned(), Failed)]);
        let graded = Graded::grade(&given, &cases);
        let shown = HeldAndGiven {
            given: Some(graded.clone()),
            held_out: ids(&["tests/test_new.py", "tests/test_x.py"]),
        };
        assert_eq!(
            (graded.resolved(), shown.lines()),
            (
                true,
                vec![
                    "FAIL_TO_PASS: 1 success, 0 failure".to_owned(),
                    "PASS_TO_PASS: 0 success, 0 failure".to_owned(),
                    "held out of the attempt, put back for the final run: tests/test_new.py, tests/test_x.py".to_owned(),
                ]
            )
        );
    }

    #[test]
    fn a_skipped_pass_to_pass_test_is_kept_by_default_and_broken_on_request_and_the_verdict_says_which(
    ) {
        let cases = BTreeMap::from([("a".to_owned(), Passed), ("s".to_owned(), Skipped)]);
        let graded = |skipped| {
            let given = GivenTests {
                fail_to_pass: ids(&["a"]),
                pass_to_pass: ids(&["s"]),
                ids: ListedIds::Whole,
                skipped,
            };
            let graded = Graded::grade(&given, &cases);
            (graded.resolved(), graded.lines())
        };
        assert_eq!(
            [graded(SkippedPassToPass::Kept), graded(SkippedPassToPass::Broken)],
            [
                (
                    true,
                    vec![
                        "FAIL_TO_PASS: 1 success, 0 failure".to_owned(),
                        "PASS_TO_PASS: 1 success, 0 failure".to_owned(),
                        "PASS_TO_PASS skipped, counted as kept, as SWE-bench's harness counts them (test.skipped_pass_to_pass = \"broken\" counts them as failures): s".to_owned(),
                    ]
                ),
                (
                    false,
                    vec![
                        "FAIL_TO_PASS: 1 success, 0 failure".to_owned(),
                        "PASS_TO_PASS: 0 success, 1 failure".to_owned(),
                        "PASS_TO_PASS skipped, counted as failures (test.skipped_pass_to_pass = \"broken\"; SWE-bench's harness counts them as kept): s".to_owned(),
                    ]
                ),
            ]
        );
    }
}
