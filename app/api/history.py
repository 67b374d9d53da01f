"""The JSON history API under /api/v1. Thin views: parse, ask a question of app.history, shape the answer."""

import io
from dataclasses import replace

from flask import Blueprint, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from app import history
from app.api import limits
from app.api import report as report_page
from app.api.params import FORMAT, INSTANCE, MAX_POINTS, RANGE, RATE, SHAPE, SHOW_SQL, TABLE_INSTANCE, Param, accepts
from app.api.respond import answer, conditional
from app.errors import BadParameter
from app.history.database import BadRange
from app.history.numbers import shaped
from app.store.awr.queries import DIMENSIONS, SEGMENT_ORDER, TOP_SEGMENT_ROWS, TOP_SQL_ORDER

api = Blueprint("api", __name__, url_prefix="/api/v1")

SQL_ID = Param(
    "sql_id",
    "string",
    "An Oracle SQL_ID: 13 characters, digits and lower-case letters.",
    in_path=True,
    pattern=r"[0-9a-z]{13}",
)


@api.before_app_request
def _refuse_large_body():
    """A body over the app's limit is refused before any work, cached answers included (413): by its Content-Length,
    or, for a body sent in chunks without one, by reading it up to the limit first."""
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if (request.content_length or 0) > limit:
        raise RequestEntityTooLarge(f"the request body is over {limit} bytes")
    environ = request.environ
    if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower() and environ.get("wsgi.input_terminated"):
        body = environ["wsgi.input"].read(limit + 1)  # Werkzeug would silently cut it at the limit instead
        if len(body) > limit:
            raise RequestEntityTooLarge(f"the request body is over {limit} bytes")
        environ.update({"wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))})  # an ordinary body now
        del environ["HTTP_TRANSFER_ENCODING"], environ["wsgi.input_terminated"]


def _settings():
    return current_app.config["SETTINGS"]


def _databases():
    return current_app.extensions["awrlens"]


def _asked(db_key, args, default_days=7):
    """The database a request names and its range (from/to or begin_snap/end_snap), resolved."""
    d = _databases().database(db_key)
    return d, _range(d, args, default_days=default_days)


def _range(db, args, prefix="", default_days=7):
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
            *(args.get(n) for n in names.values()), default_days=default_days, max_days=_settings().max_range_days
        )
    except BadRange as problem:
        raise problem.named(names) from None


@api.get("/")
def index():
    """Where to start, and the limits a client must respect."""
    return {
        "name": "awrlens",
        "version": "v1",
        "openapi": "/api/v1/openapi.json",
        "databases": "/api/v1/dbs",
        "limits": limits(_settings()),
    }


@api.get("/dbs")
@accepts(FORMAT, SHOW_SQL)
def databases(args):
    """Every database of every target: instances, version, host, RAC flag and snapshot range; a target that cannot
    be reached is listed under `unreachable` with its error, and the others answer all the same."""
    found, problems = _databases().survey()
    if problems and not found:
        raise next(iter(problems.values()))
    body = {"databases": [db.summary() for db in found]}
    if problems:
        body["unreachable"] = [{"target": alias, **exc.body()["error"]} for alias, exc in problems.items()]
    resp = answer(body, args, table=lambda body: _flat(body["databases"]))
    if problems:  # asked again next time, by caches too: the target may be back
        resp.cache_control.max_age = 0
        resp.cache_control.no_cache = True
    return resp


@api.get("/dbs/<db>")
@accepts(SHOW_SQL)
def database(db, args):
    """One database."""
    return answer(_databases().database(db).summary(), args)


@api.get("/dbs/<db>/snapshots")
@accepts(*RANGE, TABLE_INSTANCE, FORMAT, SHOW_SQL)
def snapshots(db, args):
    """Snapshots in the range, per instance, with restarts and missing or merged snapshots marked."""
    d, rng = _asked(db, args)
    return answer(history.snapshots.compute(d, rng, args["instance"]), args, rng)


@api.get("/dbs/<db>/catalog")
@accepts(
    Param(
        "q",
        "string",
        "Only series with every word of this text, in any order, in their name, label or "
        "description (any case); where none has, `did_you_mean` lists the closest names.",
    ),
    Param(
        "source",
        "string",
        "Only series from this source (sysstat, sys_time_model, osstat, system_event, "
        "wait_class, sysmetric, sysmetric_history, iostat_function, iostat_filetype, "
        "derived).",
        pattern=r"[a-z_]{1,40}",
    ),
    FORMAT,
    SHOW_SQL,
)
def catalog(db, args):
    """Every chartable series: name, source, label, unit and kind."""
    d = _databases().database(db)
    found, close = history.catalog.search(d, args["q"] or "")
    rows = sorted(
        (s.public() for s in found if not args["source"] or s.source == args["source"]), key=lambda r: r["name"]
    )
    body = {"db": d.key, "count": len(rows), "columns": ["name", "label", "source", "unit", "kind"], "rows": rows}
    if args["q"]:
        body["did_you_mean"] = close
    return answer(body, args)


NAMES = Param("name", "string", "Series name from the catalog; repeat the parameter for several series.", multi=True)


def _max_points(args):
    value = args["max_points"]
    if value in (1, 2):  # LTTB keeps the first and last points, and one per bucket between
        raise BadParameter(
            f"max_points must be 0 (every point) or between 3 and {MAX_POINTS.maximum}, got {value}", "max_points"
        )
    return _settings().max_points if value is None else value


@api.get("/dbs/<db>/series")
@accepts(NAMES, *RANGE, INSTANCE, RATE, MAX_POINTS, SHAPE, FORMAT, SHOW_SQL)
def series(db, args):
    """One or more series over a range: per instance or combined, per second, per transaction or raw. A snapshot
    range is its intervals (begin_snap, end_snap], as in the AWR report. A combined point that sums fewer instances
    than the range holds is listed under the series' `partial`, with the instances it leaves out."""
    names = args["name"]
    if not names:
        raise BadParameter("name is required: one or more series names from the catalog", "name")
    if len(names) > _settings().max_series:
        raise BadParameter(f"at most {_settings().max_series} series per request, got {len(names)}", "name")
    d, rng = _asked(db, args)
    body = history.series.compute(d, list(dict.fromkeys(names)), rng, args["instance"], args["rate"], _max_points(args))
    return _series_answer(body, args, rng)


@api.get("/dbs/<db>/wait-classes")
@accepts(*RANGE, INSTANCE, MAX_POINTS, SHAPE, FORMAT, SHOW_SQL)
def wait_classes(db, args):
    """Average active sessions by wait class over time: DB CPU plus every non-idle class, and the CPU count."""
    d, rng = _asked(db, args)
    body = history.series.wait_classes(d, rng, args["instance"], _max_points(args))
    return _series_answer(body, args, rng)


@api.get("/dbs/<db>/load-profile")
@accepts(*RANGE, TABLE_INSTANCE, FORMAT, SHOW_SQL)
def load_profile(db, args):
    """The AWR report's Load Profile: per second and per transaction."""
    d, rng = _asked(db, args)
    return answer(history.load_profile.compute(d, rng, args["instance"]), args, rng)


@api.get("/dbs/<db>/top-events")
@accepts(
    *RANGE,
    TABLE_INSTANCE,
    Param("limit", "integer", "Rows to return.", default=10, minimum=1, maximum=100),
    FORMAT,
    SHOW_SQL,
)
def top_events(db, args):
    """Foreground wait events and DB CPU by time: waits, time, average ms, % of DB time."""
    d, rng = _asked(db, args)
    return answer(history.top_events.compute(d, rng, args["instance"], args["limit"]), args, rng)


@api.get("/dbs/<db>/top-sql")
@accepts(
    *RANGE,
    Param("order_by", "enum", "Sort key.", default="elapsed", choices=tuple(TOP_SQL_ORDER)),
    Param("limit", "integer", "Rows to return.", default=25, minimum=1, maximum=100),
    FORMAT,
    SHOW_SQL,
)
def top_sql(db, args):
    """Top SQL by elapsed time, CPU, gets, reads, executions or rows, with text and plan hash values."""
    d, rng = _asked(db, args)
    return answer(history.top_sql.compute(d, rng, args["order_by"], args["limit"]), args, rng, table=_sql_table)


@api.get("/dbs/<db>/sql/<sql_id>")
@accepts(
    SQL_ID,
    *RANGE,
    Param(
        "con_dbid",
        "integer",
        "In a CDB root, the container (its CON_DBID, as top SQL gives "
        "it) whose rows to read; default: every container's, summed.",
        minimum=0,
        maximum=2**32 - 1,
    ),
    MAX_POINTS,
    SHAPE,
    FORMAT,
    SHOW_SQL,
)
def sql(db, sql_id, args):
    """One statement over time, one line per plan hash value: elapsed and CPU per execution, gets, executions."""
    SQL_ID.parse(sql_id)
    d, rng = _asked(db, args, default_days=45)
    return _series_answer(history.sql.compute(d, sql_id, rng, _max_points(args), args["con_dbid"]), args, rng)


PLAN_HASH = {"kind": "integer", "minimum": 0, "maximum": 2**32 - 1}


@api.get("/dbs/<db>/sql/<sql_id>/plans")
@accepts(
    SQL_ID,
    *RANGE,
    Param("plan_hash_value", help="Only this plan (404 names the plans the history holds).", **PLAN_HASH),
    FORMAT,
    SHOW_SQL,
)
def sql_plans(db, sql_id, args):
    """A statement's execution plans (DBA_HIST_SQL_PLAN), each an ordered list of lines with their depth, and per
    line the statement's ASH samples in the range: samples, % of the statement's, CPU against waits."""
    SQL_ID.parse(sql_id)
    d, rng = _asked(db, args)
    body = history.plans.compute(d, sql_id, rng, args["plan_hash_value"])
    return answer(body, args, rng, table=history.plans.table)


@api.get("/dbs/<db>/sql/<sql_id>/plans/diff")
@accepts(
    SQL_ID,
    Param("a", help="The first plan's hash value.", **PLAN_HASH),
    Param("b", help="The second plan's hash value.", **PLAN_HASH),
    FORMAT,
    SHOW_SQL,
)
def sql_plan_diff(db, sql_id, args):
    """Two plans of a statement line by line: aligned on (operation, options, object), each row the same, moved (at
    another depth), changed, only in a or only in b."""
    SQL_ID.parse(sql_id)
    for side in ("a", "b"):
        if args[side] is None:
            raise BadParameter(f"{side} is required: a plan hash value of the statement", side)
    d = _databases().database(db)
    return answer(history.plans.diff(d, sql_id, args["a"], args["b"]), args, table=history.plans.diff_table)


@api.get("/dbs/<db>/sql/<sql_id>/binds")
@accepts(SQL_ID, *RANGE, FORMAT, SHOW_SQL)
def sql_binds(db, sql_id, args):
    """The bind values AWR captured for a statement in the range (DBA_HIST_SQLBIND), as text."""
    SQL_ID.parse(sql_id)
    d, rng = _asked(db, args)
    return answer(history.plans.binds(d, sql_id, rng), args, rng)


@api.get("/dbs/<db>/tablespaces")
@accepts(*RANGE, MAX_POINTS, SHAPE, FORMAT, SHOW_SQL)
def tablespaces(db, args):
    """Tablespace used, allocated and maximum size over time (MB)."""
    d, rng = _asked(db, args, default_days=45)
    return _series_answer(history.tablespaces.compute(d, rng, _max_points(args)), args, rng, table=None)


@api.get("/dbs/<db>/event-histogram")
@accepts(
    Param("event", "string", "A wait event's name, as top events gives it (e.g. log file sync).", max_length=64),
    *RANGE,
    TABLE_INSTANCE,
    FORMAT,
    SHOW_SQL,
)
def event_histogram(db, args):
    """How one event's waits were spread: per interval, the waits in each latency bucket (powers of two ms, deltas)
    with the estimated p50/p95/p99, and the range's distribution (docs/awr-rules.md §24)."""
    if not args["event"]:
        raise BadParameter("event is required: a wait event's name, as top events gives it", "event")
    d, rng = _asked(db, args)
    body = history.histograms.compute(d, args["event"], rng, args["instance"])
    return answer(body, args, rng, table=history.histograms.table)


@api.get("/dbs/<db>/segments")
@accepts(
    *RANGE,
    Param(
        "order_by", "enum", "The statistic the segments are ranked by.", default="logical_reads", choices=SEGMENT_ORDER
    ),
    Param("limit", "integer", "Rows to return.", default=25, minimum=1, maximum=TOP_SEGMENT_ROWS),
    FORMAT,
    SHOW_SQL,
)
def segments(db, args):
    """Top segments by logical or physical reads, writes, direct reads, row lock, ITL or buffer busy waits, block
    changes or space used, with % of the database's total and of the segments captured (docs/awr-rules.md §25)."""
    d, rng = _asked(db, args)
    return answer(history.segments.top(d, rng, args["order_by"], args["limit"]), args, rng)


OBJ = Param(
    "obj",
    "integer",
    "The segment's OBJ# (dictionary object number), as top segments gives it.",
    in_path=True,
    minimum=0,
    maximum=2**32 - 1,
)


@api.get("/dbs/<db>/segments/<obj>")
@accepts(
    OBJ,
    Param(
        "dataobj",
        "integer",
        "The segment's DATAOBJ# (data object number); default: its OBJ#.",
        minimum=0,
        maximum=2**32 - 1,
    ),
    *RANGE,
    SHAPE,
    FORMAT,
    SHOW_SQL,
)
def segment(db, obj, args):
    """One segment over time: each statistic per snapshot, summed over instances (docs/awr-rules.md §25)."""
    obj = OBJ.parse(obj)
    d, rng = _asked(db, args)
    dataobj = obj if args["dataobj"] is None else args["dataobj"]
    return _series_answer(history.segments.history(d, obj, dataobj, rng), args, rng)


@api.get("/dbs/<db>/range")
@accepts(*RANGE, FORMAT, SHOW_SQL)
def range_of(db, args):
    """A range resolved to its snapshots: the first and last snap_id that end in it (its intervals are
    (begin_snap, end_snap], the range of Oracle's AWR report) and their times; small, for the page's range label."""
    d, rng = _asked(db, args)
    tl = d.timeline()
    ends = {k: tl.lowest[s].time for k, s in (("begin_time", rng.lo), ("end_time", rng.hi)) if s is not None}
    return answer({"db": d.key, "range": {**rng.public(), **ends}}, args, rng, table=lambda body: [body["range"]])


@api.get("/dbs/<db>/report")
@accepts(
    *RANGE,
    TABLE_INSTANCE,
    Param(
        "download", "boolean", "1: as an attachment, named awrlens-<db>-<begin_snap>-<end_snap>.html.", default=False
    ),
)
def report(db, args):
    """The app's report of a range as one printable HTML file (no script, no fetch): the header, Load Profile, time
    model, top events, top SQL, wait classes, I/O by function, OS statistics, tablespaces, the changes, and charts as
    images. Needs the API key like every question: open it by fetching it with the X-API-Key header."""
    d, rng = _asked(db, args)
    from app.api.changes import every_run

    body = history.report.compute(d, rng, args["instance"], every_run())
    # its changes list benchmark runs, uploaded at any time: kept as long as the snapshot list, as /changes is
    return conditional(report_page.page(body, args["download"]), replace(rng, closed=False))


report.openapi = {
    "ok": {"200": ("The report: one HTML file", {"type": "string"}), "304": ("Not modified (ETag)", None)},
    "media": ("text/html",),
}


ACTIVITY_FILTERS = tuple(
    Param(
        name,
        "string",
        f"Only the samples whose {name} is this value"
        + {
            "session": " (instance:sid,serial#, e.g. 1:1802,4127)",
            "blocking_session": " (the blocker's instance:sid,serial#, e.g. 1:1801,2203)",
            "wait_class": " (CPU: the samples on CPU)",
            "event": " (CPU: the samples on CPU)",
            "current_obj": " (CURRENT_OBJ#; con_dbid:obj# in a PDB, from a CDB root)",
            "service": " (SERVICE_HASH)",
            "user": " (USER_ID; con_dbid:user_id in a PDB, from a CDB root)",
        }.get(name, "")
        + ".",
        max_length=64,
        pattern={
            "sql_id": r"[0-9a-z]{13}",
            "top_level_sql_id": r"[0-9a-z]{13}",
            "session": r"[0-9]{1,4}:[0-9]{1,10},[0-9]{1,10}",
            "blocking_session": r"[0-9]{1,4}:[0-9]{1,10},[0-9]{1,10}",
            **dict.fromkeys(history.activity.CONTAINED, r"([0-9]{1,20}:)?-?[0-9]{1,20}"),
        }.get(name, r"-?[0-9]{1,20}" if name in history.activity.NUMERIC else None),
    )
    for name in DIMENSIONS
    if name != "instance"
)
WITHOUT = Param(
    "without",
    "enum",
    "Only the samples where this dimension has no value (NULL): the group the answers name "
    + ", ".join(f"{v!r}" for v in dict.fromkeys(history.activity.NULL_GROUPS.values()))
    + "; repeat the parameter for several.",
    choices=tuple(name for name in DIMENSIONS if name not in ("instance", "wait_class", "event")),
    multi=True,
)
GROUP_BY = Param(
    "group_by",
    "enum",
    "The dimension the average active sessions are stacked by.",
    default="wait_class",
    choices=tuple(DIMENSIONS),
)


def _activity_filters(d, args):
    """{dimension: value}, None for a dimension asked `without` a value."""
    filters = {p.name: args[p.name] for p in ACTIVITY_FILTERS if args[p.name] is not None}
    for name in args["without"]:
        if name in filters:
            raise BadParameter(f"{name} is given both a value and without one", "without")
        filters[name] = None
    inst = d.instance(args["instance"])
    if inst is not None:
        filters["instance"] = str(inst)
    return filters


@api.get("/dbs/<db>/activity")
@accepts(*RANGE, GROUP_BY, TABLE_INSTANCE, *ACTIVITY_FILTERS, WITHOUT, SHAPE, FORMAT, SHOW_SQL)
def activity(db, args):
    """Top activity: average active sessions over time from Active Session History, stacked by a dimension (the
    top groups and 'other'), with filters on any dimension."""
    d, rng = _asked(db, args)
    body = history.activity.compute(d, rng, args["group_by"], _activity_filters(d, args))
    return _series_answer(body, args, rng)


@api.get("/dbs/<db>/activity/top")
@accepts(*RANGE, TABLE_INSTANCE, *ACTIVITY_FILTERS, WITHOUT, FORMAT, SHOW_SQL)
def activity_top(db, args):
    """Top SQL, sessions, modules, events and objects by samples, with % of activity and CPU against waits; the
    blocking sessions and the events their waiters wait on."""
    d, rng = _asked(db, args)
    return answer(history.activity.top(d, rng, _activity_filters(d, args)), args, rng, table=_activity_table)


def _activity_table(body):
    return [{"list": name, **r} for name, rows in body["lists"].items() for r in rows] + [
        {"list": "blocking", "name": f"{r['blocking_instance']}:{r['blocking_session']},{r['blocking_serial']}", **r}
        for r in body["blocking"]
    ]


def _ab(prefix, label):
    return tuple(
        Param(f"{prefix}{p.name}", p.kind, f"Period {label}: {p.help}", minimum=p.minimum, maximum=p.maximum)
        for p in RANGE
    )


def _periods(d, args, first=("from", "to")):
    """Periods A and B, from the a_ and b_ parameters (_ab): each is required, a 400 naming its two forms, `first`
    (from and to, or begin_snap and end_snap: the form the endpoint is mostly asked in) first."""
    forms = [first] + [f for f in (("from", "to"), ("begin_snap", "end_snap")) if f != first]
    for side in ("a", "b"):
        if all(args[f"{side}_{k}"] is None for form in forms for k in form):
            raise BadParameter(
                f"period {side.upper()} is required: give "
                + ", or ".join(f"{side}_{lo} and {side}_{hi}" for lo, hi in forms),
                f"{side}_{first[0]}",
            )
    return _range(d, args, "a_"), _range(d, args, "b_")


@api.get("/dbs/<db>/compare")
@accepts(*_ab("a_", "A"), *_ab("b_", "B"), TABLE_INSTANCE, FORMAT, SHOW_SQL)
def compare(db, args):
    """Two periods compared, what changed first: the movers of DB time (time model, wait events, top SQL) ranked by
    their share of A's DB time per second, the Load Profile's movers, the plans that appeared or disappeared; then the
    Load Profile and top events of A and B, with % change from A to B and which way is better by nature."""
    d = _databases().database(db)
    a, b = _periods(d, args)
    # cacheable only when both periods are closed
    return answer(history.compare.compute(d, a, b, args["instance"]), args, b if a.closed else a, table=_compare_table)


def _flat(rows):
    """Nested values as text, for CSV."""
    return [{k: v for k, v in r.items() if not isinstance(v, (dict, list))} for r in rows]


def _series_answer(body, args, rng, table="long"):
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


COMPARE_TABLES = ("movers", "differences", "load_profile", "top_events")


def _compare_table(body):
    """Every table in one, what changed first: a `table` column says which, the other columns are the union of
    theirs."""
    return [{"table": name, **r} for name in COMPARE_TABLES for r in body[name]["rows"]]


def _sql_table(body):
    return [{**r, "plan_hash_values": " ".join(map(str, r["plan_hash_values"]))} for r in body["rows"]]
