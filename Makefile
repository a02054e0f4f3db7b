# kbkit: every target bootstraps .venv/ by itself (see `make help`).
.DEFAULT_GOAL := help
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.kbkit-installed

.PHONY: help setup test test-all test-dates check lint generate demo bench stress clean report-screenshot release

help: ## Show this list of targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements/constraints.txt -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP) ## Create .venv/ with kbkit (editable) and the dev tools
	@echo "kbkit is installed: $(BIN)/kb"

# The two tiers (tests/test_tiers.py holds them to this): `make test` leaves out the tests
# marked slow (real gh, pre-commit, venvs, chromium, the LSP client, crash loops, simulations,
# anything over about a second); `make test-all` runs them too. `make stress` is apart.
FAST_TIER := not stress and not slow
ALL_TIERS := not stress
DATES_TIER ?= $(FAST_TIER)
# Bytecode caching stays on even where PYTHONDONTWRITEBYTECODE is set: without it every `kb`
# process a test starts compiles the package again, and each worker its ~300 test modules.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -p no:cacheprovider -n 2

test: $(STAMP) ## Run the fast tier of the test suite (two workers, under 3 minutes)
	$(PYTEST) -m '$(FAST_TIER)'

test-all: $(STAMP) ## Run both tiers: the fast one and the slow real-process one (what CI runs)
	$(PYTEST) -m '$(ALL_TIERS)'

test-dates: $(STAMP) ## Run the fast tier with the wall clock at 2019 and at 2041 (DATES_TIER='not stress': both tiers)
	KBKIT_TEST_WALL_CLOCK=2019-03-01T08:00:00Z $(PYTEST) -m '$(DATES_TIER)'
	KBKIT_TEST_WALL_CLOCK=2041-07-15T20:00:00Z $(PYTEST) -m '$(DATES_TIER)'

check: $(STAMP) ## Run both validators on the project's own knowledge/ tree and on its docs site (docs/)
	$(BIN)/kb check
	$(BIN)/kb check --policy kbkit-docs.yaml

lint: $(STAMP) ## Run ruff on the package, tests and benchmarks; mypy (strict flags) on the package, relaxed on the tests; the layer contracts
	$(BIN)/lint-imports
	$(BIN)/ruff check tools tests benchmarks
	$(BIN)/ruff format --check tools tests benchmarks
	$(BIN)/mypy

generate: $(STAMP) ## Rewrite what is written from the code: the references in docs/reference/ (rules, commands, environment, policy keys, exit codes, file formats), the policy schema's rule ids, the package layout (docs/maintainers/layout.md)
	$(BIN)/python -m kbkit.checks.rules.reference --write .
	$(BIN)/python -m kbkit.help --write-reference docs/reference
	$(BIN)/python tools/layout_page.py --write

demo: $(STAMP) ## Run the whole pipeline offline on the embedded sample
	$(BIN)/python -m kbkit.demo

report-screenshot: $(STAMP) ## Regenerate docs/report-1400.png and docs/report-400.png, the pictures of the demo's report in README.md and docs/report.md (needs chromium)
	KBKIT_NOW=2026-11-30T12:00:00Z $(BIN)/python tools/report_screenshot.py docs

bench: $(STAMP) ## Measure speed against the named floors (synthetic trees)
	$(BIN)/python -m benchmarks.run

stress: $(STAMP) ## Full-size crash, concurrency and scale runs; mutation scores of the curator's apply, the intake ledger and lessons selection; the public docs trees exported under KBKIT_PUBLIC_TREES, measured as in #38; odd pages in each generator's site
	KBKIT_STRESS=1 $(BIN)/python -m pytest -q -p no:cacheprovider -m stress tests
	$(BIN)/python -m benchmarks.mutation --sample 60
	$(BIN)/python -m benchmarks.public_trees
	$(BIN)/python -m benchmarks.page_shapes

release: $(STAMP) ## Check the version, build the wheel into dist/ and check it, make the tag v<version>
	$(BIN)/python tools/release.py

clean: ## Remove the venv, caches and local state
	rm -rf $(VENV) .kbkit-cache state .pytest_cache .hypothesis .mypy_cache .ruff_cache
