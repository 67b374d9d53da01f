"""Load: N concurrent clients for T seconds on every GET operation that reads history, under gunicorn (the production
WSGI server).

The operations are the OpenAPI document's (GET /api/v1/openapi.json, read at start): each has its question in ASKERS
or is named in LEFT_OUT with the reason, and the run stops at once, naming them, when one has neither (a new endpoint
is not forgotten) or when a question's operation is no longer in the document. Every request is a different question
drawn (seeded) from what the store holds: both AWR databases; ranges of an hour to the whole history, by time or by
snapshot ids, over where the data asked about is (Active Session History, segment statistics and event histograms
cover the last days: their windows are found from the answers); one to four series from the catalog; instance all,
each or one; every rate, order and limit; statements from top SQL, their plans, binds and monitored executions; top
activity grouped by every dimension, filtered by the values ASH holds; events, segments, parameters, changes; the
Oracle reports the store keeps; benchmark runs; two periods compared; CSV now and then. Each operation is asked
equally often. The clients are Python threads with keep-alive connections, on the same machine as the server. Every
answer must be a 200: any other status or a failed connection is an error, and the run fails if there is one. Every
worker's memory is sampled every half second: RSS, split into private memory and file-backed pages (the
memory-mapped SQLite file), and PSS.

Usage: .venv/bin/python perf/load.py [--clients 8] [--seconds 30] [--workers 3] [--answer-cache-mb 64]
                                      [--store var/awrlens.sqlite] [--seed 1] [--without PATH ... --label L]
(--without leaves operations out of a run, e.g. to see the others' latency without the slowest ones holding the
workers; the run is kept under its label.)
Results: perf/results/load.json (per OpenAPI path template: requests, p50, p99, max, errors; the slowest URLs); a
Markdown table on stdout.
"""

import random
import sys
import threading
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.store.awr.queries import SEGMENT_ORDER
from perf import harness
from perf.harness import get_json

API = "/api/v1"
LEFT_OUT = {  # GET operations of the OpenAPI document asked no question, and why
    f"{API}/": "the API's index: a constant document of links and limits, no history read",
    f"{API}/openapi.json": "the API's description: a constant document, no history read",
}
SPANS = [
    timedelta(hours=1),
    timedelta(hours=6),
    timedelta(days=1),
    timedelta(days=3),
    timedelta(days=7),
    timedelta(days=14),
    timedelta(days=45),
]
SLOWEST = 5  # the slowest URLs printed
ASH_FILTERS = (  # top activity's dimensions that are also filters (instance is the instance parameter)
    "wait_class",
    "event",
    "sql_id",
    "top_level_sql_id",
    "sql_plan_hash_value",
    "module",
    "action",
    "program",
    "service",
    "user",
    "session",
    "machine",
    "blocking_session",
    "current_obj",
)
FIND_SEGMENTS_BY = ("logical_reads", "physical_reads", "physical_writes_direct", "row_lock_waits", "space_used")


def operations(port) -> dict[str, set[str]]:
    """The GET operations of the app's OpenAPI document: path template -> its query parameters' names."""
    doc = get_json(port, f"{API}/openapi.json")
    return {
        path: {p["name"] for p in ops["get"].get("parameters", []) if p.get("in") == "query"}
        for path, ops in doc["paths"].items()
        if "get" in ops
    }


def _t(value: datetime) -> str:
    return value.isoformat(timespec="seconds")


def _first_point(series: list[dict]) -> str | None:
    times = [t for s in series for t, v in s["points"] if v]
    return min(times, default=None)


