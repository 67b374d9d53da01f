"""The STATS$ tables read in the shape of the AWR views (docs/awr-rules.md §31): `statspack_views().sysstat` is a
selectable with DBA_HIST_SYSSTAT's columns over PERFSTAT.STATS$SYSSTAT, so the statements of app.store.awr.queries
ask Statspack as they ask AWR. Where Statspack differs, the shape says so:

- a snapshot's interval begins at the instance's previous snapshot of the same startup (STATS$SNAPSHOT keeps only
  SNAP_TIME), or at the startup;
- the SQL summaries and segment statistics are cumulative values of what passed the thresholds at each snapshot:
  an interval's delta is the difference from the instance's previous snapshot of the same startup when both hold
  the row and the values did not fall (a cursor loaded again); otherwise the interval is a gap for that row, never
  its whole cumulative value and never a reset;
- names Statspack keeps apart (time model, OS statistics, I/O functions) are joined in; wait classes come from
  V$EVENT_NAME, which Statspack does not copy.

What Statspack does not keep (ASH, the system metrics, tablespace usage, captured binds, services, containers,
reports) raises NotInSource, naming what is missing."""

from functools import cache

from app.errors import ApiError
from app.store.awr.views import NEWEST, SEGMENT_STATS, SQL_METRICS, views
from app.store.statspack.tables import OWNER, PLAN_LEVEL, SEGMENT_COLUMNS, SEGMENT_LEVEL, SQL_LEVEL, table

# DBA_HIST_SQLSTAT's metrics (awr.views.SQL_METRICS) from STATS$SQL_SUMMARY's columns
SQL_COLUMNS = {
    "executions": "executions",
    "elapsed_time": "elapsed_time",
    "cpu_time": "cpu_time",
    "buffer_gets": "buffer_gets",
    "disk_reads": "disk_reads",
    "rows_processed": "rows_processed",
    "iowait": "user_io_wait_time",
    "clwait": "cluster_wait_time",
    "apwait": "application_wait_time",
    "ccwait": "concurrency_wait_time",
}
# what the AWR views hold that Statspack does not, in words for the error
ASH = (
    "Active Session History (ASH is part of the Diagnostics Pack; Statspack samples none): its overview's AAS is the "
    "snapshots' (DB time / elapsed)"
)
NOT_KEPT = {
    "active_sess_history": ASH,
    "live_ash": ASH,
    "ash_info": ASH,
    "sysmetric_summary": "system metrics (V$SYSMETRIC)",
    "sysmetric_history": "system metrics (V$SYSMETRIC)",
    "iostat_filetype": "I/O by file type",
    "tablespace": "tablespace usage",
    "tbspc_space_usage": "tablespace usage",
    "pdb_instance": "containers",
    "reports": "Oracle reports (DBA_HIST_REPORTS)",
    "sqlbind": "captured bind values",
    "service_name": "services",
}


class NotInSource(ApiError, AttributeError):
    """A question about what the database's source does not keep."""

    status, code = 404, "not_in_source"


def not_kept(view: str) -> NotInSource:
    """The error of a question about AWR view `view` (its short name, e.g. "active_sess_history"), which Statspack
    does not keep."""
    kept = NOT_KEPT.get(view, view.replace("_", " "))
    return NotInSource(f"this database's history is Statspack, which keeps no {kept}")


class StatspackViews:
    """The STATS$ tables under `owner` (None: the embedded store's) as the AWR views' selectables."""

    source = "statspack"
    keeps = ("plan_firsts",)  # the Store flags its views answer for themselves (Store.reading)

    def __init__(self, owner: str | None = OWNER, release: str = NEWEST, embedded: bool = False):
        self.owner, self.release, self.embedded = owner, release, embedded
        self._built: dict = {}

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        built = self._built.get(name)
        if built is None:
            build = _VIEWS.get(name)
            if build is None:
                raise not_kept(name)
            built = self._built[name] = build(self)
        return built

    def t(self, name: str):
        return table(name, self.owner)


