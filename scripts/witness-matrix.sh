#!/usr/bin/env bash
# Runs the witness's tests under each venv given (make pytest-matrix, make compat): the witness
# loaded by a real interpreter, and every game of the verdict on a pytest project, in bubblewrap
# (the witness's checks do not depend on the sandbox), and the games under pytest-xdist, which run
# the ledger project (every venv of the matrix has pytest-xdist and pytest-mock for it).
set -euo pipefail
cargo=${CARGO:-cargo}
games=(gaming::config gaming::exits gaming::first gaming::items gaming::order gaming::outside gaming::planted gaming::reach gaming::shared xdist::)
# Each filter must match tests: a module renamed fails the matrix instead of passing it with
# nothing run.
every_filter_matches() {
    local target=$1 filter listed
    shift
    for filter in "$@"; do
        listed=$("$cargo" test --locked -q -p mend $target -- --list "$filter")
        if ! grep -q ': test$' <<<"$listed"; then
            echo "no test of $target matches $filter" >&2
            return 1
        fi
    done
}
every_filter_matches --lib verdict::trust::witness
every_filter_matches "--test verdict" "${games[@]}"
for venv in "$@"; do
    python=$(cd "$venv" && pwd)/bin/python
    echo "== the witness under $("$python" -c 'import sys, pytest, pluggy; print("pytest", pytest.__version__, "pluggy", pluggy.__version__, "Python", sys.version.split()[0])')"
    # (The grammar test reads the witness with the checkout's own Python: feature_version is
    # best-effort before 3.10.)
    MEND_PYTHON=$python "$cargo" test --locked -q -p mend --lib verdict::trust::witness -- --skip grammar_tests
    MEND_PYTHON=$python "$cargo" test --locked -q -p mend --test verdict -- "${games[@]}" --skip ::none
done
