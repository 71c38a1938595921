//! Abstract inputs for generated sessions, and what each one is known to mean.
//!
//! A [`Step`] names an input by intent ("a chunk with two calls", "the done chunk", "a result for
//! the running call"). [`Fed::resolve`] turns it into the concrete [`Input`] plus the facts the
//! rule checker needs, so the checker never has to decode wire JSON itself.

use mend_core::{CallId, Input, Millis, Protocol, StreamLine, ToolOutcome, TransportError};
use serde_json::{json, Value};

use super::{call, chunk, done_with, error_line, line, raw};

/// A call placed in a chunk: which tool, whether it fits the schema, whether it has an id, and
/// whether its arguments come as a JSON string (the OpenAI habit).
#[derive(Debug, Clone, PartialEq)]
pub struct CallSpec {
    pub tool: CallTool,
    pub with_id: bool,
    pub arguments_as_string: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallTool {
    ReadFile,
    RunTests,
    /// `read_file` without its required `path`: refused by validation.
    ReadFileMissingPath,
    Unknown,
}

impl CallTool {
    pub fn name(self) -> &'static str {
        match self {
            CallTool::ReadFile | CallTool::ReadFileMissingPath => "read_file",
            CallTool::RunTests => "run_tests",
            CallTool::Unknown => "format_disk",
        }
    }

    pub fn arguments(self) -> Value {
        match self {
            CallTool::ReadFile => json!({"path": "path_rules.py"}),
            CallTool::RunTests | CallTool::ReadFileMissingPath => json!({}),
            CallTool::Unknown => json!({"device": "sda"}),
        }
    }
}

/// The ways a model writes a call into its text when the server does not parse its template.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TextForm {
    Hermes,
    Qwen3Coder { wrapped: bool },
    Fenced,
    Bare,
    Mistral,
    MistralJson,
    Llama,
    Harmony,
    GemmaToolCode,
    Deepseek,
    ToolCallList,
}

impl TextForm {
    /// The call as such a model writes it, on lines of its own.
    pub fn write(self, tool: CallTool) -> String {
        let arguments = tool.arguments();
        let object = json!({"name": tool.name(), "arguments": arguments});
        match self {
            TextForm::Hermes => format!("\n<tool_call>\n{object}\n</tool_call>\n"),
            TextForm::Qwen3Coder { wrapped } => {
                let mut block = format!("<function={}>\n", tool.name());
                for (key, value) in arguments.as_object().into_iter().flatten() {
                    let value = value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_owned);
                    block.push_str(&format!("<parameter={key}>\n{value}\n</parameter>\n"));
                }
                block.push_str("</function>");
                if wrapped {
                    format!("\n<tool_call>\n{block}\n</tool_call>\n")
                } else {
                    format!("\n{block}\n")
                }
            }
            TextForm::Fenced => format!("\n```json\n{object}\n```\n"),
            TextForm::Bare => format!("\n{object}\n"),
            TextForm::Mistral => format!("[TOOL_CALLS]{}[ARGS]{arguments}", tool.name()),
            TextForm::MistralJson => format!("[TOOL_CALLS][{object}]"),
            TextForm::Llama => format!(
                "\n<|python_tag|>{}<|eom_id|>",
                json!({"name": tool.name(), "parameters": arguments})
            ),
            TextForm::Harmony => format!(
                "<|start|>assistant<|channel|>commentary to=functions.{} <|constrain|>json<|message|>{arguments}<|call|>",
                tool.name()
            ),
            TextForm::GemmaToolCode => {
                let keywords: Vec<String> = arguments
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(key, value)| format!("{key}={value}"))
                    .collect();
                format!("\n```tool_code\n{}({})\n```\n", tool.name(), keywords.join(", "))
            }
            TextForm::Deepseek => format!(
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{}<｜tool▁sep｜>{arguments}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
                tool.name()
            ),
            TextForm::ToolCallList => format!("\n<|tool_call|>[{object}]<|/tool_call|>"),
        }
    }

    /// Forms that may share a text: the tagged ones go together, the others only with their own.
    pub fn family(self) -> u8 {
        match self {
            TextForm::Hermes | TextForm::Qwen3Coder { .. } => 0,
            TextForm::Fenced => 1,
            TextForm::Bare => 2,
            TextForm::Mistral | TextForm::MistralJson => 3,
            TextForm::Llama => 4,
            TextForm::Harmony => 5,
            TextForm::GemmaToolCode => 6,
            TextForm::Deepseek => 7,
            TextForm::ToolCallList => 8,
        }
    }
}

