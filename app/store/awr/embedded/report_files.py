"""The report files a reports store was imported from (app/report_files/, docs/report-formats.md): each file as it
came, zlib-compressed, with what it is a report of. A database's DBA_HIST_* rows in that store are made from its
files (app/report_files/history.py), so they are written again whole whenever one of its files is added. The Table is
built on first use (__getattr__ below), and SQLAlchemy imported then."""

from functools import cache

from app.store.tables import int_columns, keyed_table

REPORT_FILES_NAME = "awrlens_report_files"


@cache
def _report_files():
    from sqlalchemy import Column, Float, LargeBinary, MetaData, String

    return keyed_table(
        MetaData(),
        REPORT_FILES_NAME,
        Column("sha256", String(64), nullable=False),
        Column("file_name", String(1000), nullable=False),
        *int_columns("dbid", "begin_snap", "end_snap"),
        Column("instances", String(200), nullable=False),  # the instance numbers it reports, e.g. "1" or "1,2"
        Column("source", String(9), nullable=False),  # awr or statspack
        Column("layout", String(40), nullable=False),
        Column("imported_at", String(26), nullable=False),
        Column("utc_offset", Float),  # the database's seconds east of UTC, given at import (a report prints none)
        Column("content", LargeBinary, nullable=False),
        key=("sha256",),
    )


def __getattr__(name: str):
    """REPORT_FILES: the Table, built on first use (PEP 562)."""
    if name == "REPORT_FILES":
        return _report_files()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
