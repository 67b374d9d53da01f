"""Statspack as a source (docs/awr-rules.md §31). Expectations come from the STATS$ rows with the rules of Oracle's own
scripts, written here and not taken from app/store/statspack/: sprepins.sql's arithmetic (deltas end - begin per
startup, per second over the snapshots' SNAP_TIME, per transaction over user commits + user rollbacks), its rule for
SQL summaries (a row less the key's previous row in the same startup; its whole value where the cursor began again or
nothing came before since the startup; unknown after a snapshot whose level keeps no such rows), spdoc.txt's levels,
and spctab.sql's columns (tests/data/statspack_tables.json)."""

import json
import sqlite3
from datetime import datetime
from itertools import pairwise
from pathlib import Path

import pytest
from conftest import assert_error
from contract import ok, url
from histories import empty_views
from sqlalchemy import Table
from sqlalchemy.dialects import oracle
from sqlalchemy.sql.util import find_tables

from app import create_app
from app.settings import Settings
from app.store import licence
from app.store.statspack.listing import statspack_statements
from app.store.statspack.tables import tables

SPCTAB = json.loads((Path(__file__).parent / "data" / "statspack_tables.json").read_text())
SUPPORTED_FROM = (12, 1)  # the oldest release awrlens reads (docs/oracle.md)


def _release(text: str) -> tuple:
    return tuple(int(x) for x in text.split("."))


# --- the tables and statements, against Oracle's own script ----------------------------------------------------------


def test_every_statspack_column_read_is_one_spctab_creates_in_every_supported_release():
    wrong = []
    for t in tables(None).sorted_tables:
        if not t.name.startswith("stats$"):
            continue  # V$EVENT_NAME is a view of the instance, not Statspack's
        created = SPCTAB.get(t.name.upper())
        assert created, f"{t.name} is not a table spctab.sql creates"
        added = SPCTAB["_releases"].get(t.name.upper(), {})
        for c in t.columns:
            name = c.name.upper()
            if name not in created:
                wrong.append(f"{t.name}.{name}")
            elif name in added and _release(added[name]) > SUPPORTED_FROM:
                wrong.append(f"{t.name}.{name} (added in {added[name]})")
    assert not wrong, wrong


@pytest.mark.slow  # every statement compiled for Oracle and parsed: over half a second
def test_every_statspack_statement_reads_only_perfstat_and_free_views_and_needs_no_pack():
    allowed = {"v$event_name", "dba_users", "dba_objects"}
    listed = list(statspack_statements())
    assert len(listed) > 40, [n for n, _ in listed]
    for name, stmt in listed:
        sql = str(stmt.compile(dialect=oracle.dialect()))
        read = {t.name for t in find_tables(stmt, include_joins=True, include_selects=True) if isinstance(t, Table)}
        assert read and all(t.startswith("stats$") or t in allowed for t in read), (name, read)
        assert all(f"perfstat.{t}" in sql for t in read if t.startswith("stats$")), name
        assert "dba_hist" not in sql and "active_session" not in sql and not licence.packs_needed(sql), (name, sql)


# --- the rule of the SQL summaries, on a store made here -------------------------------------------------------------

