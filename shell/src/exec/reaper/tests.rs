use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::Duration;

use camino::Utf8Path;

use crate::exec::process::{run_bounded, Finished};
use crate::interrupt::Watch;
use crate::test_support::{alive, project};

/// `script` run by `sh` in `folder` as mend runs a command.
fn run(folder: &Utf8Path, script: &str, timeout: Duration) -> Finished {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script).current_dir(folder);
    run_bounded(command, timeout, Watch::NONE).unwrap()
}

fn pid_in(folder: &Utf8Path, name: &str) -> i32 {
    std::fs::read_to_string(folder.join(name))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Starts `inner` in a new session in the background and waits until it wrote its pid to `name`.
fn escape(inner: &str, name: &str) -> String {
    format!("setsid sh -c '{inner}' & while [ ! -s {name} ]; do sleep 0.01; done;")
}

#[test]
fn a_process_that_left_the_group_ends_with_the_command_whose_exit_is_kept() {
    assert!(super::available(), "this kernel names a process's children");
    let (_dir, folder) = project(&[]);
    let script = escape("echo $$ > escaped; exec sleep 30", "escaped") + " exit 3";
    let finished = run(&folder, &script, Duration::from_secs(20));
    let escaped = pid_in(&folder, "escaped");
    assert_eq!(
        (
            finished.status.and_then(|status| status.code()),
            alive(escaped)
        ),
        (Some(3), false)
    );
}

#[test]
fn orphans_of_orphans_end_too_round_after_round() {
    let (_dir, folder) = project(&[]);
    // The first escapee waits on a second one, which is orphaned only once the first is killed.
    let inner = "setsid sh -c \"echo \\$\\$ > deeper; exec sleep 30\" & echo $$ > escaped; wait";
    let script = escape(inner, "escaped") + " while [ ! -s deeper ]; do sleep 0.01; done; exit 0";
    let finished = run(&folder, &script, Duration::from_secs(20));
    let pids = (pid_in(&folder, "escaped"), pid_in(&folder, "deeper"));
    assert_eq!(
        (
            finished.status.and_then(|status| status.code()),
            alive(pids.0),
            alive(pids.1)
        ),
        (Some(0), false, false)
    );
}

#[test]
fn a_command_killed_by_a_signal_is_reported_killed_by_it() {
    let (_dir, folder) = project(&[]);
    let finished = run(&folder, "kill -TERM $$", Duration::from_secs(20));
    assert_eq!(
        finished.status.and_then(|status| status.signal()),
        Some(libc::SIGTERM)
    );
}

#[test]
fn a_timeout_ends_the_command_and_what_left_its_group() {
    let (_dir, folder) = project(&[]);
    let script = escape("echo $$ > escaped; exec sleep 30", "escaped") + " exec sleep 30";
    let finished = run(&folder, &script, Duration::from_millis(1500));
    // The reaper ends the escapee once the command is killed; it is waited for as the run ends.
    let escaped = pid_in(&folder, "escaped");
    assert_eq!((finished.status, alive(escaped)), (None, false));
}

#[test]
fn a_program_that_is_not_there_is_an_error_not_a_hang() {
    let command = Command::new("/nonexistent/mend-no-such-program");
    let error = run_bounded(command, Duration::from_secs(20), Watch::NONE)
        .err()
        .map(|err| err.kind());
    assert_eq!(error, Some(std::io::ErrorKind::NotFound));
}

#[test]
fn output_written_by_the_command_is_all_kept() {
    let (_dir, folder) = project(&[]);
    let script = escape(
        "echo $$ > escaped; echo from-the-escapee; exec sleep 30",
        "escaped",
    ) + " echo from-the-command";
    let finished = run(&folder, &script, Duration::from_secs(20));
    assert_eq!(
        finished.output.lines().collect::<Vec<_>>().last().copied(),
        Some("from-the-command")
    );
}
