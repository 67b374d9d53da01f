"""One event's latency histogram (docs/awr-rules.md §24) asked of histories made here (tests/histories.py), whose
expected answers are worked out by hand from the rule, never from the code under test: each (instance, bucket)
differenced between consecutive snapshots of one startup (a bucket without a row, or with a null count, counts 0), the
instances summed per snap id, one instance's answer of its own intervals, restarts and markers alone; the percentiles
of an interval of a single wait; the range's distribution and each bucket's share, none where no wait was counted;
and the reason where DBA_HIST_EVENT_HISTOGRAM's rows start after the range's first snapshot, timed at the lowest-
numbered instance's snapshot, or untimed where no snapshot row has that id."""

import sqlite3

import pytest

from app.history import histograms

EVENT = "db file sequential read"  # tests/histories.py's one event
KEPT_FROM = "DBA_HIST_EVENT_HISTOGRAM keeps histograms from snapshot {} on: the range's intervals before it have none"


def _database(history, path, extra=()):
    """The history's store as a Database, with `extra` rows of DBA_HIST_EVENT_HISTOGRAM written by hand
    ((snap_id, instance, WAIT_TIME_MILLI, WAIT_COUNT))."""
    from histories import DBID, EVENT_CLASS, EVENT_ID, write

    from app.history.database import History as Stores
    from app.settings import Settings
    from app.store.sqlite import SqliteStore

    write(history, path)
    with sqlite3.connect(path) as con:
        con.executemany(
            "INSERT INTO dba_hist_event_histogram (snap_id, dbid, instance_number, event_id, event_name, wait_class, "
            "wait_time_milli, wait_count, con_dbid) VALUES (?,?,?,?,?,?,?,?,?)",
            [(s, DBID, i, EVENT_ID, EVENT, EVENT_CLASS, u, n, DBID) for s, i, u, n in extra],
        )
    settings = Settings.from_env({}, targets={"g": {"sqlite": str(path)}})
    return Stores({"g": SqliteStore("g", path, settings)}).database(f"g.{DBID}")


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """One folder for the module's stores made here: its empty store (tests/histories.py) made once."""
    return tmp_path_factory.mktemp("made")


# Two instances, snapshots 1 to 6 hourly from 01:00 local (SNAP_TIMEZONE +01:00), instance 2's 7 seconds after
# instance 1's; instance 1 restarts between snapshots 3 and 4. No histogram row at snapshot 1 (of any event).
# Cumulative WAIT_COUNT per bucket (WAIT_TIME_MILLI: count; a bucket not named has no row; None: a null count):
BUCKETS = {
    1: {2: {1: 10, 2: 4}, 3: {1: 13, 2: 5, 4: 1}, 4: {1: 2}, 5: {1: 5, 8: 2}, 6: {1: 5, 8: 2}},
    2: {2: {1: 20, 8: None}, 3: {1: 21, 8: 3}, 4: {1: 21, 2: 1, 8: 3}, 5: {1: 22, 2: 1, 8: 3}, 6: {1: 22, 2: 1, 8: 3}},
}
# By hand (§24.2-3), the intervals of (2, 6]: instance 1's 2->3, 4->5 and 5->6 (3->4 spans its restart), instance 2's
# every one; a bucket's count where it has no row (or a null one) at a snapshot where the event has rows is 0.
#   snap 3: instance 1 {1: 3, 2: 1, 4: 1}, instance 2 {1: 1, 8: 3}   -> {1: 4, 2: 1, 4: 1, 8: 3}, 9 waits
#   snap 4: instance 2 {2: 1}                                         -> {2: 1}, 1 wait
#   snap 5: instance 1 {1: 3, 8: 2}, instance 2 {1: 1}               -> {1: 4, 8: 2}, 6 waits
#   snap 6: nothing moves                                             -> 0 waits
UPPERS = [1, 2, 4, 8]
COUNTS = {3: [4, 1, 1, 3], 4: [0, 1, 0, 0], 5: [4, 0, 0, 2], 6: [0, 0, 0, 0]}
INSTANCE_2 = {3: [1, 0, 3], 4: [0, 1, 0], 5: [1, 0, 0], 6: [0, 0, 0]}  # its own buckets: 1, 2 and 8 ms


