"""What one instance's AWR report prints, read from the demo store's DBA_HIST_* rows with plain SQL
(docs/report-formats.md): the interval (lo, hi] of one instance, as DBMS_WORKLOAD_REPOSITORY reads it. Counters are the
difference of the two snapshots (docs/awr-rules.md §3), readings their values at each end (§8); SQLSTAT and SEG_STAT
keep their own per-interval deltas, summed over (lo, hi] (§15, §25). A report cannot span a restart (§27)."""

from dataclasses import dataclass, field
from datetime import datetime

from app.history.catalog import POINT_IN_TIME

# Readings (docs/awr-rules.md §8): the report prints them as Begin/End values, never as deltas.
SYSSTAT_READINGS = tuple(sorted(POINT_IN_TIME["sysstat"]))
OSSTAT_READINGS = tuple(sorted(POINT_IN_TIME["osstat"]))
# SYSTEM_EVENT's columns, in Event's order (waits, timeouts and time in total, then the foreground's)
EVENT_COLUMNS = (
    "total_waits",
    "total_timeouts",
    "time_waited_micro",
    "total_waits_fg",
    "total_timeouts_fg",
    "time_waited_micro_fg",
)
# an I/O function's figures (IOStat by Function) from IOSTAT_FUNCTION's columns
IO_SUMS = {
    "read_mb": "small_read_megabytes + large_read_megabytes",
    "write_mb": "small_write_megabytes + large_write_megabytes",
    "read_reqs": "small_read_reqs + large_read_reqs",
    "write_reqs": "small_write_reqs + large_write_reqs",
    "waits": "number_of_waits",
    "wait_ms": "wait_time",
}
PLSQL_COMMAND = 47  # DBA_HIST_SQLTEXT.COMMAND_TYPE of a PL/SQL block


class RangeError(ValueError):
    """A range Oracle would refuse to report: a snapshot missing, or a restart between the two (§27)."""


@dataclass
class Event:
    name: str
    wait_class: str
    waits: int
    timeouts: int
    micros: int
    waits_fg: int
    timeouts_fg: int
    micros_fg: int


def event_side(e, background: bool) -> tuple[int, int, int]:
    """An event's waits, timeouts and time (microseconds) in the foreground (its _FG columns), or in the background
    (the totals less the foreground's); the Event of either demo reader (this one's or statspack_files.py's)."""
    if background:
        return e.waits - e.waits_fg, e.timeouts - e.timeouts_fg, e.micros - e.micros_fg
    return e.waits_fg, e.timeouts_fg, e.micros_fg


@dataclass
class Interval:
    """One instance's interval (lo, hi]: its header facts and every section's rows."""

    dbid: int
    db_name: str
    unique_name: str
    role: str
    edition: str
    release: str
    rac: bool
    cdb: bool
    instance: int
    instance_name: str
    host: str
    platform: str
    startup: datetime
    lo: int
    hi: int
    t0: datetime
    t1: datetime
    seconds: float
    time_model: dict[str, float] = field(default_factory=dict)  # microseconds
    sysstat: dict[str, float] = field(default_factory=dict)  # counters' deltas
    sysstat_begin: dict[str, float] = field(default_factory=dict)  # readings
    sysstat_end: dict[str, float] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    osstat: dict[str, float] = field(default_factory=dict)  # counters' deltas
    osstat_begin: dict[str, float] = field(default_factory=dict)
    osstat_end: dict[str, float] = field(default_factory=dict)
    io_functions: dict[str, dict[str, float]] = field(default_factory=dict)
    segments: list[dict] = field(default_factory=list)
    histograms: dict[str, tuple[str, dict[int, int]]] = field(default_factory=dict)  # event -> (class, ms -> waits)
    parameters_begin: dict[str, str] = field(default_factory=dict)
    parameters_end: dict[str, str] = field(default_factory=dict)
    sql: list[dict] = field(default_factory=list)
    pga_bytes_processed: float | None = None

    @property
    def transactions(self) -> float:
        return self.sysstat.get("user commits", 0) + self.sysstat.get("user rollbacks", 0)


def _when(text) -> datetime:
    return datetime.fromisoformat(text)


