"""The STATS$ tables awrlens reads, as Oracle's spctab.sql creates them (the columns read, under their names; the
columns of each release: tests/data/statspack_tables.json). The owner is PERFSTAT on Oracle (the package's schema;
on Amazon RDS the STATSPACK option creates it) and none in the embedded store. The primary keys exist for SQLite,
which clusters rows by them, as spctab.sql's own keys do."""

from functools import cache

from app.store.awr.views import IO_COLUMNS
from app.store.tables import int_columns, keyed_table

OWNER = "perfstat"
# the default thresholds of SQL capture (spdoc.txt, "Snapshot thresholds"): a statement's cumulative values (since
# its cursor was loaded) are compared, and only a statement past one of them is kept at a level 5 or higher snapshot
SQL_THRESHOLDS = {"executions": 100, "disk_reads": 1000, "parse_calls": 1000, "buffer_gets": 10000}
# what each snapshot level adds (spdoc.txt, "Levels"): 0 the instance-wide statistics, 5 SQL summaries, 6 plans and
# plan usage, 7 segment statistics
SQL_LEVEL, PLAN_LEVEL, SEGMENT_LEVEL = 5, 6, 7


def _tables(md, owner):
    from sqlalchemy import Column, Float, Index, Integer, String

    N, R, TS = Integer, Float, String(26)  # DATE: ISO text on SQLite, datetime on Oracle
    by_snap = ("dbid", "instance_number", "snap_id")

    def table(name, *columns, key):
        return keyed_table(md, name, *columns, key=key, schema=owner)

    def by_key(t, *names):
        """The embedded store's index for a row's previous one of the same key (statspack.views._deltas)."""
        Index(f"{t.name[len('stats$') :]}_by_key", *[t.c[n] for n in names])

    table(
        "stats$database_instance",
        *int_columns("dbid", "instance_number"),
        Column("startup_time", TS, nullable=False),
        Column("snap_id", N),
        Column("parallel", String(3)),
        Column("version", String(17)),
        Column("db_name", String(9)),
        Column("instance_name", String(16)),
        Column("host_name", String(64)),
        Column("platform_name", String(101)),
        key=("dbid", "instance_number", "startup_time"),
    )
    table(
        "stats$snapshot",
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("snap_time", TS, nullable=False),
        Column("startup_time", TS, nullable=False),
        Column("snap_level", N),
        Column("ucomment", String(160)),
        *[Column(f"{k}_th", N) for k in SQL_THRESHOLDS],
        key=by_snap,
    )
    table(
        "stats$sysstat",
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("STATISTIC#", N, key="statistic", nullable=False),
        Column("name", String(64), nullable=False),
        Column("value", R),
        key=("dbid", "statistic", "instance_number", "snap_id"),
    )
    # since 11.1 STATS$BG_EVENT_SUMMARY is a view of these rows: the background's share is total - _FG
    table(
        "stats$system_event",
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("event", String(64), nullable=False),
        *[Column(c, N) for c in ("total_waits", "total_timeouts", "time_waited_micro")],
        *[Column(c, N) for c in ("total_waits_fg", "total_timeouts_fg", "time_waited_micro_fg")],
        Column("event_id", N, nullable=False),
        key=("dbid", "event_id", "instance_number", "snap_id"),
    )
    table(
        "stats$time_model_statname",
        *int_columns("stat_id"),
        Column("stat_name", String(64), nullable=False),
        key=("stat_id",),
    )
    table(
        "stats$sys_time_model",
        *int_columns("snap_id", "dbid", "instance_number", "stat_id"),
        Column("value", N),
        key=("dbid", "stat_id", "instance_number", "snap_id"),
    )
    table(
        "stats$osstatname",
        *int_columns("osstat_id"),
        Column("stat_name", String(64), nullable=False),
        key=("osstat_id",),
    )
    table(
        "stats$osstat",
        *int_columns("snap_id", "dbid", "instance_number", "osstat_id"),
        Column("value", R),
        key=("dbid", "osstat_id", "instance_number", "snap_id"),
    )
    summary = table(
        "stats$sql_summary",
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("text_subset", String(31), nullable=False),
        Column("old_hash_value", N, nullable=False),
        Column("sql_id", String(13)),
        Column("module", String(64)),
        *[
            Column(c, N)
            for c in (
                "executions",
                "parse_calls",
                "disk_reads",
                "buffer_gets",
                "rows_processed",
                "cpu_time",
                "elapsed_time",
                "user_io_wait_time",
                "cluster_wait_time",
                "application_wait_time",
                "concurrency_wait_time",
                "command_type",
            )
        ],
        Column("address", String(16), nullable=False),
        Column("hash_value", N, nullable=False),
        key=("dbid", "snap_id", "instance_number", "old_hash_value", "text_subset", "address"),
    )
    by_key(summary, "dbid", "instance_number", "old_hash_value", "text_subset", "snap_id")
    table(
        "stats$sqltext",
        Column("old_hash_value", N, nullable=False),
        Column("text_subset", String(31), nullable=False),
        Column("piece", N, nullable=False),
        Column("sql_id", String(13)),
        Column("sql_text", String(64)),
        Column("address", String(16)),
        Column("command_type", N),
        Column("last_snap_id", N),
        key=("old_hash_value", "text_subset", "piece"),
    )
    table(
        "stats$sql_plan_usage",
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("old_hash_value", N, nullable=False),
        Column("text_subset", String(31), nullable=False),
        Column("plan_hash_value", N, nullable=False),
        Column("hash_value", N, nullable=False),
        Column("sql_id", String(13)),
        Column("cost", N),
        Column("address", String(16)),
        Column("optimizer", String(20)),
        Column("last_active_time", TS),
        key=("dbid", "snap_id", "instance_number", "old_hash_value", "text_subset", "plan_hash_value"),
    )
    table(
        "stats$sql_plan",
        *int_columns("plan_hash_value", "id"),
        Column("operation", String(30)),
        Column("options", String(30)),
        Column("object_owner", String(30)),
        Column("object_name", String(30)),
        Column("parent_id", N),
        Column("depth", N),
        Column("position", N),
        Column("cost", N),
        Column("cardinality", N),
        Column("bytes", N),
        Column("access_predicates", String(4000)),
        Column("filter_predicates", String(4000)),
        Column("cpu_cost", N),
        Column("io_cost", N),
        Column("time", N),
        Column("snap_id", N),
        key=("plan_hash_value", "id"),
    )
    segments = table(
        "stats$seg_stat",
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("TS#", N, key="ts_num", nullable=False),
        Column("OBJ#", N, key="obj_num", nullable=False),
        Column("DATAOBJ#", N, key="dataobj_num", nullable=False),
        *[Column(c, N) for c in SEGMENT_COLUMNS.values()],
        key=("dbid", "snap_id", "instance_number", "ts_num", "obj_num", "dataobj_num"),
    )
    by_key(segments, "dbid", "instance_number", "obj_num", "dataobj_num", "ts_num", "snap_id")
    table(
        "stats$seg_stat_obj",
        Column("TS#", N, key="ts_num", nullable=False),
        Column("OBJ#", N, key="obj_num", nullable=False),
        Column("DATAOBJ#", N, key="dataobj_num", nullable=False),
        *int_columns("dbid"),
        Column("owner", String(30), nullable=False),
        Column("object_name", String(30), nullable=False),
        Column("subobject_name", String(30)),
        Column("object_type", String(18)),
        Column("tablespace_name", String(30)),
        key=("dbid", "ts_num", "obj_num", "dataobj_num"),
    )
    table(
        "stats$event_histogram",
        *int_columns("snap_id", "dbid", "instance_number", "event_id", "wait_time_milli"),
        Column("wait_count", N),
        key=("dbid", "event_id", "instance_number", "snap_id", "wait_time_milli"),
    )
    table(
        "stats$parameter",
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("name", String(64), nullable=False),
        Column("value", String(512)),
        Column("isdefault", String(9)),
        Column("ismodified", String(10)),
        key=("dbid", "instance_number", "name", "snap_id"),
    )
    table(
        "stats$iostat_function_name",
        *int_columns("function_id"),
        Column("function_name", String(30), nullable=False),
        key=("function_id",),
    )
    table(
        "stats$iostat_function",
        *int_columns("snap_id", "dbid", "instance_number", "function_id"),
        *[Column(c, N) for c in IO_COLUMNS],
        Column("number_of_waits", N),
        Column("wait_time", N),
        key=("dbid", "function_id", "instance_number", "snap_id"),
    )
    table(
        "stats$pgastat",
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("name", String(64), nullable=False),
        Column("value", N),
        key=("dbid", "snap_id", "instance_number", "name"),
    )
    table("stats$idle_event", Column("event", String(64), nullable=False), key=("event",))
    # not Statspack's: V$EVENT_NAME, the events' wait classes, which STATS$SYSTEM_EVENT does not keep (a dynamic
    # performance view in no management pack; the embedded store keeps a copy)
    ev = keyed_table(
        md,
        "v$event_name",
        *int_columns("event_id"),
        Column("name", String(64), nullable=False),
        Column("wait_class_id", N),
        Column("wait_class", String(64)),
        key=("event_id",),
    )
    return ev


