//! OpenTelemetry for a run: one trace per `mend run` (and per attempt of `mend eval`), sent over OTLP/HTTP (protobuf) when
//! `--otel ENDPOINT` or the task file's `[telemetry] otlp_endpoint` asks for it — an
//! `invoke_agent` span, a `chat` span per model turn, an `execute_tool` span per call (the GenAI
//! semantic conventions) and a `mend.verdict` span with the contract's counts. Prompts, outputs,
//! arguments and results only with `include_content = true`. Off by default: then nothing here
//! runs. The trace is built from the run's record after it is written and handed to a sender
//! thread through a bounded queue, so a collector that is down or slow never slows or fails the
//! run: it costs one warning.
//!
//! The messages are `opentelemetry-proto`'s generated prost types, posted with the shell's ureq:
//! `opentelemetry-otlp` would bring the SDK's batch processor and an HTTP client of its own
//! (reqwest or hyper, on tokio) into a shell that is blocking by design.

pub(crate) mod attributes;
pub(crate) mod config;
pub mod sender;
pub mod trace;
pub mod traces;

pub use config::Telemetry;
