"""Comparing two periods (docs/awr-rules.md §29) asked of histories made here (tests/histories.py), each expectation
worked out in the test from the rule applied to the rows written, read back with plain SQL, never from the code under
test: each period's DB time per second, the sum of the valid deltas (§3) of `DB time` (µs) over the period's
intervals divided by its elapsed time (§13), and its change from A to B; a database whose time model holds no
`DB time` statistic (none at any snapshot) adds nothing, so DB time is 0 s/s in both periods, a change of 0 %, and no
time mover has a share of A's DB time (a share of nothing). The time movers worked out from the rows: events and a
statement of one period only (0 s/s in the other, `only_in`, the event's wait class, the statement's container in a
CDB whose B runs none), the order by share of DB time change (a share of 0 after the smallest move), the 15 events
and 10 statements of each period compared and no more; the top events' table of the 15 largest of each period; the
containers' names read only where there are statements; and a period of 0 seconds (its two snapshots at one
instant): rates per second unknown, the workload movers by absolute change, the unknown ones last; with B of 0
seconds, an event of A only has no % of B's DB time. The plan differences: of the top 10 statements of each period
only, plan hash value 0 left out in either period, each named by its container."""

import sqlite3
from contextlib import closing
from dataclasses import replace
from datetime import datetime
from itertools import pairwise
from math import fsum

import pytest
from histories import DBID, History, Snap, opened, write

from app.history import compare
from app.store.awr.embedded.summaries import fill_summaries

# snapshots 1 to 4 of one instance (local times, SNAP_TIMEZONE 0): A is 1 to 2 (an hour), B 3 to 4 (half an hour)
ENDS = ("2026-03-29 00:00:00", "2026-03-29 01:00:00", "2026-03-29 01:30:00", "2026-03-29 02:00:00")
A, B = (1, 2), (3, 4)


