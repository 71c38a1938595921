//! `oci:PATH[:TAG]`: an OCI image layout folder (`oci-layout`, `index.json`, `blobs/sha256/…`),
//! as `skopeo copy`, `umoci` and `buildah push oci:` write one. Read in place, every blob checked.

use std::fs::{self, File};
use std::io::{BufReader, Read};

use camino::{Utf8Path, Utf8PathBuf};

use super::error::ImageError;
use super::manifest::{choose_platform, Descriptor, MAX_JSON_BYTES};
use super::source::{resolve, Blobs, LayerStream, Resolved};
use crate::oci::digest::{Digest, Verified};

/// The annotation that names a manifest's tag in `index.json`.
const REF_NAME: &str = "org.opencontainers.image.ref.name";

pub(super) struct Layout {
    path: Utf8PathBuf,
}

impl Layout {
    pub(super) fn open(
        path: &Utf8Path,
        tag: Option<&str>,
    ) -> Result<(Layout, Resolved), ImageError> {
        if !path.join("oci-layout").is_file() {
            return Err(ImageError::unusable(format!(
                "{path} is not an OCI image layout (it has no `oci-layout` file): write one with `skopeo copy docker-archive:… oci:{path}`"
            )));
        }
        let layout = Layout {
            path: path.to_owned(),
        };
        let index = read_small(&path.join("index.json"))?;
        let listed: ListedIndex = serde_json::from_slice(&index).map_err(|err| {
            ImageError::unusable(format!("{path}/index.json is not an OCI index: {err}"))
        })?;
        let top = match tag {
            Some(tag) => listed
                .manifests
                .iter()
                .find(|descriptor| {
                    descriptor.annotations.get(REF_NAME).map(String::as_str) == Some(tag)
                })
                .ok_or_else(|| {
                    ImageError::unusable(format!("{path} has no image tagged `{tag}`"))
                })?,
            None => match listed.manifests.as_slice() {
                [only] => only,
                several => choose_platform(several)?,
            },
        };
        let bytes = layout.blob(top)?;
        let resolved = resolve(bytes, top.digest()?, |descriptor| layout.blob(descriptor))?;
        Ok((layout, resolved))
    }

    fn blob_path(&self, digest: &Digest) -> Utf8PathBuf {
        self.path.join("blobs/sha256").join(digest.hex())
    }

    /// A small blob (a manifest, a config), whole and checked.
    fn blob(&self, descriptor: &Descriptor) -> Result<Vec<u8>, ImageError> {
        let digest = descriptor.digest()?;
        if descriptor.size > MAX_JSON_BYTES {
            return Err(ImageError::unusable(format!(
                "its blob {digest} claims {} bytes, too many for a manifest or config",
                descriptor.size
            )));
        }
        let file = File::open(self.blob_path(&digest))
            .map_err(ImageError::disk(format!("cannot read its blob {digest}")))?;
        let mut bytes = Vec::new();
        Verified::new(file, digest, Some(descriptor.size))
            .read_to_end(&mut bytes)
            .map_err(ImageError::Blob)?;
        Ok(bytes)
    }
}

impl Blobs for Layout {
    fn layer(&mut self, _index: usize, layer: &Descriptor) -> Result<LayerStream<'_>, ImageError> {
        let digest = layer.digest()?;
        let file = File::open(self.blob_path(&digest))
            .map_err(ImageError::disk(format!("cannot read its layer {digest}")))?;
        Ok(Box::new(Verified::new(
            BufReader::with_capacity(1 << 16, file),
            digest,
            Some(layer.size),
        )))
    }
}

#[derive(serde::Deserialize)]
struct ListedIndex {
    manifests: Vec<Descriptor>,
}

pub(super) fn read_small(path: &Utf8Path) -> Result<Vec<u8>, ImageError> {
    let unreadable = ImageError::disk(format!("cannot read {path}"));
    let file = File::open(path).map_err(&unreadable)?;
    let mut bytes = Vec::new();
    file.take(MAX_JSON_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(&unreadable)?;
    if bytes.len() as u64 > MAX_JSON_BYTES {
        return Err(ImageError::unusable(format!(
            "{path} is larger than a manifest can be"
        )));
    }
    Ok(bytes)
}

/// What a local reference's cache entry is stamped with, so a rewritten layout or archive is
/// read again rather than the old root reused.
pub(super) fn stamp(path: &Utf8Path) -> String {
    let probe = if path.is_dir() {
        path.join("index.json")
    } else {
        path.to_owned()
    };
    fs::metadata(&probe).ok().map_or_else(String::new, |meta| {
        use std::os::unix::fs::MetadataExt;
        format!("{} {} {}", meta.len(), meta.mtime(), meta.mtime_nsec())
    })
}
