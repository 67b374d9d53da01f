"""Tiny generated AWR histories: Hypothesis strategies that draw a handful of snapshots of one to four
instances with the shapes the demo lacks, and a writer that puts one into an SQLite store made from the store's own
schema (app/store/awr/views.py and app/store/awr/embedded/), so the questions of app/history/ can be asked of it.

The shapes: one to four instances whose snapshots end seconds apart, instances missing from a snapshot, restarts
(STARTUP_TIME changes), manual snapshots minutes after the previous one, a change of SNAP_TIMEZONE (daylight saving) at
one instant, which instances of one snap id may end on either side of (two offsets at one snap id), counters beside
readings (SYSSTAT and OSSTAT), waits under 1 ms in the event histogram, ASH samples at uneven spacing, segment
statistics, parameters set at some snapshots only; and plans (plan_pairs): lines whose POSITION order is not their ID
order, two plans that differ in one index's name.

A history is plain data whose repr is Python: a failing check prints it, shrunk, and it can be pasted back as an
@example. Times are database-local text, as the store keeps them; each snapshot carries its own offset (`tz`)."""

import shutil
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from hypothesis import strategies as st

from app.settings import Settings
from app.store.awr.embedded.summaries import CLASS_TOTALS, PLAN_FIRSTS, SQLSTAT_BLOCKS, fill_summaries
from app.store.awr.views import views
from app.store.base import sql_log
from app.store.sqlite import SqliteStore

DBID = 4242
START = datetime(2026, 3, 29, 0, 0)  # UTC of the first snapshot
EVENT, EVENT_ID, EVENT_CLASS = "db file sequential read", 7, "User I/O"
CLASSES = ("User I/O", "Commit", "Concurrency")
UPPERS = (1, 2, 4, 8, 32)  # WAIT_TIME_MILLI of the histogram's buckets (powers of two ms; 1: under 1 ms)
OBJECTS = (101, 102, 103)  # named by DBA_HIST_SEG_STAT_OBJ (APP.T101...)
DICTIONARY_OBJECT = 998  # named by DBA_OBJECTS only (APP.D998)
STATEMENTS = (("a1", 11), ("a1", 12), ("b2", 21), ("c3", 31))  # (SQL_ID, plan hash value): a1 runs two plans
# the counters, (view, stat_id, name); and the one reading
COUNTERS = (
    ("sysstat", 1, "redo size"),
    ("sysstat", 2, "session logical reads"),
    ("sysstat", 3, "user commits"),
    ("sysstat", 4, "user rollbacks"),
    ("sys_time_model", 10, "DB time"),
    ("sys_time_model", 11, "DB CPU"),
)
READING = ("sysstat", 5, "logons current")
# DBA_HIST_OSSTAT: two counters (centiseconds) and a reading, (stat_id, name)
OS_STATS = ((20, "BUSY_TIME"), (21, "IDLE_TIME"), (22, "NUM_CPUS"))
# DBA_HIST_PARAMETER: a parameter set at every snapshot, and one set at some only (no row elsewhere)
PARAMETERS = (("sga_target", ("68719476736", "85899345920")), ("optimizer_index_cost_adj", (None, "100", "400")))
# Oracle's own per-interval metrics (metric_id, name, unit): one averaged over RAC instances, one summed (§11)
METRICS = (
    (2057, "Host CPU Utilization (%)", "% Busy/(Idle+Busy)"),
    (2147, "Average Active Sessions", "Active Sessions"),
)


