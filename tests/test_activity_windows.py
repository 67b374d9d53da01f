"""Activity's windows, filters and names (docs/awr-rules.md §22, §30): the ranges ASH reads, the runs of one offset,
the filters' binds and the groups' names, each checked against the rule applied to the store's rows (sqlite3 over the
demo store) or to a history made here, never from the code under test."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from contract import ok
from test_activity import _assert_series, _statements_run, _store_of
from test_activity_sessions import _demo, _store, _two_clocks_history

from app.errors import BadParameter
from app.history import activity, ashtop

ASH = "dba_hist_active_sess_history"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """One folder for the module's stores made here."""
    return tmp_path_factory.mktemp("windows")


# -- the filters' binds and the groups' names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filters", "binds"),
    [
        ({"sql_id": None, "instance": "2"}, {"f_sql_id_0": None, "f_instance_0": 2}),
        (
            {"session": None, "module": "m"},
            {"f_session_0": None, "f_session_1": None, "f_session_2": None, "f_module_0": "m"},
        ),
    ],
)
def test_each_filter_after_one_without_a_value_binds_its_own_columns(filters, binds):
    """§22: `without=` binds null to each of its dimension's columns, and every other filter still binds its own
    columns' values (the samples without SQL of instance 2 are filtered on both)."""
    assert activity.filter_binds(filters, 4242) == binds


@pytest.mark.parametrize(
    ("name", "value", "form"),
    [
        ("instance", "X2", "a whole number"),  # a letter before the digits: not a number
        ("service", "X-5", "a whole number"),
        ("session", "1:1802", "instance:sid,serial# (e.g. 1:1802,4127)"),
        ("blocking_session", "X1:2,3", "instance:sid,serial# (e.g. 1:1802,4127)"),
    ],
)
def test_a_refused_filter_says_what_its_value_must_be(name, value, form):
    """§22: a filter of a numeric column is a whole number, a session instance:sid,serial#; anything else is refused
    (400) naming the parameter, the form it must have and the value given."""
    with pytest.raises(BadParameter) as refused:
        activity.filter_binds({name: value}, 4242)
    assert refused.value.parameter == name
    assert refused.value.message == f"{name} must be {form}, got {value!r}"


def test_a_sample_without_a_blocking_session_is_not_blocked_whatever_its_other_columns():
    """§22: the blocking session is BLOCKING_SESSION on BLOCKING_INST_ID with its serial#; a sample without one
    (BLOCKING_SESSION null) is in the group `not blocked` (name null), whatever its instance or serial# columns hold."""
    assert activity.label("blocking_session", (2, None, 7), 42) is None
    assert activity.label("blocking_session", (None, None, None), 42) is None
    assert activity.label("blocking_session", (2, 9, 7), 42) == "2:9,7"


def test_a_waiting_sample_without_a_wait_class_or_event_is_the_group_none(folder):
    """§22: the samples without a value of a dimension are one group, its name null and its label naming it; a
    waiting sample that has no wait class or event (Oracle always writes them; a store may lack them) is the group
    labelled `none` by wait class and by event, in the AAS series and in the top events alike."""
    import sqlite3

    from histories import DBID, History, Sample, Snap, database, local

    start = datetime(2026, 3, 2)
    snaps = [Snap(k, 1, local(start + timedelta(minutes=30 * k)), 0, local(start)) for k in (1, 2)]
    samples = [Sample(2, 1, 1800 + 10 * j, local(start + timedelta(seconds=1805 + 10 * j)), 5, None) for j in range(3)]
    path = folder / "unnamed-wait.sqlite"
    db = database(History(tuple(snaps), tuple(samples)), path)
    with sqlite3.connect(path) as con:  # the second sample: waiting, on no wait class or event
        con.execute(f"UPDATE {ASH} SET session_state = 'WAITING' WHERE dbid = ? AND sample_id = 1810", (DBID,))
    rng = db.resolve(begin_snap=1, end_snap=2)
    for group_by in ("wait_class", "event"):
        body = activity.compute(db, rng, group_by)
        got = {s["name"]: (s["label"], s["samples"]) for s in body["series"]}
        assert got == {"CPU": ("CPU", 2), None: ("none", 1)}, group_by
    top = activity.top(db, rng)
    assert {r["name"]: (r["label"], r["samples"]) for r in top["lists"]["event"]} == {
        "CPU": ("CPU", 2),
        None: ("none", 1),
    }


