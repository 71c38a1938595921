//! Pulling over the registry v2 protocol, blocking, with ureq (already mend's HTTP client): the
//! crates that speak this protocol (oci-distribution, oci-client) are built on tokio and
//! reqwest, which a blocking shell would have to start a runtime for. What is read: a manifest
//! (an index is followed to linux/amd64), the config, and each layer, streamed into a file named
//! by its digest and checked as it streams. A pull cut short (Ctrl-C, a dropped connection)
//! leaves `<digest>.partial`, which the next pull continues with a `Range` request, or starts
//! again when the registry answers with the whole blob.

mod auth;
mod helper;
mod progress;

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use sha2::{Digest as _, Sha256};

use super::error::ImageError;
use super::lock::Lock;
use super::manifest::{Descriptor, ACCEPTED, MAX_JSON_BYTES};
use super::source::{resolve, Blobs, LayerStream, Resolved};
use crate::error::MendError;
use crate::oci::digest::{Digest, Verified};
use crate::oci::reference::RegistryRef;
use progress::Progress;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
const READ_TIMEOUT: Duration = Duration::from_secs(120);
const CHUNK: usize = 1 << 16;

pub(super) struct Registry {
    agent: ureq::Agent,
    reference: RegistryRef,
    /// The reference as the user wrote it, for every message.
    shown: String,
    base: String,
    /// The `Authorization` value that works, once a challenge was answered.
    authorization: Option<String>,
    blobs: Utf8PathBuf,
    /// Layers stored for this pull, removed once unpacked.
    stored: Vec<Utf8PathBuf>,
    progress: Progress,
}

/// Why a request failed, before it is worded for the user.
enum Failure {
    Status(u16),
    Network(String),
    /// The user's Docker login could not be read (a credential helper that cannot answer).
    Login(auth::LoginError),
    Other(String),
}

impl Registry {
    /// Resolves `reference` to one manifest and its config; layers are fetched as they are asked.
    pub(super) fn open(
        reference: &RegistryRef,
        blobs: &Utf8Path,
    ) -> Result<(Registry, Resolved), MendError> {
        let shown = crate::oci::ImageRef::Registry(reference.clone()).to_string();
        let mut registry = Registry {
            agent: ureq::AgentBuilder::new()
                .timeout_connect(CONNECT_TIMEOUT)
                .timeout_read(READ_TIMEOUT)
                .build(),
            reference: reference.clone(),
            base: reference.base_url(),
            authorization: None,
            blobs: blobs.to_owned(),
            stored: Vec::new(),
            progress: Progress::new(shown.clone(), 0),
            shown,
        };
        let key = reference.manifest_key();
        let top = registry
            .small(&format!("manifests/{key}"), true, None)
            .map_err(|failure| registry.worded(failure))?;
        let top_digest = Digest::of(&top);
        if let Some(pinned) = reference
            .digest
            .as_ref()
            .filter(|pinned| **pinned != top_digest)
        {
            return Err(registry.refused(format!("the registry sent a manifest hashing to {top_digest}, not the {pinned} the reference pins")));
        }
        let resolved = resolve(top, top_digest, |descriptor| {
            let manifest = ACCEPTED.contains(&descriptor.media_type.as_str());
            let kind = if manifest { "manifests" } else { "blobs" };
            registry
                .small(
                    &format!("{kind}/{}", descriptor.digest),
                    manifest,
                    Some(descriptor),
                )
                .map_err(|failure| ImageError::Pull(registry.worded(failure).message))
        })
        .map_err(|error| registry.refused(error.to_string()))?;
        registry.progress = Progress::new(
            registry.shown.clone(),
            resolved.layers.iter().map(|layer| layer.size).sum(),
        );
        Ok((registry, resolved))
    }

    fn refused(&self, message: String) -> MendError {
        MendError::refused(format!("cannot use the image {}: {message}", self.shown))
    }

