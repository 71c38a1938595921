//! The code under test writes through a folder the copy shares with the original instead of
//! copying: a `.pth` in the project's own venv, which every later Python process there runs at
//! start, before pytest and mend's witness. Under bubblewrap the folder is read-only and the write
//! fails; without a sandbox it reaches the original, and the verdict names it.

use super::game::{
    assert_not_a_pass, play_with, Moves, Named, Project, TaskFile, TAX_TEST, VENV_PACKAGES,
};

const TOTALS: &str = "invoice/totals.py";
const TOTALS_IMPORTS: &str = "from invoice.lines import Line\n";

fn pth_written_into_the_projects_venv(sandbox: &str) {
    let plant = format!(
        "{TOTALS_IMPORTS}
import pathlib as _pathlib

_packages = _pathlib.Path(__file__).resolve().parent.parent / {VENV_PACKAGES:?}
try:
    (_packages / \"invoice_speedups.pth\").write_text(\"import os\\n\")
except OSError:
    pass
"
    );
    let moves = Moves::new()
        .replace(TOTALS, TOTALS_IMPORTS, &plant)
        .run_tests();
    let played = play_with(
        Project::Invoice,
        TaskFile::Init,
        sandbox,
        moves,
        true,
        &|_| {},
    );
    let planted = played
        .repo
        .path()
        .join(VENV_PACKAGES)
        .join("invoice_speedups.pth");
    if sandbox == "none" {
        let entry = format!("{VENV_PACKAGES}/invoice_speedups.pth");
        assert_not_a_pass(
            &played,
            &[Named::Reached(&[
                "the tests wrote into the original repository, in a folder mend shares instead of copying",
                entry.as_str(),
            ])],
        );
        assert!(planted.exists(), "the write went through to the original");
    } else {
        assert_not_a_pass(&played, &[Named::Ids(&[TAX_TEST])]);
        assert!(
            !planted.exists(),
            "the shared venv is read-only in the sandbox"
        );
    }
}

in_both_sandboxes! {
    pth_written_into_the_projects_venv,
}
