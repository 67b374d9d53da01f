"""Every statement the API runs, built with SQLAlchemy Core and named bind parameters only.

Nothing from a request is pasted into SQL text: values travel as binds, and choices (which view, which
column to sort by) are picked from fixed lists in this module. `flask --app app sql` prints them all
compiled for Oracle, so a DBA can review them before granting access.

Calling a statement's function gives its Statement (the function and its arguments), not the Core statement: a
store builds that with `core()` when it needs it, once per view prefix, release and argument (`cache`), and a
request reuses it with its own bind values. The embedded store runs the statements' SQLite text instead
(app/store/sqlite_statements.json, compiled from the same Core statements), so its reads never import SQLAlchemy,
which is most of a cold start (BENCHMARKS.md); that is why this module imports SQLAlchemy only where it builds.
"""

import inspect
import re
from collections.abc import Callable
from functools import cache, wraps
from typing import NamedTuple

from app.settings import Settings
from app.store.schema import IO_COLUMNS, TOP_SQL_METRICS, Views

COUNTER_VIEWS = ("sysstat", "sys_time_model", "osstat")
IO_VIEWS = {"iostat_function": "function", "iostat_filetype": "filetype"}
METRIC_GROUP = 2  # the 60-second system metrics
TOP_SQL_ROWS = 200  # a constant of the code, never a request value
IN_LIST = 1000  # Oracle's most expressions in one IN list (ORA-01795)
MOST_CHOSEN = 30 * IN_LIST  # snapshots bound in IN lists at most: binds under SQLite's 32,766 (and Oracle's 65,535)
TOP_SQL_ORDER = {
    "elapsed": "elapsed_time",
    "cpu": "cpu_time",
    "gets": "buffer_gets",
    "reads": "disk_reads",
    "executions": "executions",
    "rows": "rows_processed",
}


class Statement(NamedTuple):
    """One of this module's statements for some views: `build(views, *args)` makes it (Core)."""

    build: Callable
    views: Views
    args: tuple

    @property
    def key(self) -> str:
        """The statement's name and arguments, e.g. "counter_series('sysstat')"."""
        return f"{self.build.__name__}({', '.join(map(repr, self.args))})"

    def core(self):
        return self.build(self.views, *self.args)


def statement(build):
    """`build(v: Views, *args)` -> a Core statement, as a function that returns the Statement instead; its arguments
    with their defaults filled in, so that one statement has one key however it is called."""
    signature = inspect.signature(build)
    build = cache(build)

    @wraps(build)
    def named(v: Views, *args, **kwargs) -> Statement:
        bound = signature.bind(v, *args, **kwargs)
        bound.apply_defaults()
        return Statement(build, v, tuple(bound.arguments.values())[1:])

    return named


def core(stmt):
    """The SQLAlchemy Core statement: a Statement built, anything else as it is."""
    return stmt.core() if isinstance(stmt, Statement) else stmt


def _snap_range(t):
    """The snapshots [lo, hi] of the database: a delta at lo needs the counters there."""
    from sqlalchemy import and_, bindparam

    return and_(t.c.dbid == bindparam("dbid"), t.c.snap_id.between(bindparam("lo"), bindparam("hi")))


def _chosen(t, chunks: int):
    """The rows of the snapshots [lo, hi], or with `chunks`, of the chosen snapshots among them (a long range's bucket
    boundaries, docs/awr-rules.md §21), their snap_ids bound as `chunks` IN lists (in_lists)."""
    from sqlalchemy import and_

    if not chunks:
        return _snap_range(t)
    return and_(_snap_range(t), _in_lists(t.c.snap_id, chunks))


def _in_lists(column, chunks: int):
    from sqlalchemy import bindparam, or_

    return or_(*[column.in_(bindparam(f"snap_ids_{k}", expanding=True)) for k in range(chunks)])


def in_lists(snap_ids: list[int]) -> dict[str, list[int]]:
    """The binds of `chunks` = len(result) IN lists holding `snap_ids`: at most IN_LIST each, each padded (with its
    last id again) to a power of two or IN_LIST, so that Oracle sees a few distinct statement texts, not one per
    length."""
    out = {}
    for k in range(0, len(snap_ids), IN_LIST):
        part = list(snap_ids[k : k + IN_LIST])
        size = min(IN_LIST, 1 << (len(part) - 1).bit_length())
        out[f"snap_ids_{k // IN_LIST}"] = part + part[-1:] * (size - len(part))
    return out


def _intervals(t):
    """The rows of the intervals (lo, hi], as the AWR report counts a range (docs/awr-rules.md §12): a row at snapshot
    s holds what happened in the interval ending at s."""
    from sqlalchemy import and_, bindparam

    return and_(t.c.dbid == bindparam("dbid"), t.c.snap_id > bindparam("lo"), t.c.snap_id <= bindparam("hi"))


@statement
def databases(v: Views):
    from sqlalchemy import select

    t = v.database_instance
    return select(
        t.c.dbid,
        t.c.instance_number,
        t.c.startup_time,
        t.c.db_name,
        t.c.instance_name,
        t.c.host_name,
        t.c.version,
        t.c.parallel,
        t.c.platform_name,
    ).order_by(t.c.dbid, t.c.instance_number, t.c.startup_time)


@statement
def containers(v: Views):
    """The names of the PDBs of a CDB by CON_DBID, a row per name a PDB had, the newest last (DBA_HIST_PDB_INSTANCE,
    a row per instance startup and PDB; no rows in a non-CDB)."""
    from sqlalchemy import bindparam, func, select

    t = v.pdb_instance
    opened = func.max(t.c.open_time)
    return (
        select(t.c.con_dbid, t.c.pdb_name)
        .where(t.c.dbid == bindparam("dbid"))
        .group_by(t.c.con_dbid, t.c.pdb_name)
        .order_by(opened, t.c.con_dbid)
    )


@statement
def snapshots(v: Views, bound: int):
    """The snapshots of a database, newest first, at most `bound` rows (a setting, never a request value): a
    repository of many years answers with its newest snapshots (docs/awr-rules.md §2)."""
    from sqlalchemy import bindparam, select

    t = v.snapshot
    return (
        select(
            t.c.instance_number,
            t.c.snap_id,
            t.c.startup_time,
            t.c.begin_interval_time,
            t.c.end_interval_time,
            t.c.snap_flag,
            t.c.snap_timezone,
        )
        .where(t.c.dbid == bindparam("dbid"))
        .order_by(t.c.snap_id.desc(), t.c.instance_number)
        .limit(bound)
    )


@statement
def counter_names(v: Views, view: str):
    """The statistics of one counter view at one snapshot, for the catalog."""
    from sqlalchemy import bindparam, select

    t = getattr(v, view)
    return (
        select(t.c.stat_id, t.c.stat_name)
        .distinct()
        .where(t.c.dbid == bindparam("dbid"), t.c.snap_id == bindparam("snap_id"))
    )


@statement
def event_names(v: Views):
    from sqlalchemy import bindparam, select

    t = v.system_event
    return (
        select(t.c.event_id, t.c.event_name, t.c.wait_class)
        .distinct()
        .where(t.c.dbid == bindparam("dbid"), t.c.snap_id == bindparam("snap_id"))
    )


@statement
def metric_names(v: Views, view: str = "sysmetric_summary"):
    from sqlalchemy import bindparam, select

    t = getattr(v, view)
    return (
        select(t.c.metric_id, t.c.metric_name, t.c.metric_unit)
        .distinct()
        .where(t.c.dbid == bindparam("dbid"), t.c.snap_id == bindparam("snap_id"), t.c.group_id == METRIC_GROUP)
    )


@statement
def io_names(v: Views, view: str):
    from sqlalchemy import bindparam, select

    t = getattr(v, view)
    kind = IO_VIEWS[view]
    return (
        select(t.c[f"{kind}_id"], t.c[f"{kind}_name"])
        .distinct()
        .where(t.c.dbid == bindparam("dbid"), t.c.snap_id == bindparam("snap_id"))
    )


@statement
def counter_series(v: Views, view: str, chunks: int = 0):
    """One statistic's cumulative values per instance and snapshot (of the range, or the chosen ones: _chosen)."""
    from sqlalchemy import bindparam, select

    t = getattr(v, view)
    return select(t.c.instance_number, t.c.snap_id, t.c.value).where(
        _chosen(t, chunks), t.c.stat_id == bindparam("item_id")
    )


