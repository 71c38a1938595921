//! The record shapes older mends wrote — a run (`mend-record/1`) and a chat (`mend-chat/1`) —
//! read into today's one shape, so that every record ever written still loads, shows, applies
//! and replays. Nothing writes them any more.

use std::collections::BTreeMap;

use mend_core::Stop;
use serde::Deserialize;

use crate::record::format::{Record, RECORD_FORMAT};
use crate::record::message::Message;
use crate::record::metrics::RunMetrics;
use crate::record::settings::SessionSettings;
use crate::record::turn::{RecordedCall, RecordedTurn};
use crate::verdict::grade::checks::Checks;
use crate::verdict::grade::ending::Ending;

/// `mend run`'s record before runs and chats shared one format.
pub(crate) const RUN_FORMAT_1: &str = "mend-record/1";
/// `mend chat`'s record before runs and chats shared one format.
pub(crate) const CHAT_FORMAT_1: &str = "mend-chat/1";

#[derive(Deserialize)]
pub struct RunRecord1 {
    #[serde(default)]
    description: Option<String>,
    #[serde(flatten)]
    settings: SessionSettings,
    task: String,
    turns: Vec<RecordedTurn>,
    tool_calls: Vec<RecordedCall>,
    stop: Stop,
    #[serde(flatten)]
    checks: Checks,
    #[serde(default)]
    file_sha256_before: BTreeMap<String, String>,
    #[serde(default)]
    metrics: Option<RunMetrics>,
}

#[derive(Deserialize)]
pub struct ChatRecord1 {
    #[serde(flatten)]
    settings: SessionSettings,
    test_file_sha256_before: String,
    source_sha256_before: String,
    messages: Vec<ChatMessage1>,
    #[serde(default)]
    ending: Option<Ending>,
}

#[derive(Deserialize)]
struct ChatMessage1 {
    text: String,
    turns: Vec<RecordedTurn>,
    tool_calls: Vec<RecordedCall>,
    stop: Stop,
}

impl From<RunRecord1> for Record {
    /// A run is a conversation of one message, with the tests before it.
    fn from(run: RunRecord1) -> Record {
        let checks = run.checks;
        Record {
            format: RECORD_FORMAT.to_owned(),
            description: run.description,
            settings: run.settings,
            messages: vec![Message {
                text: Some(run.task),
                max_turns: None,
                deadline_ms: None,
                turns: run.turns,
                tool_calls: run.tool_calls,
                stop: run.stop,
                stop_hooks: Vec::new(),
            }],
            test_file_sha256_before: checks.test_file_sha256_before,
            source_sha256_before: checks.source_sha256_before,
            tests_before: Some(checks.tests_before),
            ending: Some(checks.after),
            file_sha256_before: run.file_sha256_before,
            metrics: run.metrics,
            resumed_from: None,
            commands: Vec::new(),
            harness_error: None,
        }
    }
}

