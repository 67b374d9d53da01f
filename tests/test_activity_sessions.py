"""Top activity's groups of many values and the top sessions' names (docs/awr-rules.md §22), against references
counted here from the store's own rows (sqlite3 over the demo store) or from histories made here, never from the code
under test: AAS per bucket by session or object from the embedded store's counts per block (embedded.ash.ASH_TOP),
the top lists of one instance across a daylight-saving change, an object nothing names, a range of no seconds, and
each top session's user, program and machine, the most sampled in the newest 48 snapshot ids that hold its samples
of the range or window."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from app.history import activity

ASH = "dba_hist_active_sess_history"


def _reading(db, monkeypatch) -> list:
    """The names of the statements the database runs from now on (app.store.awr.queries), in order."""
    read, rows = [], db.rows
    monkeypatch.setattr(db, "rows", lambda stmt, **binds: read.append(stmt.build.__name__) or rows(stmt, **binds))
    return read


def _demo(app, rac):
    """The demo's RAC database (a Database of the session's app), asked directly: no answer kept."""
    return app.extensions["awrlens"].database(rac["id"])


# -- AAS by session or object from the counts per block (demo store) --------------------------------------------------


@pytest.mark.parametrize(
    ("group_by", "filters", "counted"),
    [
        ("current_obj", {}, True),  # most samples on no object: that group shown, its buckets from the counts too
        ("session", {"instance": "2"}, True),  # one instance's sessions: that instance's counts
        ("session", {}, False),  # a store that codes its samples but keeps no counts per block: the samples grouped
    ],
)
def test_aas_by_session_or_object_per_bucket_is_its_samples_with_or_without_the_counts(
    app, sql3, rac, monkeypatch, group_by, filters, counted
):
    """§22.1-4 by a dimension of thousands of groups, over 12 half-hour snapshots, counted here from the store's rows:
    per group and bucket AAS = samples x 10 / the bucket's seconds, the 10 most sampled groups shown (the samples
    without an object one of them: name null, labelled 'no object'), `other` the rest bucket by bucket. The embedded
    store reads its counts per block for the groups' samples, then each bucket's (ash_top_groups, activity_buckets);
    a store without those counts (ash_top false) never reads them, and groups its samples."""
    db = _demo(app, rac)
    if not counted:
        monkeypatch.setattr(db.store, "ash_top", False)
    read = _reading(db, monkeypatch)
    last = rac["snapshots"]["last_snap"]
    lo, hi = last - 12, last
    body = activity.compute(db, db.resolve(begin_snap=lo, end_snap=hi), group_by, filters)
    ends = sql3.execute(
        "SELECT snap_id, end_interval_time FROM dba_hist_snapshot WHERE dbid = ? AND snap_id IN (?, ?)",
        (rac["dbid"], lo, hi),
    ).fetchall()
    t0 = min(datetime.fromisoformat(t) for s, t in ends if s == lo)
    seconds = (max(datetime.fromisoformat(t) for s, t in ends if s == hi) - t0).total_seconds()
    width = body["bucket_seconds"]
    count = -int(-seconds // width)
    where = " AND instance_number = ?" if filters else ""
    rows = sql3.execute(
        f'SELECT sample_time, instance_number, session_id, "SESSION_SERIAL#", con_dbid, "CURRENT_OBJ#" FROM {ASH} '
        f"WHERE dbid = ? AND snap_id > ? AND snap_id <= ?{where}",
        (rac["dbid"], lo, hi, *[int(v) for v in filters.values()]),
    ).fetchall()

    def key(r):
        if group_by == "session":
            return f"{r[1]}:{r[2]},{r[3]}"
        return None if r[5] is None else r[5] if r[4] == rac["dbid"] else f"{r[4]}:{r[5]}"

    per: dict = {}
    for r in rows:
        b = min(max(int((datetime.fromisoformat(r[0]) - t0).total_seconds()) // width, 0), count - 1)
        per.setdefault(key(r), Counter())[b] += 1
    totals = {g: sum(c.values()) for g, c in per.items()}
    shown = [s["name"] for s in body["series"] if s["name"] != "other"]
    rest = [g for g in per if g not in shown]
    assert len(per) > 10 and len(shown) == 10 and set(shown) <= set(per)
    assert [totals[g] for g in shown] == sorted((totals[g] for g in shown), reverse=True)
    assert min(totals[g] for g in shown) >= max(totals[g] for g in rest)
    per["other"], totals["other"] = sum((per[g] for g in rest), Counter()), sum(totals[g] for g in rest)
    assert [s["name"] for s in body["series"]] == [*shown, "other"]
    for s in body["series"]:
        want = [per[s["name"]][b] * 10 / min(width, seconds - b * width) for b in range(count)]
        assert s["samples"] == totals[s["name"]] and s["points"][1] == pytest.approx(want, abs=1e-4), s["name"]
    if group_by == "current_obj":
        assert shown[0] is None and body["series"][0]["label"] == "no object"  # most samples are on no object
    assert body["total_samples"] == len(rows) and body["filters"] == filters
    from_counts = [name in read for name in ("ash_top_groups", "activity_buckets")]
    assert from_counts == [counted, counted], read


def test_aas_by_session_of_a_range_without_samples_has_no_group_from_the_counts_either(app, sql3, rac, monkeypatch):
    """§22 on the embedded store: 12 snapshots before AWR kept any sample (the demo keeps ASH for fewer days than its
    snapshots) by session: the counts per block hold no group, so no series and no sample, and the buckets read for
    no group shown."""
    db = _demo(app, rac)
    lo = rac["snapshots"]["first_snap"] + 10
    ((n,),) = sql3.execute(
        f"SELECT count(*) FROM {ASH} WHERE dbid = ? AND snap_id > ? AND snap_id <= ?", (rac["dbid"], lo, lo + 12)
    ).fetchall()
    assert n == 0  # the case this test is for
    read = _reading(db, monkeypatch)
    body = activity.compute(db, db.resolve(begin_snap=lo, end_snap=lo + 12), "session")
    assert body["series"] == [] and body["total_samples"] == 0
    assert "ash_top_groups" in read and "activity_buckets" in read


def test_top_lists_of_one_object_by_its_id_alone_are_its_samples(app, sql3, rac):
    """§22: an object filter without its container (`current_obj=5000`) is the database's own container's object;
    the top lists are the samples on it: its one object row, each event's samples, every session's."""
    db = _demo(app, rac)
    last = rac["snapshots"]["last_snap"]
    lo, hi = last - 12, last
    rows = sql3.execute(
        f'SELECT "CURRENT_OBJ#", CASE WHEN session_state = \'ON CPU\' THEN \'CPU\' ELSE event END, '
        f"instance_number || ':' || session_id || ',' || \"SESSION_SERIAL#\" FROM {ASH} "
        'WHERE dbid = ? AND con_dbid = ? AND snap_id > ? AND snap_id <= ? AND "CURRENT_OBJ#" IS NOT NULL',
        (rac["dbid"], rac["dbid"], lo, hi),
    ).fetchall()
    ((obj, n),) = Counter(r[0] for r in rows).most_common(1)
    body = activity.top(db, db.resolve(begin_snap=lo, end_snap=hi), {"current_obj": str(obj)})
    mine = [r for r in rows if r[0] == obj]
    assert body["total_samples"] == n == len(mine) > 0
    assert [(r["name"], r["samples"]) for r in body["lists"]["current_obj"]] == [(obj, n)]
    assert {r["name"]: r["samples"] for r in body["lists"]["event"]} == Counter(r[1] for r in mine)
    sessions = Counter(r[2] for r in mine)
    assert sorted(r["samples"] for r in body["lists"]["session"]) == sorted(sessions.values())[-25:]


# -- histories made here: user, program and machine of the samples ---------------------------------------------------

START = datetime(2026, 3, 2)
USERS = {7: "OLD_APP", 8: "WEB", 11: "U11", 12: "U12", 13: "U13", 21: "OUTSIDE", 22: "INSIDE"}


def _store(history, path, details: dict):
    """The history's store (tests/histories.py) with each sample's USER_ID, PROGRAM and MACHINE ({(snap_id, instance,
    sample_id, session): (user_id, program, machine)}) and DBA_USERS naming USERS, as a Database."""
    import sqlite3

    from histories import DBID, opened, write

    write(history, path)
    with sqlite3.connect(path) as con:
        con.executemany(
            f"UPDATE {ASH} SET user_id = ?, program = ?, machine = ? WHERE dbid = ? AND snap_id = ? "
            "AND instance_number = ? AND sample_id = ? AND session_id = ?",
            [(*v, DBID, *k) for k, v in details.items()],
        )
        con.executemany(
            "INSERT INTO dba_users (dbid, username, user_id) VALUES (?, ?, ?)",
            [(DBID, name, user) for user, name in USERS.items()],
        )
    return opened(path)


def _sessions_history(shift_from=None, shift=3600):
    """One instance, 61 half-hour snapshots from 2026-03-02 00:30 (snapshot k ends k half hours in), its samples
    of sessions that change user, program and machine, on objects:
    - session 5, as user 7, 'batch.old' on 'old-host' three times in each of snapshots 2 to 12 (33 samples, on
      object 999, which nothing names), then as user 8, 'web.new' on 'new-host' once in snapshots 50 and 60 (on
      object 101, APP.T101);
    - session 6, in snapshot 55, in four combinations: (user 11, 'p1', 'm2') twice, (11, 'p2', 'm1') twice,
      (12, 'p1', 'm1') twice and (13, 'p3', 'm3') three times: user 11, 'p1' and 'm1' are each the most sampled
      (4), though each of their combinations is sampled less than (13, 'p3', 'm3');
    - session 7, in snapshot 30 (14:30 to 15:00), as user 21, 'outside' on 'out-host' at 14:35, 14:40 and 14:45 and
      as user 22, 'inside' on 'in-host' at 14:55; in snapshot 31, 'inside' at 15:10 and 'outside' at 15:25.
    `shift_from`: the snapshots from that one on are `shift` seconds ahead (SNAP_TIMEZONE's change at daylight
    saving), their samples too."""
    from histories import History, Sample, Snap, local

    def moved(k):
        return shift if shift_from is not None and k >= shift_from else 0

    def end(k):
        return START + timedelta(minutes=30 * k, seconds=moved(k))

    snaps = [Snap(k, 1, local(end(k)), moved(k), local(START - timedelta(days=1))) for k in range(1, 62)]
    samples, details = [], {}

    def add(snap_id, at, session, who, obj=None):
        sample_id = int((at - START).total_seconds())
        samples.append(Sample(snap_id, 1, sample_id, local(at), session, None if session % 2 else "User I/O", obj=obj))
        details[snap_id, 1, sample_id, session] = who

    for k in range(2, 13):
        for m in (5, 10, 15):
            add(k, end(k) - timedelta(minutes=m), 5, (7, "batch.old", "old-host"), 999)
    for k in (50, 60):
        add(k, end(k) - timedelta(minutes=5), 5, (8, "web.new", "new-host"), 101)
    combos = [(11, "p1", "m2")] * 2 + [(11, "p2", "m1")] * 2 + [(12, "p1", "m1")] * 2 + [(13, "p3", "m3")] * 3
    for j, who in enumerate(combos, 1):
        add(55, end(55) - timedelta(minutes=2 * j), 6, who)
    outside, inside = (21, "outside", "out-host"), (22, "inside", "in-host")
    for minute, who in ((35, outside), (40, outside), (45, outside), (55, inside)):
        add(30, START + timedelta(hours=14, minutes=minute), 7, who)
    for minute, who in ((10, inside), (25, outside)):
        add(31, START + timedelta(hours=15, minutes=minute), 7, who)
    return History(tuple(snaps), tuple(samples)), details


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """One folder for the module's stores made here: its empty store (tests/histories.py) made once."""
    return tmp_path_factory.mktemp("made")


