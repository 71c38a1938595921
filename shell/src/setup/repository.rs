//! Where a command works: the repository (`--repo`, a record's, or the current folder).

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
