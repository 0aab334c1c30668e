# Las Vegas Arena — developer entry points. `make` alone lists the targets.

PYTHON ?= python3
PYTEST_ARGS ?=


.DEFAULT_GOAL := help
.PHONY: help install lint test test-sqlite migrations run bench golden sandbox-install sandbox-check

help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*?## "}; {printf "  %-10s %s\n", $$1, $$2}'

install: ## Install the project in editable mode with the dev tools
	$(PYTHON) -m pip install --quiet -e '.[dev]'

lint: ## ruff check, ruff format --check, migrations check, mypy (strict, with the Django plugin)
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .
	$(PYTHON) manage.py makemigrations --check --dry-run
	$(PYTHON) -m mypy

test: install ## The whole suite: install, lint, types, then pytest (PYTEST_ARGS=...)
	$(MAKE) --no-print-directory lint
	$(PYTHON) -m pytest $(PYTEST_ARGS)

run: install ## Run the platform on embedded defaults: migrate, house bots, web + worker + beat
	PYTHON=$(PYTHON) scripts/services.sh

test-sqlite: ## Platform tests on SQLite (the embedded default)
	ARENA_TEST_DB=sqlite $(PYTHON) -m pytest tests/platform $(PYTEST_ARGS)

migrations: ## Generate Django migrations after a model change
	$(PYTHON) manage.py makemigrations

bench: ## Run the benchmarks: engine, referee and sandbox, platform, leagues
	$(PYTHON) bench/engine.py
	$(PYTHON) bench/referee.py
	$(PYTHON) bench/platform.py
	$(PYTHON) bench/leagues.py

sandbox-install: ## Install the bot sandbox's system parts (bubblewrap, bot runtime, bot user; root)
	bash scripts/install_bot_runtime.sh

sandbox-check: ## Self-test the bot sandbox and print what it found
	$(PYTHON) -m bots_sdk.sandbox

golden: ## Regenerate the golden game logs used by the engine tests
	$(PYTHON) tests/vegas_engine/regenerate_golden.py
