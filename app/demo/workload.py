"""The workload model: the two databases, their stories, the snapshot schedule, the daily and weekly shape of the
demand, and the per-second quantities of one interval (`rates`) every counter of the demo is derived from."""

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from app.demo.sql import REGRESSION
from app.units import DAY, MIB

END = datetime(2026, 11, 20, 6, 0)  # UTC instant of the newest snapshot by default: the file is reproducible
STEP = 1800  # seconds between automatic snapshots
GIB = 1024 * MIB
US_PER_S = 1e6  # the time model and wait times are in microseconds
US_PER_CS = 1e4
CS_PER_S = 100  # sysstat times and OSSTAT are in centiseconds
BLOCKS_PER_DIRECT_READ = 128  # blocks per multiblock request of direct-path reads
BLOCKS_PER_TEMP_IO = 16  # and of temp reads and writes
BLOCKS_PER_DIRECT_WRITE = 32  # blocks per request of the batch's direct-path writes (its INSERT /*+ APPEND */)
WRITE_REQUESTS_PER_BLOCK = 0.7  # DBWR's cache writes: requests per block written
BATCH_START, BATCH_END = 1, 3  # database-local hours of the nightly batch
ROW_LOCK_WAITERS = 6  # sessions of the blocking chain waiting on a row lock (RACPROD instance 1, one afternoon)


@dataclass
class Instance:
    number: int
    name: str
    host: str
    startup: datetime  # database-local
    missing: set = field(default_factory=set)  # snapshot times (local) it has no row for
    restarts: dict = field(default_factory=dict)  # first snapshot time after a restart -> startup time


@dataclass
class DemoDatabase:
    dbid: int
    name: str
    cpus: int
    cores: int
    memory_gb: int
    tz: int  # seconds east of UTC
    rac: bool
    instances: list
    peak_tps: float  # demand per instance on a weekday afternoon
    capacity: float | None = None  # TPS the I/O can sustain (ORCL before the fix)
    snap_base: int = 1
    block_size: int = 8192
    sql_seed: int = 0
    step: int = STEP  # seconds between its snapshots
    statspack: bool = False  # its history kept by Statspack (Standard Edition 2), not AWR
    gp2: dict = field(default_factory=dict)  # hour -> (read latency ms, share of reads served): burst_balance()


def local(db, moment_utc: datetime) -> datetime:
    return moment_utc + timedelta(seconds=db.tz)


def fmt(moment: datetime) -> str:
    """A database-local time as the store's TIMESTAMP text."""
    return moment.isoformat(" ", "seconds")


def iso(db, moment: datetime) -> str:
    """A database-local time in ISO 8601 with the database's offset."""
    return moment.replace(tzinfo=timezone(timedelta(seconds=db.tz))).isoformat(timespec="seconds")


def databases(end_utc: datetime, days: int) -> tuple[DemoDatabase, DemoDatabase]:
    """ORCL (single instance, I/O bound until its fix) and RACPROD (two nodes), as of `days` before `end_utc`."""
    start_utc = end_utc - timedelta(days=days)
    orcl = DemoDatabase(
        1645932817,
        "ORCL",
        4,
        2,
        32,
        0,
        False,
        [Instance(1, "ORCL", "ip-10-0-1-23", _local_start(start_utc, 0))],
        peak_tps=190.0,
        capacity=101.0,
        snap_base=20001,
        sql_seed=1,
    )
    rac = DemoDatabase(
        3120466125,
        "RACPROD",
        16,
        8,
        256,
        3600,
        True,
        [
            Instance(1, "RACPROD1", "racprod-node1", _local_start(start_utc, 3600)),
            Instance(2, "RACPROD2", "racprod-node2", _local_start(start_utc, 3600)),
        ],
        peak_tps=420.0,
        snap_base=8101,
        sql_seed=2,
    )
    return orcl, rac


# The Statspack database (docs/awr-rules.md §31): Standard Edition 2 on Amazon RDS (licence included), one instance,
# hourly snapshots at level 7 (level 5 until the DBA raised it), its data on one gp2 volume.
GP2_GB = 500
GP2_BASELINE = 3 * GP2_GB  # IOPS a gp2 volume sustains: 3 per GB (Amazon EBS volume types)
GP2_CREDITS = 5.4e6  # I/O credits of a full burst bucket, spent at IOPS above the baseline, earned below it
GP2_READ_MS = 1.0  # a single-block read while the volume bursts
REPORT_IOPS = 900  # the reporting job's reads: business hours, weekdays, from the burst story's start


