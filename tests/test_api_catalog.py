"""The catalog of series: hundreds of series with units and kinds, filtered by text and source.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""
from contract import AAS, dbid_of, ok, url


KINDS = {"cumulative", "ratio", "reading", "rate", "detail"}


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
