use std::os::unix::fs::MetadataExt;

use super::*;

/// One tar layer built entry by entry; names are written raw, so hostile ones can be made.
struct Layer(tar::Builder<Vec<u8>>);

impl Layer {
    fn new() -> Layer {
        Layer(tar::Builder::new(Vec::new()))
    }

    fn entry(mut self, kind: EntryType, name: &str, mode: u32, link: &str, data: &[u8]) -> Layer {
        let mut header = tar::Header::new_gnu();
        header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        header.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(data.len() as u64);
        header.set_mtime(1_700_000_000);
        header.set_cksum();
        self.0.append(&header, data).unwrap();
        self
    }

    fn dir(self, name: &str) -> Layer {
        self.entry(EntryType::Directory, name, 0o755, "", b"")
    }

    fn file(self, name: &str, data: &str) -> Layer {
        self.entry(EntryType::Regular, name, 0o644, "", data.as_bytes())
    }

    fn link(self, kind: EntryType, name: &str, target: &str) -> Layer {
        self.entry(kind, name, 0o777, target, b"")
    }

    fn gzip(self) -> Vec<u8> {
        let bytes = self.0.into_inner().unwrap();
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn plain(self) -> Vec<u8> {
        self.0.into_inner().unwrap()
    }
}

/// Every entry under `root`: path, then the file's text and mode, a link's target or `dir`.
fn tree(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let shown = path.strip_prefix(root).unwrap().display().to_string();
            if meta.file_type().is_symlink() {
                found.push(format!(
                    "{shown} -> {}",
                    fs::read_link(&path).unwrap().display()
                ));
            } else if meta.is_dir() {
                found.push(format!("{shown}/ {:o}", meta.mode() & 0o7777));
                pending.push(path);
            } else {
                let text = fs::read_to_string(&path).unwrap();
                found.push(format!(
                    "{shown} {:o} {text:?} links={}",
                    meta.mode() & 0o7777,
                    meta.nlink()
                ));
            }
        }
    }
    found.sort();
    found
}

fn apply_all(root: &Path, layers: &[Vec<u8>]) -> Result<u64, Refusal> {
    let mut unpacker = Unpacker::new(root, LIMITS);
    for layer in layers {
        unpacker.apply(&mut &layer[..])?;
    }
    Ok(unpacker.skipped)
}

#[test]
fn layers_stack_with_whiteouts_links_and_modes_and_devices_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let base = Layer::new()
        .dir("etc")
        .file("etc/gone", "removed by the upper layer")
        .file("./etc/kept", "kept")
        .entry(
            EntryType::Regular,
            "etc/secret",
            0o4750,
            "",
            b"setuid dropped",
        )
        .dir("usr/lib")
        .link(EntryType::Symlink, "lib", "usr/lib")
        .link(EntryType::Symlink, "etc/alternative", "/usr/lib/libz")
        .file("usr/lib/libz", "z")
        .link(EntryType::Link, "usr/lib/libz.hard", "usr/lib/libz")
        .dir("opt/app/old")
        .file("opt/app/old/file", "lower")
        .entry(EntryType::Char, "dev-null", 0o666, "", b"")
        .entry(EntryType::Directory, "locked", 0o555, "", b"")
        .gzip();
    let upper = Layer::new()
        .file("etc/.wh.gone", "")
        .file("opt/app/new", "upper")
        .file("opt/app/.wh..wh..opq", "")
        .file("lib/through-the-link", "lands in usr/lib")
        .file("locked/inside", "written into a 0555 folder")
        .plain();
    let skipped = apply_all(dir.path(), &[base, upper]).unwrap();
    assert_eq!(skipped, 1);
    assert_eq!(
        tree(dir.path()),
        [
            "etc/ 755",
            "etc/alternative -> /usr/lib/libz",
            "etc/kept 644 \"kept\" links=1",
            "etc/secret 750 \"setuid dropped\" links=1",
            "lib -> usr/lib",
            "locked/ 755",
            "locked/inside 644 \"written into a 0555 folder\" links=1",
            "opt/ 755",
            "opt/app/ 755",
            "opt/app/new 644 \"upper\" links=1",
            "usr/ 755",
            "usr/lib/ 755",
            "usr/lib/libz 644 \"z\" links=2",
            "usr/lib/libz.hard 644 \"z\" links=2",
            "usr/lib/through-the-link 644 \"lands in usr/lib\" links=1",
        ]
    );
}

#[test]
fn a_path_with_dot_dot_refuses_the_image() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    let layer = Layer::new()
        .file("ok", "x")
        .file("usr/../../escaped", "out")
        .plain();
    assert_eq!(
        apply_all(&root, &[layer]),
        Err(Refusal::Hostile(
            "its layer holds `usr/../../escaped`, a path that climbs out of the image with `..`"
                .into()
        ))
    );
    assert!(!dir.path().join("escaped").exists());
}

