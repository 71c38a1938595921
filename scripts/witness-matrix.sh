#!/usr/bin/env bash
# Runs the witness's tests under each venv given (make pytest-matrix, make compat): the witness
# loaded by a real interpreter, and every game of the verdict on a pytest project, in bubblewrap
# (the witness's checks do not depend on the sandbox), and the games under pytest-xdist, which run
# the ledger project (every venv of the matrix has pytest-xdist and pytest-mock for it).
set -euo pipefail
cargo=${CARGO:-cargo}
for venv in "$@"; do
    python=$(cd "$venv" && pwd)/bin/python
    echo "== the witness under $("$python" -c 'import sys, pytest, pluggy; print("pytest", pytest.__version__, "pluggy", pluggy.__version__, "Python", sys.version.split()[0])')"
    # (The grammar test reads the witness with the checkout's own Python: feature_version is
    # best-effort before 3.10.)
    MEND_PYTHON=$python "$cargo" test --locked -q -p mend --lib verdict::trust::witness -- --skip grammar_tests
    MEND_PYTHON=$python "$cargo" test --locked -q -p mend --test verdict -- \
        gaming::config gaming::exits gaming::planted gaming::reach gaming::shared xdist:: --skip ::none
done
