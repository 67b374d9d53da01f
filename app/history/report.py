"""The app's own report of a range: the AWR report's main tables and two charts, from the answers of the other
history modules (docs/awr-rules.md §28). Flask-free: `compute` gives the numbers, unrounded (sums of exact values,
rounded once where the HTML prints them), app/api/report.py the HTML."""

from math import fsum

from app import analysis
from app.history import catalog, changes, load_profile, series, tablespaces, top_events, top_sql
from app.history.catalog import Term
from app.history.database import Database, Range
from app.history.intervals import boundaries, snap_ids, totals
from app.store.awr import queries
from app.store.statspack.views import NotInSource

TOP_ROWS = 10  # rows of each top table
CHART_POINTS = 300  # points per chart line: enough for a printed page's width
TOP_SQL_ORDERS = ("elapsed", "cpu", "gets", "reads")
IO_COLUMNS = ("read_megabytes", "write_megabytes", "read_requests", "write_requests")
OS_TIMES = (
    "BUSY_TIME",
    "IDLE_TIME",
    "USER_TIME",
    "SYS_TIME",
    "IOWAIT_TIME",
    "NICE_TIME",
    "RSRC_MGR_CPU_WAIT_TIME",
    "VM_IN_BYTES",
    "VM_OUT_BYTES",
)  # cumulative OSSTAT statistics shown, where the database has them
OS_READINGS = ("NUM_CPUS", "NUM_CPU_CORES", "NUM_CPU_SOCKETS", "PHYSICAL_MEMORY_BYTES", "LOAD")
# the background time model statistics, outside DB time (V$SYS_TIME_MODEL's tree: background elapsed time holds
# background cpu time, which holds RMAN cpu time (backup/restore))
BACKGROUND = {"background elapsed time", "background cpu time", "RMAN cpu time (backup/restore)"}


def exact(x):
    """A value kept as it is: the report rounds where it prints (report.html)."""
    return x


def compute(db: Database, rng: Range, instance="all", found_runs: list[dict] | None = None) -> dict:
    """Every section of the report. Its changes: the restarts and missing snapshots of the timeline, and what
    changes.compute finds besides restarts (parameters, new plans, versions, the runs of `found_runs` linked to the
    database), each as {time, instance, kind, text}."""
    inst = db.instance(instance)
    profile = load_profile.measure(db, rng, inst)
    body = {
        "db": db.key,
        "range": rng.public(),
        "instance": instance,
        "reason": profile["covers"]["reason"],
        "left_out": profile["covers"]["left_out"],
    }
    body["header"] = header(db, rng, inst, profile)
    body["load_profile"] = load_profile.rows(profile, exact)
    found = [c for c in changes.compute(db, rng, instance, found_runs)["rows"] if c["kind"] != "restart"]
    body["changes"] = sorted(restarts_and_gaps(db, rng, inst) + found, key=lambda c: (c["time"], c["instance"] or 0))
    if body["reason"] is not None:  # nothing can be measured: the header and the reason say so
        return body
    events = top_events.rows(*top_events.measure(db, rng, inst), limit=None, rnd=exact)
    body["top_events"] = events[:TOP_ROWS]
    body["wait_classes"] = class_totals(events, body["header"]["db_time_s"])
    body["time_model"] = time_model(db, rng, inst)
    body["top_sql"] = {order: a["rows"] for order, a in top_sql.by_orders(db, rng, TOP_SQL_ORDERS, TOP_ROWS).items()}
    body["io_functions"] = io_functions(db, rng, inst, body["header"]["elapsed_s"])
    body["os"] = os_statistics(db, rng, inst, body["header"]["elapsed_s"])
    try:
        body["tablespaces"] = tablespaces.compute(db, rng, with_series=False)["rows"]
    except NotInSource as missing:  # Statspack keeps no tablespace usage: the section says so
        body["tablespaces"] = []
        body["not_kept"] = {"tablespaces": missing.message}
    body["charts"] = {
        "wait_classes": series.wait_classes(db, rng, instance, CHART_POINTS),
        "aas": series.compute(
            db, ["derived:aas"], rng, "each" if db.rac and inst is None else instance, "per_second", CHART_POINTS
        ),
    }
    return body


def header(db: Database, rng: Range, inst, profile: dict) -> dict:
    """Who and when: the database, its instances, the snapshots that bound the range and their times, the elapsed
    time (the Load Profile's: the instance that covered most of the range), DB time and average active sessions."""
    tl = db.timeline()
    ends = [tl.lowest.get(s) for s in (rng.lo, rng.hi)] if rng.lo is not None else [None, None]
    elapsed = profile["elapsed"]
    db_time = profile["totals"].get("DB Time(s)")
    return {
        "db_name": db.name,
        "dbid": db.dbid,
        "source": db.store.source,
        "version": db.version,
        "platform": db.platform,
        "rac": db.rac,
        "instances": [i for i in db.instances if inst in (None, i["instance_number"])],
        "begin_snap": rng.lo,
        "end_snap": rng.hi,
        "begin_time": ends[0] and ends[0].time,
        "end_time": ends[1] and ends[1].time,
        "elapsed_s": elapsed,
        "db_time_s": db_time,
        "aas": db_time / elapsed if db_time is not None and elapsed else None,
    }


