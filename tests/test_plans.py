"""Plans, time by plan line and binds of a statement (docs/awr-rules.md §26), against the store's own rows read with
sqlite3 (not through the app's statements), and the demo's plan regression as a DBA sees it: the bad plan's full
scan where the good plan had an index, its time on that line, its buffer gets per execution."""

import csv
import difflib
import io
import re
from datetime import datetime, timedelta
from urllib.parse import quote

import pytest
from conftest import assert_error
from histories import empty_views

ASH = "dba_hist_active_sess_history"
PLAN_SQL = (
    "SELECT plan_hash_value, id, parent_id, depth, operation, options, object_name, cost, cardinality, "
    "access_predicates, filter_predicates FROM dba_hist_sql_plan WHERE dbid = ? AND sql_id = ? "
    "ORDER BY plan_hash_value, id"
)


def ok(api, url):
    r = api.get(url)
    assert r.status_code == 200, (url, r.get_data(as_text=True)[:500])
    return r.get_json()


@pytest.fixture(scope="module")
def rac(summary):
    return next(d for d in summary.values() if d["rac"])


@pytest.fixture(scope="module")
def reg(stories):
    return stories["plan_regression"]


def _base(rac, reg):
    return f"/api/v1/dbs/{rac['id']}/sql/{reg['sql_id']}"


def test_every_plan_of_the_statement_with_its_lines_in_order(api, sql3, rac, reg):
    body = ok(api, f"{_base(rac, reg)}/plans?begin_snap={reg['begin_snap']}&end_snap={reg['end_snap']}")
    rows = sql3.execute(PLAN_SQL, (rac["dbid"], reg["sql_id"])).fetchall()
    assert {r[0] for r in rows} == {reg["good_plan"], reg["bad_plan"]}
    assert [p["plan_hash_value"] for p in body["plans"]] == sorted({r[0] for r in rows})
    for plan in body["plans"]:
        mine = [r for r in rows if r[0] == plan["plan_hash_value"]]
        assert [
            (
                line["id"],
                line["parent_id"],
                line["depth"],
                line["operation"],
                line["options"],
                line["object_name"],
                line["cost"],
                line["cardinality"],
                line["access_predicates"],
                line["filter_predicates"],
            )
            for line in plan["lines"]
        ] == [r[1:] for r in mine]
        ids = [line["id"] for line in plan["lines"]]
        assert ids == list(range(len(ids)))
        for line in plan["lines"][1:]:  # a child is one deeper than its parent, and comes after it
            parent = plan["lines"][line["parent_id"]]
            assert line["depth"] == parent["depth"] + 1 and parent["id"] < line["id"]


def test_the_regression_turns_an_index_range_scan_into_a_full_scan(api, sql3, rac, reg):
    """The good plan reads ORDER_LINES by its index in nested loops; the bad one full scans it into a hash join."""
    lines = {
        phv: [
            (op, opt, obj)
            for p, _, _, _, op, opt, obj, *_ in sql3.execute(PLAN_SQL, (rac["dbid"], reg["sql_id"])).fetchall()
            if p == phv
        ]
        for phv in (reg["good_plan"], reg["bad_plan"])
    }
    good, bad = lines[reg["good_plan"]], lines[reg["bad_plan"]]
    assert ("INDEX", "RANGE SCAN", "ORDER_LINES_ORDER_IX") in good and ("NESTED LOOPS", None, None) in good
    assert ("TABLE ACCESS", "FULL", "ORDER_LINES") in bad and ("HASH JOIN", None, None) in bad
    assert not any(opt == "FULL" for _, opt, _ in good)


def test_the_diff_marks_the_full_scan_and_keeps_the_same_lines(api, sql3, rac, reg):
    a, b = reg["good_plan"], reg["bad_plan"]
    body = ok(api, f"{_base(rac, reg)}/plans/diff?a={a}&b={b}")
    rows = sql3.execute(PLAN_SQL, (rac["dbid"], reg["sql_id"])).fetchall()
    la, lb = ([r for r in rows if r[0] == phv] for phv in (a, b))
    key = [[(r[4], r[5], r[6]) for r in lines] for lines in (la, lb)]
    blocks = difflib.SequenceMatcher(None, *key, autojunk=False).get_matching_blocks()
    matched = {(blk.a + k, blk.b + k) for blk in blocks for k in range(blk.size)}
    # every line of each plan appears once, in plan order
    assert [r["a"]["id"] for r in body["rows"] if r["a"]] == [r[1] for r in la]
    assert [r["b"]["id"] for r in body["rows"] if r["b"]] == [r[1] for r in lb]
    for r in body["rows"]:
        pair = (r["a"] and r["a"]["id"], r["b"] and r["b"]["id"])
        if r["change"] in ("same", "moved"):
            assert pair in matched
            assert (r["change"] == "same") == (r["a"]["depth"] == r["b"]["depth"])
        else:
            assert pair not in matched
    full = next(r for r in body["rows"] if r["b"] and r["b"]["options"] == "FULL")
    assert full["change"] == "changed" and full["a"]["object_name"] == "ORDER_LINES_ORDER_IX"
    assert body["differing"] == sum(r["change"] in ("changed", "only_a", "only_b") for r in body["rows"]) > 0
    text = api.get(f"{_base(rac, reg)}/plans/diff?a={a}&b={b}&format=csv").get_data(as_text=True)
    table = list(csv.DictReader(io.StringIO(text)))
    assert [t["change"] for t in table] == [r["change"] for r in body["rows"]]
    assert any(t["b_options"] == "FULL" and t["change"] == "changed" for t in table)