@pytest.fixture(scope="module")
def sessions_db(made):
    history, details = _sessions_history()
    return _store(history, made / "sessions.sqlite", details)


def _who(body) -> dict:
    return {r["name"]: (r["user"], r["user_name"], r["program"], r["machine"]) for r in body["lists"]["session"]}


def test_a_top_session_is_named_by_its_most_sampled_in_the_newest_48_snapshot_ids_holding_it(sessions_db):
    """§22 Names: over the whole range (61 snapshots), a session's user (named by DBA_USERS), program and machine
    are the most sampled in the newest 48 snapshot ids of the range that hold its samples: session 5's of snapshots
    14 to 61 (user 8, 'web.new', 'new-host'), not its 33 older samples'; each of them counted over every sample
    there, whatever else the sample held (session 6: user 11, 'p1', 'm1', four samples each over two combinations,
    against three of one combination)."""
    body = activity.top(sessions_db, sessions_db.resolve(begin_snap=1, end_snap=61))
    assert {r["name"]: r["samples"] for r in body["lists"]["session"]} == {"1:5,1": 35, "1:6,1": 9, "1:7,1": 6}
    assert _who(body) == {
        "1:5,1": (8, "WEB", "web.new", "new-host"),
        "1:6,1": (11, "U11", "p1", "m1"),
        "1:7,1": (21, "OUTSIDE", "outside", "out-host"),  # four of its six samples
    }


