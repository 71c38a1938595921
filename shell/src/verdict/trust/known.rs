//! What the final run's witness does not hold against the change. A real project reads frames
//! (a deprecation helper's `sys._getframe`, a logger's caller) and walks `gc` in its own code;
//! the change did not write those lines, so they say nothing about the change. Two rules, each
//! by the text of the change alone: a reach the run before the change saw too, and a frame read
//! or audited event owed to a line the change did not write. Plugins, hooks and replaced parts
//! of pytest are never excused: no honest code of a project under test does those while its
//! tests run.

use std::collections::{BTreeMap, BTreeSet};

use crate::patch::parse::{parse, HunkLine};
use crate::verdict::trust::untrusted::{Alarm, AlarmKind};

/// The lines the change wrote, by path from the repository, numbered from 1 in the final tree.
pub(crate) type WrittenLines = BTreeMap<String, BTreeSet<usize>>;

/// What excuses a reach the final run's witness saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct Known<'a> {
    /// Reaches the run before the change saw too (the same kind from the same file).
    pub first_run: &'a [Alarm],
    /// The lines the change wrote; `None` when they are not known (then only `first_run`
    /// excuses).
    pub written: Option<&'a WrittenLines>,
}

impl Known<'_> {
    pub fn excuses(&self, alarm: &Alarm) -> bool {
        self.first_run.iter().any(|seen| seen.same_reach(alarm)) || self.owed_to_the_project(alarm)
    }

    fn owed_to_the_project(&self, alarm: &Alarm) -> bool {
        let (Some(written), Some(place)) = (self.written, alarm.place.as_deref()) else {
            return false;
        };
        if !matches!(alarm.kind, AlarmKind::Frame | AlarmKind::Audit) {
            return false;
        }
        let Some((file, line)) = place.rsplit_once(':') else {
            return false;
        };
        let Ok(line) = line.parse::<usize>() else {
            return false;
        };
        // A path outside the copy (absolute) is no line of the project's to excuse.
        !file.starts_with('/') && !written.get(file).is_some_and(|lines| lines.contains(&line))
    }
}

/// The lines `diff` (a unified diff of the change) adds, numbered in the new file. A diff that
/// does not read gives `None`: then no reach is excused by its place.
pub(crate) fn written_lines(diff: &str) -> Option<WrittenLines> {
    let mut written = WrittenLines::new();
    for file in parse(diff).ok()? {
        let Some(path) = file.new_path.clone() else {
            continue;
        };
        let lines = written.entry(path).or_default();
        // How far the new side's numbering has moved from the old side's, hunk by hunk.
        let mut shift: isize = 0;
        for hunk in &file.hunks {
            // A hunk that removes nothing names the old line it follows.
            let old_start = hunk.old_start + usize::from(hunk.old_count == 0);
            let mut line = old_start.checked_add_signed(shift)?;
            for hunk_line in &hunk.lines {
                match hunk_line {
                    HunkLine::Context(_) => line += 1,
                    HunkLine::Removed(_) => shift -= 1,
                    HunkLine::Added(_) => {
                        lines.insert(line);
                        line += 1;
                        shift += 1;
                    }
                }
            }
        }
    }
    Some(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alarm(kind: AlarmKind, place: Option<&str>) -> Alarm {
        Alarm {
            kind,
            what: "sys._getframe".to_owned(),
            place: place.map(str::to_owned),
        }
    }

    #[test]
    fn added_lines_are_numbered_in_the_new_file_across_hunks() {
        let diff = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n@@ -10,2 +11,3 @@\n j\n+k\n l\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+x\n+y\n";
        let expected: WrittenLines = [
            ("new.py".to_owned(), BTreeSet::from([1, 2])),
            ("pkg/mod.py".to_owned(), BTreeSet::from([2, 3, 12])),
        ]
        .into_iter()
        .collect();
        assert_eq!(written_lines(diff), Some(expected));
    }

    #[test]
    fn only_frame_reads_and_audits_from_lines_the_change_did_not_write_are_excused() {
        let written: WrittenLines = [("semver.py".to_owned(), BTreeSet::from([20]))]
            .into_iter()
            .collect();
        let known = Known {
            first_run: &[],
            written: Some(&written),
        };
        let cases = [
            alarm(AlarmKind::Frame, Some("semver.py:146")),
            alarm(AlarmKind::Frame, Some("semver.py:20")),
            alarm(AlarmKind::Audit, Some("other.py:3")),
            alarm(AlarmKind::Audit, Some("/usr/lib/x.py:3")),
            alarm(AlarmKind::Frame, None),
            alarm(AlarmKind::Plugin, Some("other.py:3")),
            alarm(AlarmKind::Hook, Some("semver.py:146")),
            alarm(AlarmKind::Replaced, Some("semver.py:146")),
        ];
        let excused: Vec<bool> = cases.iter().map(|case| known.excuses(case)).collect();
        assert_eq!(
            excused,
            [true, false, true, false, false, false, false, false]
        );
        let unknown = Known::default();
        assert!(!unknown.excuses(&cases[0]));
    }
}
