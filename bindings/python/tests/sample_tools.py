"""The sample task's three tools in plain Python, on a directory: what a lab-loop agent would
have. Refusals raise ValueError (the model gets {"error": ...}); run_tests runs the real pytest."""

import os
import subprocess
import sys
from pathlib import Path

READABLE = ("path_rules.py", "tests/test_path_rules.py")
EDITABLE = "path_rules.py"
OUTPUT_TAIL_CHARS = 4000

SCHEMAS = [
    {"type": "function", "function": {
        "name": "read_file",
        "description": "Read one file of the repository. Only path_rules.py and tests/test_path_rules.py can be read.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "path_rules.py or tests/test_path_rules.py"}},
                       "required": ["path"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "replace_text",
        "description": "Replace one exact occurrence of `old` with `new` in path_rules.py. `old` must occur exactly once.",
        "parameters": {"type": "object", "properties": {
            "new": {"type": "string", "description": "the replacement text"},
            "old": {"type": "string", "description": "the exact text to replace, copied from the file"}},
            "required": ["old", "new"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "run_tests",
        "description": "Run the repository's test suite (python -m pytest -q) and return the exit code and the output.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}},
]


class SampleTools:
    schemas = SCHEMAS

    def __init__(self, root):
        self.root = Path(root)

    def invoke(self, name, arguments):
        if name == "read_file":
            path = arguments["path"]
            if path not in READABLE:
                raise ValueError(f"{path} cannot be read; readable: {', '.join(READABLE)}")
            return {"path": path, "text": (self.root / path).read_text()}
        if name == "replace_text":
            target = self.root / EDITABLE
            text = target.read_text()
            count = text.count(arguments["old"]) if arguments["old"] else 0
            if count != 1:
                raise ValueError(f"`old` occurs {count} times in {EDITABLE}; read the file again")
            target.write_text(text.replace(arguments["old"], arguments["new"], 1))
            return {"path": EDITABLE, "replaced": 1}
        if name == "run_tests":
            return run_pytest(self.root)
        raise ValueError(f"unknown tool {name}")


def run_pytest(root):
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root, env=env, capture_output=True, text=True, timeout=15,
    )
    return {"exit_code": done.returncode, "output": (done.stdout + done.stderr)[-OUTPUT_TAIL_CHARS:]}
