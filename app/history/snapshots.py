"""The snapshots of a range, per instance, with restarts and missing or merged snapshots marked."""

from app.history.database import Database, Range

COLUMNS = ["snap_id", "instance", "end_interval_time", "startup_time", "snap_flag"]


def compute(db: Database, rng: Range, instance="all") -> dict:
    inst = db.instance(instance)
    tl = db.timeline()
    rows = []
    if rng.lo is not None:
        for s in sorted(tl.by_id.values(), key=lambda s: (s.snap_id, s.instance)):
            if rng.lo <= s.snap_id <= rng.hi and inst in (None, s.instance):
                rows.append(
                    {
                        "snap_id": s.snap_id,
                        "instance": s.instance,
                        "end_interval_time": s.time,
                        "startup_time": s.startup_time,
                        "snap_flag": s.flag,
                    }
                )
    return {
        "db": db.key,
        "range": rng.public(),
        "columns": COLUMNS,
        "rows": rows,
        "markers": tl.markers(rng.lo, rng.hi, inst) if rng.lo is not None else {},
    }
