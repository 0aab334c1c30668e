# Las Vegas Arena — developer entry points. `make` alone lists the targets.

# The project's own virtual environment, built from BASE_PYTHON (3.11+; on
# Debian /usr/bin/python3 with python3-venv), never the system Python.
BASE_PYTHON ?= python3
VENV ?= .venv
PYTHON ?= $(VENV)/bin/python
PYTEST_ARGS ?=
# Touched after a successful install: pip runs again only when the lock or pyproject.toml changes.
INSTALLED := $(VENV)/.installed-$(subst /,_,$(PYTHON))
# The same for `make run`'s smaller install (what running needs).
INSTALLED_RUN := $(VENV)/.installed-run-$(subst /,_,$(PYTHON))
# The lock: every package with its exact version and file hashes, for Python 3.11 on
# Linux x86_64. platform.txt is what running needs (the `platform` extra: `make run`,
# the images); dev.txt everything (the `dev` extra: tests, lint, types), the same pins.
LOCK_DEV := requirements/dev.txt
LOCK_PLATFORM := requirements/platform.txt
# uv from the lock; the package index is uv's default (PyPI), never pip's configuration.
UV ?= $(VENV)/bin/uv
LOCK_FLAGS := --quiet --no-config --python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
	--generate-hashes --custom-compile-command 'make lock'


.DEFAULT_GOAL := help
.PHONY: help install install-run lock test-fast lock-upgrade system lint test test-sqlite migrations run bench golden royale-check sandbox-install sandbox-check

help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*?## "}; {printf "  %-10s %s\n", $$1, $$2}'

install: $(INSTALLED) ## The venv (.venv) with the project in editable mode and the dev tools

$(INSTALLED): pyproject.toml $(LOCK_DEV)
	@if [ "$(PYTHON)" = "$(VENV)/bin/python" ] && [ ! -x "$(PYTHON)" ]; then \
		echo "$(BASE_PYTHON) -m venv $(VENV)"; $(BASE_PYTHON) -m venv $(VENV); fi
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --require-hashes -r $(LOCK_DEV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@mkdir -p $(VENV) && touch $@

install-run: $(INSTALLED_RUN) ## The venv with only what running the platform needs (make run)

# A venv with the dev tools has every package running needs, at the same pins.
$(INSTALLED_RUN): pyproject.toml $(LOCK_PLATFORM)
	@if [ "$(PYTHON)" = "$(VENV)/bin/python" ] && [ ! -x "$(PYTHON)" ]; then \
		echo "make run: creating the virtual environment $(VENV)"; $(BASE_PYTHON) -m venv $(VENV); fi
	@if [ -f "$(INSTALLED)" ] && [ "$(INSTALLED)" -nt "$(LOCK_PLATFORM)" ]; then \
		echo "make run: $(VENV) already has the development set, which includes the platform's"; \
	else \
		echo "make run: installing the platform's $$(grep -c '^[a-z]' $(LOCK_PLATFORM)) packages" \
			"($(LOCK_PLATFORM), exact versions and hashes; only on the first run)"; \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check --require-hashes \
			-r $(LOCK_PLATFORM); \
	fi
	@echo "make run: installing the project itself (editable)"
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@mkdir -p $(VENV) && touch $@

# dev.txt first; platform.txt then takes its pins from it (a constraint), so the two agree.
lock: install ## Re-pin the lock (requirements/) after a change to pyproject.toml's dependencies
	$(UV) pip compile pyproject.toml --extra dev $(LOCK_FLAGS) $(LOCK_UPGRADE) -o $(LOCK_DEV)
	$(UV) pip compile pyproject.toml --extra platform $(LOCK_FLAGS) -c $(LOCK_DEV) -o $(LOCK_PLATFORM)

lock-upgrade: ## Move every pin of the lock to the newest release pyproject.toml allows
	@$(MAKE) --no-print-directory lock LOCK_UPGRADE=--upgrade

system: ## Install the Debian packages and bot user the tests need (root; only what is missing)
	bash scripts/install_system.sh test

lint: install ## ruff check, ruff format --check, migrations check, mypy (strict, with the Django plugin)
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .
	$(PYTHON) manage.py makemigrations --check --dry-run
	$(PYTHON) -m mypy

test: ## The whole suite: set-up, lint, types, then pytest (PYTEST_ARGS=...)
	@BASE_PYTHON=$(BASE_PYTHON) bash scripts/install_system.sh test
	@$(MAKE) --no-print-directory install
	@# The Redis tests need a server on 127.0.0.1:6379: start one when none answers.
	@$(PYTHON) -c 'import socket; socket.create_connection(("127.0.0.1", 6379), 0.5)' \
		2>/dev/null || redis-server --daemonize yes --bind 127.0.0.1 --port 6379 \
		--save "" --appendonly no --dir /tmp
	$(MAKE) --no-print-directory lint
	$(PYTHON) -m pytest $(PYTEST_ARGS)

test-fast: install ## The quick subset while you work: every test not marked slow, no lint (PYTEST_ARGS=...)
	$(PYTHON) -m pytest -m "not slow" $(PYTEST_ARGS)

run: ## Run the platform on embedded defaults: set-up, migrate, house bots, web + worker + beat
	@BASE_PYTHON=$(BASE_PYTHON) bash scripts/install_system.sh run
	@$(MAKE) --no-print-directory install-run
	PYTHON=$(PYTHON) scripts/services.sh

test-sqlite: install ## Platform tests on SQLite (the embedded default)
	ARENA_TEST_DB=sqlite $(PYTHON) -m pytest tests/platform $(PYTEST_ARGS)

migrations: install ## Generate Django migrations after a model change
	$(PYTHON) manage.py makemigrations

bench: install ## Run the benchmarks: engine, RL environments, referee and sandbox, platform, leagues, ratings, levels
	$(PYTHON) bench/engine.py
	$(PYTHON) bench/rl.py
	$(PYTHON) bench/referee.py
	$(PYTHON) bench/platform.py
	$(PYTHON) bench/leagues.py
	$(PYTHON) bench/ratings.py
	$(PYTHON) bench/levels.py

royale-check: install ## Re-check 5,000 random royale main games against the independent tile model (~90 s of CPU)
	ROYALE_MODEL_GAMES=5000 $(PYTHON) -m pytest -s tests/vegas_engine/test_royale_model.py \
		-k random_main_games $(PYTEST_ARGS)

sandbox-install: ## Install the bot sandbox's system parts (bubblewrap, bot runtime, bot user; root)
	bash scripts/install_system.sh run

sandbox-check: install ## Self-test the bot sandbox and print what it found
	$(PYTHON) -m bots_sdk.sandbox

golden: install ## Regenerate the golden game logs used by the engine tests
	$(PYTHON) tests/vegas_engine/regenerate_golden.py