def test_time_by_plan_line_is_the_statements_samples_grouped_by_line(api, sql3, rac, reg):
    lo, hi = reg["begin_snap"], reg["begin_snap"] + 12
    body = ok(api, f"{_base(rac, reg)}/plans?begin_snap={lo}&end_snap={hi}")
    rows = sql3.execute(
        f"SELECT sql_plan_hash_value, sql_plan_line_id, count(*), sum(session_state = 'ON CPU') "
        f"FROM {ASH} WHERE dbid = ? AND snap_id > ? AND snap_id <= ? AND sql_id = ? "
        f"GROUP BY 1, 2",
        (rac["dbid"], lo, hi, reg["sql_id"]),
    ).fetchall()
    total = sum(r[2] for r in rows)
    assert body["total_samples"] == total > 100
    expected = {(p, line): (n, cpu) for p, line, n, cpu in rows}
    seen = set()
    for plan in body["plans"]:
        for line in plan["lines"]:
            n, cpu = expected.get((plan["plan_hash_value"], line["id"]), (0, 0))
            seen.add((plan["plan_hash_value"], line["id"]))
            assert line["samples"] == n
            assert line["pct_samples"] == pytest.approx(100 * n / total, abs=1e-4)
            if n:
                assert line["pct_cpu"] == pytest.approx(100 * cpu / n, abs=1e-4)
                assert line["pct_cpu"] + line["pct_wait"] == pytest.approx(100)
    assert {(u["plan_hash_value"], u["id"]) for u in body["unplaced"]} == set(expected) - seen
    # the bad plan's time is on its full scan: the line with the most samples
    bad = next(p for p in body["plans"] if p["plan_hash_value"] == reg["bad_plan"])
    top = max(bad["lines"], key=lambda line: line["samples"])
    assert (top["operation"], top["options"], top["object_name"]) == ("TABLE ACCESS", "FULL", "ORDER_LINES")
    assert top["pct_cpu"] == 100.0


def test_time_by_plan_line_of_a_window_is_its_samples_by_sample_time(api, sql3, rac, reg):
    """A window of 15 minutes off the half-hour snapshots (docs/awr-rules.md §22): each line's samples are the
    statement's samples whose SAMPLE_TIME is in (from, to], not those of the snapshots around it."""
    start = datetime.fromisoformat(reg["from"]) + timedelta(minutes=37)
    end = start + timedelta(minutes=15)
    body = ok(api, f"{_base(rac, reg)}/plans?from={quote(start.isoformat())}&to={quote(end.isoformat())}")
    rows = sql3.execute(
        f"SELECT sql_plan_hash_value, sql_plan_line_id, count(*) FROM {ASH} WHERE dbid = ? AND sql_id = ? "
        "AND sample_time > ? AND sample_time <= ? GROUP BY 1, 2",
        (rac["dbid"], reg["sql_id"], f"{start:%Y-%m-%d %H:%M:%S}", f"{end:%Y-%m-%d %H:%M:%S}"),
    ).fetchall()
    expected = {(p, line): n for p, line, n in rows}
    assert body["total_samples"] == sum(expected.values()) > 0
    got = {(p["plan_hash_value"], line["id"]): line["samples"] for p in body["plans"] for line in p["lines"]}
    got |= {(u["plan_hash_value"], u["id"]): u["samples"] for u in body["unplaced"]}
    assert {k: n for k, n in got.items() if n} == expected


def test_every_ash_sample_of_a_statement_sits_on_a_line_of_its_plan(sql3, rac):
    """The demo's plan line ids are its plans' (a PL/SQL block, with no plan, has none)."""
    lines = set(
        sql3.execute(
            "SELECT sql_id, plan_hash_value, id, operation, coalesce(options, '') "
            "FROM dba_hist_sql_plan WHERE dbid = ?",
            (rac["dbid"],),
        ).fetchall()
    )
    sampled = sql3.execute(
        f"SELECT DISTINCT sql_id, sql_plan_hash_value, sql_plan_line_id, sql_plan_operation, "
        f"coalesce(sql_plan_options, '') FROM {ASH} WHERE dbid = ? AND snap_id > ? AND "
        f"sql_plan_line_id IS NOT NULL",
        (rac["dbid"], rac["snapshots"]["last_snap"] - 48),
    ).fetchall()
    assert sampled and set(sampled) <= lines


def test_buffer_gets_per_execution_follow_the_plan(sql3, rac, reg):
    """SQLSTAT's gets per execution: the full scan plan reads far more than the index plan."""
    per = dict(
        sql3.execute(
            "SELECT plan_hash_value, sum(buffer_gets_delta) * 1.0 / sum(executions_delta) FROM "
            "dba_hist_sqlstat WHERE dbid = ? AND sql_id = ? GROUP BY 1",
            (rac["dbid"], reg["sql_id"]),
        ).fetchall()
    )
    assert per[reg["bad_plan"]] > 100 * per[reg["good_plan"]]


