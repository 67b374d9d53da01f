"""Time by plan line (docs/awr-rules.md §26) where a window is read as several runs (§22: a statement per run of one
offset, each instance's own runs where the instances of a snap id carry different offsets), which statements a
snapshot range reads on the embedded store, and what an answer says a source does not keep (§31). Expected values
are worked out here from the rule over the rows written (or read with plain SQL), never from the code under test."""

from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from histories import empty_views
from test_plans import _shares

DBID, SQL_ID, PLSQL_ID = 7301, "9rw2c5d7f8gh1", "3bq6x0m2p4t7v"
KEPT, NOT_KEPT, NO_PLAN = 500, 1, 0  # a plan DBA_HIST_SQL_PLAN keeps, one it does not, ASH's 0 (no plan)
UTC0 = datetime(2026, 3, 29, 0, 0, tzinfo=UTC)  # Europe's clocks go forward at 01:00 UTC that day
# per instance, each snapshot's (snap_id, minutes after UTC0 of its end, SNAP_TIMEZONE): instance 1 flushes snapshot
# 3 five seconds after the change (+02:00), instance 2 five seconds before it (+01:00)
SNAPS = {
    1: [(1, 0, 3600), (2, 30, 3600), (3, 60 + 5 / 60, 7200), (4, 90, 7200), (5, 120, 7200)],
    2: [(1, 0, 3600), (2, 30, 3600), (3, 60 - 5 / 60, 3600), (4, 90, 7200), (5, 120, 7200)],
}
# the statement's ASH samples: (instance, snap_id, minutes after UTC0, plan, line, operation, options, on CPU); each
# sample's local SAMPLE_TIME is at its snapshot's offset (none lies between the change and a snapshot of the other
# offset). KEPT's line 2 has samples in each of the four runs; NOT_KEPT's lines and NO_PLAN come, run after run, in
# another order than the plan hash value's and the line's
SAMPLES = [
    (1, 2, 15, KEPT, 2, "HASH JOIN", None, True),
    (1, 2, 20, KEPT, 2, "HASH JOIN", None, False),
    (1, 2, 22, NOT_KEPT, 5, "INDEX", "RANGE SCAN", False),
    (1, 2, 24, NOT_KEPT, 1, "NESTED LOOPS", None, True),
    (1, 2, 26, KEPT, 3, "TABLE ACCESS", "FULL", True),
    (1, 4, 70, KEPT, 2, "HASH JOIN", None, True),
    (1, 4, 75, KEPT, 2, "HASH JOIN", None, True),
    (1, 4, 80, KEPT, 2, "HASH JOIN", None, False),
    (1, 4, 82, NO_PLAN, None, None, None, True),
    (1, 4, 84, NOT_KEPT, 3, "TABLE ACCESS", "BY INDEX ROWID", False),
    (1, 4, 86, NOT_KEPT, 0, "SELECT STATEMENT", None, False),
    (1, 5, 100, KEPT, 3, "TABLE ACCESS", "FULL", True),
    (1, 5, 115, KEPT, 3, "TABLE ACCESS", "FULL", True),  # after the window
    (2, 2, 5, KEPT, 3, "TABLE ACCESS", "FULL", True),  # before the window
    (2, 2, 12, KEPT, 3, "TABLE ACCESS", "FULL", False),
    (2, 2, 22, KEPT, 2, "HASH JOIN", None, False),
    (2, 3, 40, KEPT, 1, "SORT", "ORDER BY", True),
    (2, 3, 50, KEPT, None, None, None, False),
    (2, 4, 65, KEPT, 2, "HASH JOIN", None, True),
    (2, 4, 85, KEPT, 3, "TABLE ACCESS", "FULL", False),
    (2, 5, 105, None, None, None, None, False),
]
WINDOW = (10, 110)  # minutes after UTC0: 00:10 to 01:50 UTC, off the snapshots' grid
# KEPT's lines: (id, parent_id, depth, operation, options, object)
PLAN = [
    (0, None, 0, "SELECT STATEMENT", None, None),
    (1, 0, 1, "SORT", "ORDER BY", None),
    (2, 1, 2, "HASH JOIN", None, None),
    (3, 2, 3, "TABLE ACCESS", "FULL", "ORDERS"),
]


def _local(minutes: float, tz: int) -> str:
    return (UTC0 + timedelta(minutes=minutes, seconds=tz)).strftime("%Y-%m-%d %H:%M:%S")


