//! A task file's text read into a [`Task`]: each field checked into its typed value, every
//! problem naming the file, the line and the field.

use std::ops::Range;
use std::time::Duration;

use camino::Utf8Path;
use toml::Spanned;

use super::copy::Exclusion;
use super::field_error::{At, FieldError};
use super::file::{self, InstructionsSetting, ReportKind, TaskFile, TestTable};
use super::instructions::InstructionsSource;
use super::{
    defaults, environment, environment_table, held_out, hooks, image_table, instructions, missing,
    paths, protocol, test_folders, GivenTests, ListedIds, OutputReader, PathSet, PythonPath,
    ShellLimits, Task, TestCommand, TestReport, ToolName, DEFAULT_SYSTEM_PROMPT,
    SHELL_OUTPUT_CHARS_DEFAULT,
};
use crate::atomic;
use crate::error::MendError;

impl Task {
    /// Reads a task file's text; every problem names the file, the line and the field.
    pub fn parse(origin: &Utf8Path, text: &str) -> Result<Task, MendError> {
        let at = |span: Option<Range<usize>>, message: &str| located(origin, text, span, message);
        let mut raw = task_file(text, &at)?;
        let exclude = exclusion(raw.copy.exclude, raw.copy.share, &at)?;
        let exclude = held_out_globs(exclude, std::mem::take(&mut raw.test.held_out), &at)?;
        let test_patch = held_out::test_patch(origin, raw.test.patch.take(), &at)?;
        let given = given_lists(&mut raw.test, &at)?;
        let history = held_out::history(raw.copy.history.take(), raw.copy.base.take(), &at)?;
        let (report_kind, report_warning) = report_kind(&raw.test, given.is_some(), &at)?;
        let set = |field: &str, globs: Vec<Spanned<String>>| {
            Ok::<_, MendError>(path_set(field, globs, &at)?.excluding(&exclude))
        };
        let readable = set("paths.readable", raw.paths.readable)?;
        let editable = set("paths.editable", raw.paths.editable)?;
        let files = set("test.files", std::mem::take(&mut raw.test.files))?;
        let config_editable = set(
            "test.config_editable",
            std::mem::take(&mut raw.test.config_editable),
        )?;
        let mut test = test_command(raw.test, report_kind, files, &at)?;
        test.data_folders = test.data_folders.map(|folders| folders.excluding(&exclude));
        let given = given.map(|given| GivenTests {
            ids: ListedIds::of(&test.report),
            ..given
        });
        let read_only = each_checked(raw.sandbox.read_only, environment::read_only, &at)?;
        let tools = raw
            .tools
            .enabled
            .map_or_else(|| Ok(defaults::tools()), |enabled| tools(enabled, &at))?;
        let shell = shell_limits(&raw.shell, &at)?;
        let protocol = protocol::of_table(raw.model.protocol, raw.model.provider, &at)?;
        let max_turns = max_turns(raw.model.max_turns, &at)?;
        let num_ctx = num_ctx(raw.model.num_ctx, &at)?;
        let instructions_source = instructions_source(raw.task.instructions, &at)?;
        let hooks = hooks::check(raw.hooks).map_err(|(span, message)| at(span, &message))?;
        let warnings: Vec<String> = report_warning
            .into_iter()
            .chain(hooks.never_matching())
            .collect();
        let hook_sources = hook_sources(origin, &hooks);
        let setup = image_table::set_up_steps(&raw.environment, &at)?;
        let environment = environment_table(raw.environment, origin, &at)?;
        Ok(Task {
            origin: origin.to_owned(),
            sha256: atomic::sha256_hex(text.as_bytes()),
            prompt: raw.task.prompt,
            system_prompt: raw
                .task
                .system
                .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.to_owned()),
            model: raw.model.name,
            protocol,
            max_turns,
            num_ctx,
            keep_alive: raw.model.keep_alive,
            text_tool_calls: raw.model.text_tool_calls,
            think: raw.model.think,
            instructions_source,
            instructions: None,
            readable,
            editable,
            config_editable,
            test,
            tools,
            read_file_line_range: raw.tools.read_file_line_range,
            shell,
            exclude,
            read_only,
            hooks,
            telemetry: raw.telemetry,
            test_patch,
            given,
            history,
            environment,
            setup,
            warnings,
            hook_sources,
        })
    }
}

