"""The normal band (docs/awr-rules.md §32) on histories made here, longer than the demo the tests build (10 days, where
no hour has four weeks before it): five weeks of snapshots with a daily and weekly rhythm, every half hour or every
hour, one with a change of the offset (summer time) inside. The expectation is §32 written out: each interval's
rate, each local hour's mean of the rates that end in it, and per hour of the range the 10th, 50th and 90th
percentiles (linear between the sorted values) of the same local hour 7, 14, 21 and 28 days before."""

import itertools
import math
import random
from datetime import datetime, timedelta

import pytest
from histories import COUNTERS, History, Snap, database, epoch, local

from app.history import normal_band, series

REDO = COUNTERS.index(("sysstat", 1, "redo size"))
START = datetime(2026, 2, 2, 0, 0)  # a Monday, local time


def history(step_minutes: int, summer_from: datetime | None, seed: int) -> History:
    """One instance's snapshots every `step_minutes` for 36 days, redo at a rate with a daily and weekly shape and
    noise; from `summer_from` on, the offset is an hour more (the local clock jumps forward an hour)."""
    rng = random.Random(seed)
    snaps, redo, now, snap_id = [], 0, START, 1
    while now <= START + timedelta(days=36):
        tz = 3600 if summer_from and now >= summer_from else 0
        hour = now.hour + now.minute / 60
        rate = 1000 * (2 + math.sin(math.pi * hour / 12)) * (0.5 if now.weekday() >= 5 else 1) * rng.uniform(0.8, 1.2)
        if snap_id > 1:
            redo += int(rate * step_minutes * 60)
        counters = tuple(redo if k == REDO else 0 for k in range(len(COUNTERS)))
        snaps.append(Snap(snap_id, 1, local(now), tz, local(START - timedelta(hours=1)), counters))
        snap_id += 1
        now += timedelta(minutes=step_minutes)
        if summer_from and now - timedelta(minutes=step_minutes) < summer_from <= now:
            now += timedelta(hours=1)  # the clock moves on an hour at the change
    return History(tuple(snaps))


def expected(h: History, lo: int, hi: int) -> dict:
    """({hour's end as the band gives it (local, naive): (p10, p50, p90) or None}, {the same: the hour's own mean})
    over the range (lo, hi]."""
    rows = h.rows(1)
    rates = []  # (local end, rate) of every interval
    for a, b in itertools.pairwise(rows):
        seconds = epoch(b.end, b.tz) - epoch(a.end, a.tz)
        rates.append((b, (b.counters[REDO] - a.counters[REDO]) / seconds))
    hours: dict = {}
    for s, rate in rates:
        end = datetime.fromisoformat(s.end) - timedelta(microseconds=1)
        hours.setdefault(end.replace(minute=0, second=0, microsecond=0), []).append(rate)
    means = {hour: sum(v) / len(v) for hour, v in hours.items()}

    def pct(values, q):
        v = sorted(values)
        x = (len(v) - 1) * q
        k = math.floor(x)
        return v[k] + (v[min(k + 1, len(v) - 1)] - v[k]) * (x - k)

    out, own = {}, {}
    for s, _ in rates:
        if not lo < s.snap_id <= hi:
            continue
        hour = (datetime.fromisoformat(s.end) - timedelta(microseconds=1)).replace(minute=0, second=0, microsecond=0)
        before = [means.get(hour - timedelta(days=7 * k)) for k in range(1, 5)]
        out[hour + timedelta(hours=1)] = None if None in before else tuple(pct(before, q) for q in (0.1, 0.5, 0.9))
        own[hour + timedelta(hours=1)] = means[hour]
    return out, own


@pytest.mark.parametrize(
    "step, summer_from, seed",
    [(60, None, 1), (30, None, 2), (30, START + timedelta(days=33, hours=2), 3)],
    ids=["hourly", "half-hourly", "across-summer-time"],
)
def test_each_hours_band_is_the_same_local_hour_of_the_four_weeks_before(tmp_path, step, summer_from, seed):
    h = history(step, summer_from, seed)
    db = database(h, tmp_path / "band.sqlite")
    ids = h.snap_ids()
    lo, hi = ids[-1] - 6 * 24 * 60 // step, ids[-1]  # the last 6 days: every hour has 4 weeks before it
    rng = db.resolve(begin_snap=lo, end_snap=hi)
    body = series.compute(db, ["sysstat:redo size"], rng, "all", "per_second", max_points=0)
    band = normal_band.add_bands(db, body, ["sysstat:redo size"], rng, "all", "per_second")["series"][0]["band"]
    want, own = expected(h, lo, hi)
    got = {datetime.fromisoformat(t).replace(tzinfo=None): k for k, t in enumerate(band["times"])}
    assert set(got) == set(want) and band["weeks"] == 4 and band["reason"] is None
    for hour, w in want.items():
        k = got[hour]
        assert w is not None
        for name, value in zip(("p10", "p50", "p90"), w, strict=True):
            assert band[name][k] == pytest.approx(value, rel=1e-6, abs=1e-3), (hour, name)
        assert band["p10"][k] <= band["p50"][k] <= band["p90"][k]
        assert band["value"][k] == pytest.approx(own[hour], rel=1e-6, abs=1e-3)


