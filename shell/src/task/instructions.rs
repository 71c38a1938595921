//! The project's instructions: `AGENTS.md` at the repository's root (the file Codex and many
//! other coding agents read), or the file `task.instructions` names. The model gets them right
//! after the system prompt, and they are never shortened to fit its window.

use std::fs;

use camino::{Utf8Component, Utf8Path};

use super::field_error::FieldError;
use crate::error::MendError;

/// The file read when the task file says nothing.
pub(crate) const DEFAULT_INSTRUCTIONS_FILE: &str = "AGENTS.md";

/// Instructions longer than this are refused rather than cut: they are sent whole on every
/// request, and a cut would drop rules silently.
const INSTRUCTIONS_CAP_BYTES: u64 = 32 * 1024;

/// Where the instructions come from, as the task file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstructionsSource {
    /// `task.instructions = false`: none.
    Off,
    /// `AGENTS.md` when the repository has one (the default).
    Default,
    /// `task.instructions = "FILE"`: that file, which must exist.
    File(String),
}

/// The instructions read from the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instructions {
    /// The file they came from, relative to the repository.
    pub file: String,
    pub text: String,
}

impl Instructions {
    /// The message the model gets.
    pub fn message(&self) -> String {
        format!(
            "Instructions for this repository, from its {}:\n\n{}",
            self.file,
            self.text.trim_end()
        )
    }
}

/// What `mend task` prints about the instructions and how calls written as text are read.
pub(crate) fn describe(task: &crate::task::Task) -> String {
    let instructions = match (&task.instructions, &task.instructions_source) {
        (Some(found), _) => format!(
            "Instructions (from {}, after the system prompt, never trimmed):\n{}",
            found.file,
            found.text.trim_end()
        ),
        (None, InstructionsSource::Off) => "Instructions: none (task.instructions = false)".to_owned(),
        (None, _) => format!(
            "Instructions: none (no {DEFAULT_INSTRUCTIONS_FILE} at the repository's root, or it is blank)"
        ),
    };
    let text_calls = if task.text_tool_calls {
        "on: a turn without calls whose text holds only calls written out is read as those calls"
    } else {
        "off (model.text_tool_calls = false)"
    };
    format!("{instructions}\n\nCalls written as text: {text_calls}")
}

/// Checks a file name given as `task.instructions`: a path inside the repository.
pub(crate) fn source_file(name: &str) -> Result<InstructionsSource, FieldError> {
    let path = Utf8Path::new(name);
    let inside = !name.trim().is_empty()
        && path
            .components()
            .all(|part| matches!(part, Utf8Component::Normal(_) | Utf8Component::CurDir));
    if inside {
        Ok(InstructionsSource::File(name.to_owned()))
    } else {
        Err(FieldError::new("task.instructions", format!(
            "`{name}` must be a file inside the repository, relative to its root (or false for none)"
        )))
    }
}

/// Reads the instructions `source` names in `repo`: none when they are off, or when the
/// default file is absent or blank.
pub(crate) fn load(
    repo: &Utf8Path,
    source: &InstructionsSource,
) -> Result<Option<Instructions>, MendError> {
    let (name, required) = match source {
        InstructionsSource::Off => return Ok(None),
        InstructionsSource::Default => (DEFAULT_INSTRUCTIONS_FILE, false),
        InstructionsSource::File(name) => (name.as_str(), true),
    };
    let path = repo.join(name);
    if !path.exists() {
        return if required {
            Err(MendError::usage(format!(
                "task.instructions names {name}, which is not in {repo}: create it, or set `instructions = false` in [task]"
            )))
        } else {
            Ok(None)
        };
    }
    let refuse = |why: String, fix: &str| {
        MendError::usage(format!(
            "the instructions file {path} {why}: {fix} it, or set `instructions = false` in [task] of the task file"
        ))
    };
    let inside = match (path.canonicalize_utf8(), repo.canonicalize_utf8()) {
        (Ok(real), Ok(root)) => real.starts_with(root),
        _ => false,
    };
    if !inside {
        return Err(refuse("leads outside the repository".to_owned(), "move"));
    }
    let size = fs::metadata(&path)
        .map_err(|err| refuse(format!("cannot be read ({err})"), "fix"))?
        .len();
    if size > INSTRUCTIONS_CAP_BYTES {
        return Err(refuse(
            format!("is {size} bytes, more than the {INSTRUCTIONS_CAP_BYTES} mend sends with every request"),
            "shorten",
        ));
    }
    let bytes = fs::read(&path).map_err(|err| refuse(format!("cannot be read ({err})"), "fix"))?;
    let text =
        String::from_utf8(bytes).map_err(|_| refuse("is not UTF-8 text".to_owned(), "fix"))?;
    Ok((!text.trim().is_empty()).then(|| Instructions {
        file: name.to_owned(),
        text,
    }))
}