/// One of the file's glob lists; a bad glob is named with its own line.
/// The given lists (FAIL_TO_PASS, PASS_TO_PASS) and how a skipped PASS_TO_PASS test counts.
fn given_lists(test: &mut TestTable, at: At) -> Result<Option<GivenTests>, MendError> {
    held_out::given_tests(
        test.fail_to_pass.take(),
        test.pass_to_pass.take(),
        test.skipped_pass_to_pass.take(),
        at,
    )
}

fn path_set(field: &str, globs: Vec<Spanned<String>>, at: At) -> Result<PathSet, MendError> {
    let spans: Vec<Range<usize>> = globs.iter().map(Spanned::span).collect();
    PathSet::new(globs.into_iter().map(Spanned::into_inner).collect())
        .map_err(|(index, message)| at(spans.get(index).cloned(), &format!("{field}: {message}")))
}

/// How the test run's outcome is read (`test.report`, else guessed from the command, with a
/// warning saying so); given tests need ids, which an exit code does not give.
fn report_kind(
    test: &TestTable,
    given: bool,
    at: At,
) -> Result<(ReportKind, Option<String>), MendError> {
    let (kind, warning) = match test.report {
        Some(kind) => (kind, None),
        None => defaults::report_for(test.command.get_ref()),
    };
    if given && kind == ReportKind::ExitCode {
        return Err(at(
            Some(test.command.span()),
            "test.fail_to_pass: the given tests are graded by their ids, which test.report = \"exit_code\" does not give: use \"pytest\" or \"junit\"",
        ));
    }
    Ok((kind, warning))
}

/// The file's TOML in its raw shape; a missing or mistyped field is named with its line.
fn task_file(text: &str, at: At) -> Result<TaskFile, MendError> {
    toml::from_str(text).map_err(|err| {
        let message = err.message().trim_end();
        if let Some(missing) = missing::missing_field(message, text, err.span()) {
            return at(err.span(), &missing);
        }
        let field = field_of(text, err.span());
        at(err.span(), &format!("{message}{field}"))
    })
}

/// Which file gave hooks, said with the run: the task file, when it declares any.
fn hook_sources(origin: &Utf8Path, hooks: &hooks::Hooks) -> Vec<String> {
    match hooks.count() {
        0 => Vec::new(),
        count => vec![format!(
            "{} ({count} hook(s))",
            origin.file_name().unwrap_or("the task file")
        )],
    }
}

/// The `[test]` table: the command, its environment, limit and report.
fn test_command(
    raw: TestTable,
    report_kind: ReportKind,
    files: PathSet,
    at: At,
) -> Result<TestCommand, MendError> {
    let command_span = raw.command.span();
    let argv = raw.command.into_inner();
    if argv.first().is_none_or(|program| program.trim().is_empty()) {
        return Err(at(
            Some(command_span),
            "test.command: must name a program and its arguments, e.g. [\"python\", \"-m\", \"pytest\", \"-q\"]",
        ));
    }
    let env = each_checked(raw.env, environment::env_entry, at)?;
    let pythonpath = match raw.pythonpath {
        Some(roots) => PythonPath::Roots(each_checked(roots, environment::import_root, at)?),
        None => PythonPath::Guessed,
    };
    let timeout = match &raw.timeout_seconds {
        Some(seconds) => positive_seconds(seconds, "test.timeout_seconds")
            .map_err(|error| at(Some(seconds.span()), &error.to_string()))?,
        None => defaults::TEST_TIMEOUT,
    };
    let report = report(report_kind, raw.junit_path, command_span, at)?;
    let data_folders = test_folders::test_folders(files.patterns());
    Ok(TestCommand {
        argv,
        timeout,
        data_folders,
        files,
        report,
        plugins: raw.plugins,
        env,
        pythonpath,
    })
}

