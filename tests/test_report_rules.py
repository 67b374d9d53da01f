"""The range report's numbers (docs/awr-rules.md §28) asked of histories made here (tests/histories.py), each
expectation worked out in the test from the rule applied to the rows written, read back with plain SQL, never from the
code under test: the header's version and platform; I/O by function, the sum of valid deltas (§3) of MB and requests
of each function, an instance without a row of it adding nothing, read at the range's boundary snapshots only (§13,
§21: `SNAP_ID IN` the boundaries), per second over the elapsed time; the OS statistics, the cumulative ones summed
(times in seconds: centiseconds / 100, bytes as they are) with their share of BUSY_TIME + IDLE_TIME (one of the two
missing adds nothing), the readings at the range's last snapshot summed over the instances (a NULL adds nothing);
a range whose DB time and elapsed time are 0 (every SYSSTAT and time model interval dropped: the counters went
down, §3), where no % of DB time, no per-second rate and no average active sessions has a value; one instance's
header, its own DB time over its own elapsed time (§13); the database and instance asked (all by default) and the
intervals a restart leaves out (§4), over the instances asked; the Load Profile's rates and the top events and wait
classes kept exact (§13, §14: sums of unrounded deltas, rounded where the report prints them); the tablespaces' last
sizes, used % of maximum and growth (§16), and none on Statspack, which keeps no tablespace usage (§31), saying why;
the changes of the instances asked in time order, at one time by instance, the database's first (§23); the charts of
a range of more intervals than a chart draws: at most 300 points (§21), each instance's AAS on RAC, one instance's
wait classes and AAS its own."""

import sqlite3
from contextlib import closing
from datetime import datetime, timedelta, timezone
from itertools import pairwise
from math import isclose
from statistics import linear_regression

import pytest
from histories import DBID, History, Snap, database, local, logged_statements, opened, write
from sqlalchemy import create_engine

from app.history import report
from app.store.statspack.tables import tables

PLATFORM = "Linux x86 64-bit"
FUNCTIONS = ((1, "DBWR", (1, 2)), (2, "LGWR", (1,)))  # (FUNCTION_ID, FUNCTION_NAME, the instances with its rows)
IO_COLUMNS = {  # the report's column: DBA_HIST_IOSTAT_FUNCTION's columns summed (small + large)
    "read_megabytes": ("small_read_megabytes", "large_read_megabytes"),
    "write_megabytes": ("small_write_megabytes", "large_write_megabytes"),
    "read_requests": ("small_read_reqs", "large_read_reqs"),
    "write_requests": ("small_write_reqs", "large_write_reqs"),
}
# OSSTAT statistics written by hand beside histories.OS_STATS (BUSY_TIME, IDLE_TIME, NUM_CPUS): (STAT_ID, name)
MORE_OS = ((30, "USER_TIME"), (31, "VM_IN_BYTES"))
SNAPS = (1, 2, 3, 4)
TABLESPACES = (  # (TS#, TSNAME, CONTENTS, BLOCK_SIZE, TABLESPACE_MAXSIZE in blocks); used and allocated grow unevenly
    (0, "SYSTEM", "PERMANENT", 8192, 40_000),
    (4, "USERS", "PERMANENT", None, 30_000),  # no block size in the view: 8192 (§16)
    (3, "TEMP", "TEMPORARY", 16384, 0),  # no maximum size
)
COLUMN_FACTORS = (1, 2, 3, 5, 11, 13, 17, 19)  # DBA_HIST_IOSTAT_FUNCTION's 8 columns: each a multiple of one growth


def _history(dropped: bool = False, restart: bool = False) -> History:
    """Two instances, snapshots 1 to 4 an hour apart (instance 1 a second before instance 2), one startup each
    (`restart`: instance 2 starts again at 02:30, between snapshots 2 and 3). SYSSTAT and time model counters grow by
    1,000 an hour (`dropped`: fall by 1,000 an hour, so no interval of theirs is valid, §3); the event waits 10 times
    an hour for 12,345 µs each; OSSTAT's BUSY_TIME and IDLE_TIME (cs) grow, NUM_CPUS is 4, NULL on instance 2 at
    snapshot 4."""
    snaps = []
    for inst in (1, 2):
        for k in SNAPS:
            counter = 10_000 - 1_000 * k if dropped else 1_000 * k
            snaps.append(
                Snap(
                    k,
                    inst,
                    f"2026-03-29 {k:02}:00:0{inst}",
                    0,
                    "2026-03-29 02:30:00" if restart and (inst, k) >= (2, 3) else "2026-03-28 20:00:00",
                    counters=(counter,) * 6,
                    waits=(10 * k, 12_345 * 10 * k),
                    os=(300 * k + 7 * inst * k * k, 700 * k + inst, None if (inst, k) == (2, 4) else 4),
                )
            )
    return History(tuple(snaps))


