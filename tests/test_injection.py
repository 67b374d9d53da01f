"""SQL injection attempts against every parameter of every endpoint, on the demo store, through the API.

Each classic payload goes into every query and path parameter the OpenAPI document lists (series names, sql_id,
database ids, sort keys, dates, snapshot ids, instance, rate, format, the compare periods...), alone and after a
valid value, and into parameter names. For every request:
- no 5xx, and errors in the one error shape;
- the answer is a 4xx, except for the parameters whose value is data rather than a name: `q` (a text filter applied
  in Python: the answer is the normal catalog filtered by that text, usually empty), top activity's text filters
  (wait_class, event, module, action, program, machine: Oracle's values have no fixed shape, so the value is a bind
  compared with the samples' column: the answer is a 200 with no samples, as no sample holds the payload) and `_`
  (a cache buster that is ignored: the answer is the same as without it); top activity's filters whose values have
  a shape (sql_id, a session, numbers) are refused when they do not have it;
- no SQL statement the store executes while answering contains the payload in its text (every statement run is
  captured at the driver); with show_sql=1, the statements an answer reports do not contain it either;
and after all of it, the SQLite file is byte for byte the same (SHA-256).

sqlmap against a live server is perf/sqlmap_scan.py (BENCHMARKS.md, "Hostile input"); it is too slow for `make test`.
"""

import hashlib
import re
import sqlite3
from urllib.parse import quote

import pytest
from conftest import assert_error
from contract import RANGE_KEYS

from app.demo.detail import HOSTILE_OBJ

PAYLOADS = [  # the first ones are also tried alone; all of them after a valid value
    "' OR '1'='1",
    "1 OR 1=1",
    "'; DROP TABLE dba_hist_snapshot; --",
    "1' AND '1'='2' UNION SELECT sql_text FROM dba_hist_sqltext --",
    "' OR 1=1 --",
    "\" OR \"\"=\"",
    "') OR ('x'='x",
    "1 UNION ALL SELECT NULL,NULL,NULL,NULL--",
    "1; DELETE FROM dba_hist_sysstat",
    "' || (SELECT sqlite_version()) || '",
    "' AND (SELECT COUNT(*) FROM all_users) > 0 AND 'a'='a",
    "'; BEGIN DBMS_LOCK.SLEEP(5); END; --",
    "1' ORDER BY 99 --",
    "%27%20OR%201%3D1",
    "\\'; ATTACH DATABASE '/tmp/x.db' AS x; PRAGMA query_only = OFF; --",
]
ALONE = 4
ACTIVITY_TEXT = {"wait_class", "event", "module", "action", "program", "machine"}  # top activity's text filters


def _no_samples(body) -> bool:
    """Whether an answer of /activity or /activity/top counts no sample."""
    return (
        body["total_samples"] == 0
        and not body.get("series")
        and not body.get("blocking")
        and not any(body.get("lists", {}).values())
    )


def valid_values(dbs, stories, lo, hi):
    """A valid value for each parameter (the prefix of the "after a valid value" variants)."""
    return {
        "db": dbs["rac"],
        "sql_id": stories["plan_regression"]["sql_id"],
        "name": "sysstat:redo size",
        "from": "2026-11-17T09:00:00",
        "to": "2026-11-17T17:00:00",
        "begin_snap": str(lo),
        "end_snap": str(hi),
        "instance": "1",
        "rate": "per_second",
        "max_points": "10",
        "format": "json",
        "show_sql": "1",
        "q": "redo",
        "source": "sysstat",
        "order_by": "cpu",
        "limit": "5",
        "_": "1700000000000",
        "obj": str(HOSTILE_OBJ),
    }  # a segment of every interval


class Executed(list):
    """The SQL statements the stores execute, as (statement, parameters): since clear(), and `every` one."""

    def __init__(self):
        super().__init__()
        self.every = []

    def __call__(self, statement, parameters):
        self.append((statement, parameters))
        self.every.append(statement)


@pytest.fixture(scope="module")
def executed(app):
    """Every SQL statement the stores execute while this module runs, captured at the driver: the embedded
    store's connections are opened again, as connections that record what they execute."""
    seen = Executed()

    class Recording(sqlite3.Connection):
        def execute(self, sql, parameters=(), /):
            seen(sql, parameters)
            return super().execute(sql, parameters)

    connect = sqlite3.connect
    stores = app.extensions["awrlens"].stores.values()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlite3, "connect", lambda *args, **kw: connect(*args, factory=Recording, **kw))
        for store in stores:
            store.dispose()
        yield seen
    for store in stores:
        store.dispose()


