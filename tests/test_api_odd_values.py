"""No input gives a 500: a sweep of odd values through every parameter of every endpoint.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

from urllib.parse import quote

import pytest
from conftest import assert_error
from contract import AAS, RANGE_KEYS, RUN, monitor_report_id

from app.demo.detail import HOSTILE_OBJ

pytestmark = pytest.mark.slow


ODD = [
    "",
    " ",
    "0",
    "-1",
    "99999999999999999999",
    "1e3",
    "NaN",
    "a" * 201,
    "é漢字🙂",
    "\x00",
    "a\x00b",
    "\t",
    "2026-11-18T10:00:00\x00",
    "' OR 1=1 --",
    "1; DROP TABLE x",
    "%00",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "=HYPERLINK(\"http://x\")",
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00+14:00",
    "2026-02-30",
    "each",
    "true",
]
SWEPT = [
    "/api/v1/dbs",
    "/api/v1/dbs/{db}",
    "/api/v1/dbs/{db}/snapshots",
    "/api/v1/dbs/{db}/catalog",
    "/api/v1/dbs/{db}/series",
    "/api/v1/dbs/{db}/wait-classes",
    "/api/v1/dbs/{db}/load-profile",
    "/api/v1/dbs/{db}/top-events",
    "/api/v1/dbs/{db}/top-sql",
    "/api/v1/dbs/{db}/sql/{sql_id}",
    "/api/v1/dbs/{db}/tablespaces",
    "/api/v1/dbs/{db}/compare",
    "/api/v1/dbs/{db}/activity",
    "/api/v1/dbs/{db}/activity/top",
    "/api/v1/dbs/{db}/activity/chains",
    "/api/v1/dbs/{db}/activity/groups",
    "/api/v1/dbs/{db}/event-histogram",
    "/api/v1/dbs/{db}/segments",
    "/api/v1/dbs/{db}/segments/{obj}",
    "/api/v1/dbs/{db}/report",
    "/api/v1/dbs/{db}/range",
    "/api/v1/dbs/{db}/baselines",
    "/api/v1/dbs/{db}/awr-report",
    "/api/v1/dbs/{db}/awr-report/compare",
    "/api/v1/dbs/{db}/awr-report/stored",
    "/api/v1/dbs/{db}/sql-monitor/{report_id}",
    "/api/v1/dbs/{db}/sql/{sql_id}/monitor",
    "/api/v1/dbs/{db}/changes",
    "/api/v1/dbs/{db}/parameters",
    "/api/v1/dbs/{db}/parameters/changes",
    "/api/v1/dbs/{db}/parameters/non-default",
    "/api/v1/dbs/{db}/sql/{sql_id}/plans",
    "/api/v1/dbs/{db}/sql/{sql_id}/plans/diff",
    "/api/v1/dbs/{db}/sql/{sql_id}/plans/xplan",
    "/api/v1/dbs/{db}/sql/{sql_id}/binds",
    "/api/v1/benchmarks",
    "/api/v1/benchmarks/{slug}",
    "/api/v1/benchmarks/compare",
]


def test_the_sweep_covers_every_endpoint_with_parameters(doc):
    assert set(SWEPT) == {p for p, item in doc["paths"].items() if "get" in item and item["get"]["parameters"]}


@pytest.mark.parametrize("path", SWEPT)
def test_no_input_gives_a_500(api, doc, dbs, stories, window, sql3, path):
    lo, hi = window
    params = doc["paths"][path]["get"]["parameters"]
    known = {p["name"] for p in params}
    reg = stories["plan_regression"]
    fill = {
        "db": dbs["rac"],
        "sql_id": reg["sql_id"],
        "slug": RUN,
        "obj": HOSTILE_OBJ,
        "report_id": monitor_report_id(sql3, dbs["rac"]),
    }
    base = {"begin_snap": lo, "end_snap": hi} if "begin_snap" in known else {}
    if path.endswith("/event-histogram"):
        base["event"] = "log file sync"
    if path.endswith("/series"):
        base["name"] = AAS
    if path.endswith("/compare"):
        base = {"a_begin_snap": lo, "a_end_snap": hi, "b_begin_snap": lo - 9, "b_end_snap": lo - 1}
    if path.endswith("/plans/diff"):
        base.update(a=reg["good_plan"], b=reg["bad_plan"])
    if path.endswith("/plans/xplan"):
        base["plan_hash_value"] = reg["good_plan"]
    if path.endswith("/benchmarks/compare"):
        base = {"runs": RUN}
    for p in params:
        group = p["name"][:2] if p["name"][:2] in ("a_", "b_") else ""
        for value in ODD:
            if p["in"] == "path":
                target, query = path.format(**{**fill, p["name"]: quote(value, safe="")}), base
            else:
                target = path.format(**fill)
                ranged = p["name"].removeprefix(group) in RANGE_KEYS
                query = {
                    k: v
                    for k, v in base.items()
                    if not (ranged and k.startswith(group) and k.removeprefix(group) in RANGE_KEYS)
                }
                query[p["name"]] = value
            r = api.get(target, query_string=query)
            assert r.status_code < 500, (target, query, r.get_data(as_text=True)[:300])
            if r.status_code >= 400:
                err = assert_error(r, r.status_code)
                assert err.get("parameter") in known | {None}, (target, query, err)
