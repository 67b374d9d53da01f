"""Errors: one JSON shape, the parameter named; every error class, limits, unknown databases, parameters, methods
and URLs.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

import re
from datetime import datetime, timedelta

import pytest
from conftest import assert_error
from contract import AAS, RUN, dbid_of, monitor_report_id, ok, url

from app import MAX_BODY, create_app
from app.settings import Settings

ERRORS = [  # (path under the RAC database, query, status, parameter named); {lo} {hi} are a closed window
    ("/series", {"name": AAS, "from": "yesterday"}, 400, "from"),
    ("/series", {"name": AAS, "from": "2026-13-01"}, 400, "from"),
    ("/series", {"name": AAS, "to": "2026-11-18T25:00"}, 400, "to"),
    ("/series", {"name": AAS, "from": "1979-12-31"}, 400, "from"),
    ("/series", {"name": AAS, "from": "2026-11-18T10:00:00\x00"}, 400, "from"),
    ("/series", {"name": AAS, "to": "9999-12-31T23:59:59-23:59"}, 400, "to"),
    ("/series", {"name": AAS, "from": ["2026-11-17", "2026-11-18"]}, 400, "from"),
    ("/series", {"name": AAS, "from": "2026-11-18", "to": "2026-11-17"}, 400, "from"),
    ("/load-profile", {"from": "2026-11-18T12:00", "to": "2026-11-18T11:00"}, 400, "from"),
    ("/series", {"name": AAS, "begin_snap": "{hi}", "end_snap": "{lo}"}, 400, "begin_snap"),
    ("/series", {"name": AAS, "begin_snap": "1", "end_snap": "2"}, 400, "begin_snap"),
    ("/series", {"name": AAS, "begin_snap": "x"}, 400, "begin_snap"),
    ("/series", {"name": AAS, "end_snap": "-3"}, 400, "end_snap"),
    ("/series", {"name": AAS, "instance": "9"}, 400, "instance"),
    ("/series", {"name": AAS, "instance": "any"}, 400, "instance"),
    ("/snapshots", {"instance": "9"}, 400, "instance"),
    ("/snapshots", {"instance": "each"}, 400, "instance"),
    ("/wait-classes", {"instance": "3"}, 400, "instance"),
    ("/load-profile", {"instance": "9"}, 400, "instance"),
    ("/top-events", {"instance": "0"}, 400, "instance"),
    ("/series", {"name": AAS, "max_points": "-1"}, 400, "max_points"),
    ("/series", {"name": AAS, "max_points": str(10**9)}, 400, "max_points"),
    ("/series", {"name": AAS, "max_points": "abc"}, 400, "max_points"),
    ("/series", {"name": AAS, "max_points": "1.5"}, 400, "max_points"),
    ("/series", {"name": AAS, "max_points": "1"}, 400, "max_points"),
    ("/series", {"name": AAS, "max_points": "2"}, 400, "max_points"),
    ("/tablespaces", {"max_points": "2"}, 400, "max_points"),
    ("/wait-classes", {"max_points": "50001"}, 400, "max_points"),
    ("/series", {}, 400, "name"),
    ("/series", {"name": AAS, "rate": "per_minute"}, 400, "rate"),
    ("/series", {"name": AAS, "rate": "PER_SECOND"}, 400, "rate"),
    ("/top-sql", {"order_by": "elapsed_time"}, 400, "order_by"),
    ("/top-sql", {"order_by": "elapsed desc; drop table x"}, 400, "order_by"),
    ("/top-sql", {"limit": "0"}, 400, "limit"),
    ("/top-events", {"limit": "101"}, 400, "limit"),
    ("/series", {"name": AAS, "format": "xml"}, 400, "format"),
    ("/series", {"name": AAS, "show_sql": "maybe"}, 400, "show_sql"),
    ("/catalog", {"source": "no such source!"}, 400, "source"),
    ("/catalog", {"q": "x" * 201}, 400, "q"),
    ("/compare", {"b_begin_snap": "{lo}", "b_end_snap": "{hi}"}, 400, "a_from"),
    ("/compare", {"a_begin_snap": "{lo}", "a_end_snap": "{hi}"}, 400, "b_from"),
    (
        "/compare",
        {"a_begin_snap": "{hi}", "a_end_snap": "{lo}", "b_begin_snap": "{lo}", "b_end_snap": "{hi}"},
        400,
        "a_begin_snap",
    ),
    (
        "/compare",
        {"a_begin_snap": "{lo}", "a_end_snap": "{hi}", "b_begin_snap": "1", "b_end_snap": "2"},
        400,
        "b_begin_snap",
    ),
    ("/compare", {"a_from": "2026-11-18", "a_to": "2026-11-17", "b_begin_snap": "{lo}"}, 400, "a_from"),
    ("/compare", {"a_begin_snap": "{lo}", "b_to": "tomorrow"}, 400, "b_to"),
    ("/series", {"name": "sysstat:no such statistic"}, 404, "name"),
    ("/series", {"name": [AAS, "nope:nothing"]}, 404, "name"),
    ("/sql/aaaaaaaaaaaaa", {}, 404, "sql_id"),
    ("/sql/AAAAAAAAAAAAA", {}, 400, "sql_id"),
    ("/sql/abc", {}, 400, "sql_id"),
    ("/series", {"name": AAS, "frm": "2026-11-18"}, 400, "frm"),
    # a range by time or by snapshots, never both (neither silently wins)
    ("/series", {"name": AAS, "from": "2026-11-18", "begin_snap": "{lo}"}, 400, "from"),
    ("/load-profile", {"to": "2026-11-18", "end_snap": "{hi}"}, 400, "to"),
    (
        "/compare",
        {"a_begin_snap": "{lo}", "a_end_snap": "{hi}", "b_from": "2026-11-18", "b_end_snap": "{hi}"},
        400,
        "b_from",
    ),
    # numbers are ASCII digits (Python's int() reads any script's; the OpenAPI document's patterns do not)
    ("/series", {"name": AAS, "begin_snap": "\u0663"}, 400, "begin_snap"),
    ("/series", {"name": AAS, "max_points": "\uff15\uff10"}, 400, "max_points"),
    ("/series", {"name": AAS, "instance": "\u0661"}, 400, "instance"),
    ("/top-sql", {"limit": "\u0967\u0966"}, 400, "limit"),
]


@pytest.mark.parametrize(
    "path, query, status, parameter", ERRORS, ids=[f"{p}-{'&'.join(q)}-{s}" for p, q, s, _ in ERRORS]
)
def test_error(api, dbs, window, path, query, status, parameter):
    lo, hi = window

    def fill(v):
        return v.format(lo=lo, hi=hi) if isinstance(v, str) and "{" in v else v

    err = assert_error(
        api.get(url(dbs["rac"], path), query_string={k: fill(v) for k, v in query.items()}), status, parameter
    )
    if status == 400:
        assert parameter in err["message"] or "instance" in err["message"] or "period" in err["message"]


@pytest.mark.parametrize(
    "path, query",
    [("/series", {"name": AAS}), ("/wait-classes", {}), ("/load-profile", {}), ("/top-events", {}), ("/snapshots", {})],
)
def test_an_unknown_instance_is_told_only_the_choices_its_endpoint_takes(api, dbs, doc, sql3, path, query):
    """The words offered are those the endpoint's documented pattern accepts (`each` on series only), the numbers
    the database's instances (issue 28)."""
    known = [
        i
        for (i,) in sql3.execute(
            "select distinct instance_number from dba_hist_snapshot where dbid = ? order by 1", (dbid_of(dbs["rac"]),)
        )
    ]
    (schema,) = [
        p["schema"] for p in doc["paths"][f"/api/v1/dbs/{{db}}{path}"]["get"]["parameters"] if p["name"] == "instance"
    ]
    words = [w for w in ("all", "each") if re.search(schema["pattern"], w)]
    err = assert_error(api.get(url(dbs["rac"], path), query_string={**query, "instance": "9"}), 400, "instance")
    assert err["message"] == f"instance must be {', '.join(words)} or one of {', '.join(map(str, known))}; got '9'"


