"""The AWR views awrlens reads, as SQLAlchemy Core tables with Oracle's view and column names.

The same definitions create the embedded SQLite store and build every query for Oracle, so what runs on
SQLite is the logic that runs on Oracle. Names are lower case so Oracle sees them unquoted (case-insensitive).
Table names carry a view prefix: dba_hist_ by default, awr_pdb_ or awr_root_ on a multitenant Oracle.
The primary keys exist only for SQLite, which clusters rows by them (WITHOUT ROWID) in the order the app
scans: one statistic of one database, per instance, by snapshot.

The views as each supported release has them (docs/awr-rules.md §1): `views(prefix, release)` leaves out the
columns that release lacks (ABSENT), and a statement that can do without a column checks for it; the embedded
store has every column.
"""

import zlib
from functools import cache, cached_property

PREFIXES = ("dba_hist_", "awr_pdb_", "awr_root_")
# Views Oracle defines under DBA_HIST_ only, with no AWR_PDB_ or AWR_ROOT_ twin (tests/data/oracle_views.json
# "_dba_hist_only"): every prefix reads them as DBA_HIST_ (docs/awr-rules.md §27 says what a root and a PDB see).
DBA_HIST_ONLY = ("reports",)


def view_name(prefix: str, name: str) -> str:
    """The name of AWR view `name` (e.g. "sysstat") under `prefix`: DBA_HIST_ for those Oracle has only there."""
    return ("dba_hist_" if name in DBA_HIST_ONLY else prefix) + name


# The Oracle releases awrlens supports: python-oracledb's thin mode connects to 12.1 and later
# (docs/oracle.md, Supported releases).
RELEASES = ("12.1", "12.2", "18c", "19c", "21c", "23ai")
NEWEST = RELEASES[-1]
# Columns of these tables that a release's views lack: from the Oracle Database Reference of each release, the pages
# tests/data/oracle_views.json names under "_releases" (a later release lacks none of them). 12.1: DBA_HIST_DATABASE_
# INSTANCE gained CDB, EDITION, DB_UNIQUE_NAME and DATABASE_ROLE in 12.2.0.1; the 12.1 Reference has no page for
# DBA_HIST_TABLESPACE, whose definition there is taken from Oracle's catalog script (no BLOCK_SIZE, no CON_DBID).
# AWR_PDB_ and AWR_ROOT_ views exist from 12.2 on.
ABSENT = {
    "12.1": {
        "database_instance": ("cdb", "edition", "db_unique_name", "database_role"),
        "tablespace": ("block_size", "con_dbid"),
    }
}

SQL_METRICS = (
    "executions",
    "elapsed_time",
    "cpu_time",
    "buffer_gets",
    "disk_reads",
    "rows_processed",
    "iowait",
    "clwait",
    "apwait",
    "ccwait",
)
IO_COLUMNS = (
    "small_read_megabytes",
    "small_write_megabytes",
    "large_read_megabytes",
    "large_write_megabytes",
    "small_read_reqs",
    "small_write_reqs",
    "large_read_reqs",
    "large_write_reqs",
)
# DBA_HIST_SEG_STAT's *_DELTA columns awrlens reads, in the view's order (docs/awr-rules.md §25)
SEGMENT_STATS = (
    "logical_reads",
    "buffer_busy_waits",
    "db_block_changes",
    "physical_reads",
    "physical_writes",
    "physical_reads_direct",
    "physical_writes_direct",
    "itl_waits",
    "row_lock_waits",
    "space_used",
    "space_allocated",
)
CLASS_TOTALS_NAME = "awrlens_wait_class_totals"  # schema.CLASS_TOTALS
SQLSTAT_BLOCKS_NAME = "awrlens_sqlstat_blocks"  # schema.SQLSTAT_BLOCKS
PLAN_FIRSTS_NAME = "awrlens_plan_firsts"  # schema.PLAN_FIRSTS
BLOCK_SNAPS = 48  # snapshots per block of SQLSTAT_BLOCKS: a day of half-hour snapshots
TOP_SQL_METRICS = SQL_METRICS[:6]  # what top SQL sums (docs/awr-rules.md §15)

# The tables are built on first use, and SQLAlchemy imported then: the embedded store's reads never need them
# (app/store/queries/).


def _ints(*names):
    from sqlalchemy import Column, Integer

    return [Column(n, Integer, nullable=False) for n in names]


def _table(md, name, *columns, key, rowid=False, drop=()):
    """A table of `columns` but those named in `drop`, keyed by `key` (SQLite clusters by it)."""
    from sqlalchemy import PrimaryKeyConstraint, Table

    return Table(
        name,
        md,
        *[c for c in columns if c.name not in drop],
        PrimaryKeyConstraint(*[k for k in key if k not in drop]),
        sqlite_with_rowid=rowid,
    )


def _con():
    """CON_DBID, last as in Oracle (12.1 and later): the container a row belongs to; in a non-CDB, the DBID."""
    from sqlalchemy import Column, Integer

    return Column("con_dbid", Integer)


