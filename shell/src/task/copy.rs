//! `[copy]`: what the throwaway copy leaves out, and which folders it shares with the original
//! instead of copying. A cache copied from the original can make the copy's tests read stale
//! results, so caches are left out. Installed dependencies (a venv, `node_modules`) are shared:
//! the copy holds a link to the original's folder, which the sandbox shows read-only, so a
//! command costs the same whether they hold a hundred files or a hundred thousand. Everything
//! else is copied, build outputs included, because the tests may write them (a `target/`), and
//! the copy keeps modification times so a build tool can tell them from the sources.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Caches that only ever speed a tool up or hold another machine's paths: leaving them out
/// cannot change a verdict. `.tox` and `.nox` hold virtualenvs whose scripts point back into
/// the original, so a copy of them would run the original's code. `.git` is not in the list:
/// the copy gets one of its own, holding only what the base commit reaches (`copy.history`, see
/// `workspace::history`), since tools such as setuptools-scm read it. `.mend`
/// holds mend's own records of earlier runs: never the project's, and never the model's to see.
pub const DEFAULT_EXCLUDE: [&str; 7] = [
    ".mend",
    ".pytest_cache",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
];

/// Folders of installed dependencies, shared rather than copied. A venv's scripts already run
/// the original's interpreter (their first line names it), and the copy's sources come first on
/// the import path, so a copy of the venv would only cost time; `node_modules` is read, not
/// written, by a test run.
pub const DEFAULT_SHARE: [&str; 3] = [".venv", "venv", "node_modules"];

/// One list of globs. A glob without `/` matches a file or folder name at any depth
/// (`__pycache__`, `*.egg-info`); one with `/` matches the whole path from the repository
/// (`data/raw`, `docs/**/_build`).
#[derive(Debug, Clone)]
struct Globs {
    patterns: Vec<String>,
    by_name: GlobSet,
    by_path: GlobSet,
}

impl Globs {
    fn new(patterns: Vec<String>) -> Result<Globs, (usize, String)> {
        let mut by_name = GlobSetBuilder::new();
        let mut by_path = GlobSetBuilder::new();
        for (index, pattern) in patterns.iter().enumerate() {
            let trimmed = pattern.trim_end_matches('/');
            if trimmed.is_empty()
                || trimmed.starts_with('/')
                || trimmed.split('/').any(|part| part == "..")
            {
                return Err((
                    index,
                    format!("`{pattern}` must be a name or a path relative to the repository, without `..`"),
                ));
            }
            let glob = GlobBuilder::new(trimmed)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|err| (index, format!("`{pattern}` is not a valid glob: {err}")))?;
            if trimmed.contains('/') {
                by_path.add(glob);
            } else {
                by_name.add(glob);
            }
        }
        let build = |builder: GlobSetBuilder| {
            builder
                .build()
                .map_err(|err| (0, format!("the globs cannot be combined: {err}")))
        };
        Ok(Globs {
            by_name: build(by_name)?,
            by_path: build(by_path)?,
            patterns,
        })
    }

    fn empty() -> Globs {
        Globs {
            patterns: Vec::new(),
            by_name: GlobSet::empty(),
            by_path: GlobSet::empty(),
        }
    }

    /// The built-in lists are plain names, always valid globs.
    fn of(names: &[&str]) -> Globs {
        Globs::new(names.iter().map(|name| (*name).to_owned()).collect())
            .unwrap_or_else(|_| Globs::empty())
    }

    fn matches(&self, relative: &str) -> bool {
        let name = relative.rsplit('/').next().unwrap_or(relative);
        self.by_name.is_match(name) || self.by_path.is_match(relative)
    }
}

/// `copy.exclude` and `copy.share`. Everything inside a matched folder is matched. Both leave
/// their paths out of every walk and path set: the tools cannot see them and the digests skip
/// them, so the original and the copy are hashed alike, and no entry limit counts them.
#[derive(Debug, Clone)]
pub struct Exclusion {
    exclude: Globs,
    share: Globs,
    /// `test.held_out`: left out of the attempt's copy, put back for the final run.
    held_out: HeldOutGlobs,
    /// Paths never copied at all (a held-out test patch inside the repository), by their
    /// exact path from the repository.
    hidden: Vec<String>,
}

/// `test.held_out`'s globs as the path sets read them (`*` in one folder, `**` across), where
/// `DIR/**` also names the folder itself, so the copy holds no empty folder in its place.
#[derive(Debug, Clone, Default)]
struct HeldOutGlobs {
    patterns: Vec<String>,
    matcher: Option<GlobSet>,
}

