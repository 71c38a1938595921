use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use mend_core::Protocol;
use serde_json::json;

use super::*;

const MINIMAL: &str = r#"
[task]
prompt = "Fix it."

[paths]
readable = ["src/**/*.py", "tests/*.py"]
editable = ["src/**/*.py"]

[test]
command = ["python", "-m", "pytest", "-q"]
timeout_seconds = 30
files = ["tests/*.py"]

[tools]
enabled = ["list_files", "grep", "read_file", "write_file", "replace_text", "run_tests"]
"#;

fn parse(text: &str) -> Result<Task, String> {
    Task::parse(Utf8Path::new("mend.toml"), text).map_err(|err| err.message)
}

#[test]
fn the_sample_task_file_keeps_the_original_task() {
    let sample = include_str!("../../../sample-repo/mend.toml");
    let task = parse(sample).unwrap();
    let seen = (
        task.readable.patterns().to_vec(),
        task.editable.patterns().to_vec(),
        task.test.files.patterns().to_vec(),
        task.test.argv.clone(),
        task.test.timeout,
        task.tools.clone(),
        task.read_file_line_range,
        task.model.clone(),
        task.protocol,
        task.max_turns,
    );
    assert_eq!(
        seen,
        (
            vec![
                "path_rules.py".to_owned(),
                "tests/test_path_rules.py".to_owned()
            ],
            vec!["path_rules.py".to_owned()],
            vec!["tests/test_path_rules.py".to_owned()],
            ["python", "-m", "pytest", "-q"].map(str::to_owned).to_vec(),
            Duration::from_secs(120),
            vec![
                ToolName::ReadFile,
                ToolName::ReplaceText,
                ToolName::RunTests
            ],
            false,
            Some("gemma4:e2b".to_owned()),
            Some(Protocol::OllamaNdjson),
            Some(8),
        )
    );
    assert!(task
        .prompt
        .is_some_and(|prompt| prompt.contains(r"`src\api\routes.py` is currently dropped")));
}

#[test]
fn how_the_verdict_is_read_is_the_tasks_choice() {
    let with = |lines: &str| parse(&MINIMAL.replace("files = [", &format!("{lines}\nfiles = [")));
    let read = |task: Result<Task, String>| task.map(|task| (task.test.report, task.test.plugins));
    assert_eq!(
        [
            read(parse(MINIMAL)),
            read(with("plugins = false")),
            read(with("report = \"exit_code\"")),
            read(with(
                "report = \"junit\"\njunit_path = \"./target/nextest/default/junit.xml\""
            )),
            read(with("report = \"libtest\"")),
            read(with("report = \"django\"")),
            read(with("report = \"sympy\"")),
            read(with("report = \"pytest-ra\"")),
            read(parse(include_str!("../../../sample-repo/mend.toml"))),
            read(parse(include_str!(
                "../../../fixtures/slugify-repo/mend.toml"
            ))),
        ],
        [
            Ok((TestReport::Pytest, true)),
            Ok((TestReport::Pytest, false)),
            Ok((TestReport::ExitCode, true)),
            Ok((
                TestReport::Junit {
                    path: "target/nextest/default/junit.xml".to_owned()
                },
                true
            )),
            Ok((TestReport::Output(OutputReader::Libtest), true)),
            Ok((TestReport::Output(OutputReader::Django), true)),
            Ok((TestReport::Output(OutputReader::Sympy), true)),
            Ok((TestReport::Output(OutputReader::PytestRa), true)),
            Ok((TestReport::Pytest, false)),
            Ok((TestReport::Pytest, false)),
        ]
    );
}

#[test]
fn a_task_file_for_chat_needs_no_prompt() {
    let without = MINIMAL.replace("[task]\nprompt = \"Fix it.\"\n", "");
    assert_eq!(parse(&without).map(|task| task.prompt), Ok(None));
}

