"""Benchmark results: runs and their measurements in the test-result tables, how they get in (files, the API,
the harness) and how they come out (list, one run, several compared)."""
