"""The rules end to end: a hand-made two-instance store, the real API, hand-computed answers."""

import itertools
import json
import sqlite3
from datetime import datetime

import pytest
from histories import empty_views

from app import create_app
from app.settings import Settings

DBID = 77
T0 = "2026-03-01 00:00:00"
T_RESTART = "2026-03-01 01:10:00"
# snap_id -> minutes after midnight. Instance 2 restarts between snap 3 and 4 (snapshot 4 comes late:
# it is missing for one interval); snap 5 of instance 1 is a manual snapshot 3 minutes after snap 4.
SNAPS = {1: [(1, 0), (2, 30), (3, 60), (4, 90), (5, 93), (6, 120)], 2: [(1, 0), (2, 30), (3, 60), (6, 120)]}
STARTUP = {1: {s: T0 for s, _ in SNAPS[1]}, 2: {1: T0, 2: T0, 3: T0, 6: T_RESTART}}
# cumulative values per instance and snap_id
REDO = {1: {1: 0, 2: 1800, 3: 3600, 4: 5400, 5: 9000, 6: 9000}, 2: {1: 0, 2: 3600, 3: 7200, 6: 99999}}
COMMITS = {1: {1: 0, 2: 10, 3: 20, 4: 30, 5: 30, 6: 50}, 2: {1: 0, 2: 30, 3: 60, 6: 400}}
BUSY = {1: {1: 0, 2: 300, 3: 600, 4: 900, 5: 930, 6: 1200}, 2: {1: 0, 2: 900, 3: 1800, 6: 100}}
IDLE = {1: {1: 0, 2: 700, 3: 1400, 4: 2100, 5: 2170, 6: 2800}, 2: {1: 0, 2: 1100, 3: 2200, 6: 100}}
LOGONS = {1: {1: 10, 2: 12, 3: 9, 4: 9, 5: 9, 6: 11}, 2: {1: 5, 2: 5, 3: 5, 6: 1}}
# instance 1's one wait event: (foreground waits, microseconds waited), cumulative; short waits of 60-65 µs
READS = {1: (0, 0), 2: (2, 120), 3: (4, 250), 4: (6, 380), 5: (6, 380), 6: (8, 500)}


def _time(minutes):
    return f"2026-03-01 {minutes // 60:02d}:{minutes % 60:02d}:00"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny") / "tiny.sqlite"
    empty_views(path)
    con = sqlite3.connect(path)
    for inst in (1, 2):
        con.execute(
            "insert into dba_hist_database_instance (dbid, instance_number, startup_time, parallel,"
            " db_name, instance_name, host_name, version) values (?,?,?,?,?,?,?,?)",
            (DBID, inst, T0, "YES", "TINY", f"TINY{inst}", f"node{inst}", "19.0.0.0.0"),
        )
        prev = None
        for snap_id, minutes in SNAPS[inst]:
            con.execute(
                "insert into dba_hist_snapshot (snap_id, dbid, instance_number, startup_time, "
                "begin_interval_time, end_interval_time, snap_flag, snap_timezone) values (?,?,?,?,?,?,?,?)",
                (
                    snap_id,
                    DBID,
                    inst,
                    STARTUP[inst][snap_id],
                    prev or _time(minutes),
                    _time(minutes),
                    1 if (inst, snap_id) == (1, 5) else 0,
                    0,
                ),
            )
            prev = _time(minutes)
            for view, stat_id, name, table in (
                ("sysstat", 1, "redo size", REDO),
                ("sysstat", 2, "user commits", COMMITS),
                ("sysstat", 3, "user rollbacks", None),
                ("sysstat", 4, "logons current", LOGONS),
                ("sys_time_model", 1, "DB time", None),
                ("osstat", 1, "BUSY_TIME", BUSY),
                ("osstat", 0, "IDLE_TIME", IDLE),
            ):
                value = table[inst][snap_id] if table else 0
                con.execute(
                    f"insert into dba_hist_{view} (snap_id, dbid, instance_number, stat_id, stat_name, "
                    "value) values (?,?,?,?,?,?)",
                    (snap_id, DBID, inst, stat_id, name, value),
                )
            if inst == 1:
                con.execute(
                    "insert into dba_hist_system_event (snap_id, dbid, instance_number, event_id, event_name, "
                    "wait_class, total_waits_fg, time_waited_micro_fg) values (?,?,?,?,?,?,?,?)",
                    (snap_id, DBID, inst, 1, "db file sequential read", "User I/O", *READS[snap_id]),
                )
    con.commit()
    con.close()
    app = create_app(Settings.from_env({}, targets={"t": {"sqlite": str(path)}}, min_interval=300))
    return app.test_client()


