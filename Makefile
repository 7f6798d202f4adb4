# Set-up and gates. `make test` on a fresh clone does everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test lint typecheck pytest bench demo schemas fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $(STAMP)

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest --cov --cov-report=term -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python benchmarks/codec.py
	$(BIN)/python benchmarks/validate.py

schemas: $(STAMP)
	$(BIN)/python -m interruption._schemas schemas

demo: $(STAMP)
	$(BIN)/interruption demo

clean:
	rm -rf $(VENV) .coverage .mypy_cache .ruff_cache .pytest_cache
