//! `mend eval import FILE.jsonl --out DIR`: an instance file (SWE-bench and the sets built like
//! it) becomes a suite, one task per row. Everything is written into a temporary folder beside
//! DIR and renamed to DIR at the end, so an import that fails leaves nothing half-written; a row
//! that cannot become a task is named with why, and the others are imported.

mod checkout;
mod command;
mod error;
mod eval_script;
mod image;
mod row;
mod set_up;
mod specs;
mod task_file;

use std::collections::BTreeSet;
use std::time::Instant;

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::{exit, MendError};
pub(crate) use command::Fallback;
use error::RowError;
use row::Instance;

/// The readers an imported task may name (`junit` needs a report path no row gives).
const READERS: [&str; 6] = [
    "pytest",
    "pytest-ra",
    "django",
    "sympy",
    "libtest",
    "exit_code",
];

pub(crate) struct ImportOptions {
    pub file: Utf8PathBuf,
    pub out: Utf8PathBuf,
    pub repos: Option<Utf8PathBuf>,
    pub fallback: Fallback,
    pub image_template: Option<String>,
}

/// One row made into a task.
struct Imported {
    id: String,
    /// Where its repository comes from, and its test command's source.
    said: String,
}

pub(crate) fn import(options: &ImportOptions) -> Result<u8, MendError> {
    let started = Instant::now();
    let out = &options.out;
    check_options(options)?;
    let text = std::fs::read_to_string(&options.file).map_err(|err| {
        MendError::usage(format!(
            "cannot read the instance file {}: {err}",
            options.file
        ))
    })?;
    let (temp, staging) = staging_beside(out)?;
    let mut imported = Vec::new();
    let mut refused = Vec::new();
    let mut seen = BTreeSet::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if crate::interrupt::requested() {
            eprintln!("mend: interrupted: nothing was written");
            return Ok(exit::INTERRUPTED);
        }
        let origin = format!("{}:{}", options.file, index + 1);
        match import_row(options, &staging, line, &origin, &mut seen) {
            Ok(done) => {
                println!("{:<40} {}", done.id, done.said);
                imported.push(done);
            }
            Err(why) => refused.push(format!("{origin}: {why}")),
        }
    }
    for why in &refused {
        eprintln!("mend: eval import: not imported: {why}");
    }
    for (parser, ids) in unknown_parsers(&text) {
        eprintln!(
            "mend: eval import: log parser {parser} (no reader in mend) affects {} row(s): {}",
            ids.len(),
            ids.join(", ")
        );
    }
    if imported.is_empty() {
        return Err(MendError::refused(format!(
            "no row of {} became a task ({} refused, named above); nothing was written",
            options.file,
            refused.len()
        )));
    }
    write_suite(&staging, &options.file, imported.len())?;
    std::fs::rename(&staging, out)
        .map_err(|err| MendError::harness(format!("cannot rename {staging} to {out}: {err}")))?;
    let _ = temp.keep();
    println!(
        "Imported {} task(s) of {} row(s) into {out}/suite.toml in {:.2} s{}; check them with `mend eval check {out}/suite.toml`",
        imported.len(),
        imported.len() + refused.len(),
        started.elapsed().as_secs_f64(),
        match refused.len() {
            0 => String::new(),
            count => format!(" ({count} row(s) not imported, named above)"),
        }
    );
    Ok(if refused.is_empty() {
        exit::PASS
    } else {
        exit::TESTS_FAIL
    })
}

/// Each `log_parser` mend has no reader for, with the ids of the rows that name it.
fn unknown_parsers(text: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut unknown = std::collections::BTreeMap::<String, Vec<String>>::new();
    for instance in text.lines().filter_map(|line| row::read(line).ok()) {
        if let Some(parser) = instance
            .log_parser
            .filter(|name| crate::task::log_parser::LogParser::named(name).is_none())
        {
            unknown.entry(parser).or_default().push(instance.id);
        }
    }
    unknown
}