def test_every_demo_statement_but_plsql_has_a_plan(sql3, summary):
    for db in summary.values():
        texts = dict(sql3.execute("SELECT sql_id, sql_text FROM dba_hist_sqltext WHERE dbid = ?", (db["dbid"],)))
        planned = {
            s for (s,) in sql3.execute("SELECT DISTINCT sql_id FROM dba_hist_sql_plan WHERE dbid = ?", (db["dbid"],))
        }
        assert {s for s, t in texts.items() if not t.startswith("BEGIN")} == planned
        used = sql3.execute(
            "SELECT DISTINCT s.sql_id, s.plan_hash_value FROM dba_hist_sqlstat s WHERE s.dbid = ? "
            "AND NOT EXISTS (SELECT 1 FROM dba_hist_sql_plan p WHERE p.dbid = s.dbid AND p.sql_id = "
            "s.sql_id AND p.plan_hash_value = s.plan_hash_value)",
            (db["dbid"],),
        ).fetchall()
        assert all(texts[s].startswith("BEGIN") for s, _ in used)


def test_binds_are_the_captured_values_of_the_range_as_text(api, sql3, rac, reg):
    lo, hi = rac["snapshots"]["last_snap"] - 10, rac["snapshots"]["last_snap"]
    body = ok(api, f"{_base(rac, reg)}/binds?begin_snap={lo}&end_snap={hi}")
    rows = sql3.execute(
        "SELECT snap_id, instance_number, position, name, datatype_string, value_string "
        "FROM dba_hist_sqlbind WHERE dbid = ? AND sql_id = ? AND snap_id > ? AND snap_id <= ? "
        "ORDER BY 1, 2, 3",
        (rac["dbid"], reg["sql_id"], lo, hi),
    ).fetchall()
    assert (
        rows
        and [
            (r["snap_id"], r["instance_number"], r["position"], r["name"], r["datatype"], r["value"])
            for r in body["rows"]
        ]
        == rows
    )
    assert all(isinstance(r["value"], str) for r in body["rows"])
    text = api.get(f"{_base(rac, reg)}/binds?begin_snap={lo}&end_snap={hi}&format=csv").get_data(as_text=True)
    assert [r["value"] for r in csv.DictReader(io.StringIO(text))] == [r[5] for r in rows]