def test_hours_without_four_weeks_before_have_no_band_and_say_why(tmp_path):
    h = history(60, None, 4)
    db = database(h, tmp_path / "band.sqlite")
    ids = h.snap_ids()
    lo, hi = ids[0] + 24 * 26, ids[0] + 24 * 30  # days 26 to 30: the first two days lack a fourth week
    rng = db.resolve(begin_snap=lo, end_snap=hi)
    body = series.compute(db, ["sysstat:redo size"], rng, "all", "per_second", max_points=0)
    band = normal_band.add_bands(db, body, ["sysstat:redo size"], rng, "all", "per_second")["series"][0]["band"]
    want, _ = expected(h, lo, hi)
    missing = [hour for hour, w in want.items() if w is None]
    assert 0 < len(missing) < len(want)
    shown = {datetime.fromisoformat(t).replace(tzinfo=None): v for t, v in zip(band["times"], band["p50"], strict=True)}
    assert {hour for hour, v in shown.items() if v is None} == set(missing)
    assert band["reason"].startswith(f"{len(missing)} of {len(want)} hours have no band")
    assert "the history starts at 2026-02-02T00:00:00+00:00" in band["reason"]


# -- against an AWR baseline ----------------------------------------------------------------------------------------


def with_baseline(h: History, path, name: str, lo: int, hi: int):
    """The history's store with one static baseline (DBA_HIST_BASELINE, §33) of the snapshots lo..hi."""
    import sqlite3

    from histories import DBID

    db = database(h, path)
    con = sqlite3.connect(path)
    con.execute(
        "INSERT INTO dba_hist_baseline (dbid, baseline_id, baseline_name, baseline_type, start_snap_id, end_snap_id) "
        "VALUES (?, 1, ?, 'STATIC', ?, ?)",
        (DBID, name, lo, hi),
    )
    con.commit()
    con.close()
    return db


def expected_from_baseline(h: History, lo: int, hi: int, b_lo: int, b_hi: int) -> dict:
    """§32 with a baseline: each hour of (lo, hi] against the baseline's hourly means (its intervals (b_lo, b_hi])
    at the same hour of the day, where there are 3 or more."""
    rows = h.rows(1)
    hours: dict = {}
    for a, b in itertools.pairwise(rows):
        if b_lo < b.snap_id <= b_hi:
            rate = (b.counters[REDO] - a.counters[REDO]) / (epoch(b.end, b.tz) - epoch(a.end, a.tz))
            end = datetime.fromisoformat(b.end) - timedelta(microseconds=1)
            hours.setdefault(end.replace(minute=0, second=0, microsecond=0), []).append(rate)
    by_hour: dict = {}
    for hour, rates in hours.items():
        by_hour.setdefault(hour.hour, []).append(sum(rates) / len(rates))

    def pct(values, q):
        v = sorted(values)
        x = (len(v) - 1) * q
        k = math.floor(x)
        return v[k] + (v[min(k + 1, len(v) - 1)] - v[k]) * (x - k)

    out = {}
    for s in rows:
        if lo < s.snap_id <= hi:
            hour = (datetime.fromisoformat(s.end) - timedelta(microseconds=1)).replace(
                minute=0, second=0, microsecond=0
            )
            same = by_hour.get(hour.hour, [])
            out[hour + timedelta(hours=1)] = tuple(pct(same, q) for q in (0.1, 0.5, 0.9)) if len(same) >= 3 else None
    return out


@pytest.mark.parametrize("days, missing", [(5, False), (2.5, True)], ids=["five-days", "two-and-a-half-days"])
def test_a_baselines_band_is_the_same_hour_of_the_day_in_it(tmp_path, days, missing):
    """band_baseline: per hour of the range, the percentiles of the baseline's hourly values at the same local hour of
    the day; where the baseline has the hour on fewer than 3 days, none, and the reason names the baseline."""
    h = history(30, None, 5)
    ids = h.snap_ids()
    b_lo = ids[0] + 48 * 10  # day 10 on
    b_hi = b_lo + int(48 * days)
    db = with_baseline(h, tmp_path / "band.sqlite", "QUIET_WEEK", b_lo, b_hi)
    lo, hi = ids[-1] - 48 * 2, ids[-1]
    rng = db.resolve(begin_snap=lo, end_snap=hi)
    body = series.compute(db, ["sysstat:redo size"], rng, "all", "per_second", max_points=0)
    band = normal_band.add_bands(db, body, ["sysstat:redo size"], rng, "all", "per_second", "QUIET_WEEK")
    band = band["series"][0]["band"]
    want = expected_from_baseline(h, lo, hi, b_lo, b_hi)
    got = {datetime.fromisoformat(t).replace(tzinfo=None): k for k, t in enumerate(band["times"])}
    assert set(got) == set(want) and band["baseline"]["name"] == "QUIET_WEEK"
    assert (band["baseline"]["begin_snap"], band["baseline"]["end_snap"]) == (b_lo, b_hi)
    assert any(w is None for w in want.values()) == missing
    for hour, w in want.items():
        k = got[hour]
        for name, value in zip(("p10", "p50", "p90"), w or (None,) * 3, strict=True):
            assert band[name][k] == (None if value is None else pytest.approx(value, rel=1e-6, abs=1e-3)), (hour, name)
    if missing:
        assert "3 days or more of baseline QUIET_WEEK" in band["reason"]
    else:
        assert band["reason"] is None


def test_an_unknown_baseline_is_404_naming_the_baselines(tmp_path):
    from app.errors import NotFound

    h = history(60, None, 6)
    ids = h.snap_ids()
    db = with_baseline(h, tmp_path / "band.sqlite", "KEPT", ids[10], ids[100])
    rng = db.resolve(begin_snap=ids[-10], end_snap=ids[-1])
    body = series.compute(db, ["sysstat:redo size"], rng, "all", "per_second", max_points=0)
    with pytest.raises(NotFound) as err:
        normal_band.add_bands(db, body, ["sysstat:redo size"], rng, "all", "per_second", "GONE")
    assert "'GONE' is not an AWR baseline" in err.value.message and "its baselines: KEPT" in err.value.message
