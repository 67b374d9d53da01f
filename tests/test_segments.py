"""Segment statistics (docs/awr-rules.md §25), against the store's own rows read with sqlite3: the *_DELTA columns of
DBA_HIST_SEG_STAT summed over the intervals (begin_snap, end_snap], named from DBA_HIST_SEG_STAT_OBJ; and the demo's
segments agree with DBA_HIST_SYSSTAT, the batch and the blocking chain."""

from datetime import datetime, timedelta

import pytest

from app.demo.detail import HOSTILE_SEGMENT
from tests.conftest import assert_error
from tests.contract import ok, url

STATS = (
    "logical_reads",
    "physical_reads",
    "physical_writes",
    "physical_reads_direct",
    "physical_writes_direct",
    "row_lock_waits",
    "itl_waits",
    "buffer_busy_waits",
    "db_block_changes",
    "physical_read_requests",
    "physical_write_requests",
    "table_scans",
    "gc_cr_blocks_received",
    "gc_cu_blocks_received",
    "gc_buffer_busy",
    "space_used",
)
# the RAC and scan columns (issue 34) -> the SYSSTAT counter each is a part of (docs/awr-rules.md §25), or none
COUNTERS = {
    "physical_read_requests": "physical read IO requests",
    "physical_write_requests": "physical write IO requests",
    "gc_cr_blocks_received": "gc cr blocks received",
    "gc_cu_blocks_received": "gc current blocks received",
    "table_scans": None,
    "gc_buffer_busy": None,
}


def _sums(sql3, dbid, lo, hi, stat):
    """[(obj#, name, sum)] of one statistic, largest first, from plain SQL."""
    return sql3.execute(
        f'SELECT s."OBJ#", o.object_name, sum(s.{stat}_delta) AS v FROM dba_hist_seg_stat s LEFT JOIN '
        'dba_hist_seg_stat_obj o ON o.dbid = s.dbid AND o."TS#" = s."TS#" AND o."OBJ#" = s."OBJ#" AND '
        'o."DATAOBJ#" = s."DATAOBJ#" WHERE s.dbid = ? AND s.snap_id > ? AND s.snap_id <= ? GROUP BY s."OBJ#", '
        'o.object_name ORDER BY v DESC, s."OBJ#"',
        (dbid, lo, hi),
    ).fetchall()


def _sysstat_delta(sql3, dbid, lo, hi, name):
    """A counter's change from lo to hi, summed over instances (ranges without a restart)."""
    rows = {
        (i, s): v
        for i, s, v in sql3.execute(
            "SELECT instance_number, snap_id, value FROM dba_hist_sysstat WHERE dbid = ? AND stat_name = ? AND "
            "snap_id IN (?, ?)",
            (dbid, name, lo, hi),
        )
    }
    return sum(rows[(i, hi)] - rows[(i, lo)] for i, s in rows if s == lo)


@pytest.fixture(scope="module")
def rac(summary):
    return next(d for d in summary.values() if d["rac"])


@pytest.fixture(scope="module")
def last_day(rac):
    last = rac["snapshots"]["last_snap"]
    return last - 48, last  # a day with the nightly batch, no restart


@pytest.mark.parametrize(
    "stat", ["logical_reads", "physical_reads_direct", "row_lock_waits", "gc_cu_blocks_received", "table_scans"]
)
def test_top_segments_are_the_summed_deltas(api, sql3, rac, last_day, stat):
    lo, hi = last_day
    body = ok(api, url(rac["id"], "/segments"), order_by=stat, begin_snap=lo, end_snap=hi, limit=5)
    expected = _sums(sql3, rac["dbid"], lo, hi, stat)
    assert [(r["obj"], r["object_name"], r[stat]) for r in body["rows"]] == [tuple(e) for e in expected[:5]]
    captured = sum(e[2] for e in expected)
    assert body["captured"] == captured
    for r in body["rows"]:
        assert r["pct_captured"] == pytest.approx(100 * r[stat] / captured, abs=1e-3)
    # the OBJ# beside the name, as ASH's CURRENT_OBJ# (issue 34)
    assert body["columns"][:7] == [
        "owner",
        "object_name",
        "obj",
        "subobject_name",
        "object_type",
        "tablespace_name",
        stat,
    ]


