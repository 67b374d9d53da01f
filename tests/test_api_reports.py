"""The report questions: wait classes, Load Profile, top events, top SQL, one SQL, tablespaces, compare; and the
database's offset on every timestamp of every answer.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

import itertools
from datetime import datetime, timedelta
from math import fsum

import pytest
from contract import REDO, WITH_OFFSET, dbid_of, ok, timestamps, url

from app.history.load_profile import LOAD_PROFILE
from app.store.awr.queries import TOP_SQL_ORDER


def test_wait_classes_have_db_cpu_every_non_idle_class_and_the_cpu_count(api, dbs, stories, window, sql3):
    cpus = {d["dbid"]: d["cpus"] * len(d["instances"]) for d in stories["databases"]}
    for db in dbs.values():
        dbid = dbid_of(db)
        classes = {
            c
            for (c,) in sql3.execute(
                "select distinct wait_class from dba_hist_system_event where dbid = ? and wait_class != 'Idle'", (dbid,)
            )
        }
        body = ok(api, url(db, "/wait-classes"))
        names = [s["name"] for s in body["series"]]
        assert names[:2] == ["derived:db_cpu", "cpu_wait"]  # CPU Wait, the run queue, above DB CPU (§16)
        assert set(names[2:]) == {f"wait_class:{c}" for c in classes}
        assert all(s["unit"] == "sessions" and s["points"] for s in body["series"])
        (cpu_count,) = body["cpu_count"]
        assert cpu_count["unit"] == "CPUs" and max(v for _, v in cpu_count["points"]) == cpus[dbid]
    lo, hi = window
    each = ok(api, url(dbs["rac"], "/wait-classes"), instance="each", begin_snap=lo, end_snap=hi)
    assert {s["instance"] for s in each["series"]} == {1, 2}
    assert [{v for _, v in s["points"]} for s in each["cpu_count"]] == [{16.0}, {16.0}]


def test_load_profile_matches_the_awr_report_arithmetic(api, dbs, stories, sql3):
    db = dbs["single"]
    lo = stories["async_io_fix"]["first_snap_after"] + 2
    hi = lo + 24
    body = ok(api, url(db, "/load-profile"), begin_snap=lo, end_snap=hi)
    assert body["columns"] == ["metric", "per_second", "per_transaction", "per_exec", "per_call", "total"]
    rows = {r["metric"]: r for r in body["rows"]}
    # every row of Oracle's Load Profile whose statistics ORCL has; the global cache's on RAC only (issue 28)
    assert list(rows) == [label for label, *_ in LOAD_PROFILE if not label.startswith("Global Cache")]

    def delta(*stats, view="dba_hist_sysstat", column="stat_name", db=db, lo=lo, hi=hi):
        marks = ",".join("?" * len(stats))
        at = dict(
            sql3.execute(
                f"select snap_id, sum(value) from {view} where dbid = ? and "
                f"{column} in ({marks}) and snap_id in (?, ?) group by snap_id",
                (dbid_of(db), *stats, lo, hi),
            )
        )
        return at[hi] - at[lo]

    t0, t1 = (
        datetime.fromisoformat(
            sql3.execute(
                "select end_interval_time from dba_hist_snapshot where dbid = ? and snap_id = ?", (dbid_of(db), s)
            ).fetchone()[0]
        )
        for s in (lo, hi)
    )
    elapsed = (t1 - t0).total_seconds()
    assert body["elapsed_seconds"] == round(elapsed)
    txns = delta("user commits", "user rollbacks")
    assert rows["Transactions"]["total"] == pytest.approx(txns, rel=1e-9)
    assert rows["Redo size (bytes)"]["total"] == pytest.approx(delta("redo size"), rel=1e-9)
    assert rows["Executes (SQL)"]["per_second"] == pytest.approx(delta("execute count") / elapsed, rel=1e-4)
    for r in body["rows"]:
        assert r["per_second"] == pytest.approx(r["total"] / elapsed, rel=1e-3, abs=1e-4), r
        assert r["per_transaction"] == pytest.approx(r["total"] / txns, rel=1e-3, abs=1e-4), r
    assert rows["Transactions"]["per_transaction"] == 1.0
    # the rows issue 28 added, and Oracle's per exec and per call: delta / delta of execute count, of user calls,
    # for the three time rows only
    assert rows["User logons"]["total"] == pytest.approx(delta("user logons cumulative"), rel=1e-9)
    assert rows["IM scan rows"]["total"] == delta("IM scan rows")
    assert rows["Session Logical Read IM"]["total"] == delta("session logical reads - IM")
    work_area = delta("bytes processed", view="dba_hist_pgastat", column="name") / 2**20
    assert work_area > 0 and rows["SQL Work Area (MB)"]["total"] == pytest.approx(work_area, rel=1e-9)
    execs, calls = delta("execute count"), delta("user calls")
    for label, stat in (
        ("DB Time(s)", "DB time"),
        ("DB CPU(s)", "DB CPU"),
        ("Background CPU(s)", "background cpu time"),
    ):
        seconds = delta(stat, view="dba_hist_sys_time_model") / 1e6
        assert rows[label]["per_exec"] == pytest.approx(seconds / execs, abs=0.00005), label
        assert rows[label]["per_call"] == pytest.approx(seconds / calls, abs=0.00005), label
    assert all(r["per_exec"] is None and r["per_call"] is None for r in body["rows"][3:])
    # RAC: the same identity with instances summed
    rac = ok(api, url(dbs["rac"], "/load-profile"))
    txn_total = next(r["total"] for r in rac["rows"] if r["metric"] == "Transactions")
    for r in rac["rows"]:
        assert r["per_transaction"] == pytest.approx(r["total"] / txn_total, rel=1e-3, abs=1e-4), r
    rlo = stories["plan_regression"]["begin_snap"]  # 8 intervals without a restart or a missing snapshot
    rac_rows = {
        r["metric"]: r for r in ok(api, url(dbs["rac"], "/load-profile"), begin_snap=rlo, end_snap=rlo + 8)["rows"]
    }
    for label, stats in (
        ("received", ("gc cr blocks received", "gc current blocks received")),
        ("served", ("gc cr blocks served", "gc current blocks served")),
    ):
        blocks = delta(*stats, db=dbs["rac"], lo=rlo, hi=rlo + 8)
        assert blocks > 0 and rac_rows[f"Global Cache blocks {label}"]["total"] == pytest.approx(blocks, rel=1e-9)


def test_rac_load_profile_with_an_instance_down_agrees_with_itself_and_the_series(api, dbs, stories, sql3):
    """RACPROD around instance 2's crash (three snapshots missing, then a restart): every instance's valid deltas
    (same STARTUP_TIME, counters not going back), summed, over the range's wall-clock seconds, computed here from the
    store as the AWR report does; per second x elapsed = total; the series average over the same range agrees; the
    answer says how long each instance was covered (issue 12: 642 transactions/s were given where 581 is right)."""
    db, crash = dbs["rac"], stories["restart"]
    lo, hi = crash["first_snap_after"] - 10, crash["first_snap_after"] + 10
    body = ok(api, url(db, "/load-profile"), begin_snap=lo, end_snap=hi)
    snaps = {}
    for inst, snap, startup, end in sql3.execute(
        "select instance_number, snap_id, startup_time, end_interval_time from dba_hist_snapshot where dbid = ? "
        "and snap_id between ? and ? order by instance_number, snap_id",
        (dbid_of(db), lo, hi),
    ):
        snaps.setdefault(inst, []).append((snap, startup, datetime.fromisoformat(end)))
    assert len(snaps[2]) < len(snaps[1]) == hi - lo + 1  # instance 2 was down for part of the range

    def total(*stats):
        out, covered = 0.0, {}
        for inst, rows in snaps.items():
            values = dict(
                sql3.execute(
                    f"select snap_id, sum(value) from dba_hist_sysstat where dbid = ? and instance_number = ? and "
                    f"stat_name in ({','.join('?' * len(stats))}) and snap_id between ? and ? group by snap_id",
                    (dbid_of(db), inst, *stats, lo, hi),
                )
            )
            for (s0, up0, t0), (s1, up1, t1) in itertools.pairwise(rows):
                if up0 == up1 and values[s1] >= values[s0]:
                    out += values[s1] - values[s0]
                    covered[inst] = covered.get(inst, 0) + (t1 - t0).total_seconds()
        return out, covered

    txns, covered = total("user commits", "user rollbacks")
    elapsed = (snaps[1][-1][2] - snaps[1][0][2]).total_seconds()
    assert body["elapsed_seconds"] == round(elapsed) == round(max(covered.values()))
    assert body["instances"] == [{"instance": i, "seconds": round(covered[i])} for i in (1, 2)]
    assert covered[2] < covered[1]
    rows = {r["metric"]: r for r in body["rows"]}
    assert rows["Transactions"]["total"] == pytest.approx(txns, rel=1e-9)
    assert rows["Transactions"]["per_second"] == pytest.approx(txns / elapsed, rel=1e-4)
    assert rows["Executes (SQL)"]["per_second"] == pytest.approx(total("execute count")[0] / elapsed, rel=1e-4)
    for r in body["rows"]:
        assert r["per_second"] * elapsed == pytest.approx(r["total"], rel=1e-3, abs=1), r
    # the series of the same range, averaged over its intervals' seconds, is the same rate
    (tps,) = ok(api, url(db, "/series"), name="derived:tps", begin_snap=lo, end_snap=hi, max_points=0)["series"]
    times = [datetime.fromisoformat(t) for t, _ in tps["points"]]
    seconds = [
        (b - a).total_seconds() for a, b in itertools.pairwise([snaps[1][0][2].replace(tzinfo=times[0].tzinfo), *times])
    ]
    average = fsum(v * s for (_, v), s in zip(tps["points"], seconds, strict=True)) / fsum(seconds)
    assert average == pytest.approx(rows["Transactions"]["per_second"], rel=1e-3)


def _crash_range(stories):
    crash = stories["restart"]
    return crash["first_snap_after"] - 10, crash["first_snap_after"] + 10


def test_every_answer_of_one_range_covers_the_same_intervals(api, dbs, stories, sql3, tz):
    """RACPROD around instance 2's crash, asked by snapshots and by the same times: the series, the wait classes,
    the Load Profile, the top events, the top SQL and the SQL detail all cover the intervals (begin_snap, end_snap]
    (docs/awr-rules.md §12; issue 12: the series used to start one interval earlier)."""
    db = dbs["rac"]
    lo, hi = _crash_range(stories)
    ends = dict(
        sql3.execute(
            "select snap_id, min(end_interval_time) from dba_hist_snapshot where dbid = ? and "
            "snap_id in (?, ?) group by snap_id",
            (dbid_of(db), lo, hi),
        )
    )
    zone = tz[dbid_of(db)]
    by_time = {
        "from": datetime.fromisoformat(ends[lo]).replace(tzinfo=zone).isoformat(),
        "to": datetime.fromisoformat(ends[hi]).replace(tzinfo=zone).isoformat(),
    }
    for q in ({"begin_snap": lo, "end_snap": hi}, by_time):
        lp = ok(api, url(db, "/load-profile"), **q)
        assert (lp["range"]["begin_snap"], lp["range"]["end_snap"]) == (lo, hi)
        rows = {r["metric"]: r for r in lp["rows"]}
        (redo,) = ok(api, url(db, "/series"), name=REDO, rate="raw", max_points=0, **q)["series"]
        assert fsum(v for _, v in redo["points"]) == pytest.approx(rows["Redo size (bytes)"]["total"], rel=1e-9)
        # AAS by class x seconds = the time waited in that class; the top events add up to the same
        classes = ok(api, url(db, "/wait-classes"), max_points=0, **q)
        events = ok(api, url(db, "/top-events"), limit=100, **q)["rows"]
        seconds = _interval_seconds(sql3, dbid_of(db), lo, hi, zone)
        for s in classes["series"]:
            if s["name"] == "cpu_wait":  # no event: DB time less the rest (§16, test_answer_fields)
                continue
            points = [(seconds[datetime.fromisoformat(t)], v) for t, v in s["points"]]
            label = "CPU" if s["name"] == "derived:db_cpu" else s["label"]
            # each point is rounded to 4 decimals: at most half of 0.0001 session over its seconds
            assert fsum(sec * v for sec, v in points) == pytest.approx(
                fsum(e["time_s"] for e in events if e["wait_class"] == label),
                abs=0.00005 * fsum(sec for sec, _ in points) + 1e-6,
            ), s["name"]
        # one statement: its detail and the top SQL of the range count the same executions
        top = ok(api, url(db, "/top-sql"), limit=1, order_by="executions", **q)["rows"][0]
        detail = ok(api, url(db, f"/sql/{top['sql_id']}"), **q)
        assert sum(p["executions"] for p in detail["plans"]) == top["executions"]


def _interval_seconds(sql3, dbid, lo, hi, zone):
    """{end time of a combined point: seconds of its interval}, per snapshot of instance 1, which was up throughout:
    each RACPROD point in this range is timed at instance 1's snapshot, whose interval both instances share."""
    rows = sql3.execute(
        "select snap_id, end_interval_time from dba_hist_snapshot where dbid = ? and instance_number = 1"
        " and snap_id between ? and ? order by snap_id",
        (dbid, lo, hi),
    ).fetchall()
    ends = [datetime.fromisoformat(e).replace(tzinfo=zone) for _, e in rows]
    return {b: (b - a).total_seconds() for a, b in itertools.pairwise(ends)}


