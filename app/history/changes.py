"""What changed in a range (docs/awr-rules.md §23): one list, in time order, of the instances' restarts, parameter
changes, plans first seen for a statement or back after another, database version changes and the benchmark runs
whose AWR window overlaps the range. Each change: its time, the snapshot it was seen at, its instance (none for the
database), its kind, one line of text and its details."""

import json
from datetime import datetime

from app.history import parameters
from app.history.database import Database, Range
from app.history.numbers import round4
from app.store.awr import queries

COLUMNS = ["time", "snap_id", "instance", "kind", "text", "details"]
KINDS = ("restart", "parameter", "plan", "version", "run")


def _shown(value) -> str:
    return "NULL" if value is None else str(value)


def restarts(db: Database, rng: Range, inst) -> list[dict]:
    """The restarts the timeline finds (docs/awr-rules.md §4) whose first snapshot after is in (lo, hi], timed at
    the new startup."""
    marks = db.timeline().markers(rng.lo, rng.hi, inst)["restarts"]
    return [
        {
            "time": m["startup_time"],
            "snap_id": m["snap_id"],
            "instance": m["instance"],
            "kind": "restart",
            "text": f"instance {m['instance']} restarted",
            "details": {"first_snapshot_time": m["time"]},
        }
        for m in marks
        if m["snap_id"] > rng.lo
    ]


def parameter_changes(db: Database, rng: Range, inst) -> list[dict]:
    out = []
    for c in parameters.changes(db, rng, inst):
        name = c["parameter"]
        text = f"{name}: {parameters.shown(name, c['old_value'])} → {parameters.shown(name, c['new_value'])}"
        out.append(
            {
                "time": c["time"],
                "snap_id": c["snap_id"],
                "instance": c["instance"],
                "kind": "parameter",
                "text": text + (" (at the restart)" if c["restart"] else ""),
                "details": {
                    k: c[k]
                    for k in (
                        "parameter",
                        "old_value",
                        "new_value",
                        "old_snap_id",
                        "old_time",
                        "isdefault",
                        "ismodified",
                        "restart",
                        "con_dbid",
                    )
                },
            }
        )
    return out


def new_plans(db: Database, rng: Range, inst) -> list[dict]:
    """Plans first seen in (lo, hi] of statements seen before with another plan (queries.new_plans), once per plan:
    at the first instance that ran it."""
    tl = db.timeline()
    plans: dict = {}
    for sql_id, plan, con, i, first, elapsed, execs, previous in db.rows(
        queries.new_plans(db.store.views, db.store.plan_firsts), lo=rng.lo, hi=rng.hi
    ):
        p = plans.setdefault(
            (sql_id, plan, con), {"first": (first, i), "elapsed": 0, "executions": 0, "previous": previous}
        )
        p["first"] = min(p["first"], (first, i))
        p["elapsed"] += elapsed or 0
        p["executions"] += execs or 0
    out = []
    for (sql_id, plan, con), p in plans.items():
        first, i = p["first"]
        if inst not in (None, i) or (i, first) not in tl.by_id:
            continue
        out.append(
            _plan_change(
                tl.by_id[(i, first)],
                f"new plan {plan} of SQL {sql_id} (before: {p['previous']})",
                {
                    "sql_id": sql_id,
                    "plan_hash_value": plan,
                    "previous_plan": p["previous"],
                    "con_dbid": con,
                    "elapsed_s": round4(p["elapsed"] / 1e6),
                    "executions": p["executions"],
                },
            )
        )
    return out


def plan_returns(db: Database, rng: Range, inst) -> list[dict]:
    """Plans seen before that come back in (lo, hi] after another plan (queries.plan_returns), at the first instance
    that ran them again."""
    tl = db.timeline()
    out = []
    for sql_id, plan, con, i, snap, previous in db.rows(
        queries.plan_returns(db.store.views, db.store.plan_firsts), lo=rng.lo, hi=rng.hi
    ):
        if inst not in (None, i) or (i, snap) not in tl.by_id:
            continue
        out.append(
            _plan_change(
                tl.by_id[(i, snap)],
                f"plan {plan} of SQL {sql_id} back (before: {previous})",
                {"sql_id": sql_id, "plan_hash_value": plan, "previous_plan": previous, "con_dbid": con},
            )
        )
    return out


