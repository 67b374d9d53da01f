"""Oracle's own reports (docs/awr-rules.md §27, issues 13 and 14): the demo's stored AWR and SQL monitor reports served
as isolated documents, the monitored executions of a statement, and on Oracle the calls to DBMS_WORKLOAD_REPOSITORY and
DBMS_AUTO_REPORT with the real python-oracledb driver against the loopback stand-in (tests/fake_oracle.py), a missing
grant answered with the grant named. Expectations come from the store's rows read with plain SQL."""

import re
import shutil
import sqlite3
import time
import zlib
from datetime import datetime

import pytest
from conftest import ORACLE_PASSWORD as PASSWORD
from conftest import ORCL, assert_error
from sqlalchemy.dialects import oracle

from app import create_app
from app.history.oracle_reports import summary
from app.settings import Settings
from app.store.awr import queries
from app.store.awr.views import views

RAC = 3120466125


def stored_reports(sql3, dbid):
    return sql3.execute(
        "select kind, instances, begin_snap, end_snap, begin_snap2, end_snap2, type, report from "
        "awrlens_awr_reports where dbid = ? order by begin_snap, kind, instances, type",
        (dbid,),
    ).fetchall()


def url_of(db, kind, instances, lo, hi, lo2, hi2, kind_type):
    if kind.endswith("diff"):
        return (
            f"/api/v1/dbs/{db}/awr-report/compare?a_begin_snap={lo}&a_end_snap={hi}&b_begin_snap={lo2}"
            f"&b_end_snap={hi2}&instance={instances}&type={kind_type}"
        )
    return f"/api/v1/dbs/{db}/awr-report?begin_snap={lo}&end_snap={hi}&instance={instances}&type={kind_type}"


def assert_isolated(resp, kind_type):
    """A report is a document of its own that can run nothing and reach nothing (app/api/oracle_reports.py)."""
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    assert resp.mimetype == ("text/html" if kind_type == "html" else "text/plain")
    csp = [d.strip() for d in resp.headers["Content-Security-Policy"].split(";")]
    assert "sandbox" in csp and "default-src 'none'" in csp  # a bare sandbox: no allow-scripts, no allow-same-origin
    assert "base-uri 'none'" in csp  # a <base href> in the report cannot re-point its links
    assert resp.headers["X-Content-Type-Options"] == "nosniff"


# -- the demo's AWR reports ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dbid", [ORCL, RAC])
def test_every_stored_awr_report_is_listed_and_served_as_stored_isolated(client, sql3, dbid):
    rows = stored_reports(sql3, dbid)
    kinds = {r[0] for r in rows}
    assert kinds == ({"report", "diff"} if dbid == ORCL else {"report", "global", "global_diff"})
    listed = client.get(f"/api/v1/dbs/demo.{dbid}/awr-report/stored").get_json()
    assert listed["any_range"] is False
    assert sorted(
        (r["kind"], ",".join(map(str, r["instances"])), r["begin_snap"], r["end_snap"], t)
        for r in listed["reports"]
        for t in r["types"]
    ) == sorted((*r[:4], r[6]) for r in rows)
    for kind, inst, lo, hi, lo2, hi2, kind_type, blob in rows:
        resp = client.get(url_of(f"demo.{dbid}", kind, inst, lo, hi, lo2, hi2, kind_type))
        assert_isolated(resp, kind_type)
        assert resp.get_data() == zlib.decompress(blob)
        name = re.fullmatch(r'inline; filename="(.+)"', resp.headers["Content-Disposition"]).group(1)
        db_name = "ORCL" if dbid == ORCL else "RACPROD"
        assert name.startswith(("awrrpt_", "awrgrpt_", "awrdiff_", "awrgdiff_")) and f"_{db_name}_" in name
        assert f"_{lo}_{hi}" in name and name.endswith(".html" if kind_type == "html" else ".txt")