def _views(md, p: str, absent: dict) -> None:
    from sqlalchemy import Column, Float, Index, Integer, String, Table, Text

    N = Integer  # NUMBER holding whole values (SQLite INTEGER is 64-bit)
    R = Float  # NUMBER holding fractions
    TS = String(26)  # TIMESTAMP(3)/DATE: ISO text on SQLite, datetime on Oracle
    by_snap = ("dbid", "instance_number", "snap_id")

    def table(name, *columns, key):
        short = name[len(p) :]
        return _table(md, view_name(p, short), *columns, key=key, drop=absent.get(short, ()))

    table(
        f"{p}database_instance",
        *_ints("dbid", "instance_number"),
        Column("startup_time", TS, nullable=False),
        Column("parallel", String(3)),
        Column("version", String(17)),
        Column("db_name", String(9)),
        Column("instance_name", String(16)),
        Column("host_name", String(64)),
        Column("platform_name", String(101)),
        Column("cdb", String(3)),
        Column("edition", String(7)),
        Column("db_unique_name", String(30)),
        Column("database_role", String(16)),
        key=("dbid", "instance_number", "startup_time"),
    )
    table(
        f"{p}snapshot",
        *_ints("snap_id", "dbid", "instance_number"),
        Column("startup_time", TS, nullable=False),
        Column("begin_interval_time", TS, nullable=False),
        Column("end_interval_time", TS, nullable=False),
        Column("flush_elapsed", R),
        Column("snap_level", N),
        Column("error_count", N),
        Column("snap_flag", N),
        Column("snap_timezone", R),  # INTERVAL DAY TO SECOND on Oracle, seconds here
        key=by_snap,
    )
    for view in ("sysstat", "sys_time_model", "osstat"):
        table(
            f"{p}{view}",
            *_ints("snap_id", "dbid", "instance_number", "stat_id"),
            Column("stat_name", String(64), nullable=False),
            Column("value", R),
            _con(),
            key=("dbid", "stat_id", "instance_number", "snap_id"),
        )
    table(
        f"{p}system_event",
        *_ints("snap_id", "dbid", "instance_number", "event_id"),
        Column("event_name", String(64), nullable=False),
        Column("wait_class_id", N),
        Column("wait_class", String(64)),
        Column("total_waits", N),
        Column("total_timeouts", N),
        Column("time_waited_micro", N),
        Column("total_waits_fg", N),
        Column("total_timeouts_fg", N),
        Column("time_waited_micro_fg", N),
        _con(),
        key=("dbid", "event_id", "instance_number", "snap_id"),
    )
    table(
        f"{p}sysmetric_summary",
        *_ints("snap_id", "dbid", "instance_number", "group_id", "metric_id"),
        Column("begin_time", TS),
        Column("end_time", TS),
        Column("intsize", N),
        Column("metric_name", String(64)),
        Column("metric_unit", String(64)),
        Column("num_interval", N),
        Column("minval", R),
        Column("maxval", R),
        Column("average", R),
        Column("standard_deviation", R),
        Column("sum_squares", R),
        _con(),
        key=("dbid", "group_id", "metric_id", "instance_number", "snap_id"),
    )
    table(
        f"{p}sysmetric_history",
        *_ints("snap_id", "dbid", "instance_number", "group_id", "metric_id"),
        Column("begin_time", TS, nullable=False),
        Column("end_time", TS),
        Column("intsize", N),
        Column("metric_name", String(64)),
        Column("value", R),
        Column("metric_unit", String(64)),
        _con(),
        key=("dbid", "group_id", "metric_id", "instance_number", "begin_time"),
    )
    table(
        f"{p}iostat_function",
        *_ints("snap_id", "dbid", "instance_number", "function_id"),
        Column("function_name", String(30)),
        *[Column(c, N) for c in IO_COLUMNS],
        Column("number_of_waits", N),
        Column("wait_time", N),
        _con(),
        key=("dbid", "function_id", "instance_number", "snap_id"),
    )
    table(
        f"{p}iostat_filetype",
        *_ints("snap_id", "dbid", "instance_number", "filetype_id"),
        Column("filetype_name", String(30)),
        *[Column(c, N) for c in IO_COLUMNS],
        Column("small_sync_read_reqs", N),
        Column("small_read_servicetime", N),
        Column("small_write_servicetime", N),
        Column("small_sync_read_latency", N),
        Column("large_read_servicetime", N),
        Column("large_write_servicetime", N),
        _con(),
        key=("dbid", "filetype_id", "instance_number", "snap_id"),
    )
    sqlstat = table(
        f"{p}sqlstat",
        *_ints("snap_id", "dbid", "instance_number"),
        Column("sql_id", String(13), nullable=False),
        Column("plan_hash_value", N, nullable=False),
        Column("module", String(64)),
        Column("action", String(64)),
        Column("parsing_schema_name", String(128)),
        *[Column(f"{m}_{s}", N) for m in SQL_METRICS for s in ("total", "delta")],
        _con(),
        key=("dbid", "snap_id", "instance_number", "sql_id", "plan_hash_value", "con_dbid"),
    )
    Index(f"{p}sqlstat_by_sql", sqlstat.c.dbid, sqlstat.c.sql_id, sqlstat.c.snap_id)
    table(
        f"{p}sqltext",
        *_ints("dbid"),
        Column("sql_id", String(13), nullable=False),
        Column("sql_text", Text),
        Column("command_type", N),
        _con(),
        key=("dbid", "sql_id", "con_dbid"),
    )
    table(
        f"{p}tablespace",
        *_ints("dbid"),
        Column("TS#", N, key="ts_num", nullable=False),
        Column("tsname", String(30), nullable=False),
        Column("contents", String(30)),
        Column("block_size", N),
        _con(),
        key=("dbid", "con_dbid", "ts_num"),
    )
    table(
        f"{p}tbspc_space_usage",
        *_ints("dbid", "snap_id", "tablespace_id"),
        Column("tablespace_size", N),
        Column("tablespace_maxsize", N),
        Column("tablespace_usedsize", N),
        Column("rtime", String(25)),
        _con(),
        key=("dbid", "con_dbid", "tablespace_id", "snap_id"),
    )
    table(
        f"{p}pdb_instance",
        *_ints("dbid", "instance_number"),
        Column("startup_time", TS, nullable=False),
        Column("con_dbid", N, nullable=False),
        Column("open_time", TS),
        Column("open_mode", String(16)),
        Column("pdb_name", String(128)),
        key=("dbid", "instance_number", "startup_time", "con_dbid"),
    )
    # one row per sampled active session (docs/awr-rules.md §22); the columns awrlens reads, all in 11.2 and later
    table(
        f"{p}active_sess_history",
        *_ints("snap_id", "dbid", "instance_number", "sample_id"),
        Column("sample_time", TS, nullable=False),
        Column("session_id", N, nullable=False),
        Column("SESSION_SERIAL#", N, key="session_serial"),
        Column("session_type", String(10)),
        Column("user_id", N),
        Column("sql_id", String(13)),
        Column("top_level_sql_id", String(13)),
        Column("sql_plan_hash_value", N),
        Column("sql_plan_line_id", N),
        Column("sql_plan_operation", String(64)),
        Column("sql_plan_options", String(64)),
        Column("event", String(64)),
        Column("wait_class", String(64)),
        Column("session_state", String(7)),
        Column("blocking_session", N),
        Column("BLOCKING_SESSION_SERIAL#", N, key="blocking_session_serial"),
        Column("blocking_inst_id", N),
        Column("CURRENT_OBJ#", N, key="current_obj"),
        Column("module", String(64)),
        Column("action", String(64)),
        Column("program", String(64)),
        Column("service_hash", N),
        Column("machine", String(64)),
        _con(),
        key=("dbid", "snap_id", "instance_number", "sample_id", "session_id"),
    )
    # the reports AWR captured, 12.1 and later (docs/awr-rules.md §27): a SQL monitor report is COMPONENT_NAME
    # 'sqlmonitor', KEY1 its SQL_ID, KEY2 SQL_EXEC_ID, KEY3 SQL_EXEC_START; SNAP_ID the first snapshot after it.
    # DBA_HIST_REPORTS under every prefix (DBA_HIST_ONLY); WRP$_REPORTS, under it, is partitioned by GENERATION_TIME
    table(
        f"{p}reports",
        *_ints("snap_id", "dbid", "instance_number", "report_id"),
        Column("component_name", String(128)),
        Column("session_id", N),
        Column("SESSION_SERIAL#", N, key="session_serial"),
        Column("period_start_time", TS),
        Column("period_end_time", TS),
        Column("generation_time", TS),
        Column("report_name", String(128)),
        Column("key1", String(128)),
        Column("key2", String(128)),
        Column("key3", String(128)),
        Column("report_summary", String(4000)),
        _con(),
        key=("dbid", "report_id"),
    )
    # the initialization parameters in force at each snapshot (docs/awr-rules.md §23): V$SYSTEM_PARAMETER's snapshots
    table(
        f"{p}parameter",
        *_ints("snap_id", "dbid", "instance_number", "parameter_hash"),
        Column("parameter_name", String(64), nullable=False),
        Column("value", String(512)),
        Column("isdefault", String(9)),
        Column("ismodified", String(10)),
        _con(),
        key=("dbid", "instance_number", "parameter_hash", "snap_id", "con_dbid"),
    )
    # execution plans (docs/awr-rules.md §26): one row per plan line, not per snapshot
    table(
        f"{p}sql_plan",
        *_ints("dbid"),
        Column("sql_id", String(13), nullable=False),
        Column("plan_hash_value", N, nullable=False),
        Column("id", N, nullable=False),
        Column("operation", String(30)),
        Column("options", String(30)),
        Column("object_owner", String(128)),
        Column("object_name", String(128)),
        Column("parent_id", N),
        Column("depth", N),
        Column("position", N),
        Column("cost", N),
        Column("cardinality", N),
        Column("bytes", N),
        Column("access_predicates", String(4000)),
        Column("filter_predicates", String(4000)),
        Column("timestamp", TS),
        _con(),
        key=("dbid", "sql_id", "plan_hash_value", "con_dbid", "id"),
    )
    # captured bind values per snapshot (docs/awr-rules.md §26)
    table(
        f"{p}sqlbind",
        *_ints("snap_id", "dbid", "instance_number"),
        Column("sql_id", String(13), nullable=False),
        Column("name", String(128)),
        Column("position", N, nullable=False),
        Column("datatype_string", String(15)),
        Column("was_captured", String(3)),
        Column("last_captured", TS),
        Column("value_string", String(4000)),
        _con(),
        key=("dbid", "sql_id", "snap_id", "instance_number", "position", "con_dbid"),
    )
    # latency histograms of the wait events (docs/awr-rules.md §24): cumulative counts per bucket of powers of two ms
    table(
        f"{p}event_histogram",
        *_ints("snap_id", "dbid", "instance_number", "event_id"),
        Column("event_name", String(64), nullable=False),
        Column("wait_class_id", N),
        Column("wait_class", String(64)),
        Column("wait_time_milli", N, nullable=False),
        Column("wait_count", N),
        _con(),
        key=("dbid", "event_id", "instance_number", "snap_id", "wait_time_milli", "con_dbid"),
    )
    # segment statistics (docs/awr-rules.md §25): the top segments of each snapshot, their interval's *_DELTA columns
    table(
        f"{p}seg_stat",
        *_ints("snap_id", "dbid", "instance_number"),
        Column("TS#", N, key="ts_num", nullable=False),
        Column("OBJ#", N, key="obj_num", nullable=False),
        Column("DATAOBJ#", N, key="dataobj_num", nullable=False),
        *[Column(f"{s}_delta", N) for s in SEGMENT_STATS],
        Column("space_used_total", N),
        Column("space_allocated_total", N),
        _con(),
        key=("dbid", "snap_id", "instance_number", "ts_num", "obj_num", "dataobj_num", "con_dbid"),
    )
    table(
        f"{p}seg_stat_obj",
        *_ints("dbid"),
        Column("TS#", N, key="ts_num", nullable=False),
        Column("OBJ#", N, key="obj_num", nullable=False),
        Column("DATAOBJ#", N, key="dataobj_num", nullable=False),
        Column("owner", String(128), nullable=False),
        Column("object_name", String(128), nullable=False),
        Column("subobject_name", String(128)),
        Column("object_type", String(18)),
        Column("tablespace_name", String(30)),
        Column("partition_type", String(8)),
        _con(),
        key=("dbid", "ts_num", "obj_num", "dataobj_num", "con_dbid"),
    )
    sga = Table(
        f"{p}sgastat",
        md,
        *_ints("snap_id", "dbid", "instance_number"),
        Column("pool", String(30)),
        Column("name", String(64)),
        Column("bytes", N),
        _con(),
    )
    Index(f"{p}sgastat_by_snap", *[sga.c[c] for c in by_snap])
    pga = Table(
        f"{p}pgastat",
        md,
        *_ints("snap_id", "dbid", "instance_number"),
        Column("name", String(64)),
        Column("value", N),
        _con(),
    )
    Index(f"{p}pgastat_by_snap", *[pga.c[c] for c in by_snap])


