"""One SQL statement over time: its text, and per plan hash value the elapsed and CPU time per execution, gets
per execution, executions and elapsed time at each snapshot."""

from app import analysis
from app.errors import NotFound
from app.history.database import Database, Range
from app.history.numbers import drawn, round4
from app.history.sql_text import texts
from app.store.awr import queries

LINES = (  # (metric, index in a snapshot's sums, scale, unit, per execution)
    ("elapsed_per_exec", 2, 1e-3, "ms/exec", True),
    ("cpu_per_exec", 3, 1e-3, "ms/exec", True),
    ("buffer_gets_per_exec", 4, 1, "gets/exec", True),
    ("executions", 1, 1, "executions", False),
    ("elapsed", 2, 1e-6, "s", False),
)


def compute(db: Database, sql_id: str, rng: Range, max_points=2000, con_dbid: int | None = None) -> dict:
    """In a CDB root, the statement's rows of every container summed, or of the one `con_dbid` names (§15)."""
    names = db.containers()
    binds = {"sql_id": sql_id, "lo": rng.lo or 0, "hi": rng.hi or 0}
    if con_dbid is not None:
        if con_dbid not in (names or {db.dbid: None}):
            known = ", ".join(f"{con} ({name})" for con, name in names.items()) if names else str(db.dbid)
            raise NotFound(f"con_dbid {con_dbid} is not a container of {db.key}; its containers: {known}", "con_dbid")
        binds["con_dbid"] = con_dbid
    text = texts(db, [sql_id])
    raw = db.rows(queries.sql_history(db.store.views, con_dbid is not None), **binds) if rng.lo is not None else []
    if sql_id not in text and not raw:
        raise NotFound(f"sql_id {sql_id!r} is not in the history of {db.key}", "sql_id")
    tl = db.timeline()
    per_plan: dict = {}
    module = None
    containers = sorted({con for *_, con in raw}, key=lambda con: (con is None, con or 0))
    for instance_no, snap, plan, mod, execs, ela, cpu, gets, reads, nrows, _ in raw:
        module = module or mod
        snap_obj = tl.by_id.get((instance_no, snap))
        if snap_obj is None:
            continue
        acc = per_plan.setdefault(plan, {}).setdefault(snap, [snap_obj, 0, 0, 0, 0, 0, 0])
        for k, x in enumerate((execs, ela, cpu, gets, reads, nrows), start=1):
            acc[k] += x or 0
    plans, lines = [], []
    for plan, per_snap in sorted(per_plan.items()):
        pts = [per_snap[k] for k in sorted(per_snap)]
        execs = sum(p[1] for p in pts)
        ela = sum(p[2] for p in pts)
        plans.append(
            {
                "plan_hash_value": plan,
                "executions": execs,
                "elapsed_s": round4(ela / 1e6),
                "elapsed_per_exec_ms": round4(ela / execs / 1000) if execs else None,
                "first_seen": pts[0][0].time,
                "last_seen": pts[-1][0].time,
                "snapshots": len(pts),
            }
        )
        for metric, idx, scale, unit, per_exec in LINES:
            values = [
                (p[0].time, p[0].epoch, (p[idx] / p[1] if per_exec else p[idx]) * scale)
                for p in pts
                if p[1] or not per_exec
            ]
            values = analysis.lttb(values, max_points)
            lines.append({"metric": metric, "plan_hash_value": plan, "unit": unit, "points": drawn(values)})
    return {
        "db": db.key,
        "sql_id": sql_id,
        "range": rng.public(),
        "sql_text": text.get(sql_id),
        "module": module,
        "con_dbid": con_dbid,
        "containers": [{"con_dbid": con, "container": names.get(con)} for con in containers] if names else [],
        "plans": plans,
        "series": lines,
    }