def _snapshot(v):
    """STATS$SNAPSHOT as DBA_HIST_SNAPSHOT: BEGIN_INTERVAL_TIME the instance's previous SNAP_TIME of the same startup,
    or the startup."""
    from sqlalchemy import func, literal, null, select

    s = v.t("stats$snapshot")
    run = {"partition_by": (s.c.dbid, s.c.instance_number, s.c.startup_time), "order_by": s.c.snap_id}
    return select(
        s.c.snap_id,
        s.c.dbid,
        s.c.instance_number,
        s.c.startup_time,
        func.coalesce(func.lag(s.c.snap_time).over(**run), s.c.startup_time).label("begin_interval_time"),
        s.c.snap_time.label("end_interval_time"),
        null().label("flush_elapsed"),
        s.c.snap_level,
        literal(0).label("error_count"),
        literal(0).label("snap_flag"),
        null().label("snap_timezone"),
    ).subquery("snapshot")


def _database_instance(v):
    from sqlalchemy import literal, null, select

    d = v.t("stats$database_instance")
    return select(
        d.c.dbid,
        d.c.instance_number,
        d.c.startup_time,
        d.c.parallel,
        d.c.version,
        d.c.db_name,
        d.c.instance_name,
        d.c.host_name,
        d.c.platform_name,
        literal("NO").label("cdb"),
        null().label("edition"),
        d.c.db_name.label("db_unique_name"),
        null().label("database_role"),
    ).subquery("database_instance")


def _sysstat(v):
    from sqlalchemy import select

    s = v.t("stats$sysstat")
    return select(
        s.c.snap_id,
        s.c.dbid,
        s.c.instance_number,
        s.c.statistic.label("stat_id"),
        s.c.name.label("stat_name"),
        s.c.value,
        s.c.dbid.label("con_dbid"),
    ).subquery("sysstat")


def _named(v, values: str, names: str, key: str, alias: str):
    """A counter table whose names Statspack keeps in a table of their own, joined."""
    from sqlalchemy import select

    s, n = v.t(values), v.t(names)
    return (
        select(
            s.c.snap_id,
            s.c.dbid,
            s.c.instance_number,
            s.c[key].label("stat_id"),
            n.c.stat_name,
            s.c.value,
            s.c.dbid.label("con_dbid"),
        )
        .select_from(s.join(n, n.c[key] == s.c[key]))
        .subquery(alias)
    )


def _event_class(v, e):
    """V$EVENT_NAME joined to an event table by EVENT_ID, for the wait class."""
    n = v.t("v$event_name")
    return e.outerjoin(n, n.c.event_id == e.c.event_id), n


def _system_event(v):
    from sqlalchemy import select

    e = v.t("stats$system_event")
    joined, n = _event_class(v, e)
    return (
        select(
            e.c.snap_id,
            e.c.dbid,
            e.c.instance_number,
            e.c.event_id,
            e.c.event.label("event_name"),
            n.c.wait_class_id,
            n.c.wait_class,
            e.c.total_waits,
            e.c.total_timeouts,
            e.c.time_waited_micro,
            e.c.total_waits_fg,
            e.c.total_timeouts_fg,
            e.c.time_waited_micro_fg,
            e.c.dbid.label("con_dbid"),
        )
        .select_from(joined)
        .subquery("system_event")
    )


def _event_histogram(v):
    from sqlalchemy import select

    h = v.t("stats$event_histogram")
    joined, n = _event_class(v, h)
    return (
        select(
            h.c.snap_id,
            h.c.dbid,
            h.c.instance_number,
            h.c.event_id,
            n.c.name.label("event_name"),
            n.c.wait_class_id,
            n.c.wait_class,
            h.c.wait_time_milli,
            h.c.wait_count,
            h.c.dbid.label("con_dbid"),
        )
        .select_from(joined)
        .subquery("event_histogram")
    )