def test_combined_points_that_sum_one_instance_say_so(api, dbs, stories, sql3, tz):
    """While RACPROD's instance 2 is down, and at its first snapshot after the restart, the combined series sums
    instance 1 alone: those points, computed here from the store's snapshots, are listed under `partial` with the
    instance left out (docs/awr-rules.md §11; issue 12: the combined AAS quietly halved)."""
    db = dbs["rac"]
    lo, hi = _crash_range(stories)
    snaps = {}
    for inst, snap, startup, end in sql3.execute(
        "select instance_number, snap_id, startup_time, end_interval_time from dba_hist_snapshot where dbid = ? "
        "and snap_id between ? and ? order by instance_number, snap_id",
        (dbid_of(db), lo, hi),
    ):
        snaps.setdefault(inst, []).append((snap, startup, end))
    # an instance has an interval ending at b when its previous snapshot in the range has the same startup time
    has = {i: {b[0] for a, b in itertools.pairwise(rows) if a[1] == b[1]} for i, rows in snaps.items()}
    zone = tz[dbid_of(db)]
    expected = [
        {"time": datetime.fromisoformat(end).replace(tzinfo=zone).isoformat(), "instances": 1, "missing": [2]}
        for snap, _, end in snaps[1]
        if snap in has[1] - has[2]
    ]
    assert len(expected) >= 4  # three missing snapshots and the restart
    for name in (REDO, "derived:aas", "derived:host_cpu_pct"):
        (s,) = ok(api, url(db, "/series"), name=name, begin_snap=lo, end_snap=hi, max_points=0)["series"]
        assert s["partial"] == expected, name
    each = ok(api, url(db, "/series"), name=REDO, begin_snap=lo, end_snap=hi, instance="each")["series"]
    assert [x["partial"] for x in each] == [[], []]


