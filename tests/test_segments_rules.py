"""Top segments (docs/awr-rules.md §25) asked of a history made here (tests/histories.py), with the statements each
answer ran (show_sql's log): a range of one snapshot holds no row with begin_snap < SNAP_ID <= end_snap (§12), so it
reads no segment statistic and no database counter, and captures nothing (null, not 0); a range of every instance
binds the database and the range alone, one instance's that instance too."""

import pytest
from histories import logged_statements

from app.history import segments


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """Two instances, snapshots 1 to 3 hourly; object 101's logical and physical reads of each interval (*_DELTA:
    10 x k and k at snapshot k), `session logical reads` growing by 100 an hour."""
    from histories import History, Snap, database

    snaps = tuple(
        Snap(
            k,
            instance,
            f"2026-03-29 {k:02}:00:0{instance}",
            0,
            "2026-03-28 20:00:00",
            counters=(0, 100 * k, 0, 0, 0, 0),
            segments=((101, 10 * k, k),),
        )
        for instance in (1, 2)
        for k in (1, 2, 3)
    )
    return database(History(snaps), tmp_path_factory.mktemp("made") / "segments.sqlite")


def _reads(log, table: str) -> list[dict]:
    return [e for e in log if f"FROM {table}" in e["sql"]]


def test_a_range_of_one_snapshot_reads_no_segment_and_captures_nothing(db):
    """§25.1 and §12: begin_snap = end_snap = 2 holds no row with 2 < SNAP_ID <= 2: no statement of
    DBA_HIST_SEG_STAT nor of the database's counter runs, no row, and nothing captured nor totalled (null: no interval
    measured, not a zero)."""
    db.timeline()  # read before: the log below holds the answer's own statements
    with logged_statements() as log:
        body = segments.top(db, db.resolve(begin_snap=2, end_snap=2))
    assert body["rows"] == [] and body["captured"] is None and body["database_total"] is None
    assert _reads(log, "dba_hist_seg_stat") == [] and _reads(log, "dba_hist_sysstat") == [], log


@pytest.mark.parametrize(("instance", "binds"), [("all", {}), ("2", {"f_instance_0": 2})])
def test_the_top_segments_statement_binds_the_database_the_range_and_the_instance_asked(db, instance, binds):
    """§25.1: the range's rows (1 < SNAP_ID <= 3) summed per segment over every instance, or one instance's: the
    statement binds the database and the range, and one instance's number only where one is asked (show_sql gives
    each bind, and each is named in the statement's Oracle text)."""
    with logged_statements() as log:
        body = segments.top(db, db.resolve(begin_snap=1, end_snap=3), instance=instance)
    every = instance == "all"
    assert [(r["obj"], r["logical_reads"], r["physical_reads"]) for r in body["rows"]] == [
        (101, (20 + 30) * (2 if every else 1), (2 + 3) * (2 if every else 1))
    ]
    (top,) = _reads(log, "dba_hist_seg_stat")
    named = {k: v for k, v in top["params"].items() if not k.startswith("param_")}  # the row cap's own literals
    assert named == {"dbid": db.dbid, "lo": 1, "hi": 3, **binds}
    assert all(f":{k}" in top["sql_oracle"] for k in named), top["sql_oracle"]


@pytest.mark.parametrize("order", ["logical_reads", "physical_reads"])
def test_the_columns_are_the_rows_fields_each_once(db, order):
    """§25: each row has the segment's names, `obj`, every statistic, its two shares and its keys; `columns` (the
    table's and the CSV's header) names each of those fields once, the names and the statistic ranked by first, and
    the answer names its database."""
    body = segments.top(db, db.resolve(begin_snap=1, end_snap=3), order=order)
    assert body["db"] == db.key and body["order_by"] == order
    (row,) = body["rows"]
    columns = body["columns"]
    assert len(columns) == len(set(columns)) and set(columns) == set(row)
    names = ["owner", "object_name", "obj", "subobject_name", "object_type", "tablespace_name"]
    assert columns[:9] == [*names, order, "pct_total", "pct_captured"]
