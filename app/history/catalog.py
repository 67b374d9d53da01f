"""Every chartable series of a database, and how each is fetched and computed.

A series name is `source:item` or `source:item:field`, readable in a URL, for example
`sysstat:redo size`, `sys_time_model:DB time`, `system_event:log file sync:avg_ms`,
`wait_class:User I/O`, `sysmetric:Host CPU Utilization (%)`, `iostat_function:LGWR:megabytes`, `derived:aas`.
Kinds: cumulative (a counter: deltas, then per_second | per_txn | raw), ratio (delta over delta, e.g. a
percentage or a latency), reading (point in time, never a delta), rate (Oracle's own per-interval metric).
"""

import re
from dataclasses import dataclass, replace
from difflib import get_close_matches

from app.errors import NotFound
from app.store.awr import queries
from app.store.statspack.views import NotInSource
from app.units import MIB

RATES = ("per_second", "per_txn", "raw")

POINT_IN_TIME = {
    "sysstat": {
        "logons current",
        "opened cursors current",
        "session cursor cache count",
        "session pga memory",
        "session pga memory max",
        "session uga memory",
        "session uga memory max",
        "workarea memory allocated",
        "session stored procedure space",
    },
    "osstat": {
        "NUM_CPUS",
        "NUM_CPU_CORES",
        "NUM_CPU_SOCKETS",
        "NUM_VCPUS",
        "NUM_LCPUS",
        "PHYSICAL_MEMORY_BYTES",
        "LOAD",
        "TCP_SEND_SIZE_MIN",
        "TCP_SEND_SIZE_DEFAULT",
        "TCP_SEND_SIZE_MAX",
        "TCP_RECEIVE_SIZE_MIN",
        "TCP_RECEIVE_SIZE_DEFAULT",
        "TCP_RECEIVE_SIZE_MAX",
        "GLOBAL_SEND_SIZE_MAX",
        "GLOBAL_RECEIVE_SIZE_MAX",
    },
}
SOURCE_WORDS = {
    "sysstat": "sysstat",
    "sys_time_model": "time model",
    "osstat": "OS",
    "sysmetric": "Oracle's metric",
    "sysmetric_history": "Oracle's metric",
    "system_event": "event",
    "wait_class": "wait class",
    "iostat_function": "I/O function",
    "iostat_filetype": "I/O file type",
}
# Per-transaction metrics whose per-second twin Oracle names otherwise (V$METRICNAME, the 60-second group)
PER_SECOND_TWINS = {
    "User Rollback Undo Records Applied Per Txn": "User Rollback UndoRec Applied Per Sec",
    "Response Time Per Txn": "Database Time Per Sec",
}
IO_FIELDS = {  # field -> columns summed, unit
    "megabytes": (
        ("small_read_megabytes", "small_write_megabytes", "large_read_megabytes", "large_write_megabytes"),
        "MB",
    ),
    "requests": (("small_read_reqs", "small_write_reqs", "large_read_reqs", "large_write_reqs"), "requests"),
    "read_megabytes": (("small_read_megabytes", "large_read_megabytes"), "MB"),
    "write_megabytes": (("small_write_megabytes", "large_write_megabytes"), "MB"),
    "read_requests": (("small_read_reqs", "large_read_reqs"), "requests"),
    "write_requests": (("small_write_reqs", "large_write_reqs"), "requests"),
}


@dataclass(frozen=True)
class Term:
    """A base quantity read from one view: a statistic, an event column, a wait class, an I/O column set."""

    view: str
    item: object
    field: str = "value"


@dataclass(frozen=True)
class Spec:
    name: str
    label: str
    source: str
    unit: str
    kind: str  # cumulative | ratio | reading | rate | detail
    terms: tuple
    den: tuple = ()
    scale: float = 1.0
    how: str = "sum_of_ratios"  # for readings and rates; see analysis.combine
    default_rate: str = "per_second"
    description: str = ""

    def public(self):
        return {
            "name": self.name,
            "label": self.label,
            "source": self.source,
            "unit": self.unit,
            "kind": self.kind,
            "rates": list(RATES) if self.kind == "cumulative" else [],
            "default_rate": self.default_rate if self.kind == "cumulative" else None,
            "description": self.description,
        }

    def unit_for(self, rate: str) -> str:
        if self.kind != "cumulative":
            return self.unit
        return {"per_second": f"{self.unit}/s", "per_txn": f"{self.unit}/txn", "raw": self.unit}[rate]


