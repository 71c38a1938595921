//! What the test command gets besides its arguments, as the task file says: the variables passed
//! to it (`test.env`), the copy's import roots (`test.pythonpath`) and the extra folders it may
//! read inside the sandbox (`sandbox.read_only`). Checked on the text; values are looked up
//! when the runner is built.

use std::fmt;

use camino::Utf8Path;

use super::field_error::FieldError;

/// One entry of `test.env`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvEntry {
    /// `NAME`: the value mend itself was started with, left out when it has none.
    Pass(String),
    /// `NAME=value`: this value, whatever mend's environment holds.
    Set(String, String),
}

impl EnvEntry {
    /// The variable's name, whichever way its value is given.
    pub fn name(&self) -> &str {
        match self {
            EnvEntry::Pass(name) | EnvEntry::Set(name, _) => name,
        }
    }
}

/// Where the copy's import roots come from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PythonPath {
    /// `src` when the copy has that folder, then the copy itself.
    #[default]
    Guessed,
    /// `test.pythonpath`: these folders of the copy, in order (empty: none).
    Roots(Vec<String>),
}

/// A folder of `sandbox.read_only`: absolute, or under the home of the user who runs mend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOnly {
    /// An absolute folder, as written.
    Absolute(String),
    /// The part after `~/` (empty for `~` itself).
    InHome(String),
}

impl fmt::Display for ReadOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadOnly::Absolute(path) => f.write_str(path),
            ReadOnly::InHome(rest) if rest.is_empty() => f.write_str("~"),
            ReadOnly::InHome(rest) => write!(f, "~/{rest}"),
        }
    }
}

/// Variables mend sets itself, with what to do instead.
const RESERVED: [(&str, &str); 3] = [
    (
        "PATH",
        "mend builds PATH itself: the interpreter's and the test program's folders, then your PATH",
    ),
    (
        "HOME",
        "mend sets HOME to the copy so the tests cannot read your home",
    ),
    (
        "PYTHONPATH",
        "list the copy's import roots in test.pythonpath instead",
    ),
];

/// Parts of a name that mark it as a credential. The tests run code the model wrote, so mend
/// never hands them one from its own environment.
const SECRET_MARKS: [&str; 9] = [
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
    "SESSION",
];

const ENV: &str = "test.env";

/// Checks one `test.env` entry.
pub(crate) fn env_entry(text: &str) -> Result<EnvEntry, FieldError> {
    let (name, value) = match text.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (text, None),
    };
    let well_formed = name
        .chars()
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !well_formed {
        return Err(FieldError::new(ENV, format!(
            "`{text}` is not a variable name; write NAME (passed from your environment) or NAME=value"
        )));
    }
    if let Some((_, instead)) = RESERVED.iter().find(|(reserved, _)| *reserved == name) {
        return Err(FieldError::new(
            ENV,
            format!("`{name}` cannot be set here: {instead}"),
        ));
    }
    match value {
        Some(value) => Ok(EnvEntry::Set(name.to_owned(), value.to_owned())),
        None if looks_secret(name) => Err(FieldError::new(ENV, format!(
            "`{name}` looks like a credential, and the tests run code the model wrote, so mend never passes it on; if the tests need one, give them a test-only value: \"{name}=...\""
        ))),
        None => Ok(EnvEntry::Pass(name.to_owned())),
    }
}

fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKS.iter().any(|mark| upper.contains(mark))
}

/// Checks one `test.pythonpath` entry: a folder of the copy, named relative to its root.
pub(crate) fn import_root(text: &str) -> Result<String, FieldError> {
    let path = Utf8Path::new(text);
    let escapes = path
        .components()
        .any(|part| matches!(part, camino::Utf8Component::ParentDir));
    if text.is_empty() || path.is_absolute() || escapes {
        return Err(FieldError::new("test.pythonpath", format!(
            "`{text}` must be a folder inside the repository, relative to it (e.g. \"src\" or \".\")"
        )));
    }
    Ok(text.trim_end_matches('/').to_owned())
}

/// Checks one `sandbox.read_only` entry.
pub(crate) fn read_only(text: &str) -> Result<ReadOnly, FieldError> {
    if text == "~" {
        return Ok(ReadOnly::InHome(String::new()));
    }
    if let Some(rest) = text.strip_prefix("~/") {
        return Ok(ReadOnly::InHome(rest.trim_end_matches('/').to_owned()));
    }
    if Utf8Path::new(text).is_absolute() {
        return Ok(ReadOnly::Absolute(text.to_owned()));
    }
    Err(FieldError::new(
        "sandbox.read_only",
        format!(
        "`{text}` must be an absolute path or start with ~/ (the repository itself is always there)"
    ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_entries_pass_a_name_or_set_a_value() {
        assert_eq!(
            ["RUST_BACKTRACE", "CI=1", "EMPTY=", "API_KEY=test-only"]
                .map(|text| env_entry(text).map_err(|err| err.to_string())),
            [
                Ok(EnvEntry::Pass("RUST_BACKTRACE".into())),
                Ok(EnvEntry::Set("CI".into(), "1".into())),
                Ok(EnvEntry::Set("EMPTY".into(), String::new())),
                Ok(EnvEntry::Set("API_KEY".into(), "test-only".into())),
            ]
        );
    }

    #[test]
    fn env_refuses_credentials_reserved_names_and_garbage() {
        let refused = [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "db_password",
            "PATH",
            "PYTHONPATH=x",
            "1X",
            "A B",
            "",
        ]
        .map(|text| env_entry(text).is_err());
        assert_eq!(refused, [true; 8]);
        assert_eq!(
            env_entry("NPM_TOKEN").map_err(|err| err.to_string()),
            Err("test.env: `NPM_TOKEN` looks like a credential, and the tests run code the model wrote, so mend never passes it on; if the tests need one, give them a test-only value: \"NPM_TOKEN=...\"".into())
        );
    }

    #[test]
    fn import_roots_stay_inside_the_copy() {
        assert_eq!(
            ["src", ".", "lib/python/", "/abs", "../up", "a/../../b", ""]
                .map(|text| import_root(text).map_err(|err| err.to_string())),
            [
                Ok("src".into()),
                Ok(".".into()),
                Ok("lib/python".into()),
                Err("test.pythonpath: `/abs` must be a folder inside the repository, relative to it (e.g. \"src\" or \".\")".into()),
                Err("test.pythonpath: `../up` must be a folder inside the repository, relative to it (e.g. \"src\" or \".\")".into()),
                Err("test.pythonpath: `a/../../b` must be a folder inside the repository, relative to it (e.g. \"src\" or \".\")".into()),
                Err("test.pythonpath: `` must be a folder inside the repository, relative to it (e.g. \"src\" or \".\")".into()),
            ]
        );
    }

    #[test]
    fn read_only_folders_are_absolute_or_in_the_home() {
        assert_eq!(
            ["/opt/sdk", "~/.gradle/", "~", "relative"]
                .map(|text| read_only(text).map_err(|err| err.to_string())),
            [
                Ok(ReadOnly::Absolute("/opt/sdk".into())),
                Ok(ReadOnly::InHome(".gradle".into())),
                Ok(ReadOnly::InHome(String::new())),
                Err("sandbox.read_only: `relative` must be an absolute path or start with ~/ (the repository itself is always there)".into()),
            ]
        );
    }
}
