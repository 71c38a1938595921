//! Tasks in SWE-bench's shape, played through `mend run` with scripted models on a git
//! repository made from the invoice fixture: the failing tests come only in a held-out test
//! patch, the tests to pass are given by id, and the fix is a later commit the copy's history
//! must not hold.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::common::server::{Reply, Server};
use crate::common::turns::{call, say, script};
use crate::common::{copy_of, mend, repo_root, tree_digest, Outcome};

pub(crate) const BUGGY: &str = "    return subtotal_cents * rate_percent // 100\n";
pub(crate) const FIXED: &str = "    return (subtotal_cents * rate_percent + 50) // 100\n";

/// The visible tax test is held out: the base's test file lacks it.
pub(crate) const TAX_TEST: &str = "tests/test_totals.py::test_tax_rounds_half_up";
pub(crate) const HIDDEN_TEST: &str = "tests/test_hidden_tax.py::test_half_a_cent_rounds_up";
pub(crate) const HIDDEN_FILE_TEST: &str =
    "tests/held/test_held_file.py::test_held_file_sees_the_fix";
pub(crate) const KEPT: [&str; 5] = [
    "tests/test_lines.py::LineTest::test_a_line_costs_quantity_times_price",
    "tests/test_render.py::test_a_credit_keeps_its_sign",
    "tests/test_render.py::test_cents_are_printed_with_two_digits",
    "tests/test_totals.py::test_subtotal_adds_every_line",
    "tests/test_totals.py::test_total_is_subtotal_plus_tax",
];

fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The repository: the base commit checked out; the fix on a branch, a tag and a stash; the
/// held-out tests as a `git diff` in `held-out.patch` beside an untracked task file, and one
/// more held-out test file, untracked, in `tests/held/`.
pub(crate) struct Instance {
    pub(crate) repo: tempfile::TempDir,
    fix: String,
}

pub(crate) fn instance() -> Instance {
    let repo = copy_of(&repo_root().join("fixtures/projects/invoice"));
    let root = repo.path();
    let tests = root.join("tests/test_totals.py");
    let full = std::fs::read_to_string(&tests).unwrap();
    let start = full.find("def test_tax_rounds_half_up").unwrap();
    let end = full.find("def test_total_is_subtotal_plus_tax").unwrap();
    std::fs::write(&tests, format!("{}{}", &full[..start], &full[end..])).unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
    // The test commit: the tax test back, a new test file, and a line at the end of the
    // package's __init__.py, as SWE-bench's test patches sometimes touch a source file.
    git(root, &["checkout", "-qb", "tests"]);
    std::fs::write(&tests, &full).unwrap();
    std::fs::write(
        root.join("tests/test_hidden_tax.py"),
        "from invoice.totals import tax\n\n\ndef test_half_a_cent_rounds_up():\n    assert tax(50, 1) == 1\n",
    )
    .unwrap();
    let init = root.join("invoice/__init__.py");
    let package = std::fs::read_to_string(&init).unwrap();
    std::fs::write(&init, format!("{package}TESTED = True\n")).unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "add held-out tests"]);
    let patch = git(root, &["diff", "main", "tests", "--"]);
    git(root, &["checkout", "-qb", "fix", "main"]);
    let totals = root.join("invoice/totals.py");
    let source = std::fs::read_to_string(&totals).unwrap();
    std::fs::write(&totals, source.replace(BUGGY, FIXED)).unwrap();
    git(root, &["commit", "-qam", "round half up"]);
    git(root, &["tag", "v1.2.1"]);
    let fix = git(root, &["rev-parse", "HEAD"]).trim().to_owned();
    git(root, &["checkout", "-q", "main"]);
    std::fs::write(&totals, source.replace(BUGGY, FIXED)).unwrap();
    git(root, &["stash", "-q"]);
    std::fs::write(root.join("held-out.patch"), patch).unwrap();
    // A held-out file the base does not track (one it tracks would be in the copy's history).
    std::fs::create_dir_all(root.join("tests/held")).unwrap();
    std::fs::write(
        root.join("tests/held/test_held_file.py"),
        "from invoice.totals import tax\n\n\ndef test_held_file_sees_the_fix():\n    assert tax(150, 1) == 2\n",
    )
    .unwrap();
    let given = |ids: &[&str]| format!("{ids:?}");
    std::fs::write(
        root.join("mend.toml"),
        format!(
            r#"[paths]
readable = ["**/*.py", "*.patch", "*.toml"]
editable = ["invoice/*.py"]

[test]
command = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
timeout_seconds = 120
files = ["tests/**/*.py"]
patch = "held-out.patch"
held_out = ["tests/held/**"]
fail_to_pass = {}
pass_to_pass = {}

[tools]
enabled = ["list_files", "grep", "read_file", "replace_text", "run_tests", "shell"]
"#,
            given(&[TAX_TEST, HIDDEN_TEST, HIDDEN_FILE_TEST]),
            given(&KEPT)
        ),
    )
    .unwrap();
    Instance { repo, fix }
}

