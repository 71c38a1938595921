//! The runners whose printed output mend reads test by test (`test.report = "django"`, …): the
//! task file names one; `verdict::read::readers` reads with it.

/// A runner whose printed output mend reads test by test (`test.report`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputReader {
    Django,
    Sympy,
    PytestRa,
    Libtest,
}

impl OutputReader {
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