#[test]
fn an_absolute_symlink_is_followed_inside_the_root_never_on_the_host() {
    let host = tempfile::tempdir().unwrap();
    let outside = host.path().join("outside");
    fs::create_dir(&outside).unwrap();
    let root = host.path().join("root");
    fs::create_dir(&root).unwrap();
    let first = Layer::new()
        .link(EntryType::Symlink, "escape", outside.to_str().unwrap())
        .link(EntryType::Symlink, "up", "../../../../../..")
        .plain();
    let second = Layer::new()
        .file("escape/pwned", "stays in the image")
        .plain();
    apply_all(&root, &[first, second]).unwrap();
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    let inside = root.join(outside.strip_prefix("/").unwrap()).join("pwned");
    assert_eq!(fs::read_to_string(inside).unwrap(), "stays in the image");
    let third = Layer::new().file("up/etc/passwd", "above the root").plain();
    assert_eq!(
        apply_all(&root, &[third]),
        Err(Refusal::Hostile(
            "`up/etc/passwd` leads through a symlink above the image's root".into()
        ))
    );
    let hard = Layer::new()
        .link(EntryType::Link, "stolen", "up/etc/passwd")
        .plain();
    assert_eq!(
        apply_all(&root, &[hard]),
        Err(Refusal::Hostile(
            "`up/etc/passwd` leads through a symlink above the image's root".into()
        ))
    );
}

#[test]
fn a_ten_gigabyte_claim_is_refused_before_a_byte_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_path("huge.img").unwrap();
    header.set_size(10 << 30);
    header.set_entry_type(EntryType::Regular);
    header.set_cksum();
    // The header alone: the data it claims is never there.
    let mut layer = header.as_bytes().to_vec();
    layer.extend([0u8; 1024]);
    assert_eq!(
        apply_all(dir.path(), &[layer]),
        Err(Refusal::Hostile(format!(
            "its file `huge.img` claims {} bytes, more than the {} mend unpacks for one file",
            10u64 << 30,
            LIMITS.max_file
        )))
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_sparse_file_is_judged_by_the_size_it_claims_not_the_bytes_it_stores() {
    let dir = tempfile::tempdir().unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_path("sparse.img").unwrap();
    header.set_entry_type(EntryType::GNUSparse);
    header.set_size(512);
    let gnu = header.as_gnu_mut().unwrap();
    // One 512-byte chunk at offset 0, then GNU tar's empty chunk at the end of a 10 GB file.
    let octal = |field: &mut [u8], value: u64| {
        let text = format!("{value:0width$o}", width = field.len() - 1);
        field[..text.len()].copy_from_slice(text.as_bytes());
    };
    octal(&mut gnu.realsize, 10 << 30);
    octal(&mut gnu.sparse[0].offset, 0);
    octal(&mut gnu.sparse[0].numbytes, 512);
    octal(&mut gnu.sparse[1].offset, 10 << 30);
    octal(&mut gnu.sparse[1].numbytes, 0);
    header.set_cksum();
    let mut layer = header.as_bytes().to_vec();
    layer.extend([7u8; 512]);
    layer.extend([0u8; 1024]);
    let refused = apply_all(dir.path(), &[layer]).unwrap_err();
    assert_eq!(
        refused,
        Refusal::Hostile(format!(
            "its file `sparse.img` claims {} bytes, more than the {} mend unpacks for one file",
            10u64 << 30,
            LIMITS.max_file
        ))
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_hard_link_to_an_absolute_symlink_is_the_link_again_never_the_hosts_file() {
    let host = tempfile::tempdir().unwrap();
    let secret = host.path().join("secret");
    fs::write(&secret, "the host's").unwrap();
    let root = host.path().join("root");
    fs::create_dir(&root).unwrap();
    let layer = Layer::new()
        .link(EntryType::Symlink, "abs", secret.to_str().unwrap())
        .link(EntryType::Symlink, "hostdir", host.path().to_str().unwrap())
        .link(EntryType::Link, "hard", "abs")
        .plain();
    apply_all(&root, &[layer]).unwrap();
    // `hard` is a second name of the symlink itself: read inside the image, it leads to the
    // image's own path, which does not exist there.
    assert_eq!(
        tree(&root),
        [
            format!("abs -> {}", secret.display()),
            format!("hard -> {}", secret.display()),
            format!("hostdir -> {}", host.path().display()),
        ]
    );
    assert_eq!(fs::symlink_metadata(root.join("hard")).unwrap().nlink(), 2);
    // A hard link through an absolute folder link is looked for inside the root: nothing there.
    let through = Layer::new()
        .link(EntryType::Link, "stolen", "hostdir/secret")
        .plain();
    assert_eq!(
        apply_all(&root, &[through]),
        Err(Refusal::Hostile(
            "its hard link `stolen` points at `hostdir/secret`, which no earlier entry made a file"
                .into()
        ))
    );
    assert_eq!(fs::read_to_string(&secret).unwrap(), "the host's");
    assert_eq!(fs::metadata(&secret).unwrap().nlink(), 1);
}