def test_top_events_have_db_cpu_and_shares_of_db_time_up_to_100(api, dbs, window, sql3):
    lo, hi = window
    for db, q in ((dbs["rac"], {"begin_snap": lo, "end_snap": hi}), (dbs["rac"], {}), (dbs["single"], {})):
        body = ok(api, url(db, "/top-events"), limit=100, **q)
        rows = body["rows"]
        assert body["columns"] == list(rows[0])
        cpu = next(r for r in rows if r["event"] == "DB CPU")
        assert cpu["wait_class"] == "CPU" and cpu["waits"] is None and cpu["avg_ms"] is None
        assert 50 < fsum(r["pct_db_time"] for r in rows) <= 100.5
        assert [r["time_s"] for r in rows] == sorted((r["time_s"] for r in rows), reverse=True)
        assert "Idle" not in {r["wait_class"] for r in rows}
        for r in rows:
            if r["waits"]:
                assert r["avg_ms"] == pytest.approx(r["time_s"] * 1000 / r["waits"], rel=1e-3, abs=1e-3)
        lp = {r["metric"]: r for r in ok(api, url(db, "/load-profile"), **q)["rows"]}
        assert cpu["time_s"] == pytest.approx(lp["DB CPU(s)"]["total"], rel=1e-6)
        assert cpu["pct_db_time"] == pytest.approx(100 * lp["DB CPU(s)"]["total"] / lp["DB Time(s)"]["total"], rel=1e-3)
        assert len(ok(api, url(db, "/top-events"), limit=3, **q)["rows"]) == 3
    # one event straight from the file: foreground time waited over (lo, hi], both instances
    micro = dict(
        sql3.execute(
            "select snap_id, sum(time_waited_micro_fg) from dba_hist_system_event where dbid = ? "
            "and event_name = 'log file sync' and snap_id in (?, ?) group by snap_id",
            (dbid_of(dbs["rac"]), lo, hi),
        )
    )
    rows = ok(api, url(dbs["rac"], "/top-events"), limit=100, begin_snap=lo, end_snap=hi)["rows"]
    sync = next(r for r in rows if r["event"] == "log file sync")
    assert sync["time_s"] == pytest.approx((micro[hi] - micro[lo]) / 1e6, rel=1e-6)