@statement
def event_series(v: Views, chunks: int = 0):
    from sqlalchemy import bindparam, select

    t = v.system_event
    return select(
        t.c.instance_number,
        t.c.snap_id,
        t.c.total_waits_fg,
        t.c.time_waited_micro_fg,
        t.c.total_waits,
        t.c.time_waited_micro,
    ).where(_chosen(t, chunks), t.c.event_id == bindparam("item_id"))


@statement
def wait_class_series(v: Views, class_totals: bool = False, chunks: int = 0):
    """Foreground time waited per non-idle wait class, summed over its events; read from the embedded store's
    per-snapshot class totals where it keeps them (schema.CLASS_TOTALS)."""
    from sqlalchemy import func, select

    if class_totals:
        from app.store.schema import CLASS_TOTALS

        t = CLASS_TOTALS
        return select(t.c.instance_number, t.c.snap_id, t.c.wait_class, t.c.time_waited_micro_fg).where(
            _chosen(t, chunks)
        )
    t = v.system_event
    return (
        select(t.c.instance_number, t.c.snap_id, t.c.wait_class, func.sum(t.c.time_waited_micro_fg))
        .where(_chosen(t, chunks), t.c.wait_class != "Idle")
        .group_by(t.c.instance_number, t.c.snap_id, t.c.wait_class)
    )


@statement
def metric_series(v: Views):
    from sqlalchemy import bindparam, select

    t = v.sysmetric_summary
    return select(t.c.instance_number, t.c.snap_id, t.c.average, t.c.maxval).where(
        _snap_range(t), t.c.group_id == METRIC_GROUP, t.c.metric_id == bindparam("item_id")
    )


@statement
def running_sums(v: Views, view: str, chunks: int, product: bool = False):
    """Per instance, at the chosen snapshots of [lo, hi] (_chosen; every one without `chunks`), the running sums
    since lo of one reading of a counter view (`view`: the values, and their count) or of one metric's averages
    weighted by their interval (sysmetric_summary: AVERAGE x INTSIZE, and INTSIZE); with `product`, of the metric's
    AVERAGE x that of metric item_id2 at the same snapshot (a derived per-second metric, docs/awr-rules.md §9). The
    difference between two chosen snapshots gives the mean of the rows between them (docs/awr-rules.md §21)."""
    from sqlalchemy import and_, bindparam, func, select

    t = getattr(v, view)
    where, source = [_snap_range(t)], t
    if view == "sysmetric_summary":
        where += [t.c.group_id == METRIC_GROUP, t.c.metric_id == bindparam("item_id"), t.c.average.is_not(None)]
        value = t.c.average * t.c.intsize
        if product:
            u = t.alias("per_second")
            source = t.join(
                u,
                and_(
                    u.c.dbid == t.c.dbid,
                    u.c.instance_number == t.c.instance_number,
                    u.c.snap_id == t.c.snap_id,
                    u.c.group_id == t.c.group_id,
                ),
            )
            where += [u.c.metric_id == bindparam("item_id2"), u.c.average.is_not(None)]
            value = value * u.c.average
        num, den = func.sum(value), func.sum(t.c.intsize)
    else:
        where += [t.c.stat_id == bindparam("item_id"), t.c.value.is_not(None)]
        num, den = func.sum(t.c.value), func.count(t.c.value)
    window = {"partition_by": t.c.instance_number, "order_by": t.c.snap_id}
    sums = (
        select(t.c.instance_number, t.c.snap_id, num.over(**window).label("num"), den.over(**window).label("den"))
        .select_from(source)
        .where(*where)
        .subquery("sums")
    )
    stmt = select(sums.c.instance_number, sums.c.snap_id, sums.c.num, sums.c.den)
    return stmt.where(_in_lists(sums.c.snap_id, chunks)) if chunks else stmt


@statement
def metric_detail_series(v: Views):
    """Per-minute values of one metric (DBA_HIST_SYSMETRIC_HISTORY)."""
    from sqlalchemy import bindparam, select

    t = v.sysmetric_history
    return (
        select(t.c.instance_number, t.c.end_time, t.c.value)
        .where(_intervals(t), t.c.group_id == METRIC_GROUP, t.c.metric_id == bindparam("item_id"))
        .order_by(t.c.instance_number, t.c.end_time)
    )


@statement
def io_series(v: Views, view: str, chunks: int = 0):
    from sqlalchemy import bindparam, select

    t = getattr(v, view)
    kind = IO_VIEWS[view]
    columns = [t.c[c] for c in IO_COLUMNS]
    return select(t.c.instance_number, t.c.snap_id, *columns).where(
        _chosen(t, chunks), t.c[f"{kind}_id"] == bindparam("item_id")
    )


@statement
def counters_at(v: Views, view: str):
    """Named statistics at chosen snapshots (the boundaries of a range), for the Load Profile."""
    from sqlalchemy import bindparam, select

    t = getattr(v, view)
    return select(t.c.instance_number, t.c.snap_id, t.c.stat_name, t.c.value).where(
        t.c.dbid == bindparam("dbid"),
        t.c.snap_id.in_(bindparam("snap_ids", expanding=True)),
        t.c.stat_name.in_(bindparam("names", expanding=True)),
    )


@statement
def events_at(v: Views):
    from sqlalchemy import bindparam, select

    t = v.system_event
    return select(
        t.c.instance_number, t.c.snap_id, t.c.event_name, t.c.wait_class, t.c.total_waits_fg, t.c.time_waited_micro_fg
    ).where(
        t.c.dbid == bindparam("dbid"), t.c.snap_id.in_(bindparam("snap_ids", expanding=True)), t.c.wait_class != "Idle"
    )


def _sqlstat_rows(v: Views, blocks: bool):
    """DBA_HIST_SQLSTAT's rows of the intervals (lo, hi] with what top SQL sums; on the embedded store that keeps
    schema.SQLSTAT_BLOCKS (`blocks`), the blocks inside the range and the view's rows before the first and after the
    last of them. Returns (source, its condition)."""
    from sqlalchemy import Integer, and_, bindparam, func, select, true, union_all

    t = v.sqlstat
    columns = ["con_dbid", "sql_id", "plan_hash_value", *[f"{m}_delta" for m in TOP_SQL_METRICS], "module"]
    columns.append("parsing_schema_name")
    if not blocks:
        return t, _intervals(t)
    from app.store.schema import SQLSTAT_BLOCKS as b

    hi = bindparam("hi", type_=Integer)
    inside = and_(b.c.dbid == bindparam("dbid"), b.c.first_snap > bindparam("lo"), b.c.last_snap <= hi)
    first = select(func.min(b.c.first_snap)).where(inside).scalar_subquery()
    last = select(func.max(b.c.last_snap)).where(inside).scalar_subquery()
    rows = union_all(
        select(*[b.c[c] for c in columns]).where(inside),
        # (lo, first block) and (last block, hi]: one bound each side, so that SQLite seeks to both in its key
        select(*[t.c[c] for c in columns]).where(
            t.c.dbid == bindparam("dbid"), t.c.snap_id > bindparam("lo"), t.c.snap_id < func.coalesce(first, hi + 1)
        ),
        select(*[t.c[c] for c in columns]).where(
            t.c.dbid == bindparam("dbid"), t.c.snap_id > func.coalesce(last, hi), t.c.snap_id <= hi
        ),
    ).subquery("sqlstat")
    return rows, true()


@statement
def top_sql(v: Views, order: str, blocks: bool = False):
    """SQL statements by the summed delta of one metric (`order` is a key of TOP_SQL_ORDER), per container: in a CDB
    root the same SQL_ID runs in several PDBs, each its own row (docs/awr-rules.md §15)."""
    from sqlalchemy import func, select

    t, where = _sqlstat_rows(v, blocks)
    sums = [func.sum(t.c[f"{m}_delta"]).label(m) for m in TOP_SQL_METRICS]
    ranked = func.sum(t.c[f"{TOP_SQL_ORDER[order]}_delta"])
    return (
        select(
            t.c.con_dbid,
            t.c.sql_id,
            t.c.plan_hash_value,
            *sums,
            func.max(t.c.module).label("module"),
            func.max(t.c.parsing_schema_name).label("parsing_schema_name"),
        )
        .where(where)
        .group_by(t.c.con_dbid, t.c.sql_id, t.c.plan_hash_value)
        .order_by(ranked.desc(), t.c.sql_id, t.c.con_dbid)
        .limit(TOP_SQL_ROWS)
    )


