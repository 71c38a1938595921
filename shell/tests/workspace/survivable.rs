//! Every file is survivable: a package with binary files, links of every kind, a huge file, a
//! FIFO and an unreadable file inside its globs still gets a run that ends with its record,
//! its patch and its verdict; `mend task` warns about those files up front, and `mend verify`,
//! which runs no tools, about those the copy does not carry over as they are.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common;
use crate::common::server::Server;
use crate::common::turns::{call, say, script};
use crate::common::{args_against, copy_of, mend, repo_root};
use serde_json::{json, Value};

const CATALOG: &str = "src/tinyi18n/catalog.py";
const BUGGY: &str = "    return language.replace(\"_\", \"-\")";
const FIXED: &str = "    return language.replace(\"-\", \"_\")";
/// Over the diff's 16 MiB cap, so the diff may only say that it differs.
const BIG_BYTES: usize = 17 * 1024 * 1024;

fn running_as_root() -> bool {
    // SAFETY: geteuid only reads the process's user id.
    unsafe { libc::geteuid() == 0 }
}

/// The fixture, plus what cannot be committed: a big generated file, a FIFO, an unreadable
/// file, all inside `paths.editable`.
fn project() -> tempfile::TempDir {
    let copy = copy_of(&repo_root().join("fixtures/projects/tinyi18n"));
    let root = copy.path();
    let mut big = fs::File::create(root.join("src/tinyi18n/words.txt")).unwrap();
    let line = "bonjour hello au revoir goodbye merci thank you\n";
    for _ in 0..BIG_BYTES / line.len() + 1 {
        big.write_all(line.as_bytes()).unwrap();
    }
    let fifo = std::process::Command::new("mkfifo")
        .arg(root.join("src/tinyi18n/events.fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());
    fs::write(root.join("src/tinyi18n/signing.key"), "not for you\n").unwrap();
    fs::set_permissions(
        root.join("src/tinyi18n/signing.key"),
        fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    copy
}

fn warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("mend: warning:"))
        .collect()
}

/// What `mend verify` warns about: only what its tests see otherwise than in place.
fn expected_verify_warnings() -> Vec<String> {
    expected_warnings()
        .into_iter()
        .filter(|warning| warning.contains("FIFO") || warning.contains("cannot read"))
        .collect()
}

fn expected_warnings() -> Vec<String> {
    let both = "(paths.readable, paths.editable)";
    let binary = "a binary file: the tools will not read or edit it; a change to it shows as `Binary files … differ`";
    let mut expected = vec![
        format!("src/tinyi18n/compat.py {both} is a broken link (to `_compat_py2.py`): the tools cannot open it; a change to it shows as its target"),
        format!("src/tinyi18n/docs {both} is a link to the folder `../../docs`: the tools see a folder; a change to the link shows as its target"),
        "src/tinyi18n/events.fifo is a FIFO (named pipe), which mend does not copy or read".to_owned(),
        format!("src/tinyi18n/locale/fr/LC_MESSAGES/tinyi18n.mo {both} is {binary}"),
        format!("src/tinyi18n/static/flag.png {both} is {binary}"),
        format!("src/tinyi18n/words.txt {both} is {} bytes: too big for the tools; a change to it shows as `Files … differ`", fs_size_of_big()),
    ];
    // Root reads every file, so only another user sees the unreadable one.
    if !running_as_root() {
        expected.push(format!("src/tinyi18n/signing.key {both} is a file mend cannot read (permission denied): the copy has it empty and unreadable"));
    }
    expected.sort();
    expected
        .into_iter()
        .map(|warning| format!("mend: warning: {warning}"))
        .collect()
}

fn fs_size_of_big() -> usize {
    let line = "bonjour hello au revoir goodbye merci thank you\n";
    (BIG_BYTES / line.len() + 1) * line.len()
}

#[test]
fn verify_and_task_warn_about_every_odd_file_and_still_give_the_verdict() {
    let project = project();
    let repo = project.path().to_str().unwrap();
    let verified = mend(&["verify", "--repo", repo]);
    assert_eq!(
        (verified.code, warnings(&verified.stderr)),
        (
            1,
            expected_verify_warnings()
                .iter()
                .map(String::as_str)
                .collect()
        ),
        "{}",
        verified.stderr
    );
    assert!(
        verified.stdout.contains("1 failed · 4 passed"),
        "the docs link, the catalog and the PNG reach the tests in the copy: {}",
        verified.stdout
    );
    let task = mend(&["task", "--repo", repo]);
    assert_eq!(
        (task.code, warnings(&task.stderr)),
        (0, expected_warnings().iter().map(String::as_str).collect()),
        "{}",
        task.stderr
    );
}

fn run(server: &Server, repo: &Path, record: &Path) -> common::Outcome {
    mend(&args_against("run", &server.base, repo, record))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("the record is written")).unwrap()
}

fn results(record: &Value) -> Vec<Value> {
    record["messages"][0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["result"].clone())
        .collect()
}

