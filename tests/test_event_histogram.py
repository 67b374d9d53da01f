"""Event histograms (docs/awr-rules.md §24), against the store's own rows read with sqlite3: per interval, each bucket's
WAIT_COUNT at the later snapshot minus the earlier one (a bucket without a row counts 0), only between snapshots of
the same STARTUP_TIME; p50/p95/p99 by the documented rule; the demo's histograms agree with DBA_HIST_SYSTEM_EVENT."""

import itertools
import math
from collections import defaultdict

import pytest

from tests.conftest import assert_error
from tests.contract import ok, url

LFS = "log file sync"


def _event_id(sql3, dbid, name):
    return sql3.execute(
        "SELECT DISTINCT event_id FROM dba_hist_system_event WHERE dbid = ? AND event_name = ?", (dbid, name)
    ).fetchone()[0]


def _expected(sql3, dbid, event, lo, hi, instance=None):
    """{snap_id: {bucket: count}} from plain SQL: consecutive snapshots of [lo, hi] per instance (no manual snapshot
    in the ranges used here), same startup only, summed over instances."""
    eid = _event_id(sql3, dbid, event)
    snaps = sql3.execute(
        "SELECT instance_number, snap_id, startup_time FROM dba_hist_snapshot WHERE dbid = ? AND "
        "snap_id BETWEEN ? AND ? ORDER BY instance_number, snap_id",
        (dbid, lo, hi),
    ).fetchall()
    counts = defaultdict(dict)
    for i, s, upper, n in sql3.execute(
        "SELECT instance_number, snap_id, wait_time_milli, wait_count FROM dba_hist_event_histogram WHERE dbid = ? "
        "AND event_id = ? AND snap_id BETWEEN ? AND ?",
        (dbid, eid, lo, hi),
    ):
        counts[(i, s)][upper] = n
    out = defaultdict(lambda: defaultdict(int))
    for (i, s, start), (j, t, start2) in itertools.pairwise(snaps):
        if i != j or start != start2 or (instance is not None and i != instance):
            continue
        a, b = counts.get((i, s)), counts.get((i, t))
        if a is None or b is None:
            continue
        for upper in set(a) | set(b):
            out[t][upper] += b.get(upper, 0) - a.get(upper, 0)
    return out


def _percentile(counts: dict, p):
    """docs/awr-rules.md §24: the bucket where the cumulative share reaches p %, log-linear inside it (its lower bound
    is half its upper), linear from 0 in the first bucket."""
    total = sum(counts.values())
    want, before = total * p / 100, 0
    for upper in sorted(counts):
        n = counts[upper]
        if n and before + n >= want:
            f = (want - before) / n
            return upper * f if upper == 1 else upper / 2 * 2**f
        before += n


@pytest.fixture(scope="module")
def single(summary):
    return next(d for d in summary.values() if not d["rac"])


@pytest.fixture(scope="module")
def rac(summary):
    return next(d for d in summary.values() if d["rac"])


def test_buckets_are_deltas_per_interval_and_skip_the_restart(api, sql3, single, stories):
    fix = stories["async_io_fix"]["first_snap_after"]
    lo, hi = fix - 6, fix + 6
    body = ok(api, url(single["id"], "/event-histogram"), event=LFS, begin_snap=lo, end_snap=hi)
    expected = _expected(sql3, single["dbid"], LFS, lo, hi)
    uppers = [b["wait_time_milli"] for b in body["buckets"]]
    assert uppers == sorted(uppers) and all(u & (u - 1) == 0 for u in uppers)  # powers of two
    got = {i["snap_id"]: dict(zip(uppers, i["counts"], strict=True)) for i in body["intervals"]}
    assert fix not in got and fix not in expected  # the interval across the restart (§4)
    assert set(got) == set(expected) and len(got) == 11
    for snap, counts in expected.items():
        assert {u: n for u, n in got[snap].items() if n} == {u: n for u, n in counts.items() if n}, snap
    assert [m["snap_id"] for m in body["markers"]["restarts"]] == [fix]
    assert body["left_out"] and body["left_out"][0]["before_snap_id"] == fix


