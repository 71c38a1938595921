//! `mend eval` end to end: a suite of two real tasks against a scripted model whose repairs
//! depend on the seed, so the pass@k of the report is known exactly. Real pytest on copies.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may panic on broken invariants
#![allow(clippy::too_many_lines)] // the 80-line rule is for code; a scenario reads top to bottom

mod atif;
mod bench_model;
mod check;
#[path = "../common/mod.rs"]
mod common;
mod compare;
mod import;
mod install;
mod otel;
mod page;
mod page_layout;
mod report_html;
mod server;
mod slurm;
mod swebench;
mod swebench_export;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use server::{Fix, SeededServer, TURN_TOKENS};

/// k attempts per task; seeds 0..k.
pub const K: u32 = 4;

pub fn fixes() -> Vec<Fix> {
    vec![
        Fix {
            prompt_contains: "python_sources",
            old: common::turns::OLD,
            new: common::turns::NEW,
            every: 2,
        },
        Fix {
            prompt_contains: "paginate.py",
            old: "    start = number * size",
            new: "    start = (number - 1) * size",
            every: 4,
        },
    ]
}

/// A folder with `tasks/sample` and `tasks/paginate` and a suite over `tasks/*`, checked.
pub fn suite_folder(host: &str) -> tempfile::TempDir {
    let root = common::repo_root();
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, source) in [
        ("sample", root.join("sample-repo")),
        ("paginate", root.join("evals/local/paginate")),
    ] {
        copy_tree(&source, &dir.path().join("tasks").join(name));
    }
    let suite = format!(
        "tasks = [\"tasks/*\"]\nk = {K}\nmax_turns = 4\ntoken_budget = 100000\ndeadline_seconds = 300\ntemperature = 0.6\nseed = 0\n\n[model]\nname = \"{}\"\nhost = \"{host}\"\n",
        server::MODEL
    );
    let suite_path = dir.path().join("suite.toml");
    fs::write(&suite_path, suite).expect("suite");
    // `mend eval` runs only checked tasks: both fail before, and neither has a gold patch.
    let checked = common::mend(&["eval", "check", &suite_path.display().to_string()]);
    assert_eq!(checked.code, 0, "{}{}", checked.stdout, checked.stderr);
    dir
}

pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read dir").flatten() {
        let name = entry.file_name();
        if name == ".mend" || name == "__pycache__" || name == ".pytest_cache" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name));
        } else {
            fs::copy(&path, to.join(&name)).expect("copy");
        }
    }
}

pub fn results(dir: &Path) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("out dir")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    for file in files {
        let text = fs::read_to_string(&file).expect("results");
        rows.extend(
            text.lines()
                .map(|line| serde_json::from_str::<Value>(line).expect("a whole line")),
        );
    }
    rows
}

pub fn results_file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("out dir")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".jsonl"))
        .collect();
    names.sort();
    names
}

/// The report as JSON, without the minutes (wall time differs between any two runs).
pub fn report(dirs: &[&Path]) -> Value {
    let mut args = vec!["eval", "report", "--json"];
    let dirs: Vec<String> = dirs.iter().map(|dir| dir.display().to_string()).collect();
    args.extend(dirs.iter().map(String::as_str));
    let outcome = common::mend(&args);
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    let mut report: Value = serde_json::from_str(&outcome.stdout).expect("one JSON report");
    let object = report.as_object_mut().expect("an object");
    object.remove("minutes");
    object.remove("minutes_per_solved");
    report
}

/// sample repairs on even seeds (c = 2 of 4), paginate on multiples of 4 (c = 1 of 4).
pub fn expected_report(suite_sha256: &str) -> Value {
    let attempts_tokens = 8 * TURN_TOKENS + 3 * TURN_TOKENS;
    // The scripted model gives up by finishing, which claims a success the tests deny.
    let failed = |count: u64| json!({"failed": count, "stops": {"assistant_finished": count}, "claimed_success": count, "with_invalid_calls": 0, "with_failed_calls": 0, "suspect_passes": 0, "warned_passes": 0});
    json!({
        "suite_sha256": suite_sha256,
        "model": server::MODEL,
        "model_digest": server::DIGEST,
        "k": K,
        "tasks": [
            {"task": "paginate", "n": 4, "c": 1, "pass_at": [0.25, 0.5, 0.75, 1.0], "why": failed(3)},
            {"task": "sample", "n": 4, "c": 2, "pass_at": [0.5, 0.8333333333333333, 1.0, 1.0], "why": failed(2)},
        ],
        "why": failed(5),
        "mean_pass_at": [0.375, 0.6666666666666666, 0.875, 1.0],
        "attempts": 8,
        "passed": 3,
        "tokens": attempts_tokens,
        "tokens_per_solved": attempts_tokens as f64 / 3.0,
    })
}

