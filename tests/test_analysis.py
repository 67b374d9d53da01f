"""The analysis rules on hand-computed cases (docs/awr-rules.md §3-§11)."""

import math
import random
from datetime import UTC, datetime

import pytest

from app import analysis, iso8601
from app.analysis import Point, Timeline, combine, counter_points, deltas, make_snap, ratio_points

A, B = "2026-01-01 00:00:00", "2026-01-03 07:00:00"  # two STARTUP_TIMEs


def snap(snap_id, minutes, startup=A, instance=1, flag=0, tz=0):
    h, m = divmod(minutes, 60)
    d, h = divmod(h, 24)
    return make_snap(snap_id, instance, startup, f"2026-01-{3 + d:02d} {h:02d}:{m:02d}:00", flag, tz)


def test_restart_interval_is_dropped_even_when_the_new_counter_is_larger():
    snaps = [snap(1, 0), snap(2, 30), snap(3, 90, B), snap(4, 120, B)]
    # 500 > 400: a negative-delta check alone would chart 100 over the restart
    values = {1: 100, 2: 400, 3: 500, 4: 800}
    got = [(p.key, p.num, p.den) for p in deltas(values, snaps)]
    assert got == [(2, 300, 1800), (4, 300, 1800)]


def test_restart_with_a_reset_counter_never_gives_a_negative_rate():
    snaps = [snap(1, 0), snap(2, 30), snap(3, 60, B), snap(4, 90, B)]
    pts = counter_points({1: 1000, 2: 1900, 3: 30, 4: 930}, snaps, "per_second")
    assert [(p.key, p.num / p.den) for p in pts] == [(2, 0.5), (4, 0.5)]


def test_restart_marker():
    tl = Timeline([snap(1, 0), snap(2, 30), snap(3, 90, B), snap(4, 120, B)])
    marks = tl.markers(1, 4)
    assert [m["snap_id"] for m in marks["restarts"]] == [3]
    assert marks["restarts"][0]["startup_time"] == "2026-01-03T07:00:00+00:00"


def test_gap_uses_consecutive_end_times():
    snaps = [snap(1, 0), snap(2, 30), snap(3, 150)]  # snapshots at 60, 90, 120 missing
    pts = counter_points({1: 0, 2: 1800, 3: 9000}, snaps, "per_second")
    assert [(p.key, p.num, p.den) for p in pts] == [(2, 1800, 1800), (3, 7200, 7200)]
    tl = Timeline([*snaps, snap(4, 180)])
    missing = tl.markers(1, 4)["missing"]
    assert [(m["after_snap_id"], m["before_snap_id"], m["seconds"]) for m in missing] == [(2, 3, 7200)]


def test_manual_snapshot_a_few_minutes_after_is_merged_into_the_next_interval():
    snaps = [snap(1, 0), snap(2, 4, flag=1), snap(3, 30)]
    tl = Timeline(snaps, min_interval=300)
    kept = tl.kept[1]
    assert [s.snap_id for s in kept] == [1, 3]
    pts = counter_points({1: 0, 2: 2400, 3: 3600}, kept, "per_second")
    assert [(p.key, p.num / p.den) for p in pts] == [(3, 2.0)]  # not 10/s then 0.77/s
    assert [m["snap_id"] for m in tl.markers(1, 3)["merged_snapshots"]] == [2]


@pytest.mark.parametrize("minutes, flag, merged", [(2, 0, True), (2, 1, True), (40, 1, False), (40, 0, False)])
def test_merging_is_decided_by_the_interval_to_the_previous_kept_snapshot_not_by_the_flag(minutes, flag, merged):
    """docs/awr-rules.md §6: an unflagged snapshot two minutes after another merges; a flagged (manual) one forty
    minutes later is an ordinary interval."""
    tl = Timeline([snap(1, 0), snap(2, minutes, flag=flag), snap(3, minutes + 60)], min_interval=300)
    assert [s.snap_id for s in tl.kept[1]] == ([1, 3] if merged else [1, 2, 3])
    assert [m["snap_id"] for m in tl.markers(1, 3)["merged_snapshots"]] == ([2] if merged else [])


def test_the_interval_is_measured_from_the_last_kept_snapshot():
    """Snapshots at 0, 3, 6 and 9 minutes with a 5-minute threshold: 3 merges (3 min after 0), 6 is kept (6 min after
    0, the last kept one, though only 3 after the merged 3), 9 merges again."""
    tl = Timeline([snap(1, 0), snap(2, 3), snap(3, 6), snap(4, 9), snap(5, 30)], min_interval=300)
    assert [s.snap_id for s in tl.kept[1]] == [1, 3, 5]


@pytest.mark.parametrize("min_interval, kept", [(120, [1, 2, 3]), (600, [1, 3]), (1800, [1, 3])])
def test_the_threshold_is_the_setting(min_interval, kept):
    """A snapshot 7 minutes after the previous one: an interval under a 2-minute threshold, merged under 10 or 30."""
    tl = Timeline([snap(1, 0), snap(2, 7), snap(3, 37)], min_interval=min_interval)
    assert [s.snap_id for s in tl.kept[1]] == kept


def test_rac_counters_and_rates_are_summed():
    s1 = [snap(1, 0, instance=1), snap(2, 30, instance=1)]
    s2 = [snap(1, 0, instance=2), snap(2, 30, instance=2)]
    per = {1: counter_points({1: 0, 2: 3600}, s1, "per_second"), 2: counter_points({1: 0, 2: 5400}, s2, "per_second")}
    assert [p.num for p in combine(per, "sum_of_ratios")] == [5.0]  # 2/s + 3/s


