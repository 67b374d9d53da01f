"""The databases and their snapshots: instances, versions, hosts, snapshot ranges, restarts, missing and manual
snapshots.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

from datetime import datetime

from conftest import assert_error
from contract import AAS, WITH_OFFSET, local_iso, ok, timestamps, url


def test_dbs_lists_both_databases_with_instances_version_host_and_snapshot_range(api, summary, stories, sql3, tz):
    assert len(summary) == len(stories["databases"]) >= 2
    for story in stories["databases"]:
        dbid, zone = story["dbid"], tz[story["dbid"]]
        d = next(d for d in summary.values() if d["dbid"] == dbid)
        assert d["db_name"] == story["db_name"] and d["rac"] is story["rac"]
        assert d["id"].endswith(f".{dbid}") and d["version"] and d["platform"]
        # each database from where its history is: AWR's views, or Statspack's tables (docs/awr-rules.md §31)
        statspack = story["source"] == "statspack"
        assert d["source"] == story["source"]
        instances, snapshots, end = (
            ("stats$database_instance", "stats$snapshot", "snap_time")
            if statspack
            else ("dba_hist_database_instance", "dba_hist_snapshot", "end_interval_time")
        )
        hosts = dict(sql3.execute(f"select instance_number, host_name from {instances} where dbid = ?", (dbid,)))
        assert [i["instance_number"] for i in d["instances"]] == story["instances"]
        assert {i["instance_number"]: i["host_name"] for i in d["instances"]} == hosts
        assert all(i["instance_name"] and i["startups"] for i in d["instances"])
        first, last, count, t0, t1 = sql3.execute(
            f"select min(snap_id), max(snap_id), count(distinct snap_id), min({end}), max({end}) from {snapshots} "
            "where dbid = ?",
            (dbid,),
        ).fetchone()
        snaps = d["snapshots"]
        assert (snaps["first_snap"], snaps["last_snap"], snaps["count"]) == (first, last, count)
        assert (snaps["from"], snaps["to"]) == (local_iso(t0, zone), local_iso(t1, zone))
        assert snaps["interval_minutes"] == (60 if statspack else 30)
        offset = datetime(2026, 1, 1, tzinfo=zone).isoformat()[-6:]
        for t in timestamps(d):
            assert WITH_OFFSET.fullmatch(t) and t.endswith(offset), t
    rac = next(d for d in summary.values() if d["rac"])
    assert rac["snapshots"]["to"].endswith("+01:00") and len(rac["instances"]) == 2


def test_one_database_by_id_and_by_bare_dbid(api, summary):
    for key, d in summary.items():
        assert ok(api, url(key)) == d
        assert ok(api, url(d["dbid"])) == d


def test_snapshots_show_the_restart_and_the_missing_snapshots(api, dbs, stories, sql3, tz):
    st = stories["restart"]
    miss = st["missing_snap_ids"]
    lo, hi = miss[0] - 2, st["first_snap_after"] + 1
    body = ok(api, url(dbs["rac"], "/snapshots"), begin_snap=lo, end_snap=hi)
    assert body["columns"] == list(body["rows"][0])
    expected = sql3.execute(
        "select snap_id, instance_number, end_interval_time, startup_time, snap_flag "
        "from dba_hist_snapshot where dbid = ? and snap_id between ? and ? "
        "order by snap_id, instance_number",
        (st["dbid"], lo, hi),
    ).fetchall()
    zone = tz[st["dbid"]]
    assert [
        (r["snap_id"], r["instance"], r["end_interval_time"], r["startup_time"], r["snap_flag"]) for r in body["rows"]
    ] == [(s, i, local_iso(e, zone), local_iso(u, zone), f) for s, i, e, u, f in expected]
    assert not [r for r in body["rows"] if r["instance"] == st["instance"] and r["snap_id"] in miss]
    restart = [m for m in body["markers"]["restarts"] if m["instance"] == st["instance"]]
    assert [(m["snap_id"], m["startup_time"]) for m in restart] == [(st["first_snap_after"], st["startup_time"])]
    assert [
        (m["after_snap_id"], m["before_snap_id"]) for m in body["markers"]["missing"] if m["instance"] == st["instance"]
    ] == [(miss[0] - 1, st["first_snap_after"])]
    one = ok(api, url(dbs["rac"], "/snapshots"), begin_snap=lo, end_snap=hi, instance=1)
    assert {r["instance"] for r in one["rows"]} == {1} and len(one["rows"]) == hi - lo + 1


def test_snapshots_mark_the_manual_snapshot(api, dbs, stories):
    m = stories["manual_snapshot"]
    body = ok(api, url(dbs["single"], "/snapshots"), begin_snap=m["snap_id"] - 1, end_snap=m["snap_id"] + 1)
    assert [s["snap_id"] for s in body["markers"]["merged_snapshots"]] == [m["snap_id"]]
    row = next(r for r in body["rows"] if r["snap_id"] == m["snap_id"])
    assert row["end_interval_time"] == m["time"] and row["snap_flag"] == 1


def test_a_database_can_be_named_by_its_name_where_that_is_unique(api, dbs, stories, demo_store):
    """`/dbs/ORCL/...` is the database whose DB_NAME is ORCL (any case) when one database has that name, with the same
    answers as its id; where two targets hold it, the name and the bare DBID are refused with both ids (issue 15)."""
    from app import create_app
    from app.settings import Settings

    for d in stories["databases"]:
        by_id = ok(api, url(f"demo.{d['dbid']}", "/series"), name=AAS, max_points=0)
        for key in (d["db_name"], d["db_name"].lower(), str(d["dbid"])):
            assert ok(api, url(key, "/series"), name=AAS, max_points=0) == by_id
    two = create_app(
        Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}, "copy": {"sqlite": str(demo_store[0])}})
    ).test_client()
    orcl = next(d for d in stories["databases"] if not d["rac"])
    for key in (orcl["db_name"], str(orcl["dbid"])):
        err = assert_error(two.get(url(key, "/series"), query_string={"name": AAS}), 404, "db")
        assert f"demo.{orcl['dbid']}" in err["message"] and f"copy.{orcl['dbid']}" in err["message"]
    assert ok(two, url(f"copy.{orcl['dbid']}", "/series"), name=AAS)["db"] == f"copy.{orcl['dbid']}"