/// One `mend run` of `replies` (then a claim of success) in bubblewrap; the original
/// repository, its `.git` included, must come out byte for byte the same.
fn play(instance: &Instance, replies: Vec<Reply>) -> (Outcome, Value) {
    let root = instance.repo.path();
    let before = tree_digest(root);
    let records = tempfile::tempdir().unwrap();
    let record = records.path().join("run.json");
    let mut replies = replies;
    replies.push(say("Fixed: the tests pass now."));
    let server = Server::start(script(replies));
    let outcome = mend(&[
        "run",
        "--json",
        "--sandbox",
        "bwrap",
        "--host",
        &server.base,
        "--repo",
        root.to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
        "--task",
        "tax() must round half a cent up. Fix it.",
    ]);
    assert_eq!(tree_digest(root), before, "the original repository changed");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap_or_else(|err| {
            panic!("no record ({err}):\n{}\n{}", outcome.stdout, outcome.stderr)
        }))
        .unwrap();
    (outcome, record)
}

fn event(outcome: &Outcome, kind: &str) -> Value {
    outcome
        .events()
        .into_iter()
        .find(|event| event["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} event:\n{}\n{}", outcome.stdout, outcome.stderr))
}

/// The text of every tool result, in order.
fn tool_results(outcome: &Outcome) -> Vec<String> {
    outcome
        .events()
        .into_iter()
        .filter(|event| event["type"] == "tool_result")
        .map(|event| event.to_string())
        .collect()
}

pub(crate) const HELD_OUT: [&str; 4] = [
    "invoice/__init__.py",
    "tests/held/test_held_file.py",
    "tests/test_hidden_tax.py",
    "tests/test_totals.py",
];

