//! `docker-archive:PATH`: a tar as `docker save` (or `skopeo copy … docker-archive:`) writes it:
//! `manifest.json` naming the config and the layer files, each layer an uncompressed tar whose
//! hash is its `diff_id` in the config. The layers are taken out into a folder of the cache
//! first, since the tar may list them in any order.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use camino::Utf8Path;
use serde::Deserialize;

use super::error::ImageError;
use super::manifest::{Descriptor, ImageConfig, MAX_JSON_BYTES};
use super::source::{Blobs, LayerStream, Resolved};
use crate::oci::digest::{Digest, Verified};

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Saved {
    config: String,
    layers: Vec<String>,
}

pub(super) struct Archive {
    spilled: Vec<PathBuf>,
}

impl Archive {
    /// Reads `path`'s first image, its layers written under `spill` (a folder that goes with
    /// the unpack's temporary one).
    pub(super) fn open(path: &Utf8Path, spill: &Path) -> Result<(Archive, Resolved), ImageError> {
        let fail = ImageError::disk(format!("cannot read {path}"));
        let manifest = read_member(path, "manifest.json")?
            .ok_or_else(|| ImageError::unusable(format!("{path} is not a docker-archive: it has no manifest.json (write one with `docker save` or `skopeo copy … docker-archive:{path}`)")))?;
        let saved: Vec<Saved> = serde_json::from_slice(&manifest).map_err(|err| {
            ImageError::unusable(format!(
                "{path}: its manifest.json is not docker save's: {err}"
            ))
        })?;
        let image = saved
            .into_iter()
            .next()
            .ok_or_else(|| ImageError::unusable(format!("{path} holds no image")))?;
        let config = read_member(path, &image.config)?.ok_or_else(|| {
            ImageError::unusable(format!("{path} lacks its config {}", image.config))
        })?;
        let diff_ids = ImageConfig::read(&config)?
            .rootfs
            .unwrap_or_default()
            .diff_ids;
        if diff_ids.len() != image.layers.len() {
            return Err(ImageError::unusable(format!(
                "{path}: its config lists {} layers, its manifest {}",
                diff_ids.len(),
                image.layers.len()
            )));
        }
        let wanted: BTreeMap<String, usize> = image
            .layers
            .iter()
            .enumerate()
            .map(|(index, name)| (clean(name).to_owned(), index))
            .collect();
        let mut spilled = vec![PathBuf::new(); image.layers.len()];
        let mut archive = tar::Archive::new(BufReader::new(File::open(path).map_err(&fail)?));
        for entry in archive.entries().map_err(&fail)? {
            let mut entry = entry.map_err(&fail)?;
            let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            if let Some(index) = wanted.get(clean(&name)) {
                let target = spill.join(index.to_string());
                io::copy(&mut entry, &mut File::create(&target).map_err(&fail)?).map_err(&fail)?;
                spilled[*index] = target;
            }
        }
        let mut layers = Vec::new();
        for ((name, diff_id), file) in image.layers.iter().zip(&diff_ids).zip(&spilled) {
            let size = file
                .metadata()
                .map_err(|_| ImageError::unusable(format!("{path} lacks its layer {name}")))?
                .len();
            Digest::parse(diff_id)?;
            layers.push(Descriptor {
                media_type: String::new(),
                digest: diff_id.clone(),
                size,
                platform: None,
                annotations: BTreeMap::new(),
            });
        }
        let resolved = Resolved {
            key: Digest::of(&config),
            config,
            layers,
        };
        Ok((Archive { spilled }, resolved))
    }
}

impl Blobs for Archive {
    fn layer(&mut self, index: usize, layer: &Descriptor) -> Result<LayerStream<'_>, ImageError> {
        let file = File::open(&self.spilled[index]).map_err(ImageError::disk(
            "cannot read a layer taken out of the archive",
        ))?;
        Ok(Box::new(Verified::new(
            BufReader::with_capacity(1 << 16, file),
            layer.digest()?,
            Some(layer.size),
        )))
    }
}

fn clean(name: &str) -> &str {
    name.trim_start_matches("./")
}

/// One small member of the tar, by name.
fn read_member(path: &Utf8Path, wanted: &str) -> Result<Option<Vec<u8>>, ImageError> {
    let fail = ImageError::disk(format!("cannot read {path}"));
    let mut archive = tar::Archive::new(BufReader::new(File::open(path).map_err(&fail)?));
    for entry in archive.entries().map_err(&fail)? {
        let entry = entry.map_err(&fail)?;
        if clean(&String::from_utf8_lossy(&entry.path_bytes())) == clean(wanted) {
            let mut bytes = Vec::new();
            entry
                .take(MAX_JSON_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(&fail)?;
            if bytes.len() as u64 > MAX_JSON_BYTES {
                return Err(ImageError::unusable(format!(
                    "{path}: {wanted} is larger than a manifest can be"
                )));
            }
            return Ok(Some(bytes));
        }
    }
    Ok(None)
}
