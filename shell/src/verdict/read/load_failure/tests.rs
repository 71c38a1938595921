use camino::Utf8Path;

use super::{load_failure, LoadFailure, Loaded, PASS_THROUGH};
use crate::verdict::read::test_run::witness_body;

const ROOT: &str = "/tmp/mend-copy";

fn read(output: &str) -> Option<LoadFailure> {
    load_failure(output, Utf8Path::new(ROOT))
}

fn conftest(file: &str, error: &str) -> Option<LoadFailure> {
    Some(LoadFailure {
        what: Loaded::Conftest(file.to_owned()),
        error: error.to_owned(),
    })
}

#[test]
fn a_conftest_that_raises_on_import_is_named_with_pytests_error_line() {
    let missing_module = "ImportError while loading conftest '/tmp/mend-copy/tests/conftest.py'.\n\
        tests/conftest.py:3: in <module>\n    from helpers import make_user\n\
        E   ModuleNotFoundError: No module named 'helpers'\n";
    let syntax = "ImportError while loading conftest '/tmp/mend-copy/conftest.py'.\n\
        /usr/lib/python3.12/ast.py:52: in parse\n    return compile(source, filename, mode)\n\
        E     File \"/tmp/mend-copy/conftest.py\", line 7\n\
        E       def fixture(:\n\
        E                   ^\n\
        E   SyntaxError: invalid syntax\n";
    // Outside the copy the path is kept as printed.
    let elsewhere = "ImportError while loading conftest '/srv/shared/conftest.py'.\n\
        E   NameError: name 'fixture' is not defined\n";
    assert_eq!(
        [read(missing_module), read(syntax), read(elsewhere)],
        [
            conftest(
                "tests/conftest.py",
                "ModuleNotFoundError: No module named 'helpers'"
            ),
            conftest("conftest.py", "SyntaxError: invalid syntax"),
            conftest(
                "/srv/shared/conftest.py",
                "NameError: name 'fixture' is not defined"
            ),
        ]
    );
}

#[test]
fn a_conftest_that_fails_while_collecting_is_named() {
    let output =
        "\n==================================== ERRORS ====================================\n\
        ___________________________ ERROR collecting api/v2 ____________________________\n\
        .venv/lib/python3.12/site-packages/_pytest/python.py:493: in importtestmodule\n    ???\n\
        api/v2/conftest.py:12: in <module>\n    settings.configure()\n\
        E   RuntimeError: settings already configured\n\
        =========================== short test summary info ============================\n\
        ERROR api/v2 - RuntimeError: settings already configured\n";
    // A test module failing at import is a collection error, but no conftest's.
    let test_module = "_____ ERROR collecting tests/test_x.py _____\n\
        tests/test_x.py:1: in <module>\n    import nope\nE   ModuleNotFoundError: No module named 'nope'\n";
    assert_eq!(
        [read(output), read(test_module)],
        [
            conftest(
                "api/v2/conftest.py",
                "RuntimeError: settings already configured"
            ),
            None
        ]
    );
}