def _plan_change(snapshot, text: str, details: dict) -> dict:
    """A change of kind plan at `snapshot` (a timeline entry: its instance, snap_id and time)."""
    return {
        "time": snapshot.time,
        "snap_id": snapshot.snap_id,
        "instance": snapshot.instance,
        "kind": "plan",
        "text": text,
        "details": details,
    }


def versions(db: Database, rng: Range, inst) -> list[dict]:
    """A startup of an instance whose DBA_HIST_DATABASE_INSTANCE.VERSION differs from its previous startup's (an
    upgrade or a downgrade), when its first snapshot is in (lo, hi]. A change at a startup no snapshot saw (an
    upgrade's startup in UPGRADE mode takes none) is seen at the next startup a snapshot saw, from the version
    before it."""
    tl = db.timeline()
    out = []
    for i, startups in db.versions().items():
        if inst not in (None, i):
            continue
        old = startups[0][1]  # the version of the last startup a snapshot saw (or of the first startup)
        for startup, new in startups[1:]:
            first = next((s for s in tl.all.get(i, ()) if s.startup == startup), None)
            if first is None:
                continue
            if old != new and rng.lo < first.snap_id <= rng.hi:
                out.append(
                    {
                        "time": first.startup_time,
                        "snap_id": first.snap_id,
                        "instance": i,
                        "kind": "version",
                        "text": f"version {_shown(old)} → {_shown(new)}",
                        "details": {"old_version": old, "new_version": new},
                    }
                )
            old = new
    return out


def runs(db: Database, rng: Range, found: list[dict]) -> list[dict]:
    """The benchmark runs linked to this database (awr_db) whose AWR window (begin_snap, end_snap] overlaps the
    range's, timed at their start (or their window's first snapshot)."""
    tl = db.timeline()
    out = []
    for r in found:
        if r.get("awr_db") != db.key or r.get("awr_begin_snap") is None:
            continue
        begin, end = r["awr_begin_snap"], r["awr_end_snap"]
        if not (begin < rng.hi and end > rng.lo):
            continue
        at = tl.lowest.get(begin)
        time = (
            datetime.fromisoformat(r["started"]).astimezone(db.tz()).isoformat()
            if r.get("started")
            else at.time
            if at
            else None
        )
        if time is None:
            continue
        out.append(
            {
                "time": time,
                "snap_id": begin,
                "instance": None,
                "kind": "run",
                "text": f"benchmark run: {r['title']}",
                "details": {
                    "slug": r["slug"],
                    "title": r["title"],
                    "kind": r["kind"],
                    "started": r.get("started"),
                    "finished": r.get("finished"),
                    "begin_snap": begin,
                    "end_snap": end,
                },
            }
        )
    return out


def compute(db: Database, rng: Range, instance="all", found_runs: list[dict] | None = None) -> dict:
    inst = db.instance(instance)
    rows = []
    if rng.lo is not None and rng.lo < rng.hi:
        rows = (
            restarts(db, rng, inst)
            + parameter_changes(db, rng, inst)
            + new_plans(db, rng, inst)
            + plan_returns(db, rng, inst)
            + versions(db, rng, inst)
            + runs(db, rng, found_runs or [])
        )
    rows.sort(key=lambda r: (datetime.fromisoformat(r["time"]), KINDS.index(r["kind"]), r["instance"] or 0, r["text"]))
    return {"db": db.key, "range": rng.public(), "instance": instance, "columns": COLUMNS, "rows": rows}


def table(body: dict) -> list[dict]:
    """The rows for CSV: the details as JSON text."""
    return [{**r, "details": json.dumps(r["details"], ensure_ascii=False, sort_keys=True)} for r in body["rows"]]