    /// One line naming the reference and what to do.
    fn worded(&self, failure: Failure) -> MendError {
        let (shown, host) = (&self.shown, &self.reference.host);
        match failure {
            Failure::Status(code @ (401 | 403)) => MendError::usage(format!(
                "cannot pull {shown}: {host} refused access ({code}) — check the name; for a private image log in (`docker login {host}` writes ~/.docker/config.json, which mend reads)"
            )),
            Failure::Status(404) => MendError::usage(format!(
                "cannot pull {shown}: {host} has no such image or tag (404) — check the name and the tag"
            )),
            Failure::Status(code) => MendError::harness(format!(
                "cannot pull {shown}: {host} answered HTTP {code} — try again later"
            )),
            Failure::Network(err) => MendError::harness(format!(
                "cannot pull {shown}: cannot reach {host} ({err}) — check the network, or pull it where there is one (`mend images pull {shown}`) into a cache this machine reads (--image-cache DIR)"
            )),
            Failure::Login(err) => MendError::usage(format!("cannot pull {shown}: {err}")),
            Failure::Other(err) => MendError::harness(format!("cannot pull {shown}: {err}")),
        }
    }

    /// GET `/v2/<name>/<path>`, answering one authentication challenge.
    fn get(&mut self, path: &str, manifest: bool, from: u64) -> Result<ureq::Response, Failure> {
        let url = format!("{}/v2/{}/{path}", self.base, self.reference.name);
        for answered in [false, true] {
            let mut request = self.agent.get(&url);
            if manifest {
                request = request.set("Accept", &ACCEPTED.join(", "));
            }
            if let Some(value) = &self.authorization {
                request = request.set("Authorization", value);
            }
            if from > 0 {
                request = request.set("Range", &format!("bytes={from}-"));
            }
            match request.call() {
                Ok(response) => return Ok(response),
                Err(ureq::Error::Status(401, response)) if !answered => {
                    let challenge = response
                        .header("WWW-Authenticate")
                        .unwrap_or_default()
                        .to_owned();
                    self.authorization = Some(self.answer(&challenge)?);
                }
                Err(ureq::Error::Status(code, _)) => return Err(Failure::Status(code)),
                Err(ureq::Error::Transport(err)) => return Err(Failure::Network(err.to_string())),
            }
        }
        Err(Failure::Status(401))
    }

    /// The `Authorization` a challenge asks for: a bearer token from its realm (asked with the
    /// user's login when there is one, else anonymously), or the login itself for `Basic`.
    fn answer(&self, header: &str) -> Result<String, Failure> {
        // Docker Hub's every spelling finds its login, so the host as written is enough.
        let login = auth::basic_for(&self.reference.host).map_err(Failure::Login)?;
        let challenge = auth::parse_challenge(header).ok_or(Failure::Status(401))?;
        if challenge.scheme == "basic" {
            return login.ok_or(Failure::Status(401));
        }
        let realm = challenge
            .params
            .get("realm")
            .filter(|_| challenge.scheme == "bearer")
            .ok_or(Failure::Status(401))?;
        let scope = challenge
            .params
            .get("scope")
            .cloned()
            .unwrap_or_else(|| format!("repository:{}:pull", self.reference.name));
        let mut request = self.agent.get(realm).query("scope", &scope);
        if let Some(service) = challenge.params.get("service") {
            request = request.query("service", service);
        }
        if let Some(login) = &login {
            request = request.set("Authorization", login);
        }
        let response = request.call().map_err(|err| match err {
            ureq::Error::Status(code, _) => Failure::Status(code),
            ureq::Error::Transport(err) => Failure::Network(err.to_string()),
        })?;
        #[derive(serde::Deserialize)]
        struct Token {
            token: Option<String>,
            access_token: Option<String>,
        }
        let text = read_limited(response.into_reader())
            .map_err(|err| Failure::Other(format!("its token service answered badly: {err}")))?;
        let token: Token = serde_json::from_slice(&text).map_err(|err| {
            Failure::Other(format!("its token service answered with no token: {err}"))
        })?;
        token
            .token
            .or(token.access_token)
            .map(|token| format!("Bearer {token}"))
            .ok_or(Failure::Other(
                "its token service answered with no token".into(),
            ))
    }

    /// A manifest or config, whole; checked against `descriptor` when one names it.
    fn small(
        &mut self,
        path: &str,
        manifest: bool,
        descriptor: Option<&Descriptor>,
    ) -> Result<Vec<u8>, Failure> {
        let response = self.get(path, manifest, 0)?;
        let bytes = read_limited(response.into_reader())
            .map_err(|err| Failure::Network(err.to_string()))?;
        if let Some(descriptor) = descriptor {
            let digest = descriptor
                .digest()
                .map_err(|err| Failure::Other(err.to_string()))?;
            let mut checked = Vec::new();
            Verified::new(&bytes[..], digest, Some(descriptor.size))
                .read_to_end(&mut checked)
                .map_err(|err| Failure::Other(err.to_string()))?;
        }
        Ok(bytes)
    }