def test_bind_values_look_as_oracle_shows_them(sql3):
    kinds = dict(sql3.execute("SELECT datatype_string, max(value_string) FROM dba_hist_sqlbind GROUP BY 1"))
    assert set(kinds) >= {"NUMBER", "DATE", "VARCHAR2(32)"}
    for (value,) in sql3.execute("SELECT DISTINCT value_string FROM dba_hist_sqlbind WHERE datatype_string = 'DATE'"):
        assert re.fullmatch(r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d", value)  # MM/DD/YYYY HH24:MI:SS
    hostile = sql3.execute("SELECT count(*) FROM dba_hist_sqlbind WHERE value_string LIKE '<img%'").fetchone()[0]
    assert hostile > 0


def test_a_plan_hash_value_that_is_not_there_is_404_naming_the_plans(api, rac, reg):
    err = assert_error(api.get(f"{_base(rac, reg)}/plans?plan_hash_value=12345"), 404, "plan_hash_value")
    assert str(reg["good_plan"]) in err["message"] and str(reg["bad_plan"]) in err["message"]
    err = assert_error(api.get(f"{_base(rac, reg)}/plans/diff?a={reg['good_plan']}&b=7"), 404, "b")
    assert str(reg["bad_plan"]) in err["message"]
    one = ok(api, f"{_base(rac, reg)}/plans?plan_hash_value={reg['bad_plan']}")
    assert [p["plan_hash_value"] for p in one["plans"]] == [reg["bad_plan"]]


@pytest.mark.parametrize(
    "query, parameter",
    [
        ("/plans?plan_hash_value=abc", "plan_hash_value"),
        ("/plans?plan_hash_value=-1", "plan_hash_value"),
        ("/plans?plan_hash_value=99999999999", "plan_hash_value"),
        ("/plans?phv=1", "phv"),
        ("/plans/diff", "a"),
        ("/plans/diff?a=1", "b"),
        ("/plans/diff?a=x&b=1", "a"),
        ("/binds?from=yesterday", "from"),
        ("/binds?begin_snap=1&from=2026-11-01", "from"),
        ("/plans?format=xml", "format"),
    ],
)
def test_bad_input_is_400_naming_the_parameter(api, rac, reg, query, parameter):
    assert_error(api.get(_base(rac, reg) + query), 400, parameter)


def test_unknown_statement_is_404_and_a_malformed_sql_id_400(api, rac):
    for tail in ("/plans", "/binds", "/plans/diff?a=1&b=2"):
        assert_error(api.get(f"/api/v1/dbs/{rac['id']}/sql/zzzzzzzzzzzzz{tail}"), 404, "sql_id")
        assert_error(api.get(f"/api/v1/dbs/{rac['id']}/sql/NOT-AN-ID{tail}"), 400, "sql_id")


def test_a_plsql_block_has_no_plan_and_says_why(api, sql3, rac):
    sql_id = sql3.execute(
        "SELECT sql_id FROM dba_hist_sqltext WHERE dbid = ? AND sql_text LIKE 'BEGIN%'", (rac["dbid"],)
    ).fetchone()[0]
    body = ok(api, f"/api/v1/dbs/{rac['id']}/sql/{sql_id}/plans")
    assert body["plans"] == [] and "PL/SQL" in body["reason"]


def test_the_plans_csv_is_one_row_per_line(api, rac, reg):
    body = ok(api, f"{_base(rac, reg)}/plans")
    text = api.get(f"{_base(rac, reg)}/plans?format=csv").get_data(as_text=True)
    table = list(csv.DictReader(io.StringIO(text)))
    assert len(table) == sum(len(p["lines"]) for p in body["plans"])
    assert list(table[0])[:3] == ["plan_hash_value", "id", "parent_id"]
    assert table[0]["operation"] == "SELECT STATEMENT"


def test_openapi_describes_the_three_endpoints(doc):
    for path in (
        "/api/v1/dbs/{db}/sql/{sql_id}/plans",
        "/api/v1/dbs/{db}/sql/{sql_id}/plans/diff",
        "/api/v1/dbs/{db}/sql/{sql_id}/binds",
    ):
        op = doc["paths"][path]["get"]
        assert "text/csv" in op["responses"]["200"]["content"] and "404" in op["responses"]


def test_plan_and_bind_times_carry_the_databases_offset(api, sql3, rac, reg, tz):
    """TIMESTAMP and LAST_CAPTURED are DATEs of the database's local time (docs/awr-rules.md §26): the answer gives
    them with the database's offset from the demo's own description (RACPROD: +01:00), as every other time."""
    zone = tz[rac["dbid"]]
    body = ok(api, f"{_base(rac, reg)}/plans")
    stored = dict(
        sql3.execute(
            "SELECT plan_hash_value, min(timestamp) FROM dba_hist_sql_plan WHERE dbid = ? AND sql_id = ? GROUP BY 1",
            (rac["dbid"], reg["sql_id"]),
        )
    )
    assert stored and {p["plan_hash_value"]: p["timestamp"] for p in body["plans"]} == {
        k: datetime.fromisoformat(v).replace(tzinfo=zone).isoformat(timespec="seconds") for k, v in stored.items()
    }
    lo, hi = rac["snapshots"]["last_snap"] - 10, rac["snapshots"]["last_snap"]
    rows = ok(api, f"{_base(rac, reg)}/binds?begin_snap={lo}&end_snap={hi}")["rows"]
    captured = [
        v
        for (v,) in sql3.execute(
            "SELECT last_captured FROM dba_hist_sqlbind WHERE dbid = ? AND sql_id = ? AND snap_id > ? AND "
            "snap_id <= ? ORDER BY snap_id, instance_number, position",
            (rac["dbid"], reg["sql_id"], lo, hi),
        )
    ]
    assert captured and [r["last_captured"] for r in rows] == [
        datetime.fromisoformat(v).replace(tzinfo=zone).isoformat(timespec="seconds") for v in captured
    ]
    assert all(r["last_captured"].endswith("+01:00") for r in rows)


# -- a store of a few hand-written plans: the order and alignment of the lines against rows chosen to tell them apart

DBID, SQL_ID, PLSQL_ID = 700, "4xamnunv51w9j", "7b2kq4cq0a1zs"
ORDERED, BY_INDEX_A, BY_INDEX_B, HASHED, NESTED, WIDE_A, WIDE_B, NOT_KEPT = 11, 21, 22, 31, 32, 41, 42, 99  # plans
# (plan, ID, PARENT_ID, DEPTH, POSITION, operation, options, object): as Oracle numbers them, POSITION is a line's
# place among its siblings and the statement's cost on line 0, so POSITION order is not ID order
PLAN_ROWS = [
    (ORDERED, 0, None, 0, 57, "SELECT STATEMENT", None, None),
    (ORDERED, 1, 0, 1, 1, "SORT", "ORDER BY", None),
    (ORDERED, 2, 1, 2, 1, "HASH JOIN", None, None),
    (ORDERED, 3, 2, 3, 2, "TABLE ACCESS", "FULL", "CUSTOMERS"),
    (ORDERED, 4, 2, 3, 1, "TABLE ACCESS", "FULL", "ORDERS"),
    (ORDERED, 5, 1, 2, 2, "VIEW", None, "VW_NSO_1"),
    *[
        (phv, i, parent, depth, pos, op, opt, obj)
        for phv, index in ((BY_INDEX_A, "ORDERS_CUSTOMER_IX"), (BY_INDEX_B, "ORDERS_CUSTOMER_DATE_IX"))
        for i, parent, depth, pos, op, opt, obj in (
            (0, None, 0, 4, "SELECT STATEMENT", None, None),
            (1, 0, 1, 1, "TABLE ACCESS", "BY INDEX ROWID BATCHED", "ORDERS"),
            (2, 1, 2, 1, "INDEX", "RANGE SCAN", index),
        )
    ],
    # a hash join that became nested loops under a sort: between the two matching lines (the statement, CUSTOMERS)
    # HASHED has two lines and NESTED four, so two pairs are `changed` and two lines one-sided; CUSTOMERS sits one
    # deeper in NESTED
    (HASHED, 0, None, 0, 9, "SELECT STATEMENT", None, None),
    (HASHED, 1, 0, 1, 1, "HASH JOIN", None, None),
    (HASHED, 2, 1, 2, 1, "TABLE ACCESS", "FULL", "ORDERS"),
    (HASHED, 3, 1, 2, 2, "TABLE ACCESS", "FULL", "CUSTOMERS"),
    (NESTED, 0, None, 0, 7, "SELECT STATEMENT", None, None),
    (NESTED, 1, 0, 1, 1, "SORT", "ORDER BY", None),
    (NESTED, 2, 1, 2, 1, "NESTED LOOPS", None, None),
    (NESTED, 3, 2, 3, 1, "TABLE ACCESS", "BY INDEX ROWID", "ORDERS"),
    (NESTED, 4, 3, 4, 1, "INDEX", "RANGE SCAN", "ORDERS_IX"),
    (NESTED, 5, 2, 3, 2, "TABLE ACCESS", "FULL", "CUSTOMERS"),
    # a UNION ALL of 2 rows from DUAL, and a view of 199: difflib's junk heuristic (on for 200 lines or more) would
    # take FAST DUAL, in more than 1 % of WIDE_B's lines, for junk and match none of them
    (WIDE_A, 0, None, 0, 4, "SELECT STATEMENT", None, None),
    (WIDE_A, 1, 0, 1, 1, "UNION-ALL", None, None),
    *[(WIDE_A, i, 1, 2, i - 1, "FAST DUAL", None, None) for i in (2, 3)],
    (WIDE_B, 0, None, 0, 199, "SELECT STATEMENT", None, None),
    (WIDE_B, 1, 0, 1, 1, "VIEW", None, "VW_DUALS"),
    *[(WIDE_B, i, 1, 2, i - 1, "FAST DUAL", None, None) for i in range(2, 201)],
]
# snapshot: (begin, end) local, SNAP_TIMEZONE; daylight saving starts at snapshot 3 (+01:00, then +02:00)
SNAPSHOTS = {1: ("00:00", "00:30", 3600), 2: ("00:30", "01:00", 3600), 3: ("01:00", "02:30", 7200)}
# DBA_HIST_SQLBIND: snap_id, instance, position, name, DATATYPE_STRING, WAS_CAPTURED, LAST_CAPTURED (local),
# VALUE_STRING; instance 2 has no snapshot in the history
BINDS = [
    (2, 1, 1, ":CUST", "NUMBER", "YES", "2026-03-01 00:41:07", "42"),
    (2, 1, 2, ":SINCE", "DATE", "YES", "2026-03-01 00:41:07", "02/28/2026 00:00:00"),
    (3, 1, 1, ":CUST", "NUMBER", "NO", None, None),
    (3, 2, 1, ":CUST", "NUMBER", "YES", "2026-03-01 02:20:00", "7"),
]
# a statement whose text AWR did not keep, with a plan
TEXTLESS_ID = "0g3r5bcnm8xqa"
# the statement's ASH samples of interval 2 (snapshots 1 to 2), each (plan, line, operation, options, on CPU); none
# in interval 3. ORDERED's lines 3 and 4 have samples; the rest are unplaced: no line id, a plan AWR did not keep,
# no plan hash value
SAMPLES = [
    *[(ORDERED, 3, "TABLE ACCESS", "FULL", cpu) for cpu in (True, True, False)],
    (ORDERED, 4, "TABLE ACCESS", "FULL", False),
    *[(ORDERED, None, None, None, cpu) for cpu in (True, False)],
    (NOT_KEPT, 2, "SORT", "GROUP BY", False),
    (NOT_KEPT, 1, "HASH JOIN", None, True),
    (NOT_KEPT, None, None, None, True),
    (None, None, None, None, False),
]


@pytest.fixture(scope="module")
def hand_plans(tmp_path_factory):
    import sqlite3

    from app import create_app
    from app.settings import Settings

    path = tmp_path_factory.mktemp("plans") / "plans.sqlite"
    empty_views(path)
    con = sqlite3.connect(path)
    con.execute(
        "insert into dba_hist_database_instance (dbid, instance_number, startup_time, parallel, db_name, "
        "instance_name, host_name, version, cdb) values (?, 1, '2026-03-01 00:00:00', 'NO', 'PLANS', 'PLANS', 'h', "
        "'19.0.0.0.0', 'NO')",
        (DBID,),
    )
    for snap_id, (begin, end, tz) in SNAPSHOTS.items():
        con.execute(
            "insert into dba_hist_snapshot (snap_id, dbid, instance_number, startup_time, begin_interval_time, "
            "end_interval_time, snap_flag, snap_timezone) values (?, ?, 1, '2026-03-01 00:00:00', ?, ?, 0, ?)",
            (snap_id, DBID, f"2026-03-01 {begin}:00", f"2026-03-01 {end}:00", tz),
        )
    for row in BINDS:
        con.execute(
            "insert into dba_hist_sqlbind (snap_id, dbid, instance_number, sql_id, position, name, datatype_string, "
            "was_captured, last_captured, value_string, con_dbid) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row[0], DBID, row[1], SQL_ID, *row[2:], DBID),
        )
    con.execute(
        "insert into dba_hist_sqltext (dbid, sql_id, sql_text, command_type, con_dbid) values (?, ?, ?, 3, ?)",
        (DBID, SQL_ID, "select * from orders", DBID),
    )
    con.execute(
        "insert into dba_hist_sqltext (dbid, sql_id, sql_text, command_type, con_dbid) values (?, ?, ?, 47, ?)",
        (DBID, PLSQL_ID, "BEGIN nightly_batch; END;", DBID),
    )
    for k, (phv, line, op, opt, cpu) in enumerate(SAMPLES):
        con.execute(
            "insert into dba_hist_active_sess_history (snap_id, dbid, instance_number, sample_id, sample_time, "
            "session_id, session_type, sql_id, sql_plan_hash_value, sql_plan_line_id, sql_plan_operation, "
            "sql_plan_options, session_state, con_dbid) values (2, ?, 1, ?, ?, 10, 'FOREGROUND', ?, ?, ?, ?, ?, ?, ?)",
            (DBID, k, f"2026-03-01 00:{31 + k}:00", SQL_ID, phv, line, op, opt, "ON CPU" if cpu else "WAITING", DBID),
        )
    for sql_id, (phv, i, parent, depth, pos, op, opt, obj) in [
        *[(SQL_ID, r) for r in PLAN_ROWS],
        *[(TEXTLESS_ID, r) for r in PLAN_ROWS if r[0] in (BY_INDEX_A, BY_INDEX_B)],
    ]:
        con.execute(
            "insert into dba_hist_sql_plan (dbid, sql_id, plan_hash_value, id, operation, options, object_name, "
            "parent_id, depth, position, cost, timestamp, con_dbid) values (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (DBID, sql_id, phv, i, op, opt, obj, parent, depth, pos, 10 - i, "2026-03-01 00:10:00", DBID),
        )
    con.commit()
    con.close()
    app = create_app(Settings.from_env({}, answer_cache_mb=0, targets={"p": {"sqlite": str(path)}}))
    return app.test_client(), f"/api/v1/dbs/p.{DBID}/sql/{SQL_ID}"


def test_plan_lines_are_in_id_order_whatever_their_position(hand_plans):
    """§26: a plan's lines in ID order, the plan's pre-order (each line's children after it); POSITION only orders
    siblings."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans?plan_hash_value={ORDERED}&begin_snap=1&end_snap=2")
    (plan,) = body["plans"]
    written = [r for r in PLAN_ROWS if r[0] == ORDERED]
    assert [r[4] for r in written] != sorted(r[4] for r in written)  # the check: POSITION order is not ID order
    assert [(line["id"], line["parent_id"], line["depth"], line["object_name"]) for line in plan["lines"]] == [
        (r[1], r[2], r[3], r[7]) for r in written
    ]
    text = api.get(f"{base}/plans?plan_hash_value={ORDERED}&begin_snap=1&end_snap=2&format=csv").get_data(as_text=True)
    assert [int(row["id"]) for row in csv.DictReader(io.StringIO(text))] == [r[1] for r in written]


def test_two_plans_differing_in_an_index_align_line_by_line_and_mark_the_index(hand_plans):
    """§26: aligned on (operation, options, object name), the two plans' lines pair up in order; the index line is
    `changed` with each plan's index, every other line `same`."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans/diff?a={BY_INDEX_A}&b={BY_INDEX_B}")
    got = [
        (r["change"], r["a"]["id"], r["b"]["id"], r["a"]["object_name"], r["b"]["object_name"]) for r in body["rows"]
    ]
    assert got == [
        ("same", 0, 0, None, None),
        ("same", 1, 1, "ORDERS", "ORDERS"),
        ("changed", 2, 2, "ORDERS_CUSTOMER_IX", "ORDERS_CUSTOMER_DATE_IX"),
    ]
    assert body["differing"] == 1


def test_two_plans_differing_in_their_joins_pair_the_unmatched_lines_in_order(hand_plans):
    """§26: between the matched lines (the statement, CUSTOMERS), HASHED's two lines and NESTED's four are paired in
    order, `changed`, and NESTED's last two are `only_b`; CUSTOMERS, matched one deeper, is `moved`. Swapping a and b
    gives the mirror: `only_a`."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans/diff?a={HASHED}&b={NESTED}")
    got = [(r["change"], r["a"] and r["a"]["id"], r["b"] and r["b"]["id"]) for r in body["rows"]]
    assert got == [
        ("same", 0, 0),
        ("changed", 1, 1),
        ("changed", 2, 2),
        ("only_b", None, 3),
        ("only_b", None, 4),
        ("moved", 3, 5),
    ]
    assert (body["a"], body["b"], body["differing"], body["sql_id"], body["db"]) == (
        HASHED,
        NESTED,
        4,
        SQL_ID,
        f"p.{DBID}",
    )
    mirror = ok(api, f"{base}/plans/diff?a={NESTED}&b={HASHED}")
    assert [(r["change"], r["a"] and r["a"]["id"], r["b"] and r["b"]["id"]) for r in mirror["rows"]] == [
        ("same", 0, 0),
        ("changed", 1, 1),
        ("changed", 2, 2),
        ("only_a", 3, None),
        ("only_a", 4, None),
        ("moved", 5, 3),
    ]
    assert mirror["differing"] == 4


def test_the_diff_csv_is_its_columns_each_sides_line_fields(hand_plans):
    """The CSV of a diff has the answer's `columns`: `change`, then fields of a plan line (the answer's line, as
    /plans gives it) for side a, then the same for b, empty where the row has no line of that side."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans/diff?a={HASHED}&b={NESTED}")
    text = api.get(f"{base}/plans/diff?a={HASHED}&b={NESTED}&format=csv").get_data(as_text=True)
    header, *cells = list(csv.reader(io.StringIO(text)))
    assert header == body["columns"] and header[0] == "change"
    fields = [c[2:] for c in header[1:] if c.startswith("a_")]
    assert header[1:] == [f"{side}_{k}" for side in "ab" for k in fields]
    assert {"id", "depth", "operation", "options", "object_name"} <= set(fields) <= set(body["rows"][0]["a"])
    for row, r in zip(cells, body["rows"], strict=True):
        expected = [r["change"]] + [
            "" if r[side] is None or r[side][k] is None else str(r[side][k]) for side in "ab" for k in fields
        ]
        assert row == expected