def test_pct_total_is_of_the_sysstat_counter(api, sql3, rac, last_day):
    lo, hi = last_day
    body = ok(api, url(rac["id"], "/segments"), order_by="physical_reads", begin_snap=lo, end_snap=hi)
    total = _sysstat_delta(sql3, rac["dbid"], lo, hi, "physical reads")
    assert body["database_statistic"] == "physical reads" and body["database_total"] == total
    for r in body["rows"]:
        assert r["pct_total"] == pytest.approx(100 * r["physical_reads"] / total, abs=1e-3)
    itl = ok(api, url(rac["id"], "/segments"), order_by="itl_waits", begin_snap=lo, end_snap=hi)
    assert itl["database_total"] is None and all(r["pct_total"] is None for r in itl["rows"])


@pytest.mark.parametrize("inst", [1, 2])
def test_one_instances_segments_are_its_own_rows_and_its_share(api, sql3, rac, last_day, inst):
    """A RAC instance's top segments (issue 34): its own *_DELTA rows summed, its share of its own sysstat counter;
    one segment over time, its rows of that instance only. Each instance's differ from the other's and the sum."""
    lo, hi = last_day
    body = ok(api, url(rac["id"], "/segments"), order_by="physical_reads", begin_snap=lo, end_snap=hi, instance=inst)
    expected = sql3.execute(
        'SELECT "OBJ#", sum(physical_reads_delta) AS v FROM dba_hist_seg_stat WHERE dbid = ? AND instance_number = ? '
        'AND snap_id > ? AND snap_id <= ? GROUP BY "OBJ#" ORDER BY v DESC, "OBJ#"',
        (rac["dbid"], inst, lo, hi),
    ).fetchall()
    assert [(r["obj"], r["physical_reads"]) for r in body["rows"]] == [tuple(e) for e in expected[:25]]
    assert body["instance"] == str(inst) and body["captured"] == sum(e[1] for e in expected)
    (total,) = sql3.execute(
        "SELECT sum(CASE snap_id WHEN ? THEN value ELSE -value END) FROM dba_hist_sysstat WHERE dbid = ? AND "
        "instance_number = ? AND stat_name = 'physical reads' AND snap_id IN (?, ?)",
        (hi, rac["dbid"], inst, lo, hi),
    ).fetchone()
    assert body["database_total"] == total
    for r in body["rows"]:
        assert r["pct_total"] == pytest.approx(100 * r["physical_reads"] / total, abs=1e-3)
    every = ok(api, url(rac["id"], "/segments"), order_by="physical_reads", begin_snap=lo, end_snap=hi)
    assert every["captured"] > body["captured"] > 0
    top = body["rows"][0]
    line = ok(api, url(rac["id"], f"/segments/{top['obj']}"), begin_snap=lo, end_snap=hi, instance=inst)
    own = dict(
        sql3.execute(
            'SELECT snap_id, sum(physical_reads_delta) FROM dba_hist_seg_stat WHERE dbid = ? AND "OBJ#" = ? AND '
            "instance_number = ? AND snap_id > ? AND snap_id <= ? GROUP BY snap_id",
            (rac["dbid"], top["obj"], inst, lo, hi),
        )
    )
    reads = next(s for s in line["series"] if s["metric"] == "physical_reads")
    assert [v for _, v in reads["points"]] == [own[s] for s in sorted(own)]


def _instance_sums(sql3, dbid, lo, hi, stat, inst):
    """{OBJ#: sum} of one statistic over (lo, hi], of one instance's rows or (inst "all") every instance's."""
    one = "" if inst == "all" else " AND instance_number = ?"
    return dict(
        sql3.execute(
            f'SELECT "OBJ#", sum({stat}_delta) FROM dba_hist_seg_stat WHERE dbid = ? AND snap_id > ? AND snap_id <= ?'
            f'{one} GROUP BY "OBJ#"',
            (dbid, lo, hi, *([] if inst == "all" else [inst])),
        )
    )


