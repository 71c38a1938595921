//! Which (task, attempt) pairs one process runs: `--shard I/N`, else Slurm's array variables,
//! else Kubernetes' `JOB_COMPLETION_INDEX` with `--shards N`; else all of them.

use crate::error::MendError;

/// Slice `index` of `count` (0-based). Pair number g (in suite order: tasks, then attempts) is in
/// slice g mod count: deterministic, disjoint, and the slices cover every pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub(crate) const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// `I/N` with 0 <= I < N.
    pub(crate) fn parse(text: &str) -> Result<Shard, MendError> {
        let bad = || {
            MendError::usage(format!(
                "--shard takes I/N with 0 <= I < N (e.g. --shard 0/4), not `{text}`"
            ))
        };
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = index.trim().parse().map_err(|_| bad())?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        Shard::new(index, count).ok_or_else(bad)
    }

    pub(crate) fn new(index: u32, count: u32) -> Option<Shard> {
        (count >= 1 && index < count).then_some(Shard { index, count })
    }

    /// The flag, else the environment a cluster sets, else the whole suite.
    pub(crate) fn choose(
        flag: Option<&str>,
        shards: Option<u32>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Shard, MendError> {
        if let Some(flag) = flag {
            return Shard::parse(flag);
        }
        let number = |name: &str| -> Result<Option<u32>, MendError> {
            env(name)
                .map(|value| {
                    value.trim().parse::<u32>().map_err(|_| {
                        MendError::usage(format!("{name} is `{value}`, not a whole number"))
                    })
                })
                .transpose()
        };
        if let (Some(id), Some(count)) = (
            number("SLURM_ARRAY_TASK_ID")?,
            number("SLURM_ARRAY_TASK_COUNT")?,
        ) {
            // An array may start anywhere (`--array=1-4`): the slice counts from its first id.
            let first = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let index = id.checked_sub(first);
            return index.and_then(|index| Shard::new(index, count)).ok_or_else(|| {
                MendError::usage(format!(
                    "SLURM_ARRAY_TASK_ID {id} (from {first}) is outside an array of {count} tasks — submit with --array=0-{}",
                    count.saturating_sub(1)
                ))
            });
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = shards.ok_or_else(|| {
                MendError::usage(
                    "JOB_COMPLETION_INDEX is set: pass --shards N (the Job's completions) too",
                )
            })?;
            return Shard::new(index, count).ok_or_else(|| {
                MendError::usage(format!(
                    "JOB_COMPLETION_INDEX {index} is not below --shards {count}"
                ))
            });
        }
        Ok(Shard::WHOLE)
    }

    pub(crate) fn holds(self, pair_number: usize) -> bool {
        pair_number % self.count as usize == self.index as usize
    }

    /// The results file of this slice, in the output folder.
    pub(crate) fn results_file_name(self) -> String {
        if self == Shard::WHOLE {
            "results.jsonl".to_owned()
        } else {
            format!("results.shard-{}-of-{}.jsonl", self.index, self.count)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Shard;
    use proptest::prelude::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn the_flag_wins_then_slurm_then_kubernetes() {
        let slurm = env_of(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("JOB_COMPLETION_INDEX", "0"),
        ]);
        let k8s = env_of(&[("JOB_COMPLETION_INDEX", "2")]);
        let none = env_of(&[]);
        assert_eq!(
            [
                Shard::choose(Some("1/3"), None, &slurm).ok(),
                Shard::choose(None, None, &slurm).ok(),
                Shard::choose(None, Some(5), &k8s).ok(),
                Shard::choose(None, None, &none).ok(),
            ],
            [
                Some(Shard { index: 1, count: 3 }),
                Some(Shard { index: 2, count: 4 }),
                Some(Shard { index: 2, count: 5 }),
                Some(Shard::WHOLE),
            ]
        );
        let errors: Vec<u8> = [
            Shard::choose(Some("3/3"), None, &none),
            Shard::choose(Some("a/3"), None, &none),
            Shard::choose(None, None, &k8s),
            Shard::choose(None, Some(2), &k8s),
        ]
        .into_iter()
        .map(|result| result.map_or_else(|error| error.exit_code, |_| 0))
        .collect();
        assert_eq!(errors, [2, 2, 2, 2]);
    }

    proptest! {
        /// The N slices are disjoint and cover every pair.
        #[test]
        fn slices_are_disjoint_and_cover_every_pair(pairs in 0usize..300, count in 1u32..17) {
            let slices: Vec<Vec<usize>> = (0..count)
                .map(|index| (0..pairs).filter(|&pair| Shard { index, count }.holds(pair)).collect())
                .collect();
            let mut all: Vec<usize> = slices.concat();
            all.sort_unstable();
            prop_assert_eq!(all, (0..pairs).collect::<Vec<_>>());
        }
    }
}
