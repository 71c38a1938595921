//! The version CPython keeps in each dictionary lets the checks as each test starts skip
//! comparing what nothing wrote to. That is sound only if every write a test can make to a
//! class or a module changes it, and nothing else does: each such write, made on the Python the
//! tests run with (every line of the witness matrix), is seen.

use std::process::Command;

use serde_json::{json, Value};

use crate::test_support::python;

const HOLDERS: &str = include_str!("body/holders.py");

/// Takes a snapshot of a class and a module, makes one change, and prints whether the snapshot
/// still says unchanged, for each change (reads, and every way to write to either), with the
/// versions and without them.
const PROBE: &str = r#"
import json, sys, types
exec(sys.stdin.read())
versions = _dict_versions()
take, unchanged, _ = _snapshots()

def fresh():
    class Held:
        def method(self):
            return 1
    module = types.ModuleType("held")
    module.function = lambda: 1
    return Held, module

def after(change):
    Held, module = fresh()
    taken = take((vars(Held), vars(module)))
    change(Held, module)
    return unchanged(taken)

changes = {
    "nothing": lambda c, m: None,
    "reads": lambda c, m: (getattr(c, "method"), vars(c).get("method"), m.function,
                           dict(vars(m)), list(vars(c).items())),
    "class attribute set": lambda c, m: setattr(c, "method", lambda self: 2),
    "class attribute set to itself": lambda c, m: setattr(c, "method", vars(c)["method"]),
    "class attribute deleted and set again": lambda c, m: (
        delattr(c, "method"), setattr(c, "method", lambda self: 2)),
    "module attribute set": lambda c, m: setattr(m, "function", None),
    "module dictionary written": lambda c, m: vars(m).__setitem__("function", None),
    "module dictionary updated": lambda c, m: vars(m).update(function=None),
    "module name popped and the value put under another": lambda c, m: vars(m).__setitem__(
        "renamed", vars(m).pop("function")),
    "module global written by its own code": lambda c, m: exec("function = None", vars(m)),
}
with_versions = {name: after(change) for name, change in changes.items()}
_dict_versions = lambda: None  # the entries compared every time, as on a Python without them
take, unchanged, _ = _snapshots()
print(json.dumps({"versions": versions is not None, "unchanged": with_versions,
                  "unchanged without versions": {name: after(change)
                                                 for name, change in changes.items()}}))
"#;

#[test]
fn every_write_to_a_class_or_module_is_seen_and_reads_are_not() {
    let mut child = Command::new(python())
        .args(["-c", PROBE])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), HOLDERS.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let found: Value = serde_json::from_slice(&output.stdout).unwrap();
    // CPython 3.6 to 3.13 keep the version: the checks use it on every line tested here. (A
    // write that puts back the very value there is no change: the snapshot still holds.)
    let unchanged = json!({
                "nothing": true,
                "reads": true,
                "class attribute set": false,
                "class attribute set to itself": true,
                "class attribute deleted and set again": false,
                "module attribute set": false,
                "module dictionary written": false,
                "module dictionary updated": false,
                "module name popped and the value put under another": false,
                "module global written by its own code": false,
    });
    assert_eq!(
        found,
        json!({
            "versions": true,
            "unchanged": unchanged,
            "unchanged without versions": unchanged,
        })
    );
}