def test_a_download_is_an_attachment_and_a_cached_answer_keeps_the_isolation(client, sql3):
    kind, inst, lo, hi, lo2, hi2, _, _ = stored_reports(sql3, ORCL)[-1]
    url = url_of(f"demo.{ORCL}", kind, inst, lo, hi, lo2, hi2, "html")
    first = client.get(url + "&download=1")
    assert first.headers["Content-Disposition"] == f'attachment; filename="awrrpt_ORCL_1_{lo}_{hi}.html"'
    again = client.get(url + "&download=1")  # from the answer cache this time
    assert_isolated(again, "html")
    assert again.headers["Content-Disposition"] == first.headers["Content-Disposition"]
    assert again.get_data() == first.get_data()


def test_the_demo_reports_numbers_are_the_stores(client, sql3):
    """DB time and the elapsed minutes in the header, and the time of log file sync, read from the store's rows."""
    for kind, _inst, lo, hi, _, _, kind_type, blob in stored_reports(sql3, ORCL):
        if kind != "report" or kind_type != "text":
            continue
        text = zlib.decompress(blob).decode()
        db_time = sql3.execute(
            "select sum(case snap_id when ? then value else -value end) from "
            "dba_hist_sys_time_model where dbid = ? and snap_id in (?, ?) and stat_name = 'DB time'",
            (hi, ORCL, lo, hi),
        ).fetchone()[0]
        assert f"{db_time / 6e7:,.2f} (mins)" in text
        lfs = sql3.execute(
            "select sum(case snap_id when ? then time_waited_micro_fg else -time_waited_micro_fg end) "
            "from dba_hist_system_event where dbid = ? and snap_id in (?, ?) and "
            "event_name = 'log file sync'",
            (hi, ORCL, lo, hi),
        ).fetchone()[0]
        line = next(ln for ln in text.splitlines() if ln.startswith("log file sync"))
        assert f"{lfs / 1e6:,.1f}" in line


def test_html_reports_escape_the_sql_text(sql3):
    """A statement's text holding markup shows as text in the HTML report, as Oracle's reports escape it."""
    for _kind, *_, kind_type, blob in stored_reports(sql3, RAC):
        if kind_type == "html":
            page = zlib.decompress(blob).decode()
            assert "<script>alert" not in page and "<img src=x" not in page


@pytest.mark.parametrize(
    "query, parameter, status",
    [
        ("begin_snap=1&end_snap=2", "begin_snap", 400),  # no such snapshots
        ("begin_snap={lo}&end_snap={lo}", "begin_snap", 400),  # one snapshot is no range
        ("begin_snap={lo}&end_snap={hi}&type=pdf", "type", 400),
        ("begin_snap={lo}&end_snap={hi}&instance=3", "instance", 400),
        ("begin_snap={lo}&end_snap={hi}&instance=1;2", "instance", 400),
        ("begin_snap={lo}&end_snap={hi}&download=maybe", "download", 400),
        ("begin_snap={lo}&end_snap={next}", "begin_snap", 404),  # a range the demo keeps no report of
    ],
)
def test_bad_questions_are_named(client, sql3, query, parameter, status):
    _, _, lo, hi, *_ = stored_reports(sql3, RAC)[0]
    err = assert_error(
        client.get(f"/api/v1/dbs/demo.{RAC}/awr-report?" + query.format(lo=lo, hi=hi, next=hi + 1)), status, parameter
    )
    if status == 404:
        assert "/awr-report/stored" in err["message"]


def test_a_range_over_a_restart_is_refused_naming_the_instance(client, stories):
    """Oracle refuses an AWR report over an instance restart (its counters start again): RACPROD instance 2."""
    restart = stories["restart"]
    lo, hi = min(restart["missing_snap_ids"]) - 2, restart["first_snap_after"] + 1
    err = assert_error(
        client.get(f"/api/v1/dbs/demo.{RAC}/awr-report?begin_snap={lo}&end_snap={hi}"), 400, "begin_snap"
    )
    assert "instance 2 restarted" in err["message"]


@pytest.mark.parametrize("given, missing", [("a", "b"), ("b", "a")])
def test_compare_needs_both_periods(client, given, missing):
    """The missing period is named with its forms, snapshots first (an Oracle report is of snapshots)."""
    query = f"{given}_begin_snap=1&{given}_end_snap=2"
    err = assert_error(client.get(f"/api/v1/dbs/demo.{ORCL}/awr-report/compare?{query}"), 400, f"{missing}_begin_snap")
    m = missing
    assert (
        err["message"]
        == f"period {m.upper()} is required: give {m}_begin_snap and {m}_end_snap, or {m}_from and {m}_to"
    )