# The one table the embedded store keeps besides the views: each snapshot's foreground time waited per non-idle wait
# class, DBA_HIST_SYSTEM_EVENT summed once when the store is built, so AAS by wait class (docs/awr-rules.md §10) reads
# a row per class instead of one per event (BENCHMARKS.md). On Oracle the statement sums the view itself. The Table is
# CLASS_TOTALS, built on first use (__getattr__ below).
CLASS_TOTALS_FILL = (  # the store's own rows only: nothing from a request
    f"INSERT INTO {CLASS_TOTALS_NAME} SELECT snap_id, dbid, instance_number, wait_class, sum(time_waited_micro_fg) "
    "FROM dba_hist_system_event WHERE wait_class != 'Idle' GROUP BY dbid, snap_id, instance_number, wait_class "
    "ORDER BY dbid, snap_id, instance_number, wait_class"
)


@cache
def _class_totals():
    from sqlalchemy import Column, Integer, MetaData, String

    return _table(
        MetaData(),
        CLASS_TOTALS_NAME,
        *_ints("snap_id", "dbid", "instance_number"),
        Column("wait_class", String(64), nullable=False),
        Column("time_waited_micro_fg", Integer),
        key=("dbid", "snap_id", "instance_number", "wait_class"),
    )


# Top SQL over a long range sums DBA_HIST_SQLSTAT's deltas of every snapshot, and grouping them is most of its time
# (BENCHMARKS.md). The embedded store also keeps them summed per statement, plan and container over blocks of
# BLOCK_SNAPS snapshot ids ((snap_id - 1) // BLOCK_SNAPS): a range reads the blocks inside it and the view's rows at
# its two ends only (queries.top_sql). On Oracle the statement sums the view itself. The Table is SQLSTAT_BLOCKS.
SQLSTAT_BLOCKS_FILL = (  # the store's own rows only: nothing from a request
    f"INSERT INTO {SQLSTAT_BLOCKS_NAME} SELECT dbid, (snap_id - 1) / {BLOCK_SNAPS} * {BLOCK_SNAPS} + 1 AS first_snap, "
    f"(snap_id - 1) / {BLOCK_SNAPS} * {BLOCK_SNAPS} + {BLOCK_SNAPS}, con_dbid, sql_id, plan_hash_value, "
    + ", ".join(f"sum({m}_delta)" for m in TOP_SQL_METRICS)
    + ", max(module), max(parsing_schema_name) FROM dba_hist_sqlstat "
    "GROUP BY dbid, first_snap, con_dbid, sql_id, plan_hash_value ORDER BY dbid, first_snap, con_dbid, sql_id, "
    "plan_hash_value"
)


