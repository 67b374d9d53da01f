"""Oracle's AWR views awrlens reads, as SQLAlchemy Core tables with Oracle's view and column names.

The same definitions create the embedded SQLite store's views and build every query for Oracle (app/store/awr/queries/),
so what runs on SQLite is the logic that runs on Oracle. Names are lower case so Oracle sees them unquoted
(case-insensitive). Table names carry a view prefix: dba_hist_ by default, awr_pdb_ or awr_root_ on a multitenant
Oracle. The primary keys exist only for SQLite, which clusters rows by them (WITHOUT ROWID) in the order the app
scans: one statistic of one database, per instance, by snapshot.

The views as each supported release has them (docs/awr-rules.md §1): `views(prefix, release)` leaves out the
columns that release lacks (ABSENT), and a statement that can do without a column checks for it; the embedded
store has every column (its own tables beside the views: app/store/awr/embedded/).
"""

from functools import cache, cached_property

from app.store.tables import int_columns, keyed_table

PREFIXES = ("dba_hist_", "awr_pdb_", "awr_root_")
# Views Oracle defines under DBA_HIST_ only, with no AWR_PDB_ or AWR_ROOT_ twin (tests/data/oracle_views.json
# "_dba_hist_only"): every prefix reads them as DBA_HIST_ (docs/awr-rules.md §27 says what a root and a PDB see).
DBA_HIST_ONLY = ("reports",)


# Dictionary views read for names only, where granted (app/history/names.py): not AWR's, so under no AWR prefix and
# in no management pack; in a CDB root they hold the root's own users and objects.
DICTIONARY = ("users", "objects")


# The in-memory views of now, not AWR's (docs/awr-rules.md §30): their own names under any prefix. The live buffer of
# one-second samples, GV$ACTIVE_SESSION_HISTORY (every instance's; in a PDB, its own sessions), INST_ID its instance.
# GV$ASH_INFO says per instance what the buffer holds (its oldest and newest sample).
LIVE = {"live_ash": "gv$active_session_history", "ash_info": "gv$ash_info"}


def view_name(prefix: str, name: str) -> str:
    """The name of AWR view `name` (e.g. "sysstat") under `prefix`: DBA_HIST_ for those Oracle has only there; a
    dictionary view's (DICTIONARY) is DBA_ and its name, a live view's (LIVE) its own, whatever the prefix."""
    if name in DICTIONARY:
        return "dba_" + name
    if name in LIVE:
        return LIVE[name]
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
# IOSTAT_FUNCTION_NAME's functions, FUNCTION_ID their place (V$IOSTAT_FUNCTION)
IO_FUNCTIONS = (
    "RMAN",
    "DBWR",
    "LGWR",
    "ARCH",
    "XDB",
    "Streams AQ",
    "Data Pump",
    "Recovery",
    "Buffer Cache Reads",
    "Direct Reads",
    "Direct Writes",
    "Smart Scan",
    "Archive Manager",
    "Others",
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
    "gc_buffer_busy",
    "gc_cr_blocks_received",
    "gc_cu_blocks_received",
    "space_used",
    "space_allocated",
    "table_scans",
    "physical_read_requests",
    "physical_write_requests",
)
TOP_SQL_METRICS = SQL_METRICS[:6]  # what top SQL sums (docs/awr-rules.md §15)

# The tables are built on first use, and SQLAlchemy imported then: the embedded store's reads never need them
# (app/store/awr/queries/).


def _con():
    """CON_DBID, last as in Oracle (12.1 and later): the container a row belongs to; in a non-CDB, the DBID."""
    from sqlalchemy import Column, Integer

    return Column("con_dbid", Integer)


def _sample_columns():
    """The columns of an ASH sample awrlens reads (all in 11.2 and later), after its time: DBA_HIST_ACTIVE_SESS_HISTORY
    and the live buffer (LIVE) have them alike; fresh Columns for each table."""
    from sqlalchemy import Column, Integer, String

    N = Integer
    return [
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
    ]


