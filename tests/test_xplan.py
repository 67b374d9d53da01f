"""A plan as DBMS_XPLAN.DISPLAY_AWR prints it (docs/awr-rules.md §34): the layout checked on a plan written in the
test against text laid out as Oracle prints it, the number formats against values Oracle printed, and every plan of
the demo read back from the text against the store's rows."""

import re
import sqlite3

import pytest
from conftest import assert_error
from histories import empty_views

from app.history import xplan


def line(i, depth, op, options=None, name=None, rows=None, nbytes=None, cost=None, io=None, time=None, **pred):
    return {
        "id": i,
        "depth": depth,
        "operation": op,
        "options": options,
        "object_name": name,
        "cardinality": rows,
        "bytes": nbytes,
        "cost": cost,
        "io_cost": io,
        "time": time,
        "access_predicates": pred.get("access"),
        "filter_predicates": pred.get("filter"),
    }


# A plan shaped after Oracle's DBMS_XPLAN.DISPLAY example on DBA_OBJECTS: its sizes as Oracle printed them (1179 rows
# of 88 bytes is 101K; 1,000,000 rows and 19,000,000 bytes, 1000K and 18M)
PLAN = {
    "plan_hash_value": 2325770649,
    "notes": ["dynamic statistics used: dynamic sampling (level=2)"],
    "lines": [
        line(0, 0, "SELECT STATEMENT", cost=7),
        line(1, 1, "SORT", "ORDER BY", rows=1025, nbytes=85075, cost=7, io=5, time=1),
        line(2, 2, "NESTED LOOPS", rows=1179, nbytes=103752, cost=4, io=3, time=1),
        line(3, 3, "TABLE ACCESS", "BY INDEX ROWID", "USER$", rows=1, nbytes=14, cost=1, io=1, time=1),
        line(4, 4, "INDEX", "UNIQUE SCAN", "I_USER1", rows=1, cost=0, io=0, time=1, access='"U"."NAME"=\'SYS\''),
        line(
            5,
            3,
            "TABLE ACCESS",
            "FULL",
            "OBJ$",
            1_000_000,
            19_000_000,
            1059,
            1049,
            13,
            access='"O"."OWNER#"="U"."USER#"',
            filter='"O"."TYPE#"<>10',
        ),
    ],
}
HEAD = "| Id  | Operation                     | Name    | Rows  | Bytes | Cost (%CPU)| Time     |"
RULE = "-" * len(HEAD)
EXPECTED = f"""\
SQL_ID 0123456789abc
--------------------
select object_name from dba_objects where owner = 'SYS' order by object_name

Plan hash value: 2325770649

{RULE}
{HEAD}
{RULE}
|   0 | SELECT STATEMENT              |         |       |       |     7 (100)|          |
|   1 |  SORT ORDER BY                |         |  1025 | 85075 |     7  (29)| 00:00:01 |
|   2 |   NESTED LOOPS                |         |  1179 |   101K|     4  (25)| 00:00:01 |
|   3 |    TABLE ACCESS BY INDEX ROWID| USER$   |     1 |    14 |     1   (0)| 00:00:01 |
|*  4 |     INDEX UNIQUE SCAN         | I_USER1 |     1 |       |     0   (0)| 00:00:01 |
|*  5 |    TABLE ACCESS FULL          | OBJ$    |  1000K|    18M|  1059   (1)| 00:00:13 |
{RULE}

Predicate Information (identified by operation id):
---------------------------------------------------

   4 - access("U"."NAME"='SYS')
   5 - access("O"."OWNER#"="U"."USER#")
       filter("O"."TYPE#"<>10)

Note
-----
   - dynamic statistics used: dynamic sampling (level=2)
"""


def test_the_layout_is_oracles():
    """§34 step by step: header, plan table (tight operation and cost columns, sizes with their suffix in place of the
    space), predicates with filter under access, the note."""
    sql = "select object_name from dba_objects where owner = 'SYS' order by object_name"
    assert xplan.text("0123456789abc", sql, PLAN) == EXPECTED


