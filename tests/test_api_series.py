"""Series: rates, instances, derived metrics, downsampling, ranges by time or snapshots, per-minute history.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

import itertools
from datetime import UTC, datetime, timedelta
from math import fsum

import pytest
from conftest import assert_error
from contract import AAS, REDO, dbid_of, local_iso, ok, url


def points_by_time(series):
    return dict(series["points"])


def _counter_from_sqlite(sql3, dbid, stats, lo, hi, zone):
    """{instance: {time: (delta, seconds)}} of the summed statistics over the intervals (lo, hi], as the AWR report
    counts a snapshot range, straight from the file (consecutive snapshots of one startup)."""
    marks = ",".join("?" * len(stats))
    rows = sql3.execute(
        f"select s.instance_number, s.snap_id, s.end_interval_time, s.startup_time, sum(t.value) "
        f"from dba_hist_snapshot s join dba_hist_sysstat t on t.dbid = s.dbid and "
        f"t.instance_number = s.instance_number and t.snap_id = s.snap_id "
        f"where s.dbid = ? and t.stat_name in ({marks}) and s.snap_id between ? and ? "
        f"group by 1, 2, 3, 4 order by 1, 2",
        (dbid, *stats, lo, hi),
    ).fetchall()
    out: dict = {}
    for a, b in itertools.pairwise(rows):
        if a[0] == b[0] and a[3] == b[3] and b[1] > lo:
            seconds = (datetime.fromisoformat(b[2]) - datetime.fromisoformat(a[2])).total_seconds()
            out.setdefault(b[0], {})[local_iso(b[2], zone)] = (b[4] - a[4], seconds)
    return out


def test_series_rates_match_the_sqlite_file(api, dbs, window, sql3, tz):
    db, (lo, hi) = dbs["rac"], window
    dbid = dbid_of(db)
    redo = _counter_from_sqlite(sql3, dbid, ("redo size",), lo, hi, tz[dbid])
    txn = _counter_from_sqlite(sql3, dbid, ("user commits", "user rollbacks"), lo, hi, tz[dbid])
    assert set(redo) == {1, 2} and all(len(p) == hi - lo for p in redo.values())

    def fetch(**q):
        return ok(api, url(db, "/series"), name=REDO, begin_snap=lo, end_snap=hi, max_points=0, **q)["series"]

    approx = {"rel": 1e-6, "abs": 1e-3}
    each = fetch(instance="each")
    assert [s["instance"] for s in each] == [1, 2] and each[0]["unit"] == "bytes/s"
    for s in each:
        assert points_by_time(s) == pytest.approx({t: d / sec for t, (d, sec) in redo[s["instance"]].items()}, **approx)
        assert s["points_total"] == len(s["points"]) == hi - lo
    (combined,) = fetch(instance="all")
    assert combined["instance"] == "all"
    assert points_by_time(combined) == pytest.approx(
        {t: sum(redo[i][t][0] / redo[i][t][1] for i in redo) for t in redo[1]}, **approx
    )
    (second,) = fetch(instance="2")
    assert second["points"] == each[1]["points"]
    (raw,) = fetch(rate="raw")
    assert raw["unit"] == "bytes" and raw["rate"] == "raw"
    assert points_by_time(raw) == pytest.approx({t: sum(redo[i][t][0] for i in redo) for t in redo[1]}, **approx)
    (per_txn,) = fetch(rate="per_txn")
    assert per_txn["unit"] == "bytes/txn"
    assert points_by_time(per_txn) == pytest.approx(
        {t: sum(redo[i][t][0] for i in redo) / sum(txn[i][t][0] for i in txn) for t in redo[1]}, **approx
    )
    for s in fetch(rate="per_txn", instance="each"):
        i = s["instance"]
        assert points_by_time(s) == pytest.approx({t: redo[i][t][0] / txn[i][t][0] for t in redo[i]}, **approx)


@pytest.fixture(scope="module")
def without_twin(demo_store, tmp_path_factory):
    """A copy of the demo store without Oracle's 'Database Time Per Sec' (an older release, say): the catalog then
    derives 'Response Time Per Sec' from 'Response Time Per Txn' x 'User Transaction Per Sec'."""
    import shutil
    import sqlite3

    from app import create_app
    from app.settings import Settings

    path = tmp_path_factory.mktemp("twin") / "demo.sqlite"
    shutil.copy(demo_store[0], path)
    con = sqlite3.connect(path)
    with con:
        con.execute("delete from dba_hist_sysmetric_summary where metric_name = 'Database Time Per Sec'")
    con.close()
    return create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(path)}})).test_client()


def test_derived_per_second_metric_is_per_txn_times_transactions_per_second(without_twin, dbs, window, sql3, tz):
    api, db, (lo, hi) = without_twin, dbs["rac"], window
    dbid = dbid_of(db)
    metric = {}
    for inst, end, name, avg in sql3.execute(
        "select m.instance_number, s.end_interval_time, m.metric_name, m.average "
        "from dba_hist_sysmetric_summary m join dba_hist_snapshot s on s.dbid = m.dbid and "
        "s.instance_number = m.instance_number and s.snap_id = m.snap_id where m.dbid = ? and m.group_id = 2 "
        "and m.metric_name in ('Response Time Per Txn', 'User Transaction Per Sec') "
        "and m.snap_id > ? and m.snap_id <= ?",
        (dbid, lo, hi),
    ):
        metric.setdefault(inst, {}).setdefault(local_iso(end, tz[dbid]), {})[name] = avg
    body = ok(
        api,
        url(db, "/series"),
        name="derived:Response Time Per Sec",
        instance="each",
        begin_snap=lo,
        end_snap=hi,
        max_points=0,
    )
    for s in body["series"]:
        expected = {
            t: m["Response Time Per Txn"] * m["User Transaction Per Sec"] for t, m in metric[s["instance"]].items()
        }
        assert points_by_time(s) == pytest.approx(expected, rel=1e-6, abs=1e-3)
        assert s["unit"] and s["kind"] == "rate"
    (combined,) = ok(
        api, url(db, "/series"), name="derived:Response Time Per Sec", begin_snap=lo, end_snap=hi, max_points=0
    )["series"]
    a, b = (points_by_time(s) for s in body["series"])
    assert points_by_time(combined) == pytest.approx({t: a[t] + b[t] for t in a}, rel=1e-6, abs=1e-3)


def test_series_with_several_names_keeps_their_order_and_drops_repeats(api, dbs, window):
    names = ["derived:tps", REDO, "sysmetric:Host CPU Utilization (%)", "system_event:log file sync:avg_ms", AAS]
    lo, hi = window
    body = ok(api, url(dbs["rac"], "/series"), name=[*names, REDO], begin_snap=lo, end_snap=hi)
    assert [s["name"] for s in body["series"]] == names
    assert [s["unit"] for s in body["series"]] == ["txn/s", "bytes/s", "% Busy/(Idle+Busy)", "ms", "sessions"]
    assert all(s["points"] and s["unit"] for s in body["series"])
    assert body["range"]["begin_snap"] == lo and body["range"]["end_snap"] == hi


def test_a_range_longer_than_max_points_is_read_in_buckets(api, dbs):
    """More intervals than max_points: each point is a bucket's (docs/awr-rules.md §21), at a real snapshot time: raw,
    the sum of the full-resolution deltas since the previous point; the same total over the range, across ORCL's
    restart; points_total still counts the full resolution. Fewer intervals: every point, as before."""
    db = dbs["single"]
    (full,) = ok(api, url(db, "/series"), name=REDO, rate="raw", max_points=0)["series"]
    assert full["points_total"] == len(full["points"]) > 200
    for n in (3, 50, 200):
        (small,) = ok(api, url(db, "/series"), name=REDO, rate="raw", max_points=n)["series"]
        assert 2 <= len(small["points"]) <= n and small["points_total"] == full["points_total"]
        assert {t for t, _ in small["points"]} <= {t for t, _ in full["points"]}
        assert small["points"][-1][0] == full["points"][-1][0]
        prev = ""
        for t, v in small["points"]:
            assert v == pytest.approx(fsum(x for u, x in full["points"] if prev < u <= t), rel=1e-6)
            prev = t
    (full_aas,) = ok(api, url(db, "/series"), name=AAS, max_points=0)["series"]
    (fifty,) = ok(api, url(db, "/series"), name=AAS, max_points=50)["series"]
    assert max(v for _, v in fifty["points"]) <= max(v for _, v in full_aas["points"])
    (default,) = ok(api, url(db, "/series"), name=AAS)["series"]
    assert default["points"] == full_aas["points"]  # fewer points than the default max_points


def test_range_by_time_equals_range_by_snapshots(api, dbs, window, sql3, tz):
    db, (lo, hi) = dbs["rac"], window
    zone = tz[dbid_of(db)]
    t_lo, t_hi = (
        local_iso(
            sql3.execute(
                "select max(end_interval_time) from dba_hist_snapshot where dbid = ? and snap_id = ?", (dbid_of(db), s)
            ).fetchone()[0],
            zone,
        )
        for s in (lo, hi)
    )
    by_snap = ok(api, url(db, "/series"), name=[REDO, AAS], begin_snap=lo, end_snap=hi)
    by_time = ok(api, url(db, "/series"), name=[REDO, AAS], **{"from": t_lo, "to": t_hi})
    assert by_time["range"] == by_snap["range"] == {"begin_snap": lo, "end_snap": hi, "from": t_lo, "to": t_hi}
    assert by_time["series"] == by_snap["series"]
    # the same instants in UTC, or without an offset (the database's time zone), give the same range
    utc = {
        k: datetime.fromisoformat(v).astimezone(UTC).isoformat().replace("+00:00", "Z")
        for k, v in (("from", t_lo), ("to", t_hi))
    }
    naive = {k: v[:19] for k, v in (("from", t_lo), ("to", t_hi))}
    for q in (utc, naive):
        assert ok(api, url(db, "/series"), name=[REDO, AAS], **q)["range"] == by_snap["range"]


def test_per_minute_sysmetric_history_gives_sixty_points_an_hour(api, dbs, stories, sql3):
    db = dbs["rac"]
    start = datetime.fromisoformat(stories["plan_regression"]["from"])
    name = "Host CPU Utilization (%)"
    q = {"from": start.isoformat(), "to": (start + timedelta(hours=6)).isoformat(), "max_points": 0}
    body = ok(api, url(db, "/series"), name=f"sysmetric_history:{name}", instance="each", **q)
    (combined,) = ok(api, url(db, "/series"), name=f"sysmetric_history:{name}", **q)["series"]
    (summary,) = ok(api, url(db, "/series"), name=f"sysmetric:{name}", **q)["series"]
    lo, hi = body["range"]["begin_snap"], body["range"]["end_snap"]
    rows = sql3.execute(
        "select instance_number, end_time, value from dba_hist_sysmetric_history where dbid = ? "
        "and metric_name = ? and snap_id > ? and snap_id <= ?",
        (dbid_of(db), name, lo, hi),
    ).fetchall()
    per_minute: dict = {}
    for inst, end, value in rows:
        per_minute.setdefault(end, {})[inst] = value
    for s in body["series"] + [combined]:
        assert s["kind"] == "detail" and s["unit"] == "% Busy/(Idle+Busy)"
        times = [datetime.fromisoformat(t) for t, _ in s["points"]]
        assert all((b - a).total_seconds() == 60 for a, b in itertools.pairwise(times))
        hours = (times[-1] - times[0]).total_seconds() / 3600
        assert 5 * 60 <= s["points_total"] == len(times) <= 6 * 60  # the half-hour intervals of 6 h after begin_snap
        assert abs(len(times) - 60 * hours) <= 1
    assert combined["points_total"] == len(per_minute)
    first = min(per_minute)
    assert combined["points"][0][1] == pytest.approx(fsum(per_minute[first].values()) / 2, abs=1e-3)
    assert len(summary["points"]) == hi - lo  # two per hour, against sixty


def test_instance_each_and_numbers_on_the_single_instance_database(api, dbs):
    db = dbs["single"]
    each = ok(api, url(db, "/series"), name=AAS, instance="each")["series"]
    one = ok(api, url(db, "/series"), name=AAS, instance="1")["series"]
    combined = ok(api, url(db, "/series"), name=AAS)["series"]
    assert [s["instance"] for s in each] == [1] and each[0]["points"] == one[0]["points"] == combined[0]["points"]
    assert_error(api.get(url(db, "/series"), query_string={"name": AAS, "instance": "2"}), 400, "instance")


@pytest.mark.parametrize(
    "path,query",
    [
        ("/series", {"name": [REDO, AAS, "sysstat:logons current"], "instance": "each"}),
        ("/series", {"name": [REDO, AAS], "max_points": 50}),
        ("/wait-classes", {"max_points": 0}),
        ("/tablespaces", {}),
    ],
)
def test_the_axes_shape_holds_the_same_points_with_each_time_list_once(api, dbs, path, query):
    """shape=axes is the pairs' answer with each distinct list of times sent once: zipping every series' values
    with its axis gives back its pairs, and no two axes are the same list (issue 16)."""
    db = dbs["rac"]
    pairs = ok(api, url(db, path), **query)
    axes = ok(api, url(db, path), shape="axes", **query)
    assert len(axes["axes"]) == len({tuple(a) for a in axes["axes"]}) >= 1
    listed = pairs["series"] + pairs.get("cpu_count", [])
    shaped = axes["series"] + axes.get("cpu_count", [])
    assert len(listed) == len(shaped) > 0
    for p, a in zip(listed, shaped, strict=True):
        assert [list(x) for x in zip(axes["axes"][a.pop("axis")], a.pop("values"), strict=True)] == p.pop("points")
        assert a == p
    assert {k: v for k, v in axes.items() if k not in ("series", "cpu_count", "axes")} == {
        k: v for k, v in pairs.items() if k not in ("series", "cpu_count")
    }
    # the time lists are shared: fewer axes than series where series share their snapshots (not downsampled: LTTB
    # keeps other points of each series)
    if path != "/tablespaces" and query.get("max_points", 0) == 0:
        assert len(axes["axes"]) < len(shaped)


def test_the_sql_history_in_axes_shape(api, dbs, stories):
    pr = stories["plan_regression"]
    pairs = ok(api, url(dbs["rac"], f"/sql/{pr['sql_id']}"))
    axes = ok(api, url(dbs["rac"], f"/sql/{pr['sql_id']}"), shape="axes")
    for p, a in zip(pairs["series"], axes["series"], strict=True):
        assert [list(x) for x in zip(axes["axes"][a["axis"]], a["values"], strict=True)] == p["points"]
    csv_text = api.get(url(dbs["rac"], f"/sql/{pr['sql_id']}"), query_string={"shape": "axes", "format": "csv"})
    assert (
        csv_text.get_data()
        == api.get(url(dbs["rac"], f"/sql/{pr['sql_id']}"), query_string={"format": "csv"}).get_data()
    )


@pytest.mark.parametrize("minutes", [0, 10])
def test_a_range_by_time_is_the_intervals_ending_in_it_in_every_answer(api, dbs, window, sql3, tz, minutes):
    """A time range is the intervals that end in (from, to] (docs/awr-rules.md §12): from at a snapshot leaves out
    the interval ending there, from 10 minutes after it takes the interval ending at the next one; the series, the
    wait classes and the Load Profile cover the same intervals, each summed here from the store (issue 28)."""
    db, (lo, hi) = dbs["rac"], window
    ends = dict(
        sql3.execute(
            "select snap_id, min(end_interval_time) from dba_hist_snapshot where dbid = ? and snap_id in (?, ?) "
            "group by snap_id",
            (dbid_of(db), lo, hi),
        )
    )
    zone = tz[dbid_of(db)]
    start = datetime.fromisoformat(ends[lo]).replace(tzinfo=zone) + timedelta(minutes=minutes)
    q = {"from": start.isoformat(), "to": datetime.fromisoformat(ends[hi]).replace(tzinfo=zone).isoformat()}
    at = dict(
        sql3.execute(
            "select snap_id, sum(value) from dba_hist_sysstat where dbid = ? and stat_name = 'redo size' "
            "and snap_id in (?, ?) group by snap_id",
            (dbid_of(db), lo, hi),
        )
    )
    redo = at[hi] - at[lo]  # the intervals (lo, hi]: both froms, as no snapshot ends between lo and lo + 10 min
    lp = ok(api, url(db, "/load-profile"), **q)
    assert (lp["range"]["begin_snap"], lp["range"]["end_snap"]) == (lo, hi)
    assert {r["metric"]: r["total"] for r in lp["rows"]}["Redo size (bytes)"] == pytest.approx(redo, rel=1e-12)
    (s,) = ok(api, url(db, "/series"), name=REDO, rate="raw", max_points=0, **q)["series"]
    assert fsum(v for _, v in s["points"]) == pytest.approx(redo, rel=1e-12) and len(s["points"]) == hi - lo
    classes = ok(api, url(db, "/wait-classes"), max_points=0, **q)["series"]
    assert {len(c["points"]) for c in classes} == {hi - lo}
