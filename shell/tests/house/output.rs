//! Output as a Unix tool writes it: a closed pipe ends every printing command quietly by
//! SIGPIPE, and `/dev/stdout`, `/proc/self/fd/1` and `-` are written through, never renamed over.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

use crate::common::{mend_command, repo_root};

/// A pipe whose reading end is already closed: every write to the other end fails with EPIPE.
fn closed_pipe() -> OwnedFd {
    let mut ends = [0; 2];
    // SAFETY: `ends` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(ends.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just opened and are owned by nothing else.
    let (reader, writer) =
        unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    drop(reader);
    writer
}

#[test]
fn a_closed_pipe_ends_every_printing_command_quietly_by_sigpipe() {
    let record = "fixtures/repair.json";
    // `-o` naming standard output by a path is written through to the same closed pipe.
    let commands: [&[&str]; 10] = [
        &["task", "--repo", "sample-repo"],
        &["task", "--json", "--repo", "sample-repo"],
        &["show", record],
        &["show", record, "--html", "-"],
        &["show", record, "--html", "/dev/stdout"],
        &["export", "--atif", record],
        &["export", "--atif", record, "-o", "-"],
        &["export", "--atif", record, "-o", "/proc/self/fd/1"],
        &["export", "--atif", record, "-o", "/dev/stdout"],
        &["verify", "--repo", "sample-repo"],
    ];
    let mut endings = Vec::new();
    for args in commands {
        let output = mend_command(&repo_root())
            .args(args)
            .stdout(Stdio::from(closed_pipe()))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        endings.push((
            args.join(" "),
            output.status.signal(),
            stderr.contains("panicked") || stderr.contains("Broken pipe"),
        ));
    }
    let expected: Vec<(String, Option<i32>, bool)> = commands
        .iter()
        .map(|args| (args.join(" "), Some(libc::SIGPIPE), false))
        .collect();
    assert_eq!(endings, expected);
}

/// What reaches standard output when mend is told to write a file there by each of its names.
#[test]
fn standard_output_by_any_name_is_written_through() {
    let record = "fixtures/repair.json";
    let names = ["/dev/stdout", "/proc/self/fd/1", "-"];
    let mut seen = Vec::new();
    for name in names {
        for args in [
            vec!["show", record, "--html", name],
            vec!["export", "--atif", record, "-o", name],
        ] {
            let output = mend_command(&repo_root()).args(&args).output().unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            let opening = match args[0] {
                "show" => "<!doctype html>",
                _ => "{",
            };
            seen.push((
                args.join(" "),
                output.status.code(),
                stdout.trim_start().starts_with(opening),
            ));
        }
    }
    let expected: Vec<(String, Option<i32>, bool)> = seen
        .iter()
        .map(|(args, _, _)| (args.clone(), Some(0), true))
        .collect();
    assert_eq!(seen, expected);
    assert!(std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type()
        .is_symlink());
}
