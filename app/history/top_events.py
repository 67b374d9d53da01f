"""Top foreground wait events over a range, with DB CPU: waits, time, average wait and % of DB time
(docs/awr-rules.md §14)."""

from math import fsum

from app import analysis
from app.history.database import Database, Range
from app.history.intervals import boundaries, coverage, snap_ids, totals
from app.history.numbers import round4
from app.store import queries


def compute(db: Database, rng: Range, instance="all", limit=10) -> dict:
    inst = db.instance(instance)
    rows = []
    covers = coverage(db, rng, inst)
    if covers["reason"] is None:
        bounds = boundaries(db, rng, inst)
        raw = db.rows(queries.events_at(db.store.views), snap_ids=snap_ids(bounds))
        waits, micros, classes = {}, {}, {}
        for instance_no, snap, name, wait_class, total_waits, time_micro in raw:
            if instance_no in bounds:
                waits.setdefault((instance_no, name), {})[snap] = total_waits or 0
                micros.setdefault((instance_no, name), {})[snap] = time_micro or 0
                classes[name] = wait_class
        events: dict = {}
        for (instance_no, name), per in micros.items():
            e = events.setdefault(name, [0.0, 0.0])
            e[0] += fsum(p.num for p in analysis.deltas(waits[(instance_no, name)], bounds[instance_no]))
            e[1] += fsum(p.num for p in analysis.deltas(per, bounds[instance_no]))
        db_time, _ = totals(db, "sys_time_model", ("DB time", "DB CPU"), rng, inst)
        total_db = fsum(v for (i, n), v in db_time.items() if n == "DB time")
        cpu = fsum(v for (i, n), v in db_time.items() if n == "DB CPU")
        events["DB CPU"] = [None, cpu]
        classes["DB CPU"] = "CPU"
        for name, (count, micro) in events.items():
            rows.append(
                {
                    "event": name,
                    "wait_class": classes[name],
                    "waits": None if count is None else round(count),
                    "time_s": round4(micro / 1e6),
                    "avg_ms": round4(micro / count / 1000) if count else None,
                    "pct_db_time": round4(100 * micro / total_db) if total_db else None,
                }
            )
        rows.sort(key=lambda r: -r["time_s"])
        rows = rows[:limit]
    return {
        "db": db.key,
        "range": rng.public(),
        "instance": instance,
        **covers,
        "columns": ["event", "wait_class", "waits", "time_s", "avg_ms", "pct_db_time"],
        "rows": rows,
    }
