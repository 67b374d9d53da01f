"""The embedded store's summaries of its views: each snapshot's time waited per wait class (CLASS_TOTALS), top
SQL's sums per block of snapshots (SQLSTAT_BLOCKS) and each plan's first snapshot (PLAN_FIRSTS), counted from the
views' rows when the store is built (fill_summaries), so that a long range reads a few rows instead of every
snapshot's (BENCHMARKS.md). On Oracle the statements read the views themselves. The Tables are built on first use
(__getattr__ below), and SQLAlchemy imported then."""

from functools import cache

from app.store.awr.embedded.ash import ASH_BASE_NAME, ASH_TOP_NAME, ash_top_fill
from app.store.awr.views import TOP_SQL_METRICS
from app.store.tables import int_columns, keyed_table

CLASS_TOTALS_NAME = "awrlens_wait_class_totals"
SQLSTAT_BLOCKS_NAME = "awrlens_sqlstat_blocks"
PLAN_FIRSTS_NAME = "awrlens_plan_firsts"
BLOCK_SNAPS = 48  # snapshots per block of SQLSTAT_BLOCKS: a day of half-hour snapshots


# Each snapshot's foreground time waited per non-idle wait class, DBA_HIST_SYSTEM_EVENT summed once when the store is
# built, so AAS by wait class (docs/awr-rules.md §10) reads a row per class instead of one per event (BENCHMARKS.md).
# On Oracle the statement sums the view itself. The Table is CLASS_TOTALS.
CLASS_TOTALS_FILL = (  # the store's own rows only: nothing from a request
    f"INSERT INTO {CLASS_TOTALS_NAME} SELECT snap_id, dbid, instance_number, wait_class, sum(time_waited_micro_fg) "
    "FROM dba_hist_system_event WHERE wait_class != 'Idle' GROUP BY dbid, snap_id, instance_number, wait_class "
    "ORDER BY dbid, snap_id, instance_number, wait_class"
)


@cache
def _class_totals():
    from sqlalchemy import Column, Integer, MetaData, String

    return keyed_table(
        MetaData(),
        CLASS_TOTALS_NAME,
        *int_columns("snap_id", "dbid", "instance_number"),
        Column("wait_class", String(64), nullable=False),
        Column("time_waited_micro_fg", Integer),
        key=("dbid", "snap_id", "instance_number", "wait_class"),
    )


# Top SQL over a long range sums DBA_HIST_SQLSTAT's deltas of every snapshot, and grouping them is most of its time
# (BENCHMARKS.md). The embedded store also keeps them summed per statement, plan and container over blocks of
# BLOCK_SNAPS snapshot ids ((snap_id - 1) // BLOCK_SNAPS): a range reads the blocks inside it and the view's rows at
# its two ends only (queries.top_sql). On Oracle the statement sums the view itself. The Table is SQLSTAT_BLOCKS.
SQLSTAT_BLOCKS_FILL = (  # the store's own rows only: nothing from a request
    f"INSERT INTO {SQLSTAT_BLOCKS_NAME} SELECT dbid, (snap_id - 1) / {BLOCK_SNAPS} * {BLOCK_SNAPS} + 1 AS first_snap, "
    f"(snap_id - 1) / {BLOCK_SNAPS} * {BLOCK_SNAPS} + {BLOCK_SNAPS}, con_dbid, sql_id, plan_hash_value, "
    + ", ".join(f"sum({m}_delta)" for m in TOP_SQL_METRICS)
    + ", max(module), max(parsing_schema_name) FROM dba_hist_sqlstat "
    "GROUP BY dbid, first_snap, con_dbid, sql_id, plan_hash_value ORDER BY dbid, first_snap, con_dbid, sql_id, "
    "plan_hash_value"
)


@cache
def _sqlstat_blocks():
    from sqlalchemy import Column, Integer, MetaData, String

    return keyed_table(
        MetaData(),
        SQLSTAT_BLOCKS_NAME,
        *int_columns("dbid", "first_snap", "last_snap", "con_dbid"),
        Column("sql_id", String(13), nullable=False),
        Column("plan_hash_value", Integer, nullable=False),
        *[Column(f"{m}_delta", Integer) for m in TOP_SQL_METRICS],
        Column("module", String(64)),
        Column("parsing_schema_name", String(128)),
        key=("dbid", "first_snap", "con_dbid", "sql_id", "plan_hash_value"),
    )


# New plans (the changes layer, docs/awr-rules.md §23) are the plans whose first snapshot falls in the range: the
# statement grouped every DBA_HIST_SQLSTAT row of the range to find them. The embedded store keeps each plan's first
# snapshot per statement, container and instance (a few hundred rows), so a range looks up the plans first seen in it
# and sums only their rows (queries.new_plans). On Oracle the statement groups the view itself. The Table is
# PLAN_FIRSTS.
PLAN_FIRSTS_FILL = (  # the store's own rows only: nothing from a request
    f"INSERT INTO {PLAN_FIRSTS_NAME} SELECT dbid, con_dbid, sql_id, plan_hash_value, instance_number, min(snap_id) "
    "FROM dba_hist_sqlstat GROUP BY dbid, con_dbid, sql_id, plan_hash_value, instance_number"
)


@cache
def _plan_firsts():
    from sqlalchemy import Column, Integer, MetaData, String

    return keyed_table(
        MetaData(),
        PLAN_FIRSTS_NAME,
        *int_columns("dbid", "con_dbid"),
        Column("sql_id", String(13), nullable=False),
        *[Column(c, Integer, nullable=False) for c in ("plan_hash_value", "instance_number", "first_snap")],
        key=("dbid", "con_dbid", "sql_id", "plan_hash_value", "instance_number"),
    )


def fill_summaries(con, ash_top: bool = True):
    """Write the embedded store's summaries of its views (CLASS_TOTALS, SQLSTAT_BLOCKS, PLAN_FIRSTS, ASH_TOP) anew
    from the views' rows: when the store is built, and after rows are added to a view of a built store (a sqlite3
    connection; the caller commits). The demo builder counts ASH_TOP per instance as it builds (`ash_top`)."""
    for name, fill in (
        (CLASS_TOTALS_NAME, CLASS_TOTALS_FILL),
        (SQLSTAT_BLOCKS_NAME, SQLSTAT_BLOCKS_FILL),
        (PLAN_FIRSTS_NAME, PLAN_FIRSTS_FILL),
    ):
        con.execute(f"DELETE FROM {name}")
        con.execute(fill)
    found = con.execute("SELECT name FROM sqlite_master WHERE name IN (?, ?)", (ASH_TOP_NAME, ASH_BASE_NAME))
    if ash_top and len(found.fetchall()) == 2:  # a store that keeps its samples coded, and ASH_TOP
        con.execute(f"DELETE FROM {ASH_TOP_NAME}")
        for fill in ash_top_fill():
            con.execute(fill)


def __getattr__(name: str):
    """CLASS_TOTALS, SQLSTAT_BLOCKS and PLAN_FIRSTS: Tables built on first use (PEP 562)."""
    if name == "CLASS_TOTALS":
        return _class_totals()
    if name == "SQLSTAT_BLOCKS":
        return _sqlstat_blocks()
    if name == "PLAN_FIRSTS":
        return _plan_firsts()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
