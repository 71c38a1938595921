use super::{parse, FilePatch, Hunk, HunkLine};

fn file(old: Option<&str>, new: Option<&str>) -> FilePatch {
    FilePatch {
        old_path: old.map(str::to_owned),
        new_path: new.map(str::to_owned),
        new_mode: None,
        copy: false,
        binary: false,
        hunks: Vec::new(),
    }
}

#[test]
fn git_headers_name_new_deleted_renamed_copied_and_mode_changed_files() {
    let diff = "\
commit message text before the first header is skipped
diff --git a/src/new.py b/src/new.py
new file mode 100755
index 0000000..e69de29
--- /dev/null
+++ b/src/new.py
@@ -0,0 +1 @@
+print('new')
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 257cc56..0000000
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/a b/b
similarity index 100%
rename from a
rename to b
diff --git a/x.py b/y.py
similarity index 90%
copy from x.py
copy to y.py
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git \"a/t\\303\\251st.py\" \"b/t\\303\\251st.py\"
new file mode 100644
index 0000000..e69de29
diff --git a/with space.txt b/with space.txt
index 1..2 100644
--- a/with space.txt\t
+++ b/with space.txt\t
@@ -1,2 +1,2 @@
 keep
--- a/x
+--- b/x
\\ No newline at end of file
";
    let files = parse(diff).unwrap();
    let mut new = file(None, Some("src/new.py"));
    new.new_mode = Some(0o100_755);
    new.hunks = vec![Hunk {
        old_start: 0,
        old_count: 0,
        lines: vec![HunkLine::Added("print('new')\n".to_owned())],
    }];
    let mut deleted = file(Some("old.txt"), None);
    deleted.hunks = vec![Hunk {
        old_start: 1,
        old_count: 1,
        lines: vec![HunkLine::Removed("gone\n".to_owned())],
    }];
    let renamed = file(Some("a"), Some("b"));
    let mut copied = file(Some("x.py"), Some("y.py"));
    copied.copy = true;
    let mut mode = file(Some("run.sh"), Some("run.sh"));
    mode.new_mode = Some(0o100_755);
    let mut quoted = file(None, Some("tést.py"));
    quoted.new_mode = Some(0o100_644);
    let mut spaced = file(Some("with space.txt"), Some("with space.txt"));
    // The removed line reads like a header; the hunk's counts keep it a line.
    spaced.hunks = vec![Hunk {
        old_start: 1,
        old_count: 2,
        lines: vec![
            HunkLine::Context("keep\n".to_owned()),
            HunkLine::Removed("-- a/x\n".to_owned()),
            HunkLine::Added("--- b/x".to_owned()),
        ],
    }];
    assert_eq!(
        files,
        vec![new, deleted, renamed, copied, mode, quoted, spaced]
    );
}

#[test]
fn plain_diff_u_headers_with_dates_and_a_cut_hunk() {
    let diff = "--- a/lib.py\t2024-01-01 00:00:00.000000000 +0000\n+++ b/lib.py\t2024-01-02 00:00:00.000000000 +0000\n@@ -2 +2 @@\n-x\n+y\n";
    let mut expected = file(Some("lib.py"), Some("lib.py"));
    expected.hunks = vec![Hunk {
        old_start: 2,
        old_count: 1,
        lines: vec![
            HunkLine::Removed("x\n".to_owned()),
            HunkLine::Added("y\n".to_owned()),
        ],
    }];
    assert_eq!(parse(diff).unwrap(), vec![expected]);
    assert_eq!(
        parse("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n")
            .unwrap_err()
            .to_string(),
        "line 3: the hunk `@@ -1,3 +1,3 @@` is cut short"
    );
    assert_eq!(
        parse("--- a/f\n+++ b/f\n@@ -x +1 @@\n").unwrap_err(),
        super::ParseError {
            line: 3,
            why: "bad hunk header `@@ -x +1 @@`".to_owned()
        }
    );
}