def _write(path, dropped: bool = False, restart: bool = False):
    """The history's store at `path`, with by hand: the platform, each of FUNCTIONS' I/O rows on its instances
    (growing unevenly: the columns differ), MORE_OS's rows and TABLESPACES' sizes at each snapshot; opened as the
    Database the report takes."""
    write(_history(dropped, restart), path)
    with sqlite3.connect(path) as con:
        con.execute("UPDATE dba_hist_database_instance SET platform_name = ?", (PLATFORM,))
        for function_id, name, instances in FUNCTIONS:
            for inst in instances:
                for k in SNAPS:
                    g = function_id**2 * k * k + inst  # LGWR's 4 x k² on one instance, DBWR's k² on two
                    con.execute(
                        "INSERT INTO dba_hist_iostat_function (snap_id, dbid, instance_number, function_id, "
                        "function_name, small_read_megabytes, small_write_megabytes, large_read_megabytes, "
                        "large_write_megabytes, small_read_reqs, small_write_reqs, large_read_reqs, large_write_reqs, "
                        "con_dbid) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        (k, DBID, inst, function_id, name, *(m * g for m in COLUMN_FACTORS), DBID),
                    )
        for stat_id, name in MORE_OS:
            con.executemany(
                "INSERT INTO dba_hist_osstat (snap_id, dbid, instance_number, stat_id, stat_name, value, con_dbid) "
                "VALUES (?,?,?,?,?,?,?)",
                [(k, DBID, inst, stat_id, name, 123_457 * k * k + 45 * inst, DBID) for inst in (1, 2) for k in SNAPS],
            )
        for ts, name, contents, block, maxsize in TABLESPACES:
            con.execute(
                'INSERT INTO dba_hist_tablespace (dbid, "TS#", tsname, contents, block_size, con_dbid) '
                "VALUES (?,?,?,?,?,?)",
                (DBID, ts, name, contents, block, DBID),
            )
            con.executemany(
                "INSERT INTO dba_hist_tbspc_space_usage (dbid, snap_id, tablespace_id, tablespace_size, "
                "tablespace_maxsize, tablespace_usedsize, con_dbid) VALUES (?,?,?,?,?,?,?)",
                [(DBID, k, ts, 5_000 + 641 * k, maxsize, 1_000 * (ts + 1) + 37 * k * k + 3 * ts, DBID) for k in SNAPS],
            )
    return opened(path)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """One folder for the module's stores: histories.write makes its empty template once per folder."""
    return tmp_path_factory.mktemp("report")


@pytest.fixture(scope="module")
def made(folder):
    return _write(folder / "made.sqlite")


@pytest.fixture(scope="module")
def dropped(folder):
    return _write(folder / "dropped.sqlite", dropped=True)


@pytest.fixture(scope="module")
def restarted(folder):
    return _write(folder / "restarted.sqlite", restart=True)


def _select(db, sql: str, *params) -> list:
    with closing(sqlite3.connect(f"file:{db.store.path}?mode=ro", uri=True)) as con:
        return con.execute(sql, params).fetchall()


def _valid_sum(rows) -> float:
    """§3 over one startup: per instance, the deltas between consecutive snapshots that both have a value, those that
    did not go down; added up. `rows`: (instance, snap_id, value)."""
    total, last = 0.0, {}
    for inst, _, value in sorted(rows, key=lambda r: (r[0], r[1])):
        if value is None:
            continue
        prev = last.get(inst)
        if prev is not None and value >= prev:
            total += value - prev
        last[inst] = value
    return total


def _same(got, want) -> bool:
    """Rows alike: the same fields, texts and nulls equal, numbers to 12 significant digits (sums added in any
    order)."""
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(_same, got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, float) and isinstance(got, int | float):
        return isclose(got, want, rel_tol=1e-12)
    return type(got) is type(want) and got == want


def _instances(instance: str) -> tuple:
    return (1, 2) if instance == "all" else (int(instance),)


def _elapsed(db, instance: str) -> float:
    """§13: the longest instance's seconds, the intervals between its snapshots of the range (every one valid; every
    SNAP_TIMEZONE 0: the local times are UTC)."""
    out = 0.0
    for inst in _instances(instance):
        ends = [
            datetime.fromisoformat(e)
            for (e,) in _select(
                db,
                "SELECT end_interval_time FROM dba_hist_snapshot WHERE dbid = ? AND instance_number = ? "
                "ORDER BY snap_id",
                DBID,
                inst,
            )
        ]
        out = max(out, (ends[-1] - ends[0]).total_seconds())
    return out


def _io_sums(db, instance: str) -> dict:
    """Each function's columns: the sum of valid deltas of small + large, over the instances asked."""
    out = {}
    for function_id, name, _ in FUNCTIONS:
        out[name] = {}
        for column, parts in IO_COLUMNS.items():
            rows = _select(
                db,
                f"SELECT instance_number, snap_id, {' + '.join(parts)} FROM dba_hist_iostat_function "
                "WHERE dbid = ? AND function_id = ?",
                DBID,
                function_id,
            )
            out[name][column] = _valid_sum([r for r in rows if r[0] in _instances(instance)])
    return out