@statement
def top_sql_ranked(v: Views, orders: tuple = ("elapsed", "cpu", "gets", "reads"), blocks: bool = False):
    """Top SQL by several orders at once (the range report, docs/awr-rules.md §28): top_sql's sums, made once, ranked
    by each order (ROW_NUMBER, ties as top_sql breaks them); the rows in any order's first TOP_SQL_ROWS, with their
    ranks, so that each order's rows are top_sql's for that order."""
    from sqlalchemy import func, or_, select

    t, where = _sqlstat_rows(v, blocks)
    sums = [func.sum(t.c[f"{m}_delta"]).label(m) for m in TOP_SQL_METRICS]
    grouped = (
        select(
            t.c.con_dbid,
            t.c.sql_id,
            t.c.plan_hash_value,
            *sums,
            func.max(t.c.module).label("module"),
            func.max(t.c.parsing_schema_name).label("parsing_schema_name"),
        )
        .where(where)
        .group_by(t.c.con_dbid, t.c.sql_id, t.c.plan_hash_value)
    ).subquery("grouped")
    g = grouped.c
    ranks = [
        func.row_number().over(order_by=(g[TOP_SQL_ORDER[o]].desc(), g.sql_id, g.con_dbid)).label(f"rank_{o}")
        for o in orders
    ]
    ranked = select(*g, *ranks).subquery("ranked")
    return select(*(ranked.c[c.name] for c in g), *(ranked.c[f"rank_{o}"] for o in orders)).where(
        or_(*(ranked.c[f"rank_{o}"] <= TOP_SQL_ROWS for o in orders))
    )


@statement
def sql_texts(v: Views):
    from sqlalchemy import bindparam, select

    t = v.sqltext
    return select(t.c.sql_id, t.c.sql_text, t.c.command_type).where(
        t.c.dbid == bindparam("dbid"), t.c.sql_id.in_(bindparam("sql_ids", expanding=True))
    )


@statement
def sql_history(v: Views, in_container: bool = False):
    """One statement per snapshot, plan and container; in one container (`con_dbid` bound) when asked."""
    from sqlalchemy import bindparam, select

    t = v.sqlstat
    where = [_intervals(t), t.c.sql_id == bindparam("sql_id")]
    if in_container:
        where.append(t.c.con_dbid == bindparam("con_dbid"))
    return (
        select(
            t.c.instance_number,
            t.c.snap_id,
            t.c.plan_hash_value,
            t.c.module,
            *[t.c[f"{m}_delta"] for m in TOP_SQL_METRICS],
            t.c.con_dbid,
        )
        .where(*where)
        .order_by(t.c.snap_id, t.c.instance_number)
    )


@statement
def tablespaces(v: Views):
    """Tablespace sizes with their names, per container: in a CDB root TS# repeats in every container, so the join
    includes CON_DBID where the release's DBA_HIST_TABLESPACE has it, and so does the block size (schema.ABSENT)."""
    from sqlalchemy import and_, null, select

    u, t = v.tbspc_space_usage, v.tablespace
    on = [t.c.dbid == u.c.dbid, t.c.ts_num == u.c.tablespace_id]
    if "con_dbid" in t.c:
        on.append(t.c.con_dbid == u.c.con_dbid)
    block = t.c.block_size if "block_size" in t.c else null()
    return (
        select(
            u.c.snap_id,
            u.c.con_dbid,
            t.c.tsname,
            t.c.contents,
            block,
            u.c.tablespace_size,
            u.c.tablespace_maxsize,
            u.c.tablespace_usedsize,
        )
        .join_from(u, t, and_(*on))
        .where(_snap_range(u))
        .order_by(u.c.con_dbid, t.c.tsname, u.c.snap_id)
    )


# -- Parameters and the changes layer (docs/awr-rules.md §23) ---------------------------------------------------------

NOT_SET = "FALSE"  # ISDEFAULT and ISMODIFIED of a parameter the parameter file does not set and no ALTER SYSTEM changed
TOP_NEW_PLANS = 20  # a constant of the code: the new plans listed, by their elapsed time in the range


@statement
def parameters_at(v: Views):
    """The parameters in force at the chosen snapshots (one per instance: its own at or before the one asked)."""
    from sqlalchemy import bindparam, select

    t = v.parameter
    return (
        select(t.c.instance_number, t.c.snap_id, t.c.parameter_name, t.c.value, t.c.isdefault, t.c.ismodified)
        .where(t.c.dbid == bindparam("dbid"), t.c.snap_id.in_(bindparam("snap_ids", expanding=True)))
        .order_by(t.c.instance_number, t.c.parameter_name)
    )


def _differs(new, old):
    """new and old differ, NULL being a value (no literal: DECODE(a, b, 0, 1) would send two)."""
    from sqlalchemy import and_, or_

    return or_(new != old, and_(new.is_(None), old.is_not(None)), and_(new.is_not(None), old.is_(None)))


@statement
def parameter_changes(v: Views, runs: bool = False):
    """Each value of a parameter that differs from the one at the instance's previous snapshot in [lo, hi] (LAG per
    instance and parameter, by SNAP_ID), with the old value and its snapshot: the changes seen in (lo, hi]. With
    `runs`, from the embedded store's runs of values (schema.PARAMETER_BASE, `v` unused): where a run follows one
    of another value that lasted until lo or later; the same rows, without a row per snapshot."""
    from sqlalchemy import and_, bindparam, func, select

    if runs:
        from app.store.schema import PARAMETER_BASE

        new, old, last = PARAMETER_BASE, PARAMETER_BASE.alias("old"), PARAMETER_BASE.alias("last")

        def same(a):
            return and_(
                a.c.dbid == new.c.dbid,
                a.c.instance_number == new.c.instance_number,
                a.c.parameter_hash == new.c.parameter_hash,
            )

        before = (
            select(func.max(last.c.first_snap))
            .where(same(last), last.c.first_snap < new.c.first_snap)
            .scalar_subquery()
        )
        return (
            select(
                new.c.instance_number,
                new.c.first_snap,
                new.c.parameter_name,
                old.c.value,
                new.c.value,
                old.c.last_snap,
                new.c.isdefault,
                new.c.ismodified,
            )
            .join_from(new, old, and_(same(old), old.c.first_snap == before))
            .where(
                new.c.dbid == bindparam("dbid"),
                new.c.first_snap > bindparam("lo"),
                new.c.first_snap <= bindparam("hi"),
                old.c.last_snap >= bindparam("lo"),
                _differs(new.c.value, old.c.value),
            )
            .order_by(new.c.first_snap, new.c.instance_number, new.c.parameter_name)
        )
    t = v.parameter
    window = {"partition_by": (t.c.instance_number, t.c.parameter_hash), "order_by": t.c.snap_id}
    seen = (
        select(
            t.c.instance_number,
            t.c.snap_id,
            t.c.parameter_name,
            t.c.value,
            t.c.isdefault,
            t.c.ismodified,
            func.lag(t.c.value).over(**window).label("old_value"),
            func.lag(t.c.snap_id).over(**window).label("old_snap_id"),
        )
        .where(_snap_range(t))
        .subquery("seen")
    )
    new, old = seen.c.value, seen.c.old_value
    return (
        select(
            seen.c.instance_number,
            seen.c.snap_id,
            seen.c.parameter_name,
            old,
            new,
            seen.c.old_snap_id,
            seen.c.isdefault,
            seen.c.ismodified,
        )
        .where(seen.c.snap_id > bindparam("lo"), seen.c.old_snap_id.is_not(None), _differs(new, old))
        .order_by(seen.c.snap_id, seen.c.instance_number, seen.c.parameter_name)
    )


@statement
def non_default_parameters(v: Views, runs: bool = False):
    """The parameters not at their default in [lo, hi]: set in the parameter file (ISDEFAULT FALSE) or changed since
    the startup (ISMODIFIED not FALSE); per instance and value, its first and last snapshot. With `runs`, the
    embedded store's runs of such values that overlap [lo, hi] (schema.PARAMETER_BASE), for the caller to clip to
    the range's snapshots and group."""
    from sqlalchemy import bindparam, func, or_, select

    unset = bindparam("not_set", NOT_SET)
    if runs:
        from app.store.schema import PARAMETER_BASE as b

        return (
            select(b.c.instance_number, b.c.parameter_name, b.c.value, b.c.first_snap, b.c.last_snap)
            .where(
                b.c.dbid == bindparam("dbid"),
                b.c.first_snap <= bindparam("hi"),
                b.c.last_snap >= bindparam("lo"),
                or_(b.c.isdefault == unset, b.c.ismodified != unset),
            )
            .order_by(b.c.parameter_name, b.c.instance_number, b.c.first_snap)
        )
    t = v.parameter
    return (
        select(t.c.instance_number, t.c.parameter_name, t.c.value, func.min(t.c.snap_id), func.max(t.c.snap_id))
        .where(_snap_range(t), or_(t.c.isdefault == unset, t.c.ismodified != unset))
        .group_by(t.c.instance_number, t.c.parameter_name, t.c.value)
        .order_by(t.c.parameter_name, t.c.instance_number, func.min(t.c.snap_id))
    )


