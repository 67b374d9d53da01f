"""The initialization parameters in the embedded store (docs/awr-rules.md §23): runs of values under Oracle's
DBA_HIST_PARAMETER. The Table is built on first use (__getattr__ below), and SQLAlchemy imported then."""

from functools import cache

from app.store.tables import int_columns, keyed_table

# Oracle keeps every parameter at every snapshot (about 400 rows per
# snapshot and instance); they change a few times a year. The embedded store keeps DBA_HIST_PARAMETER as a view over
# PARAMETER_BASE, one row per value and the run of snapshots [first_snap, last_snap] of one instance it was in force
# for, joined to the instance's snapshots: the view has Oracle's rows and columns, and every statement reads it.
PARAMETER_BASE_NAME = "awrlens_parameter"
PARAMETER_VIEW_COLUMNS = (
    "snap_id",
    "dbid",
    "instance_number",
    "parameter_hash",
    "parameter_name",
    "value",
    "isdefault",
    "ismodified",
    "con_dbid",
)


@cache
def _parameter_base():
    """PARAMETER_BASE, built on first use (__getattr__ below)."""
    from sqlalchemy import Column, MetaData, String

    return keyed_table(
        MetaData(),
        PARAMETER_BASE_NAME,
        *int_columns("dbid", "instance_number", "parameter_hash", "first_snap", "last_snap"),
        Column("parameter_name", String(64), nullable=False),
        Column("value", String(512)),
        Column("isdefault", String(9)),
        Column("ismodified", String(10)),
        key=("dbid", "instance_number", "parameter_hash", "first_snap"),
    )


def parameter_view_ddl(prefix: str = "dba_hist_") -> str:
    """CREATE VIEW of the store's DBA_HIST_PARAMETER over PARAMETER_BASE: a row per snapshot of the instance inside
    each run (CON_DBID = DBID, a non-CDB)."""
    values = ", ".join(f"p.{c}" for c in PARAMETER_VIEW_COLUMNS[3:-1])
    return (
        f"CREATE VIEW {prefix}parameter AS SELECT s.snap_id, s.dbid, s.instance_number, {values}, "
        f"s.dbid AS con_dbid FROM {prefix}snapshot s JOIN {PARAMETER_BASE_NAME} p ON p.dbid = s.dbid AND "
        "p.instance_number = s.instance_number AND s.snap_id BETWEEN p.first_snap AND p.last_snap"
    )


def __getattr__(name: str):
    """PARAMETER_BASE: a Table built on first use (PEP 562)."""
    if name == "PARAMETER_BASE":
        return _parameter_base()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