@pytest.fixture(scope="module")
def store_hash(demo_store):
    """The SQLite file's SHA-256 before any attempt (checked again by the last test of the module)."""
    return _sha256(demo_store[0])


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _requests(doc, dbs, stories, window):
    """(path, query, parameter attacked, payload) for every parameter of every GET operation, every payload."""
    lo, hi = window
    good = valid_values(dbs, stories, lo, hi)
    for template, item in doc["paths"].items():
        params = item.get("get", {}).get("parameters", [])
        names = [p["name"] for p in params] + (["_"] if params else [])
        for name in names:
            base = name.removeprefix("a_").removeprefix("b_")
            fill = {p["name"]: good.get(p["name"], "x") for p in params if p["in"] == "path"}
            query = {}
            ranged = {"begin_snap", "end_snap"} <= {p["name"] for p in params}
            if ranged and base not in RANGE_KEYS:  # the window, not the 7-day default
                query.update(begin_snap=str(lo), end_snap=str(hi))
            if template == "/api/v1/dbs/{db}/event-histogram" and name != "event":
                query["event"] = "log file sync"
            if template.endswith("/plans/diff") and name not in ("a", "b"):  # the two plans compared
                query.update(a=stories["plan_regression"]["good_plan"], b=stories["plan_regression"]["bad_plan"])
            if template.endswith("/plans/xplan") and name != "plan_hash_value":  # the plan printed
                query["plan_hash_value"] = stories["plan_regression"]["good_plan"]
            if template == "/api/v1/dbs/{db}/series" and name != "name":
                query["name"] = good["name"]
            if template == "/api/v1/dbs/{db}/compare":
                query.update({"a_begin_snap": lo, "a_end_snap": hi, "b_begin_snap": lo - 9, "b_end_snap": lo - 1})
                if base in ("from", "to"):  # a period by time or by snapshots, not both
                    side = name[:2]
                    query = {k: v for k, v in query.items() if not k.startswith(side)}
            for i, payload in enumerate(PAYLOADS):
                prefixes = (("",) if i < ALONE or base not in good else ()) + ((good[base],) if base in good else ())
                for value in (prefix + payload for prefix in prefixes):
                    if name in fill:
                        path = template.format(**{**fill, name: quote(value, safe="")})
                        yield path, dict(query), name, payload
                    else:
                        path = template.format(**fill)
                        yield path, {**query, name: value}, name, payload


def test_every_parameter_is_attacked(doc, dbs, stories, window):
    names = {name for _, _, name, _ in _requests(doc, dbs, stories, window)}
    documented = {p["name"] for item in doc["paths"].values() for p in item.get("get", {}).get("parameters", [])}
    assert documented <= names, documented - names
    assert {"name", "sql_id", "db", "order_by", "from", "a_from", "b_end_snap", "instance", "rate", "format"} <= names


@pytest.mark.slow
def test_payloads_in_every_parameter_are_refused_or_answered_normally(
    app, doc, dbs, stories, window, executed, store_hash
):
    client = app.test_client()
    done = 0
    for path, query, name, payload in _requests(doc, dbs, stories, window):
        executed.clear()
        resp = client.get(path, query_string=query)
        where = (path, name, payload, resp.status_code, resp.get_data(as_text=True)[:200])
        assert resp.status_code < 500, where
        if name == "q":
            assert resp.status_code == 200, where
            assert all(payload.lower() in r["name"].lower() for r in resp.get_json()["rows"]), where
        elif name in ACTIVITY_TEXT and "/activity" in path:  # a bound value that matches no sample
            assert resp.status_code == 200 or (resp.status_code == 400 and len(payload) > 64), where
            if resp.status_code == 200:
                assert _no_samples(resp.get_json()), where
        elif name == "_":  # ignored: the same answer as without it
            clean = client.get(path, query_string={k: v for k, v in query.items() if k != "_"})
            assert (resp.status_code, resp.data) == (clean.status_code, clean.data), where
        else:
            assert 400 <= resp.status_code < 500, where
            err = assert_error(resp, resp.status_code)
            assert err.get("parameter") in (name, "db", None) or name.startswith(("a_", "b_")), (where, err)
        for statement, _ in executed:
            assert payload not in statement, (where, statement)
        done += 1
    assert done >= 1000, done
    print(f"\ninjection: {done} requests")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_as_a_parameter_name_is_refused(app, dbs, payload):
    resp = app.test_client().get(f"/api/v1/dbs/{dbs['rac']}/series", query_string={"name": "derived:aas", payload: "1"})
    err = assert_error(resp, 400)
    assert err["parameter"] == payload and "unknown parameter" in err["message"]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_show_sql_never_carries_a_payload_in_the_sql_text(app, dbs, payload, executed):
    """Where a payload reaches a 200 answer (the catalog's text filter), show_sql lists statements with binds only;
    and a series list with a payload name among good ones is a 404 naming it, before any data query."""
    client = app.test_client()
    executed.clear()
    body = client.get(f"/api/v1/dbs/{dbs['rac']}/catalog", query_string={"q": payload, "show_sql": "1"}).get_json()
    for s in body["sql"]:
        assert payload not in s["sql"]
        assert re.search(r"[:?]\w*", s["sql"]) or "dbid" not in s["sql"].lower()  # bound, never inlined
    assert all(payload not in statement for statement, _ in executed)
    resp = client.get(
        f"/api/v1/dbs/{dbs['rac']}/series",
        query_string={"name": ["derived:aas", f"sysstat:{payload}"], "show_sql": "1"},
    )
    assert_error(resp, 404, "name")


@pytest.mark.slow  # the check of the slow test above: without it, no SQL ran in this module
def test_the_store_is_unchanged(demo_store, store_hash, executed):
    """Last in this module: after every attempt the SQLite file has the same bytes, and nothing but SELECT ran (a
    common table expression's too: WITH ... SELECT, nothing written), in a read transaction at most."""
    assert _sha256(demo_store[0]) == store_hash

    def read_only(sql):
        if re.match(r"\s*WITH\b", sql, re.I):
            return not re.search(r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", sql, re.I)
        # or a deferred BEGIN: a read transaction (a run and its rows, app/store/sqlite.py read_transaction)
        return sql == "BEGIN" or re.match(r"\s*(SELECT|PRAGMA (query_only|cache_size))\b", sql, re.I)

    assert executed.every and all(map(read_only, executed.every)), {sql[:60] for sql in executed.every}
    assert not (demo_store[0].parent / (demo_store[0].name + "-journal")).exists()
    assert not (demo_store[0].parent / (demo_store[0].name + "-wal")).exists()