@statement
def new_plans(v: Views, firsts: bool = False):
    """Plans first seen in (lo, hi]: per statement, plan, container and instance, the first snapshot of the plan in
    the range, its elapsed time and executions there, for plans no earlier snapshot of any instance has; and the plan
    of the statement's latest snapshot before (none: a new statement, not a new plan). The TOP_NEW_PLANS largest by
    elapsed time. SQL_ID is the leading key of the lookups (Oracle's WRH$_SQLSTAT index and the store's). With
    `firsts` (the embedded store's schema.PLAN_FIRSTS), only the plans whose first snapshot of an instance is in the
    range are summed: a plan an instance ran before the range has an earlier snapshot, so it is never new there."""
    from sqlalchemy import and_, bindparam, exists, func, select

    t = v.sqlstat
    if firsts:
        from app.store.schema import PLAN_FIRSTS as f

        def in_range(column):
            own = t.alias("own")
            return (
                select(func.sum(own.c[column]))
                .where(
                    own.c.dbid == bindparam("dbid"),
                    own.c.sql_id == f.c.sql_id,
                    own.c.snap_id > bindparam("lo"),
                    own.c.snap_id <= bindparam("hi"),
                    own.c.plan_hash_value == f.c.plan_hash_value,
                    own.c.con_dbid == f.c.con_dbid,
                    own.c.instance_number == f.c.instance_number,
                )
                .scalar_subquery()
            )

        r = (
            select(
                f.c.sql_id,
                f.c.plan_hash_value,
                f.c.con_dbid,
                f.c.instance_number,
                f.c.first_snap,
                in_range("elapsed_time_delta").label("elapsed"),
                in_range("executions_delta").label("executions"),
            )
            .where(f.c.dbid == bindparam("dbid"), f.c.first_snap > bindparam("lo"), f.c.first_snap <= bindparam("hi"))
            .subquery("r")
        )
    else:
        r = (
            select(
                t.c.sql_id,
                t.c.plan_hash_value,
                t.c.con_dbid,
                t.c.instance_number,
                func.min(t.c.snap_id).label("first_snap"),
                func.sum(t.c.elapsed_time_delta).label("elapsed"),
                func.sum(t.c.executions_delta).label("executions"),
            )
            .where(_intervals(t))
            .group_by(t.c.sql_id, t.c.plan_hash_value, t.c.con_dbid, t.c.instance_number)
            .subquery("r")
        )
    same, earlier, latest = t.alias("same_plan"), t.alias("earlier"), t.alias("latest")

    def statement_of(a):
        return and_(a.c.dbid == bindparam("dbid"), a.c.sql_id == r.c.sql_id, a.c.con_dbid == r.c.con_dbid)

    last_snap = (
        select(func.max(latest.c.snap_id))
        .where(statement_of(latest), latest.c.snap_id < r.c.first_snap)
        .correlate(r)
        .scalar_subquery()
    )
    previous = (
        select(func.min(earlier.c.plan_hash_value))
        .where(statement_of(earlier), earlier.c.snap_id == last_snap)
        .scalar_subquery()
    )
    seen_before = exists().where(
        statement_of(same), same.c.plan_hash_value == r.c.plan_hash_value, same.c.snap_id < r.c.first_snap
    )
    return (
        select(
            r.c.sql_id,
            r.c.plan_hash_value,
            r.c.con_dbid,
            r.c.instance_number,
            r.c.first_snap,
            r.c.elapsed,
            r.c.executions,
            previous.label("previous_plan"),
        )
        .where(~seen_before, previous.is_not(None))
        .order_by(r.c.elapsed.desc(), r.c.sql_id, r.c.instance_number)
        .limit(TOP_NEW_PLANS)
    )


# -- Event histograms and segment statistics (docs/awr-rules.md §24, §25) ----------------------------------------------

SEGMENT_ORDER = (
    "logical_reads",
    "physical_reads",
    "physical_writes",
    "physical_reads_direct",
    "physical_writes_direct",
    "row_lock_waits",
    "itl_waits",
    "buffer_busy_waits",
    "db_block_changes",
    "space_used",
)
TOP_SEGMENT_ROWS = 100  # a constant of the code, never a request value


@statement
def event_histogram(v: Views):
    """One event's cumulative wait counts per instance, snapshot and bucket (WAIT_TIME_MILLI, the bucket's upper
    bound in ms) over the snapshots [lo, hi], the event's rows of each snapshot summed in the database."""
    from sqlalchemy import bindparam, func, select

    t = v.event_histogram
    return (
        select(t.c.instance_number, t.c.snap_id, t.c.wait_time_milli, func.sum(t.c.wait_count))
        .where(_snap_range(t), t.c.event_id == bindparam("item_id"))
        .group_by(t.c.instance_number, t.c.snap_id, t.c.wait_time_milli)
    )


def _segment_names(v, grouped):
    """The segments of `grouped` (a subquery keyed by con_dbid, ts_num, obj_num, dataobj_num) with their names from
    DBA_HIST_SEG_STAT_OBJ (none where AWR has no name for one)."""
    from sqlalchemy import and_, bindparam

    o = v.seg_stat_obj
    on = and_(
        o.c.dbid == bindparam("dbid"),
        o.c.ts_num == grouped.c.ts_num,
        o.c.obj_num == grouped.c.obj_num,
        o.c.dataobj_num == grouped.c.dataobj_num,
        o.c.con_dbid == grouped.c.con_dbid,
    )
    return o, on


@statement
def top_segments(v: Views, order: str):
    """Segments by the summed *_DELTA of one statistic (`order`, one of SEGMENT_ORDER) over the intervals (lo, hi],
    every statistic summed, with the total of the ranked one over every segment captured, and their names."""
    from sqlalchemy import func, select

    t = v.seg_stat
    keys = (t.c.con_dbid, t.c.ts_num, t.c.obj_num, t.c.dataobj_num)
    ranked = func.sum(t.c[f"{order}_delta"])
    g = (
        select(
            *keys,
            *[func.sum(t.c[f"{s}_delta"]).label(s) for s in SEGMENT_ORDER],
            func.sum(ranked).over().label("captured"),
            ranked.label("ranked"),
        )
        .where(_intervals(t))
        .group_by(*keys)
        .subquery("segments")
    )
    o, on = _segment_names(v, g)
    return (
        select(
            g.c.con_dbid,
            g.c.ts_num,
            g.c.obj_num,
            g.c.dataobj_num,
            o.c.owner,
            o.c.object_name,
            o.c.subobject_name,
            o.c.object_type,
            o.c.tablespace_name,
            *[g.c[s] for s in SEGMENT_ORDER],
            g.c.captured,
        )
        .join_from(g, o, on, isouter=True)
        .order_by(g.c.ranked.desc(), g.c.obj_num, g.c.dataobj_num, g.c.con_dbid)
        .limit(TOP_SEGMENT_ROWS)
    )


@statement
def segment_history(v: Views):
    """One segment (OBJ# and DATAOBJ# bound) per instance and snapshot of the intervals (lo, hi]: its *_DELTA columns
    and space used, and its names (the row's segment in DBA_HIST_SEG_STAT_OBJ)."""
    from sqlalchemy import bindparam, select

    t = v.seg_stat
    o, on = _segment_names(v, t)
    return (
        select(
            t.c.instance_number,
            t.c.snap_id,
            t.c.con_dbid,
            t.c.ts_num,
            *[t.c[f"{s}_delta"] for s in SEGMENT_ORDER],
            t.c.space_used_total,
            o.c.owner,
            o.c.object_name,
            o.c.subobject_name,
            o.c.object_type,
            o.c.tablespace_name,
        )
        .join_from(t, o, on, isouter=True)
        .where(_intervals(t), t.c.obj_num == bindparam("obj"), t.c.dataobj_num == bindparam("dataobj"))
        .order_by(t.c.snap_id, t.c.instance_number)
    )


# -- Active Session History (docs/awr-rules.md §22) -----------------------------------------------------------------

ON_CPU, CPU = "ON CPU", "CPU"  # SESSION_STATE of a sample on CPU, and the name its wait class and event are given
SECONDS_PER_DAY = 86400
TOP_ACTIVITY_ROWS = 25  # a constant of the code: rows of each top list


def _cpu_or(t, column):
    """The column, or 'CPU' for a sample on CPU (whose EVENT and WAIT_CLASS are null)."""
    from sqlalchemy import bindparam, case

    return case((t.c.session_state == bindparam("on_cpu", ON_CPU), bindparam("cpu", CPU)), else_=column)