@pytest.mark.parametrize("shift", [3600, -3600], ids=["spring", "autumn"])
def test_a_top_session_is_named_from_the_newest_snapshots_across_a_daylight_saving_change(made, shift):
    """§22 Names across a change of SNAP_TIMEZONE (§17: the range read as runs of one offset): the newest snapshot
    ids holding session 5's samples are still 50 and 60 (user 8, 'web.new', 'new-host'), now an hour ahead or
    behind, not its 33 older samples of the run before the change."""
    history, details = _sessions_history(shift_from=40, shift=shift)
    db = _store(history, made / f"shifted{shift}.sqlite", details)
    body = activity.top(db, db.resolve(begin_snap=1, end_snap=61))
    assert {r["name"]: r["samples"] for r in body["lists"]["session"]} == {"1:5,1": 35, "1:6,1": 9, "1:7,1": 6}
    assert _who(body)["1:5,1"] == (8, "WEB", "web.new", "new-host")


def test_a_top_session_of_a_window_is_named_by_its_samples_in_the_window(sessions_db):
    """§22: a window off the snapshots (14:50 to 15:20 of snapshots 30 and 31, whose intervals run from 14:30 to
    15:30) holds session 7's samples of 14:55 and 15:10 only: its user, program and machine are theirs (user 22,
    'inside', 'in-host'), not those of its four samples outside it in the same snapshots."""
    at = START.replace(tzinfo=UTC)
    rng = sessions_db.resolve(at + timedelta(hours=14, minutes=50), at + timedelta(hours=15, minutes=20))
    body = activity.top(sessions_db, rng)
    assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (29, 31)  # read by sample time
    assert {r["name"]: r["samples"] for r in body["lists"]["session"]} == {"1:7,1": 2}
    assert _who(body) == {"1:7,1": (22, "INSIDE", "inside", "in-host")}