DBID = 42
A, B = "2026-11-01 00:00:05", "2026-11-01 05:30:00"  # two startups of the one instance
SNAPS = [  # (snap_id, startup, level, snap_time)
    (1, A, 7, "2026-11-01 01:00:00"),
    (2, A, 7, "2026-11-01 02:00:00"),
    (3, A, 7, "2026-11-01 03:00:00"),
    (4, A, 0, "2026-11-01 04:00:00"),  # the DBA lowered the level: no SQL kept
    (5, A, 7, "2026-11-01 05:00:00"),
    (6, B, 7, "2026-11-01 06:00:00"),
    (7, B, 7, "2026-11-01 07:00:00"),
]
SQL = {"X": "0000000000x01", "Y": "0000000000y02", "Z": "0000000000z03", "W": "0000000000w04"}
KEPT = [  # (statement, address, snap_id, executions since its cursor was loaded)
    ("X", "ax", 1, 100),
    ("X", "ax", 3, 250),  # below the thresholds at 2 (raised for a while), back at 3: the gap is spanned
    ("X", "ax", 5, 400),  # nothing kept at level 0 (4): the previous row is 3's
    ("X", "ax", 6, 30),  # after the restart: all of it
    ("X", "ax", 7, 70),
    ("Y", "ay1", 1, 500),  # the first snapshot of the startup: all of it
    ("Y", "ay1", 2, 600),
    ("Y", "ay2", 3, 80),  # loaded again (another address): all of it
    ("Z", "az", 5, 90),  # first kept after a level-0 snapshot: what came before is not known
    ("W", "aw", 2, 1000),
    ("W", "aw", 3, 900),  # fell: loaded again at the same address
]
# each interval's executions by the rule, written out (sprepins.sql)
EXPECTED = {
    2: {"W": 1000, "Y": 100},
    3: {"W": 900, "X": 150, "Y": 80},
    4: {},
    5: {"X": 150},
    6: {"X": 30},
    7: {"X": 40},
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("statspack") / "tiny.sqlite"
    empty_views(path, tables(None))
    con = sqlite3.connect(path)
    con.executemany(
        "INSERT INTO stats$database_instance VALUES (?, 1, ?, ?, 'NO', '19.0.0.0.0', 'TINY', 'TINY', 'h', 'Linux')",
        [(DBID, A, 1), (DBID, B, 6)],
    )
    con.executemany(
        "INSERT INTO stats$snapshot (snap_id, dbid, instance_number, snap_time, startup_time, snap_level) "
        "VALUES (?, ?, 1, ?, ?, ?)",
        [(s, DBID, t, st, level) for s, st, level, t in SNAPS],
    )
    con.executemany(
        "INSERT INTO stats$sql_summary (snap_id, dbid, instance_number, text_subset, old_hash_value, sql_id, "
        "executions, elapsed_time, address, hash_value) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)",
        [(s, DBID, f"select {k}", ord(k), SQL[k], n, n * 10, a, ord(k)) for k, a, s, n in KEPT],
    )
    con.commit()
    con.close()
    app = create_app(Settings.from_env({}, targets={"t": {"sqlite": str(path)}}, answer_cache_mb=0))
    return app.test_client()


@pytest.mark.parametrize("snap_id", sorted(EXPECTED))
def test_an_intervals_sql_follows_sprepins_rule(tiny, snap_id):
    body = ok(tiny, f"/api/v1/dbs/t.{DBID}/top-sql", begin_snap=snap_id - 1, end_snap=snap_id, order_by="executions")
    got = {r["sql_id"]: r["executions"] for r in body["rows"]}
    assert got == {SQL[k]: n for k, n in EXPECTED[snap_id].items()}
    assert body["source"] == "statspack"


def test_a_range_sums_the_intervals_and_a_statement_over_the_restart(tiny):
    body = ok(tiny, f"/api/v1/dbs/t.{DBID}/top-sql", begin_snap=1, end_snap=7, order_by="executions")
    sums: dict = {}
    for snaps in EXPECTED.values():
        for k, n in snaps.items():
            sums[SQL[k]] = sums.get(SQL[k], 0) + n
    assert {r["sql_id"]: r["executions"] for r in body["rows"]} == sums
    detail = ok(tiny, f"/api/v1/dbs/t.{DBID}/sql/{SQL['X']}", begin_snap=1, end_snap=7)
    (execs,) = [s for s in detail["series"] if s["metric"] == "executions"]
    times = {t: s for s, _, _, t in SNAPS}
    assert {times[p[0][:19].replace("T", " ")]: p[1] for p in execs["points"]} == {3: 150, 5: 150, 6: 30, 7: 40}


# --- the demo's Statspack database ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def billing(stories):
    return stories["statspack"]


def _snapshots(sql3, dbid):
    return sql3.execute(
        "SELECT snap_id, snap_time, startup_time, snap_level FROM stats$snapshot WHERE dbid = ? ORDER BY snap_id",
        (dbid,),
    ).fetchall()


def _seconds(a: str, b: str) -> float:
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def test_the_listing_names_the_statspack_database_and_its_hourly_snapshots(api, statspack_db, billing, sql3):
    (d,) = [d for d in ok(api, "/api/v1/dbs")["databases"] if d["id"] == statspack_db]
    assert (d["db_name"], d["source"], d["rac"], d["dbid"]) == ("BILLING", "statspack", False, billing["dbid"])
    snaps = _snapshots(sql3, billing["dbid"])
    assert d["snapshots"]["count"] == len(snaps) and d["snapshots"]["interval_minutes"] == 60
    assert ok(api, url(statspack_db, "/load-profile"))["source"] == "statspack"


def test_the_load_profile_is_sprepins_arithmetic_on_the_stats_rows(api, statspack_db, billing, sql3):
    dbid = billing["dbid"]
    snaps = _snapshots(sql3, dbid)
    lo, hi = snaps[-25][0], snaps[-1][0]  # the last day, one startup
    times = {s: t for s, t, _, _ in snaps}
    assert len({st for s, _, st, _ in snaps if lo <= s <= hi}) == 1

    def delta(table, name_sql, name):
        values = dict(
            sql3.execute(
                f"SELECT snap_id, value FROM {table} WHERE dbid = ? AND snap_id IN (?, ?) AND {name_sql} = ?",
                (dbid, lo, hi, name),
            ).fetchall()
        )
        return values[hi] - values[lo]

    def sysstat(name):
        return delta("stats$sysstat", "name", name)

    def time_model(name):
        return delta(
            "stats$sys_time_model s JOIN stats$time_model_statname n ON n.stat_id = s.stat_id", "n.stat_name", name
        )

    elapsed = _seconds(times[lo], times[hi])
    txn = sysstat("user commits") + sysstat("user rollbacks")
    expected = {
        "DB Time(s)": time_model("DB time") / 1e6,
        "DB CPU(s)": time_model("DB CPU") / 1e6,
        "Redo size (bytes)": sysstat("redo size"),
        "Logical read (blocks)": sysstat("session logical reads"),
        "Block changes": sysstat("db block changes"),
        "Physical read (blocks)": sysstat("physical reads"),
        "User calls": sysstat("user calls"),
        "Parses (SQL)": sysstat("parse count (total)"),
        "Hard parses (SQL)": sysstat("parse count (hard)"),
        "Executes (SQL)": sysstat("execute count"),
        "Rollbacks": sysstat("user rollbacks"),
        "Transactions": txn,
    }
    body = ok(api, url(statspack_db, "/load-profile"), begin_snap=lo, end_snap=hi)
    rows = {r["metric"]: r for r in body["rows"]}
    assert body["elapsed_seconds"] == elapsed
    for metric, total in expected.items():
        assert rows[metric]["per_second"] == pytest.approx(total / elapsed, rel=1e-3, abs=1e-4), metric
        if metric != "Transactions":  # the answer's 4 decimals
            assert rows[metric]["per_transaction"] == pytest.approx(total / txn, rel=1e-3, abs=1e-4), metric


def test_top_events_are_the_foreground_waits_between_the_snapshots(api, statspack_db, billing, sql3):
    dbid = billing["dbid"]
    snaps = _snapshots(sql3, dbid)
    lo, hi = snaps[-25][0], snaps[-1][0]
    waited = {}
    for event, b, e in sql3.execute(
        "SELECT e.event, b.time_waited_micro_fg, e.time_waited_micro_fg FROM stats$system_event e "
        "JOIN stats$system_event b ON b.dbid = e.dbid AND b.instance_number = e.instance_number "
        "AND b.event_id = e.event_id AND b.snap_id = ? WHERE e.dbid = ? AND e.snap_id = ? "
        "AND e.event NOT IN (SELECT event FROM stats$idle_event)",
        (lo, dbid, hi),
    ):
        waited[event] = e - b
    top = sorted(waited, key=waited.get, reverse=True)[:5]
    body = ok(api, url(statspack_db, "/top-events"), begin_snap=lo, end_snap=hi)
    events = [r for r in body["rows"] if r["event"] != "DB CPU"]
    assert [r["event"] for r in events[:5]] == top
    for r in events[:5]:
        assert r["time_s"] == pytest.approx(waited[r["event"]] / 1e6, rel=1e-3), r


def test_the_maintenance_reboot_is_a_restart_and_the_counters_start_again(api, statspack_db, billing, sql3):
    """A new STARTUP_TIME is a restart (sprepins.sql refuses a report across one; docs/awr-rules.md §4): no point at
    the first snapshot after it, a marker there, and the next interval the difference of the new counters."""
    dbid, first = billing["dbid"], billing["maintenance_reboot"]["first_snap_after"]
    rows = sql3.execute(
        "SELECT s.snap_id, s.snap_time, s.startup_time, v.value FROM stats$snapshot s JOIN stats$sysstat v "
        "ON v.dbid = s.dbid AND v.snap_id = s.snap_id WHERE s.dbid = ? AND s.snap_id BETWEEN ? AND ? "
        "AND v.name = 'user commits' ORDER BY s.snap_id",
        (dbid, first - 1, first + 1),
    ).fetchall()
    (_, _, before, _), (_, t0, after, v0), (_, t1, same, v1) = rows
    assert before != after == same == billing["maintenance_reboot"]["startup_time"][:19].replace("T", " ")
    body = ok(api, url(statspack_db, "/series"), name="sysstat:user commits", begin_snap=first - 1, end_snap=first + 1)
    ((at, value),) = body["series"][0]["points"]
    assert at[:19].replace("T", " ") == t1 and value == pytest.approx((v1 - v0) / _seconds(t0, t1), rel=1e-3)
    (restart,) = body["markers"]["restarts"]
    assert restart["snap_id"] == first


def test_segments_are_kept_at_level_7_and_a_lowered_level_is_spanned(api, statspack_db, billing, sql3):
    """spdoc.txt: segment statistics at level 7 and higher. A day at level 5 keeps none; back at level 7, each
    segment's delta is its value less its row before the day (sprepins.sql: the key's previous row)."""
    dbid, story = billing["dbid"], billing["level"]
    first5, back = story["first_snap"], story["back_snap"]
    levels = {s: level for s, _, _, level in _snapshots(sql3, dbid)}
    assert {levels[s] for s in range(first5, back)} == {story["lowered"]} == {5} and levels[back] == 7
    assert levels[first5 - 1] == story["level"] == 7
    kept = {s for (s,) in sql3.execute("SELECT DISTINCT snap_id FROM stats$seg_stat WHERE dbid = ?", (dbid,))}
    assert not kept & set(range(first5, back)) and {first5 - 1, back} <= kept

    def values(snap_id):
        return {
            (r[0], r[1]): r[2]
            for r in sql3.execute(
                'SELECT "OBJ#", "DATAOBJ#", logical_reads FROM stats$seg_stat WHERE dbid = ? AND snap_id = ?',
                (dbid, snap_id),
            )
        }

    before, after = values(first5 - 1), values(back)
    expected = {obj: v - before[obj, dataobj] for (obj, dataobj), v in after.items() if (obj, dataobj) in before}
    body = ok(api, url(statspack_db, "/segments"), begin_snap=back - 1, end_snap=back, order_by="logical_reads")
    assert {r["obj"]: r["logical_reads"] for r in body["rows"]} == expected and expected
    # the level-5 day's own intervals: nothing kept, nothing shown
    assert ok(api, url(statspack_db, "/segments"), begin_snap=first5 - 1, end_snap=back - 1)["rows"] == []


def test_segments_give_the_global_cache_columns_statspack_keeps_and_none_of_the_others(
    api, statspack_db, billing, sql3
):
    """spctab.sql's STATS$SEG_STAT keeps GC_CR_BLOCKS_RECEIVED, GC_CURRENT_BLOCKS_RECEIVED and GC_BUFFER_BUSY, no table
    scans nor read and write requests (tests/data/statspack_tables.json): the first as their deltas (a level-7
    interval: the value less the key's previous row), the others none, with no share of the database's counter
    (docs/awr-rules.md §31)."""
    dbid = billing["dbid"]
    (last,) = sql3.execute("SELECT max(snap_id) FROM stats$seg_stat WHERE dbid = ?", (dbid,)).fetchone()
    kept = {"gc_cr_blocks_received": "gc_cr_blocks_received", "gc_cu_blocks_received": "gc_current_blocks_received"}
    kept["gc_buffer_busy"] = "gc_buffer_busy"

    def values(snap_id):
        columns = ", ".join(kept.values())
        return {
            obj: dict(zip(kept, rest, strict=True))
            for obj, *rest in sql3.execute(
                f'SELECT "OBJ#", {columns} FROM stats$seg_stat WHERE dbid = ? AND snap_id = ?', (dbid, snap_id)
            )
        }

    before, after = values(last - 1), values(last)
    for order in kept:
        body = ok(api, url(statspack_db, "/segments"), begin_snap=last - 1, end_snap=last, order_by=order, limit=100)
        assert {r["obj"]: {k: r[k] for k in kept} for r in body["rows"]} == {
            obj: {k: v - before[obj][k] for k, v in stats.items()} for obj, stats in after.items() if obj in before
        }
        assert len(body["rows"]) > 10
    unkept = ("physical_read_requests", "physical_write_requests", "table_scans", "space_used")
    for order in unkept:  # a top list by what it keeps no column for is a question it cannot answer
        r = api.get(
            url(statspack_db, "/segments"), query_string={"begin_snap": last - 1, "end_snap": last, "order_by": order}
        )
        err = assert_error(r, 404, "order_by")
        assert err["code"] == "not_in_source" and order in err["message"]
    body = ok(api, url(statspack_db, "/segments"), begin_snap=last - 1, end_snap=last, order_by="logical_reads")
    assert body["rows"]
    for r in body["rows"]:
        assert [r[k] for k in unkept] == [None] * 4 and r["logical_reads"] >= 0  # kept: a number
    one = body["rows"][0]
    history = ok(
        api, url(statspack_db, f"/segments/{one['obj']}"), dataobj=one["dataobj"], begin_snap=last - 4, end_snap=last
    )
    for s in history["series"]:  # one segment over time: no value where Statspack keeps none, not zero
        values = [p[1] for p in s["points"]]  # [time, value] pairs
        assert values and all((v is None) == (s["metric"] in (*unkept, "space_used_total")) for v in values), s[
            "metric"
        ]


def test_the_burst_credits_story_shows_in_single_block_reads(api, statspack_db, billing, sql3):
    """gp2's burst bucket (docs/awr-rules.md §31): about 1 ms while it bursts, over 10 ms in the afternoons it is empty
    once the reporting job runs, back at night; from STATS$SYSTEM_EVENT's deltas."""
    dbid = billing["dbid"]
    rows = sql3.execute(
        "SELECT s.snap_id, s.snap_time, s.startup_time, e.total_waits, e.time_waited_micro FROM stats$system_event e "
        "JOIN stats$snapshot s ON s.dbid = e.dbid AND s.snap_id = e.snap_id "
        "WHERE e.dbid = ? AND e.event = 'db file sequential read' ORDER BY s.snap_id",
        (dbid,),
    ).fetchall()
    latency = {}
    for (_, _, st0, w0, t0), (_, at, st1, w1, t1) in pairwise(rows):
        if st0 == st1 and w1 > w0:
            latency[datetime.fromisoformat(at)] = (t1 - t0) / (w1 - w0) / 1000
    start = datetime.fromisoformat(billing["burst_credits"]["from"]).replace(tzinfo=None)
    afternoons = [ms for at, ms in latency.items() if at >= start and at.weekday() < 5 and 15 <= at.hour <= 17]
    nights = [ms for at, ms in latency.items() if 2 <= at.hour <= 5]
    before = [ms for at, ms in latency.items() if at < start and 15 <= at.hour <= 17]
    assert afternoons and min(afternoons) > 10, afternoons
    assert max(nights) < 2 and max(before) < 2, (max(nights), max(before))
    hours = billing["burst_credits"]["hours"]  # the story's own hours over 2 ms, as built
    assert hours and all(datetime.fromisoformat(h).replace(tzinfo=None) >= start for h in hours)
    newest = billing["burst_credits"]["first_snap"]
    body = ok(
        api,
        url(statspack_db, "/series"),
        name="system_event:db file sequential read:avg_ms",
        begin_snap=newest,
        end_snap=newest + 24 * 5,
    )
    assert max(v for _, v in body["series"][0]["points"] if v is not None) > 10


@pytest.mark.parametrize(
    "path, missing",
    [
        ("/activity", "Active Session History"),
        ("/activity/top", "Active Session History"),
        ("/activity/groups?group_by=sql_id", "Active Session History"),
        ("/activity/chains", "Active Session History"),
        ("/activity?ash=live", "Active Session History"),
        ("/tablespaces", "tablespace usage"),
        ("/awr-report", "Statspack"),
    ],
)
def test_what_statspack_does_not_keep_is_said_not_drawn_as_zero(api, statspack_db, path, missing):
    err = assert_error(api.get(url(statspack_db, path)), 404)
    assert err["code"] == "not_in_source" and missing in err["message"] and "Statspack" in err["message"], err


def test_the_catalog_lists_what_statspack_keeps_and_no_system_metric(api, statspack_db, dbs):
    names = {r["name"] for r in ok(api, url(statspack_db, "/catalog"))["rows"]}
    assert {"derived:aas", "sysstat:redo size", "sys_time_model:DB time", "wait_class:User I/O"} <= names
    assert not any(n.startswith(("sysmetric", "iostat_filetype")) for n in names)
    awr = {r["name"] for r in ok(api, url(dbs["single"], "/catalog"))["rows"]}
    assert any(n.startswith("sysmetric") for n in awr)


def test_every_answer_names_its_source(api, statspack_db, dbs):
    for path in ("", "/load-profile", "/top-events", "/top-sql", "/wait-classes", "/parameters", "/changes"):
        assert ok(api, url(statspack_db, path))["source"] == "statspack", path
        assert ok(api, url(dbs["single"], path))["source"] == "awr", path


def test_the_report_and_compare_read_statspack(api, statspack_db, billing, sql3):
    """awrlens's own report and compare (docs/awr-rules.md §28, §29) over Statspack: the report names its history,
    its Load Profile's DB time is the time model's delta, and its tablespaces say why there are none; compare's two
    periods answer from the same tables."""
    dbid = billing["dbid"]
    snaps = _snapshots(sql3, dbid)
    lo, hi = snaps[-25][0], snaps[-1][0]
    resp = api.get(url(statspack_db, "/report"), query_string={"begin_snap": lo, "end_snap": hi})
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    page = resp.get_data(as_text=True)
    assert "<dd>Statspack (PERFSTAT.STATS$*)</dd>" in page and "keeps no tablespace usage" in page
    (db_time,) = [
        e - b
        for b, e in [
            sql3.execute(
                "SELECT min(CASE WHEN s.snap_id = ? THEN s.value END), max(CASE WHEN s.snap_id = ? THEN s.value END) "
                "FROM stats$sys_time_model s JOIN stats$time_model_statname n ON n.stat_id = s.stat_id "
                "WHERE s.dbid = ? AND n.stat_name = 'DB time'",
                (lo, hi, dbid),
            ).fetchone()
        ]
    ]
    assert f"{db_time / 1e6 / 60:,.2f} min" in page  # the header's DB time
    body = ok(
        api,
        url(statspack_db, "/compare"),
        a_begin_snap=lo - 24,
        a_end_snap=lo,
        b_begin_snap=lo,
        b_end_snap=hi,
    )
    assert body["source"] == "statspack"
