"""A database's history under /api/v1, apart from its statements (statements.py) and what changed (changes.py):
the databases, snapshots, catalog, series over time, Load Profile, top events, tablespaces, event histograms,
segments, a range's snapshots, the report, Active Session History and two periods compared. Thin views: parse, ask a
question of app.history, shape the answer."""

from dataclasses import replace

from app import history
from app.api import limits
from app.api import report as report_page
from app.api.history_blueprint import (
    api,
    app_settings,
    database_and_range,
    every_database,
    every_run,
    max_points,
    period_params,
    periods,
    requested_database,
    resolved_range,
    series_answer,
)
from app.api.params import (
    BAND,
    BAND_BASELINE,
    FORMAT,
    INSTANCE,
    MAX_POINTS,
    RANGE,
    RATE,
    SHAPE,
    SHOW_SQL,
    TABLE_INSTANCE,
    Param,
    accepts,
)
from app.api.respond import answer, conditional
from app.errors import BadParameter
from app.store.awr.queries import DIMENSIONS, SEGMENT_ORDER, TOP_SEGMENT_ROWS
from app.store.statspack.views import not_kept


@api.get("/")
def index():
    """Where to start, and the limits a client must respect."""
    return {
        "name": "awrlens",
        "version": "v1",
        "openapi": "/api/v1/openapi.json",
        "databases": "/api/v1/dbs",
        "limits": limits(app_settings()),
    }


@api.get("/dbs")
@accepts(FORMAT, SHOW_SQL)
def databases(args):
    """Every database of every target: instances, version, host, RAC flag, snapshot range and `source`, where its
    history comes from (`awr`; `statspack` where Statspack keeps it and AWR may not be read, docs/awr-rules.md §31;
    or null where the licence enables no Diagnostics Pack and there is no Statspack, with the `licence` read:
    docs/oracle.md); every answer about a database names its `source` too. A target that cannot be reached is
    listed under `unreachable` with its error, and the others answer all the same."""
    found, problems = every_database().survey()
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
    return answer(requested_database(db).summary(), args)


@api.get("/dbs/<db>/snapshots")
@accepts(*RANGE, TABLE_INSTANCE, FORMAT, SHOW_SQL)
def snapshots(db, args):
    """Snapshots in the range, per instance, with restarts and missing or merged snapshots marked."""
    d, rng = database_and_range(db, args)
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
    d = requested_database(db)
    found, close = history.catalog.search(d, args["q"] or "")
    rows = sorted(
        (s.public() for s in found if not args["source"] or s.source == args["source"]), key=lambda r: r["name"]
    )
    body = {"db": d.key, "count": len(rows), "columns": ["name", "label", "source", "unit", "kind"], "rows": rows}
    if args["q"]:
        body["did_you_mean"] = close
    return answer(body, args)


NAMES = Param("name", "string", "Series name from the catalog; repeat the parameter for several series.", multi=True)


@api.get("/dbs/<db>/series")
@accepts(NAMES, *RANGE, INSTANCE, RATE, MAX_POINTS, SHAPE, BAND, BAND_BASELINE, FORMAT, SHOW_SQL)
def series(db, args):
    """One or more series over a range: per instance or combined, per second, per transaction or raw. A snapshot
    range is its intervals (begin_snap, end_snap], as in the AWR report. A combined point that sums fewer instances
    than the range holds is listed under the series' `partial`, with the instances it leaves out."""
    names = args["name"]
    if not names:
        raise BadParameter("name is required: one or more series names from the catalog", "name")
    if len(names) > app_settings().max_series:
        raise BadParameter(f"at most {app_settings().max_series} series per request, got {len(names)}", "name")
    d, rng = database_and_range(db, args)
    names = list(dict.fromkeys(names))
    body = history.series.compute(d, names, rng, args["instance"], args["rate"], max_points(args))
    if args["band_baseline"] and not args["band"]:
        raise BadParameter("band_baseline names the band's baseline: ask for the band too (band=1)", "band_baseline")
    if args["band"]:
        body = history.normal_band.add_bands(d, body, names, rng, args["instance"], args["rate"], args["band_baseline"])
    return series_answer(body, args, rng)


@api.get("/dbs/<db>/wait-classes")
@accepts(*RANGE, INSTANCE, MAX_POINTS, SHAPE, FORMAT, SHOW_SQL)
def wait_classes(db, args):
    """Average active sessions by wait class over time: DB CPU plus every non-idle class, and the CPU count."""
    d, rng = database_and_range(db, args)
    body = history.series.wait_classes(d, rng, args["instance"], max_points(args))
    return series_answer(body, args, rng)


@api.get("/dbs/<db>/load-profile")
@accepts(*RANGE, TABLE_INSTANCE, FORMAT, SHOW_SQL)
def load_profile(db, args):
    """The AWR report's Load Profile: per second and per transaction."""
    d, rng = database_and_range(db, args)
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
    d, rng = database_and_range(db, args)
    return answer(history.top_events.compute(d, rng, args["instance"], args["limit"]), args, rng)


