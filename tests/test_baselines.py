"""AWR baselines (docs/awr-rules.md §33, DBA_HIST_BASELINE as the Oracle Database Reference documents it): every row
of the database's view, each with its snapshots and their times (the lowest-numbered instance's snapshot of each id,
its own offset), the moving window's size; a Statspack history has none, said at once; CSV."""

import csv
import io
from datetime import datetime, timedelta

from contract import dbid_of, ok, url


def test_each_baseline_is_its_row_with_its_snapshots_times(api, dbs, sql3, tz):
    for db in dbs.values():
        dbid = dbid_of(db)
        want = sql3.execute(
            "select baseline_id, baseline_name, baseline_type, start_snap_id, end_snap_id, moving_window_size, "
            "expiration, creation_time from dba_hist_baseline where dbid = ? order by start_snap_id, baseline_name",
            (dbid,),
        ).fetchall()
        assert {r[2] for r in want} == {"MOVING_WINDOW", "STATIC"}  # the demo keeps both kinds

        def at(snap_id, dbid=dbid):
            local = sql3.execute(
                "select end_interval_time from dba_hist_snapshot where dbid = ? and snap_id = ? "
                "order by instance_number limit 1",
                (dbid, snap_id),
            ).fetchone()[0]
            return datetime.fromisoformat(local).replace(tzinfo=tz[dbid]).isoformat()

        body = ok(api, url(db, "/baselines"))
        assert body["columns"] == list(body["rows"][0])
        got = [
            (
                r["baseline_id"],
                r["name"],
                r["type"],
                r["begin_snap"],
                r["end_snap"],
                r["moving_window_days"],
                r["expiration_days"],
                r["from"],
                r["to"],
            )
            for r in body["rows"]
        ]
        assert got == [(*w[:7], at(w[3]), at(w[4])) for w in want]
        window = next(r for r in body["rows"] if r["type"] == "MOVING_WINDOW")
        days = datetime.fromisoformat(window["to"]) - datetime.fromisoformat(window["from"])
        assert window["moving_window_days"] == 8 and days <= timedelta(days=8)  # the window ends at the newest
        created = {r[0]: r[7] for r in want}
        for r in body["rows"]:
            stamped = datetime.fromisoformat(r["created"])
            assert stamped.replace(tzinfo=None) == datetime.fromisoformat(created[r["baseline_id"]])


def test_a_baselines_range_is_a_range_of_the_api(api, dbs):
    """A baseline's snapshots make a range the other answers take: its Load Profile is the one of (begin_snap,
    end_snap]."""
    db = dbs["rac"]
    static = next(r for r in ok(api, url(db, "/baselines"))["rows"] if r["type"] == "STATIC")
    by_snaps = ok(api, url(db, "/load-profile"), begin_snap=static["begin_snap"], end_snap=static["end_snap"])
    by_times = ok(api, url(db, "/load-profile"), **{"from": static["from"], "to": static["to"]})
    assert by_snaps["rows"] == by_times["rows"] and by_snaps["rows"]


def test_statspack_keeps_no_baseline_and_csv(api, dbs, statspack_db):
    r = api.get(url(statspack_db, "/baselines"))
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "not_in_source"
    text = api.get(url(dbs["single"], "/baselines"), query_string={"format": "csv"}).get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["name"] for r in rows} == {"SYSTEM_MOVING_WINDOW", "BEFORE_ASYNC_IO_FIX"}