@cache
def _sqlstat_blocks():
    from sqlalchemy import Column, Integer, MetaData, String

    return _table(
        MetaData(),
        SQLSTAT_BLOCKS_NAME,
        *_ints("dbid", "first_snap", "last_snap", "con_dbid"),
        Column("sql_id", String(13), nullable=False),
        Column("plan_hash_value", Integer, nullable=False),
        *[Column(f"{m}_delta", Integer) for m in TOP_SQL_METRICS],
        Column("module", String(64)),
        Column("parsing_schema_name", String(128)),
        key=("dbid", "first_snap", "con_dbid", "sql_id", "plan_hash_value"),
    )


# New plans (the changes layer, docs/awr-rules.md §23) are the plans whose first snapshot falls in the range: the
# statement grouped every DBA_HIST_SQLSTAT row of the range to find them. The embedded store keeps each plan's first
# snapshot per statement, container and instance (a few hundred rows), so a range looks up the plans first seen in it
# and sums only their rows (queries.new_plans). On Oracle the statement groups the view itself. The Table is
# PLAN_FIRSTS.
PLAN_FIRSTS_FILL = (  # the store's own rows only: nothing from a request
    f"INSERT INTO {PLAN_FIRSTS_NAME} SELECT dbid, con_dbid, sql_id, plan_hash_value, instance_number, min(snap_id) "
    "FROM dba_hist_sqlstat GROUP BY dbid, con_dbid, sql_id, plan_hash_value, instance_number"
)


