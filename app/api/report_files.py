"""Report files uploaded to the reports store: POST /api/v1/reports (docs/awr-rules.md §35).

The page sends the files dropped on it as multipart/form-data, a `file` field each (AWR reports, HTML or text, or
zips of them); the import is all of them or none, as `flask reports import` does it. Uploads need the API key: with
none configured the API imports nothing. The body may be up to UPLOAD_BYTES (API Gateway's own limit is 10 MB:
bigger folders go through the command).
"""

from flask import Blueprint, current_app, request

from app.api.params import accepts
from app.api.respond import answer
from app.errors import BadParameter, Forbidden, NotFound
from app.report_files import files
from app.report_files.importer import import_files, utc_offset
from app.units import MIB

reports_api = Blueprint("reports", __name__, url_prefix="/api/v1/reports")

UPLOAD_BYTES = 10 * MIB


def reports_store():
    """The store imported reports go to (the target of AWRLENS_REPORTS_PATH, or one {"reports": path} target)."""
    history = current_app.extensions["awrlens"]
    store = next((s for s in history.stores.values() if s.imported), None)
    if store is None:
        raise NotFound(
            "no reports store is configured: set AWRLENS_REPORTS_PATH, or add a {\"reports\": path} target", "file"
        )
    return store


@reports_api.post("")
@accepts()
def upload_reports(args):
    """Import AWR report files, all of them or none.

    Multipart/form-data: a `file` field each (reports, or zips of them) and `utc_offset`, the database's offset from
    UTC (a report prints none)."""
    if current_app.extensions.get("api_key") is None:  # configured: the API-key rule has checked it already
        raise Forbidden(
            "importing reports through the API needs an API key, and none is configured (AWRLENS_API_KEY_SECRET); "
            "without one, use `flask --app app reports import PATH`"
        )
    sent = request.files.getlist("file")
    if not sent:
        raise BadParameter("send the report files as multipart/form-data, one `file` field each", "file")
    offset = utc_offset(request.form.get("utc_offset"))
    store = reports_store()
    outcome = import_files(store, files.uploaded([(f.filename or "upload", f.read()) for f in sent]), offset=offset)
    cache = current_app.extensions.get("answer_cache")
    if cache is not None and outcome.imported:
        cache.clear()  # a database's history changed: what was kept of it was kept before
    body = outcome.public()
    for db in body["databases"]:
        db["id"] = f"{store.alias}.{db['dbid']}"  # as /dbs names it
    resp = answer(body, args)
    resp.status_code = 201 if outcome.imported else 200
    resp.cache_control.no_store = True
    return resp


upload_reports.body_limit = UPLOAD_BYTES
upload_reports.openapi = {
    "body": {
        "type": "object",
        "required": ["file"],
        "properties": {
            "file": {"type": "array", "items": {"type": "string", "format": "binary"}},
            "utc_offset": {
                "type": "string",
                "description": "The database's offset from UTC, e.g. +01:00 (a report prints none; default: UTC).",
            },
        },
    },
    "body_media": "multipart/form-data",
    "ok": {
        "201": ("Imported: each file with its database, instances and snapshots", {"type": "object"}),
        "200": ("Nothing new: every file was imported before (kept_once says which)", {"type": "object"}),
    },
    "errors": {
        "400": "No file, or files that cannot be imported (code reports_refused: `problems` names each file and why: "
        "not a report, cut short, a section missing its header, overlapping another). Nothing was imported.",
        "401": "No API key, or a wrong one, in X-API-Key.",
        "403": "No API key is configured, so the API imports nothing (use `flask reports import`).",
        "404": "No reports store is configured.",
        "413": f"The body is over {UPLOAD_BYTES // MIB} MiB; refused before anything was read.",
        "503": "The reports store cannot be written (a read-only file system).",
    },
}
