//! `[environment] image = "REF"`: where an image comes from. A registry reference is read the way
//! Docker reads it (`python:3.11` is `docker.io/library/python:3.11`), so a name copied from a
//! benchmark's table means what its authors meant.

use std::fmt;

use camino::Utf8PathBuf;

use crate::oci::digest::{Digest, DigestError};

/// Why a text is no image reference. Every caller takes it as the user's to fix; the digest's
/// own error is kept as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReferenceError {
    /// The `@sha256:…` part is no digest.
    Digest(DigestError),
    /// Anything else: the message names the forms that work.
    Malformed(String),
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferenceError::Digest(error) => error.fmt(f),
            ReferenceError::Malformed(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for ReferenceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReferenceError::Digest(error) => Some(error),
            ReferenceError::Malformed(_) => None,
        }
    }
}

impl From<DigestError> for ReferenceError {
    fn from(error: DigestError) -> ReferenceError {
        ReferenceError::Digest(error)
    }
}

/// A reference given on the command line is the user's to fix (exit 2).
impl From<ReferenceError> for crate::error::MendError {
    fn from(error: ReferenceError) -> crate::error::MendError {
        crate::error::MendError::usage(error.to_string())
    }
}

/// Docker Hub's name in references, and the host its API answers on.
const DOCKER_HUB: &str = "docker.io";
const DOCKER_HUB_API: &str = "registry-1.docker.io";
const DEFAULT_TAG: &str = "latest";

/// Where an image is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageRef {
    /// `host/name:tag` or `host/name@sha256:…`: pulled from a registry.
    Registry(RegistryRef),
    /// `oci:PATH[:TAG]`: an OCI image layout folder (as `skopeo copy … oci:PATH` writes one).
    OciLayout {
        /// The layout's folder.
        path: Utf8PathBuf,
        /// The tag of the layout's index to read; absent when it holds one image.
        tag: Option<String>,
    },
    /// `docker-archive:PATH`: a tar as `docker save` writes it.
    DockerArchive {
        /// The tar's path.
        path: Utf8PathBuf,
    },
}

/// `host/name:tag` or `host/name@sha256:…`, with Docker's defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryRef {
    /// As written in references (`docker.io`, `ghcr.io`, `127.0.0.1:5000`).
    pub host: String,
    /// The repository's name on that host (`library/python`).
    pub name: String,
    pub tag: String,
    /// When given, the manifest pulled must hash to it, whatever the tag says now.
    pub digest: Option<Digest>,
}

impl RegistryRef {
    /// The host that answers the v2 API.
    pub fn api_host(&self) -> &str {
        if self.host == DOCKER_HUB {
            DOCKER_HUB_API
        } else {
            &self.host
        }
    }

    /// Plain HTTP only on this machine's loopback, as Docker allows it there without configuration.
    pub fn base_url(&self) -> String {
        let host = self.api_host();
        let bare = host.rsplit_once(':').map_or(host, |(name, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                name
            } else {
                host
            }
        });
        let loopback = matches!(bare, "localhost" | "[::1]") || bare.starts_with("127.");
        let scheme = if loopback { "http" } else { "https" };
        format!("{scheme}://{host}")
    }

    /// What the manifest is asked for by: the digest when pinned, else the tag.
    pub fn manifest_key(&self) -> String {
        self.digest
            .as_ref()
            .map_or_else(|| self.tag.clone(), Digest::to_string)
    }
}

impl fmt::Display for ImageRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageRef::Registry(registry) => {
                write!(f, "{}/{}:{}", registry.host, registry.name, registry.tag)?;
                match &registry.digest {
                    Some(digest) => write!(f, "@{digest}"),
                    None => Ok(()),
                }
            }
            ImageRef::OciLayout { path, tag: None } => write!(f, "oci:{path}"),
            ImageRef::OciLayout {
                path,
                tag: Some(tag),
            } => write!(f, "oci:{path}:{tag}"),
            ImageRef::DockerArchive { path } => write!(f, "docker-archive:{path}"),
        }
    }
}

impl ImageRef {
    /// Reads `text`; a relative `oci:`/`docker-archive:` path is taken from `base` (the task
    /// file's folder).
    pub fn parse(text: &str, base: &camino::Utf8Path) -> Result<ImageRef, ReferenceError> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("oci:") {
            let (path, tag) = split_layout_tag(rest, base);
            return Ok(ImageRef::OciLayout { path, tag });
        }
        if let Some(rest) = text.strip_prefix("docker-archive:") {
            if rest.is_empty() {
                return Err(ReferenceError::Malformed(
                    "docker-archive: needs a path (docker-archive:image.tar)".into(),
                ));
            }
            return Ok(ImageRef::DockerArchive {
                path: base.join(rest),
            });
        }
        parse_registry(text).map(ImageRef::Registry)
    }
}

