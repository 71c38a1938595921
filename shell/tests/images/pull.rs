//! Pulling from Debian's distribution registry on loopback, directly and behind a token
//! service: the platform chosen from an index, anonymous tokens and the user's Docker login,
//! one-line errors, and a cut pull continued where it stopped.

use std::fs;

use crate::support::{layout, mend_images, names_in, pull, Registry, TokenFront};

/// The files of the unpacked root that tell the image apart, for comparing two pulls.
fn marks(cache: &std::path::Path) -> Vec<(String, bool, bool)> {
    names_in(cache)
        .into_iter()
        .filter(|name| name.starts_with("sha256-"))
        .map(|name| {
            let rootfs = cache.join(&name).join("rootfs");
            (
                name,
                rootfs.join("etc/added-by-upper").is_file(),
                rootfs.join("etc/removed-by-upper").exists(),
            )
        })
        .collect()
}

#[test]
fn an_index_pushed_to_a_registry_is_pulled_as_its_linux_amd64_image() {
    let registry = Registry::start();
    registry.push("multi", "mend/python:multi");
    let dir = tempfile::tempdir().unwrap();
    let (from_registry, from_layout) = (dir.path().join("registry"), dir.path().join("layout"));
    let pulled = pull(
        &from_registry,
        &format!("{}/mend/python:multi", registry.address),
    );
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let local = pull(&from_layout, &format!("oci:{}:base", layout().display()));
    assert_eq!(local.code, 0, "{}", local.stderr);
    let pulled_marks = marks(&from_registry);
    assert_eq!(pulled_marks, marks(&from_layout));
    assert_eq!(
        pulled_marks
            .iter()
            .map(|(_, added, removed)| (*added, *removed))
            .collect::<Vec<_>>(),
        [(true, false)]
    );
    // The layer blobs went once unpacked; no partial file stayed.
    assert_eq!(
        names_in(&from_registry.join("blobs/sha256"))
            .iter()
            .filter(|name| !name.ends_with(".lock"))
            .count(),
        0
    );
}

#[test]
fn behind_a_token_service_a_pull_gets_an_anonymous_token_or_uses_the_docker_login() {
    let registry = Registry::start();
    registry.push("base", "mend/python:base");
    let dir = tempfile::tempdir().unwrap();
    let open = TokenFront::start(&registry.address, None);
    let anonymous = mend_images(
        &dir.path().join("a"),
        &[
            "images",
            "pull",
            &format!("{}/mend/python:base", open.address),
        ],
        &[],
    );
    assert_eq!(anonymous.code, 0, "{}", anonymous.stderr);
    let seen = open.seen.lock().unwrap().clone();
    assert!(
        seen.iter().any(|line| line
            .starts_with("GET /token?scope=repository%3Amend%2Fpython%3Apull&service=mend-test ")),
        "{seen:#?}"
    );

    let guarded = TokenFront::start(&registry.address, Some("alice:wonderland"));
    let reference = format!("{}/mend/python:base", guarded.address);
    let refused = pull(&dir.path().join("b"), &reference);
    assert_eq!(
        (refused.code, refused.stderr.trim()),
        (2, format!("mend: error: cannot pull {}/mend/python:base: {} refused access (401) — check the name; for a private image log in (`docker login {}` writes ~/.docker/config.json, which mend reads)", guarded.address, guarded.address, guarded.address).as_str())
    );
    let docker = dir.path().join("docker");
    fs::create_dir(&docker).unwrap();
    // base64("alice:wonderland"), as `docker login` writes it.
    fs::write(
        docker.join("config.json"),
        format!(
            r#"{{"auths":{{"{}":{{"auth":"YWxpY2U6d29uZGVybGFuZA=="}}}}}}"#,
            guarded.address
        ),
    )
    .unwrap();
    let logged_in = mend_images(
        &dir.path().join("c"),
        &["images", "pull", &reference],
        &[("DOCKER_CONFIG", docker.to_str().unwrap())],
    );
    assert_eq!(logged_in.code, 0, "{}", logged_in.stderr);
}

#[test]
fn a_missing_image_and_an_unreachable_registry_each_say_so_in_one_line() {
    let registry = Registry::start();
    let dir = tempfile::tempdir().unwrap();
    let missing = format!("{}/mend/nothing:1", registry.address);
    let outcome = pull(dir.path(), &missing);
    assert_eq!(
        (outcome.code, outcome.stderr.trim()),
        (2, format!("mend: error: cannot pull {missing}: {} has no such image or tag (404) — check the name and the tag", registry.address).as_str())
    );
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let unreachable = format!("{closed}/mend/python:1");
    let outcome = pull(dir.path(), &unreachable);
    let message = outcome.stderr.trim();
    assert_eq!(outcome.code, 6, "{message}");
    assert!(
        message.starts_with(&format!("mend: error: cannot pull {unreachable}: cannot reach {closed} ("))
            && message.ends_with(&format!("— check the network, or pull it where there is one (`mend images pull {unreachable}`) into a cache this machine reads (--image-cache DIR)"))
            && message.lines().count() == 1,
        "{message}"
    );
}