def test_a_user_of_another_container_keeps_its_id_though_the_dictionary_names_the_same_id(app, sql3, rac):
    """§22 Names: the dictionary holds the database's own container's users; a user of another container
    (con_dbid:id) keeps its id, even where the same USER_ID is named in the database's own container."""
    db = _demo(app, rac)
    ((user, name),) = sql3.execute(
        "SELECT user_id, username FROM dba_users WHERE dbid = ? ORDER BY user_id LIMIT 1", (rac["dbid"],)
    ).fetchall()
    other = f"{rac['dbid'] + 1}:{user}"
    assert activity.display_names(db, "user", [user, other]) == {user: name}


# -- the live buffer's window (§30) ------------------------------------------------------------------------------------


@pytest.mark.parametrize("rac", [True, False], ids=["RACPROD", "ORCL"])
def test_the_live_buffer_is_read_from_its_windows_start_on_the_databases_clock(api, summary, sql3, rac):
    """§30 with §22's buckets, on the demo's RAC database (+01:00) and its single-instance one (+00:00): AAS over the
    last 7 minutes of the buffer, each bucket's time `from` + k x the width, with the database's offset as `from`
    carries it; ashtop's first and last sample of the window at their SAMPLE_TIME with that offset."""
    db = next(d for d in summary.values() if d["rac"] == rac and d["db_name"] != "BILLING")  # BILLING: Statspack
    body = ok(api, f"/api/v1/dbs/{db['id']}/activity", ash="live", minutes=7)
    frm, width = datetime.fromisoformat(body["range"]["from"]), body["bucket_seconds"]
    assert frm.utcoffset() == timedelta(hours=1 if rac else 0)
    times = [datetime.fromisoformat(t) for t, _ in body["series"][0]["points"]]
    assert times == [frm + timedelta(seconds=k * width) for k in range(7 * 60 // width)]
    assert {t.utcoffset() for t in times} == {frm.utcoffset()}
    groups = ok(api, f"/api/v1/dbs/{db['id']}/activity/groups", ash="live", minutes=7, group_by="instance")
    first, last = sql3.execute(
        'SELECT min(sample_time), max(sample_time) FROM "gv$active_session_history" WHERE dbid = ? '
        "AND julianday(sample_time) > julianday(?) AND julianday(sample_time) <= julianday(?)",
        (db["dbid"], frm.replace(tzinfo=None).isoformat(sep=" "), body["range"]["to"][:19].replace("T", " ")),
    ).fetchone()
    seen = {(r["first_seen"], r["last_seen"]) for r in groups["rows"]}
    stamps = [datetime.fromisoformat(t).replace(tzinfo=frm.tzinfo) for t in (first, last)]
    assert min(datetime.fromisoformat(a) for a, _ in seen) == stamps[0]
    assert max(datetime.fromisoformat(b) for _, b in seen) == stamps[1]
    assert {datetime.fromisoformat(t).utcoffset() for pair in seen for t in pair} == {frm.utcoffset()}


# -- runs of one offset ------------------------------------------------------------------------------------------------


def _one_clock_window_history():
    """One instance, 16 half-hour snapshots from 2026-03-29 00:00 UTC (snapshot k ends k half hours in): snapshot 1 at
    +00:00, every later one at +01:00 (SNAP_TIMEZONE moved between them); a sample every 10 s of each interval after
    the first (5 s past), at its time on its snapshot's clock, on CPU or waiting (User I/O, Commit) in turn. Returns
    the history and each sample's instant (UTC)."""
    from histories import History, Sample, Snap, local

    start = datetime(2026, 3, 29)
    snaps, samples, instants = [], [], {}
    for k in range(1, 17):
        end, tz = start + timedelta(minutes=30 * k), 0 if k == 1 else 3600
        snaps.append(Snap(k, 1, local(end + timedelta(seconds=tz)), tz, local(start - timedelta(days=1))))
        for j in range(180 if k > 1 else 0):
            at = end - timedelta(minutes=30) + timedelta(seconds=10 * j + 5)
            sample = Sample(
                k,
                1,
                int((at - start).total_seconds()),
                local(at + timedelta(seconds=tz)),
                1,
                (None, "User I/O", "Commit")[j % 3],
            )
            samples.append(sample)
            instants[sample] = at
    return History(tuple(snaps), tuple(samples)), instants


def test_a_window_whose_intervals_carry_one_offset_is_one_run_read_from_the_totals(folder, monkeypatch):
    """§22: a window from 00:40 to 07:50 UTC (on a minute, over 6 hours: minute buckets) reads the intervals of
    snapshots (1, 16]; snapshot 1 carries +00:00 and every interval read +01:00, so the window is read on one clock,
    one run: per wait class and bucket its samples (`from` < the sample's instant <= `to`), counted here, from the
    totals of the snapshots wholly inside it (3 to 15) and the samples of its edges (2 and 16)."""
    history, instants = _one_clock_window_history()
    w0, w1 = datetime(2026, 3, 29, 0, 40), datetime(2026, 3, 29, 7, 50)
    seconds, width = (w1 - w0).total_seconds(), 60
    per: dict = {}
    for a, at in instants.items():
        if w0 < at <= w1:
            b = min(int((at - w0).total_seconds()) // width, -int(-seconds // width) - 1)
            per.setdefault(a.wait_class or "CPU", Counter())[b] += 1
    db = _store_of(history, folder / "one-clock.sqlite")
    ran = _statements_run(db, monkeypatch)
    body = activity.compute(db, db.resolve(w0.replace(tzinfo=UTC), w1.replace(tzinfo=UTC)))
    assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (1, 16)
    _assert_series(body, per, width, seconds)
    (groups,) = [binds for name, binds in ran if name == "ash_total_groups"]
    assert (groups["lo"], groups["hi"]) == (2, 15)
    assert [(b["lo"], b["hi"]) for name, b in ran if name == "activity"] == [(1, 2), (15, 16)]


@pytest.fixture(scope="module")
def clocks(folder):
    history, details, _ = _two_clocks_history()
    return history, _store(history, folder / "clocks.sqlite", details)


def test_one_instances_aas_and_ashtop_where_the_instances_clocks_differ_are_its_samples_only(clocks):
    """§22: over snapshots (1, 4], where SNAP_TIMEZONE changes and the instances of snapshot 3 carry different offsets
    (each instance's snapshots then read in runs of their own), the instance filter keeps instance 2's samples alone:
    by session, AAS's groups and ashtop's rows are its sessions' samples, counted here, none of instance 1's."""
    history, db = clocks
    rng = db.resolve(begin_snap=1, end_snap=4)
    mine = Counter(f"{a.instance}:{a.session},1" for a in history.samples if a.instance == 2 and 1 < a.snap_id <= 4)
    assert mine == {"2:3,1": 6, "2:2,1": 3}  # the case this test is for
    body = activity.compute(db, rng, "session", {"instance": "2"})
    assert {s["name"]: s["samples"] for s in body["series"]} == mine and body["total_samples"] == 9
    groups = ashtop.compute(db, rng, ["session"], {"instance": "2"})
    assert {r["session"]: r["samples"] for r in groups["rows"]} == mine and groups["total_samples"] == 9


@pytest.mark.parametrize(("path", "query"), [("groups", {"group_by": "sql_id"}), ("top", {}), ("chains", {})])
def test_a_range_of_snapshots_binds_no_window(api, rac, path, query):
    """§22: a range of snapshots is read by its intervals alone (begin_snap < SNAP_ID <= end_snap); only a window off
    the snapshots binds its times: none of the statements an answer over 6 snapshots ran (show_sql) binds w0 or w1."""
    last = rac["snapshots"]["last_snap"]
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity/{path}", begin_snap=last - 6, end_snap=last, show_sql=1, **query)
    assert body["sql"] and all({"w0", "w1"}.isdisjoint(x["params"]) for x in body["sql"]), path


# -- a window on the snapshots, off them, or holding no interval -------------------------------------------------------


@pytest.fixture(scope="module")
def staggered(folder):
    """Two instances, six half-hour snapshots from 2026-03-02 00:30 UTC, instance 2's 7 s after instance 1's: the
    Database and each snapshot's end (UTC, naive)."""
    from histories import History, Snap, database, local

    start = datetime(2026, 3, 2)
    ends = {
        (inst, k): start + timedelta(minutes=30 * k, seconds=7 * (inst - 1)) for inst in (1, 2) for k in range(1, 7)
    }
    snaps = [Snap(k, inst, local(end), 0, local(start)) for (inst, k), end in ends.items()]
    return database(History(tuple(snaps)), folder / "staggered.sqlite"), ends


def _window(db, t0: datetime, t1: datetime):
    return activity.sampled_range(db, db.resolve(t0.replace(tzinfo=UTC), t1.replace(tzinfo=UTC)))


def _held(ends: dict, t0: datetime, t1: datetime) -> tuple:
    """§22: the snapshots whose intervals hold the window (t0, t1]: per instance, the last snapshot ending at or before
    t0 and the first ending at or after t1; the lowest and the highest of those over the instances."""
    los, his = [], []
    for inst in {i for i, _ in ends}:
        own = sorted((end, k) for (i, k), end in ends.items() if i == inst)
        los.append(max(k for end, k in own if end <= t0))
        his.append(min(k for end, k in own if end >= t1))
    return min(los), max(his)


@pytest.mark.parametrize(
    ("start", "end", "by_time"),
    [
        ((1, 2, 0), (2, 5, 0), False),  # from the earliest instance's snapshot 2 to the latest one's 5: (2, 5]
        ((1, 2, 0.5), (2, 5, -0.5), False),  # within a second of both: the same
        ((1, 2, 1), (2, 5, 0), True),  # a second after the earliest's snapshot 2: by sample time
        ((1, 2, 0), (2, 5, -1), True),  # a second before the latest's snapshot 5
        ((2, 2, 0), (2, 5, 0), True),  # from the latest instance's snapshot 2, not the earliest's
        ((1, 2, 0), (1, 5, 0), True),  # to the earliest instance's snapshot 5, not the latest's
    ],
)
def test_a_window_on_the_snapshots_is_their_range_any_other_is_read_by_sample_time(staggered, start, end, by_time):
    """§22: a window that starts and ends on snapshots (within a second of the earliest instance's snapshot at its
    start and of the latest one's at its end) is that snapshot range, read by snapshot over its own seconds (the
    earliest snapshot 2 to the latest 5); any other window is read by sample time over the intervals that hold it
    (_held), its seconds the window's. Each end: (instance, snapshot, seconds off its end)."""
    db, ends = staggered
    t0 = ends[start[:2]] + timedelta(seconds=start[2])
    t1 = ends[end[:2]] + timedelta(seconds=end[2])
    sampled = _window(db, t0, t1)
    read, seconds = (_held(ends, t0, t1), (t1 - t0).total_seconds()) if by_time else ((2, 5), 3 * 1800 + 7)
    assert (sampled.read.lo, sampled.read.hi, sampled.by_time) == (*read, by_time)
    assert sampled.seconds == pytest.approx(seconds)


def test_a_window_of_no_seconds_or_after_the_newest_snapshot_holds_no_interval(staggered):
    """§22: a window (from, to] of no seconds holds no sample time, and one from the newest snapshot on holds no
    samples flushed yet: neither holds an interval; AAS then has no series and says why."""
    db, ends = staggered
    at = ends[1, 3] + timedelta(minutes=10)
    newest = ends[2, 6]
    for t0, t1 in ((at, at), (newest, newest + timedelta(minutes=10))):
        assert _window(db, t0, t1) is None
        body = activity.compute(db, db.resolve(t0.replace(tzinfo=UTC), t1.replace(tzinfo=UTC)))
        assert body["series"] == [] and body["reason"] == "the range holds no interval"