/// `task.instructions`: the project's instructions file, another one, or none.
fn instructions_source(
    setting: Option<Spanned<InstructionsSetting>>,
    at: At,
) -> Result<InstructionsSource, MendError> {
    Ok(match setting {
        None => InstructionsSource::Default,
        Some(setting) => match setting.get_ref() {
            InstructionsSetting::On(true) => InstructionsSource::Default,
            InstructionsSetting::On(false) => InstructionsSource::Off,
            InstructionsSetting::File(name) => instructions::source_file(name)
                .map_err(|error| at(Some(setting.span()), &error.to_string()))?,
        },
    })
}

/// Where a message about the task file points: a span of it, when there is one.
/// A problem of the task file `origin`, at the line of `span` in its `text`.
fn located(origin: &Utf8Path, text: &str, span: Option<Range<usize>>, message: &str) -> MendError {
    let line = span.map_or(String::new(), |span| {
        format!(
            ":{}",
            1 + text[..span.start.min(text.len())].matches('\n').count()
        )
    });
    MendError::usage(format!("{origin}{line}: {message} (see docs/task-file.md)"))
}

/// `copy.exclude`, else the default exclusions.
fn exclusion(
    exclude: Option<Vec<Spanned<String>>>,
    share: Option<Vec<Spanned<String>>>,
    at: At,
) -> Result<Exclusion, MendError> {
    let globs =
        |field: &str,
         globs: Vec<Spanned<String>>,
         apply: &dyn Fn(Vec<String>) -> Result<Exclusion, (usize, String)>| {
            let spans: Vec<Range<usize>> = globs.iter().map(Spanned::span).collect();
            apply(globs.into_iter().map(Spanned::into_inner).collect()).map_err(
                |(index, message)| at(spans.get(index).cloned(), &format!("{field}: {message}")),
            )
        };
    let exclude = match exclude {
        None => Exclusion::defaults(),
        Some(list) => globs("copy.exclude", list, &|patterns| {
            Exclusion::defaults().excluding(patterns)
        })?,
    };
    match share {
        None => Ok(exclude),
        Some(list) => globs("copy.share", list, &|patterns| {
            exclude.clone().sharing(patterns)
        }),
    }
}

/// `test.held_out`: files left out of the attempt's copy.
fn held_out_globs(
    exclude: Exclusion,
    globs: Vec<Spanned<String>>,
    at: At,
) -> Result<Exclusion, MendError> {
    let spans: Vec<Range<usize>> = globs.iter().map(Spanned::span).collect();
    exclude
        .holding_out(globs.into_iter().map(Spanned::into_inner).collect())
        .map_err(|(index, message)| {
            at(
                spans.get(index).cloned(),
                &format!("test.held_out: {message}"),
            )
        })
}

/// `model.num_ctx`: at least the smallest window the core works in.
fn num_ctx(tokens: Option<Spanned<u32>>, at: At) -> Result<Option<u32>, MendError> {
    match tokens {
        Some(tokens) if *tokens.get_ref() < mend_core::MIN_WINDOW_TOKENS => Err(at(
            Some(tokens.span()),
            &format!(
                "model.num_ctx: must be at least {} tokens",
                mend_core::MIN_WINDOW_TOKENS
            ),
        )),
        tokens => Ok(tokens.map(Spanned::into_inner)),
    }
}

/// How the test command's result is read: `test.report`, with the file `test.junit_path`
/// names exactly when the report is JUnit's.
fn report(
    kind: ReportKind,
    junit_path: Option<Spanned<String>>,
    command_span: Range<usize>,
    at: At,
) -> Result<TestReport, MendError> {
    Ok(match (kind, junit_path) {
        (ReportKind::Junit, None) => {
            return Err(at(
                Some(command_span),
                "test.junit_path: name the JUnit XML file the test command writes (e.g. \"junit.xml\") when test.report = \"junit\"",
            ))
        }
        (ReportKind::Junit, Some(path)) => {
            let normal = paths::normalize(path.get_ref()).map_err(|_| {
                at(
                    Some(path.span()),
                    &format!(
                        "test.junit_path: `{}` must be a file inside the repository, relative, without `..`",
                        path.get_ref()
                    ),
                )
            })?;
            TestReport::Junit { path: normal }
        }
        (_, Some(path)) => {
            return Err(at(
                Some(path.span()),
                "test.junit_path: is read only with test.report = \"junit\"",
            ))
        }
        (ReportKind::Pytest, None) => TestReport::Pytest,
        (ReportKind::ExitCode, None) => TestReport::ExitCode,
        (ReportKind::Django, None) => TestReport::Output(OutputReader::Django),
        (ReportKind::Sympy, None) => TestReport::Output(OutputReader::Sympy),
        (ReportKind::PytestRa, None) => TestReport::Output(OutputReader::PytestRa),
        (ReportKind::Libtest, None) => TestReport::Output(OutputReader::Libtest),
    })
}

