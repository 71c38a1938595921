//! The content-addressed cache of unpacked images, shared by every attempt and every `--jobs`
//! worker of the machine: `<cache>/sha256-<hex>/` holds `rootfs/` and the image's
//! `config.json`, named by the manifest's digest. A root is unpacked into a temporary folder
//! beside it and renamed into place whole, under the image's lock: a killed pull or unpack
//! leaves at most a temporary folder, which is never used and is removed by the next unpack.

use std::fs;
use std::path::{Path, PathBuf};

use camino::{Utf8Path, Utf8PathBuf};

use super::archive::Archive;
use super::error::ImageError;
use super::layout::{self, Layout};
use super::lock::Lock;
use super::manifest::ImageConfig;
use super::registry::Registry;
use super::source::{Blobs, Resolved};
use super::unpack::{Refusal, Unpacker, LIMITS};
use crate::atomic;
use crate::error::MendError;
use crate::oci::digest::Digest;
use crate::oci::ImageRef;

const ROOT_PREFIX: &str = "sha256-";
const UNPACKING_PREFIX: &str = ".unpacking-";
const ROOTFS: &str = "rootfs";
const CONFIG: &str = "config.json";

/// An image ready to run: its root folder and how its config says to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// The image's manifest digest, which names its folder in the cache.
    pub digest: Digest,
    /// The unpacked file system the commands run in.
    pub root: Utf8PathBuf,
    /// The config's user, environment and working folder.
    pub config: ImageConfig,
}

/// One cached image, for `mend images`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub digest: String,
    pub bytes: u64,
    pub references: Vec<String>,
}

/// The folder of this machine's unpacked images, one per digest, shared by every run.
pub struct ImageCache {
    dir: Utf8PathBuf,
}

impl ImageCache {
    /// `--image-cache DIR`, else `$XDG_CACHE_HOME/mend/images`, else `~/.cache/mend/images`.
    pub fn locate(flag: Option<&Utf8Path>) -> Result<ImageCache, MendError> {
        let env = |name| {
            std::env::var(name)
                .ok()
                .filter(|value: &String| !value.is_empty())
        };
        let dir = match (flag, env("XDG_CACHE_HOME"), env("HOME")) {
            (Some(dir), _, _) => dir.to_owned(),
            (None, Some(cache), _) => Utf8PathBuf::from(cache).join("mend/images"),
            (None, None, Some(home)) => Utf8PathBuf::from(home).join(".cache/mend/images"),
            (None, None, None) => {
                return Err(MendError::usage(
                    "no folder for the image cache: set HOME or XDG_CACHE_HOME, or pass --image-cache DIR",
                ))
            }
        };
        Ok(ImageCache { dir })
    }

    /// A cache in this folder, whatever the environment says (tests, `eval`'s shards).
    pub fn at(dir: Utf8PathBuf) -> ImageCache {
        ImageCache { dir }
    }

    /// The cache's folder, as messages and `mend images` name it.
    pub fn dir(&self) -> &Utf8Path {
        &self.dir
    }

    /// The image's root, unpacked now unless this machine has it already (a tag is read as the
    /// cache last saw it: `mend images pull` reads it again).
    pub fn ensure(&self, image: &ImageRef) -> Result<Unpacked, MendError> {
        if let Some(found) = self.remembered(image).and_then(|digest| self.load(&digest)) {
            return Ok(found);
        }
        self.pull(image)
    }

    /// Reads the reference again (a registry is asked what its tag names now), then unpacks
    /// what this machine does not have yet.
    pub fn pull(&self, image: &ImageRef) -> Result<Unpacked, MendError> {
        let harness = |err: std::io::Error| {
            MendError::harness(format!("cannot use the image cache {}: {err} — pass --image-cache DIR to use another folder", self.dir))
        };
        for folder in ["locks", "refs", "blobs/sha256"] {
            fs::create_dir_all(self.dir.join(folder)).map_err(harness)?;
        }
        let spill = tempfile::Builder::new()
            .prefix(UNPACKING_PREFIX)
            .tempdir_in(&self.dir)
            .map_err(harness)?;
        let (mut blobs, resolved) = self.open(image, spill.path())?;
        let key = resolved.key.clone();
        if self.load(&key).is_none() {
            let _lock = Lock::exclusive(
                self.dir
                    .join("locks")
                    .join(key.hex())
                    .with_extension("lock")
                    .as_std_path(),
            )
            .map_err(harness)?;
            if self.load(&key).is_none() {
                self.unpack(image, &resolved, blobs.as_mut())?;
            }
        }
        blobs.done();
        let remembered = format!("{key}\n{image}\n");
        atomic::write_derived_file(&self.reference_file(image), |out| {
            out.write_all(remembered.as_bytes())
        })
        .map_err(harness)?;
        self.load(&key).ok_or_else(|| {
            MendError::harness(format!(
                "the root of {image} vanished from {} as it was unpacked",
                self.dir
            ))
        })
    }

