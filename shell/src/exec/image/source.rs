//! Where an image's blobs are read from, whatever the reference: a manifest resolved to this
//! platform, its config, and each layer opened in order as a stream checked against its digest.

use std::io::Read;

use super::error::ImageError;
use super::manifest::{choose_platform, Descriptor, Manifest, ManifestOrIndex, Parsed};
use crate::oci::digest::Digest;

/// An image resolved to one manifest.
pub(super) struct Resolved {
    /// The cache's name for the unpacked root: the manifest's digest (the config's for a
    /// `docker save` tar, which has no manifest blob).
    pub key: Digest,
    pub config: Vec<u8>,
    pub layers: Vec<Descriptor>,
}

/// A layer to apply, as a stream: one read from outside fails with `InvalidData` at its end when
/// its bytes are not its digest's (the caller reads it to the end); one mend stored itself was
/// checked as it was stored.
pub(super) type LayerStream<'a> = Box<dyn Read + 'a>;

/// What every kind of reference offers.
pub(super) trait Blobs {
    /// The `index`th layer's bytes (see [`LayerStream`]).
    fn layer(&mut self, index: usize, layer: &Descriptor) -> Result<LayerStream<'_>, ImageError>;
    /// Whatever was fetched only to be unpacked, removed once the root is whole.
    fn done(&mut self) {}
}

/// Follows an index down to the linux/amd64 manifest: `fetch` returns a blob's checked bytes.
pub(super) fn resolve(
    top: Vec<u8>,
    top_digest: Digest,
    mut fetch: impl FnMut(&Descriptor) -> Result<Vec<u8>, ImageError>,
) -> Result<Resolved, ImageError> {
    let (mut bytes, mut digest) = (top, top_digest);
    // An index of indexes is allowed, but not without end.
    for _ in 0..4 {
        match ManifestOrIndex::read(&bytes)? {
            Parsed::Index(manifests) => {
                let chosen = choose_platform(&manifests)?.clone();
                digest = chosen.digest()?;
                bytes = fetch(&chosen)?;
            }
            Parsed::Manifest(Manifest { config, layers }) => {
                let config = fetch(&config)?;
                return Ok(Resolved {
                    key: digest,
                    config,
                    layers,
                });
            }
        }
    }
    Err(ImageError::unusable(
        "its index nests more than four levels deep",
    ))
}