def test_the_plans_csv_is_its_columns_one_row_per_line(hand_plans):
    """The CSV of /plans: `plan_hash_value` and a plan line's fields as the answer's schema lists them, in order."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans?begin_snap=1&end_snap=2")
    text = api.get(f"{base}/plans?begin_snap=1&end_snap=2&format=csv").get_data(as_text=True)
    header, *cells = list(csv.reader(io.StringIO(text)))
    assert (
        header
        == body["columns"]
        == [
            "plan_hash_value",
            "id",
            "parent_id",
            "depth",
            "position",
            "operation",
            "options",
            "object_owner",
            "object_name",
            "cost",
            "cardinality",
            "bytes",
            "cpu_cost",
            "io_cost",
            "time",
            "access_predicates",
            "filter_predicates",
            "samples",
            "pct_samples",
            "pct_cpu",
            "pct_wait",
        ]
    )
    lines = [(p["plan_hash_value"], line) for p in body["plans"] for line in p["lines"]]
    assert len(cells) == len(lines) == len(PLAN_ROWS)
    for row, (phv, line) in zip(cells, lines, strict=True):
        assert row == [str(phv)] + ["" if line[k] is None else str(line[k]) for k in header[1:]]


def _shares(samples, on_cpu, total):
    """§26's shares of a line, worked out from the counts: % of the statement's samples, % on CPU, % waiting."""
    return {
        "samples": samples,
        "pct_samples": round(100 * samples / total, 4) if total else None,
        "pct_cpu": round(100 * on_cpu / samples, 4) if samples else None,
        "pct_wait": round(100 * (samples - on_cpu) / samples, 4) if samples else None,
    }


def test_time_by_plan_line_and_the_unplaced_samples_add_up_to_the_statements(hand_plans):
    """§26: each line's samples of the range, % of all the statement's samples (every plan's), % on CPU and waiting;
    the samples on no line of a plan shown (no line id, a plan AWR did not keep, no plan) under `unplaced`, by plan
    hash value then line, those without either last."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans?begin_snap=1&end_snap=2")
    assert body["total_samples"] == len(SAMPLES) == 10
    assert [(p["plan_hash_value"], p["samples"]) for p in body["plans"]] == [
        (ORDERED, 4),
        (BY_INDEX_A, 0),
        (BY_INDEX_B, 0),
        (HASHED, 0),
        (NESTED, 0),
        (WIDE_A, 0),
        (WIDE_B, 0),
    ]
    ordered = body["plans"][0]["lines"]
    for line in ordered:
        expected = {3: _shares(3, 2, 10), 4: _shares(1, 0, 10)}.get(line["id"], _shares(0, 0, 10))
        assert {k: line[k] for k in expected} == expected, line
    assert _shares(3, 2, 10) == {"samples": 3, "pct_samples": 30.0, "pct_cpu": 66.6667, "pct_wait": 33.3333}
    assert body["unplaced"] == [
        {"plan_hash_value": ORDERED, "id": None, "operation": None, "options": None, **_shares(2, 1, 10)},
        {"plan_hash_value": NOT_KEPT, "id": 1, "operation": "HASH JOIN", "options": None, **_shares(1, 1, 10)},
        {"plan_hash_value": NOT_KEPT, "id": 2, "operation": "SORT", "options": "GROUP BY", **_shares(1, 0, 10)},
        {"plan_hash_value": NOT_KEPT, "id": None, "operation": None, "options": None, **_shares(1, 1, 10)},
        {"plan_hash_value": None, "id": None, "operation": None, "options": None, **_shares(1, 0, 10)},
    ]
    placed = sum(line["samples"] for p in body["plans"] for line in p["lines"])
    assert placed + sum(u["samples"] for u in body["unplaced"]) == body["total_samples"]
    assert (body["db"], body["sql_id"], "reason" in body) == (f"p.{DBID}", SQL_ID, False)
    assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (1, 2)
    newest = f"+0{SNAPSHOTS[max(SNAPSHOTS)][2] // 3600}:00"  # TIMESTAMP, database time, with the database's offset
    assert {(p["con_dbid"], p["timestamp"]) for p in body["plans"]} == {(DBID, "2026-03-01T00:10:00" + newest)}