def _counter_delta(sql3, dbid, lo, hi, name, inst):
    """A SYSSTAT counter's change from lo to hi, of one instance or summed over every one (no restart between)."""
    one = "" if inst == "all" else " AND instance_number = ?"
    (delta,) = sql3.execute(
        "SELECT sum(CASE snap_id WHEN ? THEN value ELSE -value END) FROM dba_hist_sysstat WHERE dbid = ? AND "
        f"stat_name = ? AND snap_id IN (?, ?){one}",
        (hi, dbid, name, lo, hi, *([] if inst == "all" else [inst])),
    ).fetchone()
    return delta


@pytest.mark.parametrize("stat", list(COUNTERS))
@pytest.mark.parametrize("inst", ["all", 1, 2])
def test_the_rac_and_scan_columns_are_summed_deltas_with_their_share_of_their_counter(
    api, sql3, rac, last_day, stat, inst
):
    """§25 for the columns issue 34 adds: each segment's *_DELTA summed over the range (every instance's or one's),
    ranked; pct_total its share of the SYSSTAT counter of the same name (requests, global cache blocks received), none
    for table scans and GC buffer busy."""
    lo, hi = last_day
    body = ok(api, url(rac["id"], "/segments"), order_by=stat, begin_snap=lo, end_snap=hi, instance=inst)
    sums = _instance_sums(sql3, rac["dbid"], lo, hi, stat, inst)
    ranked = sorted(sums.items(), key=lambda kv: (-kv[1], kv[0]))
    assert [(r["obj"], r[stat]) for r in body["rows"]] == ranked[:25] and ranked[0][1] > 0
    assert body["captured"] == sum(sums.values())
    counter = COUNTERS[stat]
    assert body["database_statistic"] == counter
    total = _counter_delta(sql3, rac["dbid"], lo, hi, counter, inst) if counter else None
    assert body["database_total"] == total
    for r in body["rows"]:
        assert r["pct_total"] == (pytest.approx(100 * r[stat] / total, abs=1e-3) if total else None)
        assert r["pct_captured"] == pytest.approx(100 * r[stat] / body["captured"], abs=1e-3)


def test_demo_segments_are_parts_of_their_instances_counters(sql3, summary, last_day):
    """The demo's new columns (docs/awr-rules.md §25) agree with each instance's own counters over a day: the global
    cache blocks received a part of the instance's (none on a single instance), the read and write requests at most
    the blocks, segment by segment, and a part of the instance's requests; the table scans a part of the short and
    long table scans."""
    parts = {
        "gc_cr_blocks_received": ("gc cr blocks received",),
        "gc_cu_blocks_received": ("gc current blocks received",),
        "physical_read_requests": ("physical read IO requests",),
        "physical_write_requests": ("physical write IO requests",),
        "table_scans": ("table scans (short tables)", "table scans (long tables)"),
    }
    for db in [d for d in summary.values() if d["source"] == "awr"]:
        last = db["snapshots"]["last_snap"]
        lo, hi = last_day if db["rac"] else (last - 48, last)
        for inst in [i["instance_number"] for i in db["instances"]]:
            for stat, counters in parts.items():
                segments = sum(_instance_sums(sql3, db["dbid"], lo, hi, stat, inst).values())
                whole = sum(_counter_delta(sql3, db["dbid"], lo, hi, c, inst) for c in counters)
                if stat.startswith("gc_") and not db["rac"]:
                    assert segments == whole == 0, (db["db_name"], stat)
                else:
                    assert 0.5 * whole < segments <= whole, (db["db_name"], inst, stat, segments, whole)
        blocks = sql3.execute(
            "SELECT count(*), sum(physical_read_requests_delta <= physical_reads_delta), "
            "sum(physical_write_requests_delta <= physical_writes_delta), "
            "sum((physical_read_requests_delta > 0) = (physical_reads_delta > 0)), "
            "sum(physical_reads_direct_delta > 0 AND physical_read_requests_delta < physical_reads_delta) "
            "FROM dba_hist_seg_stat WHERE dbid = ? AND snap_id > ? AND snap_id <= ?",
            (db["dbid"], lo, hi),
        ).fetchone()
        assert blocks[0] == blocks[1] == blocks[2] == blocks[3] > 0 and blocks[4] > 0, (db["db_name"], blocks)


