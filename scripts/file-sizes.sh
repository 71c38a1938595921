#!/usr/bin/env bash
# The house rule that no non-test source file passes 450 lines (README, docs/architecture.md):
# every .rs of the crates and every .py the shell injects into a checkout. A test file (tests.rs,
# *_tests.rs, anything under a tests/ folder, test_*.py) is exempt: fixtures and cases grow with
# the cases. Prints each file over the limit and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=${LIMIT:-450}
over=0
while IFS= read -r file; do
  lines=$(wc -l <"$file")
  if [ "$lines" -gt "$LIMIT" ]; then
    echo "$file: $lines lines (the limit is $LIMIT; split it into files with one job each)"
    over=1
  fi
done < <(find core/src shell/src embed/src bindings/python/src -type f \( -name '*.rs' -o -name '*.py' \) \
  | grep -vE '(^|/)tests(/|\.rs$)|_tests\.rs$|/test_[^/]*\.py$' | sort)
exit "$over"