# -- monitored executions and their reports ---------------------------------------------------------------------


def batch_sql_id(sql3, dbid):
    return sql3.execute(
        "select key1 from dba_hist_reports where dbid = ? group by key1 order by count(*) desc limit 1", (dbid,)
    ).fetchone()[0]


def test_monitored_executions_are_the_reports_rows_and_add_up_to_top_sqls_elapsed(client, sql3):
    """The list is DBA_HIST_REPORTS' rows of the SQL_ID in the range; the executions of an interval add up to the
    statement's DBA_HIST_SQLSTAT elapsed time there (the demo splits it evenly), each minutes long."""
    sql_id = batch_sql_id(sql3, RAC)
    lo, hi = sql3.execute(
        "select min(snap_id) - 1, max(snap_id) from dba_hist_reports where dbid = ?", (RAC,)
    ).fetchone()
    body = client.get(f"/api/v1/dbs/demo.{RAC}/sql/{sql_id}/monitor?begin_snap={lo}&end_snap={hi}").get_json()
    expected = sql3.execute(
        "select report_id, instance_number, snap_id, key2 from dba_hist_reports where dbid = ? "
        "and key1 = ? and component_name = 'sqlmonitor' and snap_id > ? and snap_id <= ? "
        "order by period_start_time, report_id",
        (RAC, sql_id, lo, hi),
    ).fetchall()
    assert [(r["report_id"], r["instance"], r["snap_id"], str(r["sql_exec_id"])) for r in body["rows"]] == expected
    assert len(expected) > 4 and all(r["status"] == "DONE" for r in body["rows"])
    per_interval: dict = {}
    for r in body["rows"]:
        per_interval[r["snap_id"], r["instance"]] = per_interval.get((r["snap_id"], r["instance"]), 0) + r["elapsed_s"]
        assert r["duration_s"] > 60 and abs(r["duration_s"] - r["elapsed_s"]) <= 1
        start, end = (datetime.fromisoformat(r[k]) for k in ("start", "end"))
        assert abs((end - start).total_seconds() - r["duration_s"]) <= 1
    for (snap_id, inst), seconds in per_interval.items():
        elapsed = sql3.execute(
            "select elapsed_time_delta from dba_hist_sqlstat where dbid = ? and snap_id = ? and "
            "instance_number = ? and sql_id = ?",
            (RAC, snap_id, inst, sql_id),
        ).fetchone()[0]
        assert seconds == pytest.approx(elapsed / 1e6, abs=0.01)
    csv = client.get(f"/api/v1/dbs/demo.{RAC}/sql/{sql_id}/monitor?begin_snap={lo}&end_snap={hi}&format=csv")
    assert csv.mimetype == "text/csv" and csv.get_data(as_text=True).count("\r\n") == len(expected) + 1


def test_the_plan_regressions_executions_are_too_short_to_be_monitored(client, stories):
    reg = stories["plan_regression"]
    body = client.get(
        f"/api/v1/dbs/demo.{RAC}/sql/{reg['sql_id']}/monitor?begin_snap={reg['begin_snap']}&end_snap={reg['end_snap']}"
    ).get_json()
    assert body["rows"] == []