@cache
def _plan_firsts():
    from sqlalchemy import Column, Integer, MetaData, String

    return _table(
        MetaData(),
        PLAN_FIRSTS_NAME,
        *_ints("dbid", "con_dbid"),
        Column("sql_id", String(13), nullable=False),
        *[Column(c, Integer, nullable=False) for c in ("plan_hash_value", "instance_number", "first_snap")],
        key=("dbid", "con_dbid", "sql_id", "plan_hash_value", "instance_number"),
    )


def store_only_tables() -> tuple[str, ...]:
    """The tables only the embedded store keeps (its summaries of the views, the coded samples and names under its
    ASH view, Oracle's reports as rendered, the parameters' runs of values): a statement that reads one has no
    counterpart on Oracle, which answers from the views."""
    return (
        CLASS_TOTALS_NAME,
        SQLSTAT_BLOCKS_NAME,
        PLAN_FIRSTS_NAME,
        ASH_BASE_NAME,
        ASH_NAMES_NAME,
        ASH_TOTALS_NAME,
        ASH_TOP_NAME,
        AWR_REPORTS_NAME,
        MONITOR_REPORTS_NAME,
        PARAMETER_BASE_NAME,
    )


def fill_summaries(con, ash_top: bool = True):
    """Write the embedded store's summaries of its views (CLASS_TOTALS, SQLSTAT_BLOCKS, PLAN_FIRSTS, ASH_TOP) anew
    from the views' rows: when the store is built, and after rows are added to a view of a built store (a sqlite3
    connection; the caller commits). The demo builder counts ASH_TOP per instance as it builds (`ash_top`)."""
    for name, fill in (
        (CLASS_TOTALS_NAME, CLASS_TOTALS_FILL),
        (SQLSTAT_BLOCKS_NAME, SQLSTAT_BLOCKS_FILL),
        (PLAN_FIRSTS_NAME, PLAN_FIRSTS_FILL),
    ):
        con.execute(f"DELETE FROM {name}")
        con.execute(fill)
    found = con.execute("SELECT name FROM sqlite_master WHERE name IN (?, ?)", (ASH_TOP_NAME, ASH_BASE_NAME))
    if ash_top and len(found.fetchall()) == 2:  # a store that keeps its samples coded, and ASH_TOP
        con.execute(f"DELETE FROM {ASH_TOP_NAME}")
        for fill in ash_top_fill():
            con.execute(fill)


