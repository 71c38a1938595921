//! A run's record as one OTLP trace: `invoke_agent` over the whole run, a `chat` span per model
//! turn, an `execute_tool` span per call, and `mend.verdict` with the contract's counts, named
//! and attributed as the GenAI semantic conventions say (`gen_ai.*`; mend's own as `mend.*`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mend_core::ToolStatus;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};
use serde_json::json;

use crate::page::conversation::decode;
use crate::record::{Record, RecordedCall, RecordedTurn};
use crate::telemetry::attributes::{flag, int, text, texts};

/// When the run started, when its loop started (the origin of the record's `started_ms`), and
/// when it ended.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// When the command started.
    pub run_start: SystemTime,
    /// When the model loop started: the origin of the record's `started_ms`.
    pub loop_start: SystemTime,
    /// When the command ended.
    pub run_end: SystemTime,
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).into()
}

fn nanos(at: SystemTime) -> u64 {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
}

/// The spans of one trace, each with an id derived from the trace's and its place.
struct Trace {
    trace_id: Vec<u8>,
    spans: Vec<Span>,
    root: Vec<u8>,
}

impl Trace {
    fn span_id(&self, place: usize) -> Vec<u8> {
        let mut seed = self.trace_id.clone();
        seed.extend_from_slice(&place.to_be_bytes());
        digest(&seed)[..8].to_vec()
    }

    fn push(
        &mut self,
        name: String,
        kind: SpanKind,
        (start, end): (SystemTime, SystemTime),
        attributes: Vec<KeyValue>,
        failed: bool,
    ) {
        let span_id = self.span_id(self.spans.len());
        let parent_span_id = if self.spans.is_empty() {
            Vec::new()
        } else {
            self.root.clone()
        };
        if self.spans.is_empty() {
            self.root = span_id.clone();
        }
        self.spans.push(Span {
            trace_id: self.trace_id.clone(),
            span_id,
            parent_span_id,
            name,
            kind: kind as i32,
            start_time_unix_nano: nanos(start),
            end_time_unix_nano: nanos(end.max(start)),
            attributes,
            status: failed.then(|| Status {
                code: StatusCode::Error as i32,
                ..Status::default()
            }),
            ..Span::default()
        });
    }
}

/// The export request holding the trace of `record`.
pub fn export_request(
    record: &Record,
    timing: &Timing,
    include_content: bool,
) -> ExportTraceServiceRequest {
    let seed = format!(
        "{}{}{}",
        nanos(timing.run_start),
        std::process::id(),
        record.settings.model
    );
    let mut trace = Trace {
        trace_id: digest(seed.as_bytes())[..16].to_vec(),
        spans: Vec::new(),
        root: Vec::new(),
    };
    trace.push(
        "invoke_agent mend".to_owned(),
        SpanKind::Internal,
        (timing.run_start, timing.run_end),
        agent_attributes(record, include_content),
        false,
    );
    push_sessions(&mut trace, record, timing, include_content);
    if let Some((attributes, took, passed)) = verdict_attributes(record) {
        let start = timing.run_end.checked_sub(took).unwrap_or(timing.run_end);
        trace.push(
            "mend.verdict".to_owned(),
            SpanKind::Internal,
            (start, timing.run_end),
            attributes,
            !passed,
        );
    }
    request_of(trace.spans)
}

fn agent_attributes(record: &Record, include_content: bool) -> Vec<KeyValue> {
    let settings = &record.settings;
    let protocol = serde_json::to_value(settings.protocol)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default();
    let metrics = record.metrics.clone().unwrap_or_default();
    let mut attributes = vec![
        text("gen_ai.operation.name", "invoke_agent"),
        text("gen_ai.agent.name", "mend"),
        text("gen_ai.provider.name", &protocol),
        text("gen_ai.request.model", &settings.model),
        int("gen_ai.usage.input_tokens", metrics.prompt_tokens),
        int("gen_ai.usage.output_tokens", metrics.eval_tokens),
    ];
    if let Some(stop) = record.last_stop() {
        attributes.push(text("mend.stop_reason", &stop.reason.to_string()));
    }
    if include_content {
        attributes.push(text("gen_ai.system_instructions", &settings.system_prompt));
        let asked: Vec<String> = record
            .messages
            .iter()
            .filter_map(|message| message.text.clone())
            .collect();
        attributes.push(texts("mend.user_messages", &asked));
    }
    attributes
}