# group_by -> the columns of a dimension: a fixed list, never a request's text
DIMENSIONS = {
    "wait_class": lambda t: (_cpu_or(t, t.c.wait_class),),
    "event": lambda t: (_cpu_or(t, t.c.event),),
    "sql_id": lambda t: (t.c.sql_id,),
    "top_level_sql_id": lambda t: (t.c.top_level_sql_id,),
    "sql_plan_hash_value": lambda t: (t.c.sql_plan_hash_value,),
    "module": lambda t: (t.c.module,),
    "action": lambda t: (t.c.action,),
    "program": lambda t: (t.c.program,),
    "service": lambda t: (t.c.service_hash,),
    "user": lambda t: (t.c.user_id,),
    "session": lambda t: (t.c.instance_number, t.c.session_id, t.c.session_serial),
    "instance": lambda t: (t.c.instance_number,),
    "machine": lambda t: (t.c.machine,),
    "blocking_session": lambda t: (t.c.blocking_session,),
    "current_obj": lambda t: (t.c.current_obj,),  # CURRENT_OBJ#
}
TOP_LISTS = ("sql_id", "session", "module", "event", "current_obj")


@cache
def _sample_bucket():
    """The SQL function sample_bucket(SAMPLE_TIME, t0, width, seconds_per_day): the bucket of a sample, whole seconds
    from `t0` (bound) to SAMPLE_TIME, // `width` seconds (bound); defined on first use (SQLAlchemy imported then)."""
    from sqlalchemy import Integer
    from sqlalchemy.ext.compiler import compiles
    from sqlalchemy.sql.functions import FunctionElement

    class sample_bucket(FunctionElement):
        type = Integer()
        name = "sample_bucket"
        inherit_cache = True

    @compiles(sample_bucket, "oracle")
    def _bucket_oracle(element, compiler, **kw):
        t, t0, width, day = (compiler.process(c, **kw) for c in element.clauses)
        return f"FLOOR(ROUND((CAST({t} AS DATE) - {t0}) * {day}) / {width})"  # DATE - DATE is days

    @compiles(sample_bucket, "sqlite")
    def _bucket_sqlite(element, compiler, **kw):
        t, t0, width, day = (compiler.process(c, **kw) for c in element.clauses)
        return f"(CAST(round((julianday({t}) - julianday({t0})) * {day}) AS INTEGER) / {width})"

    return sample_bucket


def _ash_where(t, filters):
    """The samples of the intervals (lo, hi] (AWR partitions the view by DBID and SNAP_ID), with each filter a bind."""
    from sqlalchemy import bindparam

    where = [_intervals(t)]
    for name in filters:
        for k, col in enumerate(DIMENSIONS[name](t)):
            where.append(col == bindparam(f"f_{name}_{k}"))
    return where


def _samples(t, columns, filters, extra=()):
    """The range's samples as a subquery of `columns` labelled g0, g1...: grouped outside it, so the GROUP BY names
    plain columns where Oracle would not match an expression holding bind variables to the select list's."""
    from sqlalchemy import select

    return select(*[c.label(f"g{k}") for k, c in enumerate(columns)]).where(*_ash_where(t, filters), *extra).subquery()


@statement
def activity(v: Views, group_by: str, filters: tuple = (), coded: bool = False):
    """Samples per time bucket and group (`group_by` a key of DIMENSIONS, `filters` keys whose values are bound); with
    `coded`, over the embedded store's coded samples (schema.ASH_BASE), the groups named once counted."""
    from sqlalchemy import DateTime, bindparam, func, select

    t = v.active_sess_history
    if coded:
        from app.store.schema import ASH_BASE as t
    bucket = _sample_bucket()(
        t.c.sample_time,
        bindparam("t0", type_=DateTime()),
        bindparam("width"),
        bindparam("seconds_per_day", SECONDS_PER_DAY),
    )
    if not coded:
        s = _samples(t, (bucket, *DIMENSIONS[group_by](t)), filters)
        keys = list(s.c)
        return select(*keys, func.count().label("samples")).group_by(*keys)
    columns = _coded_dimension(t, group_by)
    keys = [bucket, *[c for c, _ in columns]]
    g = (
        select(*[c.label(f"g{k}") for k, c in enumerate(keys)], func.count().label("samples"))
        .where(*_coded_where(t, filters))
        .group_by(*keys)
        .subquery()
    )
    named = [_ash_named(g.c[f"g{k + 1}"], code).label(f"g{k + 1}") for k, (_, code) in enumerate(columns)]
    return select(g.c.g0, *named, g.c.samples)


@statement
def ash_top_groups(v: Views, group_by: str, filters: tuple = ()):
    """Every group of the top list `group_by` over the range from the embedded store's counts per block (schema.ASH_TOP,
    `filters` the instance at most): rows of the group's columns (codes where the samples keep codes), the same
    named, and its samples. SQLite only (`v` unused)."""
    from sqlalchemy import func, select

    from app.store.schema import ASH_TOP_LISTS

    columns = range(len(ASH_TOP_LISTS[group_by]))
    g, named = _ash_top_grouped(group_by, filters, columns, {"samples": lambda c: func.sum(c.c.samples)})
    return select(*[g.c[f"g{k}"].label(f"c{k}") for k in columns], *named, g.c.samples)


@statement
def activity_buckets(v: Views, group_by: str, filters: tuple, top: int):
    """Samples per time bucket of the embedded store's coded samples (schema.ASH_BASE): rows (bucket, n, samples) for
    each of `top` groups of `group_by`, its columns bound as top_{n}_{k} (codes where the samples keep codes; n from 1,
    nulls where fewer), and n = 0 for the other groups together; `top_last` binds the groups' last columns (a sample
    without one of them, or null there, is in no group shown: one lookup rules most out). SQLite only (`v` unused)."""
    from sqlalchemy import DateTime, and_, bindparam, case, func, or_, select

    from app.store.schema import ASH_BASE as t

    bucket = _sample_bucket()(
        t.c.sample_time,
        bindparam("t0", type_=DateTime()),
        bindparam("width"),
        bindparam("seconds_per_day", SECONDS_PER_DAY),
    )
    columns = [c for c, _ in _coded_dimension(t, group_by)]
    shown = [(and_(*[c.is_(bindparam(f"top_{n}_{k}")) for k, c in enumerate(columns)]), n) for n in range(1, top + 1)]
    candidate = or_(columns[-1].in_(bindparam("top_last", expanding=True)), columns[-1].is_(None))
    index = case((candidate, case(*shown, else_=0)), else_=0)
    return (
        select(bucket.label("g0"), index.label("g1"), func.count().label("samples"))
        .where(*_coded_where(t, filters))
        .group_by(bucket, index)
    )


def _ash_top(name: str, filters: tuple, sql_id=None):
    """The embedded store's counts of one top list over the intervals bound as blocks_48 and blocks_6 (the first
    snapshots of schema.ASH_TOP's blocks) and blocks_1 (the snapshots whose coded samples are counted as they are,
    schema.ash_top_blocks), with the instance filter bound as _ash_where binds it, and the list's first column equal
    to `sql_id` (a code) if given: a subquery of the list's columns k0, k1... (codes where the samples keep codes),
    samples and on_cpu. SQLite only."""
    from sqlalchemy import bindparam, case, literal, null, select, union_all

    from app.store.schema import ASH_BASE, ASH_TOP, ASH_TOP_KEYS, ASH_TOP_LISTS, ASH_TOP_SPANS

    if set(filters) - {"instance"}:
        raise ValueError(f"schema.ASH_TOP counts no filter but the instance, not {filters}")

    def arm(source, span, keys, samples, on_cpu, where):
        where = [source.c.dbid == bindparam("dbid"), *where]
        if filters:
            where.append(source.c.instance_number == bindparam("f_instance_0"))
        if sql_id is not None:
            where.append(keys[0] == sql_id)
        first = source.c.first_snap if source is ASH_TOP else source.c.snap_id
        where.append(first.in_(bindparam(f"blocks_{span}", expanding=True)))
        keys = [*keys, *[null()] * (ASH_TOP_KEYS - len(keys))]
        return select(
            *[k.label(f"k{n}") for n, k in enumerate(keys)], samples.label("samples"), on_cpu.label("on_cpu")
        ).where(*where)

    t, b = ASH_TOP, ASH_BASE
    arms = [
        arm(
            t,
            span,
            [t.c[f"k{n}"] for n in range(ASH_TOP_KEYS)],
            t.c.samples,
            t.c.on_cpu,
            [t.c.list == list(ASH_TOP_LISTS).index(name), t.c.span == span],
        )
        for span in ASH_TOP_SPANS
    ]
    by_name = {c.name: c for c in b.c}
    columns = [by_name[c] for c in ASH_TOP_LISTS[name]]
    if name == "event":
        ((columns[0], _),) = _coded_dimension(b, "event")
    on_cpu = b.c.session_state == _ash_code(bindparam("on_cpu", ON_CPU))
    where = [b.c.blocking_session.isnot(None)] if name == "blocking" else []
    arms.append(arm(b, 1, columns, literal(1), case((on_cpu, 1), else_=0), where))
    return union_all(*arms).subquery("counts")


