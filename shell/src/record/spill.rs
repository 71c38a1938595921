//! The raw lines of a run, kept on disk instead of in memory.
//!
//! A record keeps every streamed line, and a long run can stream hundreds of megabytes. While a
//! run streams, each line is appended (as one JSON line) to an anonymous temporary file; a turn
//! remembers only its byte range. The record is then serialized straight from that file, so
//! memory stays flat however long the stream. Lines read from a record file live in memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use serde::ser::{Error as _, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::record::line::{LineBytes, RecordedLine};

/// The lines of one turn.
#[derive(Debug, Clone)]
pub enum LineList {
    InMemory(Vec<RecordedLine>),
    /// Lines `count` JSON lines in `file`, between byte offsets `start` and `end`.
    Spilled {
        file: Arc<File>,
        start: u64,
        end: u64,
        count: usize,
    },
}

impl LineList {
    pub fn len(&self) -> usize {
        match self {
            LineList::InMemory(lines) => lines.len(),
            LineList::Spilled { count, .. } => *count,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every line, in order; spilled lines are read back one at a time.
    pub fn iter(&self) -> Box<dyn Iterator<Item = io::Result<RecordedLine>> + '_> {
        match self {
            LineList::InMemory(lines) => Box::new(lines.iter().cloned().map(Ok)),
            LineList::Spilled {
                file, start, end, ..
            } => {
                let range = FileRange {
                    file: Arc::clone(file),
                    at: *start,
                    end: *end,
                };
                Box::new(BufReader::new(range).lines().map(|line| {
                    let line = line?;
                    serde_json::from_str(&line).map_err(io::Error::other)
                }))
            }
        }
    }
}

impl PartialEq for LineList {
    /// Equal when they hold the same lines, wherever those live.
    fn eq(&self, other: &LineList) -> bool {
        self.len() == other.len()
            && self.iter().zip(other.iter()).all(|(a, b)| match (a, b) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

impl Serialize for LineList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for line in self.iter() {
            seq.serialize_element(&line.map_err(S::Error::custom)?)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for LineList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LineList, D::Error> {
        Vec::deserialize(deserializer).map(LineList::InMemory)
    }
}

/// Reads `file` from `at` to `end` without moving any shared cursor.
struct FileRange {
    file: Arc<File>,
    at: u64,
    end: u64,
}

impl Read for FileRange {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.end.saturating_sub(self.at)).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// Where one turn's lines lie in the spill file: a byte range and how many lines it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpillRange {
    pub start: u64,
    pub end: u64,
    pub count: usize,
}

impl SpillRange {
    /// The turn's lines, read back from `file` when needed.
    pub fn lines(self, file: &Arc<File>) -> LineList {
        LineList::Spilled {
            file: Arc::clone(file),
            start: self.start,
            end: self.end,
            count: self.count,
        }
    }
}

/// One streamed line as the spill file keeps it: the JSON of a [`RecordedLine`] and a newline.
///
/// Encoding is most of a line's cost on the loop's side, so the thread that reads the body
/// encodes each line as it arrives, while the loop is busy with the one before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillLine(Vec<u8>);

impl SpillLine {
    /// `line`, received `at_ms` after its request, encoded straight from the borrowed bytes.
    pub fn encode(at_ms: u64, line: &[u8]) -> SpillLine {
        #[derive(Serialize)]
        struct TextLine<'a> {
            at_ms: u64,
            text: &'a str,
        }
        // Room for the escapes a JSON line needs (every quote of it gains a backslash) and the
        // envelope, so that the buffer is allocated once.
        let mut encoded = Vec::with_capacity(line.len() + line.len() / 4 + 48);
        let serialized = match std::str::from_utf8(line) {
            Ok(text) => serde_json::to_writer(&mut encoded, &TextLine { at_ms, text }),
            Err(_) => {
                let recorded = RecordedLine {
                    at_ms,
                    bytes: LineBytes::from_bytes(line),
                };
                serde_json::to_writer(&mut encoded, &recorded)
            }
        };
        // Invariant: serializing a number and strings into a Vec cannot fail (the Vec's writes
        // never fail, and no map key here can be a non-string).
        debug_assert!(
            serialized.is_ok(),
            "a line's JSON could not be written: {serialized:?}"
        );
        encoded.push(b'\n');
        SpillLine(encoded)
    }
}

/// Lines are written to the file in chunks of this size: one system call per chunk, while the
/// memory it takes stays small beside the assembled text a turn keeps anyway.
const SPILL_BUFFER_BYTES: usize = 256 * 1024;

/// Appends the lines of a run to an anonymous temporary file (gone when the last handle drops).
pub struct SpillWriter {
    writer: BufWriter<File>,
    written: u64,
    turn_start: u64,
    turn_count: usize,
}

impl SpillWriter {
    pub fn new() -> io::Result<SpillWriter> {
        Ok(SpillWriter {
            writer: BufWriter::with_capacity(SPILL_BUFFER_BYTES, tempfile::tempfile()?),
            written: 0,
            turn_start: 0,
            turn_count: 0,
        })
    }

    /// Starts a new turn: the lines pushed from now on belong to it.
    pub fn start_turn(&mut self) {
        self.turn_start = self.written;
        self.turn_count = 0;
    }

    /// Appends a line already encoded (by [`SpillLine::encode`], on another thread).
    pub fn append(&mut self, line: &SpillLine) -> io::Result<()> {
        self.writer.write_all(&line.0)?;
        self.written += line.0.len() as u64;
        self.turn_count += 1;
        Ok(())
    }

    /// The current turn's byte range and line count.
    pub fn turn_range(&self) -> SpillRange {
        SpillRange {
            start: self.turn_start,
            end: self.written,
            count: self.turn_count,
        }
    }

    /// Flushes the file and hands it over for reading.
    pub fn finish(self) -> io::Result<Arc<File>> {
        let file = self.writer.into_inner().map_err(|err| err.into_error())?;
        Ok(Arc::new(file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(at_ms: u64, text: &str) -> RecordedLine {
        RecordedLine {
            at_ms,
            bytes: LineBytes::Text {
                text: text.to_owned(),
            },
        }
    }

    #[test]
    fn spilled_turns_read_back_and_serialize_like_lines_in_memory() {
        let mut spill = SpillWriter::new().unwrap();
        spill.start_turn();
        spill.append(&SpillLine::encode(1, b"{\"a\":1}")).unwrap();
        spill
            .append(&SpillLine::encode(2, "é ✓".as_bytes()))
            .unwrap();
        spill.append(&SpillLine::encode(3, &[0xff, b'a'])).unwrap();
        let first = spill.turn_range();
        spill.start_turn();
        spill.append(&SpillLine::encode(9, b"")).unwrap();
        let second = spill.turn_range();
        let file = spill.finish().unwrap();
        let spilled = |range: SpillRange| range.lines(&file);

        let not_utf8 = RecordedLine {
            at_ms: 3,
            bytes: LineBytes::from_bytes(&[0xff, b'a']),
        };
        let expected_first =
            LineList::InMemory(vec![line(1, "{\"a\":1}"), line(2, "é ✓"), not_utf8]);
        assert_eq!(spilled(first), expected_first);
        assert_eq!(spilled(second), LineList::InMemory(vec![line(9, "")]));
        assert_eq!(
            serde_json::to_string(&spilled(first)).unwrap(),
            serde_json::to_string(&expected_first).unwrap()
        );
    }
}
