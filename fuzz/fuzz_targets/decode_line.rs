//! Any bytes as stream lines, in every protocol: each codec must answer every line (framing,
//! server error, chunk or a decode error) and never panic; for Ollama's NDJSON a session fed a
//! line the codec refused must stop with `model_error`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mend_core::{Config, Input, Millis, Protocol, Session, StopReason, StreamLine};

fuzz_target!(|data: &[u8]| {
    for protocol in [Protocol::OpenaiSse, Protocol::AnthropicSse] {
        let mut decoder = protocol.decoder();
        for line in data.split(|byte| *byte == b'\n') {
            let _ = decoder.decode_line(line);
        }
    }
    let decoded = Protocol::OllamaNdjson.decoder().decode_line(data);
    let Ok(mut session) = Session::new(Config::new("m", "s", "t", vec![])) else {
        return;
    };
    session.handle(Millis(0), Input::StreamLine(StreamLine::new(data.to_vec(), Millis(0))));
    if decoded.is_err() {
        assert_eq!(session.stopped().map(|stop| stop.reason), Some(StopReason::ModelError));
    }
});
