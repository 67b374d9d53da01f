"""The API contract end to end on the demo store, through the Flask test client: every endpoint, CSV, show_sql,
cache validators, every error class, and a sweep of odd values through every parameter of every endpoint.

Expectations come from the demo's stories and straight from its SQLite file, never from the code under test.
"""
import csv
import io
import re
import sqlite3
from datetime import datetime, timedelta, timezone
from math import fsum
from urllib.parse import quote

import pytest
from conftest import assert_error

from app import MAX_BODY, create_app
from app.api.respond import to_csv
from app.history.load_profile import LOAD_PROFILE
from app.settings import Settings
from app.store.queries import TOP_SQL_ORDER

AAS = "derived:aas"
REDO = "sysstat:redo size"
KINDS = {"cumulative", "ratio", "reading", "rate", "detail"}
WITH_OFFSET = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)")
LOOKS_LIKE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
RUN = "httpd-freebsd-vs-linux"  # a public benchmark run of the demo store


# -- helpers ---------------------------------------------------------------------------------------------------

def url(db, tail=""):
    return f"/api/v1/dbs/{db}{tail}"


def ok(api, path, **query):
    r = api.get(path, query_string=query)
    assert r.status_code == 200, (path, query, r.get_data(as_text=True)[:500])
    return r.get_json()


def csv_of(resp):
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    assert resp.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(resp.get_data(as_text=True))))


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


def points_by_time(series):
    return {t: v for t, v in series["points"]}


# -- fixtures --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def api(app):
    return app.test_client()


@pytest.fixture(scope="module")
def sql3(demo_store):
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    yield con
    con.close()


@pytest.fixture(scope="module")
def doc(api):
    return ok(api, "/api/v1/openapi.json")


@pytest.fixture(scope="module")
def summary(api):
    return {d["id"]: d for d in ok(api, "/api/v1/dbs")["databases"]}


@pytest.fixture(scope="module")
def tz(stories):
    """dbid -> the database's time zone, from the demo's own description."""
    return {d["dbid"]: timezone(timedelta(seconds=d["time_zone_seconds"])) for d in stories["databases"]}


@pytest.fixture(scope="module")
def window(stories):
    """A closed RAC range with no restart, missing or manual snapshot in it: the start of the plan regression."""
    lo = stories["plan_regression"]["begin_snap"]
    return lo, lo + 8


def local_iso(text, zone):
    return datetime.fromisoformat(text).replace(tzinfo=zone).isoformat(timespec="seconds")


# -- index and OpenAPI -----------------------------------------------------------------------------------------

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
            if isinstance(t, str) or isinstance(t, list):
                yield from ([t] if isinstance(t, str) else t)
            for k, v in value.items():
                if k not in ("properties", "example"):
                    yield from types(v)
                else:
                    for sub in (v.values() if isinstance(v, dict) else []):
                        yield from types(sub)
        elif isinstance(value, list):
            for v in value:
                yield from types(v)

    assert set(types(doc["paths"])) | set(types(schemas)) <= {"object", "array", "string", "integer", "number",
                                                               "boolean", "null"}
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


def test_every_documented_query_parameter_is_accepted(api, doc, dbs, stories, window, sql3, tz):
    """Each documented parameter, with a valid value, on its own: 200, never 'unknown parameter'."""
    rac = dbs["rac"]
    lo, hi = window
    times = dict(sql3.execute("select snap_id, max(end_interval_time) from dba_hist_snapshot where dbid = ? "
                              "and snap_id in (?, ?) group by snap_id", (dbid_of(rac), lo, hi)))
    zone = tz[dbid_of(rac)]
    values = {"name": AAS, "q": "redo", "source": "sysstat", "instance": "1", "begin_snap": lo, "end_snap": hi,
              "from": local_iso(times[lo], zone), "to": local_iso(times[hi], zone), "max_points": 10, "limit": 5}
    values["runs"] = RUN
    fill = {"db": rac, "sql_id": stories["plan_regression"]["sql_id"], "slug": RUN}
    base = {"/api/v1/dbs/{db}/series": {"name": AAS}, "/api/v1/benchmarks/compare": {"runs": RUN},
            "/api/v1/dbs/{db}/compare": {"a_begin_snap": lo, "a_end_snap": hi, "b_begin_snap": lo, "b_end_snap": hi}}
    checked = 0
    for path, item in doc["paths"].items():
        for p in item["get"]["parameters"]:
            if p["in"] != "query":
                continue
            schema = p["schema"].get("items", p["schema"])
            name = re.sub(r"^[ab]_", "", p["name"])
            value = values.get(name, schema.get("enum", [None])[-1] or ("1" if schema["type"] == "boolean" else None))
            assert value is not None, f"no example value for {p['name']}"
            query = {**base.get(path, {}), p["name"]: value}
            r = api.get(path.format(**fill), query_string=query)
            assert r.status_code == 200, (path, query, r.get_data(as_text=True)[:300])
            checked += 1
    assert checked >= 60


# -- databases and snapshots -----------------------------------------------------------------------------------

