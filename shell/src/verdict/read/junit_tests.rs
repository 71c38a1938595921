//! The JUnit reader on reports in the shapes pytest, node and others write.

use std::collections::BTreeMap;

use super::Report;
use crate::verdict::read::junit_error::JunitError;
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
    let refusals: Vec<Result<Report, JunitError>> = [
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
    let said: Vec<String> = refusals
        .iter()
        .map(|refusal| refusal.as_ref().unwrap_err().to_string())
        .collect();
    assert_eq!(
        (&refusals[1], &said[1]),
        (
            &Err(JunitError::OtherRoot {
                tag: "html".to_owned()
            }),
            &"the root element is <html>, not <testsuites> or <testsuite>".to_owned()
        )
    );
    assert_eq!(refusals[0], Err(JunitError::NoRoot));
    assert!(
        said[2].starts_with("not well-formed XML at byte "),
        "{}",
        said[2]
    );
    assert!(
        said[3].starts_with("a <testcase> attribute: "),
        "{}",
        said[3]
    );
}