def _history() -> History:
    """DB time and DB CPU grow unevenly (µs): 1.5 s/s and 0.75 s/s in A, 2.5 s/s and 1.5 s/s in B; the event waits."""
    grown = (0, 5_400_000_000, 7_200_000_000, 11_700_000_000)  # DB time: +5,400 s in A's hour, +4,500 s in B's 1,800 s
    cpu = (0, 2_700_000_000, 3_600_000_000, 6_300_000_000)
    return History(
        tuple(
            Snap(
                k,
                1,
                ENDS[k - 1],
                0,
                "2026-03-28 20:00:00",
                counters=(1_000 * k, 2_000 * k, 10 * k, k, grown[k - 1], cpu[k - 1]),
                waits=(100 * k * k, 1_000_000 * k * k),
            )
            for k in range(1, 5)
        )
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("compare")


@pytest.fixture(scope="module", params=["kept", "no DB time"])
def db(request, folder):
    """The history as written (its time model holds DB time and DB CPU), or without a `DB time` statistic at any
    snapshot (DB CPU kept)."""
    path = write(_history(), folder / f"{request.param.replace(' ', '_')}.sqlite")
    if request.param == "no DB time":
        with closing(sqlite3.connect(path)) as con, con:
            con.execute("DELETE FROM dba_hist_sys_time_model WHERE stat_name = 'DB time'")
    return opened(path)


def _select(db, sql: str, *params) -> list:
    with closing(sqlite3.connect(f"file:{db.store.path}?mode=ro", uri=True)) as con:
        return con.execute(sql, params).fetchall()


def _valid_sum(values: list) -> float:
    """§3 over one startup: the deltas between consecutive snapshots that both have a value and did not go down."""
    total = 0.0
    known = [v for v in values if v is not None]
    for prev, value in pairwise(known):
        if value >= prev:
            total += value - prev
    return total


def _seconds(db, period) -> float:
    """§13: the period's seconds, from its first snapshot's end to its last's (one instance, one startup, UTC)."""
    ends = _select(
        db,
        "SELECT end_interval_time FROM dba_hist_snapshot WHERE dbid = ? AND snap_id IN (?, ?) ORDER BY snap_id",
        DBID,
        *period,
    )
    first, last = (datetime.fromisoformat(e) for (e,) in ends)
    return (last - first).total_seconds()


def _per_second(db, name: str, period) -> float:
    """A time model statistic's seconds per second over the period: its valid deltas (µs) summed / 10⁶ / seconds;
    no row of it adds nothing (the sum of no deltas is 0)."""
    values = [
        v
        for (v,) in _select(
            db,
            "SELECT value FROM dba_hist_sys_time_model WHERE dbid = ? AND stat_name = ? AND snap_id BETWEEN ? AND ? "
            "ORDER BY snap_id",
            DBID,
            name,
            *period,
        )
    ]
    return _valid_sum(values) / 1e6 / _seconds(db, period)


def _change(a: float, b: float) -> float:
    """§29's change from A to B: 100 x (B - A) / A; from 0, +100 to more, 0 to 0."""
    if a == 0:
        return 100.0 if b > 0 else 0.0
    return round(100 * (b - a) / a, 4)


def _compared(db) -> dict:
    return compare.compute(db, db.resolve(begin_snap=A[0], end_snap=A[1]), db.resolve(begin_snap=B[0], end_snap=B[1]))


def test_db_time_per_second_of_each_period(db):
    """§29 DB time: each period's DB time per second (§13: the valid deltas of `DB time` over its intervals / its
    elapsed time), and the change from A to B. Without any `DB time` row the sum is of no delta, 0: 0 s/s in both
    periods (not unknown, and not 1 µs or any other stand-in), a change of 0 %."""
    body = _compared(db)
    a, b = (_per_second(db, "DB time", p) for p in (A, B))
    # the rows as written: 5,400 s over 3,600 s, 4,500 s over 1,800 s; or none
    assert (a, b) in ((1.5, 2.5), (0.0, 0.0))
    assert body["elapsed_seconds"] == {"a": round(_seconds(db, A)), "b": round(_seconds(db, B))}
    assert body["db_time"] == {
        "unit": "s/s",
        "a": round(a, 4),
        "b": round(b, 4),
        "change_pct": _change(a, b),
        "better": "lower",
    }


def test_time_mover_share_of_db_time(db):
    """§29 time movers: `DB CPU`'s seconds per second in A and B and its share of DB time change, 100 x (B - A) / A's
    DB time per second; where A has no DB time (no `DB time` statistic) there is no share (none of nothing)."""
    body = _compared(db)
    rows = [r for r in body["movers"]["rows"] if r["group"] == "time"]
    assert "DB time" not in {r["item"] for r in rows}
    (cpu,) = (r for r in rows if r["item"] == "DB CPU")
    a, b = (_per_second(db, "DB CPU", p) for p in (A, B))
    db_a = _per_second(db, "DB time", A)
    assert (cpu["kind"], cpu["a"], cpu["b"], cpu["change_pct"]) == ("time model", round(a, 4), round(b, 4), 100.0)
    assert cpu["db_time_change_pct"] == (round(100 * (b - a) / db_a, 4) if db_a else None)


# -- the movers (§29): events and statements of one period only, their order, the lists' cuts ------------------------

CLASSES = {
    "log file sync": "Commit",
    "enq: TX - row lock contention": "Application",
    "buffer busy waits": "Concurrency",
}


def _add_events(path, events: dict) -> None:
    """Foreground wait events written after the history (only its one event, EVENT, is written by tests/histories.py):
    name -> (wait class, {snap_id: (cumulative waits, cumulative µs)}); a snapshot not listed has no row of it."""
    with closing(sqlite3.connect(path)) as con, con:
        for k, (name, (wait_class, values)) in enumerate(events.items()):
            for snap_id, (waits, micro) in values.items():
                con.execute(
                    "INSERT INTO dba_hist_system_event (snap_id, dbid, instance_number, event_id, event_name, "
                    "wait_class, total_waits, time_waited_micro, total_waits_fg, time_waited_micro_fg, con_dbid) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (snap_id, DBID, 1, 100 + k, name, wait_class, waits, micro, waits, micro, DBID),
                )


@pytest.fixture(scope="module")
def movers_db(folder):
    """The history in a CDB's root (DBA_HIST_PDB_INSTANCE names a PDB), with a statement run in A only (900 s of
    elapsed time in A's interval, none in B) and three more events: `log file sync` waits in A only (rows at A's
    snapshots alone), `enq: TX - row lock contention` in B only, `buffer busy waits` at 0.1 s/s in both periods."""
    snaps = _history().snaps
    history = History((snaps[0], replace(snaps[1], sql=(("s1", 101, 5, 900_000_000, 0),)), *snaps[2:]))
    path = write(history, folder / "movers.sqlite")
    _add_events(
        path,
        {
            "log file sync": (CLASSES["log file sync"], {1: (0, 0), 2: (50, 36_000_000)}),
            "enq: TX - row lock contention": (
                CLASSES["enq: TX - row lock contention"],
                {3: (0, 0), 4: (20, 90_000_000)},
            ),
            "buffer busy waits": (
                CLASSES["buffer busy waits"],
                {1: (0, 0), 2: (100, 360_000_000), 3: (120, 400_000_000), 4: (170, 580_000_000)},
            ),
        },
    )
    with closing(sqlite3.connect(path)) as con, con:
        con.execute(
            "INSERT INTO dba_hist_pdb_instance (dbid, instance_number, startup_time, con_dbid, open_time, open_mode, "
            "pdb_name) VALUES (?,?,?,?,?,?,?)",
            (DBID, 1, "2026-03-28 20:00:00", 777, "2026-03-28 20:05:00", "READ WRITE", "PDB1"),
        )
    return opened(path)


@pytest.fixture(scope="module")
def cut_db(folder):
    """More events and statements than compare keeps: 15 events at k/100 s/s in both periods (k = 1 to 15), then
    `small event` (0.001 s/s in A, 0.005 in B) and the history's own event (smaller still in both); 10 statements at
    k/100 s/s in both (a01 to a10), then a11 (0.001 s/s in A, 0.005 in B)."""
    snaps = _history().snaps

    def ran(seconds, small):  # each statement's elapsed µs over the interval (A's is 3,600 s, B's 1,800 s)
        return (*((f"a{k:02d}", 100 + k, 1, k * seconds * 10**6, 0) for k in range(1, 11)), ("a11", 111, 1, small, 0))

    history = History(
        (snaps[0], replace(snaps[1], sql=ran(36, 3_600_000)), snaps[2], replace(snaps[3], sql=ran(18, 9_000_000)))
    )
    path = write(history, folder / "cut.sqlite")
    events = {
        f"event {k:02d}": (
            "Other",
            {1: (0, 0), 2: (10, 36 * k * 10**6), 3: (20, 40 * k * 10**6), 4: (30, 58 * k * 10**6)},
        )
        for k in range(1, 16)
    }
    events["small event"] = ("Network", {1: (0, 0), 2: (10, 3_600_000), 3: (20, 4_000_000), 4: (30, 13_000_000)})
    _add_events(path, events)
    return opened(path)


def _period_events(db, period) -> dict:
    """§14 from the view's rows: each non-idle event whose foreground waits moved over the period's interval (its two
    snapshots), with its wait class and the seconds it waited (a valid delta of TIME_WAITED_MICRO_FG / 10⁶)."""
    values: dict = {}
    for name, wait_class, snap_id, waits, micro in _select(
        db,
        "SELECT event_name, wait_class, snap_id, total_waits_fg, time_waited_micro_fg FROM dba_hist_system_event "
        "WHERE dbid = ? AND snap_id IN (?, ?) AND wait_class <> 'Idle'",
        DBID,
        *period,
    ):
        values.setdefault(name, [wait_class, {}])[1][snap_id] = (waits, micro)
    out = {}
    for name, (wait_class, at) in values.items():
        if len(at) == 2 and at[period[1]][0] - at[period[0]][0] > 0:
            out[name] = (wait_class, _valid_sum([at[period[0]][1], at[period[1]][1]]) / 1e6)
    return out


def _period_sql(db, period) -> dict:
    """§15 from the view's rows: each statement's ELAPSED_TIME_DELTA (s) summed over the period's intervals
    (begin_snap < SNAP_ID <= end_snap), by (CON_DBID, SQL_ID)."""
    return {
        (con, sql_id): micro / 1e6
        for con, sql_id, micro in _select(
            db,
            "SELECT con_dbid, sql_id, SUM(elapsed_time_delta) FROM dba_hist_sqlstat WHERE dbid = ? AND snap_id > ? "
            "AND snap_id <= ? GROUP BY con_dbid, sql_id",
            DBID,
            *period,
        )
    }


def _first(seconds: dict, n: int) -> set:
    """The union of the first n of each period ({period: {item: seconds}}), largest first (no ties here)."""
    return {k for rows in seconds.values() for k in sorted(rows, key=lambda k: -rows[k])[:n]}


def _time_movers(db) -> list:
    """§29's time movers worked out from the rows: every time model statistic but `DB time`, the union of the 15
    largest wait events of A and of B, the union of the 10 statements with the most elapsed time in A and in B; each
    per second of its period (0 where the period has none of it: an item of one period only), with its share of DB
    time change, 100 x (B - A) / A's DB time per second; an item of nothing in both periods is no move; the largest
    share first (ties by name), the first 15 kept. Rows: (kind, item, container, wait class, a, b, share, only_in,
    series)."""
    seconds = {p: _seconds(db, p) for p in (A, B)}
    db_a = _per_second(db, "DB time", A)
    items = []
    for (name,) in _select(db, "SELECT DISTINCT stat_name FROM dba_hist_sys_time_model WHERE stat_name <> 'DB time'"):
        ta, tb = (_per_second(db, name, p) * seconds[p] for p in (A, B))
        items.append(("time model", name, None, None, ta, tb, f"sys_time_model:{name}"))
    events = {p: _period_events(db, p) for p in (A, B)}
    for name in _first({p: {e: s for e, (_, s) in events[p].items()} for p in (A, B)}, 15):
        (wait_class,) = {events[p][name][0] for p in (A, B) if name in events[p]}
        ta, tb = (events[p].get(name, (None, 0.0))[1] for p in (A, B))
        items.append(("wait event", name, None, wait_class, ta, tb, f"system_event:{name}:time"))
    sql = {p: _period_sql(db, p) for p in (A, B)}
    names = dict(_select(db, "SELECT con_dbid, pdb_name FROM dba_hist_pdb_instance WHERE dbid = ?", DBID))
    if names:
        names.setdefault(DBID, "CDB$ROOT")  # §1: the root's rows
    for key in _first(sql, 10):
        ta, tb = (sql[p].get(key, 0.0) for p in (A, B))
        items.append(("sql", key[1], names.get(key[0]), None, ta, tb, None))
    out = []
    for kind, item, container, wait_class, ta, tb, series in items:
        a, b = ta / seconds[A], tb / seconds[B]
        if a or b:
            only_in = "a" if ta and not tb else "b" if tb and not ta else None
            share = round(100 * (b - a) / db_a, 4)
            out.append((kind, item, container, wait_class, round(a, 4), round(b, 4), share, only_in, series))
    return sorted(out, key=lambda r: (-abs(r[6]), r[1]))[:15]


def _answered(body) -> list:
    return [
        (
            r["kind"],
            r["item"],
            r["container"],
            r["wait_class"],
            r["a"],
            r["b"],
            r["db_time_change_pct"],
            r["only_in"],
            r["series"],
        )
        for r in body["movers"]["rows"]
        if r["group"] == "time"
    ]


def test_time_movers_of_one_period_only(movers_db):
    """§29 time movers: an event waited in A only (`log file sync`) or in B only (`enq: TX - row lock contention`),
    and a statement run in A only, are movers with 0 s/s in the other period (not 1 s, nor left out), `only_in`
    saying which, the event with its wait class whichever period has it, the statement with its container (§1: the
    root's CON_DBID, CDB$ROOT, although B runs no statement); an event of the same seconds per second in both
    (`buffer busy waits`, a share of 0) after every one that moved, however little (0.2 % of A's DB time)."""
    expected = _time_movers(movers_db)
    by_item = {r[1]: r for r in expected}
    assert by_item["log file sync"][2:] == (
        None,
        "Commit",
        0.01,
        0.0,
        round(-100 * 0.01 / 1.5, 4),
        "a",
        "system_event:log file sync:time",
    )
    assert by_item["enq: TX - row lock contention"][3:8] == ("Application", 0.0, 0.05, round(100 * 0.05 / 1.5, 4), "b")
    assert by_item["s1"][2:8] == ("CDB$ROOT", None, 0.25, 0.0, round(-100 * 0.25 / 1.5, 4), "a")
    assert by_item["buffer busy waits"][6] == 0.0 and 0 < by_item["db file sequential read"][6] < 1
    assert _answered(_compared(movers_db)) == expected


def test_time_movers_kept_of_many_events_and_statements(cut_db):
    """§29 time movers: only the 15 largest wait events of A and of B and the 10 statements with the most elapsed time
    in A and in B are compared: the 16th event of both (`small event`, a share of 0.27 %) and the 11th statement
    (a11) are not movers, while items of no change (a share of 0) are; the first 15 by share, ties by name."""
    expected = _time_movers(cut_db)
    assert {"small event", "db file sequential read", "a11"}.isdisjoint(r[1] for r in expected)
    assert _answered(_compared(cut_db)) == expected


def test_top_events_compared_of_many_events(cut_db):
    """§29 top events: the rows are the union of the 15 largest events of A and of B (§14: the `DB CPU` row among
    them, its time the time model's DB CPU), not every event that waited."""
    ranked = {}
    for p in (A, B):
        rows = {name: s for name, (_, s) in _period_events(cut_db, p).items()}
        rows["DB CPU"] = _per_second(cut_db, "DB CPU", p) * _seconds(cut_db, p)
        ranked[p] = rows
    events = [r["event"] for r in _compared(cut_db)["top_events"]["rows"]]
    assert len(events) == len(set(events)) and set(events) == _first(ranked, 15)
    assert "event 01" not in events and "small event" not in events


def test_containers_read_only_where_statements_are_compared(db, monkeypatch):
    """§29: the statements' containers (§1) are read where a period has statements to compare; this history has none
    (no SQLSTAT row), so the names of its containers are never read."""
    assert _select(db, "SELECT count(*) FROM dba_hist_sqlstat") == [(0,)]
    fresh = opened(db.store.path)  # nothing cached yet
    read, rows = [], fresh.rows
    monkeypatch.setattr(fresh, "rows", lambda stmt, **binds: read.append(stmt.build.__name__) or rows(stmt, **binds))
    _compared(fresh)
    assert "events_at" in read and "containers" not in read


# -- a period of no seconds (§6: a range's own snapshots are used as they are, even at one instant) -----------------


@pytest.fixture(scope="module")
def instant_db(folder):
    """The history with A's two snapshots at one instant (snapshot 2 ends when 1 does), its logical reads 0.5 % more
    per transaction in B than in A (2,000 then 2,010 blocks for 11 transactions)."""
    snaps = _history().snaps
    reads = (2_000, 4_000, 6_000, 8_010)
    history = History(
        tuple(
            replace(s, end=ENDS[0] if s.snap_id == 2 else s.end, counters=(s.counters[0], reads[k], *s.counters[2:]))
            for k, s in enumerate(snaps)
        )
    )
    return opened(write(history, folder / "instant.sqlite"))


def _stat_delta(db, view: str, names: tuple, period) -> float:
    """A counter's (or counters' sum's) valid delta over the period's interval, from the view's rows (§3)."""
    return fsum(
        _valid_sum(
            [
                v
                for (v,) in _select(
                    db,
                    f"SELECT value FROM dba_hist_{view} WHERE dbid = ? AND stat_name = ? AND snap_id IN (?, ?) "
                    "ORDER BY snap_id",
                    DBID,
                    name,
                    *period,
                )
            ]
        )
        for name in names
    )


def test_period_of_no_seconds(instant_db):
    """§29 with A of 0 seconds: every rate per second of A is unknown (no division by 0 seconds), so each change per
    second is empty; per transaction A is known. The workload movers: the largest absolute change first (a change of
    0 % after one of 0.5 %), the unknown changes after the others, ties by name (§29)."""
    assert _seconds(instant_db, A) == 0
    body = _compared(instant_db)
    assert body["db_time"]["a"] is None and body["db_time"]["change_pct"] is None
    assert [
        r for r in body["load_profile"]["rows"] if r["a_per_second"] is not None or r["change_pct"] is not None
    ] == []
    txns = {p: _stat_delta(instant_db, "sysstat", ("user commits", "user rollbacks"), p) for p in (A, B)}
    per_txn = {  # the costs this history has, per transaction (§13's statistics; time µs -> s)
        "DB Time(s)": ("sys_time_model", ("DB time",), 1e-6),
        "DB CPU(s)": ("sys_time_model", ("DB CPU",), 1e-6),
        "Logical read (blocks)": ("sysstat", ("session logical reads",), 1),
    }
    per_second = {  # the volumes it has: A's per second unknown
        "Redo size (bytes)": ("sysstat", ("redo size",)),
        "Rollbacks": ("sysstat", ("user rollbacks",)),
        "Transactions": ("sysstat", ("user commits", "user rollbacks")),
    }
    expected = []
    for label, (view, names, scale) in per_txn.items():
        a, b = (_stat_delta(instant_db, view, names, p) * scale / txns[p] for p in (A, B))
        expected.append((label, round(a, 4), round(b, 4), _change(a, b)))
    for label, (view, names) in per_second.items():
        b = _stat_delta(instant_db, view, names, B) / _seconds(instant_db, B)
        expected.append((label, None, round(b, 4), None))
    assert [e[3] for e in expected[:3]] == [-16.6667, 0.0, 0.5]  # the history as written
    expected.sort(key=lambda e: (e[3] is None, -abs(e[3] or 0), e[0]))
    rows = [r for r in body["movers"]["rows"] if r["group"] == "workload"]
    assert [(r["item"], r["a"], r["b"], r["change_pct"]) for r in rows] == expected


def test_statements_tied_at_the_cut_are_compared_in_top_sqls_order(folder):
    """§29 compares each period's 10 statements with the most elapsed time, in top SQL's order (§15: ties by SQL_ID,
    then container): nine larger statements, then `aa` of container 3 and `bb` of container 12 tied at the tenth,
    each changing its plan between the periods: `aa`'s change is listed, `bb`'s not (as text "(12, 'bb')" sorts
    before "(3, 'aa')")."""
    snaps = _history().snaps

    def ran(plan):
        big = tuple((f"s{k}", 100 + k, 1, (100 + k) * 10**6, 0) for k in range(1, 10))
        return (*big, ("aa", plan, 1, 50 * 10**6, 0), ("bb", plan, 1, 50 * 10**6, 0))

    history = History((snaps[0], replace(snaps[1], sql=ran(1)), snaps[2], replace(snaps[3], sql=ran(2))))
    path = write(history, folder / "tied.sqlite")
    with closing(sqlite3.connect(path)) as con, con:
        con.execute("UPDATE dba_hist_sqlstat SET con_dbid = 3 WHERE sql_id = 'aa'")
        con.execute("UPDATE dba_hist_sqlstat SET con_dbid = 12 WHERE sql_id = 'bb'")
    db = opened(path)
    body = compare.compute(db, db.resolve(begin_snap=A[0], end_snap=A[1]), db.resolve(begin_snap=B[0], end_snap=B[1]))
    plans = {(r["item"], r["change"]) for r in body["differences"]["rows"] if r["kind"] == "plan"}
    assert plans == {("aa", "appeared"), ("aa", "disappeared")}


# -- what differs (§29): the plans of the top statements that ran in both periods -----------------------------------


def _plans_db(path, a_sql: tuple, b_sql: tuple, containers: dict | None = None, pdbs: dict | None = None):
    """The history with SQLSTAT rows in A's interval (snapshot 2) and B's (snapshot 4), each (SQL_ID, plan hash
    value, elapsed s); `containers` moves a SQL_ID's rows to that CON_DBID, `pdbs` names PDBs by CON_DBID in
    DBA_HIST_PDB_INSTANCE (a CDB's root)."""
    snaps = _history().snaps

    def ran(rows):
        return tuple((sql_id, plan, 1, seconds * 10**6, 0) for sql_id, plan, seconds in rows)

    history = History((snaps[0], replace(snaps[1], sql=ran(a_sql)), snaps[2], replace(snaps[3], sql=ran(b_sql))))
    write(history, path)
    with closing(sqlite3.connect(path)) as con, con:
        for sql_id, con_dbid in (containers or {}).items():
            con.execute("UPDATE dba_hist_sqlstat SET con_dbid = ? WHERE sql_id = ?", (con_dbid, sql_id))
        for con_dbid, name in (pdbs or {}).items():
            con.execute(
                "INSERT INTO dba_hist_pdb_instance (dbid, instance_number, startup_time, con_dbid, open_time, "
                "open_mode, pdb_name) VALUES (?,?,?,?,?,?,?)",
                (DBID, 1, "2026-03-28 20:00:00", con_dbid, "2026-03-28 20:05:00", "READ WRITE", name),
            )
        fill_summaries(con)  # the store's summaries of SQLSTAT anew, from the rows as they are now
    return opened(path)


def _plan_changes(db) -> list:
    """§29's plan differences worked out from the rows: of the union of the 10 statements with the most elapsed time
    in A and in B (§15's sums), each that ran in both periods; a plan hash value of its SQLSTAT rows in B and not in
    A appeared, in A and not in B disappeared; plan hash value 0 (no plan) left out; the container its CON_DBID's
    name (§1: CDB$ROOT for the root's, none in a non-CDB). Rows: (item, container, a, b, change), sorted."""
    sql = {p: _period_sql(db, p) for p in (A, B)}
    names = dict(_select(db, "SELECT con_dbid, pdb_name FROM dba_hist_pdb_instance WHERE dbid = ?", DBID))
    if names:
        names.setdefault(DBID, "CDB$ROOT")
    out = []
    for key in _first(sql, 10):
        if key not in sql[A] or key not in sql[B]:
            continue
        plans = {
            p: {
                v
                for (v,) in _select(
                    db,
                    "SELECT plan_hash_value FROM dba_hist_sqlstat WHERE dbid = ? AND con_dbid = ? AND sql_id = ? "
                    "AND snap_id > ? AND snap_id <= ? AND plan_hash_value <> 0",
                    DBID,
                    *key,
                    *p,
                )
            }
            for p in (A, B)
        }
        out += [(key[1], names.get(key[0]), None, str(v), "appeared") for v in plans[B] - plans[A]]
        out += [(key[1], names.get(key[0]), str(v), None, "disappeared") for v in plans[A] - plans[B]]
    return sorted(out, key=str)


def _plans_answered(db) -> list:
    rows = [r for r in _compared(db)["differences"]["rows"] if r["kind"] == "plan"]
    return sorted(((r["item"], r["container"], r["a"], r["b"], r["change"]) for r in rows), key=str)


def test_plan_zero_left_out_in_either_period(folder):
    """§29: plan hash value 0 (no plan: a PL/SQL call) is no plan of either period. p1 runs plan 0 in A, plans 0 and
    7 in B: one difference, 7 appeared; p2 runs plan 0 in A, plan 8 in B: 8 appeared, 0 not gone; p3 runs plan 9 in
    A, plans 0 and 9 in B: no difference (0 not new)."""
    db = _plans_db(
        folder / "plan_zero.sqlite",
        (("p1", 0, 300), ("p2", 0, 200), ("p3", 9, 100)),
        (("p1", 0, 100), ("p1", 7, 50), ("p2", 8, 120), ("p3", 0, 60), ("p3", 9, 30)),
    )
    expected = _plan_changes(db)
    assert expected == [("p1", None, None, "7", "appeared"), ("p2", None, None, "8", "appeared")]  # as written
    assert _plans_answered(db) == expected


def test_plans_compared_of_the_top_statements_only(folder):
    """§29: only the 10 statements with the most elapsed time in A and in B have their plans compared: a01 (the
    largest) changes plan 101 for 201 and is listed; a11, the 11th of both periods, changes plan 1 for 2 and is not."""
    top = [(f"a{k:02d}", 100 + k, 36 * k) for k in range(1, 11)]
    db = _plans_db(
        folder / "plans_cut.sqlite",
        (*top, ("a11", 1, 3)),
        (("a01", 201, 18), *top[1:], ("a11", 2, 1)),
    )
    expected = _plan_changes(db)
    assert expected == [("a01", None, "101", None, "disappeared"), ("a01", None, None, "201", "appeared")]
    assert _plans_answered(db) == expected


def test_plan_change_names_its_container(folder):
    """§29 `container` of a plan difference (§1): in a CDB's root, a statement of a PDB (its rows' CON_DBID 777,
    DBA_HIST_PDB_INSTANCE naming it PDB1) changing plan 1 for 2 is of PDB1; the root's own (r1, 3 for 4) of
    CDB$ROOT."""
    db = _plans_db(
        folder / "plans_pdb.sqlite",
        (("p1", 1, 300), ("r1", 3, 200)),
        (("p1", 2, 100), ("r1", 4, 50)),
        containers={"p1": 777},
        pdbs={777: "PDB1"},
    )
    expected = _plan_changes(db)
    assert {(r[0], r[1]) for r in expected} == {("p1", "PDB1"), ("r1", "CDB$ROOT")} and len(expected) == 4
    assert _plans_answered(db) == expected


@pytest.fixture(scope="module")
def instant_b_db(folder):
    """The history with B's two snapshots at one instant (snapshot 4 ends when 3 does), and `log file sync` waiting in
    A only (rows at A's snapshots alone: 36 s over A's interval)."""
    snaps = _history().snaps
    history = History(tuple(replace(s, end=ENDS[2]) if s.snap_id == 4 else s for s in snaps))
    path = write(history, folder / "instant_b.sqlite")
    _add_events(path, {"log file sync": (CLASSES["log file sync"], {1: (0, 0), 2: (50, 36_000_000)})})
    return opened(path)


def test_event_of_a_only_against_a_period_of_no_seconds(instant_b_db):
    """§29 top events with B of 0 seconds (§6): an event of A only (`log file sync`) has no % of B's DB time, unknown
    (null), not 0 %: B is no period of time to share; in A it is 100 x its time / A's DB time (§14)."""
    assert _seconds(instant_b_db, B) == 0
    events = _period_events(instant_b_db, A)
    assert "log file sync" in events and "log file sync" not in _period_events(instant_b_db, B)
    db_time_a = _per_second(instant_b_db, "DB time", A) * _seconds(instant_b_db, A)
    (row,) = (r for r in _compared(instant_b_db)["top_events"]["rows"] if r["event"] == "log file sync")
    assert row["a_pct_db_time"] == round(100 * events["log file sync"][1] / db_time_a, 4)
    assert row["b_pct_db_time"] is None


def test_the_time_model_of_periods_before_a_newest_snapshot_without_one(folder):
    """§29's time model is the periods' own (§13): where the newest snapshot holds no DBA_HIST_SYS_TIME_MODEL row (a
    partial flush), periods before it still have their DB time and DB CPU per second, as their Load Profile has."""
    path = write(_history(), folder / "newest_without_time_model.sqlite")
    with closing(sqlite3.connect(path)) as con, con:
        con.execute("DELETE FROM dba_hist_sys_time_model WHERE snap_id = 4")
    db = opened(path)
    first, second = (1, 2), (2, 3)
    body = compare.compute(
        db, db.resolve(begin_snap=first[0], end_snap=first[1]), db.resolve(begin_snap=second[0], end_snap=second[1])
    )
    a, b = (_per_second(db, "DB time", p) for p in (first, second))
    assert (a, b) == (1.5, 1.0)  # 5,400 s over an hour, 1,800 s over half an hour
    assert (body["db_time"]["a"], body["db_time"]["b"]) == (a, b)
    movers = {r["item"]: (r["a"], r["b"]) for r in body["movers"]["rows"] if r["kind"] == "time model"}
    assert movers["DB CPU"] == tuple(round(_per_second(db, "DB CPU", p), 4) for p in (first, second))
