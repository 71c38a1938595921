//! Who mend is to a registry: nobody (an anonymous token, as Docker Hub and GHCR hand out for
//! public images), or the user whose `docker login` is in `~/.docker/config.json`.

use std::collections::BTreeMap;

use base64::Engine as _;
use camino::Utf8PathBuf;
use serde::Deserialize;

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
struct DockerConfig {
    #[serde(default)]
    auths: BTreeMap<String, DockerAuth>,
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

/// `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`.
fn config_path() -> Option<Utf8PathBuf> {
    match std::env::var("DOCKER_CONFIG") {
        Ok(dir) if !dir.is_empty() => Some(Utf8PathBuf::from(dir).join("config.json")),
        _ => std::env::var("HOME")
            .ok()
            .map(|home| Utf8PathBuf::from(home).join(".docker/config.json")),
    }
}

/// The `Basic …` value for `host` from the user's Docker config, if they logged in there.
pub(super) fn basic_for(host: &str) -> Option<String> {
    let text = std::fs::read_to_string(config_path()?).ok()?;
    basic_in(&text, host)
}

pub(super) fn basic_in(config: &str, host: &str) -> Option<String> {
    let config: DockerConfig = serde_json::from_str(config).ok()?;
    let same = |key: &str| {
        let bare = key
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        let bare = bare.split('/').next().unwrap_or(bare);
        bare == host || (HUB_NAMES.contains(&bare) && HUB_NAMES.contains(&host))
    };
    let auth = config
        .auths
        .iter()
        .find(|(key, _)| same(key))?
        .1
        .auth
        .as_ref()?;
    // Checked to be `user:password` in base64 so a broken entry is not sent.
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(auth.trim())
        .ok()?;
    String::from_utf8(decoded)
        .ok()
        .filter(|pair| pair.contains(':'))?;
    Some(format!("Basic {}", auth.trim()))
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
        let found: Vec<Option<String>> = ["docker.io", "ghcr.io", "quay.io", "bad.io"]
            .iter()
            .map(|host| basic_in(&config, host))
            .collect();
        let expected = Some(format!("Basic {token}"));
        assert_eq!(found, [expected.clone(), expected, None, None]);
    }
}
