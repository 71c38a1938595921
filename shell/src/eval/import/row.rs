//! One line of an instance file, as SWE-bench and the sets built like it (SWE-bench-Live,
//! SWE-Gym, SWE-smith, SWE-rebench) write it: read field by field, so a row from any of them is
//! taken as it comes and a row that cannot be a task says which field is wrong.

use serde_json::{Map, Value};

use super::error::RowError;

/// The test command a row gives itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RowCommand {
    /// `test_cmd`: one shell command.
    One(String),
    /// `test_cmds`: shell commands run in order.
    Many(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Instance {
    pub id: String,
    /// `owner/name`.
    pub repo: Option<String>,
    pub base_commit: Option<String>,
    /// The gold patch.
    pub patch: Option<String>,
    pub test_patch: Option<String>,
    pub problem_statement: String,
    pub fail_to_pass: Option<Vec<String>>,
    pub pass_to_pass: Option<Vec<String>>,
    pub version: Option<String>,
    pub environment_setup_commit: Option<String>,
    /// The image the row names (`image_name`, `docker_image` or `image`).
    pub image: Option<String>,
    pub command: Option<RowCommand>,
    /// swebench 5.x: the whole script the harness runs in the container.
    pub eval_script: Option<String>,
    /// swebench 5.x: the harness's log parser for the row (`parse_log_pytest`, …).
    pub log_parser: Option<String>,
    /// swebench 5.x: `pass_and_fail` or `fail_only`.
    pub eval_type: Option<String>,
}

/// The names sets give a row's image.
const IMAGE_FIELDS: [&str; 3] = ["image_name", "docker_image", "image"];

/// Reads one row; the error says which row (its id, when it has one), which field and why.
pub(super) fn read(line: &str) -> Result<Instance, RowError> {
    let value: Value = serde_json::from_str(line)
        .map_err(|err| RowError::unfit(format!("not a JSON object: {err}")))?;
    let id = value
        .get("instance_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    fields(value).map_err(|why| match id {
        Some(id) if is_task_name(&id) => why.of(&id),
        _ => why,
    })
}

fn fields(value: Value) -> Result<Instance, RowError> {
    let Value::Object(row) = value else {
        return Err(RowError::unfit("not a JSON object"));
    };
    let id =
        text(&row, "instance_id")?.ok_or_else(|| RowError::unfit("it has no `instance_id`"))?;
    if !is_task_name(&id) {
        return Err(RowError::unfit(format!(
            "`instance_id` {id:?} cannot name a folder: use letters, digits, `.`, `_` and `-`"
        )));
    }
    let problem_statement = text(&row, "problem_statement")?
        .filter(|statement| !statement.trim().is_empty())
        .ok_or_else(|| {
            RowError::unfit("it has no `problem_statement`, which becomes the task's prompt")
        })?;
    let image = IMAGE_FIELDS
        .iter()
        .map(|field| text(&row, field))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .find(|image| !image.is_empty());
    Ok(Instance {
        repo: text(&row, "repo")?,
        base_commit: text(&row, "base_commit")?,
        patch: text(&row, "patch")?.filter(|patch| !patch.trim().is_empty()),
        test_patch: text(&row, "test_patch")?.filter(|patch| !patch.trim().is_empty()),
        problem_statement,
        fail_to_pass: test_list(&row, "FAIL_TO_PASS")?,
        pass_to_pass: test_list(&row, "PASS_TO_PASS")?,
        version: version(&row)?,
        environment_setup_commit: text(&row, "environment_setup_commit")?,
        image,
        command: command(&row)?,
        eval_script: text(&row, "eval_script")?.filter(|script| !script.trim().is_empty()),
        log_parser: text(&row, "log_parser")?,
        eval_type: text(&row, "eval_type")?,
        id,
    })
}

/// A name mend can use as a folder and a task name.
pub(super) fn is_task_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 200
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn text(row: &Map<String, Value>, field: &str) -> Result<Option<String>, RowError> {
    match row.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(RowError::unfit(format!(
            "`{field}` is {}, not a string",
            kind(other)
        ))),
    }
}

/// `version` is a string in SWE-bench ("3.0"), a number in some copies of it.
fn version(row: &Map<String, Value>) -> Result<Option<String>, RowError> {
    match row.get("version") {
        Some(Value::Number(number)) => Ok(Some(number.to_string())),
        _ => text(row, "version"),
    }
}

