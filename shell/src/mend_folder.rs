//! `REPO/.mend/`: where runs and chats are recorded when `--record` is not given. It holds a
//! `.gitignore` of `*`, so the folder ignores itself and never shows up in the project's git
//! status. It is the only thing mend ever creates in the original repository.

use std::fs;
use std::time::SystemTime;

use camino::{Utf8Path, Utf8PathBuf};

use crate::clock::utc_stamp;
use crate::error::MendError;

pub const FOLDER: &str = ".mend";

const GITIGNORE: &str = "# Written by mend: records and patches of runs on this repository.\n*\n";

/// `REPO/.mend/<prefix><UTC stamp>.json`, with the folder (and its `.gitignore`) made first, so
/// a repository mend cannot write to is named before any work starts.
pub fn default_record(repo: &Utf8Path, prefix: &str) -> Result<Utf8PathBuf, MendError> {
    let folder = repo.join(FOLDER);
    let cannot = |err: std::io::Error| {
        MendError::harness(format!(
            "cannot create {folder} for the record: {err} — pass --record PATH to write it elsewhere"
        ))
    };
    fs::create_dir_all(&folder).map_err(cannot)?;
    let gitignore = folder.join(".gitignore");
    if !gitignore.exists() {
        fs::write(&gitignore, GITIGNORE).map_err(cannot)?;
    }
    Ok(folder.join(format!("{prefix}{}.json", utc_stamp(SystemTime::now()))))
}

#[cfg(test)]
mod tests {
    use super::default_record;
    use crate::test_support::project;

    #[test]
    fn the_folder_ignores_itself_and_a_user_gitignore_is_kept() {
        let (_dir, repo) = project(&[]);
        let record = default_record(&repo, "chat-").unwrap();
        assert_eq!(record.parent(), Some(repo.join(".mend").as_path()));
        assert!(record.file_name().unwrap().starts_with("chat-"));
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
