"""The OpenAPI 3.1 document, generated from the routes, their declared parameters and docstrings, with the answers'
schemas of answer_schemas.py."""

import re

from flask import request

from app.api import answer_schemas, auth

FORMAT_MEDIA = {"csv": "text/csv", "text": "text/plain"}  # the answer's media type by its format=
ERRORS = {
    "400": "A parameter is missing or malformed; `parameter` names it.",
    "404": "Unknown database, series, sql_id or plan hash value (the message names the plans there are); or what the "
    "database's history does not keep (code not_in_source: a Statspack database has no ASH, system metrics, "
    "tablespace usage or Oracle reports; docs/awr-rules.md §31).",
    "413": "The request has a body over 1 MiB (only POST /benchmarks and POST /reports read one; /reports up to 10 "
    "MiB).",
    "422": "The question is too wide: it reads more rows than AWRLENS_ROW_CAP (code too_many_rows), or its "
    "answer is over what the deployment can send, 6 MB on Lambda (code answer_too_large); the message "
    "says how to narrow it (the range, max_points).",
    "503": "The database is unreachable.",
    "504": "The database did not answer in time.",
}


def openapi_document(app, keyed: bool | None = None) -> dict:
    """The document of the app's routes; `keyed`: as where an API key is configured (every operation's security and
    its 401), or not; by default as the app's settings say."""
    keyed = bool(app.config["SETTINGS"].api_key_secret) if keyed is None else keyed
    paths: dict = {}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1/"):
            continue
        view = app.view_functions[rule.endpoint]
        params = getattr(view, "params", ())
        described = getattr(view, "openapi", {})  # a view may describe its body, answers and errors itself
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        path_params = [p.openapi() for p in params if p.in_path]
        for name in rule.arguments:
            if name not in [p["name"] for p in path_params]:
                path_params.append(
                    {
                        "name": name,
                        "in": "path",
                        "required": True,
                        "description": "Database id from /dbs (`target.dbid`), or its DB_NAME or bare DBID "
                        "where that names one database.",
                        "schema": {"type": "string", "minLength": 1, "maxLength": 90},
                    }
                )
        doc = (view.__doc__ or "").strip()
        answers = described.get("ok") or {
            "200": ("OK", answer_schemas.BY_ENDPOINT.get(rule.endpoint, {"type": "object"})),
            "304": ("Not modified (ETag)", None),
        }
        media = described.get("media", ("application/json",))  # documents: the reports' HTML or text
        responses = {
            code: {"description": text, **({"content": {m: {"schema": schema} for m in media}} if schema else {})}
            for code, (text, schema) in answers.items()
        }
        for p in params:  # format=csv or format=text: the answer in that media type
            if p.name == "format":
                for choice in set(p.choices) - {"json"}:
                    responses["200"]["content"][FORMAT_MEDIA[choice]] = {"schema": {"type": "string"}}
        errors = {**ERRORS, **described.get("errors", {})}
        responses.update(
            {
                code: {
                    "description": text,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                }
                for code, text in errors.items()
                if text
            }
        )
        for method in ("get", "post"):
            if method.upper() not in rule.methods:
                continue
            op = {
                "operationId": rule.endpoint.split(".")[-1],
                "summary": doc.splitlines()[0] if doc else rule.endpoint,
                "parameters": path_params + [p.openapi() for p in params if not p.in_path],
                "responses": dict(sorted(responses.items())),
            }
            if keyed:  # an API key is configured: every operation needs it, but for the exempt and optional ones
                optional = getattr(view, "key_optional", False) or rule.rule in auth.EXEMPT
                op["security"] = [{}, {"ApiKey": []}] if optional else [{"ApiKey": []}]
                if not optional:
                    op["responses"]["401"] = {
                        "description": f"No valid key in the {auth.HEADER} header.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    }
            if "body" in described:
                media = described.get("body_media", "application/json")
                op["requestBody"] = {"required": True, "content": {media: {"schema": described["body"]}}}
            paths.setdefault(path, {})[method] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "awrlens",
            "version": "1",
            "description": "Oracle AWR history (DBA_HIST_*) as JSON, and benchmark results. Errors share one shape.",
        },
        "servers": [{"url": request.script_root + "/"}],  # behind API Gateway: the stage, e.g. /demo/
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": {"Error": answer_schemas.ERROR},
            "securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": auth.HEADER}},
        },
    }