def test_one_plan_asked_keeps_its_share_of_every_plans_samples(hand_plans):
    """§26: with `plan_hash_value=`, a line's % is still of all the statement's samples; `unplaced` holds that
    plan's samples on no line only."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans?plan_hash_value={ORDERED}&begin_snap=1&end_snap=2")
    assert body["total_samples"] == 10 and [p["plan_hash_value"] for p in body["plans"]] == [ORDERED]
    assert body["plans"][0]["lines"][3]["pct_samples"] == 30.0
    assert [(u["plan_hash_value"], u["id"], u["samples"]) for u in body["unplaced"]] == [(ORDERED, None, 2)]


def test_a_range_without_samples_has_no_shares(hand_plans):
    """An interval where the statement has no ASH sample: every line 0 samples, no % (nothing to divide)."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans?begin_snap=2&end_snap=3")
    assert (body["total_samples"], body["unplaced"]) == (0, [])
    assert all(p["samples"] == 0 for p in body["plans"])
    for line in (line for p in body["plans"] for line in p["lines"]):
        assert {k: line[k] for k in ("samples", "pct_samples", "pct_cpu", "pct_wait")} == _shares(0, 0, 0)


def test_a_plan_asked_of_a_statement_without_plans_is_404_naming_none(hand_plans):
    """§26: a PL/SQL block has no plan: asking for one names the plans the history holds, none."""
    api, base = hand_plans
    base = base.replace(SQL_ID, PLSQL_ID)
    body = ok(api, f"{base}/plans")
    assert body["plans"] == [] and "DBA_HIST_SQL_PLAN" in body["reason"] and "PL/SQL block" in body["reason"]
    err = assert_error(api.get(f"{base}/plans?plan_hash_value=5"), 404, "plan_hash_value")
    assert err["message"].endswith("its plans: none")
    assert_error(api.get(f"{base}/plans/diff?a=5&b=6"), 404, "a")
    err = assert_error(api.get(f"{base.replace(PLSQL_ID, SQL_ID)}/plans?plan_hash_value=5"), 404, "plan_hash_value")
    held = ", ".join(str(phv) for phv in sorted({r[0] for r in PLAN_ROWS}))  # every plan of the statement, listed
    assert err["message"].endswith(f"its plans: {held}")