pub fn sha256_of(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    let bytes = fs::read(path).expect("read");
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[test]
fn an_eval_reports_the_exact_pass_at_k_resumes_and_shards() {
    let server = SeededServer::start(fixes());
    let dir = suite_folder(&server.base);
    let suite = dir.path().join("suite.toml");
    let suite_sha256 = sha256_of(&suite);
    let out = dir.path().join("out");
    let (suite_arg, out_arg) = (suite.display().to_string(), out.display().to_string());

    let first = common::mend(&["eval", &suite_arg, "--out", &out_arg, "--jobs", "2"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    // Off a terminal, one line per finished attempt, as it finishes.
    let mut finished: Vec<String> = first
        .stderr
        .lines()
        .filter_map(|line| line.strip_prefix("mend: eval: ["))
        .filter_map(|rest| rest.split_once("] "))
        .map(|(_, rest)| rest.split(" (").next().unwrap_or("").to_owned())
        .collect();
    finished.sort();
    let expected_lines: Vec<String> = [("paginate", 4), ("sample", 2)]
        .iter()
        .flat_map(|(task, every)| {
            (0..u64::from(K)).map(move |attempt| {
                let verdict = if attempt % every == 0 { "PASS" } else { "FAIL" };
                format!("{task} attempt {attempt}: {verdict}")
            })
        })
        .collect();
    let shortened: Vec<String> = finished
        .iter()
        .map(|line| {
            line.split(": FAIL").next().map_or(line.clone(), |head| {
                if line.contains(": FAIL") {
                    format!("{head}: FAIL")
                } else {
                    line.clone()
                }
            })
        })
        .collect();
    assert_eq!(shortened, expected_lines, "{}", first.stderr);
    assert_eq!(report(&[&out]), expected_report(&suite_sha256));
    // Every attempt is an ordinary record, with its seed and the suite's temperature and budget.
    let record: Value = serde_json::from_str(
        &fs::read_to_string(out.join("sample/2.json")).expect("the record of sample attempt 2"),
    )
    .expect("a record");
    assert_eq!(
        (
            &record["options"]["seed"],
            &record["options"]["temperature"],
            &record["token_budget"],
            &record["messages"][0]["stop"]["reason"],
            out.join("sample/2.patch").is_file(),
        ),
        (
            &json!(2),
            &json!(0.6),
            &json!(100000),
            &json!("assistant_finished"),
            true
        )
    );
    let mut rows = results(&out);
    rows.sort_by_key(|row| {
        (
            row["task"].as_str().unwrap_or("").to_owned(),
            row["attempt"].as_u64(),
        )
    });
    let summary: Vec<(String, u64, i64, bool, u64, u64)> = rows
        .iter()
        .map(|row| {
            (
                row["task"].as_str().unwrap().to_owned(),
                row["attempt"].as_u64().unwrap(),
                row["seed"].as_i64().unwrap(),
                row["passed"].as_bool().unwrap(),
                row["turns"].as_u64().unwrap(),
                row["tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, u64, i64, bool, u64, u64)> = [("paginate", 4), ("sample", 2)]
        .iter()
        .flat_map(|(task, every)| {
            (0..u64::from(K)).map(move |attempt| {
                let repairs = attempt % every == 0;
                let turns = if repairs { 2 } else { 1 };
                (
                    task.to_string(),
                    attempt,
                    attempt as i64,
                    repairs,
                    turns,
                    turns * TURN_TOKENS,
                )
            })
        })
        .collect();
    assert_eq!(summary, expected);

    // Resumable: a rerun asks the model nothing; a torn last line is ignored, cut, and rerun.
    let chats = server.chats.load(std::sync::atomic::Ordering::SeqCst);
    let again = common::mend(&["eval", &suite_arg, "--out", &out_arg]);
    assert_eq!(
        (
            again.code,
            server.chats.load(std::sync::atomic::Ordering::SeqCst)
        ),
        (0, chats),
        "{}",
        again.stderr
    );
    let file = out.join("results.jsonl");
    let text = fs::read_to_string(&file).expect("results");
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines.pop().expect("a line");
    let torn = format!("{}\n{}", lines.join("\n"), &last[..last.len() / 2]);
    fs::write(&file, &torn).expect("tear the last line");
    let resumed = common::mend(&["eval", &suite_arg, "--out", &out_arg]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert!(
        resumed.stderr.contains("ends with an incomplete line"),
        "{}",
        resumed.stderr
    );
    assert_eq!(report(&[&out]), expected_report(&suite_sha256));

    // Two shards into two folders merge into the same report; the same folder twice is refused.
    let shards: Vec<PathBuf> = (0..2)
        .map(|index| dir.path().join(format!("shard{index}")))
        .collect();
    for (index, shard_out) in shards.iter().enumerate() {
        let outcome = common::mend(&[
            "eval",
            &suite_arg,
            "--out",
            &shard_out.display().to_string(),
            "--shard",
            &format!("{index}/2"),
        ]);
        assert_eq!(outcome.code, 0, "{}", outcome.stderr);
        assert_eq!(results(shard_out).len(), 4);
    }
    assert_eq!(
        report(&[&shards[0], &shards[1]]),
        expected_report(&suite_sha256)
    );
    let twice = common::mend(&[
        "eval",
        "report",
        &shards[0].display().to_string(),
        &shards[0].display().to_string(),
    ]);
    assert_eq!(twice.code, 4, "{}", twice.stderr);
}

#[test]
fn a_malformed_suite_names_its_line_and_field() {
    let dir = suite_folder("http://127.0.0.1:9");
    let suite = dir.path().join("suite.toml");
    fs::write(&suite, "tasks = [\"tasks/*\"]\nk = 3\ntoken_budjet = 5\n").expect("suite");
    let outcome = common::mend(&[
        "eval",
        &suite.display().to_string(),
        "--out",
        &dir.path().join("out").display().to_string(),
    ]);
    assert_eq!(
        (outcome.code, outcome.stderr.trim_end().to_owned()),
        (
            2,
            format!(
                "mend: error: {}:3: unknown field `token_budjet`, expected one of `tasks`, `k`, `max_turns`, `deadline_seconds`, `token_budget`, `temperature`, `seed`, `model`, `environment` (see evals/README.md)",
                suite.display()
            )
        )
    );
}

#[test]
fn a_task_without_a_prompt_names_the_fix() {
    let dir = suite_folder("http://127.0.0.1:9");
    let task_file = dir.path().join("tasks/paginate/mend.toml");
    let text = fs::read_to_string(&task_file).expect("task file");
    let start = text.find("prompt = ").expect("a prompt");
    let end = start + text[start..].find("\"\"\"\n").expect("its end") + 4;
    fs::write(&task_file, format!("{}{}", &text[..start], &text[end..])).expect("task file");
    let outcome = common::mend(&[
        "eval",
        &dir.path().join("suite.toml").display().to_string(),
        "--out",
        &dir.path().join("out").display().to_string(),
    ]);
    assert_eq!(
        (outcome.code, outcome.stderr.trim_end().to_owned()),
        (
            2,
            format!(
                "mend: error: {} has no task.prompt, which every task of a suite needs — say what the model should do there: [task] prompt = \"...\"",
                task_file.display()
            )
        )
    );
}

/// The Kubernetes Job (no cluster here, so checked as text): Indexed, and `--shards` equal to
/// `completions`, or pods would run overlapping or missing slices.
#[test]
fn k8s_shards_match_completions() {
    let manifest = fs::read_to_string(common::repo_root().join("deploy/k8s/eval-job.yaml"))
        .expect("the Job manifest");
    let value_of = |key: &str| {
        manifest
            .lines()
            .find_map(|line| {
                line.trim()
                    .strip_prefix(key)
                    .map(|rest| rest.trim().to_owned())
            })
            .unwrap_or_default()
    };
    let shards = manifest
        .split("\"--shards\", \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        (
            value_of("completionMode:"),
            value_of("completions:"),
            value_of("parallelism:")
        ),
        ("Indexed".to_owned(), shards.clone(), shards)
    );
}

/// The per-instance Job of deploy/k8s/README.md: it writes to the claim results-volume.yaml
/// defines, runs the mend the init container copies into the shared volume, with --on-host
/// (the pod is the task's image), and is never retried (a retry asks the model again).
#[test]
fn k8s_instance_job_runs_mend_on_the_pods_own_image() {
    let read = |name: &str| {
        fs::read_to_string(common::repo_root().join("deploy/k8s").join(name)).expect(name)
    };
    let (job, volume) = (read("instance-job.yaml"), read("results-volume.yaml"));
    let values = |text: &str, key: &str| -> Vec<String> {
        text.lines()
            .filter_map(|line| {
                let line = line.trim().trim_start_matches("- ");
                line.strip_prefix(key).map(|rest| rest.trim().to_owned())
            })
            .collect()
    };
    let copied = values(&job, "command:")
        .into_iter()
        .find(|command| command.starts_with("[\"cp\""))
        .unwrap_or_default();
    let items: Vec<&str> = job
        .lines()
        .map(str::trim)
        .filter_map(|line| line.strip_prefix("- "))
        .collect();
    assert_eq!(
        (
            values(&job, "claimName:"),
            values(&job, "backoffLimit:"),
            copied,
            items.contains(&"/mend/mend"),
            items.contains(&"--on-host"),
        ),
        (
            values(&volume, "name:"),
            vec!["0".to_owned()],
            "[\"cp\", \"/usr/local/bin/mend\", \"/mend/mend\"]".to_owned(),
            true,
            true,
        )
    );
}
