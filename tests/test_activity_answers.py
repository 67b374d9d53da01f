"""activity.py's answers (docs/awr-rules.md §22) on histories made here, against references counted here from the
histories' own samples, never from the code under test: a range without an interval, an object filter by its id
alone, the buckets of a window of a few seconds, each instance's runs where SNAP_TIMEZONE changes between the
instances of one snap id, the time before ASH was kept (its DB time at the 60 s boundary, a range starting just before
the first kept snapshot, an instance without the snapshot before it), ties among the top groups, a session's most
sampled values, and which statements an answer reads (coded samples, totals for no group, none of AWR's for the live
buffer)."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from histories import COUNTERS, DBID, History, Sample, Snap, database, local

from app.history import activity

START = datetime(2026, 3, 2)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """One folder for the module's stores made here: its empty store (tests/histories.py) made once."""
    return tmp_path_factory.mktemp("answers")


def _statements(db, monkeypatch) -> list:
    """(name, SQL text) of each statement the database runs from now on, in order."""
    from sqlalchemy.dialects import sqlite

    read, rows = [], db.rows

    def text(stmt):
        return str(stmt.core().compile(dialect=sqlite.dialect()))

    monkeypatch.setattr(
        db, "rows", lambda stmt, **binds: read.append((stmt.build.__name__, text(stmt))) or rows(stmt, **binds)
    )
    return read


def _samples_history(ends: dict, samples: list, counters: dict | None = None) -> History:
    """Snapshots per instance, {instance: [(snap id, seconds after START its end)]}, each with DB time from
    `counters` ({(instance, snap id): cumulative µs}, 0 elsewhere), and the samples given."""
    db_time = COUNTERS.index(("sys_time_model", 10, "DB time"))
    counters = counters or {}
    snaps = []
    for inst, own in ends.items():
        for k, seconds in own:
            value = counters.get((inst, k), 0)
            snaps.append(
                Snap(
                    k,
                    inst,
                    local(START + timedelta(seconds=seconds)),
                    0,
                    local(START - timedelta(days=1)),
                    tuple(value if n == db_time else 0 for n in range(len(COUNTERS))),
                )
            )
    return History(tuple(snaps), tuple(samples))


def _sample(snap_id, at: datetime, session=1, wait_class=None, inst=1, obj=None) -> Sample:
    return Sample(snap_id, inst, int((at - START).total_seconds()), local(at), session, wait_class, obj=obj)


# -- a range without an interval ---------------------------------------------------------------------------------------


def test_a_range_without_an_interval_answers_no_bucket_no_spacing_and_no_sample(made):
    """§12, §22: begin_snap = end_snap holds no interval: the answer has every field of an answer, without a bucket
    width, a sample spacing or a series, its samples 0, and says why."""
    at = START + timedelta(minutes=45)
    history = _samples_history({1: [(1, 1800), (2, 3600)]}, [_sample(2, at)])
    db = database(history, made / "one-snapshot.sqlite")
    body = activity.compute(db, db.resolve(begin_snap=2, end_snap=2))
    got = {k: body[k] for k in ("bucket_seconds", "sample_seconds", "series", "total_samples", "reason", "unit")}
    assert got == {
        "bucket_seconds": None,
        "sample_seconds": None,
        "series": [],
        "total_samples": 0,
        "reason": "the range holds no interval",
        "unit": "sessions",
    }


# -- an object filter by its id alone ----------------------------------------------------------------------------------


def test_aas_filtered_on_an_object_by_its_id_alone_is_that_objects_samples(made):
    """§22: an object filter without its container (`current_obj=101`) is the database's own container's object: AAS
    by wait class over the samples on it alone (three of the interval's five)."""
    objs = ((101, "User I/O"), (102, None), (101, None), (None, "User I/O"), (101, "User I/O"))
    samples = [_sample(2, START + timedelta(minutes=31 + 5 * j), wait_class=c, obj=o) for j, (o, c) in enumerate(objs)]
    db = database(_samples_history({1: [(1, 1800), (2, 3600)]}, samples), made / "objects.sqlite")
    body = activity.compute(db, db.resolve(begin_snap=1, end_snap=2), "wait_class", {"current_obj": "101"})
    on = Counter(a.wait_class or "CPU" for a in samples if a.obj == 101)
    assert {s["name"]: s["samples"] for s in body["series"]} == dict(on) == {"User I/O": 2, "CPU": 1}
    assert body["total_samples"] == 3 and body["filters"] == {"current_obj": "101"}


