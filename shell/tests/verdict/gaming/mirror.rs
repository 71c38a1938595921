//! The code under test writes bytecode where `sys.pycache_prefix` says Python looks for that of
//! the copy's test files: mend's bytecode mirror. Under bubblewrap the mirror is read-only and
//! the write fails; without a sandbox the run that wrote there cannot count, whether the bytecode
//! stayed or was removed again once the test modules were read.

use super::game::{assert_not_a_pass, play, Moves, Named, Project, TaskFile, TAX_TEST};

const TOTALS: &str = "invoice/totals.py";
const TOTALS_IMPORTS: &str = "from invoice.lines import Line\n";

/// Python that writes bytecode for the tax tests into the mirror as the module is imported, and
/// removes it again when `undo`.
fn planting(undo: bool) -> String {
    let removal = if undo {
        "    _shutil.rmtree(_at)\n"
    } else {
        ""
    };
    format!(
        "{TOTALS_IMPORTS}
import pathlib as _pathlib
import shutil as _shutil
import sys as _sys

_tests = _pathlib.Path(__file__).resolve().parent.parent / \"tests\"
try:
    _at = _pathlib.Path(_sys.pycache_prefix, *_tests.parts[1:])
    _at.mkdir(parents=True, exist_ok=True)
    (_at / f\"test_totals.{{_sys.implementation.cache_tag}}.pyc\").write_bytes(b\"planted\")
{removal}except (OSError, TypeError):
    pass
"
    )
}

fn game(sandbox: &str, undo: bool) {
    let moves = Moves::new()
        .replace(TOTALS, TOTALS_IMPORTS, &planting(undo))
        .run_tests();
    let played = play(Project::Invoice, TaskFile::Init, sandbox, moves);
    if sandbox == "none" {
        // Left, it is named by what it holds in the copy's place; removed, by the copy.
        let written = if undo {
            "(written and removed again)"
        } else {
            "where Python looks for the bytecode of the copy's sources: /"
        };
        assert_not_a_pass(
            &played,
            &[Named::Reached(&[
                "the tests wrote into mend's bytecode mirror",
                written,
            ])],
        );
    } else {
        assert_not_a_pass(&played, &[Named::Ids(&[TAX_TEST])]);
    }
}

fn bytecode_left_in_the_mirror(sandbox: &str) {
    game(sandbox, false);
}

fn bytecode_written_into_the_mirror_and_removed(sandbox: &str) {
    game(sandbox, true);
}

in_both_sandboxes! {
    bytecode_left_in_the_mirror,
    bytecode_written_into_the_mirror_and_removed,
}
