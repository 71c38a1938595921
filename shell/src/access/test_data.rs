//! The data the tests read: files beside the test files that are not code (a snapshot, a golden
//! file, a JSON fixture). A test that compares against one passes as soon as the file says what
//! the code gives, so they are protected like the tests. The test folders are read off the
//! task's `test.files` globs: each glob's folder (`tests/test_*.py`: `tests/`), with all it
//! holds (see [`crate::task::test_folders`]).

use crate::task::paths::PathSet;

/// Extensions of source code: a helper module beside the tests is code the model may write, as
/// it may write any other; only what is not code is data.
const CODE: [&str; 24] = [
    "py", "pyi", "pyx", "pxd", "rs", "js", "mjs", "cjs", "ts", "mts", "cts", "tsx", "jsx", "go",
    "java", "kt", "rb", "c", "h", "cc", "cpp", "hpp", "cs", "swift",
];

/// Whether a normalised relative path is data the tests read: under a test folder, and not code.
pub(crate) fn is_test_data(folders: Option<&PathSet>, relative: &str) -> bool {
    let Some(folders) = folders else {
        return false;
    };
    let name = relative.rsplit('/').next().unwrap_or(relative);
    let code = name
        .rsplit_once('.')
        .is_some_and(|(_, extension)| CODE.contains(&extension.to_ascii_lowercase().as_str()));
    !code && folders.contains(relative)
}

#[cfg(test)]
mod tests {
    use super::is_test_data;
    use crate::task::test_folders::test_folders;

    #[test]
    fn data_is_what_is_not_code_in_the_folders_the_test_globs_name() {
        let globs = [
            "tests/test_*.py",
            "packages/*/spec/**/*.spec.ts",
            "**/test_*.py",
            "test_app.py",
        ]
        .map(str::to_owned);
        let folders = test_folders(&globs);
        let paths = [
            "tests/snapshots/render.ambr",
            "tests/data/expected.json",
            "tests/golden/invoice.txt",
            "tests/__snapshots__/render",
            "tests/helpers.py",
            "tests/conftest.py",
            "packages/ui/spec/fixtures/user.yaml",
            "packages/ui/spec/util.ts",
            "packages/ui/src/data.json",
            "data/expected.json",
            "README.md",
        ];
        let data: Vec<&str> = paths
            .into_iter()
            .filter(|path| is_test_data(folders.as_ref(), path))
            .collect();
        assert_eq!(
            data,
            [
                "tests/snapshots/render.ambr",
                "tests/data/expected.json",
                "tests/golden/invoice.txt",
                "tests/__snapshots__/render",
                "packages/ui/spec/fixtures/user.yaml",
            ]
        );
    }

    #[test]
    fn globs_that_name_no_folder_protect_no_data() {
        let globs = [
            "**/test_*.py",
            "test_app.py",
            "*/test_*.py",
            "src/conftest.py",
        ]
        .map(str::to_owned);
        assert!(test_folders(&globs).is_none());
        assert!(!is_test_data(None, "tests/data/expected.json"));
    }
}