def __getattr__(name: str):
    """schema.CLASS_TOTALS, SQLSTAT_BLOCKS, PLAN_FIRSTS, ASH_BASE, ASH_NAMES, ASH_TOTALS, ASH_TOP, AWR_REPORTS,
    MONITOR_REPORTS and PARAMETER_BASE: Tables built on first use (PEP 562)."""
    if name == "CLASS_TOTALS":
        return _class_totals()
    if name == "SQLSTAT_BLOCKS":
        return _sqlstat_blocks()
    if name == "PLAN_FIRSTS":
        return _plan_firsts()
    if name in ("ASH_BASE", "ASH_NAMES"):
        return _ash_tables()[name == "ASH_NAMES"]
    if name == "ASH_TOTALS":
        return _ash_totals()
    if name == "ASH_TOP":
        return _ash_top()
    if name in ("AWR_REPORTS", "MONITOR_REPORTS"):
        return _report_tables()[name == "MONITOR_REPORTS"]
    if name == "PARAMETER_BASE":
        return _parameter_base()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Views:
    """The AWR views under one prefix as one release has them: `Views('dba_hist_').sysstat` is the Table
    dba_hist_sysstat. The tables are built on first use."""

    def __init__(self, prefix: str = "dba_hist_", release: str = NEWEST):
        if prefix not in PREFIXES:
            raise ValueError(f"view prefix must be one of {', '.join(PREFIXES)}, not {prefix!r}")
        if release not in RELEASES:
            raise ValueError(f"release must be one of {', '.join(RELEASES)}, not {release!r}")
        self.prefix, self.release = prefix, release

    @cached_property
    def metadata(self):
        from sqlalchemy import MetaData

        metadata = MetaData()
        _views(metadata, self.prefix, ABSENT.get(self.release, {}))
        return metadata

    def __getattr__(self, name: str):
        try:
            return self.metadata.tables[view_name(self.prefix, name)]
        except KeyError:
            raise AttributeError(name) from None


@cache
def views(prefix: str = "dba_hist_", release: str = NEWEST) -> Views:
    return Views(prefix, release)


def release_of(version: str) -> str:
    """The supported release a server version string ("19.3.0.0.0", "23.26.0.0.0") belongs to; ValueError before
    12.1. A release newer than the newest known is taken as the newest (views gain columns, they do not lose them)."""
    try:
        major, minor = (int(x) for x in version.split(".")[:2])
    except (AttributeError, ValueError):
        raise ValueError(f"not an Oracle version: {version!r}") from None
    if (major, minor) < (12, 1):
        raise ValueError(f"Oracle {version} is older than 12.1, the oldest release awrlens supports")
    if major == 12:
        return "12.1" if minor == 1 else "12.2"
    known = {18: "18c", 19: "19c", 20: "19c", 21: "21c"}  # 20c was never released for production
    return known.get(major, NEWEST if major > 21 else "19c")


# Active Session History on disk (docs/awr-rules.md §22). The embedded store keeps DBA_HIST_ACTIVE_SESS_HISTORY
# as Oracle does, as a view over a table (Oracle's WRH$_ACTIVE_SESSION_HISTORY): the view has Oracle's name and
# columns, and the table keeps each text column as a code of ASH_NAMES, as most samples repeat a few hundred texts
# (SQL_IDs, events, modules...): 113 bytes a sample instead of 216. Statements read the view; a store made
# otherwise may keep a plain table of the same name.
ASH_CODED = (
    "session_type",
    "sql_id",
    "top_level_sql_id",
    "sql_plan_operation",
    "sql_plan_options",
    "event",
    "wait_class",
    "session_state",
    "module",
    "action",
    "program",
    "machine",
)
ASH_CODE_SPACE = (1 << 23) - 1  # codes of at most 3 bytes in a record


def ash_code(text: str) -> int:
    """The code of a text in ASH_NAMES: a function of the text alone, so every build process agrees without talking
    to the others (the merge fails on a collision: ASH_NAMES.id is its key); 0 is none."""
    return zlib.crc32(text.encode()) % ASH_CODE_SPACE + 1


ASH_BASE_NAME, ASH_NAMES_NAME, ASH_TOTALS_NAME = (
    "awrlens_active_sess_history",
    "awrlens_ash_names",
    "awrlens_ash_totals",
)


@cache
def _ash_tables():
    """(ASH_BASE, ASH_NAMES), built on first use (__getattr__ above)."""
    from sqlalchemy import Column, Integer, MetaData, PrimaryKeyConstraint, Table, Text

    md = MetaData()
    ash = views().active_sess_history
    base = Table(
        ASH_BASE_NAME,
        md,
        *[Column(c.name, Integer if c.key in ASH_CODED else c.type, key=c.key, nullable=c.nullable) for c in ash.c],
        PrimaryKeyConstraint(*[c.name for c in ash.primary_key.columns]),
        sqlite_with_rowid=False,
    )
    names = Table(ASH_NAMES_NAME, md, Column("id", Integer, primary_key=True), Column("value", Text, nullable=False))
    return base, names


def ash_view_ddl(prefix: str = "dba_hist_") -> str:
    """CREATE VIEW of the store's DBA_HIST_ACTIVE_SESS_HISTORY over ASH_BASE: every column under Oracle's name, a
    coded one as its text."""
    cols = []
    for c in _ash_tables()[0].c:
        cols.append(
            f'(SELECT n.value FROM {ASH_NAMES_NAME} n WHERE n.id = a."{c.name}") AS "{c.name}"'
            if c.key in ASH_CODED
            else f'a."{c.name}"'
        )
    return f"CREATE VIEW {prefix}active_sess_history AS SELECT {', '.join(cols)} FROM {ASH_BASE_NAME} a"