/// The calls the core must recover from a completed turn without native calls, whose text held
/// `written` calls (in order) and other text when `prose`: all of them when they are unambiguous,
/// else none.
pub fn expected_recovery(written: &[(CallTool, TextForm)], prose: bool) -> Vec<&'static str> {
    let Some((_, first)) = written.first() else {
        return vec![];
    };
    let one_family = written
        .iter()
        .all(|(_, form)| form.family() == first.family());
    let offered = written.iter().all(|(tool, _)| *tool != CallTool::Unknown);
    let bare_alone = first.family() != TextForm::Bare.family() || (written.len() == 1 && !prose);
    if one_family && offered && bare_alone {
        written.iter().map(|(tool, _)| tool.name()).collect()
    } else {
        vec![]
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A chunk with text, thinking and calls (any of them possibly empty).
    Chunk {
        thinking: String,
        content: String,
        calls: Vec<CallSpec>,
    },
    /// The final chunk, possibly carrying calls of its own, possibly cut off by `length`.
    Done {
        calls: Vec<CallSpec>,
        cut_off: bool,
    },
    /// A chunk whose text is one call written out, as a model does when its template is not
    /// parsed for calls.
    TextCall {
        form: TextForm,
        tool: CallTool,
    },
    ErrorLine,
    /// Bytes that are not a chunk (invalid UTF-8, truncated JSON, a JSON array, ...).
    Malformed(Vec<u8>),
    /// A line of only whitespace: framing, ignored.
    Blank,
    StreamEnd,
    TransportFailed,
    /// A result for the running call (or for no call, if none runs).
    ToolOk,
    ToolFailed,
    /// A result for a call that is not running.
    ToolForStranger,
    Cancel,
    Deadline,
}

/// What the checker knows about a fed input.
#[derive(Debug, Clone, PartialEq)]
pub struct Fed {
    pub input: Input,
    /// Names of the calls this line carries, in order.
    pub calls: Vec<&'static str>,
    /// `Some(cut_off)` when this line is the done chunk.
    pub done: Option<bool>,
    /// An error line or a malformed line.
    pub breaks_stream: bool,
    pub blank: bool,
    /// A call this line writes into the text.
    pub written: Option<(CallTool, TextForm)>,
    /// Whether this line's text holds anything but whitespace outside written calls.
    pub prose: bool,
}

impl Fed {
    /// An input that carries nothing for the rules beyond itself.
    fn plain(input: Input) -> Fed {
        Fed {
            input,
            calls: vec![],
            done: None,
            breaks_stream: false,
            blank: false,
            written: None,
            prose: false,
        }
    }

    pub fn resolve(step: &Step, running: Option<&CallId>, serial: &mut u32) -> Fed {
        let plain = Fed::plain;
        match step {
            Step::Chunk { .. } | Step::TextCall { .. } | Step::Done { .. } => {
                Fed::chunk(step, serial)
            }
            Step::ErrorLine => Fed {
                breaks_stream: true,
                ..plain(line(&error_line("runner crashed")))
            },
            Step::Malformed(bytes) => Fed {
                breaks_stream: true,
                ..plain(raw(bytes))
            },
            Step::Blank => Fed {
                blank: true,
                ..plain(raw(b" \r"))
            },
            Step::StreamEnd => plain(Input::StreamEnd),
            Step::TransportFailed => plain(Input::TransportFailed {
                error: TransportError::Read {
                    message: "connection reset by peer".to_owned(),
                },
            }),
            Step::ToolOk => plain(answer(running, true)),
            Step::ToolFailed => plain(answer(running, false)),
            Step::ToolForStranger => plain(Input::ToolFinished {
                call_id: CallId("stranger".to_owned()),
                outcome: ToolOutcome::Success { value: json!({}) },
            }),
            Step::Cancel => plain(Input::Cancel),
            Step::Deadline => plain(Input::DeadlinePassed),
        }
    }

