"""The changes layer's plans and versions (docs/awr-rules.md §23) on histories made here (tests/histories.py), each
expectation read from the rule and the rows written, never from the code under test: a new plan at the first
instance that ran it, its elapsed time summed over the range's rows (an instance's NULL adds nothing) and shown in
seconds to four decimals; a plan that comes back after another; one instance's changes beside another instance's
listed before them; a version read NULL at one startup; the embedded store's plan first snapshots
(summaries.PLAN_FIRSTS) giving what the scan of DBA_HIST_SQLSTAT gives."""

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from histories import DBID, History, Snap, database, local, opened, write

from app.history import changes

START = datetime(2026, 5, 4, 8, 0)
ELAPSED_NEW_A1 = 9_000_000  # µs: a1's new plan, on instance 2, the largest
ELAPSED_NEW_B2 = 2_000_000  # b2's new plan, on instance 1
ELAPSED_NEW_C3 = 1_234_549  # c3's new plan on instance 1 (instance 2's row NULL): 1.2345 s, 1 µs short of a boundary


def _plans_history(versions=None) -> History:
    """Two instances, snapshots 1 to 6 half an hour apart, one startup each (or `versions`' startups: see the
    version test). DBA_HIST_SQLSTAT rows (SQL_ID, plan, executions, elapsed µs, CPU µs):
    - a1 runs plan 11 on both instances in snapshots 1 and 2, plan 22 on instance 2 alone from snapshot 4;
    - b2 runs plan 33 on instance 1 in snapshots 1 and 2, plan 44 on instance 1 from snapshot 5;
    - c3 runs plan 55 on instance 1 in snapshot 1, plan 66 in snapshot 4 on instance 1 (ELAPSED_NEW_C3) and on
      instance 2 (elapsed NULL);
    - d4 runs plan 1 on instance 2 in snapshots 1 and 2, plan 2 in snapshot 3, plan 1 again in snapshot 4;
    - e5 runs plan 7 on instance 1 in snapshot 1, plan 8 in snapshots 2 to 4, plan 7 again in snapshot 5."""
    sql: dict = {}

    def add(snap_id, inst, *row):
        sql.setdefault((snap_id, inst), []).append(row)

    for k in (1, 2):
        add(k, 1, "a1", 11, 10, 100_000, 90_000)
        add(k, 2, "a1", 11, 10, 100_000, 90_000)
        add(k, 1, "b2", 33, 5, 50_000, 40_000)
        add(k, 2, "d4", 1, 3, 30_000, 20_000)
    for k in (4, 5, 6):
        add(k, 2, "a1", 22, 4, ELAPSED_NEW_A1 // 3, 1)
    for k in (5, 6):
        add(k, 1, "b2", 44, 2, ELAPSED_NEW_B2 // 2, 1)
    add(1, 1, "c3", 55, 1, 1_000, 1)
    add(4, 1, "c3", 66, 1, ELAPSED_NEW_C3, 1)
    add(4, 2, "c3", 66, 1, None, None)
    add(3, 2, "d4", 2, 3, 30_000, 1)
    add(4, 2, "d4", 1, 3, 30_000, 1)
    add(1, 1, "e5", 7, 1, 1_000, 1)
    for k in (2, 3, 4):
        add(k, 1, "e5", 8, 1, 1_000, 1)
    add(5, 1, "e5", 7, 1, 1_000, 1)
    startup = local(START - timedelta(days=1))
    snaps = []
    for k in range(1, 7):
        for inst in (1, 2):
            began = (versions or {}).get((inst, k), (startup,))[0]
            end = local(START + timedelta(minutes=30 * k))
            snaps.append(Snap(k, inst, end, 0, began, sql=tuple(sql.get((k, inst), ()))))
    return History(tuple(snaps))


@pytest.fixture(scope="module")
def plans_db(tmp_path_factory):
    return database(_plans_history(), tmp_path_factory.mktemp("changes") / "plans.sqlite")


def _plans(body) -> list:
    return [
        (r["instance"], r["snap_id"], r["details"]["sql_id"], r["details"]["plan_hash_value"], r["text"])
        for r in body["rows"]
        if r["kind"] == "plan"
    ]


NEW_A1 = (2, 4, "a1", 22, "new plan 22 of SQL a1 (before: 11)")
NEW_B2 = (1, 5, "b2", 44, "new plan 44 of SQL b2 (before: 33)")
NEW_C3 = (1, 4, "c3", 66, "new plan 66 of SQL c3 (before: 55)")
NEW_D4 = (2, 3, "d4", 2, "new plan 2 of SQL d4 (before: 1)")
NEW_E5 = (1, 2, "e5", 8, "new plan 8 of SQL e5 (before: 7)")
BACK_D4 = (2, 4, "d4", 1, "plan 1 of SQL d4 back (before: 2)")
BACK_E5 = (1, 5, "e5", 7, "plan 7 of SQL e5 back (before: 8)")


@pytest.mark.parametrize(
    ("instance", "want"),
    [
        ("all", {NEW_A1, NEW_B2, NEW_C3, NEW_D4, BACK_D4, BACK_E5}),
        ("1", {NEW_B2, NEW_C3, BACK_E5}),  # after instance 2's, which rank before them (more elapsed, earlier)
        ("2", {NEW_A1, NEW_D4, BACK_D4}),
    ],
)
def test_new_and_returning_plans_of_one_instance(plans_db, instance, want):
    """§23 over (2, 6]: a plan first seen in the range of a statement seen before with another plan is new, at the
    first instance that ran it (e5's plan 8 first ran in snapshot 2, outside the range: not new); a plan that comes
    back after the statement's previous snapshot ran another is a return. One instance's are that instance's, whatever
    another instance's rank before them."""
    body = changes.compute(plans_db, plans_db.resolve(begin_snap=2, end_snap=6), instance)
    assert set(_plans(body)) == want and NEW_E5 not in want and body["instance"] == instance


def test_a_new_plans_elapsed_time_is_its_rows_summed_in_seconds_to_four_decimals(plans_db):
    """§23: a new plan's elapsed time is its rows' ELAPSED_TIME_DELTA summed over the range, an instance's NULL adding
    nothing, shown in seconds to four decimals (§19); its executions likewise."""
    body = changes.compute(plans_db, plans_db.resolve(begin_snap=2, end_snap=6))
    details = {(r["details"]["sql_id"], r["details"]["plan_hash_value"]): r["details"] for r in body["rows"]}
    for key, elapsed, executions in (
        (("c3", 66), ELAPSED_NEW_C3, 2),
        (("a1", 22), ELAPSED_NEW_A1, 12),
        (("b2", 44), ELAPSED_NEW_B2, 4),
    ):
        want = float((Decimal(elapsed) / 10**6).quantize(Decimal("0.0001")))
        assert (details[key]["elapsed_s"], details[key]["executions"]) == (want, executions), key


def test_the_plans_first_snapshots_give_what_the_scan_of_the_statements_rows_gives(plans_db, monkeypatch):
    """The embedded store keeps each plan's first snapshot per instance (summaries.PLAN_FIRSTS) and the changes read
    new and returning plans from it; without it they scan DBA_HIST_SQLSTAT. The rows are the same either way."""
    read, rows = [], plans_db.rows
    monkeypatch.setattr(plans_db, "rows", lambda stmt, **binds: read.append(stmt.key) or rows(stmt, **binds))
    rng = plans_db.resolve(begin_snap=2, end_snap=6)
    summed = changes.compute(plans_db, rng)
    assert {"new_plans(True)", "plan_returns(True)"} <= set(read)
    monkeypatch.setattr(plans_db.store, "plan_firsts", False)
    read.clear()
    scanned = changes.compute(plans_db, rng)
    assert {"new_plans(False)", "plan_returns(False)"} <= set(read)
    assert scanned["rows"] == summed["rows"]


def _startups(history, path, versions: dict, extra=()):
    """The history's store with instance 1's VERSION per startup ({startup text: version}) and `extra` startups no
    snapshot saw ((instance, startup text, version)), as a Database."""
    import sqlite3

    write(history, path)
    with sqlite3.connect(path) as con:
        con.executemany(
            "UPDATE dba_hist_database_instance SET version = ? WHERE dbid = ? AND instance_number = 1 "
            "AND startup_time = ?",
            [(version, DBID, startup) for startup, version in versions.items()],
        )
        con.executemany(
            "INSERT INTO dba_hist_database_instance (dbid, instance_number, startup_time, parallel, db_name, "
            "instance_name, host_name, version) VALUES (?, ?, ?, 'YES', 'GEN', 'GEN', 'node', ?)",
            [(DBID, *startup) for startup in extra],
        )
    return opened(path)


def _versions(db, lo, hi=6) -> list:
    body = changes.compute(db, db.resolve(begin_snap=lo, end_snap=hi))
    return [(r["instance"], r["snap_id"], r["time"], r["text"]) for r in body["rows"] if r["kind"] == "version"]


def test_an_upgrade_whose_startup_no_snapshot_saw_is_seen_at_the_next_startup(tmp_path):
    """§23: an upgrade's startup in UPGRADE mode (19.24, 09:35, no snapshot), then the instance's normal startup
    (19.24, 09:40, snapshots 4 and 5) and a restart on the same release (10:40, snapshot 6): one change, 19.0 →
    19.24, at the normal startup's first snapshot; none for instance 2, which kept 19.0, nor for an instance 3 whose
    two startups (19.0, then 19.24) no snapshot saw."""
    upgrade, normal = local(START + timedelta(minutes=95)), local(START + timedelta(minutes=100))
    again = local(START + timedelta(minutes=160))
    history = _plans_history({(1, 4): (normal,), (1, 5): (normal,), (1, 6): (again,)})
    unseen = [
        (1, upgrade, "19.24.0.0.0"),
        (3, local(START), "19.0.0.0.0"),
        (3, upgrade, "19.24.0.0.0"),
    ]
    db = _startups(history, tmp_path / "upgrade.sqlite", {normal: "19.24.0.0.0", again: "19.24.0.0.0"}, unseen)
    time = (START + timedelta(minutes=100)).isoformat() + "+00:00"
    assert _versions(db, 2) == [(1, 4, time, "version 19.0.0.0.0 → 19.24.0.0.0")]
    assert _versions(db, 4) == []  # seen at snapshot 4 only: a range after it holds none, the restart no change


def test_a_version_read_null_at_one_startup_is_shown_null(tmp_path):
    """§23: a startup whose DBA_HIST_DATABASE_INSTANCE.VERSION is NULL (unknown) and the next one's release differ:
    a version change at the new startup's first snapshot, shown NULL → release, as a parameter's NULL is."""
    import sqlite3

    later = local(START + timedelta(minutes=100))
    history = _plans_history({(1, k): (later,) for k in (4, 5, 6)})
    path = tmp_path / "versions.sqlite"
    write(history, path)
    with sqlite3.connect(path) as con:
        con.execute(
            "UPDATE dba_hist_database_instance SET version = NULL WHERE dbid = ? AND instance_number = 1 "
            "AND startup_time < ?",
            (DBID, later),
        )
    db = opened(path)
    body = changes.compute(db, db.resolve(begin_snap=2, end_snap=6))
    got = [(r["instance"], r["snap_id"], r["text"], r["details"]) for r in body["rows"] if r["kind"] == "version"]
    assert got == [(1, 4, "version NULL → 19.0.0.0.0", {"old_version": None, "new_version": "19.0.0.0.0"})]


def test_changes_at_one_time_go_by_kind_then_instance_then_text(tmp_path):
    """§23: the list is in time order; changes at one time by kind (restart, parameter, plan, version, run), then
    instance, then text: at snapshot 4 (both instances end it at 10:00) instance 1's zz_param before instance 2's
    aa_param, though its text sorts after."""
    from histories import replace

    history = _plans_history()
    snaps = []
    for s in history.snaps:
        name = "zz_param" if s.instance == 1 else "aa_param"
        snaps.append(replace(s, params=((name, "1" if s.snap_id < 4 else "2"),)))
    db = database(History(tuple(snaps)), tmp_path / "params.sqlite")
    body = changes.compute(db, db.resolve(begin_snap=2, end_snap=6))
    at_four = [(r["kind"], r["instance"], r["text"]) for r in body["rows"] if r["snap_id"] == 4]
    assert at_four[:2] == [("parameter", 1, "zz_param: 1 → 2"), ("parameter", 2, "aa_param: 1 → 2")]
    assert [kind for kind, _, _ in at_four[2:]] == ["plan"] * (len(at_four) - 2)
    assert body["instance"] == "all"


def test_the_benchmark_runs_of_a_range_are_those_linked_whose_window_overlaps_it(plans_db):
    """§23: a benchmark run is a change where it is linked to this database (`awr_db`) and its AWR window
    (awr_begin_snap, awr_end_snap] overlaps the range, timed at its start, or without one at its window's first
    snapshot; a run of another database, one without a window, one outside the range and one whose window's first
    snapshot the history does not hold and that has no start are not, whichever come first."""
    rng = plans_db.resolve(begin_snap=2, end_snap=6)

    def run(slug, db=plans_db.key, begin=2, end=4, started=None):
        return {
            "slug": slug,
            "title": slug.title(),
            "kind": "hammerdb",
            "awr_db": db,
            "awr_begin_snap": begin,
            "awr_end_snap": end,
            "started": started,
            "finished": None,
        }

    found = [
        run("elsewhere", db="other.1"),
        run("unlinked", begin=None, end=None),
        run("before", begin=1, end=2),
        run("unknown", begin=40, end=44) | {"awr_begin_snap": 0},
        run("started", started="2026-05-04T08:45:00+00:00"),
        run("windowed", begin=3, end=6),
    ]
    body = changes.compute(plans_db, rng, found_runs=found)
    runs = [(r["time"], r["snap_id"], r["text"]) for r in body["rows"] if r["kind"] == "run"]
    assert runs == [
        ("2026-05-04T08:45:00+00:00", 2, "benchmark run: Started"),
        ((START + timedelta(minutes=90)).isoformat() + "+00:00", 3, "benchmark run: Windowed"),
    ]
