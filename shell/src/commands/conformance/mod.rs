//! `mend conformance DIR`: every recorded response in `DIR/ollama` and `DIR/openai` fed through mend's
//! decoder and session, and judged against what the server meant (docs/design.md, "The wire").
//!
//! The judgement comes from an independent reading of the same bytes with plain
//! `serde_json::Value`: the joined `content` and `thinking`, every element of every
//! `tool_calls` array, the last `done_reason`, and for error bodies the `error` text. The session
//! must agree on all of it. The session is driven as every session is, by the one driver
//! ([`crate::attempt::driver`]), the capture served as the server's response.

mod capture;
mod error;
mod meaning;

use std::fs;

use camino::{Utf8Path, Utf8PathBuf};
use mend_core::{Config, Protocol, Session, StopReason, ToolSpec, Window};

use crate::attempt::driver::drive;
use crate::error::{exit, MendError};
use crate::exec::runner::TestRunner;
use crate::exec::sandbox::Sandbox;
use crate::task::Task;
use crate::tools::ToolContext;
use capture::{CaptureSource, Heard};
use error::CaptureError;
use meaning::{error_meaning, sse_meaning, stream_meaning, Meaning};

/// The window the captures are read in: the most `mend run` assumes without a task file's.
const CAPTURE_WINDOW: u32 = 16384;

/// The capture folders and the protocol of their streams.
const FOLDERS: [(&str, &str, Protocol); 2] = [
    ("ollama", "ndjson", Protocol::OllamaNdjson),
    ("openai", "sse", Protocol::OpenaiSse),
];

/// `mend conformance DIR`: feeds every recorded response under `DIR` through mend's decoder and session and checks what they made of it; non-zero exit on any disagreement.
pub fn conformance(dir: &Utf8Path) -> Result<u8, MendError> {
    let mut files: Vec<(Utf8PathBuf, Protocol)> = Vec::new();
    for (name, extension, protocol) in FOLDERS {
        let folder = dir.join(name);
        if !folder.is_dir() {
            continue;
        }
        let entries = folder.read_dir_utf8().map_err(|err| {
            MendError::usage(format!(
                "cannot read the captures in {folder}: {err} (set CAPTURES=DIR)"
            ))
        })?;
        let mut found: Vec<Utf8PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path().to_owned())
            .filter(|path| path.extension() == Some(extension) || is_error_body(path))
            .collect();
        found.sort();
        files.extend(found.into_iter().map(|path| (path, protocol)));
    }
    if files.is_empty() {
        return Err(MendError::usage(format!(
            "no captures in {dir}/ollama or {dir}/openai (set CAPTURES=DIR)"
        )));
    }
    let bench = Bench::new()?;
    let mut failures = 0;
    for (path, protocol) in &files {
        let name = path.strip_prefix(dir).unwrap_or(path);
        let bytes = fs::read(path)
            .map_err(|err| MendError::harness(format!("cannot read {path}: {err}")))?;
        let (verdict, summary) = match check(&bench, (path, *protocol), &bytes) {
            Ok(summary) => ("ok  ", summary),
            Err(problem) => {
                failures += 1;
                ("FAIL", problem.to_string())
            }
        };
        println!("{verdict} {name}: {summary}");
    }
    println!(
        "{} captures, {} as the server meant, {failures} not",
        files.len(),
        files.len() - failures
    );
    Ok(if failures == 0 && !files.is_empty() {
        exit::PASS
    } else {
        exit::TESTS_FAIL
    })
}

/// Error bodies are `.json` files that are not request bodies (README of the captures).
fn is_error_body(path: &Utf8Path) -> bool {
    path.extension() == Some("json") && !path.as_str().ends_with(".request.json")
}

/// The bench every capture's calls go to: a task whose one tool reads nothing (no path is
/// readable), so each dispatched call is answered as refused without anything being read,
/// written or run, and a runner that never runs. The capture is judged on what arrives, not on
/// what its calls would do.
struct Bench {
    task: Task,
    runner: TestRunner,
}

impl Bench {
    fn new() -> Result<Bench, MendError> {
        let task = Task::parse(Utf8Path::new("conformance"), BENCH_TASK)?;
        let runner = TestRunner::new("python3".into(), Sandbox::Unsandboxed);
        Ok(Bench { task, runner })
    }
}