def _sysstat_unit(name: str) -> str:
    if "bytes" in name or name in ("redo size", "undo change vector size") or "memory" in name:
        return "bytes"
    if re.search(r"\btime\b|CPU used|cpu", name):
        return "cs"
    return "count"


def _osstat_unit(name: str) -> str:
    if name.endswith("_TIME"):
        return "cs"
    if "BYTES" in name or "SIZE" in name:
        return "bytes"
    return "processes" if name == "LOAD" else "count"


def _metric_how(name: str, unit: str) -> str:
    """Oracle's rates per second add up across RAC instances; its ratios, latencies and per-txn values don't."""
    if "%" in unit or "%" in name or re.search(r"Per Txn|Ratio|Latency|Response|Per Sort|Per Call|Average", name, re.I):
        return "mean" if name != "Average Active Sessions" else "sum_of_ratios"
    return "sum_of_ratios"


def of(db) -> dict[str, Spec]:
    """The catalog of a database, from the names its views hold at the newest snapshot (cached)."""

    def load():
        newest = db.timeline().newest()
        if newest is None:
            return {}
        v, snap_id = db.store.views, newest.snap_id

        def kept(stmt) -> list:
            """The names a statement reads, none where the database's source keeps no such view (Statspack)."""
            try:
                return db.rows(stmt, snap_id=snap_id)
            except NotInSource:
                return []

        names = {view: kept(queries.counter_names(v, view)) for view in queries.COUNTER_VIEWS}
        names["system_event"] = kept(queries.event_names(v))
        names["sysmetric_summary"] = kept(queries.metric_names(v, "sysmetric_summary"))
        names["sysmetric_history"] = kept(queries.metric_names(v, "sysmetric_history"))
        for view in queries.IO_VIEWS:
            names[view] = kept(queries.io_names(v, view))
        return build(names)

    return db.store.cached(("catalog", db.dbid), 10 * db.store.settings.snapshot_ttl, load)


def time_model_names(db, rng) -> list[str]:
    """The time model statistics of a range: the names DBA_HIST_SYS_TIME_MODEL holds at its first and last snapshots,
    not the catalog's (at the newest snapshot, which may hold none: a partial flush, an imported report without its
    Time Model section)."""
    names: dict = {}
    for snap_id in dict.fromkeys((rng.lo, rng.hi)):
        try:
            rows = db.rows(queries.counter_names(db.store.views, "sys_time_model"), snap_id=snap_id)
        except NotInSource:
            rows = []
        names.update((name, None) for _, name in rows)
    return list(names)