def _views(md, p: str, absent: dict, embedded: bool = False) -> None:
    from sqlalchemy import Column, Float, Index, Integer, String, Table, Text

    N = Integer  # NUMBER holding whole values (SQLite INTEGER is 64-bit)
    R = Float  # NUMBER holding fractions
    TS = String(26)  # TIMESTAMP(3)/DATE: ISO text on SQLite, datetime on Oracle
    by_snap = ("dbid", "instance_number", "snap_id")
    own = ("dbid",) if embedded else ()  # the connected database's own views, as the embedded store keeps them

    def table(name, *columns, key):
        short = name[len(p) :]
        return keyed_table(md, view_name(p, short), *columns, key=key, drop=absent.get(short, ()))

    table(
        f"{p}database_instance",
        *int_columns("dbid", "instance_number"),
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
        *int_columns("snap_id", "dbid", "instance_number"),
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
            *int_columns("snap_id", "dbid", "instance_number", "stat_id"),
            Column("stat_name", String(64), nullable=False),
            Column("value", R),
            _con(),
            key=("dbid", "stat_id", "instance_number", "snap_id"),
        )
    table(
        f"{p}system_event",
        *int_columns("snap_id", "dbid", "instance_number", "event_id"),
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
        *int_columns("snap_id", "dbid", "instance_number", "group_id", "metric_id"),
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
        *int_columns("snap_id", "dbid", "instance_number", "group_id", "metric_id"),
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
        *int_columns("snap_id", "dbid", "instance_number", "function_id"),
        Column("function_name", String(30)),
        *[Column(c, N) for c in IO_COLUMNS],
        Column("number_of_waits", N),
        Column("wait_time", N),
        _con(),
        key=("dbid", "function_id", "instance_number", "snap_id"),
    )
    table(
        f"{p}iostat_filetype",
        *int_columns("snap_id", "dbid", "instance_number", "filetype_id"),
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
        *int_columns("snap_id", "dbid", "instance_number"),
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
        *int_columns("dbid"),
        Column("sql_id", String(13), nullable=False),
        Column("sql_text", Text),
        Column("command_type", N),
        _con(),
        key=("dbid", "sql_id", "con_dbid"),
    )
    table(
        f"{p}tablespace",
        *int_columns("dbid"),
        Column("TS#", N, key="ts_num", nullable=False),
        Column("tsname", String(30), nullable=False),
        Column("contents", String(30)),
        Column("block_size", N),
        _con(),
        key=("dbid", "con_dbid", "ts_num"),
    )
    table(
        f"{p}tbspc_space_usage",
        *int_columns("dbid", "snap_id", "tablespace_id"),
        Column("tablespace_size", N),
        Column("tablespace_maxsize", N),
        Column("tablespace_usedsize", N),
        Column("rtime", String(25)),
        _con(),
        key=("dbid", "con_dbid", "tablespace_id", "snap_id"),
    )
    table(
        f"{p}pdb_instance",
        *int_columns("dbid", "instance_number"),
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
        *int_columns("snap_id", "dbid", "instance_number", "sample_id"),
        Column("sample_time", TS, nullable=False),
        *_sample_columns(),
        key=("dbid", "snap_id", "instance_number", "sample_id", "session_id"),
    )
    # the live buffer (LIVE): V$ACTIVE_SESSION_HISTORY's columns as ASH's history keeps them, INST_ID for the instance
    # and no DBID or SNAP_ID; the embedded store keeps every database's in one table, keyed by DBID (`embedded`)
    keyed_table(
        md,
        LIVE["live_ash"],
        *int_columns(*own),
        Column("INST_ID", N, key="instance_number", nullable=False),
        *int_columns("sample_id"),
        Column("sample_time", TS, nullable=False),
        *_sample_columns(),
        key=(*own, "instance_number", "sample_id", "session_id"),
    )
    keyed_table(
        md,
        LIVE["ash_info"],
        *int_columns(*own),
        Column("INST_ID", N, key="instance_number", nullable=False),
        Column("oldest_sample_time", TS),
        Column("latest_sample_time", TS),
        key=(*own, "instance_number"),
    )
    # the reports AWR captured, 12.1 and later (docs/awr-rules.md §27): a SQL monitor report is COMPONENT_NAME
    # 'sqlmonitor', KEY1 its SQL_ID, KEY2 SQL_EXEC_ID, KEY3 SQL_EXEC_START; SNAP_ID the first snapshot after it.
    # DBA_HIST_REPORTS under every prefix (DBA_HIST_ONLY); WRP$_REPORTS, under it, is partitioned by GENERATION_TIME
    table(
        f"{p}reports",
        *int_columns("snap_id", "dbid", "instance_number", "report_id"),
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
        *int_columns("snap_id", "dbid", "instance_number", "parameter_hash"),
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
        *int_columns("dbid"),
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
        Column("cpu_cost", N),
        Column("io_cost", N),
        Column("time", N),
        Column("other_xml", Text),
        _con(),
        key=("dbid", "sql_id", "plan_hash_value", "con_dbid", "id"),
    )
    # captured bind values per snapshot (docs/awr-rules.md §26)
    table(
        f"{p}sqlbind",
        *int_columns("snap_id", "dbid", "instance_number"),
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
        *int_columns("snap_id", "dbid", "instance_number", "event_id"),
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
        *int_columns("snap_id", "dbid", "instance_number"),
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
        *int_columns("dbid"),
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
    # AWR baselines (docs/awr-rules.md §33): named snapshot ranges kept from purging, and the moving window
    table(
        f"{p}baseline",
        *int_columns("dbid", "baseline_id"),
        Column("baseline_name", String(64)),
        Column("baseline_type", String(13)),
        Column("start_snap_id", N),
        Column("start_snap_time", TS),
        Column("end_snap_id", N),
        Column("end_snap_time", TS),
        Column("moving_window_size", N),
        Column("creation_time", TS),
        Column("expiration", N),
        Column("template_name", String(64)),
        Column("last_time_computed", TS),
        key=("dbid", "baseline_id"),
    )
    # the services' names (docs/awr-rules.md §22: ASH's SERVICE_HASH)
    table(
        f"{p}service_name",
        *int_columns("dbid", "service_name_hash"),
        Column("service_name", String(64), nullable=False),
        _con(),
        key=("dbid", "service_name_hash", "con_dbid"),
    )
    # the dictionary, for names (DICTIONARY): users by USER_ID (ASH's), objects by OBJECT_ID (ASH's CURRENT_OBJ#); the
    # connected database's own, but in the embedded store, which keeps several databases' (`embedded`), keyed by DBID
    keyed_table(
        md,
        "dba_users",
        *int_columns(*own),
        Column("username", String(128), nullable=False),
        *int_columns("user_id"),
        key=(*own, "user_id"),
    )
    keyed_table(
        md,
        "dba_objects",
        *int_columns(*own),
        Column("owner", String(128), nullable=False),
        Column("object_name", String(128), nullable=False),
        Column("subobject_name", String(128)),
        *int_columns("object_id"),
        Column("data_object_id", N),
        Column("object_type", String(23)),
        key=(*own, "object_id"),
    )
    sga = Table(
        f"{p}sgastat",
        md,
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("pool", String(30)),
        Column("name", String(64)),
        Column("bytes", N),
        _con(),
    )
    Index(f"{p}sgastat_by_snap", *[sga.c[c] for c in by_snap])
    pga = Table(
        f"{p}pgastat",
        md,
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("name", String(64)),
        Column("value", N),
        _con(),
    )
    Index(f"{p}pgastat_by_snap", *[pga.c[c] for c in by_snap])


class Views:
    """The AWR views under one prefix as one release has them: `Views('dba_hist_').sysstat` is the Table
    dba_hist_sysstat. The tables are built on first use."""

    def __init__(self, prefix: str = "dba_hist_", release: str = NEWEST, embedded: bool = False):
        if prefix not in PREFIXES:
            raise ValueError(f"view prefix must be one of {', '.join(PREFIXES)}, not {prefix!r}")
        if release not in RELEASES:
            raise ValueError(f"release must be one of {', '.join(RELEASES)}, not {release!r}")
        self.prefix, self.release, self.embedded = prefix, release, embedded

    @cached_property
    def metadata(self):
        from sqlalchemy import MetaData

        metadata = MetaData()
        _views(metadata, self.prefix, ABSENT.get(self.release, {}), self.embedded)
        return metadata

    def __getattr__(self, name: str):
        try:
            return self.metadata.tables[view_name(self.prefix, name)]
        except KeyError:
            raise AttributeError(name) from None


@cache
def views(prefix: str = "dba_hist_", release: str = NEWEST, embedded: bool = False) -> Views:
    """The views under `prefix` as `release` has them; `embedded`: as the embedded store keeps them, its live buffer
    (LIVE) holding several databases' samples, keyed by DBID."""
    return Views(prefix, release, embedded)


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