def _series(client, name, **params):
    r = client.get(
        f"/api/v1/dbs/t.{DBID}/series",
        query_string={"name": name, "begin_snap": 1, "end_snap": 6, "max_points": 0, **params},
    )
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_per_instance_redo_rate_with_restart_gap_and_manual_snapshot(tiny):
    body = _series(tiny, "sysstat:redo size", instance="each")
    by_inst = {s["instance"]: [v for _, v in s["points"]] for s in body["series"]}
    # instance 1: 1 B/s each interval; snap 5 (manual, 3 min after 4) merged: (9000-5400)/1800 = 2 at snap 6
    assert by_inst[1] == [1.0, 1.0, 1.0, 2.0]
    # instance 2: 2 B/s, then nothing across its restart (99999 is a new counter, not a delta)
    assert by_inst[2] == [2.0, 2.0]
    assert body["series"][0]["unit"] == "bytes/s"
    markers = body["markers"]
    assert [(m["instance"], m["snap_id"]) for m in markers["restarts"]] == [(2, 6)]
    assert [(m["instance"], m["snap_id"]) for m in markers["merged_snapshots"]] == [(1, 5)]
    assert [(m["instance"], m["after_snap_id"], m["before_snap_id"]) for m in markers["missing"]] == [(2, 3, 6)]


def test_awrlens_min_interval_reaches_the_rules(tiny, tmp_path):
    """AWRLENS_MIN_INTERVAL=120, set as a deployment sets it: the manual snapshot 3 minutes after snap 4 is now an
    interval of its own ((9000 - 5400) B over its 180 s, then none over the next 1,620 s), and nothing is merged."""
    path = tiny.application.config["SETTINGS"].targets["t"]["sqlite"]
    env = {"AWRLENS_MIN_INTERVAL": "120", "AWRLENS_TARGETS": json.dumps({"t": {"sqlite": path}})}
    short = create_app(Settings.from_env(env)).test_client()
    body = _series(short, "sysstat:redo size", instance="each")
    by_inst = {s["instance"]: [v for _, v in s["points"]] for s in body["series"]}
    assert by_inst[1] == [
        1.0,
        1.0,
        1.0,
        pytest.approx((REDO[1][5] - REDO[1][4]) / 180),
        pytest.approx((REDO[1][6] - REDO[1][5]) / 1620),
    ]
    assert body["markers"]["merged_snapshots"] == []
    assert _series(tiny, "sysstat:redo size", instance="each")["markers"]["merged_snapshots"] != []


def test_rac_combined_rate_is_the_sum_where_both_instances_count(tiny):
    body = _series(tiny, "sysstat:redo size")
    assert [v for _, v in body["series"][0]["points"]] == [3.0, 3.0, 1.0, 2.0]


def test_per_transaction_is_a_ratio_of_sums(tiny):
    body = _series(tiny, "sysstat:redo size", rate="per_txn")
    # snap 2: (1800 + 3600) / (10 + 30) = 135; snap 6 (instance 1 only): 3600 / 20 = 180
    assert [v for _, v in body["series"][0]["points"]] == [135.0, 135.0, 180.0, 180.0]
    assert body["series"][0]["unit"] == "bytes/txn"


def test_host_cpu_percent_is_a_ratio_of_sums(tiny):
    body = _series(tiny, "derived:host_cpu_pct")
    # snap 2: (300 + 900) / (1000 + 2000) = 40 %; the mean of 30 % and 45 % would be 37.5 %
    assert body["series"][0]["points"][0][1] == 40.0
    assert body["series"][0]["unit"] == "%"


def test_point_in_time_reading_is_never_a_delta(tiny):
    body = _series(tiny, "sysstat:logons current", instance="1")
    # read at every snapshot of the range, the manual snap 5 too: merging is for deltas (docs/awr-rules.md §8, §12)
    assert [v for _, v in body["series"][0]["points"]] == [10, 12, 9, 9, 9, 11]
    assert body["series"][0]["kind"] == "reading"


def test_raw_deltas(tiny):
    body = _series(tiny, "sysstat:redo size", rate="raw", instance="1")
    assert [v for _, v in body["series"][0]["points"]] == [1800, 1800, 1800, 3600]


def test_load_profile_sums_within_each_startup(tiny):
    r = tiny.get(f"/api/v1/dbs/t.{DBID}/load-profile", query_string={"begin_snap": 1, "end_snap": 6})
    rows = {row["metric"]: row for row in r.get_json()["rows"]}
    # redo: instance 1 9000 B over 7200 s; instance 2 7200 B over 3600 s (its restart interval dropped)
    assert rows["Redo size (bytes)"]["total"] == 16200
    # per second: the cluster's total over the range's time (7200 s), not the sum of each instance's own rate
    # (9000 / 7200 + 7200 / 3600 = 3.25, which overstated it while instance 2 was down: docs/awr-rules.md §13)
    assert rows["Redo size (bytes)"]["per_second"] == pytest.approx(16200 / 7200)
    assert r.get_json()["elapsed_seconds"] == 7200
    assert r.get_json()["instances"] == [{"instance": 1, "seconds": 7200}, {"instance": 2, "seconds": 3600}]
    assert rows["Redo size (bytes)"]["per_transaction"] == pytest.approx(16200 / (50 + 60))