    /// A step that is one chunk of the model's stream.
    fn chunk(step: &Step, serial: &mut u32) -> Fed {
        match step {
            Step::Chunk {
                thinking,
                content,
                calls,
            } => {
                let mut message = json!({"role": "assistant", "content": content});
                if !thinking.is_empty() {
                    message["thinking"] = json!(thinking);
                }
                if !calls.is_empty() {
                    message["tool_calls"] = wire_calls(calls, serial);
                }
                Fed {
                    calls: names(calls),
                    prose: !content.trim().is_empty(),
                    ..Fed::plain(line(&chunk(message, false)))
                }
            }
            Step::TextCall { form, tool } => {
                let message = json!({"role": "assistant", "content": form.write(*tool)});
                Fed {
                    written: Some((*tool, *form)),
                    ..Fed::plain(line(&chunk(message, false)))
                }
            }
            Step::Done { calls, cut_off } => {
                let mut message = json!({"role": "assistant", "content": ""});
                if !calls.is_empty() {
                    message["tool_calls"] = wire_calls(calls, serial);
                }
                let reason = if *cut_off { "length" } else { "stop" };
                Fed {
                    calls: names(calls),
                    done: Some(*cut_off),
                    ..Fed::plain(line(&done_with(reason, message)))
                }
            }
            other => unreachable!("{other:?} is no chunk"),
        }
    }
}

/// The result of the running call (or of nobody's, when none runs).
fn answer(running: Option<&CallId>, ok: bool) -> Input {
    let call_id = running
        .cloned()
        .unwrap_or_else(|| CallId("nobody".to_owned()));
    let outcome = if ok {
        ToolOutcome::Success {
            value: json!({"exit_code": 0, "output": "4 passed"}),
        }
    } else {
        ToolOutcome::Failure {
            message: "path_rules.py was not found".to_owned(),
        }
    };
    Input::ToolFinished { call_id, outcome }
}

fn names(calls: &[CallSpec]) -> Vec<&'static str> {
    calls.iter().map(|spec| spec.tool.name()).collect()
}

fn wire_calls(calls: &[CallSpec], serial: &mut u32) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|spec| {
            *serial += 1;
            let id = format!("call_{serial:08}");
            let arguments = spec.tool.arguments();
            let arguments = if spec.arguments_as_string {
                json!(arguments.to_string())
            } else {
                arguments
            };
            call(
                spec.with_id.then_some(id.as_str()),
                spec.tool.name(),
                arguments,
            )
        })
        .collect();
    Value::Array(calls)
}