def test_a_monitor_report_is_served_as_stored_isolated_and_downloads(client, sql3):
    report_id, sql_id, inst, start, snap = sql3.execute(
        "select report_id, key1, instance_number, period_start_time, snap_id from dba_hist_reports where dbid = ? "
        "order by report_id desc limit 1",
        (ORCL,),
    ).fetchone()
    for kind_type in ("html", "text"):
        resp = client.get(f"/api/v1/dbs/demo.{ORCL}/sql-monitor/{report_id}?snap_id={snap}&type={kind_type}&download=1")
        assert_isolated(resp, kind_type)
        blob = sql3.execute(
            "select report from awrlens_monitor_reports where dbid = ? and report_id = ? and type = ?",
            (ORCL, report_id, kind_type),
        ).fetchone()[0]
        assert resp.get_data() == zlib.decompress(blob)
        stamp = datetime.fromisoformat(start).strftime("%Y%m%d_%H%M%S")
        assert resp.headers["Content-Disposition"] == (
            f'attachment; filename="sqlmon_ORCL_{sql_id}_{inst}_{stamp}_{report_id}.'
            f'{"html" if kind_type == "html" else "txt"}"'
        )
        assert sql_id in resp.get_data(as_text=True)
    assert_error(client.get(f"/api/v1/dbs/demo.{ORCL}/sql-monitor/999999999?snap_id={snap}"), 404, "report_id")
    assert_error(client.get(f"/api/v1/dbs/demo.{ORCL}/sql-monitor/x1?snap_id={snap}"), 400, "report_id")


