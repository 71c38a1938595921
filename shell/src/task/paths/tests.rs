//! Tests of `paths`.

use super::*;
use crate::test_support::project;

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
fn a_path_is_normalised_on_its_text() {
    let cases: [(&str, Result<&str, Malformed>); 12] = [
        ("path_rules.py", Ok("path_rules.py")),
        ("./path_rules.py", Ok("path_rules.py")),
        ("tests//test_path_rules.py", Ok("tests/test_path_rules.py")),
        ("", Err(Malformed::Empty)),
        ("./", Err(Malformed::Empty)),
        ("/etc/passwd", Err(Malformed::Absolute)),
        ("C:/x.py", Err(Malformed::Absolute)),
        ("./C:/x.py", Err(Malformed::Absolute)),
        ("./ ", Err(Malformed::Empty)),
        ("tests/../path_rules.py", Err(Malformed::LeavesRepository)),
        ("../secrets", Err(Malformed::LeavesRepository)),
        ("tests\\test_path_rules.py", Err(Malformed::Backslash)),
    ];
    for (path, expected) in cases {
        assert_eq!(normalize(path), expected.map(str::to_owned), "{path}");
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
    let (_dir, root) = project(&[
        ("b.py", "x"),
        ("a/z.py", "x"),
        ("a/b/c.txt", "x"),
        (".git/HEAD", "x"),
    ]);
    assert_eq!(
        files_under(&root, &Exclusion::none()).unwrap(),
        ["a/b/c.txt", "a/z.py", "b.py"]
    );
    assert_eq!(
        set(&["**/*.py"]).files_in(&root).unwrap(),
        ["a/z.py", "b.py"]
    );
}

mod properties {
    use proptest::prelude::*;
    use proptest::test_runner::FileFailurePersistence;

    use super::super::{normalize, PathSet};

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
            if let Some(allowed) = normalize(&path).ok().filter(|normal| set.contains(normal)) {
                prop_assert!(allowed.starts_with("src/"), "{} -> {}", path, allowed);
            }
        }
    }
}
