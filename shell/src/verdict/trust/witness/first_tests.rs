//! The copy's files the witness finds among the modules loaded, read without running any
//! module's code: a module class whose `__dict__` is a property that loads it whole (the `py`
//! library's lazy `apipkg` modules) is read from its own dictionary, and loads nothing.

use std::process::Command;

use serde_json::{json, Value};

use crate::test_support::python;

const FIRST: &str = include_str!("body/first.py");

/// Puts a lazy module of the copy and a stand-in that is no module into `sys.modules`, and
/// prints what `_loaded_first` finds and whether the lazy module was loaded.
const PROBE: &str = r#"
import json, os, sys, tempfile, types
exec(sys.stdin.read())
copy = tempfile.mkdtemp()

class Lazy(types.ModuleType):
    loaded = False

    @property
    def __dict__(self):
        Lazy.loaded = True
        raise RuntimeError("loaded whole")

lazy = Lazy("lazy_of_the_copy")
types.ModuleType.__dict__["__dict__"].__get__(lazy)["__file__"] = os.path.join(copy, "lazy.py")
sys.modules["lazy_of_the_copy"] = lazy
sys.modules["not_a_module"] = object()
found = _loaded_first(copy, "/elsewhere/mend_witness.py")
print(json.dumps({"found": sorted(found), "loaded": Lazy.loaded}))
"#;

#[test]
fn the_copys_modules_are_found_without_loading_a_lazy_one() {
    let output = Command::new(python())
        .args(["-c", PROBE])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(FIRST.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let got: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(got, json!({"found": ["lazy.py"], "loaded": false}));
}
