//! mend-core under tokio: a whole session against the shell tests' loopback server, with tools
//! answered from an in-memory table, the deadline from `next_deadline()` as a `tokio::time`
//! sleep, and cancellation by a signal (or by dropping the future: it owns everything it opened).
//! The transcript must be the one the blocking shell's driver produces for the same stream.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
#![allow(clippy::too_many_lines)] // the 80-line rule is for code; a scenario reads top to bottom

#[path = "../../../shell/tests/common/server.rs"]
#[allow(dead_code)]
mod server;

mod driver;
mod fixtures;

use std::future::Future;
use std::time::Duration;

use driver::{drive, Server, Transcript};
use fixtures::*;
use mend_core::{Config, Event, Millis, Stop, StopCause, StopReason, TransportError};
use serde_json::{json, Value};
use server::{Ending, Reply, Script};

#[test]
fn the_tokio_driver_produces_the_blocking_drivers_transcript() {
    let blocking_server = server_for(&repair_stream());
    let (blocking, repaired_on_disk) = blocking_transcript(&blocking_server.base);

    let tokio_server = server_for(&repair_stream());
    let task = mend::task::Task::locate(
        camino::Utf8Path::new(repo_root().join("sample-repo").to_str().unwrap()),
        None,
    )
    .unwrap();
    let session = started(sample_config(&task));
    let mut files = sample_files();
    let never = std::future::pending::<()>();
    let tokio = runtime().block_on(drive(
        session,
        Server {
            base: &tokio_server.base,
            api_key: None,
        },
        &mut files,
        never,
    ));

    assert_eq!(tokio, blocking);
    assert_eq!(
        tokio_server.chat_bodies(),
        blocking_server.chat_bodies(),
        "the same requests"
    );
    assert_eq!(
        files.0["path_rules.py"], repaired_on_disk,
        "the same repair"
    );
    let stop = Stop {
        reason: StopReason::AssistantFinished,
        detail: None,
        cause: None,
    };
    let tools: Vec<(String, Value)> = tokio
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ToolResult { name, status, .. } => Some((name.clone(), json!(status))),
            _ => None,
        })
        .collect();
    assert_eq!(
        (tokio.stop, tools),
        (
            stop,
            vec![
                ("read_file".to_owned(), json!("ok")),
                ("read_file".to_owned(), json!("ok")),
                ("replace_text".to_owned(), json!("ok")),
                ("delete_tests".to_owned(), json!("refused")),
            ]
        )
    );
}

/// A session of `config` driven under tokio over the sample's files, against a server that
/// answers its first request with `reply`; `cancel` resolving is the user's interrupt.
fn drive_against(reply: Reply, config: Config, cancel: impl Future<Output = ()>) -> Transcript {
    let server = server::Server::start(Script {
        models: vec![],
        chats: vec![reply],
    });
    let session = started(config);
    runtime().block_on(drive(
        session,
        Server {
            base: &server.base,
            api_key: None,
        },
        &mut sample_files(),
        cancel,
    ))
}

/// A server that sends one line and then goes silent: `next_deadline()` becomes a tokio sleep.
#[test]
fn the_deadline_is_a_tokio_sleep() {
    let stalled = Reply::Stream {
        writes: vec![(
            Duration::ZERO,
            format!(
                "{}\n",
                chunk(json!({"role": "assistant", "content": "Thinking"}), false)
            )
            .into_bytes(),
        )],
        ending: Ending::Stall(Duration::from_secs(20)),
    };
    let config = Config {
        deadline: Some(Millis(300)),
        ..Config::new("m", "s", "t", vec![])
    };
    let started_at = std::time::Instant::now();
    let transcript = drive_against(stalled, config, std::future::pending());
    let stop = Stop {
        reason: StopReason::DeadlineExceeded,
        detail: Some("the run passed its deadline at 300 ms".to_owned()),
        cause: None,
    };
    let events = vec![
        Event::ModelStart { turn: 1 },
        Event::TextDelta {
            turn: 1,
            text: "Thinking".to_owned(),
        },
        Event::Stopped(stop.clone()),
    ];
    assert_eq!(transcript, Transcript { events, stop });
    assert!(
        started_at.elapsed() < Duration::from_secs(10),
        "it did not wait for the stalled server"
    );
}

/// A cancel signal (here a oneshot, in a program `tokio::signal::ctrl_c()`) stops the session
/// with `cancelled` while the server is silent.
#[test]
fn a_cancel_signal_stops_the_session() {
    let stalled = Reply::Stream {
        writes: vec![],
        ending: Ending::Stall(Duration::from_secs(20)),
    };
    let (interrupt, interrupted) = tokio::sync::oneshot::channel::<()>();
    let cancel = async {
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            interrupt.send(()).unwrap();
        });
        interrupted.await.unwrap();
    };
    let transcript = drive_against(stalled, Config::new("m", "s", "t", vec![]), cancel);
    let stop = Stop {
        reason: StopReason::Cancelled,
        detail: None,
        cause: None,
    };
    assert_eq!(
        transcript,
        Transcript {
            events: vec![Event::ModelStart { turn: 1 }, Event::Stopped(stop.clone())],
            stop
        }
    );
}

/// An HTTP error status becomes `TransportFailed` with the server's message.
#[test]
fn an_http_error_is_a_model_error() {
    let refused = Reply::Status {
        code: 404,
        body: r#"{"error":"model \"m\" not found"}"#.to_owned(),
    };
    let transcript = drive_against(
        refused,
        Config::new("m", "s", "t", vec![]),
        std::future::pending(),
    );
    let stop = Stop {
        reason: StopReason::ModelError,
        detail: Some("HTTP 404: model \"m\" not found".to_owned()),
        cause: Some(StopCause::Transport(TransportError::Http {
            status: 404,
            body: r#"{"error":"model \"m\" not found"}"#.to_owned(),
        })),
    };
    assert_eq!(transcript.stop, stop);
}
