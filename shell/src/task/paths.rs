//! Sets of repository paths named by globs (`src/**/*.py`): which files a tool may read, which
//! it may write, which the verdict rests on. `*` stays inside one folder, `**` crosses folders.

use std::io;
use std::os::unix::fs::FileTypeExt;

use camino::Utf8Path;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::copy::Exclusion;

/// A walk of a repository stops here: mend is for small repositories, and a runaway walk would
/// stall every tool call.
pub const WALK_LIMIT: usize = 50_000;

#[derive(Debug, Clone)]
pub struct PathSet {
    patterns: Vec<String>,
    matcher: GlobSet,
    /// What the copy leaves out is in no set: a file there would be seen in the original and
    /// missed in the copy.
    exclude: Exclusion,
}

impl PathSet {
    /// The set of the given globs; `Err((index, message))` names the first bad one.
    pub fn new(patterns: Vec<String>) -> Result<PathSet, (usize, String)> {
        let mut builder = GlobSetBuilder::new();
        for (index, pattern) in patterns.iter().enumerate() {
            if pattern.starts_with('/') || pattern.split('/').any(|part| part == "..") {
                return Err((
                    index,
                    format!("`{pattern}` must be relative to the repository, without `..`"),
                ));
            }
            let glob = GlobBuilder::new(pattern)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|err| (index, format!("`{pattern}` is not a valid glob: {err}")))?;
            builder.add(glob);
        }
        let matcher = builder
            .build()
            .map_err(|err| (0, format!("the globs cannot be combined: {err}")))?;
        Ok(PathSet {
            patterns,
            matcher,
            exclude: Exclusion::none(),
        })
    }

    /// The same set without what `exclude` leaves out of the copy.
    pub fn excluding(self, exclude: &Exclusion) -> PathSet {
        PathSet {
            exclude: exclude.clone(),
            ..self
        }
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether a normalised relative path (see [`normalize`]) is in the set.
    pub fn contains(&self, relative: &str) -> bool {
        self.matcher.is_match(relative) && !self.exclude.excludes(relative)
    }

    /// The one file the set names, when it is a single plain path: then a tool needs no `path`.
    pub fn single_file(&self) -> Option<&str> {
        match self.patterns.as_slice() {
            [only] if !only.contains(['*', '?', '[', '{', '\\']) => Some(only),
            _ => None,
        }
    }

    /// `a, b and c` / `a, b or c`: the set as the model reads it in a tool description.
    pub fn listed(&self, conjunction: &str) -> String {
        match self.patterns.split_last() {
            None => "nothing".to_owned(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} {conjunction} {last}", rest.join(", ")),
        }
    }

    /// Every file under `root` in the set, sorted.
    pub fn files_in(&self, root: &Utf8Path) -> io::Result<Vec<String>> {
        Ok(files_under(root, &self.exclude)?
            .into_iter()
            .filter(|file| self.contains(file))
            .collect())
    }
}

/// Why a path given by the model was refused, before the disk was touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathRefusal {
    Empty,
    Absolute,
    LeavesWorkspace,
    NotAllowed,
}

/// The path as the sets match it: relative, forward slashes, no `.` parts. `..`, absolute
/// paths and backslashes are refused on the text alone.
pub fn normalize(path: &str) -> Result<String, PathRefusal> {
    if path.starts_with('/') || path.starts_with('\\') {
        return Err(PathRefusal::Absolute);
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(PathRefusal::LeavesWorkspace),
            part if part.contains('\\') => return Err(PathRefusal::NotAllowed),
            part => parts.push(part),
        }
    }
    match parts.first() {
        None => Err(PathRefusal::Empty),
        _ if parts.iter().all(|part| part.trim().is_empty()) => Err(PathRefusal::Empty),
        // A Windows drive (`C:/x`, also after `./`): absolute there, and never meant here.
        Some(first) if first.get(1..2) == Some(":") => Err(PathRefusal::Absolute),
        Some(_) => Ok(parts.join("/")),
    }
}

/// Decides on the text alone whether `path` is in `set`, and returns it normalised.
pub fn allowed_path(path: &str, set: &PathSet) -> Result<String, PathRefusal> {
    let normal = normalize(path)?;
    if set.contains(&normal) {
        Ok(normal)
    } else {
        Err(PathRefusal::NotAllowed)
    }
}