@pytest.mark.parametrize("order_by", sorted(TOP_SQL_ORDER))
def test_top_sql_by_each_order(api, dbs, stories, sql3, order_by):
    pr = stories["plan_regression"]
    key = {
        "elapsed": "elapsed_s",
        "cpu": "cpu_s",
        "gets": "buffer_gets",
        "reads": "disk_reads",
        "executions": "executions",
        "rows": "rows_processed",
    }[order_by]
    body = ok(
        api,
        url(dbs["rac"], "/top-sql"),
        order_by=order_by,
        limit=20,
        begin_snap=pr["begin_snap"],
        end_snap=pr["end_snap"],
    )
    rows = body["rows"]
    assert body["order_by"] == order_by and len(rows) == 20
    assert [r[key] for r in rows] == sorted((r[key] for r in rows), reverse=True)
    texts = dict(sql3.execute("select sql_id, sql_text from dba_hist_sqltext where dbid = ?", (pr["dbid"],)))
    for r in rows:
        assert set(body["columns"]) <= set(r)
        assert r["plan_hash_values"] and all(isinstance(p, int) for p in r["plan_hash_values"])
        assert r["sql_text"] == texts[r["sql_id"]][:400]
    top = rows[0]
    ela, execs = sql3.execute(
        "select sum(elapsed_time_delta), sum(executions_delta) from dba_hist_sqlstat "
        "where dbid = ? and sql_id = ? and snap_id > ? and snap_id <= ?",
        (pr["dbid"], top["sql_id"], pr["begin_snap"], pr["end_snap"]),
    ).fetchone()
    assert top["elapsed_s"] == pytest.approx(ela / 1e6, rel=1e-6) and top["executions"] == execs
    if order_by == "elapsed":
        assert top["sql_id"] == pr["sql_id"]
        assert set(top["plan_hash_values"]) == {pr["good_plan"], pr["bad_plan"]}