#[test]
fn a_run_among_odd_files_ends_with_its_record_patch_and_verdict_and_applies() {
    let project = project();
    let runs = tempfile::tempdir().unwrap();
    let record = runs.path().join("fix.json");
    let server = Server::start(script(vec![
        call(
            "c1",
            "read_file",
            json!({"path": "src/tinyi18n/static/flag.png"}),
        ),
        call("c2", "read_file", json!({"path": "src/tinyi18n/compat.py"})),
        call("c3", "read_file", json!({"path": "src/tinyi18n/words.txt"})),
        call(
            "c4",
            "replace_text",
            json!({"path": CATALOG, "old": BUGGY, "new": FIXED}),
        ),
        say("The tag's dash is now an underscore, as gettext expects."),
    ]));
    let outcome = run(&server, project.path(), &record);
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let written = read_json(&record);
    assert_eq!(
        results(&written),
        [
            json!({"error": "`src/tinyi18n/static/flag.png` is a binary file (not UTF-8 text); the tools read and edit text files only, so leave it as it is"}),
            json!({"error": "`src/tinyi18n/compat.py` is a link to `_compat_py2.py`, which does not exist (a broken link); it cannot be opened"}),
            json!({"error": format!("`src/tinyi18n/words.txt` is {} bytes, over the 262144-byte limit of read_file; read it in parts with start_line and end_line", fs_size_of_big())}),
            json!({"path": CATALOG, "replaced": 1}),
        ]
    );
    let patch = fs::read_to_string(record.with_extension("patch")).unwrap();
    assert_eq!(
        patch,
        format!(
            "--- a/{CATALOG}\n+++ b/{CATALOG}\n@@ -10,7 +10,7 @@\n \n def _gettext_name(language: str) -> str:\n     \"\"\"`fr-FR` (BCP 47, as browsers send it) -> `fr_FR` (as gettext names it).\"\"\"\n-{BUGGY}\n+{FIXED}\n \n \n def translate(message: str, language: str) -> str:\n"
        )
    );
    assert_eq!(written["ending"]["diff"], json!(patch));
    assert_eq!(
        (
            &written["tests_before"]["summary"],
            &written["ending"]["tests_after"]["summary"]
        ),
        (
            &json!({"passed": 4, "failed": 1, "errors": 0, "skipped": 0}),
            &json!({"passed": 5, "failed": 0, "errors": 0, "skipped": 0})
        )
    );

    // The change comes home to the original, odd files and all, and nothing else moves.
    let before = fs::read_to_string(project.path().join(CATALOG)).unwrap();
    let applied = mend(&[
        "apply",
        record.to_str().unwrap(),
        "--repo",
        project.path().to_str().unwrap(),
    ]);
    assert_eq!(applied.code, 0, "{}", applied.stderr);
    assert_eq!(
        fs::read_to_string(project.path().join(CATALOG)).unwrap(),
        before.replace(BUGGY, FIXED)
    );
}

#[test]
fn a_run_that_overwrote_a_binary_file_is_recorded_and_apply_refuses_it_by_name() {
    let project = project();
    let runs = tempfile::tempdir().unwrap();
    let record = runs.path().join("png.json");
    let server = Server::start(script(vec![
        call(
            "c1",
            "write_file",
            json!({"path": "src/tinyi18n/docs/usage.md", "text": "# gone\n"}),
        ),
        call(
            "c2",
            "write_file",
            json!({"path": "src/tinyi18n/static/flag.png", "text": "not a picture\n"}),
        ),
        say("Done."),
    ]));
    let outcome = run(&server, project.path(), &record);
    assert_eq!(outcome.code, 1, "{}", outcome.stderr);
    let written = read_json(&record);
    assert_eq!(
        results(&written),
        [
            json!({"error": "`src/tinyi18n/docs/usage.md` is a link to `docs/usage.md`, which no tool may change"}),
            json!({"path": "src/tinyi18n/static/flag.png", "bytes": 14, "created": false}),
        ]
    );
    let diff =
        "Binary files a/src/tinyi18n/static/flag.png and b/src/tinyi18n/static/flag.png differ\n";
    assert_eq!(
        (
            written["ending"]["diff"].as_str(),
            fs::read_to_string(record.with_extension("patch"))
                .ok()
                .as_deref()
        ),
        (Some(diff), Some(diff))
    );
    let flag = fs::read(project.path().join("src/tinyi18n/static/flag.png")).unwrap();
    let applied = mend(&[
        "apply",
        record.to_str().unwrap(),
        "--repo",
        project.path().to_str().unwrap(),
    ]);
    assert_eq!(
        (applied.code, applied.stderr.trim_end()),
        (4, "mend: error: the run changed src/tinyi18n/static/flag.png, which a text patch cannot carry (a link, or a binary, huge or unreadable file); nothing was applied — replay it with --keep-workspace and copy the files from there")
    );
    assert_eq!(
        fs::read(project.path().join("src/tinyi18n/static/flag.png")).unwrap(),
        flag
    );
}