#[test]
fn a_hook_a_newer_pluggy_refuses_names_its_plugin_and_the_reason() {
    let conftest_hook = "Traceback (most recent call last):\n\
        \x20 File \"/venv/lib/python3.12/site-packages/pluggy/_manager.py\", line 374, in _verify_hook\n\
        \x20   raise PluginValidationError(\n\
        pluggy._manager.PluginValidationError: Plugin '/tmp/mend-copy/tests/conftest.py' for hook 'pytest_runtest_call'\n\
        hookimpl definition: pytest_runtest_call(item)\n\
        The wrapper=True and hookwrapper=True options are mutually exclusive\n";
    let unknown_hook = "INTERNALERROR>   File \"/venv/lib/python3.12/site-packages/pluggy/_manager.py\", line 391\n\
        INTERNALERROR> pluggy._manager.PluginValidationError: unknown hook 'pytest_old_hook' in plugin <module 'conftest' from '/tmp/mend-copy/conftest.py'>\n\n\
        no tests ran in 0.03s\n";
    let installed =
        "pluggy._manager.PluginValidationError: Plugin 'timeout' for hook 'pytest_configure'\n\
        hookimpl definition: pytest_configure(config, extra)\n\
        Argument(s) {'extra'} are declared in the hookimpl but can not be found in the hookspec\n";
    assert_eq!(
        [read(conftest_hook), read(unknown_hook), read(installed)],
        [
            conftest(
                "tests/conftest.py",
                "PluginValidationError: Plugin '/tmp/mend-copy/tests/conftest.py' for hook 'pytest_runtest_call': The wrapper=True and hookwrapper=True options are mutually exclusive"
            ),
            conftest(
                "conftest.py",
                "PluginValidationError: unknown hook 'pytest_old_hook' in plugin <module 'conftest' from '/tmp/mend-copy/conftest.py'>"
            ),
            Some(LoadFailure {
                what: Loaded::Plugin("timeout".to_owned()),
                error: "PluginValidationError: Plugin 'timeout' for hook 'pytest_configure': Argument(s) {'extra'} are declared in the hookimpl but can not be found in the hookspec".to_owned(),
            }),
        ]
    );
}

#[test]
fn a_plugin_that_cannot_be_imported_and_a_crash_at_start_are_told_apart() {
    let plugin = "  File \"/venv/lib/python3.12/site-packages/_pytest/config/__init__.py\", line 858, in import_plugin\n\
        \x20   __import__(importspec)\n\
        ImportError: Error importing plugin \"xdist_compat\": No module named 'xdist_compat'\n";
    let crash = "Traceback (most recent call last):\n\
        \x20 File \"/venv/lib/python3.12/site-packages/_pytest/config/__init__.py\", line 156, in main\n\
        \x20   config = _prepareconfig(args, plugins)\n\
        AttributeError: module 'py' has no attribute 'path'\n";
    // No pytest at all, and a plain failing run: no load failure to name.
    let no_pytest = "/usr/bin/python3: No module named pytest\n";
    let failing = "F.\n=== FAILURES ===\nE   assert 1 == 2\n1 failed, 1 passed in 0.02s\n";
    assert_eq!(
        [read(plugin), read(crash), read(no_pytest), read(failing)],
        [
            Some(LoadFailure {
                what: Loaded::Plugin("xdist_compat".to_owned()),
                error: "No module named 'xdist_compat'".to_owned(),
            }),
            Some(LoadFailure {
                what: Loaded::Startup,
                error: "AttributeError: module 'py' has no attribute 'path'".to_owned(),
            }),
            None,
            None,
        ]
    );
}

fn witness(place: &str, error: &str) -> Option<LoadFailure> {
    Some(LoadFailure {
        what: Loaded::Witness {
            runner: None,
            place: Some(place.to_owned()),
        },
        error: error.to_owned(),
    })
}