@api.get("/dbs/<db>/tablespaces")
@accepts(*RANGE, MAX_POINTS, SHAPE, FORMAT, SHOW_SQL)
def tablespaces(db, args):
    """Tablespace used, allocated and maximum size over time (MB)."""
    d, rng = database_and_range(db, args, default_days=45)
    return series_answer(history.tablespaces.compute(d, rng, max_points(args)), args, rng, table=None)


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
    d, rng = database_and_range(db, args)
    body = history.histograms.compute(d, args["event"], rng, args["instance"])
    return answer(body, args, rng, table=history.histograms.table)


@api.get("/dbs/<db>/segments")
@accepts(
    *RANGE,
    Param(
        "order_by", "enum", "The statistic the segments are ranked by.", default="logical_reads", choices=SEGMENT_ORDER
    ),
    Param("limit", "integer", "Rows to return.", default=25, minimum=1, maximum=TOP_SEGMENT_ROWS),
    TABLE_INSTANCE,
    FORMAT,
    SHOW_SQL,
)
def segments(db, args):
    """Top segments by logical or physical reads, writes, direct reads, row lock, ITL or buffer busy waits, block
    changes or space used, with % of the database's total and of the segments captured (docs/awr-rules.md §25)."""
    d, rng = database_and_range(db, args)
    return answer(history.segments.top(d, rng, args["order_by"], args["limit"], args["instance"]), args, rng)


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
    TABLE_INSTANCE,
    SHAPE,
    FORMAT,
    SHOW_SQL,
)
def segment(db, obj, args):
    """One segment over time: each statistic per snapshot, summed over instances or of one (docs/awr-rules.md
    §25)."""
    obj = OBJ.parse(obj)
    d, rng = database_and_range(db, args)
    dataobj = obj if args["dataobj"] is None else args["dataobj"]
    return series_answer(history.segments.history(d, obj, dataobj, rng, args["instance"]), args, rng)


@api.get("/dbs/<db>/baselines")
@accepts(FORMAT, SHOW_SQL)
def baselines(db, args):
    """The database's AWR baselines (DBA_HIST_BASELINE): named snapshot ranges and the moving window, each with its
    snapshots and times, to show or compare as a range (docs/awr-rules.md §33)."""
    return answer(history.baselines.compute(requested_database(db)), args)


@api.get("/dbs/<db>/range")
@accepts(*RANGE, FORMAT, SHOW_SQL)
def range_of(db, args):
    """A range resolved to its snapshots: the first and last snap_id that end in it (its intervals are
    (begin_snap, end_snap], the range of Oracle's AWR report) and their times; small, for the page's range label."""
    d, rng = database_and_range(db, args)
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
    d, rng = database_and_range(db, args)
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


ASH_SOURCE = Param(
    "ash",
    "enum",
    "Whose samples: history (DBA_HIST_ACTIVE_SESS_HISTORY, one in ten kept at each snapshot) or live (GV$ACTIVE_"
    "SESSION_HISTORY, the in-memory buffer's one-second samples of the last minutes, not yet flushed: a window from/to "
    "or the last `minutes` to the database's now; snapshot ids do not apply). Both need the Diagnostics Pack.",
    default="history",
    choices=("history", "live"),
)
LIVE_MINUTES = Param(
    "minutes",
    "integer",
    f"With ash=live and no from/to: the window's minutes to the database's now (default "
    f"{history.live_buffer.MINUTES}).",
    minimum=1,
    maximum=history.live_buffer.MOST_MINUTES,
)


def activity_range(db_key, args):
    """The database and range of an ASH answer: a range of the history, or with ash=live a window of the live buffer
    (history.live_buffer.window). A database whose history is Statspack has no ASH: 404 at once, nothing asked."""
    d = requested_database(db_key)
    if d.store.source == "statspack":
        raise not_kept("active_sess_history")
    if args["ash"] != "live":
        if args["minutes"] is not None:
            raise BadParameter("minutes is for ash=live (the last minutes of the live buffer)", "minutes")
        return d, resolved_range(d, args)
    for name in ("begin_snap", "end_snap"):
        if args[name] is not None:
            raise BadParameter(f"ash=live reads a window of sample times (from/to or minutes), not {name}", name)
    if args["minutes"] is not None and (args["from"] or args["to"]):
        raise BadParameter("minutes is the last minutes to now: give it or from/to, not both", "minutes")
    return d, history.live_buffer.window(d, args["from"], args["to"], args["minutes"])


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
@accepts(
    *RANGE, ASH_SOURCE, LIVE_MINUTES, GROUP_BY, TABLE_INSTANCE, *ACTIVITY_FILTERS, WITHOUT, SHAPE, FORMAT, SHOW_SQL
)
def activity(db, args):
    """Top activity: average active sessions over time from Active Session History, stacked by a dimension (the
    top groups and 'other'), with filters on any dimension. A time range is read by sample time, over its own
    seconds, wherever the snapshots fall (docs/awr-rules.md §22)."""
    d, rng = activity_range(db, args)
    body = history.activity.compute(d, rng, args["group_by"], _activity_filters(d, args))
    return series_answer(body, args, rng)