def _os_totals(db, instance: str) -> dict:
    """Each cumulative OSSTAT statistic's sum of valid deltas over the instances asked."""
    rows = _select(db, "SELECT instance_number, snap_id, stat_name, value FROM dba_hist_osstat WHERE dbid = ?", DBID)
    names = {r[2] for r in rows} - {"NUM_CPUS"}
    return {n: _valid_sum([r[:2] + r[3:] for r in rows if r[2] == n and r[0] in _instances(instance)]) for n in names}


def test_the_header_names_the_databases_version_and_platform(made):
    """§28 Header: the database's version and platform, as DBA_HIST_DATABASE_INSTANCE holds them."""
    ((version, platform),) = _select(
        made, "SELECT DISTINCT version, platform_name FROM dba_hist_database_instance WHERE dbid = ?", DBID
    )
    header = report.compute(made, made.resolve(begin_snap=1, end_snap=4))["header"]
    assert (header["version"], header["platform"]) == (version, platform) == ("19.0.0.0.0", PLATFORM)


@pytest.mark.parametrize("instance", ["all", "1", "2"])
def test_io_by_function_is_each_functions_valid_deltas_and_their_rate_over_the_elapsed_time(made, instance):
    """§28 I/O by function: per FUNCTION_NAME, the sum of valid deltas of MB and requests read and written (small +
    large) over the instances asked (LGWR has no row on instance 2: it adds nothing there), and MB/s and requests/s
    over the elapsed time (§13's: the longest instance's seconds); the most MB first."""
    body = report.compute(made, made.resolve(begin_snap=1, end_snap=4), instance)
    elapsed = _elapsed(made, instance)
    assert body["header"]["elapsed_s"] == elapsed
    want = []
    for name, sums in _io_sums(made, instance).items():
        mb, requests = sums["read_megabytes"] + sums["write_megabytes"], sums["read_requests"] + sums["write_requests"]
        want.append(
            {"function": name, **sums, "mb_per_second": mb / elapsed, "requests_per_second": requests / elapsed}
        )
    want.sort(key=lambda r: (-(r["read_megabytes"] + r["write_megabytes"]), r["function"]))
    assert _same(body["io_functions"], want), body["io_functions"]
    if instance == "2":
        assert [r["read_requests"] for r in body["io_functions"] if r["function"] == "LGWR"] == [0]


def test_io_by_function_reads_the_range_boundary_snapshots_only(made):
    """§13 and §21.2: a range's counters are read at its boundaries only (each instance's first and last snapshot of
    the range, none restarting between: snapshots 1 and 4), bound as `SNAP_ID IN` a list; each I/O statement returns
    those snapshots' rows of its function, not every snapshot's."""
    made.timeline()
    with logged_statements() as log:
        report.io_functions(made, made.resolve(begin_snap=1, end_snap=4), None, 1.0)
    reads = [e for e in log if "FROM dba_hist_iostat_function" in e["sql"] and "item_id" in e["params"]]
    assert {e["params"]["item_id"] for e in reads} == {f for f, _, _ in FUNCTIONS}, log
    for e in reads:
        (held,) = _select(
            made,
            "SELECT count(*) FROM dba_hist_iostat_function WHERE dbid = ? AND function_id = ? AND snap_id IN (1, 4)",
            DBID,
            e["params"]["item_id"],
        )
        assert (e["params"].get("snap_ids_0"), e["rows"]) == ([1, 4], held[0]), e


@pytest.mark.parametrize("instance", ["all", "1"])
def test_os_statistics_are_the_cumulative_sums_with_their_share_of_cpu_and_the_readings_at_the_end(made, instance):
    """§28 OS statistics: each cumulative statistic's sum of valid deltas, times in seconds (centiseconds / 100) and
    bytes as they are, per second over the elapsed time, a time's share of BUSY_TIME + IDLE_TIME (a size has none);
    then the readings at the range's last snapshot summed over the instances asked (§8): instance 2's NULL NUM_CPUS
    adds nothing."""
    body = report.compute(made, made.resolve(begin_snap=1, end_snap=4), instance)
    elapsed, totals = _elapsed(made, instance), _os_totals(made, instance)
    cpu = totals["BUSY_TIME"] + totals["IDLE_TIME"]
    rows = {r["statistic"]: r for r in body["os"]}
    for name, total in totals.items():
        seconds = name.endswith("_TIME")
        value = total / 100 if seconds else total
        want = {
            "statistic": name,
            "value": value,
            "unit": "s" if seconds else "bytes",
            "per_second": value / elapsed,
            "pct_of_cpu_time": 100 * total / cpu if seconds else None,
        }
        assert _same(rows[name], want), (rows[name], want)
    at_end = _select(
        made, "SELECT instance_number, value FROM dba_hist_osstat WHERE stat_name = 'NUM_CPUS' AND snap_id = 4"
    )
    cpus = sum(v for i, v in at_end if v is not None and i in _instances(instance))
    assert rows["NUM_CPUS"] == {
        "statistic": "NUM_CPUS",
        "value": cpus,
        "unit": "count",
        "per_second": None,
        "pct_of_cpu_time": None,
        "at_end": True,
    }
    assert cpus == 4 and set(rows) == {*totals, "NUM_CPUS"}


