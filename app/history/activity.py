"""Top activity from Active Session History (DBA_HIST_ACTIVE_SESS_HISTORY): average active sessions over time by a
dimension, the top lists of the range and the blocking sessions (docs/awr-rules.md §22). The database groups the
samples by bucket and dimension: a wide range never fetches raw samples. The embedded demo store also keeps totals
per minute and half hour by wait class, event and SQL_ID (embedded.ash.ASH_TOTALS), which answer the same question
without reading the samples, where the buckets are whole minutes or half hours from the range's start and nothing but
the instance is filtered; and counts per block of snapshots of the top lists (embedded.ash.ASH_TOP)."""

import calendar
from bisect import bisect_left
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from statistics import median
from typing import NamedTuple

from app import analysis
from app.errors import BadParameter
from app.history import live_buffer, names
from app.history.database import Database, Range, offset
from app.history.intervals import totals
from app.history.numbers import round4
from app.store.awr import queries
from app.store.awr.embedded.ash import (
    ASH_TOP_LISTS,
    ASH_TOP_SPANS,
    ASH_TOTAL_DIMENSIONS,
    ASH_TOTAL_PERIODS,
    ash_top_blocks,
)
from app.store.awr.queries import CPU, TOP_LISTS

WIDTHS = (10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400)  # bucket seconds
MAX_BUCKETS = 720
DEFAULT_SPACING = 10  # seconds between the samples AWR keeps, when the data cannot tell
TOP_GROUPS = 10
UNSAMPLED_DB_TIME = 60  # seconds of DB time before the first samples kept that say ASH was not kept (6 samples)
OTHER = "other"
SHARE_SNAPSHOTS = 12  # snapshots whose samples tell whether most of a range's pass a filter
MANY_GROUPS = ("session", "sql_id", "current_obj")  # top lists of thousands of groups (embedded.ash.ASH_TOP counts)
NUMERIC = {"sql_plan_hash_value", "service", "user", "instance", "current_obj"}
SESSIONS = ("session", "blocking_session")  # dimensions of a session: instance:sid,serial#
CONTAINED = ("user", "current_obj")  # (CON_DBID, id): in a CDB root, con_dbid:id (queries.ash._container)
# the group of the samples without a value (NULL) of a dimension, as the answers name it (`label`); the samples on CPU
# have their wait class and event named CPU, and every sample has an instance and a session
NULL_GROUPS = {
    "sql_id": "no SQL",
    "top_level_sql_id": "no SQL",
    "sql_plan_hash_value": "no plan",
    "module": "no module",
    "action": "no action",
    "program": "no program",
    "service": "no service",
    "user": "no user",
    "session": "no session",
    "machine": "no machine",
    "blocking_session": "not blocked",
    "current_obj": "no object",
}


def width_for(seconds: float) -> int:
    """The narrowest bucket that gives at most MAX_BUCKETS buckets over `seconds`."""
    return next((w for w in WIDTHS if seconds / w <= MAX_BUCKETS), WIDTHS[-1])


def filter_binds(filters: dict, dbid: int) -> dict:
    """The bind values of the filters ({dimension: text}), checked: numbers where the column is one, a session or a
    blocking session as instance:sid,serial#."""
    binds = {}
    for name, value in filters.items():
        if value is None:  # the samples without a value (NULL_GROUPS): every column of the dimension null
            binds.update(
                {f"f_{name}_{k}": None for k in range(3 if name in SESSIONS else 2 if name in CONTAINED else 1)}
            )
            continue
        parts = [value]
        if name in SESSIONS:
            inst, _, rest = value.partition(":")
            sid, _, serial = rest.partition(",")
            parts = [inst, sid, serial]
        elif name in CONTAINED:  # an id alone is the database's own container's (a non-CDB's: every one)
            con, _, ident = value.rpartition(":")
            parts = [con or str(dbid), ident]
        if name in NUMERIC or name in SESSIONS:
            if not all(p.strip().lstrip("-").isdigit() and p.isascii() for p in parts):
                raise BadParameter(
                    f"{name} must be "
                    + ("instance:sid,serial# (e.g. 1:1802,4127)" if name in SESSIONS else "a whole number")
                    + f", got {value!r}",
                    name,
                )
            parts = [int(p) for p in parts]
            if not all(-(2**63) <= p < 2**63 for p in parts):  # the columns' range (SQLite INTEGER; Oracle's ids)
                raise BadParameter(f"{name} is out of range, got {value!r}", name)
        binds.update({f"f_{name}_{k}": p for k, p in enumerate(parts)})
    return binds


def label(name, key: tuple, dbid: int):
    """A group's name as the answer gives it: a session or a blocking session is instance:sid,serial#; a user or an
    object its id, con_dbid:id in another container than the database's own (a PDB's, in a CDB root); null is
    None."""
    if name in SESSIONS:
        return None if key[1] is None else f"{key[0]}:{key[1]},{key[2]}"
    if name in CONTAINED:
        return key[1] if key[0] in (None, dbid) or key[1] is None else f"{key[0]}:{key[1]}"
    return key[0]