impl PathRefusal {
    /// The message the model gets: what was wrong and what it may use instead.
    pub fn explain(&self, path: &str, set: &PathSet) -> String {
        let options = set.patterns().join(", ");
        match self {
            PathRefusal::Empty => format!("the path is empty; use one of: {options}"),
            PathRefusal::Absolute => {
                format!("`{path}` is absolute; use a relative path, one of: {options}")
            }
            PathRefusal::LeavesWorkspace => {
                format!("`{path}` leaves the repository; use one of: {options}")
            }
            PathRefusal::NotAllowed => format!("`{path}` is not allowed; use one of: {options}"),
        }
    }
}

/// Every file under `root` as a relative path, sorted: regular files and links (see [`walk`]).
pub fn files_under(root: &Utf8Path, exclude: &Exclusion) -> io::Result<Vec<String>> {
    Ok(walk(root, exclude)?.files)
}

/// What a walk of the repository saw.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// Regular files and links of every kind (to files, to folders, broken, leading out),
    /// sorted.
    pub files: Vec<String>,
    /// What it could not or would not look at, sorted by path.
    pub skipped: Vec<(String, Skipped)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skipped {
    /// A FIFO, socket or device: reading one can block forever or never end.
    Special(&'static str),
    /// A folder whose entries cannot be listed.
    UnreadableFolder,
    /// A file that cannot be opened (found by the copy, which opens every file).
    UnreadableFile,
}

impl Skipped {
    pub fn describe(self) -> String {
        match self {
            Skipped::Special(kind) => format!("a {kind}, which mend does not copy or read"),
            Skipped::UnreadableFolder => {
                "a folder that cannot be listed (permission denied); the copy has it empty"
                    .to_owned()
            }
            Skipped::UnreadableFile => {
                "a file that cannot be read (permission denied); the copy has it empty and as unreadable"
                    .to_owned()
            }
        }
    }
}

/// The special kinds of file, by name; `None` for folders, files and links.
pub fn special_kind(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_fifo() {
        Some("FIFO (named pipe)")
    } else if kind.is_socket() {
        Some("socket")
    } else if kind.is_block_device() || kind.is_char_device() {
        Some("device file")
    } else {
        None
    }
}

/// Walks `root`. Links are listed, never followed, so a link to a folder outside cannot pull
/// that folder in; `.git` and what `exclude` leaves out of the copy are skipped silently;
/// special files and folders that cannot be listed are skipped and reported.
pub fn walk(root: &Utf8Path, exclude: &Exclusion) -> io::Result<Walk> {
    let mut seen = Walk::default();
    let mut pending = vec![String::new()];
    while let Some(folder) = pending.pop() {
        let entries = match root.join(&folder).read_dir_utf8() {
            Ok(entries) => entries,
            Err(err) if !folder.is_empty() && err.kind() == io::ErrorKind::PermissionDenied => {
                seen.skipped.push((folder, Skipped::UnreadableFolder));
                continue;
            }
            Err(err) => return Err(err),
        };
        for entry in entries {
            let entry = entry?;
            let relative = if folder.is_empty() {
                entry.file_name().to_owned()
            } else {
                format!("{folder}/{}", entry.file_name())
            };
            let kind = entry.file_type()?;
            if exclude.excludes_entry(&relative) {
                continue;
            }
            if kind.is_dir() {
                if entry.file_name() != ".git" {
                    pending.push(relative);
                }
            } else if let Some(special) = special_kind(kind) {
                seen.skipped.push((relative, Skipped::Special(special)));
            } else {
                seen.files.push(relative);
            }
            if seen.files.len() + pending.len() > WALK_LIMIT {
                return Err(io::Error::other(format!(
                    "the repository has more than {WALK_LIMIT} entries; mend is meant for small repositories \
                     (leave big folders out of the copy with copy.exclude)"
                )));
            }
        }
    }
    seen.files.sort();
    seen.skipped.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(patterns: &[&str]) -> PathSet {
        PathSet::new(
            patterns
                .iter()
                .map(|pattern| (*pattern).to_owned())
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn the_allowlist_is_decided_on_the_text() {
        let allowed = set(&["path_rules.py", "tests/test_path_rules.py"]);
        let cases: [(&str, Result<&str, PathRefusal>); 13] = [
            ("path_rules.py", Ok("path_rules.py")),
            ("./path_rules.py", Ok("path_rules.py")),
            ("tests//test_path_rules.py", Ok("tests/test_path_rules.py")),
            ("", Err(PathRefusal::Empty)),
            ("./", Err(PathRefusal::Empty)),
            ("/etc/passwd", Err(PathRefusal::Absolute)),
            ("C:/x.py", Err(PathRefusal::Absolute)),
            ("./C:/x.py", Err(PathRefusal::Absolute)),
            ("./ ", Err(PathRefusal::Empty)),
            ("tests/../path_rules.py", Err(PathRefusal::LeavesWorkspace)),
            ("../secrets", Err(PathRefusal::LeavesWorkspace)),
            ("tests\\test_path_rules.py", Err(PathRefusal::NotAllowed)),
            ("README.md", Err(PathRefusal::NotAllowed)),
        ];
        for (path, expected) in cases {
            assert_eq!(
                allowed_path(path, &allowed),
                expected.map(str::to_owned),
                "{path}"
            );
        }
    }

    #[test]
    fn a_star_stays_in_its_folder_and_two_stars_cross_folders() {
        let globs = set(&["src/*.py", "docs/**/*.md"]);
        let matched: Vec<bool> = [
            "src/a.py",
            "src/deep/a.py",
            "docs/a.md",
            "docs/x/y/a.md",
            "a.py",
        ]
        .iter()
        .map(|path| globs.contains(path))
        .collect();
        assert_eq!(matched, [true, false, true, true, false]);
    }

    #[test]
    fn bad_globs_are_named_by_position() {
        let cases = [
            (vec!["ok.py", "src/[.py"], 1),
            (vec!["/etc/*"], 0),
            (vec!["a", "b", "../up/*"], 2),
        ];
        for (patterns, index) in cases {
            let owned = patterns.iter().map(|p| (*p).to_owned()).collect();
            assert_eq!(PathSet::new(owned).err().map(|(at, _)| at), Some(index));
        }
    }

    #[test]
    fn a_set_reads_as_a_list_and_knows_its_single_file() {
        let two = set(&["path_rules.py", "tests/test_path_rules.py"]);
        assert_eq!(
            (two.listed("and"), two.listed("or"), two.single_file()),
            (
                "path_rules.py and tests/test_path_rules.py".to_owned(),
                "path_rules.py or tests/test_path_rules.py".to_owned(),
                None
            )
        );
        let three = set(&["a", "b", "c"]);
        assert_eq!(three.listed("or"), "a, b or c");
        assert_eq!(set(&["path_rules.py"]).single_file(), Some("path_rules.py"));
        assert_eq!(set(&["src/*.py"]).single_file(), None);
    }

    #[test]
    fn the_walk_lists_files_sorted_and_skips_git() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        for file in ["b.py", "a/z.py", "a/b/c.txt", ".git/HEAD"] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        assert_eq!(
            files_under(root, &Exclusion::none()).unwrap(),
            ["a/b/c.txt", "a/z.py", "b.py"]
        );
        assert_eq!(
            set(&["**/*.py"]).files_in(root).unwrap(),
            ["a/z.py", "b.py"]
        );
    }

    mod properties {
        use proptest::prelude::*;
        use proptest::test_runner::FileFailurePersistence;

        use super::super::{allowed_path, normalize, PathSet};

        fn config() -> ProptestConfig {
            ProptestConfig {
                failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../proptest-regressions/shell-paths.txt"
                )))),
                ..ProptestConfig::default()
            }
        }

        /// Paths a model might write: real names mixed with every trick of the trade.
        fn path() -> impl Strategy<Value = String> {
            let part = prop_oneof![
                Just("src".to_owned()),
                Just("tests".to_owned()),
                Just("a.py".to_owned()),
                Just(".".to_owned()),
                Just("..".to_owned()),
                Just("".to_owned()),
                Just("C:".to_owned()),
                Just("x\\y".to_owned()),
                Just(" ".to_owned()),
                "[a-z.]{1,4}",
            ];
            (any::<bool>(), prop::collection::vec(part, 1..6)).prop_map(|(rooted, parts)| {
                format!("{}{}", if rooted { "/" } else { "" }, parts.join("/"))
            })
        }

        proptest! {
            #![proptest_config(config())]

            /// A normalised path never leaves the copy, has one spelling, and stays inside the
            /// set it was allowed by.
            #[test]
            fn an_allowed_path_stays_inside_its_set(path in path()) {
                if let Ok(normal) = normalize(&path) {
                    prop_assert!(!normal.starts_with('/'), "{normal}");
                    prop_assert!(!normal.contains('\\'), "{normal}");
                    prop_assert!(normal.split('/').all(|part| !part.is_empty() && part != "." && part != ".."), "{normal}");
                    prop_assert_eq!(normalize(&normal), Ok(normal.clone()));
                }
                let set = PathSet::new(vec!["src/**".to_owned()]).unwrap();
                if let Ok(allowed) = allowed_path(&path, &set) {
                    prop_assert!(allowed.starts_with("src/"), "{} -> {}", path, allowed);
                }
            }
        }
    }
}