@pytest.fixture(scope="module")
def rac(made):
    from histories import History, Snap

    snaps = []
    for instance, late in ((1, 0), (2, 7)):
        for k in range(1, 7):
            startup = "2026-03-28 20:00:00" if instance == 2 or k < 4 else "2026-03-29 03:30:00"
            buckets = tuple(BUCKETS[instance].get(k, {}).items())
            snaps.append(Snap(k, instance, f"2026-03-29 {k:02}:00:{late:02}", 3600, startup, buckets=buckets))
    return _database(History(tuple(snaps)), made / "rac.sqlite")


def test_an_instance_answers_of_its_own_intervals_restarts_and_left_out(rac):
    """§24.2-3: instance=all sums the instances' deltas per snap id and lists instance 1's restart (left out, and a
    marker); instance=2 has its own intervals alone, and neither instance 1's restart nor its interval left out."""
    rng = rac.resolve(begin_snap=2, end_snap=6)
    both = histograms.compute(rac, EVENT, rng, "all")
    assert [b["wait_time_milli"] for b in both["buckets"]] == UPPERS
    assert {i["snap_id"]: i["counts"] for i in both["intervals"]} == COUNTS
    assert [(o["instance"], o["after_snap_id"], o["before_snap_id"]) for o in both["left_out"]] == [(1, 3, 4)]
    assert [m["snap_id"] for m in both["markers"]["restarts"]] == [4]
    two = histograms.compute(rac, EVENT, rng, "2")
    assert [b["wait_time_milli"] for b in two["buckets"]] == [1, 2, 8]
    assert {i["snap_id"]: i["counts"] for i in two["intervals"]} == INSTANCE_2  # a null count counts 0 (8 ms: 3)
    assert two["left_out"] == [] and two["reason"] is None
    assert not any(two["markers"].values()), two["markers"]
    one = histograms.compute(rac, EVENT, rng, "1")
    assert [m["snap_id"] for m in one["markers"]["restarts"]] == [4] and len(one["left_out"]) == 1


def test_every_instance_is_asked_unless_one_is_named(rac):
    """§24.3: `instance` is all unless named: the answer of no instance argument is instance=all's."""
    rng = rac.resolve(begin_snap=2, end_snap=6)
    body = histograms.compute(rac, EVENT, rng)
    assert body["instance"] == "all"
    assert {i["snap_id"]: i["counts"] for i in body["intervals"]} == COUNTS


def test_the_distribution_is_the_range_s_waits_per_bucket_and_their_shares(rac):
    """§24.4-5 by hand: the range's counts per bucket (8, 2, 1, 5 of 16 waits) and each bucket's %, named as the
    buckets are; an interval of a single wait has percentiles (inside the 2 ms bucket: 1 x 2^(p/100)), one of no wait
    none."""
    body = histograms.compute(rac, EVENT, rac.resolve(begin_snap=2, end_snap=6), "all")
    assert body["distribution"] == [
        {"wait_time_milli": 1, "label": "< 1 ms", "waits": 8, "pct": 50.0},
        {"wait_time_milli": 2, "label": "< 2 ms", "waits": 2, "pct": 12.5},
        {"wait_time_milli": 4, "label": "< 4 ms", "waits": 1, "pct": 6.25},
        {"wait_time_milli": 8, "label": "< 8 ms", "waits": 5, "pct": 31.25},
    ]
    assert body["waits"] == 16
    by_snap = {i["snap_id"]: i for i in body["intervals"]}
    assert [by_snap[s]["waits"] for s in (3, 4, 5, 6)] == [9, 1, 6, 0]
    for p in (50, 95, 99):
        assert by_snap[4][f"p{p}_ms"] == pytest.approx(2 ** (p / 100), abs=1e-4)
        assert by_snap[6][f"p{p}_ms"] is None