def test_dbs_lists_both_databases_with_instances_version_host_and_snapshot_range(api, summary, stories, sql3, tz):
    assert len(summary) == len(stories["databases"]) >= 2
    for story in stories["databases"]:
        dbid, zone = story["dbid"], tz[story["dbid"]]
        d = next(d for d in summary.values() if d["dbid"] == dbid)
        assert d["db_name"] == story["db_name"] and d["rac"] is story["rac"]
        assert d["id"].endswith(f".{dbid}") and d["version"] and d["platform"]
        hosts = dict(sql3.execute("select instance_number, host_name from dba_hist_database_instance "
                                  "where dbid = ?", (dbid,)))
        assert [i["instance_number"] for i in d["instances"]] == story["instances"]
        assert {i["instance_number"]: i["host_name"] for i in d["instances"]} == hosts
        assert all(i["instance_name"] and i["startups"] for i in d["instances"])
        first, last, count, t0, t1 = sql3.execute(
            "select min(snap_id), max(snap_id), count(distinct snap_id), min(end_interval_time), "
            "max(end_interval_time) from dba_hist_snapshot where dbid = ?", (dbid,)).fetchone()
        snaps = d["snapshots"]
        assert (snaps["first_snap"], snaps["last_snap"], snaps["count"]) == (first, last, count)
        assert (snaps["from"], snaps["to"]) == (local_iso(t0, zone), local_iso(t1, zone))
        assert snaps["interval_minutes"] == 30
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
    expected = sql3.execute("select snap_id, instance_number, end_interval_time, startup_time, snap_flag "
                            "from dba_hist_snapshot where dbid = ? and snap_id between ? and ? "
                            "order by snap_id, instance_number", (st["dbid"], lo, hi)).fetchall()
    zone = tz[st["dbid"]]
    assert [(r["snap_id"], r["instance"], r["end_interval_time"], r["startup_time"], r["snap_flag"])
            for r in body["rows"]] == [(s, i, local_iso(e, zone), local_iso(u, zone), f) for s, i, e, u, f in expected]
    assert not [r for r in body["rows"] if r["instance"] == st["instance"] and r["snap_id"] in miss]
    restart = [m for m in body["markers"]["restarts"] if m["instance"] == st["instance"]]
    assert [(m["snap_id"], m["startup_time"]) for m in restart] == [(st["first_snap_after"], st["startup_time"])]
    assert [(m["after_snap_id"], m["before_snap_id"]) for m in body["markers"]["missing"]
            if m["instance"] == st["instance"]] == [(miss[0] - 1, st["first_snap_after"])]
    one = ok(api, url(dbs["rac"], "/snapshots"), begin_snap=lo, end_snap=hi, instance=1)
    assert {r["instance"] for r in one["rows"]} == {1} and len(one["rows"]) == hi - lo + 1


def test_snapshots_mark_the_manual_snapshot(api, dbs, stories):
    m = stories["manual_snapshot"]
    body = ok(api, url(dbs["single"], "/snapshots"), begin_snap=m["snap_id"] - 1, end_snap=m["snap_id"] + 1)
    assert [s["snap_id"] for s in body["markers"]["merged_snapshots"]] == [m["snap_id"]]
    row = next(r for r in body["rows"] if r["snap_id"] == m["snap_id"])
    assert row["end_interval_time"] == m["time"] and row["snap_flag"] == 1


# -- catalog ---------------------------------------------------------------------------------------------------

def test_catalog_lists_hundreds_of_series_with_units_and_kinds(api, dbs, sql3):
    for db in dbs.values():
        body = ok(api, url(db, "/catalog"))
        rows = body["rows"]
        assert body["count"] == len(rows) >= 300
        assert body["columns"] == ["name", "label", "source", "unit", "kind"]
        names = {r["name"] for r in rows}
        assert len(names) == len(rows)
        assert all(r["unit"] and r["label"] and r["kind"] in KINDS for r in rows)
        assert {r["kind"] for r in rows} == KINDS
        assert all(r["rates"] == ["per_second", "per_txn", "raw"] for r in rows if r["kind"] == "cumulative")
        dbid = dbid_of(db)
        for view, source in (("sysstat", "sysstat"), ("sys_time_model", "sys_time_model"), ("osstat", "osstat")):
            stats = {n for (n,) in sql3.execute(f"select distinct stat_name from dba_hist_{view} where dbid = ?",
                                                (dbid,))}
            assert {f"{source}:{n}" for n in stats} <= names
        detail = {n for (n,) in sql3.execute("select distinct metric_name from dba_hist_sysmetric_history "
                                             "where dbid = ?", (dbid,))}
        assert detail and {f"sysmetric_history:{n}" for n in detail} <= names
        assert all(r["kind"] == "detail" for r in rows if r["source"] == "sysmetric_history")
        assert {"derived:Response Time Per Sec", "derived:User Rollback Undo Records Applied Per Sec"} <= names
        assert {AAS, "derived:db_cpu", "derived:host_cpu_pct", "derived:tps"} <= names
        events = {n for (n,) in sql3.execute("select distinct event_name from dba_hist_system_event "
                                             "where dbid = ? and wait_class != 'Idle'", (dbid,))}
        assert {f"system_event:{e}:avg_ms" for e in events} <= names
        assert not [n for n in names if n.startswith("wait_class:Idle")]


def test_catalog_filters_by_text_and_source(api, dbs):
    db = dbs["rac"]
    per_sec = ok(api, url(db, "/catalog"), q="PER SEC")["rows"]
    assert per_sec and all("per sec" in r["name"].lower() for r in per_sec)
    derived = ok(api, url(db, "/catalog"), source="derived")["rows"]
    assert derived and {r["source"] for r in derived} == {"derived"}
    assert ok(api, url(db, "/catalog"), q="no such series at all")["count"] == 0


# -- series ----------------------------------------------------------------------------------------------------

def _counter_from_sqlite(sql3, dbid, stats, lo, hi, zone):
    """{instance: {time: (delta, seconds)}} of the summed statistics over the intervals ending in lo..hi,
    straight from the file (consecutive snapshots of one startup)."""
    marks = ",".join("?" * len(stats))
    rows = sql3.execute(
        f"select s.instance_number, s.snap_id, s.end_interval_time, s.startup_time, sum(t.value) "
        f"from dba_hist_snapshot s join dba_hist_sysstat t on t.dbid = s.dbid and "
        f"t.instance_number = s.instance_number and t.snap_id = s.snap_id "
        f"where s.dbid = ? and t.stat_name in ({marks}) and s.snap_id between ? and ? "
        f"group by 1, 2, 3, 4 order by 1, 2", (dbid, *stats, lo - 1, hi)).fetchall()
    out: dict = {}
    for a, b in zip(rows, rows[1:]):
        if a[0] == b[0] and a[3] == b[3] and b[1] >= lo:
            seconds = (datetime.fromisoformat(b[2]) - datetime.fromisoformat(a[2])).total_seconds()
            out.setdefault(b[0], {})[local_iso(b[2], zone)] = (b[4] - a[4], seconds)
    return out