@dataclass(frozen=True)
class Snap:
    """One instance's row of DBA_HIST_SNAPSHOT and what it read: each counter's cumulative value (in COUNTERS'
    order), the reading, the event's foreground waits and microseconds, its histogram ((WAIT_TIME_MILLI,
    WAIT_COUNT) of the buckets that have a wait) and segment statistics ((OBJ#, logical reads, physical reads) of
    the interval ending here: *_DELTA columns)."""

    snap_id: int
    instance: int
    end: str  # END_INTERVAL_TIME, local
    tz: int  # SNAP_TIMEZONE, seconds east of UTC
    startup: str  # STARTUP_TIME, local
    counters: tuple = ()  # none: every counter 0
    logons: int = 0
    waits: tuple = (0, 0)
    buckets: tuple = ()
    segments: tuple = ()
    flag: int = 0
    metrics: tuple = ()  # DBA_HIST_SYSMETRIC_SUMMARY's AVERAGE of each of METRICS over the interval ending here
    sql: tuple = ()  # DBA_HIST_SQLSTAT of the interval: (SQL_ID, plan hash value, executions, elapsed µs, CPU µs)
    os: tuple = ()  # DBA_HIST_OSSTAT of OS_STATS' names, in their order (none: no OSSTAT row)
    params: tuple = ()  # DBA_HIST_PARAMETER: (name, value) of the parameters set at this snapshot


@dataclass(frozen=True)
class Sample:
    """One ASH row: a sampled session of the interval ending at `snap_id`, at local `time`."""

    snap_id: int
    instance: int
    sample_id: int
    time: str
    session: int
    wait_class: str | None  # None: ON CPU
    blocker: tuple | None = None  # (BLOCKING_INST_ID, BLOCKING_SESSION, BLOCKING_SESSION_SERIAL#)
    obj: int | None = None  # CURRENT_OBJ#


@dataclass(frozen=True)
class PlanLine:
    """One row of DBA_HIST_SQL_PLAN (keyed by plan, not by snapshot)."""

    sql_id: str
    plan_hash_value: int
    id: int
    parent_id: int | None
    depth: int
    position: int  # among its siblings, from 1; the root's (ID 0) is the plan's cost, as Oracle stores it
    operation: str
    options: str | None
    object_name: str | None
    cost: int


@dataclass(frozen=True)
class History:
    snaps: tuple
    samples: tuple = ()
    plans: tuple = ()  # PlanLines, in the order they are written (not ID order)

    def instances(self) -> list[int]:
        return sorted({s.instance for s in self.snaps})

    def rows(self, instance: int) -> list[Snap]:
        return sorted((s for s in self.snaps if s.instance == instance), key=lambda s: s.snap_id)

    def snap_ids(self) -> list[int]:
        return sorted({s.snap_id for s in self.snaps})


