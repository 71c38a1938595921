//! The real parts the image tests use, all on this machine: an OCI layout built once per test
//! run by `build-image.sh` (umoci, from this machine's Python), Debian's distribution registry
//! serving on loopback, and a token service in front of it answering as Docker Hub's does.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{python, wait_until};

/// The layout every test reads (tags `base` and `multi`), built once per run of this binary and
/// kept under target/ for the next run while the build script and the interpreter are the same.
pub fn layout() -> &'static Path {
    static LAYOUT: OnceLock<PathBuf> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/images/build-image.sh");
        let key = format!(
            "{:x}",
            sha2::Digest::finalize(sha2::Digest::chain_update(
                <sha2::Sha256 as sha2::Digest>::new(),
                [
                    std::fs::read(&script).unwrap(),
                    python().to_string_lossy().as_bytes().to_vec()
                ]
                .concat()
            ))
        );
        let out =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mend-test-image-{}", &key[..16]));
        if !out.join("index.json").exists() {
            let status = Command::new("bash")
                .arg(&script)
                .arg(python())
                .arg(&out)
                .status()
                .unwrap();
            assert!(
                status.success(),
                "building the test image failed: umoci is needed (`apt-get install umoci`)"
            );
        }
        out
    })
}

/// A writable copy of the layout (to tamper with).
pub fn layout_copy(into: &Path) -> PathBuf {
    let copy = into.join("layout");
    let status = Command::new("cp")
        .arg("-a")
        .arg(layout())
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    copy
}

/// A free loopback port (bound, then released for the server to take).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Debian's `docker-registry` on loopback, stopped (by its id) when dropped.
pub struct Registry {
    child: Child,
    pub address: String,
    _storage: tempfile::TempDir,
}