impl HeldOutGlobs {
    fn new(patterns: Vec<String>) -> Result<HeldOutGlobs, (usize, String)> {
        let mut builder = GlobSetBuilder::new();
        for (index, pattern) in patterns.iter().enumerate() {
            if pattern.is_empty()
                || pattern.starts_with('/')
                || pattern.split('/').any(|part| part == "..")
            {
                return Err((
                    index,
                    format!("`{pattern}` must be relative to the repository, without `..`"),
                ));
            }
            let folder = pattern.strip_suffix("/**");
            for glob in std::iter::once(pattern.as_str()).chain(folder) {
                builder.add(
                    GlobBuilder::new(glob)
                        .literal_separator(true)
                        .backslash_escape(true)
                        .build()
                        .map_err(|err| {
                            (index, format!("`{pattern}` is not a valid glob: {err}"))
                        })?,
                );
            }
        }
        let matcher = builder
            .build()
            .map_err(|err| (0, format!("the globs cannot be combined: {err}")))?;
        Ok(HeldOutGlobs {
            matcher: (!patterns.is_empty()).then_some(matcher),
            patterns,
        })
    }

    fn matches(&self, relative: &str) -> bool {
        self.matcher
            .as_ref()
            .is_some_and(|matcher| matcher.is_match(relative))
    }
}

impl Exclusion {
    /// Leaves out what `patterns` names and shares nothing. `Err((index, message))` names the
    /// first bad glob.
    pub fn new(patterns: Vec<String>) -> Result<Exclusion, (usize, String)> {
        Ok(Exclusion {
            exclude: Globs::new(patterns)?,
            ..Exclusion::none()
        })
    }

    /// The same, holding out of the attempt's copy the files `patterns` names (path globs, as
    /// `paths.readable` reads them); [`Exclusion::for_final_run`] puts them back.
    pub fn holding_out(self, patterns: Vec<String>) -> Result<Exclusion, (usize, String)> {
        Ok(Exclusion {
            held_out: HeldOutGlobs::new(patterns)?,
            ..self
        })
    }

    /// The same, never copying the exact paths `paths` (relative to the repository).
    pub fn hiding(mut self, paths: impl IntoIterator<Item = String>) -> Exclusion {
        self.hidden.extend(paths);
        self.hidden.sort();
        self.hidden.dedup();
        self
    }

    /// What the final run's tree leaves out: the same, with the held-out files put back.
    pub fn for_final_run(&self) -> Exclusion {
        Exclusion {
            held_out: HeldOutGlobs::default(),
            ..self.clone()
        }
    }

    /// `test.held_out`.
    pub fn held_out_patterns(&self) -> &[String] {
        &self.held_out.patterns
    }

    /// Whether the file at `relative` is one `test.held_out` names.
    pub fn holds_out(&self, relative: &str) -> bool {
        self.held_out.matches(relative)
    }

    /// The same, leaving out what `patterns` names instead (replacing the list so far).
    pub fn excluding(self, patterns: Vec<String>) -> Result<Exclusion, (usize, String)> {
        Ok(Exclusion {
            exclude: Globs::new(patterns)?,
            ..self
        })
    }

    /// The same, sharing the folders `patterns` names instead of copying them (replacing the
    /// folders shared so far).
    pub fn sharing(self, patterns: Vec<String>) -> Result<Exclusion, (usize, String)> {
        Ok(Exclusion {
            share: Globs::new(patterns)?,
            ..self
        })
    }

    /// Nothing excluded, nothing shared.
    pub fn none() -> Exclusion {
        Exclusion {
            exclude: Globs::empty(),
            share: Globs::empty(),
            held_out: HeldOutGlobs::default(),
            hidden: Vec::new(),
        }
    }

    /// The caches left out and the dependency folders shared when a task names neither.
    pub fn defaults() -> Exclusion {
        Exclusion {
            exclude: Globs::of(&DEFAULT_EXCLUDE),
            share: Globs::of(&DEFAULT_SHARE),
            ..Exclusion::none()
        }
    }

    /// `copy.exclude`.
    pub fn patterns(&self) -> &[String] {
        &self.exclude.patterns
    }

    /// `copy.share`.
    pub fn shared_patterns(&self) -> &[String] {
        &self.share.patterns
    }

