//! `list_files` and `grep`: readable files only, capped; a tool the task does not offer is unknown.

use super::*;

#[test]
fn list_files_shows_readable_files_only() {
    let (_dir, root) = general_workspace();
    assert_eq!(
        general(&root, "list_files", json!({})),
        success(json!({
            "files": ["README.md", "src/app/core.py", "src/app/util.py", "src/conftest.py", "src/data.bin", "tests/test_core.py"],
            "total": 6,
            "truncated": false
        }))
    );
    assert_eq!(
        general(&root, "list_files", json!({"pattern": "src/*/*.py"})),
        success(
            json!({"files": ["src/app/core.py", "src/app/util.py"], "total": 2, "truncated": false})
        )
    );
}

#[test]
fn list_files_is_capped() {
    let (_dir, root) = general_workspace();
    for n in 0..250 {
        std::fs::write(root.join(format!("src/m{n:03}.py")), "").unwrap();
    }
    let ToolOutcome::Success { value } =
        general(&root, "list_files", json!({"pattern": "src/m*.py"}))
    else {
        panic!("list_files failed")
    };
    let expected: Vec<String> = (0..200).map(|n| format!("src/m{n:03}.py")).collect();
    assert_eq!(
        value,
        json!({"files": expected, "total": 250, "truncated": true})
    );
}

#[test]
fn grep_reports_file_line_and_text_of_readable_files() {
    let (_dir, root) = general_workspace();
    assert_eq!(
        general(&root, "grep", json!({"pattern": r"add\("})),
        success(json!({
            "matches": "README.md:1: A tiny app; add() adds.\nsrc/app/core.py:1: def add(a, b):\ntests/test_core.py:3: def test_add():\ntests/test_core.py:4:     assert add(1, 2) == 3",
            "count": 4,
            "truncated": false
        }))
    );
    assert_eq!(
        general(&root, "grep", json!({"pattern": "add", "path": "src/**"})),
        success(
            json!({"matches": "src/app/core.py:1: def add(a, b):", "count": 1, "truncated": false})
        )
    );
    assert_eq!(
        general(&root, "grep", json!({"pattern": "(unclosed"})),
        refused("`(unclosed` is not a valid regular expression: regex parse error:\n    (unclosed\n    ^\nerror: unclosed group")
    );
}

#[test]
fn grep_is_capped() {
    let (_dir, root) = general_workspace();
    std::fs::write(root.join("src/many.py"), "hit\n".repeat(150)).unwrap();
    let ToolOutcome::Success { value } = general(&root, "grep", json!({"pattern": "^hit$"})) else {
        panic!("grep failed")
    };
    let expected: Vec<String> = (1..=100).map(|n| format!("src/many.py:{n}: hit")).collect();
    assert_eq!(
        value,
        json!({"matches": expected.join("\n"), "count": 100, "truncated": true})
    );
}

#[test]
fn a_tool_the_task_does_not_offer_is_unknown_even_if_mend_has_it() {
    let (_dir, root) = sample_workspace();
    assert_eq!(
        call(
            &root,
            "write_file",
            json!({"path": "path_rules.py", "text": "x"})
        ),
        refused("unknown tool `write_file`")
    );
    assert_eq!(
        call(&root, "rm_rf", json!({})),
        refused("unknown tool `rm_rf`")
    );
}
