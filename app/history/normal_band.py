"""What is normal for a series (docs/awr-rules.md §32): for each hour of a range, the 10th, 50th and 90th percentiles
of the series' hourly values at the same hour of the week in the WEEKS weeks before it, from the series itself over
the range and those weeks (series.compute, every point, then one value per hour)."""

from dataclasses import replace
from datetime import datetime, timedelta
from statistics import quantiles

from app.history import series as series_module
from app.history.database import Database, Range
from app.history.numbers import round4

WEEKS = 4
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
    Percentiles by linear interpolation between the sorted values (statistics.quantiles, method "inclusive")."""
    times, value, p10, p50, p90 = [], [], [], [], []
    hour = first
    while hour <= last:
        if hour in hours:
            before = [hours.get(hour - k * WEEK) for k in range(1, weeks + 1)]
            times.append(hours[hour][1])
            value.append(round4(hours[hour][0]))
            cuts = quantiles([b[0] for b in before], n=10, method="inclusive") if None not in before else None
            for out, k in ((p10, 0), (p50, 4), (p90, 8)):
                out.append(round4(cuts[k]) if cuts else None)
        hour += HOUR
    return {"weeks": weeks, "times": times, "value": value, "p10": p10, "p50": p50, "p90": p90}


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


def add_bands(db: Database, body: dict, names, rng: Range, instance: str, rate: str) -> dict:
    """series.compute's answer with each series' normal band (`band`) over the range's hours, and why hours have
    none (`band.reason`)."""
    if rng.lo is None or not body["series"]:
        return body
    wide = series_module.compute(db, names, extended(db, rng), instance, rate, max_points=0)
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
        band = band_of(hourly(*w["points"]) if w else {}, first, last)
        missing = sum(v is None for v in band["p50"])
        band["reason"] = (
            None
            if not missing
            else f"{missing} of {len(band['p50'])} hours have no band: a band needs the same hour in each of the "
            f"{WEEKS} weeks before, and the history starts at {history}"
        )
        s["band"] = band
    return body