# Samples per minute and per half hour of each snapshot and instance, by wait class, event and SQL_ID (ASH_TOTAL_
# DIMENSIONS, in that order from 1), counted when the demo store is built, so a day's or a week's top activity reads
# tens of thousands of totals instead of a million samples (BENCHMARKS.md). `start`: the first second of the minute
# or half hour, in seconds since 1970-01-01 of the database's local time; `code`: the group's ASH_NAMES code (0 for
# none; CPU for a sample ON CPU, as the statements name it). On Oracle the statements group the view itself.
ASH_TOTAL_DIMENSIONS = ("wait_class", "event", "sql_id")
ASH_TOTAL_PERIODS = (1800, 60)  # seconds, the widest first


@cache
def _ash_totals():
    """ASH_TOTALS, built on first use (__getattr__ above)."""
    from sqlalchemy import MetaData

    return _table(
        MetaData(),
        ASH_TOTALS_NAME,
        *_ints("dbid", "dimension", "period", "snap_id", "instance_number", "start", "code", "samples"),
        key=("dbid", "dimension", "period", "snap_id", "instance_number", "start", "code"),
    )


# Top activity lists (docs/awr-rules.md §22) group every sample of the range: 757 thousand for 8 days of RACPROD, a
# second or more per list. The embedded store also keeps the samples counted per instance and block of ASH_TOP_SPANS
# snapshot ids (first_snap = (snap_id - 1) // span * span + 1), for each list of ASH_TOP_LISTS with its samples on CPU:
# a range reads its widest whole blocks and the samples of the few snapshots at its ends (ash_top_blocks), a few
# thousand counts instead of the samples. Only the
# lists' own filter, the instance, can be applied to the counts; other filters read the samples, and so does Oracle.
# `list` is the list's position in ASH_TOP_LISTS, k0... its columns of ASH_BASE in order (codes where ASH_BASE codes
# them).
ASH_TOP_NAME = "awrlens_ash_top"
ASH_TOP_SPANS = (48, 6)  # snapshot ids per block, the widest first; each divides the one before
ASH_TOP_LISTS = {  # list -> its columns of ASH_BASE, as queries.DIMENSIONS, queries.blocking and plan_line_activity
    "sql_id": ("sql_id",),
    "session": ("instance_number", "session_id", "SESSION_SERIAL#"),
    "module": ("module",),
    "event": ("event",),  # CPU for a sample ON CPU, as queries.ash._cpu_or names it
    "current_obj": ("con_dbid", "CURRENT_OBJ#"),  # the store is a non-CDB's: one container
    "instance": ("instance_number",),
    "blocking": ("blocking_inst_id", "blocking_session", "BLOCKING_SESSION_SERIAL#", "event", "session_id"),
    "plan_line": ("sql_id", "sql_plan_hash_value", "sql_plan_line_id", "sql_plan_operation", "sql_plan_options"),
}
ASH_TOP_KEYS = max(len(c) for c in ASH_TOP_LISTS.values())


@cache
def _ash_top():
    """ASH_TOP, built on first use (__getattr__ below)."""
    from sqlalchemy import Column, Index, Integer, MetaData, Table

    table = Table(
        ASH_TOP_NAME,
        MetaData(),
        *_ints("dbid", "span", "first_snap", "instance_number"),
        Column("list", Integer, nullable=False),  # its position in ASH_TOP_LISTS
        *[Column(f"k{k}", Integer) for k in range(ASH_TOP_KEYS)],
        *_ints("samples", "on_cpu"),
    )
    Index(f"{ASH_TOP_NAME}_blocks", table.c.dbid, table.c.list, table.c.span, table.c.first_snap)
    return table


def ash_coded(column: str) -> bool:
    """Whether ASH_BASE keeps the column (by its name) as a code of ASH_NAMES."""
    return next(c.key for c in _ash_tables()[0].c if c.name == column) in ASH_CODED


def ash_top_blocks(lo: int, hi: int) -> dict:
    """The blocks of ASH_TOP that make up the intervals (lo, hi], the widest that fit, and the snapshots left at the
    ends as blocks of 1, whose samples are counted as they are: {span: [first_snap...]}."""
    blocks = {span: [] for span in (*ASH_TOP_SPANS, 1)}
    snap = lo + 1
    while snap <= hi:
        span = next(s for s in (*ASH_TOP_SPANS, 1) if (snap - 1) % s == 0 and snap + s - 1 <= hi)
        blocks[span].append(snap)
        snap += span
    return blocks


