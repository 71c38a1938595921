//! Why an image could not be read, fetched or set up to run. The cases differ in what the user
//! does: take another image (it is not one mend can run, or its bytes are not its digests'),
//! free the disk or fix a path (this machine failed), fix the network or the login (the
//! registry), or run again (Ctrl-C). Each caller words the error with the reference and picks
//! the exit code for what it was doing (see `cache.rs` and `registry/mod.rs`).

use std::{fmt, io};

#[derive(Debug)]
pub(crate) enum ImageError {
    /// The image as found is not one mend can run: a manifest, config, layout or archive
    /// malformed or of a shape mend does not read, no linux/amd64 manifest, a user it does not
    /// list.
    Unusable(String),
    /// A blob read through its digest check failed: its bytes are not its digest's, or could not
    /// be read.
    Blob(io::Error),
    /// Reading or writing a file on this machine failed; `doing` says which
    /// (`cannot read PATH`).
    Disk { doing: String, source: io::Error },
    /// The registry failed while a blob was fetched, already worded with the reference and the
    /// fix.
    Pull(String),
    /// Ctrl-C stopped a fetch (the partial file stays for the next pull).
    Interrupted,
}

impl ImageError {
    pub(super) fn unusable(why: impl Into<String>) -> ImageError {
        ImageError::Unusable(why.into())
    }

    /// A closure that words an I/O error as `doing: error`.
    pub(super) fn disk(doing: impl Into<String>) -> impl Fn(io::Error) -> ImageError {
        let doing = doing.into();
        move |source| ImageError::Disk {
            doing: doing.clone(),
            source,
        }
    }
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageError::Unusable(why) | ImageError::Pull(why) => f.write_str(why),
            ImageError::Blob(source) => source.fmt(f),
            ImageError::Disk { doing, source } => write!(f, "{doing}: {source}"),
            ImageError::Interrupted => f.write_str("stopped by Ctrl-C"),
        }
    }
}

impl std::error::Error for ImageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImageError::Blob(source) | ImageError::Disk { source, .. } => Some(source),
            ImageError::Unusable(_) | ImageError::Pull(_) | ImageError::Interrupted => None,
        }
    }
}

/// A digest an image names that is no sha256 digest makes the image unusable.
impl From<crate::oci::digest::DigestError> for ImageError {
    fn from(error: crate::oci::digest::DigestError) -> ImageError {
        ImageError::Unusable(error.to_string())
    }
}
