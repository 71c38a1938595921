//! `mend eval export DIR... --swebench OUT [--attempt N]`: one attempt of every task in the
//! layout SWE-bench's harness writes per instance (`OUT/<instance_id>/test_output.txt`,
//! `report.json`, `patch.diff`), so that the harness's own grading can be run on the logs mend
//! graded. The folder is written whole or not at all: any attempt that cannot be exported
//! stops it, named with the reason.

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::{exit, MendError};
use crate::eval::attempt_pages::record_path;
use crate::eval::report::merge_located;
use crate::eval::results::Row;
use crate::eval::run_output::{output_path, read};
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

/// The instance of `row`'s attempt: its record's final run and given lists, and the output kept.
fn instance(dir: &Utf8Path, row: &Row) -> Result<Instance, String> {
    let path = record_path(dir, row)?;
    let record = Record::read(&path).map_err(|err| err.message)?;
    let ending = record
        .ending
        .ok_or("its record has no final run (the attempt was cut before it)")?;
    let given = ending.given.as_ref().ok_or(
        "its task gives no FAIL_TO_PASS/PASS_TO_PASS lists (test.fail_to_pass), which SWE-bench grades by",
    )?;
    let folder = path.parent().unwrap_or(dir);
    let output = read(&output_path(folder, row.attempt)).map_err(|problem| {
        format!("{problem} — results written before mend kept each run's output cannot be exported; run the attempt again")
    })?;
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