#[test]
fn defaults_fill_what_a_minimal_file_leaves_out() {
    let task = parse(MINIMAL).unwrap();
    assert_eq!(
        (
            task.system_prompt.as_str(),
            task.model,
            task.max_turns,
            task.read_file_line_range,
            task.shell
        ),
        (
            DEFAULT_SYSTEM_PROMPT,
            None,
            None,
            true,
            ShellLimits {
                timeout: Duration::from_secs(10),
                output_chars: 4_000
            }
        )
    );
}

#[test]
fn general_tools_name_the_tasks_files_and_take_a_path_when_several_are_editable() {
    let task = parse(MINIMAL).unwrap();
    let specs = serde_json::to_value(crate::tools::table::offered_tools(&task, false)).unwrap();
    let function = |name: &str,
                    description: &str,
                    properties: serde_json::Value,
                    required: &[&str]| {
        let mut parameters =
            json!({"type": "object", "properties": properties, "additionalProperties": false});
        if !required.is_empty() {
            parameters["required"] = json!(required);
        }
        json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters}})
    };
    let string = |about: &str| json!({"type": "string", "description": about});
    let integer = |about: &str| json!({"type": "integer", "description": about});
    assert_eq!(
        specs,
        json!([
            function(
                "list_files",
                "List the repository's readable files (src/**/*.py or tests/*.py), sorted; at most 200 are listed.",
                json!({"pattern": string("only files matching this glob, e.g. `src/**/*.py` (`*` stays in one folder, `**` crosses folders)")}),
                &[]
            ),
            function(
                "grep",
                "Search the readable files for a regular expression; returns at most 100 matching lines as `file:line: text`.",
                json!({"path": string("only files matching this glob"), "pattern": string("a regular expression (Rust regex syntax)")}),
                &["pattern"]
            ),
            function(
                "read_file",
                "Read one file of the repository. Only src/**/*.py and tests/*.py can be read.",
                json!({
                    "end_line": integer("the last line to return, inclusive"),
                    "path": string("src/**/*.py or tests/*.py"),
                    "start_line": integer("the first line to return, counting from 1 (for big files)")
                }),
                &["path"]
            ),
            function(
                "write_file",
                "Create a file or replace its whole text. Only src/**/*.py can be written. Protected, so never written whatever the globs say (the verdict rests on them): test configuration (conftest.py, sitecustomize.py, usercustomize.py and noxfile.py, in any folder).",
                json!({"path": string("src/**/*.py"), "text": string("the complete new text of the file")}),
                &["path", "text"]
            ),
            function(
                "replace_text",
                "Replace one exact occurrence of `old` with `new` in src/**/*.py. `old` must occur exactly once. Protected, so never written whatever the globs say (the verdict rests on them): test configuration (conftest.py, sitecustomize.py, usercustomize.py and noxfile.py, in any folder).",
                json!({
                    "new": string("the replacement text"),
                    "old": string("the exact text to replace, copied from the file"),
                    "path": string("the file to edit: src/**/*.py")
                }),
                &["path", "old", "new"]
            ),
            function(
                "run_tests",
                "Run the repository's test suite (python -m pytest -q) and return the exit code and the output.",
                json!({}),
                &[]
            ),
        ])
    );
}

