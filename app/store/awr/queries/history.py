"""The history statements: databases, snapshots, the catalog, series, Load Profile, top events, top SQL and
tablespaces."""

from app.store.awr.queries.core import _chosen, _in_lists, _intervals, _snap_range, statement
from app.store.awr.views import IO_COLUMNS, TOP_SQL_METRICS, Views

COUNTER_VIEWS = ("sysstat", "sys_time_model", "osstat")
IO_VIEWS = {"iostat_function": "function", "iostat_filetype": "filetype"}
METRIC_GROUP = 2  # the 60-second system metrics
TOP_SQL_ROWS = 200  # a constant of the code, never a request value
TOP_SQL_ORDER = {
    "elapsed": "elapsed_time",
    "cpu": "cpu_time",
    "gets": "buffer_gets",
    "reads": "disk_reads",
    "executions": "executions",
    "rows": "rows_processed",
}


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
def baselines(v: Views):
    """The database's AWR baselines (docs/awr-rules.md §33): each one's name, type, first and last snapshot, the moving
    window's size in days and how long it is kept, in the order of their first snapshot."""
    from sqlalchemy import bindparam, select

    t = v.baseline
    return (
        select(
            t.c.baseline_id,
            t.c.baseline_name,
            t.c.baseline_type,
            t.c.start_snap_id,
            t.c.end_snap_id,
            t.c.moving_window_size,
            t.c.expiration,
            t.c.creation_time,
        )
        .where(t.c.dbid == bindparam("dbid"))
        .order_by(t.c.start_snap_id, t.c.baseline_name)
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
    per-snapshot class totals where it keeps them (embedded.summaries.CLASS_TOTALS)."""
    from sqlalchemy import func, select

    if class_totals:
        from app.store.awr.embedded.summaries import CLASS_TOTALS

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
    """Named statistics at chosen snapshots (the boundaries of a range), for the Load Profile. DBA_HIST_PGASTAT
    names its statistic NAME, the others STAT_NAME."""
    from sqlalchemy import bindparam, select

    t = getattr(v, view)
    name = t.c.stat_name if "stat_name" in t.c else t.c.name
    return select(t.c.instance_number, t.c.snap_id, name, t.c.value).where(
        t.c.dbid == bindparam("dbid"),
        t.c.snap_id.in_(bindparam("snap_ids", expanding=True)),
        name.in_(bindparam("names", expanding=True)),
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
    embedded.summaries.SQLSTAT_BLOCKS (`blocks`), the blocks inside the range and the view's rows before the first and
    after the last of them. Returns (source, its condition)."""
    from sqlalchemy import Integer, and_, bindparam, func, select, true, union_all

    t = v.sqlstat
    columns = ["con_dbid", "sql_id", "plan_hash_value", *[f"{m}_delta" for m in TOP_SQL_METRICS], "module"]
    columns.append("parsing_schema_name")
    if not blocks:
        return t, _intervals(t)
    from app.store.awr.embedded.summaries import SQLSTAT_BLOCKS as b

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
    from sqlalchemy import func

    t, grouped = _sqlstat_sums(v, blocks)
    ranked = func.sum(t.c[f"{TOP_SQL_ORDER[order]}_delta"])
    return grouped.order_by(ranked.desc(), t.c.sql_id, t.c.con_dbid).limit(TOP_SQL_ROWS)


def _sqlstat_sums(v: Views, blocks: bool):
    """The rows top SQL reads (_sqlstat_rows) and the statement summing them per container, SQL_ID and plan: the
    metrics' deltas, a module and a parsing schema."""
    from sqlalchemy import func, select

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
    )
    return t, grouped


@statement
def top_sql_ranked(v: Views, orders: tuple = ("elapsed", "cpu", "gets", "reads"), blocks: bool = False):
    """Top SQL by several orders at once (the range report, docs/awr-rules.md §28): top_sql's sums, made once, ranked
    by each order (ROW_NUMBER, ties as top_sql breaks them); the rows in any order's first TOP_SQL_ROWS, with their
    ranks, so that each order's rows are top_sql's for that order."""
    from sqlalchemy import func, or_, select

    grouped = _sqlstat_sums(v, blocks)[1].subquery("grouped")
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
    includes CON_DBID where the release's DBA_HIST_TABLESPACE has it, and so does the block size (awr.views.ABSENT).
    In the order of the keys of both tables (container, TS#, snapshot), so no sort: a tablespace dropped and created
    again under its name has two TS#, whose rows the caller puts in time order."""
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
        .order_by(t.c.con_dbid if "con_dbid" in t.c else u.c.con_dbid, t.c.ts_num, u.c.snap_id)
    )