@pytest.mark.parametrize("missing", ["BUSY_TIME", "IDLE_TIME"])
def test_a_cpu_share_without_busy_or_idle_time_is_of_the_one_there(folder, missing):
    """§28: a time's share is of BUSY_TIME + IDLE_TIME; where OSSTAT has no row of one of them (a platform that keeps
    none), it adds nothing: the share is of the other alone."""
    path = folder / f"no-{missing}.sqlite"
    _write(path)
    with sqlite3.connect(path) as con:
        con.execute("DELETE FROM dba_hist_osstat WHERE stat_name = ?", (missing,))
    db = opened(path)
    body = report.compute(db, db.resolve(begin_snap=1, end_snap=4))
    totals = _os_totals(db, "all")
    (there,) = {"BUSY_TIME", "IDLE_TIME"} - {missing}
    shares = {r["statistic"]: r["pct_of_cpu_time"] for r in body["os"] if r["statistic"].endswith("_TIME")}
    assert _same(shares, {n: 100 * t / totals[there] for n, t in totals.items() if n.endswith("_TIME")}), shares
    assert shares[there] == 100 and missing not in shares


def test_a_range_of_no_db_time_gives_its_wait_classes_no_share(dropped):
    """§28 Wait classes: each class's time and waits from every foreground event's valid deltas (§14), and its % of
    DB time; where every DB time interval is dropped (the counter went down: §3) DB time is 0 and no class has a
    share."""
    body = report.compute(dropped, dropped.resolve(begin_snap=1, end_snap=4))
    assert body["reason"] is None and body["header"]["db_time_s"] == 0
    rows = _select(
        dropped, "SELECT instance_number, snap_id, total_waits_fg, time_waited_micro_fg FROM dba_hist_system_event"
    )
    io = {r["wait_class"]: r for r in body["wait_classes"]}["User I/O"]
    assert (io["waits"], io["time_s"]) == (
        _valid_sum([r[:3] for r in rows]),
        pytest.approx(_valid_sum([r[:2] + r[3:] for r in rows]) / 1e6, rel=1e-12),
    )
    assert [r["pct_db_time"] for r in body["wait_classes"]] == [None] * len(body["wait_classes"])


def test_a_range_of_no_elapsed_time_gives_no_rate_per_second(dropped):
    """§13 and §28: the elapsed time is the Load Profile's (SYSSTAT's intervals); where each of them is dropped it is 0,
    and the I/O functions and OS statistics keep their sums (their own intervals are valid) but no rate per second;
    the header has DB time (0 here) but no average active sessions (DB time / elapsed)."""
    body = report.compute(dropped, dropped.resolve(begin_snap=1, end_snap=4))
    assert body["reason"] is None and body["header"]["elapsed_s"] == 0
    assert (body["header"]["db_time_s"], body["header"]["aas"]) == (0, None)
    sums = _io_sums(dropped, "all")
    assert [
        (r["function"], r["read_megabytes"], r["mb_per_second"], r["requests_per_second"]) for r in body["io_functions"]
    ] == [
        (name, sums[name]["read_megabytes"], None, None)
        for name in ("LGWR", "DBWR")  # the most MB first
    ]
    totals = _os_totals(dropped, "all")
    cumulative = [r for r in body["os"] if not r.get("at_end")]
    assert {r["statistic"]: (r["value"], r["per_second"]) for r in cumulative} == {
        n: (pytest.approx(t / 100 if n.endswith("_TIME") else t, rel=1e-12), None) for n, t in totals.items()
    }


@pytest.mark.parametrize("instance", ["all", "1", "2"])
def test_the_header_of_one_instance_is_its_own_db_time_over_its_own_elapsed_time(made, instance):
    """§28 Header and §13: DB time is the Load Profile's, the sum of valid deltas (§3) of `DB time` (µs) over the
    instances asked only, and the elapsed time the longest of those instances'; average active sessions = DB time /
    elapsed. One instance's header is not the whole database's (each instance's DB time grows alike: all is twice
    one)."""
    body = report.compute(made, made.resolve(begin_snap=1, end_snap=4), instance)
    rows = _select(
        made,
        "SELECT instance_number, snap_id, value FROM dba_hist_sys_time_model WHERE dbid = ? AND stat_name = 'DB time'",
        DBID,
    )
    db_time = _valid_sum([r for r in rows if r[0] in _instances(instance)]) / 1e6
    elapsed = _elapsed(made, instance)
    header = body["header"]
    assert _same(
        {k: header[k] for k in ("elapsed_s", "db_time_s", "aas")},
        {"elapsed_s": elapsed, "db_time_s": db_time, "aas": db_time / elapsed},
    ), header
    assert _same({r["metric"]: r["total"] for r in body["load_profile"]}["DB Time(s)"], db_time)
    assert db_time == (0.006 if instance == "all" else 0.003)


