"""A repository holding several databases: AWR keeps every database's rows in the same views, keyed by DBID, and
two databases (a clone, a PDB's own view, an imported repository) share snapshot ids. Every statement on an AWR view
must filter on the database id, or one database's numbers take in the other's.

- On the statements as compiled for Oracle: each AWR view a statement reads is bound to `:dbid` or joined on DBID to
  one that is.
- On a store: a copy of the demo store with a clone of ORCL under another DBID, same snapshot ids, every measured
  value three times ORCL's. Every recorded answer about the demo's databases (tests/answers.py) is unchanged, and
  the clone answers with its own numbers.
"""

import json
import re
import sqlite3

import pytest
from answers import RECORD, fingerprint
from sqlalchemy.dialects import oracle, sqlite
from sqlalchemy.sql.util import find_tables

from app import create_app
from app.settings import Settings
from app.store.awr.embedded.ash import ASH_BASE_NAME, ASH_TOTALS_NAME
from app.store.awr.embedded.summaries import CLASS_TOTALS
from app.store.awr.queries import all_statements
from app.store.awr.views import DICTIONARY, LIVE, PREFIXES, view_name, views

ORCL, CLONE = 1645932817, 4111111111  # the clone sorts after the demo's DBIDs: its rows come last
KEYS = {
    "dbid",
    "snap_id",
    "first_snap",
    "last_snap",
    "instance_number",
    "con_dbid",
    "plan_hash_value",
    "group_id",
    "metric_id",
    "stat_id",
    "event_id",
    "wait_class_id",
    "function_id",
    "filetype_id",
    "tablespace_id",
    "TS#",
    "snap_flag",
    "snap_level",
    "error_count",
    "snap_timezone",
    "command_type",
    "intsize",
    "num_interval",
    "block_size",
    "user_id",
}
# ASH as the store keeps it (codes, sample ids, minutes): copied as it is, under the clone's DBID
ASH_OWN = {ASH_BASE_NAME, ASH_TOTALS_NAME}
EVERY_DATABASE = {"databases"}  # the one statement that lists the databases themselves


@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_statement_on_an_awr_view_is_bound_to_one_database(prefix):
    v = views(prefix)
    # the dictionary (DBA_USERS, DBA_OBJECTS) and the live buffer (GV$ACTIVE_SESSION_HISTORY, GV$ASH_INFO) are the
    # connected database's own, with no DBID (the embedded store's are bound: the test below)
    dictionary = {view_name(prefix, name) for name in (*DICTIONARY, *LIVE)}
    awr = set(v.metadata.tables) - dictionary | {CLASS_TOTALS.name}
    for name, stmt in all_statements(v):
        if name in EVERY_DATABASE:
            continue
        text = re.sub(r"\s+", " ", str(stmt.compile(dialect=oracle.dialect())))
        tables = {t.name for t in find_tables(stmt, include_joins=True, include_selects=True) if hasattr(t, "name")}
        if tables <= dictionary:
            continue
        read = tables & awr
        assert read, name
        bound = {t for t in read if f"{t}.dbid = :dbid" in text}
        joined = {
            t
            for t in read - bound
            for b in bound
            if re.search(rf"\b{b}\.dbid = {t}\.dbid\b|\b{t}\.dbid = {b}\.dbid\b", text)
        }
        assert bound | joined == read, (name, read - bound - joined, text)


def test_the_embedded_stores_live_buffer_and_dictionary_are_read_per_database():
    """The embedded store keeps several databases' live buffers and dictionaries in one table each, keyed by DBID
    (views.LIVE, views.DICTIONARY): each statement of its views on them binds the database."""
    v = views("dba_hist_", embedded=True)
    live = {view_name("dba_hist_", name) for name in (*LIVE, *DICTIONARY)}
    read = 0
    for name, stmt in all_statements(v):
        tables = {t.name for t in find_tables(stmt, include_joins=True, include_selects=True) if hasattr(t, "name")}
        for t in tables & live:
            text = re.sub(r"\s+", " ", str(stmt.compile(dialect=sqlite.dialect())))
            assert re.search(rf'"?{re.escape(t)}"?\.dbid = \?', text), (name, text)
            read += 1
    assert read >= 11  # the clock, AAS, five top lists, blocking, ashtop, chains; users, objects


@pytest.fixture(scope="module")
def cloned(demo_store, tmp_path_factory):
    """The demo store with ORCL cloned under another DBID: same snapshots, measured values x3, its own name."""
    path = tmp_path_factory.mktemp("two") / "two.sqlite"
    con, source = sqlite3.connect(path), sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    source.backup(con)
    source.close()
    tables = [r[0] for r in con.execute("select name from sqlite_master where type = 'table'")]
    with con:
        for table in tables:
            cols = con.execute(f"pragma table_info({table})").fetchall()  # (cid, name, type, ...)
            names = [c[1] for c in cols]
            if "dbid" not in names:
                continue
            picked = []
            for _, col, kind, *_ in cols:
                if col == "dbid":
                    picked.append(str(CLONE))
                elif col == "con_dbid":
                    picked.append(f"case when con_dbid = dbid then {CLONE} else con_dbid end")
                elif col == "db_name":
                    picked.append("'CLONE'")
                elif col not in KEYS and table not in ASH_OWN and kind.upper() in ("INTEGER", "FLOAT", "REAL"):
                    picked.append(f'"{col}" * 3')
                else:
                    picked.append(f'"{col}"')
            quoted = ", ".join(f'"{c}"' for c in names)
            con.execute(
                f"insert into {table} ({quoted}) select {', '.join(picked)} from {table} where dbid = ?", (ORCL,)
            )
    con.close()
    return create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(path)}}, answer_cache_mb=0)).test_client()


@pytest.mark.slow
def test_every_recorded_answer_about_a_database_is_unchanged_beside_a_clone(cloned):
    recorded = json.loads(RECORD.read_text())["answers"]
    urls = [u for u in recorded if u.startswith("/api/v1/dbs/demo.")]
    assert len(urls) > 400
    changed = [u for u in urls if fingerprint(cloned.get(u)) != recorded[u]]
    assert not changed, f"{len(changed)} answers changed, e.g. {changed[:5]}"


@pytest.mark.slow  # seconds, not the edit loop's milliseconds
def test_the_clone_answers_with_its_own_numbers(cloned):
    """The clone's Load Profile is three times ORCL's, line by line, over the same snapshots."""
    q = {"begin_snap": 0}
    orcl = cloned.get(f"/api/v1/dbs/demo.{ORCL}/load-profile", query_string=q).get_json()
    q["begin_snap"] = orcl["range"]["end_snap"] - 24
    orcl = cloned.get(f"/api/v1/dbs/demo.{ORCL}/load-profile", query_string=q).get_json()
    clone = cloned.get(f"/api/v1/dbs/demo.{CLONE}/load-profile", query_string=q).get_json()
    assert clone["range"] == orcl["range"]
    pairs = [(a, b) for a, b in zip(orcl["rows"], clone["rows"], strict=True) if a["per_second"]]
    assert len(pairs) > 10
    for a, b in pairs:
        assert b["per_second"] == pytest.approx(3 * a["per_second"], rel=1e-3), a["statistic"]
