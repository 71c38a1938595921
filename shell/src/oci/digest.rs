//! Content addresses: every blob an image is made of is named by the SHA-256 of its bytes, and
//! is checked against that name while it streams, before anything made from it is used.

use std::fmt;
use std::io::{self, Read};

use sha2::{Digest as _, Sha256};

const PREFIX: &str = "sha256:";

/// Why a text is no digest mend can check; each holds the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DigestError {
    /// Another algorithm than sha256, or no `algorithm:` at all: mend cannot check it.
    NotSha256(String),
    /// `sha256:` but not 64 lowercase hex digits: no digest at all.
    Malformed(String),
}

impl fmt::Display for DigestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DigestError::NotSha256(text) => write!(
                f,
                "`{text}` is not a digest mend can check: only sha256:<64 hex> digests are read"
            ),
            DigestError::Malformed(text) => write!(
                f,
                "`{text}` is not a sha256 digest (sha256: and 64 lowercase hex digits)"
            ),
        }
    }
}

impl std::error::Error for DigestError {}

/// `sha256:<64 lowercase hex>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest {
    hex: String,
}

impl Digest {
    pub fn parse(text: &str) -> Result<Digest, DigestError> {
        let Some(hex) = text.strip_prefix(PREFIX) else {
            return Err(DigestError::NotSha256(text.to_owned()));
        };
        if hex.len() != 64
            || !hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(DigestError::Malformed(text.to_owned()));
        }
        Ok(Digest {
            hex: hex.to_owned(),
        })
    }

    pub fn of(bytes: &[u8]) -> Digest {
        Digest::from_hasher(Sha256::new_with_prefix(bytes))
    }

    fn from_hasher(hasher: Sha256) -> Digest {
        let hex = hasher
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        Digest { hex }
    }

    pub fn hex(&self) -> &str {
        &self.hex
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}", self.hex)
    }
}

/// Reads a blob and, at its end, refuses it unless its length and hash are the ones expected.
/// A reader that stops early never sees the check: call [`Verified::finish`], which drains it.
pub(crate) struct Verified<R> {
    inner: R,
    hasher: Sha256,
    read: u64,
    expected: Digest,
    size: Option<u64>,
}

impl<R: Read> Verified<R> {
    pub(crate) fn new(inner: R, expected: Digest, size: Option<u64>) -> Verified<R> {
        Verified {
            inner,
            hasher: Sha256::new(),
            read: 0,
            expected,
            size,
        }
    }

    /// Reads what is left, then checks the whole.
    #[cfg(test)]
    pub(crate) fn finish(mut self) -> io::Result<()> {
        io::copy(&mut self, &mut io::sink())?;
        Ok(())
    }

    fn mismatch(&self, what: String) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("blob {} {what}", self.expected),
        )
    }
}

impl<R: Read> Read for Verified<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let count = self.inner.read(buf)?;
        self.read += count as u64;
        if let Some(size) = self.size.filter(|size| self.read > *size) {
            return Err(self.mismatch(format!("is longer than the {size} bytes its manifest says")));
        }
        if count == 0 {
            if let Some(size) = self.size.filter(|size| self.read != *size) {
                return Err(
                    self.mismatch(format!("has {} bytes, its manifest says {size}", self.read))
                );
            }
            let actual = Digest::from_hasher(std::mem::take(&mut self.hasher));
            if actual != self.expected {
                return Err(self.mismatch(format!(
                    "hashes to {actual}: the image is corrupt or was tampered with"
                )));
            }
            self.hasher = Sha256::new();
            // A second end of stream must not hash the empty string and fail.
            self.expected = Digest::of(b"");
            self.size = Some(0);
            self.read = 0;
            return Ok(0);
        }
        self.hasher.update(&buf[..count]);
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_passes_only_with_its_own_hash_and_length() {
        let blob = b"layer bytes".to_vec();
        let right = Digest::of(&blob);
        let check = |digest: &Digest, size| {
            Verified::new(&blob[..], digest.clone(), size)
                .finish()
                .map_err(|err| err.to_string())
        };
        let wrong = Digest::of(b"other");
        assert_eq!(check(&right, Some(11)), Ok(()));
        assert_eq!(check(&right, None), Ok(()));
        assert_eq!(
            check(&wrong, Some(11)),
            Err(format!(
                "blob {wrong} hashes to {right}: the image is corrupt or was tampered with"
            ))
        );
        assert_eq!(
            check(&right, Some(12)),
            Err(format!("blob {right} has 11 bytes, its manifest says 12"))
        );
        assert_eq!(
            check(&right, Some(5)),
            Err(format!(
                "blob {right} is longer than the 5 bytes its manifest says"
            ))
        );
    }

    #[test]
    fn digests_are_read_only_in_their_one_spelling() {
        let hex = "0123456789abcdef".repeat(4);
        assert_eq!(
            Digest::parse(&format!("sha256:{hex}")).map(|d| d.to_string()),
            Ok(format!("sha256:{hex}"))
        );
        let upper = format!("sha256:{}", hex.to_uppercase());
        assert_eq!(
            [
                format!("sha512:{hex}"),
                upper.clone(),
                "sha256:00".to_owned()
            ]
            .map(|bad| Digest::parse(&bad)),
            [
                Err(DigestError::NotSha256(format!("sha512:{hex}"))),
                Err(DigestError::Malformed(upper)),
                Err(DigestError::Malformed("sha256:00".to_owned())),
            ]
        );
        assert_eq!(
            DigestError::NotSha256("md5:x".to_owned()).to_string(),
            "`md5:x` is not a digest mend can check: only sha256:<64 hex> digests are read"
        );
    }
}