@pytest.mark.parametrize("instance", [None, "all", "1", "2"])
def test_the_report_names_its_database_and_instance_and_the_intervals_a_restart_leaves_out(restarted, instance):
    """§28 and §13: the report names the database asked about (`<target>.<dbid>`) and the instance asked (all when
    none is: the default), and lists the intervals of the range that span a restart (§4: the STARTUP_TIME changes
    between two snapshots of an instance), left out of every sum: the instance, the snapshots on either side, the
    seconds not covered, over the instances asked only."""
    rng = restarted.resolve(begin_snap=1, end_snap=4)
    body = report.compute(restarted, rng) if instance is None else report.compute(restarted, rng, instance)
    asked = instance or "all"
    snaps = _select(
        restarted,
        "SELECT instance_number, snap_id, startup_time, end_interval_time FROM dba_hist_snapshot WHERE dbid = ? "
        "ORDER BY instance_number, snap_id",
        DBID,
    )
    left_out = [
        {
            "instance": a[0],
            "after_snap_id": a[1],
            "before_snap_id": b[1],
            "seconds": round((datetime.fromisoformat(b[3]) - datetime.fromisoformat(a[3])).total_seconds()),
            "reason": "restart",
        }
        for a, b in pairwise(snaps)
        if a[0] == b[0] and a[2] != b[2] and a[0] in _instances(asked)
    ]
    assert (body["db"], body["instance"], body["reason"]) == (f"g.{DBID}", asked, None)
    assert body["left_out"] == left_out
    assert [tuple(m.values())[:4] for m in left_out] == ([] if asked == "1" else [(2, 2, 3, 3600)])


def _iso(end: str, tz: int) -> str:
    """A snapshot's END_INTERVAL_TIME as the answers give a time: ISO 8601 with its SNAP_TIMEZONE's offset."""
    return datetime.fromisoformat(end).replace(tzinfo=timezone(timedelta(seconds=tz))).isoformat()


def test_the_load_profile_keeps_its_rates_exact(made):
    """§28 and §13: the Load Profile's rows are the sums of valid deltas over the range (µs / 10⁶ for the times), per
    second over the elapsed time and per transaction over user commits + user rollbacks, kept exact as every number
    of the report (rounded once, where it is printed): DB time here is 0.006 s over three hours, millionths of a
    second per second that four decimals would make 0."""
    body = report.compute(made, made.resolve(begin_snap=1, end_snap=4))
    rows = _select(
        made,
        "SELECT instance_number, snap_id, stat_name, value FROM dba_hist_sysstat WHERE dbid = ? UNION ALL "
        "SELECT instance_number, snap_id, stat_name, value FROM dba_hist_sys_time_model WHERE dbid = ?",
        DBID,
        DBID,
    )
    total = {n: _valid_sum([r[:2] + r[3:] for r in rows if r[2] == n]) for n in {r[2] for r in rows}}
    elapsed, txns = _elapsed(made, "all"), total["user commits"] + total["user rollbacks"]
    want = {
        "DB Time(s)": total["DB time"] / 1e6,
        "DB CPU(s)": total["DB CPU"] / 1e6,
        "Redo size (bytes)": total["redo size"],
        "Logical read (blocks)": total["session logical reads"],
        "Rollbacks": total["user rollbacks"],
        "Transactions": txns,
    }
    got = {r["metric"]: r for r in body["load_profile"]}
    for label, t in want.items():  # no execute count and no user calls: no rate per execution or per call
        row = {"metric": label, "per_second": t / elapsed, "per_transaction": t / txns, "per_exec": None}
        assert _same(got[label], row | {"per_call": None, "total": t}), got[label]
    assert 0 < want["DB Time(s)"] / elapsed < 5e-5 and 0 < want["DB Time(s)"] / txns < 5e-5


LONG = 320  # snapshots ten minutes apart: 319 intervals, more than the 300 points a chart of the report draws (§28)
# per instance: the seconds per second (AAS) DB time, DB CPU and the event's foreground waits grow by; NUM_CPUS
RATES = {1: (0.5, 0.2, 0.25, 4), 2: (1.5, 0.5, 0.75, 8)}


def _long_history() -> History:
    """Two instances (instance 2 a second after instance 1), snapshots 1 to LONG ten minutes apart, one startup each:
    DB time, DB CPU and the event's foreground time grow at RATES' seconds per second, by 7 waits an interval; the
    SYSSTAT counters by one a second, BUSY_TIME and IDLE_TIME (cs) by 40 and 60 a second; NUM_CPUS is RATES'."""
    start = datetime(2026, 3, 29)
    snaps = []
    for inst, (db_time, db_cpu, waited, cpus) in RATES.items():
        for k in range(1, LONG + 1):
            s = 600 * k + inst  # seconds since `start`
            snaps.append(
                Snap(
                    k,
                    inst,
                    local(start + timedelta(seconds=s)),
                    0,
                    "2026-03-28 20:00:00",
                    counters=(s, s, s, s, round(db_time * 1e6 * s), round(db_cpu * 1e6 * s)),
                    waits=(7 * k, round(waited * 1e6 * s)),
                    os=(40 * s, 60 * s, cpus),
                )
            )
    return History(tuple(snaps))


