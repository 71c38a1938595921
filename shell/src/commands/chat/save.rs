//! `/save PATH` and the end of a chat: the change written where the user asked, and whether the
//! copy being discarded holds a change that was not saved.

use camino::Utf8Path;

use crate::error::MendError;

pub(super) const SAVE_USAGE: &str =
    "/save PATH writes the change as a patch file, e.g. `/save fix.patch`; \
                          the folder must exist (mend creates none)";

/// Writes the patch only into a folder that already exists: a mistyped path must not leave
/// folders behind anywhere on the machine.
pub(super) fn save(path: &Utf8Path, diff: &str) -> Result<(), MendError> {
    let folder = match path.parent() {
        Some(folder) if !folder.as_str().is_empty() => folder,
        _ => Utf8Path::new("."),
    };
    if !folder.is_dir() {
        return Err(MendError::harness(format!(
            "cannot write {path}: the folder {folder} does not exist (mend creates no folders) — create it or choose another path; nothing was written"
        )));
    }
    if path.is_dir() {
        return Err(MendError::harness(format!(
            "cannot write {path}: it is a folder — name a file, e.g. /save {}",
            path.join("fix.patch")
        )));
    }
    crate::record::patch::write_atomically(path, diff)
}

/// What Ctrl-D says about the discarded copy: nothing when it holds no change, else whether the
/// change is in the last /save's file.
pub(super) fn discarded(diff: &str, saved: Option<&(String, String)>) -> Option<String> {
    if diff.is_empty() {
        return None;
    }
    Some(match saved {
        Some((saved_diff, path)) if saved_diff == diff => {
            format!("The copy is discarded; its change is saved in {path}.")
        }
        Some((_, path)) => format!(
            "The copy is discarded; it changed since the last /save ({path}), and that later change was not saved."
        ),
        None => "The copy is discarded; its change was not saved (use /save PATH next time).".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::{discarded, save};
    use crate::test_support::project;

    #[test]
    fn save_writes_only_into_a_folder_that_exists() {
        let (_dir, root) = project(&[]);
        let nested = root.join("no/such/fix.patch");
        assert_eq!(
            save(&nested, "diff\n").unwrap_err().message,
            format!(
                "cannot write {nested}: the folder {root}/no/such does not exist (mend creates no folders) — create it or choose another path; nothing was written"
            )
        );
        assert!(!root.join("no").exists());
        assert_eq!(
            save(&root, "diff\n").unwrap_err().message,
            format!(
                "cannot write {root}: it is a folder — name a file, e.g. /save {root}/fix.patch"
            )
        );
        save(&root.join("fix.patch"), "diff\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("fix.patch")).unwrap(),
            "diff\n"
        );
    }

    #[test]
    fn the_ending_tells_whether_the_change_was_saved() {
        let saved = ("d1".to_owned(), "fix.patch".to_owned());
        assert_eq!(
            [
                discarded("", None),
                discarded("d1", None),
                discarded("d1", Some(&saved)),
                discarded("d2", Some(&saved)),
            ],
            [
                None,
                Some("The copy is discarded; its change was not saved (use /save PATH next time).".to_owned()),
                Some("The copy is discarded; its change is saved in fix.patch.".to_owned()),
                Some("The copy is discarded; it changed since the last /save (fix.patch), and that later change was not saved.".to_owned()),
            ]
        );
    }
}
