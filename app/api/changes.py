"""What changed: the parameters of a database (values at a snapshot, changes, non-default ones) and the changes layer
(restarts, parameter changes, new plans, version changes, benchmark runs) under the history API (docs/awr-rules.md
§23). Thin views, as in history.py."""

from dataclasses import replace

from app import history
from app.api.history_blueprint import api, database_and_range, every_run
from app.api.params import FORMAT, RANGE, SHOW_SQL, TABLE_INSTANCE, Param, accepts
from app.api.respond import answer

SNAP_ID = Param(
    "snap_id",
    "integer",
    "The snapshot whose values to give (each instance's own at or before it); default: the range's last snapshot.",
    minimum=0,
    maximum=10**12,
)


@api.get("/dbs/<db>/parameters")
@accepts(SNAP_ID, *RANGE, TABLE_INSTANCE, FORMAT, SHOW_SQL)
def parameters(db, args):
    """Initialization parameters in force at a snapshot, per instance: value, ISDEFAULT and ISMODIFIED."""
    d, rng = database_and_range(db, args)
    return answer(history.parameters.compute(d, "values", rng, args["instance"], args["snap_id"]), args, rng)


@api.get("/dbs/<db>/parameters/changes")
@accepts(*RANGE, TABLE_INSTANCE, FORMAT, SHOW_SQL)
def parameter_changes(db, args):
    """Every parameter change seen at a snapshot of the range, per instance, with its old and new value."""
    d, rng = database_and_range(db, args)
    return answer(history.parameters.compute(d, "changes", rng, args["instance"]), args, rng)


@api.get("/dbs/<db>/parameters/non-default")
@accepts(*RANGE, TABLE_INSTANCE, FORMAT, SHOW_SQL)
def non_default_parameters(db, args):
    """Parameters not at their default in the range (set in the parameter file or changed since the startup)."""
    d, rng = database_and_range(db, args)
    return answer(history.parameters.compute(d, "non_default", rng, args["instance"]), args, rng)


@api.get("/dbs/<db>/changes")
@accepts(*RANGE, TABLE_INSTANCE, FORMAT, SHOW_SQL)
def changes(db, args):
    """What changed in the range, in time order: restarts, parameter changes, new plans of statements, database
    version changes and the benchmark runs linked to this database whose AWR window overlaps the range."""
    d, rng = database_and_range(db, args)
    body = history.changes.compute(d, rng, args["instance"], every_run())
    # benchmark runs are uploaded at any time: the answer is kept as long as the snapshot list, even for a closed range
    return answer(body, args, replace(rng, closed=False), table=history.changes.table)