def test_binds_carry_their_snapshots_time_and_offset(hand_plans):
    """§26: each captured bind of the range's intervals with its snapshot's end and LAST_CAPTURED given with that
    snapshot's own offset (SNAP_TIMEZONE), not the newest snapshot's: +01:00 before daylight saving, +02:00 after;
    an instance with no snapshot there has no time, and its LAST_CAPTURED has the database's offset (§17)."""
    api, base = hand_plans
    body = ok(api, f"{base}/binds?begin_snap=1&end_snap=3")
    ends = {(snap, 1): f"2026-03-01T{end}:00+0{tz // 3600}:00" for snap, (_, end, tz) in SNAPSHOTS.items()}
    newest = ends[3, 1][-6:]
    assert body["rows"] == [
        {
            "snap_id": snap,
            "instance_number": inst,
            "time": ends.get((snap, inst)),
            "position": position,
            "name": name,
            "datatype": datatype,
            "value": value,
            "was_captured": captured,
            "last_captured": last and last.replace(" ", "T") + ends.get((snap, inst), newest)[-6:],
            "con_dbid": DBID,
        }
        for snap, inst, position, name, datatype, captured, last, value in BINDS
    ]
    assert ends[2, 1].endswith("+01:00") and newest == "+02:00"
    assert (body["db"], body["sql_id"], body["range"]["begin_snap"], body["range"]["end_snap"]) == (
        f"p.{DBID}",
        SQL_ID,
        1,
        3,
    )
    text = api.get(f"{base}/binds?begin_snap=1&end_snap=3&format=csv").get_data(as_text=True)
    header, *cells = list(csv.reader(io.StringIO(text)))
    assert header == body["columns"] == list(body["rows"][0])
    assert len(cells) == len(BINDS)
    assert ok(api, f"{base}/binds?begin_snap=1&end_snap=2")["rows"] == body["rows"][:2]
    assert ok(api, f"{base.replace(SQL_ID, PLSQL_ID)}/binds?begin_snap=1&end_snap=3")["rows"] == []