def test_an_object_nothing_names_is_labelled_by_its_id(sessions_db):
    """§22 Names: an object AWR never captured and the dictionary does not hold (999) keeps its id as its label; one
    DBA_HIST_SEG_STAT_OBJ names (101) is OWNER.NAME; the samples on no object are 'no object'."""
    body = activity.top(sessions_db, sessions_db.resolve(begin_snap=1, end_snap=61))
    got = {r["name"]: (r["label"], r["samples"]) for r in body["lists"]["current_obj"]}
    assert got == {999: ("999", 33), None: ("no object", 15), 101: ("APP.T101", 2)}


# -- one instance's top lists across a daylight-saving change ----------------------------------------------------------


def _two_clocks_history():
    """Two instances, 2026-03-29 from 00:00 UTC, a snapshot each half hour, instance 2's 20 s after instance 1's;
    SNAP_TIMEZONE moves from +00:00 to +01:00 at 01:30:10 UTC, so snapshot 3 is instance 1's at +00:00 (01:30:00)
    and instance 2's at +01:00 (01:30:20 UTC), snapshot 4 both at +01:00. Samples, each at a time on its snapshot's
    clock (UTC+1 in instance 2's snapshot 3 and in snapshot 4):
    - instance 1, session 1: 5, 15 and 25 minutes before each of snapshots 2 to 4's end;
    - instance 2, session 3: 00:35 and 00:50 (snapshot 2), 01:05 and 01:20 UTC (snapshot 3), 01:45 and 01:55 UTC
      (snapshot 4); session 2 ('q') at 00:45 UTC (snapshot 2), and ('p') at 01:10 and 01:15 written on the clock of
      before the change (SAMPLE_TIME 01:10 and 01:15), flushed with snapshot 3: on its clock, 00:10 and 00:15 UTC.
    Returns the history, the samples' details and each sample's instant by §22 (its time less its snapshot's
    offset)."""
    from histories import History, Sample, Snap, local

    start = datetime(2026, 3, 29)
    change = start + timedelta(hours=1, minutes=30, seconds=10)
    snaps, ends = [], {}
    for inst in (1, 2):
        for k in range(1, 5):
            end = start + timedelta(minutes=30 * k, seconds=20 * (inst - 1))
            tz = 3600 if end >= change else 0
            snaps.append(Snap(k, inst, local(end + timedelta(seconds=tz)), tz, local(start - timedelta(days=1))))
            ends[inst, k] = (end, tz)
    samples, details, instants = [], {}, {}

    def add(inst, snap_id, at, session, program, clock=None):
        tz = ends[inst, snap_id][1] if clock is None else clock
        sample = Sample(
            snap_id, inst, int((at - start).total_seconds()), local(at + timedelta(seconds=tz)), session, None
        )
        samples.append(sample)
        details[snap_id, inst, sample.sample_id, session] = (8, program, f"node{inst}")
        instants[sample] = datetime.fromisoformat(sample.time) - timedelta(seconds=ends[inst, snap_id][1])

    for k in (2, 3, 4):
        for m in (5, 15, 25):
            add(1, k, ends[1, k][0] - timedelta(minutes=m), 1, "one")
    for hour, minute, k in ((0, 35, 2), (0, 50, 2), (1, 5, 3), (1, 20, 3), (1, 45, 4), (1, 55, 4)):
        add(2, k, start + timedelta(hours=hour, minutes=minute), 3, "three")
    add(2, 2, start + timedelta(minutes=45), 2, "q")
    for minute in (10, 15):
        add(2, 3, start + timedelta(hours=1, minutes=minute), 2, "p", clock=0)
    return History(tuple(snaps), tuple(samples)), details, instants


