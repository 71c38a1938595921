//! A value of a task file mend refuses. Whatever the field, the task file is what to fix: the
//! parser places the error at the value's line and the command refuses the task.

use std::fmt;

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
