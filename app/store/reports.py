"""A reports store: an SQLite file whose databases are made from imported AWR report files (app/report_files/,
docs/awr-rules.md §35), read as the embedded store is read. It has Oracle's views as plain tables (none of the demo
store's own summaries, so its statements read the views), the files it was made from, and it can be written while
the app reads it: what it caches is kept for as long as the file is unchanged."""

import sqlite3
from contextlib import closing
from functools import cache

from app.store.awr.embedded.report_files import REPORT_FILES_NAME
from app.store.awr.views import Views
from app.store.sqlite import SqliteStore
from app.store.statspack.views import NotInSource

# what an AWR report prints that the import does not keep, or that no report prints (docs/awr-rules.md §35)
NOT_IMPORTED = {
    "active_sess_history": "Active Session History samples",
    "live_ash": "Active Session History samples",
    "ash_info": "Active Session History samples",
    "sysmetric_summary": "system metrics (V$SYSMETRIC)",
    "sysmetric_history": "system metrics (V$SYSMETRIC)",
    "iostat_filetype": "I/O by file type",
    "tablespace": "tablespace usage",
    "tbspc_space_usage": "tablespace usage",
    "reports": "SQL monitor reports (DBA_HIST_REPORTS)",
    "sqlbind": "captured bind values",
    "sql_plan": "execution plans",
    "service_name": "services",
}


class ReportViews(Views):
    """The AWR views of a store of imported report files: a question about what its files do not hold is a 404
    not_in_source naming it, as a Statspack database's is (app/store/statspack/views.py)."""

    def __getattr__(self, name: str):
        if name in NOT_IMPORTED:
            raise NotInSource(
                f"this database's history is imported AWR report files, which hold no {NOT_IMPORTED[name]}"
            )
        return super().__getattr__(name)


@cache
def report_views(prefix: str, release: str) -> ReportViews:
    return ReportViews(prefix, release, embedded=True)


class ReportStore(SqliteStore):
    imported = True

    def __init__(self, alias, path, settings):
        super().__init__(alias, path, settings)
        self._texts = {}  # every statement compiled from its views (ReportViews refuses what the files lack)

    @property
    def views(self):
        if self.source == "statspack":
            return super().views
        return report_views(self.view_prefix, self.release)

    def _version(self) -> int | None:
        try:
            return self.path.stat().st_mtime_ns
        except FileNotFoundError:
            return None

    def cached(self, key, ttl, load):
        """`load()` kept while the file is unchanged (an import rewrites it) and for at most `ttl` seconds."""
        return super().cached((self._version(), key), ttl, load)

    def forget(self):
        """Drop what is cached and the idle connections (after an import)."""
        self._cache.clear()
        self.dispose()

    def rows(self, stmt, params=None, seconds=None):
        """A store no report was imported into yet (no file: the first import makes it) holds no row."""
        if self._version() is None:
            return []
        return super().rows(stmt, params, seconds)

    def write(self, work):
        """`work` on the file, which the first import makes (and its folder)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return super().write(work)

    def keeps_statspack(self) -> bool:
        return self._version() is not None and super().keeps_statspack()

    def create_schema(self, conn):
        """Every view of the store as a plain table, Statspack's tables and the files' table, where missing."""
        from app.store.awr.embedded.report_files import REPORT_FILES
        from app.store.awr.embedded.reports import AWR_REPORTS, MONITOR_REPORTS
        from app.store.awr.views import views
        from app.store.statspack.tables import tables as statspack_tables

        views(embedded=True).metadata.create_all(conn)
        statspack_tables(None).create_all(conn)
        for table in (REPORT_FILES, AWR_REPORTS, MONITOR_REPORTS):  # the files, and Oracle's reports they are
            table.create(conn, checkfirst=True)

    def _write_url(self):
        return f"sqlite:///file:{self.path}?mode=rwc&uri=true"

    def report_files(self) -> list[tuple]:
        """The files imported: (sha256, file_name, dbid, instances, begin_snap, end_snap) each."""
        if self._version() is None:
            return []
        with closing(sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)) as con:
            try:
                return con.execute(
                    f"SELECT sha256, file_name, dbid, instances, begin_snap, end_snap FROM {REPORT_FILES_NAME}"
                ).fetchall()
            except sqlite3.OperationalError:  # a store without the table: none imported
                return []

    def history_source(self) -> dict:
        return {"source": self.source, "imported": "report files"}
