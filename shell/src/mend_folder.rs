//! `REPO/.mend/`: where runs and chats are recorded when `--record` is not given. It holds a
//! `.gitignore` of `*`, so the folder ignores itself and never shows up in the project's git
//! status. It is the only thing mend ever creates in the original repository.

use std::fs;
use std::time::SystemTime;

use camino::{Utf8Path, Utf8PathBuf};

use crate::clock::utc_stamp;
use crate::error::MendError;
use crate::record::target::RecordTarget;

pub(crate) const FOLDER: &str = ".mend";

const GITIGNORE: &str = "# Written by mend: records and patches of runs on this repository.\n*\n";

/// A new record in `REPO/.mend/`, named `<prefix><UTC stamp of now>.json` (`-2`, `-3`, … when a
/// record of the same second is there when it is written), with the folder (and its
/// `.gitignore`) made first, so a repository mend cannot write to is named before any work starts.
pub(crate) fn default_record(repo: &Utf8Path, prefix: &str) -> Result<RecordTarget, MendError> {
    let folder = repo.join(FOLDER);
    made(repo).map_err(|err| {
        MendError::harness(format!(
            "cannot create {folder} for the record: {err} — pass --record PATH to write it elsewhere"
        ))
    })?;
    Ok(RecordTarget::New {
        folder,
        stem: format!("{prefix}{}", utc_stamp(SystemTime::now())),
    })
}

/// `REPO/.mend/`, made (with its `.gitignore`) when it is not there yet.
pub(crate) fn made(repo: &Utf8Path) -> std::io::Result<Utf8PathBuf> {
    let folder = repo.join(FOLDER);
    fs::create_dir_all(&folder)?;
    let gitignore = folder.join(".gitignore");
    if !gitignore.exists() {
        fs::write(&gitignore, GITIGNORE)?;
    }
    Ok(folder)
}

/// Where a command's record goes: the path its flag names, else a new one in `REPO/.mend/`.
pub(crate) fn record_target(
    given: Option<&Utf8Path>,
    repo: &Utf8Path,
    prefix: &str,
) -> Result<RecordTarget, MendError> {
    match given {
        Some(path) => Ok(RecordTarget::Given(path.to_path_buf())),
        None => default_record(repo, prefix),
    }
}

#[cfg(test)]
mod tests {
    use super::default_record;
    use crate::clock::utc_stamp;
    use crate::record::target::RecordTarget;
    use crate::test_support::project;

    #[test]
    fn the_folder_ignores_itself_and_a_user_gitignore_is_kept() {
        let (_dir, repo) = project(&[]);
        let before = utc_stamp(std::time::SystemTime::now());
        let record = default_record(&repo, "chat-").unwrap();
        let after = utc_stamp(std::time::SystemTime::now());
        let stamped = |stamp: &str| RecordTarget::New {
            folder: repo.join(".mend"),
            stem: format!("chat-{stamp}"),
        };
        assert!(
            record == stamped(&before) || record == stamped(&after),
            "{record:?}"
        );
        let gitignore = repo.join(".mend/.gitignore");
        assert_eq!(
            std::fs::read_to_string(&gitignore).unwrap(),
            "# Written by mend: records and patches of runs on this repository.\n*\n"
        );
        std::fs::write(&gitignore, "mine\n").unwrap();
        default_record(&repo, "").unwrap();
        assert_eq!(std::fs::read_to_string(&gitignore).unwrap(), "mine\n");
    }
}