def statspack_database(end_utc: datetime, days: int) -> DemoDatabase:
    """BILLING: SE2 on RDS (UTC, 4 vCPUs), Statspack hourly."""
    start_utc = end_utc - timedelta(days=days)
    return DemoDatabase(
        2870713431,
        "BILLING",
        4,
        2,
        32,
        0,
        False,
        [Instance(1, "BILLING", "ip-10-0-2-41", _local_start(start_utc, 0))],
        peak_tps=42.0,
        snap_base=1,
        sql_seed=3,
        step=3600,
        statspack=True,
    )


def place_statspack_stories(db: DemoDatabase, end_utc: datetime) -> dict:
    """BILLING's stories, inside the shortest history (MIN_DAYS): a reporting job from 6 days before the newest
    snapshot whose reads, with the afternoon's, outrun the gp2 baseline until the burst balance is spent
    (burst_balance); snapshots at level 7 but for a day 9 days before, when the DBA lowered it to 5 (no segment
    statistics); an RDS maintenance reboot in the night of the last Sunday at least 2 days before."""

    def at(days_before, hh, mm=0):
        return (local(db, end_utc) - timedelta(days=days_before)).replace(hour=hh, minute=mm, second=0)

    reboot = at(2, 3, 12)
    while reboot.weekday() != 6:
        reboot -= timedelta(days=1)
    startup = reboot.replace(second=44) + timedelta(minutes=3)
    local_end = local(db, end_utc)
    first_after = local_end - timedelta(seconds=db.step * ((local_end - startup).total_seconds() // db.step))
    db.instances[0].restarts[first_after] = startup
    return {
        "burst_credits": {"db": db, "from": at(6, 0), "report_iops": REPORT_IOPS, "baseline_iops": GP2_BASELINE},
        "level": {"db": db, "from": at(9, 6), "to": at(8, 6), "lowered": 5, "level": 7},
        "maintenance_reboot": {"db": db, "startup": startup},
    }


def burst_balance(db: DemoDatabase, times: list, stories: dict) -> list:
    """The gp2 volume's burst bucket over the schedule (`times`: (snap_id, local time, flag)), hour by hour: spent at
    the reads and writes per second above the baseline, earned below it, never above GP2_CREDITS. While it is empty
    the volume serves the baseline only: the reads queue (latency from about 1 ms to over 10 ms) and a share of
    them waits. Fills db.gp2 (hour -> (latency ms, share served)) for rates(); returns (hour, credits left)."""
    credits, out = GP2_CREDITS, []
    for _, t, _ in times:
        mid = t - timedelta(seconds=db.step / 2)
        q = rates(db, mid, stories, 1.0, 0.0)
        demand = q["rreq"] + q["wreq"] + q["redo_writes"]
        lasts = credits / (demand - GP2_BASELINE) if demand > GP2_BASELINE else db.step
        empty = max(0.0, 1 - lasts / db.step)  # the share of the hour with no credit left
        credits = min(GP2_CREDITS, max(0.0, credits + (GP2_BASELINE - demand) * db.step))
        pressure = demand / GP2_BASELINE
        ms = GP2_READ_MS + empty * 11.0 * pressure
        served = 1 - empty * (1 - 1 / pressure) if pressure > 1 else 1.0
        db.gp2[_hour(mid)] = (ms, served)
        out.append((t, credits))
    return out


def _hour(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def _local_start(start_utc, tz):
    return (start_utc + timedelta(seconds=tz) - timedelta(days=19, hours=3, minutes=17)).replace(second=12)


LIVE_MINUTES = 60  # the demo's live buffer: one-second samples after the newest snapshot, its end the demo's now


def place_stories(orcl: DemoDatabase, rac: DemoDatabase, end_utc: datetime, live_minutes: int = LIVE_MINUTES) -> dict:
    """Place the stories relative to the newest snapshot so a short history still holds all of them; the live
    buffer's row lock in its own hour after it (the history's, RACPROD instance 1, 25 minutes in, for 12)."""

    def at(db, days_before, hh, mm):
        return (local(db, end_utc) - timedelta(days=days_before)).replace(hour=hh, minute=mm, second=0)

    fix_startup = at(orcl, 5, 10, 21).replace(second=7)
    orcl.instances[0].restarts[at(orcl, 5, 10, 30)] = fix_startup
    manual = at(orcl, 2, 10, 4)
    crash_startup = at(rac, 7, 15, 52).replace(second=41)
    node2 = rac.instances[1]
    node2.missing = {at(rac, 7, 14, 30) + timedelta(seconds=STEP * k) for k in range(3)}
    node2.restarts[at(rac, 7, 16, 0)] = crash_startup
    lock_from = at(rac, 4, 14, 5)
    return {
        "async_io_fix": {
            "db": orcl,
            "startup": fix_startup,
            "before": {"tps": 101, "response_ms": 90},
            "after": {"tps": 136, "response_ms": 70},
            "change": "ALTER SYSTEM SET FILESYSTEMIO_OPTIONS=SETALL SCOPE=SPFILE; restart",
        },
        "manual_snapshot": {"db": orcl, "time": manual},
        "restart": {"db": rac, "instance": 2, "startup": crash_startup, "missing": sorted(node2.missing)},
        "plan_regression": {"db": rac, "from": at(rac, 3, 9, 10), "to": at(rac, 2, 15, 40), "sql": REGRESSION},
        "batch": {"hours": "01:00-03:00 database time, nightly; RMAN backup Sunday 03:00-04:30"},
        "row_lock": {"db": rac, "instance": 1, "from": lock_from, "to": lock_from + timedelta(minutes=45)},
        "live": {
            "minutes": live_minutes,
            "row_lock": {
                "db": rac,
                "instance": 1,
                "from": local(rac, end_utc) + timedelta(minutes=25),
                "to": local(rac, end_utc) + timedelta(minutes=37),
            }
            if live_minutes >= 40
            else None,
        },
    }


def schedule(db: DemoDatabase, end_utc: datetime, days: int, stories: dict):
    """Snapshot times (database-local) with snap ids: every 30 minutes (the Statspack database's every hour), plus the
    manual one."""
    local_end = local(db, end_utc)
    times = [local_end - timedelta(seconds=db.step * k) for k in range(days * DAY // db.step, -1, -1)]
    manual = stories["manual_snapshot"]
    if manual["db"] is db:
        times.append(manual["time"])
        times.sort()
    return db, [
        (db.snap_base + k, t, 1 if manual["db"] is db and t == manual["time"] else 0) for k, t in enumerate(times)
    ]


def public_stories(stories, plan):
    """The stories as build() returns them: ids instead of objects, snapshot ids, ISO 8601 times."""
    ids = {db.name: {t: snap_id for snap_id, t, _ in times} for db, times in plan}

    def snap(db, moment):
        return ids[db.name].get(moment) or min((i for t, i in ids[db.name].items() if t >= moment), default=None)

    fix, man, rst, reg, lock = (
        stories[k] for k in ("async_io_fix", "manual_snapshot", "restart", "plan_regression", "row_lock")
    )
    dbs = [db for db, _ in plan]
    return {
        "databases": [
            {
                "dbid": db.dbid,
                "db_name": db.name,
                "rac": db.rac,
                "cpus": db.cpus,
                "instances": [i.number for i in db.instances],
                "time_zone_seconds": db.tz,
                "source": "statspack" if db.statspack else "awr",
            }
            for db in dbs
        ],
        "async_io_fix": {
            "dbid": fix["db"].dbid,
            "startup_time": iso(fix["db"], fix["startup"]),
            "first_snap_after": snap(fix["db"], fix["startup"]),
            "before": fix["before"],
            "after": fix["after"],
            "change": fix["change"],
        },
        "manual_snapshot": {
            "dbid": man["db"].dbid,
            "snap_id": ids[man["db"].name][man["time"]],
            "time": iso(man["db"], man["time"]),
            "minutes_after_previous": man["time"].minute % 30,
        },
        "restart": {
            "dbid": rst["db"].dbid,
            "instance": rst["instance"],
            "startup_time": iso(rst["db"], rst["startup"]),
            "missing_snap_ids": [ids[rst["db"].name][t] for t in rst["missing"]],
            "first_snap_after": snap(rst["db"], rst["startup"]),
        },
        "plan_regression": {
            "dbid": reg["db"].dbid,
            "sql_id": reg["sql"].sql_id,
            "good_plan": reg["sql"].plan,
            "bad_plan": reg["sql"].bad_plan,
            "from": iso(reg["db"], reg["from"]),
            "to": iso(reg["db"], reg["to"]),
            "begin_snap": snap(reg["db"], reg["from"]),
            "end_snap": snap(reg["db"], reg["to"]),
        },
        "batch": stories["batch"],
        "row_lock": _public_lock(lock),
        "live": {
            "minutes": stories["live"]["minutes"],
            "databases": {
                str(db.dbid): {
                    "from": iso(db, times[-1][1]),
                    "to": iso(db, times[-1][1] + timedelta(minutes=stories["live"]["minutes"])),
                }
                for db, times in plan
                if not db.statspack
            },
            "row_lock": _public_lock(stories["live"]["row_lock"]) if stories["live"]["row_lock"] else None,
        },
        **({"statspack": _public_statspack(stories, snap)} if "burst_credits" in stories else {}),
    }


def _public_statspack(stories: dict, snap) -> dict:
    burst, level, reboot = (stories[k] for k in ("burst_credits", "level", "maintenance_reboot"))
    db = burst["db"]
    return {
        "dbid": db.dbid,
        "burst_credits": {
            "from": iso(db, burst["from"]),
            "first_snap": snap(db, burst["from"]),
            "report_iops": burst["report_iops"],
            "baseline_iops": burst["baseline_iops"],
            "hours": {iso(db, h): round(ms, 2) for h, (ms, _) in sorted(db.gp2.items()) if ms > 2 * GP2_READ_MS},
        },
        "level": {
            "from": iso(db, level["from"]),
            "to": iso(db, level["to"]),
            "first_snap": snap(db, level["from"]),
            "back_snap": snap(db, level["to"]),
            "lowered": level["lowered"],
            "level": level["level"],
        },
        "maintenance_reboot": {
            "startup_time": iso(db, reboot["startup"]),
            "first_snap_after": snap(db, reboot["startup"]),
        },
    }


def _public_lock(lock: dict) -> dict:
    return {
        "dbid": lock["db"].dbid,
        "instance": lock["instance"],
        "from": iso(lock["db"], lock["from"]),
        "to": iso(lock["db"], lock["to"]),
        "event": "enq: TX - row lock contention",
        "waiters": ROW_LOCK_WAITERS,
    }


def daily(hour: float, weekday: int) -> float:
    """Share of the weekday-afternoon peak: business hours, lunch dip, quiet nights, quieter weekends."""
    day = 0.22 + 0.78 * math.exp(-(((hour - 14.0) / 4.2) ** 2)) - 0.08 * math.exp(-(((hour - 12.5) / 0.6) ** 2))
    return day * (0.55 if weekday >= 5 else 1.0)


def rates(db: DemoDatabase, moment: datetime, stories: dict, noise: float, days_in: float, instance: int = 1) -> dict:
    """Per-second quantities of one instance over the interval centred on `moment` (database-local)."""
    hour = moment.hour + moment.minute / 60
    weekday = moment.weekday()
    fix = stories["async_io_fix"]
    fixed = db is not fix["db"] or moment >= fix["startup"]
    reg = stories["plan_regression"]
    regressed = db is reg["db"] and reg["from"] <= moment < reg["to"]
    batch = 1.0 if BATCH_START <= hour < BATCH_END else 0.0
    rman = 1.0 if weekday == 6 and 3 <= hour < 4.5 else 0.0
    growth = 1 + 0.1 * days_in / 45
    demand = db.peak_tps * daily(hour, weekday) * growth * noise
    if db.capacity:  # ORCL is I/O bound at about 101 TPS (unstable) until the fix, then about 136 (stable)
        cap = 136.0 * (1 + 0.2 * (noise - 1)) if fixed else db.capacity * (1 + 0.9 * (noise - 1))
        demand = min(demand, cap)
    txn = demand
    q = {"txn": txn, "commit": txn * 0.97, "rollback": txn * 0.03, "batch": batch, "one": 1.0}
    q["exec"] = txn * (11 if not db.rac else 14)
    q["call"] = txn * 8
    q["rec"] = q["exec"] * 0.6
    q["lread"] = txn * (700 if not db.rac else 520) + batch * (90000 if db.rac else 30000)
    q["cur"] = q["lread"] * 0.12
    q["cons"] = q["lread"] - q["cur"]
    q["chg"] = txn * 28 + batch * 4000
    q["pcache"] = txn * (30 if not db.rac else 3)
    burst = stories.get("burst_credits")
    if burst and burst["db"] is db and moment >= burst["from"] and weekday < 5 and 9 <= hour < 18:
        q["pcache"] += burst["report_iops"]  # the reporting job's single-block reads
    latency, served = db.gp2.get(_hour(moment), (GP2_READ_MS, 1.0)) if db.statspack else (None, 1.0)
    q["pcache"] *= served
    q["pdirect"] = batch * (52000 if db.rac else 14000)
    q["ptemp"] = batch * (1800 if db.rac else 500)
    q["pread"] = q["pcache"] + q["pdirect"] + q["ptemp"]
    q["mreq"] = q["pdirect"] / BLOCKS_PER_DIRECT_READ + q["ptemp"] / BLOCKS_PER_TEMP_IO
    q["rreq"] = q["pcache"] + q["mreq"]
    q["pwrite"] = txn * 2.2 + batch * 900
    q["pwdirect"] = txn * 0.02 + batch * 600  # the nightly batch's INSERT /*+ APPEND */, and a few LOB writes by day
    q["pwcache"] = q["pwrite"] - q["pwdirect"]
    q["wreq"] = q["pwrite"] * WRITE_REQUESTS_PER_BLOCK
    q["rbytes"] = q["pread"] * db.block_size
    q["wbytes"] = q["pwrite"] * db.block_size
    q["redo"] = txn * 5600 + batch * 1.4e6
    q["redo_writes"] = min(txn * 0.9, 900) + 2
    q["redo_entries"] = txn * 24 + batch * 900
    q["rman_mb"] = rman * (90 if not db.rac else 350)
    q["trreq"] = q["rreq"] + q["redo_writes"] * 0.01 + 3 + q["rman_mb"] * 1.1
    q["twreq"] = q["wreq"] + q["redo_writes"] + 2 + q["rman_mb"] * 0.2
    q["trbytes"] = q["rbytes"] + 40000 + q["rman_mb"] * MIB
    q["twbytes"] = q["wbytes"] + q["redo"] * 1.1 + 30000 + q["rman_mb"] * 0.2 * MIB
    q["parse"] = q["exec"] * 0.28
    q["hard"] = q["parse"] * (0.004 + 0.05 * batch)
    q["logon"] = 0.35 + txn * 0.002
    q["sort"] = q["exec"] * 0.05
    q["gc"] = txn * 6 + batch * 400 if db.rac else 0.0
    q["gc_cr"] = q["gc"] * 0.6
    q["net"] = q["call"] * 3000
    q["undo_applied"] = q["rollback"] * 3
    q["sessions"] = round((60 if not db.rac else 180) + 140 * daily(hour, weekday) * (4 if db.rac else 1))

    # CPU (sessions = CPU seconds per second)
    cpu_want = txn * (0.008 if not db.rac else 0.011) + batch * (1.1 if not db.rac else 4.0) + rman * 0.3
    reg_execs = (30.0 * daily(hour, weekday) + 3) if db.rac else 0.0
    reg_ms = 520.0 if regressed else 3.8
    cpu_want += reg_execs * reg_ms / 1000 * 0.96
    bg_cpu = 0.08 + txn * 0.0012 + batch * 0.2 + rman * 0.6
    capacity = db.cpus * 0.97 - bg_cpu - 0.1
    db_cpu = min(cpu_want, capacity)
    queue = max(cpu_want - capacity, 0.0) * 1.15  # run-queue time counted in DB time, not in any wait

    # Waits (foreground seconds per second), per driver
    lfs_ms = (22.0 if not fixed else 6.0) if not db.rac else 1.6
    sread_ms = latency or (1.75 if not db.rac else 0.45)
    mread_ms = 9.0 if not db.rac else 4.0
    if batch and db.rac:
        sread_ms *= 1.6
    w = {
        "commit": q["commit"] * lfs_ms / 1000,
        "sread": q["pcache"] * sread_ms / 1000,
        "mread": q["mreq"] * mread_ms / 1000 * 0.7,
        "app": 0.002 * txn**0.5 + 0.05 * batch,
        "conc": 0.0004 * txn + (0.4 * batch if db.rac else 0.02 * batch) + (0.6 if regressed else 0.0),
        "config": (0.0 if fixed else 0.008 * txn) + 0.02 * batch,
        "net": 0.00002 * q["call"],
        "gcwait": q["gc"] * 0.0005 if db.rac else 0.0,
        "sched": queue * 0.08,
        "other": 0.01 + 0.01 * batch,
        "ctl": 0.0005,
        "rman": 0.002 * rman,
        "row_lock": _row_lock(db, moment, stories, instance),
    }
    q["sread_ms"] = sread_ms
    q["lat"] = {"commit": lfs_ms, "sread": sread_ms, "mread": mread_ms, "config": 1.0 if fixed else 1.6}
    q["bg"] = {
        "redo_bg": q["redo_writes"] * (0.6 if fixed else 28.0 if not db.rac else 0.5) / 1000,
        "dbwr_bg": q["pwrite"] / 40 * (2 if fixed else 40) / 1000,
        "ctl": 0.004,
        "rman": 0.4 * rman,
        "other": 0.02,
        "idle_bg": 6.0,
        "idle_rac": 2.0 if db.rac else 0.0,
    }
    q["bg_lat"] = {"redo_bg": 0.6 if fixed or db.rac else 28.0, "dbwr_bg": 2.0 if fixed else 40.0}
    q["idle_client"] = q["sessions"] * 0.92
    fg_waits = sum(w.values())
    q["w"] = w
    q["dbcpu"], q["bgcpu"], q["queue"] = db_cpu, bg_cpu, queue
    q["dbtime"] = db_cpu + fg_waits + queue
    q["rman"] = rman * 0.3
    q["cpu_cs"], q["dbtime_cs"], q["wait_cs"] = db_cpu * CS_PER_S, q["dbtime"] * CS_PER_S, fg_waits * CS_PER_S
    q["io_cs"] = (w["sread"] + w["mread"]) * CS_PER_S
    q["gc_cs"], q["sched_cs"] = w["gcwait"] * CS_PER_S, w["sched"] * CS_PER_S
    q["wait_count"] = q["commit"] + q["pcache"] + q["mreq"] + q["call"] * 2
    q["reg"] = (reg_execs, reg_ms, regressed)

    # Host: BUSY + IDLE = all CPU time; IOWAIT is part of IDLE (Linux)
    busy = min(db_cpu + bg_cpu + 0.12 + 0.05 * noise, db.cpus * 0.995)
    iowait_share = 0.0 if db.rac else (0.68 + 1.2 * (noise - 1) if not fixed else 0.04 * noise**8) * min(txn / 101, 1.0)
    idle = db.cpus - busy
    q["busy"], q["idle"] = busy, idle
    q["iowait"] = min(idle * 0.97, db.cpus * max(iowait_share, 0.0))
    q["rsrc"] = queue * 0.3
    q["load"] = busy + queue + (q["iowait"] * 0.8 if not db.rac else 0)
    return q


def _row_lock(db, moment, stories, instance) -> float:
    """Sessions waiting on the blocking chain's row lock, over the interval centred on `moment`: the part of the
    interval inside the story's window x the waiters."""
    lock = stories["row_lock"]
    if db is not lock["db"] or instance != lock["instance"]:
        return 0.0
    half = timedelta(seconds=STEP / 2)
    overlap = (min(moment + half, lock["to"]) - max(moment - half, lock["from"])).total_seconds()
    return ROW_LOCK_WAITERS * max(overlap, 0.0) / STEP


# sequential reads of the parallel and buffer-busy kind wait longer than the single-block read itself
EVENT_SCALE = {
    "db file parallel read": 2.5,
    "read by other session": 1.1,
    "Disk file operations I/O": 0.05,
    "db file scattered read": 0.6,
    "direct path read": 1.0,
    "direct path read temp": 0.45,
    "direct path write temp": 0.55,
    "direct path write": 0.35,
}
