"""Benchmark runs under /api/v1/benchmarks: list, one run, several compared (JSON or CSV), and uploads. The path
keeps its name for the API's users; the code calls them runs (app.runs).

Public runs open without a key, so a link can be sent to anyone; private runs, and uploads, need the API key
(X-API-Key). Answers depend on the key and on uploads, so they are revalidated every time (ETag, no-cache) and
never kept by the answer cache.
"""

import codecs

import orjson
from flask import Blueprint, current_app, request

from app.api import auth
from app.api.params import FORMAT, Param, accepts
from app.api.respond import answer
from app.errors import BadParameter, Forbidden, Unauthorized
from app.runs import where
from app.runs.model import KINDS, SLUG, SLUG_HELP, parse_run

runs_api = Blueprint("runs", __name__, url_prefix="/api/v1/benchmarks")

MAX_COMPARE = 8
SLUG_PARAM = Param("slug", "string", f"The run's slug: {SLUG_HELP}.", in_path=True, pattern=SLUG.pattern, max_length=80)
RUNS = Param(
    "runs",
    "string",
    f"A run's slug; repeat for each run to compare (1 to {MAX_COMPARE}).",
    multi=True,
    pattern=SLUG.pattern,
    max_length=80,
)
KIND = Param("kind", "enum", "Only runs of this kind.", choices=KINDS)
REPLACE = Param("replace", "boolean", "1 replaces a stored run with the same slug (otherwise 409).", default=False)


NULLABLE_TEXT = {"type": ["string", "null"]}
NULLABLE_INT = {"type": ["integer", "null"]}
RUN = {
    "type": "object",
    "required": ["slug", "title", "kind", "visibility", "measurements"],
    "properties": {
        "slug": {"type": "string"},
        "title": {"type": "string"},
        "kind": {"type": "string", "enum": list(KINDS)},
        "visibility": {"type": "string", "enum": ["public", "private"]},
        "measurements": {"type": "integer"},
        "started": NULLABLE_TEXT,
        "finished": NULLABLE_TEXT,
        "host": NULLABLE_TEXT,
        "instance_type": NULLABLE_TEXT,
        "vcpus": NULLABLE_INT,
        "cores": NULLABLE_INT,
        "db_version": NULLABLE_TEXT,
        "awr_db": NULLABLE_TEXT,
        "awr_begin_snap": NULLABLE_INT,
        "awr_end_snap": NULLABLE_INT,
    },
}
RUN_DETAIL = {
    **RUN,
    "properties": {
        **RUN["properties"],
        "description": NULLABLE_TEXT,
        "parameters": {"type": "object"},
        "created": {"type": "string"},
    },
}
MEASUREMENT = {
    "type": "object",
    "required": ["seq", "series", "x", "y", "unit", "extra"],
    "properties": {
        "seq": {"type": "integer"},
        "series": {"type": "string"},
        "x": {"type": ["number", "string"]},
        "y": {"type": "number"},
        "unit": NULLABLE_TEXT,
        "extra": {"type": "object"},
    },
}
MEASUREMENTS = {
    "columns": {"type": "array", "items": {"type": "string"}},
    "extra_columns": {"type": "array", "items": {"type": "string"}},
}
MOMENT = {"type": "string", "description": "ISO 8601, e.g. 2026-11-20T08:00:00+00:00 (no offset: UTC); empty: unknown"}


def _optional(schema: dict) -> dict:
    """An optional field of an upload: null is taken as absent."""
    nullable = {**schema, "type": [schema["type"], "null"]}
    return {**nullable, "enum": [*schema["enum"], None]} if "enum" in schema else nullable