@pytest.fixture(scope="module")
def long(folder):
    return database(_long_history(), folder / "long.sqlite")


def test_the_top_events_and_wait_classes_are_kept_exact(long):
    """§28 and §14: each event's foreground waits and time, the sums of their valid deltas over the instances, and DB
    CPU (the time model's) as an event of class CPU without waits, the most time first; the time in seconds, the
    average wait (time / waits) and the % of DB time kept exact: 7 waits an interval give an average of
    42,857.142857... ms that four decimals would cut. The wait classes are their events' sums, DB CPU as CPU."""
    body = report.compute(long, long.resolve(begin_snap=1, end_snap=LONG))
    ((event, wait_class),) = _select(long, "SELECT DISTINCT event_name, wait_class FROM dba_hist_system_event")
    waited = _select(
        long, "SELECT instance_number, snap_id, total_waits_fg, time_waited_micro_fg FROM dba_hist_system_event"
    )
    waits, micro = _valid_sum([r[:3] for r in waited]), _valid_sum([r[:2] + r[3:] for r in waited])
    model = _select(long, "SELECT instance_number, snap_id, stat_name, value FROM dba_hist_sys_time_model")
    cpu, db_time = (_valid_sum([r[:2] + r[3:] for r in model if r[2] == n]) / 1e6 for n in ("DB CPU", "DB time"))
    time_s = micro / 1e6
    want = sorted(
        [
            {
                "event": event,
                "wait_class": wait_class,
                "waits": waits,
                "time_s": time_s,
                "avg_ms": micro / waits / 1000,
                "pct_db_time": 100 * time_s / db_time,
            },
            {
                "event": "DB CPU",
                "wait_class": "CPU",
                "waits": None,
                "time_s": cpu,
                "avg_ms": None,
                "pct_db_time": 100 * cpu / db_time,
            },
        ],
        key=lambda e: -e["time_s"],
    )
    assert _same(body["top_events"], want), body["top_events"]
    classes = [{k: e[k] for k in ("wait_class", "time_s", "pct_db_time")} | {"waits": e["waits"] or 0} for e in want]
    assert _same(body["wait_classes"], classes), body["wait_classes"]
    assert round(micro / waits / 1000, 4) != micro / waits / 1000


# the chart series whose points are each interval's delta / its seconds (µs: the AAS), and the rows of their counters
CHART_COUNTERS = {
    "derived:aas": "SELECT instance_number, snap_id, value FROM dba_hist_sys_time_model WHERE stat_name = 'DB time'",
    "derived:db_cpu": "SELECT instance_number, snap_id, value FROM dba_hist_sys_time_model WHERE stat_name = 'DB CPU'",
    "wait_class:User I/O": "SELECT instance_number, snap_id, sum(time_waited_micro_fg) FROM dba_hist_system_event "
    "WHERE wait_class = 'User I/O' GROUP BY instance_number, snap_id",
}


def _interval_rates(db, sql: str) -> dict:
    """{(instance, snap_id): the delta of the interval ending there / its seconds} of the (instance, snap_id, value)
    rows `sql` selects, µs as seconds (§3, §7: one startup, every counter growing)."""
    ends = {
        (i, s): datetime.fromisoformat(e)
        for i, s, e in _select(db, "SELECT instance_number, snap_id, end_interval_time FROM dba_hist_snapshot")
    }
    values = {(i, s): v for i, s, v in _select(db, sql)}
    return {
        (i, s): (v - values[(i, s - 1)]) / 1e6 / (ends[(i, s)] - ends[(i, s - 1)]).total_seconds()
        for (i, s), v in values.items()
        if (i, s - 1) in values
    }


def _lines(series: list) -> list:
    """(name, instance, the values of its points) of a chart's series, each drawn in at most 300 points."""
    assert all(len(s["points"][0]) <= 300 for s in series), [(s["name"], len(s["points"][0])) for s in series]
    return [(s["name"], s["instance"], set(s["points"][1])) for s in series]