def test_a_statement_with_a_plan_and_no_text_is_known(hand_plans):
    """§26: the history holds a plan of it, so its plans and their diff are answered, not a 404; a range where no
    snapshot falls has no binds (and no error)."""
    api, base = hand_plans
    base = base.replace(SQL_ID, TEXTLESS_ID)
    assert [p["plan_hash_value"] for p in ok(api, f"{base}/plans")["plans"]] == [BY_INDEX_A, BY_INDEX_B]
    assert ok(api, f"{base}/plans/diff?a={BY_INDEX_A}&b={BY_INDEX_B}")["differing"] == 1
    inside = "from=2026-02-28T23:40:00Z&to=2026-02-28T23:50:00Z"  # within interval 2: no snapshot falls in it
    binds = ok(api, f"{base.replace(TEXTLESS_ID, SQL_ID)}/binds?{inside}")
    assert (binds["range"]["begin_snap"], binds["rows"]) == (None, [])
    plans = ok(api, f"{base.replace(TEXTLESS_ID, SQL_ID)}/plans?{inside}")
    assert (plans["range"]["begin_snap"], plans["total_samples"], plans["unplaced"]) == (None, 0, [])


def test_a_long_plan_is_aligned_without_the_junk_heuristic(hand_plans):
    """§26: difflib without its junk heuristic: WIDE_B's 199 FAST DUAL lines still match WIDE_A's two, in order."""
    api, base = hand_plans
    body = ok(api, f"{base}/plans/diff?a={WIDE_A}&b={WIDE_B}")
    got = [(r["change"], r["a"] and r["a"]["id"], r["b"] and r["b"]["id"]) for r in body["rows"]]
    assert got == [
        ("same", 0, 0),
        ("changed", 1, 1),
        ("same", 2, 2),
        ("same", 3, 3),
        *[("only_b", None, j) for j in range(4, 201)],
    ]
    assert body["differing"] == 1 + 197
