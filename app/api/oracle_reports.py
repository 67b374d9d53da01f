"""Oracle's own reports under /api/v1 (docs/awr-rules.md §27): thin views over app.history.oracle_reports.

A report is a document Oracle rendered from database text (SQL text, object names, module names): served as it is,
as text/html or text/plain, never parsed or embedded into the app's pages. Its headers isolate it wherever it is
opened: `Content-Security-Policy: sandbox` gives it an opaque origin with no scripts, forms or popups even when opened
as a page of its own (it cannot read the app's storage or call the API as the app), `default-src 'none'` lets it
load nothing (its inline styles only), `base-uri 'none'` keeps a <base> it holds from re-pointing its links, and
`nosniff` keeps a browser from reading it as anything else. The page shows it in an iframe sandboxed the same way,
with the same policy in a <meta> first in the document (static/js/awr-report-views.js): a sandbox alone stops
scripts, not the images, stylesheets or frames a document names.
Its file name holds database text (the database name, KEY1): respond.disposition keeps the header safe.
"""

from flask import Response, request

from app import history
from app.api.history_blueprint import api, database_and_range, period_params, periods, requested_database
from app.api.params import FORMAT, RANGE, SHOW_SQL, TABLE_INSTANCE, Param, accepts
from app.api.report import REPORT_POLICY
from app.api.respond import CLOSED_MAX_AGE, answer, disposition
from app.api.statements import SQL_ID

CSP = "sandbox; " + REPORT_POLICY  # the app's own report's policy (nothing loaded, no <base>, no form), sandboxed
TYPE = Param(
    "type", "enum", "html or text, as Oracle renders the report.", default="html", choices=history.oracle_reports.TYPES
)
DOWNLOAD = Param(
    "download", "boolean", "1: served as an attachment (Content-Disposition), to save as a file.", default=False
)
INSTANCES = Param(
    "instance",
    "string",
    "all (every instance: on RAC the global report), one instance number, or "
    "several separated by commas (a global report of those).",
    default="all",
    pattern=r"all|[0-9]{1,4}(,[0-9]{1,4}){0,63}",
)
REPORT_ID = Param(
    "report_id",
    "integer",
    "The report's DBA_HIST_REPORTS.REPORT_ID, as the monitored executions list it.",
    in_path=True,
    minimum=0,
    maximum=10**15,
)
REPORT_SNAP = Param(
    "snap_id",
    "integer",
    "Required: the report's DBA_HIST_REPORTS.SNAP_ID, as the monitored executions list it; it bounds the search by "
    "the report's generation time.",
    minimum=0,
    maximum=10**12,
)
DOCUMENT = {
    "ok": {
        "200": (
            "The report, as Oracle renders it: text/html or text/plain, with Content-Security-Policy: sandbox.",
            {"type": "string"},
        ),
        "304": ("Not modified (ETag)", None),
    },
    "errors": {
        "403": "The database user lacks the optional grant the report needs (code missing_grant); "
        "the message names it.",
        "404": "Unknown database or report; in the demo, a range whose report is not stored.",
        "504": "Oracle took longer than AWRLENS_REPORT_TIMEOUT to render the report (code database_timeout).",
    },
    "media": ("text/html", "text/plain"),
}


def document(report, args, closed: bool) -> Response:
    """The report as a document of its own, isolated (see above); `download` makes it an attachment."""
    resp = Response(report.text, mimetype="text/html" if report.type == "html" else "text/plain")
    resp.headers["Content-Security-Policy"] = CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Content-Disposition"] = disposition(report.filename, args["download"])
    resp.cache_control.public = True
    resp.cache_control.max_age = CLOSED_MAX_AGE if closed else 0
    resp.add_etag()
    return resp.make_conditional(request)


def _documented(view):
    view.openapi = DOCUMENT
    return view


@api.get("/dbs/<db>/awr-report")
@accepts(*RANGE, INSTANCES, TYPE, DOWNLOAD)
@_documented
def awr_report(db, args):
    """Oracle's AWR report of a snapshot range (begin_snap/end_snap, or from/to), for one instance or, on RAC, several
    (the global report), as HTML or text; rendered by DBMS_WORKLOAD_REPOSITORY on Oracle, stored in the demo."""
    d, rng = database_and_range(db, args, default_days=1)
    instances = history.oracle_reports.instances_of(d, args["instance"])
    report = history.oracle_reports.awr_report(d, rng, None, instances, args["type"])
    return document(report, args, rng.closed)


@api.get("/dbs/<db>/awr-report/compare")
@accepts(*period_params("a_", "A"), *period_params("b_", "B"), INSTANCES, TYPE, DOWNLOAD)
@_documented
def awr_report_compare(db, args):
    """Oracle's AWR compare-periods report of two snapshot ranges A and B, as HTML or text."""
    d = requested_database(db)
    a, b = periods(d, args, first=("begin_snap", "end_snap"))  # Oracle's reports are of snapshot ranges
    instances = history.oracle_reports.instances_of(d, args["instance"])
    report = history.oracle_reports.awr_report(d, a, b, instances, args["type"])
    return document(report, args, a.closed and b.closed)


@api.get("/dbs/<db>/awr-report/stored")
@accepts(FORMAT, SHOW_SQL)
def awr_report_stored(db, args):
    """Which AWR reports the store can give: any range on Oracle (any_range), the stored ranges in the demo."""
    body = history.oracle_reports.stored(requested_database(db))
    return answer(
        body,
        args,
        table=lambda b: [
            {**r, "instances": ",".join(map(str, r["instances"])), "types": " ".join(r["types"])} for r in b["reports"]
        ],
    )


@api.get("/dbs/<db>/sql/<sql_id>/monitor")
@accepts(
    SQL_ID,
    *RANGE,
    TABLE_INSTANCE,
    Param(
        "con_dbid",
        "integer",
        "In a CDB root, only the executions in this container (its CON_DBID, as top SQL gives it).",
        minimum=0,
        maximum=2**32 - 1,
    ),
    FORMAT,
    SHOW_SQL,
)
def sql_monitor(db, sql_id, args):
    """The monitored executions of a statement (SQL monitor reports AWR kept, DBA_HIST_REPORTS, 12c and later):
    start, end, duration, status, instance, and the report_id that opens the report."""
    SQL_ID.parse(sql_id)
    d, rng = database_and_range(db, args, default_days=7)
    body = history.oracle_reports.monitored(d, sql_id, rng, d.instance(args["instance"]), args["con_dbid"])
    return answer(body, args, rng)


@api.get("/dbs/<db>/sql-monitor/<report_id>")
@accepts(REPORT_ID, REPORT_SNAP, TYPE, DOWNLOAD)
@_documented
def sql_monitor_report(db, report_id, args):
    """One SQL monitor report, as Oracle renders it (DBMS_AUTO_REPORT.REPORT_REPOSITORY_DETAIL) or as the demo
    stored it, in HTML or text."""
    d = requested_database(db)
    rid = REPORT_ID.parse(report_id)
    return document(history.oracle_reports.monitor_report(d, rid, args["snap_id"], args["type"]), args, True)