# -- a window of a few seconds -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "seconds", "points"),
    [
        (1, 1, [10 / 1]),  # one bucket of 1 s, holding its last instant's sample
        (-3, 25, [10 / 10, 10 / 10, 10 / 5]),  # 10 s buckets, the last one 5 s, holding the last instant's sample
    ],
    ids=["1s", "25s"],
)
def test_a_window_of_a_few_seconds_has_its_buckets_and_aas_over_its_seconds(made, start, seconds, points):
    """§22.1-3, a window off the snapshots (by sample time) of `seconds` s, from `start` s past 00:40 (a sample every
    10 s, 2 s past): 10 s buckets from `from`, as many as cover the window (the last one the part inside it), each its
    samples x spacing (10 s) / its seconds; the AAS over the window's seconds."""
    samples = [_sample(2, START + timedelta(minutes=30, seconds=10 * j + 2)) for j in range(180)]
    db = database(_samples_history({1: [(1, 1800), (2, 3600)]}, samples), made / "short.sqlite")
    w0 = START + timedelta(minutes=40, seconds=start)
    w1 = w0 + timedelta(seconds=seconds)
    body = activity.compute(db, db.resolve(w0.replace(tzinfo=UTC), w1.replace(tzinfo=UTC)), "session")
    inside = [a for a in samples if w0 < datetime.fromisoformat(a.time) <= w1]  # from < SAMPLE_TIME <= to
    assert (body["bucket_seconds"], body["sample_seconds"]) == (10, 10)
    assert [(s["name"], s["samples"]) for s in body["series"]] == [("1:1,1", len(inside))]
    assert body["series"][0]["points"][1] == pytest.approx(points, abs=1e-4)
    assert body["total_samples"] == len(inside) == len(points)
    assert body["aas"] == pytest.approx(len(inside) * 10 / seconds, abs=1e-4)


# -- each instance's runs where the instances of one snap id carry different offsets -----------------------------------