#[test]
fn a_malformed_task_file_is_named_by_line_and_field() {
    // Each case is MINIMAL with one text replaced, and the message it gets.
    let cases = [
        ("timeout_seconds = 30", "timeout_seconds = \"30\"", "mend.toml:11: invalid type: string \"30\", expected u64 (in test.timeout_seconds) (see docs/task-file.md)"),
        ("timeout_seconds = 30", "timeout_seconds = 0", "mend.toml:11: test.timeout_seconds: must be at least 1 (see docs/task-file.md)"),
        ("timeout_seconds = 30", "timeout_secs = 30", "mend.toml:11: unknown field `timeout_secs`, expected one of `command`, `timeout_seconds`, `files`, `report`, `junit_path`, `plugins`, `env`, `pythonpath`, `config_editable`, `patch`, `held_out`, `fail_to_pass`, `pass_to_pass`, `skipped_pass_to_pass` (in test.timeout_secs) (see docs/task-file.md)"),
        ("files = [", "report = \"junit\"\nfiles = [", "mend.toml:10: test.junit_path: name the JUnit XML file the test command writes (e.g. \"junit.xml\") when test.report = \"junit\" (see docs/task-file.md)"),
        ("files = [", "report = \"junit\"\njunit_path = \"../out.xml\"\nfiles = [", "mend.toml:13: test.junit_path: `../out.xml` must be a file inside the repository, relative, without `..` (see docs/task-file.md)"),
        ("files = [", "junit_path = \"out.xml\"\nfiles = [", "mend.toml:12: test.junit_path: is read only with test.report = \"junit\" (see docs/task-file.md)"),
        ("files = [", "config_editable = [\"/etc/pytest.ini\"]\nfiles = [", "mend.toml:12: test.config_editable: `/etc/pytest.ini` must be relative to the repository, without `..` (see docs/task-file.md)"),
        ("files = [", "report = \"xunit\"\nfiles = [", "mend.toml:12: unknown variant `xunit`, expected one of `pytest`, `junit`, `exit_code`, `django`, `sympy`, `pytest-ra`, `libtest` (in test.report) (see docs/task-file.md)"),
        ("\"grep\",", "\"grpe\",", "mend.toml:15: tools.enabled: unknown tool `grpe`; mend has list_files, grep, read_file, write_file, replace_text, run_tests and shell (see docs/task-file.md)"),
        ("\"tests/*.py\"]\neditable", "\"tests/[*.py\"]\neditable", "mend.toml:6: paths.readable: `tests/[*.py` is not a valid glob: error parsing glob 'tests/[*.py': unclosed character class; missing ']' (see docs/task-file.md)"),
        ("command = [\"python\", \"-m\", \"pytest\", \"-q\"]", "command = []", "mend.toml:10: test.command: must name a program and its arguments, e.g. [\"python\", \"-m\", \"pytest\", \"-q\"] (see docs/task-file.md)"),
        ("editable = [\"src/**/*.py\"]", "editable = [\"../elsewhere/*.py\"]", "mend.toml:7: paths.editable: `../elsewhere/*.py` must be relative to the repository, without `..` (see docs/task-file.md)"),
        ("\"run_tests\"]\n", "\"run_tests\"]\n\n[model]\nprotocol = \"gemini\"\n", "mend.toml:18: model.protocol: unknown protocol `gemini`; use ollama, openai or anthropic (see docs/task-file.md)"),
        ("\"run_tests\"]\n", "\"run_tests\"]\n\n[model]\nprovider = \"gemini\"\n", "mend.toml:18: model.provider: unknown protocol `gemini`; use ollama, openai or anthropic (see docs/task-file.md)"),
        ("\"run_tests\"]\n", "\"run_tests\"]\n\n[model]\nprotocol = \"openai\"\nprovider = \"openai\"\n", "mend.toml:19: model.provider is the older name of model.protocol: keep only model.protocol (see docs/task-file.md)"),
        ("[tools]", "[tools\n", "mend.toml:14: unclosed table, expected `]` (see docs/task-file.md)"),
    ];
    for (old, new, expected) in cases {
        let text = MINIMAL.replace(old, new);
        assert_ne!(text, MINIMAL, "{old:?} is not in MINIMAL");
        assert_eq!(parse(&text).err().as_deref(), Some(expected), "{text}");
    }
}

#[test]
fn a_missing_task_file_names_where_it_was_looked_for_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Utf8Path::from_path(dir.path()).unwrap();
    assert_eq!(
        Task::locate(repo, None).err().map(|err| (err.exit_code, err.message)),
        Some((
            crate::error::exit::USAGE,
            format!("{repo}/mend.toml does not exist: run `mend init` there to write one (see docs/task-file.md), or pass --task-file PATH")
        ))
    );
}

