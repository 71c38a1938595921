//! The JSON an image is described by (OCI's and Docker's v2 shapes, which agree on the fields
//! read here): an index lists one manifest per platform, a manifest lists the config and the
//! layers, the config says how to run it.

use serde::Deserialize;

use super::error::ImageError;
use crate::oci::digest::{Digest, DigestError};

pub(crate) const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub(crate) const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub(crate) const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
pub(crate) const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";

/// Every manifest shape mend reads, for an `Accept` header.
pub(crate) const ACCEPTED: [&str; 4] = [OCI_INDEX, OCI_MANIFEST, DOCKER_LIST, DOCKER_MANIFEST];

/// The only platform mend runs: bubblewrap runs the host's own kernel and CPU.
pub(crate) const OS: &str = "linux";
pub(crate) const ARCHITECTURE: &str = "amd64";

/// A manifest or config is never this large; a bigger answer is refused before it is parsed.
pub(crate) const MAX_JSON_BYTES: u64 = 4 << 20;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Descriptor {
    #[serde(default)]
    pub media_type: String,
    pub digest: String,
    pub size: u64,
    #[serde(default)]
    pub platform: Option<Platform>,
    #[serde(default)]
    pub annotations: std::collections::BTreeMap<String, String>,
}

impl Descriptor {
    pub(crate) fn digest(&self) -> Result<Digest, DigestError> {
        Digest::parse(&self.digest)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Platform {
    pub os: String,
    pub architecture: String,
}

/// An index or a manifest: which one is told by `mediaType`, or by which list it holds.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ManifestOrIndex {
    #[serde(default)]
    pub media_type: String,
    #[serde(default)]
    pub manifests: Option<Vec<Descriptor>>,
    #[serde(default)]
    pub config: Option<Descriptor>,
    #[serde(default)]
    pub layers: Option<Vec<Descriptor>>,
}

/// An image manifest: the config and the layers, bottom first.
#[derive(Debug, Clone)]
pub(crate) struct Manifest {
    pub config: Descriptor,
    pub layers: Vec<Descriptor>,
}

pub(crate) enum Parsed {
    Index(Vec<Descriptor>),
    Manifest(Manifest),
}

impl ManifestOrIndex {
    pub(crate) fn read(bytes: &[u8]) -> Result<Parsed, ImageError> {
        let raw: ManifestOrIndex = serde_json::from_slice(bytes).map_err(|err| {
            ImageError::unusable(format!("its manifest is not JSON mend can read: {err}"))
        })?;
        match (raw.manifests, raw.config, raw.layers) {
            (Some(manifests), _, _) => Ok(Parsed::Index(manifests)),
            (None, Some(config), layers) => Ok(Parsed::Manifest(Manifest {
                config,
                layers: layers.unwrap_or_default(),
            })),
            _ => Err(ImageError::unusable(format!(
                "its manifest (mediaType `{}`) is neither an index nor an image manifest: only OCI and Docker v2 manifests are read (schema 1 images must be re-pushed)",
                raw.media_type
            ))),
        }
    }
}

/// The manifest of an index to run here: the linux/amd64 one, or the only one when none names a
/// platform (an OCI layout of one image).
pub(crate) fn choose_platform(manifests: &[Descriptor]) -> Result<&Descriptor, ImageError> {
    let images: Vec<&Descriptor> = manifests
        .iter()
        // Attestations (buildx's `unknown/unknown`) are not images to run.
        .filter(|descriptor| {
            descriptor
                .platform
                .as_ref()
                .is_none_or(|platform| platform.os != "unknown")
        })
        .collect();
    if let Some(found) = images.iter().find(|descriptor| {
        descriptor
            .platform
            .as_ref()
            .is_some_and(|platform| platform.os == OS && platform.architecture == ARCHITECTURE)
    }) {
        return Ok(found);
    }
    match images.as_slice() {
        [only] if only.platform.is_none() => Ok(only),
        _ => {
            let offered: Vec<String> = images
                .iter()
                .filter_map(|descriptor| descriptor.platform.as_ref())
                .map(|platform| format!("{}/{}", platform.os, platform.architecture))
                .collect();
            Err(ImageError::unusable(format!(
                "it has no {OS}/{ARCHITECTURE} image (it offers {}): mend runs images on this machine's own kernel and CPU",
                if offered.is_empty() { "none".to_owned() } else { offered.join(", ") }
            )))
        }
    }
}

/// The part of an image's config that says how to run it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ImageConfig {
    #[serde(default)]
    pub config: RunConfig,
    #[serde(default)]
    pub rootfs: Option<RootFs>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RunConfig {
    #[serde(default)]
    pub env: Option<Vec<String>>,
    #[serde(default)]
    pub working_dir: Option<String>,
    #[serde(default)]
    pub user: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct RootFs {
    #[serde(default)]
    pub diff_ids: Vec<String>,
}

impl ImageConfig {
    pub(crate) fn read(bytes: &[u8]) -> Result<ImageConfig, ImageError> {
        serde_json::from_slice(bytes).map_err(|err| {
            ImageError::unusable(format!("its config is not JSON mend can read: {err}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(os: &str, arch: &str) -> Descriptor {
        Descriptor {
            media_type: OCI_MANIFEST.into(),
            digest: format!("sha256:{}", "0".repeat(64)),
            size: 1,
            platform: Some(Platform {
                os: os.into(),
                architecture: arch.into(),
            }),
            annotations: Default::default(),
        }
    }

    #[test]
    fn an_index_gives_its_linux_amd64_image_or_says_what_it_offers() {
        let index = [
            descriptor("linux", "arm64"),
            descriptor("unknown", "unknown"),
            descriptor("linux", "amd64"),
        ];
        let chosen = choose_platform(&index).unwrap().platform.clone().unwrap();
        assert_eq!(
            (chosen.os.as_str(), chosen.architecture.as_str()),
            ("linux", "amd64")
        );
        assert_eq!(
            choose_platform(&index[..2]).unwrap_err().to_string(),
            "it has no linux/amd64 image (it offers linux/arm64): mend runs images on this machine's own kernel and CPU"
        );
    }
}