def test_series_rates_match_the_sqlite_file(api, dbs, window, sql3, tz):
    db, (lo, hi) = dbs["rac"], window
    dbid = dbid_of(db)
    redo = _counter_from_sqlite(sql3, dbid, ("redo size",), lo, hi, tz[dbid])
    txn = _counter_from_sqlite(sql3, dbid, ("user commits", "user rollbacks"), lo, hi, tz[dbid])
    assert set(redo) == {1, 2} and all(len(p) == hi - lo + 1 for p in redo.values())

    def fetch(**q):
        return ok(api, url(db, "/series"), name=REDO, begin_snap=lo, end_snap=hi, max_points=0, **q)["series"]

    approx = {"rel": 1e-6, "abs": 1e-3}
    each = fetch(instance="each")
    assert [s["instance"] for s in each] == [1, 2] and each[0]["unit"] == "bytes/s"
    for s in each:
        assert points_by_time(s) == pytest.approx({t: d / sec for t, (d, sec) in redo[s["instance"]].items()},
                                                  **approx)
        assert s["points_total"] == len(s["points"]) == hi - lo + 1
    (combined,) = fetch(instance="all")
    assert combined["instance"] == "all"
    assert points_by_time(combined) == pytest.approx(
        {t: sum(redo[i][t][0] / redo[i][t][1] for i in redo) for t in redo[1]}, **approx)
    (second,) = fetch(instance="2")
    assert second["points"] == each[1]["points"]
    (raw,) = fetch(rate="raw")
    assert raw["unit"] == "bytes" and raw["rate"] == "raw"
    assert points_by_time(raw) == pytest.approx({t: sum(redo[i][t][0] for i in redo) for t in redo[1]}, **approx)
    (per_txn,) = fetch(rate="per_txn")
    assert per_txn["unit"] == "bytes/txn"
    assert points_by_time(per_txn) == pytest.approx(
        {t: sum(redo[i][t][0] for i in redo) / sum(txn[i][t][0] for i in txn) for t in redo[1]}, **approx)
    for s in fetch(rate="per_txn", instance="each"):
        i = s["instance"]
        assert points_by_time(s) == pytest.approx({t: redo[i][t][0] / txn[i][t][0] for t in redo[i]}, **approx)


def test_derived_per_second_metric_is_per_txn_times_transactions_per_second(api, dbs, window, sql3, tz):
    db, (lo, hi) = dbs["rac"], window
    dbid = dbid_of(db)
    metric = {}
    for inst, end, name, avg in sql3.execute(
            "select m.instance_number, s.end_interval_time, m.metric_name, m.average "
            "from dba_hist_sysmetric_summary m join dba_hist_snapshot s on s.dbid = m.dbid and "
            "s.instance_number = m.instance_number and s.snap_id = m.snap_id where m.dbid = ? and m.group_id = 2 "
            "and m.metric_name in ('Response Time Per Txn', 'User Transaction Per Sec') "
            "and m.snap_id between ? and ?", (dbid, lo, hi)):
        metric.setdefault(inst, {}).setdefault(local_iso(end, tz[dbid]), {})[name] = avg
    body = ok(api, url(db, "/series"), name="derived:Response Time Per Sec", instance="each", begin_snap=lo,
              end_snap=hi, max_points=0)
    for s in body["series"]:
        expected = {t: m["Response Time Per Txn"] * m["User Transaction Per Sec"]
                    for t, m in metric[s["instance"]].items()}
        assert points_by_time(s) == pytest.approx(expected, rel=1e-6, abs=1e-3)
        assert s["unit"] and s["kind"] == "rate"
    (combined,) = ok(api, url(db, "/series"), name="derived:Response Time Per Sec", begin_snap=lo, end_snap=hi,
                     max_points=0)["series"]
    a, b = (points_by_time(s) for s in body["series"])
    assert points_by_time(combined) == pytest.approx({t: a[t] + b[t] for t in a}, rel=1e-6, abs=1e-3)


def test_series_with_several_names_keeps_their_order_and_drops_repeats(api, dbs, window):
    names = ["derived:tps", REDO, "sysmetric:Host CPU Utilization (%)", "system_event:log file sync:avg_ms", AAS]
    lo, hi = window
    body = ok(api, url(dbs["rac"], "/series"), name=names + [REDO], begin_snap=lo, end_snap=hi)
    assert [s["name"] for s in body["series"]] == names
    assert [s["unit"] for s in body["series"]] == ["txn/s", "bytes/s", "% Busy/(Idle+Busy)", "ms", "sessions"]
    assert all(s["points"] and s["unit"] for s in body["series"])
    assert body["range"]["begin_snap"] == lo and body["range"]["end_snap"] == hi


def test_max_points_downsamples_and_keeps_points_total_and_peaks(api, dbs):
    db = dbs["single"]
    (full,) = ok(api, url(db, "/series"), name=AAS, max_points=0)["series"]
    assert full["points_total"] == len(full["points"]) > 200
    for n in (3, 50, 200):
        (small,) = ok(api, url(db, "/series"), name=AAS, max_points=n)["series"]
        assert len(small["points"]) == n and small["points_total"] == full["points_total"]
        assert small["points"][0] == full["points"][0] and small["points"][-1] == full["points"][-1]
        assert set(map(tuple, small["points"])) <= set(map(tuple, full["points"]))
    (fifty,) = ok(api, url(db, "/series"), name=AAS, max_points=50)["series"]
    assert max(v for _, v in fifty["points"]) == max(v for _, v in full["points"])
    (default,) = ok(api, url(db, "/series"), name=AAS)["series"]
    assert default["points"] == full["points"]  # fewer points than the default max_points


def test_range_by_time_equals_range_by_snapshots(api, dbs, window, sql3, tz):
    db, (lo, hi) = dbs["rac"], window
    zone = tz[dbid_of(db)]
    t_lo, t_hi = (local_iso(sql3.execute("select max(end_interval_time) from dba_hist_snapshot where dbid = ? "
                                         "and snap_id = ?", (dbid_of(db), s)).fetchone()[0], zone) for s in (lo, hi))
    by_snap = ok(api, url(db, "/series"), name=[REDO, AAS], begin_snap=lo, end_snap=hi)
    by_time = ok(api, url(db, "/series"), name=[REDO, AAS], **{"from": t_lo, "to": t_hi})
    assert by_time["range"] == by_snap["range"] == {"begin_snap": lo, "end_snap": hi, "from": t_lo, "to": t_hi}
    assert by_time["series"] == by_snap["series"]
    # the same instants in UTC, or without an offset (the database's time zone), give the same range
    utc = {k: datetime.fromisoformat(v).astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
           for k, v in (("from", t_lo), ("to", t_hi))}
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
    rows = sql3.execute("select instance_number, end_time, value from dba_hist_sysmetric_history where dbid = ? "
                        "and metric_name = ? and snap_id between ? and ?", (dbid_of(db), name, lo, hi)).fetchall()
    per_minute: dict = {}
    for inst, end, value in rows:
        per_minute.setdefault(end, {})[inst] = value
    for s in body["series"] + [combined]:
        assert s["kind"] == "detail" and s["unit"] == "% Busy/(Idle+Busy)"
        times = [datetime.fromisoformat(t) for t, _ in s["points"]]
        assert all((b - a).total_seconds() == 60 for a, b in zip(times, times[1:]))
        hours = (times[-1] - times[0]).total_seconds() / 3600
        assert 6 * 60 <= s["points_total"] == len(times) <= 7 * 60
        assert abs(len(times) - 60 * hours) <= 1
    assert combined["points_total"] == len(per_minute)
    first = min(per_minute)
    assert combined["points"][0][1] == pytest.approx(fsum(per_minute[first].values()) / 2, abs=1e-3)
    assert len(summary["points"]) == hi - lo + 1  # two per hour, against sixty