def test_rac_percentages_are_ratio_of_sums():
    s1 = [snap(1, 0, instance=1), snap(2, 30, instance=1)]
    s2 = [snap(1, 0, instance=2), snap(2, 30, instance=2)]
    # node 1: busy 30 of 100 cs (30 %); node 2: busy 90 of 200 cs (45 %)
    per = {
        1: ratio_points({1: 0, 2: 30}, {1: 0, 2: 100}, s1, 100),
        2: ratio_points({1: 0, 2: 90}, {1: 0, 2: 200}, s2, 100),
    }
    assert combine(per, "ratio_of_sums")[0].num == pytest.approx(40.0)  # 120/300, not the mean 37.5


def test_per_transaction_single_and_rac():
    s1 = [snap(1, 0, instance=1), snap(2, 30, instance=1)]
    s2 = [snap(1, 0, instance=2), snap(2, 30, instance=2)]
    txn1 = analysis.interval_deltas({1: 5, 2: 15}, s1)  # 10 transactions
    txn2 = analysis.interval_deltas({1: 0, 2: 50}, s2)  # 50 transactions
    p1 = counter_points({1: 0, 2: 1000}, s1, "per_txn", txn1)
    p2 = counter_points({1: 0, 2: 3000}, s2, "per_txn", txn2)
    assert p1[0].num / p1[0].den == 100
    assert combine({1: p1, 2: p2}, "ratio_of_sums")[0].num == pytest.approx(4000 / 60)  # not the mean 80


def test_per_transaction_skips_intervals_without_transactions():
    s = [snap(1, 0), snap(2, 30), snap(3, 60)]
    txn = analysis.interval_deltas({1: 0, 2: 0, 3: 4}, s)
    pts = counter_points({1: 0, 2: 100, 3: 200}, s, "per_txn", txn)
    assert [(p.key, p.num / p.den) for p in pts] == [(3, 25)]


def test_point_in_time_readings_are_not_deltas():
    s = [snap(1, 0), snap(2, 30), snap(3, 60)]
    pts = analysis.reading_points({1: 120, 2: 80, 3: 95}, s)
    assert [p.num for p in pts] == [120, 80, 95]


def test_readings_of_a_down_instance_add_nothing():
    per = {1: [Point(1, 0, "t", 4)], 2: [Point(1, 0, "t", 6), Point(2, 1800, "t2", 6)]}
    assert [(p.key, p.num) for p in combine(per, "sum_of_ratios")] == [(1, 10), (2, 6)]
    assert [(p.key, p.num) for p in combine(per, "mean")] == [(1, 5), (2, 6)]


def test_a_snapshot_range_is_its_intervals_after_begin_snap():
    tl = Timeline([snap(10, 0), snap(11, 30), snap(12, 60)])
    rows = tl.span(11, 12)[1]
    assert [x.snap_id for x in rows] == [11, 12]  # the interval ending at 11 is before the range
    pts = counter_points({10: 0, 11: 1800, 12: 5400}, rows, "per_second")
    assert [(p.key, p.num / p.den) for p in pts] == [(12, 2.0)]
    assert [x.snap_id for x in tl.span(10, 12)[1]] == [10, 11, 12]
    assert tl.span(13, 14)[1] == [] and [x.snap_id for x in tl.span(12, 12)[1]] == [12]


@pytest.mark.parametrize("fraction", [".000", ".123", ".000074", ".999985"])
def test_a_time_range_of_the_times_answered_holds_the_snapshots_they_name(fraction):
    """§12: END_INTERVAL_TIME with a fraction of a second (Oracle keeps ms, imported reports µs) is answered to the
    second (Snap.time): a range from one snapshot's answered time to another's holds the intervals after the first up
    to the second, neither the one ending at the first nor fewer at the end."""
    tl = Timeline([make_snap(i, 1, A, f"2026-01-03 {i:02d}:00:00{fraction}") for i in range(1, 6)])
    t = {s.snap_id: iso8601.parse(s.time).timestamp() for s in tl.all[1]}
    assert all(s.time.endswith(f"{s.snap_id:02d}:00:00+00:00") for s in tl.all[1])
    assert tl.ending_after(t[2], t[4]) == (2, 4)
    assert tl.ending_after(t[1], t[5]) == (1, 5)
    assert tl.ending_after(t[3], t[3]) == (3, 3)


def test_a_range_begins_at_an_instances_first_snapshot_in_it():
    tl = Timeline([snap(10, 0), snap(12, 60), snap(10, 0, instance=2), snap(11, 30, instance=2)])
    span = tl.span(11, 12)
    assert [x.snap_id for x in span[1]] == [12] and [x.snap_id for x in span[2]] == [11]


def test_a_range_may_begin_and_end_at_a_merged_snapshot():
    # 11 and 13 are manual snapshots 4 minutes after an automatic one: merged for the whole history (§6), yet a
    # range from or to them starts or ends there, as an AWR report between them does
    tl = Timeline([snap(10, 0), snap(11, 4, flag=1), snap(12, 30), snap(13, 34, flag=1), snap(14, 60)])
    assert [x.snap_id for x in tl.span(10, 14)[1]] == [10, 12, 14]
    assert [x.snap_id for x in tl.span(11, 13)[1]] == [11, 12, 13]
    assert [x.snap_id for x in tl.span(10, 11)[1]] == [10, 11]
    values = {10: 0, 11: 480, 12: 1000, 13: 1720, 14: 3000}
    pts = counter_points(values, tl.span(10, 11)[1], "raw")
    assert [(p.key, p.num) for p in pts] == [(11, 480)]  # the manual interval, not 0
    assert [(p.key, p.num) for p in counter_points(values, tl.span(11, 14)[1], "raw")] == [(12, 520), (14, 2000)]
    assert [m["snap_id"] for m in tl.markers(10, 14)["merged_snapshots"]] == [11, 13]
    assert [m["snap_id"] for m in tl.markers(11, 13)["merged_snapshots"]] == []