def _hour(stamp):
    """The hour of a database-local time ('YYYY-MM-DD HH:MM:SS'), with its minutes."""
    t = datetime.fromisoformat(stamp)
    return t.hour + t.minute / 60


def _sales_history_direct_writes(sql3, dbid):
    """[(begin, end, direct writes)] of SALES_HISTORY's rows with direct writes, times of the instance's snapshots."""
    return sql3.execute(
        "SELECT n.begin_interval_time, n.end_interval_time, s.physical_writes_direct_delta FROM dba_hist_seg_stat s "
        'JOIN dba_hist_seg_stat_obj o ON o.dbid = s.dbid AND o."TS#" = s."TS#" AND o."OBJ#" = s."OBJ#" AND '
        'o."DATAOBJ#" = s."DATAOBJ#" JOIN dba_hist_snapshot n ON n.dbid = s.dbid AND n.snap_id = s.snap_id AND '
        "n.instance_number = s.instance_number WHERE s.dbid = ? AND o.object_name = 'SALES_HISTORY' AND "
        "s.physical_writes_direct_delta > 0",
        (dbid,),
    ).fetchall()


def _direct_writes_per_hour(sql3, dbid, first, last):
    """The instances' `physical writes direct` per hour in the intervals inside the night hours (first, last] and in
    the afternoons' (12, 18], from each interval's change of the counter (none across a restart)."""
    per_hour = {"night": [0.0, 0.0], "afternoon": [0.0, 0.0]}
    for begin, end, delta in sql3.execute(
        "SELECT a.end_interval_time, n.end_interval_time, v.value - w.value FROM dba_hist_sysstat v JOIN "
        "dba_hist_sysstat w ON w.dbid = v.dbid AND w.instance_number = v.instance_number AND w.stat_id = "
        "v.stat_id AND w.snap_id = v.snap_id - 1 JOIN dba_hist_snapshot n ON n.dbid = v.dbid AND n.snap_id = "
        "v.snap_id AND n.instance_number = v.instance_number JOIN dba_hist_snapshot a ON a.dbid = v.dbid AND "
        "a.snap_id = w.snap_id AND a.instance_number = w.instance_number WHERE v.dbid = ? AND v.stat_name = "
        "'physical writes direct' AND n.startup_time = a.startup_time",
        (dbid,),
    ):
        at = _hour(end)
        key = "night" if first < at <= last and begin[:10] == end[:10] else "afternoon" if 12 < at <= 18 else None
        if key:
            per_hour[key][0] += delta
            per_hour[key][1] += (datetime.fromisoformat(end) - datetime.fromisoformat(begin)).total_seconds() / 3600
    return {k: v / hours for k, (v, hours) in per_hour.items()}


def _top_direct_writers(api, db, day, zone, first, last):
    """The names of the API's top segments with direct writes from `first` to `last` o'clock (local) of `day`."""
    at = [datetime(day.year, day.month, day.day, h, tzinfo=zone).isoformat() for h in (first, last)]
    body = ok(api, url(db["id"], "/segments"), order_by="physical_writes_direct", **{"from": at[0], "to": at[1]})
    return [r["object_name"] for r in body["rows"] if r["physical_writes_direct"]]