#[test]
fn copy_exclude_replaces_the_default_caches_and_no_path_set_reaches_into_it() {
    let defaults = parse(MINIMAL).unwrap();
    assert_eq!(
        (
            defaults.exclude.patterns().to_vec(),
            defaults.editable.contains("src/pkg/__pycache__/x.py"),
            defaults.editable.contains("src/pkg/x.py"),
        ),
        (
            copy::DEFAULT_EXCLUDE.map(str::to_owned).to_vec(),
            false,
            true
        )
    );
    let own = parse(&format!(
        "{MINIMAL}\n[copy]\nexclude = [\"src/vendored\"]\n"
    ))
    .unwrap();
    assert_eq!(
        (
            own.exclude.patterns().to_vec(),
            own.editable.contains("src/vendored/x.py"),
            own.readable.contains("src/vendored/x.py"),
            own.editable.contains("src/pkg/__pycache__/x.py"),
        ),
        (vec!["src/vendored".to_owned()], false, false, true)
    );
    assert_eq!(
        parse(&format!("{MINIMAL}\n[copy]\nexclude = [\"ok\", \"../up\"]\n")).err(),
        Some("mend.toml:18: copy.exclude: `../up` must be a name or a path relative to the repository, without `..` (see docs/task-file.md)".to_owned())
    );
}

#[test]
fn copy_share_replaces_the_default_dependency_folders_and_no_path_set_reaches_into_them() {
    let seen = |task: &Task| {
        (
            task.exclude.shared_patterns().to_vec(),
            task.exclude.patterns().to_vec(),
            task.readable.contains("src/node_modules/x.py"),
            task.readable.contains("src/deps/x.py"),
        )
    };
    assert_eq!(
        seen(&parse(MINIMAL).unwrap()),
        (
            copy::DEFAULT_SHARE.map(str::to_owned).to_vec(),
            copy::DEFAULT_EXCLUDE.map(str::to_owned).to_vec(),
            false,
            true
        )
    );
    let own = parse(&format!(
        "{MINIMAL}\n[copy]\nexclude = [\"build\"]\nshare = [\"src/deps\"]\n"
    ))
    .unwrap();
    assert_eq!(
        seen(&own),
        (
            vec!["src/deps".to_owned()],
            vec!["build".to_owned()],
            true,
            false
        )
    );
    assert_eq!(
        parse(&format!("{MINIMAL}\n[copy]\nshare = [\"/abs\"]\n")).err(),
        Some("mend.toml:18: copy.share: `/abs` must be a name or a path relative to the repository, without `..` (see docs/task-file.md)".to_owned())
    );
}

#[test]
fn the_test_environment_fields_are_read_and_checked_by_line() {
    let with = |extra: &str, sandbox: &str| {
        parse(&MINIMAL.replace(
            "files = [\"tests/*.py\"]\n",
            &format!("files = [\"tests/*.py\"]\n{extra}\n{sandbox}"),
        ))
    };
    let task = with(
        "env = [\"RUST_BACKTRACE\", \"CI=1\"]\npythonpath = [\"lib\"]",
        "[sandbox]\nread_only = [\"/opt/sdk\"]\n",
    )
    .unwrap();
    assert_eq!(
        (task.test.env, task.test.pythonpath, task.read_only),
        (
            vec![
                EnvEntry::Pass("RUST_BACKTRACE".into()),
                EnvEntry::Set("CI".into(), "1".into())
            ],
            PythonPath::Roots(vec!["lib".into()]),
            vec![ReadOnly::Absolute("/opt/sdk".into())]
        )
    );
    let defaults = parse(MINIMAL).unwrap();
    assert_eq!(
        (
            defaults.test.env,
            defaults.test.pythonpath,
            defaults.read_only
        ),
        (Vec::new(), PythonPath::Guessed, Vec::new())
    );
    assert_eq!(
        with("env = [\"CI=1\",\n  \"OPENAI_API_KEY\"]", "").unwrap_err(),
        "mend.toml:14: test.env: `OPENAI_API_KEY` looks like a credential, and the tests run code the model wrote, so mend never passes it on; if the tests need one, give them a test-only value: \"OPENAI_API_KEY=...\" (see docs/task-file.md)"
    );
    assert_eq!(
        with("", "[sandbox]\nread_only = [\"opt\"]").unwrap_err(),
        "mend.toml:15: sandbox.read_only: `opt` must be an absolute path or start with ~/ (the repository itself is always there) (see docs/task-file.md)"
    );
}