def test_one_sql_over_time_shows_the_plan_regression(api, dbs, stories, sql3):
    pr = stories["plan_regression"]
    body = ok(api, url(dbs["rac"], f"/sql/{pr['sql_id']}"))
    assert body["sql_id"] == pr["sql_id"]
    assert (
        body["sql_text"]
        == sql3.execute(
            "select sql_text from dba_hist_sqltext where dbid = ? and sql_id = ?", (pr["dbid"], pr["sql_id"])
        ).fetchone()[0]
    )
    plans = {p["plan_hash_value"]: p for p in body["plans"]}
    assert set(plans) == {pr["good_plan"], pr["bad_plan"]}
    lo, hi = body["range"]["begin_snap"], body["range"]["end_snap"]
    for plan, ela, execs in sql3.execute(
        "select plan_hash_value, sum(elapsed_time_delta), sum(executions_delta) from dba_hist_sqlstat "
        "where dbid = ? and sql_id = ? and snap_id > ? and snap_id <= ? group by 1",
        (pr["dbid"], pr["sql_id"], lo, hi),
    ):
        assert plans[plan]["executions"] == execs
        assert plans[plan]["elapsed_per_exec_ms"] == pytest.approx(ela / execs / 1000, rel=1e-4)
    bad, good = plans[pr["bad_plan"]], plans[pr["good_plan"]]
    assert bad["elapsed_per_exec_ms"] > 20 * good["elapsed_per_exec_ms"]
    assert datetime.fromisoformat(pr["from"]) <= datetime.fromisoformat(bad["first_seen"])
    assert datetime.fromisoformat(bad["last_seen"]) <= datetime.fromisoformat(pr["to"])
    lines = {(s["metric"], s["plan_hash_value"]): s for s in body["series"]}
    assert {m for m, _ in lines} == {
        "elapsed_per_exec",
        "cpu_per_exec",
        "buffer_gets_per_exec",
        "executions",
        "elapsed",
    }
    assert {p for _, p in lines} == set(plans)
    assert lines[("elapsed_per_exec", pr["bad_plan"])]["unit"] == "ms/exec"
    assert min(v for _, v in lines[("elapsed_per_exec", pr["bad_plan"])]["points"]) > max(
        v for _, v in lines[("elapsed_per_exec", pr["good_plan"])]["points"]
    )
    small = ok(api, url(dbs["rac"], f"/sql/{pr['sql_id']}"), max_points=5)
    assert all(len(s["points"]) <= 5 for s in small["series"])


def test_tablespaces_grow(api, dbs, sql3):
    for db in dbs.values():
        body = ok(api, url(db, "/tablespaces"), max_points=10)
        rows = {r["tablespace"]: r for r in body["rows"]}
        names = {
            n
            for (n,) in sql3.execute(
                "select t.tsname from dba_hist_tablespace t join dba_hist_tbspc_space_usage"
                " u on u.dbid = t.dbid and u.tablespace_id = t.\"TS#\" where t.dbid = ?",
                (dbid_of(db),),
            )
        }
        assert set(rows) == names
        assert body["columns"] == list(next(iter(rows.values())))
        assert all(r["used_mb"] <= r["size_mb"] <= r["max_mb"] for r in rows.values())
        assert any(r["growth_mb"] > 0 for r in rows.values())
        assert {(s["tablespace"], s["metric"]) for s in body["series"]} == {
            (n, m) for n in names for m in ("used", "size", "max")
        }
        assert all(s["unit"] == "MB" and 0 < len(s["points"]) <= 10 for s in body["series"])
        used, block = sql3.execute(
            "select u.tablespace_usedsize, t.block_size from dba_hist_tbspc_space_usage u join dba_hist_tablespace t "
            "on u.dbid = t.dbid and u.tablespace_id = t.\"TS#\" where t.dbid = ? and t.tsname = 'SYSTEM' "
            "order by u.snap_id desc limit 1",
            (dbid_of(db),),
        ).fetchone()
        assert rows["SYSTEM"]["used_mb"] == pytest.approx(used * block / 1048576, abs=1e-3)