def test_a_monitor_report_is_looked_up_by_its_snapshots_time(client, sql3):
    """WRP$_REPORTS is partitioned by day on GENERATION_TIME: the report is looked up by REPORT_ID within the time of
    its SNAP_ID, the first snapshot taken after it was generated (Oracle Database Reference, DBA_HIST_REPORTS), which
    the list gives. Every report is found so (its GENERATION_TIME read from the store is inside), a snapshot days
    away finds none, and without one the request says what to give."""
    rows = sql3.execute(
        "select r.report_id, r.snap_id, r.generation_time, s.end_interval_time from dba_hist_reports r join "
        "dba_hist_snapshot s on s.dbid = r.dbid and s.instance_number = r.instance_number and s.snap_id = r.snap_id "
        "where r.dbid = ? order by r.report_id",
        (RAC,),
    ).fetchall()
    assert rows and all(gen <= end for _, _, gen, end in rows)  # the store keeps SNAP_ID as Oracle documents it
    first = sql3.execute("select min(snap_id) from dba_hist_snapshot where dbid = ?", (RAC,)).fetchone()[0]
    for report_id, snap, _, _ in rows[:: max(1, len(rows) // 12)]:
        assert client.get(f"/api/v1/dbs/demo.{RAC}/sql-monitor/{report_id}?snap_id={snap}&type=text").status_code == 200
        assert snap - first > 96  # days after the first snapshot: outside its time
        err = assert_error(client.get(f"/api/v1/dbs/demo.{RAC}/sql-monitor/{report_id}?snap_id={first}"), 404)
        assert err["parameter"] == "report_id" and f"snapshot {first}" in err["message"]
    assert (
        "snap_id is required"
        in assert_error(client.get(f"/api/v1/dbs/demo.{RAC}/sql-monitor/1"), 400, "snap_id")["message"]
    )
    assert_error(client.get(f"/api/v1/dbs/demo.{RAC}/sql-monitor/1?snap_id=7"), 404, "snap_id")  # no such snapshot
    text = str(queries.monitored_execution(views()).core().compile(dialect=oracle.dialect()))
    assert re.search(r"generation_time > :t0 AND dba_hist_reports\.generation_time <= :t1", text), text


def test_the_summary_is_read_as_data_only():
    """REPORT_SUMMARY is parsed without fetching an external entity or expanding entities, and a broken one says
    nothing."""
    assert summary(
        '<report_repository_summary><sql sql_id="a"><status>DONE</status><duration>12</duration>'
        '<stats type="monitor"><stat name="elapsed_time">12000000</stat></stats></sql>'
        '</report_repository_summary>'
    ) == {"status": "DONE", "duration": 12, "stats": {"elapsed_time": 12000000}}
    assert summary('<!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/hostname">]><sql><status>&x;</status></sql>') == {}
    laughs = (
        '<!DOCTYPE s [<!ENTITY a "aaaaaaaaaa">'
        + "".join(f'<!ENTITY {chr(98 + k)} "{("&" + chr(97 + k) + ";") * 10}">' for k in range(8))
        + ']><sql><status>&i;</status></sql>'
    )
    assert summary(laughs) == {}  # longer than a VARCHAR2(4000) can hold, or refused by the parser
    assert summary("<sql><status>DONE") == {} and summary(None) == {}


def test_the_openapi_document_describes_the_reports(client):
    paths = client.get("/api/v1/openapi.json").get_json()["paths"]
    for path in (
        "/api/v1/dbs/{db}/awr-report",
        "/api/v1/dbs/{db}/awr-report/compare",
        "/api/v1/dbs/{db}/sql-monitor/{report_id}",
    ):
        op = paths[path]["get"]
        assert set(op["responses"]["200"]["content"]) == {"text/html", "text/plain"}, path
        assert {"type", "download", "instance"} & {p["name"] for p in op["parameters"]}
        assert "403" in op["responses"]
    monitor = paths["/api/v1/dbs/{db}/sql/{sql_id}/monitor"]["get"]
    assert "text/csv" in monitor["responses"]["200"]["content"]
    assert (
        "any_range"
        in paths["/api/v1/dbs/{db}/awr-report/stored"]["get"]["responses"]["200"]["content"]["application/json"][
            "schema"
        ]["required"]
    )


# -- on Oracle: the real driver against the loopback stand-in ----------------------------------------------------


def test_the_report_calls_compile_for_oracle_with_binds_only():
    for name, stmt in queries.report_statements():
        text = str(stmt.compile(dialect=oracle.dialect()))
        assert "'" not in text and not re.search(r"(?<!\w)\d", text), (name, text)  # no literal: binds only
        assert re.fullmatch(
            r"SELECT (output FROM TABLE\(DBMS_WORKLOAD_REPOSITORY\.AWR_\w+_(HTML|TEXT)\(:dbid, :inst, "
            r":bid, :eid(, :dbid2, :inst2, :bid2, :eid2)?\)\)|DBMS_AUTO_REPORT\.REPORT_REPOSITORY_DETAIL"
            r"\(RID => :rid, TYPE => :type\) FROM DUAL)",
            text,
        ), text


GRANT_ERRORS = [
    (904, 'ORA-00904: "DBMS_WORKLOAD_REPOSITORY"."AWR_REPORT_HTML": invalid identifier'),
    (6550, "ORA-06550: line 1, column 7: PLS-00201: identifier 'DBMS_WORKLOAD_REPOSITORY' must be declared"),
    (1031, "ORA-01031: insufficient privileges"),
]


@pytest.mark.wire
@pytest.mark.parametrize("number, message", GRANT_ERRORS)
def test_without_the_grant_the_awr_report_is_a_403_naming_it(oracle_app, number, message):
    client, server = oracle_app(errors={"dbms_workload_repository": (number, message)})
    err = assert_error(client.get(f"/api/v1/dbs/ora.{ORCL}/awr-report?begin_snap=100&end_snap=104"), 403)
    assert err["code"] == "missing_grant"
    assert "GRANT EXECUTE ON SYS.DBMS_WORKLOAD_REPOSITORY TO AWRLENS" in err["message"]
    assert f"ORA-{number:05d}" in err["message"] and PASSWORD not in err["message"]
    sent = [s for s in server.statements if "dbms_workload_repository" in s]
    assert sent == ["select output from table(dbms_workload_repository.awr_report_html(:dbid, :inst, :bid, :eid))"]


@pytest.mark.wire
def test_with_the_grant_the_report_is_oracles_lines_isolated(oracle_app):
    lines = [
        ("<html><body>",),
        ("<script>parent.pwned = 1</script>",),
        ("WORKLOAD REPOSITORY report",),
        ("</body></html>",),
    ]
    client, server = oracle_app(answers={"awr_diff_report_text": lines})
    resp = client.get(
        f"/api/v1/dbs/ora.{ORCL}/awr-report/compare?a_begin_snap=100&a_end_snap=102&b_begin_snap=102"
        "&b_end_snap=104&type=text&download=1"
    )
    assert_isolated(resp, "text")
    assert resp.get_data(as_text=True) == "\n".join(r[0] for r in lines)
    assert resp.headers["Content-Disposition"] == 'attachment; filename="awrdiff_ORCL_1_100_102_102_104.txt"'
    assert [s for s in server.statements if "awr_" in s] == [
        "select output from table(dbms_workload_repository.awr_diff_report_text(:dbid, :inst, :bid, :eid, :dbid2, "
        ":inst2, :bid2, :eid2))"
    ]


@pytest.mark.wire
def test_without_the_grant_the_monitor_report_is_a_403_naming_it(oracle_app):
    client, server = oracle_app(
        answers={
            "dba_hist_reports.report_id = :report_id": [("7", "1", "6da5n2tu8uq4d", "16777216", "2026-11-20 01:00:00")]
        },
        errors={
            "dbms_auto_report": (904, 'ORA-00904: "DBMS_AUTO_REPORT"."REPORT_REPOSITORY_DETAIL": invalid identifier')
        },
    )
    err = assert_error(client.get(f"/api/v1/dbs/ora.{ORCL}/sql-monitor/7?snap_id=102&type=html"), 403)
    assert err["code"] == "missing_grant" and "GRANT EXECUTE ON SYS.DBMS_AUTO_REPORT TO AWRLENS" in err["message"]
    assert any("report_repository_detail(rid => :rid, type => :type) from dual" in s for s in server.statements)
    (lookup,) = [s for s in server.statements if "dba_hist_reports.report_id = :report_id" in s]
    assert "dba_hist_reports.generation_time > :t0 and dba_hist_reports.generation_time <= :t1" in lookup


@pytest.mark.wire
def test_the_monitored_executions_come_from_dba_hist_reports_with_binds(oracle_app):
    """On Oracle the list is one statement on DBA_HIST_REPORTS, its values bound; the summary's XML gives status and
    duration (the stand-in answers text)."""
    xml = (
        '<sql sql_id="6da5n2tu8uq4d"><status>DONE (ERROR)</status><duration>1805</duration><stats>'
        '<stat name="elapsed_time">1805000000</stat><stat name="cpu_time">700000000</stat></stats></sql>'
    )
    assert len(xml) < 250  # the stand-in sends a value in one piece
    client, server = oracle_app(
        answers={
            "dba_hist_reports.key1 = :sql_id": [
                (
                    "7",
                    "1",
                    "102",
                    "16777216",
                    "11/20/2026 10:30:00",
                    "2026-11-20 10:30:00",
                    "2026-11-20 11:00:05",
                    "55",
                    "1234",
                    xml,
                )
            ]
        }
    )
    body = client.get(f"/api/v1/dbs/ora.{ORCL}/sql/6da5n2tu8uq4d/monitor?begin_snap=100&end_snap=104").get_json()
    assert "rows" in body, body
    (row,) = body["rows"]
    assert (row["status"], row["duration_s"], row["elapsed_s"], row["cpu_s"]) == ("DONE (ERROR)", 1805, 1805.0, 700.0)
    assert row["start"] == "2026-11-20T10:30:00+00:00" and row["sql_exec_id"] == 16777216
    sent = [s for s in server.statements if "dba_hist_reports" in s]
    assert len(sent) == 1 and "'" not in sent[0] and ":component" in sent[0] and ":sql_id" in sent[0], sent


@pytest.mark.slow  # a copy of the demo store altered: over half a second
def test_a_demo_store_built_before_the_reports_says_to_build_it_again(demo_store, tmp_path):
    """A store without the reports' tables (built before them): no list, no executions, and a 404 that says what to do,
    never a 503."""
    path = tmp_path / "old.sqlite"
    shutil.copy(demo_store[0], path)
    con = sqlite3.connect(path)
    for table in ("awrlens_awr_reports", "awrlens_monitor_reports", "dba_hist_reports"):
        con.execute(f"DROP TABLE {table}")
    con.commit()
    con.close()
    client = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(path)}})).test_client()
    assert client.get(f"/api/v1/dbs/demo.{ORCL}/awr-report/stored").get_json()["reports"] == []
    err = assert_error(client.get(f"/api/v1/dbs/demo.{ORCL}/awr-report"), 404, "begin_snap")
    assert "build the demo again" in err["message"]
    assert assert_error(client.get(f"/api/v1/dbs/demo.{ORCL}/sql-monitor/1"), 404, "report_id")
    sql_id = "43d1jja9rx68v"
    assert client.get(f"/api/v1/dbs/demo.{ORCL}/sql/{sql_id}/monitor").get_json()["rows"] == []