@pytest.fixture(scope="module")
def two_clocks(tmp_path_factory):
    """A two-instance history across a daylight-saving change, made here, and an app over it."""
    import sqlite3

    from app import create_app
    from app.settings import Settings

    path = tmp_path_factory.mktemp("plans_rules") / "two_clocks.sqlite"
    empty_views(path)
    con = sqlite3.connect(path)
    startup = "2026-03-28 00:00:00"
    for inst, snaps in SNAPS.items():
        con.execute(
            "insert into dba_hist_database_instance (dbid, instance_number, startup_time, parallel, db_name, "
            "instance_name, host_name, version, cdb) values (?, ?, ?, 'YES', 'CLOCKS', ?, 'h', '19.0.0.0.0', 'NO')",
            (DBID, inst, startup, f"CLOCKS{inst}"),
        )
        for k, (snap_id, minutes, tz) in enumerate(snaps):
            begin = _local(snaps[k - 1][1], tz) if k else _local(minutes - 30, tz)
            con.execute(
                "insert into dba_hist_snapshot (snap_id, dbid, instance_number, startup_time, begin_interval_time, "
                "end_interval_time, snap_flag, snap_timezone) values (?, ?, ?, ?, ?, ?, 0, ?)",
                (snap_id, DBID, inst, startup, begin, _local(minutes, tz), tz),
            )
    tzs = {(inst, snap_id): tz for inst, snaps in SNAPS.items() for snap_id, _, tz in snaps}
    for k, (inst, snap_id, minutes, phv, line, op, opt, cpu) in enumerate(SAMPLES):
        con.execute(
            "insert into dba_hist_active_sess_history (snap_id, dbid, instance_number, sample_id, sample_time, "
            "session_id, session_type, sql_id, sql_plan_hash_value, sql_plan_line_id, sql_plan_operation, "
            "sql_plan_options, session_state, con_dbid) values (?, ?, ?, ?, ?, 10, 'FOREGROUND', ?, ?, ?, ?, ?, ?, ?)",
            (
                snap_id,
                DBID,
                inst,
                k,
                _local(minutes, tzs[inst, snap_id]),
                SQL_ID,
                phv,
                line,
                op,
                opt,
                "ON CPU" if cpu else "WAITING",
                DBID,
            ),
        )
    for i, parent, depth, op, opt, obj in PLAN:
        con.execute(
            "insert into dba_hist_sql_plan (dbid, sql_id, plan_hash_value, id, operation, options, object_name, "
            "parent_id, depth, position, cost, timestamp, con_dbid) values (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (DBID, SQL_ID, KEPT, i, op, opt, obj, parent, depth, 1, 10 - i, "2026-03-28 12:00:00", DBID),
        )
    for sql_id, text, command in ((SQL_ID, "select * from orders", 3), (PLSQL_ID, "BEGIN nightly; END;", 47)):
        con.execute(
            "insert into dba_hist_sqltext (dbid, sql_id, sql_text, command_type, con_dbid) values (?, ?, ?, ?, ?)",
            (DBID, sql_id, text, command, DBID),
        )
    con.commit()
    con.close()
    app = create_app(Settings.from_env({}, answer_cache_mb=0, targets={"c": {"sqlite": str(path)}}))
    return app.test_client(), f"/api/v1/dbs/c.{DBID}/sql"


def ok(api, url):
    r = api.get(url)
    assert r.status_code == 200, (url, r.get_data(as_text=True)[:500])
    return r.get_json()


def test_a_windows_plan_lines_add_up_every_runs_samples_by_sample_time(two_clocks):
    """§26 over §22's window: the statement's samples whose SAMPLE_TIME lies in (from, to], whatever run of one
    offset (and here, each instance's own runs: the instances' snapshot 3 carry different offsets) reads them, grouped
    by plan and line: a line's samples and samples on CPU are those of every run together; the samples on no line of
    a plan shown under `unplaced`, by plan hash value then line, those without either last."""
    api, base = two_clocks
    w0, w1 = (UTC0 + timedelta(minutes=m) for m in WINDOW)
    body = ok(api, f"{base}/{SQL_ID}/plans?from={quote(w0.isoformat())}&to={quote(w1.isoformat())}")
    counts: dict = {}
    for _, _, minutes, phv, line, op, opt, cpu in SAMPLES:
        if WINDOW[0] < minutes <= WINDOW[1]:
            n, on_cpu, *_ = counts.get((phv, line), (0, 0))
            counts[phv, line] = (n + 1, on_cpu + cpu, op, opt)
    total = sum(c[0] for c in counts.values())
    assert body["total_samples"] == total == 19
    (plan,) = body["plans"]
    assert plan["samples"] == sum(c[0] for (phv, line), c in counts.items() if phv == KEPT and line is not None)
    for line in plan["lines"]:
        n, on_cpu, *_ = counts.get((KEPT, line["id"]), (0, 0))
        assert {k: line[k] for k in ("samples", "pct_samples", "pct_cpu", "pct_wait")} == _shares(n, on_cpu, total)
    assert counts[KEPT, 2][:2] == (7, 4)  # the check: a line read in four runs
    unplaced = sorted(
        (k for k in counts if k[0] != KEPT or k[1] is None),
        key=lambda k: (k[0] is None, k[0] or 0, k[1] is None, k[1] or 0),
    )
    assert unplaced == [
        (NO_PLAN, None),
        (NOT_KEPT, 0),
        (NOT_KEPT, 1),
        (NOT_KEPT, 3),
        (NOT_KEPT, 5),
        (KEPT, None),
        (None, None),
    ]
    assert body["unplaced"] == [
        {"plan_hash_value": phv, "id": line, "operation": counts[phv, line][2], "options": counts[phv, line][3]}
        | _shares(*counts[phv, line][:2], total)
        for phv, line in unplaced
    ]