def named(dimension: str, name):
    """A group as a DBA reads it (`label`, as text): its name (display_names), else its id, or for the samples without
    a value the group's name (NULL_GROUPS); `other` and CPU as they are."""
    return NULL_GROUPS.get(dimension, "none") if name is None else name


NAMED = ("current_obj", "user", "service")  # dimensions of ids the views name (app/history/names.py)


def display_names(db: Database, dimension: str, groups) -> dict:
    """{group: its name} of the groups of a dimension of ids (NAMED) that the views name, each group as `label` gives
    it (an id, or con_dbid:id in another container): an object OWNER.NAME, a user its USERNAME, a service its name."""
    if dimension not in NAMED:
        return {}
    keys = {}
    for g in groups:
        if g is None or g == OTHER:
            continue
        if dimension in CONTAINED:
            con, _, ident = str(g).rpartition(":")
            keys[g] = (int(con) if con else db.dbid, int(ident))
        else:
            keys[g] = g
    if dimension == "current_obj":
        found = {k: v["name"] for k, v in names.objects(db, keys.values()).items()}
    elif dimension == "user":
        found = names.users(db, keys.values())
    else:
        found = names.services(db, keys.values())
    return {g: found[k] for g, k in keys.items() if k in found}


class Sampled(NamedTuple):
    """What ASH reads for a range (sampled_range): the snapshots (lo, hi] read (none for the live buffer), the range's
    first instant as a Snap, its seconds, whether samples are chosen by SAMPLE_TIME, and whether from the live
    buffer (GV$ACTIVE_SESSION_HISTORY, docs/awr-rules.md §30)."""

    read: Range
    first: analysis.Snap
    seconds: float
    by_time: bool
    live: bool = False


def _window(db: Database, rng: Range):
    """The range's first instant (the earliest instance's snapshot `lo`, local, naive) and its seconds."""
    tl = db.timeline()
    lo = [s for s in (tl.by_id.get((i, rng.lo)) for i in tl.instances) if s]
    hi = [s for s in (tl.by_id.get((i, rng.hi)) for i in tl.instances) if s]
    first, last = min(lo, key=lambda s: s.epoch), max(hi, key=lambda s: s.epoch)
    return first, last.epoch - first.epoch


def sampled_range(db: Database, rng: Range):
    """What ASH reads for a range (docs/awr-rules.md §22): (the snapshots (lo, hi] read, the range's first instant as a
    Snap, its seconds, by sample time), or None where it holds no samples. A snapshot range, or a time range that
    starts and ends on snapshots, runs from the earliest instance's begin_snap to the latest one's end_snap; any other
    time range runs from its `from` to its `to`, over the snapshots whose intervals hold it, its samples chosen by
    SAMPLE_TIME (by sample time: True)."""
    if rng.live is not None:  # the live buffer: a window of sample times, no snapshot
        w0, w1 = rng.window
        start = analysis.as_datetime(rng.start)
        shift = start.utcoffset().total_seconds()
        first = analysis.make_snap(
            0, db.timeline().instances[0], start.replace(tzinfo=None), start.replace(tzinfo=None), tz_seconds=shift
        )
        return Sampled(rng, first, w1 - w0, True, True)
    if rng.lo is not None and rng.lo < rng.hi:
        first, seconds = _window(db, rng)
        w = rng.window
        if w is None or (abs(first.epoch - w[0]) < 1 and abs(first.epoch + seconds - w[1]) < 1):
            return Sampled(rng, first, seconds, False)
    if rng.window is None:
        return None
    w0, w1 = rng.window
    held = db.timeline().holding(w0, w1)
    if held is None or w1 <= w0:
        return None
    shift = _offset_at(sorted((s.epoch, offset(s)) for s in db.timeline().by_id.values()), w0)
    start = datetime.fromtimestamp(w0, timezone(timedelta(seconds=shift))).replace(tzinfo=None)
    first = analysis.make_snap(held[0], db.timeline().instances[0], start, start, tz_seconds=shift)
    return Sampled(replace(rng, lo=held[0], hi=held[1]), first, w1 - w0, True)


def public_range(rng: Range, read: Range) -> dict:
    """The range as an answer gives it: the time range asked, and the snapshots whose samples were read."""
    return {**rng.public(), "begin_snap": read.lo, "end_snap": read.hi}


def spacing(db: Database, rng: Range) -> float:
    """Seconds between kept samples, from the data of the range's last interval: per instance, the smallest step
    between SAMPLE_IDs x the seconds per SAMPLE_ID (first to last sample); the median over instances, to the second
    (DEFAULT_SPACING where no instance has two samples). The live buffer's: live_buffer.SPACING."""
    if rng.live is not None:
        return live_buffer.SPACING
    found = []
    for _, step, id0, id1, first, last in db.rows(queries.sample_spacing(db.store.views), snap_id=rng.hi):
        if step and id1 > id0:
            span = (analysis.as_datetime(last) - analysis.as_datetime(first)).total_seconds()
            found.append(step * span / (id1 - id0))
    return float(round(median(found))) if found else float(DEFAULT_SPACING)