def test_percentiles_follow_the_documented_rule(api, sql3, single, stories):
    fix = stories["async_io_fix"]["first_snap_after"]
    body = ok(api, url(single["id"], "/event-histogram"), event=LFS, begin_snap=fix - 4, end_snap=fix + 4)
    expected = _expected(sql3, single["dbid"], LFS, fix - 4, fix + 4)
    for i in body["intervals"]:
        for p in (50, 95, 99):
            assert i[f"p{p}_ms"] == pytest.approx(_percentile(expected[i["snap_id"]], p), rel=1e-3), (i["snap_id"], p)
    whole = defaultdict(int)
    for counts in expected.values():
        for u, n in counts.items():
            whole[u] += n
    assert body["p99_ms"] == pytest.approx(_percentile(whole, 99), rel=1e-3)
    assert [d["waits"] for d in body["distribution"]] == [whole[b["wait_time_milli"]] for b in body["buckets"]]
    assert sum(d["pct"] for d in body["distribution"]) == pytest.approx(100, abs=0.01)


def test_the_tail_of_log_file_sync_moves_with_the_async_io_fix(api, single, stories):
    fix = stories["async_io_fix"]["first_snap_after"]
    before = ok(api, url(single["id"], "/event-histogram"), event=LFS, begin_snap=fix - 48, end_snap=fix - 1)
    after = ok(api, url(single["id"], "/event-histogram"), event=LFS, begin_snap=fix, end_snap=fix + 48)
    assert before["p99_ms"] > 4 * after["p99_ms"] and before["p50_ms"] > 1.2 * after["p50_ms"]
    assert before["p99_ms"] > 100 > 30 > after["p99_ms"]


def test_demo_histograms_agree_with_system_event(sql3, single, rac, stories):
    """The demo: each interval's bucket counts add up to the event's TOTAL_WAITS delta, and the mean they imply (each
    bucket at the geometric middle of its bounds) is near TIME_WAITED_MICRO / TOTAL_WAITS where the buckets can tell
    (2 ms and more); under 1 ms, most waits are in the first two buckets."""
    for db, event in (
        (single, LFS),
        (single, "db file sequential read"),
        (rac, "gc cr block 2-way"),
        (rac, "direct path read"),
    ):
        last = db["snapshots"]["last_snap"]
        expected = _expected(sql3, db["dbid"], event, last - 20, last, instance=1)
        rows = {
            s: (w, t)
            for s, w, t in sql3.execute(
                "SELECT snap_id, total_waits, time_waited_micro FROM dba_hist_system_event WHERE dbid = ? AND "
                "instance_number = 1 AND event_name = ? AND snap_id BETWEEN ? AND ?",
                (db["dbid"], event, last - 20, last),
            )
        }
        assert len(expected) == 20
        for snap, counts in expected.items():
            waits = rows[snap][0] - rows[snap - 1][0]
            assert sum(counts.values()) == waits, (event, snap)
            mean = (rows[snap][1] - rows[snap - 1][1]) / waits / 1000 if waits else None
            if waits > 1000 and mean >= 2:  # the buckets resolve it
                implied = sum(n * (0.5 if u == 1 else u / math.sqrt(2)) for u, n in counts.items()) / waits
                assert implied == pytest.approx(mean, rel=0.35), (event, snap)
            elif waits > 1000 and mean < 1:  # a mean under 1 ms: most waits under 2 ms
                assert (counts.get(1, 0) + counts.get(2, 0)) / waits > 0.85, (event, snap)


def test_rac_combined_is_the_sum_of_the_instances(api, rac, window):
    lo, hi = window
    both = ok(api, url(rac["id"], "/event-histogram"), event="gc cr block 2-way", begin_snap=lo, end_snap=hi)
    one = [
        ok(api, url(rac["id"], "/event-histogram"), event="gc cr block 2-way", begin_snap=lo, end_snap=hi, instance=i)
        for i in (1, 2)
    ]
    assert both["buckets"] == one[0]["buckets"] == one[1]["buckets"]
    by = [{i["snap_id"]: i["counts"] for i in b["intervals"]} for b in one]
    for i in both["intervals"]:
        assert i["counts"] == [a + b for a, b in zip(by[0][i["snap_id"]], by[1][i["snap_id"]], strict=True)]
    assert both["waits"] == one[0]["waits"] + one[1]["waits"] > 0


