"""The index and the OpenAPI document: valid OpenAPI 3, every route documented, every documented query parameter
accepted.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

import re

import pytest
from conftest import assert_error
from contract import (
    AAS,
    RANGE_KEYS,
    RUN,
    dbid_of,
    local_iso,
    monitor_report_id,
    monitor_report_query,
    ok,
    stored_awr_reports,
)

HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def test_index_links_to_the_document_and_the_databases(api):
    body = ok(api, "/api/v1/")
    assert body["version"] == "v1"
    assert ok(api, body["openapi"])["openapi"].startswith("3.")
    assert ok(api, body["databases"])["databases"]


def test_openapi_document_is_valid_openapi_3(api, doc):
    assert re.fullmatch(r"3\.\d+\.\d+", doc["openapi"])
    assert doc["info"]["title"] and doc["info"]["version"]
    schemas = doc["components"]["schemas"]

    def refs(value):
        if isinstance(value, dict):
            if "$ref" in value:
                yield value["$ref"]
            for v in value.values():
                yield from refs(v)
        elif isinstance(value, list):
            for v in value:
                yield from refs(v)

    for ref in refs(doc):
        assert ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] in schemas, ref

    def types(value):
        if isinstance(value, dict):
            t = value.get("type")
            if isinstance(t, (str, list)):
                yield from ([t] if isinstance(t, str) else t)
            for k, v in value.items():
                if k not in ("properties", "example"):
                    yield from types(v)
                else:
                    for sub in v.values() if isinstance(v, dict) else []:
                        yield from types(sub)
        elif isinstance(value, list):
            for v in value:
                yield from types(v)

    assert set(types(doc["paths"])) | set(types(schemas)) <= {
        "object",
        "array",
        "string",
        "integer",
        "number",
        "boolean",
        "null",
    }
    operation_ids = []
    for path, item in doc["paths"].items():
        assert path.startswith("/api/v1/")
        assert set(item) <= HTTP_METHODS and item
        for op in item.values():
            operation_ids.append(op["operationId"])
            assert op["summary"]
            assert {"200", "413", "503", "504"} <= set(op["responses"])
            assert "404" in op["responses"] or op is item.get("post")  # an upload has no unknown thing to name
            assert "400" in op["responses"] or not op["parameters"]
            for code, response in op["responses"].items():
                assert re.fullmatch(r"[1-5]\d\d", code) and response["description"]
                if code[0] in "45":
                    assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
            params = op["parameters"]
            assert len({(p["name"], p["in"]) for p in params}) == len(params)
            for p in params:
                assert p["in"] in ("path", "query") and p["schema"] and p["description"]
            in_path = {p["name"] for p in params if p["in"] == "path"}
            assert in_path == set(re.findall(r"{(\w+)}", path))
            assert all(p["required"] for p in params if p["in"] == "path")
    assert len(operation_ids) == len(set(operation_ids))
    # the Error schema describes the errors the API gives
    err = assert_error(api.get("/api/v1/dbs/nope"), 404, "db")
    assert set(err) <= set(schemas["Error"]["properties"]["error"]["properties"])
    assert set(schemas["Error"]["properties"]["error"]["required"]) <= set(err)


def test_a_documented_instance_pattern_matches_whole_values_only(doc):
    """A JSON Schema pattern matches anywhere in the value (ECMA-262 search): each alternative of the instance
    parameter's pattern must be anchored at both ends, or "allx" and "9x" read as valid (issue 28)."""
    patterns = {
        (path, p["schema"]["pattern"])
        for path, item in doc["paths"].items()
        for op in item.values()
        if isinstance(op, dict)
        for p in op.get("parameters", [])
        if p["name"] == "instance" and "pattern" in p.get("schema", {})
    }
    assert len(patterns) > 10
    for path, pattern in patterns:
        for bad in ("allx", "xall", "eachx", "xeach", "9x", "x9", "12345", "1,2x"):
            assert re.search(pattern, bad) is None, (path, pattern, bad)
        assert re.search(pattern, "all") and re.search(pattern, "2"), (path, pattern)


def test_every_api_route_is_documented(app, doc):
    methods = {}  # path -> methods of every rule on it (GET and POST may be separate views)
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        assert path in doc["paths"], path
        methods.setdefault(path, set()).update(m.lower() for m in rule.methods)
    for path, ms in methods.items():
        assert ms - {"head", "options"} == set(doc["paths"][path]), path


