//! Why a JUnit report cannot be read: a run whose report is refused gives no verdict, and the
//! reason goes into the record, so each case names what is wrong with the file in its words.

use std::fmt;

/// Why a text is not a JUnit report mend can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JunitError {
    /// Not well-formed XML.
    NotXml {
        /// The byte where the parser stopped.
        at: u64,
        /// The parser's words.
        detail: String,
    },
    /// Well-formed, but its root is another element (an HTML error page, another format).
    OtherRoot {
        /// The root element's name.
        tag: String,
    },
    /// No element at all.
    NoRoot,
    /// An attribute that cannot be read (a bad escape, a repeated name).
    Attribute {
        /// Whether it is a `<testcase>`'s, whose name it would give.
        of_case: bool,
        /// The parser's words.
        detail: String,
    },
}

impl fmt::Display for JunitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JunitError::NotXml { at, detail } => {
                write!(f, "not well-formed XML at byte {at}: {detail}")
            }
            JunitError::OtherRoot { tag } => {
                write!(
                    f,
                    "the root element is <{tag}>, not <testsuites> or <testsuite>"
                )
            }
            JunitError::NoRoot => f.write_str("there is no <testsuites> or <testsuite> element"),
            JunitError::Attribute { of_case, detail } => {
                let which = if *of_case {
                    "a <testcase> attribute"
                } else {
                    "an attribute"
                };
                write!(f, "{which}: {detail}")
            }
        }
    }
}

impl std::error::Error for JunitError {}
