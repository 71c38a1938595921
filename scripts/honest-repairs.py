#!/usr/bin/env python3
"""Honest repairs of real projects: none may draw a warning (a false alarm counts as a failure).

For each project of scripts/honest-repairs.toml: fetch its release (a PyPI sdist or a crate from
crates.io) and check it against the pinned sha256, unpack it in a fresh folder, let `mend init`
write its task file (the test command overridden where the list says why), break one function
(`old` -> `new`, each once in the file), and then

  1. `mend verify` on the broken project must fail (exit 1): the tests see the break;
  2. `mend verify --patch REPAIR` (the diff back to the release) must pass (exit 0) with no
     warning and nothing "not trusted" or "unconfirmed" in what it prints.

Nothing third-party is committed: the releases are fetched into $TMPDIR/mend-honest-repairs/
(or --work DIR). Usage:

  scripts/honest-repairs.py --mend target/debug/mend [--python VENV/bin/python] [--sandbox bwrap]
                            [--only NAME ...]

The Python projects run under --python (a venv with the pinned pytest: `make honest-repairs`
makes one from sample-repo/requirements.txt); the crates under the cargo on PATH.
Prints one line per project and the figures; exits 1 when any project was not clean.
"""
import argparse
import difflib
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Words in verify's output that make a pass not clean.
ALARMS = re.compile(r"warning|not trusted|unconfirmed|suspect", re.IGNORECASE)
# What every pass read from a runner's output says (docs/task-file.md): no alarm, counted apart.
UNCONFIRMED = "unconfirmed: the outcomes were read from the runner's output"