#[test]
fn the_protocol_reads_under_its_name_or_its_older_one() {
    let with =
        |table: &str| parse(&format!("{MINIMAL}\n[model]\n{table}\n")).map(|task| task.protocol);
    assert_eq!(
        [
            with(""),
            with("protocol = \"anthropic\""),
            with("provider = \"openai\""),
        ],
        [
            Ok(None),
            Ok(Some(Protocol::AnthropicSse)),
            Ok(Some(Protocol::OpenaiSse)),
        ]
    );
}

#[test]
fn model_think_is_on_off_or_a_level_and_anything_else_is_named() {
    let with = |value: &str| parse(&format!("{MINIMAL}\n[model]\nthink = {value}\n"));
    let read: Vec<Option<mend_core::Think>> = ["true", "false", "\"low\"", "\"high\""]
        .iter()
        .map(|value| with(value).map(|task| task.think).unwrap_or_default())
        .collect();
    use mend_core::Think;
    assert_eq!(
        read,
        [
            Some(Think::On),
            Some(Think::Off),
            Some(Think::Low),
            Some(Think::High)
        ]
    );
    assert_eq!(parse(MINIMAL).map(|task| task.think), Ok(None));
    let error = with("\"max\"").unwrap_err();
    assert!(
        error.contains("true, false, \"low\", \"medium\" or \"high\""),
        "{error}"
    );
}

/// A folder holding a test patch and a file that is none, for a task file written there.
fn held_out_folder() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let folder = Utf8Path::from_path(dir.path()).unwrap().to_owned();
    std::fs::write(
        folder.join("tests.patch"),
        "diff --git a/tests/test_new.py b/tests/test_new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_new.py\n@@ -0,0 +1 @@\n+def test_new(): pass\n",
    )
    .unwrap();
    std::fs::write(folder.join("empty.patch"), "no diff here\n").unwrap();
    (dir, folder)
}

/// The minimal task in `folder` with `test` added to its `[test]` table and `copy` after it;
/// an error's folder reads `DIR`.
fn held_out_task(folder: &Utf8Path, test: &str, copy: &str) -> Result<Task, String> {
    let text = MINIMAL.replace(
        "files = [\"tests/*.py\"]\n",
        &format!("files = [\"tests/*.py\"]\n{test}\n"),
    );
    Task::parse(&folder.join("mend.toml"), &format!("{text}{copy}"))
        .map_err(|err| err.message.replace(folder.as_str(), "DIR"))
}

