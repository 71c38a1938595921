#!/usr/bin/env bash
# Writes the hash-pinned requirements of one pytest line of the witness's matrix:
#   scripts/pytest-pins.sh LINE PYTEST PLUGGY XDIST MOCK
# e.g. `scripts/pytest-pins.sh 9.2 9.2.0 1.7.0 3.8.0 3.17.0` writes
# fixtures/pytest-matrix/pytest-9.2.txt: pytest, pluggy, pytest-xdist and pytest-mock at those
# versions (the xdist games run the ledger project, whose tests use pytest-mock's `mocker`), and
# what they need as pip resolves it, each wheel's sha256 from the files pip downloaded from PyPI.
# A LINE ending in -pyX.Y (6.2-py3.6) is resolved by pythonX.Y (pyenv's build where there is one,
# as the Makefile finds it), any other by $PYTHON or python3. Pick each plugin's version from its
# PyPI metadata: Requires-Python must admit that Python, Requires-Dist that pytest.
# Then add LINE to PYTEST_LINES (make test) or PYTEST_COMPAT_LINES (make compat) in the Makefile.
set -euo pipefail
if [ $# -ne 5 ]; then
    echo "usage: $0 LINE PYTEST PLUGGY XDIST MOCK" >&2
    exit 2
fi
line=$1 pytest=$2 pluggy=$3 xdist=$4 mock=$5
python=${PYTHON:-python3}
case $line in
*-py*)
    version=${line##*-py}
    python=python$version
    for built in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/python"$version"; do
        if [ -x "$built" ]; then python=$built; fi
    done
    ;;
esac
unset PIP_FIND_LINKS  # from PyPI only: the hashes are of the files every machine downloads
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/fixtures/pytest-matrix/pytest-$line.txt"
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
    --dest "$wheels" "pytest==$pytest" "pluggy==$pluggy" "pytest-xdist==$xdist" "pytest-mock==$mock"
{
    echo "# The witness's matrix, pytest $line: pytest $pytest, pluggy $pluggy, pytest-xdist $xdist,"
    echo "# pytest-mock $mock and what they need, pinned with hashes"
    echo "# (scripts/pytest-pins.sh $line $pytest $pluggy $xdist $mock)."
    "$python" "$here/scripts/pin-wheels.py" "$wheels"
} > "$out"
echo "wrote $out"