/// `PATH` or `PATH:TAG`: the last `:` starts a tag only when what follows is a tag's characters
/// and the whole text is not itself an existing folder.
fn split_layout_tag(rest: &str, base: &camino::Utf8Path) -> (Utf8PathBuf, Option<String>) {
    let whole = base.join(rest);
    match rest.rsplit_once(':') {
        Some((path, tag)) if !whole.is_dir() && is_tag(tag) && !path.is_empty() => {
            (base.join(path), Some(tag.to_owned()))
        }
        _ => (whole, None),
    }
}

fn is_tag(tag: &str) -> bool {
    !tag.is_empty()
        && tag.len() <= 128
        && tag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

fn parse_registry(text: &str) -> Result<RegistryRef, ReferenceError> {
    let example = "write host/name:tag, host/name@sha256:<64 hex>, oci:PATH or docker-archive:PATH";
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        return Err(ReferenceError::Malformed(format!(
            "`{text}` is not an image reference: {example}"
        )));
    }
    let (named, digest) = match text.split_once('@') {
        Some((named, digest)) => (named, Some(Digest::parse(digest)?)),
        None => (text, None),
    };
    let (host, path) = match named.split_once('/') {
        Some((first, rest)) if first.contains(['.', ':']) || first == "localhost" => {
            (first.to_owned(), rest)
        }
        _ => (DOCKER_HUB.to_owned(), named),
    };
    // A colon after the last slash starts the tag; one before it is a port, handled above.
    let (name, tag) = match path.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name, tag),
        _ => (path, DEFAULT_TAG),
    };
    if !is_tag(tag) {
        return Err(ReferenceError::Malformed(format!(
            "`{text}`: `{tag}` is not a tag ({example})"
        )));
    }
    let valid_name = !name.is_empty()
        && name.split('/').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
        });
    if !valid_name {
        return Err(ReferenceError::Malformed(format!(
            "`{text}`: `{name}` is not a repository name (lowercase letters, digits, `._-`, parts joined by `/`; {example})"
        )));
    }
    let name = if host == DOCKER_HUB && !name.contains('/') {
        format!("library/{name}")
    } else {
        name.to_owned()
    };
    Ok(RegistryRef {
        host,
        name,
        tag: tag.to_owned(),
        digest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(host: &str, name: &str, tag: &str, digest: Option<&str>) -> ImageRef {
        ImageRef::Registry(RegistryRef {
            host: host.into(),
            name: name.into(),
            tag: tag.into(),
            digest: digest.map(|digest| Digest::parse(digest).unwrap()),
        })
    }

    #[test]
    fn references_read_as_docker_reads_them() {
        let base = camino::Utf8Path::new("/suite");
        let pinned = format!("sha256:{}", "ab".repeat(32));
        let cases = [
            (
                "python",
                registry("docker.io", "library/python", "latest", None),
            ),
            (
                "swebench/sweb.eval.x86_64.django__django-11099:v1",
                registry(
                    "docker.io",
                    "swebench/sweb.eval.x86_64.django__django-11099",
                    "v1",
                    None,
                ),
            ),
            (
                "ghcr.io/org/team/img:2.0",
                registry("ghcr.io", "org/team/img", "2.0", None),
            ),
            (
                "127.0.0.1:5000/py",
                registry("127.0.0.1:5000", "py", "latest", None),
            ),
            (
                &format!("localhost/py:3@{pinned}"),
                registry("localhost", "py", "3", Some(&pinned)),
            ),
            (
                "oci:layout",
                ImageRef::OciLayout {
                    path: "/suite/layout".into(),
                    tag: None,
                },
            ),
            (
                "oci:/abs/layout:v2",
                ImageRef::OciLayout {
                    path: "/abs/layout".into(),
                    tag: Some("v2".into()),
                },
            ),
            (
                "docker-archive:img.tar",
                ImageRef::DockerArchive {
                    path: "/suite/img.tar".into(),
                },
            ),
        ];
        let parsed: Vec<ImageRef> = cases
            .iter()
            .map(|(text, _)| ImageRef::parse(text, base).unwrap())
            .collect();
        let expected: Vec<ImageRef> = cases.iter().map(|(_, image)| image.clone()).collect();
        assert_eq!(parsed, expected);
    }

    #[test]
    fn malformed_references_are_refused_with_the_forms_that_work() {
        let base = camino::Utf8Path::new("/");
        for text in [
            "",
            "Upper/Case",
            "name:bad tag",
            "name@sha256:short",
            "host.io//x",
            "docker-archive:",
        ] {
            let err = ImageRef::parse(text, base).unwrap_err().to_string();
            assert!(
                err.contains("docker-archive:") || err.contains("sha256"),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn only_loopback_is_spoken_to_in_plain_http() {
        let url = |text: &str| match ImageRef::parse(text, camino::Utf8Path::new("/")).unwrap() {
            ImageRef::Registry(registry) => registry.base_url(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            [
                url("127.0.0.1:5000/a"),
                url("localhost:80/a"),
                url("ghcr.io/a/b"),
                url("python")
            ],
            [
                "http://127.0.0.1:5000",
                "http://localhost:80",
                "https://ghcr.io",
                "https://registry-1.docker.io"
            ]
        );
    }
}
