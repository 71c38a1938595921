//! The copy's code that ran before mend's witness loaded, weighed against the change. The
//! witness takes pytest as it finds it when it loads; code that ran earlier could have altered
//! pytest unseen. In a run of pytest itself none of the copy's code runs that early, but Python
//! looks in the copy first for what it imports (`python -m pytest` puts the folder first on the
//! import path): a `pytest.py` there runs in place of pytest, an `argparse.py` or a `_pytest`
//! package before it. A task's own wrapper (`python runtests.py`) and what it imports, or
//! pytest's own sources when the project is pytest, run first too, on purpose.
//!
//! So the rule is the change's: a file it added that ran first makes the run no pass; a file it
//! altered that ran first leaves a check not made, said so (fixing pytest's own sources is a
//! task like any other, and so is adding a module to them); the repository's own files,
//! unchanged, are the task's.
//!
//! The same first place on the import path lets a module of the copy stand in for one the
//! tests import from outside it, whenever it is imported (a `fractions.py`, a `hypothesis`
//! package): one the change added is no pass either. The project's own package standing in
//! for an installed copy of itself is the repository's, and not weighed.

use camino::Utf8Path;

use crate::verdict::trust::untrusted::Untrusted;

/// What the witness told of the copy's files that ran before it, or in place of others,
/// relative to the copy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedFirst {
    pub files: Vec<String>,
    /// Those that are pytest's or pluggy's own sources (the project is one of them).
    pub runner: Vec<String>,
    /// The copy's modules Python imported in place of one of the same name outside the copy
    /// (the standard library's, an installed package's), whenever they ran.
    pub shadowing: Vec<String>,
}

/// What the files that ran first mean for a final run.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RanFirst {
    /// Why the run is no pass: files the change added ran first.
    pub untrusted: Option<Untrusted>,
    /// The check not made, in a sentence: files the change altered ran first.
    pub unchecked: Option<String>,
}

/// `loaded_first` weighed against a change that wrote `carried` (sorted) over `original`. An
/// added file of the runner's own sources counts as altered where the original already holds
/// its folder (a module added to pytest's sources), and as added where it does not (a `_pytest`
/// package put in place of the installed one).
pub(crate) fn weigh(
    original: &Utf8Path,
    carried: &[String],
    loaded_first: &LoadedFirst,
) -> RanFirst {
    let (added, altered): (Vec<String>, Vec<String>) = loaded_first
        .files
        .iter()
        .filter(|file| carried.binary_search(file).is_ok())
        .cloned()
        .partition(|file| {
            let folder_kept = loaded_first.runner.contains(file)
                && Utf8Path::new(file)
                    .parent()
                    .is_some_and(|folder| original.join(folder).is_dir());
            !original.join(file).exists() && !folder_kept
        });
    let unchecked = (!altered.is_empty()).then(|| {
        format!(
            "what {} did as Python loaded {} (it ran before mend's witness, and the change altered it)",
            altered.join(", "),
            if altered.len() == 1 { "it" } else { "them" }
        )
    });
    let shadowing: Vec<String> = loaded_first
        .shadowing
        .iter()
        .filter(|file| carried.binary_search(file).is_ok() && !original.join(file).exists())
        .cloned()
        .collect();
    let untrusted = if !added.is_empty() {
        Some(Untrusted::AddedCodeRanFirst { files: added })
    } else {
        (!shadowing.is_empty()).then_some(Untrusted::AddedCodeShadows { files: shadowing })
    };
    RanFirst {
        untrusted,
        unchecked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn original() -> (tempfile::TempDir, camino::Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap().to_owned();
        for file in ["runtests.py", "src/_pytest/runner.py", "pkg/__init__.py"] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "").unwrap();
        }
        (dir, root)
    }

    fn strings<const N: usize>(names: [&str; N]) -> Vec<String> {
        names.map(String::from).to_vec()
    }

    #[test]
    fn an_added_file_that_ran_first_is_no_pass_and_an_altered_one_a_check_not_made() {
        let (_dir, root) = original();
        let carried = strings(["pkg/__init__.py", "pytest.py", "src/_pytest/runner.py"]);
        let loaded_first = LoadedFirst {
            files: strings(["pytest.py", "runtests.py", "src/_pytest/runner.py"]),
            runner: strings(["src/_pytest/runner.py"]),
            ..LoadedFirst::default()
        };
        assert_eq!(
            weigh(&root, &carried, &loaded_first),
            RanFirst {
                untrusted: Some(Untrusted::AddedCodeRanFirst {
                    files: strings(["pytest.py"])
                }),
                unchecked: Some(
                    "what src/_pytest/runner.py did as Python loaded it (it ran before mend's witness, and the change altered it)"
                        .to_owned()
                ),
            }
        );
    }

    #[test]
    fn a_module_added_to_the_runners_own_sources_is_altered_but_a_runner_package_planted_is_added()
    {
        let (_dir, root) = original();
        let carried = strings(["_pytest/__init__.py", "src/_pytest/scope.py"]);
        let loaded_first = LoadedFirst {
            files: carried.clone(),
            runner: carried.clone(),
            ..LoadedFirst::default()
        };
        assert_eq!(
            weigh(&root, &carried, &loaded_first),
            RanFirst {
                untrusted: Some(Untrusted::AddedCodeRanFirst {
                    files: strings(["_pytest/__init__.py"])
                }),
                unchecked: Some(
                    "what src/_pytest/scope.py did as Python loaded it (it ran before mend's witness, and the change altered it)"
                        .to_owned()
                ),
            }
        );
    }

    #[test]
    fn an_added_module_imported_in_place_of_another_is_no_pass_and_the_projects_own_is_not_weighed()
    {
        let (_dir, root) = original();
        let loaded_first = LoadedFirst {
            shadowing: strings(["fractions.py", "pkg/__init__.py"]),
            ..LoadedFirst::default()
        };
        assert_eq!(
            weigh(
                &root,
                &strings(["fractions.py", "pkg/__init__.py"]),
                &loaded_first
            ),
            RanFirst {
                untrusted: Some(Untrusted::AddedCodeShadows {
                    files: strings(["fractions.py"])
                }),
                unchecked: None,
            }
        );
    }

    #[test]
    fn the_repositorys_own_files_unchanged_are_the_tasks() {
        let (_dir, root) = original();
        let loaded_first = LoadedFirst {
            files: strings(["runtests.py", "src/_pytest/runner.py"]),
            runner: strings(["src/_pytest/runner.py"]),
            ..LoadedFirst::default()
        };
        assert_eq!(
            weigh(&root, &strings(["pkg/__init__.py"]), &loaded_first),
            RanFirst::default()
        );
    }
}