/// `tools.enabled`: known tools, each once, at least one, in the order given.
fn tools(enabled: Spanned<Vec<Spanned<String>>>, at: At) -> Result<Vec<ToolName>, MendError> {
    let tools_span = enabled.span();
    let mut tools = Vec::new();
    for name in enabled.into_inner() {
        let span = name.span();
        let tool = ToolName::named(name.get_ref()).ok_or_else(|| {
            at(
                Some(span.clone()),
                &format!(
                    "tools.enabled: unknown tool `{}`; mend has {}",
                    name.get_ref(),
                    ToolName::listed()
                ),
            )
        })?;
        if tools.contains(&tool) {
            return Err(at(
                Some(span),
                &format!("tools.enabled: `{}` is listed twice", name.get_ref()),
            ));
        }
        tools.push(tool);
    }
    if tools.is_empty() {
        return Err(at(
            Some(tools_span),
            "tools.enabled: name at least one tool",
        ));
    }
    Ok(tools)
}

/// The `shell` tool's limits: the task file's, else the defaults.
fn shell_limits(raw: &file::ShellTable, at: At) -> Result<ShellLimits, MendError> {
    Ok(ShellLimits {
        timeout: match &raw.timeout_seconds {
            Some(seconds) => positive_seconds(seconds, "shell.timeout_seconds")
                .map_err(|error| at(Some(seconds.span()), &error.to_string()))?,
            None => defaults::SHELL_TIMEOUT,
        },
        output_chars: match &raw.output_chars {
            Some(chars) if *chars.get_ref() == 0 => {
                return Err(at(
                    Some(chars.span()),
                    "shell.output_chars: must be at least 1",
                ))
            }
            Some(chars) => *chars.get_ref(),
            None => SHELL_OUTPUT_CHARS_DEFAULT,
        },
    })
}

/// `model.max_turns`, at least 1.
fn max_turns(turns: Option<Spanned<u32>>, at: At) -> Result<Option<u32>, MendError> {
    Ok(match turns {
        Some(turns) if *turns.get_ref() == 0 => {
            return Err(at(
                Some(turns.span()),
                "model.max_turns: must be at least 1",
            ))
        }
        turns => turns.map(Spanned::into_inner),
    })
}

/// Checks every item of a list field; the first bad one is named with its line.
fn each_checked<T>(
    items: Vec<Spanned<String>>,
    check: fn(&str) -> Result<T, FieldError>,
    at: &dyn Fn(Option<Range<usize>>, &str) -> MendError,
) -> Result<Vec<T>, MendError> {
    items
        .into_iter()
        .map(|item| {
            check(item.get_ref()).map_err(|error| at(Some(item.span()), &error.to_string()))
        })
        .collect()
}

fn positive_seconds(seconds: &Spanned<u64>, field: &'static str) -> Result<Duration, FieldError> {
    match *seconds.get_ref() {
        0 => Err(FieldError::new(field, "must be at least 1")),
        seconds => Ok(Duration::from_secs(seconds)),
    }
}

/// toml names an unknown key in its message, but not the key whose value has the wrong type;
/// the key on the error's line and the table above it do, so they are named: `(in test.command)`.
fn field_of(text: &str, span: Option<Range<usize>>) -> String {
    let Some(span) = span else {
        return String::new();
    };
    let before = &text[..span.start.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let Some((key, _)) = line.split_once('=').filter(|_| !line.starts_with('[')) else {
        return String::new();
    };
    let table = before[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| line.starts_with('['))
        .map(|header| header.trim_matches(['[', ']']).trim());
    match table {
        Some(table) => format!(" (in {table}.{})", key.trim()),
        None => format!(" (in {})", key.trim()),
    }
}
