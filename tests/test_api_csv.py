"""CSV: every endpoint with a table offers it, with a header and the JSON's rows, and no cell can start a formula.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

import csv
import io
import re

import pytest
from contract import AAS, REDO, dbid_of, ok, url

from app.api.respond import answer, csv_cell, disposition, to_csv


def csv_of(resp):
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    assert resp.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(resp.get_data(as_text=True))))


CSV_ENDPOINTS = [
    "dbs",
    "snapshots",
    "catalog",
    "series",
    "wait-classes",
    "load-profile",
    "top-events",
    "top-sql",
    "sql",
    "tablespaces",
    "compare",
]


@pytest.fixture(scope="module")
def calls(dbs, stories, window):
    """endpoint -> (path, a small valid query) on the RAC database."""
    rac, sql_id = dbs["rac"], stories["plan_regression"]["sql_id"]
    lo, hi = window
    snaps = {"begin_snap": lo, "end_snap": hi}
    return {
        "dbs": ("/api/v1/dbs", {}),
        "snapshots": (url(rac, "/snapshots"), snaps),
        "catalog": (url(rac, "/catalog"), {"q": "per sec"}),
        "series": (url(rac, "/series"), {"name": [REDO, AAS], "instance": "each", **snaps}),
        "wait-classes": (url(rac, "/wait-classes"), snaps),
        "load-profile": (url(rac, "/load-profile"), snaps),
        "top-events": (url(rac, "/top-events"), snaps),
        "top-sql": (url(rac, "/top-sql"), snaps),
        "sql": (url(rac, f"/sql/{sql_id}"), snaps),
        "tablespaces": (url(rac, "/tablespaces"), snaps),
        "compare": (
            url(rac, "/compare"),
            {"a_begin_snap": lo - 20, "a_end_snap": lo - 12, "b_begin_snap": lo, "b_end_snap": hi},
        ),
    }


def test_every_endpoint_with_a_table_offers_csv(doc):
    with_csv = {
        path
        for path, item in doc["paths"].items()
        if "get" in item and "text/csv" in item["get"]["responses"]["200"]["content"]
    }
    assert with_csv == {"/api/v1/dbs", "/api/v1/dbs/{db}/sql/{sql_id}"} | {
        f"/api/v1/dbs/{{db}}/{e}" for e in CSV_ENDPOINTS if e not in ("dbs", "sql")
    } | {"/api/v1/benchmarks", "/api/v1/benchmarks/{slug}", "/api/v1/benchmarks/compare"} | {
        "/api/v1/dbs/{db}/activity",
        "/api/v1/dbs/{db}/activity/top",
        "/api/v1/dbs/{db}/activity/chains",
        "/api/v1/dbs/{db}/activity/groups",
    } | {  # tests/test_activity.py
        "/api/v1/dbs/{db}/sql/{sql_id}/monitor",
        "/api/v1/dbs/{db}/awr-report/stored",  # tests/test_oracle_reports.py
        "/api/v1/dbs/{db}/changes",
        "/api/v1/dbs/{db}/parameters",
        "/api/v1/dbs/{db}/parameters/changes",
        "/api/v1/dbs/{db}/parameters/non-default",  # tests/test_changes.py
        "/api/v1/dbs/{db}/sql/{sql_id}/plans",
        "/api/v1/dbs/{db}/sql/{sql_id}/plans/diff",
        "/api/v1/dbs/{db}/sql/{sql_id}/binds",  # tests/test_plans.py
        "/api/v1/dbs/{db}/event-histogram",
        "/api/v1/dbs/{db}/segments",
        "/api/v1/dbs/{db}/segments/{obj}",  # their tests
        "/api/v1/dbs/{db}/range",  # tests/test_api_report.py
        "/api/v1/dbs/{db}/baselines",  # tests/test_baselines.py
    }


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
        expected = [
            {"table": t, **r} for t in ("movers", "differences", "load_profile", "top_events") for r in body[t]["rows"]
        ]
    elif endpoint in ("series", "wait-classes", "sql"):
        expected = [
            {
                "time": t,
                "value": v,
                **{k: s[k] for k in ("name", "metric", "plan_hash_value", "instance", "unit") if k in s},
            }
            for s in body["series"] + body.get("cpu_count", [])
            for t, v in s["points"]
        ]
        assert {"time", "value", "unit"} <= set(header)
    else:
        expected = body["rows"]
        assert header[: len(body["columns"])] == body["columns"]
    assert len(rows) == len(expected)
    for row, want in zip(rows, expected, strict=True):
        cells = dict(zip(header, row, strict=True))
        for k, v in want.items():
            if not isinstance(v, (dict, list)) or k == "plan_hash_values":
                assert cells[k] == _cell(v), (k, cells[k], v)


def test_csv_neutralises_formulas_but_not_numbers():
    text = to_csv(
        [
            {
                "a": "=1+1",
                "b": "+1",
                "c": "-x",
                "d": "@SUM(A1)",
                "e": -5,
                "f": "x=1",
                "g": None,
                "h": -0.25,
                "i": "=cmd|' /C calc'!A0",
            }
        ]
    )
    header, row = csv.reader(io.StringIO(text))
    assert dict(zip(header, row, strict=True)) == {
        "a": "'=1+1",
        "b": "'+1",
        "c": "'-x",
        "d": "'@SUM(A1)",
        "e": "-5",
        "f": "x=1",
        "g": "",
        "h": "-0.25",
        "i": "'=cmd|' /C calc'!A0",
    }


def test_csv_neutralises_tab_and_carriage_return_starts_and_formula_headers():
    """OWASP's list: a cell starting with a tab or a carriage return is run too; names become headers (a run's
    extra attributes), so they are guarded like cells."""
    text = to_csv([{"a": "\t=1+1", "b": "\r=2", "=HYPERLINK(\"http://x\")": "x", "@h": 1, "plain": "\u00a0=1"}])
    header, row = csv.reader(io.StringIO(text, newline=""))
    assert header == ["a", "b", "'=HYPERLINK(\"http://x\")", "'@h", "plain"]
    assert row == ["'\t=1+1", "'\r=2", "x", "1", "\u00a0=1"]


def test_no_csv_cell_can_start_a_formula(api, calls):
    for endpoint in CSV_ENDPOINTS:
        path, query = calls[endpoint]
        for row in csv_of(api.get(path, query_string={**query, "format": "csv"})):
            for cell in row:
                if cell[:1] in ("=", "+", "@") or (cell[:1] == "-" and not re.fullmatch(r"-\d+(\.\d+)?", cell)):
                    pytest.fail(f"{endpoint}: {cell!r}")


def test_sql_text_with_markup_is_verbatim_in_json_and_csv(api, dbs, sql3):
    db = dbs["single"]
    marked = sql3.execute(
        "select sql_id, sql_text from dba_hist_sqltext where dbid = ? and sql_text like '%<%>%'", (dbid_of(db),)
    ).fetchall()
    assert len(marked) >= 3
    for sql_id, text in marked:
        snap, module = sql3.execute(
            "select max(snap_id), max(module) from dba_hist_sqlstat where dbid = ? and sql_id = ?",
            (dbid_of(db), sql_id),
        ).fetchone()
        q = {"begin_snap": snap - 1, "end_snap": snap, "limit": 100}
        resp = api.get(url(db, "/top-sql"), query_string=q)
        row = next(r for r in resp.get_json()["rows"] if r["sql_id"] == sql_id)
        assert row["sql_text"] == text and row["module"] == module
        assert "<" in resp.get_data(as_text=True) and "&lt;" not in resp.get_data(as_text=True)
        header, *rows = csv_of(api.get(url(db, "/top-sql"), query_string={**q, "format": "csv"}))
        cells = next(dict(zip(header, r, strict=True)) for r in rows if r[0] == sql_id)
        assert cells["sql_text"] == text and cells["module"] == module
        assert ok(api, url(db, f"/sql/{sql_id}"))["sql_text"] == text


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_every_cell_shape_starting_a_formula_is_neutralised(start):
    """OWASP's CSV injection list on each shape a cell takes: text, a list (its items joined by spaces, the first
    one starting a formula, or a later one that cannot start the cell), a nested list, a number (never touched)."""
    formula = f"{start}SUM(A1)"
    row = {
        "text": formula,
        "list": [formula, "b"],
        "later": ["b", formula],
        "nested": [[formula]],
        "numbers": [-1, 2],
        "int": -7,
        "float": -0.5,
        "zero": 0,
    }
    header, cells = csv.reader(io.StringIO(to_csv([row]), newline=""))
    got = dict(zip(header, cells, strict=True))
    assert got["text"] == "'" + formula
    assert got["list"] == f"'{formula} b"
    assert got["later"] == f"b {formula}"
    assert not got["nested"].startswith(("=", "+", "-", "@", "\t", "\r"))
    assert got["numbers"] == "'-1 2"  # joined, the list is text: "-1 2" is not a number a spreadsheet keeps
    assert (got["int"], got["float"], got["zero"]) == ("-7", "-0.5", "0")


def test_a_cell_alone_list_empty_number_and_none():
    assert csv_cell(["=1", 2]) == "'=1 2" and csv_cell([]) == "" and csv_cell(-3) == -3 and csv_cell(None) is None


def test_the_csv_file_is_named_after_the_last_part_of_its_path(app):
    """The file takes the name of the path's last part (a trailing slash left out), `answer` when the path has none;
    its columns come in the order the answer lists them, then any other field of the rows; the text is UTF-8 and its
    Content-Type says so (text/csv's charset is US-ASCII when none is named, RFC 4180 3); lines end in CRLF."""
    body = {"columns": ["b", "a"], "rows": [{"a": 1, "b": "é", "c": None}]}
    for path, name in (
        ("/api/v1/dbs/x/top-sql", "top-sql.csv"),
        ("/api/v1/dbs/x/segments/IDX/", "IDX.csv"),
        ("/", "answer.csv"),
    ):
        with app.test_request_context(f"{path}?format=csv"):
            resp = answer(dict(body), {"format": "csv"})
        assert resp.headers["Content-Disposition"] == f'attachment; filename="{name}"', path
        assert resp.headers["Content-Type"] == "text/csv; charset=utf-8"
        assert resp.get_data() == "b,a,c\r\né,1,\r\n".encode()


def test_a_csv_answer_without_rows_is_its_header(app):
    """An answer holding no rows (and no table of its own) is its columns alone; with no columns either, an empty
    header line."""
    with app.test_request_context("/api/v1/dbs/x/tablespaces?format=csv"):
        assert answer({"columns": ["x", "y"]}, {"format": "csv"}).get_data() == b"x,y\r\n"
        assert answer({}, {"format": "csv"}).get_data() == b"\r\n"


def test_a_file_name_outside_the_safe_alphabet_is_given_twice():
    """RFC 6266: `filename` in the safe alphabet (any other character _), and when that changed the name,
    `filename*` with the name in UTF-8, percent-encoded (RFC 8187), control characters and path separators as _."""
    assert disposition("top-sql.csv") == 'attachment; filename="top-sql.csv"'
    assert disposition("top-sql.csv", download=False) == 'inline; filename="top-sql.csv"'
    assert disposition("a b;é/\x01\\.html", download=False) == (
        "inline; filename=\"a_b_____.html\"; filename*=UTF-8''a%20b%3B%C3%A9___.html"
    )
