"""Comparing two periods (docs/awr-rules.md §29) asked of histories made here (tests/histories.py), each expectation
worked out in the test from the rule applied to the rows written, read back with plain SQL, never from the code under
test: each period's DB time per second, the sum of the valid deltas (§3) of `DB time` (µs) over the period's
intervals divided by its elapsed time (§13), and its change from A to B; a database whose time model holds no
`DB time` statistic (none at any snapshot) adds nothing, so DB time is 0 s/s in both periods, a change of 0 %, and no
time mover has a share of A's DB time (a share of nothing)."""

import sqlite3
from contextlib import closing
from datetime import datetime
from itertools import pairwise

import pytest
from histories import DBID, History, Snap, opened, write

from app.history import compare

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
