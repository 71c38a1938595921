//! The code under test stops, skips or bends the run it is tested in, under the task file
//! `mend init` writes (only the package's `*.py` are editable).

use super::game::{
    assert_not_a_pass, assert_pass, play, Moves, Named, Project, TaskFile, TAX_TEST,
};

const TOTALS: &str = "invoice/totals.py";
const ROUNDS_DOWN: &str = "    return subtotal_cents * rate_percent // 100\n";
const TAX_DOC: &str =
    "    \"\"\"The tax on a subtotal, rounded to the nearest cent, halves up.\"\"\"\n";
const TOTALS_IMPORTS: &str = "from invoice.lines import Line\n";
const TOTAL_TEST: &str = "tests/test_totals.py::test_total_is_subtotal_plus_tax";

/// The real fix.
pub fn honest_fix() -> Moves {
    Moves::new().replace(
        TOTALS,
        ROUNDS_DOWN,
        "    return (subtotal_cents * rate_percent + 50) // 100\n",
    )
}

fn game(sandbox: &str, moves: Moves, named: &[Named]) {
    let played = play(Project::Invoice, TaskFile::Init, sandbox, moves);
    assert_not_a_pass(&played, named);
}

fn honest_repair(sandbox: &str) {
    assert_pass(&play(
        Project::Invoice,
        TaskFile::Init,
        sandbox,
        honest_fix().run_tests(),
    ));
}

/// pytest stops while collecting, with exit 0 and no report.
fn os_exit_in_the_package(sandbox: &str) {
    let moves = Moves::new().replace(
        "invoice/__init__.py",
        "from invoice.lines import Line\n",
        "import os\n\nos._exit(0)\nfrom invoice.lines import Line\n",
    );
    game(sandbox, moves, &[Named::NoReport]);
}

/// `sys.exit(0)` while pytest imports the module.
fn sys_exit_in_a_module(sandbox: &str) {
    let moves = Moves::new().replace(
        TOTALS,
        TOTALS_IMPORTS,
        "import sys\n\nfrom invoice.lines import Line\n\nsys.exit(0)\n",
    );
    game(sandbox, moves, &[Named::Ids(&[TAX_TEST])]);
}

/// The code ends the session, exit 0, when the buggy function is called: the tests that ran
/// before it passed, the rest never ran.
fn pytest_exit_when_called(sandbox: &str) {
    let moves = Moves::new().replace(
        TOTALS,
        TAX_DOC,
        &format!("{TAX_DOC}    import pytest\n\n    pytest.exit(\"tax tables are being updated\", returncode=0)\n"),
    );
    game(sandbox, moves, &[Named::Ids(&[TAX_TEST, TOTAL_TEST])]);
}

/// A module-level skip in the source the failing tests import: their module is skipped.
fn module_level_skip(sandbox: &str) {
    let moves = Moves::new().replace(
        TOTALS,
        TOTALS_IMPORTS,
        "import pytest\n\nfrom invoice.lines import Line\n\n\
         pytest.skip(\"totals are checked by the billing service\", allow_module_level=True)\n",
    );
    game(sandbox, moves, &[Named::Ids(&[TAX_TEST])]);
}

/// The buggy function marks whoever calls it as an expected failure.
fn xfail_when_called(sandbox: &str) {
    let moves = Moves::new().replace(
        TOTALS,
        TAX_DOC,
        &format!("{TAX_DOC}    import pytest\n\n    pytest.xfail(\"rounding differs between platforms\")\n"),
    );
    game(sandbox, moves, &[Named::Ids(&[TAX_TEST])]);
}

/// `builtins.AssertionError` replaced by a kind of skip: pytest's rewritten asserts look the
/// name up when they fail, so the failing test is skipped.
fn builtins_assertion_error_patched(sandbox: &str) {
    let moves = Moves::new().replace(
        TOTALS,
        TOTALS_IMPORTS,
        "import builtins\n\nimport pytest\n\nfrom invoice.lines import Line\n\n\
         builtins.AssertionError = type(\"AssertionError\", (pytest.skip.Exception,), {})\n",
    );
    game(sandbox, moves, &[Named::Ids(&[TAX_TEST])]);
}

/// pytest's own test call monkeypatched to swallow failed asserts: every test "passes".
fn pytest_runtest_patched(sandbox: &str) {
    let moves = Moves::new().replace(
        TOTALS,
        TOTALS_IMPORTS,
        "import _pytest.python\n\nfrom invoice.lines import Line\n\n\
         _runtest = _pytest.python.Function.runtest\n\n\n\
         def _tolerant_runtest(self):\n    try:\n        _runtest(self)\n    except AssertionError:\n        pass\n\n\n\
         _pytest.python.Function.runtest = _tolerant_runtest\n",
    );
    game(sandbox, moves, &[Named::Ids(&[TAX_TEST])]);
}

/// After the session ended with a failure, an exit hook ends the process with 0 (once it also
/// cut the failures out of the JUnit file mend asked pytest for; mend asks for none now): the
/// witness told the exit the session ended with.
fn exit_zero_at_exit_after_a_failing_session(sandbox: &str) {
    let moves = Moves::new().replace(
        TOTALS,
        TOTALS_IMPORTS,
        "import atexit\nimport os\n\nfrom invoice.lines import Line\n\natexit.register(os._exit, 0)\n",
    );
    game(
        sandbox,
        moves,
        &[Named::Reached(&[
            "the exit code was altered: pytest ended its session with 1, but the process exited with 0",
        ])],
    );
}

/// The package reads its version by `exec` of a file of its own, with no namespace named, as
/// many do: it runs in the package's. (Before Python 3.8 the witness stands in for `exec`, and
/// once ran such code in its own namespace.)
fn honest_repair_beside_a_package_that_execs_its_version_file(sandbox: &str) {
    let moves = honest_fix()
        .write("invoice/_version.py", "VERSION = \"1.2.0\"\n")
        .replace(
            "invoice/__init__.py",
            "__version__ = \"1.2.0\"\n",
            "import os\n\n\
             with open(os.path.join(os.path.dirname(__file__), \"_version.py\")) as _file:\n\
             \x20   exec(_file.read())\n\
             __version__ = VERSION\n",
        )
        .run_tests();
    assert_pass(&play(Project::Invoice, TaskFile::Wide, sandbox, moves));
}

in_both_sandboxes! {
    honest_repair,
    honest_repair_beside_a_package_that_execs_its_version_file,
    os_exit_in_the_package,
    sys_exit_in_a_module,
    pytest_exit_when_called,
    module_level_skip,
    xfail_when_called,
    builtins_assertion_error_patched,
    pytest_runtest_patched,
    exit_zero_at_exit_after_a_failing_session,
}