    fn open(
        &self,
        image: &ImageRef,
        spill: &Path,
    ) -> Result<(Box<dyn Blobs>, Resolved), MendError> {
        // A local layout or archive mend cannot read is the reference's to fix.
        let refuse =
            |error: ImageError| MendError::usage(format!("cannot use the image {image}: {error}"));
        match image {
            ImageRef::OciLayout { path, tag } => {
                let (layout, resolved) = Layout::open(path, tag.as_deref()).map_err(refuse)?;
                Ok((Box::new(layout), resolved))
            }
            ImageRef::DockerArchive { path } => {
                let (archive, resolved) = Archive::open(path, spill).map_err(refuse)?;
                Ok((Box::new(archive), resolved))
            }
            ImageRef::Registry(reference) => {
                let (registry, resolved) =
                    Registry::open(reference, &self.dir.join("blobs/sha256"))?;
                Ok((Box::new(registry), resolved))
            }
        }
    }

    /// Unpacks every layer into a temporary folder, then renames it into place; anything that
    /// fails removes the folder, so nothing half-made is ever found under the image's name.
    fn unpack(
        &self,
        image: &ImageRef,
        resolved: &Resolved,
        blobs: &mut dyn Blobs,
    ) -> Result<(), MendError> {
        self.remove_stale(&resolved.key);
        let temporary = self.dir.join(format!(
            "{UNPACKING_PREFIX}{}-{}",
            resolved.key.hex(),
            std::process::id()
        ));
        let result = unpack_into(temporary.as_std_path(), resolved, blobs).and_then(|()| {
            fs::rename(&temporary, self.root_dir(&resolved.key))
                .map_err(|err| Refusal::Io(err.to_string()))
        });
        if result.is_err() {
            let _ = fs::remove_dir_all(&temporary);
        }
        result.map_err(|refusal| match refusal {
            Refusal::Hostile(message) => MendError::refused(format!(
                "refused the image {image}: {message} — nothing of it was kept; use an image from a source you trust"
            )),
            Refusal::Io(message) => MendError::harness(format!(
                "cannot unpack the image {image} into {}: {message} — free some space or pass --image-cache DIR",
                self.dir
            )),
            // Already worded with the reference and the fix.
            Refusal::Fetch(message) => MendError::harness(message),
            Refusal::Interrupted => MendError::interrupted(format!(
                "the pull of {image} was stopped by Ctrl-C: no root of it was kept, and the next run goes on from the layers already fetched"
            )),
        })
    }

    /// Temporary folders of this image left by an unpack that was killed (its lock is held now,
    /// so no one else is writing them).
    fn remove_stale(&self, key: &Digest) {
        let prefix = format!("{UNPACKING_PREFIX}{}-", key.hex());
        for entry in fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }

    fn root_dir(&self, key: &Digest) -> Utf8PathBuf {
        self.dir.join(format!("{ROOT_PREFIX}{}", key.hex()))
    }

    /// The unpacked image named `key`, when it is whole.
    pub fn load(&self, key: &Digest) -> Option<Unpacked> {
        let dir = self.root_dir(key);
        let config = fs::read(dir.join(CONFIG)).ok()?;
        Some(Unpacked {
            digest: key.clone(),
            root: dir.join(ROOTFS),
            config: ImageConfig::read(&config).ok()?,
        })
    }

    /// Where the digest a reference last resolved to is kept: named by the reference and, for a
    /// local layout or archive, its size and time, so a rebuilt one is read again.
    fn reference_file(&self, image: &ImageRef) -> Utf8PathBuf {
        let stamp = match image {
            ImageRef::OciLayout { path, .. } | ImageRef::DockerArchive { path } => {
                layout::stamp(path)
            }
            ImageRef::Registry(_) => String::new(),
        };
        self.dir
            .join("refs")
            .join(atomic::sha256_hex(format!("{image}\n{stamp}").as_bytes()))
    }

    fn remembered(&self, image: &ImageRef) -> Option<Digest> {
        let text = fs::read_to_string(self.reference_file(image)).ok()?;
        Digest::parse(text.lines().next()?).ok()
    }

    /// Every whole image in the cache, with its size on disk and the references that named it.
    pub fn list(&self) -> Result<Vec<Listed>, MendError> {
        let mut references: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for entry in fs::read_dir(self.dir.join("refs"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(text) = fs::read_to_string(entry.path()) {
                let mut lines = text.lines();
                if let (Some(digest), Some(name)) = (lines.next(), lines.next()) {
                    references
                        .entry(digest.to_owned())
                        .or_default()
                        .push(name.to_owned());
                }
            }
        }
        let mut listed = Vec::new();
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(listed),
            Err(err) => {
                return Err(MendError::harness(format!(
                    "cannot read the image cache {}: {err}",
                    self.dir
                )))
            }
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(hex) = name.strip_prefix(ROOT_PREFIX) else {
                continue;
            };
            let digest = format!("sha256:{hex}");
            let mut refs = references.remove(&digest).unwrap_or_default();
            refs.sort();
            listed.push(Listed {
                bytes: disk_usage(&entry.path()),
                digest,
                references: refs,
            });
        }
        listed.sort_by(|a, b| a.digest.cmp(&b.digest));
        Ok(listed)
    }

