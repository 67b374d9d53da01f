"""Oracle's own reports in the embedded store, as its builder rendered them (docs/awr-rules.md §27). The Tables are
built on first use (__getattr__ below), and SQLAlchemy imported then."""

from functools import cache

from app.store.tables import int_columns, keyed_table

# Oracle renders an AWR report on request
# (DBMS_WORKLOAD_REPOSITORY) and a SQL monitor report from DBA_HIST_REPORTS_DETAILS, which keeps it compressed
# (DBMS_AUTO_REPORT); the demo store keeps instead the reports its builder rendered (app/demo/oracle_reports.py), each
# zlib-compressed: AWR_REPORTS for a few snapshot ranges (KIND report, global, diff or global_diff; INSTANCES the
# instance list, e.g. "1" or "1,2"; the B range of a diff in BEGIN_SNAP2/END_SNAP2, 0 otherwise), MONITOR_REPORTS by
# DBA_HIST_REPORTS.REPORT_ID. TYPE is html or text.
AWR_REPORTS_NAME, MONITOR_REPORTS_NAME = "awrlens_awr_reports", "awrlens_monitor_reports"


@cache
def _report_tables():
    from sqlalchemy import Column, LargeBinary, MetaData, String

    md = MetaData()
    awr = keyed_table(
        md,
        AWR_REPORTS_NAME,
        *int_columns("dbid"),
        Column("kind", String(12), nullable=False),
        Column("instances", String(200), nullable=False),
        *int_columns("begin_snap", "end_snap", "begin_snap2", "end_snap2"),
        Column("type", String(4), nullable=False),
        Column("report", LargeBinary),
        key=("dbid", "kind", "instances", "begin_snap", "end_snap", "begin_snap2", "end_snap2", "type"),
    )
    monitor = keyed_table(
        md,
        MONITOR_REPORTS_NAME,
        *int_columns("dbid", "report_id"),
        Column("type", String(4), nullable=False),
        Column("report", LargeBinary),
        key=("dbid", "report_id", "type"),
    )
    return awr, monitor


def __getattr__(name: str):
    """AWR_REPORTS and MONITOR_REPORTS: Tables built on first use (PEP 562)."""
    if name in ("AWR_REPORTS", "MONITOR_REPORTS"):
        return _report_tables()[name == "MONITOR_REPORTS"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