def _ash_named(column, coded: bool):
    """A column of ASH_TOP's counts as the view names it: a code's text from ASH_NAMES."""
    from sqlalchemy import select

    from app.store.schema import ASH_NAMES

    return select(ASH_NAMES.c.value).where(ASH_NAMES.c.id == column).scalar_subquery() if coded else column


def _ash_top_grouped(name: str, filters: tuple, keys: range, sums: dict, sql_id=None):
    """ASH_TOP's counts of the list `name` grouped by its columns `keys` (positions), with `sums` ({label: function
    of the counts}): (a subquery of g0, g1... and the sums' labels, the g columns as the view names them)."""
    from sqlalchemy import select

    from app.store.schema import ASH_TOP_LISTS, ash_coded

    c = _ash_top(name, filters, sql_id)
    columns = [c.c[f"k{k}"] for k in keys]
    g = (
        select(*[col.label(f"g{k}") for k, col in enumerate(columns)], *[f(c).label(n) for n, f in sums.items()])
        .group_by(*columns)
        .subquery("grouped")
    )
    coded = [ash_coded(ASH_TOP_LISTS[name][k]) for k in keys]
    return g, [_ash_named(g.c[f"g{k}"], code).label(f"g{k}") for k, code in enumerate(coded)]


@statement
def activity_top(v: Views, group_by: str, filters: tuple = (), blocks: bool = False):
    """The groups with the most samples over the range, each with its samples on CPU; on the embedded store that
    keeps schema.ASH_TOP (`blocks`), from its counts."""
    from sqlalchemy import bindparam, case, func, select

    if blocks:
        from app.store.schema import ASH_TOP_LISTS

        sums = {"samples": lambda c: func.sum(c.c.samples), "on_cpu": lambda c: func.sum(c.c.on_cpu)}
        g, named = _ash_top_grouped(group_by, filters, range(len(ASH_TOP_LISTS[group_by])), sums)
        return select(*named, g.c.samples, g.c.on_cpu).order_by(g.c.samples.desc(), *named).limit(TOP_ACTIVITY_ROWS)
    t = v.active_sess_history
    s = _samples(
        t, (*DIMENSIONS[group_by](t), case((t.c.session_state == bindparam("on_cpu", ON_CPU), t.c.sample_id))), filters
    )
    *keys, cpu = list(s.c)
    samples = func.count()
    return (
        select(*keys, samples.label("samples"), func.count(cpu).label("on_cpu"))
        .group_by(*keys)
        .order_by(samples.desc(), *keys)
        .limit(TOP_ACTIVITY_ROWS)
    )


def _ash_code(text):
    """The ASH_NAMES code of a text (a bind): NULL where no sample holds it."""
    from sqlalchemy import select

    from app.store.schema import ASH_NAMES

    return select(ASH_NAMES.c.id).where(ASH_NAMES.c.value == text).scalar_subquery()


def _coded_dimension(b, name: str):
    """DIMENSIONS[name] over the coded samples (schema.ASH_BASE), each column with whether it is a code: CPU's code
    for a sample ON CPU, as _cpu_or names it."""
    from sqlalchemy import bindparam, case

    from app.store.schema import ash_coded

    if name in ("wait_class", "event"):
        on_cpu = b.c.session_state == _ash_code(bindparam("on_cpu", ON_CPU))
        return ((case((on_cpu, _ash_code(bindparam("cpu", CPU))), else_=b.c[name]), True),)
    return tuple((c, ash_coded(c.name)) for c in DIMENSIONS[name](b))


def _coded_where(b, filters: tuple) -> list:
    """_ash_where over the coded samples (schema.ASH_BASE): a text filter bound as its code."""
    from sqlalchemy import bindparam

    where = [_intervals(b)]
    for name in filters:
        for k, (col, coded) in enumerate(_coded_dimension(b, name)):
            value = bindparam(f"f_{name}_{k}")
            where.append(col == (_ash_code(value) if coded else value))
    return where


@statement
def activity_top_coded(v: Views, filters: tuple, minus: bool = False):
    """Every top list (TOP_LISTS and the instances) and the blocking sessions of the samples that pass `filters`, in
    one statement over the embedded store's coded samples (schema.ASH_BASE) that reads them once (a filter other than
    the instance, which ASH_TOP cannot count): rows (list, g0..g3, samples, on_cpu or waiters, rank), each list
    ranked as activity_top and blocking rank theirs, its first TOP_ACTIVITY_ROWS. With `minus`, for filters most
    samples pass: each list's counts per block (ASH_TOP, the instance filtered) less the samples that do not pass,
    fewer to read than those that do (docs/awr-rules.md §22). SQLite only (`v` unused)."""
    from sqlalchemy import and_, bindparam, case, func, literal, null, select, union_all

    from app.store.schema import ASH_BASE as b
    from app.store.schema import ASH_TOP_LISTS, ash_coded

    kept = tuple(n for n in filters if n == "instance")  # what ASH_TOP's counts can be filtered on
    where = _coded_where(b, kept)
    others = _coded_where(b, tuple(n for n in filters if n not in kept))[1:]
    if others:
        where.append(and_(*others).is_not(True) if minus else and_(*others))
    on_cpu = b.c.session_state == _ash_code(bindparam("on_cpu", ON_CPU))
    ((event, _),) = _coded_dimension(b, "event")
    columns = {c.name: c for c in b.c if c.name != "event"} | {"event": event, "waited": b.c.event}
    lists = (*TOP_LISTS, "instance", "blocking")
    f = (
        select(*[columns[c].label(c) for c in sorted({*sum((ASH_TOP_LISTS[n] for n in lists), ()), "waited"})])
        .add_columns(case((on_cpu, 1), else_=0).label("cpu"))
        .where(*where)
        .cte("samples")
        .prefix_with("MATERIALIZED")
    )
    arms = []
    for name in lists:
        keys = [f.c["waited" if (name, c) == ("blocking", "event") else c] for c in ASH_TOP_LISTS[name]]
        waiters = name == "blocking"  # its last key: the waiting session, counted
        counted = select(
            *[k.label(f"k{n}") for n, k in enumerate(keys)],
            (-func.count() if minus else func.count()).label("samples"),
            (-func.sum(f.c.cpu) if minus else func.sum(f.c.cpu)).label("x"),
        ).group_by(*keys)
        if waiters:
            counted = counted.where(f.c.blocking_session.isnot(None))
        if minus:
            blocks = _ash_top(name, kept)
            both = union_all(
                select(*[blocks.c[f"k{n}"] for n in range(len(keys))], blocks.c.samples, blocks.c.on_cpu.label("x")),
                counted,
            ).subquery()
            ks = [both.c[f"k{n}"] for n in range(len(keys))]
            total = func.sum(both.c.samples)
            counted = select(*ks, total.label("samples"), func.sum(both.c.x).label("x")).group_by(*ks).having(total > 0)
        c = counted.subquery()
        shown = [c.c[f"k{n}"] for n in range(len(keys) - waiters)]
        g = select(*[k.label(f"g{n}") for n, k in enumerate(shown)])
        if waiters:
            g = g.add_columns(func.sum(c.c.samples).label("samples"), func.count().label("x")).group_by(*shown)
        else:
            g = g.add_columns(c.c.samples, c.c.x)
        g = g.subquery()
        coded = [ash_coded(ASH_TOP_LISTS[name][n]) for n in range(len(shown))]
        named = [_ash_named(g.c[f"g{n}"], code) for n, code in enumerate(coded)]
        rank = func.row_number().over(order_by=(g.c.samples.desc(), *named))
        padded = [*named, *[null()] * (4 - len(named))]
        r = select(
            literal(name).label("list"),
            *[c.label(f"g{k}") for k, c in enumerate(padded)],
            g.c.samples,
            g.c.x,
            rank.label("rank"),
        ).subquery()
        arms.append(select(r).where(r.c.rank <= TOP_ACTIVITY_ROWS))
    every = union_all(*arms).subquery("lists")
    return select(every).order_by(every.c.list, every.c.rank)