class Questions:
    """Random valid questions about the databases being served (seeded, so every run asks the same ones).

    Each question is drawn from what the store holds: its databases, snapshots, catalog, statements (top SQL by every
    order), their plans and monitored executions, wait events, segments, stored Oracle reports, the values Active
    Session History holds in each dimension, benchmark runs. Ranges are drawn over where the data asked about is: the
    whole history for what AWR keeps throughout, the window the store holds for Active Session History, segment
    statistics and event histograms (found from the answers, the last days in the demo)."""

    def __init__(self, port, seed, params: dict[str, set[str]]):
        self.rng = random.Random(seed)
        self.params = params
        self.port = port
        # the AWR databases: every operation answers there (a Statspack one has no ASH, perf/statspack.py)
        self.dbs = [self._learn(d) for d in get_json(port, f"{API}/dbs")["databases"] if d["source"] == "awr"]
        runs = get_json(port, f"{API}/benchmarks")["rows"]
        self.runs = sorted(r["slug"] for r in runs)
        self.run_kinds = sorted({r["kind"] for r in runs})

    # -- what the store holds ---------------------------------------------------------------------------------------

    def _window(self, base, start, end=None) -> dict:
        """A window of the history (from, to and its first and last snapshot), resolved by the API's own range."""
        query = {"from": start} | ({"to": end} if end else {})
        r = get_json(self.port, f"{base}/range?{urlencode(query)}")["range"]
        return {
            "from": datetime.fromisoformat(r["from"]),
            "to": datetime.fromisoformat(r["to"]),
            "first": r["begin_snap"],
            "last": r["end_snap"],
        }

    def _learn(self, d) -> dict:
        port, s, base = self.port, d["snapshots"], f"{API}/dbs/{quote(d['id'])}"
        whole = urlencode({"begin_snap": s["first_snap"], "end_snap": s["last_snap"]})
        catalog = get_json(port, f"{base}/catalog")["rows"]
        top = [
            r
            for order in ("elapsed", "cpu", "gets", "reads", "executions", "rows")
            for r in get_json(port, f"{base}/top-sql?limit=100&order_by={order}&{whole}")["rows"]
        ]
        sql_ids = sorted({r["sql_id"] for r in top})
        history = {
            "from": datetime.fromisoformat(s["from"]),
            "to": datetime.fromisoformat(s["to"]),
            "first": s["first_snap"],
            "last": s["last_snap"],
        }
        # Active Session History: from its first sample (a first look in 2-hour buckets, then a closer one)
        coarse = _first_point(get_json(port, f"{base}/activity?{whole}")["series"])
        if coarse is None:
            sys.exit(f"perf/load.py: {d['id']} has no Active Session History to ask about")
        near = datetime.fromisoformat(coarse)
        fine = get_json(port, f"{base}/activity?{urlencode({'from': _t(near), 'to': _t(near + timedelta(hours=2))})}")
        ash = self._window(base, _first_point(fine["series"]) or coarse, s["to"])
        last_day = urlencode({"from": _t(ash["to"] - timedelta(days=1)), "to": _t(ash["to"])})
        filters = {}  # each dimension's values: the groups of its last day's top activity
        for dim in ASH_FILTERS:
            names = [x["name"] for x in get_json(port, f"{base}/activity?group_by={dim}&{last_day}")["series"]]
            filters[dim] = [str(n) for n in names if n is not None and n != "other" and len(str(n)) <= 64]
        # the statements with plans to compare: more than one plan hash value, as their plans answer lists them
        plans = {}
        for sql_id in sorted({r["sql_id"] for r in top if len(r["plan_hash_values"] or []) > 1}):
            kept = get_json(port, f"{base}/sql/{sql_id}/plans?{whole}")["plans"]
            if len(kept) > 1:
                plans[sql_id] = sorted({p["plan_hash_value"] for p in kept})
        monitored = {}
        for sql_id in sql_ids:
            rows = get_json(port, f"{base}/sql/{sql_id}/monitor?{whole}")["rows"]
            if rows:
                monitored[sql_id] = [(r["report_id"], r["snap_id"]) for r in rows]
        events = [
            r["event"]
            for r in get_json(port, f"{base}/top-events?limit=25&{whole}")["rows"]
            if r["wait_class"] != "CPU"
        ]
        histogram = get_json(port, f"{base}/event-histogram?{urlencode({'event': events[0]})}&{whole}")["intervals"]
        interval = timedelta(minutes=s["interval_minutes"])
        segments = {
            (r["obj"], r["dataobj"])
            for o in FIND_SEGMENTS_BY
            for r in get_json(port, f"{base}/segments?limit=100&order_by={o}&{whole}")["rows"]
        }
        objects = []
        for obj, dataobj in sorted(segments):
            points = get_json(port, f"{base}/segments/{obj}?dataobj={dataobj}&{whole}")["series"][0]["points"]
            if points:
                begin = datetime.fromisoformat(points[0][0]) - interval
                objects.append((obj, dataobj, self._window(base, _t(begin), points[-1][0])))
        stored = get_json(port, f"{base}/awr-report/stored")
        return {
            "id": d["id"],
            "base": base,
            "rac": d["rac"],
            "instances": [i["instance_number"] for i in d["instances"]],
            "history": history,
            "ash": ash,
            "histograms": self._window(base, _t(datetime.fromisoformat(histogram[0]["time"]) - interval), s["to"]),
            "segments": self._window(base, _t(min(w["from"] for _o, _d, w in objects)), s["to"]),
            "names": [r["name"] for r in catalog if r["kind"] != "detail"],
            "detail": [r["name"] for r in catalog if r["kind"] == "detail"],
            "sources": sorted({r["source"] for r in catalog}),
            "sql_ids": sql_ids,
            "filters": {k: v for k, v in filters.items() if v},
            "plans": plans,
            "monitored": monitored,
            "events": events,
            "objects": objects,
            "any_range": stored["any_range"],
            "reports": [r for r in stored["reports"] if not r["kind"].endswith("diff")],
            "diff_reports": [r for r in stored["reports"] if r["kind"].endswith("diff")],
        }

    # -- drawing ----------------------------------------------------------------------------------------------------

    def _range(self, window, prefix="", span=None):
        """A range in `window` (the history, or the part of it some data covers): an hour to all of it, by time or
        by snapshot ids, now and then open (from a moment to the newest snapshot)."""
        rng = self.rng
        if rng.random() < 0.3:  # by snapshot ids (30-minute snapshots)
            length = min(
                max(2, int((span or rng.choice(SPANS)) / timedelta(minutes=30))), window["last"] - window["first"]
            )
            lo = rng.randint(window["first"], window["last"] - length)
            return {f"{prefix}begin_snap": lo, f"{prefix}end_snap": lo + length}
        span = min(span or rng.choice(SPANS), window["to"] - window["from"])
        start = window["from"] + (window["to"] - window["from"] - span) * rng.random()
        if rng.random() < 0.2 and window["to"] == self._newest:  # open: from a moment to the newest snapshot
            return {f"{prefix}from": _t(start)}
        return {f"{prefix}from": _t(start), f"{prefix}to": _t(start + span)}

    def _any_range(self, db):
        """No range (the default: the last week) or one of the history."""
        return self.rng.choice([{}, self._range(db["history"])])

    def _ranged(self, db):
        """A range of the history and an instance (or all)."""
        return {**self._range(db["history"]), "instance": self._instance(db, each=False)}

    def _instance(self, db, each=True):
        choices = ["all"] + [str(i) for i in db["instances"]] + (["each"] if each else [])
        return self.rng.choice(choices)

    def _document(self, query=None, types=("html", "text")):
        """A report's own parameters: HTML (mostly) or text, of the `types` it is kept in; now and then a download."""
        return {
            **(query or {}),
            "type": self.rng.choice([t for t in ("html", "html", "text") if t in types]),
            **({"download": 1} if self.rng.random() < 0.1 else {}),
        }

    def ask(self, template):
        rng = self.rng
        db = rng.choice(self.dbs)
        self._newest = db["history"]["to"]
        fmt = {"format": "csv"} if "format" in self.params[template] and rng.random() < 0.1 else {}
        path, query = ASKERS[template](self, db)
        return path, {**query, **fmt}

    # -- one asker per GET operation: (path, query) of a question about `db` -----------------------------------------

    def _dbs(self, db):
        return f"{API}/dbs", {}

    def _db(self, db):
        return db["base"], {}

    def _catalog(self, db):
        rng = self.rng
        return f"{db['base']}/catalog", rng.choice(
            [{}, {"q": rng.choice(["redo", "cpu", "read", "wait", "sql"])}, {"source": rng.choice(db["sources"])}]
        )

    def _series(self, db):
        rng = self.rng
        if rng.random() < 0.15 and db["detail"]:  # per-minute detail: the last 8 days only, keep it short
            names = [rng.choice(db["detail"])]
            query = {"from": _t(db["history"]["to"] - rng.choice(SPANS[:4]))}
        else:
            names = rng.sample(db["names"], rng.randint(1, 4))
            query = self._range(db["history"])
        return f"{db['base']}/series", {
            "name": names,
            **query,
            "instance": self._instance(db),
            "rate": rng.choice(["per_second", "per_second", "per_txn", "raw"]),
            "max_points": rng.choice([0, 300, 1000, 2000, 2000]),
        }

    def _wait_classes(self, db):
        return f"{db['base']}/wait-classes", {
            **self._range(db["history"]),
            "instance": self._instance(db),
            "max_points": self.rng.choice([0, 500, 2000]),
        }

    def _load_profile(self, db):
        return f"{db['base']}/load-profile", self._ranged(db)

    def _top_events(self, db):
        return f"{db['base']}/top-events", {
            **self._range(db["history"]),
            "instance": self._instance(db, each=False),
            "limit": self.rng.choice([5, 10, 25]),
        }

    def _top_sql(self, db):
        rng = self.rng
        return f"{db['base']}/top-sql", {
            **self._range(db["history"]),
            "limit": rng.choice([10, 25, 100]),
            "order_by": rng.choice(["elapsed", "cpu", "gets", "reads", "executions", "rows"]),
        }

    def _sql(self, db):
        rng = self.rng
        return f"{db['base']}/sql/{rng.choice(db['sql_ids'])}", {
            **self._any_range(db),
            "max_points": rng.choice([0, 500]),
        }

    def _plans(self, db):
        rng = self.rng
        if db["plans"] and rng.random() < 0.3:  # one of several plans
            sql_id = rng.choice(sorted(db["plans"]))
            return f"{db['base']}/sql/{sql_id}/plans", {
                **self._any_range(db),
                "plan_hash_value": rng.choice(db["plans"][sql_id]),
            }
        sql_id = rng.choice(db["sql_ids"])
        return f"{db['base']}/sql/{sql_id}/plans", self._any_range(db)

    def _plan_diff(self, db):
        rng = self.rng
        db = rng.choice([d for d in self.dbs if d["plans"]])
        sql_id = rng.choice(sorted(db["plans"]))
        a, b = rng.sample(db["plans"][sql_id], 2)
        return f"{db['base']}/sql/{sql_id}/plans/diff", {"a": a, "b": b}

    def _binds(self, db):
        rng = self.rng
        return f"{db['base']}/sql/{rng.choice(db['sql_ids'])}/binds", self._any_range(db)

    def _monitor(self, db):
        rng = self.rng
        sql_id = rng.choice(sorted(db["monitored"]) if db["monitored"] and rng.random() < 0.7 else db["sql_ids"])
        return f"{db['base']}/sql/{sql_id}/monitor", {
            **self._any_range(db),
            "instance": self._instance(db, each=False),
        }

    def _monitor_report(self, db):
        rng = self.rng
        db = rng.choice([d for d in self.dbs if d["monitored"]])
        report_id, snap_id = rng.choice(db["monitored"][rng.choice(sorted(db["monitored"]))])
        return f"{db['base']}/sql-monitor/{report_id}", self._document({"snap_id": snap_id})

    def _tablespaces(self, db):
        return f"{db['base']}/tablespaces", self._any_range(db)

    def _compare(self, db):
        span = self.rng.choice(SPANS[:5])
        return f"{db['base']}/compare", {
            **self._range(db["history"], "a_", span),
            **self._range(db["history"], "b_", span),
            "instance": self._instance(db, each=False),
        }

    def _filters(self, db):
        """None, one or two filters of top activity, each a value Active Session History holds in its dimension."""
        rng = self.rng
        dims = rng.sample(sorted(db["filters"]), rng.choice([0, 0, 1, 1, 1, 2]))
        return {dim: rng.choice(db["filters"][dim]) for dim in dims}

    def _activity(self, db):
        rng = self.rng
        return f"{db['base']}/activity", {
            **self._range(db["ash"]),
            "group_by": rng.choice(["wait_class"] * 4 + sorted(db["filters"]) + ["instance"]),
            "instance": self._instance(db, each=False),
            **self._filters(db),
        }

    def _activity_top(self, db):
        return f"{db['base']}/activity/top", {
            **self._range(db["ash"]),
            "instance": self._instance(db, each=False),
            **self._filters(db),
        }

    def _activity_groups(self, db):
        return f"{db['base']}/activity/groups", {
            **self._range(db["ash"]),
            "group_by": self.rng.choice(["sql_id,event", "event", "session", "module,sql_id"]),
            "instance": self._instance(db, each=False),
        }

    def _activity_chains(self, db):
        return f"{db['base']}/activity/chains", self._range(db["ash"])

    def _changes(self, db):
        return f"{db['base']}/changes", self._ranged(db)

    def _event_histogram(self, db):
        return f"{db['base']}/event-histogram", {
            "event": self.rng.choice(db["events"]),
            **self._range(db["histograms"]),
            "instance": self._instance(db, each=False),
        }

    def _parameters(self, db):
        rng = self.rng
        h = db["history"]
        snap = {"snap_id": rng.randint(h["first"], h["last"])} if rng.random() < 0.3 else {}
        return f"{db['base']}/parameters", {
            **self._any_range(db),
            **snap,
            "instance": self._instance(db, each=False),
        }

    def _parameter_list(self, db, which):
        return f"{db['base']}/parameters/{which}", {
            **self._any_range(db),
            "instance": self._instance(db, each=False),
        }

    def _segments(self, db):
        rng = self.rng
        return f"{db['base']}/segments", {
            **self._range(db["segments"]),
            "order_by": rng.choice(SEGMENT_ORDER),
            "limit": rng.choice([10, 25, 100]),
        }

    def _segment(self, db):
        rng = self.rng
        obj, dataobj, window = rng.choice(db["objects"])
        return f"{db['base']}/segments/{obj}", {
            **({"dataobj": dataobj} if dataobj != obj or rng.random() < 0.3 else {}),
            **self._range(window),
        }

    def _snapshots(self, db):
        return f"{db['base']}/snapshots", self._ranged(db)

    def _range_of(self, db):
        return f"{db['base']}/range", self._range(db["history"])

    def _report(self, db):
        return f"{db['base']}/report", {
            **self._range(db["history"]),
            "instance": self._instance(db, each=False),
            **({"download": 1} if self.rng.random() < 0.1 else {}),
        }

    def _report_instances(self, db, report):
        asked = ",".join(map(str, report["instances"]))
        return self.rng.choice([asked] + (["all"] if report["instances"] == db["instances"] else []))

    def _awr_report(self, db):
        """A range whose report the store can give: any on Oracle, one it keeps in the demo."""
        rng = self.rng
        if db["any_range"]:
            return f"{db['base']}/awr-report", self._document({**self._range(db["history"], span=SPANS[0])})
        db = rng.choice([d for d in self.dbs if d["reports"]])
        report = rng.choice(db["reports"])
        return f"{db['base']}/awr-report", self._document(
            {
                "begin_snap": report["begin_snap"],
                "end_snap": report["end_snap"],
                "instance": self._report_instances(db, report),
            },
            report["types"],
        )

    def _awr_report_compare(self, db):
        rng = self.rng
        if db["any_range"]:
            return f"{db['base']}/awr-report/compare", self._document(
                {**self._range(db["history"], "a_", SPANS[0]), **self._range(db["history"], "b_", SPANS[0])}
            )
        db = rng.choice([d for d in self.dbs if d["diff_reports"]])
        report = rng.choice(db["diff_reports"])
        return f"{db['base']}/awr-report/compare", self._document(
            {
                "a_begin_snap": report["begin_snap"],
                "a_end_snap": report["end_snap"],
                "b_begin_snap": report["b_begin_snap"],
                "b_end_snap": report["b_end_snap"],
                "instance": self._report_instances(db, report),
            },
            report["types"],
        )

    def _awr_report_stored(self, db):
        return f"{db['base']}/awr-report/stored", {}

    def _benchmarks(self, db):
        return f"{API}/benchmarks", self.rng.choice([{}, {"kind": self.rng.choice(self.run_kinds)}])

    def _benchmark(self, db):
        return f"{API}/benchmarks/{self.rng.choice(self.runs)}", {}

    def _benchmark_compare(self, db):
        return f"{API}/benchmarks/compare", {
            "runs": self.rng.sample(self.runs, self.rng.randint(2, min(4, len(self.runs))))
        }

    def urls(self, per_endpoint, without=()):
        out = []
        for _ in range(per_endpoint):
            for template in sorted(set(ASKERS) - set(without)):
                path, query = self.ask(template)
                out.append((template, f"{path}?{urlencode(query, doseq=True)}" if query else path))
        self.rng.shuffle(out)
        return out