UPLOAD = {
    "type": "object",
    "required": ["slug", "title", "kind", "measurements"],
    "additionalProperties": False,
    "properties": {
        "slug": {"type": "string", "pattern": f"^{SLUG.pattern}$"},
        "title": {"type": "string", "maxLength": 200},
        "kind": {"type": "string", "enum": list(KINDS)},
        "description": _optional({"type": "string"}),
        "environment": _optional(
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "host": _optional({"type": "string"}),
                    "instance_type": _optional({"type": "string"}),
                    "db_version": _optional({"type": "string"}),
                    "vcpus": _optional({"type": "integer", "minimum": 1}),
                    "cores": _optional({"type": "integer", "minimum": 1}),
                },
            }
        ),
        "started": _optional(MOMENT),
        "finished": _optional(MOMENT),
        "parameters": _optional({"type": "object"}),
        "visibility": _optional({"type": "string", "enum": ["public", "private"]}),
        "awr": _optional(
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["target", "dbid", "begin_snap", "end_snap"],
                "properties": {
                    "target": {"type": "string"},
                    "dbid": {"type": "integer"},
                    "begin_snap": {"type": "integer"},
                    "end_snap": {"type": "integer"},
                },
            }
        ),
        "measurements": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["series", "x", "y"],
                "additionalProperties": False,
                "properties": {
                    "series": {"type": "string", "minLength": 1, "maxLength": 100},
                    "x": {"type": ["number", "string"]},
                    "y": {"type": "number"},
                    "unit": _optional({"type": "string", "maxLength": 20}),
                    "extra": _optional({"type": "object"}),
                },
            },
        },
    },
}
SAVED = {
    "type": "object",
    "required": ["slug", "url", "measurements", "replaced"],
    "properties": {
        "slug": {"type": "string"},
        "title": {"type": "string"},
        "kind": {"type": "string"},
        "visibility": {"type": "string"},
        "measurements": {"type": "integer"},
        "replaced": {"type": "boolean"},
        "created": {"type": "string"},
        "url": {"type": "string"},
    },
}
NOT_MODIFIED = ("Not modified (ETag)", None)
PRIVATE = {"401": "A wrong key in X-API-Key."}
NO_RUN = (
    "Unknown benchmark run, or a private one asked without the API key: the same answer, so that no answer "
    "tells which private runs exist (`parameter` names the slug)."
)


def key_optional(view):
    """Mark a view that checks the key itself: the API-key rule (app.api.auth) lets its requests through."""
    view.key_optional = True
    return view


def private_allowed() -> bool:
    """Whether the request may see private runs: no key is configured, or it carries the key. A wrong key is
    refused (401) as everywhere else; no key at all sees the public runs only."""
    key = current_app.extensions.get("api_key")
    if key is None:
        return True
    given = request.headers.get(auth.HEADER, "")
    if not given:
        return False
    if not key.matches(given):
        raise Unauthorized(f"the key in the {auth.HEADER} header is not valid")
    return True


@runs_api.get("")
@key_optional
@accepts(KIND, FORMAT)
def list_runs(args):
    """Benchmark runs, newest first: public ones, and private ones with a valid API key."""
    from app.runs import repo  # and SQLAlchemy, which only the runs' requests need on the embedded store

    rows = repo.list_runs(where.store(), private_allowed(), args["kind"])
    return _answer({"count": len(rows), "columns": repo.RUN_COLUMNS, "rows": rows}, args)


@runs_api.post("")
@accepts(REPLACE)
def create_run(args):
    """Store a run and its measurements (JSON body, API key required): all of it or nothing."""
    from app.runs import repo

    if current_app.extensions.get("api_key") is None:  # configured: the API-key rule has checked it already
        raise Forbidden(
            "storing runs through the API needs an API key, and none is configured "
            "(AWRLENS_API_KEY_SECRET); without one, use `flask --app app runs import`"
        )
    raw = request.get_data(cache=False)  # over the body limit: 413 before this line (and before any write)
    try:
        doc = orjson.loads(raw.removeprefix(codecs.BOM_UTF8))  # a byte-order mark some editors write
    except orjson.JSONDecodeError as exc:
        raise BadParameter(f"the body must be a JSON object describing one run ({exc})", "body") from None
    run = parse_run(doc, targets=where.targets())
    saved = repo.save(where.store(), run, replace=args["replace"])
    saved["url"] = f"{runs_api.url_prefix}/{run.slug}"
    resp = current_app.json.response(saved)
    resp.status_code = 200 if saved["replaced"] else 201
    resp.headers["Location"] = saved["url"]
    resp.cache_control.no_store = True
    return resp