LOOKUP = "dba_hist_reports.report_id = :report_id"  # the report's own row, by REPORT_ID within its snapshot's time


@pytest.mark.wire
@pytest.mark.parametrize("prefix", ["awr_pdb_", "awr_root_"])
def test_sql_monitor_reads_dba_hist_reports_under_every_prefix(oracle_app, prefix):
    """Oracle has DBA_HIST_REPORTS under that name only (no AWR_PDB_REPORTS, no AWR_ROOT_REPORTS: Oracle Database
    Reference): a PDB's or a root's target lists its monitored executions and finds a report there."""
    client, server = oracle_app(
        target={"view_prefix": prefix},
        errors={f"{prefix}reports": (942, "ORA-00942: table or view does not exist")},
        answers={LOOKUP: [("7", "1", "6da5n2tu8uq4d", "16777216", "2026-11-20 01:00:00")]},
    )
    body = client.get(f"/api/v1/dbs/ora.{ORCL}/sql/6da5n2tu8uq4d/monitor?begin_snap=100&end_snap=104").get_json()
    assert body.get("rows") == [], body
    client.get(f"/api/v1/dbs/ora.{ORCL}/sql-monitor/7?snap_id=102")
    read = [s for s in server.statements if "reports" in s and "report_repository_detail" not in s]
    assert len(read) == 2 and all("from dba_hist_reports" in s and f"{prefix}reports" not in s for s in read), read


