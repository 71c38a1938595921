//! A line is parsed as text when it is valid UTF-8 and as bytes otherwise: both must read every
//! line as `from_slice` alone did, the chunk and the error alike.

use proptest::prelude::*;

use super::{parse_chunk, RawChunk};
use crate::prelude::*;

/// What `from_slice` alone made of a line: the reference.
fn by_bytes(line: &[u8]) -> Result<RawChunk<'_>, String> {
    serde_json::from_slice(line).map_err(|err| err.to_string())
}

/// Strings a chunk's fields carry: escapes, non-ASCII text, control characters, quotes.
fn text() -> impl Strategy<Value = String> {
    proptest::string::string_regex("([a-z é✓\\n\\t\"\\\\{}<>:]|\\u{1F600}|\\u{0}){0,12}")
        .expect("a valid regex")
}

/// A chunk in Ollama's shape, its keys in any order, some missing, some unknown.
fn chunk() -> impl Strategy<Value = String> {
    (
        text(),
        text(),
        prop::option::of(text()),
        any::<bool>(),
        prop::option::of(text()),
        prop::option::of(any::<u64>()),
        any::<bool>(),
    )
        .prop_map(|(model, content, thinking, done, reason, count, error)| {
            let mut message = serde_json::json!({"role": "assistant", "content": content});
            if let Some(thinking) = thinking {
                message["thinking"] = thinking.into();
            }
            let mut chunk = serde_json::json!({"model": model, "message": message, "done": done});
            if let Some(reason) = reason {
                chunk["done_reason"] = reason.into();
            }
            if let Some(count) = count {
                chunk["eval_count"] = count.into();
            }
            if error {
                chunk["error"] = "the model failed".into();
            }
            chunk.to_string()
        })
}

/// A chunk's bytes, then broken in place: bytes that are not UTF-8 (a lone continuation byte, a
/// cut sequence), any byte, or the line cut short.
fn line() -> impl Strategy<Value = Vec<u8>> {
    (
        chunk(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        prop::option::of(any::<prop::sample::Index>()),
    )
        .prop_map(|(chunk, changes, cut)| {
            let mut line = chunk.into_bytes();
            for (at, byte) in changes {
                let at = at.index(line.len());
                line[at] = byte;
            }
            if let Some(cut) = cut {
                line.truncate(cut.index(line.len() + 1));
            }
            line
        })
}

/// Failures kept beside the other properties' (at the repository's root), not in `core/`.
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../proptest-regressions/core-ollama-lines.txt"
            )),
        )),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_line_reads_as_from_slice_reads_it(line in line()) {
        prop_assert_eq!(parse_chunk(&line).map_err(|err| err.to_string()), by_bytes(&line));
    }
}

#[test]
fn a_line_with_bytes_that_are_not_utf8_reads_as_before() {
    // Invalid UTF-8 inside a key the chunk ignores: `from_slice` skips it unread.
    let ignored = b"{\"model\":\"g\xff\",\"message\":{\"content\":\"hi\"},\"done\":false}";
    // Inside the content: `from_slice` refuses the string it borrows.
    let read = b"{\"message\":{\"content\":\"h\xc3\"},\"done\":false}";
    for line in [&ignored[..], &read[..]] {
        assert_eq!(
            parse_chunk(line).map_err(|err| err.to_string()),
            by_bytes(line)
        );
    }
    let chunk = parse_chunk(ignored).map_err(|err| err.to_string());
    assert_eq!(
        chunk.map(|chunk| chunk.message.and_then(|message| message.content)),
        Ok(Some("hi".into()))
    );
    assert_eq!(
        parse_chunk(read).map(|_| ()).map_err(|err| err.to_string()),
        Err("invalid unicode code point at line 1 column 25".to_owned())
    );
}