@pytest.mark.parametrize("path", ["/load-profile", "/top-events"])
def test_no_data_is_not_zero_and_a_restart_left_out_is_named(tiny, path):
    """Instance 2 between snapshots 3 and 6 spans its restart only: no interval can be measured, so no rows and a
    reason, never rows of 0 that read as an idle database; a range that crosses the restart names the interval it
    left out and the seconds it does not cover (issue 12)."""
    only = tiny.get(f"/api/v1/dbs/t.{DBID}{path}", query_string={"begin_snap": 3, "end_snap": 6, "instance": 2})
    body = only.get_json()
    assert only.status_code == 200 and body["rows"] == []
    assert body["reason"] == "no interval of this range can be measured: each one spans a restart"
    restart = {"instance": 2, "after_snap_id": 3, "before_snap_id": 6, "seconds": 3600, "reason": "restart"}
    assert body["left_out"] == [restart]
    across = tiny.get(f"/api/v1/dbs/t.{DBID}{path}", query_string={"begin_snap": 1, "end_snap": 6}).get_json()
    assert across["rows"] and across["reason"] is None and across["left_out"] == [restart]
    one = tiny.get(f"/api/v1/dbs/t.{DBID}{path}", query_string={"begin_snap": 2, "end_snap": 2}).get_json()
    assert one["rows"] == [] and one["reason"] == "the range holds one snapshot: an interval needs two"
    inside = tiny.get(f"/api/v1/dbs/t.{DBID}{path}", query_string={"begin_snap": 1, "end_snap": 3}).get_json()
    assert inside["rows"] and inside["left_out"] == [] and inside["reason"] is None


def _get(client, path, **query):
    r = client.get(f"/api/v1/dbs/t.{DBID}{path}", query_string=query)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_a_range_from_or_to_a_manual_snapshot_uses_it(tiny):
    """Snapshot 5 of instance 1 is merged for charts (3 minutes after 4), yet a report from or to it starts or ends
    there, as an AWR report between them does: docs/awr-rules.md §6, §12 (issue 12)."""
    to_manual = _get(tiny, "/load-profile", begin_snap=4, end_snap=5, instance=1)
    rows = {r["metric"]: r for r in to_manual["rows"]}
    assert to_manual["elapsed_seconds"] == 180 and rows["Redo size (bytes)"]["total"] == 9000 - 5400
    assert rows["Redo size (bytes)"]["per_second"] == pytest.approx(3600 / 180)
    from_manual = _get(tiny, "/load-profile", begin_snap=5, end_snap=6, instance=1)
    rows = {r["metric"]: r for r in from_manual["rows"]}
    assert from_manual["elapsed_seconds"] == 1620 and rows["Transactions"]["total"] == 50 - 30
    assert rows["Redo size (bytes)"]["total"] == 0 and from_manual["reason"] is None  # a measured 0
    assert (
        _series(tiny, "sysstat:redo size", rate="raw", instance="1", begin_snap=4, end_snap=5)["series"][0]["points"][
            0
        ][1]
        == 3600
    )
    assert [
        v
        for _, v in _series(tiny, "sysstat:user commits", rate="raw", instance="1", begin_snap=5)["series"][0]["points"]
    ] == [20]
    # the range's own ends are not merged in its answer; a manual snapshot inside it still is
    assert _series(tiny, "sysstat:redo size", begin_snap=4, end_snap=5)["markers"]["merged_snapshots"] == []
    inside = _series(tiny, "sysstat:redo size", instance="1", begin_snap=4, end_snap=6)
    assert [v for _, v in inside["series"][0]["points"]] == [2.0]
    assert [m["snap_id"] for m in inside["markers"]["merged_snapshots"]] == [5]


