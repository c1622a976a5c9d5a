# The two commands a newcomer needs: `make run` and `make test`. Each sets itself up.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: `make run` needs only the server extra, `make test` the developer toolchain too.
SERVER_STAMP := $(VENV)/.installed-server
DEV_STAMP := $(VENV)/.installed-dev
CHROMIUM ?= /usr/bin/chromium
NGINX ?= /usr/sbin/nginx

.PHONY: run play test test-fast lint typecheck browser nginx bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(SERVER_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[server]'
	touch $(SERVER_STAMP)

# dev includes every extra, so it also satisfies `make run`.
$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP) $(SERVER_STAMP)

# The product: the table server at http://127.0.0.1:8000/ on a local SQLite file.
run: $(SERVER_STAMP)
	$(BIN)/tranque serve

# A game in the terminal against three bots (the server extra carries the bots).
play: $(SERVER_STAMP)
	$(BIN)/tranque play --bots heuristic

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

# The browser tests drive Debian's Chromium; a browser download cannot work on these machines.
browser:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else \
	    echo "Chromium is missing: run 'sudo apt-get install chromium'"; exit 1; \
	  fi; }

# The load balancer example (deploy/nginx/tranque.conf) is tested with Debian's nginx, run by
# the test itself in the foreground (the package's own service is not needed).
nginx:
	@test -x $(NGINX) || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx; \
	  else \
	    echo "nginx is missing: run 'sudo apt-get install nginx'"; exit 1; \
	  fi; }

test: lint typecheck browser nginx
	$(BIN)/pytest

test-fast: $(DEV_STAMP)
	$(BIN)/pytest -m "not slow" -x -q

bench: $(DEV_STAMP)
	$(BIN)/tranque bench engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
