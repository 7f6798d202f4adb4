# Set-up and gates. `make test` on a fresh clone does everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Every extra, so the suite runs what users install (tests/test_packaging.py).
EXTRAS := fast,postgres,testing,langgraph,pydantic-ai,openai-agents,mcp,genkit,google-adk,inbox

.PHONY: test lint typecheck pytest bench demo schemas fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]" --group dev
	touch $(STAMP)

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The README's python blocks, under the same mypy --strict (errors at README lines).
typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/mypy scripts
	$(BIN)/python -m scripts.readme_typecheck README.md

# The second pass runs as an install without the [fast] extra (no orjson):
# verdicts must not depend on it; coverage adds up over both passes.
WITHOUT_ORJSON_TESTS := tests/test_wire.py tests/test_validation.py tests/test_resume.py \
	tests/test_json.py tests/test_schemacheck.py tests/test_loop.py tests/test_sealing.py

pytest: $(STAMP)
	$(BIN)/pytest --cov --cov-report= -p no:cacheprovider
	INTERRUPTION_WITHOUT_ORJSON=1 $(BIN)/pytest --cov --cov-append --cov-report=term \
		-p no:cacheprovider -q $(WITHOUT_ORJSON_TESTS)

bench: $(STAMP)
	$(BIN)/python benchmarks/codec.py
	$(BIN)/python benchmarks/validate.py
	$(BIN)/python benchmarks/store.py
	$(BIN)/python benchmarks/adapters.py
	$(BIN)/python benchmarks/import_time.py
	$(BIN)/python benchmarks/inbox.py

schemas: $(STAMP)
	$(BIN)/python -m interruption._schemas schemas

demo: $(STAMP)
	$(BIN)/interruption demo

# Not part of `make test`: each atheris target runs for FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
fuzz: $(STAMP)
	$(BIN)/python -c "import atheris" 2>/dev/null || $(BIN)/python -m pip install atheris
	mkdir -p fuzz/corpus/loads fuzz/corpus/sealer fuzz/crashes
	$(BIN)/python fuzz/loads_target.py fuzz/corpus/loads -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=fuzz/crashes/
	$(BIN)/python fuzz/sealer_target.py fuzz/corpus/sealer -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=fuzz/crashes/

clean:
	rm -rf $(VENV) .coverage .mypy_cache .ruff_cache .pytest_cache
