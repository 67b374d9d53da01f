"""The AWR analysis rules, in one place (docs/awr-rules.md §3-§11).

- Deltas per (dbid, instance, statistic), only between snapshots of the same STARTUP_TIME: an interval that
  spans a restart is dropped and marked, never charted as a negative or giant rate.
- Interval seconds come from consecutive END_INTERVAL_TIMEs, so missing snapshots are safe.
- A snapshot taken less than `min_interval` seconds after the previous kept one (a manual snapshot) is merged
  into the next interval instead of giving a noisy point of its own.
- Rates per second, per transaction or raw; RAC: per instance first, then combine by snap_id: sum counters and
  rates, ratio of sums for percentages and latencies.
- Point-in-time readings are never turned into deltas.
- A range longer than the points drawn is read in buckets: boundaries chosen from the timeline, sums of deltas and
  means of readings between them (docs/awr-rules.md §21).
Everything here is pure: plain values in, plain values out.
"""

import itertools
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from math import floor, fsum, inf
from operator import itemgetter
from typing import NamedTuple

from app import iso8601


@dataclass(frozen=True, slots=True)
class Snap:
    snap_id: int
    instance: int
    startup: datetime  # STARTUP_TIME, database-local (naive: compared often)
    end: datetime  # END_INTERVAL_TIME, database-local
    epoch: float  # the same instant, seconds since 1970 UTC
    time: str  # ISO 8601 with the database's offset
    flag: int = 0
    startup_time: str = ""  # STARTUP_TIME as ISO 8601 with the offset
    # whether the interval ending here is known: false where BEGIN_INTERVAL_TIME is END_INTERVAL_TIME, the first
    # snapshot of a run of imported reports (docs/awr-rules.md §35), which nothing before it reports
    reported: bool = True

    def continues(self, prev: "Snap") -> bool:
        """Whether the interval from `prev` to this snapshot can be measured: no restart between them (§4) and not
        unreported (§35)."""
        return self.startup == prev.startup and self.reported


def make_snap(snap_id, instance, startup, end, flag=0, tz_seconds=0.0, begin=None) -> Snap:
    """A snapshot from its row; `begin` (BEGIN_INTERVAL_TIME as read, like `end`), given for a store of imported
    reports, says whether its interval is reported (Snap.reported)."""
    reported = not begin or begin != end
    startup, end = as_datetime(startup), as_datetime(end)
    tz = timezone(timedelta(seconds=tz_seconds))
    local = end.replace(tzinfo=tz)
    return Snap(
        snap_id,
        instance,
        startup,
        end,
        local.timestamp(),
        iso(local),
        int(flag or 0),
        iso(startup.replace(tzinfo=tz)),
        reported,
    )


def as_datetime(value) -> datetime:
    """Oracle hands back datetimes, SQLite ISO text."""
    return value if isinstance(value, datetime) else iso8601.parse(value)


iso = iso8601.text


class Point(NamedTuple):
    """One value of one instance: num / den, at a snapshot (or a minute). A tuple: thousands per answer."""

    key: int  # snap_id, or epoch second for per-minute detail
    epoch: float
    time: str
    num: float
    den: float = 1.0


_point = tuple.__new__  # _point(Point, (key, epoch, time, num, den)): a quarter of the cost of Point(...) in hot loops
_epoch = itemgetter(1)  # a Point's epoch
HOUR_ENDS_KEPT = 16  # spans whose hourly boundaries a timeline keeps (Timeline.hour_ends)
GAP_STEPS = 1.5  # an interval longer than this many steps is a gap (docs/awr-rules.md §5)


