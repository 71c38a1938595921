//! Any bytes as one stream line: the codec must answer (blank, server error, chunk or a decode
//! error) and never panic; a session fed the same line must stop with `model_error` whenever the
//! codec refused it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mend_core::{Codec, Config, Input, Millis, Session, StopReason};

fuzz_target!(|data: &[u8]| {
    let decoded = Codec::OllamaNdjson.decoder().decode_line(data);
    let Ok((mut session, _)) = Session::new(Config::new("m", "s", "t", vec![])) else {
        return;
    };
    session.handle(Millis(0), Input::StreamLine { line: data.to_vec() });
    if decoded.is_err() {
        assert_eq!(session.stopped().map(|stop| stop.reason), Some(StopReason::ModelError));
    }
});
