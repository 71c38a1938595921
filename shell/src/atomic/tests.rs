//! Tests of `atomic`: what a written file holds and which permissions it gets.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use super::{write_file, write_new_file};
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
        (0o666 & !umask(), 0o640, 0o666 & !umask(), "newer\n".to_owned())
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
