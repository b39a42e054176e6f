# The whole set-up: `make run` and `make test` create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test test-slow test-all fuzz bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[$*]'
	touch $@

run: $(VENV)/.installed-plot
	$(BIN)/confboost demo
	$(BIN)/confboost reproduce --quick --out reproduce-out

# make test: the quick tier (at most 4 minutes on 2 cores); make test-all adds the slow tier
# (cluster and real-data tests), each test run once. CI runs test-all. Two pytest workers
# (pytest-xdist), a test file each at a time: most of a cold run is numba compiling, one
# core a process. PYTEST_WORKERS=0 runs them in this process.
PYTEST_WORKERS ?= 2
PYTEST_PARALLEL = $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)
test: $(VENV)/.installed-dev,plot
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) -m "not slow"

test-slow: $(VENV)/.installed-dev,plot
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) -m slow

test-all: test test-slow

# The fuzzers' long run (tests/fuzz/fuzzing.py): FUZZ_CASES cases each (default 2000), from
# FUZZ_SEED (default: a fresh one); each prints its seed and counts. Replay a failure with
# its seed: make fuzz FUZZ_SEED=... FUZZ_CASES=...
fuzz: $(VENV)/.installed-dev,plot
	FUZZ_SEED=$${FUZZ_SEED:-$$(date +%s)} FUZZ_CASES=$${FUZZ_CASES:-2000} \
		$(BIN)/python -m pytest -q -s -p no:cacheprovider tests/fuzz/test_fuzz_*.py

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run_all.py

lint: $(VENV)/.installed-dev,plot
	$(BIN)/ruff check .
	$(BIN)/lint-imports

.PHONY: dist docs

# A wheel and an sdist in dist/, checked by twine, installed into a fresh virtual environment
# with no extra, with `plot` and with `dask`, and smoke-tested there (.ci/dist).
dist: $(VENV)/.installed-dist
	bash .ci/dist $(BIN)/python

# The documentation site in docs/_build/html, warnings as errors; the gallery's examples run.
docs: $(VENV)/.installed-docs,dask
	$(BIN)/sphinx-build -W --keep-going -b html -d docs/_build/doctrees docs docs/_build/html

clean:
	rm -rf $(VENV) build dist *.egg-info src/*.egg-info docs/_build docs/auto_examples \
		docs/api/generated
