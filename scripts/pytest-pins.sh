#!/usr/bin/env bash
# Writes the hash-pinned requirements of one pytest line of the witness's matrix:
#   scripts/pytest-pins.sh LINE PYTEST PLUGGY XDIST
# e.g. `scripts/pytest-pins.sh 9.2 9.2.0 1.7.0 3.8.0` writes fixtures/pytest-matrix/pytest-9.2.txt:
# pytest, pluggy and pytest-xdist at those versions, and what they need as pip resolves it for
# this machine's python3, each wheel's sha256 from the files pip downloaded from PyPI.
# Then add LINE to PYTEST_LINES (make test) or PYTEST_COMPAT_LINES (make compat) in the Makefile.
set -euo pipefail
if [ $# -ne 4 ]; then
    echo "usage: $0 LINE PYTEST PLUGGY XDIST" >&2
    exit 2
fi
line=$1 pytest=$2 pluggy=$3 xdist=$4
python=${PYTHON:-python3}
unset PIP_FIND_LINKS  # from PyPI only: the hashes are of the files every machine downloads
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/fixtures/pytest-matrix/pytest-$line.txt"
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
    --dest "$wheels" "pytest==$pytest" "pluggy==$pluggy" "pytest-xdist==$xdist"
{
    echo "# The witness's matrix, pytest $line: pytest $pytest, pluggy $pluggy, pytest-xdist $xdist and"
    echo "# what they need, pinned with hashes (scripts/pytest-pins.sh $line $pytest $pluggy $xdist)."
    "$python" "$here/scripts/pin-wheels.py" "$wheels"
} > "$out"
echo "wrote $out"
