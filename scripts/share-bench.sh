#!/bin/sh
# The BENCHMARKS.md rows of `mend verify` next to the same tests run in place, on projects whose
# installed dependencies are big: a Python project with a 1,200-file venv, and node projects
# with 6,000 and 60,000 files in node_modules. Everything is generated here (no download).
# Usage, from the checkout after `make build venv`:
#   scripts/share-bench.sh [RUNS]          # paired runs, median wall time of each side
#   KEEP=DIR scripts/share-bench.sh        # also leave the generated projects in DIR
#   MEND=PATH scripts/share-bench.sh       # another mend binary
set -eu
root=$(pwd)
runs=${1:-7}
mend=${MEND:-$root/target/release/mend}
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# A Python project with three tests, its own .venv (pytest reached through a .pth file naming
# mend's venv) and 1,200 generated modules in the venv's site-packages.
py="$work/python-venv"
mkdir -p "$py/src/calc" "$py/tests"
printf 'def add(a, b):\n    return a + b\n' > "$py/src/calc/__init__.py"
printf 'from calc import add\n\n\ndef test_one():\n    assert add(1, 2) == 3\n\n\ndef test_two():\n    assert add(2, 2) == 4\n\n\ndef test_three():\n    assert add(0, 0) == 0\n' > "$py/tests/test_calc.py"
printf '[paths]\nreadable = ["src/**/*.py", "tests/*.py"]\neditable = ["src/**/*.py"]\n[test]\ncommand = ["python", "-m", "pytest", "-q"]\ntimeout_seconds = 60\nfiles = ["tests/*.py"]\n[tools]\nenabled = ["run_tests"]\n' > "$py/mend.toml"
if [ ! -e "$py/.venv" ]; then
    python3 -m venv --without-pip "$py/.venv"
    site=$("$py/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    "$root/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/mend-pytest.pth"
    for package in $(seq 0 11); do
        mkdir -p "$site/bulk$package"
        for module in $(seq 0 99); do
            printf 'VALUE = %s\n' "$module" > "$site/bulk$package/m$module.py"
        done
    done
fi

# A node project whose test loads a few of its dependencies; FILES files in node_modules.
node_project() {
    dir="$work/node-$1"
    mkdir -p "$dir"
    printf '{"name": "demo", "version": "1.0.0", "scripts": {"test": "node test.js"}}\n' > "$dir/package.json"
    printf 'const assert = require("assert");\nconst { slug } = require("./lib");\nfor (let i = 0; i < 5; i++) assert.strictEqual(require("dep-" + i).value, i);\nassert.strictEqual(slug("A b"), "a-b");\n' > "$dir/test.js"
    printf 'exports.slug = (text) => text.toLowerCase().split(" ").join("-");\n' > "$dir/lib.js"
    printf '[paths]\nreadable = ["*.js"]\neditable = ["lib.js"]\n[test]\ncommand = ["node", "test.js"]\ntimeout_seconds = 60\nreport = "exit_code"\nfiles = ["test.js"]\n[tools]\nenabled = ["run_tests"]\n' > "$dir/mend.toml"
    [ -e "$dir/node_modules" ] && return
    python3 - "$dir/node_modules" "$1" <<'PY'
import os, sys
root, files = sys.argv[1], int(sys.argv[2])
for package in range(files // 100):
    folder = os.path.join(root, f"dep-{package}")
    os.makedirs(folder)
    with open(os.path.join(folder, "index.js"), "w") as out:
        out.write(f"module.exports = {{ value: {package} }};\n")
    for part in range(99):
        open(os.path.join(folder, f"part-{part}.js"), "w").close()
PY
}
node_project 6000
node_project 60000

# Paired runs: mend verify, then the same command in place; the median of each side.
pair() {
    name=$1; dir=$2; shift 2
    python3 - "$runs" "$name" "$dir" "$mend" "$@" <<'PY'
import os, statistics, subprocess, sys, time
runs, name, repo, mend, *in_place = sys.argv[1:]
def wall(argv, cwd=None):
    start = time.monotonic()
    # In place with the environment mend gives the tests: the shell's own (NODE_EXTRA_CA_CERTS
    # alone adds ~150 ms to node's start) would be measured, not the tests.
    env = None if cwd is None else {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.monotonic() - start
verify = ["env", "-u", "MEND_PYTHON", mend, "verify", "--sandbox", "bwrap", "--repo", repo]
wall(verify), wall(in_place, repo)
pairs = [(wall(verify), wall(in_place, repo)) for _ in range(int(runs))]
a = statistics.median(p[0] for p in pairs)
b = statistics.median(p[1] for p in pairs)
ratio = statistics.median(p[0] / p[1] for p in pairs)
print(f"{name}: mend verify {a * 1000:.0f} ms, in place {b * 1000:.0f} ms, ratio {ratio:.2f}x, difference {(a - b) * 1000:.0f} ms")
PY
}
pair "python, 1200-file venv" "$py" env PYTHONPATH=src .venv/bin/python -m pytest -q
pair "node, 6000 files in node_modules" "$work/node-6000" node test.js
pair "node, 60000 files in node_modules" "$work/node-60000" node test.js

# What a command costs as the copied part of a repository grows: 1,000, 10,000 and 40,000
# source files (no shared folder), a test command that does nothing; one run each.
for files in 1000 10000 40000; do
    dir="$work/sources-$files"
    if [ ! -e "$dir" ]; then
        python3 - "$dir" "$files" <<'PY'
import os, sys
root, files = sys.argv[1], int(sys.argv[2])
for index in range(files):
    folder = os.path.join(root, "src", f"pkg{index // 100}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"m{index}.py"), "w") as out:
        out.write(f"VALUE = {index}\n" * 20)
PY
        printf '[paths]\nreadable = ["src/**/*.py"]\neditable = ["src/**/*.py"]\n[test]\ncommand = ["true"]\ntimeout_seconds = 60\nreport = "exit_code"\n[tools]\nenabled = ["run_tests"]\n' > "$dir/mend.toml"
    fi
    python3 - "$mend" "$dir" "$files" <<'PY'
import subprocess, sys, time
mend, repo, files = sys.argv[1:]
start = time.monotonic()
subprocess.run([mend, "verify", "--sandbox", "bwrap", "--repo", repo], stdout=subprocess.DEVNULL, check=True)
print(f"{files} copied files: mend verify of a command that does nothing {(time.monotonic() - start) * 1000:.0f} ms")
PY
done
