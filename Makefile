# Two commands on a fresh machine: `make run` (the app on the demo store) and `make test` (every test).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 3
STORE ?= var/awrlens.sqlite

.PHONY: run test lint test-fast demo sql perf clean chromium preflight-run preflight-test mutate
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

preflight-run preflight-test:  ## what a fresh machine needs first (README): one line naming what is missing
	@PYTHON=$(PYTHON) sh scripts/preflight.sh $(@:preflight-%=%)

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

VENDOR := static/vendor/.installed

$(VENDOR): package.json package-lock.json scripts/vendor.mjs  ## the page's browser libraries, pinned by package-lock.json
	npm ci --no-audit --no-fund
	npm run vendor
	touch $@

chromium:  ## Debian's headless browser for the browser tests (Playwright drives it; nothing is downloaded by Playwright)
	@command -v chromium >/dev/null || ($(SUDO) apt-get update && $(SUDO) apt-get install -y chromium)

DEMO_SOURCES := $(wildcard app/demo/*.py) app/runs/demo_runs.py app/store/awr/views.py $(wildcard app/store/awr/embedded/*.py) \
	$(wildcard app/store/statspack/*.py) \
	app/store/tables.py app/store/runs_schema.py

$(STORE): $(DEMO_SOURCES) | $(VENV)/.installed  ## rebuilt when the demo's code changes
	AWRLENS_STORE_PATH=$(STORE) $(PY) -m flask --app app demo --path $(STORE)

demo: $(VENV)/.installed  ## rebuild the demo store
	$(PY) -m flask --app app demo --path $(STORE)

run: preflight-run $(VENV)/.installed $(VENDOR) $(STORE)  ## the app on http://$(HOST):$(PORT), production WSGI server
	AWRLENS_STORE_PATH=$(STORE) $(VENV)/bin/gunicorn --bind $(HOST):$(PORT) --workers $(WORKERS) \
		--access-logfile - app.wsgi:app

test: preflight-test $(VENV)/.installed $(VENDOR) chromium lint  ## every test: the linters, the page's JS units (Vitest), then pytest
	npm test
	$(PY) -m pytest -n 2 --dist loadfile

lint: $(VENV)/.installed $(VENDOR)  ## Ruff on the Python (lint and format), import-linter on app's imports (pyproject.toml), ESLint on the page's JS (eslint.config.mjs)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache --no-logo
	npm run lint

FAST_EXAMPLES ?= 4

test-fast: $(VENV)/.installed  ## the edit loop: every test not marked slow, FAST_EXAMPLES generated histories a check (make test: 25)
	GENERATED_EXAMPLES=$(FAST_EXAMPLES) $(PY) -m pytest -q -n 2 --dist worksteal -m "not slow"

# The test runs keep compiled modules (pytest's rewritten tests too) in var/pycache, also where the environment sets
# PYTHONDONTWRITEBYTECODE: without them every run compiles every module again, a third of the edit loop's time.
test test-fast: export PYTHONDONTWRITEBYTECODE :=
test test-fast: export PYTHONPYCACHEPREFIX := $(CURDIR)/var/pycache

MUTATE_CHILDREN ?= 2
MUTATE_MODULES ?=

mutate: $(VENV)/.installed  ## mutation testing, not part of make test (docs/mutation.md): mutmut, then the floors; MUTATE_MODULES="app/history/plans.py ..." runs those alone
	rm -rf mutants var/mutate-store
	TESTS_DEMO_DIR=$(CURDIR)/var/mutate-store $(VENV)/bin/mutmut run --max-children $(MUTATE_CHILDREN) \
		$(foreach m,$(MUTATE_MODULES),'$(subst /,.,$(m:.py=)).*')
	$(PY) scripts/mutation_floor.py $(MUTATE_MODULES)

sql: $(VENV)/.installed  ## print every SQL statement the API runs, compiled for Oracle
	$(PY) -m flask --app app sql

PERF_FLAGS ?=

perf: $(VENV)/.installed $(VENDOR) chromium $(STORE)  ## BENCHMARKS.md's runs that need only the store (PERF_FLAGS=--quick: each once, briefly)
	$(PY) -m pip install --quiet -r perf/requirements.txt
	$(PY) perf/build.py $(PERF_FLAGS)
	$(PY) perf/series.py --profile $(PERF_FLAGS)
	$(PY) perf/peers.py $(PERF_FLAGS)
	$(PY) perf/activity.py --runs 7 $(PERF_FLAGS)
	$(PY) perf/report.py --runs 7 $(PERF_FLAGS)
	$(PY) perf/statspack.py --runs 7 $(PERF_FLAGS)
	$(PY) perf/report_import.py --runs 3 $(PERF_FLAGS)
	$(PY) perf/normal_band.py --runs 7 $(PERF_FLAGS)
	$(PY) perf/frontend.py --runs 7 $(PERF_FLAGS)
	$(PY) perf/silent.py $(PERF_FLAGS)
	$(PY) perf/load.py --seconds 60 --answer-cache-mb 0 $(PERF_FLAGS)  # last: it fails on any answer but a 200

clean:
	rm -rf $(VENV) var node_modules static/vendor

# -- Lambda (Zappa): infra/README.md ------------------------------------------------------------------------------
# The packaging virtualenv holds requirements.txt + Zappa only, as manylinux wheels for CPython 3.12 x86_64, whatever
# this machine is: the python3.12 Lambda runtime is Amazon Linux 2023 (glibc 2.34), so wheels up to manylinux_2_34
# load there; pip prefers the most portable (manylinux2014, glibc 2.17) and falls back to 2_28, then 2_34. Building
# needs a CPython 3.12 (the venv's interpreter, which compiles the package's .pyc): LAMBDA_PYTHON=/path/to/python3.12.
LAMBDA_PYTHON ?= python3.12
LAMBDA_VENV := .venv-lambda
LAMBDA_SITE := $(LAMBDA_VENV)/lib/python3.12/site-packages
LAMBDA_STORE := build/demo.sqlite
STAGE ?= demo

$(LAMBDA_VENV)/.installed: requirements.txt infra/requirements-zappa.txt
	rm -rf $(LAMBDA_VENV)
	$(LAMBDA_PYTHON) -m venv --without-pip $(LAMBDA_VENV)
	$(LAMBDA_PYTHON) -m pip install --quiet --no-deps --only-binary=:all: --no-binary=placebo,cfn-flip \
		--platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_34_x86_64 \
		--implementation cp --python-version 3.12 \
		--target $(LAMBDA_SITE) -r infra/requirements-zappa.txt
	rm -rf $(LAMBDA_SITE)/bin
	touch $@

$(LAMBDA_STORE): $(DEMO_SOURCES) | $(LAMBDA_VENV)/.installed  ## the demo stage's store: 10 days (AWR's 8), 1 day per-minute, 9 hours of ASH without its totals, 15 minutes live
	$(LAMBDA_VENV)/bin/python -m flask --app app demo --path $@ --days 10 --awr-days 8 --detail-days 1 --ash-days 0.375 --no-ash-totals --live-minutes 15

package: $(LAMBDA_VENV)/.installed $(if $(filter demo,$(STAGE)),$(LAMBDA_STORE))  ## dist/awrlens-$(STAGE).zip
	$(LAMBDA_VENV)/bin/python infra/lambda_package.py $(STAGE)

deploy-site: $(VENV)/.installed $(VENDOR)  ## the page: make deploy-site BUCKET=... STAGE=prod [DOMAIN=... CERTIFICATE_ARN=...] [HOSTING=website] [API_URL=...] [REGION=...]
	$(PY) infra/deploy_site.py --bucket $(BUCKET) $(if $(STAGE),--stage $(STAGE)) $(if $(API_URL),--api-url $(API_URL)) \
		$(if $(REGION),--region $(REGION)) $(if $(HOSTING),--hosting $(HOSTING)) $(if $(DOMAIN),--domain $(DOMAIN)) \
		$(if $(CERTIFICATE_ARN),--certificate-arn $(CERTIFICATE_ARN))

guard-rails: $(VENV)/.installed  ## after zappa deploy/update: make guard-rails STAGE=prod [ALARM_TOPIC=arn:aws:sns:...] [REGION=...]
	$(PY) infra/guard_rails.py $(STAGE) $(if $(REGION),--region $(REGION)) $(if $(ALARM_TOPIC),--alarm-topic $(ALARM_TOPIC))

clean-lambda:  ## the packaging venv, the demo stage's store and the packages
	rm -rf $(LAMBDA_VENV) build dist

.PHONY: package deploy-site guard-rails clean-lambda
