//! Parametrized ids with spaces, listed as SWE-bench's rows list them (fixtures/projects/labels):
//! cut at the first space by the harness's pytest parser, two tests sharing one cut id. `mend
//! verify` grades the lists as the harness would, and shows each cut id beside the whole ids it
//! stood for.

use crate::common::{copy_of, mend, repo_root};

/// The exit code and the verdict's lines about the given lists.
fn graded(patch: Option<&str>) -> (i32, Vec<String>) {
    let dir = copy_of(&repo_root().join("fixtures/projects/labels"));
    let repo = dir.path().to_str().unwrap().to_owned();
    let mut args = vec!["verify", "--sandbox", "bwrap", "--repo", repo.as_str()];
    let patch_path = patch.map(|name| dir.path().join(name).to_str().unwrap().to_owned());
    if let Some(path) = &patch_path {
        args.extend(["--patch", path.as_str()]);
    }
    let outcome = mend(&args);
    let lines = outcome
        .stdout
        .lines()
        .map(str::trim)
        .skip_while(|line| !line.starts_with("FAIL_TO_PASS:"))
        .take_while(|line| !line.starts_with("Time:"))
        .map(str::to_owned)
        .collect();
    (outcome.code, lines)
}

const AS_CUT: [&str; 3] = [
    "`tests/test_labels.py::test_humanize[employee_salary-Employee` as SWE-bench's parser spells it: tests/test_labels.py::test_humanize[employee_salary-Employee salary]",
    "`tests/test_labels.py::test_humanize[first_name-First` as SWE-bench's parser spells it: tests/test_labels.py::test_humanize[first_name-First name]",
    "`tests/test_labels.py::test_round_trip[Employee` as SWE-bench's parser spells it: tests/test_labels.py::test_round_trip[Employee name], tests/test_labels.py::test_round_trip[Employee salary]",
];

#[test]
fn ids_cut_at_a_space_and_a_shared_cut_id_are_graded_as_the_harness_grades_them() {
    let expected = |fail_to_pass: &str| {
        [fail_to_pass, "PASS_TO_PASS: 3 success, 0 failure"]
            .into_iter()
            .chain(AS_CUT)
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        graded(None),
        (1, expected("FAIL_TO_PASS: 0 success, 1 failure"))
    );
    assert_eq!(
        graded(Some("gold.patch")),
        (0, expected("FAIL_TO_PASS: 1 success, 0 failure"))
    );
}