def test_a_range_of_no_new_wait_has_buckets_but_no_share_nor_percentile(rac):
    """§24.5: over (5, 6] no bucket moves: the buckets with rows are listed with 0 waits each, and no % of 0 waits;
    §24.4: no percentile of no wait."""
    body = histograms.compute(rac, EVENT, rac.resolve(begin_snap=5, end_snap=6), "all")
    assert body["distribution"] == [
        {"wait_time_milli": 1, "label": "< 1 ms", "waits": 0, "pct": None},
        {"wait_time_milli": 2, "label": "< 2 ms", "waits": 0, "pct": None},
        {"wait_time_milli": 8, "label": "< 8 ms", "waits": 0, "pct": None},
    ]
    assert body["waits"] == 0 and (body["p50_ms"], body["p95_ms"], body["p99_ms"]) == (None, None, None)


def test_a_range_of_one_snapshot_has_no_interval_and_no_marker(rac):
    """A range of one snapshot measures no interval (§12): no bucket, no marker (an object, as the answer's schema
    says: app/api/answer_schemas.py), and the reason."""
    body = histograms.compute(rac, EVENT, rac.resolve(begin_snap=3, end_snap=3), "all")
    assert body["intervals"] == [] and body["buckets"] == [] and body["distribution"] == []
    assert isinstance(body["markers"], dict) and not any(body["markers"].values())
    assert body["reason"] == "the range holds one snapshot: an interval needs two"


def test_a_range_before_the_kept_histograms_names_the_first_snapshot_and_its_time(rac):
    """§24.1: the histograms start at snapshot 2 (the view holds no row at 1): a range from 1 says so, timed at the
    lowest-numbered instance's snapshot 2 (instance 1's 02:00:00 at +01:00, not instance 2's 02:00:07); a range
    from 2 has no reason."""
    body = histograms.compute(rac, EVENT, rac.resolve(begin_snap=1, end_snap=6), "all")
    assert body["reason"] == KEPT_FROM.format("2 (2026-03-29T02:00:00+01:00)")
    assert {i["snap_id"]: i["counts"] for i in body["intervals"]} == COUNTS
    assert histograms.compute(rac, EVENT, rac.resolve(begin_snap=2, end_snap=6), "all")["reason"] is None


def test_histograms_kept_from_a_snapshot_without_its_row_name_it_untimed(made):
    """§24.1 and §5: DBA_HIST_SNAPSHOT has no row of snapshot 3 (missing), though DBA_HIST_EVENT_HISTOGRAM kept its
    rows from 3 on: the reason names snapshot 3 and no time; the intervals are those of the kept snapshots (4 -> 5)."""
    from histories import History, Snap

    snaps = tuple(
        Snap(k, 1, f"2026-03-29 {k:02}:00:00", 0, "2026-03-28 20:00:00", buckets=buckets)
        for k, buckets in ((1, ()), (2, ()), (4, ((1, 5),)), (5, ((1, 7), (4, 1))))
    )
    db = _database(History(snaps), made / "missing.sqlite", extra=[(3, 1, 1, 4)])
    body = histograms.compute(db, EVENT, db.resolve(begin_snap=1, end_snap=5), "all")
    assert body["reason"] == KEPT_FROM.format(3)
    assert [(i["snap_id"], i["counts"]) for i in body["intervals"]] == [(5, [2, 1])]


@pytest.mark.parametrize(
    ("counts", "uppers", "p", "ms"),
    [
        ([1], [1], 50, 0.5),  # a single wait under 1 ms: linear from 0, half of it at 0.5 ms
        ([0, 1], [1, 4], 99, 2 * 2**0.99),  # a single wait in the 4 ms bucket: 2 x 2^0.99
        ([1, 1], [1, 2], 50, 1.0),  # the first bucket's single wait reaches half of two: its upper bound
        ([1, 1, 2], [1, 2, 4], 50, 2.0),  # the 2 ms bucket's single wait is the second of four: its upper bound
    ],
)
def test_a_percentile_of_buckets_of_a_single_wait(counts, uppers, p, ms):
    """§24.4 by hand: a bucket of one wait is a bucket like any other (the cumulative count reaching p % there)."""
    assert histograms.percentile(counts, uppers, p) == pytest.approx(ms, rel=1e-12)
