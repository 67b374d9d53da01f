"""What is normal for a series (docs/awr-rules.md §32): for each hour of a range, the 10th, 50th and 90th percentiles
of the series' hourly values at the same hour of the week in the WEEKS weeks before it, or at the same hour of the day
in an AWR baseline, from the series itself over the range and that reference (series.compute, every point, then one
value per hour)."""

from dataclasses import replace
from datetime import datetime, timedelta
from functools import cache

from app.errors import BadParameter, NotFound
from app.history import baselines
from app.history import series as series_module
from app.history.database import Database, Range
from app.history.numbers import round4

WEEKS = 4
BASELINE_DAYS = 3  # a baseline's band needs the hour in at least this many of its days
WEEK = timedelta(days=7)
HOUR = timedelta(hours=1)


def hourly(times: list[str], values: list) -> dict[datetime, tuple[float, str]]:
    """{local hour: (mean of the series' points in it, the hour's end as ISO 8601 with the offset of its points)}: a
    point (stamped at its interval's end) belongs to the hour its interval ends in, an end on the hour to the hour
    before (an interval ending at 08:00 is 07:00-08:00's). Local time, so the same hour of the week stays the same
    across a change of the offset (docs/awr-rules.md §17). The points' times are ISO 8601 as answers give them
    (YYYY-MM-DDTHH:MM:SS+HH:MM): read by position, a datetime made per hour, not per point."""
    found: dict[tuple[str, bool], list] = {}  # (YYYY-MM-DDTHH, ends on the hour) -> [values, offset]
    for t, v in zip(times, values, strict=True):
        if v is not None:
            found.setdefault((t[:13], t[14:19] == "00:00"), [[], t[19:]])[0].append(v)
    hours: dict[datetime, list] = {}
    for (stamp, on_hour), (vs, offset) in found.items():
        hour = datetime.fromisoformat(stamp + ":00") - (HOUR if on_hour else timedelta(0))
        kept = hours.setdefault(hour, [[], offset])
        kept[0].extend(vs)
        kept[1] = offset  # the later points' offset: the one at the hour's end
    return {
        h: (sum(vs) / len(vs), f"{(h + HOUR).isoformat(timespec='seconds')}{off}") for h, (vs, off) in hours.items()
    }


def band_of(hours: dict, first: datetime, last: datetime, weeks: int = WEEKS) -> dict:
    """The band of each hour from `first` to `last` (local hours, both in) that the series has: its own value there
    (`value`) and the percentiles of its values at the same hour of each of the `weeks` weeks before (all of them
    present, or no band for that hour).
    Percentiles by linear interpolation between the sorted values (_percentiles)."""
    times, value, p10, p50, p90 = [], [], [], [], []
    get, back = hours.get, [k * WEEK for k in range(1, weeks + 1)]
    for hour in sorted(h for h in hours if first <= h <= last):
        before = [get(hour - b) for b in back]
        own, stamp = hours[hour]
        times.append(stamp)
        value.append(round4(own))
        cuts = _percentiles([b[0] for b in before]) if None not in before else (None, None, None)
        p10.append(cuts[0])
        p50.append(cuts[1])
        p90.append(cuts[2])
    return {"weeks": weeks, "times": times, "value": value, "p10": p10, "p50": p50, "p90": p90}


def _percentiles(values: list) -> list:
    """p10, p50, p90 by linear interpolation between the sorted values, the q-th of n at (n − 1) × q (statistics'
    "inclusive" quantiles, §32), written out: a band computes one per hour of a long range."""
    v = sorted(values)
    return [round4(v[k] + (v[k1] - v[k]) * f) for k, k1, f in _positions(len(v))]


@cache
def _positions(n: int) -> tuple:
    """For n sorted values, where p10, p50 and p90 lie: (the value below, the one above, the fraction between)."""
    out = []
    for q in (0.1, 0.5, 0.9):
        x = (n - 1) * q
        k = int(x)
        out.append((k, min(k + 1, n - 1), x - k))
    return tuple(out)