@pytest.mark.parametrize(
    "value, base, printed",
    [
        (None, 1000, ""),
        (0, 1000, "0"),
        (99_999, 1000, "99999"),
        (100_000, 1000, "100K"),
        (1_000_000, 1000, "1000K"),
        (9_999_999, 1000, "9999K"),
        (10_000_000, 1000, "10M"),
        (48_000_000, 1000, "48M"),
        (103_752, 1024, "101K"),
        (10_000_000, 1024, "9765K"),
        (19_000_000, 1024, "18M"),
        (5 * 1024**4, 1024, "5120G"),
        (50 * 1024**4, 1024, "50T"),
        (10**21, 1000, "1000E"),
    ],
)
def test_sizes_fit_in_five_characters(value, base, printed):
    """Rows by 1000, bytes by 1024, truncated until 4 digits or fewer remain (§34); Oracle printed 1000K for a
    million rows and 101K for 103,752 bytes."""
    assert xplan.size(value, base) == printed


@pytest.mark.parametrize(
    "cost, io, printed",
    [
        (5, None, "    5 (100)"),
        (7, 5, "    7  (29)"),
        (1059, 1049, " 1059   (1)"),
        (0, 0, "    0   (0)"),
        (3, 2, "    3  (33)"),
        (131_000, 125_760, " 131K   (4)"),
    ],
)
def test_the_cost_and_its_cpu_share(cost, io, printed):
    line_ = {"cost": cost, "io_cost": io}
    assert xplan.cost_cell(line_) == printed
    assert xplan.cost_cell({"cost": None, "io_cost": None}) == ""


@pytest.mark.parametrize(
    "seconds, printed", [(None, ""), (0, "00:00:00"), (1, "00:00:01"), (329, "00:05:29"), (3600 * 27 + 61, "27:01:01")]
)
def test_time_is_hours_minutes_seconds(seconds, printed):
    assert xplan.clock(seconds) == printed


@pytest.mark.parametrize(
    "other_xml, notes",
    [
        (None, []),
        ("", []),
        ("<other_xml><info type=\"db_version\">19.0.0.0</info></other_xml>", []),
        (
            "<other_xml><info type=\"dynamic_sampling\" note=\"y\">11</info></other_xml>",
            ["dynamic statistics used: dynamic sampling (level=11)"],
        ),
        ("<other_xml><info type=\"dynamic_sampling\" note=\"n\">2</info></other_xml>", []),
        (
            "<other_xml><info type=\"sql_profile\">PROF_1</info><info type=\"adaptive_plan\" note=\"y\">yes</info>"
            "<info type=\"baseline\">SQL_PLAN_a1</info></other_xml>",
            [
                'SQL profile "PROF_1" used for this statement',
                "this is an adaptive plan",
                'SQL plan baseline "SQL_PLAN_a1" used for this statement',
            ],
        ),
        ("<other_xml><info type=\"cardinality_feedback\">yes</info>", []),  # not well-formed: no notes, no error
    ],
)
def test_notes_from_other_xml(other_xml, notes):
    assert xplan.notes(other_xml) == notes


def test_a_plan_without_predicates_or_notes_prints_neither_section():
    plan = {"plan_hash_value": 1, "notes": [], "lines": [line(0, 0, "INSERT STATEMENT", cost=2)]}
    text = xplan.text("0123456789abc", None, plan)
    assert "Predicate Information" not in text and "Note" not in text
    assert "(the statement's text is not in AWR)" in text
    # the columns no line has a value for are left out; the operation's widest cell runs up to the bar
    assert "\n| Id  | Operation       | Name | Cost (%CPU)|\n" in text
    assert "\n|   0 | INSERT STATEMENT|      |     2 (100)|\n" in text


def test_wide_ids_widen_the_id_column_and_the_predicates():
    plan = {
        "plan_hash_value": 1,
        "notes": [],
        "lines": [line(i, min(i, 3), "VIEW", cost=1) for i in range(1000)] + [line(1000, 1, "FILTER", filter="1=1")],
    }
    text = xplan.text("0123456789abc", "x", plan)
    assert "| Id   |" in text and "|*1000 |" in text and "|    0 |" in text  # the mark abuts a wide id, as "|*101 |"
    assert "\n 1000 - filter(1=1)\n" in text  # right-aligned in the largest id's digits and one, at least 4


