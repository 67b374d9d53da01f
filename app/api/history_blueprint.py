"""The history API's blueprint (`api`, under /api/v1) and what its view modules (history.py, statements.py,
changes.py, oracle_reports.py) share: the database and range a request names, two periods compared, the points asked
for, the answer that holds series, and the benchmark runs the changes list. Views import it; it imports no view."""

import io

from flask import Blueprint, current_app, g, request
from werkzeug.exceptions import RequestEntityTooLarge

from app.api.params import MAX_POINTS, RANGE, Param
from app.api.respond import answer
from app.errors import ApiError, BadParameter
from app.history.database import BadRange
from app.history.numbers import shaped

api = Blueprint("api", __name__, url_prefix="/api/v1")


@api.before_app_request
def _refuse_large_body():
    """A body over the app's limit is refused before any work, cached answers included (413): by its Content-Length,
    or, for a body sent in chunks without one, by reading it up to the limit first."""
    view = current_app.view_functions.get(request.endpoint)
    limit = getattr(view, "body_limit", None) or current_app.config["MAX_CONTENT_LENGTH"]
    request.max_content_length = limit  # the form parser's bound too (an upload's files)
    if (request.content_length or 0) > limit:
        raise RequestEntityTooLarge(f"the request body is over {limit} bytes")
    environ = request.environ
    if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower() and environ.get("wsgi.input_terminated"):
        body = environ["wsgi.input"].read(limit + 1)  # Werkzeug would silently cut it at the limit instead
        if len(body) > limit:
            raise RequestEntityTooLarge(f"the request body is over {limit} bytes")
        environ.update({"wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))})  # an ordinary body now
        del environ["HTTP_TRANSFER_ENCODING"], environ["wsgi.input_terminated"]


def app_settings():
    """The app's settings (app.settings.Settings)."""
    return current_app.config["SETTINGS"]


def every_database():
    """Every database of every configured store (app.history.History)."""
    return current_app.extensions["awrlens"]


def requested_database(db_key):
    """The database a request names; its answer will name the source of its history (respond.answer)."""
    d = every_database().database(db_key)
    g.answer_source = d.store.source
    return d


def database_and_range(db_key, args, default_days=7):
    """The database a request names and its range (from/to or begin_snap/end_snap), resolved."""
    d = requested_database(db_key)
    return d, resolved_range(d, args, default_days=default_days)


def resolved_range(db, args, prefix="", default_days=7):
    """The request's time or snapshot range, resolved against the database's snapshots."""
    names = dict(
        zip(
            ("start", "end", "begin_snap", "end_snap"),
            (f"{prefix}{n}" for n in ("from", "to", "begin_snap", "end_snap")),
            strict=True,
        )
    )
    by_time = [names[r] for r in ("start", "end") if args.get(names[r]) is not None]
    by_snap = [names[r] for r in ("begin_snap", "end_snap") if args.get(names[r]) is not None]
    if by_time and by_snap:
        raise BadParameter(
            f"a range is {names['start']}/{names['end']} or {names['begin_snap']}/{names['end_snap']}, "
            f"not both: got {' and '.join(by_time + by_snap)}",
            by_time[0],
        )
    try:
        return db.resolve(
            *(args.get(n) for n in names.values()), default_days=default_days, max_days=app_settings().max_range_days
        )
    except BadRange as problem:
        raise problem.named(names) from None


def period_params(prefix, label):
    """The range parameters of one of two periods compared: `prefix` (a_ or b_) before each name."""
    return tuple(
        Param(f"{prefix}{p.name}", p.kind, f"Period {label}: {p.help}", minimum=p.minimum, maximum=p.maximum)
        for p in RANGE
    )


def periods(d, args, first=("from", "to")):
    """Periods A and B, from the a_ and b_ parameters (period_params): each is required, a 400 naming its two forms,
    `first` (from and to, or begin_snap and end_snap: the form the endpoint is mostly asked in) first."""
    forms = [first] + [f for f in (("from", "to"), ("begin_snap", "end_snap")) if f != first]
    for side in ("a", "b"):
        if all(args[f"{side}_{k}"] is None for form in forms for k in form):
            raise BadParameter(
                f"period {side.upper()} is required: give "
                + ", or ".join(f"{side}_{lo} and {side}_{hi}" for lo, hi in forms),
                f"{side}_{first[0]}",
            )
    return resolved_range(d, args, "a_"), resolved_range(d, args, "b_")


def max_points(args):
    """The points per series asked for (max_points), or the app's default."""
    value = args["max_points"]
    if value in (1, 2):  # LTTB keeps the first and last points, and one per bucket between
        raise BadParameter(
            f"max_points must be 0 (every point) or between 3 and {MAX_POINTS.maximum}, got {value}", "max_points"
        )
    return app_settings().max_points if value is None else value


def series_answer(body, args, rng, table="long"):
    """An answer holding series: their points in the shape asked for (CSV: pairs, in long form, unless the answer's
    table is its rows)."""
    body.update(
        shaped(body["series"] + body.get("cpu_count", []), "pairs" if args["format"] == "csv" else args["shape"])
    )
    return answer(body, args, rng, table=_series_table if table == "long" else table)


def _series_table(body):
    """Series in long form: one row per point; a combined point that sums fewer instances than the range holds names
    the ones it leaves out (docs/awr-rules.md §11)."""
    out = []
    for s in body.get("series", []) + body.get("cpu_count", []):
        labels = {k: s[k] for k in ("name", "metric", "plan_hash_value", "instance", "unit") if k in s}
        missing = {p["time"]: " ".join(map(str, p["missing"])) for p in s.get("partial", ())}
        out.extend({**labels, "time": t, "value": v, "missing_instances": missing.get(t, "")} for t, v in s["points"])
    return out


def every_run() -> list[dict]:
    """Every benchmark run, for the changes of a range (/changes and the report): a request that reached their views
    carries the API key where one is configured, so private runs too; none when the store that holds them cannot be
    read: the other changes answer all the same."""
    from app.runs import repo, where

    try:
        return repo.list_runs(where.store(), private=True)
    except ApiError:
        return []
