//! The check of a suite's tasks, kept beside the suite (`suite.toml` → `suite.check.json`), and
//! what `mend eval` does with it: a task runs only when its check is current (the same task
//! file, repository files and gold patch) and did not find it invalid.

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};

use super::check::Status;
use crate::error::MendError;
use crate::setup::Resolved;
use crate::workspace::changes::set_sha256;

const FORMAT: &str = "mend-eval-check/1";

/// One task as the check found it, and the digests of what was checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TaskCheck {
    pub task: String,
    pub status: Status,
    /// Each rule that does not hold, or that flipped between runs; empty for a valid task.
    pub problems: Vec<String>,
    /// The tests that fail without a change, by id.
    pub failing_before: Vec<String>,
    #[serde(flatten)]
    pub digests: Digests,
}

/// What a check is of: when one of these changes, the task must be checked again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Digests {
    pub task_file_sha256: String,
    pub repo_sha256: String,
    /// SHA-256 of the gold patch; absent when the task has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_sha256: Option<String>,
}

impl Digests {
    /// The digests of a task as it is now.
    pub(crate) fn of(resolved: &Resolved, gold: Option<&str>) -> Result<Digests, MendError> {
        Ok(Digests {
            task_file_sha256: resolved.task.sha256.clone(),
            repo_sha256: repo_sha256(resolved)?,
            gold_sha256: gold.map(|patch| crate::atomic::sha256_hex(patch.as_bytes())),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CheckFile {
    pub format: String,
    pub tasks: Vec<TaskCheck>,
}

impl CheckFile {
    pub(crate) fn new(tasks: Vec<TaskCheck>) -> CheckFile {
        CheckFile {
            format: FORMAT.to_owned(),
            tasks,
        }
    }

    /// The check beside `suite`, if there is one.
    pub(crate) fn load(suite: &Utf8Path) -> Result<Option<CheckFile>, MendError> {
        let path = path_beside(suite);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(MendError::harness(format!("cannot read {path}: {err}"))),
        };
        let file: CheckFile = serde_json::from_str(&text).map_err(|err| {
            MendError::refused(format!(
                "{path} is not a check mend wrote ({err}) — run `mend eval check {suite}` again"
            ))
        })?;
        if file.format != FORMAT {
            return Err(MendError::refused(format!(
                "{path} has format `{}`, not {FORMAT} — run `mend eval check {suite}` again",
                file.format
            )));
        }
        Ok(Some(file))
    }

    /// Writes the check beside `suite` (whole, or not at all); returns where.
    pub(crate) fn write(&self, suite: &Utf8Path) -> Result<Utf8PathBuf, MendError> {
        let path = path_beside(suite);
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|err| MendError::harness(format!("cannot write the check: {err}")))?;
        text.push('\n');
        crate::record::patch::write_atomically(&path, &text)?;
        Ok(path)
    }
}

/// `DIR/suite.toml` → `DIR/suite.check.json`.
pub(crate) fn path_beside(suite: &Utf8Path) -> Utf8PathBuf {
    let stem = suite.file_stem().unwrap_or("suite");
    suite.with_file_name(format!("{stem}.check.json"))
}

/// A task's gold patch: `gold/<task>.patch` beside the suite file, when it exists.
pub(crate) fn gold_patch_path(suite: &Utf8Path, task: &str) -> Utf8PathBuf {
    suite.with_file_name("gold").join(format!("{task}.patch"))
}

/// The gold patch's text, if the task has one.
pub(crate) fn gold_patch(suite: &Utf8Path, task: &str) -> Result<Option<String>, MendError> {
    let path = gold_patch_path(suite, task);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(MendError::harness(format!("cannot read {path}: {err}"))),
    }
}

/// SHA-256 of a task's editable and test files, as results rows and the check keep it.
pub(crate) fn repo_sha256(resolved: &Resolved) -> Result<String, MendError> {
    let task = &resolved.task;
    Ok(crate::atomic::sha256_hex(
        format!(
            "{}{}",
            set_sha256(&resolved.repo, &task.editable)?,
            set_sha256(&resolved.repo, &task.test.files)?
        )
        .as_bytes(),
    ))
}

/// What the check says about a task now: `Ok` with its status when the check is current,
/// `Err` with why it is not.
pub(crate) fn current(
    check: Option<&CheckFile>,
    task: &str,
    now: &Digests,
) -> Result<Status, &'static str> {
    let found = check
        .and_then(|check| check.tasks.iter().find(|checked| checked.task == task))
        .ok_or("never checked")?;
    if found.digests != *now {
        return Err("changed since its check");
    }
    Ok(found.status)
}

/// The tasks `mend eval` must refuse, in words (`name (why)`), and the flaky ones.
pub(crate) fn gate(
    check: Option<&CheckFile>,
    tasks: &[(String, Digests)],
) -> (Vec<String>, Vec<String>) {
    let mut refused = Vec::new();
    let mut flaky = Vec::new();
    for (name, now) in tasks {
        match current(check, name, now) {
            Ok(Status::Valid) => {}
            Ok(Status::Flaky) => flaky.push(name.clone()),
            Ok(Status::Invalid) => {
                let problems = check
                    .and_then(|check| check.tasks.iter().find(|checked| &checked.task == name))
                    .map(|checked| checked.problems.join("; "))
                    .unwrap_or_default();
                refused.push(format!("{name} (invalid: {problems})"));
            }
            Err(why) => refused.push(format!("{name} ({why})")),
        }
    }
    (refused, flaky)
}

#[cfg(test)]
mod tests {
    use super::{gate, path_beside, CheckFile, Digests, Status, TaskCheck};
    use camino::Utf8Path;

    fn checked(task: &str, status: Status, repo: &str) -> TaskCheck {
        TaskCheck {
            task: task.to_owned(),
            status,
            problems: match status {
                Status::Invalid => vec!["the gold patch does not pass (1 failed)".to_owned()],
                _ => Vec::new(),
            },
            failing_before: vec!["tests/test_a.py::test_bug".to_owned()],
            digests: digests(repo),
        }
    }

    fn digests(repo: &str) -> Digests {
        Digests {
            task_file_sha256: "aa".to_owned(),
            repo_sha256: repo.to_owned(),
            gold_sha256: None,
        }
    }

    #[test]
    fn only_current_valid_and_flaky_tasks_run() {
        let check = CheckFile::new(vec![
            checked("ok", Status::Valid, "r1"),
            checked("flips", Status::Flaky, "r2"),
            checked("broken", Status::Invalid, "r3"),
            checked("edited", Status::Valid, "r4"),
        ]);
        let now = |task: &str, repo: &str| (task.to_owned(), digests(repo));
        let tasks = [
            now("ok", "r1"),
            now("flips", "r2"),
            now("broken", "r3"),
            now("edited", "r4-changed"),
            now("new", "r5"),
        ];
        assert_eq!(
            gate(Some(&check), &tasks),
            (
                vec![
                    "broken (invalid: the gold patch does not pass (1 failed))".to_owned(),
                    "edited (changed since its check)".to_owned(),
                    "new (never checked)".to_owned(),
                ],
                vec!["flips".to_owned()]
            )
        );
        assert_eq!(
            gate(None, &tasks[..1]),
            (vec!["ok (never checked)".to_owned()], Vec::new())
        );
    }

    #[test]
    fn the_check_is_kept_beside_the_suite() {
        assert_eq!(
            path_beside(Utf8Path::new("evals/local/suite.toml")),
            Utf8Path::new("evals/local/suite.check.json")
        );
    }
}
