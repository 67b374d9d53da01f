"""Benchmark runs: a run and its measurements in the app's own tables (app.store.runs_schema), how they get in
(files, the API, the field tests run here) and how they come out (list, one run, several compared).

- model: the run document and its checks; files: JSON and CSV in; repo: the tables read and written;
  where: the one store that holds the runs; cli: `flask runs ...`; demo_runs: the demo store's runs.
- The field tests (docs/field-tests.md) that run on the configured database: cpu_consistency (field test 002),
  with machine (the host's vCPUs and cores) and awr_window (the AWR snapshots around a run on Oracle).
  Field test 001 (client hangs) needs loopback endpoints, which are lab equipment: lab.hang, imported by
  `flask runs hang` only.
"""
