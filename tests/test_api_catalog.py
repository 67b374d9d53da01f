"""The catalog of series: hundreds of series with units and kinds, filtered by text and source.

Through the Flask test client on the demo store; expectations come from the demo's stories and straight from its
SQLite file, never from the code under test (tests/contract.py, the fixtures in conftest.py).
"""

from conftest import assert_error
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
            stats = {
                n for (n,) in sql3.execute(f"select distinct stat_name from dba_hist_{view} where dbid = ?", (dbid,))
            }
            assert {f"{source}:{n}" for n in stats} <= names
        detail = {
            n
            for (n,) in sql3.execute(
                "select distinct metric_name from dba_hist_sysmetric_history where dbid = ?", (dbid,)
            )
        }
        assert detail and {f"sysmetric_history:{n}" for n in detail} <= names
        assert all(r["kind"] == "detail" for r in rows if r["source"] == "sysmetric_history")
        # Oracle's own per-second twins are in the store: nothing derived stands in for them (see below)
        assert not {"derived:Response Time Per Sec", "derived:User Rollback Undo Records Applied Per Sec"} & names
        assert {AAS, "derived:db_cpu", "derived:host_cpu_pct", "derived:tps"} <= names
        events = {
            n
            for (n,) in sql3.execute(
                "select distinct event_name from dba_hist_system_event where dbid = ? and wait_class != 'Idle'", (dbid,)
            )
        }
        assert {f"system_event:{e}:avg_ms" for e in events} <= names
        assert not [n for n in names if n.startswith("wait_class:Idle")]


def test_catalog_filters_by_text_and_source(api, dbs):
    """`q` keeps the series with every one of its words, in any order and any case, somewhere in the name, label or
    description (issue 15: "log file sync" finds system_event:log file sync:avg_ms); a typo gets the closest names."""
    db = dbs["rac"]
    every = ok(api, url(db, "/catalog"))["rows"]
    for q in ("PER SEC", "sync log FILE", "commit class", "redo"):
        words = q.lower().split()
        expected = sorted(
            r["name"] for r in every if all(w in f"{r['name']} {r['label']} {r['description']}".lower() for w in words)
        )
        body = ok(api, url(db, "/catalog"), q=q)
        assert expected and [r["name"] for r in body["rows"]] == expected and body["did_you_mean"] == [], q
    assert "system_event:log file sync:avg_ms" in [
        r["name"] for r in ok(api, url(db, "/catalog"), q="log file sync")["rows"]
    ]
    derived = ok(api, url(db, "/catalog"), source="derived")["rows"]
    assert derived and {r["source"] for r in derived} == {"derived"}
    none = ok(api, url(db, "/catalog"), q="no such series at all")
    assert none["count"] == 0 and none["did_you_mean"] == []
    typo = ok(api, url(db, "/catalog"), q="redo sise")
    assert typo["count"] == 0 and typo["did_you_mean"][0] == "sysstat:redo size"
    err = assert_error(api.get(url(db, "/series"), query_string={"name": "sysstat:redo sise"}), 404, "name")
    assert "did you mean 'sysstat:redo size'" in err["message"]


def test_no_two_series_share_a_label(api, dbs, sql3):
    """A chart's legend tells series apart: sysstat's "DB time" (centiseconds) and the time model's (microseconds,
    charted in seconds) are two statistics, each label names its source (issue 12)."""
    for db in dbs.values():
        rows = ok(api, url(db, "/catalog"))["rows"]
        labels = [r["label"].lower() for r in rows]
        assert len(set(labels)) == len(labels), sorted(x for x in labels if labels.count(x) > 1)[:6]
        in_both = {
            n
            for (n,) in sql3.execute(
                "select stat_name from dba_hist_sysstat where dbid = ? intersect "
                "select stat_name from dba_hist_sys_time_model where dbid = ?",
                (dbid_of(db), dbid_of(db)),
            )
        }
        assert "DB time" in in_both
        by_name = {r["name"]: r["label"] for r in rows}
        for name in in_both:
            assert by_name[f"sysstat:{name}"] == f"{name} (sysstat)"
            assert by_name[f"sys_time_model:{name}"] == f"{name} (time model)"


def test_a_per_second_series_is_derived_only_where_oracle_has_none(api, dbs, sql3):
    """'X Per Txn' x transactions per second is offered only when Oracle's own metrics hold no per-second twin;
    Oracle names some twins otherwise (V$METRICNAME: 'User Rollback UndoRec Applied Per Sec' for 'User Rollback
    Undo Records Applied Per Txn', 'Database Time Per Sec' for 'Response Time Per Txn')."""
    for db in dbs.values():
        metrics = {
            n
            for (n,) in sql3.execute(
                "select distinct metric_name from dba_hist_sysmetric_summary where dbid = ?", (dbid_of(db),)
            )
        }
        assert {"User Rollback UndoRec Applied Per Sec", "Database Time Per Sec"} <= metrics
        derived = {r["name"] for r in ok(api, url(db, "/catalog"), source="derived")["rows"]}
        assert "derived:User Rollback Undo Records Applied Per Sec" not in derived
        assert "derived:Response Time Per Sec" not in derived
        for name in derived:
            assert name.removeprefix("derived:") not in metrics


def test_without_oracles_twin_the_per_second_series_is_derived():
    """An older release without 'Executions Per Sec' (say) gets it as 'Executions Per Txn' x 'User Transaction Per
    Sec'; one that has the twin under Oracle's other name gets nothing derived."""
    from app.history import catalog

    empty = {
        view: []
        for view in (
            "sysstat",
            "sys_time_model",
            "osstat",
            "system_event",
            "sysmetric_history",
            "iostat_function",
            "iostat_filetype",
        )
    }
    metrics = [
        (1, "User Transaction Per Sec", "Transactions Per Second"),
        (2, "Executions Per Txn", "Executes Per Txn"),
        (3, "User Rollback Undo Records Applied Per Txn", "Records Per Txn"),
        (4, "User Rollback UndoRec Applied Per Sec", "Records Per Sec"),
    ]
    specs = catalog.build({**empty, "sysmetric_summary": metrics})
    derived = {n: s for n, s in specs.items() if s.source == "derived"}
    assert set(derived) == {"derived:Executions Per Sec"}
    assert derived["derived:Executions Per Sec"].unit == "Executes Per Second"