def test_instance_each_and_numbers_on_the_single_instance_database(api, dbs):
    db = dbs["single"]
    each = ok(api, url(db, "/series"), name=AAS, instance="each")["series"]
    one = ok(api, url(db, "/series"), name=AAS, instance="1")["series"]
    combined = ok(api, url(db, "/series"), name=AAS)["series"]
    assert [s["instance"] for s in each] == [1] and each[0]["points"] == one[0]["points"] == combined[0]["points"]
    assert_error(api.get(url(db, "/series"), query_string={"name": AAS, "instance": "2"}), 400, "instance")


# -- wait classes, Load Profile, top events, top SQL, one SQL, tablespaces, compare -------------------------------

def test_wait_classes_have_db_cpu_every_non_idle_class_and_the_cpu_count(api, dbs, stories, window, sql3):
    cpus = {d["dbid"]: d["cpus"] * len(d["instances"]) for d in stories["databases"]}
    for db in dbs.values():
        dbid = dbid_of(db)
        classes = {c for (c,) in sql3.execute("select distinct wait_class from dba_hist_system_event "
                                              "where dbid = ? and wait_class != 'Idle'", (dbid,))}
        body = ok(api, url(db, "/wait-classes"))
        names = [s["name"] for s in body["series"]]
        assert names[0] == "derived:db_cpu"
        assert set(names[1:]) == {f"wait_class:{c}" for c in classes}
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
    assert body["columns"] == ["metric", "per_second", "per_transaction", "total"]
    rows = {r["metric"]: r for r in body["rows"]}
    assert list(rows) == [label for label, *_ in LOAD_PROFILE]

    def delta(*stats):
        marks = ",".join("?" * len(stats))
        at = dict(sql3.execute(f"select snap_id, sum(value) from dba_hist_sysstat where dbid = ? and "
                               f"stat_name in ({marks}) and snap_id in (?, ?) group by snap_id",
                               (dbid_of(db), *stats, lo, hi)))
        return at[hi] - at[lo]

    t0, t1 = (datetime.fromisoformat(sql3.execute("select end_interval_time from dba_hist_snapshot where dbid = ? "
                                                  "and snap_id = ?", (dbid_of(db), s)).fetchone()[0])
              for s in (lo, hi))
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
    # RAC: the same identity with instances summed
    rac = ok(api, url(dbs["rac"], "/load-profile"))
    txn_total = next(r["total"] for r in rac["rows"] if r["metric"] == "Transactions")
    for r in rac["rows"]:
        assert r["per_transaction"] == pytest.approx(r["total"] / txn_total, rel=1e-3, abs=1e-4), r


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
        assert cpu["pct_db_time"] == pytest.approx(100 * lp["DB CPU(s)"]["total"] / lp["DB Time(s)"]["total"],
                                                   rel=1e-3)
        assert len(ok(api, url(db, "/top-events"), limit=3, **q)["rows"]) == 3
    # one event straight from the file: foreground time waited over (lo, hi], both instances
    micro = dict(sql3.execute("select snap_id, sum(time_waited_micro_fg) from dba_hist_system_event where dbid = ? "
                              "and event_name = 'log file sync' and snap_id in (?, ?) group by snap_id",
                              (dbid_of(dbs["rac"]), lo, hi)))
    rows = ok(api, url(dbs["rac"], "/top-events"), limit=100, begin_snap=lo, end_snap=hi)["rows"]
    sync = next(r for r in rows if r["event"] == "log file sync")
    assert sync["time_s"] == pytest.approx((micro[hi] - micro[lo]) / 1e6, rel=1e-6)


@pytest.mark.parametrize("order_by", sorted(TOP_SQL_ORDER))
def test_top_sql_by_each_order(api, dbs, stories, sql3, order_by):
    pr = stories["plan_regression"]
    key = {"elapsed": "elapsed_s", "cpu": "cpu_s", "gets": "buffer_gets", "reads": "disk_reads",
           "executions": "executions", "rows": "rows_processed"}[order_by]
    body = ok(api, url(dbs["rac"], "/top-sql"), order_by=order_by, limit=20, begin_snap=pr["begin_snap"],
              end_snap=pr["end_snap"])
    rows = body["rows"]
    assert body["order_by"] == order_by and len(rows) == 20
    assert [r[key] for r in rows] == sorted((r[key] for r in rows), reverse=True)
    texts = dict(sql3.execute("select sql_id, sql_text from dba_hist_sqltext where dbid = ?", (pr["dbid"],)))
    for r in rows:
        assert set(body["columns"]) <= set(r)
        assert r["plan_hash_values"] and all(isinstance(p, int) for p in r["plan_hash_values"])
        assert r["sql_text"] == texts[r["sql_id"]][:400]
    top = rows[0]
    ela, execs = sql3.execute("select sum(elapsed_time_delta), sum(executions_delta) from dba_hist_sqlstat "
                              "where dbid = ? and sql_id = ? and snap_id > ? and snap_id <= ?",
                              (pr["dbid"], top["sql_id"], pr["begin_snap"], pr["end_snap"])).fetchone()
    assert top["elapsed_s"] == pytest.approx(ela / 1e6, rel=1e-6) and top["executions"] == execs
    if order_by == "elapsed":
        assert top["sql_id"] == pr["sql_id"]
        assert set(top["plan_hash_values"]) == {pr["good_plan"], pr["bad_plan"]}