/// The same abstract steps in the SSE protocols: a stream step becomes the lines of its events,
/// and only the line that completes the step carries the step's facts (the others are framing).
pub fn resolve_for(
    protocol: Protocol,
    step: &Step,
    running: Option<&CallId>,
    serial: &mut u32,
) -> Vec<Fed> {
    let events: Vec<Value> = match (protocol, step) {
        (Protocol::OllamaNdjson, _) => return vec![Fed::resolve(step, running, serial)],
        // Anthropic's transport failure is its answer to a prompt over the context window.
        (Protocol::AnthropicSse, Step::TransportFailed) => {
            let mut fed = Fed::resolve(step, running, serial);
            fed.input = Input::TransportFailed {
                error: TransportError::Http {
                    status: 400,
                    body: json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}).to_string(),
                },
            };
            return vec![fed];
        }
        (
            _,
            Step::Chunk {
                thinking,
                content,
                calls,
            },
        ) => sse_chunk(protocol, thinking, content, calls, serial),
        (_, Step::TextCall { form, tool }) => {
            sse_chunk(protocol, "", &form.write(*tool), &[], serial)
        }
        (_, Step::Done { calls, cut_off }) => {
            let mut events = sse_chunk(protocol, "", "", calls, serial);
            events.extend(sse_done(protocol, *cut_off));
            events
        }
        (_, Step::ErrorLine) => vec![
            json!({"type": "error", "error": {"type": "api_error", "message": "runner crashed"}}),
        ],
        (_, Step::Malformed(bytes)) => {
            let data = [b"data: ".as_slice(), bytes.as_slice()].concat();
            return framed(vec![data, Vec::new()], Fed::resolve(step, running, serial));
        }
        _ => return vec![Fed::resolve(step, running, serial)],
    };
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for event in events {
        let data = if event == json!("[DONE]") {
            "[DONE]".to_owned()
        } else {
            event.to_string()
        };
        lines.push(format!("data: {data}").into_bytes());
        lines.push(Vec::new());
    }
    framed(lines, Fed::resolve(step, running, serial))
}

/// All lines but the last are framing; the last carries the facts of the step.
fn framed(lines: Vec<Vec<u8>>, facts: Fed) -> Vec<Fed> {
    let count = lines.len();
    lines
        .into_iter()
        .enumerate()
        .map(|(at, line)| {
            let input = Input::StreamLine(StreamLine::new(line, Millis(0)));
            if at + 1 == count {
                Fed {
                    input,
                    ..facts.clone()
                }
            } else {
                Fed {
                    input,
                    calls: vec![],
                    done: None,
                    breaks_stream: false,
                    blank: true,
                    written: None,
                    prose: false,
                }
            }
        })
        .collect()
}

/// The events of one chunk. Every call gets its own index, so that calls without an id never
/// continue each other (in these protocols a call without an id is continued by index).
fn sse_chunk(
    protocol: Protocol,
    thinking: &str,
    content: &str,
    calls: &[CallSpec],
    serial: &mut u32,
) -> Vec<Value> {
    let mut events = Vec::new();
    match protocol {
        Protocol::AnthropicSse => {
            if !thinking.is_empty() {
                events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": thinking}}));
            }
            if !content.is_empty() {
                events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": content}}));
            }
            for spec in calls {
                *serial += 1;
                let index = *serial;
                let arguments = spec.tool.arguments().to_string();
                events.push(json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": format!("toolu_{index}"), "name": spec.tool.name(), "input": {}}}));
                let (head, tail) = arguments.split_at(arguments.len() / 2);
                for part in [head, tail] {
                    events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": part}}));
                }
                events.push(json!({"type": "content_block_stop", "index": index}));
            }
        }
        _ => {
            let mut delta = json!({"content": content});
            if !thinking.is_empty() {
                delta["reasoning"] = json!(thinking);
            }
            let fragments: Vec<Value> = calls
                .iter()
                .map(|spec| {
                    *serial += 1;
                    let mut fragment = json!({"index": *serial, "type": "function", "function": {"name": spec.tool.name(), "arguments": spec.tool.arguments().to_string()}});
                    if spec.with_id {
                        fragment["id"] = json!(format!("call_{serial:08}"));
                    }
                    fragment
                })
                .collect();
            if !fragments.is_empty() {
                delta["tool_calls"] = Value::Array(fragments);
            }
            events.push(json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]}));
        }
    }
    events
}

fn sse_done(protocol: Protocol, cut_off: bool) -> Vec<Value> {
    match protocol {
        Protocol::AnthropicSse => {
            let reason = if cut_off { "max_tokens" } else { "end_turn" };
            vec![
                json!({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 3}}),
                json!({"type": "message_stop"}),
            ]
        }
        _ => {
            let reason = if cut_off { "length" } else { "stop" };
            vec![
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}),
                json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 4}}),
                json!("[DONE]"),
            ]
        }
    }
}