def ash_top_fill():
    """The statements that fill ASH_TOP from ASH_BASE (the store's own rows only: nothing from a request): the
    narrowest blocks from the samples, each wider one from the one below it."""
    narrowest = ASH_TOP_SPANS[-1]
    block = f"(snap_id - 1) / {narrowest} * {narrowest} + 1"
    on_cpu = f"(SELECT id FROM {ASH_NAMES_NAME} WHERE value = 'ON CPU')"
    cpu = f"(SELECT id FROM {ASH_NAMES_NAME} WHERE value = 'CPU')"
    keys = [f"k{k}" for k in range(ASH_TOP_KEYS)]
    columns = ", ".join(["dbid", "span", "first_snap", "instance_number", "list", *keys, "samples", "on_cpu"])
    into = f"INSERT INTO {ASH_TOP_NAME} ({columns})"
    fill = []
    for position, (name, columns) in enumerate(ASH_TOP_LISTS.items()):
        cols = [f'"{c}"' for c in columns]
        if name == "event":
            cols = [f"CASE WHEN session_state = {on_cpu} THEN {cpu} ELSE event END"]
        cols += ["NULL"] * (ASH_TOP_KEYS - len(cols))
        where = " WHERE blocking_session IS NOT NULL" if name == "blocking" else ""
        fill.append(
            f"{into} SELECT dbid, {narrowest}, {block}, instance_number, {position}, {', '.join(cols)}, count(*), "
            f"count(CASE WHEN session_state = {on_cpu} THEN 1 END) FROM {ASH_BASE_NAME}{where} "
            f"GROUP BY dbid, 3, instance_number, {', '.join(f'{k + 6}' for k in range(len(columns)))}"
        )
    for narrow, span in zip(ASH_TOP_SPANS[:0:-1], ASH_TOP_SPANS[-2::-1], strict=True):
        first = f"(first_snap - 1) / {span} * {span} + 1"
        fill.append(
            f"{into} SELECT dbid, {span}, {first}, instance_number, list, {', '.join(keys)}, sum(samples), "
            f"sum(on_cpu) FROM {ASH_TOP_NAME} WHERE span = {narrow} "
            f"GROUP BY dbid, {first}, instance_number, list, {', '.join(keys)}"
        )
    return fill


# Oracle's own reports in the embedded store (docs/awr-rules.md §27). Oracle renders an AWR report on request
# (DBMS_WORKLOAD_REPOSITORY) and a SQL monitor report from DBA_HIST_REPORTS_DETAILS, which keeps it compressed
# (DBMS_AUTO_REPORT); the demo store keeps instead the reports its builder rendered (app/demo/oracle_reports.py), each
# zlib-compressed: AWR_REPORTS for a few snapshot ranges (KIND report, global, diff or global_diff; INSTANCES the
# instance list, e.g. "1" or "1,2"; the B range of a diff in BEGIN_SNAP2/END_SNAP2, 0 otherwise), MONITOR_REPORTS by
# DBA_HIST_REPORTS.REPORT_ID. TYPE is html or text.
AWR_REPORTS_NAME, MONITOR_REPORTS_NAME = "awrlens_awr_reports", "awrlens_monitor_reports"


@cache
def _report_tables():
    from sqlalchemy import Column, LargeBinary, MetaData, String

    md = MetaData()
    awr = _table(
        md,
        AWR_REPORTS_NAME,
        *_ints("dbid"),
        Column("kind", String(12), nullable=False),
        Column("instances", String(200), nullable=False),
        *_ints("begin_snap", "end_snap", "begin_snap2", "end_snap2"),
        Column("type", String(4), nullable=False),
        Column("report", LargeBinary),
        key=("dbid", "kind", "instances", "begin_snap", "end_snap", "begin_snap2", "end_snap2", "type"),
    )
    monitor = _table(
        md,
        MONITOR_REPORTS_NAME,
        *_ints("dbid", "report_id"),
        Column("type", String(4), nullable=False),
        Column("report", LargeBinary),
        key=("dbid", "report_id", "type"),
    )
    return awr, monitor


# Parameters on disk (docs/awr-rules.md §23). Oracle keeps every parameter at every snapshot (about 400 rows per
# snapshot and instance); they change a few times a year. The embedded store keeps DBA_HIST_PARAMETER as a view over
# PARAMETER_BASE, one row per value and the run of snapshots [first_snap, last_snap] of one instance it was in force
# for, joined to the instance's snapshots: the view has Oracle's rows and columns, and every statement reads it.
PARAMETER_BASE_NAME = "awrlens_parameter"
PARAMETER_VIEW_COLUMNS = (
    "snap_id",
    "dbid",
    "instance_number",
    "parameter_hash",
    "parameter_name",
    "value",
    "isdefault",
    "ismodified",
    "con_dbid",
)


@cache
def _parameter_base():
    """PARAMETER_BASE, built on first use (__getattr__ above)."""
    from sqlalchemy import Column, MetaData, String

    return _table(
        MetaData(),
        PARAMETER_BASE_NAME,
        *_ints("dbid", "instance_number", "parameter_hash", "first_snap", "last_snap"),
        Column("parameter_name", String(64), nullable=False),
        Column("value", String(512)),
        Column("isdefault", String(9)),
        Column("ismodified", String(10)),
        key=("dbid", "instance_number", "parameter_hash", "first_snap"),
    )


def parameter_view_ddl(prefix: str = "dba_hist_") -> str:
    """CREATE VIEW of the store's DBA_HIST_PARAMETER over PARAMETER_BASE: a row per snapshot of the instance inside
    each run (CON_DBID = DBID, a non-CDB)."""
    values = ", ".join(f"p.{c}" for c in PARAMETER_VIEW_COLUMNS[3:-1])
    return (
        f"CREATE VIEW {prefix}parameter AS SELECT s.snap_id, s.dbid, s.instance_number, {values}, "
        f"s.dbid AS con_dbid FROM {prefix}snapshot s JOIN {PARAMETER_BASE_NAME} p ON p.dbid = s.dbid AND "
        "p.instance_number = s.instance_number AND s.snap_id BETWEEN p.first_snap AND p.last_snap"
    )