/// The flags, checked before anything is read or written.
fn check_options(options: &ImportOptions) -> Result<(), MendError> {
    let out = &options.out;
    if out.exists() {
        return Err(MendError::usage(format!(
            "{out} already exists — name a new folder for the suite (an import never writes into an existing one)"
        )));
    }
    if let Some(report) = &options.fallback.report {
        if !READERS.contains(&report.as_str()) {
            return Err(MendError::usage(format!(
                "--test-report {report}: use one of {}",
                READERS.join(", ")
            )));
        }
    }
    if let Some(template) = &options.image_template {
        image::check_template(template)?;
    }
    Ok(())
}

/// A folder beside `out` that the suite is written into, renamed to `out` once whole (so a
/// failed import leaves nothing behind).
fn staging_beside(out: &Utf8Path) -> Result<(tempfile::TempDir, Utf8PathBuf), MendError> {
    let parent = out
        .parent()
        .filter(|parent| !parent.as_str().is_empty())
        .unwrap_or(Utf8Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|err| MendError::harness(format!("cannot create {parent}: {err}")))?;
    let temp = tempfile::Builder::new()
        .prefix(".mend-import-")
        .tempdir_in(parent)
        .map_err(|err| MendError::harness(format!("cannot make a folder in {parent}: {err}")))?;
    let staging = Utf8Path::from_path(temp.path())
        .ok_or_else(|| MendError::harness(format!("{parent} is not a UTF-8 path")))?
        .to_path_buf();
    Ok((temp, staging))
}

/// One row into `staging/tasks/<id>/` (and its gold patch into `staging/gold/<id>.patch`).
fn import_row(
    options: &ImportOptions,
    staging: &Utf8Path,
    line: &str,
    origin: &str,
    seen: &mut BTreeSet<String>,
) -> Result<Imported, RowError> {
    let instance = row::read(line)?;
    let named = |why: RowError| why.of(&instance.id);
    if !seen.insert(instance.id.clone()) {
        return Err(named(RowError::unfit(
            "a row before it has the same instance_id",
        )));
    }
    let mut chosen = command::choose(&instance, &options.fallback).map_err(named)?;
    let test_files = patch_files(instance.test_patch.as_deref(), "test_patch").map_err(named)?;
    patch_files(instance.patch.as_deref(), "patch").map_err(named)?;
    let image = match &instance.image {
        Some(image) => Some(image.clone()),
        None => options
            .image_template
            .as_deref()
            .map(|template| image::expand(template, &instance))
            .transpose()
            .map_err(|why| named(why.into()))?,
    };
    if image.is_some() && instance.eval_script.is_none() {
        chosen.command = image::activated(&chosen.command);
    }
    let folder = staging.join("tasks").join(&instance.id);
    let place = match &image {
        Some(image) => {
            std::fs::create_dir_all(&folder).map_err(|source| {
                named(RowError::Disk {
                    doing: "create",
                    path: folder.clone(),
                    source,
                })
            })?;
            format!("image {image}")
        }
        None => check_out(options, &instance, &folder).map_err(named)?,
    };
    let checkout = image.is_none().then_some(folder.as_path());
    let set_up = if instance.eval_script.is_some() {
        checkout.map(|checkout| set_up::plan_script(&chosen.setup, checkout))
    } else {
        harness_set_up(&instance, checkout)
    };
    if let Some(set_up) = &set_up {
        for variable in &set_up.env {
            if !chosen.env.contains(variable) {
                chosen.env.push(variable.clone());
            }
        }
    }
    let written = task_file::Written {
        instance: &instance,
        chosen: &chosen,
        origin: origin.to_owned(),
        image: image.as_deref(),
        test_files: &test_files,
        set_up: set_up.as_ref(),
    };
    write_task(staging, &folder, &written).map_err(named)?;
    let steps = match set_up.map_or(0, |set_up| set_up.steps.len()) {
        0 => String::new(),
        count => format!("; set-up: {count} step(s) of the harness's lines"),
    };
    Ok(Imported {
        id: instance.id,
        said: format!("{place}; tests: {}{steps}", chosen.source),
    })
}

