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
intervals a restart leaves out (§4), over the instances asked."""

import sqlite3
from contextlib import closing, contextmanager
from datetime import datetime
from itertools import pairwise
from math import isclose

import pytest
from histories import DBID, History, Snap, opened, write

from app.history import report
from app.store.base import sql_log

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
COLUMN_FACTORS = (1, 2, 3, 5, 11, 13, 17, 19)  # DBA_HIST_IOSTAT_FUNCTION's 8 columns: each a multiple of one growth


@contextmanager
def _statements():
    """The statements run inside the block, as show_sql logs them (sql, params, rows)."""
    log: list = []
    token = sql_log.set(log)
    try:
        yield log
    finally:
        sql_log.reset(token)


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
    (growing unevenly: the columns differ), and MORE_OS's rows; opened as the Database the report takes."""
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
    with _statements() as log:
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
