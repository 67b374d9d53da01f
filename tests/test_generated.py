"""The questions on generated histories (tests/histories.py), against references written here from the documented
rules (docs/awr-rules.md, cited by section), not from the code: each check recomputes every number of the answer
from the history's own rows. A failing check prints the shrunk history; paste it as an @example to keep it.

Fast: each store is a handful of snapshots, each check some tens of examples."""

import atexit
import itertools
import math
import os
import shutil
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from statistics import median

import pytest
from histories import (
    COUNTERS,
    DICTIONARY_OBJECT,
    EVENT,
    METRICS,
    OBJECTS,
    UPPERS,
    History,
    Sample,
    Snap,
    blocked,
    database,
    epoch,
    histories,
    plan_pairs,
)
from hypothesis import HealthCheck, assume, example, given, note, settings
from hypothesis import strategies as st

from app.history import (
    activity,
    ashtop,
    chains,
    compare,
    histograms,
    load_profile,
    plans,
    report,
    segments,
    series,
    top_events,
    top_sql,
)

# 25 examples a check (make test; make test-fast sets GENERATED_EXAMPLES=8); GENERATED_EXAMPLES=500 for a longer hunt
FAST = settings(
    max_examples=int(os.environ.get("GENERATED_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
MIN_INTERVAL = 300  # AWRLENS_MIN_INTERVAL's default (§6)
REDO = COUNTERS.index(("sysstat", 1, "redo size"))
READS = COUNTERS.index(("sysstat", 2, "session logical reads"))
SHM = Path("/dev/shm")  # in memory where there is one: a store is written for each example
_FOLDERS: dict = {}  # process id -> its folder of the examples' stores
_made = itertools.count()


def folder() -> Path:
    """This process's folder of the examples' stores, made on first use: a process forked after the import (mutmut's
    fork server forks one per mutant, docs/mutation.md) makes its own, not writing into its siblings'."""
    if os.getpid() not in _FOLDERS:
        made = Path(tempfile.mkdtemp(prefix="awrlens-generated-", dir=SHM if SHM.is_dir() else None))
        atexit.register(shutil.rmtree, made, True)
        _FOLDERS[os.getpid()] = made
    return _FOLDERS[os.getpid()]


@pytest.fixture(scope="module", autouse=True)
def _remove_the_stores():
    """The process's stores removed after the module's tests (a forked process may end without running atexit)."""
    yield
    made = _FOLDERS.pop(os.getpid(), None)
    if made is not None:
        shutil.rmtree(made, True)


class Pasteable:
    """A history as the @example line that replays it, formatted only for the failing example that is reported."""

    def __init__(self, history: History):
        self.history = history

    def _repr_pretty_(self, printer, cycle):
        printer.text("@example(h=")
        printer.pretty(self.history)
        printer.text(", pick=<the pick noted>)")


def db_of(history: History):
    """The history's store; a failing check prints the history (shrunk) as an @example to paste above it."""
    note(Pasteable(history))
    made = next(_made)
    (folder() / f"h{made - 1}.sqlite").unlink(missing_ok=True)  # the previous example's (its readers keep it open)
    return database(history, folder() / f"h{made}.sqlite", MIN_INTERVAL)


def at(s: Snap) -> float:
    return epoch(s.end, s.tz)


def iso(s: Snap) -> str:
    """A snapshot's time as an answer gives it: its local end with its own offset (§17)."""
    return datetime.fromisoformat(s.end).replace(tzinfo=timezone(timedelta(seconds=s.tz))).isoformat()


def close(got, want) -> bool:
    """An answer's value against the exact one: rounded to four decimals, whole beyond a million (§19)."""
    if want is None or got is None:
        return got is want
    return abs(got - want) <= (0.5 if abs(want) >= 1e6 else 5e-5) + 1e-9 * abs(want)


def assert_values(got: list, want: list, what):
    assert len(got) == len(want) and all(close(g, w) for g, w in zip(got, want, strict=True)), (what, got, want)


# -- the timeline, from §2, §4, §6 and §12 ----------------------------------------------------------------------------


def kept(rows: list[Snap]) -> list[Snap]:
    """§6: a snapshot less than AWRLENS_MIN_INTERVAL seconds after the previous kept one, of the same startup, is set
    aside."""
    out = []
    for s in rows:
        if out and s.startup == out[-1].startup and at(s) - at(out[-1]) < MIN_INTERVAL:
            continue
        out.append(s)
    return out


def span(h: History, lo: int, hi: int) -> dict[int, list[Snap]]:
    """§12: per instance, its first snapshot at or after begin_snap, its kept snapshots after that, and its last
    snapshot at or before end_snap (the two ends as they are, even when they would be merged)."""
    out = {}
    for inst in h.instances():
        inside = [s for s in h.rows(inst) if lo <= s.snap_id <= hi]
        if not inside:
            continue
        first, last = inside[0], inside[-1]
        middle = [s for s in kept(h.rows(inst)) if first.snap_id < s.snap_id < last.snap_id]
        out[inst] = [first, *middle, last] if last is not first else [first]
    return out


def deltas(h: History, lo: int, hi: int, value) -> dict[int, list[tuple[Snap, float, float]]]:
    """§3-§5: per instance, (later snapshot, delta, seconds) of each valid interval of a counter (`value` of a
    snapshot, None where it has none): same startup, not going down; a snapshot without a value is skipped."""
    out = {}
    for inst, rows in span(h, lo, hi).items():
        rows = [s for s in rows if value(s) is not None]
        out[inst] = [
            (b, value(b) - value(a), at(b) - at(a))
            for a, b in itertools.pairwise(rows)
            if a.startup == b.startup and value(b) >= value(a)
        ]
    return out


PICK = st.tuples(st.integers(0, 9), st.integers(0, 9))  # which begin_snap and end_snap: a_range


def a_range(h: History, pick: tuple[int, int]) -> tuple[int, int]:
    """begin_snap and end_snap of the history's snap ids, as `pick` chooses them (shrinking to the widest range)."""
    note(f"pick={pick!r}")
    ids = h.snap_ids()
    lo = ids[pick[0] % len(ids)]
    later = [i for i in ids if i >= lo]
    return lo, later[-1 - pick[1] % len(later)]


# -- series: §3-§8, §11, §12 ------------------------------------------------------------------------------------------


def combined(per: dict[int, list[tuple[Snap, float]]]) -> list[tuple[str, float]]:
    """§11, sum of ratios: each key's instances summed, the point timed at the earliest END_INTERVAL_TIME there."""
    keys: dict[int, list] = {}
    for points in per.values():
        for s, v in points:
            keys.setdefault(s.snap_id, []).append((s, v))
    out = []
    for key in sorted(keys):
        first = min(keys[key], key=lambda p: at(p[0]))[0]
        out.append((iso(first), math.fsum(v for _, v in keys[key])))
    return out


def partial(h: History, lo: int, hi: int, per: dict[int, list[tuple[Snap, float]]]) -> list[dict]:
    """§11: the combined points that sum fewer instances than the range holds (those with a snapshot in it)."""
    holds = sorted(span(h, lo, hi))
    keys: dict[int, list] = {}
    for inst, points in per.items():
        for s, _ in points:
            keys.setdefault(s.snap_id, []).append((inst, s))
    out = []
    for key in sorted(keys):
        missing = [i for i in holds if i not in {inst for inst, _ in keys[key]}]
        if missing:
            first = min((s for _, s in keys[key]), key=at)
            out.append({"time": iso(first), "instances": len(holds) - len(missing), "missing": missing})
    return out


def ask(db, name, lo, hi, instance, rate="per_second"):
    return series.compute(db, [name], db.resolve(begin_snap=lo, end_snap=hi), instance, rate, max_points=0)


def check_series(answer, want: dict, partials: dict | None = None):
    got = {s["instance"]: s for s in answer["series"]}
    assert set(got) == set(want), (set(got), set(want))
    for label, points in want.items():
        times, values = got[label]["points"]
        assert times == [t for t, _ in points], (label, times, points)
        assert_values(values, [v for _, v in points], label)
        if partials is not None:
            assert got[label]["partial"] == partials[label]


@FAST
@given(histories(), PICK, st.sampled_from(["per_second", "raw"]))
def test_a_counter_per_instance_is_its_own_deltas_over_its_own_seconds(h, pick, rate):
    """§3 delta = end - begin per instance, §4 none across a restart, §5 a gap's delta over its full seconds, §6 a
    manual snapshot merged, §7 per second or raw, §17 each point at its snapshot's own offset."""
    lo, hi = a_range(h, pick)
    ds = deltas(h, lo, hi, lambda s: s.counters[REDO])
    want = {  # one series per instance of the database, empty where the range holds none of its snapshots
        inst: [(iso(b), d / sec if rate == "per_second" else d) for b, d, sec in ds.get(inst, [])]
        for inst in h.instances()
    }
    check_series(ask(db_of(h), "sysstat:redo size", lo, hi, "each", rate), want)


@FAST
@given(histories(instances=st.integers(2, 4)), PICK)
def test_a_counter_of_the_cluster_sums_the_instances_that_have_a_point(h, pick):
    """§11: per second, a sum of ratios key by key; an instance without a point (missing, restarted) is left out and
    the point listed under `partial`."""
    lo, hi = a_range(h, pick)
    per = {
        inst: [(b, d / sec) for b, d, sec in points]
        for inst, points in deltas(h, lo, hi, lambda s: s.counters[REDO]).items()
    }
    check_series(
        ask(db_of(h), "sysstat:redo size", lo, hi, "all"), {"all": combined(per)}, {"all": partial(h, lo, hi, per)}
    )


@FAST
@given(histories(), PICK, st.sampled_from(["each", "all"]))
def test_per_transaction_is_the_deltas_over_the_transactions_of_the_same_intervals(h, pick, instance):
    """§7: per_txn = delta / delta of user commits + user rollbacks over the same interval and instance, none where
    there was no transaction; §11: the cluster's is a ratio of sums, Σ deltas / Σ transactions at each key."""
    lo, hi = a_range(h, pick)
    commits, rollbacks = (COUNTERS.index(("sysstat", k, n)) for k, n in ((3, "user commits"), (4, "user rollbacks")))
    redo = deltas(h, lo, hi, lambda s: s.counters[REDO])
    txns = deltas(h, lo, hi, lambda s: s.counters[commits] + s.counters[rollbacks])
    per = {}
    for inst in h.instances():
        by_key = {b.snap_id: d for b, d, _ in txns.get(inst, [])}
        per[inst] = [(b, d, by_key[b.snap_id]) for b, d, _ in redo.get(inst, []) if by_key.get(b.snap_id)]
    if instance == "each":
        want = {inst: [(iso(b), d / t) for b, d, t in points] for inst, points in per.items()}
    else:
        keys: dict = {}
        for points in per.values():
            for b, d, t in points:
                keys.setdefault(b.snap_id, []).append((b, d, t))
        want = {
            "all": [
                (
                    iso(min((b for b, _, _ in keys[k]), key=at)),
                    math.fsum(d for _, d, _ in keys[k]) / math.fsum(t for _, _, t in keys[k]),
                )
                for k in sorted(keys)
            ]
        }
    check_series(ask(db_of(h), "sysstat:redo size", lo, hi, instance, "per_txn"), want)


@FAST
@given(histories(), PICK, st.sampled_from(["each", "all"]))
def test_a_reading_is_as_read_at_each_snapshot_and_summed_not_differenced(h, pick, instance):
    """§8: a reading is shown as read at each snapshot of [begin_snap, end_snap] (§12's table), never differenced,
    restarts and merged snapshots aside; §11 summed over instances."""
    lo, hi = a_range(h, pick)
    per = {inst: [(s, s.logons) for s in h.rows(inst) if lo <= s.snap_id <= hi] for inst in h.instances()}
    if instance == "each":
        want = {inst: [(iso(s), v) for s, v in points] for inst, points in per.items()}
    else:
        want = {"all": combined(per)}
    check_series(ask(db_of(h), "sysstat:logons current", lo, hi, instance), want)


@FAST
@given(histories(), PICK, st.sampled_from(["each", "all"]), st.sampled_from([0, 1]))
def test_oracles_rates_are_as_oracle_computed_them_averaged_or_summed_over_instances(h, pick, instance, which):
    """§9: Oracle's AVERAGE as stored, at each snapshot of (begin_snap, end_snap] (§12's table: the value at a snapshot
    covers the interval ending there); §11: a metric with % in its unit or name is the mean of the instances that have
    a point at the key, Average Active Sessions the sum."""
    lo, hi = a_range(h, pick)
    metric = METRICS[which][1]
    per = {inst: [(s, s.metrics[which]) for s in h.rows(inst) if lo < s.snap_id <= hi] for inst in h.instances()}
    if instance == "each":
        want = {inst: [(iso(s), v) for s, v in points] for inst, points in per.items()}
    else:
        keys: dict = {}
        for points in per.values():
            for s, v in points:
                keys.setdefault(s.snap_id, []).append((s, v))
        mean = "%" in metric
        want = {
            "all": [
                (
                    iso(min((s for s, _ in keys[k]), key=at)),
                    math.fsum(v for _, v in keys[k]) / (len(keys[k]) if mean else 1),
                )
                for k in sorted(keys)
            ]
        }
    check_series(ask(db_of(h), f"sysmetric:{metric}", lo, hi, instance), want)


@FAST
@given(histories(), PICK)
def test_the_markers_are_the_restarts_gaps_and_merged_snapshots_of_the_range(h, pick):
    """§4 a restart marker at the first snapshot after it, §5 a gap longer than 1.5 x the step, §6 a merged snapshot
    inside the range (not the range's own ends), each where its later snapshot is in [begin_snap, end_snap]."""
    lo, hi = a_range(h, pick)
    kept_rows = {inst: kept(h.rows(inst)) for inst in h.instances()}
    steps = sorted(at(b) - at(a) for rows in kept_rows.values() for a, b in itertools.pairwise(rows))
    step = steps[len(steps) // 2] if steps else 3600.0  # §2: the median interval
    restarts, missing, merged = [], [], []
    for inst, rows in kept_rows.items():
        for a, b in itertools.pairwise(rows):
            if lo <= b.snap_id <= hi and a.startup != b.startup:
                restarts.append((inst, b.snap_id))
            if lo <= b.snap_id <= hi and at(b) - at(a) > 1.5 * step:
                missing.append((inst, a.snap_id, b.snap_id, round(at(b) - at(a))))
        merged += [(inst, s.snap_id) for s in h.rows(inst) if s not in rows and lo < s.snap_id < hi]
    markers = ask(db_of(h), "sysstat:redo size", lo, hi, "all")["markers"]
    assert sorted((m["instance"], m["snap_id"]) for m in markers["restarts"]) == sorted(restarts)
    assert sorted(
        (m["instance"], m["after_snap_id"], m["before_snap_id"], m["seconds"]) for m in markers["missing"]
    ) == sorted(missing)
    assert sorted((m["instance"], m["snap_id"]) for m in markers["merged_snapshots"]) == sorted(merged)


# -- top activity: §22 ------------------------------------------------------------------------------------------------

WIDTHS = (10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400)  # §22.1


def offset_at(h: History, instant: float) -> int:
    """The offset in force at an instant: that of the first snapshot ending at or after it (the interval holding
    it), or of the last one."""
    ordered = sorted(h.snaps, key=at)
    return next((s.tz for s in ordered if at(s) >= instant), ordered[-1].tz)


def spacing(h: History, hi: int) -> float:
    """§22.2: per instance, over the samples of the range's last interval, the smallest step between SAMPLE_IDs x the
    seconds per SAMPLE_ID (first to last); the median over instances, to the second; 10 s without two samples."""
    found = []
    for inst in h.instances():
        mine = sorted({(a.sample_id, a.time) for a in h.samples if a.instance == inst and a.snap_id == hi})
        if len(mine) >= 2:
            ids = [i for i, _ in mine]
            step = min(b - a for a, b in itertools.pairwise(ids))
            seconds = (datetime.fromisoformat(mine[-1][1]) - datetime.fromisoformat(mine[0][1])).total_seconds()
            found.append(step * seconds / (ids[-1] - ids[0]))
    return float(round(median(found))) if found else 10.0


# Daylight saving starts between snapshots 1 and 2 (SNAP_TIMEZONE +00:00 -> +01:00): the buckets after it were
# stamped an hour off with the newest snapshot's offset, and its samples counted an hour late from their local time.
SPRING = History(
    snaps=(
        Snap(1, 1, "2026-03-29 00:00:00", 0, "2026-03-27 23:59:59"),
        Snap(2, 1, "2026-03-29 01:30:00", 3600, "2026-03-28 00:59:59"),
        Snap(3, 1, "2026-03-29 02:00:00", 3600, "2026-03-28 00:59:59"),
    ),
    samples=(
        Sample(2, 1, 84590, "2026-03-29 01:29:50", 1, None),
        Sample(3, 1, 86390, "2026-03-29 01:59:50", 1, "Commit"),
        Sample(3, 1, 86400, "2026-03-29 02:00:00", 1, None),
    ),
)


# Two offsets at one snap id: instance 1's snapshot 2 is taken at 01:00:10 UTC, before the clocks move at 01:00:30, and
# instance 2's at 01:00:40, after it. Instance 2's sample of 01:00:00 UTC (02:00:00 on its clock) was counted from the
# lowest-numbered instance's offset at snap id 2, an hour late, and landed in the last bucket.
SPLIT = History(
    snaps=(
        Snap(1, 1, "2026-03-29 00:00:00", 0, "2026-03-28 00:00:00"),
        Snap(1, 2, "2026-03-29 00:00:00", 0, "2026-03-28 00:00:00"),
        Snap(2, 1, "2026-03-29 01:00:10", 0, "2026-03-28 00:00:00"),
        Snap(2, 2, "2026-03-29 02:00:40", 3600, "2026-03-28 00:00:00"),
    ),
    samples=(
        Sample(2, 1, 90000, "2026-03-29 01:00:00", 1, None),
        Sample(2, 2, 90000, "2026-03-29 02:00:00", 1, None),
    ),
)


@FAST
@given(histories(ash=True, snapshots=st.integers(2, 4)), PICK)
@example(h=SPRING, pick=(0, 0)).via("daylight saving")
@example(h=SPLIT, pick=(0, 0)).via("two offsets at one snap id")
def test_activity_is_samples_times_spacing_over_each_buckets_own_seconds(h, pick):
    """§22: the range runs from the earliest instance's begin_snap to the latest one's end_snap; buckets of the
    narrowest width giving at most 720; a sample's bucket from its own instant; AAS = samples x spacing / the bucket's
    seconds, the last bucket's the part inside the range; each bucket stamped with the offset in force then (§17)."""
    lo, hi = a_range(h, pick)
    db = db_of(h)
    body = activity.compute(db, db.resolve(begin_snap=lo, end_snap=hi))
    if lo == hi:
        assert body["series"] == [] and body["reason"]
        return
    t0 = min(at(s) for s in h.snaps if s.snap_id == lo)
    seconds = max(at(s) for s in h.snaps if s.snap_id == hi) - t0
    width = next(w for w in WIDTHS if seconds / w <= 720)
    count = max(math.ceil(seconds / width), 1)
    tz = {(s.instance, s.snap_id): s.tz for s in h.snaps}
    per: dict = {}
    for a in h.samples:
        if lo < a.snap_id <= hi:
            # a sample at the range's last instant is in the last bucket, which ends there; one before its first
            # instant (an instance without begin_snap, its interval from an earlier snapshot) in the first
            bucket = min(max(round(epoch(a.time, tz[(a.instance, a.snap_id)]) - t0) // width, 0), count - 1)
            group = a.wait_class or "CPU"
            per.setdefault(group, [0] * count)[bucket] += 1
    step = spacing(h, hi)
    spans = [min(width, seconds - b * width) for b in range(count)]
    starts = [t0 + b * width for b in range(count)]
    times = [datetime.fromtimestamp(t, timezone(timedelta(seconds=offset_at(h, t)))).isoformat() for t in starts]
    total = sum(sum(c) for c in per.values())
    assert (body["bucket_seconds"], body["sample_seconds"], body["total_samples"]) == (width, step, total)
    assert close(body["aas"], total * step / seconds)
    got = {s["name"]: s for s in body["series"]}
    assert set(got) == set(per)
    ranked = sorted(per, key=lambda g: (-sum(per[g]), g))
    assert [s["name"] for s in body["series"]] == ranked
    for group, counts in per.items():
        assert got[group]["samples"] == sum(counts)
        assert got[group]["points"][0] == times
        assert_values(got[group]["points"][1], [n * step / spans[b] for b, n in enumerate(counts)], group)


@FAST
@given(histories(ash=True, snapshots=st.integers(2, 4)), st.floats(0, 1), st.floats(0, 1))
@example(h=SPRING, f0=0.5, f1=0.99).via("daylight saving inside the window")
@example(h=SPRING, f0=1800.5 / 3610, f1=1800.5 / 1870).via("a sample at `from` (out) and one at `to` (in)")
@example(h=SPLIT, f0=0.2, f1=0.9).via("two offsets at one snap id")
def test_activity_of_a_time_window_is_its_samples_over_its_own_seconds(h, f0, f1):
    """§22: a time range that does not start and end on snapshots is read by sample time: the samples of (from, to]
    whatever snapshot flushed them, buckets counted from `from`, AAS = samples x spacing / the bucket's own seconds (the
    last bucket's the part before `to`) and over the window's seconds; the top lists the same samples, their AAS over
    the window's seconds; the snapshots read those whose intervals hold the window, the spacing that of the last."""
    w0, w1 = a_window(h, f0, f1)
    db = db_of(h)
    utc = UTC
    rng = db.resolve(datetime.fromtimestamp(w0, utc), datetime.fromtimestamp(w1, utc))
    body, tops = activity.compute(db, rng), activity.top(db, rng)
    seconds = w1 - w0
    width = next(w for w in WIDTHS if seconds / w <= 720)
    count = max(math.ceil(seconds / width), 1)
    per: dict = {}
    sessions: dict = {}
    for a in h.samples:
        moment = epoch(a.time, tz_of(h, a))
        if w0 < moment <= w1:
            bucket = min(round(moment - w0) // width, count - 1)
            per.setdefault(a.wait_class or "CPU", [0] * count)[bucket] += 1
            key = f"{a.instance}:{a.session},1"
            sessions[key] = sessions.get(key, 0) + 1
    held_lo, held_hi = holding(h, w0, w1)
    step = spacing(h, held_hi)
    spans = [min(width, seconds - b * width) for b in range(count)]
    starts = [w0 + b * width for b in range(count)]
    times = [datetime.fromtimestamp(t, timezone(timedelta(seconds=offset_at(h, t)))).isoformat() for t in starts]
    total = sum(sum(c) for c in per.values())
    assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (held_lo, held_hi)
    assert body["range"] == tops["range"]
    assert (body["bucket_seconds"], body["sample_seconds"], body["total_samples"]) == (width, step, total)
    assert close(body["aas"], total * step / seconds)
    got = {g["name"]: g for g in body["series"]}
    assert set(got) == set(per)
    for group, counts in per.items():
        assert got[group]["samples"] == sum(counts)
        assert got[group]["points"][0] == times
        assert_values(got[group]["points"][1], [n * step / spans[b] for b, n in enumerate(counts)], group)
    assert tops["total_samples"] == total and tops["sample_seconds"] == step
    listed = {r["name"]: r for r in tops["lists"]["session"]}
    assert {k: r["samples"] for k, r in listed.items()} == sessions
    for r in listed.values():
        assert close(r["aas"], r["samples"] * step / seconds) and close(r["pct_activity"], 100 * r["samples"] / total)


def a_window(h: History, f0: float, f1: float) -> tuple[int, int]:
    """A window (w0, w1] of whole seconds at fractions f0 and f1 of the history's samples and snapshots, not on a
    snapshot's end: a window that starts and ends on snapshots is read as their snapshot range (checked above); one
    that ends before the first snapshot is outside the history, one that starts at the last has no samples flushed."""
    ends = sorted({at(s) for s in h.snaps})
    lo_t = min([epoch(a.time, tz_of(h, a)) for a in h.samples] + [ends[0]]) - 10
    w0 = math.floor(lo_t + f0 * (ends[-1] - lo_t))
    w1 = math.floor(w0 + f1 * (ends[-1] + 60 - w0))
    assume(w0 < w1 and w0 < ends[-1] and w1 >= ends[0] and not ({w0, w1} & set(ends)))
    return w0, w1


def holding(h: History, w0: float, w1: float) -> tuple[int, int]:
    """The snapshots whose intervals hold the window: per instance the last ending at or before `from` and the first
    ending at or after `to`; the lowest of the first, the highest of the second."""
    held_lo = min(
        max((s.snap_id for s in h.rows(i) if at(s) <= w0), default=h.rows(i)[0].snap_id - 1) for i in h.instances()
    )
    held_hi = max(
        min((s.snap_id for s in h.rows(i) if at(s) >= w1), default=h.rows(i)[-1].snap_id) for i in h.instances()
    )
    return held_lo, held_hi


@FAST
@given(
    histories(ash=True, snapshots=st.integers(2, 4), instances=st.integers(1, 3)).flatmap(blocked),
    st.floats(0, 1),
    st.floats(0, 1),
)
# a blocker sampled only before a daylight-saving change, its waiter only after it: two runs of SNAP_TIMEZONE, the
# blocker's samples counted from the other run (history.chains._elsewhere)
@example(
    h=History(
        snaps=(
            Snap(1, 1, "2026-03-29 00:00:00", 0, "2026-03-27 23:59:59"),
            Snap(2, 1, "2026-03-29 00:30:00", 0, "2026-03-29 00:15:00"),
            Snap(3, 1, "2026-03-29 02:00:00", 3600, "2026-03-29 01:45:00"),
        ),
        samples=(
            *(Sample(2, 1, 870 + 10 * k, f"2026-03-29 00:29:{30 + 10 * k}", 2, None) for k in range(3)),
            Sample(2, 1, 900, "2026-03-29 00:30:00", 2, None),
            Sample(3, 1, 900, "2026-03-29 02:00:00", 1, "Application", (1, 2, 1)),
        ),
    ),
    f0=0.0,
    f1=1.0,
)
def test_wait_chains_are_the_blocking_columns_of_the_windows_samples(h, f0, f1):
    """§22: a session is (instance, SID, serial#), its blocker (BLOCKING_INST_ID, BLOCKING_SESSION, BLOCKING_SESSION_
    SERIAL#); over the window's samples, each waiter sits under each of its blockers with the samples it was blocked
    by that one (its event and object, named from DBA_HIST_SEG_STAT_OBJ, else DBA_OBJECTS), its own samples by state
    and event, and the blocked samples behind it (every edge of the sessions it reaches, once), its samples all of its
    own in the window, blocked or not; the roots are the sessions that blocked and were never blocked, or sessions of
    a cycle nothing else blocks (marked), the most waited on first."""
    w0, w1 = a_window(h, f0, f1)
    db = db_of(h)
    body = chains.compute(db, db.resolve(datetime.fromtimestamp(w0, UTC), datetime.fromtimestamp(w1, UTC)))
    step, seconds = spacing(h, holding(h, w0, w1)[1]), w1 - w0
    own, doing, edges, waits = Counter(), Counter(), Counter(), {}
    for a in h.samples:
        if w0 < epoch(a.time, tz_of(h, a)) <= w1:
            me = (a.instance, a.session, 1)
            own[me] += 1
            doing[me, "WAITING" if a.wait_class else "ON CPU", f"{a.wait_class} event" if a.wait_class else "CPU"] += 1
            if a.blocker:
                edges[a.blocker, me] += 1
                waits.setdefault((a.blocker, me), Counter())[f"{a.wait_class} event", a.obj] += 1

    def reach(key) -> set:
        seen, todo = {key}, [key]
        while todo:
            k = todo.pop()
            for b, w in edges:
                if b == k and w not in seen:
                    seen.add(w)
                    todo.append(w)
        return seen

    def behind(key) -> int:
        reached = reach(key)
        return sum(n for (b, _), n in edges.items() if b in reached)

    def key(node) -> tuple:
        return (node["instance"], node["sid"], node["serial"])

    blocking, waiting = {b for b, _ in edges}, {w for _, w in edges}
    assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == holding(h, w0, w1)
    assert body["sample_seconds"] == step
    assert body["blocked_samples"] == sum(edges.values())
    assert body["sessions"] == len(blocking | waiting)
    roots = [key(r) for r in body["roots"]]
    assert blocking - waiting <= set(roots) <= blocking
    assert all(r["cycle"] == (key(r) in waiting) for r in body["roots"])
    assert [r["behind"] for r in body["roots"]] == sorted((r["behind"] for r in body["roots"]), reverse=True)
    shown = set()

    made = [0]  # nodes so far, in the tree's own depth-first order: past chains.MOST_NODES a node is not expanded

    def walk(node, above, path):
        k = key(node)
        made[0] += 1
        assert node["session"] == f"{k[0]}:{k[1]},{k[2]}"
        assert (node["samples"], node["behind"]) == (own[k], behind(k))
        assert close(node["aas"], own[k] * step / seconds) and close(node["behind_aas"], behind(k) * step / seconds)
        assert {(d["state"], d["event"]): d["samples"] for d in node["doing"]} == {
            (state, event): n for (me, state, event), n in doing.items() if me == k
        }
        assert node["note"] is None if own[k] else node["note"]
        # a session already on its path (a cycle) is not expanded again: its waiters are counted, not listed
        again, cut = k in path, made[0] > chains.MOST_NODES
        assert node["cycle"] or not again
        assert node["more_waiters"] == (len({w for b, w in edges if b == k}) if again or cut else 0)
        assert not ((again or cut) and node["waiters"])
        assert node["on_cpu"] == doing[k, "ON CPU", "CPU"]
        if above is not None:
            shown.add((above, k))
            assert node["blocked_samples"] == edges[above, k]
            assert close(node["blocked_aas"], edges[above, k] * step / seconds)
            names = {o: f"APP.T{o}" for o in OBJECTS} | {DICTIONARY_OBJECT: f"APP.D{DICTIONARY_OBJECT}"}
            assert {(w["event"], w["current_obj"], w["object"]): w["samples"] for w in node["waits"]} == {
                (event, obj, names.get(obj)): n for (event, obj), n in waits[above, k].items()
            }
        assert [w["blocked_samples"] for w in node["waiters"]] == sorted(
            (w["blocked_samples"] for w in node["waiters"]), reverse=True
        )
        for w in node["waiters"]:
            walk(w, k, (*path, k))

    for r in body["roots"]:
        walk(r, None, ())
    assert body["truncated"] == (made[0] > chains.MOST_NODES)
    assert shown == set(edges) or body["truncated"]  # every session that blocked is expanded somewhere


@FAST
@given(
    histories(ash=True, snapshots=st.integers(2, 4), instances=st.integers(1, 3)),
    st.floats(0, 1),
    st.floats(0, 1),
    st.sampled_from([("instance", "event"), ("session", "wait_class"), ("wait_class",)]),
)
@example(h=SPRING, f0=0.5, f1=0.99, group_by=("instance", "event")).via("daylight saving inside the window")
def test_ashtop_groups_are_the_windows_samples_by_every_dimension_at_once(h, f0, f1, group_by):
    """§22 (ashtop): the window's samples grouped by several dimensions at once, each group with its samples, AAS over
    the window's seconds, % of all the window's samples, distinct sessions (instance, SID, serial#) and its first
    and last sample's instant (each in its snapshot's offset), the most samples first."""
    w0, w1 = a_window(h, f0, f1)
    db = db_of(h)
    body = ashtop.compute(
        db, db.resolve(datetime.fromtimestamp(w0, UTC), datetime.fromtimestamp(w1, UTC)), list(group_by)
    )
    step, seconds = spacing(h, holding(h, w0, w1)[1]), w1 - w0
    values = {
        "instance": lambda a: a.instance,
        "event": lambda a: f"{a.wait_class} event" if a.wait_class else "CPU",
        "wait_class": lambda a: a.wait_class or "CPU",
        "session": lambda a: f"{a.instance}:{a.session},1",
    }
    groups: dict = {}
    for a in h.samples:
        moment = epoch(a.time, tz_of(h, a))
        if w0 < moment <= w1:
            key = tuple(values[d](a) for d in group_by)
            seen = datetime.fromtimestamp(moment, timezone(timedelta(seconds=tz_of(h, a))))
            g = groups.setdefault(key, {"samples": 0, "sessions": set(), "seen": []})
            g["samples"] += 1
            g["sessions"].add((a.instance, a.session))
            g["seen"].append(seen)
    total = sum(g["samples"] for g in groups.values())
    assert (body["total_samples"], body["sample_seconds"]) == (total, step)
    assert [r["samples"] for r in body["rows"]] == sorted((g["samples"] for g in groups.values()), reverse=True)
    for r in body["rows"]:
        g = groups[tuple(r[d] for d in group_by)]
        assert (r["samples"], r["sessions"]) == (g["samples"], len(g["sessions"]))
        assert close(r["aas"], g["samples"] * step / seconds) and close(r["pct_activity"], 100 * g["samples"] / total)
        for field, want in (("first_seen", min(g["seen"])), ("last_seen", max(g["seen"]))):
            got = datetime.fromisoformat(r[field])
            assert got == want and got.utcoffset() == want.utcoffset(), (field, r[field], want)


def tz_of(h: History, a: Sample) -> int:
    """The offset of a sample's local time: its snapshot's."""
    return next(s.tz for s in h.snaps if (s.instance, s.snap_id) == (a.instance, a.snap_id))


# -- the event histogram: §24 -----------------------------------------------------------------------------------------


def percentile(counts: list[float], uppers: list[int], p: float):
    """§24.4: the bucket where the cumulative count first reaches p % of the waits; inside it lower x 2^f (lower =
    half the upper bound), in the first bucket (< 1 ms) linear from 0 to 1 ms."""
    total = sum(counts)
    if total <= 0:
        return None
    want, seen = total * p / 100, 0.0
    for count, upper in zip(counts, uppers, strict=True):
        if count > 0 and seen + count >= want:
            f = (want - seen) / count
            return f * upper if upper == 1 else upper / 2 * 2**f
        seen += count
    raise AssertionError("unreachable")


@FAST
@given(histories(), PICK, st.sampled_from(["all", 1]))
def test_the_histogram_is_each_buckets_deltas_with_percentiles_under_a_millisecond(h, pick, instance):
    """§24.2: each (instance, bucket) a counter under §3 and §4 (a bucket without a row where the event has rows
    counts 0); §24.3 instances summed per interval, timed at the lowest-numbered instance's snapshot; §24.4
    percentiles, log-linear, linear under 1 ms; §24.5 the distribution."""
    lo, hi = a_range(h, pick)
    db = db_of(h)
    body = histograms.compute(db, EVENT, db.resolve(begin_snap=lo, end_snap=hi), instance)
    if lo == hi:
        assert body["intervals"] == [] and body["reason"]
        return
    per_key: dict = {}  # snap_id -> {upper: count}
    uppers = set()
    for upper in UPPERS:

        def value(s, upper=upper):
            return dict(s.buckets).get(upper, 0) if s.buckets else None

        for inst, points in deltas(h, lo, hi, value).items():
            if instance != "all" and inst != instance:
                continue
            for b, d, _ in points:
                if any(upper == u for s in h.rows(inst) if lo <= s.snap_id <= hi for u, _ in s.buckets):
                    per_key.setdefault(b.snap_id, {})
                    per_key[b.snap_id][upper] = per_key[b.snap_id].get(upper, 0) + d
                    uppers.add(upper)
    uppers = sorted(uppers)
    lowest = {}
    for s in sorted(h.snaps, key=lambda s: s.instance):
        lowest.setdefault(s.snap_id, s)
    assert [b["wait_time_milli"] for b in body["buckets"]] == uppers
    assert [i["snap_id"] for i in body["intervals"]] == sorted(per_key)
    totals = [0] * len(uppers)
    for got in body["intervals"]:
        counts = [per_key[got["snap_id"]].get(u, 0) for u in uppers]
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        assert got["time"] == iso(lowest[got["snap_id"]])
        assert (got["counts"], got["waits"]) == (counts, sum(counts))
        for p in (50, 95, 99):
            assert close(got[f"p{p}_ms"], percentile(counts, uppers, p)), (p, got, counts)
    assert body["waits"] == sum(totals)
    for p in (50, 95, 99):
        assert close(body[f"p{p}_ms"], percentile(totals, uppers, p))
    assert [d["waits"] for d in body["distribution"]] == totals
    assert_values(
        [d["pct"] for d in body["distribution"]], [100 * c / sum(totals) if sum(totals) else None for c in totals], "%"
    )


# -- segments: §25 ----------------------------------------------------------------------------------------------------


@FAST
@given(histories(), PICK)
def test_top_segments_sum_the_deltas_of_the_range_with_their_share_of_the_database(h, pick):
    """§25.1: the *_DELTA columns of begin_snap < SNAP_ID <= end_snap summed per segment over every instance, ranked;
    §25.2 pct_captured of every segment captured, pct_total of `session logical reads` summed under §13 (its valid
    deltas over the range, restarts left out)."""
    lo, hi = a_range(h, pick)
    db = db_of(h)
    body = segments.top(db, db.resolve(begin_snap=lo, end_snap=hi), "logical_reads")
    sums: dict = {}
    for s in h.snaps:
        if lo < s.snap_id <= hi:
            for obj, logical, physical in s.segments:
                got = sums.setdefault(obj, [0, 0])
                got[0], got[1] = got[0] + logical, got[1] + physical
    if lo == hi:
        assert body["rows"] == []
        return
    captured = sum(v[0] for v in sums.values())
    database_total = math.fsum(
        d for points in deltas(h, lo, hi, lambda s: s.counters[READS]).values() for _, d, _ in points
    )
    assert body["captured"] == captured and body["database_total"] == round(database_total)
    rows = {r["obj"]: r for r in body["rows"]}
    assert set(rows) == set(sums)
    order = [r["logical_reads"] for r in body["rows"]]
    assert order == sorted(order, reverse=True)
    for obj, (logical, physical) in sums.items():
        r = rows[obj]
        assert (r["logical_reads"], r["physical_reads"], r["object_name"]) == (logical, physical, f"T{obj}")
        assert close(r["pct_captured"], 100 * logical / captured if captured else None)
        assert close(r["pct_total"], 100 * logical / database_total if database_total else None)


# -- Load Profile and top events: §13, §14 ----------------------------------------------------------------------------


def range_sums(h: History, lo: int, hi: int, instance) -> tuple[dict, dict]:
    """§13.1-2: per instance in scope, each counter's sum of valid deltas over the range (restarts left out) and the
    seconds of the same intervals."""
    sums, seconds = {}, {}
    for inst, rows in span(h, lo, hi).items():
        if instance in ("all", inst):
            valid = [(a, b) for a, b in itertools.pairwise(rows) if a.startup == b.startup]
            seconds[inst] = math.fsum(at(b) - at(a) for a, b in valid)
            for k, (_, _, name) in enumerate(COUNTERS):  # §3: an interval where the counter went down is dropped
                sums[(inst, name)] = math.fsum(max(b.counters[k] - a.counters[k], 0) for a, b in valid)
            sums[(inst, "waits")] = math.fsum(max(b.waits[0] - a.waits[0], 0) for a, b in valid)
            sums[(inst, "micro")] = math.fsum(max(b.waits[1] - a.waits[1], 0) for a, b in valid)
            for k, name in enumerate(("BUSY_TIME", "IDLE_TIME")):  # OSSTAT's counters, where the history has them
                sums[(inst, name)] = math.fsum(max(b.os[k] - a.os[k], 0) for a, b in valid if a.os and b.os)
    return sums, seconds


def measured(h: History, lo: int, hi: int, instance) -> bool:
    """§13: whether an instance in scope has an interval in the range that does not span a restart."""
    return any(
        a.startup == b.startup
        for inst, rows in span(h, lo, hi).items()
        if instance in ("all", inst)
        for a, b in itertools.pairwise(rows)
    )


def over(sums: dict, *names) -> float:
    return math.fsum(v for (_, n), v in sums.items() if n in names)


@FAST
@given(histories(), PICK, st.sampled_from(["all", 1, 2]))
def test_the_load_profile_is_the_clusters_totals_over_the_ranges_time(h, pick, instance):
    """§13: totals of valid deltas summed over the instances; elapsed the longest instance's seconds; per second =
    total / elapsed, per transaction = total / (user commits + user rollbacks); a range of one snapshot, or whose
    every interval spans a restart, has no rows and a reason."""
    lo, hi = a_range(h, pick)
    if instance not in h.instances():
        instance = "all"
    db = db_of(h)
    body = load_profile.compute(db, db.resolve(begin_snap=lo, end_snap=hi), instance)
    sums, seconds = range_sums(h, lo, hi, instance)
    if not measured(h, lo, hi, instance):
        assert body["rows"] == [] and body["reason"]
        return
    elapsed = max(seconds.values())
    assert body["elapsed_seconds"] == round(elapsed)
    assert body["instances"] == [{"instance": i, "seconds": round(seconds[i])} for i in sorted(seconds)]
    check_profile(body["rows"], sums, elapsed)


def profile_totals(sums: dict) -> dict:
    """§13's rows of the history's statistics: each row's total over the instances."""
    return {
        "DB Time(s)": over(sums, "DB time") / 1e6,
        "DB CPU(s)": over(sums, "DB CPU") / 1e6,
        "Redo size (bytes)": over(sums, "redo size"),
        "Logical read (blocks)": over(sums, "session logical reads"),
        "Rollbacks": over(sums, "user rollbacks"),
        "Transactions": over(sums, "user commits", "user rollbacks"),
        "Executes (SQL)": 0.0,
    }


def check_profile(rows: list[dict], sums: dict, elapsed: float):
    """§13.4-7: per second = total / elapsed, per transaction = total / (user commits + user rollbacks)."""
    txns = over(sums, "user commits", "user rollbacks")
    got = {r["metric"]: r for r in rows}
    for metric, total in profile_totals(sums).items():
        r = got[metric]
        assert close(r["total"], total), (metric, r, total)
        assert close(r["per_second"], total / elapsed if elapsed else 0.0), (metric, r)
        assert close(r["per_transaction"], total / txns if txns else None), (metric, r)
        assert r["per_exec"] is None and r["per_call"] is None  # no execute count, no user calls


# A restart across a change of SNAP_TIMEZONE keeps the same local STARTUP_TIME text (02:00 at +00:00, then 02:00 at
# -01:00): no restart is seen, and DB CPU going down is an interval dropped (§3), not a negative delta.
BACK_AN_HOUR = History(
    snaps=(
        Snap(1, 1, "2026-03-29 01:00:00", 0, "2026-03-29 00:15:00", (0, 0, 0, 0, 1, 0)),
        Snap(2, 1, "2026-03-29 02:30:00", 0, "2026-03-29 02:00:00", (0, 0, 0, 0, 2, 1)),
        Snap(3, 1, "2026-03-29 02:30:00", -3600, "2026-03-29 02:00:00", (0, 0, 0, 0, 3, 0)),
    )
)


@FAST
@given(histories(), PICK)
@example(h=BACK_AN_HOUR, pick=(0, 0)).via("a counter going down")
def test_top_events_are_the_events_deltas_with_db_cpu_against_db_time(h, pick):
    """§14: an event's foreground waits and time summed over the instances' valid intervals (§13's), listed only when
    it waited; DB CPU from the time model; avg_ms = time / waits / 1000, pct_db_time = 100 x time / DB time."""
    lo, hi = a_range(h, pick)
    db = db_of(h)
    body = top_events.compute(db, db.resolve(begin_snap=lo, end_snap=hi))
    sums, _ = range_sums(h, lo, hi, "all")
    if not measured(h, lo, hi, "all"):
        assert body["rows"] == [] and body["reason"]
        return
    check_events(body["rows"], sums)


def event_totals(sums: dict) -> dict:
    """§14: per event that waited, (waits, µs waited), and DB CPU (no waits) from the time model."""
    want = {"DB CPU": (None, over(sums, "DB CPU"))}
    if over(sums, "waits") > 0:
        want[EVENT] = (over(sums, "waits"), over(sums, "micro"))
    return want


def check_events(rows: list[dict], sums: dict):
    """§14: avg_ms = time / waits / 1000, pct_db_time = 100 x time / DB time; largest time first."""
    db_time = over(sums, "DB time")
    want = event_totals(sums)
    got = {r["event"]: r for r in rows}
    assert set(got) == set(want)
    for event, (waits, micro) in want.items():
        r = got[event]
        assert r["waits"] == (None if waits is None else round(waits))
        assert close(r["time_s"], micro / 1e6)
        assert close(r["avg_ms"], micro / waits / 1000 if waits else None)
        assert close(r["pct_db_time"], 100 * micro / db_time if db_time else None)
    times = [r["time_s"] for r in rows]
    assert times == sorted(times, reverse=True)


@FAST
@given(histories(), PICK)
def test_top_sql_sums_the_statements_deltas_of_the_range_against_db_time(h, pick):
    """§15: the *_DELTA columns of begin_snap < SNAP_ID <= end_snap summed per statement over every instance and its
    plans, largest elapsed first (ties by SQL_ID); elapsed per execution; % of DB time, DB time summed under §13."""
    lo, hi = a_range(h, pick)
    db = db_of(h)
    body = top_sql.compute(db, db.resolve(begin_snap=lo, end_snap=hi))
    check_top_sql(body["rows"], statement_sums(h, lo, hi), over(range_sums(h, lo, hi, "all")[0], "DB time") / 1e6)


def statement_sums(h: History, lo: int, hi: int) -> dict:
    """§15.1-2: per SQL_ID, its plans and the sums of its *_DELTA columns of begin_snap < SNAP_ID <= end_snap."""
    sums: dict = {}
    for s in h.snaps:
        if lo < s.snap_id <= hi:
            for sql_id, plan, execs, elapsed, cpu in s.sql:
                r = sums.setdefault(sql_id, {"plans": set(), "executions": 0, "elapsed": 0, "cpu": 0})
                r["plans"].add(plan)
                r["executions"] += execs
                r["elapsed"] += elapsed
                r["cpu"] += cpu
    return sums


def check_top_sql(rows: list[dict], sums: dict, db_time: float, key="elapsed"):
    """§15.3-4: largest first by `key` (ties by SQL_ID); elapsed per execution; % of DB time (seconds)."""
    ranked = sorted(sums, key=lambda k: (-sums[k][key], k))
    assert [r["sql_id"] for r in rows] == ranked
    for r in rows:
        want = sums[r["sql_id"]]
        assert set(r["plan_hash_values"]) == want["plans"] and r["executions"] == want["executions"]
        assert close(r["elapsed_s"], want["elapsed"] / 1e6) and close(r["cpu_s"], want["cpu"] / 1e6)
        per_exec = want["elapsed"] / 1000 / want["executions"] if want["executions"] else None
        assert close(r["elapsed_per_exec_ms"], per_exec)
        assert close(r["pct_db_time"], 100 * want["elapsed"] / 1e6 / db_time if db_time else None)


# -- compare: §29, §13, §14, §15, §23 ---------------------------------------------------------------------------------


def change(a, b):
    """§29's change from A to B: 100 x (B - A) / A; empty where either is unknown; from 0, +100 % up, -100 % down,
    0 % to 0."""
    if a is None or b is None:
        return None
    if a == 0:
        return 100.0 if b > 0 else -100.0 if b < 0 else 0.0
    return 100 * (b - a) / a


def in_force(h: History, snap_id: int, instance) -> dict:
    """§23: per instance in scope, the parameters at its own snapshot at or before `snap_id`: {(name, instance):
    value}."""
    out = {}
    for inst in h.instances():
        rows = [s for s in h.rows(inst) if s.snap_id <= snap_id]
        if instance in ("all", inst) and rows:
            out.update({(name, inst): value for name, value in rows[-1].params})
    return out


PER_TRANSACTION = {"DB Time(s)", "DB CPU(s)", "Logical read (blocks)"}  # §29's costs of work among the rows here


@FAST
@given(histories(), PICK, PICK, st.sampled_from(["all", 1, 2]))
def test_compare_gives_each_periods_values_per_second_or_transaction_and_the_change(h, pick_a, pick_b, instance):
    """§29: each period's Load Profile (§13) per second and per transaction, its events (§14), DB time per second, the
    time movers' share of A's DB time, the plans and parameters (§23) in one period only; the change from A to B by
    §29's table. The periods are drawn apart: their instances, restarts and lengths differ."""
    if instance not in h.instances():
        instance = "all"
    note(f"instance={instance!r}")
    (la, ha), (lb, hb) = a_range(h, pick_a), a_range(h, pick_b)
    db = db_of(h)
    body = compare.compute(db, db.resolve(begin_snap=la, end_snap=ha), db.resolve(begin_snap=lb, end_snap=hb), instance)
    periods = []
    for lo, hi in ((la, ha), (lb, hb)):
        sums, seconds = range_sums(h, lo, hi, instance)
        elapsed = max(seconds.values(), default=0.0)
        periods.append(
            {
                "sums": sums,
                "elapsed": elapsed,
                "txns": over(sums, "user commits", "user rollbacks"),
                "events": event_totals(sums) if measured(h, lo, hi, instance) else {},
                "sql": statement_sums(h, lo, hi) if instance == "all" or len(h.instances()) == 1 else {},
                "params": in_force(h, hi, instance),
            }
        )
    pa, pb = periods

    def per_second(p, total):
        return total / p["elapsed"] if p["elapsed"] else None

    def per_transaction(p, total):
        return total / p["txns"] if p["txns"] else None

    assert body["elapsed_seconds"] == {"a": round(pa["elapsed"]), "b": round(pb["elapsed"])}
    db_a, db_b = (per_second(p, over(p["sums"], "DB time") / 1e6) for p in periods)
    assert close(body["db_time"]["a"], db_a) and close(body["db_time"]["b"], db_b)
    assert close(body["db_time"]["change_pct"], change(db_a, db_b))

    rows = {r["metric"]: r for r in body["load_profile"]["rows"]}
    totals = [profile_totals(p["sums"]) for p in periods]
    workload = {}
    for metric in totals[0]:
        (sa, sb), (ta, tb) = (
            [rate(p, t[metric]) for p, t in zip(periods, totals, strict=True)] for rate in (per_second, per_transaction)
        )
        if metric in rows:
            r = rows[metric]
            assert close(r["a_per_second"], sa) and close(r["b_per_second"], sb), (metric, r)
            assert close(r["a_per_transaction"], ta) and close(r["b_per_transaction"], tb), (metric, r)
            assert close(r["change_pct"], change(sa, sb)) and close(r["change_pct_per_transaction"], change(ta, tb))
        else:  # a row is missing only where neither period measured anything
            assert not (pa["events"] or pb["events"]), metric
        a, b = (ta, tb) if metric in PER_TRANSACTION else (sa, sb)
        if a or b:
            workload[metric] = (a, b, "per transaction" if metric in PER_TRANSACTION else "per second")

    time_items = {}
    if pa["elapsed"] and pb["elapsed"]:
        candidates = {("time model", "DB CPU"): [over(p["sums"], "DB CPU") / 1e6 for p in periods]}
        if EVENT in pa["events"] or EVENT in pb["events"]:
            candidates[("wait event", EVENT)] = [over(p["sums"], "micro") / 1e6 for p in periods]
        for sql_id in set(pa["sql"]) | set(pb["sql"]):
            candidates[("sql", sql_id)] = [p["sql"].get(sql_id, {"elapsed": 0})["elapsed"] / 1e6 for p in periods]
        for key, (ta, tb) in candidates.items():
            a, b = ta / pa["elapsed"], tb / pb["elapsed"]
            if a or b:
                time_items[key] = (a, b, "a" if ta and not tb else "b" if tb and not ta else None)
    movers = body["movers"]["rows"]
    assert {(m["kind"], m["item"]) for m in movers if m["group"] == "time"} == set(time_items)
    assert {m["item"] for m in movers if m["group"] == "workload"} == set(workload)
    for m in movers:
        if m["group"] == "time":
            a, b, only_in = time_items[(m["kind"], m["item"])]
            assert close(m["db_time_change_pct"], 100 * (b - a) / db_a if db_a else None), m
        else:
            a, b, measure = workload[m["item"]]
            assert m["measure"] == measure, m
            only_in = "a" if a and not b else "b" if b and not a else None
        assert close(m["a"], a) and close(m["b"], b) and close(m["change_pct"], change(a, b)), m
        assert m["only_in"] == only_in, m

    events = {r["event"]: r for r in body["top_events"]["rows"]}
    assert set(events) == set(pa["events"]) | set(pb["events"])
    for name, r in events.items():
        ta, tb = ((p["events"].get(name, (0, 0))[1] / 1e6 if p["elapsed"] else None) for p in periods)
        assert close(r["a_time_s"], ta) and close(r["b_time_s"], tb), r
        sa, sb = (per_second(p, t or 0) for p, t in ((pa, ta), (pb, tb)))
        assert close(r["a_per_second"], sa) and close(r["b_per_second"], sb) and close(r["change_pct"], change(sa, sb))
        wa, wb = (per_transaction(p, p["events"].get(name, (0, 0))[0]) if name != "DB CPU" else None for p in periods)
        assert close(r["a_waits_per_transaction"], wa) and close(r["b_waits_per_transaction"], wb), r
        assert close(r["waits_per_transaction_change_pct"], change(wa, wb)), r
        assert r["only_in"] == ("a" if ta and not tb else "b" if tb and not ta else None), r
        # §29's table: lower is better for an event's time and its waits per transaction, by nature, whatever the
        # periods hold (DB CPU has no waits)
        assert r["better"] == "lower" and r["better_waits_per_transaction"] == (None if name == "DB CPU" else "lower")

    want = []
    if pa["sql"] or pb["sql"]:
        for sql_id in set(pa["sql"]) & set(pb["sql"]):
            plans_a, plans_b = pa["sql"][sql_id]["plans"], pb["sql"][sql_id]["plans"]
            want += [("plan", sql_id, None, str(p), "appeared") for p in plans_b - plans_a]
            want += [("plan", sql_id, str(p), None, "disappeared") for p in plans_a - plans_b]
    for name, inst in set(pa["params"]) | set(pb["params"]):
        a, b = pa["params"].get((name, inst)), pb["params"].get((name, inst))
        if a != b:
            item = name + (f" (instance {inst})" if len(h.instances()) > 1 else "")
            kind = "changed" if a is not None and b is not None else "set in B only" if a is None else "set in A only"
            want.append(("parameter", item, a, b, kind))
    got = [(d["kind"], d["item"], d["a"], d["b"], d["change"]) for d in body["differences"]["rows"]]
    assert sorted(got, key=str) == sorted(want, key=str)


# -- the app's report: §28, from the references above -----------------------------------------------------------------


@FAST
@given(histories(), PICK, st.sampled_from(["all", 1, 2]))
def test_the_report_gives_the_references_numbers_and_each_instances_own_os_readings(h, pick, instance):
    """§28: the header (elapsed and DB time of §13, AAS = DB time / elapsed, the ends' times at the lowest-numbered
    instance's snapshot), the Load Profile (§13), top events (§14), the time model and wait classes, top SQL (§15),
    and the OS statistics: the counters' valid deltas in seconds with their share of BUSY + IDLE, the readings at the
    range's last snapshot summed over the instances in scope (§8)."""
    if instance not in h.instances():
        instance = "all"
    note(f"instance={instance!r}")
    lo, hi = a_range(h, pick)
    db = db_of(h)
    body = report.compute(db, db.resolve(begin_snap=lo, end_snap=hi), instance)
    sums, seconds = range_sums(h, lo, hi, instance)
    elapsed = max(seconds.values(), default=0.0)
    lowest = {}
    for s in sorted(h.snaps, key=lambda s: s.instance):
        lowest.setdefault(s.snap_id, s)
    head = body["header"]
    assert (head["begin_time"], head["end_time"]) == (iso(lowest[lo]), iso(lowest[hi]))
    assert [i["instance_number"] for i in head["instances"]] == [i for i in h.instances() if instance in ("all", i)]
    if not measured(h, lo, hi, instance):
        assert body["reason"] and "top_events" not in body
        return
    db_time = over(sums, "DB time") / 1e6
    assert close(head["elapsed_s"], elapsed) and close(head["db_time_s"], db_time)
    assert close(head["aas"], db_time / elapsed if elapsed else None)
    check_profile(body["load_profile"], sums, elapsed)
    check_events(body["top_events"], sums)
    model = {r["statistic"]: r for r in body["time_model"]}
    for name in ("DB time", "DB CPU"):
        assert close(model[name]["time_s"], over(sums, name) / 1e6)
        assert close(model[name]["pct_db_time"], 100 * over(sums, name) / 1e6 / db_time if db_time else None)
    classes = {c["wait_class"]: c for c in body["wait_classes"]}
    want = event_totals(sums)
    assert set(classes) == {"CPU" if e == "DB CPU" else "User I/O" for e in want}
    for event, (waits, micro) in want.items():
        c = classes["CPU" if event == "DB CPU" else "User I/O"]
        assert close(c["time_s"], micro / 1e6) and c["waits"] == round(waits or 0)
    # top SQL is the whole database's (§28, §15): its % of DB time too
    everywhere = over(range_sums(h, lo, hi, "all")[0], "DB time") / 1e6
    check_top_sql(body["top_sql"]["elapsed"], statement_sums(h, lo, hi), everywhere)
    check_top_sql(body["top_sql"]["cpu"], statement_sums(h, lo, hi), everywhere, key="cpu")
    os_rows = {r["statistic"]: r for r in body["os"]}
    cpu = over(sums, "BUSY_TIME") + over(sums, "IDLE_TIME")
    for name in ("BUSY_TIME", "IDLE_TIME"):
        r = os_rows[name]
        assert close(r["value"], over(sums, name) / 100) and close(r["per_second"], over(sums, name) / 100 / elapsed)
        assert close(r["pct_of_cpu_time"], 100 * over(sums, name) / cpu if cpu else None)
    cpus = sum(s.os[2] for s in h.snaps if s.snap_id == hi and instance in ("all", s.instance))
    assert os_rows["NUM_CPUS"]["value"] == cpus and os_rows["NUM_CPUS"]["at_end"]


# -- plans: §26 -------------------------------------------------------------------------------------------------------

ONE_SNAPSHOT = (Snap(1, 1, "2026-03-29 00:00:00", 0, "2026-03-28 00:00:00"),)


@FAST
@given(plan_pairs())
def test_plan_lines_are_in_id_order_and_a_renamed_index_is_the_diffs_one_change(pair):
    """§26: a plan's lines in ID order (its pre-order), each with its PARENT_ID, DEPTH and POSITION as stored (the
    root's POSITION is the cost: POSITION order is not the lines' order); two plans aligned on (operation, options,
    object name): a line whose index alone differs is `changed`, the rest `same`, one differing row."""
    lines, renamed = pair
    note(f"renamed={renamed!r}")
    db = db_of(History(ONE_SNAPSHOT, plans=lines))
    body = plans.compute(db, "a1", db.resolve(begin_snap=1, end_snap=1))
    fields = ("id", "parent_id", "depth", "position", "operation", "options", "object_name", "cost")
    for plan in body["plans"]:
        want = sorted((line for line in lines if line.plan_hash_value == plan["plan_hash_value"]), key=lambda x: x.id)
        got = [tuple(line[k] for k in fields) for line in plan["lines"]]
        assert got == [tuple(getattr(line, k) for k in fields) for line in want]
    assert [p["plan_hash_value"] for p in body["plans"]] == [11, 12]
    diff = plans.diff(db, "a1", 11, 12)
    size = len(lines) // 2
    assert [(r["change"], r["a"]["id"], r["b"]["id"]) for r in diff["rows"]] == [
        ("changed" if k == renamed else "same", k, k) for k in range(size)
    ]
    changed = diff["rows"][renamed]
    assert (changed["a"]["object_name"], changed["b"]["object_name"]) == (f"IX{renamed}", f"IX{renamed}_B")
    assert diff["differing"] == 1


# -- bucketed series: §21 ---------------------------------------------------------------------------------------------


# half-hourly snapshots, a manual one now and then: long spans of few gaps, whose buckets the equal steps choose
REGULAR = st.sampled_from([1800, 1800, 1800, 1800, 120])
SELDOM = st.integers(0, 29).map(lambda k: k == 0)  # a restart one snapshot in thirty


def bucket_ids(h: History, spans: dict[int, list[Snap]], n: int) -> set[int] | None:
    """§21.1: the snap ids that bound a long range's buckets, or None where no instance's span has more than
    `n` intervals (every interval is then a point)."""
    if all(len(rows) <= n + 1 for rows in spans.values()):
        return None
    kept_rows = [kept(h.rows(inst)) for inst in h.instances()]
    steps = sorted(at(b) - at(a) for rows in kept_rows for a, b in itertools.pairwise(rows))
    step = steps[len(steps) // 2] if steps else 3600.0  # §2
    keep = set()
    for rows in spans.values():
        if rows:
            keep |= {rows[0].snap_id, rows[-1].snap_id}
        for a, b in itertools.pairwise(rows):
            if a.startup != b.startup or at(b) - at(a) > 1.5 * step:
                keep |= {a.snap_id, b.snap_id}
    ends: dict = {}
    for rows in spans.values():
        for s in rows:
            ends[s.snap_id] = min(ends.get(s.snap_id, math.inf), at(s))
    order = sorted((t, snap_id) for snap_id, t in ends.items())
    parts = n + 1 - len(keep)
    first, last = order[0][0], order[-1][0]
    for k in range(1, parts):
        instant = first + (last - first) * k / parts
        keep.add([snap_id for t, snap_id in order if t <= instant][-1])
    return keep


@FAST
@given(
    histories(instances=st.integers(1, 2), snapshots=st.integers(10, 14), gaps=REGULAR, restarts=SELDOM),
    st.tuples(st.integers(0, 2), st.integers(0, 2)),  # long ranges: a PICK near the widest
    st.integers(3, 10),
    st.sampled_from(["each", "all"]),
    st.sampled_from(
        [("sysstat:redo size", "per_second"), ("sysstat:redo size", "raw"), ("sysstat:logons current", None)]
    ),
)
def test_a_long_range_is_read_in_buckets_of_its_intervals_deltas_over_their_seconds(h, pick, points, instance, asked):
    """§21: the buckets' boundaries (item 1); a counter's bucket is one interval between two boundaries of one
    startup, Σ delta / Σ seconds per second, Σ delta raw, none across a restart (item 2); a reading's is the mean of
    the readings of the snapshots after the previous boundary up to its own, the first boundary its own reading (item
    3); instances combined key by key (§11, item 4); points_total the full resolution's points (item 5); where the
    buckets are more than max_points, LTTB keeps some of them, unchanged (item 6, §19). Ranges end mid-bucket, at
    manual snapshots, and span restarts and gaps."""
    name, rate = asked
    note(f"points={points!r}, instance={instance!r}, asked={asked!r}")
    lo, hi = a_range(h, pick)
    spans = span(h, lo, hi)
    ids = bucket_ids(h, spans, points)
    bounds = {inst: [s for s in rows if ids is None or s.snap_id in ids] for inst, rows in spans.items()}
    if ids is None and rate is None:  # every interval a point: a reading at every snapshot, a merged one too (§8)
        bounds = {inst: [s for s in h.rows(inst) if lo <= s.snap_id <= hi] for inst in spans}
    per: dict = {}
    full: dict = {}  # the keys at full resolution, per instance
    for inst, rows in bounds.items():
        if rate is None:  # a reading: every snapshot of [lo, hi], a merged one too (§8)
            every = [s for s in h.rows(inst) if lo <= s.snap_id <= hi]
            per[inst], after = [], -math.inf
            for b in rows:
                inside = [s.logons for s in every if after < s.snap_id <= b.snap_id]
                per[inst].append((b, math.fsum(inside) / len(inside)))
                after = b.snap_id
            full[inst] = {s.snap_id for s in every}
        else:
            per[inst] = [
                (b, (b.counters[REDO] - a.counters[REDO]) / (at(b) - at(a) if rate == "per_second" else 1))
                for a, b in itertools.pairwise(rows)
                if a.startup == b.startup and b.counters[REDO] >= a.counters[REDO]
            ]
            full[inst] = {b.snap_id for a, b in itertools.pairwise(spans[inst]) if a.startup == b.startup}
    if instance == "each":
        want = {inst: [(iso(s), v) for s, v in per.get(inst, [])] for inst in h.instances()}
        totals = {inst: len(full.get(inst, ())) for inst in h.instances()}
        partials = None
    else:
        want = {"all": combined(per)}
        totals = {"all": len(set().union(*full.values()))}
        partials = {"all": partial(h, lo, hi, per)}
    db = db_of(h)
    answer = series.compute(db, [name], db.resolve(begin_snap=lo, end_snap=hi), instance, rate or "per_second", points)
    got = {s["instance"]: s for s in answer["series"]}
    assert set(got) == set(want)
    for label, points_wanted in want.items():
        times, values = got[label]["points"]
        by_time = dict(points_wanted)
        if len(points_wanted) <= points:  # every bucket a point
            assert times == [t for t, _ in points_wanted], (label, times, points_wanted)
        else:  # LTTB's choice among the buckets, first and last kept
            assert set(times) <= set(by_time) and times[0] == points_wanted[0][0] and times[-1] == points_wanted[-1][0]
            assert len(times) == points, (label, times)
        assert_values(values, [by_time[t] for t in times], label)
        if ids is not None:
            assert got[label]["points_total"] == totals[label], (label, got[label]["points_total"], totals[label])
        if partials is not None:
            assert got[label]["partial"] == [p for p in partials[label] if p["time"] in set(times)]