@pytest.mark.parametrize("given, missing", [("a", "b"), ("b", "a")])
def test_compare_names_the_missing_period_times_first(api, dbs, window, given, missing):
    """(The AWR compare report names snapshots first: tests/test_oracle_reports.py.)"""
    lo, hi = window
    query = {f"{given}_begin_snap": lo, f"{given}_end_snap": hi}
    err = assert_error(api.get(url(dbs["rac"], "/compare"), query_string=query), 400, f"{missing}_from")
    m = missing
    assert (
        err["message"]
        == f"period {m.upper()} is required: give {m}_from and {m}_to, or {m}_begin_snap and {m}_end_snap"
    )


def test_too_many_series(api, app, dbs):
    limit = app.config["SETTINGS"].max_series
    names = [r["name"] for r in ok(api, url(dbs["rac"], "/catalog"), source="sysstat")["rows"]][: limit + 1]
    assert len(names) == limit + 1
    assert_error(api.get(url(dbs["rac"], "/series"), query_string={"name": names}), 400, "name")
    assert len(ok(api, url(dbs["rac"], "/series"), name=names[:limit])["series"]) == limit


def test_range_too_wide(api, app, dbs, summary, demo_store):
    widest = app.config["SETTINGS"].max_range_days
    to = datetime.fromisoformat(summary[dbs["rac"]]["snapshots"]["to"])
    too_wide = {"from": (to - timedelta(days=widest + 1)).isoformat(), "to": to.isoformat()}
    assert_error(api.get(url(dbs["rac"], "/series"), query_string={"name": AAS, **too_wide}), 400, "from")
    assert_error(api.get(url(dbs["rac"], "/top-sql"), query_string=too_wide), 400, "from")
    period_b = {"b_from": (to - timedelta(days=2)).isoformat(), "b_to": to.isoformat()}
    assert_error(
        api.get(
            url(dbs["rac"], "/compare"), query_string={"a_from": too_wide["from"], "a_to": too_wide["to"], **period_b}
        ),
        400,
        "a_from",
    )
    # a snapshot range wider than the setting, on an app that allows two days
    narrow = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, max_range_days=2))
    snaps = summary[dbs["rac"]]["snapshots"]
    everything = {"begin_snap": snaps["first_snap"], "end_snap": snaps["last_snap"]}
    client = narrow.test_client()
    assert_error(client.get(url(dbs["rac"], "/load-profile"), query_string=everything), 400, "begin_snap")
    assert_error(
        client.get(
            url(dbs["rac"], "/compare"),
            query_string={
                "a_begin_snap": snaps["last_snap"] - 4,
                "a_end_snap": snaps["last_snap"],
                **{f"b_{k}": v for k, v in everything.items()},
            },
        ),
        400,
        "b_begin_snap",
    )
    assert_error(client.get(url(dbs["rac"], "/series"), query_string={"name": AAS, "from": "2026-11-10"}), 400, "from")


