//! Reading a JUnit XML report: the counts and the failing tests of a test run, whatever the
//! runner printed on the way. pytest writes one when asked (`--junitxml`); cargo-nextest,
//! jest-junit and go-junit-report write the same format.
//!
//! Each `<testcase>` is counted by what it holds: a `<failure>` makes it failed, an `<error>`
//! errored (a case may hold both, as pytest writes a test that fails and then errors in its
//! teardown, and is then counted in both, as pytest counts it), a `<skipped>` skipped (pytest's
//! xfail, `type="pytest.xfail"`, counted apart as xfailed), none of them passed. The suites' own totals are not trusted: runners
//! disagree about them.

use std::borrow::Cow;
use std::collections::BTreeMap;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::verdict::read::outcome::CaseOutcome;
use crate::verdict::read::summary::Summary;

/// pytest's message on the `<error>` of a module it could not collect.
const COLLECTION_FAILURE: &str = "collection failure";

/// What a report says about a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub summary: Summary,
    /// The tests that failed or errored, sorted and without repeats (a runner that retries, or
    /// runs in parallel, may list one test twice or in any order).
    pub failing: Vec<String>,
    /// Each test's outcome by id; a test listed twice keeps its worse outcome.
    pub cases: BTreeMap<String, CaseOutcome>,
}

/// The case being read: its name and what it held so far.
#[derive(Default)]
struct Case {
    name: String,
    failed: bool,
    errored: bool,
    skipped: bool,
    xfailed: bool,
    /// A module pytest could not collect: named by its file, as pytest prints it.
    uncollected: bool,
}

impl Case {
    fn outcome(&self) -> CaseOutcome {
        if self.errored {
            CaseOutcome::Error
        } else if self.failed {
            CaseOutcome::Failed
        } else if self.xfailed {
            CaseOutcome::Xfailed
        } else if self.skipped {
            CaseOutcome::Skipped
        } else {
            CaseOutcome::Passed
        }
    }
}

impl Report {
    /// The report without the cases `ids` (mend's canaries), its counts and failing list too.
    pub fn without(&self, ids: &[String]) -> Report {
        let mut report = self.clone();
        for id in ids {
            let Some(outcome) = report.cases.remove(id) else {
                continue;
            };
            let count = match outcome {
                CaseOutcome::Passed => &mut report.summary.passed,
                CaseOutcome::Failed => &mut report.summary.failed,
                CaseOutcome::Error => &mut report.summary.errors,
                CaseOutcome::Skipped => &mut report.summary.skipped,
                CaseOutcome::Xfailed => &mut report.summary.xfailed,
            };
            *count = count.saturating_sub(1);
            report.failing.retain(|failing| failing != id);
        }
        report
    }

