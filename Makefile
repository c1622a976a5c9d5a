# The two commands a newcomer needs: `make run` and `make test`. Each sets itself up.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: `make run` needs only the server extra, `make test` the developer toolchain too.
SERVER_STAMP := $(VENV)/.installed-server
DEV_STAMP := $(VENV)/.installed-dev
CHROMIUM ?= /usr/bin/chromium
NGINX ?= /usr/sbin/nginx

.PHONY: run play test test-fast lint typecheck browser nginx lighthouse bench bench-compare clean

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
	$(BIN)/lint-imports

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

# Lighthouse 11 (the last with the PWA checks) for tests/web/test_app_install.py, pinned by its
# lock file; installed again only when the lock file changes. Node and npm come from Debian.
LIGHTHOUSE_DIR := tests/web/lighthouse
LIGHTHOUSE_STAMP := $(LIGHTHOUSE_DIR)/node_modules/.installed
$(LIGHTHOUSE_STAMP): $(LIGHTHOUSE_DIR)/package-lock.json
	@command -v npm >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm; \
	  else \
	    echo "npm is missing: run 'sudo apt-get install nodejs npm'"; exit 1; \
	  fi; }
	cd $(LIGHTHOUSE_DIR) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(LIGHTHOUSE_STAMP)

lighthouse: $(LIGHTHOUSE_STAMP)

test: lint typecheck browser nginx lighthouse
	$(BIN)/pytest

test-fast: $(DEV_STAMP)
	$(BIN)/pytest -m "not slow" -x -q

bench: $(DEV_STAMP)
	$(BIN)/tranque bench engine

# tranque beside the bare reference relay in one sitting, alternating (docs/server.md): the
# ratio of server CPU per move flat out and at 2,000 tables x 1 move/s. The relay is an outside
# program: RELAY=DIR (or TRANQUE_RELAY in the environment) names its folder, ROUNDS the rounds.
ROUNDS ?= 3
RELAY ?=
bench-compare: $(SERVER_STAMP)
	$(BIN)/tranque bench compare --rounds $(ROUNDS) --kind flat --kind slow $(if $(RELAY),--relay $(RELAY))

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache
