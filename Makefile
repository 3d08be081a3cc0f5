# Two commands matter: `make run` (set up and start everything) and `make test` (the suite).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test install install-dev demo lint smoke-embedded

# uv (from PyPI, into the venv) installs the requirements in seconds where pip takes a minute
# or more; when uv cannot be had or fails, pip does the same install.
UV_VERSION := 0.13.8
PIP_INSTALL = { [ -x $(BIN)/uv ] && $(BIN)/uv pip install --quiet --python $(BIN)/python $(1); } \
	|| { echo "Installing with pip (slower): uv is not available or failed."; $(BIN)/pip install --quiet $(1); }

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv==$(UV_VERSION) || echo "uv could not be installed; pip will be used."

$(VENV)/.installed: requirements.txt clients/evalsite-checks/pyproject.toml \
		clients/evalsite-gate/pyproject.toml | $(BIN)/python
	$(call PIP_INSTALL,-r requirements.txt)
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(call PIP_INSTALL,-r requirements-dev.txt)
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

demo: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo

# `make run ADDR=127.0.0.1:8001` when port 8000 is taken.
ADDR ?= 127.0.0.1:8000

# serve migrates and loads the demo itself: one Python start-up instead of three.
run: install
	$(BIN)/python manage.py serve --demo --addr $(ADDR)

# The suite runs on TEST_WORKERS processes (pytest-xdist), each with its own test database,
# var folder and Redis db (tests/settings.py); `make test TEST_WORKERS=0` runs it in one.
# It needs PostgreSQL (spans are partitioned by day there) and Redis on this machine, unless
# DATABASE_URL and REDIS_URL name others.
TEST_WORKERS ?= auto
TEST_DATABASE_URL := $(or $(DATABASE_URL),postgres://postgres@127.0.0.1:5432/evalsite_test)
TEST_REDIS_URL := $(or $(REDIS_URL),redis://127.0.0.1:6379/12)

test: install-dev
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) \
		$(BIN)/pytest -n $(TEST_WORKERS) --maxprocesses 4 --dist loadgroup

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run