def _deltas(v, name: str, key: tuple, columns: dict, level: int, extra: dict, alias: str):
    """A table of cumulative values (`name`; `columns`: DBA_HIST name -> its column) as *_TOTAL and *_DELTA per row
    of `key`, by sprepins.sql's rule: a row's delta is its value less the value of the key's previous row in the
    same startup (however many snapshots between: a row that fell below the thresholds and returned spans the gap,
    it does not start again). Without such a row, or where the first column fell or the ADDRESS changed (the cursor
    began again), its whole value, if the instance's previous snapshot since the startup was taken at `level` or
    higher, or there was none; otherwise (that level kept no such rows) what came before is not known: the row is
    left out, as if that snapshot had not kept it.

    Each row finds the previous ones by key (an index probe each, no window over the whole history), so a range's
    bounds reach the table itself. `extra`: the other columns, DBA_HIST name -> the table's column, or a function of
    the row's table."""
    from sqlalchemy import and_, case, func, or_, select

    t, snaps = v.t(name), v.t("stats$snapshot")
    older = t.alias("older")
    earlier = snaps.alias("earlier")
    same = [older.c[k] == t.c[k] for k in ("dbid", "instance_number", *key)]
    found = select(
        t,
        select(func.max(older.c.snap_id)).where(*same, older.c.snap_id < t.c.snap_id).scalar_subquery().label("b_snap"),
        select(func.max(earlier.c.snap_id))
        .where(
            earlier.c.dbid == t.c.dbid,
            earlier.c.instance_number == t.c.instance_number,
            earlier.c.snap_id < t.c.snap_id,
        )
        .scalar_subquery()
        .label("p_snap"),
    ).subquery(f"{alias}_found")
    b, e_snap, b_snap, p = t.alias("b"), snaps.alias("e_snap"), snaps.alias("b_snapshot"), snaps.alias("p")

    def at(s, snap_id):
        return and_(s.c.dbid == found.c.dbid, s.c.instance_number == found.c.instance_number, s.c.snap_id == snap_id)

    joined = (
        found.join(e_snap, at(e_snap, found.c.snap_id))
        .outerjoin(
            b, and_(*[b.c[k] == found.c[k] for k in ("dbid", "instance_number", *key)], b.c.snap_id == found.c.b_snap)
        )
        .outerjoin(b_snap, at(b_snap, found.c.b_snap))
        .outerjoin(p, at(p, found.c.p_snap))
    )
    first = next(iter(columns.values()))
    goes_on = and_(
        b_snap.c.startup_time == e_snap.c.startup_time,
        b.c[first] <= found.c[first],
        *([b.c.address == found.c.address] if "address" in t.c else []),
    )
    whole = or_(p.c.snap_id.is_(None), p.c.startup_time != e_snap.c.startup_time, p.c.snap_level >= level)
    out = []
    for metric, column in columns.items():
        value = found.c[column]
        out.append(value.label(f"{metric}_total"))
        out.append(case((goes_on, value - b.c[column]), else_=value).label(f"{metric}_delta"))
    return (
        select(*[(found.c[x] if isinstance(x, str) else x(found)).label(n) for n, x in extra.items()], *out)
        .select_from(joined)
        .where(or_(goes_on, whole))  # a row whose interval is not known is no row of it
        .subquery(alias)
    )


def _sqlstat(v):
    """STATS$SQL_SUMMARY as DBA_HIST_SQLSTAT (_deltas): a statement by its OLD_HASH_VALUE and TEXT_SUBSET (as
    sprepins.sql); its plan the one STATS$SQL_PLAN_USAGE names at the snapshot (level 6 and higher; 0 below)."""
    from sqlalchemy import func, null, select

    u = v.t("stats$sql_plan_usage")

    def plan(s):
        used = select(func.max(u.c.plan_hash_value)).where(
            u.c.dbid == s.c.dbid,
            u.c.snap_id == s.c.snap_id,
            u.c.instance_number == s.c.instance_number,
            u.c.old_hash_value == s.c.old_hash_value,
            u.c.text_subset == s.c.text_subset,
        )
        return func.coalesce(used.scalar_subquery(), 0)

    return _deltas(
        v,
        "stats$sql_summary",
        ("old_hash_value", "text_subset"),
        {m: SQL_COLUMNS[m] for m in SQL_METRICS},
        SQL_LEVEL,
        {
            **{n: n for n in ("snap_id", "dbid", "instance_number", "sql_id")},
            "plan_hash_value": plan,
            "module": "module",
            "action": lambda s: null(),
            "parsing_schema_name": lambda s: null(),
            "con_dbid": "dbid",
        },
        "sqlstat",
    )


