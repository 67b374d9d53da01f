"""Shaping answers: JSON or CSV, the SQL that ran, cache validators for history that cannot change, and on Lambda
the answers too large to return."""

import csv
import io
import json
import re
from urllib.parse import quote

from flask import Response, current_app, g, jsonify, request

from app.csv_guard import FORMULA_STARTS
from app.errors import AnswerTooLarge
from app.store.base import sql_log

CLOSED_MAX_AGE = 86400  # a range that ends before the newest snapshot never changes
# The most a Lambda function returns from a synchronous invocation: above it the runtime fails the invocation and
# API Gateway answers a bare 502, without CORS headers (infra/README.md, Answers that fit Lambda).
LAMBDA_RESPONSE_LIMIT = 6_291_556
LATER_HEADERS = 2048  # bytes of headers added after the check (CORS, Vary), counted twice as Zappa sends them
UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")  # a file name's characters outside those every file system takes
UNSAFE_ANYWHERE = re.compile(r"[\x00-\x1f\x7f-\x9f/\\]")  # control characters and path separators: nowhere


def disposition(name: str, download: bool = True) -> str:
    """Content-Disposition of a file named `name`, which may hold database text (a database name, a SQL_ID from
    DBA_HIST_REPORTS.KEY1): `filename` in the safe alphabet only (any other character _), so no quote, semicolon,
    CR/LF or non-Latin-1 character reaches the header; and, when that changed the name, RFC 6266's `filename*`, the
    name in UTF-8 percent-encoded (without control characters or path separators)."""
    safe = UNSAFE_NAME.sub("_", name)
    header = f'{"attachment" if download else "inline"}; filename="{safe}"'
    if safe != name:
        header += "; filename*=UTF-8''" + quote(UNSAFE_ANYWHERE.sub("_", name), safe="")
    return header


def answer(body: dict, args: dict, rng=None, table=None) -> Response:
    """The view's answer as JSON, or as CSV when format=csv (`table(body)` gives the rows)."""
    source = g.get("answer_source")
    if source and "db" in body:  # the source of a database's history: AWR or Statspack
        body.setdefault("source", source)
    if args.get("show_sql"):
        body["sql"] = sql_log.get() or []
    g.answer_range = rng  # named by fit_lambda() if the answer is too large to return
    if args.get("format") == "csv":
        rows = table(body) if table else body.get("rows", [])
        resp = Response(to_csv(rows, body.get("columns")), mimetype="text/csv")
        name = request.path.rstrip("/").rsplit("/", 1)[-1] or "answer"
        resp.headers["Content-Disposition"] = disposition(f"{name}.csv")
    else:
        resp = jsonify(body)
    return conditional(resp, rng)


def conditional(resp: Response, rng=None) -> Response:
    """An answer with its validators: an ETag, and a lifetime that is long for a closed range."""
    closed = rng is not None and rng.closed
    # an answer behind the API key is the caller's own: no shared cache may keep it for others
    if current_app.extensions.get("api_key") is None:
        resp.cache_control.public = True
    else:
        resp.cache_control.private = True
    # an open range can gain a snapshot at any time: kept as long as the snapshot list is (AWRLENS_SNAPSHOT_TTL); the
    # live buffer's answers are kept by no one (its now moves, its samples age out)
    live = rng is not None and rng.live is not None  # a Range (app.history.database) always has `live`
    resp.cache_control.max_age = (
        0 if live else CLOSED_MAX_AGE if closed else int(current_app.config["SETTINGS"].snapshot_ttl)
    )
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


# -- answers that fit Lambda --------------------------------------------------------------------------------------


def lambda_payload_size(resp: Response) -> int:
    """Bytes of the invocation result Zappa's handler makes of `resp` for a REST API event (status, the headers as
    `headers` and again as `multiValueHeaders`, the body as text), as the python3.12 runtime serializes it (JSON,
    non-ASCII left as UTF-8)."""
    headers = dict(resp.headers.items())
    result = {
        "body": resp.get_data(as_text=True),
        "statusCode": resp.status_code,
        "headers": headers,
        "multiValueHeaders": {k: resp.headers.getlist(k) for k in headers},
    }
    return len(json.dumps(result, ensure_ascii=False).encode())


def range_of(resp: Response) -> dict | None:
    """The range an answer covers: the view's (answer()), or for an answer served again from the answer cache, the
    one its JSON states."""
    rng = g.get("answer_range")
    if rng is not None:
        return rng.public()
    if resp.mimetype == "application/json":
        try:
            found = json.loads(resp.get_data())
        except ValueError:
            return None
        return found.get("range") if isinstance(found, dict) else None
    return None


def fit_lambda(resp: Response) -> Response:
    """An answer Lambda could not return becomes a JSON 422 that says how to ask for less (an after_request on
    Lambda, run before the CORS headers are added, so the refusal carries them)."""
    if resp.direct_passthrough or resp.is_streamed:
        return resp
    limit = LAMBDA_RESPONSE_LIMIT - LATER_HEADERS
    # JSON escapes a byte into at most 6 (\u00XX); the headers are small: most answers need no measuring
    if len(resp.get_data()) * 6 + 2 * len(str(resp.headers)) + 256 <= limit:
        return resp
    size = lambda_payload_size(resp)
    if size <= limit:
        return resp
    rng = range_of(resp)
    asked = request.args.get("max_points")
    points = (
        (
            f"fewer points per series (max_points={asked} asked for "
            + ("every point" if asked == "0" else f"{asked}")
            + ")"
        )
        if asked is not None
        else f"fewer points per series (max_points, {current_app.config['SETTINGS'].max_points} when not given)"
    )
    where = (
        ""
        if not rng
        else (
            f" or a shorter range than {rng['from']} to {rng['to']} (snapshots "
            f"{rng['begin_snap']} to {rng['end_snap']})"
        )
    )
    error = AnswerTooLarge(
        f"the answer is {size / 1e6:.1f} MB ({size:,} bytes), over the {LAMBDA_RESPONSE_LIMIT:,} "
        f"bytes an AWS Lambda function can return: ask for {points}{where}",
        "max_points",
    )
    refused = jsonify(error.body())
    refused.status_code = error.status
    return refused
