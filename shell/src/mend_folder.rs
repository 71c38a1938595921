//! `REPO/.mend/`: where runs and chats are recorded when `--record` is not given. It holds a
//! `.gitignore` of `*`, so the folder ignores itself and never shows up in the project's git
//! status. It is the only thing mend ever creates in the original repository.

use std::fs;

use camino::{Utf8Path, Utf8PathBuf};

pub(crate) const FOLDER: &str = ".mend";

const GITIGNORE: &str = "# Written by mend: records and patches of runs on this repository.\n*\n";

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