def test_one_sql_over_time_shows_the_plan_regression(api, dbs, stories, sql3):
    pr = stories["plan_regression"]
    body = ok(api, url(dbs["rac"], f"/sql/{pr['sql_id']}"))
    assert body["sql_id"] == pr["sql_id"]
    assert body["sql_text"] == sql3.execute("select sql_text from dba_hist_sqltext where dbid = ? and sql_id = ?",
                                            (pr["dbid"], pr["sql_id"])).fetchone()[0]
    plans = {p["plan_hash_value"]: p for p in body["plans"]}
    assert set(plans) == {pr["good_plan"], pr["bad_plan"]}
    lo, hi = body["range"]["begin_snap"], body["range"]["end_snap"]
    for plan, ela, execs in sql3.execute(
            "select plan_hash_value, sum(elapsed_time_delta), sum(executions_delta) from dba_hist_sqlstat "
            "where dbid = ? and sql_id = ? and snap_id between ? and ? group by 1", (pr["dbid"], pr["sql_id"], lo, hi)):
        assert plans[plan]["executions"] == execs
        assert plans[plan]["elapsed_per_exec_ms"] == pytest.approx(ela / execs / 1000, rel=1e-4)
    bad, good = plans[pr["bad_plan"]], plans[pr["good_plan"]]
    assert bad["elapsed_per_exec_ms"] > 20 * good["elapsed_per_exec_ms"]
    assert datetime.fromisoformat(pr["from"]) <= datetime.fromisoformat(bad["first_seen"])
    assert datetime.fromisoformat(bad["last_seen"]) <= datetime.fromisoformat(pr["to"])
    lines = {(s["metric"], s["plan_hash_value"]): s for s in body["series"]}
    assert {m for m, _ in lines} == {"elapsed_per_exec", "cpu_per_exec", "buffer_gets_per_exec", "executions",
                                     "elapsed"}
    assert {p for _, p in lines} == set(plans)
    assert lines[("elapsed_per_exec", pr["bad_plan"])]["unit"] == "ms/exec"
    assert min(v for _, v in lines[("elapsed_per_exec", pr["bad_plan"])]["points"]) > \
        max(v for _, v in lines[("elapsed_per_exec", pr["good_plan"])]["points"])
    small = ok(api, url(dbs["rac"], f"/sql/{pr['sql_id']}"), max_points=5)
    assert all(len(s["points"]) <= 5 for s in small["series"])


def test_tablespaces_grow(api, dbs, sql3):
    for db in dbs.values():
        body = ok(api, url(db, "/tablespaces"), max_points=10)
        rows = {r["tablespace"]: r for r in body["rows"]}
        names = {n for (n,) in sql3.execute("select t.tsname from dba_hist_tablespace t join dba_hist_tbspc_space_usage"
                                            " u on u.dbid = t.dbid and u.tablespace_id = t.\"TS#\" where t.dbid = ?",
                                            (dbid_of(db),))}
        assert set(rows) == names
        assert body["columns"] == list(next(iter(rows.values())))
        assert all(r["used_mb"] <= r["size_mb"] <= r["max_mb"] for r in rows.values())
        assert any(r["growth_mb"] > 0 for r in rows.values())
        assert {(s["tablespace"], s["metric"]) for s in body["series"]} == {(n, m) for n in names
                                                                          for m in ("used", "size", "max")}
        assert all(s["unit"] == "MB" and 0 < len(s["points"]) <= 10 for s in body["series"])
        used, block = sql3.execute(
            "select u.tablespace_usedsize, t.block_size from dba_hist_tbspc_space_usage u join dba_hist_tablespace t "
            "on u.dbid = t.dbid and u.tablespace_id = t.\"TS#\" where t.dbid = ? and t.tsname = 'SYSTEM' "
            "order by u.snap_id desc limit 1", (dbid_of(db),)).fetchone()
        assert rows["SYSTEM"]["used_mb"] == pytest.approx(used * block / 1048576, abs=1e-3)


def test_compare_two_ranges_with_percent_change(api, dbs, window):
    db, (lo, hi) = dbs["rac"], window
    a, b = {"begin_snap": lo - 20, "end_snap": lo - 12}, {"begin_snap": lo, "end_snap": hi}
    body = ok(api, url(db, "/compare"), **{f"a_{k}": v for k, v in a.items()}, **{f"b_{k}": v for k, v in b.items()})
    assert (body["a"]["begin_snap"], body["b"]["end_snap"]) == (lo - 20, hi)
    lp_a, lp_b = ({r["metric"]: r for r in ok(api, url(db, "/load-profile"), **q)["rows"]} for q in (a, b))
    rows = body["load_profile"]["rows"]
    assert [r["metric"] for r in rows] == list(lp_a)
    for r in rows:
        assert (r["a_per_second"], r["b_per_second"]) == (lp_a[r["metric"]]["per_second"],
                                                          lp_b[r["metric"]]["per_second"])
        assert (r["a_per_transaction"], r["b_per_transaction"]) == (lp_a[r["metric"]]["per_transaction"],
                                                                    lp_b[r["metric"]]["per_transaction"])
        assert r["change_pct"] == pytest.approx(100 * (r["b_per_second"] - r["a_per_second"]) / r["a_per_second"],
                                                rel=1e-3, abs=1e-3)
    assert any(r["change_pct"] > 0 for r in rows) and any(r["change_pct"] < 0 for r in rows)
    ev_a = {r["event"]: r for r in ok(api, url(db, "/top-events"), limit=15, **a)["rows"]}
    events = {r["event"]: r for r in body["top_events"]["rows"]}
    assert set(ev_a) <= set(events)
    for name, r in events.items():
        if name in ev_a:
            assert r["a_time_s"] == ev_a[name]["time_s"] and r["a_avg_ms"] == ev_a[name]["avg_ms"]
        if r["a_time_s"] and r["b_time_s"] is not None:
            assert r["change_pct"] == pytest.approx(100 * (r["b_time_s"] - r["a_time_s"]) / r["a_time_s"],
                                                    rel=1e-3, abs=1e-3)
    assert body["load_profile"]["columns"] == list(rows[0])