@pytest.mark.wire
def test_without_select_on_dba_hist_reports_the_grant_is_named_and_another_refusal_is_not_called_one(oracle_app):
    """ORA-00942 on DBA_HIST_REPORTS, a view every supported release has, is the optional grant missing: 403 naming
    it. ORA-00904 (a column the view lacks) is no grant: a 503 with Oracle's words, not missing_grant."""
    url = f"/api/v1/dbs/ora.{ORCL}/sql/6da5n2tu8uq4d/monitor?begin_snap=100&end_snap=104"
    client, _ = oracle_app(errors={"dba_hist_reports": (942, "ORA-00942: table or view does not exist")})
    err = assert_error(client.get(url), 403)
    assert err["code"] == "missing_grant" and "GRANT SELECT ON SYS.DBA_HIST_REPORTS TO AWRLENS" in err["message"]
    assert "Tuning Pack" in err["message"]
    client, _ = oracle_app(errors={"dba_hist_reports": (904, 'ORA-00904: "CON_DBID": invalid identifier')})
    err = assert_error(client.get(url + "&con_dbid=5"), 503)
    assert err["code"] == "database_unavailable" and "ORA-00904" in err["message"] and "GRANT" not in err["message"]
    client, _ = oracle_app(errors={"dbms_auto_report": (942, "ORA-00942: table or view does not exist")})
    err = assert_error(client.get(f"/api/v1/dbs/ora.{ORCL}/sql-monitor/7?snap_id=102"), 404)  # no such report here
    client, _ = oracle_app(
        answers={LOOKUP: [("7", "1", "6da5n2tu8uq4d", "16777216", "2026-11-20 01:00:00")]},
        errors={"dbms_auto_report": (942, "ORA-00942: table or view does not exist")},
    )
    err = assert_error(client.get(f"/api/v1/dbs/ora.{ORCL}/sql-monitor/7?snap_id=102"), 503)
    assert "ORA-00942" in err["message"] and "GRANT" not in err["message"]


@pytest.mark.wire
def test_on_12_1_0_1_the_container_filter_is_refused_not_sent(oracle_app):
    """DBA_HIST_REPORTS.CON_DBID arrived in 12.1.0.2 (Oracle Database Reference 12.1, tests/data/oracle_views.json):
    on 12.1.0.1 con_dbid is a 400 that says so, and no statement names the column."""
    client, server = oracle_app()
    store = client.application.extensions["awrlens"].stores["ora"]
    store.server_version = "12.1.0.1.0"
    url = f"/api/v1/dbs/ora.{ORCL}/sql/6da5n2tu8uq4d/monitor?begin_snap=100&end_snap=104"
    err = assert_error(client.get(url + "&con_dbid=5"), 400, "con_dbid")
    assert "12.1.0.2" in err["message"]
    assert not [s for s in server.statements if "reports" in s]
    store.server_version = "12.1.0.2.0"
    assert client.get(url + "&con_dbid=5").status_code == 200
    assert [s for s in server.statements if "con_dbid = :con_dbid" in s]


