# The whole set-up: `make run` and `make test` create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test fuzz bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[$*]'
	touch $@

run: $(VENV)/.installed-plot
	$(BIN)/confboost demo
	$(BIN)/confboost reproduce --quick --out reproduce-out

test: $(VENV)/.installed-dev,plot
	$(BIN)/python -m pytest -q

# The fuzzers' long run (tests/fuzzing.py): FUZZ_CASES cases each (default 2000), from
# FUZZ_SEED (default: a fresh one); each prints its seed and counts. Replay a failure with
# its seed: make fuzz FUZZ_SEED=... FUZZ_CASES=...
fuzz: $(VENV)/.installed-dev,plot
	FUZZ_SEED=$${FUZZ_SEED:-$$(date +%s)} FUZZ_CASES=$${FUZZ_CASES:-2000} \
		$(BIN)/python -m pytest -q -s -p no:cacheprovider tests/test_fuzz_*.py

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run_all.py

lint: $(VENV)/.installed-dev,plot
	$(BIN)/ruff check .
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
