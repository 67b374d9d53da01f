"""Oracle's own reports: AWR reports, SQL Monitor and the demo store's rendered copies (docs/awr-rules.md §27)."""

from functools import cache

from app.store.awr.queries.core import statement
from app.store.awr.views import Views

SQL_MONITOR = "sqlmonitor"  # DBA_HIST_REPORTS.COMPONENT_NAME of the SQL monitor reports


def _monitor_reports(t):
    from sqlalchemy import bindparam

    return (t.c.dbid == bindparam("dbid"), t.c.component_name == bindparam("component", SQL_MONITOR))


@statement
def monitored_executions(v: Views, in_container: bool = False):
    """The SQL monitor reports AWR captured of one SQL_ID (KEY1) in the intervals (lo, hi]: SNAP_ID is the first
    snapshot taken after the report was, so a report belongs to the interval it ended in; in one container (`con_dbid`
    bound) when asked."""
    from sqlalchemy import bindparam, select

    t = v.reports
    where = [
        *_monitor_reports(t),
        t.c.snap_id > bindparam("lo"),
        t.c.snap_id <= bindparam("hi"),
        t.c.key1 == bindparam("sql_id"),
    ]
    if in_container:
        where.append(t.c.con_dbid == bindparam("con_dbid"))
    return (
        select(
            t.c.report_id,
            t.c.instance_number,
            t.c.snap_id,
            t.c.key2,
            t.c.key3,
            t.c.period_start_time,
            t.c.period_end_time,
            t.c.session_id,
            t.c.session_serial,
            t.c.report_summary,
        )
        .where(*where)
        .order_by(t.c.period_start_time, t.c.report_id)
    )


@statement
def monitored_execution(v: Views):
    """One SQL monitor report's row, by REPORT_ID, generated in (t0, t1]: the view's table is partitioned by day on
    GENERATION_TIME, so the time bound keeps the lookup to a few partitions (oracle_reports.generated_between)."""
    from sqlalchemy import bindparam, select

    t = v.reports
    return select(t.c.report_id, t.c.instance_number, t.c.key1, t.c.key2, t.c.period_start_time).where(
        *_monitor_reports(t),
        t.c.report_id == bindparam("report_id"),
        t.c.generation_time > bindparam("t0"),
        t.c.generation_time <= bindparam("t1"),
    )


# Oracle renders these itself: DBMS_WORKLOAD_REPOSITORY's pipelined report functions, one row (a line) per OUTPUT, and
# DBMS_AUTO_REPORT.REPORT_REPOSITORY_DETAIL, a CLOB (Oracle Database PL/SQL Packages and Types Reference). Every
# value is a bind: the DBID, the instance (a number; for a global report a list as text, e.g. '1,2'), the snapshot
# ids, the report's id and type.
AWR_REPORT_FUNCTIONS = {  # (kind, type) -> function of DBMS_WORKLOAD_REPOSITORY
    (kind, kind_type): f"AWR_{name}REPORT_{kind_type.upper()}"
    for kind, name in (("report", ""), ("global", "GLOBAL_"), ("diff", "DIFF_"), ("global_diff", "GLOBAL_DIFF_"))
    for kind_type in ("html", "text")
}
AWR_REPORT_BINDS = {False: ":dbid, :inst, :bid, :eid", True: ":dbid, :inst, :bid, :eid, :dbid2, :inst2, :bid2, :eid2"}


@cache
def awr_report(kind: str, kind_type: str):
    """The AWR report (`kind`: report for one instance, global for several of a RAC, diff and global_diff for two
    periods) as html or text, a line a row."""
    from sqlalchemy import text

    binds = AWR_REPORT_BINDS[kind.endswith("diff")]
    return text(f"SELECT output FROM TABLE(DBMS_WORKLOAD_REPOSITORY.{AWR_REPORT_FUNCTIONS[kind, kind_type]}({binds}))")


@cache
def monitor_report():
    """One SQL monitor report of AWR (DBA_HIST_REPORTS.REPORT_ID :rid) rendered as :type (html or text)."""
    from sqlalchemy import text

    return text("SELECT DBMS_AUTO_REPORT.REPORT_REPOSITORY_DETAIL(RID => :rid, TYPE => :type) FROM DUAL")


def report_statements():
    """(name, statement) for every report Oracle renders for the API."""
    for kind, kind_type in AWR_REPORT_FUNCTIONS:
        yield f"oracle report: awr {kind} {kind_type}", awr_report(kind, kind_type)
    yield "oracle report: sql monitor", monitor_report()


@statement
def stored_awr_reports(v: Views):
    """The embedded store's AWR reports of a database (embedded.reports.AWR_REPORTS: its own table, `v` unused),
    without text."""
    from sqlalchemy import bindparam, select

    from app.store.awr.embedded.reports import AWR_REPORTS

    t = AWR_REPORTS
    return (
        select(t.c.kind, t.c.instances, t.c.begin_snap, t.c.end_snap, t.c.begin_snap2, t.c.end_snap2, t.c.type)
        .where(t.c.dbid == bindparam("dbid"))
        .order_by(t.c.begin_snap, t.c.kind, t.c.instances, t.c.type)
    )


@statement
def stored_awr_report(v: Views):
    """One of the embedded store's AWR reports, compressed (embedded.reports.AWR_REPORTS)."""
    from sqlalchemy import bindparam, select

    from app.store.awr.embedded.reports import AWR_REPORTS

    t = AWR_REPORTS
    return select(t.c.report).where(
        *[
            t.c[c] == bindparam(c)
            for c in ("dbid", "kind", "instances", "begin_snap", "end_snap", "begin_snap2", "end_snap2", "type")
        ]
    )


@statement
def stored_monitor_report(v: Views):
    """One of the embedded store's SQL monitor reports, compressed (embedded.reports.MONITOR_REPORTS)."""
    from sqlalchemy import bindparam, select

    from app.store.awr.embedded.reports import MONITOR_REPORTS

    t = MONITOR_REPORTS
    return select(t.c.report).where(*[t.c[c] == bindparam(c) for c in ("dbid", "report_id", "type")])