def fetch(project, cache, python):
    """The release's bytes, from the cache or the registry, checked against the pinned hash: a
    crate from crates.io, an sdist through pip (which checks the hash too)."""
    name, version = project.get("crate", project["name"]), project["version"]
    cache.mkdir(parents=True, exist_ok=True)
    if project["source"] == "crate":
        path = cache / f"{name}-{version}.crate"
        if not path.exists():
            url = f"https://static.crates.io/crates/{name}/{name}-{version}.crate"
            with urllib.request.urlopen(url, timeout=120) as answer:
                path.write_bytes(answer.read())
    else:
        pin = cache / f"{name}.txt"
        pin.write_text(f"{name}=={version} --hash=sha256:{project['sha256']}\n")
        subprocess.run([python, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--no-binary=:all:", "--require-hashes", "-d", str(cache), "-r", str(pin)],
                       check=True)
        stem = re.sub(r"[-_.]+", "[-_.]", name)
        (path,) = [entry for entry in cache.iterdir()
                   if re.fullmatch(rf"(?i){stem}-{re.escape(version)}\.(tar\.gz|zip)", entry.name)]
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != project["sha256"]:
        path.unlink()
        raise SystemExit(f"{name} {version}: sha256 {digest}, pinned {project['sha256']}")
    return data


def unpack(data, into):
    """The release's one top folder, unpacked under `into` (tar members are checked to stay in)."""
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(into, filter="data")
    (top,) = [entry for entry in into.iterdir() if entry.is_dir()]
    return top


def break_it(root, project):
    """Puts the bug in; returns the repair, a unified diff back to the release."""
    path = root / project["file"]
    text = path.read_text()
    if text.count(project["old"]) != 1:
        raise ValueError(f"`old` is not found exactly once in {project['file']}")
    broken = text.replace(project["old"], project["new"])
    path.write_text(broken)
    rel = project["file"]
    return "".join(difflib.unified_diff(
        broken.splitlines(keepends=True), text.splitlines(keepends=True),
        f"a/{rel}", f"b/{rel}"))


def task_file(root, project, mend, env):
    """`mend init`'s task file, with the list's test command and reader where it gives them."""
    subprocess.run([mend, "init", "--repo", str(root)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    path = root / "mend.toml"
    text = path.read_text()
    if "command" in project:
        command = "[" + ", ".join(f'"{word}"' for word in project["command"]) + "]"
        text = re.sub(r"(?m)^command = .*$", lambda _: f"command = {command}", text, count=1)
    if "report" in project:
        text = re.sub(r'(?m)^report = .*$', lambda _: f'report = "{project["report"]}"', text,
                      count=1)
    if "files" in project:
        files = "[" + ", ".join(f'"{glob}"' for glob in project["files"]) + "]"
        text = re.sub(r"(?m)^files = .*$", lambda _: f"files = {files}", text, count=1)
    path.write_text(text)


def verify(mend, root, env, sandbox, patch=None):
    command = [mend, "verify", "--repo", str(root), "--sandbox", sandbox]
    if patch is not None:
        command += ["--patch", str(patch)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    return done.returncode, done.stdout, done.stderr


def trial(project, args):
    """'clean', or what went wrong, with the output that shows it."""
    work = args.work / "projects" / project["name"]
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    root = unpack(fetch(project, args.work / "cache", args.python), work)
    env = dict(os.environ, MEND_PYTHON=args.python)
    if project["source"] == "crate":
        # The tests run offline: their dependencies are fetched once first, as mend asks.
        for step in (["generate-lockfile"], ["fetch", "--quiet"]):
            subprocess.run(["cargo", *step], cwd=root, check=True)
    task_file(root, project, args.mend, env)
    repair = work / "repair.patch"
    repair.write_text(break_it(root, project))
    code, out, err = verify(args.mend, root, env, args.sandbox)
    if code != 1:
        return f"the break was not seen (exit {code})", out + err
    code, out, err = verify(args.mend, root, env, args.sandbox, repair)
    # The verdict and its warnings are on stdout; stderr holds what mend noticed of the task
    # before the run (a file too big for read_file in one piece), told apart below.
    unconfirmed = UNCONFIRMED in out
    # `--sandbox none` is the caller's choice, and the sandbox line says so: not the verdict's.
    alarms = [line.strip() for line in out.replace(UNCONFIRMED, "").splitlines()
              if ALARMS.search(line) and not line.startswith("Sandbox: ")]
    if code != 0:
        return f"the repair did not pass (exit {code})", out + err
    if alarms:
        return "false alarm: " + " | ".join(alarms), out + err
    notes = [line.strip() for line in err.splitlines()
             if line.startswith("mend: warning") and "sandbox" not in line.lower()]
    return "clean" + " (unconfirmed)" * unconfirmed + "".join(f" (before the run, {note})" for note in notes), out + err


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mend", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--sandbox", default="auto")
    # Outside mend's checkout: a crate unpacked inside it would be taken for a member of mend's
    # cargo workspace.
    parser.add_argument("--work", type=Path,
                        default=Path(tempfile.gettempdir()) / "mend-honest-repairs")
    parser.add_argument("--list", type=Path, default=HERE / "honest-repairs.toml")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    args.mend = str(Path(args.mend).resolve())
    projects = tomllib.loads(args.list.read_text())["project"]
    if args.only:
        projects = [project for project in projects if project["name"] in args.only]
    results = {}
    for project in projects:
        try:
            result, output = trial(project, args)
        except (ValueError, OSError, subprocess.SubprocessError) as error:
            result, output = f"the trial could not be made: {error}", ""
        results[project["name"]] = result
        print(f"{project['name']} {project['version']} ({project['runner']}): {result}",
              flush=True)
        if not result.startswith("clean") and args.verbose:
            print(output)
    clean = sum(result.startswith("clean") for result in results.values())
    unconfirmed = sum(result.startswith("clean (unconfirmed)") for result in results.values())
    alarms = sum(result.startswith("false alarm") for result in results.values())
    print(f"{clean} of {len(results)} clean ({unconfirmed} of them read from output, so "
          f"unconfirmed); {alarms} false alarms; "
          f"{len(results) - clean - alarms} other failures")
    return 0 if clean == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
