"""Sums over a range, as the AWR report makes them (docs/awr-rules.md §12-§13): every valid interval's delta added
up, read from the counters at a handful of snapshots instead of every one."""

import itertools
from math import fsum

from app import analysis
from app.store.awr import queries


def boundaries(db, rng, inst) -> dict:
    """Per instance, the first and last snapshot of each startup inside the range: the counters there give the
    same sums as every interval in between, in a handful of rows."""
    out = {}
    for i, rows in db.timeline().span(rng.lo, rng.hi, inst).items():
        keep = analysis.sides(rows)
        out[i] = [s for s in rows if s.snap_id in keep]
    return out


def coverage(db, rng, inst) -> dict:
    """What a report over the range can and cannot measure: the intervals it leaves out (across a restart, where
    counters start again: docs/awr-rules.md §4) with the seconds they leave uncovered, and, where no interval at all
    can be measured, the reason, so that no data never reads as zeros. Between imported reports that do not follow each
    other, the interval no report covers is left out too (§35)."""
    if rng.lo is None:
        return {"left_out": [], "reason": "no snapshot falls in this range"}
    if rng.lo >= rng.hi:
        return {"left_out": [], "reason": "the range holds one snapshot: an interval needs two"}
    left_out, measured = [], False
    for i, rows in db.timeline().span(rng.lo, rng.hi, inst).items():
        for a, b in itertools.pairwise(rows):
            if not b.continues(a):
                left_out.append(
                    {
                        "instance": i,
                        "after_snap_id": a.snap_id,
                        "before_snap_id": b.snap_id,
                        "seconds": round(b.epoch - a.epoch),
                        "reason": "restart" if a.startup != b.startup else "unreported",
                    }
                )
            else:
                measured = True
    reason = (
        None
        if measured
        else "no interval of this range can be measured: "
        + ("each one spans a restart" if left_out else "no instance has two snapshots in it")
    )
    return {"left_out": left_out, "reason": reason}


def snap_ids(bounds: dict) -> list[int]:
    return sorted({s.snap_id for rows in bounds.values() for s in rows})


def totals(db, view, names, rng, inst):
    """Sum of valid deltas and of their seconds, per instance and name."""
    bounds = boundaries(db, rng, inst)
    ids = snap_ids(bounds)
    if not ids:
        return {}, {}
    rows = db.rows(queries.counters_at(db.store.views, view), snap_ids=ids, names=list(names))
    values: dict = {}
    for instance, snap, name, value in rows:
        values.setdefault((instance, name), {})[snap] = value
    sums, seconds = {}, {}
    for (instance, name), per in values.items():
        if instance not in bounds:
            continue
        ds = analysis.deltas(per, bounds[instance])
        sums[(instance, name)] = fsum(p.num for p in ds)
        seconds[instance] = max(seconds.get(instance, 0), fsum(p.den for p in ds))
    return sums, seconds