#[test]
fn held_out_tests_given_lists_and_the_history_are_read() {
    let (_dir, folder) = held_out_folder();
    let task = held_out_task(
        &folder,
        "patch = \"tests.patch\"\nheld_out = [\"tests/hidden/**\"]\nfail_to_pass = [\"t::a\"]\npass_to_pass = [\"t::b\", \"t::c\"]",
        "[copy]\nhistory = \"base\"\nbase = \"v1.0\"\n",
    )
    .unwrap();
    assert_eq!(
        (
            task.test_patch.as_ref().map(|patch| patch.files.clone()),
            task.exclude.held_out_patterns().to_vec(),
            task.given.clone(),
            task.history.clone(),
            task.holds_tests_out(),
            [
                task.readable.contains("tests/hidden/test_x.py"),
                task.exclude.excludes_entry("tests/hidden"),
                task.readable.contains("tests/test_x.py"),
                task.exclude.for_final_run().excludes_entry("tests/hidden"),
            ],
        ),
        (
            Some(vec!["tests/test_new.py".to_owned()]),
            vec!["tests/hidden/**".to_owned()],
            Some(GivenTests {
                fail_to_pass: vec!["t::a".to_owned()],
                pass_to_pass: vec!["t::b".to_owned(), "t::c".to_owned()],
                ids: ListedIds::UpToFirstSpace,
                skipped: crate::task::SkippedPassToPass::Kept,
            }),
            History::Base("v1.0".to_owned()),
            true,
            [false, true, true, false],
        )
    );
}

#[test]
fn without_them_nothing_is_held_out_and_the_history_reaches_from_head() {
    let (_dir, folder) = held_out_folder();
    let with = |test: &str, copy: &str| held_out_task(&folder, test, copy);
    let defaults = parse(MINIMAL).unwrap();
    assert_eq!(
        (
            defaults.holds_tests_out(),
            defaults.test_patch,
            defaults.given,
            defaults.history
        ),
        (false, None, None, History::Base("HEAD".to_owned()))
    );
    assert_eq!(
        with("", "[copy]\nhistory = \"none\"\n").unwrap().history,
        History::None
    );
}

#[test]
fn held_out_tests_given_lists_and_the_history_are_checked_by_line() {
    let (_dir, folder) = held_out_folder();
    let with = |test: &str, copy: &str| held_out_task(&folder, test, copy);
    let errors: Vec<String> = [
        ("patch = \"missing.patch\"", ""),
        ("patch = \"empty.patch\"", ""),
        ("held_out = [\"../up\"]", ""),
        ("fail_to_pass = []", ""),
        ("fail_to_pass = [\"t::a\"]\nreport = \"exit_code\"", ""),
        (
            "fail_to_pass = [\"t::a\"]\nskipped_pass_to_pass = \"failed\"",
            "",
        ),
        ("", "[copy]\nhistory = \"all\"\n"),
        ("", "[copy]\nhistory = \"none\"\nbase = \"HEAD\"\n"),
    ]
    .into_iter()
    .map(|(test, copy)| with(test, copy).unwrap_err())
    .collect();
    assert_eq!(
        errors,
        [
            "DIR/mend.toml:13: test.patch: cannot read DIR/missing.patch: No such file or directory (os error 2) (the path is relative to the task file's folder) (see docs/task-file.md)",
            "DIR/mend.toml:13: test.patch: DIR/empty.patch changes no file (a unified diff as `git diff` writes it) (see docs/task-file.md)",
            "DIR/mend.toml:13: test.held_out: `../up` must be relative to the repository, without `..` (see docs/task-file.md)",
            "DIR/mend.toml:13: test.fail_to_pass: name at least one test (here or in test.pass_to_pass), or leave both out for the contract of the run before the change (see docs/task-file.md)",
            "DIR/mend.toml:10: test.fail_to_pass: the given tests are graded by their ids, which test.report = \"exit_code\" does not give: use \"pytest\" or \"junit\" (see docs/task-file.md)",
            "DIR/mend.toml:14: unknown variant `failed`, expected `kept` or `broken` (in test.skipped_pass_to_pass) (see docs/task-file.md)",
            "DIR/mend.toml:18: copy.history: `all` is none of \"base\" (only what copy.base reaches) or \"none\" (no .git) (see docs/task-file.md)",
            "DIR/mend.toml:19: copy.base: is read only with copy.history = \"base\" (see docs/task-file.md)",
        ]
    );
}