def test_the_batchs_direct_writes_on_sales_history_fall_at_night(api, sql3, summary, stories, tz):
    """README's stories: the nightly batch runs 01:00-03:00 database time; its INSERT /*+ APPEND */ writes
    SALES_HISTORY directly (§25). In the store, each of its direct writes is of an interval inside those hours (by the
    snapshots' local times), every night of the detail days, none in the afternoon; most of the instances' own
    `physical writes direct` falls then too; and the API's top segments of an afternoon have none."""
    first, last = (int(h[:2]) for h in stories["batch"]["hours"][:11].split("-"))
    for db in [d for d in summary.values() if d["source"] == "awr"]:
        rows = _sales_history_direct_writes(sql3, db["dbid"])
        assert rows, db["db_name"]
        assert all(first <= _hour(b) and _hour(e) <= last and e[:10] == b[:10] for b, e, _ in rows), db["db_name"]
        nights = sorted({e[:10] for _, e, _ in rows})
        (detail_days,) = sql3.execute(
            "SELECT count(DISTINCT substr(n.end_interval_time, 1, 10)) FROM dba_hist_snapshot n WHERE n.dbid = ? AND "
            "n.snap_id IN (SELECT snap_id FROM dba_hist_seg_stat WHERE dbid = ?)",
            (db["dbid"], db["dbid"]),
        ).fetchone()
        assert len(nights) >= detail_days - 1, (db["db_name"], nights)  # the first day may start after the batch
        rate = _direct_writes_per_hour(sql3, db["dbid"], first, last)
        assert rate["night"] > 10 * rate["afternoon"] > 0, (db["db_name"], rate)
        day = datetime.fromisoformat(nights[-2]).date()  # a whole day: its afternoon in the history
        night = _top_direct_writers(api, db, day, tz[db["dbid"]], first, last)
        assert night[:1] == ["SALES_HISTORY"], (db["db_name"], night)
        assert "SALES_HISTORY" not in _top_direct_writers(api, db, day, tz[db["dbid"]], 12, 18), db["db_name"]


def test_demo_segments_hold_most_of_the_reads_and_tell_the_stories(api, sql3, summary, rac, last_day):
    lo, hi = last_day
    for db in [d for d in summary.values() if d["source"] == "awr"]:
        last = db["snapshots"]["last_snap"]
        a, b = (lo, hi) if db is rac else (last - 48, last)
        for stat, counter in (("logical_reads", "session logical reads"), ("physical_reads", "physical reads")):
            share = sum(e[2] for e in _sums(sql3, db["dbid"], a, b, stat)) / _sysstat_delta(
                sql3, db["dbid"], a, b, counter
            )
            assert 0.7 < share < 0.9, (db["db_name"], stat, share)
    direct = ok(api, url(rac["id"], "/segments"), order_by="physical_reads_direct", begin_snap=lo, end_snap=hi)
    assert direct["rows"][0]["object_name"] == "ORDERS" and direct["rows"][0]["pct_captured"] == 100
    writes = ok(api, url(rac["id"], "/segments"), order_by="physical_writes_direct", begin_snap=lo, end_snap=hi)
    assert writes["rows"][0]["object_name"] == "SALES_HISTORY"


def test_row_lock_waits_fall_on_the_blocking_chains_table(api, sql3, rac, stories):
    lock = stories["row_lock"]
    to = (datetime.fromisoformat(lock["to"]) + timedelta(hours=1)).isoformat()  # the intervals that hold the story
    body = ok(api, url(rac["id"], "/segments"), order_by="row_lock_waits", **{"from": lock["from"], "to": to})
    top = body["rows"][0]
    obj = sql3.execute(
        "SELECT DISTINCT \"CURRENT_OBJ#\" FROM dba_hist_active_sess_history WHERE dbid = ? AND "
        "event = ? AND blocking_session IS NOT NULL",
        (rac["dbid"], lock["event"]),
    ).fetchall()
    assert [top["obj"]] == [o for (o,) in obj] and top["pct_captured"] > 80
    assert top["object_type"] == "TABLE" and top["owner"] == "APP"


