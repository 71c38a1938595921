//! Docker's credential helpers: `docker-credential-NAME get`, the registry's server address on
//! stdin, `{"ServerURL", "Username", "Secret"}` on stdout — the protocol `docker login` stores
//! logins through when `~/.docker/config.json` names `credsStore` or `credHelpers` (the OS
//! keychain, `pass`, a cloud's helper). Run as Docker runs it; its answer is never printed.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use camino::Utf8Path;
use serde::Deserialize;

/// A helper that asks nothing of the user answers at once; one that waits on a prompt is cut.
const HELPER_TIME: Duration = Duration::from_secs(30);

/// The user name a helper gives with an OAuth refresh token instead of a password.
const IDENTITY_TOKEN: &str = "<token>";

/// Why the user's Docker login could not be read: a credential helper the config names could
/// not answer. Whatever failed, the user fixes the helper or the config, so one shape serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoginError {
    /// `CONFIG names the credential helper `PROGRAM` (KEY)`.
    pub helper: String,
    /// What the helper did, and how to check it.
    pub why: String,
}

impl std::fmt::Display for LoginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, {}", self.helper, self.why)
    }
}

impl std::error::Error for LoginError {}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Answer {
    #[serde(default)]
    username: String,
    #[serde(default)]
    secret: String,
}

/// What the helper `name` has for `server`: `Some((user, secret))`, `None` when it holds no
/// login there (the pull goes on anonymously), or why it could not be asked.
pub(crate) fn get(
    config: &Utf8Path,
    name: &str,
    key: &str,
    server: &str,
) -> Result<Option<(String, String)>, LoginError> {
    let program = format!("docker-credential-{name}");
    let fail = |why: String| LoginError {
        helper: format!("{config} names the credential helper `{program}` ({key})"),
        why,
    };
    let mut child = Command::new(&program)
        .arg("get")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| {
            fail(match err.kind() {
                std::io::ErrorKind::NotFound => format!(
                    "which is not on PATH — install it, or remove `{key}` from the config to pull anonymously"
                ),
                _ => format!("which cannot start: {err}"),
            })
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        // A helper that exits before reading is judged by its exit code below.
        let _ = stdin.write_all(server.as_bytes());
    }
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(out) = stdout.as_mut() {
            let _ = out.take(1 << 20).read_to_end(&mut text);
        }
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < HELPER_TIME => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(format!("which gave no answer within {} s — check that it works: `echo {server} | {program} get`", HELPER_TIME.as_secs())));
            }
        }
    };
    let text = reader.join().unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    if !status.success() {
        // Every helper says so in these words when it has nothing for the server.
        if text.contains("credentials not found") {
            return Ok(None);
        }
        return Err(fail(format!(
            "which failed ({status}) — check it: `echo {server} | {program} get`"
        )));
    }
    let answer: Answer = serde_json::from_str(text.trim()).map_err(|_| {
        fail(format!("which answered with something other than its JSON — check it: `echo {server} | {program} get`"))
    })?;
    if answer.username.is_empty() || answer.secret.is_empty() {
        return Ok(None);
    }
    if answer.username == IDENTITY_TOKEN {
        return Err(fail(format!("which holds an identity token for {server}, which mend does not exchange — log in there with a password or an access token")));
    }
    Ok(Some((answer.username, answer.secret)))
}
