//! Who mend is to a registry: nobody (an anonymous token, as Docker Hub and GHCR hand out for
//! public images), or the user whose `docker login` is in `~/.docker/config.json`, there or in
//! the credential helper it names.

use std::collections::BTreeMap;

use base64::Engine as _;
use camino::Utf8PathBuf;
use serde::Deserialize;

use super::helper;
pub(crate) use helper::LoginError;

/// A `WWW-Authenticate` challenge: its scheme and parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Challenge {
    pub scheme: String,
    pub params: BTreeMap<String, String>,
}

/// Reads `Bearer realm="…",service="…",scope="…"` (quoted values may hold commas).
pub(super) fn parse_challenge(header: &str) -> Option<Challenge> {
    let header = header.trim();
    let (scheme, mut rest) = header.split_once(' ').unwrap_or((header, ""));
    let mut params = BTreeMap::new();
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        let Some((key, after)) = rest.split_once('=') else {
            break;
        };
        let (value, after) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"')?;
                (&quoted[..end], &quoted[end + 1..])
            }
            None => after.split_once(',').unwrap_or((after, "")),
        };
        params.insert(key.trim().to_ascii_lowercase(), value.to_owned());
        rest = after;
    }
    Some(Challenge {
        scheme: scheme.to_ascii_lowercase(),
        params,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DockerConfig {
    #[serde(default)]
    auths: BTreeMap<String, DockerAuth>,
    /// The helper every login is kept in (`docker-credential-NAME`).
    #[serde(default)]
    creds_store: Option<String>,
    /// A helper per registry host, before `credsStore`.
    #[serde(default)]
    cred_helpers: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct DockerAuth {
    #[serde(default)]
    auth: Option<String>,
}

/// Docker Hub's names, any of which `docker login` may have written.
const HUB_NAMES: [&str; 4] = [
    "docker.io",
    "index.docker.io",
    "registry-1.docker.io",
    "registry.hub.docker.com",
];

/// The server address Docker keeps Hub's login under, in `auths` and in a helper.
const HUB_SERVER: &str = "https://index.docker.io/v1/";

/// `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`.
fn config_path() -> Option<Utf8PathBuf> {
    match std::env::var("DOCKER_CONFIG") {
        Ok(dir) if !dir.is_empty() => Some(Utf8PathBuf::from(dir).join("config.json")),
        _ => std::env::var("HOME")
            .ok()
            .map(|home| Utf8PathBuf::from(home).join(".docker/config.json")),
    }
}

/// The `Basic …` value for `host` from the user's Docker config, if they logged in there; an
/// error when the config names a credential helper that cannot answer.
pub(crate) fn basic_for(host: &str) -> Result<Option<String>, LoginError> {
    let Some(path) = config_path() else {
        return Ok(None);
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    basic_in(&text, host, |name, key, server| {
        helper::get(&path, name, key, server)
    })
}

/// Where Docker looks, in its order: the host's own helper (`credHelpers`), else the store
/// (`credsStore`), else the `auths` entry. `ask` runs a helper: (name, key, server address).
pub(crate) fn basic_in(
    config: &str,
    host: &str,
    ask: impl Fn(&str, &str, &str) -> Result<Option<(String, String)>, LoginError>,
) -> Result<Option<String>, LoginError> {
    let Ok(config) = serde_json::from_str::<DockerConfig>(config) else {
        return Ok(None);
    };
    let hub = HUB_NAMES.contains(&host);
    let same = |key: &str| {
        let bare = key
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        let bare = bare.split('/').next().unwrap_or(bare);
        bare == host || (HUB_NAMES.contains(&bare) && hub)
    };
    let server = if hub { HUB_SERVER } else { host };
    let helper = match config.cred_helpers.iter().find(|(key, _)| same(key)) {
        Some((_, name)) => Some((name.as_str(), "credHelpers")),
        None => config
            .creds_store
            .as_deref()
            .filter(|name| !name.is_empty())
            .map(|name| (name, "credsStore")),
    };
    if let Some((name, key)) = helper {
        return Ok(ask(name, key, server)?.map(|(user, secret)| {
            let pair = format!("{user}:{secret}");
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        }));
    }
    let Some(auth) = config
        .auths
        .iter()
        .find(|(key, _)| same(key))
        .and_then(|(_, entry)| entry.auth.as_ref())
    else {
        return Ok(None);
    };
    // Checked to be `user:password` in base64 so a broken entry is not sent.
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(auth.trim())
        .ok();
    let pair = decoded.and_then(|bytes| String::from_utf8(bytes).ok());
    Ok(pair
        .filter(|pair| pair.contains(':'))
        .map(|_| format!("Basic {}", auth.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_read_as_docker_hub_and_ghcr_send_them() {
        let hub = parse_challenge(r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/python:pull,push""#).unwrap();
        let params: Vec<(&str, &str)> = hub
            .params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            (hub.scheme.as_str(), params),
            (
                "bearer",
                vec![
                    ("realm", "https://auth.docker.io/token"),
                    ("scope", "repository:library/python:pull,push"),
                    ("service", "registry.docker.io")
                ]
            )
        );
        let basic = parse_challenge(r#"Basic realm=registry"#).unwrap();
        assert_eq!(
            (
                basic.scheme.as_str(),
                basic.params.get("realm").map(String::as_str)
            ),
            ("basic", Some("registry"))
        );
    }

    #[test]
    fn a_login_is_found_under_any_of_its_host_spellings() {
        let token = base64::engine::general_purpose::STANDARD.encode("me:secret");
        let config = format!(
            r#"{{"auths":{{"https://index.docker.io/v1/":{{"auth":"{token}"}},"ghcr.io":{{"auth":"{token}"}},"bad.io":{{"auth":"bm90LWEtcGFpcg=="}}}}}}"#
        );
        let never = |_: &str, _: &str, _: &str| {
            Err(LoginError {
                helper: "no helper".to_owned(),
                why: "is named".to_owned(),
            })
        };
        let found: Vec<Result<Option<String>, LoginError>> =
            ["docker.io", "ghcr.io", "quay.io", "bad.io"]
                .iter()
                .map(|host| basic_in(&config, host, never))
                .collect();
        let expected = Ok(Some(format!("Basic {token}")));
        assert_eq!(found, [expected.clone(), expected, Ok(None), Ok(None)]);
    }

    #[test]
    fn a_hosts_own_helper_comes_before_the_store_and_the_store_before_auths() {
        let token = base64::engine::general_purpose::STANDARD.encode("from:auths");
        let config = format!(
            r#"{{"auths":{{"ghcr.io":{{"auth":"{token}"}}}},"credsStore":"desktop","credHelpers":{{"gcr.io":"gcloud","index.docker.io":"hub"}}}}"#
        );
        let asked = std::cell::RefCell::new(Vec::new());
        let ask = |name: &str, key: &str, server: &str| {
            asked.borrow_mut().push(format!("{name} {key} {server}"));
            Ok((name != "desktop" || server == "ghcr.io")
                .then(|| (format!("{name}-user"), "pw".to_owned())))
        };
        let basic = |pair: &str| {
            Ok(Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )))
        };
        let found: Vec<Result<Option<String>, LoginError>> =
            ["gcr.io", "docker.io", "ghcr.io", "quay.io"]
                .iter()
                .map(|host| basic_in(&config, host, ask))
                .collect();
        assert_eq!(
            (found, asked.into_inner()),
            (
                vec![
                    basic("gcloud-user:pw"),
                    basic("hub-user:pw"),
                    basic("desktop-user:pw"),
                    Ok(None)
                ],
                vec![
                    "gcloud credHelpers gcr.io".to_owned(),
                    "hub credHelpers https://index.docker.io/v1/".to_owned(),
                    "desktop credsStore ghcr.io".to_owned(),
                    "desktop credsStore quay.io".to_owned(),
                ]
            )
        );
    }
}
