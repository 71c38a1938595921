//! `[copy]`: what the throwaway copy leaves out. A cache copied from the original can make the
//! copy's tests read stale results; everything else is copied, build outputs included, because
//! the tests may need them (a `target/` or `node_modules/`), and the copy keeps modification
//! times so a build tool can tell them from the sources.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Caches that only ever speed a tool up or hold another machine's paths: leaving them out
/// cannot change a verdict. `.tox` and `.nox` hold virtualenvs whose scripts point back into
/// the original, so a copy of them would run the original's code. `.git` is copied: tools such
/// as setuptools-scm read it, and leaving it out would change what the project sees. `.mend`
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

/// The globs of `copy.exclude`. A glob without `/` matches a file or folder name at any depth
/// (`__pycache__`, `*.egg-info`); one with `/` matches the whole path from the repository
/// (`data/raw`, `docs/**/_build`). Everything inside an excluded folder is excluded.
#[derive(Debug, Clone)]
pub struct Exclusion {
    patterns: Vec<String>,
    by_name: GlobSet,
    by_path: GlobSet,
}

impl Exclusion {
    /// `Err((index, message))` names the first bad glob.
    pub fn new(patterns: Vec<String>) -> Result<Exclusion, (usize, String)> {
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
        Ok(Exclusion {
            by_name: build(by_name)?,
            by_path: build(by_path)?,
            patterns,
        })
    }

    /// Nothing excluded.
    pub fn none() -> Exclusion {
        Exclusion {
            patterns: Vec::new(),
            by_name: GlobSet::empty(),
            by_path: GlobSet::empty(),
        }
    }

    pub fn defaults() -> Exclusion {
        let defaults = DEFAULT_EXCLUDE.map(str::to_owned).to_vec();
        // The defaults are plain names, always valid globs.
        Exclusion::new(defaults).unwrap_or_else(|_| Exclusion::none())
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether the entry at `relative` (forward slashes, no `.` parts) is itself excluded; its
    /// folders are checked by the walk that reaches it.
    pub fn excludes_entry(&self, relative: &str) -> bool {
        let name = relative.rsplit('/').next().unwrap_or(relative);
        self.by_name.is_match(name) || self.by_path.is_match(relative)
    }

    /// Whether `relative` or any folder above it is excluded.
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
    fn the_defaults_leave_out_caches_but_not_build_outputs_or_git() {
        let defaults = Exclusion::defaults();
        let seen: Vec<bool> = [
            ".pytest_cache/v/cache/lastfailed",
            "pkg/__pycache__/a.pyc",
            ".mypy_cache/3.11/x.json",
            ".ruff_cache/CACHEDIR.TAG",
            ".tox/py311/bin/python",
            ".nox/tests/bin/python",
            "target/debug/build",
            "node_modules/left-pad/index.js",
            ".git/HEAD",
            ".hypothesis/examples/x",
        ]
        .into_iter()
        .map(|path| defaults.excludes(path))
        .collect();
        assert_eq!(
            seen,
            [true, true, true, true, true, true, false, false, false, false]
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