# -- every demo plan, read back from its text -----------------------------------------------------------------------

ROW = re.compile(r"^\|([* ])\s*(\d+) \| (.*?)\|(.*?)\|(.*?)\|(.*?)\|(.*?)\|(.*?)\|$")


def _size_back(cell: str, value, base: int):
    """A printed size against the stored value: as it is up to 99999; else the value divided by base^k (truncated)
    is the digits printed, k the suffix's place in KMGTPE, and the digits are 4 or fewer."""
    cell = cell.strip()
    if value is None:
        return cell == ""
    if value <= 99_999:
        return cell == str(value)
    digits, suffix = cell[:-1], cell[-1]
    k = "KMGTPE".index(suffix) + 1
    return len(digits) <= 4 and int(digits) == int(value) // base**k and len(str(int(value) // base ** (k - 1))) > 4


@pytest.fixture(scope="module")
def demo_plans(demo_store):
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT d.db_name, p.sql_id, p.plan_hash_value, p.id, p.depth, p.operation, p.options, p.object_name, "
        "p.cardinality, p.bytes, p.cost, p.io_cost, p.time, p.access_predicates, p.filter_predicates, p.other_xml "
        "FROM dba_hist_sql_plan p JOIN (SELECT DISTINCT dbid, db_name FROM dba_hist_database_instance) d "
        "ON d.dbid = p.dbid ORDER BY 1, 2, 3, 4"
    ).fetchall()
    # Statspack's plans: STATS$SQL_PLAN for each statement STATS$SQL_PLAN_USAGE says used it, without OTHER_XML
    rows += con.execute(
        "SELECT DISTINCT d.db_name, u.sql_id, p.plan_hash_value, p.id, p.depth, p.operation, p.options, "
        "p.object_name, p.cardinality, p.bytes, p.cost, p.io_cost, p.time, p.access_predicates, p.filter_predicates, "
        "NULL FROM stats$sql_plan p JOIN stats$sql_plan_usage u ON u.plan_hash_value = p.plan_hash_value "
        "JOIN stats$database_instance d ON d.dbid = u.dbid ORDER BY 1, 2, 3, 4"
    ).fetchall()
    texts = dict(con.execute("SELECT sql_id, sql_text FROM dba_hist_sqltext").fetchall())
    con.close()
    plans = {}
    for r in rows:
        plans.setdefault(r[:3], []).append(r[3:])
    return plans, texts