@pytest.mark.slow  # a copy of the demo store rewritten: over half a second
def test_a_tablespace_created_again_under_its_name_is_one_tablespace(api, dbs, demo_store, tmp_path):
    """A tablespace dropped and created again gets a new TS# under the same name (a number freed by a dropped
    tablespace, maybe lower): its sizes are one tablespace's, in time order across both numbers. The store's USERS
    under a higher TS# until halfway gives the answers of the store as it was (the rows come in TS# order:
    queries.tablespaces)."""
    import shutil
    import sqlite3

    from app import create_app
    from app.settings import Settings

    moved = tmp_path / "moved.sqlite"
    shutil.copy(demo_store[0], moved)
    again = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(moved)}})).test_client()
    with sqlite3.connect(moved) as con:
        for db in dbs.values():
            dbid = dbid_of(db)
            con_dbid, ts, mid = con.execute(
                "select t.con_dbid, t.\"TS#\", (min(u.snap_id) + max(u.snap_id)) / 2 from dba_hist_tablespace t"
                " join dba_hist_tbspc_space_usage u on u.dbid = t.dbid and u.tablespace_id = t.\"TS#\""
                " where t.dbid = ? and t.tsname = 'USERS'",
                (dbid,),
            ).fetchone()
            new = ts + 100
            con.execute(
                "insert into dba_hist_tablespace select dbid, ?, tsname, contents, block_size, con_dbid"
                " from dba_hist_tablespace where dbid = ? and \"TS#\" = ? and con_dbid = ?",
                (new, dbid, ts, con_dbid),
            )
            n = con.execute(
                "update dba_hist_tbspc_space_usage set tablespace_id = ? where dbid = ? and tablespace_id = ?"
                " and con_dbid = ? and snap_id <= ?",
                (new, dbid, ts, con_dbid, mid),
            ).rowcount
            assert n > 10
    for db in dbs.values():
        for q in ({}, {"max_points": 0}, {"max_points": 10}):
            assert ok(again, url(db, "/tablespaces"), **q) == ok(api, url(db, "/tablespaces"), **q)


def test_compare_two_ranges_with_percent_change(api, dbs, window):
    db, (lo, hi) = dbs["rac"], window
    a, b = {"begin_snap": lo - 20, "end_snap": lo - 12}, {"begin_snap": lo, "end_snap": hi}
    body = ok(api, url(db, "/compare"), **{f"a_{k}": v for k, v in a.items()}, **{f"b_{k}": v for k, v in b.items()})
    assert (body["a"]["begin_snap"], body["b"]["end_snap"]) == (lo - 20, hi)
    lp_a, lp_b = ({r["metric"]: r for r in ok(api, url(db, "/load-profile"), **q)["rows"]} for q in (a, b))
    rows = body["load_profile"]["rows"]
    assert [r["metric"] for r in rows] == list(lp_a)
    for r in rows:
        assert (r["a_per_second"], r["b_per_second"]) == (
            lp_a[r["metric"]]["per_second"],
            lp_b[r["metric"]]["per_second"],
        )
        assert (r["a_per_transaction"], r["b_per_transaction"]) == (
            lp_a[r["metric"]]["per_transaction"],
            lp_b[r["metric"]]["per_transaction"],
        )
        if r["a_per_second"]:  # In-Memory's rows are 0 in both
            assert r["change_pct"] == pytest.approx(
                100 * (r["b_per_second"] - r["a_per_second"]) / r["a_per_second"], rel=1e-3, abs=1e-3
            )
    assert any(r["change_pct"] > 0 for r in rows) and any(r["change_pct"] < 0 for r in rows)
    ev_a = {r["event"]: r for r in ok(api, url(db, "/top-events"), limit=15, **a)["rows"]}
    events = {r["event"]: r for r in body["top_events"]["rows"]}
    assert set(ev_a) <= set(events)
    for name, r in events.items():
        if name in ev_a:
            assert r["a_time_s"] == ev_a[name]["time_s"] and r["a_avg_ms"] == ev_a[name]["avg_ms"]
        if r["a_time_s"] and r["b_time_s"] is not None:
            assert r["change_pct"] == pytest.approx(
                100 * (r["b_time_s"] - r["a_time_s"]) / r["a_time_s"], rel=1e-3, abs=1e-3
            )
    assert body["load_profile"]["columns"] == list(rows[0])


