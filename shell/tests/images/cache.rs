//! The cache: one unpack per image, whole or not at all, listed and emptied by `mend images`.

use std::fs;

use crate::support::{layout, layout_copy, mend_images, names_in};

#[test]
fn a_layout_unpacks_once_its_whiteouts_applied_and_the_cache_lists_and_prunes_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let reference = format!("oci:{}:base", layout().display());
    let first = mend_images(&cache, &["images", "pull", &reference], &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let roots: Vec<String> = names_in(&cache)
        .into_iter()
        .filter(|name| name.starts_with("sha256-"))
        .collect();
    assert_eq!(roots.len(), 1, "{:?}", names_in(&cache));
    let rootfs = cache.join(&roots[0]).join("rootfs");
    assert_eq!(
        (
            rootfs.join("etc/removed-by-upper").exists(),
            rootfs.join("opt/gone").exists(),
            fs::read_to_string(rootfs.join("etc/added-by-upper")).unwrap(),
            rootfs.join("testbed/calc.py").is_file(),
        ),
        (false, false, "added by the second layer\n".to_owned(), true)
    );
    // The multi-arch index of the same image resolves to its amd64 manifest: the same root.
    let multi = mend_images(
        &cache,
        &[
            "images",
            "pull",
            &format!("oci:{}:multi", layout().display()),
        ],
        &[],
    );
    assert_eq!(multi.code, 0, "{}", multi.stderr);
    assert_eq!(
        multi.stdout.split(": ").nth(1),
        first.stdout.split(": ").nth(1)
    );
    let listed = mend_images(&cache, &["images"], &[]);
    let lines: Vec<&str> = listed.stdout.lines().collect();
    assert_eq!(lines[0], format!("1 images in {}", cache.display()));
    let fields: Vec<&str> = lines[1].split("  ").map(str::trim).collect();
    assert_eq!(
        fields[0],
        format!("sha256:{}", roots[0].trim_start_matches("sha256-"))
    );
    assert!(fields[1].ends_with(" MB"), "{}", lines[1]);
    assert_eq!(
        fields[2],
        format!("{reference}, oci:{}:multi", layout().display())
    );
    // A killed unpack's folder: never listed, and pruned with the rest.
    fs::create_dir_all(cache.join(".unpacking-0123-99/rootfs/etc")).unwrap();
    fs::write(cache.join(".unpacking-0123-99/rootfs/etc/half"), "cut").unwrap();
    assert_eq!(mend_images(&cache, &["images"], &[]).stdout, listed.stdout);
    let pruned = mend_images(&cache, &["images", "prune"], &[]);
    assert_eq!(pruned.code, 0, "{}", pruned.stderr);
    assert!(
        pruned.stdout.starts_with("removed 1 images ("),
        "{}",
        pruned.stdout
    );
    assert_eq!(names_in(&cache), Vec::<String>::new());
}

#[test]
fn a_layer_that_does_not_match_its_digest_is_refused_and_nothing_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let copy = layout_copy(dir.path());
    // The largest blob is a layer: one byte of it changed, its length kept.
    let blobs = copy.join("blobs/sha256");
    let largest = names_in(&blobs)
        .into_iter()
        .max_by_key(|name| fs::metadata(blobs.join(name)).unwrap().len())
        .unwrap();
    let mut bytes = fs::read(blobs.join(&largest)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    fs::write(blobs.join(&largest), bytes).unwrap();
    let cache = dir.path().join("cache");
    let refused = mend_images(
        &cache,
        &["images", "pull", &format!("oci:{}:base", copy.display())],
        &[],
    );
    assert_eq!(refused.code, 4, "{}", refused.stderr);
    let message = refused.stderr.trim();
    assert!(
        message.starts_with(&format!(
            "mend: error: refused the image oci:{}:base: ",
            copy.display()
        )) && message.ends_with("nothing of it was kept; use an image from a source you trust")
            && message.lines().count() == 1,
        "{message}"
    );
    // No root, no half-unpacked folder: only the lock and the (empty) stores.
    assert_eq!(names_in(&cache), ["blobs", "locks", "refs"]);
    assert_eq!(names_in(&cache.join("refs")), Vec::<String>::new());
}

#[test]
fn concurrent_pulls_of_one_image_wait_for_each_other_and_unpack_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let reference = format!("oci:{}:base", layout().display());
    let pulls: Vec<_> = (0..3)
        .map(|_| {
            let (cache, reference) = (cache.clone(), reference.clone());
            std::thread::spawn(move || mend_images(&cache, &["images", "pull", &reference], &[]))
        })
        .collect();
    let outcomes: Vec<(i32, String)> = pulls
        .into_iter()
        .map(|pull| pull.join().unwrap())
        .map(|o| (o.code, o.stdout))
        .collect();
    assert!(
        outcomes.iter().all(|outcome| *outcome == outcomes[0]) && outcomes[0].0 == 0,
        "{outcomes:?}"
    );
    let entries: Vec<String> = names_in(&cache)
        .into_iter()
        .filter(|name| !["blobs", "locks", "refs"].contains(&name.as_str()))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert!(entries[0].starts_with("sha256-"));
}

