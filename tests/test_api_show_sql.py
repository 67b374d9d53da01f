"""show_sql: the statements run, with binds; request values never reach the SQL text.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

from urllib.parse import quote

import pytest
from conftest import assert_error
from contract import REDO, dbid_of, ok, url


def _statements(body):
    assert isinstance(body["sql"], list)
    for s in body["sql"]:
        assert set(s) == {"sql", "sql_oracle", "params", "rows", "ms"} and s["sql"].lstrip().upper().startswith(
            "SELECT"
        )
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


def test_show_sql_on_the_embedded_store_also_gives_each_statement_as_oracle_runs_it(api, dbs, window):
    """A DBA pastes the statements into SQL*Plus: beside what ran on SQLite, each comes as compiled for Oracle, with
    named binds (:dbid, :lo...) for the same params, and Oracle's own row limit (FETCH FIRST, 12c and later) where
    SQLite has LIMIT (issue 15)."""
    lo, hi = window
    for path in ("/top-sql", "/load-profile", "/wait-classes"):
        for s in _statements(ok(api, url(dbs["rac"], path), show_sql=1, begin_snap=lo, end_snap=hi)):
            assert "?" not in s["sql_oracle"] and "?" in s["sql"]
            for name, value in s["params"].items():
                assert f":{name}" in s["sql_oracle"] or (isinstance(value, (list, int)) and name not in s["sql"]), name
            if " LIMIT " in s["sql"]:
                assert "FETCH FIRST" in s["sql_oracle"] and " LIMIT " not in s["sql_oracle"]


@pytest.mark.parametrize("value", ["x' OR '1'='1", "1; DROP TABLE x", "'; --", "redo' size"])
def test_request_values_never_reach_the_sql_text(api, dbs, value):
    db = dbs["rac"]
    for path, query in (
        (url(db, "/catalog"), {"q": value}),
        (url(db, "/top-sql"), {"limit": 3}),
        (url(db, "/series"), {"name": REDO}),
    ):
        body = ok(api, path, show_sql="1", **query)
        assert all(value not in s["sql"] for s in _statements(body))
    assert_error(api.get(url(db, "/series"), query_string={"name": f"sysstat:{value}", "show_sql": "1"}), 404, "name")
    assert_error(api.get(url(db, f"/sql/{quote(value, safe='')}"), query_string={"show_sql": "1"}), 400, "sql_id")