# STATS$SEG_STAT's cumulative columns (V$SEGSTAT's statistics as spctab.sql names them) by the DBA_HIST_SEG_STAT
# statistic whose *_DELTA they give (awr.views.SEGMENT_STATS); it keeps no space, table scan or I/O request counts
# (tests/data/statspack_tables.json)
SEGMENT_COLUMNS = {
    "logical_reads": "logical_reads",
    "buffer_busy_waits": "buffer_busy_waits",
    "db_block_changes": "db_block_changes",
    "physical_reads": "physical_reads",
    "physical_writes": "physical_writes",
    "physical_reads_direct": "direct_physical_reads",
    "physical_writes_direct": "direct_physical_writes",
    "itl_waits": "itl_waits",
    "row_lock_waits": "row_lock_waits",
    "gc_buffer_busy": "gc_buffer_busy",
    "gc_cr_blocks_received": "gc_cr_blocks_received",
    "gc_cu_blocks_received": "gc_current_blocks_received",
}


@cache
def tables(owner: str | None = OWNER):
    """The STATS$ tables under `owner` (None: the embedded store's, in no schema), in one MetaData."""
    from sqlalchemy import MetaData

    md = MetaData()
    _tables(md, owner)
    return md


def table(name: str, owner: str | None = OWNER):
    """One of them by name ("stats$sysstat", or "v$event_name")."""
    md = tables(owner)
    return md.tables[f"{owner}.{name}" if owner and name.startswith("stats$") else name]