def test_compare_finds_the_async_io_fix(api, dbs, stories):
    """Around the restart that turned on async I/O: more transactions, shorter commits."""
    restart = datetime.fromisoformat(stories["async_io_fix"]["startup_time"])
    day = timedelta(days=1)
    q = {
        "a_from": (restart - 2 * day).isoformat(),
        "a_to": (restart - day).isoformat(),
        "b_from": (restart + day).isoformat(),
        "b_to": (restart + 2 * day).isoformat(),
    }
    body = ok(api, url(dbs["single"], "/compare"), **q)
    tps = next(r for r in body["load_profile"]["rows"] if r["metric"] == "Transactions")
    assert tps["change_pct"] > 10
    sync = next(r for r in body["top_events"]["rows"] if r["event"] == "log file sync")
    assert sync["b_avg_ms"] < sync["a_avg_ms"]


def test_every_timestamp_has_the_database_offset(api, dbs, stories, tz, summary):
    pr = stories["plan_regression"]
    for key, db in dbs.items():
        newest = datetime.fromisoformat(summary[db]["snapshots"]["to"])
        offset = datetime(2026, 1, 1, tzinfo=tz[dbid_of(db)]).isoformat()[-6:]
        sql_id = pr["sql_id"] if key == "rac" else ok(api, url(db, "/top-sql"), limit=1)["rows"][0]["sql_id"]
        answers = [
            ok(api, url(db)),
            ok(api, url(db, "/snapshots")),
            ok(
                api,
                url(db, "/series"),
                name=[REDO, "sysmetric_history:Host CPU Utilization (%)"],
                instance="each",
                **{"from": pr["from"], "to": pr["to"]},
            ),
            ok(api, url(db, "/wait-classes")),
            ok(api, url(db, "/load-profile")),
            ok(api, url(db, "/top-events")),
            ok(api, url(db, "/top-sql")),
            ok(api, url(db, f"/sql/{sql_id}")),
            ok(api, url(db, "/tablespaces"), max_points=20),
            ok(
                api,
                url(db, "/compare"),
                a_from=(newest - timedelta(days=3)).isoformat(),
                a_to=(newest - timedelta(days=2)).isoformat(),
                b_from=pr["from"],
                b_to=pr["to"],
            ),
        ]
        seen = 0
        for body in answers:
            for t in timestamps(body):
                assert WITH_OFFSET.fullmatch(t) and t.endswith(offset), (key, t)
                seen += 1
        assert seen > 1000


@pytest.mark.slow  # every wait class summed from the view: over half a second
def test_wait_classes_from_the_stores_class_totals_equal_the_view_summed(api, dbs, demo_store, tmp_path):
    """The embedded store keeps each snapshot's time waited per wait class (embedded.summaries.CLASS_TOTALS, filled when
    it is built); a store without that table sums DBA_HIST_SYSTEM_EVENT per class, as on Oracle. Both give the same
    answers, and the demo store reads its totals (issue 16: the widest wait-class question read every event row)."""
    import shutil
    import sqlite3

    from app import create_app
    from app.settings import Settings
    from app.store.awr.embedded.summaries import CLASS_TOTALS

    bare = tmp_path / "bare.sqlite"
    shutil.copy(demo_store[0], bare)
    with sqlite3.connect(bare) as con:
        con.execute(f"drop table {CLASS_TOTALS.name}")
    summed = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(bare)}})).test_client()
    for db in dbs.values():
        for q in ({}, {"instance": "each", "max_points": 0}, {"instance": "1", "begin_snap": 1}):
            kept = ok(api, url(db, "/wait-classes"), show_sql=1, **q)
            plain = ok(summed, url(db, "/wait-classes"), show_sql=1, **q)
            classes = [s["sql"] for s in kept.pop("sql") if "time_waited_micro_fg" in s["sql"]]
            assert len(classes) == 1 and CLASS_TOTALS.name in classes[0]
            classes = [s["sql"] for s in plain.pop("sql") if "time_waited_micro_fg" in s["sql"]]
            assert len(classes) == 1 and "GROUP BY" in classes[0] and CLASS_TOTALS.name not in classes[0]
            assert kept == plain and kept["series"]