#[test]
fn the_honest_fix_resolves_on_tests_the_attempt_never_saw() {
    let instance = instance();
    let (outcome, record) = play(
        &instance,
        vec![call(
            "call_1",
            "replace_text",
            json!({"path": "invoice/totals.py", "old": BUGGY, "new": FIXED}),
        )],
    );
    let verdict = event(&outcome, "verdict");
    let ids = |ids: &[&str]| json!(ids);
    let expected_given = json!({
        "fail_to_pass": {"success": ids(&[TAX_TEST, HIDDEN_TEST, HIDDEN_FILE_TEST]), "failure": []},
        "pass_to_pass": {"success": ids(&KEPT), "failure": []},
    });
    assert_eq!(
        (
            outcome.code,
            verdict["tests_pass"].clone(),
            verdict["given"].clone(),
            verdict["held_out"].clone(),
            record["ending"]["given"].clone(),
            record["ending"]["held_out"].clone(),
            record["ending"]["history"].clone(),
        ),
        (
            0,
            json!(true),
            expected_given.clone(),
            json!(HELD_OUT),
            expected_given,
            json!(HELD_OUT),
            json!(format!(
                "only what HEAD ({}) reaches",
                git(instance.repo.path(), &["rev-parse", "main"]).trim()
            )),
        ),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
}

#[test]
fn a_model_that_digs_through_git_and_the_files_finds_no_held_out_test_and_no_fix() {
    let instance = instance();
    let fix = &instance.fix;
    let dig = format!(
        "git log --all --oneline; git cat-file -e {fix} 2>/dev/null && echo FOUND-FIX || echo NO-FIX; git stash list; git tag; \
         git cat-file --batch-all-objects --batch-check | wc -l; \
         grep -rn '+ 50' . ; grep -rln 'half_a_cent' . ; ls -a . tests; echo done"
    );
    let (outcome, record) = play(
        &instance,
        vec![
            call("call_1", "shell", json!({"command": dig})),
            call("call_2", "list_files", json!({})),
            call("call_3", "grep", json!({"pattern": "def test_"})),
            call("call_4", "run_tests", json!({})),
        ],
    );
    let results = tool_results(&outcome);
    let base_objects = git(instance.repo.path(), &["rev-list", "--objects", "main"])
        .lines()
        .count();
    let shell = &results[0];
    assert!(shell.contains("done"), "the shell call ran: {shell}");
    // git ran in the copy (its log holds the base commit), and found nothing else.
    assert!(
        shell.contains(" base\\n") && shell.contains("NO-FIX"),
        "git found the fix's commit, or did not run: {shell}"
    );
    for (what, leaked) in [
        ("the fix's commit", "FOUND-FIX"),
        ("the fix's subject", "round half up"),
        ("the test commit", "add held-out tests"),
        ("the fixed line", "+ 50"),
        ("the held-out test", "half_a_cent"),
        ("the held-out file", "test_held_file"),
        ("the test patch", "held-out.patch"),
        ("the task file", "mend.toml"),
        ("the tag", "v1.2.1"),
    ] {
        let seen: Vec<&String> = results
            .iter()
            .filter(|result| result.contains(leaked))
            .collect();
        assert!(seen.is_empty(), "{what} leaked: {seen:?}");
    }
    assert!(
        shell.contains(&format!("{base_objects}\\n")),
        "the copy holds exactly the {base_objects} objects the base reaches: {shell}"
    );
    let verdict = event(&outcome, "verdict");
    assert_eq!(
        (
            outcome.code,
            verdict["tests_pass"].clone(),
            verdict["given"]["fail_to_pass"]["failure"].clone(),
            verdict["given"]["pass_to_pass"]["failure"].clone(),
            record["ending"]["given"].clone() == verdict["given"],
        ),
        (
            1,
            json!(false),
            json!([
                {"id": TAX_TEST, "outcome": "failed"},
                {"id": HIDDEN_TEST, "outcome": "failed"},
                {"id": HIDDEN_FILE_TEST, "outcome": "failed"},
            ]),
            json!([]),
            true
        ),
        "{}",
        outcome.stdout
    );
    // The loop's run_tests ran the visible tests only: the six of the base.
    assert!(results[3].contains("6 passed"), "{}", results[3]);
}

#[test]
fn a_change_that_breaks_the_test_patch_is_a_fail_that_says_so() {
    let instance = instance();
    let (outcome, _record) = play(
        &instance,
        vec![
            call(
                "call_1",
                "replace_text",
                json!({"path": "invoice/totals.py", "old": BUGGY, "new": FIXED}),
            ),
            call(
                "call_2",
                "replace_text",
                json!({"path": "invoice/__init__.py", "old": "__version__ = \"1.2.0\"\n", "new": "__version__ = \"1.2.1\"\n"}),
            ),
        ],
    );
    let verdict = event(&outcome, "verdict");
    let reasons = verdict["reasons"].to_string();
    assert_eq!(
        (outcome.code, verdict["tests_pass"].clone()),
        (1, json!(false)),
        "{}",
        outcome.stdout
    );
    assert!(
        reasons.contains("the held-out test patch")
            && reasons.contains("does not apply after the change: invoice/__init__.py"),
        "{reasons}"
    );
}

#[test]
fn mend_task_never_names_the_held_out_tests() {
    let instance = instance();
    let shown = mend(&["task", "--repo", instance.repo.path().to_str().unwrap()]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    for hidden in [
        "half_a_cent",
        "test_held_file",
        "held-out.patch",
        "test_hidden_tax",
    ] {
        assert!(
            !shown.stdout.contains(hidden),
            "mend task names {hidden}:\n{}",
            shown.stdout
        );
    }
}
