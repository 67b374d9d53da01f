"""A lean 400-day, two-instance AWR history for the long-range tests (tests/test_long_history.py): 30-minute snapshots
of a few statistics, events, metrics and one I/O function, built in a few seconds where the demo builder needs
minutes. What a long range must get right is in it (docs/awr-rules.md §4-§6): instance 2 crashes on day 100 (three
snapshots missing, then a new startup) and restarts cleanly on day 300; instance 1 misses ten snapshots on day 250
(a gap, same startup); both take a manual snapshot 4 minutes after an automatic one on day 200.
"""

import random
from datetime import datetime, timedelta
from pathlib import Path

from app.demo.builder import _create
from app.store.awr.embedded.summaries import CLASS_TOTALS_FILL

DBID, NAME, DAYS, STEP = 4242, "LONGRAC", 400, 1800
START = datetime(2025, 10, 16, 0, 0)
PER_DAY = 86400 // STEP
CRASH = 100 * PER_DAY  # instance 2: snapshots k..k+2 missing, a new startup at k+3
CLEAN_RESTART = 300 * PER_DAY  # instance 2: a new startup at k
GAP = 250 * PER_DAY  # instance 1: snapshots k..k+9 missing
MANUAL = 200 * PER_DAY  # instance 1: a manual snapshot 4 minutes after snapshot k
# (view, stat_id, name, rate per second, kind): counters grow by rate x seconds x noise; readings are read as they are
STATS = [
    ("sys_time_model", 1, "DB time", 3.0e6, "counter"),
    ("sys_time_model", 2, "DB CPU", 1.2e6, "counter"),
    ("sysstat", 3, "user commits", 95.0, "counter"),
    ("sysstat", 4, "user rollbacks", 3.0, "counter"),
    ("sysstat", 5, "redo size", 560_000.0, "counter"),
    ("sysstat", 6, "logons current", 180.0, "reading"),
    ("osstat", 0, "NUM_CPUS", 16.0, "reading"),
    ("osstat", 1, "BUSY_TIME", 600.0, "counter"),
    ("osstat", 2, "IDLE_TIME", 1000.0, "counter"),
]
EVENTS = [
    (11, "db file sequential read", "User I/O", 1.1e6, 900.0),
    (12, "log file sync", "Commit", 0.4e6, 95.0),
    (13, "SQL*Net message from client", "Idle", 50e6, 5000.0),
]
METRICS = [
    (2057, "Host CPU Utilization (%)", "% Busy/(Idle+Busy)", 37.5),
    (2003, "User Transaction Per Sec", "Transactions Per Second", 98.0),
    (2106, "Response Time Per Txn", "CentiSeconds Per Txn", 0.31),
]
LGWR = 3  # iostat_function id


def build(path) -> dict:
    """Write the history to `path`; returns its facts (dbid, snapshots per instance, where the events are)."""
    con = _create(Path(path))  # the demo builder's empty store, tuned for one bulk load
    rng = random.Random(11)
    rows: dict[str, list] = {}
    total = DAYS * PER_DAY
    for inst in (1, 2):
        startup = START - timedelta(days=3, minutes=17)
        times = [(k, START + timedelta(seconds=STEP * k)) for k in range(total + 1)]
        if inst == 1:
            times = [(k, t) for k, t in times if not GAP <= k < GAP + 10]
        else:
            times = [(k, t) for k, t in times if not CRASH <= k < CRASH + 3]
        values = {}
        prev = None
        for k, t in times:
            snap_id = 1 + k + (k > MANUAL)  # the manual snapshot is snap_id MANUAL + 2
            if inst == 2 and k in (CRASH + 3, CLEAN_RESTART):
                startup = t - timedelta(minutes=9 if k == CLEAN_RESTART else 23)
                values, prev = {}, None
            _snapshot(rows, inst, snap_id, startup, prev or t - timedelta(seconds=STEP), t, rng, values, 0)
            prev = t
            if k == MANUAL:
                manual = t + timedelta(minutes=4)
                _snapshot(rows, inst, snap_id + 1, startup, t, manual, rng, values, 1)
                prev = manual
        startups = sorted({r[3] for r in rows["snapshot"] if r[2] == inst})
        rows.setdefault("database_instance", []).extend(
            (DBID, inst, s, "YES", "19.0.0.0.0", NAME, f"{NAME}{inst}", f"node{inst}") for s in startups
        )
    for table, batch in rows.items():
        marks = ",".join("?" * len(batch[0]))
        cols = {
            "snapshot": "snap_id, dbid, instance_number, startup_time, begin_interval_time, end_interval_time, "
            "snap_flag, snap_timezone",
            "database_instance": "dbid, instance_number, startup_time, parallel, version, db_name, "
            "instance_name, host_name",
            "system_event": "snap_id, dbid, instance_number, event_id, event_name, wait_class, total_waits, "
            "time_waited_micro, total_waits_fg, time_waited_micro_fg",
            "sysmetric_summary": "snap_id, dbid, instance_number, group_id, metric_id, metric_name, "
            "metric_unit, intsize, average",
            "iostat_function": "snap_id, dbid, instance_number, function_id, function_name, "
            "small_write_megabytes, small_write_reqs",
        }.get(table, "snap_id, dbid, instance_number, stat_id, stat_name, value")
        con.executemany(f"insert into dba_hist_{table} ({cols}) values ({marks})", batch)
    con.execute(CLASS_TOTALS_FILL)
    con.commit()
    con.close()
    return {"dbid": DBID, "instances": [1, 2]}


def _snapshot(rows, inst, snap_id, startup, begin, end, rng, values, flag):
    """One instance's rows at one snapshot; `values` holds its counters since its startup (reset by the caller)."""
    add = lambda table, row: rows.setdefault(table, []).append(row)  # noqa: E731
    seconds = (end - begin).total_seconds()
    noise = rng.uniform(0.5, 1.5)
    add("snapshot", (snap_id, DBID, inst, str(startup), str(begin), str(end), flag, 0.0))
    for view, stat_id, name, rate, kind in STATS:
        if kind == "reading":
            value = round(rate * rng.uniform(0.8, 1.2))
        else:
            value = values[name] = values.get(name, 0) + round(rate * seconds * noise * rng.uniform(0.9, 1.1))
        add(view, (snap_id, DBID, inst, stat_id, name, value))
    for event_id, name, wait_class, micro, waits in EVENTS:
        t = values[name] = values.get(name, 0) + round(micro * seconds * noise)
        w = values[name + ":waits"] = values.get(name + ":waits", 0) + round(waits * seconds * noise)
        add("system_event", (snap_id, DBID, inst, event_id, name, wait_class, w, t, w, t))
    for metric_id, name, unit, average in METRICS:
        add(
            "sysmetric_summary",
            (
                snap_id,
                DBID,
                inst,
                2,
                metric_id,
                name,
                unit,
                round(seconds * 100),
                average * noise * rng.uniform(0.9, 1.1),
            ),
        )
    mb = values["lgwr"] = values.get("lgwr", 0) + round(0.6 * seconds * noise)
    add("iostat_function", (snap_id, DBID, inst, LGWR, "LGWR", mb, round(mb * 1.7)))
