"""Prints `name==version --hash=sha256:…` for each wheel in a folder (what `pip download` left
there), sorted: the lines of a requirements file pip installs with `--require-hashes`.

Usage: python3 scripts/pin-wheels.py FOLDER
"""

import hashlib
import os
import sys

folder = sys.argv[1]
for wheel in sorted(os.listdir(folder)):
    name, version = wheel.split("-")[:2]
    with open(os.path.join(folder, wheel), "rb") as file:
        digest = hashlib.sha256(file.read()).hexdigest()
    print("%s==%s --hash=sha256:%s" % (name.replace("_", "-").lower(), version, digest))
