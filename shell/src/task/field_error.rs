//! A value of a task file mend refuses. Whatever the field, the task file is what to fix: the
//! parser places the error at the value's line and the command refuses the task.

use std::fmt;
use std::ops::Range;

use crate::error::MendError;

/// The field (`test.env`) and why its value is refused, with the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub field: &'static str,
    pub why: String,
}

impl FieldError {
    pub(crate) fn new(field: &'static str, why: impl Into<String>) -> FieldError {
        FieldError {
            field,
            why: why.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.why)
    }
}

impl std::error::Error for FieldError {}

/// Makes the task file's error of a value: the value's place in the text (none: the file's top)
/// and what is wrong with it, the message placed at that line.
pub(super) type At<'a> = &'a dyn Fn(Option<Range<usize>>, &str) -> MendError;