@pytest.mark.parametrize("filters", [{}, {"instance": "2"}, {"instance": "1"}])
def test_aas_across_a_change_the_instances_of_a_snap_id_see_apart_is_each_samples_bucket(made, filters):
    """§22.1, §17: SNAP_TIMEZONE moves from +00:00 to +01:00 between instance 1's snapshot 3 and instance 2's
    (tests/test_activity_sessions.py's history): each instance's runs of its own snapshots are read on their own
    clocks, so each sample is in the bucket of its instant (its time less its snapshot's offset) from the range's first
    instant (one before it, in the first bucket), every sample once; filtered on an instance, that instance's alone."""
    from test_activity_sessions import _two_clocks_history

    history, _, instants = _two_clocks_history()
    db = database(history, made / "clocks.sqlite")
    body = activity.compute(db, db.resolve(begin_snap=1, end_snap=4), "session", filters)
    first = datetime(2026, 3, 29, 0, 30)  # instance 1's snapshot 1
    seconds = (datetime(2026, 3, 29, 2, 0, 20) - first).total_seconds()  # to instance 2's snapshot 4
    width, step = 10, 600  # 5,420 s; a sample each 10 minutes in the last interval
    count = -int(-seconds // width)
    per: dict = {}
    for a, at in instants.items():
        if 1 < a.snap_id <= 4 and str(a.instance) in filters.get("instance", str(a.instance)):
            b = min(max(int((at - first).total_seconds()) // width, 0), count - 1)
            per.setdefault(f"{a.instance}:{a.session},1", Counter())[b] += 1
    assert (body["bucket_seconds"], body["sample_seconds"]) == (width, step)
    assert {s["name"]: s["samples"] for s in body["series"]} == {g: sum(c.values()) for g, c in per.items()}
    for s in body["series"]:
        want = [per[s["name"]][b] * step / min(width, seconds - b * width) for b in range(count)]
        assert s["points"][1] == pytest.approx(want, abs=1e-4), s["name"]
    assert body["total_samples"] == sum(sum(c.values()) for c in per.values())


# -- where ASH was not kept --------------------------------------------------------------------------------------------


def _late_history(db_time: dict, instances=(1,), missing=(), earlier: int = 0) -> History:
    """12 half-hour snapshots from 2026-03-02 00:30 per instance (instance 2's `earlier` s before instance 1's), but
    `missing` ((instance, snap id)); DB time per interval of instance 1 from `db_time` ({snap id: µs}); instance 1's
    ASH samples, one on CPU every 10 s, only in the intervals ending at snapshots 8 to 12 (ASH kept from 8)."""
    ends = {
        inst: [(k, 1800 * k - (earlier if inst == 2 else 0)) for k in range(1, 13) if (inst, k) not in missing]
        for inst in instances
    }
    total, counters = 0, {}
    for k in range(1, 13):
        total += db_time.get(k, 1800 * 10**6 if k >= 8 else 0)
        counters[1, k] = total
    samples = [_sample(k, START + timedelta(seconds=1800 * k - 10 * j - 5)) for k in range(8, 13) for j in range(180)]
    return _samples_history(ends, samples, counters)


@pytest.mark.parametrize(
    ("db_time", "lo", "instances", "missing", "earlier", "kept"),
    [
        # exactly 60 s of DB time before the first kept snapshot: busy, ASH not kept (at least 60 s)
        ({3: 60 * 10**6}, 1, (1,), (), 0, 7 * 1800),
        # a second less: idle, its zeros are the truth
        ({3: 59 * 10**6}, 1, (1,), (), 0, None),
        # a range from snapshot 6, two before the first kept one: its interval (6, 7] not kept
        ({7: 1800 * 10**6}, 6, (1,), (), 0, 7 * 1800),
        # instance 2 (its snapshots 20 s earlier) without snapshot 7: the earliest end of snapshot 7 is instance 1's
        (dict.fromkeys(range(2, 8), 1800 * 10**6), 1, (1, 2), ((2, 7),), 20, 7 * 1800),
        # instance 2 without snapshots 2 and 6 but with 7: its end, 20 s before instance 1's
        (dict.fromkeys(range(2, 8), 1800 * 10**6), 1, (1, 2), ((2, 2), (2, 6)), 20, 7 * 1800 - 20),
    ],
    ids=["60s", "59s", "from-6", "no-7-on-2", "7-on-2-earlier"],
)
def test_ash_not_kept_begins_at_the_earliest_end_of_the_snapshot_before_the_first_kept(
    made, db_time, lo, instances, missing, earlier, kept
):
    """§22 Where ASH was not kept: the first snapshot with samples (8) begins its interval at the earliest instance's
    end of the snapshot before it (7); when that lies inside the range and the range's intervals before it saw at
    least 60 s of DB time, `ash_from` gives it, each bucket starting before it has no value, and the AAS is over the
    seconds from it on; with less DB time, no `ash_from` and zeros."""
    history = _late_history(db_time, instances, missing, earlier)
    db = database(history, made / f"late-{lo}-{len(instances)}-{len(missing)}-{db_time.get(3, 0)}.sqlite")
    body = activity.compute(db, db.resolve(begin_snap=lo, end_snap=12))
    starts = [1800 * lo - (earlier if (2, lo) not in missing and len(instances) > 1 else 0)]
    first = START + timedelta(seconds=min(starts))
    seconds = (START + timedelta(seconds=12 * 1800) - first).total_seconds()
    ash_from = None if kept is None else START + timedelta(seconds=kept)
    assert body["ash_from"] == (None if ash_from is None else ash_from.replace(tzinfo=UTC).isoformat())
    (cpu,) = body["series"]
    assert cpu["samples"] == body["total_samples"] == len(history.samples)
    for t, v in zip(*cpu["points"], strict=True):
        before = ash_from is not None and datetime.fromisoformat(t).replace(tzinfo=None) < ash_from
        assert (v is None) == before, (t, v)
    covered = seconds - (0 if ash_from is None else (ash_from - first).total_seconds())
    assert body["aas"] == pytest.approx(len(history.samples) * 10 / covered, abs=1e-4)


# -- ties among the top groups -----------------------------------------------------------------------------------------


def test_the_top_groups_tied_on_samples_are_ranked_by_name(made):
    """§22.4: the 10 groups with the most samples are shown, largest first; 12 sessions of 3 samples each tie, and
    ties go by name (as text: 1:1,1, 1:10,1, 1:11,1, 1:12,1, 1:2,1...), the last two by name in `other`."""
    samples = [
        _sample(2, START + timedelta(minutes=31, seconds=10 * (3 * s + j)), session=s)
        for s in range(1, 13)
        for j in range(3)
    ]
    db = database(_samples_history({1: [(1, 1800), (2, 3600)]}, samples), made / "ties.sqlite")
    body = activity.compute(db, db.resolve(begin_snap=1, end_snap=2), "session")
    names = sorted(f"1:{s},1" for s in range(1, 13))
    assert [(s["name"], s["samples"]) for s in body["series"]] == [
        *[(n, 3) for n in names[:10]],
        ("other", 6),
    ]


# -- a session's most sampled values -----------------------------------------------------------------------------------


def test_a_sessions_most_sampled_value_is_never_null_and_ties_go_by_its_text():
    """§22 Names: a session's most sampled user, program and machine; a null one (no program, no user) is not a value,
    and a tie goes to the value whose text sorts first (user 10 before user 9, 'a' before 'b')."""
    assert activity.most_sampled(Counter({"b": 2, None: 3, "a": 2})) == "a"
    assert activity.most_sampled(Counter({None: 3})) is None
    users = Counter({(DBID, 9): 2, (None, None): 5, (DBID, 10): 2})
    assert activity.most_sampled(users) == (DBID, 10)
    assert activity.most_sampled(users, lambda u: activity.label("user", u, DBID)) == 10


# -- which statements an answer reads ----------------------------------------------------------------------------------


def test_aas_by_a_dimension_without_totals_groups_the_coded_samples(app, rac, sql3, monkeypatch):
    """§22 The embedded store: where neither its totals nor its counts per block serve (by module), AAS groups the
    table's codes (embedded.ash.ASH_BASE), not the view's texts; the demo's two snapshots, counted from the view."""
    from app.store.awr.embedded.ash import ASH_BASE

    db = app.extensions["awrlens"].database(rac["id"])
    assert db.store.ash_coded  # the case this test is for
    last = rac["snapshots"]["last_snap"]
    read = _statements(db, monkeypatch)
    body = activity.compute(db, db.resolve(begin_snap=last - 2, end_snap=last), "module")
    modules = sql3.execute(
        "SELECT module, count(*) FROM dba_hist_active_sess_history WHERE dbid = ? AND snap_id > ? AND snap_id <= ? "
        "GROUP BY module",
        (rac["dbid"], last - 2, last),
    ).fetchall()
    assert {s["name"]: s["samples"] for s in body["series"] if s["name"] != "other"} == {
        m: n for m, n in modules if m in {s["name"] for s in body["series"]}
    }
    assert body["total_samples"] == sum(n for _, n in modules)
    (sql,) = [text for name, text in read if name == "activity"]
    assert ASH_BASE.name in sql and "dba_hist_active_sess_history" not in sql.lower()


def test_aas_from_the_totals_of_a_range_without_samples_reads_no_bucket(made, monkeypatch):
    """§22 The embedded store: AAS by wait class over 7.5 hours from a minute (minute buckets) reads the totals'
    groups first; where they hold none (ASH kept from snapshot 17 only), no group is shown and no bucket is read."""
    from test_activity import _reading, _sampled_history, _store_of

    history = _sampled_history({1: [(k, 30 * k) for k in range(1, 19)]})
    history = History(history.snaps, tuple(a for a in history.samples if a.snap_id > 16))
    db = _store_of(history, made / "totals-none.sqlite")
    read = _reading(db, monkeypatch)
    body = activity.compute(db, db.resolve(begin_snap=1, end_snap=16))
    assert body["bucket_seconds"] == 60 and body["series"] == [] and body["total_samples"] == 0
    assert "ash_total_groups" in read and "ash_total_buckets" not in read and "activity" not in read


# -- a range of no seconds ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sampled", [True, False], ids=["a-sample", "none"])
def test_aas_over_a_range_of_no_seconds_counts_its_samples_without_an_aas(made, sampled):
    """§22.3: snapshot 3 ends in the same second as snapshot 2, so the range (2, 3] has no seconds: its one sample (or
    none) is counted, and neither its bucket nor the range has an AAS (null), where samples x spacing / 0 s is none."""
    snaps = {1: [(1, 1800), (2, 3600), (3, 3600), (4, 5400)]}
    samples = [_sample(3, START + timedelta(minutes=59), wait_class="Application")] if sampled else []
    db = database(_samples_history(snaps, samples), made / f"no-seconds-{sampled}.sqlite")
    body = activity.compute(db, db.resolve(begin_snap=2, end_snap=3))
    assert (body["total_samples"], body["aas"]) == (len(samples), None)
    points = [(s["name"], s["samples"], s["points"][1]) for s in body["series"]]
    assert points == ([("Application", 1, [None])] if sampled else [])


def test_ash_kept_from_the_ranges_first_instant_has_its_aas_over_the_whole_range(made):
    """§22 Where ASH was not kept: snapshot 2 ends in the same second as snapshot 1 (a manual snapshot), after 60 s of
    DB time, and ASH is kept from snapshot 3: it begins at snapshot 2's end, the range's first instant, so no bucket
    lacks a value and the AAS is over the range's every second (samples x 10 s / 3,600 s: 1)."""
    samples = [_sample(k, START + timedelta(seconds=1800 * k - 10 * j - 5)) for k in (3, 4) for j in range(180)]
    snaps = {1: [(1, 1800), (2, 1800), (3, 3600), (4, 5400)]}
    history = _samples_history(snaps, samples, {(1, 2): 60 * 10**6, (1, 3): 60 * 10**6, (1, 4): 60 * 10**6})
    db = database(history, made / "kept-at-start.sqlite", min_interval=0)
    body = activity.compute(db, db.resolve(begin_snap=1, end_snap=4))
    assert body["ash_from"] == (START + timedelta(seconds=1800)).replace(tzinfo=UTC).isoformat()
    (cpu,) = body["series"]
    assert None not in cpu["points"][1] and body["total_samples"] == 360
    assert body["aas"] == pytest.approx(360 * 10 / 3600, abs=1e-4)


# -- the live buffer ---------------------------------------------------------------------------------------------------


def test_aas_of_the_live_buffer_reads_the_buffer_alone(app, rac, monkeypatch):
    """§30: the live buffer's AAS reads its samples (GV$ACTIVE_SESSION_HISTORY), never AWR's history of them
    (DBA_HIST_ACTIVE_SESS_HISTORY), which has no say on where the buffer's samples begin."""
    from app.history import live_buffer

    db = app.extensions["awrlens"].database(rac["id"])
    rng = live_buffer.window(db, None, None, 7)
    read = _statements(db, monkeypatch)
    body = activity.compute(db, rng)
    assert body["total_samples"] > 0 and body["ash_from"] is None and read
    assert [name for name, sql in read if "dba_hist_active_sess_history" in sql.lower()] == []


def test_one_instances_aas_of_a_snapshot_range_reads_its_totals(api, sql3, rac):
    """§22 on the embedded store: AAS by wait class of a snapshot range of one instance (the only filter its ASH totals
    keep) is read from the totals, its groups from the half-hour ones (any period holds them all), and holds that
    instance's samples of (begin, end], counted here from the store's rows."""
    from app.store.awr.embedded.ash import ASH_TOTALS

    last = rac["snapshots"]["last_snap"]
    lo, hi = last - 24, last
    query = {"begin_snap": lo, "end_snap": hi, "group_by": "wait_class", "instance": "2", "show_sql": "1"}
    r = api.get(f"/api/v1/dbs/{rac['id']}/activity", query_string=query)
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    body = r.get_json()
    (samples,) = sql3.execute(
        "SELECT count(*) FROM dba_hist_active_sess_history WHERE dbid = ? AND instance_number = 2 AND snap_id > ? "
        "AND snap_id <= ?",
        (rac["dbid"], lo, hi),
    ).fetchone()
    assert body["total_samples"] == samples > 0
    totals = [x["params"] for x in body["sql"] if f"FROM {ASH_TOTALS.name}" in x["sql"]]
    assert [t["period"] for t in totals][:1] == [1800] and len(totals) == 2, totals
    assert all(t["f_instance_0"] == 2 for t in totals), totals