    /// Empties the cache: every root (each under its lock, so no unpack is cut), the blobs and
    /// the references. Returns how many roots and bytes went.
    pub fn prune(&self) -> Result<(usize, u64), MendError> {
        let listed = self.list()?;
        let fail = |err: std::io::Error| {
            MendError::harness(format!("cannot empty the image cache {}: {err}", self.dir))
        };
        let mut bytes = 0;
        for image in &listed {
            let hex = image.digest.trim_start_matches("sha256:");
            let _lock = Lock::exclusive(
                self.dir
                    .join("locks")
                    .join(format!("{hex}.lock"))
                    .as_std_path(),
            )
            .map_err(fail)?;
            fs::remove_dir_all(self.dir.join(format!("{ROOT_PREFIX}{hex}"))).map_err(fail)?;
            bytes += image.bytes;
        }
        // What killed unpacks left (never used, so nothing waits on it) goes too.
        let leftovers = fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| {
                entry
                    .file_name()
                    .to_string_lossy()
                    .starts_with(UNPACKING_PREFIX)
            });
        let folders: Vec<PathBuf> = ["refs", "blobs", "locks"]
            .iter()
            .map(|folder| self.dir.join(folder).into_std_path_buf())
            .chain(leftovers.map(|entry| entry.path()))
            .collect();
        for folder in folders {
            match fs::remove_dir_all(folder) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(fail(err)),
                _ => {}
            }
        }
        Ok((listed.len(), bytes))
    }
}

fn unpack_into(
    temporary: &Path,
    resolved: &Resolved,
    blobs: &mut dyn Blobs,
) -> Result<(), Refusal> {
    let rootfs = temporary.join(ROOTFS);
    fs::create_dir_all(&rootfs).map_err(|err| Refusal::Io(err.to_string()))?;
    let mut unpacker = Unpacker::new(&rootfs, LIMITS);
    // Whatever failed after a Ctrl-C failed because of it.
    let cut = |refusal| {
        if crate::interrupt::requested() {
            Refusal::Interrupted
        } else {
            refusal
        }
    };
    for (index, layer) in resolved.layers.iter().enumerate() {
        let stream = blobs
            .layer(index, layer)
            .map_err(|error| cut(layer_refusal(error)))?;
        let mut stream = UntilInterrupted(stream);
        if let Err(refusal) = unpacker.apply(&mut stream).map_err(cut) {
            // A corrupt blob shows first as a broken gzip or tar: its digest says why.
            return Err(match std::io::copy(&mut stream, &mut std::io::sink()) {
                Err(err) if err.kind() == std::io::ErrorKind::InvalidData => {
                    Refusal::Hostile(err.to_string())
                }
                _ => refusal,
            });
        }
        // Whatever the tar reader left unread still counts for the digest.
        std::io::copy(&mut stream, &mut std::io::sink())?;
    }
    ImageConfig::read(&resolved.config).map_err(|error| Refusal::Hostile(error.to_string()))?;
    fs::write(temporary.join(CONFIG), &resolved.config)
        .map_err(|err| Refusal::Io(err.to_string()))?;
    Ok(())
}

/// Why a layer could not be had, by whose it is to fix: a layer whose bytes are not its digest's,
/// or an image mend cannot run, is the image's (refused); a blob this machine could not write or
/// read, or a registry that failed mid-pull, is the harness's, and the image is not blamed.
fn layer_refusal(error: ImageError) -> Refusal {
    match error {
        ImageError::Unusable(_) => Refusal::Hostile(error.to_string()),
        ImageError::Blob(ref source) if source.kind() == std::io::ErrorKind::InvalidData => {
            Refusal::Hostile(error.to_string())
        }
        ImageError::Blob(_) | ImageError::Disk { .. } => Refusal::Io(error.to_string()),
        ImageError::Pull(message) => Refusal::Fetch(message),
        ImageError::Interrupted => Refusal::Interrupted,
    }
}

/// A layer's stream that stops at the first Ctrl-C, so a large unpack is cut at once.
struct UntilInterrupted<R>(R);

impl<R: std::io::Read> std::io::Read for UntilInterrupted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if crate::interrupt::requested() {
            return Err(std::io::Error::other("interrupted"));
        }
        self.0.read(buf)
    }
}

/// Bytes on disk under `path`, each hard-linked file counted once.
fn disk_usage(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut seen = std::collections::HashSet::new();
    let mut total = 0;
    let mut pending: Vec<PathBuf> = vec![path.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder).into_iter().flatten().flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                pending.push(entry.path());
            } else if seen.insert((meta.dev(), meta.ino())) {
                total += meta.blocks() * 512;
            }
        }
    }
    total
}