def test_csv_has_a_row_per_interval_and_a_column_per_bucket(api, rac, window):
    lo, hi = window
    body = ok(api, url(rac["id"], "/event-histogram"), event="gc cr block 2-way", begin_snap=lo, end_snap=hi)
    r = api.get(
        url(rac["id"], "/event-histogram"),
        query_string={"event": "gc cr block 2-way", "begin_snap": lo, "end_snap": hi, "format": "csv"},
    )
    assert r.status_code == 200 and r.mimetype == "text/csv"
    lines = r.get_data(as_text=True).strip().split("\r\n")
    assert lines[0].split(",")[:6] == ["time", "snap_id", "waits", "p50_ms", "p95_ms", "p99_ms"]
    assert lines[0].split(",")[6:] == [b["label"] for b in body["buckets"]]
    assert len(lines) == 1 + len(body["intervals"])


def test_bad_input_is_a_400_or_a_404_naming_it(api, rac, window):
    lo, hi = window
    path = url(rac["id"], "/event-histogram")
    assert_error(api.get(path, query_string={"begin_snap": lo, "end_snap": hi}), 400, "event")
    err = assert_error(api.get(path, query_string={"event": "log file synk"}), 404, "event")
    assert "log file sync" in err["message"]
    assert_error(api.get(path, query_string={"event": LFS, "instance": "9"}), 400, "instance")
    assert_error(api.get(path, query_string={"event": LFS, "instance": "each"}), 400, "instance")
    assert_error(api.get(path, query_string={"event": "x" * 65}), 400, "event")
    assert_error(api.get(path, query_string={"event": LFS, "begin_snap": hi, "end_snap": lo}), 400, "begin_snap")
    assert_error(api.get(path, query_string={"event": LFS, "bucket": "1"}), 400, "bucket")


def test_a_range_reaching_before_the_kept_histograms_says_where_they_start(api, sql3, single):
    """The demo keeps histograms for its last 8 days of 10: a range of every snapshot answers from where
    DBA_HIST_EVENT_HISTOGRAM's rows start and says so (`reason`, naming that snapshot); a range inside them does not."""
    first = sql3.execute("SELECT min(snap_id) FROM dba_hist_event_histogram WHERE dbid = ?", (single["dbid"],))
    first = first.fetchone()[0]
    lo, hi = single["snapshots"]["first_snap"], single["snapshots"]["last_snap"]
    assert lo < first < hi
    body = ok(api, url(single["id"], "/event-histogram"), event=LFS, begin_snap=lo, end_snap=hi)
    assert body["reason"] and f"snapshot {first} " in body["reason"], body["reason"]
    assert body["intervals"] and min(i["snap_id"] for i in body["intervals"]) > first
    inside = ok(api, url(single["id"], "/event-histogram"), event=LFS, begin_snap=first, end_snap=hi)
    assert inside["reason"] is None


def test_the_csv_row_of_an_interval_is_its_time_snap_id_waits_percentiles_and_counts_per_bucket():
    """§24: one CSV row per interval, its time, snap_id, waits, p50/p95/p99 and a column per bucket, named as
    V$EVENT_HISTOGRAM's buckets ("< 4 ms": the waits of 2 ms up to 4 ms)."""
    from app.history.histograms import bucket_label, table

    assert [bucket_label(u) for u in (1, 4, 1024)] == ["< 1 ms", "< 4 ms", "< 1024 ms"]
    body = {
        "buckets": [{"wait_time_milli": 1, "label": "< 1 ms"}, {"wait_time_milli": 4, "label": "< 4 ms"}],
        "intervals": [
            {"time": "t1", "snap_id": 7, "counts": [3, 1], "waits": 4, "p50_ms": 0.6, "p95_ms": 3.2, "p99_ms": 3.8},
            {"time": "t2", "snap_id": 8, "counts": [0, 2], "waits": 2, "p50_ms": 2.8, "p95_ms": 3.9, "p99_ms": 4.0},
        ],
    }
    assert table(body) == [
        {"time": "t1", "snap_id": 7, "waits": 4, "p50_ms": 0.6, "p95_ms": 3.2, "p99_ms": 3.8, "< 1 ms": 3, "< 4 ms": 1},
        {"time": "t2", "snap_id": 8, "waits": 2, "p50_ms": 2.8, "p95_ms": 3.9, "p99_ms": 4.0, "< 1 ms": 0, "< 4 ms": 2},
    ]