@pytest.mark.parametrize("db", ["nope", "demo.1", "1", "other.{dbid}", "demo.{dbid}x", "demo.", "."])
def test_unknown_database_is_404(api, dbs, db):
    db = db.format(dbid=dbid_of(dbs["rac"]))
    for tail, query in (("", {}), ("/series", {"name": AAS}), ("/catalog", {}), ("/sql/aaaaaaaaaaaaa", {})):
        assert_error(api.get(url(db, tail), query_string=query), 404, "db")


def test_unknown_parameter_is_refused_on_every_endpoint(api, doc, dbs, stories, sql3):
    fill = {
        "db": dbs["rac"],
        "sql_id": stories["plan_regression"]["sql_id"],
        "slug": RUN,
        "report_id": monitor_report_id(sql3, dbs["rac"]),
        "obj": 1,
    }
    for path, item in doc["paths"].items():
        if "get" not in item:  # an upload's only operation (POST /reports): refused there before its body is read
            err = assert_error(api.post(path, query_string={"frm": "1"}), 400, "frm")
            continue
        if any(p["in"] == "query" for p in item["get"]["parameters"]):
            err = assert_error(api.get(path.format(**fill), query_string={"frm": "2026-11-18"}), 400, "frm")
            assert all(p["name"] in err["message"] for p in item["get"]["parameters"] if p["in"] == "query")
    assert ok(api, url(dbs["rac"], "/series"), name=AAS, _="1700000000000")  # jQuery's cache buster is fine


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_other_methods_are_405_in_json(api, dbs, method):
    for path in ("/api/v1/dbs", url(dbs["rac"], "/series"), url(dbs["rac"], "/compare"), "/api/v1/openapi.json"):
        r = getattr(api, method)(path, json={"name": AAS})
        assert_error(r, 405)
        assert "GET" in r.headers["Allow"] and r.mimetype == "application/json"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/nope",
        "/api/v1/dbs/{db}/nope",
        "/api/v2/dbs",
        "/api/v1/dbs/{db}/sql/",
        "/nope",
        "/api/v1/dbs/{db}/series/extra",
    ],
)
def test_unknown_url_is_404_in_json(api, dbs, path):
    assert_error(api.get(path.format(db=dbs["rac"])), 404)