impl From<ChatRecord1> for Record {
    fn from(chat: ChatRecord1) -> Record {
        Record {
            format: RECORD_FORMAT.to_owned(),
            description: None,
            settings: chat.settings,
            messages: chat
                .messages
                .into_iter()
                .map(|message| Message {
                    text: Some(message.text),
                    max_turns: None,
                    deadline_ms: None,
                    turns: message.turns,
                    tool_calls: message.tool_calls,
                    stop: message.stop,
                    stop_hooks: Vec::new(),
                })
                .collect(),
            test_file_sha256_before: chat.test_file_sha256_before,
            source_sha256_before: chat.source_sha256_before,
            tests_before: None,
            ending: chat.ending,
            file_sha256_before: BTreeMap::new(),
            metrics: None,
            resumed_from: None,
            commands: Vec::new(),
            harness_error: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use mend_core::{ModelOptions, Stop, StopReason};
    use serde_json::json;

    use crate::record::{Message, Record, SessionSettings, RECORD_FORMAT};
    use crate::verdict::check::TestRun;
    use crate::verdict::grade::ending::Ending;

    fn settings() -> serde_json::Value {
        json!({"provider": "ollama", "model": "m", "max_turns": 3, "think": false, "keep_alive": 0,
               "options": {"temperature": 0.0, "seed": 7, "num_ctx": 8192, "num_predict": 2048},
               "system_prompt": "s"})
    }

    fn with(extra: serde_json::Value) -> String {
        let mut value = settings();
        value
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        value.to_string()
    }

    fn stop(reason: StopReason) -> Stop {
        Stop {
            reason,
            detail: None,
            cause: None,
        }
    }

    fn message(text: &str, reason: StopReason) -> Message {
        Message {
            text: Some(text.to_owned()),
            max_turns: None,
            deadline_ms: None,
            turns: Vec::new(),
            tool_calls: Vec::new(),
            stop: stop(reason),
            stop_hooks: Vec::new(),
        }
    }

    fn tests(exit_code: i32) -> TestRun {
        TestRun {
            exit_code: Some(exit_code),
            duration_ms: 5,
            ..TestRun::default()
        }
    }

    fn expected(messages: Vec<Message>, tests_before: Option<TestRun>) -> Record {
        Record {
            format: RECORD_FORMAT.to_owned(),
            description: None,
            settings: SessionSettings {
                protocol: mend_core::Protocol::OllamaNdjson,
                model: "m".to_owned(),
                model_digest: None,
                server_version: None,
                sandbox: None,
                repo: None,
                python: None,
                sandbox_choice: None,
                image: None,
                max_turns: 3,
                deadline_ms: None,
                token_budget: None,
                think: mend_core::Think::Off,
                keep_alive: 0,
                options: ModelOptions::default(),
                system_prompt: "s".to_owned(),
                instructions: None,
                text_tool_calls: false,
                text_call_family: None,
                schema_field: mend_core::SchemaField::ResponseFormat,
                context: None,
                window: None,
                model_length: None,
            },
            messages,
            test_file_sha256_before: "aa".to_owned(),
            source_sha256_before: "bb".to_owned(),
            tests_before,
            ending: Some(Ending {
                tests_after: tests(0),
                test_file_sha256_after: "aa".to_owned(),
                source_sha256_after: "cc".to_owned(),
                diff: "d".to_owned(),
                contract: None,
                written_by_tests: Vec::new(),
                protected_written_by_tests: Vec::new(),
                given: None,
                held_out: Vec::new(),
                history: None,
                python_reaches: None,
            }),
            file_sha256_before: BTreeMap::new(),
            metrics: None,
            resumed_from: None,
            commands: Vec::new(),
            harness_error: None,
        }
    }

    #[test]
    fn a_first_format_run_is_a_conversation_of_one_message() {
        let run = with(json!({
            "format": "mend-record/1", "task": "fix it", "turns": [], "tool_calls": [],
            "stop": {"reason": "max_turns"},
            "tests_before": {"exit_code": 1, "duration_ms": 5},
            "tests_after": {"exit_code": 0, "duration_ms": 5},
            "test_file_sha256_before": "aa", "test_file_sha256_after": "aa",
            "source_sha256_before": "bb", "source_sha256_after": "cc", "diff": "d"
        }));
        assert_eq!(
            Record::parse(&run).map_err(|err| err.to_string()),
            Ok(expected(
                vec![message("fix it", StopReason::MaxTurns)],
                Some(tests(1))
            ))
        );
    }

    #[test]
    fn a_first_format_chat_keeps_its_messages_and_has_no_tests_before() {
        let chat = with(json!({
            "format": "mend-chat/1",
            "test_file_sha256_before": "aa", "source_sha256_before": "bb",
            "messages": [
                {"text": "look", "turns": [], "tool_calls": [], "stop": {"reason": "assistant_finished"}},
                {"text": "fix", "turns": [], "tool_calls": [], "stop": {"reason": "cancelled"}}
            ],
            "ending": {"tests_after": {"exit_code": 0, "duration_ms": 5},
                       "test_file_sha256_after": "aa", "source_sha256_after": "cc", "diff": "d"}
        }));
        let record = expected(
            vec![
                message("look", StopReason::AssistantFinished),
                message("fix", StopReason::Cancelled),
            ],
            None,
        );
        assert_eq!(
            Record::parse(&chat).map_err(|err| err.to_string()),
            Ok(record.clone())
        );
        // What is written today reads back as it was.
        assert_eq!(
            Record::parse(&serde_json::to_string(&record).unwrap()).map_err(|err| err.to_string()),
            Ok(record)
        );
        assert_eq!(
            Record::parse(r#"{"format": "mend-record/9"}"#).map_err(|err| err.to_string()),
            Err("has format `mend-record/9`; this mend reads `mend-record/2`, `mend-record/1` and `mend-chat/1`".to_owned())
        );
    }

    /// Reasons are typed in memory and sentences on disk: an older record's sentences load as
    /// they were written and are written back unchanged, and a typed reason is written as the
    /// sentence older versions wrote.
    #[test]
    fn a_runs_reasons_load_from_older_records_and_are_written_as_they_were() {
        use crate::verdict::read::note::Note;
        use crate::verdict::trust::untrusted::Untrusted;
        let older_after = json!({"exit_code": 0, "duration_ms": 5,
            "note": "pytest collected no tests (exit 5)",
            "not_trusted": "the tests stopped before reporting: exit 0 with no pytest report"});
        let run = with(json!({
            "format": "mend-record/1", "task": "fix it", "turns": [], "tool_calls": [],
            "stop": {"reason": "max_turns"},
            "tests_before": {"exit_code": 1, "duration_ms": 5},
            "tests_after": older_after,
            "test_file_sha256_before": "aa", "test_file_sha256_after": "aa",
            "source_sha256_before": "bb", "source_sha256_after": "cc", "diff": "d"
        }));
        let loaded = Record::parse(&run).unwrap().ending.unwrap().tests_after;
        assert_eq!(
            loaded,
            TestRun {
                note: Some(Note::Recorded(
                    "pytest collected no tests (exit 5)".to_owned()
                )),
                not_trusted: Some(Untrusted::Recorded(
                    "the tests stopped before reporting: exit 0 with no pytest report".to_owned()
                )),
                ..tests(0)
            }
        );
        assert_eq!(serde_json::to_value(&loaded).unwrap(), older_after);
        let typed = TestRun {
            note: Some(Note::NoTestsCollected),
            not_trusted: Some(Untrusted::NoReport {
                exit: Some(0),
                owed: crate::verdict::trust::untrusted::OwedReport::Pytest,
            }),
            ..tests(0)
        };
        assert_eq!(serde_json::to_value(&typed).unwrap(), older_after);
    }
}
