//! A zstd-compressed layer (`application/vnd.oci.image.layer.v1.tar+zstd`, what `skopeo copy
//! --dest-compress-format zstd` and buildah's `--compression-format zstd` push) read as its tar.
//! ruzstd, pure Rust, decodes one frame at a time; a stream may hold several (zstd's own CLI
//! and parallel encoders write one per chunk) and skippable frames (seekable-zstd's index, the
//! zstd:chunked table of contents), so frames are read until the stream ends and skippable ones
//! are passed over, as `zstd -d` does.

use std::io::{self, BufRead, Read};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// A zstd frame's first four bytes, as it is recognised at the start of a layer.
pub(crate) const MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Every frame of a zstd stream, decoded in order.
pub(crate) struct ZstdFrames<R> {
    source: R,
    frame: FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> ZstdFrames<R> {
    pub(crate) fn new(source: R) -> ZstdFrames<R> {
        ZstdFrames {
            source,
            frame: FrameDecoder::new(),
            in_frame: false,
        }
    }

    /// Starts the next frame, skipping skippable ones; `false` at the end of the stream.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.frame.reset(&mut self.source) {
                Ok(()) => return Ok(true),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped =
                        io::copy(&mut (&mut self.source).take(length.into()), &mut io::sink())?;
                    if skipped != u64::from(length) {
                        return Err(broken("a skippable frame is cut short"));
                    }
                }
                Err(err) => return Err(broken(&err.to_string())),
            }
        }
    }

    /// The frame's checksum, when it carries one, against what was decoded.
    fn check_sum(&self) -> io::Result<()> {
        match (
            self.frame.get_checksum_from_data(),
            self.frame.get_calculated_checksum(),
        ) {
            (Some(stored), Some(computed)) if stored != computed => {
                Err(broken("a frame's checksum does not match its content"))
            }
            _ => Ok(()),
        }
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                let frame = &mut self.frame;
                // Blocks are decoded until enough can be handed out or the frame ends.
                while frame.can_collect() < buf.len() && !frame.is_finished() {
                    let wanted = buf.len() - frame.can_collect();
                    frame
                        .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBytes(wanted))
                        .map_err(|err| broken(&err.to_string()))?;
                }
                let count = frame.read(buf)?;
                if count > 0 {
                    return Ok(count);
                }
                self.check_sum()?;
                self.in_frame = false;
            }
            if !self.next_frame()? {
                return Ok(0);
            }
            self.in_frame = true;
        }
    }
}

/// A stream that is not zstd as its header says: the layer is refused, as a broken gzip is.
fn broken(why: &str) -> io::Error {
    io::Error::other(format!("its zstd layer cannot be read: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zstd frame of `data` stored raw (block type 0), as the format allows any encoder to
    /// write it: the header, one last raw block, no checksum.
    fn raw_frame(data: &[u8]) -> Vec<u8> {
        let mut frame = MAGIC.to_vec();
        // Frame header descriptor: single segment, 4-byte content size; then that size.
        frame.push(0b1010_0000);
        frame.extend((data.len() as u32).to_le_bytes());
        // Block header: last block, raw, its size (3 bytes, little-endian).
        let header = 1 | ((data.len() as u32) << 3);
        frame.extend(&header.to_le_bytes()[..3]);
        frame.extend(data);
        frame
    }

    fn skippable(payload: &[u8]) -> Vec<u8> {
        let mut frame = 0x184D_2A50u32.to_le_bytes().to_vec();
        frame.extend((payload.len() as u32).to_le_bytes());
        frame.extend(payload);
        frame
    }

    fn decode(stream: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        ZstdFrames::new(stream).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn every_frame_is_read_and_skippable_ones_are_passed_over() {
        let stream = [
            raw_frame(b"first frame, "),
            skippable(b"an index no reader needs"),
            raw_frame(b"second frame"),
        ]
        .concat();
        assert_eq!(
            decode(&stream).map_err(|err| err.to_string()),
            Ok(b"first frame, second frame".to_vec())
        );
        assert_eq!(decode(b"").map_err(|err| err.to_string()), Ok(Vec::new()));
    }

    #[test]
    fn a_stream_that_is_not_zstd_after_its_first_frame_is_an_error() {
        let stream = [raw_frame(b"fine"), b"not a frame".to_vec()].concat();
        let err = decode(&stream).unwrap_err().to_string();
        assert!(err.starts_with("its zstd layer cannot be read: "), "{err}");
    }
}
