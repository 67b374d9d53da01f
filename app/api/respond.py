"""Shaping answers: JSON or CSV, the SQL that ran, and cache validators for history that cannot change."""
import csv
import io

from flask import Response, current_app, jsonify, request

from app.store.base import sql_log

CLOSED_MAX_AGE = 86400  # a range that ends before the newest snapshot never changes
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet may run a cell that starts so


def answer(body: dict, args: dict, rng=None, table=None) -> Response:
    """The view's answer as JSON, or as CSV when format=csv (`table(body)` gives the rows)."""
    if args.get("show_sql"):
        body["sql"] = sql_log.get() or []
    if args.get("format") == "csv":
        rows = table(body) if table else body.get("rows", [])
        resp = Response(to_csv(rows, body.get("columns")), mimetype="text/csv")
        name = request.path.rstrip("/").rsplit("/", 1)[-1] or "answer"
        resp.headers["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    else:
        resp = jsonify(body)
    closed = rng is not None and rng.closed
    resp.cache_control.public = True
    # an open range can gain a snapshot at any time: kept as long as the snapshot list is (AWRLENS_SNAPSHOT_TTL)
    resp.cache_control.max_age = CLOSED_MAX_AGE if closed else int(current_app.config["SETTINGS"].snapshot_ttl)
    resp.add_etag()
    return resp.make_conditional(request)


def to_csv(rows: list[dict], columns=None) -> str:
    """Rows as CSV; a cell that a spreadsheet would run as a formula is prefixed with a quote."""
    columns = list(columns or (rows[0].keys() if rows else []))
    for r in rows:
        columns.extend(k for k in r if k not in columns)
    out = io.StringIO()
    # RFC 4180's CRLF, as the page's CSV: with a bare "\n" the writer would leave a field holding "\r" unquoted
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([csv_cell(c) for c in columns])  # a run's attribute names become columns too
    for r in rows:
        writer.writerow([csv_cell(r.get(c)) for c in columns])
    return out.getvalue()


def csv_cell(value):
    """A CSV cell: a list as its items separated by spaces; text that a spreadsheet would run as a formula gets a
    leading apostrophe (the page's CSV and Copy buttons apply the same rule: static/js/format.js)."""
    if isinstance(value, list):
        value = " ".join(map(str, value))
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
