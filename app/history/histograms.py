"""How one event's waits were spread (docs/awr-rules.md §24): its latency histogram per interval (the wait counts of
each bucket of powers of two ms, as deltas), the estimated p50/p95/p99 of each interval, and the range's distribution.
"""

from difflib import get_close_matches

from app import analysis
from app.errors import NotFound
from app.history import catalog
from app.history.database import Database, Range
from app.history.intervals import coverage
from app.history.numbers import round4
from app.store.awr import queries

PERCENTILES = (50, 95, 99)


def bucket_label(upper_ms: int) -> str:
    """A bucket as Oracle's V$EVENT_HISTOGRAM names it: "< 4 ms" holds the waits of 2 ms up to 4 ms."""
    return f"< {upper_ms} ms"


def percentile(counts: list[float], uppers: list[int], p: float) -> float | None:
    """The p-th percentile (ms) of waits counted per bucket (`uppers`: each bucket's WAIT_TIME_MILLI, ascending): the
    bucket where the cumulative share reaches p %, interpolated log-linearly inside it, from its lower bound (half its
    upper bound) to its upper bound; linearly from 0 inside the first bucket (< 1 ms), which has no lower bound on a
    log scale (§24)."""
    total = sum(counts)
    if total <= 0:
        return None
    want, before = total * p / 100, 0.0
    for count, upper in zip(counts, uppers, strict=True):
        if count > 0 and before + count >= want:
            f = (want - before) / count
            if upper <= 1:
                return upper * f
            return (upper / 2) * 2**f
        before += count
    return float(uppers[-1])


def _event(db: Database, event: str):
    """The event's EVENT_ID and wait class, from the catalog (404 with the closest names otherwise)."""
    specs = catalog.of(db)
    spec = specs.get(f"system_event:{event}:waits")
    if spec is None:
        names = [
            n[len("system_event:") : -len(":waits")]
            for n in specs
            if n.startswith("system_event:") and n.endswith(":waits")
        ]
        found = get_close_matches(event, names, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(map(repr, found))}?" if found else ""
        raise NotFound(f"unknown wait event {event!r}{hint} (see /api/v1/dbs/{db.key}/top-events)", "event")
    return spec.terms[0].item


def _kept_from(db: Database, rng: Range) -> str | None:
    """Why the range's first intervals have no histogram, where DBA_HIST_EVENT_HISTOGRAM's rows start after the
    range's first snapshot (AWR keeps them for fewer days than the snapshots, or they were purged)."""
    first = next((s for (s,) in db.rows(queries.event_histogram_first(db.store.views), lo=rng.lo, hi=rng.hi)), None)
    if first is None:
        return "DBA_HIST_EVENT_HISTOGRAM holds no row in this range"
    if first <= rng.lo:
        return None
    at = db.timeline().lowest.get(first)
    when = f" ({at.time})" if at else ""
    return (
        f"DBA_HIST_EVENT_HISTOGRAM keeps histograms from snapshot {first}{when} on: the range's intervals before it "
        "have none"
    )


def compute(db: Database, event: str, rng: Range, instance="all") -> dict:
    inst = db.instance(instance)
    event_id = _event(db, event)
    covers = coverage(db, rng, inst)
    per_key: dict = {}  # snap_id of the interval's end -> [Snap, {bucket: count}] summed over instances
    uppers: set = set()
    markers = {}
    if covers["reason"] is None:
        raw = db.rows(queries.event_histogram(db.store.views), item_id=event_id, lo=rng.lo, hi=rng.hi)
        cumulative: dict = {}  # (instance, container, bucket) -> {snap_id: count}
        listed: dict = {}  # (instance, container) -> the snapshots where the event has rows
        for instance_no, con, snap, upper, count in raw:
            cumulative.setdefault((instance_no, con, upper), {})[snap] = count or 0
            listed.setdefault((instance_no, con), set()).add(snap)
        for (instance_no, con, _), values in cumulative.items():
            for snap in listed[(instance_no, con)]:  # a bucket without a wait yet has no row: 0 there (§24)
                values.setdefault(snap, 0)
        tl = db.timeline()
        span = tl.span(rng.lo, rng.hi, inst)
        for (instance_no, _, upper), values in cumulative.items():
            if instance_no not in span:
                continue
            for p in analysis.deltas(values, span[instance_no]):  # the restart rules (§3, §4)
                entry = per_key.setdefault(p.key, [tl.lowest[p.key], {}])
                entry[1][upper] = entry[1].get(upper, 0) + p.num
                uppers.add(upper)
        markers = tl.markers(rng.lo, rng.hi, inst)
        covers["reason"] = _kept_from(db, rng)
    uppers = sorted(uppers)
    buckets = [{"wait_time_milli": u, "label": bucket_label(u)} for u in uppers]
    intervals, totals = [], [0.0] * len(uppers)
    for key in sorted(per_key):
        snap, by_bucket = per_key[key]
        counts = [by_bucket.get(u, 0) for u in uppers]
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        intervals.append(
            {
                "snap_id": key,
                "time": snap.time,
                "counts": [round(c) for c in counts],
                "waits": round(sum(counts)),
                **{f"p{p}_ms": round4(percentile(counts, uppers, p)) for p in PERCENTILES},
            }
        )
    waits = sum(totals)
    distribution = [
        {
            "wait_time_milli": u,
            "label": bucket_label(u),
            "waits": round(c),
            "pct": round4(100 * c / waits) if waits else None,
        }
        for u, c in zip(uppers, totals, strict=True)
    ]
    return {
        "db": db.key,
        "event": event,
        "event_id": event_id,
        "instance": instance,
        "range": rng.public(),
        **covers,
        "buckets": buckets,
        "intervals": intervals,
        "distribution": distribution,
        "waits": round(waits),
        **{f"p{p}_ms": round4(percentile(totals, uppers, p)) for p in PERCENTILES},
        "markers": markers,
    }


def table(body: dict) -> list[dict]:
    """CSV: one row per interval, a column per bucket."""
    labels = [b["label"] for b in body["buckets"]]
    return [
        {
            "time": i["time"],
            "snap_id": i["snap_id"],
            "waits": i["waits"],
            "p50_ms": i["p50_ms"],
            "p95_ms": i["p95_ms"],
            "p99_ms": i["p99_ms"],
            **dict(zip(labels, i["counts"], strict=True)),
        }
        for i in body["intervals"]
    ]