TEXT_PIECES = 62  # STATS$SQLTEXT's pieces of 64 characters joined: 3,968, under VARCHAR2's 4,000 (LISTAGG's limit)


def _sqltext(v):
    """A statement's text from STATS$SQLTEXT, its first TEXT_PIECES pieces joined in order. The table keeps no DBID
    (the text is the statement's wherever it ran): each database's the same."""
    from sqlalchemy import func, literal, select, true

    t, d = v.t("stats$sqltext"), v.t("stats$database_instance")
    pieces = select(t.c.sql_id, t.c.piece, t.c.sql_text, t.c.command_type).where(t.c.piece < TEXT_PIECES)
    if v.embedded:  # SQLite joins a group's values in the order the rows come
        p = pieces.order_by(t.c.sql_id, t.c.piece).subquery("pieces")
        text = func.group_concat(p.c.sql_text, literal(""))
    else:
        p = pieces.subquery("pieces")
        text = func.listagg(p.c.sql_text).within_group(p.c.piece)  # no delimiter: the pieces joined
    texts = (
        select(p.c.sql_id, text.label("sql_text"), func.max(p.c.command_type).label("command_type"))
        .group_by(p.c.sql_id)
        .subquery("texts")
    )
    dbids = select(d.c.dbid).distinct().subquery("dbids")
    return (
        select(dbids.c.dbid, texts.c.sql_id, texts.c.sql_text, texts.c.command_type, dbids.c.dbid.label("con_dbid"))
        .select_from(dbids.join(texts, true()))
        .subquery("sqltext")
    )


def _sql_plan(v):
    """STATS$SQL_PLAN (by PLAN_HASH_VALUE alone) for each statement STATS$SQL_PLAN_USAGE says used it."""
    from sqlalchemy import null, select

    p, u = v.t("stats$sql_plan"), v.t("stats$sql_plan_usage")
    used = select(u.c.dbid, u.c.sql_id, u.c.plan_hash_value).distinct().subquery("used")
    return (
        select(
            used.c.dbid,
            used.c.sql_id,
            p.c.plan_hash_value,
            p.c.id,
            p.c.operation,
            p.c.options,
            p.c.object_owner,
            p.c.object_name,
            p.c.parent_id,
            p.c.depth,
            p.c.position,
            p.c.cost,
            p.c.cardinality,
            p.c.bytes,
            p.c.access_predicates,
            p.c.filter_predicates,
            null().label("timestamp"),
            p.c.cpu_cost,
            p.c.io_cost,
            p.c.time,
            null().label("other_xml"),  # STATS$SQL_PLAN keeps no OTHER_XML (spctab.sql)
            used.c.dbid.label("con_dbid"),
        )
        .select_from(p.join(used, used.c.plan_hash_value == p.c.plan_hash_value))
        .subquery("sql_plan")
    )


def _seg_stat(v):
    """STATS$SEG_STAT as DBA_HIST_SEG_STAT (_deltas, a segment by its object and data object: a TRUNCATE gives a new
    one; level 7 and higher). The statistics Statspack keeps no column for (space, table scans, I/O requests) are
    null."""
    from sqlalchemy import null

    names = ("snap_id", "dbid", "instance_number", "ts_num", "obj_num", "dataobj_num")
    extra = {n: n for n in names} | {"con_dbid": "dbid"}
    unknown = [stat for stat in SEGMENT_STATS if stat not in SEGMENT_COLUMNS]
    extra |= {f"{stat}_{w}": lambda s: null() for stat in unknown for w in ("total", "delta")}
    key = ("obj_num", "dataobj_num", "ts_num")
    return _deltas(v, "stats$seg_stat", key, SEGMENT_COLUMNS, SEGMENT_LEVEL, extra, "seg_stat")


def _seg_stat_obj(v):
    from sqlalchemy import null, select

    o = v.t("stats$seg_stat_obj")
    return select(
        o.c.dbid,
        o.c.ts_num,
        o.c.obj_num,
        o.c.dataobj_num,
        o.c.owner,
        o.c.object_name,
        o.c.subobject_name,
        o.c.object_type,
        o.c.tablespace_name,
        null().label("partition_type"),
        o.c.dbid.label("con_dbid"),
    ).subquery("seg_stat_obj")