#[test]
fn mend_s_own_witness_failing_is_told_apart_from_the_projects_setup() {
    // As pytest prints a `-p` plugin that raised while imported.
    let at_import = "Error while loading plugin \"mend_witness\".\n\
        /venv/lib/python3.12/site-packages/_pytest/config/__init__.py:844: in import_plugin\n    __import__(importspec)\n\
        ../mend-report-oyEsdN/mend_witness.py:780: in _install\n    ???\n\
        ../mend-report-oyEsdN/mend_witness.py:314: in _watched_holders\n    ???\n\
        E   ModuleNotFoundError: No module named '_pytest.python_api'\n";
    // A hook of the witness failing while the tests are collected: pytest's internal error.
    let in_a_hook = "INTERNALERROR> Traceback (most recent call last):\n\
        INTERNALERROR>   File \"/venv/lib/python3.9/site-packages/_pytest/main.py\", line 269, in wrap_session\n\
        INTERNALERROR>     session.exitstatus = doit(config, session) or 0\n\
        INTERNALERROR>   File \"/tmp/mend-report-x/mend_witness.py\", line 562, in place\n\
        INTERNALERROR>     ???\n\
        INTERNALERROR> AttributeError: 'Module' object has no attribute 'path'\n";
    // The project's conftest.py failing in a hook called after the witness's: the project's.
    let projects = "INTERNALERROR> Traceback (most recent call last):\n\
        INTERNALERROR>   File \"/tmp/mend-report-x/mend_witness.py\", line 700, in pytest_collection_modifyitems\n\
        INTERNALERROR>   File \"/venv/lib/python3.9/site-packages/pluggy/_callers.py\", line 39, in _multicall\n\
        INTERNALERROR>   File \"/tmp/mend-copy/conftest.py\", line 4, in pytest_collection_modifyitems\n\
        INTERNALERROR>     raise RuntimeError('no')\n\
        INTERNALERROR> RuntimeError: no\n";
    assert_eq!(
        [read(at_import), read(in_a_hook), read(projects)],
        [
            witness(
                "_watched_holders, line 314",
                "ModuleNotFoundError: No module named '_pytest.python_api'"
            ),
            witness(
                "place, line 562",
                "AttributeError: 'Module' object has no attribute 'path'"
            ),
            Some(LoadFailure {
                what: Loaded::Startup,
                error: "RuntimeError: no".to_owned(),
            }),
        ]
    );
    assert_eq!(
        LoadFailure {
            what: Loaded::Witness {
                runner: Some(Box::new(crate::verdict::read::runner::Runner {
                    pytest: "9.3.0".to_owned(),
                    pluggy: "1.8.0".to_owned(),
                    python: "3.13.0".to_owned(),
                })),
                place: Some("_watched_holders, line 314".to_owned()),
            },
            error: "ModuleNotFoundError: No module named '_pytest.approx'".to_owned(),
        }
        .describe(),
        "mend's pytest witness could not run under pytest 9.3.0, pluggy 1.8.0, Python 3.13.0: ModuleNotFoundError: No module named '_pytest.approx' (in _watched_holders, line 314)"
    );
}

#[test]
fn what_a_stand_in_of_the_witness_passes_on_is_its_callers() {
    // Before Python 3.8 the witness stands in for `compile`, `marshal.loads` and the like, so
    // its frame is the innermost outside pytest when pytest compiles a test module with a
    // syntax error (pytest 7.4.4, Python 3.7.16)...
    let syntax_error = "____________________ ERROR collecting tests/test_render.py _____________________\n\
        /venv/lib/python3.7/site-packages/_pytest/python.py:617: in _importtestmodule\n    mod = import_path(self.path, mode=importmode, root=self.config.rootpath)\n\
        <frozen importlib._bootstrap>:677: in _load_unlocked\n    ???\n\
        /venv/lib/python3.7/site-packages/_pytest/assertion/rewrite.py:359: in _rewrite_test\n    tree = ast.parse(source, filename=strfn)\n\
        /usr/lib/python3.7/ast.py:35: in parse\n    return compile(source, filename, mode, PyCF_ONLY_AST)\n\
        ../mend-report-x/mend_witness.py:634: in watching\n    ???\n\
        E     File \"/tmp/mend-copy/tests/test_render.py\", line 10\n\
        E       def broken(:\n\
        E                  ^\n\
        E   SyntaxError: invalid syntax\n";
    // ... or when the project imports bytecode marshal cannot read (pytest 6.2.5, Python 3.6.15).
    let bad_bytecode =
        "_____________________ ERROR collecting tests/test_lines.py _____________________\n\
        tests/test_lines.py:3: in <module>\n    from invoice import Line\n\
        ../mend-report-x/mend_witness.py:634: in watching\n    ???\n\
        invoice/_launder.py:13: in <module>\n    import _speed\n\
        <frozen importlib._bootstrap_external>:487: in _compile_bytecode\n    ???\n\
        ../mend-report-x/mend_witness.py:634: in watching\n    ???\n\
        E   ValueError: bad marshal data (unknown type code)\n";
    // The same error in one of the witness's own functions is still the witness's.
    let witness_s = bad_bytecode.replace(
        "634: in watching\n    ???\nE",
        "640: in _stand_ins\n    ???\nE",
    );
    // The names passed over are the witness's stand-ins' own.
    let body = witness_body();
    let missing: Vec<&str> = PASS_THROUGH
        .iter()
        .copied()
        .filter(|function| !body.contains(&format!("def {function}(")))
        .collect();
    assert_eq!(missing, Vec::<&str>::new());
    assert_eq!(
        [read(syntax_error), read(bad_bytecode), read(&witness_s)],
        [
            None,
            None,
            witness(
                "_stand_ins, line 640",
                "ValueError: bad marshal data (unknown type code)"
            ),
        ]
    );
}