@statement
def ash_passing(v: Views, filters: tuple):
    """Of the coded samples of the snapshots bound as `snaps` that pass the instance filter, how many, and how many
    pass the other `filters` too: whether activity_top_coded reads fewer samples with `minus`. SQLite only (`v`
    unused)."""
    from sqlalchemy import and_, bindparam, case, func, select

    from app.store.schema import ASH_BASE as b

    kept = tuple(n for n in filters if n == "instance")
    others = _coded_where(b, tuple(n for n in filters if n not in kept))[1:]
    where = [b.c.dbid == bindparam("dbid"), b.c.snap_id.in_(bindparam("snaps", expanding=True))]
    where += _coded_where(b, kept)[1:]
    return select(func.count(), func.count(case((and_(*others), 1)))).where(*where)


@statement
def blocking(v: Views, filters: tuple = (), blocks: bool = False):
    """Blocking sessions and the events their waiters wait on: waiters' samples and distinct waiting sessions; with
    `blocks`, from schema.ASH_TOP's counts."""
    from sqlalchemy import func, select

    if blocks:
        sums = {"samples": lambda c: func.sum(c.c.samples), "waiters": lambda c: func.count(c.c.k4.distinct())}
        g, named = _ash_top_grouped("blocking", filters, range(4), sums)
        return select(*named, g.c.samples, g.c.waiters).order_by(g.c.samples.desc(), *named).limit(TOP_ACTIVITY_ROWS)
    t = v.active_sess_history
    s = _samples(
        t,
        (t.c.blocking_inst_id, t.c.blocking_session, t.c.blocking_session_serial, t.c.event, t.c.session_id),
        filters,
        (t.c.blocking_session.isnot(None),),
    )
    *keys, waiter = list(s.c)
    samples = func.count()
    return (
        select(*keys, samples.label("samples"), func.count(waiter.distinct()).label("waiters"))
        .group_by(*keys)
        .order_by(samples.desc(), *keys)
        .limit(TOP_ACTIVITY_ROWS)
    )


def _totals_where(t, filters: tuple):
    """The totals of one dimension and period (bound) over the intervals (lo, hi], of one instance if `filters` holds
    it (bound as _ash_where binds it)."""
    from sqlalchemy import bindparam

    instance = [t.c.instance_number == bindparam("f_instance_0")] if "instance" in filters else []
    return (
        t.c.dbid == bindparam("dbid"),
        t.c.dimension == bindparam("dimension"),
        t.c.period == bindparam("period"),
        t.c.snap_id > bindparam("lo"),
        t.c.snap_id <= bindparam("hi"),
        *instance,
    )


@statement
def ash_total_groups(v: Views, filters: tuple = ()):
    """The embedded store's ASH totals (schema.ASH_TOTALS): samples per group over the range (`filters` the instance
    at most), with the group's text (none for code 0). SQLite only: on Oracle `activity` groups the view itself (`v`
    unused: the store's own tables)."""
    from sqlalchemy import func, select

    from app.store.schema import ASH_NAMES, ASH_TOTALS

    t, n = ASH_TOTALS, ASH_NAMES
    g = (
        select(t.c.code, func.sum(t.c.samples).label("samples"))
        .where(*_totals_where(t, filters))
        .group_by(t.c.code)
        .subquery()
    )
    return select(g.c.code, n.c.value, g.c.samples).join_from(g, n, n.c.id == g.c.code, isouter=True)


@statement
def ash_total_buckets(v: Views, filters: tuple = ()):
    """Samples per time bucket of the groups whose codes are bound (`top`), the others together as code -1, from the
    totals of a period that divides the bucket width (`start`, `t0` and `width` in whole seconds); `filters` as
    ash_total_groups."""
    from sqlalchemy import Integer, bindparam, case, func, select

    from app.store.schema import ASH_TOTALS

    t = ASH_TOTALS
    s = (
        select(
            ((t.c.start - bindparam("t0", type_=Integer())) // bindparam("width", type_=Integer())).label("g0"),
            case((t.c.code.in_(bindparam("top", expanding=True)), t.c.code), else_=-1).label("g1"),
            t.c.samples,
        )
        .where(*_totals_where(t, filters))
        .subquery()
    )
    return select(s.c.g0, s.c.g1, func.sum(s.c.samples)).group_by(s.c.g0, s.c.g1)


@statement
def sample_spacing(v: Views):
    """Per instance, over one snapshot's samples: the smallest step between kept SAMPLE_IDs, and the first and last
    SAMPLE_ID and SAMPLE_TIME, which give the seconds per SAMPLE_ID: the spacing of the samples AWR kept (§22)."""
    from sqlalchemy import bindparam, func, select

    t = v.active_sess_history
    ids = (
        select(t.c.instance_number, t.c.sample_id, func.min(t.c.sample_time).label("sample_time"))
        .where(t.c.dbid == bindparam("dbid"), t.c.snap_id == bindparam("snap_id"))
        .group_by(t.c.instance_number, t.c.sample_id)
        .subquery()
    )
    steps = select(
        ids.c.instance_number,
        ids.c.sample_id,
        ids.c.sample_time,
        (
            ids.c.sample_id
            - func.lag(ids.c.sample_id).over(partition_by=ids.c.instance_number, order_by=ids.c.sample_id)
        ).label("step"),
    ).subquery()
    return select(
        steps.c.instance_number,
        func.min(steps.c.step),
        func.min(steps.c.sample_id),
        func.max(steps.c.sample_id),
        func.min(steps.c.sample_time),
        func.max(steps.c.sample_time),
    ).group_by(steps.c.instance_number)


# -- Oracle's own reports (docs/awr-rules.md §27) ---------------------------------------------------------------------

SQL_MONITOR = "sqlmonitor"  # DBA_HIST_REPORTS.COMPONENT_NAME of the SQL monitor reports


def _monitor_reports(t):
    from sqlalchemy import bindparam

    return (t.c.dbid == bindparam("dbid"), t.c.component_name == bindparam("component", SQL_MONITOR))


@statement
def monitored_executions(v: Views, in_container: bool = False):
    """The SQL monitor reports AWR captured of one SQL_ID (KEY1) in the intervals (lo, hi]: SNAP_ID is the first
    snapshot taken after the report was, so a report belongs to the interval it ended in; in one container (`con_dbid`
    bound) when asked."""
    from sqlalchemy import bindparam, select

    t = v.reports
    where = [
        *_monitor_reports(t),
        t.c.snap_id > bindparam("lo"),
        t.c.snap_id <= bindparam("hi"),
        t.c.key1 == bindparam("sql_id"),
    ]
    if in_container:
        where.append(t.c.con_dbid == bindparam("con_dbid"))
    return (
        select(
            t.c.report_id,
            t.c.instance_number,
            t.c.snap_id,
            t.c.key2,
            t.c.key3,
            t.c.period_start_time,
            t.c.period_end_time,
            t.c.session_id,
            t.c.session_serial,
            t.c.report_summary,
        )
        .where(*where)
        .order_by(t.c.period_start_time, t.c.report_id)
    )


@statement
def monitored_execution(v: Views):
    """One SQL monitor report's row, by REPORT_ID."""
    from sqlalchemy import bindparam, select

    t = v.reports
    return select(t.c.report_id, t.c.instance_number, t.c.key1, t.c.key2, t.c.period_start_time).where(
        *_monitor_reports(t), t.c.report_id == bindparam("report_id")
    )


# Oracle renders these itself: DBMS_WORKLOAD_REPOSITORY's pipelined report functions, one row (a line) per OUTPUT, and
# DBMS_AUTO_REPORT.REPORT_REPOSITORY_DETAIL, a CLOB (Oracle Database PL/SQL Packages and Types Reference). Every
# value is a bind: the DBID, the instance (a number; for a global report a list as text, e.g. '1,2'), the snapshot
# ids, the report's id and type.
AWR_REPORT_FUNCTIONS = {  # (kind, type) -> function of DBMS_WORKLOAD_REPOSITORY
    (kind, kind_type): f"AWR_{name}REPORT_{kind_type.upper()}"
    for kind, name in (("report", ""), ("global", "GLOBAL_"), ("diff", "DIFF_"), ("global_diff", "GLOBAL_DIFF_"))
    for kind_type in ("html", "text")
}
AWR_REPORT_BINDS = {False: ":dbid, :inst, :bid, :eid", True: ":dbid, :inst, :bid, :eid, :dbid2, :inst2, :bid2, :eid2"}


@cache
def awr_report(kind: str, kind_type: str):
    """The AWR report (`kind`: report for one instance, global for several of a RAC, diff and global_diff for two
    periods) as html or text, a line a row."""
    from sqlalchemy import text

    binds = AWR_REPORT_BINDS[kind.endswith("diff")]
    return text(f"SELECT output FROM TABLE(DBMS_WORKLOAD_REPOSITORY.{AWR_REPORT_FUNCTIONS[kind, kind_type]}({binds}))")


@cache
def monitor_report():
    """One SQL monitor report of AWR (DBA_HIST_REPORTS.REPORT_ID :rid) rendered as :type (html or text)."""
    from sqlalchemy import text

    return text("SELECT DBMS_AUTO_REPORT.REPORT_REPOSITORY_DETAIL(RID => :rid, TYPE => :type) FROM DUAL")


def report_statements():
    """(name, statement) for every report Oracle renders for the API."""
    for kind, kind_type in AWR_REPORT_FUNCTIONS:
        yield f"oracle report: awr {kind} {kind_type}", awr_report(kind, kind_type)
    yield "oracle report: sql monitor", monitor_report()


@statement
def stored_awr_reports(v: Views):
    """The embedded store's AWR reports of a database (schema.AWR_REPORTS: its own table, `v` unused), without text."""
    from sqlalchemy import bindparam, select

    from app.store.schema import AWR_REPORTS

    t = AWR_REPORTS
    return (
        select(t.c.kind, t.c.instances, t.c.begin_snap, t.c.end_snap, t.c.begin_snap2, t.c.end_snap2, t.c.type)
        .where(t.c.dbid == bindparam("dbid"))
        .order_by(t.c.begin_snap, t.c.kind, t.c.instances, t.c.type)
    )


@statement
def stored_awr_report(v: Views):
    """One of the embedded store's AWR reports, compressed (schema.AWR_REPORTS)."""
    from sqlalchemy import bindparam, select

    from app.store.schema import AWR_REPORTS

    t = AWR_REPORTS
    return select(t.c.report).where(
        *[
            t.c[c] == bindparam(c)
            for c in ("dbid", "kind", "instances", "begin_snap", "end_snap", "begin_snap2", "end_snap2", "type")
        ]
    )


@statement
def stored_monitor_report(v: Views):
    """One of the embedded store's SQL monitor reports, compressed (schema.MONITOR_REPORTS)."""
    from sqlalchemy import bindparam, select

    from app.store.schema import MONITOR_REPORTS

    t = MONITOR_REPORTS
    return select(t.c.report).where(*[t.c[c] == bindparam(c) for c in ("dbid", "report_id", "type")])


# -- Plans, time by plan line and binds (docs/awr-rules.md §26) ------------------------------------------------------

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
    "access_predicates",
    "filter_predicates",
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
def plan_line_activity(v: Views, blocks: bool = False):
    """A statement's ASH samples of the range per plan hash value and plan line, each with its samples on CPU; with
    `blocks`, from schema.ASH_TOP's counts."""
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
        (),
        (t.c.sql_id == bindparam("sql_id"),),
    )
    *keys, cpu = list(s.c)
    return select(*keys, func.count().label("samples"), func.count(cpu).label("on_cpu")).group_by(*keys).order_by(*keys)


