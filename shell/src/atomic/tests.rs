//! Tests of `atomic`: what a written file holds and which permissions it gets.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;

use camino::{Utf8Path, Utf8PathBuf};

use super::{write_derived_file, write_file, write_new_file};
use crate::test_support::project;

fn mode_of(path: &camino::Utf8Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// This process's umask, as Linux reports it (reading it with umask(2) would change it for
/// every other test thread).
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("Umask:"))
        .unwrap();
    u32::from_str_radix(line.trim(), 8).unwrap()
}

#[test]
fn a_new_file_follows_the_umask_and_a_replaced_one_keeps_its_mode() {
    let (_dir, root) = project(&[("kept.json", "old\n")]);
    std::fs::set_permissions(
        root.join("kept.json"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    write_file(&root.join("new.json"), |out| out.write_all(b"new\n")).unwrap();
    write_file(&root.join("kept.json"), |out| out.write_all(b"newer\n")).unwrap();
    let numbered = write_new_file(&root, ["numbered.json".to_owned()], |out| {
        out.write_all(b"numbered\n")
    })
    .unwrap();
    assert_eq!(
        (
            mode_of(&root.join("new.json")),
            mode_of(&root.join("kept.json")),
            mode_of(&numbered),
            std::fs::read_to_string(root.join("kept.json")).unwrap(),
        ),
        (
            0o666 & !umask(),
            0o640,
            0o666 & !umask(),
            "newer\n".to_owned()
        )
    );
}

#[test]
fn a_new_file_takes_the_first_free_name_and_leaves_no_temporary_behind() {
    let (_dir, root) = project(&[("a.json", "mine\n")]);
    let names = || ["a.json", "b.json"].map(str::to_owned);
    let written = write_new_file(&root, names(), |out| out.write_all(b"b\n")).unwrap();
    let none_left = write_new_file(&root, names(), |out| out.write_all(b"c\n")).unwrap_err();
    let mut files: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        (
            written,
            none_left.to_string(),
            files,
            std::fs::read_to_string(root.join("a.json")).unwrap()
        ),
        (
            root.join("b.json"),
            format!("every name mend tries in {root} is taken"),
            vec!["a.json".to_owned(), "b.json".to_owned()],
            "mine\n".to_owned()
        )
    );
}

/// Both ways of writing: the whole new contents with the old file's mode, or, when filling
/// fails, the old file untouched and no temporary left behind.
#[test]
fn a_write_replaces_whole_or_not_at_all() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).expect("utf-8");
    let mut outcomes = Vec::new();
    let writer = |path: &Utf8Path, fill: &dyn Fn(&mut dyn Write) -> io::Result<()>| {
        if path.as_str().ends_with("derived") {
            write_derived_file(path, fill)
        } else {
            write_file(path, fill)
        }
    };
    for name in ["synced", "derived"] {
        let path = folder.join(name);
        fs::write(&path, "old").expect("old file");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).expect("mode");
        let failed = writer(&path, &|file: &mut dyn Write| {
            file.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        let after_failure = fs::read_to_string(&path).expect("read");
        writer(&path, &|file: &mut dyn Write| file.write_all(b"new")).expect("write");
        let mode = fs::metadata(&path).expect("stat").permissions().mode() & 0o777;
        outcomes.push((
            failed.is_err(),
            after_failure,
            fs::read_to_string(&path).expect("read"),
            mode,
        ));
    }
    let mut left: Vec<String> = fs::read_dir(&folder)
        .expect("list")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let expected = (true, "old".to_owned(), "new".to_owned(), 0o640);
    assert_eq!(
        (outcomes, left),
        (
            vec![expected.clone(), expected],
            vec!["derived".to_owned(), "synced".to_owned()]
        )
    );
}

/// What a path holds after mend wrote "new" to it: its kind (a link, a FIFO, a device, a file)
/// and, for a link, the target's text.
fn kind_of(path: &Utf8Path) -> &'static str {
    let kind = fs::symlink_metadata(path).unwrap().file_type();
    use std::os::unix::fs::FileTypeExt;
    match () {
        () if kind.is_symlink() => "link",
        () if kind.is_fifo() => "fifo",
        () if kind.is_char_device() => "char device",
        () if kind.is_file() => "file",
        () => "other",
    }
}

/// A link is written through to its target (which is replaced whole, and the link stays); a
/// dangling link gets its target created; neither is renamed over.
#[test]
fn a_link_is_written_through_and_stays_a_link() {
    let (_dir, root) = project(&[("target.html", "old\n")]);
    std::os::unix::fs::symlink("target.html", root.join("link.html")).unwrap();
    std::os::unix::fs::symlink("made.html", root.join("dangling.html")).unwrap();
    for name in ["link.html", "dangling.html"] {
        write_file(&root.join(name), |out| out.write_all(b"new\n")).unwrap();
    }
    let seen: Vec<(&str, &str, String)> =
        ["link.html", "dangling.html", "target.html", "made.html"]
            .into_iter()
            .map(|name| {
                let path = root.join(name);
                (name, kind_of(&path), fs::read_to_string(&path).unwrap())
            })
            .collect();
    assert_eq!(
        seen,
        [
            ("link.html", "link", "new\n".to_owned()),
            ("dangling.html", "link", "new\n".to_owned()),
            ("target.html", "file", "new\n".to_owned()),
            ("made.html", "file", "new\n".to_owned()),
        ]
    );
}

/// A FIFO is opened and written (what a reader at its other end gets), never replaced by a file.
#[test]
fn a_fifo_is_written_through() {
    let (_dir, root) = project(&[]);
    let fifo = root.join("out.fifo");
    let name = std::ffi::CString::new(fifo.as_str()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo touches no memory of ours.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    write_file(&fifo, |out| out.write_all(b"through the pipe\n")).unwrap();
    assert_eq!(
        (reader.join().unwrap(), kind_of(&fifo)),
        ("through the pipe\n".to_owned(), "fifo")
    );
}

/// A device stays the device (run as root, a rename over `/dev/null` would succeed), and a
/// descriptor's link (`/proc/self/fd/N`, what `/dev/stdout` leads to) writes into the open
/// file it names.
#[test]
fn a_device_and_a_descriptor_link_are_written_through() {
    let (_dir, root) = project(&[("held.txt", "")]);
    let held = fs::OpenOptions::new()
        .append(true)
        .open(root.join("held.txt"))
        .unwrap();
    use std::os::fd::AsRawFd;
    let descriptor = Utf8PathBuf::from(format!("/proc/self/fd/{}", held.as_raw_fd()));
    write_file(Utf8Path::new("/dev/null"), |out| out.write_all(b"gone\n")).unwrap();
    write_file(&descriptor, |out| out.write_all(b"through fd\n")).unwrap();
    let mut left: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        (
            kind_of(Utf8Path::new("/dev/null")),
            fs::read_to_string(root.join("held.txt")).unwrap(),
            left
        ),
        (
            "char device",
            "through fd\n".to_owned(),
            vec!["held.txt".to_owned()]
        )
    );
}