def _deltas(con, view, name_col, value_col, dbid, inst, lo, hi, extra=""):
    rows = con.execute(
        f"SELECT {name_col}, sum(CASE snap_id WHEN ? THEN {value_col} ELSE -{value_col} END), count(*) FROM {view} "
        f"WHERE dbid = ? AND instance_number = ? AND snap_id IN (?, ?) {extra} GROUP BY {name_col}",
        (hi, dbid, inst, lo, hi),
    ).fetchall()
    return {name: value for name, value, both in rows if both == 2}


def _values(con, view, name_col, value_col, dbid, inst, snap, names):
    marks = ", ".join("?" * len(names))
    return dict(
        con.execute(
            f"SELECT {name_col}, {value_col} FROM {view} WHERE dbid = ? AND instance_number = ? AND snap_id = ? "
            f"AND {name_col} IN ({marks})",
            (dbid, inst, snap, *names),
        ).fetchall()
    )


def interval(con, dbid: int, inst: int, lo: int, hi: int) -> Interval:
    """The interval (lo, hi] of instance `inst`, every section's rows read from the store."""
    snaps = con.execute(
        "SELECT snap_id, end_interval_time, startup_time FROM dba_hist_snapshot WHERE dbid = ? AND instance_number = ? "
        "AND snap_id IN (?, ?) ORDER BY snap_id",
        (dbid, inst, lo, hi),
    ).fetchall()
    if lo >= hi or len(snaps) != 2:
        raise RangeError(f"instance {inst} of {dbid} has no snapshot pair {lo}-{hi}")
    (_, t0, up0), (_, t1, up1) = snaps
    if up0 != up1:
        raise RangeError(f"instance {inst} restarted between snapshots {lo} and {hi} (startup {up1})")
    info = con.execute(
        "SELECT db_name, db_unique_name, database_role, edition, version, parallel, cdb, instance_name, host_name, "
        "platform_name FROM dba_hist_database_instance WHERE dbid = ? AND instance_number = ? AND startup_time = ?",
        (dbid, inst, up1),
    ).fetchone()
    it = Interval(
        dbid=dbid,
        db_name=info[0],
        unique_name=info[1],
        role=info[2],
        edition=info[3],
        release=info[4],
        rac=info[5] == "YES",
        cdb=info[6] == "YES",
        instance=inst,
        instance_name=info[7],
        host=info[8],
        platform=info[9],
        startup=_when(up1),
        lo=lo,
        hi=hi,
        t0=_when(t0),
        t1=_when(t1),
        seconds=(_when(t1) - _when(t0)).total_seconds(),
    )
    args = (dbid, inst, lo, hi)
    it.time_model = _deltas(con, "dba_hist_sys_time_model", "stat_name", "value", *args)
    stats = _deltas(con, "dba_hist_sysstat", "stat_name", "value", *args)
    it.sysstat = {k: v for k, v in stats.items() if k not in SYSSTAT_READINGS}
    it.sysstat_begin = _values(con, "dba_hist_sysstat", "stat_name", "value", dbid, inst, lo, SYSSTAT_READINGS)
    it.sysstat_end = _values(con, "dba_hist_sysstat", "stat_name", "value", dbid, inst, hi, SYSSTAT_READINGS)
    os_deltas = _deltas(con, "dba_hist_osstat", "stat_name", "value", *args)
    it.osstat = {k: v for k, v in os_deltas.items() if k not in OSSTAT_READINGS}
    it.osstat_begin = _values(con, "dba_hist_osstat", "stat_name", "value", dbid, inst, lo, OSSTAT_READINGS)
    it.osstat_end = _values(con, "dba_hist_osstat", "stat_name", "value", dbid, inst, hi, OSSTAT_READINGS)
    sums = ", ".join(f"sum(CASE snap_id WHEN ? THEN {c} ELSE -{c} END)" for c in EVENT_COLUMNS)
    for row in con.execute(
        f"SELECT event_name, wait_class, {sums}, count(*) FROM dba_hist_system_event WHERE dbid = ? "
        "AND instance_number = ? AND snap_id IN (?, ?) GROUP BY event_name, wait_class",
        (hi,) * len(EVENT_COLUMNS) + args,
    ):
        if row[-1] == 2:
            it.events.append(Event(*row[:-1]))
    sums = ", ".join(f"sum(CASE snap_id WHEN ? THEN {c} ELSE -({c}) END)" for c in IO_SUMS.values())
    for name, *values, both in con.execute(
        f"SELECT function_name, {sums}, count(*) FROM dba_hist_iostat_function WHERE dbid = ? AND instance_number = ? "
        "AND snap_id IN (?, ?) GROUP BY function_name",
        (hi,) * len(IO_SUMS) + args,
    ):
        if both == 2:
            it.io_functions[name] = dict(zip(IO_SUMS, values, strict=True))
    it.segments = _segments(con, *args)
    for name, wclass, milli, waits in con.execute(
        "SELECT event_name, wait_class, wait_time_milli, sum(CASE snap_id WHEN ? THEN wait_count ELSE -wait_count END) "
        "FROM dba_hist_event_histogram WHERE dbid = ? AND instance_number = ? AND snap_id IN (?, ?) "
        "GROUP BY event_name, wait_class, wait_time_milli",
        (hi, *args),
    ):
        it.histograms.setdefault(name, (wclass, {}))[1][milli] = waits
    it.parameters_begin, it.parameters_end = (
        dict(
            con.execute(
                "SELECT parameter_name, value FROM dba_hist_parameter WHERE dbid = ? AND instance_number = ? "
                "AND snap_id = ? AND (isdefault = 'FALSE' OR ismodified != 'FALSE')",
                (dbid, inst, snap),
            ).fetchall()
        )
        for snap in (lo, hi)
    )
    it.sql = sql_totals(con, dbid, (inst,), lo, hi)
    pga = _deltas(con, "dba_hist_pgastat", "name", "value", *args, extra="AND name = 'bytes processed'")
    it.pga_bytes_processed = pga.get("bytes processed")
    return it