#[test]
fn the_environment_table_names_an_image_and_where_the_repository_is_in_it() {
    use crate::oci::reference::RegistryRef;
    use crate::oci::ImageRef;
    let with = |table: &str| {
        Task::parse(
            Utf8Path::new("/suite/task/mend.toml"),
            &format!("{MINIMAL}\n[environment]\n{table}"),
        )
        .map(|task| task.environment)
        .map_err(|err| err.message)
    };
    assert_eq!(
        [
            with("image = \"swebench/sweb.eval.x86_64.astropy__astropy-12907\"\nworkdir = \"/testbed/\""),
            with("image = \"oci:../layout:v1\""),
            with("image = \"docker-archive:/images/app.tar\""),
        ],
        [
            Ok(Some(Environment {
                image: ImageRef::Registry(RegistryRef {
                    host: "docker.io".into(),
                    name: "swebench/sweb.eval.x86_64.astropy__astropy-12907".into(),
                    tag: "latest".into(),
                    digest: None,
                }),
                workdir: Some("/testbed".into()),
            })),
            Ok(Some(Environment {
                image: ImageRef::OciLayout { path: "/suite/task/../layout".into(), tag: Some("v1".into()) },
                workdir: None,
            })),
            Ok(Some(Environment { image: ImageRef::DockerArchive { path: "/images/app.tar".into() }, workdir: None })),
        ]
    );
    assert_eq!(parse(MINIMAL).unwrap().environment, None);
    let refused = [
        with("image = \"Bad:Name\""),
        with("image = \"python\"\nworkdir = \"testbed\""),
        with("image = \"python\"\nworkdir = \"/a/../b\""),
        with("workdir = \"/testbed\""),
        with("image = \"python\"\nimage_tag = \"x\""),
    ];
    let lines: Vec<String> = refused
        .into_iter()
        .map(|result| result.unwrap_err())
        .collect();
    assert_eq!(
        lines
            .iter()
            .map(|line| line.split(": ").next().unwrap_or_default())
            .collect::<Vec<_>>(),
        [
            "/suite/task/mend.toml:18",
            "/suite/task/mend.toml:19",
            "/suite/task/mend.toml:19",
            "/suite/task/mend.toml",
            "/suite/task/mend.toml:19"
        ],
        "{lines:#?}"
    );
    assert!(
        lines[0].contains("environment.image: `Bad:Name`"),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains("e.g. \"/testbed\""), "{}", lines[1]);
    assert!(
        lines[3].contains("without environment.image"),
        "{}",
        lines[3]
    );
    assert!(lines[4].contains("image_tag"), "{}", lines[4]);
}

#[test]
fn the_set_up_steps_are_read_with_their_limit() {
    let with = |table: &str| parse(&format!("{MINIMAL}\n[environment]\n{table}\n"));
    assert_eq!(
        [
            parse(MINIMAL).map(|task| task.setup),
            with("setup = [\"python -m pip install -e .\", \"make build\"]").map(|task| task.setup),
            with("setup = [\"make\"]\nsetup_timeout_seconds = 90").map(|task| task.setup),
        ],
        [
            Ok(SetUpSteps {
                steps: Vec::new(),
                timeout: std::time::Duration::from_secs(1800)
            }),
            Ok(SetUpSteps {
                steps: vec!["python -m pip install -e .".into(), "make build".into()],
                timeout: std::time::Duration::from_secs(1800)
            }),
            Ok(SetUpSteps {
                steps: vec!["make".into()],
                timeout: std::time::Duration::from_secs(90)
            }),
        ]
    );
    let refused: Vec<bool> = [
        with("setup = [\"make\", \" \"]"),
        with("setup = [\"make\"]\nsetup_timeout_seconds = 0"),
        with("setup = \"make\""),
    ]
    .iter()
    .map(|result| {
        result
            .as_ref()
            .is_err_and(|message| message.contains("environment") || message.contains("setup"))
    })
    .collect();
    assert_eq!(refused, [true, true, true]);
}
