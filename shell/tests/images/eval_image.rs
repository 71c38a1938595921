//! An image-only task (a folder holding only its task file, as `mend eval import` writes one for
//! a row that names an image) is checked and graded on the image's own repository at its
//! workdir, never on the near-empty folder mounted over it.

use std::fs;

use crate::common::tree_digest;
use crate::support::{layout, mend_images, names_in, pull};

const GOLD: &str = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -3,4 +3,4 @@ def double(x):\n \n \n def half(x):\n-    return x // 3\n+    return x // 2\n";

#[test]
fn an_image_only_task_passes_the_check_on_the_images_repository() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    let image = format!("oci:{}:base", layout().display());
    fs::create_dir_all(suite.join("tasks/half")).unwrap();
    fs::create_dir_all(suite.join("gold")).unwrap();
    fs::write(suite.join("suite.toml"), "tasks = [\"tasks/*\"]\nk = 1\n").unwrap();
    fs::write(suite.join("gold/half.patch"), GOLD).unwrap();
    fs::write(
        suite.join("tasks/half/mend.toml"),
        format!(
            "[task]\nprompt = \"half(8) must be 4.\"\n\n[paths]\nreadable = [\"**\"]\neditable = [\"calc.py\"]\n\n[test]\ncommand = [\"python\", \"-m\", \"pytest\", \"-q\"]\ntimeout_seconds = 60\nfiles = [\"tests/*.py\"]\nplugins = false\nfail_to_pass = [\"tests/test_calc.py::test_half\"]\npass_to_pass = [\"tests/test_calc.py::test_double\"]\n\n[tools]\nenabled = [\"read_file\", \"replace_text\", \"run_tests\"]\n\n[environment]\nimage = \"{image}\"\nworkdir = \"/testbed\"\n"
        ),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    let pulled = pull(&cache, &image);
    assert_eq!(pulled.code, 0, "{}", pulled.stderr);
    let root = names_in(&cache)
        .into_iter()
        .find(|name| name.starts_with("sha256-"))
        .unwrap();
    let testbed = cache.join(root).join("rootfs/testbed");
    let before = tree_digest(&testbed);
    let suite_file = suite.join("suite.toml");
    let outcome = mend_images(
        &cache,
        &["eval", "check", suite_file.to_str().unwrap()],
        &[],
    );
    assert_eq!(outcome.code, 0, "{}\n{}", outcome.stdout, outcome.stderr);
    let check: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(suite.join("suite.check.json")).unwrap()).unwrap();
    let task = &check["tasks"][0];
    assert_eq!(
        serde_json::json!([
            task["task"],
            task["status"],
            task["problems"],
            task["failing_before"]
        ]),
        serde_json::json!(["half", "valid", [], ["tests/test_calc.py::test_half"]]),
        "{check}"
    );
    // The image's repository is copied, never written.
    assert_eq!(tree_digest(&testbed), before);
    assert_eq!(names_in(&suite.join("tasks/half")), ["mend.toml"]);
}