@pytest.mark.slow  # every sampled plan of the demo: over half a second
def test_every_demo_plan_reads_back_as_its_rows(api, summary, demo_plans):
    """For a sample of each database's plans: each row of the plan table is its line's id, depth, operation and
    options, name, sizes (the rule read backwards), cost with (cost − IO_COST)/cost, TIME as HH:MM:SS, and a '*'
    exactly where it has predicates; the predicate section lists each; the notes are line 1's OTHER_XML's."""
    plans, texts = demo_plans
    ids = {d["db_name"]: d["id"] for d in summary.values()}
    by_db: dict = {}
    for key in plans:
        by_db.setdefault(key[0], []).append(key)
    checked = 0
    for db, keys in by_db.items():
        for key in keys[:: max(1, len(keys) // 25)]:
            _, sql_id, phv = key
            r = api.get(f"/api/v1/dbs/{ids[db]}/sql/{sql_id}/plans/xplan?plan_hash_value={phv}")
            assert r.status_code == 200, r.get_data(as_text=True)
            body = r.get_json()
            assert body["plan_hash_value"] == phv and body["format"] == "TYPICAL"
            text = body["text"]
            head = f"SQL_ID {sql_id}\n{'-' * (7 + len(sql_id))}\n"
            assert text.startswith(head) and f"\n\nPlan hash value: {phv}\n" in text
            assert db == "BILLING" or text.startswith(f"{head}{texts[sql_id]}\n\n")  # Statspack's text in pieces
            printed = [ROW.match(t) for t in text.splitlines() if ROW.match(t)]
            lines = plans[key]
            assert len(printed) == len(lines)
            for m, (i, depth, op, opt, name, rows, nbytes, cost, io, secs, acc, flt, _) in zip(
                printed, lines, strict=True
            ):
                assert int(m[2]) == i and (m[1] == "*") == bool(acc or flt)
                assert m[3].rstrip() == " " * depth + " ".join(x for x in (op, opt) if x)
                assert m[4].strip() == (name or "")
                assert _size_back(m[5], rows, 1000) and _size_back(m[6], nbytes, 1024), (m[0], rows, nbytes)
                share = round(100 * (cost - (io or 0)) / cost) if cost else 0
                c, pct = re.match(r"\s*(\S+)\s+\((\d+)\)$", m[7]).groups()
                assert _size_back(c, cost, 1000) and int(pct) == share
                assert m[8].strip() == (
                    "" if secs is None else f"{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
                )
                for kind, pred in (("access", acc), ("filter", flt)):
                    if pred:
                        assert f"{kind}({pred})" in text
            notes = (
                [n for n in re.findall(r'type="(\w+)"[^>]*>([^<]*)<', lines[1][-1] or "") if n[0] == "dynamic_sampling"]
                if len(lines) > 1
                else []
            )
            for _, level in notes:
                assert f"   - dynamic statistics used: dynamic sampling (level={level})" in text
            assert ("\nNote\n-----\n" in text) == bool(notes)
            checked += 1
    assert checked >= 50 and len(by_db) == 3


def test_the_regressions_bad_plan_carries_its_note_and_the_good_one_none(api, rac, stories):
    reg = stories["plan_regression"]
    base = f"/api/v1/dbs/{rac['id']}/sql/{reg['sql_id']}/plans"
    bad = api.get(f"{base}/xplan?plan_hash_value={reg['bad_plan']}&format=text")
    assert bad.status_code == 200 and bad.mimetype == "text/plain"
    good = api.get(f"{base}/xplan?plan_hash_value={reg['good_plan']}").get_json()["text"]
    assert "dynamic sampling (level=2)" in bad.get_data(as_text=True) and "Note" not in good
    plans = {p["plan_hash_value"]: p for p in api.get(f"{base}?plan_hash_value={reg['bad_plan']}").get_json()["plans"]}
    assert plans[reg["bad_plan"]]["notes"] == ["dynamic statistics used: dynamic sampling (level=2)"]


@pytest.mark.parametrize(
    "query, status, parameter",
    [
        ("", 400, "plan_hash_value"),
        ("plan_hash_value=abc", 400, "plan_hash_value"),
        ("plan_hash_value=5", 404, "plan_hash_value"),
        ("plan_hash_value=5&format=csv", 400, "format"),
    ],
)
def test_bad_input_names_the_parameter(api, rac, stories, query, status, parameter):
    reg = stories["plan_regression"]
    r = api.get(f"/api/v1/dbs/{rac['id']}/sql/{reg['sql_id']}/plans/xplan?{query}")
    assert_error(r, status, parameter)
    if status == 404:
        assert str(reg["good_plan"]) in r.get_json()["error"]["message"]


def test_an_unknown_statement_is_404_and_a_malformed_sql_id_400(api, rac):
    assert_error(api.get(f"/api/v1/dbs/{rac['id']}/sql/zzzzzzzzzzzzz/plans/xplan?plan_hash_value=1"), 404, "sql_id")
    assert_error(api.get(f"/api/v1/dbs/{rac['id']}/sql/NOT-AN-ID/plans/xplan?plan_hash_value=1"), 400, "sql_id")


def test_openapi_documents_json_and_the_plain_text(doc):
    op = doc["paths"]["/api/v1/dbs/{db}/sql/{sql_id}/plans/xplan"]["get"]
    assert set(op["responses"]["200"]["content"]) == {"application/json", "text/plain"}
    assert {p["name"] for p in op["parameters"]} >= {"db", "sql_id", "plan_hash_value", "format"}


# -- a CDB root's plan of two containers, and a statement whose text AWR did not keep ------------------------------

CDB_DBID, PDB_A, PDB_B, SHOWN, TEXTLESS = 900, 901, 902, "5bq8kx2mw1c0z", "6cr9ly3nx2d1a"


@pytest.fixture(scope="module")
def cdb_plans(tmp_path_factory):
    """A store (the AWR views' schema) holding plan 77 of SHOWN in two PDBs, with its text, and plan 78 of TEXTLESS,
    without."""

    from app import create_app
    from app.settings import Settings

    path = tmp_path_factory.mktemp("xplan") / "cdb.sqlite"
    empty_views(path)
    con = sqlite3.connect(path)
    con.execute(
        "insert into dba_hist_database_instance (dbid, instance_number, startup_time, parallel, db_name, "
        "instance_name, host_name, version, cdb) values (?, 1, '2026-03-01 00:00:00', 'NO', 'CDB1', 'CDB1', 'h', "
        "'19.0.0.0.0', 'YES')",
        (CDB_DBID,),
    )
    for snap in (1, 2):
        con.execute(
            "insert into dba_hist_snapshot (snap_id, dbid, instance_number, startup_time, begin_interval_time, "
            "end_interval_time, snap_flag, snap_timezone) values (?, ?, 1, '2026-03-01 00:00:00', ?, ?, 0, 0)",
            (snap, CDB_DBID, f"2026-03-01 0{snap - 1}:00:00", f"2026-03-01 0{snap}:00:00"),
        )
    con.execute(
        "insert into dba_hist_sqltext (dbid, sql_id, sql_text, command_type, con_dbid) values (?, ?, ?, 3, ?)",
        (CDB_DBID, SHOWN, "select * from t", PDB_A),
    )
    for sql_id, phv, con_dbid, cost in ((SHOWN, 77, PDB_A, 3), (SHOWN, 77, PDB_B, 5), (TEXTLESS, 78, PDB_A, 2)):
        for i, op in enumerate(("SELECT STATEMENT", "TABLE ACCESS")):
            con.execute(
                "insert into dba_hist_sql_plan (dbid, sql_id, plan_hash_value, id, operation, options, object_name, "
                "parent_id, depth, position, cost, timestamp, con_dbid) values (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    CDB_DBID,
                    sql_id,
                    phv,
                    i,
                    op,
                    "FULL" if i else None,
                    "T" if i else None,
                    i - 1 if i else None,
                    i,
                    i or cost,
                    cost,
                    "2026-03-01 00:10:00",
                    con_dbid,
                ),
            )
    con.commit()
    con.close()
    app = create_app(Settings.from_env({}, answer_cache_mb=0, targets={"x": {"sqlite": str(path)}}))
    return app.test_client(), f"/api/v1/dbs/x.{CDB_DBID}/sql"


def test_a_cdb_roots_plan_prints_once_per_container_that_captured_it(cdb_plans):
    """§34 in a CDB root: a plan captured by two PDBs prints as two plans, one after the other with a blank line
    between, each its own costs; the answer names the database and the statement."""
    api, base = cdb_plans
    body = api.get(f"{base}/{SHOWN}/plans/xplan", query_string={"plan_hash_value": 77}).get_json()
    assert body["db"] == f"x.{CDB_DBID}" and body["sql_id"] == SHOWN and body["plan_hash_value"] == 77
    first, second = body["text"].split("\n\nSQL_ID ")
    assert first.startswith(f"SQL_ID {SHOWN}\n") and second.startswith(f"{SHOWN}\n")
    assert "|     3 (100)|" in first and "|     5 (100)|" in second
    assert first.endswith("-") and body["text"].count("Plan hash value: 77") == 2  # one blank line between


def test_a_plan_whose_text_awr_did_not_keep_prints_and_says_so(cdb_plans):
    api, base = cdb_plans
    r = api.get(f"{base}/{TEXTLESS}/plans/xplan", query_string={"plan_hash_value": 78, "format": "text"})
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.get_data(as_text=True).startswith(
        f"SQL_ID {TEXTLESS}\n--------------------\n(the statement's text is not in AWR)\n"
    )
    unknown = api.get(f"{base}/zzzzzzzzzzzzz/plans/xplan", query_string={"plan_hash_value": 78})
    assert "zzzzzzzzzzzzz" in assert_error(unknown, 404, "sql_id")["message"]