@pytest.mark.parametrize(
    ("counts", "uppers", "p", "ms"),
    [
        ([0, 0], [1, 2], 50, None),  # no wait: no percentile
        ([4], [1], 50, 0.5),  # under 1 ms: linear from 0, half the waits at 0.5 ms
        ([2, 2], [1, 8], 50, 1.0),  # the first bucket's last wait: its upper bound
        ([2, 2], [1, 8], 75, 4 * 2**0.5),  # half the 8 ms bucket's waits: 4 x 2^0.5
        ([0, 4, 4], [1, 2, 4], 50, 2.0),  # exactly the 2 ms bucket's last wait
        ([1, 0, 3], [1, 2, 16], 99, 8 * 2 ** (2.96 / 3)),  # an empty bucket between is passed over
    ],
)
def test_a_percentile_is_log_linear_inside_its_bucket_and_linear_under_a_millisecond(counts, uppers, p, ms):
    """§24.4 worked by hand: the bucket where the cumulative count first reaches p % of the waits; inside it
    lower x 2^f, f the fraction of its waits needed, lower half the upper bound; linear from 0 to 1 ms in the first."""
    from app.history.histograms import percentile

    got = percentile(counts, uppers, p)
    assert got == (None if ms is None else pytest.approx(ms, rel=1e-12))


def test_a_range_before_the_kept_histograms_says_the_view_holds_none_there(api, sql3, single):
    """§24.1: where DBA_HIST_EVENT_HISTOGRAM has no row in the range at all, the answer says so and has no interval."""
    first = sql3.execute("SELECT min(snap_id) FROM dba_hist_event_histogram WHERE dbid = ?", (single["dbid"],))
    first = first.fetchone()[0]
    lo = single["snapshots"]["first_snap"]
    assert lo + 4 < first
    body = ok(api, url(single["id"], "/event-histogram"), event=LFS, begin_snap=lo, end_snap=lo + 4)
    assert body["reason"] == "DBA_HIST_EVENT_HISTOGRAM holds no row in this range"
    assert body["intervals"] == [] and body["waits"] == 0 and body["p50_ms"] is None


def test_an_unknown_event_is_a_404_naming_the_three_closest(api, rac):
    """§24: an unknown name is a 404 that names the closest ones (three at most, closest first) and where the
    names are; a name like none names none."""
    path = url(rac["id"], "/event-histogram")
    err = assert_error(api.get(path, query_string={"event": "direct path"}), 404, "event")
    assert err["message"] == (
        "unknown wait event 'direct path'; did you mean 'direct path read', 'direct path write', "
        f"'direct path read temp'? (see /api/v1/dbs/{rac['id']}/top-events)"
    )
    err = assert_error(api.get(path, query_string={"event": "qqqq"}), 404, "event")
    assert err["message"] == f"unknown wait event 'qqqq' (see /api/v1/dbs/{rac['id']}/top-events)"


def test_the_answer_names_the_event_its_id_and_the_instance_asked(api, sql3, rac, window):
    lo, hi = window
    for instance in ("all", "2"):
        body = ok(api, url(rac["id"], "/event-histogram"), event=LFS, begin_snap=lo + 1, end_snap=hi, instance=instance)
        assert (body["event"], body["event_id"]) == (LFS, _event_id(sql3, rac["dbid"], LFS))
        assert str(body["instance"]) == instance and body["db"] == rac["id"]
        assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (lo + 1, hi)