ASKERS = {  # each GET operation of the OpenAPI document -> the Questions method that asks it a question
    f"{API}/dbs": Questions._dbs,
    f"{API}/dbs/{{db}}": Questions._db,
    f"{API}/dbs/{{db}}/catalog": Questions._catalog,
    f"{API}/dbs/{{db}}/series": Questions._series,
    f"{API}/dbs/{{db}}/wait-classes": Questions._wait_classes,
    f"{API}/dbs/{{db}}/load-profile": Questions._load_profile,
    f"{API}/dbs/{{db}}/top-events": Questions._top_events,
    f"{API}/dbs/{{db}}/top-sql": Questions._top_sql,
    f"{API}/dbs/{{db}}/sql/{{sql_id}}": Questions._sql,
    f"{API}/dbs/{{db}}/sql/{{sql_id}}/plans": Questions._plans,
    f"{API}/dbs/{{db}}/sql/{{sql_id}}/plans/diff": Questions._plan_diff,
    f"{API}/dbs/{{db}}/sql/{{sql_id}}/binds": Questions._binds,
    f"{API}/dbs/{{db}}/sql/{{sql_id}}/monitor": Questions._monitor,
    f"{API}/dbs/{{db}}/sql-monitor/{{report_id}}": Questions._monitor_report,
    f"{API}/dbs/{{db}}/tablespaces": Questions._tablespaces,
    f"{API}/dbs/{{db}}/compare": Questions._compare,
    f"{API}/dbs/{{db}}/activity": Questions._activity,
    f"{API}/dbs/{{db}}/activity/top": Questions._activity_top,
    f"{API}/dbs/{{db}}/activity/groups": Questions._activity_groups,
    f"{API}/dbs/{{db}}/activity/chains": Questions._activity_chains,
    f"{API}/dbs/{{db}}/changes": Questions._changes,
    f"{API}/dbs/{{db}}/event-histogram": Questions._event_histogram,
    f"{API}/dbs/{{db}}/parameters": Questions._parameters,
    f"{API}/dbs/{{db}}/parameters/changes": lambda q, db: q._parameter_list(db, "changes"),
    f"{API}/dbs/{{db}}/parameters/non-default": lambda q, db: q._parameter_list(db, "non-default"),
    f"{API}/dbs/{{db}}/segments": Questions._segments,
    f"{API}/dbs/{{db}}/segments/{{obj}}": Questions._segment,
    f"{API}/dbs/{{db}}/snapshots": Questions._snapshots,
    f"{API}/dbs/{{db}}/range": Questions._range_of,
    f"{API}/dbs/{{db}}/report": Questions._report,
    f"{API}/dbs/{{db}}/awr-report": Questions._awr_report,
    f"{API}/dbs/{{db}}/awr-report/compare": Questions._awr_report_compare,
    f"{API}/dbs/{{db}}/awr-report/stored": Questions._awr_report_stored,
    f"{API}/benchmarks": Questions._benchmarks,
    f"{API}/benchmarks/{{slug}}": Questions._benchmark,
    f"{API}/benchmarks/compare": Questions._benchmark_compare,
}