def test_absent_names_the_instances_a_combined_point_leaves_out():
    per = {1: [Point(1, 0, "t", 4), Point(2, 1800, "t2", 5)], 2: [Point(1, 0, "t", 6)]}
    assert analysis.absent(per, [1, 2]) == {2: [2]}
    assert analysis.absent(per, [1, 2, 3]) == {1: [3], 2: [2, 3]}
    assert analysis.absent(per, [1]) == {}


def test_time_zone_offset_in_iso_times():
    s = snap(1, 0, tz=3600)
    assert s.time == "2026-01-03T00:00:00+01:00"
    assert s.epoch == snap(1, 0).epoch - 3600


def test_lttb_keeps_the_peak_and_the_ends():
    points = [(str(i), float(i), 1.0) for i in range(1000)]
    points[537] = ("537", 537.0, 50.0)
    out = analysis.lttb(points, 20)
    assert len(out) == 20
    assert out[0] == points[0] and out[-1] == points[-1]
    assert max(p[2] for p in out) == 50.0
    assert analysis.lttb(points, 0) is points and analysis.lttb(points[:10], 20) == points[:10]


def _lttb_reference(data, threshold):
    """Largest-Triangle-Three-Buckets as Steinarsson's thesis gives it ("Downsampling Time Series for Visual
    Representation", 2013, algorithm 4.2): the first and last points kept; the rest in threshold - 2 buckets of
    (n - 2) / (threshold - 2) points; from each bucket the point making the largest triangle with the point kept
    before it and the average of the next bucket (the first such point on a tie)."""
    n = len(data)
    every = (n - 2) / (threshold - 2)
    out, a = [data[0]], 0
    for i in range(threshold - 2):
        lo, hi = math.floor((i + 1) * every) + 1, min(math.floor((i + 2) * every) + 1, n)
        avg_x = math.fsum(p[1] for p in data[lo:hi]) / (hi - lo)
        avg_y = math.fsum(p[2] for p in data[lo:hi]) / (hi - lo)
        ax, ay = data[a][1], data[a][2]
        best, best_area = None, -1.0
        for j in range(math.floor(i * every) + 1, math.floor((i + 1) * every) + 1):
            area = abs((ax - avg_x) * (data[j][2] - ay) - (ax - data[j][1]) * (avg_y - ay)) * 0.5
            if area > best_area:
                best, best_area = j, area
        out.append(data[best])
        a = best
    out.append(data[n - 1])
    return out


