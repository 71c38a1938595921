//! Every kind of file a repository holds gets an answer the model can act on: binary files,
//! folders, links of every kind, special files.

use std::os::unix::fs::symlink;

use serde_json::json;

use super::{general, general_workspace, refused, success};
use crate::test_support::make_fifo;

#[test]
fn each_file_that_is_not_text_is_refused_with_what_it_is() {
    let (_dir, root) = general_workspace();
    std::fs::write(root.join("src/app/blob.py"), b"x = 1\n\0\0").unwrap();
    std::fs::write(root.join("src/app/latin.py"), b"name = 'caf\xe9'\n").unwrap();
    symlink("app", root.join("src/linked")).unwrap();
    symlink("missing.py", root.join("src/app/gone.py")).unwrap();
    std::fs::create_dir(root.join("src/app/folder.py")).unwrap();
    make_fifo(&root.join("src/app/pipe.py"));

    let binary = |path: &str| {
        refused(&format!(
            "`{path}` is a binary file (not UTF-8 text); the tools read and edit text files only, so leave it as it is"
        ))
    };
    let cases = [
        ("read_file", json!({"path": "src/data.bin"}), binary("src/data.bin")),
        ("read_file", json!({"path": "src/app/latin.py"}), binary("src/app/latin.py")),
        (
            "replace_text",
            json!({"path": "src/app/blob.py", "old": "x = 1", "new": "x = 2"}),
            binary("src/app/blob.py"),
        ),
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
    ];
    for (tool, arguments, expected) in cases {
        assert_eq!(
            general(&root, tool, arguments.clone()),
            expected,
            "{tool} {arguments}"
        );
    }
    // The binary file is untouched, and a search passes over every odd file without blocking.
    assert_eq!(
        std::fs::read(root.join("src/app/blob.py")).unwrap(),
        b"x = 1\n\0\0"
    );
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
