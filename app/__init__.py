"""awrlens: browse Oracle AWR history (DBA_HIST_*) and share benchmark runs, as a JSON API and one page."""

import gc
import os

# The imports build a few hundred thousand objects that live for ever: collecting them while they are young is wasted
# work on every cold start (Lambda's included). Enabled again once they are imported, and frozen.
gc.disable()
from pathlib import Path
from urllib.parse import urlsplit

import orjson
from flask import Flask, jsonify
from flask.json.provider import JSONProvider
from flask_cors import CORS
from werkzeug.exceptions import HTTPException

from app.errors import ApiError, error_body
from app.history import History
from app.settings import Settings
from app.store import open_stores
from app.store.base import sql_log
from app.units import MIB

gc.freeze()  # what the imports built is never scanned
gc.enable()

ROOT = Path(__file__).resolve().parent.parent
MAX_BODY = MIB
CLOSED_CACHE_TTL = 3600  # seconds an answer about a closed range is served from memory (AWR may purge old data)


class OrjsonProvider(JSONProvider):
    """orjson: several times faster than the standard library on long series."""

    def dumps(self, obj, **kwargs):
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()

    def loads(self, s, **kwargs):
        return orjson.loads(s)

    def response(self, *args, **kwargs):
        obj = args[0] if len(args) == 1 else (args or kwargs)
        return self._app.response_class(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS), mimetype="application/json")


def create_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings.from_env()
    app = Flask(
        __name__, static_folder=str(ROOT / "static"), static_url_path="/static", template_folder=str(ROOT / "templates")
    )
    app.json = OrjsonProvider(app)
    app.config.update(SETTINGS=settings, MAX_CONTENT_LENGTH=MAX_BODY)
    app.extensions["awrlens"] = History(open_stores(settings))
    origins = [o.strip() for o in settings.cors_origins.split(",")]
    # a page on another origin reads a report's file name (Oracle's own reports, app/api/oracle_reports.py)
    CORS(app, resources={r"/api/*": {"origins": origins}}, max_age=600, expose_headers=["Content-Disposition"])

    @app.before_request
    def _relative_redirect():
        """Werkzeug's redirect to a route's own URL (`/api/v1` to `/api/v1/`, doubled slashes merged) names the
        request's Host header in an absolute Location, under an HTML page: the path alone instead (RFC 9110 10.2.2:
        a relative reference is resolved against the request's URL), in JSON. First of the request's checks."""
        from flask import request
        from werkzeug.routing import RequestRedirect

        exc = request.routing_exception
        if isinstance(exc, RequestRedirect):
            to = urlsplit(exc.new_url)
            location = "/" + to.path.lstrip("/") + (f"?{to.query}" if to.query else "")  # never //host
            return jsonify({"location": location}), exc.code, {"Location": location}
        return None

    @app.after_request
    def _vary_on_origin(resp):
        """Answers are cacheable and their CORS headers depend on Origin: shared caches must keep them apart."""
        resp.vary.add("Origin")
        return resp

    from app.api import changes, history, oracle_reports, statements  # noqa: F401  (their views, on the blueprint)
    from app.api.history_blueprint import api

    app.register_blueprint(api)
    from app.api.report_files import reports_api
    from app.api.runs import runs_api

    app.register_blueprint(runs_api)
    app.register_blueprint(reports_api)
    from app.api.auth import require_api_key

    require_api_key(app)  # before the answer cache: a cached answer needs the key too
    from app.api.cache import AnswerCache

    AnswerCache(
        settings.answer_cache_mb * MIB, CLOSED_CACHE_TTL, settings.snapshot_ttl, settings.answer_cache_dir
    ).init_app(app)
    from app.api.openapi import openapi_document

    # revalidated: its servers name the stage it is asked through, and it changes with the app
    app.add_url_rule("/api/v1/openapi.json", "openapi", lambda: _revalidated(jsonify(openapi_document(app))))
    from app.cli import register

    register(app)
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):  # behind Zappa's handler: answers are limited to 6 MB
        from app.api.respond import fit_lambda

        app.after_request(fit_lambda)  # registered last, so it runs before the answer cache and CORS see the answer

    @app.before_request
    def _start_sql_log():
        from flask import request

        if request.args.get("show_sql", "").lower() in ("1", "true", "yes"):
            sql_log.set([])

    @app.get("/")
    def page():
        """The page (templates/index.html, app/page.py), or where the API is where there is no page (Lambda)."""
        from flask import make_response, render_template

        from app import page as the_page

        if not (the_page.TEMPLATES / the_page.PAGE).exists():
            return jsonify({"name": "awrlens", "api": "/api/v1/", "openapi": "/api/v1/openapi.json"})
        resp = make_response(render_template(the_page.PAGE, **the_page.context(settings)))
        resp.headers.update(the_page.FRAMING)
        return _revalidated(resp)

    @app.get("/static/awrlens.js")  # app/page.py SCRIPTS_PATH
    def page_scripts():
        """The page's own scripts as one file (app/page.py), joined from static/js at each request, so an edited
        file shows at the next reload; not found where static/ does not ship (Lambda)."""
        from flask import abort, make_response

        from app import page as the_page

        try:
            body = the_page.scripts()
        except FileNotFoundError:
            abort(404)
        resp = make_response(body)
        resp.mimetype = "text/javascript"
        return _revalidated(resp)

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return jsonify(exc.body()), exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        code = (exc.name or "error").lower().replace(" ", "_")
        headers = [(k, v) for k, v in exc.get_headers() if k != "Content-Type"]  # Allow on a 405
        return jsonify(error_body(exc.code, code, exc.description)), exc.code, headers

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        app.logger.exception("unexpected error")
        return jsonify(error_body(500, "internal_error", "unexpected error; see the server log")), 500

    return app


def _revalidated(resp):
    """The page, its scripts or the OpenAPI document: no-cache, revalidated with the ETag, so a new one shows at
    once."""
    from flask import request

    resp.cache_control.no_cache = True
    resp.add_etag()
    return resp.make_conditional(request)


def tune_gc():
    """For a server process, once the app is built. A series answer allocates tens of thousands of small tuples
    that die young; with the default thresholds (700, 10, 10) they set off a full collection every few requests,
    each walking every long-lived object. Collecting less often halves the CPU time of a full-resolution series
    (BENCHMARKS.md)."""
    gc.freeze()  # what the app built at start is never scanned again
    gc.set_threshold(20_000, 20, 20)
    gc.enable()
