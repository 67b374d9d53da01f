"""A reports store: an SQLite file whose databases are made from imported AWR report files (app/report_files/,
docs/awr-rules.md §35), read as the embedded store is read. It has Oracle's views as plain tables (none of the demo
store's own summaries, so its statements read the views), the files it was made from, and it can be written while
the app reads it: what it caches is kept for as long as the file is unchanged."""

import sqlite3
from contextlib import closing

from app.errors import DatabaseUnavailable
from app.store.awr.embedded.report_files import REPORT_FILES_NAME
from app.store.sqlite import SqliteStore


class ReportStore(SqliteStore):
    imported = True

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
        if self._version() is None:
            self._create_empty()
        return super().rows(stmt, params, seconds)

    def _create_empty(self):
        """The empty store a first read finds, so that it lists no database rather than failing; where the file
        cannot be made (a read-only file system), the error says where reports would go."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.write(self.create_schema)
        except Exception as exc:
            raise DatabaseUnavailable(
                f"no report has been imported into {self.path}, and it cannot be created here ({exc}); import "
                "reports with `flask reports import PATH` where the file can be written"
            ) from exc

    def create_schema(self, conn):
        """Every view of the store as a plain table, Statspack's tables and the files' table, where missing."""
        from app.store.awr.embedded.report_files import REPORT_FILES
        from app.store.awr.views import views
        from app.store.statspack.tables import tables as statspack_tables

        views(embedded=True).metadata.create_all(conn)
        statspack_tables(None).create_all(conn)
        REPORT_FILES.create(conn, checkfirst=True)

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
