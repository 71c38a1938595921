//! The raw lines of a run, kept on disk instead of in memory.
//!
//! A record keeps every streamed line, and a long run can stream hundreds of megabytes. While a
//! run streams, each line is appended as it came (its arrival time, its length, its bytes) to an
//! anonymous temporary file; a turn remembers only its byte range. The record is then serialized
//! from that file, so memory stays flat however long the stream, and a line is turned into JSON
//! once, when the record is written, never on the way. Lines read from a record file live in
//! memory.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
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
                file,
                start,
                end,
                count,
            } => {
                let mut frames = BufReader::new(FileRange {
                    file: Arc::clone(file),
                    at: *start,
                    end: *end,
                });
                Box::new((0..*count).map(move |_| read_frame(&mut frames)))
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
pub(crate) struct SpillRange {
    pub start: u64,
    pub end: u64,
    pub count: usize,
}

impl SpillRange {
    /// The turn's lines, read back from `file` when needed.
    pub(crate) fn lines(self, file: &Arc<File>) -> LineList {
        LineList::Spilled {
            file: Arc::clone(file),
            start: self.start,
            end: self.end,
            count: self.count,
        }
    }
}

/// A line in the spill file: its arrival (`at_ms`) and its length, little-endian, then its bytes.
const FRAME_HEADER_BYTES: usize = 16;

fn read_frame(frames: &mut impl Read) -> io::Result<RecordedLine> {
    let mut number = || -> io::Result<u64> {
        let mut bytes = [0u8; 8];
        frames.read_exact(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    };
    let at_ms = number()?;
    let length = usize::try_from(number()?).map_err(io::Error::other)?;
    let mut bytes = vec![0; length];
    frames.read_exact(&mut bytes)?;
    Ok(RecordedLine {
        at_ms,
        bytes: LineBytes::from_vec(bytes),
    })
}

/// Lines are written to the file in chunks of this size: one system call per chunk, while the
/// memory it takes stays small beside the assembled text a turn keeps anyway.
const SPILL_BUFFER_BYTES: usize = 64 * 1024;

/// Appends the lines of a run to an anonymous temporary file (gone when the last handle drops).
pub(crate) struct SpillWriter {
    writer: BufWriter<File>,
    written: u64,
    turn_start: u64,
    turn_count: usize,
}

impl SpillWriter {
    pub(crate) fn new() -> io::Result<SpillWriter> {
        Ok(SpillWriter {
            writer: BufWriter::with_capacity(SPILL_BUFFER_BYTES, tempfile::tempfile()?),
            written: 0,
            turn_start: 0,
            turn_count: 0,
        })
    }

    /// Starts a new turn: the lines pushed from now on belong to it.
    pub(crate) fn start_turn(&mut self) {
        self.turn_start = self.written;
        self.turn_count = 0;
    }

    /// Appends one raw line received `at_ms` after its request, as it came: no copy but into
    /// the file's buffer, no encoding (that happens once, when the record is written).
    pub(crate) fn push(&mut self, at_ms: u64, line: &[u8]) -> io::Result<()> {
        self.writer.write_all(&at_ms.to_le_bytes())?;
        self.writer.write_all(&(line.len() as u64).to_le_bytes())?;
        self.writer.write_all(line)?;
        self.written += (FRAME_HEADER_BYTES + line.len()) as u64;
        self.turn_count += 1;
        Ok(())
    }

    /// The current turn's byte range and line count.
    pub(crate) fn turn_range(&self) -> SpillRange {
        SpillRange {
            start: self.turn_start,
            end: self.written,
            count: self.turn_count,
        }
    }

    /// Flushes the file and hands it over for reading.
    pub(crate) fn finish(self) -> io::Result<Arc<File>> {
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
        spill.push(1, b"{\"a\":1}").unwrap();
        spill.push(2, "é ✓".as_bytes()).unwrap();
        spill.push(3, &[0xff, b'a']).unwrap();
        let first = spill.turn_range();
        spill.start_turn();
        spill.push(9, b"").unwrap();
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
