# Two entry points (see README "Quick start"):
#   make run [URL=https://example.com]   install into .venv, crawl the demo site (or URL)
#   make test                            install into .venv, run ruff, mypy, import contracts,
#                                        the no-clock-in-tests check, pytest
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test lint system-deps

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/webmd demo $(URL)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python scripts/check_test_clock.py

# System packages the tests start for real (distributed mode): installed when absent.
system-deps:
	@command -v redis-server >/dev/null || { \
		echo "installing redis-server (apt-get)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; }

test: lint system-deps
	$(BIN)/pytest
