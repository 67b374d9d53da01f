"""Plans, time by plan line and binds (docs/awr-rules.md §26)."""

from app.store.awr.queries.ash_coded import _ash_code
from app.store.awr.queries.ash_counts import _ash_top_grouped
from app.store.awr.queries.ash_samples import ON_CPU, _samples
from app.store.awr.queries.core import _intervals, statement
from app.store.awr.views import Views

PLAN_COLUMNS = (
    "plan_hash_value",
    "id",
    "parent_id",
    "depth",
    "position",
    "operation",
    "options",
    "object_owner",
    "object_name",
    "cost",
    "cardinality",
    "bytes",
    "cpu_cost",
    "io_cost",
    "time",
    "access_predicates",
    "filter_predicates",
    "other_xml",
    "timestamp",
    "con_dbid",
)
BIND_COLUMNS = (
    "snap_id",
    "instance_number",
    "position",
    "name",
    "datatype_string",
    "was_captured",
    "last_captured",
    "value_string",
    "con_dbid",
)


@statement
def sql_plans(v: Views):
    """Every plan line of a statement (DBA_HIST_SQL_PLAN is keyed by plan, not by snapshot), plan by plan."""
    from sqlalchemy import bindparam, select

    t = v.sql_plan
    return (
        select(*[t.c[c] for c in PLAN_COLUMNS])
        .where(t.c.dbid == bindparam("dbid"), t.c.sql_id == bindparam("sql_id"))
        .order_by(t.c.plan_hash_value, t.c.con_dbid, t.c.id)
    )


@statement
def plan_line_activity(v: Views, blocks: bool = False, window: bool = False, filters: tuple = ()):
    """A statement's ASH samples of the range per plan hash value and plan line, each with its samples on CPU; with
    `blocks`, from embedded.ash.ASH_TOP's counts; with `window`, of a window of sample times only (`filters`: the
    instance, in a run of one instance's snapshots)."""
    from sqlalchemy import bindparam, case, func, select

    if blocks:
        code = _ash_code(bindparam("sql_id"))
        sums = {"samples": lambda c: func.sum(c.c.samples), "on_cpu": lambda c: func.sum(c.c.on_cpu)}
        g, named = _ash_top_grouped("plan_line", (), range(1, 5), sums, code)
        return select(*named, g.c.samples, g.c.on_cpu).order_by(*named)
    t = v.active_sess_history
    s = _samples(
        t,
        (
            t.c.sql_plan_hash_value,
            t.c.sql_plan_line_id,
            t.c.sql_plan_operation,
            t.c.sql_plan_options,
            case((t.c.session_state == bindparam("on_cpu", ON_CPU), t.c.sample_id)),
        ),
        filters,
        (t.c.sql_id == bindparam("sql_id"),),
        window,
    )
    *keys, cpu = list(s.c)
    return select(*keys, func.count().label("samples"), func.count(cpu).label("on_cpu")).group_by(*keys).order_by(*keys)


@statement
def sql_binds(v: Views):
    """The bind values captured for a statement in the intervals (lo, hi], each once: DBA_HIST_SQLBIND repeats a
    snapshot's binds for each PLAN_HASH_VALUE of the statement there (docs/awr-rules.md §26)."""
    from sqlalchemy import bindparam, select

    t = v.sqlbind
    return (
        select(*[t.c[c] for c in BIND_COLUMNS])
        .distinct()
        .where(_intervals(t), t.c.sql_id == bindparam("sql_id"))
        .order_by(t.c.snap_id, t.c.instance_number, t.c.position)
    )