def spec(db, name: str) -> Spec:
    """One series of a database's catalog (404 when it has none of that name, with the closest names)."""
    found = of(db).get(name)
    if found is None:
        close = get_close_matches(name, list(of(db)), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise NotFound(f"unknown series {name!r}{hint} (the catalog: /api/v1/dbs/{db.key}/catalog)", "name")
    return found


def search(db, q: str) -> tuple[list[Spec], list[str]]:
    """The series matching every word of `q`, in any order, anywhere in the name, label or description (any case);
    where none does, the names closest to `q` (a typo) instead."""
    specs, words = list(of(db).values()), q.lower().split()
    found = [s for s in specs if all(w in f"{s.name} {s.label} {s.description}".lower() for w in words)]
    if found or not words:
        return found, []
    by_text = {}
    for s in specs:  # a name or a label may be what was meant
        by_text.setdefault(s.name.lower(), s.name)
        by_text.setdefault(s.label.lower(), s.name)
    close = get_close_matches(" ".join(words), list(by_text), n=8, cutoff=0.6)
    return [], list(dict.fromkeys(by_text[c] for c in close))[:5]


def build(names: dict) -> dict[str, Spec]:
    """The catalog from the names a database's views hold."""
    specs: dict[str, Spec] = {}

    def add(spec):
        specs[spec.name] = spec

    stat = {}
    for view in queries.COUNTER_VIEWS:
        for stat_id, name in names[view]:
            stat[(view, name)] = stat_id
            pit = name in POINT_IN_TIME.get(view, ())
            if view == "sys_time_model":
                unit, scale = "s", 1e-6
            elif view == "osstat":
                unit, scale = _osstat_unit(name), 1.0
            else:
                unit, scale = _sysstat_unit(name), 1.0
            add(
                Spec(
                    f"{view}:{name}",
                    name,
                    view,
                    unit,
                    "reading" if pit else "cumulative",
                    (Term(view, stat_id),),
                    scale=scale,
                )
            )
    classes = set()
    for event_id, name, wait_class in names["system_event"]:
        if wait_class == "Idle":
            continue
        classes.add(wait_class)
        time, waits = Term("system_event", event_id, "time"), Term("system_event", event_id, "waits")
        add(
            Spec(
                f"system_event:{name}:time",
                f"{name} (time waited)",
                "system_event",
                "s",
                "cumulative",
                (time,),
                scale=1e-6,
                description=f"Foreground time waited; per second it is the AAS of the event. Wait class {wait_class}.",
            )
        )
        add(Spec(f"system_event:{name}:waits", f"{name} (waits)", "system_event", "waits", "cumulative", (waits,)))
        add(
            Spec(
                f"system_event:{name}:avg_ms",
                f"{name} (average wait)",
                "system_event",
                "ms",
                "ratio",
                (time,),
                (waits,),
                scale=1e-3,
            )
        )
    for wait_class in sorted(classes):
        add(
            Spec(
                f"wait_class:{wait_class}",
                wait_class,
                "wait_class",
                "sessions",
                "ratio",
                (Term("wait_class", wait_class),),
                ("seconds",),
                scale=1e-6,
                description="Average active sessions waiting in this class (foreground).",
            )
        )
    metric_names = {}
    for view, source in (("sysmetric_summary", "sysmetric"), ("sysmetric_history", "sysmetric_history")):
        for metric_id, name, unit in names[view]:
            metric_names.setdefault(source, {})[name] = (metric_id, unit)
            label = name if source == "sysmetric" else f"{name} (per minute)"
            add(
                Spec(
                    f"{source}:{name}",
                    label,
                    source,
                    unit,
                    "rate" if source == "sysmetric" else "detail",
                    (Term(view, metric_id),),
                    how=_metric_how(name, unit),
                    description="Per-minute detail (recent days only)"
                    if source == "sysmetric_history"
                    else "Average over the snapshot interval, as Oracle computed it",
                )
            )
    summary = metric_names.get("sysmetric", {})
    if "User Transaction Per Sec" in summary:
        tps_id = summary["User Transaction Per Sec"][0]
        for name, (metric_id, unit) in summary.items():
            per_sec = name.replace("Per Txn", "Per Sec")
            twins = (per_sec, per_sec.replace("Sec", "Second"), PER_SECOND_TWINS.get(name))
            if name.endswith("Per Txn") and not any(t in summary for t in twins):
                add(
                    Spec(
                        f"derived:{per_sec}",
                        per_sec,
                        "derived",
                        unit.replace("Per Txn", "Per Second"),
                        "rate",
                        (Term("sysmetric_summary", metric_id), Term("sysmetric_summary", tps_id, "product")),
                        description=f"'{name}' x 'User Transaction Per Sec' (Oracle has no per-second metric)",
                    )
                )
    for view in queries.IO_VIEWS:
        for item_id, name in names[view]:
            for fld, (_, unit) in IO_FIELDS.items():
                add(
                    Spec(
                        f"{view}:{name}:{fld}",
                        f"{name} {fld.replace('_', ' ')}",
                        view,
                        unit,
                        "cumulative",
                        (Term(view, item_id, fld),),
                    )
                )
    _derived(add, stat)
    return _distinct_labels(specs)


def _distinct_labels(specs: dict[str, Spec]) -> dict[str, Spec]:
    """Labels that say what they are: where two series would share one (sysstat's "DB time" in centiseconds and the
    time model's in microseconds; Oracle's "Average Active Sessions" metric and the computed one), every one but
    the dashboard's own (derived) names its source."""
    by_label: dict = {}
    for spec in specs.values():
        by_label.setdefault(spec.label.lower(), []).append(spec)
    for same in by_label.values():
        if len(same) > 1:
            for spec in same:
                if spec.source != "derived":
                    specs[spec.name] = replace(spec, label=f"{spec.label} ({SOURCE_WORDS[spec.source]})")
    return specs


def _derived(add, stat):
    """The dashboard's composite series (docs/awr-rules.md §10), where their inputs exist."""

    def t(view, name):
        return Term(view, stat[(view, name)]) if (view, name) in stat else None

    def need(*terms):
        return None not in terms

    db_time, db_cpu = t("sys_time_model", "DB time"), t("sys_time_model", "DB CPU")
    bg_cpu = t("sys_time_model", "background cpu time")
    busy, idle = t("osstat", "BUSY_TIME"), t("osstat", "IDLE_TIME")
    iowait, rsrc = t("osstat", "IOWAIT_TIME"), t("osstat", "RSRC_MGR_CPU_WAIT_TIME")
    commits, rollbacks = t("sysstat", "user commits"), t("sysstat", "user rollbacks")
    rd_req, wr_req = t("sysstat", "physical read total IO requests"), t("sysstat", "physical write total IO requests")
    rd_b, wr_b = t("sysstat", "physical read total bytes"), t("sysstat", "physical write total bytes")
    hard, parses, execs = (
        t("sysstat", "parse count (hard)"),
        t("sysstat", "parse count (total)"),
        t("sysstat", "execute count"),
    )
    redo = t("sysstat", "redo size")
    sec = ("seconds",)
    rows = [
        ("aas", "Average active sessions", "sessions", "ratio", (db_time,), sec, 1e-6, "DB time / elapsed"),
        ("db_cpu", "DB CPU", "sessions", "ratio", (db_cpu,), sec, 1e-6, "Foreground CPU seconds per second"),
        ("background_cpu", "Background CPU", "sessions", "ratio", (bg_cpu,), sec, 1e-6, ""),
        ("host_cpu_pct", "Host CPU %", "%", "ratio", (busy,), (busy, idle), 100.0, "BUSY / (BUSY + IDLE)"),
        ("host_iowait_pct", "Host I/O wait %", "%", "ratio", (iowait,), (busy, idle), 100.0, "IOWAIT / (BUSY + IDLE)"),
        (
            "host_cpu_aas",
            "Host CPU demand",
            "CPUs",
            "ratio",
            (busy, rsrc),
            sec,
            0.01,
            "(BUSY + RSRC_MGR_CPU_WAIT) / 100 / elapsed",
        ),
        ("tps", "Transactions", "txn/s", "ratio", (commits, rollbacks), sec, 1.0, "user commits + user rollbacks"),
        ("executions", "Executions", "executions/s", "ratio", (execs,), sec, 1.0, ""),
        (
            "iops",
            "I/O requests",
            "IOPS",
            "ratio",
            (rd_req, wr_req),
            sec,
            1.0,
            "physical read + write total IO requests",
        ),
        ("io_mbps", "I/O throughput", "MB/s", "ratio", (rd_b, wr_b), sec, 1 / MIB, "physical read + write total bytes"),
        ("redo_mbps", "Redo", "MB/s", "ratio", (redo,), sec, 1 / MIB, ""),
        ("hard_parse_pct", "Hard parses", "%", "ratio", (hard,), (parses,), 100.0, "parse count (hard) / (total)"),
        ("num_cpus", "CPUs", "CPUs", "reading", (t("osstat", "NUM_CPUS"),), (), 1.0, "NUM_CPUS, summed over instances"),
    ]
    for key, label, unit, kind, num, den, scale, description in rows:
        if need(*num, *[d for d in den if d != "seconds"]):
            add(
                Spec(
                    f"derived:{key}",
                    label,
                    "derived",
                    unit,
                    kind,
                    tuple(num),
                    tuple(den),
                    scale,
                    description=description,
                )
            )
