#!/bin/sh
# The BENCHMARKS.md row of `mend eval`: 3 tasks x k = 8 with --jobs 2 against a scripted loopback
# Ollama (scripts/eval_bench_server.py), then the share of the job slots spent outside pytest and
# the model, from the attempts' records. Run from the checkout after `make build venv`.
# JOBS=1 scripts/eval-bench.sh runs the same suite one attempt at a time.
set -eu
root=$(pwd)
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/tasks"
cp -r sample-repo "$work/tasks/sample"
cp -r evals/local/paginate "$work/tasks/paginate"
cp -r evals/local/paginate "$work/tasks/paginate2"
port=18771
printf 'tasks = ["tasks/*"]\nk = 8\nmax_turns = 4\nseed = 0\n[model]\nname = "scripted:1b"\nhost = "http://127.0.0.1:%s"\n' "$port" > "$work/suite.toml"
python3 scripts/eval_bench_server.py "$port" &
server=$!
sleep 0.5
start=$(date +%s%N)
MEND_PYTHON="$root/.venv/bin/python" ./target/release/mend eval "$work/suite.toml" --out "$work/out" --jobs "${JOBS:-2}" --unchecked
end=$(date +%s%N)
python3 - "$start" "$end" "$work/out" "${JOBS:-2}" <<'PY'
import glob, json, sys
wall = (int(sys.argv[2]) - int(sys.argv[1])) / 1e6
inside = 0
for path in glob.glob(sys.argv[3] + "/*/*.json"):
    metrics = json.load(open(path))["metrics"]
    inside += metrics["model_ms"] + metrics["verify_ms"] + metrics["run_tests_ms"]
slots = int(sys.argv[4])
print(f"wall {wall:.0f} ms; outside pytest and the model: {(slots * wall - inside) / (slots * wall) * 100:.1f} % of {slots} job slot(s)")
PY
