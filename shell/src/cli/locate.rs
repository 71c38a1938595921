//! Where a command works: the repository (`--repo`, a record's, or the current folder) and the
//! record `mend replay` reads when none is named.

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::MendError;

/// `--repo`, else the repository a record names, else the current folder. A folder that does
/// not exist, or a file, is named as such. A record's relative path (older records, the
/// fixtures) is relative to the folder mend runs in.
pub fn repository(
    flag: Option<&Utf8Path>,
    recorded: Option<&str>,
) -> Result<Utf8PathBuf, MendError> {
    if let Some(repo) = flag {
        check_folder(
            repo,
            "--repo takes the project's folder (the one that holds mend.toml)",
        )?;
        return Ok(repo.to_path_buf());
    }
    if let Some(repo) = recorded {
        let repo = Utf8PathBuf::from(repo);
        check_folder(
            &repo,
            "the record names it as the repository it was made on; pass --repo DIR to replay or apply it elsewhere",
        )?;
        return Ok(repo);
    }
    let here = std::env::current_dir().map_err(|err| {
        MendError::usage(format!(
            "cannot read the current folder: {err} — pass --repo DIR"
        ))
    })?;
    Utf8PathBuf::from_path_buf(here).map_err(|here| {
        MendError::usage(format!(
            "the current folder {} is not UTF-8 — pass --repo DIR",
            here.display()
        ))
    })
}

fn check_folder(repo: &Utf8Path, fix: &str) -> Result<(), MendError> {
    match std::fs::metadata(repo) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(MendError::usage(format!(
            "{repo} is a file, not a folder — {fix}"
        ))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(MendError::usage(format!(
            "the repository {repo} does not exist — {fix}"
        ))),
        Err(err) => Err(MendError::usage(format!(
            "cannot read the repository {repo}: {err}"
        ))),
    }
}

/// The record `mend replay` reads when none is named: the mend checkout's recorded repair,
/// when mend runs there.
pub const DEMO_RECORD: &str = "fixtures/repair.json";

/// The record to replay: the one named, else the mend checkout's recorded repair when mend runs
/// there; anywhere else the user is told to name one (and which is the newest in `.mend/`).
pub fn replay_record(named: Option<&Utf8Path>) -> Result<Utf8PathBuf, MendError> {
    if let Some(record) = named {
        return Ok(record.to_path_buf());
    }
    if Utf8Path::new(DEMO_RECORD).is_file() {
        return Ok(Utf8PathBuf::from(DEMO_RECORD));
    }
    let newest = std::fs::read_dir(crate::mend_folder::FOLDER)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let modified = entry.metadata().and_then(|meta| meta.modified()).ok()?;
            Some((modified, entry.file_name().into_string().ok()?))
        })
        .filter(|(_, name)| name.ends_with(".json"))
        .max()
        .map(|(_, name)| name);
    let example = match newest {
        Some(name) => format!(
            "the newest here is `mend replay {}/{name}`",
            crate::mend_folder::FOLDER
        ),
        None => format!(
            "`mend run` writes them to REPO/{}/",
            crate::mend_folder::FOLDER
        ),
    };
    Err(MendError::usage(format!(
        "name the record to replay, e.g. `mend replay {}/<stamp>.json` ({example})",
        crate::mend_folder::FOLDER
    )))
}