HOSTILE = 'x"; filename=evil.exe\r\nSet-Cookie: a=b ÿ€漢'  # a KEY1 as the database may hold it


@pytest.mark.wire
def test_file_names_from_database_text_stay_one_safe_name(oracle_app):
    """The file name holds DBA_HIST_REPORTS.KEY1 as the database gives it: the header keeps one filename of the safe
    alphabet, ASCII only (gunicorn refuses anything outside Latin-1, Werkzeug any CR/LF), and the name itself in
    RFC 6266's filename*, which a parser of RFC 6266 (Werkzeug's) prefers and decodes."""
    from werkzeug.http import parse_options_header

    client, _ = oracle_app(
        answers={
            LOOKUP: [("7", "1", HOSTILE, "16777216", "2026-11-20 01:00:00")],
            "report_repository_detail": [("<html>report</html>",)],
        }
    )
    resp = client.get(f"/api/v1/dbs/ora.{ORCL}/sql-monitor/7?snap_id=102&download=1")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    header = resp.headers["Content-Disposition"]
    assert header.isascii() and "\r" not in header and "\n" not in header
    kind, plain, star = header.split("; ")  # one filename: the injected "filename=evil.exe" is no parameter
    assert kind == "attachment" and star.startswith("filename*=UTF-8''")
    assert re.fullmatch(r'filename="sqlmon_ORCL_[A-Za-z0-9_.-]+_1_20261120_010000_7\.html"', plain), plain
    named = parse_options_header(header)[1]["filename"]
    assert named.startswith('sqlmon_ORCL_x"; filename=evil.exe') and "漢" in named and "\r" not in named


@pytest.mark.wire
@pytest.mark.slow
def test_a_report_has_its_own_time_bound_and_its_504_names_it(oracle_app):
    """A report Oracle takes long to render (a stall on the report's call) is waited on for AWRLENS_REPORT_TIMEOUT,
    longer than AWRLENS_CALL_TIMEOUT, then a 504 naming the setting; the driver's wait for the answer to its break is
    cut to oracle.BREAK_WAIT, not as long again (docs/oracle.md, Never hang)."""
    from app.store.oracle import BREAK_WAIT

    call, report = 1.0, 3.0
    client, server = oracle_app(
        settings={"call_timeout": call, "report_timeout": report, "connect_timeout": 1},
        fault="stall",
        match="dbms_workload_repository",
    )
    started = time.monotonic()
    err = assert_error(client.get(f"/api/v1/dbs/ora.{ORCL}/awr-report?begin_snap=100&end_snap=104"), 504)
    elapsed = time.monotonic() - started
    assert err["code"] == "database_timeout" and "AWRLENS_REPORT_TIMEOUT" in err["message"], err
    assert f"longer than {report:g} s" in err["message"]
    assert server.struck == [("sql", "stall")]
    assert report - 0.05 <= elapsed < report + BREAK_WAIT + 0.5, elapsed


@pytest.mark.wire
@pytest.mark.slow
def test_a_report_longer_than_the_call_timeout_is_served_within_its_own(oracle_app):
    """Oracle busy rendering for longer than AWRLENS_CALL_TIMEOUT but within AWRLENS_REPORT_TIMEOUT: the report
    arrives (a RAC global report's first fetch, issue 28)."""
    client, server = oracle_app(
        settings={"call_timeout": 1.0, "report_timeout": 4.0},
        fault="slow",
        match="dbms_workload_repository",
        slow=2.0,
        answers={"awr_report_text": [("WORKLOAD REPOSITORY report",), ("End of Report",)]},
    )
    resp = client.get(f"/api/v1/dbs/ora.{ORCL}/awr-report?begin_snap=100&end_snap=104&type=text")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_data(as_text=True) == "WORKLOAD REPOSITORY report\nEnd of Report"
    assert server.struck == [("sql", "slow")]
