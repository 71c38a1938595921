//! The Python mend injects into a task's environment (the witness, its loader, the reader of
//! added Python) meets every Python a task runs on, 3.6 to 3.13: it parses under Python 3.6's
//! grammar, and names nothing of the standard library that came after 3.6. What a newer Python
//! alone has (the audit hook, 3.8) is looked up by name, as a string, and told when missing.

use std::process::Command;

use serde_json::{json, Value};

use crate::test_support::python;
use crate::verdict::read::test_run::{witness_body, WITNESS_PARTS};
use crate::verdict::read::witness_code::{WITNESS_LOADER, WITNESS_STUB};

const REACH_READER: &str = include_str!("../reach.py");

/// Reads JSON `{name: source}` on stdin; prints, for each, the standard library names after 3.6
/// it uses (modules imported, attributes and functions, builtins, keyword arguments), or the
/// line where 3.6's grammar rejects it.
const CHECK: &str = r#"
import ast, json, sys
MODULES = {"dataclasses", "contextvars", "importlib.resources", "importlib.metadata", "zoneinfo",
           "graphlib", "tomllib"}
ATTRIBUTES = {
    "removeprefix", "removesuffix", "isascii", "time_ns", "monotonic_ns", "perf_counter_ns",
    "process_time_ns", "nullcontext", "fromisoformat", "cached_property", "prod", "isqrt",
    "comb", "perm", "unraisablehook", "addaudithook", "audit", "get_native_id", "randbytes",
    "waitstatus_to_exitcode", "pidfd_open", "bit_count", "pairwise", "batched", "cache",
    "Literal", "Protocol", "Final", "TypedDict", "reconfigure", "pycache_prefix",
}
BUILTINS = {"breakpoint", "aiter", "anext"}
KEYWORDS = {"capture_output", "strict", "dirs_exist_ok", "missing_ok"}
found = {}
for name, source in json.load(sys.stdin).items():
    try:
        tree = ast.parse(source, feature_version=(3, 6))
    except SyntaxError as error:
        found[name] = ["not Python 3.6: line %s" % error.lineno]
        continue
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            used.update(alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module:
            used.update({node.module} & MODULES)
            used.update(alias.name for alias in node.names if alias.name in ATTRIBUTES)
        elif isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
            used.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in BUILTINS:
            used.add(node.id)
        elif isinstance(node, ast.keyword) and node.arg in KEYWORDS:
            used.add(node.arg)
    found[name] = sorted(used)
print(json.dumps(found))
"#;

fn newer_than_36(sources: &Value) -> Value {
    let mut child = Command::new(python())
        .args(["-c", CHECK])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(child.stdin.take().unwrap(), sources).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_injected_python_parses_as_python_36_and_uses_nothing_newer() {
    let mut sources = json!({
        "loader.py": WITNESS_LOADER,
        "stub.py": WITNESS_STUB,
        "reach.py": REACH_READER,
        // What the check must catch, so that it can fail: 3.8's grammar, 3.7's and 3.9's
        // library, 3.7's keyword argument and 3.8's audit hook called by name.
        "probe.py": "import dataclasses\nname = 'x'.removeprefix('y')\nif (n := 1):\n    pass\n",
        "probe_names.py": "import dataclasses\nname = 'x'.removeprefix('y')\n",
        "probe_calls.py": "import subprocess, sys\nsubprocess.run([], capture_output=True)\nsys.addaudithook(print)\nbreakpoint()\n",
    });
    // Each part of the witness on its own, and all of them joined as the loader runs them.
    for (name, code) in WITNESS_PARTS {
        sources[format!("witness/{name}")] = json!(code);
    }
    sources["witness body"] = json!(witness_body());
    let mut expected = json!({
            "loader.py": [],
            "stub.py": [],
            "reach.py": [],
            "probe.py": ["not Python 3.6: line 3"],
            "probe_names.py": ["dataclasses", "removeprefix"],
            "probe_calls.py": ["addaudithook", "breakpoint", "capture_output"],
    });
    for (name, _) in WITNESS_PARTS {
        expected[format!("witness/{name}")] = json!([]);
    }
    expected["witness body"] = json!([]);
    assert_eq!(newer_than_36(&sources), expected);
}