#[test]
fn a_docker_archive_unpacks_to_the_same_root_as_its_layout() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("image.tar");
    let output = std::process::Command::new("skopeo")
        .args(["--insecure-policy", "copy", "--quiet"])
        .arg(format!("oci:{}:base", layout().display()))
        .arg(format!(
            "docker-archive:{}:mend/python:base",
            archive.display()
        ))
        .output()
        .expect("skopeo runs (`apt-get install skopeo`)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (from_archive, from_layout) = (dir.path().join("archive"), dir.path().join("layout"));
    let pulled = mend_images(
        &from_archive,
        &[
            "images",
            "pull",
            &format!("docker-archive:{}", archive.display()),
        ],
        &[],
    );
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let local = mend_images(
        &from_layout,
        &[
            "images",
            "pull",
            &format!("oci:{}:base", layout().display()),
        ],
        &[],
    );
    assert_eq!(local.code, 0, "{}", local.stderr);
    let root = |cache: &std::path::Path| {
        let name = names_in(cache)
            .into_iter()
            .find(|name| name.starts_with("sha256-"))
            .unwrap();
        crate::common::tree_digest(&cache.join(name).join("rootfs"))
    };
    assert_eq!(root(&from_archive), root(&from_layout));
    // Nothing taken out of the archive stays beside the cache.
    assert_eq!(
        names_in(&from_archive)
            .iter()
            .filter(|name| name.starts_with('.'))
            .count(),
        0
    );
}

#[test]
fn a_suite_pulls_the_images_its_tasks_run_in_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let reference = format!("oci:{}:base", layout().display());
    let task = "[task]\nprompt = \"x\"\n[paths]\nreadable = [\"*.py\"]\neditable = [\"*.py\"]\n[test]\ncommand = [\"python\", \"-m\", \"pytest\"]\ntimeout_seconds = 30\n[tools]\nenabled = [\"run_tests\"]\n";
    for (name, environment) in [
        ("own", format!("[environment]\nimage = \"{reference}\"\n")),
        ("default", String::new()),
    ] {
        fs::create_dir_all(dir.path().join(name)).unwrap();
        fs::write(
            dir.path().join(name).join("mend.toml"),
            format!("{task}{environment}"),
        )
        .unwrap();
    }
    let suite = dir.path().join("suite.toml");
    fs::write(
        &suite,
        format!("tasks = [\"own\", \"default\"]\nk = 1\n[environment]\nimage = \"{reference}\"\n"),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    let pulled = mend_images(
        &cache,
        &["images", "pull", "--suite", suite.to_str().unwrap()],
        &[],
    );
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let lines: Vec<&str> = pulled.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", pulled.stdout);
    assert!(
        lines[0].starts_with(&format!("{reference}: sha256:")),
        "{}",
        lines[0]
    );
    assert_eq!(
        names_in(&cache)
            .iter()
            .filter(|name| name.starts_with("sha256-"))
            .count(),
        1
    );
}

#[test]
fn zstd_compressed_layers_unpack_to_the_same_root_as_gzip_ones() {
    let dir = tempfile::tempdir().unwrap();
    let zstd = dir.path().join("zstd");
    let output = std::process::Command::new("skopeo")
        .args([
            "--insecure-policy",
            "copy",
            "--quiet",
            "--dest-compress-format",
            "zstd",
        ])
        .arg(format!("oci:{}:base", layout().display()))
        .arg(format!("oci:{}:base", zstd.display()))
        .output()
        .expect("skopeo runs (`apt-get install skopeo`)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The copy's manifest names zstd layers (else the test proves nothing).
    let index: serde_json::Value =
        serde_json::from_slice(&fs::read(zstd.join("index.json")).unwrap()).unwrap();
    let manifest_digest = index["manifests"][0]["digest"].as_str().unwrap();
    let manifest: serde_json::Value = serde_json::from_slice(
        &fs::read(zstd.join("blobs/sha256").join(&manifest_digest[7..])).unwrap(),
    )
    .unwrap();
    let media_types: Vec<&str> = manifest["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|layer| layer["mediaType"].as_str().unwrap())
        .collect();
    assert_eq!(
        media_types,
        ["application/vnd.oci.image.layer.v1.tar+zstd"; 2]
    );
    let (from_zstd, from_gzip) = (dir.path().join("from-zstd"), dir.path().join("from-gzip"));
    for (cache, source) in [(&from_zstd, &zstd), (&from_gzip, &layout().to_path_buf())] {
        let pulled = mend_images(
            cache,
            &["images", "pull", &format!("oci:{}:base", source.display())],
            &[],
        );
        assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    }
    let root = |cache: &std::path::Path| {
        let name = names_in(cache)
            .into_iter()
            .find(|name| name.starts_with("sha256-"))
            .unwrap();
        crate::common::tree_digest(&cache.join(name).join("rootfs"))
    };
    let unpacked = root(&from_zstd);
    assert!(unpacked.contains_key("testbed/calc.py"), "{unpacked:?}");
    assert_eq!(unpacked, root(&from_gzip));
}