def test_one_instances_top_lists_of_a_window_across_a_daylight_saving_change_are_its_samples(made):
    """§22, a window (00:40 to 01:50 UTC) where SNAP_TIMEZONE changes inside and the instances of snapshot 3 carry
    different offsets, filtered on instance 2: each of instance 2's snapshots read on its own clock, its samples
    whose time less its snapshot's offset lies in the window, and no sample of instance 1; its sessions named by
    those samples (session 2: 'q', its samples of 01:10 and 01:15 being 00:10 and 00:15 on their snapshot's clock)."""
    history, details, instants = _two_clocks_history()
    db = _store(history, made / "clocks.sqlite", details)
    w0, w1 = datetime(2026, 3, 29, 0, 40), datetime(2026, 3, 29, 1, 50)
    inside = [a for a, at in instants.items() if w0 < at <= w1]
    body = activity.top(db, db.resolve(w0.replace(tzinfo=UTC), w1.replace(tzinfo=UTC)), {"instance": "2"})
    mine = Counter(f"{a.instance}:{a.session},1" for a in inside if a.instance == 2)
    assert mine == {"2:3,1": 4, "2:2,1": 1}  # the case this test is for
    assert {r["name"]: r["samples"] for r in body["lists"]["session"]} == mine
    assert {r["name"]: r["program"] for r in body["lists"]["session"]} == {"2:3,1": "three", "2:2,1": "q"}
    assert body["total_samples"] == 5


# -- a range of no seconds ---------------------------------------------------------------------------------------------


def test_a_range_of_no_seconds_counts_its_samples_without_an_aas(made):
    """§22's AAS is samples x spacing / the range's seconds: snapshot 3 ends in the same second as snapshot 2, so the
    range (2, 3] has no seconds; its one sample (blocked by 1:9,1) is counted, every share of it given, and its AAS,
    in the lists and the blocking sessions, is none (null)."""
    from histories import History, Sample, Snap, database, local

    start = datetime(2026, 3, 2)
    snaps = [
        Snap(k, 1, local(start + timedelta(minutes=m)), 0, local(start)) for k, m in enumerate((30, 60, 60, 90), 1)
    ]
    blocked = Sample(3, 1, 3540, local(start + timedelta(minutes=59)), 5, "Application", blocker=(1, 9, 1))
    db = database(History(tuple(snaps), (blocked,)), made / "no-seconds.sqlite")
    body = activity.top(db, db.resolve(begin_snap=2, end_snap=3))
    assert body["total_samples"] == 1
    for name in ("sql_id", "session", "module", "event", "current_obj"):
        ((row,),) = (body["lists"][name],)
        assert (row["samples"], row["aas"], row["pct_activity"], row["pct_wait"]) == (1, None, 100, 100), name
    ((b,),) = (body["blocking"],)
    assert (b["blocking_session"], b["samples"], b["waiters"], b["aas"]) == (9, 1, 1, None)


def test_a_top_session_without_a_serial_is_listed_unnamed(made):
    """A sample whose SESSION_SERIAL# is null (DBA_HIST_ACTIVE_SESS_HISTORY allows it; Oracle writes none) is still
    a session of the top list, counted with its samples; with no serial# to find it by, its user, program and machine
    are null, and the sessions beside it keep theirs."""
    import sqlite3

    history, details = _sessions_history()
    path = made / "no-serial.sqlite"
    db = _store(history, path, details)
    with sqlite3.connect(path) as con:
        con.execute(f'UPDATE {ASH} SET "SESSION_SERIAL#" = NULL WHERE session_id = 6')
    body = activity.top(db, db.resolve(begin_snap=1, end_snap=61))
    assert {r["name"]: r["samples"] for r in body["lists"]["session"]} == {"1:5,1": 35, "1:6,None": 9, "1:7,1": 6}
    assert _who(body) == {
        "1:5,1": (8, "WEB", "web.new", "new-host"),
        "1:6,None": (None, None, None, None),
        "1:7,1": (21, "OUTSIDE", "outside", "out-host"),
    }
