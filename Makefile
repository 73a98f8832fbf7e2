# racecert — two commands do all the set-up: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEFAULT_TRACK ?= tracks/4_esquinas.toml
REPORT ?= report

.PHONY: install run test bench lint clean browser

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	mkdir -p $(REPORT)
	$(BIN)/racecert analyze $(DEFAULT_TRACK) -o $(REPORT)/analysis.json -o $(REPORT)/track.svg
	@echo "report written to $(REPORT)/"

# PYTHONDONTWRITEBYTECODE is cleared for the suite: where it is set, every one of the
# suite's hundred-odd `racecert` child processes compiles the package's sources again
# (0.05-0.2 s of CPU each, ~5 s over tests/cli alone); the caches go to the ignored
# __pycache__ folders, beside numba's.
test: $(STAMP) browser
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest

# The studio's browser tests drive Debian's chromium (never a browser download); the
# replay page's script also runs under Debian's nodejs (tests/race).
browser:
	@{ command -v chromium && command -v node; } >/dev/null 2>&1 || { export DEBIAN_FRONTEND=noninteractive; apt-get update -q && apt-get install -y -q chromium nodejs; }

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run --out BENCHMARKS.md

lint: $(STAMP)
	$(BIN)/ruff check racecert tests benchmarks tools
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) $(REPORT) .pytest_cache