def _parameter(v):
    from sqlalchemy import select

    p = v.t("stats$parameter")
    return select(
        p.c.snap_id,
        p.c.dbid,
        p.c.instance_number,
        p.c.name.label("parameter_hash"),  # a parameter's identity: its name (Statspack keeps no hash)
        p.c.name.label("parameter_name"),
        p.c.value,
        p.c.isdefault,
        p.c.ismodified,
        p.c.dbid.label("con_dbid"),
    ).subquery("parameter")


def _iostat_function(v):
    from sqlalchemy import select

    f, n = v.t("stats$iostat_function"), v.t("stats$iostat_function_name")
    return (
        select(f, n.c.function_name, f.c.dbid.label("con_dbid"))
        .select_from(f.join(n, n.c.function_id == f.c.function_id))
        .subquery("iostat_function")
    )


def _plan_firsts(v):
    """Each plan's first snapshot per statement and instance, from STATS$SQL_PLAN_USAGE, in the shape of the embedded
    store's summaries.PLAN_FIRSTS: only where the instance's snapshot before was taken at level 6 or higher too (the
    plans of the first snapshot that keeps plans are not new, only newly kept)."""
    from sqlalchemy import and_, func, select

    u, s = v.t("stats$sql_plan_usage"), v.t("stats$snapshot")
    firsts = (
        select(
            u.c.dbid,
            u.c.sql_id,
            u.c.plan_hash_value,
            u.c.instance_number,
            func.min(u.c.snap_id).label("first_snap"),
        )
        .group_by(u.c.dbid, u.c.sql_id, u.c.plan_hash_value, u.c.instance_number)
        .subquery("firsts")
    )
    earlier = s.alias("earlier")
    before = (
        select(func.max(earlier.c.snap_id))
        .where(
            earlier.c.dbid == firsts.c.dbid,
            earlier.c.instance_number == firsts.c.instance_number,
            earlier.c.snap_id < firsts.c.first_snap,
        )
        .scalar_subquery()
    )
    return (
        select(
            firsts.c.dbid,
            firsts.c.dbid.label("con_dbid"),
            firsts.c.sql_id,
            firsts.c.plan_hash_value,
            firsts.c.instance_number,
            firsts.c.first_snap,
        )
        .select_from(
            firsts.join(
                s,
                and_(s.c.dbid == firsts.c.dbid, s.c.instance_number == firsts.c.instance_number, s.c.snap_id == before),
            )
        )
        .where(s.c.snap_level >= PLAN_LEVEL)
        .subquery("plan_firsts")
    )


def _pgastat(v):
    from sqlalchemy import select

    t = v.t("stats$pgastat")
    return select(t, t.c.dbid.label("con_dbid")).subquery("pgastat")


def _dictionary(name: str):
    """The dictionary views (awr.views.DICTIONARY), as the AWR side reads them."""
    return lambda v: getattr(views("dba_hist_", v.release, v.embedded), name)


_VIEWS = {
    "snapshot": _snapshot,
    "database_instance": _database_instance,
    "sysstat": _sysstat,
    "sys_time_model": lambda v: _named(
        v, "stats$sys_time_model", "stats$time_model_statname", "stat_id", "sys_time_model"
    ),
    "osstat": lambda v: _named(v, "stats$osstat", "stats$osstatname", "osstat_id", "osstat"),
    "system_event": _system_event,
    "event_histogram": _event_histogram,
    "sqlstat": _sqlstat,
    "sqltext": _sqltext,
    "sql_plan": _sql_plan,
    "seg_stat": _seg_stat,
    "seg_stat_obj": _seg_stat_obj,
    "parameter": _parameter,
    "iostat_function": _iostat_function,
    "plan_firsts": _plan_firsts,
    "pgastat": _pgastat,
    "users": _dictionary("users"),
    "objects": _dictionary("objects"),
}


@cache
def statspack_views(owner: str | None = OWNER, release: str = NEWEST, embedded: bool = False) -> StatspackViews:
    return StatspackViews(owner, release, embedded)
