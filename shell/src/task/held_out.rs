//! What a task keeps from the attempt and how it grades, for benchmarks in SWE-bench's shape:
//! held-out tests (`test.patch`, a diff applied only for the final run; `test.held_out`, files
//! left out of the attempt's copy), the given contract (`test.fail_to_pass`,
//! `test.pass_to_pass`), and how much of `.git` the copy holds (`copy.history`, `copy.base`).

use std::fs;
use std::ops::Range;

use camino::{Utf8Path, Utf8PathBuf};
use toml::Spanned;

use crate::error::MendError;
use crate::task::{OutputReader, TestReport};

/// `test.patch`: a unified diff of tests held out of the attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestPatch {
    /// Where it was read from.
    pub path: Utf8PathBuf,
    /// The diff's text, as applied before the final run.
    pub text: String,
    /// The files it writes or removes, sorted.
    pub files: Vec<String>,
}

/// `test.fail_to_pass` and `test.pass_to_pass`: the tests the final run must pass, by the
/// runner's ids. With them the grade is SWE-bench's "resolved" rule on the final run alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenTests {
    /// Tests that fail before the change and must pass after it.
    pub fail_to_pass: Vec<String>,
    /// Tests that pass before the change and must keep passing.
    pub pass_to_pass: Vec<String>,
    /// How the lists spell a test's id: the way SWE-bench's log parser for the task's runner
    /// reads it from the log, which is how published rows were written.
    pub ids: ListedIds,
    /// How a listed test that should keep passing and was skipped counts.
    pub skipped: SkippedPassToPass,
}

/// `test.skipped_pass_to_pass`: how a skipped test of `test.pass_to_pass` counts. SWE-bench's
/// grading counts it in neither group, so it does not stop the task being resolved (`kept`,
/// the default); `broken` counts it as a failure, for a suite where a skip can hide a test the
/// change broke (a skip condition the change made true).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkippedPassToPass {
    /// A skip does not count against the task (SWE-bench's rule).
    #[default]
    Kept,
    /// A skip counts as a failure: the change may have made its skip condition true.
    Broken,
}

/// How SWE-bench's log parser for a runner spells the id of a test it read, and so how
/// published rows list their tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListedIds {
    /// As the runner prints it (django, sympy, libtest, a JUnit report).
    #[default]
    Whole,
    /// pytest: the parser splits a result line at whitespace and keeps the second word, so an
    /// id with a space (a parameter `[a b]`, a folder `my tests/`) is cut at its first space:
    /// `t.py::t[a b]` is listed as `t.py::t[a`.
    UpToFirstSpace,
}

impl ListedIds {
    /// How the given lists of a task whose tests are read by `report` spell their ids.
    pub fn of(report: &TestReport) -> ListedIds {
        match report {
            TestReport::Pytest | TestReport::Output(OutputReader::PytestRa) => {
                ListedIds::UpToFirstSpace
            }
            TestReport::Junit { .. } | TestReport::ExitCode | TestReport::Output(_) => {
                ListedIds::Whole
            }
        }
    }

    /// `id` as the parser would key it.
    pub fn listed(self, id: &str) -> &str {
        match self {
            ListedIds::Whole => id,
            ListedIds::UpToFirstSpace => id.split_whitespace().next().unwrap_or(id),
        }
    }
}

/// How much of the repository's `.git` the copy holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum History {
    /// Only what this revision reaches: no other branch, tag, remote, stash or reflog.
    Base(String),
    /// No `.git` at all.
    None,
}

impl History {
    /// As the record and `mend task` name it.
    pub fn describe(&self) -> String {
        match self {
            History::Base(base) => format!("only what {base} reaches"),
            History::None => "none".to_owned(),
        }
    }
}

type At<'a> = &'a dyn Fn(Option<Range<usize>>, &str) -> MendError;

/// Reads `test.patch`, named relative to the folder of the task file `origin`.
pub(crate) fn test_patch(
    origin: &Utf8Path,
    patch: Option<Spanned<String>>,
    at: At,
) -> Result<Option<TestPatch>, MendError> {
    let Some(patch) = patch else {
        return Ok(None);
    };
    let span = Some(patch.span());
    let folder = origin.parent().unwrap_or(Utf8Path::new(""));
    let path = folder.join(patch.get_ref());
    let text = fs::read_to_string(&path).map_err(|err| {
        at(
            span.clone(),
            &format!("test.patch: cannot read {path}: {err} (the path is relative to the task file's folder)"),
        )
    })?;
    let files = crate::patch::touched_paths(&text).map_err(|problem| {
        at(
            span.clone(),
            &format!("test.patch: {path} is not a unified diff: {problem}"),
        )
    })?;
    if files.is_empty() {
        return Err(at(
            span,
            &format!("test.patch: {path} changes no file (a unified diff as `git diff` writes it)"),
        ));
    }
    Ok(Some(TestPatch { path, text, files }))
}

/// `test.fail_to_pass` and `test.pass_to_pass`: either gives the contract (the other is then
/// empty); together they must name at least one test.
pub(crate) fn given_tests(
    fail_to_pass: Option<Spanned<Vec<String>>>,
    pass_to_pass: Option<Spanned<Vec<String>>>,
    skipped: Option<SkippedPassToPass>,
    at: At,
) -> Result<Option<GivenTests>, MendError> {
    if fail_to_pass.is_none() && pass_to_pass.is_none() {
        return Ok(None);
    }
    let span = fail_to_pass
        .as_ref()
        .or(pass_to_pass.as_ref())
        .map(Spanned::span);
    let given = GivenTests {
        fail_to_pass: fail_to_pass.map(Spanned::into_inner).unwrap_or_default(),
        pass_to_pass: pass_to_pass.map(Spanned::into_inner).unwrap_or_default(),
        ids: ListedIds::Whole,
        skipped: skipped.unwrap_or_default(),
    };
    if given.fail_to_pass.is_empty() && given.pass_to_pass.is_empty() {
        return Err(at(
            span,
            "test.fail_to_pass: name at least one test (here or in test.pass_to_pass), or leave both out for the contract of the run before the change",
        ));
    }
    if let Some(blank) = given
        .fail_to_pass
        .iter()
        .chain(&given.pass_to_pass)
        .find(|id| id.trim().is_empty())
    {
        return Err(at(
            span,
            &format!("test.fail_to_pass: `{blank}` is not a test id"),
        ));
    }
    Ok(Some(given))
}

/// `copy.history` and `copy.base`.
pub(crate) fn history(
    history: Option<Spanned<String>>,
    base: Option<Spanned<String>>,
    at: At,
) -> Result<History, MendError> {
    let base_name = |base: Option<Spanned<String>>| -> Result<String, MendError> {
        match base {
            None => Ok("HEAD".to_owned()),
            Some(base) if base.get_ref().trim().is_empty() || base.get_ref().starts_with('-') => {
                Err(at(
                    Some(base.span()),
                    "copy.base: name a revision (a commit, branch or tag), e.g. \"HEAD\"",
                ))
            }
            Some(base) => Ok(base.into_inner()),
        }
    };
    match history {
        None => Ok(History::Base(base_name(base)?)),
        Some(kind) => match kind.get_ref().as_str() {
            "base" => Ok(History::Base(base_name(base)?)),
            "none" => match base {
                Some(base) => Err(at(
                    Some(base.span()),
                    "copy.base: is read only with copy.history = \"base\"",
                )),
                None => Ok(History::None),
            },
            other => Err(at(
                Some(kind.span()),
                &format!("copy.history: `{other}` is none of \"base\" (only what copy.base reaches) or \"none\" (no .git)"),
            )),
        },
    }
}