@statement
def sql_binds(v: Views):
    """The bind values captured for a statement in the intervals (lo, hi]."""
    from sqlalchemy import bindparam, select

    t = v.sqlbind
    return (
        select(*[t.c[c] for c in BIND_COLUMNS])
        .where(_intervals(t), t.c.sql_id == bindparam("sql_id"))
        .order_by(t.c.snap_id, t.c.instance_number, t.c.position)
    )


def capped(stmt, row_cap: int):
    """The statement as sent: a query without a row limit of its own returns one row more than AWRLENS_ROW_CAP at
    most, so a question too wide stops in the database and is answered 422 (Store.rows)."""
    from sqlalchemy import Select

    if isinstance(stmt, Select) and stmt._limit_clause is None:
        return stmt.limit(row_cap + 1)
    return stmt


def all_statements(v: Views, row_cap: int = Settings.row_cap, max_points: int = Settings.max_points):
    """(name, statement) for every statement the API can run, as sent with AWRLENS_ROW_CAP = `row_cap` and, for a
    range longer than AWRLENS_MAX_POINTS = `max_points` intervals, its bucket boundaries in as many IN lists as
    that many snapshots need, for review and for tests."""
    for name, stmt in statements(v, row_cap, max_points):
        yield name, capped(stmt.core(), row_cap)


def statements(v: Views, row_cap: int, max_points: int = Settings.max_points):
    """(name, Statement) for every statement the API can run."""
    chunks = -(-max(max_points, 1) // IN_LIST)
    yield "databases", databases(v)
    yield "snapshots", snapshots(v, row_cap)
    yield "containers", containers(v)
    for view in COUNTER_VIEWS:
        yield f"catalog: {view}", counter_names(v, view)
        yield f"series: {view}", counter_series(v, view)
        yield f"load profile: {view}", counters_at(v, view)
    yield "catalog: system_event", event_names(v)
    yield "catalog: sysmetric_summary", metric_names(v)
    yield "catalog: sysmetric_history", metric_names(v, "sysmetric_history")
    for view in IO_VIEWS:
        yield f"catalog: {view}", io_names(v, view)
        yield f"series: {view}", io_series(v, view)
    yield "series: system_event", event_series(v)
    yield "series: wait classes", wait_class_series(v)
    long = "series, a range longer than max_points intervals"  # docs/awr-rules.md §21
    for view in COUNTER_VIEWS:
        yield f"{long}: {view}", counter_series(v, view, chunks)
    for view in ("sysstat", "osstat"):  # the views with readings (docs/awr-rules.md §8)
        yield f"{long}: {view} readings", running_sums(v, view, chunks)
    yield f"{long}: system_event", event_series(v, chunks)
    yield f"{long}: wait classes", wait_class_series(v, False, chunks)
    yield f"{long}: sysmetric_summary", running_sums(v, "sysmetric_summary", chunks)
    yield f"{long}: derived per-second metrics", running_sums(v, "sysmetric_summary", chunks, True)
    for view in IO_VIEWS:
        yield f"{long}: {view}", io_series(v, view, chunks)
    yield "series: sysmetric_summary", metric_series(v)
    yield "series: sysmetric_history", metric_detail_series(v)
    yield "top events", events_at(v)
    for order in TOP_SQL_ORDER:
        yield f"top sql by {order}", top_sql(v, order)
    yield "top sql by elapsed, cpu, gets and reads (the range report)", top_sql_ranked(v)
    yield "sql text", sql_texts(v)
    yield "sql detail", sql_history(v)
    yield "sql detail in one container", sql_history(v, True)
    yield "tablespaces", tablespaces(v)
    yield "parameters at a snapshot", parameters_at(v)
    yield "parameter changes", parameter_changes(v)
    yield "non-default parameters", non_default_parameters(v)
    yield "new plans", new_plans(v)
    yield "event histogram", event_histogram(v)
    for order in SEGMENT_ORDER:
        yield f"top segments by {order}", top_segments(v, order)
    yield "segment detail", segment_history(v)
    yield "ash: sample spacing", sample_spacing(v)
    for name in DIMENSIONS:
        yield f"ash: activity by {name}", activity(v, name)
    yield "ash: activity by event for one sql_id", activity(v, "event", ("sql_id",))
    yield "ash: activity by sql_id in one session", activity(v, "sql_id", ("session",))
    for name in TOP_LISTS:
        yield f"ash: top {name}", activity_top(v, name)
    yield "ash: blocking sessions", blocking(v)
    yield "sql monitor: executions of a statement", monitored_executions(v)
    yield "sql monitor: executions of a statement in one container", monitored_executions(v, True)
    yield "sql monitor: one execution", monitored_execution(v)
    yield "sql plans", sql_plans(v)
    yield "ash: samples by plan line of one sql_id", plan_line_activity(v)
    yield "sql binds", sql_binds(v)


def render(stmt, dialect) -> str:
    """The statement's text for a dialect, as sent; an expanding IN list shows as (:name_1, :name_2, ...)."""
    compiled = stmt.compile(dialect=dialect)
    text = re.sub(r"\(__\[POSTCOMPILE_(\w+)\]\)", r"(:\1_1, :\1_2, ...)", str(compiled))
    # a literal the driver receives inline (the top-SQL row limit) shows as its value
    return re.sub(r"__\[POSTCOMPILE_(\w+)\]", lambda m: str(compiled.params[m.group(1)]), text)