@runs_api.get("/compare")
@key_optional
@accepts(RUNS, FORMAT)
def compare_runs(args):
    """Several runs side by side: their summaries, and every measurement with the run it belongs to."""
    from app.runs import repo

    slugs = list(dict.fromkeys(args["runs"]))
    if not slugs:
        raise BadParameter("runs is required: one or more run slugs (runs=a&runs=b)", "runs")
    if len(slugs) > MAX_COMPARE:
        raise BadParameter(f"at most {MAX_COMPARE} runs at once, got {len(slugs)}", "runs")
    private = private_allowed()
    runs, rows, extra = [], [], []
    for slug in slugs:
        one = repo.get_run(where.store(), slug, private, parameter="runs")
        runs.append(one["run"])
        rows.extend({"run": slug, **r} for r in one["rows"])
        extra.extend(k for k in one["extra_columns"] if k not in extra)
    return _answer(
        {"runs": runs, "columns": ["run", *repo.ROW_COLUMNS], "extra_columns": extra, "rows": rows},
        args,
        table=_measurements_table,
    )


@runs_api.get("/<slug>")
@key_optional
@accepts(SLUG_PARAM, FORMAT)
def get_run(slug, args):
    """One run: title, kind, environment, parameters, AWR window and every measurement."""
    from app.runs import repo

    SLUG_PARAM.parse(slug)
    return _answer(repo.get_run(where.store(), slug, private_allowed()), args, table=_measurements_table)


def _measurements_table(body):
    """Measurements for CSV: the upload's columns (series, x, y, unit), then one column per extra attribute,
    so a run's CSV can be imported again as it is."""
    keys = body["extra_columns"]
    return [
        {**{k: v for k, v in r.items() if k != "extra"}, **{k: _cell(r["extra"].get(k)) for k in keys}}
        for r in body["rows"]
    ]


def _cell(value):
    return orjson.dumps(value).decode() if isinstance(value, (dict, list)) else value


def _answer(body, args, table=None):
    resp = answer(body, args, table=table)
    resp.cache_control.public = False
    resp.cache_control.max_age = 0
    resp.cache_control.no_cache = True
    resp.vary.add("X-API-Key")
    return resp


list_runs.openapi = {
    "ok": {
        "200": (
            "OK",
            {
                "type": "object",
                "required": ["count", "columns", "rows"],
                "properties": {
                    "count": {"type": "integer"},
                    "columns": MEASUREMENTS["columns"],
                    "rows": {"type": "array", "items": RUN},
                },
            },
        ),
        "304": NOT_MODIFIED,
    },
    "errors": {**PRIVATE, "404": "Unknown URL."},
}
get_run.openapi = {
    "ok": {
        "200": (
            "OK",
            {
                "type": "object",
                "required": ["run", "columns", "extra_columns", "rows"],
                "properties": {"run": RUN_DETAIL, **MEASUREMENTS, "rows": {"type": "array", "items": MEASUREMENT}},
            },
        ),
        "304": NOT_MODIFIED,
    },
    "errors": {**PRIVATE, "404": NO_RUN},
}
compare_runs.openapi = {
    "ok": {
        "200": (
            "OK",
            {
                "type": "object",
                "required": ["runs", "columns", "extra_columns", "rows"],
                "properties": {
                    "runs": {"type": "array", "items": RUN_DETAIL},
                    **MEASUREMENTS,
                    "rows": {
                        "type": "array",
                        "items": {
                            **MEASUREMENT,
                            "required": ["run", *MEASUREMENT["required"]],
                            "properties": {"run": {"type": "string"}, **MEASUREMENT["properties"]},
                        },
                    },
                },
            },
        ),
        "304": NOT_MODIFIED,
    },
    "errors": {**PRIVATE, "404": NO_RUN},
}
create_run.openapi = {
    "body": UPLOAD,
    "ok": {"201": ("Stored", SAVED), "200": ("Stored, replacing the run with the same slug (replace=1)", SAVED)},
    "errors": {
        "400": "The body is not JSON or not a valid run; `parameter` names the field, e.g. "
        "measurements[3].y for the third row's y. Nothing was stored.",
        "401": "No API key, or a wrong one, in X-API-Key.",
        "403": "No API key is configured, so the API stores nothing (use `flask runs import`).",
        "404": None,
        "409": "A run with this slug exists (send replace=1 to replace it). Nothing was stored.",
        "413": "The body is over 1 MiB; refused before anything was stored.",
        "503": "The store cannot be written (read-only, e.g. the demo on Lambda) or is unreachable.",
    },
}