/// `FAIL_TO_PASS` / `PASS_TO_PASS`: a list of test ids, or (SWE-bench on Hugging Face) that
/// list JSON-encoded in a string.
fn test_list(row: &Map<String, Value>, field: &str) -> Result<Option<Vec<String>>, RowError> {
    let decoded;
    let list = match row.get(field) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(encoded)) => {
            decoded = serde_json::from_str::<Value>(encoded).map_err(|err| {
                RowError::unfit(format!(
                    "`{field}` is a string but not a JSON list of test ids: {err}"
                ))
            })?;
            &decoded
        }
        Some(value) => value,
    };
    let Value::Array(items) = list else {
        return Err(RowError::unfit(format!(
            "`{field}` is {}, not a list of test ids",
            kind(list)
        )));
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(id) => Ok(id.clone()),
            other => Err(RowError::unfit(format!(
                "`{field}` holds {}, not a test id",
                kind(other)
            ))),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn command(row: &Map<String, Value>) -> Result<Option<RowCommand>, RowError> {
    for field in ["test_cmd", "test_cmds"] {
        match row.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::String(one)) => return Ok(Some(RowCommand::One(one.clone()))),
            Some(Value::Array(items)) => {
                let commands = items
                    .iter()
                    .map(|item| match item {
                        Value::String(command) => Ok(command.clone()),
                        other => Err(RowError::unfit(format!(
                            "`{field}` holds {}, not a command",
                            kind(other)
                        ))),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if commands.is_empty() {
                    return Err(RowError::unfit(format!("`{field}` is an empty list")));
                }
                return Ok(Some(RowCommand::Many(commands)));
            }
            Some(other) => {
                return Err(RowError::unfit(format!(
                    "`{field}` is {}, not a command or a list of commands",
                    kind(other)
                )))
            }
        }
    }
    Ok(None)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::{read, Instance, RowCommand};

    #[test]
    fn a_swe_bench_row_with_encoded_lists_reads_whole() {
        let line = r#"{"instance_id":"psf__requests-2317","repo":"psf/requests","base_commit":"abc","patch":"diff --git a/x b/x\n","test_patch":"","problem_statement":"method = builtin_str(method) breaks","FAIL_TO_PASS":"[\"test_requests.py::test_a\"]","PASS_TO_PASS":["test_requests.py::test_b"],"version":2.4,"environment_setup_commit":"def","created_at":"2014"}"#;
        assert_eq!(
            read(line).map_err(|err| err.to_string()),
            Ok(Instance {
                id: "psf__requests-2317".to_owned(),
                repo: Some("psf/requests".to_owned()),
                base_commit: Some("abc".to_owned()),
                patch: Some("diff --git a/x b/x\n".to_owned()),
                test_patch: None,
                problem_statement: "method = builtin_str(method) breaks".to_owned(),
                fail_to_pass: Some(vec!["test_requests.py::test_a".to_owned()]),
                pass_to_pass: Some(vec!["test_requests.py::test_b".to_owned()]),
                version: Some("2.4".to_owned()),
                environment_setup_commit: Some("def".to_owned()),
                image: None,
                command: None,
                eval_script: None,
                log_parser: None,
                eval_type: None,
            })
        );
    }

    #[test]
    fn live_and_smith_rows_bring_their_image_and_command() {
        let live = r#"{"instance_id":"a__b-1","problem_statement":"p","docker_image":"reg/x:1","test_cmds":["make","pytest -rA t.py"]}"#;
        let smith = r#"{"instance_id":"a__b-2","problem_statement":"p","image_name":"smith.b","test_cmd":"pytest"}"#;
        let read_back = |line: &str| {
            read(line)
                .map(|row| (row.image, row.command))
                .map_err(|err| err.to_string())
        };
        assert_eq!(
            [read_back(live), read_back(smith)],
            [
                Ok((
                    Some("reg/x:1".to_owned()),
                    Some(RowCommand::Many(vec![
                        "make".to_owned(),
                        "pytest -rA t.py".to_owned()
                    ]))
                )),
                Ok((
                    Some("smith.b".to_owned()),
                    Some(RowCommand::One("pytest".to_owned()))
                )),
            ]
        );
    }

    #[test]
    fn a_row_that_cannot_be_a_task_says_which_field() {
        let cases = [
            ("[1]", "not a JSON object"),
            (r#"{"problem_statement":"p"}"#, "it has no `instance_id`"),
            (r#"{"instance_id":"../x","problem_statement":"p"}"#, "`instance_id` \"../x\" cannot name a folder: use letters, digits, `.`, `_` and `-`"),
            (r#"{"instance_id":"a","problem_statement":" "}"#, "a: it has no `problem_statement`, which becomes the task's prompt"),
            (r#"{"instance_id":"a","problem_statement":"p","FAIL_TO_PASS":"[1"}"#, "a: `FAIL_TO_PASS` is a string but not a JSON list of test ids: EOF while parsing a list at line 1 column 2"),
            (r#"{"instance_id":"a","problem_statement":"p","PASS_TO_PASS":[3]}"#, "a: `PASS_TO_PASS` holds a number, not a test id"),
            (r#"{"instance_id":"a","problem_statement":"p","repo":7}"#, "a: `repo` is a number, not a string"),
            (r#"{"instance_id":"a","problem_statement":"p","test_cmds":[]}"#, "a: `test_cmds` is an empty list"),
        ];
        let got: Vec<Result<Instance, String>> = cases
            .iter()
            .map(|(line, _)| read(line).map_err(|err| err.to_string()))
            .collect();
        let wanted: Vec<Result<Instance, String>> = cases
            .iter()
            .map(|(_, why)| Err((*why).to_owned()))
            .collect();
        assert_eq!(got, wanted);
    }
}