@pytest.mark.parametrize("instance", ["all", "1", "2"])
def test_the_charts_draw_the_instances_asked_in_at_most_300_points(long, instance):
    """§28 Charts, over a range of more intervals (319) than a chart draws: average active sessions by wait class (DB
    CPU, then CPU Wait: DB time less DB CPU and the classes' waits, where positive, then each class, §16) with the CPU
    count (NUM_CPUS, §8), of the instance asked or combined (summed, §11); and average active sessions (DB time /
    elapsed) of each instance on RAC, of the one asked otherwise. At most 300 points each: the range read in buckets
    (§21), each point a bucket's Σ delta / Σ seconds; every interval of an instance has the same rates here, so has
    every bucket: each line has one value, rounded to four decimals (§19)."""
    body = report.compute(long, long.resolve(begin_snap=1, end_snap=LONG), instance)
    rates = {name: _interval_rates(long, sql) for name, sql in CHART_COUNTERS.items()}
    rates["cpu_wait"] = {
        key: max(0.0, aas - rates["derived:db_cpu"][key] - rates["wait_class:User I/O"][key])
        for key, aas in rates["derived:aas"].items()
    }
    readings = "SELECT instance_number, snap_id, value FROM dba_hist_osstat WHERE stat_name = 'NUM_CPUS'"
    cpus = {(i, s): v for i, s, v in _select(long, readings)}  # a reading at each snapshot (§8)
    asked = _instances(instance)
    label = "all" if instance == "all" else int(instance)

    def one(values: dict, instances) -> set:
        out = {round(sum(values[(i, s)] for i in instances), 4) for s in range(2, LONG + 1)}
        assert len(out) == 1  # the history's: one rate an instance
        return out

    classes = body["charts"]["wait_classes"]
    assert _lines(classes["series"]) == [
        (name, label, one(rates[name], asked)) for name in ("derived:db_cpu", "cpu_wait", "wait_class:User I/O")
    ]
    assert _lines(classes["cpu_count"]) == [("derived:num_cpus", label, one(cpus, asked))]
    aas = body["charts"]["aas"]["series"]  # one line an instance: of each on RAC, or of the one asked
    assert _lines(aas) == [("derived:aas", i, one(rates["derived:aas"], [i])) for i in asked]
    assert {s["points_total"] for s in [*classes["series"], *aas]} == {LONG - 1}  # every interval, in 300 points


def test_the_tablespaces_are_their_last_sizes_and_growth(made):
    """§28 Tablespaces and §16: per tablespace (DBA_HIST_TBSPC_SPACE_USAGE joined to DBA_HIST_TABLESPACE by TS#),
    the range's last used, allocated and maximum sizes in MB (blocks × the block size, 8192 where the view has none,
    / 1,048,576), the used % of the maximum (none without a maximum), the growth (last used − first used) and its
    rate per day (the least-squares slope of used MB over the snapshots' times, the lowest-numbered instance's), to
    four decimals."""
    body = report.compute(made, made.resolve(begin_snap=1, end_snap=4))
    rows = _select(
        made,
        "SELECT t.tsname, t.contents, t.block_size, u.snap_id, u.tablespace_size, u.tablespace_maxsize, "
        'u.tablespace_usedsize FROM dba_hist_tbspc_space_usage u JOIN dba_hist_tablespace t ON t.dbid = u.dbid AND '
        't."TS#" = u.tablespace_id AND t.con_dbid = u.con_dbid WHERE u.dbid = ? AND u.snap_id BETWEEN 1 AND 4 '
        "ORDER BY u.snap_id",
        DBID,
    )
    ends = dict(_select(made, "SELECT snap_id, end_interval_time FROM dba_hist_snapshot WHERE instance_number = 1"))
    want = {}
    for name in {r[0] for r in rows}:
        pts = [r for r in rows if r[0] == name]
        first, last, mb = pts[0], pts[-1], (pts[0][2] or 8192) / 1_048_576
        days = [
            (datetime.fromisoformat(ends[p[3]]) - datetime.fromisoformat(ends[first[3]])).total_seconds() / 86400
            for p in pts
        ]
        want[name] = {
            "contents": last[1],
            "used_mb": last[6] * mb,
            "size_mb": last[4] * mb,
            "max_mb": last[5] * mb,
            "used_pct_of_max": 100 * last[6] / last[5] if last[5] else None,
            "growth_mb": (last[6] - first[6]) * mb,
            "growth_mb_per_day": linear_regression(days, [p[6] * mb for p in pts]).slope,
        }
    got = {r["tablespace"]: r for r in body["tablespaces"]}
    assert set(got) == set(want) == {name for _, name, _, _, _ in TABLESPACES}
    for name, fields in want.items():
        for field, value in fields.items():
            near = isinstance(value, float) and isclose(got[name][field], value, abs_tol=1e-4)
            assert near or got[name][field] == value, (name, field, got[name][field], value)
    assert want["TEMP"]["used_pct_of_max"] is None


@pytest.fixture(scope="module")
def statspack(folder):
    """A Statspack store (the STATS$ tables beside the embedded store's empty views) of one instance: snapshots 1 to 3
    an hour apart, DB time and user commits growing."""
    path = write(History(()), folder / "statspack.sqlite")  # the embedded store's views, empty
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as con:
        con.exec_driver_sql("PRAGMA synchronous = OFF")  # a store of the test's: no wait for the disk
        tables(None).create_all(con)
    engine.dispose()
    with sqlite3.connect(path) as con:
        con.execute(
            "INSERT INTO stats$database_instance (dbid, instance_number, startup_time, snap_id, parallel, version, "
            "db_name, instance_name, host_name, platform_name) VALUES (?, 1, ?, 1, 'NO', '19.0.0.0.0', 'SP', 'SP', "
            "'h', ?)",
            (DBID, "2026-03-28 20:00:00", PLATFORM),
        )
        con.executemany(
            "INSERT INTO stats$snapshot (snap_id, dbid, instance_number, snap_time, startup_time, snap_level) "
            "VALUES (?, ?, 1, ?, ?, 7)",
            [(k, DBID, f"2026-03-29 {k:02}:00:00", "2026-03-28 20:00:00") for k in (1, 2, 3)],
        )
        con.execute("INSERT INTO stats$time_model_statname (stat_id, stat_name) VALUES (10, 'DB time')")
        con.executemany(
            "INSERT INTO stats$sys_time_model (snap_id, dbid, instance_number, stat_id, value) VALUES (?, ?, 1, 10, ?)",
            [(k, DBID, 1_000_000 * k) for k in (1, 2, 3)],
        )
        con.executemany(
            'INSERT INTO stats$sysstat (snap_id, dbid, instance_number, "STATISTIC#", name, value) '
            "VALUES (?, ?, 1, 6, 'user commits', ?)",
            [(k, DBID, 10 * k) for k in (1, 2, 3)],
        )
    return opened(path)


