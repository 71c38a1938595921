//! The runners whose printed output mend reads test by test (`test.report = "django"`, …): the
//! task file names one; `verdict::read::readers` reads with it.

/// A runner whose printed output mend reads test by test (`test.report`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputReader {
    /// django's `runtests.py --verbosity 2`: a line per test (`test (module.Class) ... ok`).
    Django,
    /// sympy's `bin/test --verbose`: a line per test.
    Sympy,
    /// pytest's `-rA` short summary (`PASSED path::test`), for a task that runs pytest its own way.
    PytestRa,
    /// Rust's libtest (`cargo test`): `test name ... ok`.
    Libtest,
}

impl OutputReader {
    /// Whether the outcomes this reader reads are recorded in a `unittest.TestResult`, which
    /// mend's unittest watcher reports on: unittest's verbose lines (plain unittest, django).
    /// sympy's runner and libtest record them elsewhere, and pytest `-rA` in pytest's reports.
    pub fn watched_by_unittest(self) -> bool {
        self == OutputReader::Django
    }

    /// The name `test.report` gives it.
    pub fn name(self) -> &'static str {
        match self {
            OutputReader::Django => "django",
            OutputReader::Sympy => "sympy",
            OutputReader::PytestRa => "pytest-ra",
            OutputReader::Libtest => "libtest",
        }
    }

    /// What the runner must be asked for, for this reader to find its lines.
    pub fn asks(self) -> &'static str {
        match self {
            OutputReader::Django => "django's runtests.py with --verbosity 2",
            OutputReader::Sympy => "sympy's bin/test with --verbose",
            OutputReader::PytestRa => "pytest with -rA",
            OutputReader::Libtest => {
                "cargo test without --quiet: libtest's `test NAME ... ok` lines"
            }
        }
    }
}