@pytest.mark.parametrize("seed", range(12))
def test_lttb_is_the_published_algorithm(seed):
    """§19's downsampling picks the same points as the published algorithm, on series with spikes, plateaus (ties),
    uneven times, and every bucket size from one point to hundreds."""
    rnd = random.Random(seed)
    n = rnd.choice([4, 5, 17, 100, 997, 4320])
    t, points = 0.0, []
    for i in range(n):
        t += rnd.choice([60.0, 60.0, 60.0, 1800.0, 7.5])
        y = rnd.choice([1.0, 1.0, rnd.random() * 100, rnd.expovariate(0.01)]) if seed % 4 else 7.5  # some flat
        points.append((str(i), t, y))
    for threshold in sorted({3, 4, n - 1, max(3, n // 2), max(3, n // 7), min(n - 1, 1000)}):
        if 3 <= threshold < n:
            out = analysis.lttb(points, threshold)
            assert out == _lttb_reference(points, threshold), (n, threshold)
            assert len(out) == threshold


def test_lttb_keeps_every_point_when_it_cannot_or_need_not_drop_any():
    points = [(str(i), float(i), float(i % 7)) for i in range(50)]
    for threshold in (0, 1, 2, 50, 51, 1000):
        assert analysis.lttb(points, threshold) is points
    assert len(analysis.lttb(points, 3)) == 3 and len(analysis.lttb(points, 49)) == 49


def test_a_long_range_is_bucketed_at_its_ends_restarts_gaps_and_equal_steps_of_time():
    """§21: the ends, both sides of the restart (5 | 6) and of the gap (10 | 11), then the last snapshot at or before
    each quarter of the range's time (120, 240, 360 minutes: 5, 9, 10); the telescoped deltas add up to the same."""
    minutes = {1: 0, 2: 30, 3: 60, 4: 90, 5: 120, 6: 150, 7: 180, 8: 210, 9: 240, 10: 270, 11: 420, 12: 450, 13: 480}
    tl = Timeline([snap(i, m, A if i < 6 else B) for i, m in minutes.items()])
    span = tl.span(1, 13)
    assert tl.sampled(span, 12) is None and tl.sampled(span, 0) is None  # 12 intervals: every one is a point
    bounds = tl.sampled(span, 9)
    assert [s.snap_id for s in bounds[1]] == [1, 5, 6, 9, 10, 11, 13]
    values = {i: 100 * i * i if i < 6 else 7 * (i - 5) ** 3 for i in minutes}
    full, bucketed = (counter_points(values, rows, "raw") for rows in (span[1], bounds[1]))
    assert [(p.key, p.num) for p in bucketed] == [(5, 2400), (9, 441), (10, 427), (11, 637), (13, 2072)]
    assert sum(p.num for p in bucketed) == sum(p.num for p in full)
    per_second = counter_points(values, bounds[1], "per_second")
    assert [p.den for p in per_second] == [7200, 5400, 1800, 9000, 3600]  # the bucket's seconds, restart left out


def test_a_bucket_of_readings_or_rates_is_the_mean_of_its_rows():
    """§21: running sums (value x weight, weight) at the boundaries 1, 3, 5 of readings 10, 20, 30, 40, 50: the first
    boundary's own reading, then the mean of the rows after the previous boundary; an Oracle rate has no point at the
    range's first snapshot (first=1). A boundary without a row is skipped, its rows counted in the next bucket."""
    rows = [snap(i, 30 * i) for i in (1, 3, 5)]
    sums = {1: (10, 1), 3: (60, 3), 5: (150, 5)}
    assert [(p.key, p.num / p.den) for p in analysis.bucket_means(sums, rows)] == [(1, 10), (3, 25), (5, 45)]
    assert [(p.key, p.num / p.den) for p in analysis.bucket_means(sums, rows, first=1)] == [(3, 25), (5, 45)]
    weighted = {1: (10 * 60, 60), 3: (10 * 60 + 20 * 1800 + 40 * 240, 60 + 1800 + 240)}
    (point,) = analysis.bucket_means(weighted, rows[:2], first=1)
    assert point.num / point.den == pytest.approx((20 * 1800 + 40 * 240) / 2040)  # time-weighted
    assert [(p.key, p.num / p.den) for p in analysis.bucket_means({1: (10, 1), 5: (150, 5)}, rows)] == [
        (1, 10),
        (5, 35),
    ]


# -- the timeline's edges (docs/awr-rules.md §2, §4-§6), from the mutation run (docs/mutation.md) -----------------


def at(snap_id, seconds, startup=A, instance=1):
    """A snapshot `seconds` after 2026-01-03 00:00:00."""
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return make_snap(snap_id, instance, startup, f"2026-01-03 {h:02d}:{m:02d}:{s:02d}")


@pytest.mark.parametrize("after, merged", [(299, True), (300, False), (301, False)])
def test_by_default_a_snapshot_less_than_300_s_after_the_last_kept_one_is_merged(after, merged):
    """§6: less than AWRLENS_MIN_INTERVAL (300 s by default) merges; exactly 300 s is an interval of its own."""
    tl = Timeline([at(1, 0), at(2, after), at(3, after + 1800)])
    assert [s.snap_id for s in tl.kept[1]] == ([1, 3] if merged else [1, 2, 3])


def test_the_step_is_the_median_interval():
    """§2: intervals of 10, 20, 30, 40 and 50 minutes: the step is 30 minutes."""
    tl = Timeline([at(i + 1, t * 60) for i, t in enumerate([0, 10, 30, 60, 100, 150])])
    assert tl.step == 1800


def test_a_single_snapshot_has_no_interval_and_an_hour_for_step():
    """No interval to measure: Oracle's default AWR interval, 60 minutes, and no marker."""
    tl = Timeline([at(1, 0)])
    assert tl.step == 3600
    assert tl.markers(1, 1) == {"restarts": [], "missing": [], "merged_snapshots": []}


@pytest.mark.parametrize("last, gap", [(2700, False), (2760, True)])
def test_a_gap_is_an_interval_longer_than_one_and_a_half_steps(last, gap):
    """§5: a 30-minute step; 45 minutes is not a gap, 46 is."""
    tl = Timeline([at(1, 0), at(2, 1800), at(3, 3600), at(4, 5400), at(5, 5400 + last)])
    assert tl.step == 1800
    assert [(m["after_snap_id"], m["before_snap_id"]) for m in tl.markers(1, 5)["missing"]] == ([(4, 5)] if gap else [])


def test_markers_carry_every_field_the_api_documents():
    """§4: a restart marker has instance, snap_id, time and startup_time; §5: a missing marker has instance,
    after_snap_id, before_snap_id, from, to and seconds; §6: a merged one has instance, snap_id and time."""
    tl = Timeline([at(1, 0), at(2, 1800), at(3, 1860), at(4, 3600), at(5, 5400), at(6, 9000), at(7, 10800, startup=B)])
    marks = tl.markers(1, 7)
    assert marks["missing"] == [
        {
            "instance": 1,
            "after_snap_id": 5,
            "before_snap_id": 6,
            "from": "2026-01-03T01:30:00+00:00",
            "to": "2026-01-03T02:30:00+00:00",
            "seconds": 3600,
        }
    ]
    assert marks["restarts"] == [
        {"instance": 1, "snap_id": 7, "time": "2026-01-03T03:00:00+00:00", "startup_time": "2026-01-03T07:00:00+00:00"}
    ]
    assert marks["merged_snapshots"] == [{"instance": 1, "snap_id": 3, "time": "2026-01-03T00:31:00+00:00"}]


@pytest.mark.parametrize("seed", range(6))
def test_a_counter_per_second_in_one_pass_is_its_deltas_over_their_seconds(seed):
    """counter_rates (a series drawn as it is, one instance) gives deltas()'s points as num / den x scale: the same
    intervals dropped at restarts, missing values and counters that went backwards (§3-§5), the same numbers."""
    rnd = random.Random(seed)
    snaps, values, minutes, startup, value = [], {}, 0, A, 0.0
    for i in range(1, 500):
        minutes += rnd.choice([30, 30, 30, 60, 240, 2])
        if rnd.random() < 0.02:
            startup, value = (B if startup == A else A), rnd.choice([0.0, value * 1.5])
        snaps.append(snap(i, minutes, startup))
        value += rnd.choice([0.0, rnd.random() * 1e7, -5.0 if rnd.random() < 0.05 else 1.0])
        if rnd.random() > 0.03:
            values[i] = value
    scale = rnd.choice([1.0, 1e-6, 100.0])
    times, rates = analysis.counter_rates(values, snaps, scale)
    expected = deltas(values, snaps)
    assert times == [p.time for p in expected] and rates == [p.num / p.den * scale for p in expected]
    assert len(expected) < len(snaps) - 10  # some intervals were dropped


@pytest.mark.parametrize("how", ["sum_of_ratios", "ratio_of_sums", "mean"])
def test_combined_points_follow_the_rac_rules_for_one_two_and_three_instances(how):
    """§11: per key, the sum of each instance's num / den, the sum of nums over the sum of dens (none where the dens
    add up to 0), or the mean of num / den; the time of the earliest instance's snapshot; an absent instance adds
    nothing. (Only a ratio of sums meets a den of 0: a counter's interval has seconds.)"""
    rnd = random.Random(how)
    per = {i: [] for i in (1, 2, 3)}
    for key in range(1, 400):
        for inst in rnd.sample([1, 2, 3], rnd.choice([1, 2, 2, 2, 3])):
            den = rnd.choice([0.0 if how == "ratio_of_sums" else 60.0, 1800.0, rnd.random() * 100 + 1])
            epoch = key * 1800.0 + rnd.choice([0.0, 3.0, -2.0])
            per[inst].append(Point(key, epoch, f"t{epoch}", rnd.random() * 1e6, den))
    got = {p.key: p for p in combine(per, how)}
    for key in range(1, 400):
        ps = [p for i in (1, 2, 3) for p in per[i] if p.key == key]
        dens = math.fsum(p.den for p in ps)
        if how == "ratio_of_sums" and dens == 0:
            assert key not in got
            continue
        if how == "ratio_of_sums":
            expected = math.fsum(p.num for p in ps) / dens
        else:
            expected = math.fsum(p.num / p.den for p in ps) / (len(ps) if how == "mean" else 1)
        earliest = min(ps, key=lambda p: p.epoch)
        assert (got[key].num, got[key].den) == (expected, 1.0)
        assert (got[key].epoch, got[key].time) == (earliest.epoch, earliest.time)


# -- the snapshot list, the timeline's lookups and the combination's edges (docs/awr-rules.md §2-§12, §21), from the
# -- mutation run of the whole module (docs/mutation.md) -----------------------------------------------------------

T0 = datetime(2026, 1, 3, tzinfo=UTC).timestamp()  # snap()'s minute 0, as seconds since 1970 UTC


def test_a_snapshot_carries_its_end_time_startup_time_and_flag():
    """§2: END_INTERVAL_TIME (as read, as an instant and as ISO 8601 with the offset), STARTUP_TIME and SNAP_FLAG
    (0 automatic, 1 manual; a flag not read is 0)."""
    s = make_snap(7, 2, A, "2026-01-03 01:30:00")
    assert (s.snap_id, s.instance, s.flag) == (7, 2, 0)
    assert s.end == datetime(2026, 1, 3, 1, 30) and s.startup == datetime(2026, 1, 1)
    assert s.epoch == T0 + 5400 and s.time == "2026-01-03T01:30:00+00:00"
    assert s.startup_time == "2026-01-01T00:00:00+00:00"
    assert [make_snap(7, 2, A, "2026-01-03 01:30:00", flag).flag for flag in (0, None, 1)] == [0, 0, 1]


def test_oracle_hands_back_datetimes_and_the_embedded_store_text():
    """§17: python-oracledb reads END_INTERVAL_TIME and STARTUP_TIME as datetimes, SQLite as ISO text; both are the
    database's local time, placed in time by SNAP_TIMEZONE (here +01:00)."""
    s = make_snap(7, 1, datetime(2026, 1, 1), datetime(2026, 1, 3, 1, 30), 0, 3600)
    assert s.end == datetime(2026, 1, 3, 1, 30) and s.startup == datetime(2026, 1, 1)
    assert s.epoch == T0 + 5400 - 3600 and s.time == "2026-01-03T01:30:00+01:00"
    assert s.startup_time == "2026-01-01T00:00:00+01:00"
    assert analysis.as_datetime(datetime(2026, 1, 3, 1, 30)) == datetime(2026, 1, 3, 1, 30)
    assert analysis.as_datetime("2026-01-03 01:30:00") == datetime(2026, 1, 3, 1, 30)


def rac_timeline():
    """Two instances: 1 took snapshots 10-13 at 0, 30, 60 and 90 minutes; 2 took each a minute later, missed 13 and
    took 14 at 121 minutes, when 1 was down. Given instance 2 first: the timeline orders them."""
    two = [snap(10, 1, instance=2), snap(11, 31, instance=2), snap(12, 61, instance=2), snap(14, 121, instance=2)]
    return Timeline([*two, snap(10, 0), snap(11, 30), snap(12, 60), snap(13, 90)])


def test_the_timeline_lists_its_instances_and_snapshots():
    """§2: the snapshot list per instance; its instances and snap_ids in order; a database-wide row at a snap_id is
    timed by the lowest-numbered instance that has it (1, and 2 at 14); the newest and oldest snapshot by time."""
    tl = rac_timeline()
    assert tl.instances == [1, 2]
    assert tl.snap_ids == [10, 11, 12, 13, 14]
    assert {k: (s.instance, s.epoch) for k, s in tl.lowest.items()} == {
        10: (1, T0),
        11: (1, T0 + 1800),
        12: (1, T0 + 3600),
        13: (1, T0 + 5400),
        14: (2, T0 + 121 * 60),
    }
    assert (tl.newest().instance, tl.newest().snap_id) == (2, 14)
    assert (tl.oldest().instance, tl.oldest().snap_id) == (1, 10)
    empty = Timeline([])
    assert empty.newest() is None and empty.oldest() is None and empty.snap_ids == [] and empty.instances == []


def test_a_snapshot_range_resolves_to_its_first_and_last_snap_id_and_end_times():
    """§12: begin_snap..end_snap gives the snap_ids of any instance inside it and their earliest and latest end;
    a range holding no snapshot gives nothing."""
    tl = rac_timeline()
    assert tl.with_ids(11, 13) == (11, 13, T0 + 1800, T0 + 5400)
    assert tl.with_ids(12, 14) == (12, 14, T0 + 3600, T0 + 121 * 60)
    assert tl.with_ids(9, 10) == (10, 10, T0, T0 + 60)
    assert tl.with_ids(15, 20) is None and tl.with_ids(1, 9) is None


def test_a_time_range_is_the_snapshots_ending_inside_it_ends_included():
    """§12: the snapshots of any instance whose END_INTERVAL_TIME falls within [from, to] give begin_snap and
    end_snap; none, nothing."""
    tl = rac_timeline()
    assert tl.ending_in(T0 + 1800, T0 + 3660) == (11, 12)
    assert tl.ending_in(T0 + 1860, T0 + 3600) == (11, 12)
    assert tl.ending_in(T0 + 5400, T0 + 121 * 60) == (13, 14)
    assert tl.ending_in(T0 + 5460, T0 + 7200) is None and tl.ending_in(T0 - 60, T0 - 1) is None


def test_a_time_range_is_the_intervals_ending_in_from_to():
    """§12: end_snap is the largest snap_id ending in [from, to]; begin_snap the snapshot at `from` when one ends there,
    else the last one ending before `from` (of any instance), else the first in the range; nothing ends in it: None."""
    tl = rac_timeline()
    assert tl.ending_after(T0 + 1800, T0 + 3660) == (11, 12)  # 11 ends at from: the range starts there
    assert tl.ending_after(T0 + 1830, T0 + 3660) == (11, 12)  # instance 1's 11 ended 30 s before from
    assert tl.ending_after(T0 + 45 * 60, T0 + 3660) == (11, 12)  # instance 2's 11, at 31 minutes, ended last before
    assert tl.ending_after(T0 + 91 * 60, T0 + 121 * 60) == (13, 14)
    assert tl.ending_after(T0, T0 + 1800) == (10, 11) == tl.ending_after(T0 - 600, T0 + 1800)  # none before from
    assert tl.ending_after(T0 + 91 * 60, T0 + 120 * 60) is None and tl.ending_after(T0 - 60, T0 - 1) is None
    one = Timeline([snap(1, 0), snap(2, 30), snap(3, 60)])
    assert one.ending_after(T0 + 600, T0 + 3600) == (1, 3)  # from between the first two: the first is begin_snap
    # an instance whose clock runs 40 minutes late ends its snapshot 1 after instance 1's 2: begin_snap is never after
    # a snapshot that ends in [from, to], so every one of them is in [begin_snap, end_snap]
    skewed = Timeline([snap(1, 0), snap(2, 30), snap(3, 60), snap(1, 40, instance=2)])
    assert skewed.ending_after(T0 + 35 * 60, T0 + 3600) == (1, 3)


def test_readings_are_read_at_every_snapshot_of_the_range_merged_ones_too():
    """§8, §12: the snapshots in [begin_snap, end_snap] per instance, a manual (merged, §6) one too, where span() leaves
    it out; instance=N that instance's; an instance without a snapshot in the range has none."""
    manual = Timeline([snap(1, 0), snap(2, 30), snap(3, 33, flag=1), snap(4, 60)])
    assert {i: [s.snap_id for s in rows] for i, rows in manual.between(2, 4).items()} == {1: [2, 3, 4]}
    assert {i: [s.snap_id for s in rows] for i, rows in manual.span(2, 4).items()} == {1: [2, 4]}
    tl = rac_timeline()
    assert {i: [s.snap_id for s in rows] for i, rows in tl.between(11, 13).items()} == {1: [11, 12, 13], 2: [11, 12]}
    assert {i: [s.snap_id for s in rows] for i, rows in tl.between(11, 14, instance=2).items()} == {2: [11, 12, 14]}
    assert {i: [s.snap_id for s in rows] for i, rows in tl.between(13, 13).items()} == {1: [13], 2: []}


def test_a_range_of_one_instance_and_a_range_an_instance_has_no_snapshot_in():
    """§12: instance=N bounds that instance's intervals only; an instance without a snapshot in the range has none."""
    tl = rac_timeline()
    assert {i: [s.snap_id for s in rows] for i, rows in tl.span(10, 14, instance=2).items()} == {2: [10, 11, 12, 14]}
    assert {i: [s.snap_id for s in rows] for i, rows in tl.span(10, 14, instance=1).items()} == {1: [10, 11, 12, 13]}
    assert {i: [s.snap_id for s in rows] for i, rows in tl.span(14, 14).items()} == {1: [], 2: [14]}


def test_markers_are_those_of_the_range_and_the_instance_asked_for():
    """§12: a gap's marker is returned when its later snapshot is in [begin_snap, end_snap], begin_snap included;
    instance=N returns that instance's markers only (instance 2's gap 12 -> 14: 60 minutes, step 30)."""
    tl = rac_timeline()
    gap = [(2, 12, 14)]
    assert [(m["instance"], m["after_snap_id"], m["before_snap_id"]) for m in tl.markers(10, 14)["missing"]] == gap
    assert [(m["instance"], m["after_snap_id"], m["before_snap_id"]) for m in tl.markers(14, 14)["missing"]] == gap
    assert tl.markers(10, 13)["missing"] == []
    assert tl.markers(10, 14, instance=1)["missing"] == []
    assert [m["instance"] for m in tl.markers(10, 14, instance=2)["missing"]] == [2]


def test_a_manual_snapshot_at_the_ranges_start_is_not_merged_but_the_next_one_inside_is():
    """§6, §12: 11 and 13 are merged manual snapshots; a range from 11 starts there, 13 inside it is merged."""
    tl = Timeline([snap(10, 0), snap(11, 4, flag=1), snap(12, 30), snap(13, 34, flag=1), snap(14, 60)])
    assert [m["snap_id"] for m in tl.markers(11, 14)["merged_snapshots"]] == [13]


def test_an_interval_of_exactly_the_gap_is_not_a_bucket_boundary():
    """§5, §21: only an interval longer than the gap is a bucket of its own (30, 30 and 31 minutes, gap 30)."""
    rows = [snap(1, 0), snap(2, 30), snap(3, 60), snap(4, 91)]
    assert analysis.sides(rows, 1800) == {1, 3, 4}
    assert analysis.sides(rows) == {1, 4}


def test_buckets_start_at_three_points_and_at_one_interval_more_than_asked():
    """§21: 12 intervals at 30 minutes are read in buckets when more than max_points: with 11; with 3, the ends and
    the last snapshot at or before the middle of the range's time (180 minutes: 7); with 4, at a third and two
    thirds (120 and 240 minutes: 5 and 9)."""
    tl = Timeline([snap(i, 30 * (i - 1)) for i in range(1, 14)])
    span = tl.span(1, 13)
    assert len(tl.sampled(span, 11)[1]) == 11
    assert [s.snap_id for s in tl.sampled(span, 3)[1]] == [1, 7, 13]
    assert [s.snap_id for s in tl.sampled(span, 4)[1]] == [1, 5, 9, 13]


def test_a_bucket_boundary_is_timed_by_the_instance_that_ended_the_snapshot_first():
    """§11, §21: a snap_id is timed at its earliest END_INTERVAL_TIME among the instances. Instance 2 ended 3 at
    75 minutes, instance 1 at 60: the middle of the range (60 minutes) is at or after 3."""
    one = [snap(i, 30 * (i - 1)) for i in range(1, 6)]
    two = [snap(i, m, instance=2) for i, m in zip(range(1, 6), (0, 30, 75, 90, 120), strict=True)]
    tl = Timeline([*one, *two])
    bounds = tl.sampled(tl.span(1, 5), 3)
    assert {i: [s.snap_id for s in rows] for i, rows in bounds.items()} == {1: [1, 3, 5], 2: [1, 3, 5]}


def test_a_counter_per_second_in_one_pass_by_hand():
    """§3, §7: delta / seconds: 1800 over 1800 s, 3600 over 1800 s; scale multiplies (x 1e-6: microseconds)."""
    snaps = [snap(1, 0), snap(2, 30), snap(3, 60)]
    values = {1: 0, 2: 1800, 3: 5400}
    assert analysis.counter_rates(values, snaps) == (["2026-01-03T00:30:00+00:00", "2026-01-03T01:00:00+00:00"], [1, 2])
    assert analysis.counter_rates(values, snaps, 1e-6)[1] == [1e-6, 2e-6]


def test_a_raw_counter_is_the_delta_itself():
    """§7: raw: the amount over the interval, whatever its length."""
    pts = counter_points({1: 0, 2: 1800, 3: 9000}, [snap(1, 0), snap(2, 30), snap(3, 150)], "raw")
    assert [(p.key, p.num / p.den) for p in pts] == [(2, 1800), (3, 7200)]


def test_a_reading_is_keyed_and_timed_at_its_snapshot():
    """§2, §8: the value as read, at the snapshot's SNAP_ID and END_INTERVAL_TIME; a snapshot without one has none."""
    pts = analysis.reading_points({1: 120, 3: 95}, [snap(1, 0), snap(2, 30), snap(3, 60)])
    assert [tuple(p) for p in pts] == [
        (1, T0, "2026-01-03T00:00:00+00:00", 120, 1.0),
        (3, T0 + 3600, "2026-01-03T01:00:00+00:00", 95, 1.0),
    ]


def test_a_ratio_over_a_delta_is_keyed_and_timed_at_the_later_snapshot():
    """§2, §10: delta(num) / delta(den) over the interval ending at 2, x scale (1 unless given, 100 for a %)."""
    s = [snap(1, 0), snap(2, 30)]
    assert [tuple(p) for p in ratio_points({1: 0, 2: 30}, {1: 0, 2: 100}, s)] == [
        (2, T0 + 1800, "2026-01-03T00:30:00+00:00", 30, 100)
    ]
    assert [p.num / p.den for p in ratio_points({1: 0, 2: 30}, {1: 0, 2: 100}, s, 100)] == [30]


def test_a_bucket_whose_rows_weigh_nothing_has_no_point():
    """§21: a bucket's value is the weighted mean of its rows; rows weighing 0 (an Oracle rate over no time) have
    none, and the next bucket's mean starts after them: (70 - 10) / (3 - 1)."""
    rows = [snap(i, 30 * i) for i in (1, 3, 5)]
    got = analysis.bucket_means({1: (10, 1), 3: (10, 1), 5: (70, 3)}, rows)
    assert [(p.key, p.num / p.den) for p in got] == [(1, 10), (5, 30)]


def test_counters_are_added_where_every_one_has_a_value():
    """§3: several counters are added at each snapshot where every one of them has a value."""
    commits, rollbacks, third = {1: 10, 2: 20, 3: 30}, {2: 1, 3: 2, 4: 5}, {1: 100, 3: 300}
    assert analysis.add_counters(commits, rollbacks) == {2: 21, 3: 32}
    assert analysis.add_counters(rollbacks, commits) == {2: 21, 3: 32}
    assert analysis.add_counters(commits, rollbacks, third) == {3: 332}
    assert analysis.add_counters(commits) == commits and analysis.add_counters() == {}


def test_a_combined_point_is_timed_at_the_earliest_end_among_the_instances():
    """§11: instance 2 ended snapshot 5 a minute before instance 1."""
    per = {1: [Point(5, T0 + 60, "00:01", 1.0)], 2: [Point(5, T0, "00:00", 2.0)]}
    assert [tuple(p) for p in combine(per, "sum_of_ratios")] == [(5, T0, "00:00", 3.0, 1.0)]


def test_a_ratio_of_sums_over_nothing_has_no_point_and_the_next_keys_still_do():
    """§11: Σ num / Σ den has no value where Σ den is 0."""
    per = {1: [Point(1, T0, "t1", 0, 0), Point(2, T0 + 1800, "t2", 5, 10)], 2: [Point(2, T0 + 1800, "t2", 1, 2)]}
    assert [(p.key, p.num) for p in combine(per, "ratio_of_sums")] == [(2, 0.5)]


def test_the_mean_of_bucketed_oracle_rates_is_the_mean_of_the_instances_means():
    """§11, §21: a bucket's point is (value x weight summed, weight summed): instance 1's mean is 600 / 60 = 10,
    instance 2's 1200 / 40 = 30; a metric that does not add up combines as their mean, 20."""
    per = {1: [Point(5, T0, "t", 600, 60)], 2: [Point(5, T0, "t", 1200, 40)]}
    assert [p.num for p in combine(per, "mean")] == [20]


def test_values_drawn_are_num_over_den_times_the_scale():
    """§7, §19: (time, epoch, value): 3600 over 1800 s is 2 per second; x 100 for a percentage."""
    points = [Point(2, T0 + 1800, "t", 3600, 1800)]
    assert analysis.values_of(points) == [("t", T0 + 1800, 2.0)]
    assert analysis.values_of(points, 100) == [("t", T0 + 1800, 200.0)]


def test_hour_ends_are_the_last_snapshot_of_each_local_hour_and_the_restarts_sides():
    """§32's hourly buckets: snapshots every 20 min from 00:00; instance 2 ends each 7 s after instance 1 and restarts
    between snapshots 5 and 6. The earliest instance's end decides an id's hour (01:00:00 is hour 00's, though
    instance 2's 01:00:07 is in hour 01): 1 (the first, and the last of the hour before 00:00), 4 (01:00), 7 (02:00),
    10 (03:00, the last), and 5 and 6 on either side of instance 2's restart; the same ids for both instances."""

    def at(snap_id, instance, seconds, startup=A):
        h, rest = divmod(seconds, 3600)
        return make_snap(snap_id, instance, startup, f"2026-01-03 {h:02d}:{rest // 60:02d}:{rest % 60:02d}")

    one = [at(k, 1, (k - 1) * 1200) for k in range(1, 11)]
    two = [at(k, 2, (k - 1) * 1200 + 7, A if k < 6 else "2026-01-03 01:30:00") for k in range(1, 11)]
    tl = Timeline(one + two)
    bounds = tl.hour_ends(1, 10)
    assert {inst: [s.snap_id for s in rows] for inst, rows in bounds.items()} == {
        1: [1, 4, 5, 6, 7, 10],
        2: [1, 4, 5, 6, 7, 10],
    }
    alone = Timeline(one)
    assert [s.snap_id for s in alone.hour_ends(2, 9)[1]] == [2, 4, 7, 9]  # the range's own ends
    # one instance asked: its own ends decide (instance 2's 01:00:07 is hour 01's), with its restart's sides
    assert {i: [s.snap_id for s in rows] for i, rows in tl.hour_ends(1, 10, 2).items()} == {2: [1, 3, 5, 6, 9, 10]}


def test_hour_ends_across_midnight_seconds_past_the_hour_and_gaps():
    """§32's hour of an end: the one it falls in, an end exactly on the hour the hour before's (00:00:00 is 23:00's,
    across the date); an end seconds past the hour is that hour's; the sides of a gap are kept inside an hour."""

    def at(snap_id, day, hh, mm, ss=0):
        return make_snap(snap_id, 1, A, f"2026-01-{day:02d} {hh:02d}:{mm:02d}:{ss:02d}")

    def ids(snaps):
        tl = Timeline(snaps)
        return [s.snap_id for s in tl.hour_ends(snaps[0].snap_id, snaps[-1].snap_id)[1]]

    midnight = [at(1, 3, 23, 0), at(2, 3, 23, 20), at(3, 3, 23, 40), at(4, 4, 0, 0), at(5, 4, 0, 20), at(6, 4, 0, 40)]
    assert ids(midnight) == [1, 4, 6]  # 23:00 is 22:00's; 23:20 to 00:00 hour 23's; then hour 00's
    past = [at(k, 3, (k - 1) * 20 // 60, (k - 1) * 20 % 60, 7) for k in range(1, 6)]  # 00:00:07 ... 01:20:07
    assert ids(past) == [1, 3, 5]  # 01:00:07 is hour 01's: 00:40:07 ends hour 00
    gap = [at(1, 3, 0, 0), at(2, 3, 0, 10), at(3, 3, 0, 40), at(4, 3, 0, 50), at(5, 3, 1, 0), at(6, 3, 1, 10)]
    assert ids(gap) == [1, 2, 3, 5, 6]  # 00:10 to 00:40, three steps of 10 min: a gap, both sides kept


def test_hour_ends_keep_a_few_spans_and_answer_each_as_computed():
    """Timeline.hour_ends keeps the boundaries of the spans last asked, at most HOUR_ENDS_KEPT: a span asked again is
    the same answer, and a long-lived process asking many ranges holds no more than that many."""
    tl = Timeline([snap(k, 20 * (k - 1)) for k in range(1, 60)])
    first = tl.hour_ends(1, 59)
    for lo in range(2, 2 + analysis.HOUR_ENDS_KEPT + 5):
        assert tl.hour_ends(lo, 59)[1][0].snap_id == lo
    assert len(tl._hour_ends) == analysis.HOUR_ENDS_KEPT
    assert tl.hour_ends(1, 59) == first
