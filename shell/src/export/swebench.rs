//! `mend eval export DIR... --swebench OUT [--attempt N]`: one attempt of every task in the
//! layout SWE-bench's harness writes per instance (`OUT/<instance_id>/test_output.txt`,
//! `report.json`, `patch.diff`), so that the harness's own grading can be run on the logs mend
//! graded. The folder is written whole or not at all: any attempt that cannot be exported
//! stops it, named with the reason.

use std::fmt;

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::{exit, MendError};
use crate::eval::attempt_pages::{record_path, AttemptError};
use crate::eval::report::merge_located;
use crate::eval::results::Row;
use crate::eval::run_output::{output_path, read, OutputError};
use crate::export::swebench_log::{report, test_output, InstanceReport};
use crate::record::Record;

/// One instance's three files.
struct Instance {
    id: String,
    log: String,
    report: InstanceReport,
    patch: String,
}

pub(crate) fn export(dirs: &[Utf8PathBuf], out: &Utf8Path, attempt: u32) -> Result<u8, MendError> {
    if out.exists() {
        return Err(MendError::usage(format!(
            "{out} exists — name a new folder for the export (it is written whole or not at all)"
        )));
    }
    let rows: Vec<(Utf8PathBuf, Row)> = merge_located(dirs)?
        .into_iter()
        .filter(|(_, row)| row.attempt == attempt)
        .collect();
    if rows.is_empty() {
        return Err(MendError::usage(format!(
            "no task has an attempt {attempt} in these results — give --attempt one that ran"
        )));
    }
    let mut instances = Vec::new();
    let mut problems = Vec::new();
    for (dir, row) in &rows {
        match instance(dir, row) {
            Ok(instance) => instances.push(instance),
            Err(problem) => problems.push(format!("{} attempt {attempt}: {problem}", row.task)),
        }
    }
    if !problems.is_empty() {
        return Err(MendError::refused(format!(
            "nothing exported: {}",
            problems.join("; ")
        )));
    }
    write_all(out, &instances)?;
    println!(
        "mend: wrote attempt {attempt} of {} task(s) to {out} as SWE-bench's harness lays out an instance: INSTANCE/test_output.txt, report.json, patch.diff",
        instances.len()
    );
    Ok(exit::PASS)
}

/// Why an attempt cannot be exported; the export names each such attempt and writes nothing.
#[derive(Debug)]
enum Unexportable {
    /// Its record is not to be read, or cannot be.
    Record(AttemptError),
    /// Its record has no final run.
    NoFinalRun,
    /// Its task gives no FAIL_TO_PASS/PASS_TO_PASS lists.
    NoGivenLists,
    /// The final run's output was not kept, or cannot be read.
    NoOutput(OutputError),
}

impl fmt::Display for Unexportable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unexportable::Record(err) => err.fmt(f),
            Unexportable::NoFinalRun => {
                f.write_str("its record has no final run (the attempt was cut before it)")
            }
            Unexportable::NoGivenLists => f.write_str(
                "its task gives no FAIL_TO_PASS/PASS_TO_PASS lists (test.fail_to_pass), which SWE-bench grades by",
            ),
            Unexportable::NoOutput(err) => write!(
                f,
                "{err} — results written before mend kept each run's output cannot be exported; run the attempt again"
            ),
        }
    }
}

impl std::error::Error for Unexportable {}

/// The instance of `row`'s attempt: its record's final run and given lists, and the output kept.
fn instance(dir: &Utf8Path, row: &Row) -> Result<Instance, Unexportable> {
    let path = record_path(dir, row).map_err(Unexportable::Record)?;
    let record =
        Record::read(&path).map_err(|err| Unexportable::Record(AttemptError::Unreadable(err)))?;
    let ending = record.ending.ok_or(Unexportable::NoFinalRun)?;
    let given = ending.given.as_ref().ok_or(Unexportable::NoGivenLists)?;
    let folder = path.parent().unwrap_or(dir);
    let output = read(&output_path(folder, row.attempt)).map_err(Unexportable::NoOutput)?;
    Ok(Instance {
        id: row.task.clone(),
        log: test_output(&ending.tests_after, &output),
        report: report(&ending.tests_after, given),
        patch: ending.diff.clone(),
    })
}

/// Writes every instance into a new folder beside `out`, then renames it to `out`.
fn write_all(out: &Utf8Path, instances: &[Instance]) -> Result<(), MendError> {
    let parent = out
        .parent()
        .filter(|parent| !parent.as_str().is_empty())
        .unwrap_or(Utf8Path::new("."));
    let cannot = |err: std::io::Error| {
        MendError::harness(format!(
            "cannot write the export {out}: {err} — name a folder in a place you can write"
        ))
    };
    let staging = tempfile::Builder::new()
        .prefix(".mend-export-")
        .tempdir_in(parent)
        .map_err(cannot)?;
    for instance in instances {
        let folder = staging.path().join(&instance.id);
        std::fs::create_dir(&folder).map_err(cannot)?;
        std::fs::write(folder.join("test_output.txt"), &instance.log).map_err(cannot)?;
        std::fs::write(folder.join("patch.diff"), &instance.patch).map_err(cannot)?;
        let mut file = std::fs::File::create(folder.join("report.json")).map_err(cannot)?;
        let keyed = serde_json::json!({ &instance.id: &instance.report });
        // Indented by four, as the harness writes it (json.dumps(report, indent=4)).
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut serializer = serde_json::Serializer::with_formatter(&mut file, formatter);
        serde::Serialize::serialize(&keyed, &mut serializer)
            .map_err(|err| cannot(std::io::Error::other(err)))?;
        file.sync_all().map_err(cannot)?;
    }
    std::fs::rename(staging.keep(), out).map_err(cannot)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attempt_that_cannot_be_exported_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let dir = Utf8Path::from_path(dir.path()).unwrap();
        let row = |record: &str| Row {
            record: record.to_owned(),
            ..Row::example("t", 0, true)
        };
        let outside = instance(dir, &row("../x.json")).err().unwrap();
        assert!(matches!(
            &outside,
            Unexportable::Record(AttemptError::Outside { record, .. }) if record == "../x.json"
        ));
        let missing = instance(dir, &row("t/0.json")).err().unwrap();
        assert!(matches!(
            &missing,
            Unexportable::Record(AttemptError::Unreadable(_))
        ));
        let no_output = Unexportable::NoOutput(OutputError::Open {
            path: "t/0.output.gz".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
        let said: Vec<String> = [outside, Unexportable::NoFinalRun, no_output]
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            said,
            [
                format!("its record path `../x.json` is not inside {dir}"),
                "its record has no final run (the attempt was cut before it)".to_owned(),
                "cannot open t/0.output.gz: entity not found — results written before mend kept \
                 each run's output cannot be exported; run the attempt again"
                    .to_owned(),
            ]
        );
    }
}