@pytest.mark.slow  # every parameter of every operation: tens of seconds
def test_every_documented_query_parameter_is_accepted(api, doc, dbs, stories, window, sql3, tz):
    """Each documented parameter, with a valid value, on its own (top activity's filters over the window): 200,
    never 'unknown parameter'."""
    rac = dbs["rac"]
    lo, hi = window
    times = dict(
        sql3.execute(
            "select snap_id, max(end_interval_time) from dba_hist_snapshot where dbid = ? "
            "and snap_id in (?, ?) group by snap_id",
            (dbid_of(rac), lo, hi),
        )
    )
    zone = tz[dbid_of(rac)]
    values = {
        "name": AAS,
        "q": "redo",
        "source": "sysstat",
        "instance": "1",
        "begin_snap": lo,
        "end_snap": hi,
        "from": local_iso(times[lo], zone),
        "to": local_iso(times[hi], zone),
        "max_points": 10,
        "limit": 5,
        "con_dbid": dbid_of(rac),
        "snap_id": hi,
        "minutes": 5,
    }  # a non-CDB's one container is the database itself
    values["runs"] = RUN
    values.update(
        {
            "wait_class": "CPU",
            "event": "CPU",
            "sql_id": stories["plan_regression"]["sql_id"],  # /activity
            "top_level_sql_id": stories["plan_regression"]["sql_id"],
            "sql_plan_hash_value": 1,
            "module": "billing",
            "action": "a",
            "program": "JDBC Thin Client",
            "service": 1,
            "user": 107,
            "session": "1:1802,1",
            "machine": "app-node1",
            "blocking_session": "1:1801,1",
            "current_obj": 1,
        }
    )
    reg = stories["plan_regression"]  # /sql/{sql_id}/plans and /plans/diff
    values.update({"plan_hash_value": reg["good_plan"], "a": reg["good_plan"], "b": reg["bad_plan"]})
    values["band_baseline"] = "SYSTEM_MOVING_WINDOW"  # the moving window every AWR database keeps (§33)
    obj = sql3.execute(
        'select "OBJ#" from dba_hist_seg_stat where dbid = ? and snap_id > ? and snap_id <= ? '
        'and "OBJ#" = "DATAOBJ#" limit 1',
        (dbid_of(rac), lo, hi),
    ).fetchone()[0]
    values["dataobj"] = obj
    fill = {
        "db": rac,
        "sql_id": stories["plan_regression"]["sql_id"],
        "slug": RUN,
        "report_id": monitor_report_id(sql3, rac),
        "obj": obj,
    }
    by_path = {
        "/api/v1/dbs/{db}/event-histogram": {"event": "log file sync"},  # a wait event, not /activity's CPU
        "/api/v1/dbs/{db}/activity/groups": {"group_by": "module,action"},  # ashtop's dimensions, comma separated
        "/api/v1/dbs/{db}/sql-monitor/{report_id}": monitor_report_query(sql3, rac),  # the report's own snapshot
    }
    stored = stored_awr_reports(sql3, rac)  # the demo keeps Oracle's AWR reports of a few ranges (§27)
    base = {
        "/api/v1/dbs/{db}/series": {"name": AAS, "band": "1"},  # band_baseline names the band's baseline
        "/api/v1/dbs/{db}/sql/{sql_id}/plans/xplan": {"plan_hash_value": reg["good_plan"]},
        "/api/v1/benchmarks/compare": {"runs": RUN},
        "/api/v1/dbs/{db}/sql/{sql_id}/plans/diff": {"a": reg["good_plan"], "b": reg["bad_plan"]},
        "/api/v1/dbs/{db}/compare": {"a_begin_snap": lo, "a_end_snap": hi, "b_begin_snap": lo, "b_end_snap": hi},
        "/api/v1/dbs/{db}/awr-report": {k: v for k, v in stored["global"].items() if k != "instance"},
        "/api/v1/dbs/{db}/awr-report/compare": {k: v for k, v in stored["global_diff"].items() if k != "instance"},
        "/api/v1/dbs/{db}/event-histogram": {"event": "log file sync"},
        "/api/v1/dbs/{db}/sql-monitor/{report_id}": monitor_report_query(sql3, rac),
    }
    checked = 0
    for path, item in doc["paths"].items():
        for p in item.get("get", {}).get("parameters", []):  # an upload (POST /reports) takes no query
            if p["in"] != "query":
                continue
            schema = p["schema"].get("items", p["schema"])
            name = re.sub(r"^[ab]_", "", p["name"])
            value = by_path.get(path, {}).get(
                name, values.get(name, schema.get("enum", [None])[-1] or ("1" if schema["type"] == "boolean" else None))
            )
            assert value is not None, f"no example value for {p['name']}"
            query = {**base.get(path, {}), p["name"]: value}
            if path.endswith(("/activity", "/activity/top", "/activity/groups")) and name not in RANGE_KEYS:
                query.update(begin_snap=lo, end_snap=hi)  # top activity's filters over the window, not a week
            if name in ("ash", "minutes"):  # the live buffer's last minutes (docs/awr-rules.md §30): no snapshots
                query = {"ash": "live", **({"minutes": 5} if name == "minutes" else {})}
            if name in ("from", "to"):  # a period by time, not by snapshots too (that is a 400 naming both)
                side = p["name"][: -len(name)]
                query = {k: v for k, v in query.items() if not (k.startswith(side) and k.endswith("_snap"))}
            r = api.get(path.format(**fill), query_string=query)
            if (
                r.status_code in (400, 404)
                and path.startswith("/api/v1/dbs/{db}/awr-report")
                and name in ("from", "to", "begin_snap", "end_snap", "instance")
            ):
                # Oracle's AWR report of a range the demo keeps no report of (404), or that mixes the window's
                # snapshots with the stored range's (400): the parameter itself is accepted
                assert not r.get_json()["error"]["message"].startswith("unknown parameter"), r.get_json()
                continue
            assert r.status_code == 200, (path, query, r.get_data(as_text=True)[:300])
            checked += 1
    assert checked >= 60
