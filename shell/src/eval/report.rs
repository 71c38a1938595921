//! `mend eval report DIR...`: the results of one or more folders (shards, machines) merged, and
//! per task n, c and pass@1..k, the suite's mean, and the cost per passing attempt.

use std::collections::{BTreeMap, BTreeSet};

use camino::Utf8PathBuf;
use serde::Serialize;

use super::passk::pass_at_k;
use super::results::{read_dir_rows, Row};
use super::why::WhyCounts;
use crate::error::MendError;
use crate::page::facts::short_digest;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TaskReport {
    pub task: String,
    /// Attempts with a result, and how many of them passed.
    pub n: u64,
    pub c: u64,
    /// pass@1..k; `null` where k exceeds n (attempts still missing).
    pub pass_at: Vec<Option<f64>>,
    /// Why its attempts failed, and its suspect passes.
    pub why: WhyCounts,
    /// Attempts that passed with a change that reaches into the test run: not in `c`.
    #[serde(skip_serializing_if = "is_zero")]
    pub suspect: u64,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Report {
    pub suite_sha256: String,
    /// The model's name as the results name it (names, if the same model went by several);
    /// empty when the results predate it.
    pub model: String,
    pub model_digest: String,
    pub k: u32,
    pub tasks: Vec<TaskReport>,
    /// Tasks `mend eval check` found flaky (their outcome changed between runs of the same
    /// tree): listed apart, and left out of the mean.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flaky_tasks: Vec<TaskReport>,
    /// The mean over tasks of pass@1..k; `null` where some task lacks the attempts.
    pub mean_pass_at: Vec<Option<f64>>,
    pub attempts: u64,
    pub passed: u64,
    pub tokens: u64,
    pub minutes: f64,
    /// Tokens and minutes (model + tools + tests) spent per passing attempt; `null` with none.
    pub tokens_per_solved: Option<f64>,
    pub minutes_per_solved: Option<f64>,
    /// Why the attempts failed, over every task (flaky ones too).
    pub why: WhyCounts,
}

/// Every row of the folders, refusing another suite's or model's rows and duplicate attempts.
#[cfg(test)]
pub(crate) fn merge(dirs: &[Utf8PathBuf]) -> Result<Vec<Row>, MendError> {
    Ok(merge_located(dirs)?
        .into_iter()
        .map(|(_, row)| row)
        .collect())
}

/// As [`merge`], each row with the folder it came from (its record is relative to it).
pub(crate) fn merge_located(dirs: &[Utf8PathBuf]) -> Result<Vec<(Utf8PathBuf, Row)>, MendError> {
    let mut rows: Vec<(Utf8PathBuf, Row)> = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(MendError::usage(format!(
                "{dir} is not a folder — name the --out folders of `mend eval`"
            )));
        }
        rows.extend(
            read_dir_rows(dir)?
                .into_iter()
                .map(|row| (dir.clone(), row)),
        );
    }
    let Some((first_dir, first)) = rows.first().cloned() else {
        return Err(MendError::usage(format!(
            "no results in {} — run `mend eval SUITE --out DIR` first",
            dirs.iter()
                .map(|dir| dir.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    let mut seen = BTreeSet::new();
    for (dir, row) in &rows {
        if row.suite_sha256 != first.suite_sha256 || row.model_digest != first.model_digest {
            return Err(MendError::refused(format!(
                "{dir} ({} attempt {}) is from another suite or model than {first_dir}: suite {} vs {}, model {} vs {} — report them separately",
                row.task, row.attempt, row.suite_sha256, first.suite_sha256, row.model_digest, first.model_digest
            )));
        }
        if !seen.insert((row.task.clone(), row.attempt)) {
            return Err(MendError::refused(format!(
                "{} attempt {} appears twice (again in {dir}) — each attempt counts once: do not merge a folder with itself or with a copy",
                row.task, row.attempt
            )));
        }
    }
    Ok(rows)
}

pub(crate) fn report(rows: &[Row]) -> Report {
    let k = rows.iter().map(|row| row.k).max().unwrap_or(1);
    let mut per_task: BTreeMap<&str, (u64, u64, bool, u64)> = BTreeMap::new();
    for row in rows {
        let entry = per_task.entry(&row.task).or_default();
        entry.0 += 1;
        entry.1 += u64::from(row.passed && !row.suspect);
        entry.2 |= row.flaky;
        entry.3 += u64::from(row.passed && row.suspect);
    }
    let (flaky, steady): (Vec<_>, Vec<_>) = per_task
        .into_iter()
        .map(|(task, (n, c, flaky, suspect))| {
            let report = TaskReport {
                task: task.to_owned(),
                n,
                c,
                pass_at: (1..=u64::from(k)).map(|j| pass_at_k(n, c, j)).collect(),
                why: WhyCounts::of(rows.iter().filter(|row| row.task == task)),
                suspect,
            };
            (report, flaky)
        })
        .partition(|(_, flaky)| *flaky);
    let tasks: Vec<TaskReport> = steady.into_iter().map(|(task, _)| task).collect();
    let flaky_tasks: Vec<TaskReport> = flaky.into_iter().map(|(task, _)| task).collect();
    let mean_pass_at = (0..k as usize)
        .map(|j| {
            let values: Option<Vec<f64>> = tasks.iter().map(|task| task.pass_at[j]).collect();
            values.map(|values| values.iter().sum::<f64>() / values.len() as f64)
        })
        .collect();
    let passed = rows.iter().filter(|row| row.passed && !row.suspect).count() as u64;
    let tokens: u64 = rows.iter().map(|row| row.tokens).sum();
    let ms: u64 = rows
        .iter()
        .map(|row| row.model_ms + row.tool_ms + row.test_ms)
        .sum();
    let minutes = ms as f64 / 60_000.0;
    let per_solved = |total: f64| (passed > 0).then(|| total / passed as f64);
    let names: BTreeSet<&str> = rows
        .iter()
        .map(|row| row.model.as_str())
        .filter(|name| !name.is_empty())
        .collect();
    Report {
        model: names.into_iter().collect::<Vec<_>>().join(", "),
        suite_sha256: rows
            .first()
            .map(|row| row.suite_sha256.clone())
            .unwrap_or_default(),
        model_digest: rows
            .first()
            .map(|row| row.model_digest.clone())
            .unwrap_or_default(),
        k,
        tasks,
        flaky_tasks,
        mean_pass_at,
        attempts: rows.len() as u64,
        passed,
        tokens,
        minutes,
        tokens_per_solved: per_solved(tokens as f64),
        minutes_per_solved: per_solved(minutes),
        why: WhyCounts::of(rows),
    }
}

impl Report {
    /// The attempts and passes of the tasks the mean is over (flaky tasks are left out).
    pub(crate) fn mean_counts(&self) -> (u64, u64) {
        self.tasks
            .iter()
            .fold((0, 0), |(n, c), task| (n + task.n, c + task.c))
    }
}

/// A pass@k as both the text report and the page print it: `-` where k exceeds n.
pub(crate) fn cell(value: Option<f64>) -> String {
    value.map_or("-".to_owned(), |value| format!("{value:.3}"))
}

/// The model as people know it, then its digest, shortened: `qwen3:8b (digest 500a1f067a9f)`.
pub(crate) fn model_named(report: &Report) -> String {
    let digest = short_digest(&report.model_digest);
    if report.model.is_empty() {
        format!("digest {digest}")
    } else {
        format!("{} (digest {digest})", report.model)
    }
}

/// The report as a table for people.
pub(crate) fn render(report: &Report) -> String {
    let columns: Vec<String> = (1..=report.k).map(|j| format!("pass@{j}")).collect();
    let mut out = format!(
        "model {}  suite {}\n{:<24} {:>4} {:>4}  {}\n",
        model_named(report),
        report
            .suite_sha256
            .get(..12)
            .unwrap_or(&report.suite_sha256),
        "task",
        "n",
        "c",
        columns
            .iter()
            .map(|c| format!("{c:>8}"))
            .collect::<String>()
    );
    for task in &report.tasks {
        out.push_str(&task_line(task));
    }
    out.push_str(&format!(
        "{:<24} {:>4} {:>4}  {}\n",
        "mean",
        report.mean_counts().0,
        report.mean_counts().1,
        report
            .mean_pass_at
            .iter()
            .map(|v| format!("{:>8}", cell(*v)))
            .collect::<String>()
    ));
    if !report.flaky_tasks.is_empty() {
        out.push_str(
            "flaky tasks (their tests flip between runs of the same tree; not in the mean):\n",
        );
        for task in &report.flaky_tasks {
            out.push_str(&task_line(task));
        }
    }
    out.push_str(&format!("why: {}\n", report.why.line()));
    for task in report.tasks.iter().chain(&report.flaky_tasks) {
        if task.why.failed > 0 || task.why.suspect_passes > 0 || task.why.warned_passes > 0 {
            out.push_str(&format!("  {:<22} {}\n", task.task, task.why.line()));
        }
    }
    let suspect: Vec<String> = report
        .tasks
        .iter()
        .chain(&report.flaky_tasks)
        .filter(|task| task.suspect > 0)
        .map(|task| format!("{} {}", task.task, task.suspect))
        .collect();
    if !suspect.is_empty() {
        out.push_str(&format!(
            "suspect passes (the change reaches into the test run; not counted in c): {}\n",
            suspect.join(", ")
        ));
    }
    let cost = match (report.tokens_per_solved, report.minutes_per_solved) {
        (Some(tokens), Some(minutes)) => {
            format!("{tokens:.0} tokens and {minutes:.2} minutes per passing attempt")
        }
        _ => "no attempt passed".to_owned(),
    };
    out.push_str(&format!(
        "cost: {} tokens, {:.2} minutes in all; {cost}\n",
        report.tokens, report.minutes
    ));
    out
}

fn task_line(task: &TaskReport) -> String {
    format!(
        "{:<24} {:>4} {:>4}  {}\n",
        task.task,
        task.n,
        task.c,
        task.pass_at
            .iter()
            .map(|v| format!("{:>8}", cell(*v)))
            .collect::<String>()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(task: &str, attempt: u32, passed: bool) -> Row {
        Row {
            tokens: 100,
            model_ms: 30_000,
            ..Row::example(task, attempt, passed)
        }
    }

    /// `count` failed attempts, each stopped as the model finished (claiming success).
    fn failed(count: u64) -> WhyCounts {
        WhyCounts {
            failed: count,
            stops: (count > 0)
                .then(|| ("assistant_finished".to_owned(), count))
                .into_iter()
                .collect(),
            claimed_success: count,
            ..WhyCounts::default()
        }
    }

    /// Two attempts each of three tasks: one passed of `a`, a suspect pass of `b`, flaky `c`.
    fn rows() -> [Row; 6] {
        [
            row("a", 0, true),
            row("a", 1, false),
            row("b", 0, false),
            // Passed, but its change reaches into the test run: counted apart.
            Row {
                suspect: true,
                ..row("b", 1, true)
            },
            Row {
                flaky: true,
                ..row("c", 0, true)
            },
            Row {
                flaky: true,
                ..row("c", 1, true)
            },
        ]
    }

    #[test]
    fn per_task_pass_at_k_the_mean_and_the_cost_per_passing_attempt() {
        let rows = rows();
        assert_eq!(
            report(&rows),
            Report {
                suite_sha256: "s".to_owned(),
                model: "gemma4:e2b".to_owned(),
                model_digest: "m".to_owned(),
                k: 2,
                tasks: vec![
                    TaskReport {
                        task: "a".to_owned(),
                        n: 2,
                        c: 1,
                        pass_at: vec![Some(0.5), Some(1.0)],
                        why: failed(1),
                        suspect: 0,
                    },
                    TaskReport {
                        task: "b".to_owned(),
                        n: 2,
                        c: 0,
                        pass_at: vec![Some(0.0), Some(0.0)],
                        why: WhyCounts {
                            suspect_passes: 1,
                            ..failed(1)
                        },
                        suspect: 1,
                    },
                ],
                flaky_tasks: vec![TaskReport {
                    task: "c".to_owned(),
                    n: 2,
                    c: 2,
                    pass_at: vec![Some(1.0), Some(1.0)],
                    why: failed(0),
                    suspect: 0,
                }],
                mean_pass_at: vec![Some(0.25), Some(0.5)],
                attempts: 6,
                passed: 3,
                tokens: 600,
                minutes: 3.0,
                tokens_per_solved: Some(200.0),
                minutes_per_solved: Some(1.0),
                why: WhyCounts {
                    suspect_passes: 1,
                    ..failed(2)
                },
            }
        );
    }

    #[test]
    fn the_text_shows_flaky_tasks_and_suspect_passes_apart() {
        let rows = rows();
        let text = render(&report(&rows));
        let apart = text
            .split_once(
                "flaky tasks (their tests flip between runs of the same tree; not in the mean):\n",
            )
            .map(|(_, after)| after.lines().next().unwrap_or_default().to_owned());
        assert_eq!(
            apart.as_deref(),
            Some("c                           2    2     1.000   1.000")
        );
        assert_eq!(
            text.lines().find(|line| line.starts_with("suspect")),
            Some("suspect passes (the change reaches into the test run; not counted in c): b 1")
        );
    }

    #[test]
    fn merging_refuses_another_model_and_duplicate_attempts() {
        let write = |rows: &[Row]| {
            let dir = tempfile::tempdir().expect("temp dir");
            let text: String = rows
                .iter()
                .map(|row| serde_json::to_string(row).expect("json") + "\n")
                .collect();
            std::fs::write(dir.path().join("results.jsonl"), text).expect("write");
            let path = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).expect("utf-8");
            (dir, path)
        };
        let (_one, one) = write(&[row("a", 0, true)]);
        let (_two, two) = write(&[row("a", 1, false)]);
        let other_model = Row {
            model_digest: "x".to_owned(),
            ..row("a", 1, false)
        };
        let (_three, three) = write(&[other_model]);
        assert_eq!(
            merge(&[one.clone(), two.clone()]).map(|rows| rows.len()),
            Ok(2)
        );
        let codes: Vec<u8> = [
            merge(&[one.clone(), three]),
            merge(&[one.clone(), one.clone()]),
        ]
        .into_iter()
        .map(|result| result.map_or_else(|error| error.exit_code, |_| 0))
        .collect();
        assert_eq!(codes, [4, 4]);
    }
}