def test_compare_finds_the_async_io_fix(api, dbs, stories):
    """Around the restart that turned on async I/O: more transactions, shorter commits."""
    restart = datetime.fromisoformat(stories["async_io_fix"]["startup_time"])
    day = timedelta(days=1)
    q = {"a_from": (restart - 2 * day).isoformat(), "a_to": (restart - day).isoformat(),
         "b_from": (restart + day).isoformat(), "b_to": (restart + 2 * day).isoformat()}
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
        answers = [ok(api, url(db)), ok(api, url(db, "/snapshots")),
                   ok(api, url(db, "/series"), name=[REDO, "sysmetric_history:Host CPU Utilization (%)"],
                      instance="each", **{"from": pr["from"], "to": pr["to"]}),
                   ok(api, url(db, "/wait-classes")), ok(api, url(db, "/load-profile")),
                   ok(api, url(db, "/top-events")), ok(api, url(db, "/top-sql")),
                   ok(api, url(db, f"/sql/{sql_id}")), ok(api, url(db, "/tablespaces"), max_points=20),
                   ok(api, url(db, "/compare"), a_from=(newest - timedelta(days=3)).isoformat(),
                      a_to=(newest - timedelta(days=2)).isoformat(), b_from=pr["from"], b_to=pr["to"])]
        seen = 0
        for body in answers:
            for t in timestamps(body):
                assert WITH_OFFSET.fullmatch(t) and t.endswith(offset), (key, t)
                seen += 1
        assert seen > 1000


# -- CSV -------------------------------------------------------------------------------------------------------

CSV_ENDPOINTS = ["dbs", "snapshots", "catalog", "series", "wait-classes", "load-profile", "top-events", "top-sql",
                 "sql", "tablespaces", "compare"]


@pytest.fixture(scope="module")
def calls(dbs, stories, window):
    """endpoint -> (path, a small valid query) on the RAC database."""
    rac, sql_id = dbs["rac"], stories["plan_regression"]["sql_id"]
    lo, hi = window
    snaps = {"begin_snap": lo, "end_snap": hi}
    return {"dbs": ("/api/v1/dbs", {}), "snapshots": (url(rac, "/snapshots"), snaps),
            "catalog": (url(rac, "/catalog"), {"q": "per sec"}),
            "series": (url(rac, "/series"), {"name": [REDO, AAS], "instance": "each", **snaps}),
            "wait-classes": (url(rac, "/wait-classes"), snaps), "load-profile": (url(rac, "/load-profile"), snaps),
            "top-events": (url(rac, "/top-events"), snaps), "top-sql": (url(rac, "/top-sql"), snaps),
            "sql": (url(rac, f"/sql/{sql_id}"), snaps), "tablespaces": (url(rac, "/tablespaces"), snaps),
            "compare": (url(rac, "/compare"), {"a_begin_snap": lo - 20, "a_end_snap": lo - 12,
                                               "b_begin_snap": lo, "b_end_snap": hi})}


def test_every_endpoint_with_a_table_offers_csv(doc):
    with_csv = {path for path, item in doc["paths"].items() if "text/csv" in item["get"]["responses"]["200"]["content"]}
    assert with_csv == {"/api/v1/dbs", "/api/v1/dbs/{db}/sql/{sql_id}"} | {
        f"/api/v1/dbs/{{db}}/{e}" for e in CSV_ENDPOINTS if e not in ("dbs", "sql")} | {
        "/api/v1/benchmarks", "/api/v1/benchmarks/{slug}", "/api/v1/benchmarks/compare"}


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(map(str, value))
    text = str(value)
    return "'" + text if isinstance(value, str) and text[:1] in "=+-@" else text


@pytest.mark.parametrize("endpoint", CSV_ENDPOINTS)
def test_csv_has_a_header_and_the_json_rows(api, calls, endpoint):
    path, query = calls[endpoint]
    body = ok(api, path, **query)
    resp = api.get(path, query_string={**query, "format": "csv"})
    header, *rows = csv_of(resp)
    assert resp.headers["Content-Disposition"].startswith("attachment; filename=")
    assert rows and all(len(r) == len(header) for r in rows)
    if endpoint == "dbs":
        expected = body["databases"]
    elif endpoint == "compare":
        expected = [{"table": t, **r} for t in ("load_profile", "top_events") for r in body[t]["rows"]]
    elif endpoint in ("series", "wait-classes", "sql"):
        expected = [{"time": t, "value": v, **{k: s[k] for k in ("name", "metric", "plan_hash_value", "instance",
                                                                 "unit") if k in s}}
                    for s in body["series"] + body.get("cpu_count", []) for t, v in s["points"]]
        assert {"time", "value", "unit"} <= set(header)
    else:
        expected = body["rows"]
        assert header[:len(body["columns"])] == body["columns"]
    assert len(rows) == len(expected)
    for row, want in zip(rows, expected):
        cells = dict(zip(header, row))
        for k, v in want.items():
            if not isinstance(v, (dict, list)) or k == "plan_hash_values":
                assert cells[k] == _cell(v), (k, cells[k], v)


def test_csv_neutralises_formulas_but_not_numbers():
    text = to_csv([{"a": "=1+1", "b": "+1", "c": "-x", "d": "@SUM(A1)", "e": -5, "f": "x=1", "g": None,
                    "h": -0.25, "i": "=cmd|' /C calc'!A0"}])
    header, row = csv.reader(io.StringIO(text))
    assert dict(zip(header, row)) == {"a": "'=1+1", "b": "'+1", "c": "'-x", "d": "'@SUM(A1)", "e": "-5",
                                      "f": "x=1", "g": "", "h": "-0.25", "i": "'=cmd|' /C calc'!A0"}


def test_no_csv_cell_can_start_a_formula(api, calls):
    for endpoint in CSV_ENDPOINTS:
        path, query = calls[endpoint]
        for row in csv_of(api.get(path, query_string={**query, "format": "csv"})):
            for cell in row:
                if cell[:1] in ("=", "+", "@") or (cell[:1] == "-" and not re.fullmatch(r"-\d+(\.\d+)?", cell)):
                    pytest.fail(f"{endpoint}: {cell!r}")


