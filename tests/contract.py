"""What the API contract tests (tests/test_api_*.py) share: names of the demo's series and runs, request helpers, and
the time stamps of an answer. Their fixtures (api, sql3, doc, summary, tz, window) are in conftest.py.

Expectations come from the demo's stories and straight from its SQLite file, never from the code under test.
"""

import re
from datetime import datetime

AAS = "derived:aas"
REDO = "sysstat:redo size"
WITH_OFFSET = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)")
LOOKS_LIKE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
RUN = "httpd-freebsd-vs-linux"  # a public benchmark run of the demo store
RANGE_KEYS = ("from", "to", "begin_snap", "end_snap")  # the parameters of a range (a_ and b_ prefix them in compare)


def url(db, tail=""):
    return f"/api/v1/dbs/{db}{tail}"


def ok(api, path, **query):
    r = api.get(path, query_string=query)
    assert r.status_code == 200, (path, query, r.get_data(as_text=True)[:500])
    return r.get_json()


def dbid_of(db):
    return int(db.rsplit(".", 1)[1])


def timestamps(value):
    """Every string in an answer that looks like a date-time."""
    if isinstance(value, dict):
        for v in value.values():
            yield from timestamps(v)
    elif isinstance(value, list):
        for v in value:
            yield from timestamps(v)
    elif isinstance(value, str) and len(value) < 40 and LOOKS_LIKE_TIME.match(value):
        yield value


def local_iso(text, zone):
    return datetime.fromisoformat(text).replace(tzinfo=zone).isoformat(timespec="seconds")


def stored_awr_reports(sql3, db):
    """The demo's stored AWR reports of a database (Oracle's own reports, docs/awr-rules.md §27): {kind: the first
    one's query}, as /awr-report (report, global) and /awr-report/compare (diff, global_diff) take it."""
    out = {}
    for kind, inst, lo, hi, lo2, hi2 in sql3.execute(
        "select kind, instances, begin_snap, end_snap, begin_snap2, end_snap2 from awrlens_awr_reports where "
        "dbid = ? and type = 'html' order by begin_snap, kind",
        (dbid_of(db),),
    ):
        query = (
            {"a_begin_snap": lo, "a_end_snap": hi, "b_begin_snap": lo2, "b_end_snap": hi2}
            if kind.endswith("diff")
            else {"begin_snap": lo, "end_snap": hi}
        )
        out.setdefault(kind, {**query, "instance": "all" if "," in inst else inst})
    return out


def monitor_report_id(sql3, db):
    """A SQL monitor report the demo keeps of a database."""
    return sql3.execute("select min(report_id) from dba_hist_reports where dbid = ?", (dbid_of(db),)).fetchone()[0]


def monitor_report_query(sql3, db):
    """The query of monitor_report_id's report: its SNAP_ID, as the monitored executions list it."""
    snap = sql3.execute(
        "select snap_id from dba_hist_reports where dbid = ? and report_id = ?",
        (dbid_of(db), monitor_report_id(sql3, db)),
    ).fetchone()[0]
    return {"snap_id": snap}


def lock_window(lock: dict, start: str, end: str) -> dict:
    """{"from", "to"} of a window of the demo's blocking afternoon (the row_lock story): its day, from `start` to `end`
    (HH:MM), in the story's offset."""
    return {"from": lock["from"][:11] + start + lock["from"][16:], "to": lock["to"][:11] + end + lock["to"][16:]}