/// The task of the bench: nothing readable or editable, `read_file` alone (a task offers at least
/// one tool), a test command never run.
const BENCH_TASK: &str = "[paths]\nreadable = []\neditable = []\n\
[test]\ncommand = [\"true\"]\ntimeout_seconds = 1\nfiles = []\n\
[tools]\nenabled = [\"read_file\"]\n";

/// One capture: what it means, what mend makes of it, and the line that says so.
fn check(
    bench: &Bench,
    (path, protocol): (&Utf8Path, Protocol),
    bytes: &[u8],
) -> Result<String, CaptureError> {
    let meant = match (is_error_body(path), protocol) {
        (true, _) => error_meaning(bytes)?,
        (false, Protocol::OllamaNdjson) => stream_meaning(bytes)?,
        (false, _) => sse_meaning(bytes)?,
    };
    let got = through_mend(bench, (path, protocol), bytes, &meant)?;
    let summary = format!(
        "content {} chars, thinking {} chars, calls [{}], stop {}",
        got.content.chars().count(),
        got.thinking.chars().count(),
        got.calls.join(", "),
        got.stop
    );
    if got == meant {
        Ok(summary)
    } else {
        Err(CaptureError::Differs {
            summary,
            got: format!("{got:?}"),
            meant: format!("{meant:?}"),
        })
    }
}

/// Drives a session that offers every tool the capture calls (accepting any arguments) through
/// the one driver, the capture served as its response, and reads back what the session streamed,
/// ran and assembled.
fn through_mend(
    bench: &Bench,
    (path, protocol): (&Utf8Path, Protocol),
    bytes: &[u8],
    meant: &Meaning,
) -> Result<Meaning, CaptureError> {
    let mut config = Config {
        max_turns: 1,
        protocol,
        // The window `mend run` keeps by default: each capture's count is judged against it.
        window: Some(Window::new(CAPTURE_WINDOW)),
        ..Config::new("capture", "system", "task", tools_named(&meant.calls))
    };
    config.options.num_ctx = CAPTURE_WINDOW;
    let session = Session::new(config).map_err(CaptureError::Refused)?;
    let mut source = CaptureSource {
        bytes: bytes.to_vec(),
        error_body: is_error_body(path),
    };
    let mut heard = Heard::default();
    // Nothing is readable or editable, so the folder of the capture is never read or written.
    let root = path.parent().unwrap_or(Utf8Path::new("."));
    let tools = ToolContext::new(root, &bench.task, &bench.runner);
    let (transcript, session) =
        drive(tools, &mut source, &mut heard, session).map_err(CaptureError::Driver)?;
    let stop = transcript.stop;
    let mut streamed = Meaning {
        content: heard.content,
        thinking: heard.thinking,
        calls: heard.calls,
        ..Meaning::unfinished()
    };
    streamed.stop = stop.reason;
    same_as_assembled(&session, &streamed)?;
    if matches!(
        stop.reason,
        StopReason::ModelError | StopReason::ContextExceeded
    ) {
        // The stop must end with the server's own words.
        let detail = stop.detail.unwrap_or_default();
        streamed.error = match &meant.error {
            Some(message) if detail.ends_with(message.as_str()) => Some(message.clone()),
            _ => Some(detail),
        };
    }
    Ok(streamed)
}

/// A schema for each tool the capture calls, taking any arguments: the capture's calls are
/// checked for arriving whole, not for their arguments.
fn tools_named(names: &[String]) -> Vec<ToolSpec> {
    let mut tools: Vec<ToolSpec> = Vec::new();
    for name in names {
        if !tools.iter().any(|tool| tool.name() == name) {
            let mut spec = ToolSpec::function(name, "a tool of the capture", &[], &[]);
            spec.function.parameters.additional_properties = None;
            tools.push(spec);
        }
    }
    tools
}

/// A completed turn's assembled message must say exactly what was streamed and dispatched.
fn same_as_assembled(session: &Session, streamed: &Meaning) -> Result<(), CaptureError> {
    let Some(assistant) = session.conversation().get(2) else {
        return Ok(());
    };
    let assembled_calls: Vec<String> = assistant
        .tool_calls
        .iter()
        .map(|call| call.function.name.clone())
        .collect();
    let assembled = (
        assistant.content.as_str(),
        assistant.thinking.as_deref().unwrap_or(""),
        &assembled_calls,
    );
    let seen = (
        streamed.content.as_str(),
        streamed.thinking.as_str(),
        &streamed.calls,
    );
    if assembled != seen {
        return Err(CaptureError::Assembled(format!("{assistant:?}")));
    }
    Ok(())
}
