//! What the solved tasks cost, from the results lines: tokens (prompt + generated, as the server
//! counted them) and time (model + tools + tests) per task, per passing attempt, and per solved
//! task (a task with at least one passing attempt).

use std::collections::BTreeMap;

use super::results::Row;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TaskCost {
    pub task: String,
    pub attempts: u64,
    pub passed: u64,
    pub tokens: u64,
    pub ms: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Costs {
    /// By task name, as the report orders them.
    pub tasks: Vec<TaskCost>,
    pub tokens: u64,
    pub ms: u64,
}

/// Tokens and milliseconds each, spent per unit of something solved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PerSolved {
    pub tokens: f64,
    pub ms: f64,
}

impl TaskCost {
    /// This task's cost per passing attempt; `None` when none passed.
    pub(crate) fn per_passing_attempt(&self) -> Option<PerSolved> {
        per(self.tokens, self.ms, self.passed)
    }
}

impl Costs {
    pub(crate) fn of(rows: &[Row]) -> Costs {
        let mut by_task: BTreeMap<&str, TaskCost> = BTreeMap::new();
        for row in rows {
            let cost = by_task.entry(&row.task).or_insert_with(|| TaskCost {
                task: row.task.clone(),
                attempts: 0,
                passed: 0,
                tokens: 0,
                ms: 0,
            });
            cost.attempts += 1;
            cost.passed += u64::from(row.passed);
            cost.tokens += row.tokens;
            cost.ms += row.model_ms + row.tool_ms + row.test_ms;
        }
        let tasks: Vec<TaskCost> = by_task.into_values().collect();
        Costs {
            tokens: tasks.iter().map(|task| task.tokens).sum(),
            ms: tasks.iter().map(|task| task.ms).sum(),
            tasks,
        }
    }

    /// Tasks with at least one passing attempt.
    pub(crate) fn tasks_solved(&self) -> u64 {
        self.tasks.iter().filter(|task| task.passed > 0).count() as u64
    }

    /// Everything the suite spent, over its passing attempts; `None` when none passed.
    pub(crate) fn per_passing_attempt(&self) -> Option<PerSolved> {
        let passed = self.tasks.iter().map(|task| task.passed).sum();
        per(self.tokens, self.ms, passed)
    }

    /// Everything the suite spent, over the tasks it solved; `None` when it solved none.
    pub(crate) fn per_solved_task(&self) -> Option<PerSolved> {
        per(self.tokens, self.ms, self.tasks_solved())
    }
}

fn per(tokens: u64, ms: u64, solved: u64) -> Option<PerSolved> {
    (solved > 0).then(|| PerSolved {
        tokens: tokens as f64 / solved as f64,
        ms: ms as f64 / solved as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(task: &str, attempt: u32, passed: bool, tokens: u64) -> Row {
        Row {
            seed: 0,
            turns: 1,
            tokens,
            model_ms: 1000,
            tool_ms: 200,
            test_ms: 300,
            ..Row::example(task, attempt, passed)
        }
    }

    #[test]
    fn cost_per_task_per_passing_attempt_and_per_solved_task() {
        let costs = Costs::of(&[
            row("b", 0, false, 100),
            row("a", 0, true, 300),
            row("a", 1, true, 500),
            row("b", 1, false, 100),
        ]);
        let task = |name: &str, passed, tokens| TaskCost {
            task: name.to_owned(),
            attempts: 2,
            passed,
            tokens,
            ms: 3000,
        };
        assert_eq!(
            costs,
            Costs {
                tasks: vec![task("a", 2, 800), task("b", 0, 200)],
                tokens: 1000,
                ms: 6000,
            }
        );
        assert_eq!(
            (
                costs.tasks_solved(),
                costs.per_solved_task(),
                costs.per_passing_attempt(),
                costs.tasks[0].per_passing_attempt(),
                costs.tasks[1].per_passing_attempt(),
            ),
            (
                1,
                Some(PerSolved {
                    tokens: 1000.0,
                    ms: 6000.0
                }),
                Some(PerSolved {
                    tokens: 500.0,
                    ms: 3000.0
                }),
                Some(PerSolved {
                    tokens: 400.0,
                    ms: 1500.0
                }),
                None
            )
        );
    }

    #[test]
    fn nothing_solved_is_none_rather_than_a_division_by_zero() {
        let costs = Costs::of(&[row("a", 0, false, 100)]);
        assert_eq!(
            (
                costs.tasks_solved(),
                costs.per_solved_task(),
                costs.per_passing_attempt()
            ),
            (0, None, None)
        );
    }
}