def test_a_snapshot_range_reads_the_plan_lines_from_the_counts_per_block(api, sql3, rac, stories):
    """§22 on the embedded store: a snapshot range's samples per plan line are the store's counts per block of
    snapshots (ASH_TOP), not the samples themselves, and the same numbers as the view's samples grouped (§26)."""
    from app.store.awr.embedded.ash import ASH_TOP

    reg = stories["plan_regression"]
    lo, hi = reg["begin_snap"], reg["begin_snap"] + 12
    body = ok(api, f"/api/v1/dbs/{rac['id']}/sql/{reg['sql_id']}/plans?begin_snap={lo}&end_snap={hi}&show_sql=1")
    assert [ASH_TOP.name in x["sql"] for x in body["sql"]] == [False, True]  # the plans, then the lines' samples
    rows = sql3.execute(
        "SELECT sql_plan_hash_value, sql_plan_line_id, count(*) FROM dba_hist_active_sess_history "
        "WHERE dbid = ? AND snap_id > ? AND snap_id <= ? AND sql_id = ? GROUP BY 1, 2",
        (rac["dbid"], lo, hi, reg["sql_id"]),
    ).fetchall()
    got = {(p["plan_hash_value"], line["id"]): line["samples"] for p in body["plans"] for line in p["lines"]}
    got |= {(u["plan_hash_value"], u["id"]): u["samples"] for u in body["unplaced"]}
    assert {k: n for k, n in got.items() if n} == {(p, line): n for p, line, n in rows}


def test_an_awr_answer_says_why_a_statement_has_no_plan_and_has_samples(two_clocks):
    """§26: a PL/SQL block has no plan in DBA_HIST_SQL_PLAN, and the answer says so, naming the view; AWR keeps ASH,
    so no answer says its samples are missing."""
    api, base = two_clocks
    body = ok(api, f"{base}/{PLSQL_ID}/plans?begin_snap=1&end_snap=5")
    assert body["plans"] == [] and "samples_reason" not in body
    assert body["reason"] == "DBA_HIST_SQL_PLAN holds no plan of this statement (a PL/SQL block has none)"
    assert "samples_reason" not in ok(api, f"{base}/{SQL_ID}/plans?begin_snap=1&end_snap=5")


def test_a_statspack_answer_says_it_keeps_no_samples_and_where_plans_are_kept(api, sql3, statspack_db):
    """§31: Statspack samples no sessions, so a plan's lines have no samples and the answer says why
    (`samples_reason`); its plans are STATS$SQL_PLAN's, kept by snapshots of level 6 and higher, and a PL/SQL block,
    which has none, is said to have none there."""
    plsql = sql3.execute(
        "SELECT sql_id FROM stats$sqltext WHERE piece = 0 AND sql_text LIKE 'BEGIN%' ORDER BY sql_id"
    ).fetchone()[0]
    planned = sql3.execute(
        "SELECT u.sql_id FROM stats$sql_plan_usage u JOIN stats$sql_plan p ON p.plan_hash_value = u.plan_hash_value "
        "WHERE u.plan_hash_value != 0 ORDER BY u.sql_id"
    ).fetchone()[0]
    said = "Statspack keeps no Active Session History: no samples per plan line"
    body = ok(api, f"/api/v1/dbs/{statspack_db}/sql/{plsql}/plans")
    assert body["plans"] == [] and body["samples_reason"] == said
    assert body["reason"] == (
        "STATS$SQL_PLAN (snapshots of level 6 and higher) holds no plan of this statement (a PL/SQL block has none)"
    )
    body = ok(api, f"/api/v1/dbs/{statspack_db}/sql/{planned}/plans")
    assert body["plans"] and "reason" not in body and body["samples_reason"] == said
    assert body["total_samples"] == 0 and all(line["samples"] == 0 for p in body["plans"] for line in p["lines"])