def unasked(params: dict[str, set[str]]) -> str | None:
    """What is wrong with the endpoint list: GET operations without a question, or questions for operations the
    document does not have (a renamed path)."""
    missing = sorted(set(params) - set(ASKERS) - set(LEFT_OUT))
    stale = sorted((set(ASKERS) | set(LEFT_OUT)) - set(params))
    problems = []
    if missing:
        problems.append(
            "no question for GET " + ", ".join(missing) + ": add one to ASKERS (or the operation to LEFT_OUT, "
            "with the reason)"
        )
    if stale:
        problems.append("questions for operations the OpenAPI document does not have: " + ", ".join(stale))
    return "; ".join(problems) or None


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument(
        "--answer-cache-mb",
        type=int,
        default=64,
        help="the server's answer cache, its workers' together (gunicorn.conf.py); 0 computes every answer",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="PATH",
        help="leave an operation out of this run (its path template, e.g. /api/v1/dbs/{db}/activity/top); repeatable",
    )
    parser.add_argument("--label", default="", help="added to the run's key in the results (cache_on_LABEL)")
    args = harness.parse(parser, quick={"seconds": 3})
    if unknown := set(args.without) - set(ASKERS):
        sys.exit(f"perf/load.py: --without names no operation with a question: {', '.join(sorted(unknown))}")
    env = harness.server_env(args.store, args.answer_cache_mb)
    with harness.serving(harness.gunicorn(workers=args.workers), env, "/api/v1/") as (port, proc):
        params = operations(port)
        if problem := unasked(params):
            sys.exit(f"perf/load.py: the OpenAPI document's GET operations and the questions disagree: {problem}")
        started = time.monotonic()
        questions = Questions(port, args.seed, params)
        print(f"learned what the store holds in {time.monotonic() - started:.1f} s", file=sys.stderr)
        urls = questions.urls(per_endpoint=300, without=args.without)
        memory, done = [], threading.Event()

        def sample():
            while not done.wait(0.5):
                memory.extend(harness.worker_memory(proc))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        warm, _ = harness.clients(port, urls[::-1], args.clients, min(3, args.seconds))  # the same kinds, others
        asked, elapsed = harness.clients(port, urls, args.clients, args.seconds)
        done.set()
        sampler.join()
    by_endpoint = defaultdict(list)
    for a in asked:
        by_endpoint[a[1]].append(a)
    rows = {
        e: {
            "requests": len(by_endpoint[e]),
            "p50_ms": harness.percentile_ms([a[0] for a in by_endpoint[e]], 0.5),
            "p99_ms": harness.percentile_ms([a[0] for a in by_endpoint[e]], 0.99),
            "max_ms": harness.percentile_ms([a[0] for a in by_endpoint[e]], 1.0),
            "errors": sum(a[3] != 200 for a in by_endpoint[e]),
            "slowest_url": max(by_endpoint[e], key=lambda a: a[0])[2],
        }
        for e in sorted(params)
        if by_endpoint[e]
    }
    slowest, seen = [], set()
    for took, endpoint, url, status in sorted(asked, reverse=True, key=lambda a: a[0]):
        if url not in seen and len(slowest) < SLOWEST:
            seen.add(url)
            slowest.append({"ms": round(took * 1000, 1), "status": status, "endpoint": endpoint, "url": url})
    failed = [f"{a[3]} {a[2]}" for a in warm + asked if a[3] != 200]
    result = {
        "clients": args.clients,
        "seconds": args.seconds,
        "workers": args.workers,
        "answer_cache_mb": args.answer_cache_mb,
        "seed": args.seed,
        "distinct_questions": len(set(urls)),
        **harness.summary(asked, elapsed),
        "warmup_errors": sum(a[3] != 200 for a in warm),
        "operations_under_250_ms_p99": sum(r["p99_ms"] < 250 for r in rows.values()),
        "largest_worker": max(memory, key=lambda m: m["rss_mb"]) if memory else None,
        "largest_worker_private_mb": max((m["private_mb"] for m in memory), default=None),
        "largest_worker_pss_mb": max((m["pss_mb"] for m in memory), default=None),
        "endpoints": rows,
        "left_out": LEFT_OUT,
        "without": sorted(args.without),
        "slowest": slowest,
        "error_samples": failed[:20],
    }
    run = f"cache_{'on' if args.answer_cache_mb else 'off'}" + (f"_{args.label}" if args.label else "")
    harness.write("load", result, args, run=run)
    print(
        f"{args.clients} clients, {args.seconds:g} s, gunicorn {args.workers} workers, answer cache "
        f"{args.answer_cache_mb} MB: {result['requests']} requests, {result['req_per_s']} req/s, p50 "
        f"{result['p50_ms']} ms, p99 {result['p99_ms']} ms, errors {result['errors']} (+{result['warmup_errors']} in "
        f"warm-up), {result['operations_under_250_ms_p99']} of {len(rows)} operations under 250 ms at p99, largest "
        f"worker: {result['largest_worker']}\n"
    )
    print(
        harness.table(
            ["operation", "requests", "p50 ms", "p99 ms", "max ms", "errors"],
            [[e, r["requests"], r["p50_ms"], r["p99_ms"], r["max_ms"], r["errors"]] for e, r in rows.items()],
        )
    )
    print(f"\nThe {SLOWEST} slowest questions:\n")
    rows = [[r["ms"], r["status"], r["endpoint"], f"`{r['url']}`"] for r in slowest]
    print(harness.table(["ms", "status", "operation", "URL"], rows))
    for failure in failed[:20]:
        print("error:", failure)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