@pytest.mark.slow  # seconds, not the edit loop's milliseconds
def test_top_sql_from_the_stores_blocks_equals_the_view_summed(api, dbs, demo_store, tmp_path):
    """The embedded store keeps DBA_HIST_SQLSTAT's deltas summed per statement over blocks of snapshot ids
    (embedded.summaries.SQLSTAT_BLOCKS); top SQL reads the blocks inside a range and the view's rows at its ends. A
    store without the table sums the view, as on Oracle. Both give the same answers for ranges that start and end
    inside, at and across the blocks' edges, for every order, and the range report's top SQL too (issue 16: 45 days of
    top SQL grouped every row)."""
    import shutil
    import sqlite3

    from app import create_app
    from app.settings import Settings
    from app.store.awr.embedded.summaries import BLOCK_SNAPS, SQLSTAT_BLOCKS

    bare = tmp_path / "bare.sqlite"
    shutil.copy(demo_store[0], bare)
    with sqlite3.connect(bare) as con:
        con.execute(f"drop table {SQLSTAT_BLOCKS.name}")
    summed = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(bare)}})).test_client()
    for db in dbs.values():
        s = ok(api, url(db, ""))["snapshots"]
        first, last = s["first_snap"], s["last_snap"]
        edge = (first // BLOCK_SNAPS + 2) * BLOCK_SNAPS  # the last snapshot of a block
        ranges = [
            (first, last),
            (edge, edge + BLOCK_SNAPS),
            (edge - 1, edge + 1),
            (edge + 3, edge + 2 * BLOCK_SNAPS + 5),
        ]
        ranges += [(edge - BLOCK_SNAPS - 7, last - 11), (edge + 5, edge + 9)]
        for lo, hi in ranges:
            for order in TOP_SQL_ORDER:
                q = {"begin_snap": lo, "end_snap": hi, "order_by": order, "limit": 100}
                kept = ok(api, url(db, "/top-sql"), show_sql=1, **q)
                plain = ok(summed, url(db, "/top-sql"), show_sql=1, **q)
                assert [SQLSTAT_BLOCKS.name in x["sql"] for x in kept.pop("sql") if "sqlstat" in x["sql"]] == [True]
                assert not [x for x in plain.pop("sql") if SQLSTAT_BLOCKS.name in x["sql"]]
                assert kept == plain and kept["rows"], (lo, hi, order)
        q = {"begin_snap": edge - 3, "end_snap": last - 2}
        kept, plain = api.get(url(db, "/report"), query_string=q), summed.get(url(db, "/report"), query_string=q)
        assert kept.status_code == plain.status_code == 200 and b"Top SQL" in kept.data
        assert kept.data == plain.data


@pytest.mark.slow  # every statement's new plans grouped from the view: over half a second
def test_new_plans_from_the_stores_first_snapshots_equal_the_view_grouped(api, dbs, demo_store, tmp_path):
    """The embedded store keeps each plan's first snapshot per statement, container and instance
    (embedded.summaries.PLAN_FIRSTS); the changes layer's new plans sum only the plans first seen in the range, and its
    plans back number only the statements that ran more than one plan. A store without the table groups DBA_HIST_SQLSTAT
    over the range, as on Oracle. Both give the same changes for every range that starts or ends one snapshot either
    side of a new plan or a plan back, and for the whole history (issues 16 and 28)."""
    import shutil
    import sqlite3

    from app import create_app
    from app.settings import Settings
    from app.store.awr.embedded.summaries import PLAN_FIRSTS

    bare = tmp_path / "bare.sqlite"
    shutil.copy(demo_store[0], bare)
    with sqlite3.connect(bare) as con:
        con.execute(f"drop table {PLAN_FIRSTS.name}")
    grouped = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(bare)}})).test_client()
    seen = 0
    for db in dbs.values():
        s = ok(api, url(db, ""))["snapshots"]
        whole = {"begin_snap": s["first_snap"], "end_snap": s["last_snap"]}
        plans = [c for c in ok(grouped, url(db, "/changes"), **whole)["rows"] if c["kind"] == "plan"]
        ranges = [whole] + [
            {"begin_snap": c["snap_id"] + d, "end_snap": c["snap_id"] + e}
            for c in plans
            for d, e in ((-1, 0), (0, 5), (-2, 1), (-48, 48))
        ]
        for q in ranges:
            kept = ok(api, url(db, "/changes"), show_sql=1, **q)
            plain = ok(grouped, url(db, "/changes"), show_sql=1, **q)
            assert any(PLAN_FIRSTS.name in x["sql"] for x in kept.pop("sql"))
            assert not any(PLAN_FIRSTS.name in x["sql"] for x in plain.pop("sql"))
            assert kept == plain, q
            seen += sum(c["kind"] == "plan" for c in kept["rows"])
    assert seen > 3