@api.get("/dbs/<db>/activity/top")
@accepts(*RANGE, ASH_SOURCE, LIVE_MINUTES, TABLE_INSTANCE, *ACTIVITY_FILTERS, WITHOUT, FORMAT, SHOW_SQL)
def activity_top(db, args):
    """Top SQL, sessions, modules, events and objects by samples, with % of activity and CPU against waits; the
    blocking sessions and the events their waiters wait on. A time range is read by sample time, as /activity."""
    d, rng = activity_range(db, args)
    return answer(history.activity.top(d, rng, _activity_filters(d, args)), args, rng, table=_activity_table)


def _activity_table(body):
    return [{"list": name, **r} for name, rows in body["lists"].items() for r in rows] + [
        {"list": "blocking", "name": f"{r['blocking_instance']}:{r['blocking_session']},{r['blocking_serial']}", **r}
        for r in body["blocking"]
    ]


ASHTOP_GROUP_BY = Param(
    "group_by",
    "string",
    "The dimensions the samples are grouped by, 1 to 3, comma separated (e.g. sql_id,event; module,action; "
    "user,program), each one of: " + ", ".join(DIMENSIONS) + ".",
    default="sql_id,event",
    max_length=120,
    pattern="({0})(,({0})){{0,2}}".format("|".join(DIMENSIONS)),
)


@api.get("/dbs/<db>/activity/groups")
@accepts(
    *RANGE, ASH_SOURCE, LIVE_MINUTES, ASHTOP_GROUP_BY, TABLE_INSTANCE, *ACTIVITY_FILTERS, WITHOUT, FORMAT, SHOW_SQL
)
def activity_groups(db, args):
    """ashtop: the samples grouped by several dimensions at once, each group with its AAS, % of activity, distinct
    sessions and first and last sample time, the largest first; filtered as /activity. A time range is read by sample
    time, as /activity."""
    d, rng = activity_range(db, args)
    body = history.ashtop.compute(d, rng, args["group_by"].split(","), _activity_filters(d, args))
    return answer(body, args, rng, table=lambda b: b["rows"])


@api.get("/dbs/<db>/activity/chains")
@accepts(*RANGE, ASH_SOURCE, LIVE_MINUTES, FORMAT, SHOW_SQL)
def wait_chains(db, args):
    """Wait chains: the tree of who blocked whom over the range, the root blockers first, each session (instance,
    SID, serial#) with what it did meanwhile and what its waiters waited on (event and object), from Active Session
    History over every instance. A time range is read by sample time, as /activity."""
    d, rng = activity_range(db, args)
    return answer(history.chains.compute(d, rng), args, rng, table=_chains_table)


def _chains_table(body):
    """The tree's nodes depth first, each with its depth and its blocker's session: one row per session under each of
    its blockers."""
    rows = []

    def walk(node, depth, blocker):
        waits = node.get("waits") or [{}]
        rows.append(
            {
                "depth": depth,
                "session": node["session"],
                "blocker": blocker,
                **{
                    k: node[k]
                    for k in ("samples", "aas", "on_cpu", "user", "program", "machine", "behind", "behind_aas")
                },
                "blocked_samples": node.get("blocked_samples"),
                "blocked_aas": node.get("blocked_aas"),
                "event": waits[0].get("event"),
                "current_obj": waits[0].get("current_obj"),
                "object": waits[0].get("object"),
                "doing": "; ".join(
                    f"{d['event'] or d['state']} {d['sql_id'] or ''} ({d['samples']})".replace("  ", " ")
                    for d in node["doing"]
                ),
                "note": node["note"],
            }
        )
        for w in node["waiters"]:
            walk(w, depth + 1, node["session"])

    for root in body["roots"]:
        walk(root, 0, None)
    return rows


@api.get("/dbs/<db>/compare")
@accepts(*period_params("a_", "A"), *period_params("b_", "B"), TABLE_INSTANCE, FORMAT, SHOW_SQL)
def compare(db, args):
    """Two periods compared, what changed first: the movers of DB time (time model, wait events, top SQL) ranked by
    their share of A's DB time per second, the Load Profile's movers, the plans that appeared or disappeared; then the
    Load Profile and top events of A and B, with % change from A to B and which way is better by nature."""
    d = requested_database(db)
    a, b = periods(d, args)
    # cacheable only when both periods are closed
    return answer(history.compare.compute(d, a, b, args["instance"]), args, b if a.closed else a, table=_compare_table)


def _flat(rows):
    """Nested values as text, for CSV."""
    return [{k: v for k, v in r.items() if not isinstance(v, (dict, list))} for r in rows]


COMPARE_TABLES = ("movers", "differences", "load_profile", "top_events")


def _compare_table(body):
    """Every table in one, what changed first: a `table` column says which, the other columns are the union of
    theirs."""
    return [{"table": name, **r} for name in COMPARE_TABLES for r in body[name]["rows"]]
