//! Every kind of file a repository holds gets an answer the model can act on: binary files,
//! folders, links of every kind, special files.

use std::os::unix::fs::symlink;

use camino::{Utf8Path, Utf8PathBuf};
use mend_core::ToolOutcome;
use serde_json::{json, Value};

use super::{general, general_workspace, refused, success};
use crate::test_support::make_fifo;

/// A workspace holding every kind of odd file: binary text, a folder named like a file, a
/// link to a folder, a broken link, a pipe.
fn odd_files() -> (tempfile::TempDir, Utf8PathBuf) {
    let (dir, root) = general_workspace();
    std::fs::write(root.join("src/app/blob.py"), b"x = 1\n\0\0").unwrap();
    std::fs::write(root.join("src/app/latin.py"), b"name = 'caf\xe9'\n").unwrap();
    symlink("app", root.join("src/linked")).unwrap();
    symlink("missing.py", root.join("src/app/gone.py")).unwrap();
    std::fs::create_dir(root.join("src/app/folder.py")).unwrap();
    make_fifo(&root.join("src/app/pipe.py"));
    (dir, root)
}

/// Each call answered as the table says.
fn assert_answers(root: &Utf8Path, cases: Vec<(&str, Value, ToolOutcome)>) {
    for (tool, arguments, expected) in cases {
        assert_eq!(
            general(root, tool, arguments.clone()),
            expected,
            "{tool} {arguments}"
        );
    }
}

#[test]
fn a_binary_file_is_refused_with_what_it_is_and_left_untouched() {
    let (_dir, root) = odd_files();
    let binary = |path: &str| {
        refused(&format!(
            "`{path}` is a binary file (not UTF-8 text); the tools read and edit text files only, so leave it as it is"
        ))
    };
    assert_answers(
        &root,
        vec![
            (
                "read_file",
                json!({"path": "src/data.bin"}),
                binary("src/data.bin"),
            ),
            (
                "read_file",
                json!({"path": "src/app/latin.py"}),
                binary("src/app/latin.py"),
            ),
            (
                "replace_text",
                json!({"path": "src/app/blob.py", "old": "x = 1", "new": "x = 2"}),
                binary("src/app/blob.py"),
            ),
        ],
    );
    assert_eq!(
        std::fs::read(root.join("src/app/blob.py")).unwrap(),
        b"x = 1\n\0\0"
    );
}

#[test]
fn a_link_is_followed_to_a_file_and_a_broken_one_or_one_to_a_folder_is_named() {
    let (_dir, root) = odd_files();
    assert_answers(
        &root,
        vec![
        (
            "read_file",
            json!({"path": "src/linked"}),
            refused("`src/linked` is a folder, not a file; name a file inside it (list_files shows them)"),
        ),
        (
            "read_file",
            json!({"path": "src/linked/util.py"}),
            success(json!({"path": "src/linked/util.py", "text": "SEP = ','\n"})),
        ),
        (
            "read_file",
            json!({"path": "src/app/gone.py"}),
            refused("`src/app/gone.py` is a link to `missing.py`, which does not exist (a broken link); it cannot be opened"),
        ),
        (
            "replace_text",
            json!({"path": "src/app/gone.py", "old": "a", "new": "b"}),
            refused("`src/app/gone.py` is a link to `missing.py`, which does not exist (a broken link); it cannot be opened"),
        ),
        ],
    );
}

#[test]
fn a_missing_file_a_folder_and_a_special_file_are_each_named_for_what_they_are() {
    let (_dir, root) = odd_files();
    assert_answers(
        &root,
        vec![
        (
            "read_file",
            json!({"path": "src/app/nowhere.py"}),
            refused("`src/app/nowhere.py` does not exist"),
        ),
        (
            "write_file",
            json!({"path": "src/app/folder.py", "text": "x = 1\n"}),
            refused("`src/app/folder.py` is a folder; write_file writes a file, so name a file inside it"),
        ),
        (
            "replace_text",
            json!({"path": "src/app/folder.py", "old": "a", "new": "b"}),
            refused("`src/app/folder.py` is a folder, not a file; name a file inside it (list_files shows them)"),
        ),
        (
            "read_file",
            json!({"path": "src/app/pipe.py"}),
            refused("`src/app/pipe.py` is not a regular file (a pipe, socket or device); it cannot be read"),
        ),
        (
            "write_file",
            json!({"path": "src/app/pipe.py", "text": "x = 1\n"}),
            refused("`src/app/pipe.py` is not a regular file (a pipe, socket or device); it cannot be written"),
        ),
        ],
    );
}

#[test]
fn a_search_passes_over_every_odd_file_without_blocking() {
    let (_dir, root) = odd_files();
    assert_eq!(
        general(&root, "grep", json!({"pattern": "SEP"})),
        success(json!({"matches": "src/app/util.py:1: SEP = ','", "count": 1, "truncated": false}))
    );
}

#[test]
fn list_files_shows_links_but_not_special_files() {
    let (_dir, root) = general_workspace();
    symlink("app", root.join("src/linked")).unwrap();
    symlink("missing.py", root.join("src/app/gone.py")).unwrap();
    make_fifo(&root.join("src/app/pipe.py"));
    assert_eq!(
        general(&root, "list_files", json!({"pattern": "src/**"})),
        success(json!({
            "files": [
                "src/app/core.py",
                "src/app/gone.py",
                "src/app/util.py",
                "src/conftest.py",
                "src/data.bin",
                "src/linked"
            ],
            "total": 6,
            "truncated": false
        }))
    );
}
