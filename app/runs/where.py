"""Where runs are stored: the one rule the API, `flask runs ...` and the demo build follow.

Runs (the tables BENCH_RUN and BENCH_MEASUREMENT) live in the store of the target AWRLENS_RUNS_TARGET names, by
default the first configured target. With no targets configured that is the embedded SQLite store, alias `demo`
(app.settings.EMBEDDED), and the demo build
writes its runs into the file it builds for that store (app.runs.demo_runs); the demo run linked to AWR history
names the same alias.
"""

from flask import current_app

from app.settings import EMBEDDED

__all__ = ["EMBEDDED", "runs_store", "store", "targets"]


def runs_store(stores: dict, alias: str | None = None):
    """The store, of a {target alias: Store} mapping in configuration order, that holds the runs: the one `alias`
    names (AWRLENS_RUNS_TARGET, checked at start), else the first."""
    return stores[alias] if alias is not None else next(iter(stores.values()))


def store():
    """The running app's store that holds the runs."""
    return runs_store(current_app.extensions["awrlens"].stores, current_app.config["SETTINGS"].runs_target)


def targets() -> list[str]:
    """The running app's target aliases: the AWR histories a run may link to."""
    return list(current_app.extensions["awrlens"].stores)
