"""Top foreground wait events over a range, with DB CPU: waits, time, average wait and % of DB time
(docs/awr-rules.md §14)."""

from math import fsum

from app import analysis
from app.history.database import Database, Range
from app.history.intervals import boundaries, coverage, snap_ids, totals
from app.history.numbers import round4
from app.store.awr import queries


def measure(db: Database, rng: Range, inst) -> tuple[dict, float]:
    """Unrounded: per event that waited in the range, and DB CPU, (wait class, waits, µs waited; DB CPU's waits
    None), and the range's DB time in µs. Empty where coverage() finds nothing to measure."""
    bounds = boundaries(db, rng, inst) if rng.lo is not None and rng.lo < rng.hi else {}
    if not bounds:
        return {}, 0.0
    raw = db.rows(queries.events_at(db.store.views), snap_ids=snap_ids(bounds))
    waits, micros, classes = {}, {}, {}
    for instance_no, snap, name, wait_class, total_waits, time_micro in raw:
        if instance_no in bounds:
            waits.setdefault((instance_no, name), {})[snap] = total_waits or 0
            micros.setdefault((instance_no, name), {})[snap] = time_micro or 0
            classes[name] = wait_class
    sums: dict = {}
    for (instance_no, name), per in micros.items():
        e = sums.setdefault(name, [0.0, 0.0])
        e[0] += fsum(p.num for p in analysis.deltas(waits[(instance_no, name)], bounds[instance_no]))
        e[1] += fsum(p.num for p in analysis.deltas(per, bounds[instance_no]))
    db_time, _ = totals(db, "sys_time_model", ("DB time", "DB CPU"), rng, inst)
    total_db = fsum(v for (i, n), v in db_time.items() if n == "DB time")
    events = {name: (classes[name], count, micro) for name, (count, micro) in sums.items() if count > 0}
    events["DB CPU"] = ("CPU", None, fsum(v for (i, n), v in db_time.items() if n == "DB CPU"))
    return events, total_db


def rows(events: dict, total_db: float, limit=10, rnd=round4) -> list[dict]:
    """measure()'s events as the answer's rows, largest time first, each value rounded once by `rnd`."""
    out = [
        {
            "event": name,
            "wait_class": wait_class,
            "waits": None if count is None else round(count),
            "time_s": rnd(micro / 1e6),
            "avg_ms": rnd(micro / count / 1000) if count else None,
            "pct_db_time": rnd(100 * micro / total_db) if total_db else None,
        }
        for name, (wait_class, count, micro) in sorted(events.items(), key=lambda e: -e[1][2])  # ties: as read
    ]
    return out[:limit]


def compute(db: Database, rng: Range, instance="all", limit=10) -> dict:
    inst = db.instance(instance)
    covers = coverage(db, rng, inst)
    found = rows(*measure(db, rng, inst), limit) if covers["reason"] is None else []
    return {
        "db": db.key,
        "range": rng.public(),
        "instance": instance,
        **covers,
        "columns": ["event", "wait_class", "waits", "time_s", "avg_ms", "pct_db_time"],
        "rows": found,
    }