    /// Whether the entry at `relative` (forward slashes, no `.` parts) is itself left out of the
    /// copy's own files, excluded or shared; its folders are checked by the walk that reaches it.
    pub fn excludes_entry(&self, relative: &str) -> bool {
        self.exclude.matches(relative)
            || self.share.matches(relative)
            || self.held_out.matches(relative)
            || self
                .hidden
                .binary_search_by(|path| path.as_str().cmp(relative))
                .is_ok()
    }

    /// Whether the folder at `relative` is shared rather than copied (when it is not excluded).
    pub fn shares_entry(&self, relative: &str) -> bool {
        !self.exclude.matches(relative) && self.share.matches(relative)
    }

    /// Whether `relative` or any folder above it is excluded or shared.
    pub fn excludes(&self, relative: &str) -> bool {
        relative
            .match_indices('/')
            .map(|(at, _)| &relative[..at])
            .chain([relative])
            .any(|prefix| self.excludes_entry(prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::Exclusion;

    #[test]
    fn a_name_matches_at_any_depth_and_a_path_from_the_root() {
        let exclusion = Exclusion::new(
            ["__pycache__", "*.egg-info", "data/raw", "docs/**/_build/"]
                .map(str::to_owned)
                .to_vec(),
        )
        .unwrap();
        let seen: Vec<(&str, bool)> = [
            "__pycache__",
            "src/pkg/__pycache__/mod.cpython-311.pyc",
            "src/demo.egg-info/PKG-INFO",
            "data/raw",
            "data/raw/big.csv",
            "src/data/raw",
            "docs/en/_build/index.html",
            "src/pkg/cache.py",
            "target/debug/demo",
        ]
        .into_iter()
        .map(|path| (path, exclusion.excludes(path)))
        .collect();
        assert_eq!(
            seen,
            [
                ("__pycache__", true),
                ("src/pkg/__pycache__/mod.cpython-311.pyc", true),
                ("src/demo.egg-info/PKG-INFO", true),
                ("data/raw", true),
                ("data/raw/big.csv", true),
                ("src/data/raw", false),
                ("docs/en/_build/index.html", true),
                ("src/pkg/cache.py", false),
                ("target/debug/demo", false),
            ]
        );
    }

    #[test]
    fn the_defaults_leave_out_caches_share_dependencies_and_copy_build_outputs_and_git() {
        let defaults = Exclusion::defaults();
        let seen: Vec<(&str, bool, bool)> = [
            ".pytest_cache/v/cache/lastfailed",
            "pkg/__pycache__/a.pyc",
            ".mypy_cache/3.11/x.json",
            ".ruff_cache/CACHEDIR.TAG",
            ".tox/py311/bin/python",
            ".nox/tests/bin/python",
            "target/debug/build",
            "node_modules",
            "web/node_modules",
            ".venv",
            "venv",
            "node_modules/left-pad/index.js",
            ".git/HEAD",
            ".hypothesis/examples/x",
        ]
        .into_iter()
        .map(|path| (path, defaults.excludes(path), defaults.shares_entry(path)))
        .collect();
        assert_eq!(
            seen,
            [
                (".pytest_cache/v/cache/lastfailed", true, false),
                ("pkg/__pycache__/a.pyc", true, false),
                (".mypy_cache/3.11/x.json", true, false),
                (".ruff_cache/CACHEDIR.TAG", true, false),
                (".tox/py311/bin/python", true, false),
                (".nox/tests/bin/python", true, false),
                ("target/debug/build", false, false),
                ("node_modules", true, true),
                ("web/node_modules", true, true),
                (".venv", true, true),
                ("venv", true, true),
                ("node_modules/left-pad/index.js", true, false),
                (".git/HEAD", false, false),
                (".hypothesis/examples/x", false, false),
            ]
        );
    }

    #[test]
    fn an_excluded_folder_is_not_shared() {
        let both = Exclusion::new(vec!["vendor".to_owned()])
            .unwrap()
            .sharing(vec!["vendor".to_owned(), "deps".to_owned()])
            .unwrap();
        assert_eq!(
            [
                both.shares_entry("vendor"),
                both.shares_entry("deps"),
                both.excludes_entry("vendor"),
                both.excludes_entry("deps"),
            ],
            [false, true, true, true]
        );
    }

    #[test]
    fn bad_globs_are_named_by_position() {
        let cases = [
            (vec!["ok", "[x"], 1),
            (vec!["/abs"], 0),
            (vec!["a", "../up"], 1),
            (vec![""], 0),
        ];
        for (patterns, index) in cases {
            let owned = patterns.iter().map(|p| (*p).to_owned()).collect();
            assert_eq!(Exclusion::new(owned).err().map(|(at, _)| at), Some(index));
        }
    }
}