def test_a_statspack_report_has_no_tablespaces_and_says_why(statspack):
    """§28 and §31: Statspack keeps no tablespace usage; its report measures the range (DB time over the elapsed
    time) and leaves the tablespaces section without rows, saying why: none drawn as zero."""
    body = report.compute(statspack, statspack.resolve(begin_snap=1, end_snap=3))
    assert (body["reason"], body["header"]["source"], body["header"]["db_time_s"]) == (None, "statspack", 2.0)
    assert body["tablespaces"] == []
    assert list(body["not_kept"]) == ["tablespaces"] and "Statspack" in body["not_kept"]["tablespaces"]
    assert "tablespace usage" in body["not_kept"]["tablespaces"]


def _changes_history() -> History:
    """Two instances whose snapshots 1 to 4, an hour apart, end at the same instants: instance 1 starts again at
    02:30, between snapshots 2 and 3; instance 2's optimizer_index_cost_adj goes from 100 to 400 at snapshot 3;
    sga_target is set alike on both throughout."""
    snaps = []
    for inst in (1, 2):
        for k in SNAPS:
            cost = "400" if (inst, k) >= (2, 3) else "100"
            snaps.append(
                Snap(
                    k,
                    inst,
                    f"2026-03-29 {k:02}:00:00",
                    0,
                    "2026-03-29 02:30:00" if inst == 1 and k >= 3 else "2026-03-28 20:00:00",
                    counters=(1_000 * k,) * 6,
                    params=(("sga_target", "68719476736"), ("optimizer_index_cost_adj", cost)),
                )
            )
    return History(tuple(snaps))


@pytest.fixture(scope="module")
def changed(folder):
    return database(_changes_history(), folder / "changed.sqlite")


# a benchmark run linked to the database (its awr_db: the database's key), its AWR window (2, 4], started at the end of
# snapshot 3
RUN = {
    "awr_db": f"g.{DBID}",
    "awr_begin_snap": 2,
    "awr_end_snap": 4,
    "slug": "batch",
    "title": "nightly batch",
    "kind": "batch",
    "started": "2026-03-29T03:00:00+00:00",
    "finished": None,
}


@pytest.mark.parametrize("instance", ["all", "1", "2"])
def test_the_changes_are_the_instances_asked_in_time_order_the_databases_first(changed, instance):
    """§28 Changes and §23: the restarts of the timeline (§4: a snapshot whose STARTUP_TIME differs from the
    instance's previous one, at its end), the parameter changes (a value that differs from the instance's previous
    snapshot's) and the benchmark runs linked to the database whose AWR window overlaps the range (timed at their
    start; the database's: no instance), of the instances asked only, in time order, at one time by instance, the
    database's first. Here the three are at one instant: snapshot 3's end."""
    body = report.compute(changed, changed.resolve(begin_snap=1, end_snap=4), instance, [RUN])
    snaps = _select(
        changed,
        "SELECT instance_number, snap_id, startup_time, end_interval_time, snap_timezone FROM dba_hist_snapshot "
        "ORDER BY instance_number, snap_id",
    )
    want = [(_iso(b[3], b[4]), b[0], "restart") for a, b in pairwise(snaps) if a[0] == b[0] and a[2] != b[2]]
    params = _select(
        changed,
        "SELECT p.instance_number, p.parameter_name, p.value, s.end_interval_time, s.snap_timezone "
        "FROM dba_hist_parameter p JOIN dba_hist_snapshot s ON s.dbid = p.dbid AND s.snap_id = p.snap_id AND "
        "s.instance_number = p.instance_number ORDER BY p.instance_number, p.parameter_name, p.snap_id",
    )
    want += [(_iso(b[3], b[4]), b[0], "parameter") for a, b in pairwise(params) if a[:2] == b[:2] and a[2] != b[2]]
    want.append((RUN["started"], None, "run"))
    want = sorted(
        (c for c in want if c[1] in (None, *_instances(instance))), key=lambda c: (c[0], -1 if c[1] is None else c[1])
    )
    assert [(c["time"], c["instance"], c["kind"]) for c in body["changes"]] == want
    by_instance = {"all": [None, 1, 2], "1": [None, 1], "2": [None, 2]}[instance]  # the run, then by instance
    assert len({c[0] for c in want}) == 1 and [c[1] for c in want] == by_instance
