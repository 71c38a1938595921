//! Splits a response body into lines as bytes arrive, with a cap on the length of one line.
//!
//! A line over the cap is not read into memory: the reader stops at the cap and reports it, and
//! the turn ends there. Lines are handed out as soon as their `\n` arrives, so text streams.

use std::io::{self, BufRead};

/// Ollama's own Go client raises its scanner buffer to 8 MiB: a whole tool call,
/// arguments included, comes on one line.
pub(crate) const MAX_LINE_BYTES: usize = 8 << 20;

#[derive(Debug)]
pub(crate) enum LineError {
    TooLong { limit_bytes: usize },
    Io(io::Error),
}

pub(crate) struct LineReader<R> {
    inner: R,
    max_line: usize,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(inner: R, max_line: usize) -> Self {
        LineReader { inner, max_line }
    }

    /// The next line without its `\n`; `Ok(None)` at the end of the body. A last line without a
    /// `\n` is still a line.
    pub(crate) fn next_line(&mut self) -> Result<Option<Vec<u8>>, LineError> {
        let mut line = Vec::new();
        loop {
            let available = match self.inner.fill_buf() {
                Ok(available) => available,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(LineError::Io(err)),
            };
            if available.is_empty() {
                return Ok((!line.is_empty()).then_some(line));
            }
            let newline = available.iter().position(|byte| *byte == b'\n');
            let take = newline.unwrap_or(available.len());
            if line.len() + take > self.max_line {
                return Err(LineError::TooLong {
                    limit_bytes: self.max_line,
                });
            }
            line.extend_from_slice(&available[..take]);
            let consumed = take + usize::from(newline.is_some());
            self.inner.consume(consumed);
            if newline.is_some() {
                return Ok(Some(line));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Read};

    use super::*;

    /// Hands out its bytes a few at a time, as a network read does.
    struct Trickle(Vec<u8>, usize);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0.drain(..n);
            Ok(n)
        }
    }

    fn lines(body: &[u8], step: usize, max: usize) -> Vec<Result<Vec<u8>, String>> {
        let mut reader = LineReader::new(
            BufReader::with_capacity(4, Trickle(body.to_vec(), step)),
            max,
        );
        let mut out = Vec::new();
        loop {
            match reader.next_line() {
                Ok(Some(line)) => out.push(Ok(line)),
                Ok(None) => return out,
                Err(LineError::TooLong { limit_bytes }) => {
                    out.push(Err(format!("too long: {limit_bytes}")));
                    return out;
                }
                Err(LineError::Io(err)) => panic!("{err}"),
            }
        }
    }

    #[test]
    fn splits_whatever_the_read_sizes() {
        for step in [1, 2, 3, 7, 64] {
            assert_eq!(
                lines(b"{\"a\":1}\n\n{\"b\":2}\nlast", step, 64),
                vec![
                    Ok(b"{\"a\":1}".to_vec()),
                    Ok(vec![]),
                    Ok(b"{\"b\":2}".to_vec()),
                    Ok(b"last".to_vec())
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn stops_at_a_line_over_the_cap() {
        assert_eq!(
            lines(b"short\n0123456789abcdef\nnever", 3, 8),
            vec![Ok(b"short".to_vec()), Err("too long: 8".to_owned())]
        );
    }
}