@pytest.mark.parametrize("lo,hi", [(1, 6), (2, 6), (3, 6), (2, 3), (4, 5), (5, 6), (4, 6), (1, 2)])
@pytest.mark.parametrize("instance", ["all", "1", "2"])
def test_every_answer_covers_the_intervals_begin_to_end(tiny, lo, hi, instance):
    """A snapshot range is the intervals (begin_snap, end_snap] for every answer: the series' raw deltas add up to
    the Load Profile's totals of the same range, and per second x elapsed = total (docs/awr-rules.md §12, §13)."""
    lp = _get(tiny, "/load-profile", begin_snap=lo, end_snap=hi, instance=instance)
    rows = {r["metric"]: r for r in lp["rows"]}
    for name, metric in (("sysstat:redo size", "Redo size (bytes)"), ("sysstat:user commits", "Transactions")):
        (s,) = _series(tiny, name, rate="raw", instance=instance, begin_snap=lo, end_snap=hi)["series"]
        if lp["reason"]:
            assert s["points"] == [] and rows == {}
            continue
        assert sum(v for _, v in s["points"]) == rows[metric]["total"]
        # per second is rounded to 4 decimals: half of 0.0001 per second, over the elapsed seconds
        assert rows[metric]["per_second"] * lp["elapsed_seconds"] == pytest.approx(
            rows[metric]["total"], abs=0.00005 * lp["elapsed_seconds"]
        )

    # by hand: the intervals (lo, hi] of each instance, without those across instance 2's restart
    def delta(inst):
        ids = [s for s, _ in SNAPS[inst] if lo <= s <= hi]
        return sum(
            REDO[inst][b] - REDO[inst][a] for a, b in itertools.pairwise(ids) if STARTUP[inst][a] == STARTUP[inst][b]
        )

    expected = sum(delta(i) for i in ((1, 2) if instance == "all" else (int(instance),)))
    assert rows.get("Redo size (bytes)", {}).get("total", 0) == expected


def test_a_combined_point_says_which_instances_it_sums(tiny):
    """Instance 2 has no interval at snapshots 4 (no snapshot) and 6 (across its restart): the combined points there
    sum instance 1 alone, and say so (docs/awr-rules.md §11, issue 12)."""
    (s,) = _series(tiny, "sysstat:redo size")["series"]
    times = {round(datetime.fromisoformat(t).timestamp()): t for t, _ in s["points"]}
    at = {
        snap: times[round(datetime.fromisoformat(_time(m) + "+00:00").timestamp())]
        for snap, m in SNAPS[1]
        if snap in (4, 6)
    }
    assert s["partial"] == [
        {"time": at[4], "instances": 1, "missing": [2]},
        {"time": at[6], "instances": 1, "missing": [2]},
    ]
    assert _series(tiny, "sysstat:redo size", end_snap=3)["series"][0]["partial"] == []
    assert all(x["partial"] == [] for x in _series(tiny, "sysstat:redo size", instance="each")["series"])
    (cpu,) = _series(tiny, "derived:host_cpu_pct")["series"]  # a ratio of sums is marked the same way
    assert [p["missing"] for p in cpu["partial"]] == [[2], [2]]


def test_compare_computes_a_change_from_exact_times(tiny):
    """A period's 120 µs of waits against the next one's 130 µs, over 1,800 s each: +8.3333 %, computed from the
    exact times; from times rounded to 4 decimals first (0.0001 s both) it read 0 % (issue 28)."""
    body = _get(tiny, "/compare", a_begin_snap=1, a_end_snap=2, b_begin_snap=2, b_end_snap=3, instance=1)
    (r,) = [r for r in body["top_events"]["rows"] if r["event"] == "db file sequential read"]
    (ta, tb) = ((READS[hi][1] - READS[lo][1]) / 1e6 for lo, hi in ((1, 2), (2, 3)))
    assert r["change_pct"] == round(100 * (tb / 1800 - ta / 1800) / (ta / 1800), 4) == 8.3333
    (mover,) = [m for m in body["movers"]["rows"] if m["item"] == "db file sequential read"]
    assert mover["change_pct"] == 8.3333


def test_the_load_profile_shows_a_row_only_where_its_statistics_exist(tiny):
    """This store has none of In-Memory's statistics, no DBA_HIST_PGASTAT, no user logons cumulative and no global
    cache statistics: its Load Profile is the rows every release has, with Per Exec and Per Call on the time rows
    only (issue 28)."""
    body = _get(tiny, "/load-profile", begin_snap=1, end_snap=3)
    assert [r["metric"] for r in body["rows"]] == [
        "DB Time(s)",
        "DB CPU(s)",
        "Background CPU(s)",
        "Redo size (bytes)",
        "Logical read (blocks)",
        "Block changes",
        "Physical read (blocks)",
        "Physical write (blocks)",
        "Read IO requests",
        "Write IO requests",
        "Read IO (MB)",
        "Write IO (MB)",
        "User calls",
        "Parses (SQL)",
        "Hard parses (SQL)",
        "Logons",
        "Executes (SQL)",
        "Rollbacks",
        "Transactions",
    ]
    assert body["columns"] == ["metric", "per_second", "per_transaction", "per_exec", "per_call", "total"]
