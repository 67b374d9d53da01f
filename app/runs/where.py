"""Where runs are stored: the one rule the API, `flask runs ...` and the demo build follow.

Runs (the tables BENCH_RUN and BENCH_MEASUREMENT) live in the store of the first configured target. With no
targets configured that is the embedded SQLite store, alias `demo` (app.settings.EMBEDDED), and the demo build
writes its runs into the file it builds for that store (app.runs.demo_runs); the demo run linked to AWR history
names the same alias.
"""
from flask import current_app

from app.settings import EMBEDDED

__all__ = ["EMBEDDED", "runs_store", "store", "targets"]


def runs_store(stores: dict):
    """The store, of a {target alias: Store} mapping in configuration order, that holds the runs."""
    return next(iter(stores.values()))


def store():
    """The running app's store that holds the runs."""
    return runs_store(current_app.extensions["awrlens"].stores)


def targets() -> list[str]:
    """The running app's target aliases: the AWR histories a run may link to."""
    return list(current_app.extensions["awrlens"].stores)
