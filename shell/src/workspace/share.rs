//! Folders of installed dependencies (a venv, `node_modules`, what `copy.share` names) are not
//! copied: the copy holds, in each one's place, a link to the original's folder. A command then
//! costs the same whatever they hold. Inside bubblewrap the original is hidden and each shared
//! folder is shown again read-only, so neither a tool nor a test can write it; without
//! bubblewrap the tests could write through the link, as they could write anywhere else.

use std::io;

use camino::{Utf8Path, Utf8PathBuf};

use crate::task::copy::Exclusion;

/// The original's folders that a copy made with `exclude` shares, as absolute paths, sorted:
/// the walk [`super::Workspace::copy_of`] makes, without copying anything.
pub(crate) fn shared_folders(
    original: &Utf8Path,
    exclude: &Exclusion,
) -> io::Result<Vec<Utf8PathBuf>> {
    let original = original.canonicalize_utf8()?;
    let mut shared = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(folder) = pending.pop() {
        let entries = match original.join(&folder).read_dir_utf8() {
            Ok(entries) => entries,
            // The copy has such a folder empty, with nothing shared inside it.
            Err(err) if !folder.is_empty() && err.kind() == io::ErrorKind::PermissionDenied => {
                continue
            }
            Err(err) => return Err(err),
        };
        for entry in entries {
            let entry = entry?;
            if !entry.file_type()?.is_dir() {
                continue;
            }
            let relative = if folder.is_empty() {
                entry.file_name().to_owned()
            } else {
                format!("{folder}/{}", entry.file_name())
            };
            if exclude.shares_entry(&relative) {
                shared.push(original.join(&relative));
            } else if !exclude.excludes_entry(&relative) {
                pending.push(relative);
            }
        }
    }
    shared.sort();
    Ok(shared)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::shared_folders;
    use crate::task::copy::Exclusion;
    use crate::test_support::project;
    use crate::workspace::Workspace;

    #[test]
    fn the_copy_links_each_shared_folder_to_the_original_and_the_walk_finds_the_same() {
        let (_dir, original) = project(&[
            ("src/app.js", "x"),
            ("node_modules/left-pad/index.js", "x"),
            ("packages/a/node_modules/b/index.js", "x"),
            (".venv/pyvenv.cfg", "x"),
            ("venv", "a file, not a folder: copied"),
            ("cache/node_modules/x.js", "excluded with its folder"),
        ]);
        let exclude = Exclusion::defaults()
            .excluding(vec!["cache".to_owned()])
            .unwrap();
        let copy = Workspace::copy_of(&original, &exclude, &crate::task::History::None).unwrap();
        let real = original.canonicalize_utf8().unwrap();
        let links: Vec<(String, String)> = copy
            .shared()
            .iter()
            .map(|path| {
                let target = fs::read_link(copy.root().join(path)).unwrap();
                (path.clone(), target.to_string_lossy().into_owned())
            })
            .collect();
        let expected: Vec<(String, String)> = [".venv", "node_modules", "packages/a/node_modules"]
            .map(|path| (path.to_owned(), real.join(path).to_string()))
            .to_vec();
        assert_eq!(links, expected);
        assert_eq!(
            shared_folders(&original, &exclude).unwrap(),
            expected
                .iter()
                .map(|(_, target)| camino::Utf8PathBuf::from(target))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            (
                fs::read_to_string(copy.root().join("venv")).unwrap(),
                copy.root().join("cache").exists(),
            ),
            ("a file, not a folder: copied".to_owned(), false)
        );
    }

    #[test]
    fn deleting_the_copy_deletes_the_link_and_never_what_it_leads_to() {
        let (_dir, original) = project(&[("node_modules/dep/index.js", "kept"), ("a.js", "x")]);
        let copy = Workspace::copy_of(
            &original,
            &Exclusion::defaults(),
            &crate::task::History::None,
        )
        .unwrap();
        let root = copy.root().to_owned();
        assert_eq!(
            fs::read_to_string(root.join("node_modules/dep/index.js")).unwrap(),
            "kept"
        );
        copy.remove().unwrap();
        assert_eq!(
            (
                root.exists(),
                fs::read_to_string(original.join("node_modules/dep/index.js")).unwrap()
            ),
            (false, "kept".to_owned())
        );
    }
}