#[test]
fn a_plugin_that_raises_at_import_and_a_half_installed_pytest_are_named() {
    let raised = "Error while loading plugin \"boomplugin\".\n\
        boomplugin.py:1: in <module>\n    raise RuntimeError(\"boom at import\")\n\
        E   RuntimeError: boom at import\n";
    let half_installed = "Traceback (most recent call last):\n\
        \x20 File \"<frozen runpy>\", line 148, in _get_module_details\n\
        \x20 File \"/venv/lib/python3.11/site-packages/pytest/__init__.py\", line 6, in <module>\n\
        \x20   from _pytest import __version__\n\
        ModuleNotFoundError: No module named '_pytest'\n";
    // A test module's own missing import is the project's, however pytest got there.
    let projects = "Traceback (most recent call last):\n\
        \x20 File \"/venv/lib/python3.11/site-packages/_pytest/config/__init__.py\", line 1, in main\n\
        ModuleNotFoundError: No module named 'requests'\n";
    assert_eq!(
        [read(raised), read(half_installed), read(projects)],
        [
            Some(LoadFailure {
                what: Loaded::Plugin("boomplugin".to_owned()),
                error: "RuntimeError: boom at import".to_owned(),
            }),
            Some(LoadFailure {
                what: Loaded::Pytest,
                error: "ModuleNotFoundError: No module named '_pytest'".to_owned(),
            }),
            Some(LoadFailure {
                what: Loaded::Startup,
                error: "ModuleNotFoundError: No module named 'requests'".to_owned(),
            }),
        ]
    );
}

#[test]
fn a_plugin_that_raises_is_to_be_fixed_or_left_out_and_one_missing_or_refused_installed() {
    let plugin = |name: &str, error: &str| LoadFailure {
        what: Loaded::Plugin(name.to_owned()),
        error: error.to_owned(),
    };
    let install = |name: &str| {
        format!("install `{name}` for `/venv/bin/python`, or use a pytest version the plugin supports (test.plugins = false keeps installed plugins out)")
    };
    let python = Utf8Path::new("/venv/bin/python");
    assert_eq!(
        [
            plugin("boomplugin", "RuntimeError: boom at import").fix(python),
            // Its own missing import: there, and failing.
            plugin("ours.plugin", "ModuleNotFoundError: No module named 'requests'").fix(python),
            plugin("xdist_compat", "No module named 'xdist_compat'").fix(python),
            plugin("ours.plugin", "ModuleNotFoundError: No module named 'ours'").fix(python),
            plugin("timeout", "PluginValidationError: Plugin 'timeout' for hook 'pytest_configure'").fix(python),
        ],
        [
            "the plugin `boomplugin` is there but fails as it loads (its error is below): fix it, or leave it out of the tests (`-p boomplugin` in test.command or addopts, PYTEST_PLUGINS in test.env, `pytest_plugins` in a conftest.py; test.plugins = false keeps installed plugins out)".to_owned(),
            "the plugin `ours.plugin` is there but fails as it loads (its error is below): fix it, or leave it out of the tests (`-p ours.plugin` in test.command or addopts, PYTEST_PLUGINS in test.env, `pytest_plugins` in a conftest.py; test.plugins = false keeps installed plugins out)".to_owned(),
            install("xdist_compat"),
            install("ours.plugin"),
            install("timeout"),
        ]
    );
}
