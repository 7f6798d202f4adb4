# Set-up and gates. `make test` on a fresh clone does everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Every extra, so the suite runs what users install (tests/test_packaging.py).
EXTRAS := fast,postgres,testing,langgraph,pydantic-ai,openai-agents,mcp,genkit,google-adk,inbox

.PHONY: test check lint typecheck pytest docs package bench demo schemas fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]" --group dev
	touch $(STAMP)

# About 7-10 minutes on an idle 2-core machine; starts PostgreSQL (tests/_postgres.py).
test: $(STAMP) lint typecheck pytest docs package

# Lint, format, and the import contract (pyproject's [tool.importlinter]):
# the layers stand on their own floors, adapters use the public API.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

# The quick gate, under 2 minutes: lint, types and the fast tests. It skips
# PostgreSQL, the browser, the slow documents, the multi-process races, the
# subprocess import checks and the adapters (their suites and pages import
# every framework); hypothesis draws fewer examples. `make test` runs all.
CHECK_TESTS := tests README.md docs --ignore=tests/adapters --ignore=docs/adapters \
	--ignore-glob="*test_browser*"
CHECK_SKIP := -m "not slow" \
	-k "not Processes and not processes and not TestMissingExtras and not readme_typecheck"

check: $(STAMP) lint
	$(BIN)/mypy
	INTERRUPTION_SKIP_POSTGRES=1 HYPOTHESIS_PROFILE=quick $(BIN)/pytest -q -x \
		-p no:cacheprovider --no-header $(CHECK_TESTS) $(CHECK_SKIP)

# The python blocks of the README and of every docs page, under the same
# mypy --strict (errors at the documents' lines); sybil runs them in `pytest`.
DOCUMENTS := README.md $(wildcard docs/*.md docs/*/*.md)

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/mypy interruption/__init__.py interruption/runtime/store/__init__.py  # mypy reads their stubs otherwise
	$(BIN)/mypy scripts
	$(BIN)/python -m scripts.readme_typecheck $(DOCUMENTS)

# The site, offline (no fonts or assets from a CDN); --strict fails on a
# broken link, a page missing from the nav or a reference that does not resolve.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# The sdist and the wheel, checked by twine; the wheel installed into a clean
# virtual environment (no extras) and imported there, outside this tree.
package: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(BIN)/python -m venv "$$tmp/venv" && \
		"$$tmp/venv/bin/python" -m pip install --quiet dist/*.whl && \
		cd "$$tmp" && "$$tmp/venv/bin/python" -c \
		"import interruption, interruption.runtime.store; print('installed interruption', interruption.__version__)"

# The second pass runs as an install without the [fast] extra (no orjson):
# verdicts must not depend on it; coverage adds up over both passes.
WITHOUT_ORJSON_TESTS := tests/test_wire.py tests/test_validation.py tests/test_resume.py \
	tests/test_json.py tests/test_schemas.py tests/test_loop.py tests/test_sealing.py

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
	$(BIN)/python -m interruption._published_schemas schemas

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
	rm -rf $(VENV) .coverage .mypy_cache .ruff_cache .pytest_cache site dist
