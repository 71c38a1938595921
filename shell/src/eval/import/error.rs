//! Why a row of an instance file did not become a task. The import names every such row and goes
//! on with the others, so the cases differ in what the user fixes: the row itself (the instance
//! file), where its repository comes from (`--repos`, `--image-template`), or this machine (a
//! file it could not write). A row's error never ends the import, so it has no exit code of its
//! own; only a template refused before any row is read does ([`TemplateError`]).

use std::{fmt, io};

use camino::Utf8PathBuf;

use crate::error::MendError;

#[derive(Debug)]
pub(crate) enum RowError {
    /// The row as written cannot be a task: a field missing or of the wrong kind, a patch, test
    /// command or log parser mend cannot take. Fixed in the instance file.
    Unfit(String),
    /// `--image-template` needs a field the row does not give.
    Template(TemplateError),
    /// Its repository cannot be had here: no clone under `--repos`, a base commit not in it,
    /// git failing. Fixed with `--repos` or `--image-template`.
    Repository(String),
    /// A task's folder or file could not be made (`doing` is `create` or `write`).
    Disk {
        doing: &'static str,
        path: Utf8PathBuf,
        source: io::Error,
    },
    /// Any of the above, said of the row whose `instance_id` is `id`.
    Of { id: String, error: Box<RowError> },
}

impl RowError {
    pub(super) fn unfit(why: impl Into<String>) -> RowError {
        RowError::Unfit(why.into())
    }

    /// The same error, prefixed with the row's id.
    pub(super) fn of(self, id: &str) -> RowError {
        RowError::Of {
            id: id.to_owned(),
            error: Box::new(self),
        }
    }
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowError::Unfit(why) | RowError::Repository(why) => f.write_str(why),
            RowError::Template(error) => error.fmt(f),
            RowError::Disk {
                doing,
                path,
                source,
            } => write!(f, "cannot {doing} {path}: {source}"),
            RowError::Of { id, error } => write!(f, "{id}: {error}"),
        }
    }
}

impl std::error::Error for RowError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RowError::Disk { source, .. } => Some(source),
            RowError::Template(error) => Some(error),
            RowError::Of { error, .. } => Some(error.as_ref()),
            RowError::Unfit(_) | RowError::Repository(_) => None,
        }
    }
}

/// A `{field}` of `--image-template` that cannot be filled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TemplateError {
    /// A field no row has (the flag is refused before any row is read); `known` lists the ones
    /// there are.
    Unknown { field: String, known: String },
    /// A field this row does not give (the row is not imported).
    NotInRow { field: String },
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::Unknown { field, known } => {
                write!(
                    f,
                    "--image-template: unknown field {{{field}}}; use {known}"
                )
            }
            TemplateError::NotInRow { field } => write!(
                f,
                "--image-template needs `{field}`, which the row does not give"
            ),
        }
    }
}

impl std::error::Error for TemplateError {}

impl From<TemplateError> for RowError {
    fn from(error: TemplateError) -> RowError {
        RowError::Template(error)
    }
}

/// A template is checked before the import starts: a bad one is the user's flag (exit 2).
impl From<TemplateError> for MendError {
    fn from(error: TemplateError) -> MendError {
        MendError::usage(error.to_string())
    }
}
