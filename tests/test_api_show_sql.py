"""show_sql: the statements run, with binds; request values never reach the SQL text.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

from urllib.parse import quote

import pytest
from conftest import assert_error
from contract import REDO, dbid_of, ok, url


@pytest.fixture(scope="module")
def own_tables(sql3):
    """The tables the embedded store keeps besides the AWR views (its awrlens_ summaries and coded samples), from its
    SQLite file."""
    return [n for (n,) in sql3.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'awrlens%'")]


def _statements(body, own_tables):
    """The statements run; each also as Oracle would run it, unless it reads one of `own_tables` (none on Oracle)."""
    assert isinstance(body["sql"], list)
    for s in body["sql"]:
        own = any(t in s["sql"] for t in own_tables)
        assert set(s) == {"sql", "params", "rows", "ms"} | ({"sql_oracle"} if not own else set()), s["sql"][:200]
        assert s["sql"].lstrip().upper().startswith(("SELECT", "WITH"))
    return body["sql"]


def test_show_sql_returns_the_statements_with_bind_placeholders(api, dbs, stories, window, own_tables):
    db, pr = dbs["rac"], stories["plan_regression"]
    lo, hi = window
    body = ok(api, url(db, f"/sql/{pr['sql_id']}"), show_sql=1, begin_snap=lo, end_snap=hi)
    stmts = _statements(body, own_tables)
    history = [s for s in stmts if s["params"].get("sql_id") == pr["sql_id"]]
    assert history and history[0]["params"]["lo"] == lo and history[0]["params"]["hi"] == hi
    assert [s for s in stmts if pr["sql_id"] in s["params"].get("sql_ids", [])]
    for s in stmts:
        assert pr["sql_id"] not in s["sql"] and str(lo) not in s["sql"] and str(dbid_of(db)) not in s["sql"]
    assert all("?" in s["sql"] or ":" in s["sql"] for s in history)
    lp = _statements(ok(api, url(db, "/load-profile"), show_sql=1, begin_snap=lo, end_snap=hi), own_tables)
    with_names = [s for s in lp if "redo size" in s["params"].get("names", [])]
    assert with_names and not [s for s in lp if "redo size" in s["sql"]]
    assert "sql" not in ok(api, url(db, f"/sql/{pr['sql_id']}"), begin_snap=lo, end_snap=hi)


def test_show_sql_on_the_embedded_store_also_gives_each_statement_as_oracle_runs_it(api, dbs, window, own_tables):
    """A DBA pastes the statements into SQL*Plus: beside what ran on SQLite, each comes as compiled for Oracle, with
    named binds (:dbid, :lo...) for the same params, and Oracle's own row limit (FETCH FIRST, 12c and later) where
    SQLite has LIMIT (issue 15); not a statement that reads the embedded store's own summaries, which Oracle does
    not have (the wait classes' totals per snapshot, top SQL's blocks, top activity's counts)."""
    lo, hi = window
    as_oracle = 0
    for path in ("/top-sql", "/load-profile", "/wait-classes", "/activity/top"):
        stmts = _statements(ok(api, url(dbs["rac"], path), show_sql=1, begin_snap=lo, end_snap=hi), own_tables)
        assert path == "/load-profile" or any("sql_oracle" not in s for s in stmts), path  # each reads a summary
        for s in (s for s in stmts if "sql_oracle" in s):
            as_oracle += 1
            assert "?" not in s["sql_oracle"] and "?" in s["sql"]
            for name, value in s["params"].items():
                assert f":{name}" in s["sql_oracle"] or (isinstance(value, (list, int)) and name not in s["sql"]), name
            if " LIMIT " in s["sql"]:
                assert "FETCH FIRST" in s["sql_oracle"] and " LIMIT " not in s["sql_oracle"]
    assert as_oracle >= 4


@pytest.mark.parametrize("value", ["x' OR '1'='1", "1; DROP TABLE x", "'; --", "redo' size"])
def test_request_values_never_reach_the_sql_text(api, dbs, value, own_tables):
    db = dbs["rac"]
    for path, query in (
        (url(db, "/catalog"), {"q": value}),
        (url(db, "/top-sql"), {"limit": 3}),
        (url(db, "/series"), {"name": REDO}),
    ):
        body = ok(api, path, show_sql="1", **query)
        assert all(value not in s["sql"] for s in _statements(body, own_tables))
    assert_error(api.get(url(db, "/series"), query_string={"name": f"sysstat:{value}", "show_sql": "1"}), 404, "name")
    assert_error(api.get(url(db, f"/sql/{quote(value, safe='')}"), query_string={"show_sql": "1"}), 400, "sql_id")