def restarts_and_gaps(db: Database, rng: Range, inst) -> list[dict]:
    """The changes the timeline knows: instance restarts and missing snapshots (docs/awr-rules.md §4, §5)."""
    if rng.lo is None:
        return []
    marks = db.timeline().markers(rng.lo, rng.hi, inst)
    out = [
        {
            "time": m["time"],
            "instance": m["instance"],
            "kind": "restart",
            "text": f"instance {m['instance']} started at {m['startup_time']} (snapshot {m['snap_id']}): the "
            "interval across it is left out",
        }
        for m in marks["restarts"]
    ]
    out += [
        {
            "time": m["from"],
            "instance": m["instance"],
            "kind": "missing snapshots",
            "text": f"no snapshot of instance {m['instance']} between {m['after_snap_id']} and "
            f"{m['before_snap_id']} ({m['seconds'] / 60:.0f} minutes)",
        }
        for m in marks["missing"]
    ]
    return out


def class_totals(events: list[dict], db_time_s) -> list[dict]:
    """Time per wait class (DB CPU as CPU) from every foreground event of the range, with its % of DB time and its
    average active sessions."""
    by_class: dict = {}
    for e in events:
        c = by_class.setdefault(e["wait_class"], {"wait_class": e["wait_class"], "time_s": 0.0, "waits": 0})
        c["time_s"] += e["time_s"]
        c["waits"] += e["waits"] or 0
    rows = sorted(by_class.values(), key=lambda c: -c["time_s"])
    for c in rows:
        c["pct_db_time"] = 100 * c["time_s"] / db_time_s if db_time_s else None
    return rows


def time_model(db: Database, rng: Range, inst) -> list[dict]:
    """Every time model statistic's seconds over the range and its % of DB time (the AWR report's Time Model
    Statistics; the background ones, BACKGROUND, are not part of DB time and have none)."""
    names = catalog.time_model_names(db, rng)
    sums, _ = totals(db, "sys_time_model", names, rng, inst)
    seconds = {n: fsum(v for (_, name), v in sums.items() if name == n) / 1e6 for n in names}
    db_time = seconds.get("DB time")
    rows = [
        {
            "statistic": n,
            "time_s": s,
            "pct_db_time": 100 * s / db_time if db_time and n not in BACKGROUND else None,
        }
        for n, s in seconds.items()
    ]
    return sorted(rows, key=lambda r: -r["time_s"])


def _sums(db: Database, rng: Range, inst, terms) -> dict:
    """The sum of each term's valid deltas over the range, read at the range's boundary snapshots only."""
    bounds = boundaries(db, rng, inst)
    fetcher = series.Fetcher(db.store, db.dbid, rng.lo, rng.hi, snap_ids(bounds))
    out = {}
    for term in terms:
        per = fetcher.values(term)
        out[term] = fsum(p.num for i, rows in bounds.items() for p in analysis.deltas(per.get(i, {}), rows))
    return out


def io_functions(db: Database, rng: Range, inst, elapsed) -> list[dict]:
    """Per I/O function (DBA_HIST_IOSTAT_FUNCTION): MB and requests read and written over the range, and per
    second. Each function by its FUNCTION_NAME, the item of its series' name (iostat_function:<name>:megabytes)."""
    names = {
        s.terms[0].item: s.name.split(":", 1)[1].rsplit(":", 1)[0]
        for s in catalog.of(db).values()
        if s.source == "iostat_function" and s.name.endswith(":megabytes")
    }
    terms = [Term("iostat_function", item, f) for item in names for f in IO_COLUMNS]
    sums = _sums(db, rng, inst, terms)
    rows = []
    for item, name in names.items():
        r = {"function": name, **{f: sums[Term("iostat_function", item, f)] for f in IO_COLUMNS}}
        r["mb_per_second"] = (r["read_megabytes"] + r["write_megabytes"]) / elapsed if elapsed else None
        r["requests_per_second"] = (r["read_requests"] + r["write_requests"]) / elapsed if elapsed else None
        rows.append(r)
    return sorted(rows, key=lambda r: (-(r["read_megabytes"] + r["write_megabytes"]), r["function"]))


def os_statistics(db: Database, rng: Range, inst, elapsed) -> list[dict]:
    """OS statistics (DBA_HIST_OSSTAT): the cumulative ones summed over the range (times in seconds) with the % of
    BUSY + IDLE, and the readings at the range's last snapshot, summed over the instances."""
    cat = catalog.of(db)
    cumulative = [n for n in OS_TIMES if f"osstat:{n}" in cat]
    sums, _ = totals(db, "osstat", cumulative, rng, inst)
    total = {n: fsum(v for (_, name), v in sums.items() if name == n) for n in cumulative}
    cpu = total.get("BUSY_TIME", 0) + total.get("IDLE_TIME", 0)
    rows = []
    for n in cumulative:
        seconds = n.endswith("_TIME")
        value = total[n] / 100 if seconds else total[n]  # OSSTAT times are in centiseconds
        rows.append(
            {
                "statistic": n,
                "value": value,
                "unit": "s" if seconds else "bytes",
                "per_second": value / elapsed if elapsed else None,
                "pct_of_cpu_time": 100 * total[n] / cpu if seconds and cpu else None,
            }
        )
    readings = [n for n in OS_READINGS if f"osstat:{n}" in cat]
    if readings:
        at = db.rows(queries.counters_at(db.store.views, "osstat"), snap_ids=[rng.hi], names=readings)
        end = {n: fsum(v or 0 for i, _, name, v in at if name == n and inst in (None, i)) for n in readings}
        rows += [
            {
                "statistic": n,
                "value": end[n],
                "unit": "bytes" if "BYTES" in n else "processes" if n == "LOAD" else "count",
                "per_second": None,
                "pct_of_cpu_time": None,
                "at_end": True,
            }
            for n in readings
        ]
    return rows
