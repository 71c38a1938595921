//! The witness, loaded by a real interpreter, keeps its state where the code under test cannot
//! reach it: the module holds nothing but its pytest hooks, no function of the witness reads a
//! name from the module's globals, and nothing those hooks hold (closures, defaults, what those
//! hold in turn) leads to the witness's channel or checks, which only its audit hook holds.

use std::io::Read;
use std::os::unix::net::UnixListener;
use std::process::Command;

use serde_json::{json, Value};

use crate::test_support::python;
use crate::verdict::read::test_run::witness_body;
use crate::verdict::read::witness_code::{WITNESS_BODY_FILE, WITNESS_LOADER};

/// Imports the witness from `folder` (with its socket set) and prints, as JSON, the names the
/// module keeps and every global name a function of the witness reads that is no builtin.
const INSPECT: &str = r#"
import builtins, dis, json, os, sys, types
sys.path.insert(0, sys.argv[1])
import pytest  # what pytest has imported before it loads a -p plugin
import mend_witness as witness
own_file = witness.__file__
kept = sorted(name for name in vars(witness) if not name.startswith("__"))

def codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from codes(const)

def reached(roots):
    """The witness's functions (by name, and their code) and the kinds of everything else
    `roots` lead to."""
    seen, stack = set(), list(roots)
    functions, held, code_of = set(), set(), []
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, (dict, list, tuple, set, frozenset)):
            held.add(type(value).__name__)
            stack.extend(value.values() if isinstance(value, dict) else value)
            continue
        if isinstance(value, type):
            if value.__module__ == witness.__name__:
                stack.extend(vars(value).values())
            held.add("class")
            continue
        function = getattr(value, "__func__", value)
        code = getattr(function, "__code__", None)
        if code is None or code.co_filename != own_file:
            held.add(type(value).__name__)
            continue
        functions.add(code.co_name)
        code_of.append(code)
        stack.extend(function.__defaults__ or ())
        stack.extend((function.__kwdefaults__ or {}).values())
        for cell in function.__closure__ or ():
            try:
                stack.append(cell.cell_contents)
            except ValueError:
                pass
    return functions, held, code_of

# The witness's finder on `sys.meta_path` (there until Hypothesis's settings are imported) and
# what it leads to: none of the core's functions, no socket, hash or lock.
core = {"send", "hold", "sealed", "write", "as_json", "alarm", "tell", "check", "check_all",
        "check_hot", "check_cold", "handed", "starting", "heard", "audit", "registered",
        "configured", "collected", "counted", "unchanged", "take"}
finder_functions, finder_held, _ = reached(
    [finder for finder in sys.meta_path
     if getattr(finder, "__module__", None) == witness.__name__])
from_finder = sorted((finder_functions & core) | (finder_held & {"socket", "HASH", "lock"}))
functions, held, code_of = reached([vars(witness)[name] for name in kept])
reads = [f"{inner.co_name}: {step.argval}"
         for code in code_of for inner in codes(code) for step in dis.get_instructions(inner)
         if step.opname == "LOAD_GLOBAL" and not hasattr(builtins, step.argval)]
# Before Python 3.8 there is no audit hook to keep the core: its hooks reach it (the verdict
# names that check as not made).
reach = {"functions": sorted(functions), "held": sorted(held),
         "finder": bool(finder_functions), "from_finder": from_finder} \
    if hasattr(sys, "addaudithook") else None
print(json.dumps({"kept": kept, "globals_read": sorted(reads), "reach": reach}))
"#;

#[test]
fn the_witness_keeps_only_its_hooks_and_reads_no_global_of_its_module() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path();
    // As mend writes it: the loader pytest imports, and the witness's code beside it.
    std::fs::write(folder.join("mend_witness.py"), WITNESS_LOADER).unwrap();
    std::fs::write(folder.join(WITNESS_BODY_FILE), witness_body()).unwrap();
    let socket = folder.join("witness.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    let heard = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut text = String::new();
        let _ = stream.read_to_string(&mut text);
        text
    });
    let output = Command::new(python())
        .args(["-c", INSPECT])
        .arg(folder)
        .env("MEND_WITNESS", &socket)
        .env("MEND_WITNESS_COPY", folder)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let got: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        got,
        json!({
            "kept": [
                "pytest_collection_finish", "pytest_collection_modifyitems",
                "pytest_collectreport", "pytest_configure", "pytest_configure_node",
                "pytest_plugin_registered", "pytest_runtest_logreport",
                "pytest_runtest_logstart",
                "pytest_runtest_makereport", "pytest_sessionfinish", "pytest_sessionstart",
                "pytest_xdist_node_collection_finished",
            ],
            "globals_read": [],
            // What pytest holds of the witness reaches nothing but its hooks, `sys.audit` (the
            // core's door, bound as a default), the hand-overs' key (a bare `object`, bound the
            // same way) and the report hook's one-slot list (the last test whose call was
            // reported): no socket, channel key, count or check of the witness's. (The canaries' terminal hook is a plugin of its own, registered only
            // while they run.)
            "reach": if got["reach"].is_null() && !has_audit_hooks() {
                Value::Null
            } else {
                json!({
                    "functions": [
                        "pytest_collection_finish",
                        "pytest_collection_modifyitems", "pytest_collectreport",
                        "pytest_configure", "pytest_configure_node", "pytest_plugin_registered",
                        "pytest_runtest_logreport", "pytest_runtest_logstart",
                        "pytest_runtest_makereport",
                        "pytest_sessionfinish", "pytest_sessionstart",
                        "pytest_xdist_node_collection_finished",
                    ],
                    "held": ["NoneType", "builtin_function_or_method", "list", "object"],
                    "finder": true,
                    "from_finder": [],
                })
            },
        })
    );
    // It spoke first with its key, as mend expects.
    assert!(heard
        .join()
        .unwrap()
        .starts_with(r#"{"event": "start", "key": ""#));
}

/// Whether the interpreter the tests run has audit hooks (Python 3.8 and later).
fn has_audit_hooks() -> bool {
    Command::new(python())
        .args([
            "-c",
            "import sys; sys.exit(0 if hasattr(sys, 'addaudithook') else 1)",
        ])
        .status()
        .is_ok_and(|status| status.success())
}

/// Prints, as JSON, each function made inside another (`outer.inner: NAME`) that reads a global
/// name no builtin answers: the witness's core is out of the hooks' reach, so the walk above
/// never meets it, and the module's globals are gone once it loads.
const NESTED_GLOBALS: &str = r#"
import builtins, dis, json, sys, types
body = compile(open(sys.argv[1]).read(), "mend_witness.body", "exec")

def nested(code, depth):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const, depth + 1
            yield from nested(const, depth + 1)

reads = sorted({f"{code.co_name}: {step.argval}" for code, depth in nested(body, 0) if depth >= 2
                for step in dis.get_instructions(code)
                if step.opname == "LOAD_GLOBAL" and not hasattr(builtins, step.argval)})
print(json.dumps(reads))
"#;

#[test]
fn no_function_made_inside_another_reads_a_global_of_the_witness() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join(WITNESS_BODY_FILE);
    std::fs::write(&body, witness_body()).unwrap();
    let output = Command::new(python())
        .args(["-c", NESTED_GLOBALS])
        .arg(&body)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reads: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(reads, json!([]));
}