def test_oversized_requests(api, dbs):
    series = url(dbs["rac"], "/series")
    assert_error(api.get(series, query_string={"name": AAS}, data=b"x" * (MAX_BODY + 1)), 413)
    assert_error(api.post(series, data=b"x" * (MAX_BODY + 1)), 413)
    assert ok(api, series, name=AAS)  # a body under the limit is ignored
    assert_error(api.get(series, query_string={"name": AAS, "from": "2" * 100_000}), 400, "from")
    assert_error(api.get(series, query_string={"name": "n" * 100_000}), 400, "name")
    assert_error(api.get(series, query_string={"name": [AAS] * 10_000}), 400, "name")
    many = {f"p{i}": "1" for i in range(5000)}
    assert_error(api.get(series, query_string={"name": AAS, **many}), 400, "p0")


@pytest.mark.parametrize("side", ["before", "after"])
def test_a_range_outside_the_history_names_the_historys_bounds(api, dbs, sql3, tz, side):
    """A time range that misses the whole history is an error that gives the history's first and last snapshot
    times (from the store), not an empty answer that reads as no activity (issue 15)."""
    for db in dbs.values():
        first, last = sql3.execute(
            "select min(end_interval_time), max(end_interval_time) from dba_hist_snapshot where dbid = ?",
            (dbid_of(db),),
        ).fetchone()
        zone = tz[dbid_of(db)]
        first, last = (datetime.fromisoformat(t).replace(tzinfo=zone) for t in (first, last))
        if side == "before":
            q, named = (
                {"from": (first - timedelta(days=3)).isoformat(), "to": (first - timedelta(days=1)).isoformat()},
                "to",
            )
        else:
            q, named = (
                {"from": (last + timedelta(hours=1)).isoformat(), "to": (last + timedelta(days=1)).isoformat()},
                "from",
            )
        for path, extra in (("/series", {"name": AAS}), ("/load-profile", {}), ("/top-sql", {}), ("/wait-classes", {})):
            err = assert_error(api.get(url(db, path), query_string={**q, **extra}), 400, named)
            assert first.isoformat() in err["message"] and last.isoformat() in err["message"], err["message"]
        # a range that overlaps the history by two hours is answered
        edge = {"from": (last - timedelta(hours=2)).isoformat(), "to": (last + timedelta(days=1)).isoformat()}
        assert ok(api, url(db, "/series"), name=AAS, **edge)["series"][0]["points"]