def test_sql_text_with_markup_is_verbatim_in_json_and_csv(api, dbs, sql3):
    db = dbs["single"]
    marked = sql3.execute("select sql_id, sql_text from dba_hist_sqltext where dbid = ? and sql_text like '%<%>%'",
                          (dbid_of(db),)).fetchall()
    assert len(marked) >= 3
    for sql_id, text in marked:
        snap, module = sql3.execute("select max(snap_id), max(module) from dba_hist_sqlstat where dbid = ? "
                                    "and sql_id = ?", (dbid_of(db), sql_id)).fetchone()
        q = {"begin_snap": snap - 1, "end_snap": snap, "limit": 100}
        resp = api.get(url(db, "/top-sql"), query_string=q)
        row = next(r for r in resp.get_json()["rows"] if r["sql_id"] == sql_id)
        assert row["sql_text"] == text and row["module"] == module
        assert "<" in resp.get_data(as_text=True) and "&lt;" not in resp.get_data(as_text=True)
        header, *rows = csv_of(api.get(url(db, "/top-sql"), query_string={**q, "format": "csv"}))
        cells = next(dict(zip(header, r)) for r in rows if r[0] == sql_id)
        assert cells["sql_text"] == text and cells["module"] == module
        assert ok(api, url(db, f"/sql/{sql_id}"))["sql_text"] == text


# -- show_sql: the statements run, with binds ------------------------------------------------------------------

def _statements(body):
    assert isinstance(body["sql"], list)
    for s in body["sql"]:
        assert set(s) == {"sql", "params", "rows", "ms"} and s["sql"].lstrip().upper().startswith("SELECT")
    return body["sql"]


def test_show_sql_returns_the_statements_with_bind_placeholders(api, dbs, stories, window):
    db, pr = dbs["rac"], stories["plan_regression"]
    lo, hi = window
    body = ok(api, url(db, f"/sql/{pr['sql_id']}"), show_sql=1, begin_snap=lo, end_snap=hi)
    stmts = _statements(body)
    history = [s for s in stmts if s["params"].get("sql_id") == pr["sql_id"]]
    assert history and history[0]["params"]["lo"] == lo and history[0]["params"]["hi"] == hi
    assert [s for s in stmts if pr["sql_id"] in s["params"].get("sql_ids", [])]
    for s in stmts:
        assert pr["sql_id"] not in s["sql"] and str(lo) not in s["sql"] and str(dbid_of(db)) not in s["sql"]
    assert all("?" in s["sql"] or ":" in s["sql"] for s in history)
    lp = _statements(ok(api, url(db, "/load-profile"), show_sql=1, begin_snap=lo, end_snap=hi))
    with_names = [s for s in lp if "redo size" in s["params"].get("names", [])]
    assert with_names and not [s for s in lp if "redo size" in s["sql"]]
    assert "sql" not in ok(api, url(db, f"/sql/{pr['sql_id']}"), begin_snap=lo, end_snap=hi)


@pytest.mark.parametrize("value", ["x' OR '1'='1", "1; DROP TABLE x", "'; --", "redo' size"])
def test_request_values_never_reach_the_sql_text(api, dbs, value):
    db = dbs["rac"]
    for path, query in ((url(db, "/catalog"), {"q": value}), (url(db, "/top-sql"), {"limit": 3}),
                        (url(db, "/series"), {"name": REDO})):
        body = ok(api, path, show_sql="1", **query)
        assert all(value not in s["sql"] for s in _statements(body))
    assert_error(api.get(url(db, "/series"), query_string={"name": f"sysstat:{value}", "show_sql": "1"}), 404, "name")
    assert_error(api.get(url(db, f"/sql/{quote(value, safe='')}"), query_string={"show_sql": "1"}), 400, "sql_id")


# -- cache validators ------------------------------------------------------------------------------------------

def test_closed_range_is_cacheable_and_revalidates_with_304(api, dbs, window):
    lo, hi = window
    for query in ({"name": AAS, "begin_snap": lo, "end_snap": hi}, {"name": AAS, "begin_snap": lo, "end_snap": hi,
                                                                     "format": "csv"}):
        first = api.get(url(dbs["rac"], "/series"), query_string=query)
        assert first.status_code == 200 and first.cache_control.public
        assert first.cache_control.max_age >= 3600
        etag = first.headers["ETag"]
        again = api.get(url(dbs["rac"], "/series"), query_string=query, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
        other = api.get(url(dbs["rac"], "/series"), query_string=query, headers={"If-None-Match": '"stale"'})
        assert other.status_code == 200 and other.data == first.data


def test_open_range_is_cached_briefly(api, dbs, summary):
    last = summary[dbs["rac"]]["snapshots"]["last_snap"]
    for path, query in ((url(dbs["rac"], "/series"), {"name": AAS}),
                        (url(dbs["rac"], "/series"), {"name": AAS, "begin_snap": last - 5, "end_snap": last}),
                        (url(dbs["rac"], "/series"), {"name": AAS, "to": "2027-01-01", "from": "2026-11-01"}),
                        (url(dbs["rac"], "/top-sql"), {}), ("/api/v1/dbs", {}), (url(dbs["rac"], "/catalog"), {})):
        r = api.get(path, query_string=query)
        assert r.status_code == 200 and 0 < r.cache_control.max_age <= 300, (path, query)
    closed = api.get(url(dbs["rac"], "/series"), query_string={"name": AAS, "begin_snap": last - 5,
                                                               "end_snap": last - 1})
    assert closed.cache_control.max_age >= 3600


def test_compare_is_cacheable_only_when_both_periods_are_closed(api, dbs, window, summary):
    lo, hi = window
    last = summary[dbs["rac"]]["snapshots"]["last_snap"]
    closed, open_ = {"begin_snap": lo, "end_snap": hi}, {"begin_snap": last - 4, "end_snap": last}
    for a, b, long in ((closed, closed, True), (closed, open_, False), (open_, closed, False), (open_, open_, False)):
        q = {**{f"a_{k}": v for k, v in a.items()}, **{f"b_{k}": v for k, v in b.items()}}
        r = api.get(url(dbs["rac"], "/compare"), query_string=q)
        assert r.status_code == 200 and (r.cache_control.max_age >= 3600) is long, (a, b)


# -- errors: one JSON shape, the parameter named ----------------------------------------------------------------

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
    ("/series", {"name": AAS, "max_points": str(10 ** 9)}, 400, "max_points"),
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
    ("/compare", {"a_begin_snap": "{hi}", "a_end_snap": "{lo}", "b_begin_snap": "{lo}", "b_end_snap": "{hi}"}, 400,
     "a_begin_snap"),
    ("/compare", {"a_begin_snap": "{lo}", "a_end_snap": "{hi}", "b_begin_snap": "1", "b_end_snap": "2"}, 400,
     "b_begin_snap"),
    ("/compare", {"a_from": "2026-11-18", "a_to": "2026-11-17", "b_begin_snap": "{lo}"}, 400, "a_from"),
    ("/compare", {"a_begin_snap": "{lo}", "b_to": "tomorrow"}, 400, "b_to"),
    ("/series", {"name": "sysstat:no such statistic"}, 404, "name"),
    ("/series", {"name": [AAS, "nope:nothing"]}, 404, "name"),
    ("/sql/aaaaaaaaaaaaa", {}, 404, "sql_id"),
    ("/sql/AAAAAAAAAAAAA", {}, 400, "sql_id"),
    ("/sql/abc", {}, 400, "sql_id"),
    ("/series", {"name": AAS, "frm": "2026-11-18"}, 400, "frm"),
]