/// For a row the harness's table runs (no `eval_script`, no command of its own), what its
/// set-up lines become: steps for a checkout (`checkout` the repository at its base commit), or
/// only what an image task keeps of them.
fn harness_set_up(instance: &Instance, checkout: Option<&Utf8Path>) -> Option<set_up::Planned> {
    if instance.eval_script.is_some() || instance.command.is_some() {
        return None;
    }
    let (repo, version) = (instance.repo.as_deref()?, instance.version.as_deref()?);
    let harness = specs::install::lookup(repo, version)?;
    Some(set_up::plan(&harness, checkout))
}

fn check_out(
    options: &ImportOptions,
    instance: &Instance,
    folder: &Utf8Path,
) -> Result<String, RowError> {
    let (Some(repo), Some(base)) = (&instance.repo, &instance.base_commit) else {
        return Err(RowError::unfit(
            "it names no image, and no `repo` and `base_commit` to check out",
        ));
    };
    let Some(repos) = &options.repos else {
        return Err(RowError::Repository(format!(
            "it names no image, and the import was given no --repos folder with a clone of {repo}"
        )));
    };
    let mirror = checkout::mirror_of(repos, repo)?;
    std::fs::create_dir_all(folder.parent().unwrap_or(folder)).map_err(|source| {
        RowError::Disk {
            doing: "create",
            path: folder.to_owned(),
            source,
        }
    })?;
    checkout::check_out(&mirror, base, folder)?;
    Ok(format!(
        "{repo} at {} from {mirror}",
        base.get(..12).unwrap_or(base)
    ))
}

fn write_task(
    staging: &Utf8Path,
    folder: &Utf8Path,
    written: &task_file::Written,
) -> Result<(), RowError> {
    let instance = written.instance;
    let write = |path: Utf8PathBuf, text: &str| -> Result<(), RowError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| RowError::Disk {
                doing: "create",
                path: parent.to_owned(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| RowError::Disk {
            doing: "write",
            path,
            source,
        })
    };
    if let Some(patch) = &instance.test_patch {
        write(folder.join(task_file::TEST_PATCH), patch)?;
    }
    if let Some(patch) = &instance.patch {
        write(
            staging.join("gold").join(format!("{}.patch", instance.id)),
            patch,
        )?;
    }
    let text = task_file::render(written);
    write(folder.join(crate::task::TASK_FILE_NAME), &text)
}

/// The files a patch touches, or why it is no patch mend can apply.
fn patch_files(patch: Option<&str>, field: &str) -> Result<Vec<String>, RowError> {
    let Some(patch) = patch else {
        return Ok(Vec::new());
    };
    let paths = crate::patch::touched_paths(patch)
        .map_err(|why| RowError::unfit(format!("`{field}` is not a diff mend can apply: {why}")))?;
    if paths.is_empty() {
        return Err(RowError::unfit(format!(
            "`{field}` holds no `diff --git` or `--- a/FILE` section"
        )));
    }
    Ok(paths)
}

fn write_suite(staging: &Utf8Path, file: &Utf8Path, count: usize) -> Result<(), MendError> {
    let text = format!(
        "# Imported by `mend eval import` from {file}: {count} task(s), one per row.\n\
         # Gold patches are in gold/; each task's held-out test patch in its .mend/test.patch.\n\
         tasks = [\"tasks/*\"]\n\
         k = 1                    # attempts per task: raise it for pass@k\n"
    );
    let path = staging.join("suite.toml");
    std::fs::write(&path, text)
        .map_err(|err| MendError::harness(format!("cannot write {path}: {err}")))
}