    /// Reads a whole report. A text that is not XML, or XML that is not a JUnit report (no
    /// `<testsuites>` or `<testsuite>` root), is refused with the reason.
    pub fn parse(xml: &str) -> Result<Report, String> {
        let mut reader = Reader::from_str(xml);
        let mut report = Report::default();
        let mut root_seen = false;
        let mut case: Option<Case> = None;
        // The names of the `<testsuite>` elements the reader is inside, outermost first.
        let mut suites: Vec<String> = Vec::new();
        loop {
            let event = reader.read_event().map_err(|err| {
                format!(
                    "not well-formed XML at byte {}: {err}",
                    reader.error_position()
                )
            })?;
            match event {
                Event::Start(element) | Event::Empty(element) if !root_seen => {
                    let tag = element.local_name();
                    if !matches!(tag.as_ref(), "testsuites" | "testsuite") {
                        return Err(format!(
                            "the root element is <{}>, not <testsuites> or <testsuite>",
                            tag.as_ref()
                        ));
                    }
                    root_seen = true;
                }
                Event::Start(element) if element.local_name().as_ref() == "testsuite" => {
                    suites.push(attribute(&element, "name")?.unwrap_or_default());
                }
                Event::End(element) if element.local_name().as_ref() == "testsuite" => {
                    suites.pop();
                }
                Event::Start(element) if element.local_name().as_ref() == "testcase" => {
                    case = Some(Case {
                        name: case_name(&element, &suites)?,
                        ..Case::default()
                    });
                }
                Event::Empty(element) if element.local_name().as_ref() == "testcase" => {
                    let name = case_name(&element, &suites)?;
                    report.count(Case {
                        name,
                        ..Case::default()
                    });
                }
                Event::Start(element) | Event::Empty(element) => {
                    if let Some(case) = case.as_mut() {
                        match element.local_name().as_ref() {
                            "failure" => case.failed = true,
                            "error" => {
                                case.errored = true;
                                case.uncollected |= attribute(&element, "message")?.as_deref()
                                    == Some(COLLECTION_FAILURE);
                            }
                            "skipped" => {
                                if attribute(&element, "type")?.as_deref() == Some("pytest.xfail") {
                                    case.xfailed = true;
                                } else {
                                    case.skipped = true;
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Event::End(element) if element.local_name().as_ref() == "testcase" => {
                    if let Some(finished) = case.take() {
                        report.count(finished);
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if !root_seen {
            return Err("there is no <testsuites> or <testsuite> element".to_owned());
        }
        report.failing.sort();
        report.failing.dedup();
        Ok(report)
    }

    fn count(&mut self, mut case: Case) {
        if case.uncollected {
            case.name = module_file(&case.name);
        }
        let summary = &mut self.summary;
        if case.failed {
            summary.failed += 1;
        }
        if case.errored {
            summary.errors += 1;
        }
        let outcome = case.outcome();
        if case.failed || case.errored {
            self.failing.push(case.name.clone());
        } else if case.xfailed {
            summary.xfailed += 1;
        } else if case.skipped {
            summary.skipped += 1;
        } else {
            summary.passed += 1;
        }
        self.cases
            .entry(case.name)
            .and_modify(|seen| *seen = (*seen).max(outcome))
            .or_insert(outcome);
    }
}

/// The value of the attribute `key` of `element`, if it has one.
fn attribute(element: &BytesStart, key: &str) -> Result<Option<String>, String> {
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|err| format!("an attribute: {err}"))?;
        if attribute.key.local_name().as_ref() == key {
            return attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map(|value| Some(value.into_owned()))
                .map_err(|err| format!("an attribute: {err}"));
        }
    }
    Ok(None)
}

/// The file of a module pytest could not collect, as pytest names it (`tests/test_io.py`): the
/// report gives the dotted module (`tests.test_io`).
fn module_file(dotted: &str) -> String {
    if dotted.contains(['/', ' ', ':']) || dotted.ends_with(".py") {
        return dotted.to_owned();
    }
    format!("{}.py", dotted.replace('.', "/"))
}

/// The classname node's test runner gives every case (`node --test --test-reporter=junit`): it
/// names a case by its own title alone, under its `describe` blocks' suites.
const NODE_CLASSNAME: &str = "test";

/// A case's name as its runner would accept it back: pytest's node id
/// (`tests/test_io.py::TestRead::test_empty`) when the report gives the file (pytest writes it
/// with `junit_family=xunit1`); for node's runner its suites' names and its title
/// (`slugify > unicode > handles empty`), since two `describe` blocks may each hold a test of
/// the same title; else `classname::name`, else `name`.
fn case_name(element: &BytesStart, suites: &[String]) -> Result<String, String> {
    let mut classname = String::new();
    let mut name = String::new();
    let mut file = String::new();
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|err| format!("a <testcase> attribute: {err}"))?;
        let value = || {
            attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map(Cow::into_owned)
                .map_err(|err| format!("a <testcase> attribute: {err}"))
        };
        match attribute.key.local_name().as_ref() {
            "classname" => classname = value()?,
            "name" => name = value()?,
            "file" => file = value()?,
            _ => {}
        }
    }
    if let Some(id) = node_id(&file, &classname, &name) {
        return Ok(id);
    }
    // Newer node writes the file too, as an absolute path: a copy's, different on each run.
    if classname == NODE_CLASSNAME {
        let mut path: Vec<&str> = suites.iter().map(String::as_str).collect();
        path.push(&name);
        return Ok(path.join(" > "));
    }
    Ok(if classname.is_empty() {
        name
    } else {
        format!("{classname}::{name}")
    })
}

/// pytest's classname is the node id's path with `/` as `.` and `.py` dropped, then its classes:
/// `tests/test_io.py` and `tests.test_io.TestRead` give `tests/test_io.py::TestRead::NAME`.
fn node_id(file: &str, classname: &str, name: &str) -> Option<String> {
    let module = file.strip_suffix(".py")?.replace('/', ".");
    let classes = classname.strip_prefix(&module)?;
    if classes.is_empty() {
        return Some(format!("{file}::{name}"));
    }
    let classes = classes.strip_prefix('.')?;
    Some(format!("{file}::{}::{name}", classes.replace('.', "::")))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::Report;
    use crate::verdict::read::outcome::CaseOutcome;
    use crate::verdict::read::summary::Summary;

    fn cases(list: &[(&str, CaseOutcome)]) -> BTreeMap<String, CaseOutcome> {
        list.iter()
            .map(|(id, outcome)| ((*id).to_owned(), *outcome))
            .collect()
    }

    /// What pytest 8 wrote for a suite with a failure, a pass, a class whose test failed in a
    /// subtest, a collection error, an xfail and a skip (`-o junit_family=xunit1`).
    const PYTEST_XUNIT1: &str = r#"<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="2" skipped="2" tests="7" time="0.05" timestamp="2025-01-01T00:00:00" hostname="vm"><testcase classname="" name="tests.test_broken" time="0.000"><error message="collection failure">ImportError while importing test module</error></testcase><testcase classname="tests.test_io" name="test_read[a&amp;b]" file="tests/test_io.py" line="3" time="0.001"><failure message="assert 1 == 2">def test_read():
&gt;       assert 1 == 2</failure></testcase><testcase classname="tests.test_io" name="test_write" file="tests/test_io.py" line="7" time="0.001" /><testcase classname="tests.test_io.TestParse" name="test_sub" file="tests/test_io.py" line="12" time="0.003"><failure message="AssertionError: 2 not less than 2">trace</failure><system-out>printed</system-out></testcase><testcase classname="tests.test_io" name="test_later" file="tests/test_io.py" line="20" time="0.0"><skipped type="pytest.xfail" message="not yet" /></testcase><testcase classname="tests.test_io" name="test_posix" file="tests/test_io.py" line="24" time="0.0"><skipped type="pytest.skip" message="posix only">skip</skipped></testcase></testsuite></testsuites>"#;

    #[test]
    fn a_pytest_report_gives_counts_and_node_ids() {
        assert_eq!(
            Report::parse(PYTEST_XUNIT1),
            Ok(Report {
                summary: Summary {
                    passed: 1,
                    failed: 2,
                    errors: 1,
                    skipped: 1,
                    xfailed: 1,
                },
                // A module that could not be collected is named by its file, as pytest prints it.
                failing: vec![
                    "tests/test_broken.py".to_owned(),
                    "tests/test_io.py::TestParse::test_sub".to_owned(),
                    "tests/test_io.py::test_read[a&b]".to_owned(),
                ],
                cases: cases(&[
                    ("tests/test_broken.py", CaseOutcome::Error),
                    ("tests/test_io.py::TestParse::test_sub", CaseOutcome::Failed),
                    ("tests/test_io.py::test_later", CaseOutcome::Xfailed),
                    ("tests/test_io.py::test_posix", CaseOutcome::Skipped),
                    ("tests/test_io.py::test_read[a&b]", CaseOutcome::Failed),
                    ("tests/test_io.py::test_write", CaseOutcome::Passed),
                ]),
            })
        );
    }

    #[test]
    fn other_runners_nest_suites_and_name_cases_by_class() {
        // The shape of jest-junit and cargo-nextest: nested suites, no file attribute, a
        // failure and an error in one case (counted in both), a test listed twice (a retry).
        let xml = r#"<testsuites name="jest tests" tests="4" failures="1">
  <testsuite name="slug" tests="4">
    <testcase classname="slug makes dashes" name="slug makes dashes" time="0.002"/>
    <testcase classname="slug trims" name="slug trims" time="0.001">
      <failure>Expected "a" received "a-"</failure>
    </testcase>
    <testsuite name="inner">
      <testcase classname="mend::tests" name="teardown" time="0.001"><failure/><error/></testcase>
      <testcase classname="slug trims" name="slug trims"><failure/></testcase>
    </testsuite>
  </testsuite>
</testsuites>"#;
        assert_eq!(
            Report::parse(xml),
            Ok(Report {
                summary: Summary {
                    passed: 1,
                    failed: 3,
                    errors: 1,
                    skipped: 0,
                    xfailed: 0,
                },
                failing: vec![
                    "mend::tests::teardown".to_owned(),
                    "slug trims::slug trims".to_owned(),
                ],
                cases: cases(&[
                    ("mend::tests::teardown", CaseOutcome::Error),
                    ("slug makes dashes::slug makes dashes", CaseOutcome::Passed),
                    ("slug trims::slug trims", CaseOutcome::Failed),
                ]),
            })
        );
    }

    /// Each runner's report, in its own shape (fixtures/readers): the ids a contract holds.
    #[test]
    fn nextest_node_mocha_and_jest_reports_name_every_test_apart() {
        use CaseOutcome::{Failed, Passed, Skipped};
        let read = |xml: &str| Report::parse(xml).map(|report| report.cases);
        let reports = [
            read(include_str!(
                "../../../../fixtures/readers/junit-nextest.xml"
            )),
            read(include_str!("../../../../fixtures/readers/junit-node.xml")),
            read(include_str!("../../../../fixtures/readers/junit-mocha.xml")),
            read(include_str!("../../../../fixtures/readers/junit-jest.xml")),
        ];
        assert_eq!(
            reports,
            [
                // A flaky test nextest passed on a retry is a pass; each binary names its own.
                Ok(cases(&[
                    ("slugs::cli::prints_usage", Passed),
                    ("slugs::cli::tests::trims", Passed),
                    ("slugs::tests::dashes", Passed),
                    ("slugs::tests::retried", Passed),
                    ("slugs::tests::trims", Failed),
                ])),
                // node's classname is `test` for every case: the suites tell three
                // `handles empty` apart, one of them failing.
                Ok(cases(&[
                    ("slugify > handles empty", Failed),
                    ("slugify > makes dashes", Passed),
                    ("slugify > unicode > handles empty", Passed),
                    ("titlecase > handles empty", Passed),
                    ("titlecase > later", Skipped),
                    ("titlecase > someday", Skipped),
                    ("top level", Failed),
                ])),
                Ok(cases(&[
                    ("handles empty::slugify handles empty", Failed),
                    ("handles empty::slugify unicode handles empty", Passed),
                    ("handles empty::titlecase handles empty", Passed),
                    ("makes dashes::slugify makes dashes", Passed),
                ])),
                Ok(cases(&[
                    ("slugify handles empty::slugify handles empty", Failed),
                    ("slugify makes dashes::slugify makes dashes", Passed),
                    (
                        "slugify unicode handles empty::slugify unicode handles empty",
                        Passed
                    ),
                    ("titlecase handles empty::titlecase handles empty", Passed),
                    ("titlecase later::titlecase later", Skipped),
                ])),
            ]
        );
    }

    #[test]
    fn an_empty_suite_is_a_report_of_nothing() {
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="0" time="0.021" /></testsuites>"#;
        assert_eq!(Report::parse(xml), Ok(Report::default()));
    }

    #[test]
    fn what_is_not_a_junit_report_is_refused_with_the_reason() {
        let refusals: Vec<Result<Report, String>> = [
            "",
            "<html><body>404</body></html>",
            "<testsuites><testsuite><testcase name=\"a\"></testsuite>",
            "<testsuite><testcase name=\"a&bogus;\"/></testsuite>",
        ]
        .into_iter()
        .map(Report::parse)
        .collect();
        let reasons: Vec<bool> = refusals.iter().map(Result::is_err).collect();
        assert_eq!(reasons, [true, true, true, true], "{refusals:?}");
        assert_eq!(
            refusals[1],
            Err("the root element is <html>, not <testsuites> or <testsuite>".to_owned())
        );
    }
}
