# Two commands matter: `make run` (set up and start everything) and `make test` (the suite).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test install install-dev demo lint smoke-embedded

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

demo: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo

run: demo
	$(BIN)/python manage.py serve

# The suite runs on TEST_WORKERS processes (pytest-xdist), each with its own test database,
# var folder and Redis db (tests/settings.py); `make test TEST_WORKERS=0` runs it in one.
TEST_WORKERS ?= auto

test: install-dev
	$(BIN)/pytest -n $(TEST_WORKERS) --maxprocesses 4 --dist loadgroup

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run
