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

use crate::verdict::read::junit_error::JunitError;
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
    /// Reads a whole report. A text that is not XML, or XML that is not a JUnit report (no
    /// `<testsuites>` or `<testsuite>` root), is refused with the reason.
    pub fn parse(xml: &str) -> Result<Report, JunitError> {
        let mut reader = Reader::from_str(xml);
        let mut report = Report::default();
        let mut root_seen = false;
        let mut case: Option<Case> = None;
        // The names of the `<testsuite>` elements the reader is inside, outermost first.
        let mut suites: Vec<String> = Vec::new();
        loop {
            let event = reader.read_event().map_err(|err| JunitError::NotXml {
                at: reader.error_position(),
                detail: err.to_string(),
            })?;
            match event {
                Event::Start(element) | Event::Empty(element) if !root_seen => {
                    let tag = element.local_name();
                    if !matches!(tag.as_ref(), "testsuites" | "testsuite") {
                        let tag = tag.as_ref().to_owned();
                        return Err(JunitError::OtherRoot { tag });
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
            return Err(JunitError::NoRoot);
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
fn attribute(element: &BytesStart, key: &str) -> Result<Option<String>, JunitError> {
    let unread = |detail: String| JunitError::Attribute {
        of_case: false,
        detail,
    };
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|err| unread(err.to_string()))?;
        if attribute.key.local_name().as_ref() == key {
            return attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map(|value| Some(value.into_owned()))
                .map_err(|err| unread(err.to_string()));
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
fn case_name(element: &BytesStart, suites: &[String]) -> Result<String, JunitError> {
    let unread = |detail: String| JunitError::Attribute {
        of_case: true,
        detail,
    };
    let mut classname = String::new();
    let mut name = String::new();
    let mut file = String::new();
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|err| unread(err.to_string()))?;
        let value = || {
            attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map(Cow::into_owned)
                .map_err(|err| unread(err.to_string()))
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
#[path = "junit_tests.rs"]
mod tests;