impl Registry {
    pub fn start() -> Registry {
        let storage = tempfile::tempdir().unwrap();
        let port = free_port();
        let config = storage.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n",
                storage.path().join("data").display()
            ),
        )
        .unwrap();
        let child = Command::new("docker-registry")
            .arg("serve")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("docker-registry runs (`apt-get install docker-registry`)");
        let address = format!("127.0.0.1:{port}");
        wait_until("the registry answers", || {
            TcpStream::connect(&address).is_ok()
        });
        Registry {
            child,
            address,
            _storage: storage,
        }
    }

    /// Pushes the layout's `tag` (every platform of an index) as `name:tag` with skopeo.
    pub fn push(&self, tag: &str, name: &str) {
        let output = Command::new("skopeo")
            .args([
                "--insecure-policy",
                "copy",
                "--all",
                "--quiet",
                "--dest-tls-verify=false",
            ])
            .arg(format!("oci:{}:{tag}", layout().display()))
            .arg(format!("docker://{}/{name}", self.address))
            .output()
            .expect("skopeo runs (`apt-get install skopeo`)");
        assert!(
            output.status.success(),
            "skopeo copy: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A token service in front of a registry, as Docker Hub's: requests without its token get 401
/// and a `Bearer realm=…` challenge; `/token` hands one out (only for `login`, when one is set).
/// Every request line it saw is kept, with its `Range`. Bounded: it stops after a minute.
pub struct TokenFront {
    pub address: String,
    pub seen: Arc<Mutex<Vec<String>>>,
}

const TOKEN: &str = "token-from-the-test-service";

impl TokenFront {
    pub fn start(upstream: &str, login: Option<&str>) -> TokenFront {
        TokenFront::start_paced(upstream, login, Duration::ZERO)
    }

    /// As [`TokenFront::start`], handing out the registry's answers 64 KiB at a time with
    /// `pause` between pieces, as a slow network does (for a pull to be cut midway).
    pub fn start_paced(upstream: &str, login: Option<&str>, pause: Duration) -> TokenFront {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (upstream, login, log, realm) = (
            upstream.to_owned(),
            login.map(str::to_owned),
            Arc::clone(&seen),
            address.clone(),
        );
        listener.set_nonblocking(true).unwrap();
        thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            let mut handled = 0;
            while Instant::now() < deadline && handled < 500 {
                match listener.accept() {
                    Ok((stream, _)) => {
                        handled += 1;
                        stream.set_nonblocking(false).unwrap();
                        let _ = serve(stream, &upstream, login.as_deref(), &realm, &log, pause);
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        TokenFront { address, seen }
    }
}

fn serve(
    mut client: TcpStream,
    upstream: &str,
    login: Option<&str>,
    realm: &str,
    log: &Mutex<Vec<String>>,
    pause: Duration,
) -> std::io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(client.try_clone()?);
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        head.push(line.trim_end().to_owned());
    }
    let request = head.first().cloned().unwrap_or_default();
    let header = |name: &str| {
        head.iter().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    let range = header("Range")
        .map(|range| format!(" Range: {range}"))
        .unwrap_or_default();
    log.lock().unwrap().push(format!("{request}{range}"));
    let path = request.split(' ').nth(1).unwrap_or("/").to_owned();
    let reply = |client: &mut TcpStream, status: &str, extra: &str, body: &str| {
        write!(
            client,
            "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    if path.starts_with("/token") {
        let expected = login.map(|pair| format!("Basic {}", base64_encode(pair.as_bytes())));
        if expected.is_some() && header("Authorization") != expected {
            return reply(
                &mut client,
                "401 Unauthorized",
                "",
                "{\"details\":\"login required\"}",
            );
        }
        return reply(
            &mut client,
            "200 OK",
            "Content-Type: application/json\r\n",
            &format!("{{\"token\":\"{TOKEN}\"}}"),
        );
    }
    if header("Authorization").as_deref() != Some(&format!("Bearer {TOKEN}")) {
        let name = path
            .trim_start_matches("/v2/")
            .split("/manifests/")
            .next()
            .unwrap_or("")
            .split("/blobs/")
            .next()
            .unwrap_or("");
        let challenge = format!("WWW-Authenticate: Bearer realm=\"http://{realm}/token\",service=\"mend-test\",scope=\"repository:{name}:pull\"\r\n");
        return reply(&mut client, "401 Unauthorized", &challenge, "");
    }
    let mut server = TcpStream::connect(upstream)?;
    write!(server, "{request}\r\nHost: {upstream}\r\n")?;
    for line in head.iter().skip(1) {
        let name = line.split(':').next().unwrap_or("").to_ascii_lowercase();
        if !matches!(name.as_str(), "authorization" | "connection" | "host") {
            write!(server, "{line}\r\n")?;
        }
    }
    write!(server, "Connection: close\r\n\r\n")?;
    let mut answer = Vec::new();
    server.read_to_end(&mut answer)?;
    for piece in answer.chunks(64 << 10) {
        client.write_all(piece)?;
        thread::sleep(pause);
    }
    Ok(())
}

fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `mend images …` (or any command) with its cache in `cache` and no Docker login of the user's.
pub fn mend_images(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> crate::common::Outcome {
    let empty_docker = cache.with_extension("docker");
    let mut command = crate::common::mend_command(Path::new(env!("CARGO_MANIFEST_DIR")));
    command
        .args(args)
        .arg("--image-cache")
        .arg(cache)
        .env("DOCKER_CONFIG", &empty_docker)
        // An image task looks `$MEND_PYTHON` up inside the image: the host's venv is not there.
        .env_remove("MEND_PYTHON");
    command.envs(env.iter().copied());
    crate::common::Outcome::from(command.output().unwrap())
}

/// `mend images pull REFERENCE` into `cache`, as `mend_images` runs it.
pub fn pull(cache: &Path, reference: &str) -> crate::common::Outcome {
    mend_images(cache, &["images", "pull", reference], &[])
}

/// Every entry directly in `dir`, sorted (empty when it does not exist).
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
