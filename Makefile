# The two commands a newcomer needs: `make run` and `make test`. Each sets itself up.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM ?= /usr/bin/chromium

.PHONY: run play test test-fast lint typecheck browser bench clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The product: the table server at http://127.0.0.1:8000/ on a local SQLite file.
run: $(STAMP)
	$(BIN)/tranque serve

# A game in the terminal against three bots.
play: $(STAMP)
	$(BIN)/tranque play --bots heuristic

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: $(STAMP)
	$(BIN)/mypy

# The browser tests drive Debian's Chromium; a browser download cannot work on these machines.
browser:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else \
	    echo "Chromium is missing: run 'sudo apt-get install chromium'"; exit 1; \
	  fi; }

test: lint typecheck browser
	$(BIN)/pytest

test-fast: $(STAMP)
	$(BIN)/pytest -m "not slow" -x -q

bench: $(STAMP)
	$(BIN)/tranque bench engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