#[cfg(test)]
mod tests {
    use camino::Utf8PathBuf;

    use super::*;

    fn repo_with(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
        for (name, bytes) in files {
            fs::write(root.join(name), bytes).unwrap();
        }
        (dir, root)
    }

    #[test]
    fn agents_md_is_read_when_present_and_skipped_when_absent_or_off() {
        let (_dir, root) = repo_with(&[("AGENTS.md", b"Use tabs.\n")]);
        let read = load(&root, &InstructionsSource::Default).unwrap();
        let expected = Instructions {
            file: "AGENTS.md".to_owned(),
            text: "Use tabs.\n".to_owned(),
        };
        assert_eq!(read, Some(expected.clone()));
        assert_eq!(
            expected.message(),
            "Instructions for this repository, from its AGENTS.md:\n\nUse tabs."
        );
        assert_eq!(load(&root, &InstructionsSource::Off).unwrap(), None);
        let (_empty, bare) = repo_with(&[("AGENTS.md", b" \n")]);
        assert_eq!(load(&bare, &InstructionsSource::Default).unwrap(), None);
        let (_none, nothing) = repo_with(&[]);
        assert_eq!(load(&nothing, &InstructionsSource::Default).unwrap(), None);
    }

    #[test]
    fn a_named_file_must_exist_be_text_and_fit() {
        let big = vec![b'x'; INSTRUCTIONS_CAP_BYTES as usize + 1];
        let (_dir, root) = repo_with(&[
            ("RULES.md", b"Be brief."),
            ("big.md", &big),
            ("bin.md", &[0xff, 0xfe]),
        ]);
        let file = |name: &str| InstructionsSource::File(name.to_owned());
        assert_eq!(
            load(&root, &file("RULES.md"))
                .unwrap()
                .map(|found| found.text),
            Some("Be brief.".to_owned())
        );
        let errors: Vec<String> = ["missing.md", "big.md", "bin.md"]
            .iter()
            .map(|name| load(&root, &file(name)).unwrap_err().message)
            .collect();
        assert_eq!(
            errors,
            [
                format!("task.instructions names missing.md, which is not in {root}: create it, or set `instructions = false` in [task]"),
                format!("the instructions file {root}/big.md is 32769 bytes, more than the 32768 mend sends with every request: shorten it, or set `instructions = false` in [task] of the task file"),
                format!("the instructions file {root}/bin.md is not UTF-8 text: fix it, or set `instructions = false` in [task] of the task file"),
            ]
        );
    }

    #[test]
    fn a_named_file_stays_inside_the_repository() {
        assert_eq!(
            source_file("docs/AGENTS.md"),
            Ok(InstructionsSource::File("docs/AGENTS.md".to_owned()))
        );
        assert_eq!(
            ["../AGENTS.md", "/etc/passwd"].map(|name| source_file(name).map_err(|err| err.to_string())),
            [
                Err("task.instructions: `../AGENTS.md` must be a file inside the repository, relative to its root (or false for none)".to_owned()),
                Err("task.instructions: `/etc/passwd` must be a file inside the repository, relative to its root (or false for none)".to_owned()),
            ]
        );
        for name in ["", "a/../../b"] {
            assert!(source_file(name).is_err(), "{name}");
        }
    }
}