def local(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def epoch(text: str, tz: int) -> float:
    """The absolute instant of a local time with its offset."""
    return (datetime.fromisoformat(text) - timedelta(seconds=tz) - datetime(1970, 1, 1)).total_seconds()


# the interval before each snap id: half-hourly, hourly, ten minutes, or a manual snapshot 2 to 4 minutes after
GAPS = st.sampled_from([1800, 3600, 600, 120, 240])
RARE = st.integers(0, 5).map(lambda k: k == 0)  # true one time in six
INTS = st.integers(0, 10**6)
INSTANCES, SNAPSHOTS = st.integers(1, 4), st.integers(2, 6)
TZ_CHANGES = st.sampled_from([0, 0, 3600, -3600])  # seconds SNAP_TIMEZONE moves by: none half the time


@st.composite
def histories(
    draw,
    instances=INSTANCES,
    snapshots=SNAPSHOTS,
    tz_change=TZ_CHANGES,
    ash: bool = False,
    gaps=GAPS,
    restarts=RARE,
) -> History:
    """A history of one DBID: `instances` instances over `snapshots` snap ids `gaps` seconds apart, each instance
    missing from some, restarting where `restarts` draws true; at one instant, SNAP_TIMEZONE moves by `tz_change`
    seconds (daylight saving)."""
    n, count = draw(instances), draw(snapshots)
    gaps = [0, *draw(st.lists(gaps, min_size=count - 1, max_size=count - 1))]
    base_tz = draw(st.sampled_from([0, 3600, -18000, 19800]))
    change, change_at = draw(tz_change), draw(st.integers(1, count - 1)) if count > 1 else 1
    nominal = [START + timedelta(seconds=sum(gaps[: k + 1])) for k in range(count)]
    # the instant SNAP_TIMEZONE moves: up to a minute around the snap id's nominal end, so that the instances of that
    # snap id, which end seconds apart, may carry either offset
    moves = nominal[min(change_at, count - 1)] + timedelta(seconds=draw(st.integers(-30, 59)))

    def tz_at(moment: datetime) -> int:
        return base_tz + (change if moment >= moves else 0)

    snaps, samples = [], []
    for inst in range(1, n + 1):
        # instance 1 is at every snap id; with ASH, every instance at the first (the range's start, §22)
        present = [inst == 1 or (ash and k == 0) or not draw(RARE) for k in range(count)]
        startup_utc = START - timedelta(days=1, seconds=inst)
        startup = local(startup_utc + timedelta(seconds=tz_at(startup_utc)))  # local when it started, kept as is
        values = [0] * len(COUNTERS)
        waits, buckets = (0, 0), {}
        cpus = draw(st.sampled_from([2, 4, 16]))
        os_times = (0, 0)
        params = {name: draw(st.sampled_from(choices)) for name, choices in PARAMETERS}
        prev_utc = None
        sample_id = None
        for k in range(count):
            if not present[k]:
                continue
            end_utc = nominal[k] + timedelta(seconds=draw(st.integers(0, 59)))  # seconds apart
            tz = tz_at(end_utc)
            restart = prev_utc is not None and draw(restarts)
            if restart:  # the instance started again between its previous snapshot and this one
                startup_utc = prev_utc + (end_utc - prev_utc) / 2
                startup = local(startup_utc + timedelta(seconds=tz_at(startup_utc)))
                values, waits, buckets, os_times = [0] * len(COUNTERS), (0, 0), {}, (0, 0)
            if prev_utc is not None:
                values = [v + draw(st.integers(0, 10**6)) for v in values]
                busy = draw(st.integers(0, 100 * cpus * int((end_utc - prev_utc).total_seconds())))
                os_times = (os_times[0] + busy, os_times[1] + draw(st.integers(0, 10**6)))
                if draw(RARE):
                    cpus = draw(st.sampled_from([2, 4, 16]))
                for name, choices in PARAMETERS:
                    if draw(RARE):
                        params[name] = draw(st.sampled_from(choices))
                more = draw(st.integers(0, 60))
                waits = (waits[0] + more, waits[1] + more * draw(st.integers(40, 9000)))
                for upper in draw(st.lists(st.sampled_from(UPPERS), max_size=4)):
                    buckets[upper] = buckets.get(upper, 0) + draw(st.integers(1, 30))
            segments = ()
            if prev_utc is not None:
                objs = draw(st.lists(st.sampled_from(OBJECTS), max_size=3, unique=True))
                segments = tuple((o, draw(st.integers(0, 5000)), draw(st.integers(0, 500))) for o in sorted(objs))
            snap_id = k + 1
            sql = ()
            if prev_utc is not None:
                ran = draw(st.lists(st.sampled_from(STATEMENTS), max_size=3, unique=True))
                sql = tuple((*r, draw(st.integers(0, 50)), draw(st.integers(0, 10**7)), draw(INTS)) for r in ran)
            snaps.append(
                Snap(
                    snap_id,
                    inst,
                    local(end_utc + timedelta(seconds=tz)),
                    tz,
                    startup,
                    tuple(values),
                    draw(st.integers(0, 300)),
                    waits,
                    tuple(sorted(buckets.items())),
                    segments,
                    1 if k > 0 and gaps[k] < 300 else 0,  # a manual snapshot
                    (draw(st.integers(0, 1000)) / 10, draw(st.integers(0, 800)) / 100),
                    sql,
                    (*os_times, cpus),
                    tuple((name, value) for name, value in params.items() if value is not None),
                )
            )
            if ash and prev_utc is not None:
                # samples every 10 s back from the snapshot's end, some without any active session: uneven spacing
                back = draw(st.lists(st.integers(0, 11), max_size=5, unique=True))
                for j in sorted(back, reverse=True):
                    at = end_utc - timedelta(seconds=10 * j)
                    if at <= prev_utc:
                        continue
                    sample_id = int((at - startup_utc).total_seconds())  # one SAMPLE_ID a second since startup
                    for session in range(1, draw(st.integers(1, 3)) + 1):
                        samples.append(
                            Sample(
                                snap_id,
                                inst,
                                sample_id,
                                local(at + timedelta(seconds=tz)),
                                session,
                                draw(st.sampled_from((None, *CLASSES))),
                            )
                        )
            prev_utc = end_utc
    return History(tuple(snaps), tuple(samples))


# a plan line's operation, options and the prefix of its object's name (each line's object is its own: no two lines of
# a plan align on the same key by chance)
STEPS = (
    ("TABLE ACCESS", "FULL", "T"),
    ("TABLE ACCESS", "BY INDEX ROWID", "T"),
    ("INDEX", "RANGE SCAN", "IX"),
    ("INDEX", "UNIQUE SCAN", "PK"),
    ("HASH JOIN", None, None),
    ("NESTED LOOPS", None, None),
    ("SORT", "ORDER BY", None),
)


IDLE_BLOCKER = 9  # a SID no sample has: a blocker idle in its open transaction, never sampled


@st.composite
def blocked(draw, history: History) -> History:
    """The history with some of its waiting samples blocked (BLOCKING_*), on an object (CURRENT_OBJ#: one of OBJECTS,
    the DICTIONARY_OBJECT, or one nothing names): by a session of any instance (the same SID on another instance is
    another session) or by one never sampled, so chains, RAC blockers, cycles (a deadlock) and a session under two
    blockers all occur."""
    n = len(history.instances())
    blockers = [(i, sid, 1) for i in range(1, n + 1) for sid in (1, 2, 3, IDLE_BLOCKER)]
    out = []
    for a in history.samples:
        b = draw(st.sampled_from([None, None, *blockers]))
        if a.wait_class is None or b == (a.instance, a.session, 1):  # a session on CPU is not blocked
            b = None
        out.append(replace(a, blocker=b, obj=draw(st.sampled_from((*OBJECTS, DICTIONARY_OBJECT, 999))) if b else None))
    return replace(history, samples=tuple(out))


@st.composite
def plan_pairs(draw, sql_id: str = "a1", hashes: tuple = (11, 12)) -> tuple:
    """Two plans of one statement (PlanLines, written in a drawn order) that differ only in the name of one index
    (line `renamed`): (lines, renamed). IDs number the tree in pre-order, as Oracle's do (a line's children follow it,
    one DEPTH deeper); POSITION is a line's place among its siblings, and the root's is the plan's cost, so POSITION
    order is not ID order."""
    size = draw(st.integers(2, 9))
    parents, depths = [None], [0]
    for line in range(1, size):
        chain = [line - 1]  # the previous line and its ancestors: where a pre-order tree's next line can hang
        while parents[chain[-1]] is not None:
            chain.append(parents[chain[-1]])
        parent = draw(st.sampled_from(chain))
        parents.append(parent)
        depths.append(depths[parent] + 1)
    renamed = draw(st.integers(1, size - 1))
    steps = [("SELECT STATEMENT", None, None)] + [
        ("INDEX", "RANGE SCAN", "IX") if line == renamed else draw(st.sampled_from(STEPS)) for line in range(1, size)
    ]
    costs = [draw(st.integers(1, 10**5)) for _ in range(size)]
    lines = []
    for plan in hashes:
        for line in range(size):
            operation, options, prefix = steps[line]
            name = prefix and f"{prefix}{line}"
            if line == renamed and plan == hashes[1]:
                name = f"IX{line}_B"  # the other plan's index: the only difference
            siblings = [k for k in range(1, size) if parents[k] == parents[line]]
            position = costs[0] if line == 0 else siblings.index(line) + 1
            lines.append(
                PlanLine(
                    sql_id, plan, line, parents[line], depths[line], position, operation, options, name, costs[line]
                )
            )
    order = draw(st.permutations(range(len(lines))))
    return tuple(lines[k] for k in order), renamed


def empty_views(path: Path, *more) -> Path:
    """An empty store at `path` with the embedded store's views (and the tables of `more`: MetaData or Table), none of
    its summaries: a history written by hand there is read from its views' rows alone."""
    from sqlalchemy import create_engine

    engine = create_engine(f"sqlite:///{path}")
    views(embedded=True).metadata.create_all(engine)
    for extra in more:
        (extra.create_all if hasattr(extra, "create_all") else extra.create)(engine)
    engine.dispose()
    return path


@cache
def _template(folder: str) -> Path:
    """An empty store with every table of the schema, made once per run and copied for each history."""
    return empty_views(Path(folder) / "empty.sqlite", CLASS_TOTALS, SQLSTAT_BLOCKS, PLAN_FIRSTS)


def write(history: History, path: Path) -> Path:
    """The history as an SQLite store at `path` (its views' rows, then the store's summaries: fill_summaries)."""
    shutil.copyfile(_template(str(path.parent)), path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    startups = {(s.instance, s.startup): s for s in history.snaps}
    for (inst, startup), _ in sorted(startups.items()):
        con.execute(
            "insert into dba_hist_database_instance (dbid, instance_number, startup_time, parallel, db_name, "
            "instance_name, host_name, version) values (?,?,?,?,?,?,?,?)",
            (
                DBID,
                inst,
                startup,
                "YES" if len(history.instances()) > 1 else "NO",
                "GEN",
                f"GEN{inst}",
                f"node{inst}",
                "19.0.0.0.0",
            ),
        )
    for s in history.snaps:
        con.execute(
            "insert into dba_hist_snapshot (snap_id, dbid, instance_number, startup_time, begin_interval_time, "
            "end_interval_time, snap_flag, snap_timezone) values (?,?,?,?,?,?,?,?)",
            (s.snap_id, DBID, s.instance, s.startup, s.end, s.end, s.flag, s.tz),
        )
        for (view, stat_id, name), value in zip(COUNTERS, s.counters or (0,) * len(COUNTERS), strict=True):
            con.execute(
                f"insert into dba_hist_{view} (snap_id, dbid, instance_number, stat_id, stat_name, value, con_dbid) "
                "values (?,?,?,?,?,?,?)",
                (s.snap_id, DBID, s.instance, stat_id, name, value, DBID),
            )
        for (metric_id, name, unit), value in zip(METRICS, s.metrics, strict=False):
            con.execute(
                "insert into dba_hist_sysmetric_summary (snap_id, dbid, instance_number, group_id, metric_id, "
                "metric_name, metric_unit, average, con_dbid) values (?,?,?,?,?,?,?,?,?)",
                (s.snap_id, DBID, s.instance, 2, metric_id, name, unit, value, DBID),
            )
        for sql_id, plan, execs, elapsed, cpu in s.sql:
            con.execute(
                "insert into dba_hist_sqlstat (snap_id, dbid, instance_number, sql_id, plan_hash_value, "
                "executions_delta, elapsed_time_delta, cpu_time_delta, con_dbid) values (?,?,?,?,?,?,?,?,?)",
                (s.snap_id, DBID, s.instance, sql_id, plan, execs, elapsed, cpu, DBID),
            )
        for (stat_id, name), value in zip(OS_STATS, s.os, strict=False):
            con.execute(
                "insert into dba_hist_osstat (snap_id, dbid, instance_number, stat_id, stat_name, value, con_dbid) "
                "values (?,?,?,?,?,?,?)",
                (s.snap_id, DBID, s.instance, stat_id, name, value, DBID),
            )
        for name, value in s.params:
            con.execute(
                "insert into dba_hist_parameter (snap_id, dbid, instance_number, parameter_hash, parameter_name, "
                "value, isdefault, ismodified, con_dbid) values (?,?,?,?,?,?,?,?,?)",
                (s.snap_id, DBID, s.instance, len(name), name, value, "FALSE", "FALSE", DBID),
            )
        view, stat_id, name = READING
        con.execute(
            f"insert into dba_hist_{view} (snap_id, dbid, instance_number, stat_id, stat_name, value, con_dbid) "
            "values (?,?,?,?,?,?,?)",
            (s.snap_id, DBID, s.instance, stat_id, name, s.logons, DBID),
        )
        con.execute(
            "insert into dba_hist_system_event (snap_id, dbid, instance_number, event_id, event_name, wait_class, "
            "total_waits, time_waited_micro, total_waits_fg, time_waited_micro_fg, con_dbid) "
            "values (?,?,?,?,?,?,?,?,?,?,?)",
            (s.snap_id, DBID, s.instance, EVENT_ID, EVENT, EVENT_CLASS, *s.waits, *s.waits, DBID),
        )
        for upper, count in s.buckets:
            con.execute(
                "insert into dba_hist_event_histogram (snap_id, dbid, instance_number, event_id, event_name, "
                "wait_class, wait_time_milli, wait_count, con_dbid) values (?,?,?,?,?,?,?,?,?)",
                (s.snap_id, DBID, s.instance, EVENT_ID, EVENT, EVENT_CLASS, upper, count, DBID),
            )
        for obj, logical, physical in s.segments:
            con.execute(
                'insert into dba_hist_seg_stat (snap_id, dbid, instance_number, "TS#", "OBJ#", "DATAOBJ#", '
                "logical_reads_delta, physical_reads_delta, con_dbid) values (?,?,?,?,?,?,?,?,?)",
                (s.snap_id, DBID, s.instance, 4, obj, obj, logical, physical, DBID),
            )
    for obj in OBJECTS:
        con.execute(
            'insert into dba_hist_seg_stat_obj (dbid, "TS#", "OBJ#", "DATAOBJ#", owner, object_name, object_type, '
            "tablespace_name, con_dbid) values (?,?,?,?,?,?,?,?,?)",
            (DBID, 4, obj, obj, "APP", f"T{obj}", "TABLE", "USERS", DBID),
        )
    con.execute(  # an object AWR never captured: named by the dictionary only
        "insert into dba_objects (dbid, owner, object_name, object_id, data_object_id, object_type) "
        "values (?,?,?,?,?,?)",
        (DBID, "APP", f"D{DICTIONARY_OBJECT}", DICTIONARY_OBJECT, DICTIONARY_OBJECT, "INDEX"),
    )
    for p in history.plans:
        con.execute(
            "insert into dba_hist_sql_plan (dbid, sql_id, plan_hash_value, id, operation, options, object_owner, "
            "object_name, parent_id, depth, position, cost, con_dbid) values (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                DBID,
                p.sql_id,
                p.plan_hash_value,
                p.id,
                p.operation,
                p.options,
                p.object_name and "APP",
                p.object_name,
                p.parent_id,
                p.depth,
                p.position,
                p.cost,
                DBID,
            ),
        )
    for a in history.samples:
        con.execute(
            "insert into dba_hist_active_sess_history (snap_id, dbid, instance_number, sample_id, sample_time, "
            '"SESSION_ID", "SESSION_SERIAL#", session_type, event, wait_class, session_state, con_dbid, '
            'blocking_inst_id, blocking_session, "BLOCKING_SESSION_SERIAL#", "CURRENT_OBJ#") '
            "values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                a.snap_id,
                DBID,
                a.instance,
                a.sample_id,
                a.time,
                a.session,
                1,
                "FOREGROUND",
                None if a.wait_class is None else f"{a.wait_class} event",
                a.wait_class,
                "ON CPU" if a.wait_class is None else "WAITING",
                DBID,
                *(a.blocker or (None, None, None)),
                a.obj,
            ),
        )
    fill_summaries(con, ash_top=False)
    con.commit()
    con.close()
    return path


def database(history: History, path: Path, min_interval: float = 300.0):
    """The history written at `path`, as the Database the questions take (app.history.database)."""
    write(history, path)
    return opened(path, min_interval)


def opened(path: Path, min_interval: float = 300.0):
    """The store written at `path` (write, then changed by a test), as the Database the questions take."""
    from app.history.database import History as Stores

    settings = Settings.from_env({}, targets={"g": {"sqlite": str(path)}}, min_interval=min_interval)
    return Stores({"g": SqliteStore("g", path, settings)}).database(f"g.{DBID}")


@contextmanager
def logged_statements():
    """The statements the questions run inside the block, as show_sql logs them (sql, params, sql_oracle)."""
    log: list = []
    token = sql_log.set(log)
    try:
        yield log
    finally:
        sql_log.reset(token)