@pytest.mark.parametrize("path, query, status, parameter", ERRORS,
                         ids=[f"{p}-{'&'.join(q)}-{s}" for p, q, s, _ in ERRORS])
def test_error(api, dbs, window, path, query, status, parameter):
    lo, hi = window

    def fill(v):
        return v.format(lo=lo, hi=hi) if isinstance(v, str) and "{" in v else v
    err = assert_error(api.get(url(dbs["rac"], path), query_string={k: fill(v) for k, v in query.items()}),
                       status, parameter)
    if status == 400:
        assert parameter in err["message"] or "instance" in err["message"] or "period" in err["message"]


def test_too_many_series(api, app, dbs):
    limit = app.config["SETTINGS"].max_series
    names = [r["name"] for r in ok(api, url(dbs["rac"], "/catalog"), source="sysstat")["rows"]][:limit + 1]
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
    assert_error(api.get(url(dbs["rac"], "/compare"), query_string={
        "a_from": too_wide["from"], "a_to": too_wide["to"], **period_b}), 400, "a_from")
    # a snapshot range wider than the setting, on an app that allows two days
    narrow = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, max_range_days=2))
    snaps = summary[dbs["rac"]]["snapshots"]
    everything = {"begin_snap": snaps["first_snap"], "end_snap": snaps["last_snap"]}
    client = narrow.test_client()
    assert_error(client.get(url(dbs["rac"], "/load-profile"), query_string=everything), 400, "begin_snap")
    assert_error(client.get(url(dbs["rac"], "/compare"), query_string={
        "a_begin_snap": snaps["last_snap"] - 4, "a_end_snap": snaps["last_snap"],
        **{f"b_{k}": v for k, v in everything.items()}}), 400, "b_begin_snap")
    assert_error(client.get(url(dbs["rac"], "/series"), query_string={"name": AAS, "from": "2026-11-10"}), 400, "from")


@pytest.mark.parametrize("db", ["nope", "demo.1", "1", "other.{dbid}", "demo.{dbid}x", "demo.", "."])
def test_unknown_database_is_404(api, dbs, db):
    db = db.format(dbid=dbid_of(dbs["rac"]))
    for tail, query in (("", {}), ("/series", {"name": AAS}), ("/catalog", {}), ("/sql/aaaaaaaaaaaaa", {})):
        assert_error(api.get(url(db, tail), query_string=query), 404, "db")


def test_unknown_parameter_is_refused_on_every_endpoint(api, doc, dbs, stories):
    fill = {"db": dbs["rac"], "sql_id": stories["plan_regression"]["sql_id"], "slug": RUN}
    for path, item in doc["paths"].items():
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


@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/dbs/{db}/nope", "/api/v2/dbs", "/api/v1/dbs/{db}/sql/",
                                  "/nope", "/api/v1/dbs/{db}/series/extra"])
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


# -- no input gives a 500 --------------------------------------------------------------------------------------

ODD = ["", " ", "0", "-1", "99999999999999999999", "1e3", "NaN", "a" * 201, "é漢字🙂", "\x00", "a\x00b", "\t",
       "2026-11-18T10:00:00\x00", "' OR 1=1 --", "1; DROP TABLE x", "%00", "../../etc/passwd",
       "<script>alert(1)</script>", "=HYPERLINK(\"http://x\")", "9999-12-31T23:59:59-23:59", "0001-01-01T00:00+14:00",
       "2026-02-30", "each", "true"]
SWEPT = ["/api/v1/dbs", "/api/v1/dbs/{db}", "/api/v1/dbs/{db}/snapshots", "/api/v1/dbs/{db}/catalog",
         "/api/v1/dbs/{db}/series", "/api/v1/dbs/{db}/wait-classes", "/api/v1/dbs/{db}/load-profile",
         "/api/v1/dbs/{db}/top-events", "/api/v1/dbs/{db}/top-sql", "/api/v1/dbs/{db}/sql/{sql_id}",
         "/api/v1/dbs/{db}/tablespaces", "/api/v1/dbs/{db}/compare", "/api/v1/benchmarks",
         "/api/v1/benchmarks/{slug}", "/api/v1/benchmarks/compare"]
RANGE_KEYS = ("from", "to", "begin_snap", "end_snap")


def test_the_sweep_covers_every_endpoint_with_parameters(doc):
    assert set(SWEPT) == {p for p, item in doc["paths"].items() if item["get"]["parameters"]}


@pytest.mark.parametrize("path", SWEPT)
def test_no_input_gives_a_500(api, doc, dbs, stories, window, path):
    lo, hi = window
    params = doc["paths"][path]["get"]["parameters"]
    known = {p["name"] for p in params}
    fill = {"db": dbs["rac"], "sql_id": stories["plan_regression"]["sql_id"], "slug": RUN}
    base = {"begin_snap": lo, "end_snap": hi} if "begin_snap" in known else {}
    if path.endswith("/series"):
        base["name"] = AAS
    if path.endswith("/compare"):
        base = {"a_begin_snap": lo, "a_end_snap": hi, "b_begin_snap": lo - 9, "b_end_snap": lo - 1}
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
                query = {k: v for k, v in base.items() if not (ranged and k.startswith(group) and
                                                              k.removeprefix(group) in RANGE_KEYS)}
                query[p["name"]] = value
            r = api.get(target, query_string=query)
            assert r.status_code < 500, (target, query, r.get_data(as_text=True)[:300])
            if r.status_code >= 400:
                err = assert_error(r, r.status_code)
                assert err.get("parameter") in known | {None}, (target, query, err)