    /// The layer in the blob store, fetched (or its partial file continued) unless it is there.
    fn store(&mut self, layer: &Descriptor) -> Result<Utf8PathBuf, ImageError> {
        let digest = layer.digest()?;
        let blobs = self.blobs.clone();
        let whole = blobs.join(digest.hex());
        let io_fail = ImageError::disk(format!("cannot write its layer into {blobs}"));
        // One writer per blob, whichever images share it.
        let _lock = Lock::exclusive(blobs.join(format!("{}.lock", digest.hex())).as_std_path())
            .map_err(&io_fail)?;
        if !whole.exists() {
            let partial = blobs.join(format!("{}.partial", digest.hex()));
            self.fetch(layer, &digest, &partial)?;
            fs::rename(&partial, &whole).map_err(&io_fail)?;
        }
        self.stored.push(whole.clone());
        Ok(whole)
    }

    /// Streams the blob into `partial`, continuing what is there, and checks the whole.
    fn fetch(
        &mut self,
        layer: &Descriptor,
        digest: &Digest,
        partial: &Utf8Path,
    ) -> Result<(), ImageError> {
        let io_fail = ImageError::disk(format!("cannot write {partial}"));
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .append(true)
            .open(partial)
            .map_err(&io_fail)?;
        let mut hasher = Sha256::new();
        let mut have = io::copy(
            &mut File::open(partial).map_err(&io_fail)?,
            &mut HashInto(&mut hasher),
        )
        .map_err(&io_fail)?;
        if have >= layer.size {
            (have, hasher) = (0, Sha256::new());
        }
        let response = self
            .get(&format!("blobs/{digest}"), false, have)
            .map_err(|failure| ImageError::Pull(self.worded(failure).message))?;
        if response.status() != 206 {
            // The registry sent the whole blob: start the file again.
            file.set_len(0).map_err(&io_fail)?;
            (have, hasher) = (0, Sha256::new());
        }
        self.progress.add(have);
        let mut body = response.into_reader().take(layer.size - have + 1);
        let mut buffer = vec![0; CHUNK];
        loop {
            if crate::interrupt::requested() {
                // The partial file stays: the next pull goes on from it.
                return Err(ImageError::Interrupted);
            }
            let count = body.read(&mut buffer).map_err(|err| {
                ImageError::Pull(self.worded(Failure::Network(err.to_string())).message)
            })?;
            if count == 0 {
                break;
            }
            file.write_all(&buffer[..count]).map_err(&io_fail)?;
            hasher.update(&buffer[..count]);
            have += count as u64;
            self.progress.add(count as u64);
        }
        let actual = Digest::parse(&format!("sha256:{}", hex(&hasher.finalize())))?;
        if have != layer.size || actual != *digest {
            let _ = fs::remove_file(partial);
            return Err(ImageError::unusable(format!("blob {digest} arrived as {have} bytes hashing to {actual} (its manifest says {} bytes): the registry or the network corrupted it, nothing of it was kept", layer.size)));
        }
        Ok(())
    }
}

impl Blobs for Registry {
    fn layer(&mut self, _index: usize, layer: &Descriptor) -> Result<LayerStream<'_>, ImageError> {
        let path = self.store(layer)?;
        let file = File::open(&path).map_err(ImageError::disk(format!("cannot read {path}")))?;
        // Checked as it was stored, by this process, under the blob's lock.
        Ok(Box::new(BufReader::with_capacity(CHUNK, file)))
    }

    fn done(&mut self) {
        self.progress.finish();
        for path in self.stored.drain(..) {
            let _ = fs::remove_file(path);
        }
    }
}

struct HashInto<'a>(&'a mut Sha256);

impl Write for HashInto<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn read_limited(reader: impl Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(MAX_JSON_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_JSON_BYTES {
        return Err(io::Error::other(
            "the answer is larger than a manifest can be",
        ));
    }
    Ok(bytes)
}