def compute(db: Database, rng: Range, group_by="wait_class", filters: dict | None = None, top=TOP_GROUPS) -> dict:
    filters = filters or {}
    binds = filter_binds(filters, db.dbid)
    sampled = sampled_range(db, rng)
    body = {
        "db": db.key,
        "range": public_range(rng, sampled[0]) if sampled else rng.public(),
        "group_by": group_by,
        "filters": filters,
        "unit": "sessions",
        "bucket_seconds": None,
        "sample_seconds": None,
        "series": [],
        "total_samples": 0,
    }
    if sampled is None:
        body["reason"] = "the range holds no interval"
        return body
    rng, first, seconds, by_time, live = sampled
    width = width_for(seconds)
    step = spacing(db, rng)
    runs = _sampled_runs(db, sampled, binds.get("f_instance_0"))
    found = (
        (
            not by_time  # the store's totals and blocks count whole intervals,
            and runs == [(rng.lo, rng.hi, first.end, None)]  # by local time: one offset
            and (
                _from_totals(db, rng, group_by, filters, binds, first.end, width, top)
                or _from_blocks(db, rng, group_by, filters, binds, first.end, width, top)
            )
        )
        or (
            by_time  # a window off the grid, one offset: the totals of the snapshots inside it, the edges' samples
            and not live
            and len(runs) == 1
            and runs[0][3] is None
            and _from_totals_and_edges(db, rng, group_by, filters, binds, first.end, width, top, seconds)
        )
        or _from_samples(db, runs, group_by, filters, binds, width, top, seconds if by_time else None, live)
    )
    per, totals, shown, total = found
    count = max(int(-(-seconds // width)), 1)
    for values in per.values():  # a sample at the range's last instant: the last bucket's, which ends there (§22)
        for b in [b for b in values if b >= count]:
            values[count - 1] = values.get(count - 1, 0) + values.pop(b)
    times = _stamps(db, [first.epoch + b * width for b in range(count)])
    spans = [min(width, seconds - b * width) for b in range(count)]  # the last bucket ends with the range
    kept = None if live else kept_from(db, rng)  # before it AWR kept no samples: no bucket drawn there, not zero
    unkept = [kept is not None and first.epoch + b * width < kept.epoch for b in range(count)]
    shown_names = display_names(db, group_by, shown)
    for g in shown:
        values = per.get(g, {})
        body["series"].append(
            {
                "name": g,
                "label": shown_names.get(g) or str(named(group_by, g)),
                "unit": "sessions",
                "samples": totals[g],
                "points": (
                    times,
                    [
                        None if unkept[b] or spans[b] <= 0 else round4(values.get(b, 0) * step / spans[b])
                        for b in range(count)
                    ],  # a bucket of no seconds (a range of none: two snapshots in one second) has no AAS
                ),
            }
        )
    covered = seconds - (max(0.0, min(kept.epoch, first.epoch + seconds) - first.epoch) if kept else 0.0)
    body.update(
        bucket_seconds=width,
        sample_seconds=step,
        total_samples=total,
        aas=round4(total * step / covered) if covered > 0 else None,
        ash_from=kept.time if kept else None,
    )
    if live:
        body["live"] = live_buffer.note(rng)
    return body


def kept_from(db: Database, rng: Range):
    """Where a range's Active Session History begins when AWR kept none of its first intervals (docs/awr-rules.md
    §22): the earliest instance's snapshot before the first one with samples, whose end begins that snapshot's
    intervals; None when the samples cover the range's start, when there are none at all (the answer has no
    samples), or when the intervals before them saw less than UNSAMPLED_DB_TIME of DB time (idle, not unkept)."""
    ((first_kept,),) = db.rows(queries.ash_first_snap(db.store.views)) or ((None,),)
    if first_kept is None or rng.lo is None or first_kept <= rng.lo + 1:
        return None
    tl = db.timeline()
    before = [s for s in tl.snap_ids if s < first_kept]
    if not before or before[-1] <= rng.lo:
        return None
    sums, _ = totals(db, "sys_time_model", ["DB time"], replace(rng, hi=before[-1]), None)
    if sum(sums.values()) < UNSAMPLED_DB_TIME * 1e6:
        return None
    return min((tl.by_id[(i, before[-1])] for i in tl.instances if (i, before[-1]) in tl.by_id), key=lambda s: s.epoch)


def _runs(db: Database, rng: Range, first, instance: int | None = None) -> list[tuple]:
    """The range's intervals (lo, hi] as runs of consecutive snapshots of one SNAP_TIMEZONE (docs/awr-rules.md §17),
    each (lo, hi, t0, instance): t0 the range's first instant on the local clock of the run, so that a sample's bucket,
    counted from its local SAMPLE_TIME, is counted from the same instant across a daylight-saving change (§22). While
    the instances of each snap id carry one offset, the runs hold every instance (instance None); where they differ
    at a snap id (one instance's flush before the change, another's after it), each instance has runs of its own
    snapshots' offsets. `instance`: the one instance asked for."""
    tl = db.timeline()
    ids = [snap_id for snap_id in tl.snap_ids if rng.lo < snap_id <= rng.hi]
    shifts = {  # per instance, snap_id -> its snapshot's offset less the range's first instant's
        i: {s: offset(tl.by_id[(i, s)]) - offset(first) for s in ids if (i, s) in tl.by_id}
        for i in tl.instances
        if instance in (None, i)
    }
    every: dict = {}
    for by_snap in shifts.values():
        for snap_id, shift in by_snap.items():
            every.setdefault(snap_id, set()).add(shift)
    if all(len(found) == 1 for found in every.values()):
        groups = [(None, {snap_id: found.pop() for snap_id, found in every.items()})]
    else:
        groups = sorted(shifts.items())
    out = []
    for inst, by_snap in groups:
        runs: list[list] = []
        before = rng.lo
        for snap_id in sorted(by_snap):
            if runs and runs[-1][2] == by_snap[snap_id]:
                runs[-1][1] = snap_id
            else:
                runs.append([before, snap_id, by_snap[snap_id]])
            before = snap_id
        out += [(lo, hi, first.end + timedelta(seconds=shift), inst) for lo, hi, shift in runs]
    return out or [(rng.lo, rng.hi, first.end, None)]


def _stamps(db: Database, instants: list[float]) -> list[str]:
    """Each instant (epoch seconds) as ISO 8601 with the offset in force then (_offset_at), as a series point carries
    its own snapshot's offset (docs/awr-rules.md §17)."""
    ends = sorted((s.epoch, offset(s)) for s in db.timeline().by_id.values())
    return [
        analysis.iso(datetime.fromtimestamp(moment, timezone(timedelta(seconds=_offset_at(ends, moment)))))
        for moment in instants
    ]


def _offset_at(ends: list[tuple[float, float]], moment: float) -> float:
    """The offset in force at an instant (epoch seconds), of the snapshots' (end, offset) in time order: that of the
    first snapshot ending at or after it, whose interval holds it (the newest snapshot's after the last)."""
    i = bisect_left(ends, (moment, float("-inf")))
    return ends[min(i, len(ends) - 1)][1]


def sampled_runs(db: Database, sampled: tuple, binds: dict):
    """Each run (_runs) of what sampled_range reads, as (t0, instance, binds): the filters', the run's snapshots
    (lo, hi], its instance where it has one and, read by sample time, the window (w0, w1] on the run's own clock."""
    runs = _sampled_runs(db, sampled, binds.get("f_instance_0"))
    for lo, hi, t0, inst, where in _run_binds(runs, binds, sampled.seconds if sampled.by_time else None):
        yield t0, inst, {**where, "lo": lo, "hi": hi}


def _sampled_runs(db: Database, sampled: Sampled, instance: int | None) -> list[tuple]:
    """The runs (_runs) of what sampled_range reads; the live buffer's window is one run of no snapshot."""
    if sampled.live:
        return [(None, None, sampled.first.end, None)]
    return _runs(db, sampled.read, sampled.first, instance)


def _run_binds(runs: list, binds: dict, seconds=None):
    """Each run (_runs) with its binds: the filters', its instance's where it has one, and with `seconds` the window
    (w0, w1] on the run's own clock."""
    for lo, hi, t0, inst in runs:
        where = {**binds, "f_instance_0": inst} if inst is not None else dict(binds)
        if seconds is not None:
            where.update(w0=t0, w1=t0 + timedelta(seconds=seconds))
        yield lo, hi, t0, inst, where


def _ranked(totals: dict, top: int):
    """The groups shown (the `top` largest, ties by name) and the rest."""
    ranked = sorted(totals, key=lambda g: (-totals[g], str(g)))
    return ranked[:top], ranked[top:]


def _from_samples(db: Database, runs: list, group_by, filters, binds, width, top, seconds=None, live=False):
    """(samples per group and bucket, per group, the groups shown, all samples) from the view's samples grouped by
    bucket and group in the database, a statement per run of one offset (_runs: one, unless SNAP_TIMEZONE changes), a
    run of one instance's snapshots filtered by the instance; with `seconds`, those of the window of that many seconds
    from the range's first instant only (by sample time, sampled_range); `live`: of the live buffer."""
    keys = tuple(sorted(filters))
    raw = []
    for lo, hi, t0, inst, where in _run_binds(runs, binds, seconds):
        stmt = queries.activity(
            db.store.views,
            group_by,
            keys if inst is None else tuple(sorted({*keys, "instance"})),
            db.store.ash_coded,
            seconds is not None,
            live,
        )
        raw += db.rows(stmt, lo=lo, hi=hi, t0=t0, width=width, **where)
    per: dict = {}
    totals: dict = {}
    for bucket, *key, samples in raw:
        g = label(group_by, tuple(key), db.dbid)
        b = max(int(bucket), 0)
        per.setdefault(g, {})
        per[g][b] = per[g].get(b, 0) + samples
        totals[g] = totals.get(g, 0) + samples
    total = sum(totals.values())
    shown, rest = _ranked(totals, top)
    if rest:
        other: dict = {}
        for g in rest:
            for b, n in per[g].items():
                other[b] = other.get(b, 0) + n
        per[OTHER], totals[OTHER] = other, sum(totals[g] for g in rest)
        shown.append(OTHER)
    return per, totals, shown, total


def _from_totals(db: Database, rng: Range, group_by, filters, binds, t0, width, top):
    """The same as _from_samples from the store's ASH totals (embedded.ash.ASH_TOTALS), or None where it keeps none for
    the question (a filter other than the instance, another dimension): the groups' samples over the range first,
    then per bucket the shown groups' and the others' together. A period of the totals serves when it divides the
    bucket width and the range starts on one of its boundaries: each minute (half hour) then lies in one bucket, as
    each of its samples would."""
    if group_by not in ASH_TOTAL_DIMENSIONS or not db.store.ash_totals or t0.microsecond or set(filters) - {"instance"}:
        return None
    start = calendar.timegm(t0.timetuple())  # local time, as the totals count it
    period = next((p for p in ASH_TOTAL_PERIODS if width % p == 0 and start % p == 0), None)
    if period is None:
        return None
    where = {"dimension": ASH_TOTAL_DIMENSIONS.index(group_by) + 1, "lo": rng.lo, "hi": rng.hi, **binds}
    key = tuple(sorted(filters))
    groups = db.rows(
        queries.ash_total_groups(db.store.views, key), period=ASH_TOTAL_PERIODS[0], **where
    )  # any period holds them all
    totals = {value: samples for _, value, samples in groups}
    codes = {value: code for code, value, _ in groups}
    total = sum(totals.values())
    shown, rest = _ranked(totals, top)
    names = {codes[g]: g for g in shown}
    stmt = queries.ash_total_buckets(db.store.views, key)
    rows = db.rows(stmt, period=period, t0=start, width=width, top=list(names), **where) if shown else []
    return _per_bucket(rows, names, totals, shown, rest), totals, shown, total


def _from_totals_and_edges(db: Database, read: Range, group_by, filters, binds, t0, width, top, seconds):
    """The same as _from_samples for a window of sample times (sampled_range) on the embedded store, or None where its
    totals do not serve (as _from_totals; and the snapshots wholly inside the window must be consecutive): the totals
    of the snapshots wholly inside the window (all but those it cuts, edges), each minute (half hour) in one bucket as
    the window starts on one and the width is whole ones, and the samples of its edge snapshots inside the window."""
    if group_by not in ASH_TOTAL_DIMENSIONS or not db.store.ash_totals or t0.microsecond or set(filters) - {"instance"}:
        return None
    start = calendar.timegm(t0.timetuple())  # local time, as the totals count it
    period = next((p for p in ASH_TOTAL_PERIODS if width % p == 0 and start % p == 0), None)
    ids = [snap_id for snap_id in db.timeline().snap_ids if read.lo < snap_id <= read.hi]
    cut = set(edges(db, read, *read.window))
    inner = [k for k, snap_id in enumerate(ids) if snap_id not in cut]
    if period is None or not inner or inner[-1] - inner[0] + 1 != len(inner):
        return None
    lo, hi = ids[inner[0] - 1] if inner[0] else read.lo, ids[inner[-1]]  # the inner snapshots: (lo, hi]
    v, key = db.store.views, tuple(sorted(filters))
    where = {"dimension": ASH_TOTAL_DIMENSIONS.index(group_by) + 1, "lo": lo, "hi": hi, **binds}
    groups = db.rows(queries.ash_total_groups(v, key), period=ASH_TOTAL_PERIODS[0], **where)
    totals = {value: samples for _, value, samples in groups}
    codes = {value: code for code, value, _ in groups}
    edge: dict = {}  # (group, bucket) -> the edges' samples in the window
    window = {"t0": t0, "width": width, "w0": t0, "w1": t0 + timedelta(seconds=seconds), **binds}
    for a, b in ((read.lo, lo), (hi, read.hi)):
        if b > a:
            stmt = queries.activity(v, group_by, key, db.store.ash_coded, True)
            for bucket, *k, samples in db.rows(stmt, lo=a, hi=b, **window):
                g = label(group_by, tuple(k), db.dbid)
                totals[g] = totals.get(g, 0) + samples
                edge[g, max(int(bucket), 0)] = edge.get((g, max(int(bucket), 0)), 0) + samples
    total = sum(totals.values())
    shown, rest = _ranked(totals, top)
    names = {codes[g]: g for g in shown if g in codes}
    stmt = queries.ash_total_buckets(v, key)
    rows = db.rows(stmt, period=period, t0=start, width=width, top=list(names), **where) if groups else []
    per = _per_bucket(rows, names, totals, shown, rest)
    kept = set(shown) - {OTHER}
    for (g, b), samples in edge.items():
        into = per.setdefault(g if g in kept else OTHER, {})
        into[b] = into.get(b, 0) + samples
    return per, totals, shown, total


def _from_blocks(db: Database, rng: Range, group_by, filters, binds, t0, width, top):
    """The same as _from_samples, or None where the store's counts per block (embedded.ash.ASH_TOP) do not serve (a
    group they do not count, or a filter other than the instance): the groups' samples over the range from the counts
    first, then per bucket the shown groups' and the others' together from the coded samples, a few rows per bucket
    instead of one per group and bucket (a week of sessions: 195,000)."""
    if not (db.store.ash_top and db.store.ash_coded) or group_by not in MANY_GROUPS or set(filters) - {"instance"}:
        return None
    v, key, n = db.store.views, tuple(sorted(filters)), len(ASH_TOP_LISTS[group_by])
    where = {"lo": rng.lo, "hi": rng.hi, **binds}
    totals, codes = {}, {}
    for row in db.rows(queries.ash_top_groups(v, group_by, key), **where, **_blocks(rng)):
        g = label(group_by, tuple(row[n : 2 * n]), db.dbid)
        # embedded.ash.ASH_TOP keeps the container of an object's null group too; the samples' dimension does not
        null = group_by in CONTAINED and row[n - 1] is None
        totals[g], codes[g] = row[-1], (None,) * n if null else row[:n]
    total = sum(totals.values())
    shown, rest = _ranked(totals, top)
    tops = {f"top_{i}_{k}": None for i in range(1, top + 1) for k in range(n)}
    tops.update({f"top_{i}_{k}": c for i, g in enumerate(shown, 1) for k, c in enumerate(codes[g])})
    tops["top_last"] = [codes[g][-1] for g in shown if codes[g][-1] is not None]
    rows = db.rows(queries.activity_buckets(v, group_by, key, top), t0=t0, width=width, **where, **tops)
    return _per_bucket(rows, dict(enumerate(shown, 1)), totals, shown, rest), totals, shown, total


def _per_bucket(rows, names: dict, totals: dict, shown: list, rest: list) -> dict:
    """{group: {bucket: samples}} from rows (bucket, key, samples) of the shown groups (their keys in `names`) and of
    the others together (any other key); the others, when there are any, added to `totals` and `shown`."""
    per: dict = {}
    for bucket, key, samples in rows:
        g, b = names.get(key, OTHER), max(int(bucket), 0)
        per.setdefault(g, {})
        per[g][b] = per[g].get(b, 0) + samples
    if rest:
        totals[OTHER] = sum(totals[g] for g in rest)
        shown.append(OTHER)
    return per


def _blocks(rng: Range) -> dict:
    """The binds of the blocks of embedded.ash.ASH_TOP making up the range's intervals (queries.ash_counts._ash_top)."""
    return inner_blocks(list(range(rng.lo + 1, rng.hi + 1)))


def top(db: Database, rng: Range, filters: dict | None = None) -> dict:
    """Top SQL, sessions, modules, events and objects of the range by samples, with % of the range's activity and
    the share on CPU; and the blocking sessions."""
    filters = filters or {}
    binds = filter_binds(filters, db.dbid)
    key = tuple(sorted(filters))
    sampled = sampled_range(db, rng)
    body = {
        "db": db.key,
        "range": public_range(rng, sampled[0]) if sampled else rng.public(),
        "filters": filters,
        "lists": {name: [] for name in TOP_LISTS},
        "blocking": [],
        "columns": ["list", "name", "label", "samples", "aas", "pct_activity", "pct_cpu", "pct_wait"],
    }
    if sampled is None:
        body["reason"] = "the range holds no interval"
        return body
    rng, _, seconds, by_time, live = sampled
    step = spacing(db, rng)
    if by_time:
        runs = _sampled_runs(db, sampled, binds.get("f_instance_0"))
        found = _top_lists_by_time(db, rng, runs, key, binds, seconds, live)
    else:
        found = _top_lists(db, rng, key, binds)
    total = sum(samples for _, samples, _ in found["instance"])  # every instance's samples
    for name in TOP_LISTS:
        shown = display_names(db, name, [label(name, k, db.dbid) for k, _, _ in found[name]])
        body["lists"][name] = [
            {
                "name": label(name, k, db.dbid),
                "label": shown.get(label(name, k, db.dbid)) or str(named(name, label(name, k, db.dbid))),
                "samples": samples,
                "aas": round4(samples * step / seconds) if seconds else None,
                "pct_activity": round4(100 * samples / total) if total else None,
                "pct_cpu": round4(100 * on_cpu / samples),
                "pct_wait": round4(100 * (samples - on_cpu) / samples),
            }
            for k, samples, on_cpu in found[name]
        ]
    sessions = who(db, sampled, [k for k, _, _ in found["session"]])
    for r in body["lists"]["session"]:
        r.update(sessions.get(_session_key(r["name"]), dict.fromkeys(("user", "user_name", "program", "machine"))))
    for (inst, sid, serial, event), samples, waiters in found["blocking"]:
        body["blocking"].append(
            {
                "blocking_instance": inst,
                "blocking_session": sid,
                "blocking_serial": serial,
                "event": event,
                "samples": samples,
                "waiters": waiters,
                "aas": round4(samples * step / seconds) if seconds else None,
            }
        )
    body.update(total_samples=total, sample_seconds=step, cpu_label=CPU)
    if live:
        body["live"] = live_buffer.note(rng)
    return body


LIST_KEYS = {"session": 3, "blocking": 4, "current_obj": 2}  # columns of a list's key (one for the others)


def most_sampled(counts, name=lambda k: k):
    """The most sampled value of a Counter (ties by name), as `name` gives it; None where there is none."""
    found = [(n, str(k), k) for k, n in counts.items() if k is not None and k != (None, None)]
    return name(min(found, key=lambda x: (-x[0], x[1]))[2]) if found else None


def session_number(inst: int, sid: int, serial: int) -> int:
    """A session as queries.session_number makes it one number."""
    return inst * queries.SESSION_SHIFTS[0] + sid * queries.SESSION_SHIFTS[1] + serial


WHO_BLOCK = 48  # snapshot ids read at a time, the newest first, to name the top sessions (who)


def who(db: Database, sampled: Sampled, keys) -> dict:
    """{(instance, sid, serial#): {user, user_name, program, machine}} of the sessions `keys` (the top sessions'): a
    session keeps its user, program and machine for its life, so they are read from the newest snapshots that hold it,
    WHO_BLOCK snapshot ids at a time from the range's end until every session is found (a day of a week's range, as a
    rule), the newest run of one offset first (§17); the most sampled of each there, the user named by the dictionary
    (app/history/names.py)."""
    wanted = {k for k in keys if None not in k}
    counts: dict = {}
    runs = sorted(sampled_runs(db, sampled, {}), key=lambda run: run[2]["hi"] or 0, reverse=True)
    for _, inst, where in runs:
        stmt = queries.session_details(
            db.store.views, sampled.by_time, sampled.live, () if inst is None else ("instance",)
        )
        lo, hi = where["lo"], where["hi"]
        blocks = [(None, None)] if sampled.live else [(max(b - WHO_BLOCK, lo), b) for b in range(hi, lo, -WHO_BLOCK)]
        for b_lo, b_hi in blocks:
            left = sorted(wanted - set(counts))
            if not left:
                break
            found: dict = {}
            for inst_, sid, serial, con, user, program, machine, n in db.rows(
                stmt, **{**where, "lo": b_lo, "hi": b_hi}, sessions=[session_number(*k) for k in left]
            ):
                c = found.setdefault((inst_, sid, serial), (Counter(), Counter(), Counter()))
                c[0][con, user] += n
                c[1][program] += n
                c[2][machine] += n
            counts.update(found)
    named = names.users(db, {u for c in counts.values() for u in c[0]})
    return {
        k: {
            "user": most_sampled(users, lambda u: label("user", u, db.dbid)),
            "user_name": most_sampled(users, named.get),
            "program": most_sampled(programs),
            "machine": most_sampled(machines),
        }
        for k, (users, programs, machines) in counts.items()
    }


def _session_key(name) -> tuple | None:
    """(instance, sid, serial#) of a session as `label` names it (instance:sid,serial#); None for none, or for a
    sample without a serial# (the view allows it, Oracle writes none), whose session cannot be named."""
    if name is None:
        return None
    inst, _, rest = name.partition(":")
    sid, _, serial = rest.partition(",")
    return (int(inst), int(sid), int(serial)) if serial.isdigit() else None


def _top_lists(db: Database, rng: Range, key: tuple, binds: dict) -> dict:
    """{list: [(key, samples, on CPU or, for blocking, waiters)]} for TOP_LISTS, the instances and the blocking
    sessions, each ranked: on the embedded store from its counts per block (embedded.ash.ASH_TOP) when only the instance
    is filtered, else in one statement over its coded samples (less them, from the counts, when most pass); on
    Oracle a statement per list over the view."""
    v, where = db.store.views, {"lo": rng.lo, "hi": rng.hi, **binds}
    names = (*TOP_LISTS, "instance", "blocking")
    blocks = db.store.ash_top and set(key) <= {"instance"}
    minus = db.store.ash_top and not blocks and db.store.ash_coded and _mostly_passing(db, rng, key, binds)
    if blocks or minus:
        where.update(_blocks(rng))
    if db.store.ash_coded and not blocks:
        found: dict = {name: [] for name in names}
        for name, *k, samples, second, _ in db.rows(queries.activity_top_coded(v, key, minus), **where):
            found[name].append((tuple(k[: LIST_KEYS.get(name, 1)]), samples, second))
        return found
    found = {
        name: [
            (tuple(k), samples, on_cpu)
            for *k, samples, on_cpu in db.rows(queries.activity_top(v, name, key, blocks), **where)
        ]
        for name in (*TOP_LISTS, "instance")
    }
    found["blocking"] = [(tuple(k), n, w) for *k, n, w in db.rows(queries.blocking(v, key, blocks), **where)]
    return found


def _top_lists_by_time(db: Database, read: Range, runs: list, key: tuple, binds: dict, seconds: float, live=False):
    """_top_lists of a window of sample times (sampled_range): from the samples (coded on the embedded store), a
    statement per run of one offset (_runs); the runs' lists added up and ranked again where SNAP_TIMEZONE changes
    inside. On the embedded store, one run and the instance the only filter: the counts per block of the snapshots
    read less their samples outside the window, which only the edge snapshots hold (edges). `live`: the live
    buffer's samples, as they are."""
    v, names = db.store.views, (*TOP_LISTS, "instance", "blocking")
    coded = db.store.ash_coded and not live
    if coded and db.store.ash_top and set(key) <= {"instance"} and len(runs) == 1 and runs[0][3] is None:
        ((lo, hi, _, _, where),) = _run_binds(runs, binds, seconds)
        cut = edges(db, read, *read.window)
        where.update(lo=lo, hi=hi, edge_snaps=cut or [lo], **_blocks(read))  # [lo]: no snapshot of the range
        found: dict = {name: [] for name in names}
        for name, *k, samples, second, _ in db.rows(queries.activity_top_coded(v, key, True, True), **where):
            found[name].append((tuple(k[: LIST_KEYS.get(name, 1)]), samples, second))
        return found
    summed: dict = {name: {} for name in names}
    for lo, hi, _, inst, where in _run_binds(runs, binds, seconds):
        keys = key if inst is None else tuple(sorted({*key, "instance"}))
        where.update(lo=lo, hi=hi)
        if coded:
            rows = [
                (name, tuple(k[: LIST_KEYS.get(name, 1)]), samples, second)
                for name, *k, samples, second, _ in db.rows(queries.activity_top_coded(v, keys, False, True), **where)
            ]
        else:
            rows = [
                (name, tuple(k), samples, second)
                for name in (*TOP_LISTS, "instance")
                for *k, samples, second in db.rows(queries.activity_top(v, name, keys, False, True, live), **where)
            ]
            rows += [
                ("blocking", tuple(k), n, w)
                for *k, n, w in db.rows(queries.blocking(v, keys, False, True, live), **where)
            ]
        for name, k, samples, second in rows:
            was = summed[name].get(k, (0, 0))
            summed[name][k] = (was[0] + samples, was[1] + second)
    return {
        name: sorted(((k, n, x) for k, (n, x) in found.items()), key=lambda r: -r[1])[: queries.TOP_ACTIVITY_ROWS]
        for name, found in summed.items()
    }


def inner_blocks(snaps: list[int]) -> dict:
    """The binds of the blocks of embedded.ash.ASH_TOP that make up the snapshots `snaps` (ids, ascending; runs of
    consecutive ids each its own blocks)."""
    binds: dict = {}
    run: list[int] = []
    for snap_id in [*snaps, None]:
        if run and (snap_id is None or snap_id != run[-1] + 1):
            for span, firsts in ash_top_blocks(run[0] - 1, run[-1]).items():
                binds.setdefault(f"blocks_{span}", []).extend(firsts)
            run = []
        if snap_id is not None:
            run.append(snap_id)
    return {f"blocks_{span}": binds.get(f"blocks_{span}", []) for span in (*ASH_TOP_SPANS, 1)}


def edges(db: Database, read: Range, w0: float, w1: float) -> list[int]:
    """The snapshots of the range read whose intervals may hold samples outside the window (w0, w1] (epoch seconds):
    per instance, those whose interval starts before w0 (its previous snapshot ends before it; or it has none) or
    ends after w1. Every other snapshot's samples are in the window."""
    tl = db.timeline()
    out = set()
    for inst in tl.instances:
        before = None
        for snap_id in tl.snap_ids:
            s = tl.by_id.get((inst, snap_id))
            if s is None:
                continue
            if read.lo < snap_id <= read.hi and (before is None or before.epoch < w0 or s.epoch > w1):
                out.add(snap_id)
            before = s
    return sorted(out)


def _mostly_passing(db: Database, rng: Range, key: tuple, binds: dict) -> bool:
    """Whether most samples of SHARE_SNAPSHOTS snapshot ids spread over the range pass the filters (a share that
    changes with the hour of the day is seen over the range): then the top lists count the blocks less the samples
    that do not pass (queries.activity_top_coded)."""
    n = min(SHARE_SNAPSHOTS, rng.hi - rng.lo)
    snaps = sorted({rng.lo + 1 + (rng.hi - rng.lo - 1) * k // max(n - 1, 1) for k in range(n)})
    ((samples, passing),) = db.rows(queries.ash_passing(db.store.views, key), snaps=snaps, **binds)
    return 2 * passing > samples