def test_one_segment_over_time(api, sql3, rac, last_day):
    lo, hi = last_day
    top = ok(api, url(rac["id"], "/segments"), begin_snap=lo, end_snap=hi, limit=1)["rows"][0]
    body = ok(api, url(rac["id"], f"/segments/{top['obj']}"), begin_snap=lo, end_snap=hi)
    assert body["object_name"] == top["object_name"]
    expected = dict(
        sql3.execute(
            'SELECT snap_id, sum(logical_reads_delta) FROM dba_hist_seg_stat WHERE dbid = ? AND '
            '"OBJ#" = ? AND snap_id > ? AND snap_id <= ? GROUP BY snap_id',
            (rac["dbid"], top["obj"], lo, hi),
        )
    )
    line = next(s for s in body["series"] if s["metric"] == "logical_reads")
    assert [v for _, v in line["points"]] == [expected[s] for s in sorted(expected)]
    assert sum(expected.values()) == top["logical_reads"]
    r = api.get(
        url(rac["id"], f"/segments/{top['obj']}"), query_string={"begin_snap": lo, "end_snap": hi, "format": "csv"}
    )
    assert r.status_code == 200 and r.get_data(as_text=True).startswith("metric,unit,time,value")


def test_an_object_name_is_data(api, rac, last_day):
    lo, hi = last_day
    body = ok(api, url(rac["id"], "/segments"), begin_snap=lo, end_snap=hi, limit=100)
    assert HOSTILE_SEGMENT in [r["object_name"] for r in body["rows"]]
    csv = api.get(
        url(rac["id"], "/segments"), query_string={"begin_snap": lo, "end_snap": hi, "limit": 100, "format": "csv"}
    ).get_data(as_text=True)
    assert HOSTILE_SEGMENT in csv


def test_bad_input_is_a_400_or_a_404_naming_it(api, rac, last_day):
    lo, hi = last_day
    path = url(rac["id"], "/segments")
    err = assert_error(api.get(path, query_string={"order_by": "cpu"}), 400, "order_by")
    assert "logical_reads" in err["message"]
    assert_error(api.get(path, query_string={"order_by": "logical_reads; drop table x"}), 400, "order_by")
    assert_error(api.get(path, query_string={"limit": "0"}), 400, "limit")
    assert_error(api.get(path, query_string={"limit": "101"}), 400, "limit")
    assert_error(api.get(path + "/abc"), 400, "obj")
    assert_error(api.get(path + "/-1"), 400, "obj")
    assert_error(api.get(path + "/1", query_string={"begin_snap": lo, "end_snap": hi}), 404, "obj")
    assert_error(api.get(path + "/1", query_string={"dataobj": "x"}), 400, "dataobj")


def test_one_segment_gives_every_statistic_per_snapshot_and_its_largest_space_used(api, sql3, rac, last_day, tz):
    """§25, one segment: each statistic's *_DELTA summed over instances per snapshot of the range's intervals (a
    missing value is none: 0), timed at the lowest-numbered instance's snapshot; space_used_total the largest of the
    snapshot's rows (a reading, bytes); the names from DBA_HIST_SEG_STAT_OBJ; counted here from the store's rows."""
    lo, hi = last_day[0] + 1, last_day[1]  # a question no other test asks: computed, not an answer kept
    top = ok(api, url(rac["id"], "/segments"), begin_snap=lo, end_snap=hi, limit=1)["rows"][0]
    body = ok(api, url(rac["id"], f"/segments/{top['obj']}"), begin_snap=lo, end_snap=hi)
    columns = ", ".join(f"{s}_delta" for s in STATS)
    rows = sql3.execute(
        f'SELECT snap_id, instance_number, {columns}, space_used_total FROM dba_hist_seg_stat WHERE dbid = ? AND '
        '"OBJ#" = ? AND "DATAOBJ#" = ? AND snap_id > ? AND snap_id <= ?',
        (rac["dbid"], top["obj"], top["dataobj"], lo, hi),
    ).fetchall()
    snaps = sorted({r[0] for r in rows})
    ends = dict(
        sql3.execute(
            "SELECT snap_id, end_interval_time FROM dba_hist_snapshot s WHERE dbid = ? AND snap_id > ? AND "
            "snap_id <= ? AND instance_number = (SELECT min(instance_number) FROM dba_hist_snapshot t WHERE "
            "t.dbid = s.dbid AND t.snap_id = s.snap_id)",
            (rac["dbid"], lo, hi),
        ).fetchall()
    )
    times = [datetime.fromisoformat(ends[s]).replace(tzinfo=tz[rac["dbid"]]).isoformat() for s in snaps]
    got = {s["metric"]: s for s in body["series"]}
    assert list(got) == [*STATS, "space_used_total"]
    for k, stat in enumerate(STATS):
        want = [sum(r[2 + k] or 0 for r in rows if r[0] == s) for s in snaps]
        assert got[stat]["points"] == [[t, v] for t, v in zip(times, want, strict=True)], stat
        assert got[stat]["unit"] == ("bytes" if stat == "space_used" else "count")
    used = [max(r[-1] or 0 for r in rows if r[0] == s) for s in snaps]
    assert got["space_used_total"]["points"] == [[t, v] for t, v in zip(times, used, strict=True)]
    assert got["space_used_total"]["unit"] == "bytes" and max(used) > 0
    names = sql3.execute(
        "SELECT owner, object_name, subobject_name, object_type, tablespace_name FROM dba_hist_seg_stat_obj WHERE "
        'dbid = ? AND "OBJ#" = ? AND "DATAOBJ#" = ?',
        (rac["dbid"], top["obj"], top["dataobj"]),
    ).fetchone()
    assert [body[n] for n in ("owner", "object_name", "subobject_name", "object_type", "tablespace_name")] == [*names]
    assert (body["obj"], body["dataobj"]) == (top["obj"], top["dataobj"])
    assert body["db"] == rac["id"] and (body["range"]["begin_snap"], body["range"]["end_snap"]) == (lo, hi)