/// A span per turn and per call of every message. Each message's times count from its own
/// loop's start; the record keeps only the first's, so a later message is laid after the end of
/// the one before.
fn push_sessions(trace: &mut Trace, record: &Record, timing: &Timing, include_content: bool) {
    let mut offset = Duration::ZERO;
    for message in &record.messages {
        let at = |started_ms: Option<u64>| {
            timing.loop_start + offset + Duration::from_millis(started_ms.unwrap_or(0))
        };
        let mut last_end = Duration::ZERO;
        for turn in &message.turns {
            let (start, took) = (turn.started_ms, turn.duration_ms.unwrap_or(0));
            last_end = last_end.max(Duration::from_millis(start.unwrap_or(0) + took));
            trace.push(
                format!("chat {}", record.settings.model),
                SpanKind::Client,
                (at(start), at(start) + Duration::from_millis(took)),
                chat_attributes(record, turn, include_content),
                false,
            );
        }
        for call in &message.tool_calls {
            let (start, took) = (call.started_ms, call.duration_ms);
            last_end = last_end.max(Duration::from_millis(start.unwrap_or(0) + took));
            trace.push(
                format!("execute_tool {}", call.name),
                SpanKind::Internal,
                (at(start), at(start) + Duration::from_millis(took)),
                tool_attributes(call, include_content),
                call.status != ToolStatus::Ok,
            );
        }
        offset += last_end;
    }
}

fn request_of(spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![
                    text("service.name", "mend"),
                    text("service.version", env!("CARGO_PKG_VERSION")),
                ],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "mend".to_owned(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    ..InstrumentationScope::default()
                }),
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}

fn chat_attributes(record: &Record, turn: &RecordedTurn, include_content: bool) -> Vec<KeyValue> {
    let content = decode(record.settings.protocol, turn);
    let usage = turn
        .usage
        .clone()
        .or_else(|| {
            content
                .metrics
                .as_ref()
                .map(|metrics| crate::record::usage::TurnUsage::of(metrics, None))
        })
        .unwrap_or_default();
    let mut attributes = vec![
        text("gen_ai.operation.name", "chat"),
        text("gen_ai.request.model", &record.settings.model),
        int(
            "gen_ai.usage.input_tokens",
            usage.prompt_tokens.unwrap_or(0),
        ),
        int(
            "gen_ai.usage.output_tokens",
            usage.output_tokens.unwrap_or(0),
        ),
        int("mend.turn", u64::from(turn.turn)),
    ];
    if let Some(reason) = &content.done_reason {
        attributes.push(texts(
            "gen_ai.response.finish_reasons",
            std::slice::from_ref(reason),
        ));
    }
    if include_content {
        let mut parts = Vec::new();
        if !content.thinking.is_empty() {
            parts.push(json!({"type": "reasoning", "content": content.thinking}));
        }
        parts.push(json!({"type": "text", "content": content.text}));
        let output = json!([{"role": "assistant", "parts": parts}]);
        attributes.push(text("gen_ai.output.messages", &output.to_string()));
    }
    attributes
}

fn tool_attributes(call: &RecordedCall, include_content: bool) -> Vec<KeyValue> {
    let status = serde_json::to_value(call.status)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut attributes = vec![
        text("gen_ai.operation.name", "execute_tool"),
        text("gen_ai.tool.name", &call.name),
        text("gen_ai.tool.call.id", &call.call_id.0),
        text("gen_ai.tool.type", "function"),
        text("mend.tool.status", &status),
    ];
    if include_content {
        attributes.push(text(
            "gen_ai.tool.call.arguments",
            &serde_json::Value::Object(call.arguments.clone()).to_string(),
        ));
        attributes.push(text("gen_ai.tool.call.result", &call.result.to_string()));
    }
    attributes
}

/// The verdict's attributes (the contract's counts by what became of each test), how long the
/// final tests took, and whether it passed.
fn verdict_attributes(record: &Record) -> Option<(Vec<KeyValue>, Duration, bool)> {
    let ending = record.ending.as_ref()?;
    let verdict = ending.verdict(&record.test_file_sha256_before);
    let mut attributes = vec![
        flag("mend.verdict.passed", verdict.passed),
        int(
            "mend.tests.failing",
            ending.tests_after.failing.len() as u64,
        ),
        int("mend.verdict.reasons", verdict.reasons.len() as u64),
    ];
    if let Some(contract) = &ending.contract {
        let kept = |list: &[crate::verdict::grade::contract::Transition]| {
            list.iter().filter(|t| t.kept()).count() as u64
        };
        attributes.extend([
            int(
                "mend.tests.fail_to_pass",
                contract.fail_to_pass.len() as u64,
            ),
            int(
                "mend.tests.fail_to_pass.fixed",
                kept(&contract.fail_to_pass),
            ),
            int(
                "mend.tests.pass_to_pass",
                contract.pass_to_pass.len() as u64,
            ),
            int("mend.tests.pass_to_pass.kept", kept(&contract.pass_to_pass)),
            int("mend.tests.added", contract.added.len() as u64),
        ]);
    }
    Some((
        attributes,
        Duration::from_millis(ending.tests_after.duration_ms),
        verdict.passed,
    ))
}