def band_of_baseline(hours: dict, reference: dict, first: datetime, last: datetime) -> dict:
    """The band of each hour from `first` to `last` that the series has: its own value and the percentiles of the
    baseline's values at the same hour of the day (`reference`: hourly() of the baseline's range), where the baseline
    has that hour on BASELINE_DAYS days or more."""
    by_hour: dict[int, list] = {}
    for h, (v, _) in reference.items():
        by_hour.setdefault(h.hour, []).append(v)
    times, value, p10, p50, p90 = [], [], [], [], []
    hour = first
    while hour <= last:
        if hour in hours:
            times.append(hours[hour][1])
            value.append(round4(hours[hour][0]))
            same = by_hour.get(hour.hour, [])
            cuts = _percentiles(same) if len(same) >= BASELINE_DAYS else [None] * 3
            for out, cut in zip((p10, p50, p90), cuts, strict=True):
                out.append(cut)
        hour += HOUR
    return {"times": times, "value": value, "p10": p10, "p50": p50, "p90": p90}


def baseline_range(db: Database, name: str) -> tuple[Range, dict]:
    """The baseline named (as /baselines lists it) as a snapshot range, and its row; NotFound naming the baselines
    there are, BadParameter where its snapshots are no longer in the history."""
    rows = baselines.compute(db)["rows"]
    row = next((r for r in rows if r["name"] == name), None)
    if row is None:
        held = ", ".join(r["name"] for r in rows) or "none"
        raise NotFound(
            f"band_baseline {name!r} is not an AWR baseline of {db.key}; its baselines: {held}", "band_baseline"
        )
    if row["from"] is None or row["to"] is None:
        raise BadParameter(
            f"band_baseline {name!r} holds snapshots {row['begin_snap']} to {row['end_snap']}, which this history no "
            "longer has",
            "band_baseline",
        )
    return Range(row["begin_snap"], row["end_snap"], row["from"], row["to"], True), row


def extended(db: Database, rng: Range, weeks: int = WEEKS) -> Range:
    """The range with the `weeks` weeks before it: from the last snapshot id that ends at or before its first
    instant less that many weeks (the history's first where it is shorter)."""
    tl = db.timeline()
    first = min((s for s in tl.by_id.values() if s.snap_id == rng.lo), key=lambda s: s.epoch, default=None)
    if first is None:
        return rng
    reach = first.epoch - weeks * WEEK.total_seconds()
    before = [s.snap_id for s in tl.by_id.values() if s.epoch <= reach]
    return replace(rng, lo=max(before) if before else tl.snap_ids[0])


def add_bands(db: Database, body: dict, names, rng: Range, instance: str, rate: str, baseline: str | None = None):
    """series.compute's answer with each series' normal band (`band`) over the range's hours, against the 4 weeks
    before or the AWR baseline named, and why hours have none (`band.reason`)."""
    reference = baseline_range(db, baseline) if baseline else None
    if rng.lo is None or not body["series"]:
        return body
    whole = extended(db, rng) if reference is None else rng
    wide = series_module.compute(db, names, whole, instance, rate, max_points=0, hours=True)
    if reference is not None:
        ref = series_module.compute(db, names, reference[0], instance, rate, max_points=0, hours=True)
        ref_by_key = {(s["name"], s["instance"]): s for s in ref["series"]}
    start, end = db.timeline().lowest.get(rng.lo), db.timeline().lowest.get(rng.hi)
    if start is None or end is None:
        return body
    first = datetime.fromisoformat(start.time).replace(tzinfo=None).replace(minute=0, second=0, microsecond=0)
    last = datetime.fromisoformat(end.time).replace(tzinfo=None) - timedelta(microseconds=1)
    last = last.replace(minute=0, second=0, microsecond=0)
    history = min(db.timeline().by_id.values(), key=lambda s: s.epoch).time
    by_key = {(s["name"], s["instance"]): s for s in wide["series"]}
    for s in body["series"]:
        if s["kind"] == "detail":  # per-minute history is kept for days, not weeks
            continue
        w = by_key.get((s["name"], s["instance"]))
        own = hourly(*w["points"]) if w else {}
        if reference is None:
            band = band_of(own, first, last)
            why = f"a band needs the same hour in each of the {WEEKS} weeks before, and the history starts at {history}"
        else:
            r = ref_by_key.get((s["name"], s["instance"]))
            band = band_of_baseline(own, hourly(*r["points"]) if r else {}, first, last)
            row = reference[1]
            band["baseline"] = {k: row[k] for k in ("name", "begin_snap", "end_snap", "from", "to")}
            why = (
                f"a band needs the same hour of the day on {BASELINE_DAYS} days or more of baseline {row['name']} "
                f"({row['from']} to {row['to']})"
            )
        missing = sum(v is None for v in band["p50"])
        band["reason"] = None if not missing else f"{missing} of {len(band['p50'])} hours have no band: {why}"
        s["band"] = band
    return body