class Timeline:
    """The snapshots of one database per instance, with short intervals merged and restarts found."""

    def __init__(self, snaps, min_interval: float = 300.0):
        self.all: dict[int, list[Snap]] = {}
        for s in sorted(snaps, key=lambda s: (s.instance, s.snap_id)):
            self.all.setdefault(s.instance, []).append(s)
        self.kept: dict[int, list[Snap]] = {}
        self.merged: list[Snap] = []
        self._hour_ends: dict[tuple, dict] = {}  # hour_ends of a span
        for inst, rows in self.all.items():
            kept = []
            for s in rows:
                prev = kept[-1] if kept else None
                if prev and s.continues(prev) and s.epoch - prev.epoch < min_interval:
                    self.merged.append(s)  # its work is counted in the next kept interval
                    continue
                kept.append(s)
            self.kept[inst] = kept
        self.instances = sorted(self.all)
        ids = sorted({s.snap_id for rows in self.all.values() for s in rows})
        self.snap_ids = ids
        self.by_id = {(s.instance, s.snap_id): s for rows in self.all.values() for s in rows}
        self.lowest = {}  # snap_id -> the lowest-numbered instance's snapshot: when a database-wide row is timed
        for (_, snap_id), s in sorted(self.by_id.items()):
            self.lowest.setdefault(snap_id, s)
        steps = sorted(b.epoch - a.epoch for rows in self.kept.values() for a, b in itertools.pairwise(rows))
        self.step = steps[len(steps) // 2] if steps else 3600.0
        self._kept_ids = {inst: [s.snap_id for s in rows] for inst, rows in self.kept.items()}
        self._all_ids = {inst: [s.snap_id for s in rows] for inst, rows in self.all.items()}
        # every snapshot of every instance, in snap_id order and in time order, for ranges found by bisection
        by_id = sorted(self.by_id.values(), key=lambda s: (s.snap_id, s.epoch))
        self._id_order = ([s.snap_id for s in by_id], [s.epoch for s in by_id])
        by_time = sorted(by_id, key=lambda s: (s.epoch, s.snap_id))
        # a time range finds its snapshots at the second the answers give their times at (iso8601.text), so that a
        # time answered names its snapshot where the store keeps fractions (Oracle ms, imported reports µs: §12)
        self._time_order = ([floor(s.epoch) for s in by_time], [s.snap_id for s in by_time])
        self._events = []  # (instance, snap_id of the later snapshot, kind, marker): found once, filtered per request
        for inst, rows in self.kept.items():
            for a, b in itertools.pairwise(rows):
                if b.startup != a.startup:
                    self._events.append(
                        (
                            inst,
                            a.snap_id,
                            b.snap_id,
                            "restarts",
                            {"instance": inst, "snap_id": b.snap_id, "time": b.time, "startup_time": b.startup_time},
                        )
                    )
                if b.epoch - a.epoch > GAP_STEPS * self.step or (b.startup == a.startup and not b.reported):
                    self._events.append(
                        (
                            inst,
                            a.snap_id,
                            b.snap_id,
                            "missing",
                            {
                                "instance": inst,
                                "after_snap_id": a.snap_id,
                                "before_snap_id": b.snap_id,
                                "from": a.time,
                                "to": b.time,
                                "seconds": round(b.epoch - a.epoch),
                            },
                        )
                    )
        for m in self.merged:
            self._events.append(
                (
                    m.instance,
                    m.snap_id,
                    m.snap_id,
                    "merged_snapshots",
                    {"instance": m.instance, "snap_id": m.snap_id, "time": m.time},
                )
            )

    def newest(self) -> Snap | None:
        return max((rows[-1] for rows in self.all.values() if rows), key=lambda s: s.epoch, default=None)

    def oldest(self) -> Snap | None:
        return min((rows[0] for rows in self.all.values() if rows), key=lambda s: s.epoch, default=None)

    def with_ids(self, lo: int, hi: int) -> tuple[int, int, float, float] | None:
        """The snapshots with lo <= snap_id <= hi: their first and last snap_id and end time (epoch), or None."""
        ids, epochs = self._id_order
        i, j = bisect_left(ids, lo), bisect_right(ids, hi)
        return (ids[i], ids[j - 1], min(epochs[i:j]), max(epochs[i:j])) if i < j else None

    def ending_in(self, t0: float, t1: float) -> tuple[int, int] | None:
        """The smallest and largest snap_id of the snapshots that end in [t0, t1], or None if none does."""
        epochs, ids = self._time_order
        found = ids[bisect_left(epochs, t0) : bisect_right(epochs, t1)]
        return (min(found), max(found)) if found else None

    def ending_after(self, t0: float, t1: float) -> tuple[int, int] | None:
        """The snapshots that bound the intervals ending in (t0, t1] (docs/awr-rules.md §12): the last snapshot that
        ends at or before t0 (the first in [t0, t1] when none does) and the largest snap_id ending in [t0, t1]; None
        if no snapshot ends in [t0, t1]."""
        found = self.ending_in(t0, t1)
        if found is None:
            return None
        epochs, ids = self._time_order
        i = bisect_left(epochs, t0)
        if i == 0 or epochs[i] == t0:  # nothing before t0, or a snapshot at t0: the range starts there
            return found
        return min(ids[i - 1], found[0]), found[1]

    def holding(self, t0: float, t1: float) -> tuple[int, int] | None:
        """The snapshots whose intervals (lo, hi] hold the time window (t0, t1] on every instance: lo the smallest, over
        the instances, of the last snapshot ending at or before t0 (one before the first where none does), hi the
        largest of the first snapshot ending at or after t1 (the last where none does); None where the window starts at
        or after the last snapshot (no samples flushed yet)."""
        los, his = [], []
        for rows in self.all.values():
            epochs = [s.epoch for s in rows]
            i, j = bisect_right(epochs, t0), bisect_left(epochs, t1)
            los.append(rows[i - 1].snap_id if i else rows[0].snap_id - 1)
            his.append(rows[min(j, len(rows) - 1)].snap_id)
        if not los or t0 >= self.newest().epoch:
            return None
        return min(los), max(his)

    def span(self, lo: int, hi: int, instance: int | None = None) -> dict[int, list[Snap]]:
        """Per instance, the snapshots that bound the intervals (lo, hi] (docs/awr-rules.md §12): its first snapshot
        at or after lo, the kept ones after it, and its last snapshot at or before hi. The two ends are used even
        when they would be merged (§6): a range from or to a manual snapshot starts or ends there."""
        out = {}
        for inst, rows in self.all.items():
            if instance is not None and inst != instance:
                continue
            ids = self._all_ids[inst]
            first, last = bisect_left(ids, lo), bisect_right(ids, hi) - 1
            if first > last:
                out[inst] = []
                continue
            kept = self._kept_ids[inst]
            middle = self.kept[inst][bisect_right(kept, ids[first]) : bisect_left(kept, ids[last])]
            out[inst] = [rows[first], *middle, rows[last]] if first < last else [rows[first]]
        return out

    def between(self, lo: int, hi: int, instance: int | None = None) -> dict[int, list[Snap]]:
        """Per instance, every snapshot of [lo, hi], merged ones too: where readings and Oracle's rates are read
        (docs/awr-rules.md §8, §9, §12), as span() gives the instances."""
        out = {}
        for inst, rows in self.all.items():
            if instance is None or inst == instance:
                ids = self._all_ids[inst]
                out[inst] = rows[bisect_left(ids, lo) : bisect_right(ids, hi)]
        return out

    def sampled(self, span: dict[int, list[Snap]], n: int) -> dict[int, list[Snap]] | None:
        """A long range's bucket boundaries (docs/awr-rules.md §21): None when no instance of `span` (Timeline.span)
        has more than `n` intervals; otherwise, per instance, its snapshots of `span` among at most `n` snap_ids
        shared by every instance: each one's first and last, those on either side of each of its restarts and gaps,
        and, for the rest, the last snapshot at or before each of equal steps of the range's time."""
        if n < 3 or all(len(rows) <= n + 1 for rows in span.values()):
            return None
        keep = set().union(*(sides(rows, GAP_STEPS * self.step) for rows in span.values()))
        ends: dict[int, float] = {}  # snap_id -> its earliest end among the instances
        for rows in span.values():
            for s in rows:
                if s.epoch < ends.get(s.snap_id, inf):
                    ends[s.snap_id] = s.epoch
        order = sorted((epoch, snap_id) for snap_id, epoch in ends.items())
        epochs = [epoch for epoch, _ in order]
        steps = n + 1 - len(keep)
        for k in range(1, steps):
            keep.add(order[bisect_right(epochs, epochs[0] + (epochs[-1] - epochs[0]) * k / steps) - 1][1])
        return {inst: [s for s in rows if s.snap_id in keep] for inst, rows in span.items()}

    def hour_ends(self, lo: int, hi: int, instance: int | None = None) -> dict[int, list[Snap]]:
        """Hourly bucket boundaries (docs/awr-rules.md §32): per instance, its snapshots of the span (lo, hi]
        (Timeline.span) among the snap_ids that end a local hour (the last whose earliest instance's end falls in
        each hour; an end on the hour is the hour before's), with each one's first and last and those on either side
        of its restarts and gaps, so that a bucket holds the intervals ending in one hour. Kept per span: a band asks
        the same span for each of its charts."""
        key = (lo, hi, instance)
        if key not in self._hour_ends:
            if len(self._hour_ends) >= HOUR_ENDS_KEPT:
                del self._hour_ends[next(iter(self._hour_ends))]  # the oldest span asked
            self._hour_ends[key] = self._hour_ends_of(self.span(lo, hi, instance))
        return self._hour_ends[key]

    def _hour_ends_of(self, span: dict[int, list[Snap]]) -> dict[int, list[Snap]]:
        keep = set().union(*(sides(rows, GAP_STEPS * self.step) for rows in span.values()))
        earliest: dict[int, Snap] = {}
        for rows in span.values():
            for s in rows:
                if s.snap_id not in earliest or s.epoch < earliest[s.snap_id].epoch:
                    earliest[s.snap_id] = s

        def hour(s: Snap) -> int:  # the local hour the end falls in, as a count of hours; on the hour: the one before
            e = s.end
            return e.toordinal() * 24 + e.hour - (not (e.minute or e.second or e.microsecond))

        order = sorted(earliest.values(), key=lambda s: s.epoch)
        keep.update(a.snap_id for a, b in itertools.pairwise(order) if hour(a) != hour(b))
        return {inst: [s for s in rows if s.snap_id in keep] for inst, rows in span.items()}

    def markers(self, lo: int, hi: int, instance: int | None = None) -> dict:
        """Restarts, missing snapshots and merged manual snapshots inside [lo, hi]: restarts and gaps whose
        later snapshot is in the range (the interval ending there is the one affected), snapshots merged inside it."""
        out = {"restarts": [], "missing": [], "merged_snapshots": []}
        for inst, _, later, kind, marker in self._events:
            if lo <= later <= hi and (instance is None or inst == instance):
                if kind == "merged_snapshots" and later in (lo, hi):
                    continue  # the range's own end: not merged in this answer (span)
                out[kind].append(marker)
        return out


def sides(rows: list[Snap], gap: float = inf) -> set[int]:
    """The snap_ids of one instance's first and last snapshot of `rows` and of those on either side of each restart
    and of each interval longer than `gap` seconds: sums of deltas between them telescope (§3-§5)."""
    if not rows:
        return set()
    out = {rows[0].snap_id, rows[-1].snap_id}
    for a, b in itertools.pairwise(rows):
        if not b.continues(a) or b.epoch - a.epoch > gap:
            out.update((a.snap_id, b.snap_id))
    return out


def deltas(values: dict[int, float], snaps: list[Snap]) -> list[Point]:
    """A point (num = delta, den = seconds) for each valid interval of one instance's cumulative counter.

    `values` maps snap_id -> cumulative value; `snaps` are that instance's kept snapshots in order.
    An interval is valid when both ends have a value and the same STARTUP_TIME and the counter did not
    go backwards (which only a restart can explain).
    """
    out, get = [], values.get
    prev = prev_v = None
    for s in snaps:
        v = get(s.snap_id)
        if v is None:
            continue
        if prev is not None and prev.startup == s.startup and s.reported and v >= prev_v:
            out.append(_point(Point, (s.snap_id, s.epoch, s.time, v - prev_v, s.epoch - prev.epoch)))
        prev, prev_v = s, v
    return out


def counter_rates(values: dict[int, float], snaps: list[Snap], scale: float = 1.0) -> tuple[list, list]:
    """One instance's counter per second as columns, (times, rates): the values num / den x scale of deltas()'s
    points, in one pass and without the points (a full-resolution series has thousands, docs/awr-rules.md §3-§5)."""
    times, out = [], []
    add_time, add = times.append, out.append
    get = values.get
    prev = prev_v = None
    for s in snaps:
        v = get(s.snap_id)
        if v is None:
            continue
        if prev is not None and prev.startup == s.startup and s.reported and v >= prev_v:
            add_time(s.time)
            add((v - prev_v) / (s.epoch - prev.epoch) * scale)
        prev, prev_v = s, v
    return times, out


def counter_points(values, snaps, rate: str, txn: dict | None = None) -> list[Point]:
    """Points of one instance's counter as a rate: per_second (num/sec), raw (num), per_txn (num/txn)."""
    valid = deltas(values, snaps)
    if rate == "per_second":
        return valid
    if rate == "raw":
        return [p._replace(den=1.0) for p in valid]
    txn = txn or {}
    return [p._replace(den=txn[p.key]) for p in valid if txn.get(p.key)]


def reading_points(values: dict[int, float], snaps: list[Snap]) -> list[Point]:
    """Points of a point-in-time reading (or an already-computed rate): the value as read."""
    return [Point(s.snap_id, s.epoch, s.time, values[s.snap_id]) for s in snaps if values.get(s.snap_id) is not None]


def bucket_means(sums: dict[int, tuple[float, float]], snaps: list[Snap], first: int = 0) -> list[Point]:
    """Points of a reading or an Oracle rate over buckets (docs/awr-rules.md §21). `sums` maps snap_id -> the running
    sums (value x weight, weight) of the instance's rows since the range's first snapshot; `snaps` are its bucket
    boundaries. The point at a boundary is the weighted mean of the rows after the previous boundary up to it (num,
    den: the sums' differences); the first boundary's is its own row, or none with first=1 (an Oracle rate there
    covers the interval before the range, §12). No restart check: neither depends on the previous snapshot (§4)."""
    out, prev_num, prev_den = [], 0.0, 0.0
    for k, s in enumerate(snaps):
        got = sums.get(s.snap_id)
        if got is None:
            continue
        num, den = got
        if k >= first and den > prev_den:
            out.append(_point(Point, (s.snap_id, s.epoch, s.time, num - prev_num, den - prev_den)))
        prev_num, prev_den = num, den
    return out


def interval_deltas(values, snaps) -> dict[int, float]:
    """snap_id -> delta over the valid interval ending there (used as the per-transaction denominator)."""
    return {p.key: p.num for p in deltas(values, snaps)}


def add_counters(*per_snap: dict[int, float]) -> dict[int, float]:
    """Sum of several cumulative counters, at the snapshots where all of them have a value."""
    if len(per_snap) < 2:
        return per_snap[0] if per_snap else {}
    keys = set(per_snap[0]).intersection(*per_snap[1:])
    return {k: fsum(d[k] for d in per_snap) for k in keys}


def ratio_points(num: dict[int, float], den: dict[int, float], snaps, scale=1.0) -> list[Point]:
    """Points of delta(num) / delta(den) * scale over the same valid intervals (percentages, latencies)."""
    dd = interval_deltas(den, snaps)
    return [Point(p.key, p.epoch, p.time, p.num * scale, dd[p.key]) for p in deltas(num, snaps) if dd.get(p.key)]


def combine(per_instance: dict[int, list[Point]], how: str) -> list[Point]:
    """RAC: one point per key from every instance's points at that key.

    sum_of_ratios: rates and counters (each instance's num/den, summed);
    ratio_of_sums: percentages, latencies, per-transaction values (sum nums / sum dens);
    mean: readings that do not add up (ratios reported by Oracle itself).
    An instance without a point at a key (down, or an interval across its restart) adds nothing.
    """
    groups: dict[int, list[Point]] = {}
    for points in per_instance.values():
        for p in points:
            ps = groups.get(p.key)  # (not setdefault: it would build a list per point)
            if ps is None:
                groups[p.key] = [p]
            else:
                ps.append(p)
    out = []
    for key in sorted(groups):
        ps = groups[key]
        if len(ps) == 1:  # one instance's point: a sum, ratio of sums or mean of one is its own num / den
            _, epoch, time, num, den = ps[0]
            if den or how != "ratio_of_sums":
                out.append(_point(Point, (key, epoch, time, num / den, 1.0)))
            continue
        if len(ps) == 2:  # two instances (the commonest RAC): a two-term sum is exactly rounded as fsum's
            (_, e1, t1, n1, d1), (_, e2, t2, n2, d2) = ps
            if how == "ratio_of_sums":
                if not d1 + d2:
                    continue
                value = (n1 + n2) / (d1 + d2)
            else:
                value = n1 / d1 + n2 / d2
                value = value / 2 if how == "mean" else value
            out.append(_point(Point, (key, e1, t1, value, 1.0) if e1 <= e2 else (key, e2, t2, value, 1.0)))
            continue
        first = min(ps, key=_epoch)
        if how == "ratio_of_sums":
            den = fsum(p.den for p in ps)
            if not den:
                continue
            value = fsum(p.num for p in ps) / den
        elif how == "mean":
            value = fsum(p.num / p.den for p in ps) / len(ps)
        else:
            value = fsum(p.num / p.den for p in ps)
        out.append(_point(Point, (key, first.epoch, first.time, value, 1.0)))
    return out


def absent(per_instance: dict[int, list[Point]], expected) -> dict[int, list[int]]:
    """key -> the expected instances that have no point there, where any are missing: the combined point at that
    key sums (or averages) fewer instances than the range holds (docs/awr-rules.md §11)."""
    keys = {inst: {p.key for p in points} for inst, points in per_instance.items()}
    every = set().union(*keys.values())
    out: dict[int, list[int]] = {}
    for inst in sorted(set(expected)):
        for key in every - keys.get(inst, set()):
            out.setdefault(key, []).append(inst)
    return out


def values_of(points: list[Point], scale: float = 1.0) -> list[tuple[str, float, float]]:
    """(time, epoch, value) triples."""
    return [(time, epoch, num / den * scale) for _, epoch, time, num, den in points]


def lttb(points: list[tuple], threshold: int) -> list[tuple]:
    """Largest-Triangle-Three-Buckets downsampling of (time, x, y) points: keeps peaks and shape. The first and last
    points, and from each of threshold - 2 buckets the point making the largest triangle with the point kept before
    it and the average of the next bucket (the first such point on a tie; docs/awr-rules.md §19)."""
    n = len(points)
    if n <= threshold or threshold < 3:  # 0 asks for every point (max_points=0); 1 or 2 cannot keep both ends
        return points
    xs, ys = [p[1] for p in points], [p[2] for p in points]
    every = (n - 2) / (threshold - 2)  # over 1: each bucket holds a point
    if min(ys) == max(ys):  # flat (a tablespace's size): every triangle is empty, each bucket keeps its first point
        return [points[0], *(points[int(i * every) + 1] for i in range(threshold - 2)), points[-1]]
    out, a = [points[0]], 0
    for i in range(threshold - 2):
        start, end = int(i * every) + 1, int((i + 1) * every) + 1
        if end - start == 1:  # one point in the bucket: it is the bucket's largest triangle (a range barely thinned)
            a = start
            out.append(points[a])
            continue
        after = min(int((i + 2) * every) + 1, n)  # the next bucket; the last point for the last bucket
        avg_x, avg_y = fsum(xs[end:after]) / (after - end), fsum(ys[end:after]) / (after - end)
        ax, ay = xs[a], ys[a]
        areas = [abs((ax - avg_x) * (ys[j] - ay) - (ax - xs[j]) * (avg_y - ay)) for j in range(start, end)]
        a = start + areas.index(max(areas))
        out.append(points[a])
    out.append(points[-1])
    return out
