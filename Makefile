# Two commands on a fresh machine: `make run` (the app on the demo store) and `make test` (every test).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 3
STORE ?= var/awrlens.sqlite

.PHONY: run test demo sql bench clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

$(STORE): | $(VENV)/.installed
	AWRLENS_STORE_PATH=$(STORE) $(PY) -m flask --app app demo --path $(STORE)

demo: $(VENV)/.installed  ## rebuild the demo store
	$(PY) -m flask --app app demo --path $(STORE)

run: $(VENV)/.installed $(STORE)  ## the app on http://$(HOST):$(PORT), production WSGI server
	AWRLENS_STORE_PATH=$(STORE) $(VENV)/bin/gunicorn --bind $(HOST):$(PORT) --workers $(WORKERS) \
		--access-logfile - app.wsgi:app

test: $(VENV)/.installed  ## every test
	$(PY) -m pytest

sql: $(VENV)/.installed  ## print every SQL statement the API runs, compiled for Oracle
	$(PY) -m flask --app app sql

bench: $(VENV)/.installed $(STORE)  ## the benchmarks recorded in BENCHMARKS.md
	$(PY) bench/series.py

clean:
	rm -rf $(VENV) var
