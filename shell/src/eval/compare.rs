//! `mend eval report --compare DIR_A DIR_B`: two runs of a suite (two models, or one model
//! under two settings) side by side per task — pass@1, pass@k, tokens — and the difference of
//! the suite's mean pass@1 with a 95 % confidence interval over tasks. The interval is the
//! normal approximation of the paired per-task differences (mean ± 1.96 standard errors): the
//! tasks are the sample, as they are what a reader would draw again.

use serde::Serialize;

use super::report::{cell, model_named, report, Report};
use super::results::Row;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TaskPair {
    pub task: String,
    /// pass@1 and pass@k (k the smaller of the two runs') of each side.
    pub a: Side,
    pub b: Side,
    /// B's pass@1 less A's.
    pub difference: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Side {
    pub n: u64,
    pub c: u64,
    pub pass_at_1: f64,
    pub pass_at_k: Option<f64>,
    pub tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Comparison {
    pub a: String,
    pub b: String,
    pub k: u32,
    pub tasks: Vec<TaskPair>,
    /// Tasks only one side has results for: not in the difference.
    pub unpaired: Vec<String>,
    pub mean_a: Option<f64>,
    pub mean_b: Option<f64>,
    pub mean_difference: Option<f64>,
    /// The 95 % interval of the mean difference; `null` with fewer than two paired tasks.
    pub interval: Option<(f64, f64)>,
    pub method: &'static str,
}

const METHOD: &str =
    "normal approximation over paired tasks: mean of (B - A) pass@1 ± 1.96 × sd / √n";

pub(crate) fn compare(a_rows: &[Row], b_rows: &[Row], a_name: &str, b_name: &str) -> Comparison {
    let (a, b) = (report(a_rows), report(b_rows));
    let k = a.k.min(b.k);
    let side = |report: &Report, rows: &[Row], task: &str| {
        let found = report
            .tasks
            .iter()
            .chain(&report.flaky_tasks)
            .find(|t| t.task == task)?;
        Some(Side {
            n: found.n,
            c: found.c,
            pass_at_1: found.pass_at.first().copied().flatten()?,
            pass_at_k: found
                .pass_at
                .get((k as usize).saturating_sub(1))
                .copied()
                .flatten(),
            tokens: rows
                .iter()
                .filter(|row| row.task == task)
                .map(|row| row.tokens)
                .sum(),
        })
    };
    let mut names: Vec<&str> = a_rows
        .iter()
        .chain(b_rows)
        .map(|row| row.task.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut tasks = Vec::new();
    let mut unpaired = Vec::new();
    for name in names {
        match (side(&a, a_rows, name), side(&b, b_rows, name)) {
            (Some(a), Some(b)) => tasks.push(TaskPair {
                task: name.to_owned(),
                difference: b.pass_at_1 - a.pass_at_1,
                a,
                b,
            }),
            _ => unpaired.push(name.to_owned()),
        }
    }
    let mean = |values: Vec<f64>| {
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let differences: Vec<f64> = tasks.iter().map(|pair| pair.difference).collect();
    let mean_difference = mean(differences.clone());
    Comparison {
        a: format!("{a_name}: {}", model_named(&a)),
        b: format!("{b_name}: {}", model_named(&b)),
        k,
        mean_a: mean(tasks.iter().map(|pair| pair.a.pass_at_1).collect()),
        mean_b: mean(tasks.iter().map(|pair| pair.b.pass_at_1).collect()),
        interval: mean_difference.and_then(|centre| interval(centre, &differences)),
        mean_difference,
        tasks,
        unpaired,
        method: METHOD,
    }
}

fn interval(centre: f64, differences: &[f64]) -> Option<(f64, f64)> {
    let n = differences.len();
    if n < 2 {
        return None;
    }
    let variance = differences
        .iter()
        .map(|d| (d - centre).powi(2))
        .sum::<f64>()
        / (n - 1) as f64;
    let half = 1.96 * (variance / n as f64).sqrt();
    Some((centre - half, centre + half))
}

pub(crate) fn render(comparison: &Comparison) -> String {
    let k = comparison.k;
    let mut out = format!("A {}\nB {}\n", comparison.a, comparison.b);
    out.push_str(&format!(
        "{:<24} {:>8} {:>8} {:>9} {:>9} {:>9} {:>10} {:>10}\n",
        "task",
        "A pass@1",
        "B pass@1",
        "B - A",
        format!("A pass@{k}"),
        format!("B pass@{k}"),
        "A tokens",
        "B tokens"
    ));
    for pair in &comparison.tasks {
        out.push_str(&format!(
            "{:<24} {:>8.3} {:>8.3} {:>+9.3} {:>9} {:>9} {:>10} {:>10}\n",
            pair.task,
            pair.a.pass_at_1,
            pair.b.pass_at_1,
            pair.difference,
            cell(pair.a.pass_at_k),
            cell(pair.b.pass_at_k),
            pair.a.tokens,
            pair.b.tokens
        ));
    }
    if let (Some(a), Some(b), Some(difference)) = (
        comparison.mean_a,
        comparison.mean_b,
        comparison.mean_difference,
    ) {
        out.push_str(&format!(
            "{:<24} {a:>8.3} {b:>8.3} {difference:>+9.3}\n",
            "mean"
        ));
    }
    out.push_str(&match comparison.interval {
        Some((low, high)) => format!(
            "B - A mean pass@1: 95 % interval [{low:+.3}, {high:+.3}] over {} tasks ({})\n",
            comparison.tasks.len(),
            comparison.method
        ),
        None => "B - A mean pass@1: no interval (fewer than two tasks both runs have)\n".to_owned(),
    });
    if !comparison.unpaired.is_empty() {
        out.push_str(&format!(
            "only in one run (left out): {}\n",
            comparison.unpaired.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{compare, Comparison, Side, TaskPair, METHOD};
    use crate::eval::results::Row;

    fn rows(model: &str, outcomes: &[(&str, &[bool])]) -> Vec<Row> {
        outcomes
            .iter()
            .flat_map(|(task, passes)| {
                passes.iter().enumerate().map(move |(attempt, passed)| Row {
                    model: model.to_owned(),
                    model_digest: format!("d-{model}"),
                    k: 2,
                    tokens: 10,
                    ..Row::example(task, attempt as u32, *passed)
                })
            })
            .collect()
    }

    #[test]
    fn two_runs_of_one_model_pair_by_task_with_an_interval_over_tasks() {
        let a = rows(
            "m",
            &[
                ("t1", &[false, false]),
                ("t2", &[true, false]),
                ("t3", &[true, true]),
                ("only_a", &[true]),
            ],
        );
        let b = rows(
            "m",
            &[
                ("t1", &[true, false]),
                ("t2", &[true, true]),
                ("t3", &[true, true]),
            ],
        );
        let side = |c: u64, p1: f64, pk: f64| Side {
            n: 2,
            c,
            pass_at_1: p1,
            pass_at_k: Some(pk),
            tokens: 20,
        };
        // Differences 0.5, 0.5, 0: mean 1/3, sd 0.2887, se 0.1667, half-width 0.3267.
        let got = compare(&a, &b, "A", "B");
        let half = 1.96 * (1.0f64 / 12.0 / 3.0).sqrt();
        assert_eq!(
            got,
            Comparison {
                a: "A: m (digest d-m)".to_owned(),
                b: "B: m (digest d-m)".to_owned(),
                k: 2,
                tasks: vec![
                    TaskPair {
                        task: "t1".to_owned(),
                        a: side(0, 0.0, 0.0),
                        b: side(1, 0.5, 1.0),
                        difference: 0.5
                    },
                    TaskPair {
                        task: "t2".to_owned(),
                        a: side(1, 0.5, 1.0),
                        b: side(2, 1.0, 1.0),
                        difference: 0.5
                    },
                    TaskPair {
                        task: "t3".to_owned(),
                        a: side(2, 1.0, 1.0),
                        b: side(2, 1.0, 1.0),
                        difference: 0.0
                    },
                ],
                unpaired: vec!["only_a".to_owned()],
                mean_a: Some(0.5),
                mean_b: Some(2.5 / 3.0),
                mean_difference: Some(1.0 / 3.0),
                interval: got.interval,
                method: METHOD,
            }
        );
        let rounded = |(low, high): (f64, f64)| ((low * 1e9).round(), (high * 1e9).round());
        assert_eq!(
            got.interval.map(rounded),
            Some(rounded((1.0 / 3.0 - half, 1.0 / 3.0 + half)))
        );
    }
}
