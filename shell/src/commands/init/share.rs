//! Which folders of installed dependencies `mend init` names in `copy.share`: the built-in
//! ones, and any other folder at the top of the repository that is a venv (it holds
//! `pyvenv.cfg`, as `python -m venv` and virtualenv make it).

use camino::Utf8Path;

use crate::task::copy::DEFAULT_SHARE;

/// The list to write, the built-in names first, and the folders of it found in `repo`.
pub(super) fn shares(repo: &Utf8Path) -> (Vec<String>, Vec<String>) {
    let mut list: Vec<String> = DEFAULT_SHARE.map(str::to_owned).to_vec();
    let mut venvs: Vec<String> = repo
        .read_dir_utf8()
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| entry.file_name().to_owned())
        .filter(|name| !list.contains(name) && repo.join(name).join("pyvenv.cfg").is_file())
        .collect();
    venvs.sort();
    list.extend(venvs);
    let found = list
        .iter()
        .filter(|name| repo.join(name.as_str()).is_dir())
        .cloned()
        .collect();
    (list, found)
}

#[cfg(test)]
mod tests {
    use super::shares;
    use crate::test_support::project;

    #[test]
    fn a_venv_of_any_name_is_added_after_the_built_in_names() {
        let (_dir, root) = project(&[
            ("env-3.11/pyvenv.cfg", "home = /usr/bin"),
            ("node_modules/left-pad/index.js", ""),
            ("src/app/pyvenv.cfg", "not at the top of the repository"),
            ("docs/index.md", ""),
        ]);
        let (list, found) = shares(&root);
        assert_eq!(
            (list, found),
            (
                [".venv", "venv", "node_modules", "env-3.11"]
                    .map(str::to_owned)
                    .to_vec(),
                ["node_modules", "env-3.11"].map(str::to_owned).to_vec()
            )
        );
    }
}