def sql_totals(con, dbid, instances, lo, hi) -> list[dict]:
    """DBA_HIST_SQLSTAT's deltas of (lo, hi] summed per statement over `instances` (§15), with its text."""
    marks = ", ".join("?" * len(instances))
    names = ("executions", "elapsed", "cpu", "gets", "reads", "rows", "iowait", "clwait")
    rows = con.execute(
        "SELECT s.sql_id, sum(s.executions_delta), sum(s.elapsed_time_delta), sum(s.cpu_time_delta), "
        "sum(s.buffer_gets_delta), sum(s.disk_reads_delta), sum(s.rows_processed_delta), sum(s.iowait_delta), "
        "sum(s.clwait_delta), max(s.module), t.sql_text, t.command_type FROM dba_hist_sqlstat s "
        "LEFT JOIN dba_hist_sqltext t ON t.dbid = s.dbid AND t.sql_id = s.sql_id "
        f"WHERE s.dbid = ? AND s.snap_id > ? AND s.snap_id <= ? AND s.instance_number IN ({marks}) GROUP BY s.sql_id",
        (dbid, lo, hi, *instances),
    ).fetchall()
    return [
        dict(zip(names, r[1:9], strict=True), sql_id=r[0], module=r[9], text=r[10] or "", plsql=r[11] == PLSQL_COMMAND)
        for r in rows
    ]


def _segments(con, dbid, inst, lo, hi) -> list[dict]:
    cols = ("logical_reads", "physical_reads", "physical_writes", "db_block_changes", "physical_read_requests")
    sums = ", ".join(f"sum(s.{c}_delta)" for c in cols)
    rows = con.execute(
        f'SELECT s."OBJ#", s."DATAOBJ#", o.owner, o.tablespace_name, o.object_name, o.subobject_name, o.object_type, '
        f"{sums} FROM dba_hist_seg_stat s LEFT JOIN dba_hist_seg_stat_obj o ON o.dbid = s.dbid "
        'AND o."TS#" = s."TS#" AND o."OBJ#" = s."OBJ#" AND o."DATAOBJ#" = s."DATAOBJ#" AND o.con_dbid = s.con_dbid '
        'WHERE s.dbid = ? AND s.instance_number = ? AND s.snap_id > ? AND s.snap_id <= ? '
        'GROUP BY s.con_dbid, s."TS#", s."OBJ#", s."DATAOBJ#"',
        (dbid, inst, lo, hi),
    ).fetchall()
    keys = ("obj", "dataobj", "owner", "tablespace", "object", "subobject", "type", *cols)
    return [dict(zip(keys, r, strict=True)) for r in rows]