#[test]
fn a_pull_cut_short_continues_from_its_partial_blob() {
    let registry = Registry::start();
    registry.push("base", "mend/python:base");
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    // The largest layer half there, as a pull killed midway leaves it.
    let blobs = layout().join("blobs/sha256");
    let largest = names_in(&blobs)
        .into_iter()
        .max_by_key(|name| fs::metadata(blobs.join(name)).unwrap().len())
        .unwrap();
    let bytes = fs::read(blobs.join(&largest)).unwrap();
    let half = bytes.len() / 2;
    fs::create_dir_all(cache.join("blobs/sha256")).unwrap();
    fs::write(
        cache.join(format!("blobs/sha256/{largest}.partial")),
        &bytes[..half],
    )
    .unwrap();
    let front = TokenFront::start(&registry.address, None);
    let pulled = pull(&cache, &format!("{}/mend/python:base", front.address));
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let seen = front.seen.lock().unwrap().clone();
    assert!(
        seen.iter().any(
            |line| line.contains(&largest) && line.ends_with(&format!(" Range: bytes={half}-"))
        ),
        "{seen:#?}"
    );
    assert_eq!(marks(&cache).len(), 1);
}

#[test]
fn a_layer_this_machine_cannot_write_is_a_harness_error_not_a_refused_image() {
    let registry = Registry::start();
    registry.push("base", "mend/python:base");
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    // Each blob's partial file a folder: no layer can be written (as root too, where
    // permissions would not stop the write).
    fs::create_dir_all(cache.join("blobs/sha256")).unwrap();
    for name in names_in(&layout().join("blobs/sha256")) {
        fs::create_dir(cache.join(format!("blobs/sha256/{name}.partial"))).unwrap();
    }
    let reference = format!("{}/mend/python:base", registry.address);
    let outcome = pull(&cache, &reference);
    let message = outcome.stderr.trim();
    assert_eq!(outcome.code, 6, "{message}");
    assert!(
        message.starts_with(&format!(
            "mend: error: cannot unpack the image {reference} into "
        )) && message.contains(&format!("cannot write {}/blobs/sha256/", cache.display()))
            && message.contains(".partial: Is a directory")
            && message.ends_with("— free some space or pass --image-cache DIR")
            && message.lines().count() == 1,
        "{message}"
    );
    assert_eq!(marks(&cache), []);
}

#[test]
fn a_credential_helper_gives_the_login_and_a_missing_one_is_named() {
    let registry = Registry::start();
    registry.push("base", "mend/python:base");
    let guarded = TokenFront::start(&registry.address, Some("alice:wonderland"));
    let reference = format!("{}/mend/python:base", guarded.address);
    let dir = tempfile::tempdir().unwrap();
    // A helper as Docker runs one: `get`, the server on stdin, its login as JSON on stdout.
    let bin = dir.path().join("bin");
    fs::create_dir(&bin).unwrap();
    let asked = dir.path().join("asked");
    let helper = bin.join("docker-credential-fake");
    fs::write(
        &helper,
        format!(
            "#!/bin/sh\n[ \"$1\" = get ] || exit 3\nread -r server\necho \"$server\" >> {}\nprintf '{{\"ServerURL\":\"%s\",\"Username\":\"alice\",\"Secret\":\"wonderland\"}}' \"$server\"\n",
            asked.display()
        ),
    )
    .unwrap();
    fs::set_permissions(
        &helper,
        <fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let docker = dir.path().join("docker");
    fs::create_dir(&docker).unwrap();
    let config = docker.join("config.json");
    let env = [
        ("DOCKER_CONFIG", docker.to_str().unwrap()),
        ("PATH", path.as_str()),
    ];
    for (key, value) in [
        ("credsStore", r#""fake""#.to_owned()),
        (
            "credHelpers",
            format!(r#"{{"{}":"fake"}}"#, guarded.address),
        ),
    ] {
        fs::write(&config, format!(r#"{{"{key}":{value}}}"#)).unwrap();
        let pulled = mend_images(&dir.path().join(key), &["images", "pull", &reference], &env);
        assert_eq!(pulled.code, 0, "{key}: {}", pulled.stderr);
    }
    assert_eq!(
        fs::read_to_string(&asked).unwrap(),
        format!("{0}\n{0}\n", guarded.address)
    );
    fs::write(&config, r#"{"credsStore":"nowhere"}"#).unwrap();
    let missing = mend_images(
        &dir.path().join("missing"),
        &["images", "pull", &reference],
        &env,
    );
    assert_eq!(
        (missing.code, missing.stderr.trim()),
        (2, format!("mend: error: cannot pull {reference}: {} names the credential helper `docker-credential-nowhere` (credsStore), which is not on PATH — install it, or remove `credsStore` from the config to pull anonymously", config.display()).as_str())
    );
}