def test_a_range_without_a_snapshot_has_no_segment_statistics(tmp_path):
    """§12, §25: a range between two snapshots holds none, so one segment has no point there, not even the first
    snapshot's rows (snap id 1 here, with rows of the segment)."""
    from histories import History, Snap, database

    from app.history import segments

    first = Snap(1, 1, "2026-03-29 00:00:00", 0, "2026-03-28 00:00:00", segments=((101, 5, 1),))
    second = Snap(2, 1, "2026-03-29 01:00:00", 0, "2026-03-28 00:00:00", segments=((101, 7, 2),))
    db = database(History((first, second)), tmp_path / "h.sqlite")
    before = db.resolve(start=datetime(2026, 3, 29, 0, 10), end=datetime(2026, 3, 29, 0, 20))
    assert before.lo is None
    body = segments.history(db, 101, 101, before)
    assert all(s["points"] == ([], []) for s in body["series"]) and body["object_name"] is None
    assert segments.top(db, before)["rows"] == []


def test_top_segments_default_to_the_25_with_the_most_logical_reads(tmp_path):
    """§25 and the API's defaults (docs/api.md: order_by logical_reads, limit 25): of 30 segments, the 25 with the
    most logical reads, largest first."""
    from histories import History, Snap, database

    from app.history import segments

    start = "2026-03-28 00:00:00"
    reads = tuple((obj, 1000 - 7 * obj, obj) for obj in range(1, 31))  # (OBJ#, logical, physical): obj 1 reads most
    snaps = (Snap(1, 1, "2026-03-29 00:00:00", 0, start), Snap(2, 1, "2026-03-29 01:00:00", 0, start, segments=reads))
    db = database(History(snaps), tmp_path / "h.sqlite")
    body = segments.top(db, db.resolve(begin_snap=1, end_snap=2))
    assert body["order_by"] == "logical_reads" and body["database_statistic"] == "session logical reads"
    assert [(r["obj"], r["logical_reads"]) for r in body["rows"]] == [(obj, 1000 - 7 * obj) for obj in range(1, 26)]
    # one segment whose rows read no space used (null, as every statistic not written here): 0 bytes, not a reading
    line = {
        s["metric"]: s["points"][1] for s in segments.history(db, 1, 1, db.resolve(begin_snap=1, end_snap=2))["series"]
    }
    assert (line["logical_reads"], line["physical_writes"], line["space_used_total"]) == ([993], [0], [0])
