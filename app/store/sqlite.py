"""The embedded store: an SQLite file with the DBA_HIST views' names, opened read-only.

Writes (the app's test-result tables only) go through a second engine that opens the file read-write, one
connection per write, and takes the write lock at BEGIN IMMEDIATE. On a read-only file system (the package of
a Lambda function) or a read-only file, a write is refused with ReadOnly (503) and reads go on as before.
"""
import sqlite3
import threading
import time
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path

from sqlalchemy import bindparam, column, create_engine, event, select, table
from sqlalchemy.pool import NullPool

from app.errors import ApiError, DatabaseTimeout, DatabaseUnavailable, ReadOnly
from app.store.base import Store
from app.store.schema import ASH_TOTALS, CLASS_TOTALS

READ_ONLY_ERRORS = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")


class SqliteStore(Store):
    dialect = "sqlite"

    def __init__(self, alias, path, settings):
        self.path = Path(path).resolve()
        engine = create_engine(f"sqlite:///file:{self.path}?mode=ro&uri=true", connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _tune)
        self._writer = None
        self._writer_lock = threading.Lock()
        super().__init__(alias, engine, settings)

    @cached_property
    def class_totals(self) -> bool:
        """Whether the file keeps schema.CLASS_TOTALS: the demo builder writes it, a store made otherwise may not."""
        return self._has_table(CLASS_TOTALS.name)

    @cached_property
    def ash_totals(self) -> bool:
        """Whether the file keeps schema.ASH_TOTALS (and ASH_NAMES): the demo builder writes them."""
        return self._has_table(ASH_TOTALS.name)

    def _has_table(self, name: str) -> bool:
        master = table("sqlite_master", column("type"), column("name"))
        return bool(self.rows(select(master.c.name).where(master.c.type == "table",
                                                            master.c.name == bindparam("name")), {"name": name}))

    def write_engine(self):
        with self._writer_lock:
            if self._writer is None:
                self._writer = create_engine(self._write_url(), poolclass=NullPool, connect_args={
                    "check_same_thread": False, "timeout": self.settings.call_timeout,  # waits for the lock
                    "isolation_level": None})  # no implicit transactions: BEGIN IMMEDIATE below
                event.listen(self._writer, "connect", _tune_writer)
                event.listen(self._writer, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))
            return self._writer

    @contextmanager
    def session_engine(self, sessions: int, call_timeout: float):
        """An engine whose every connect() opens a new read-only connection (the CPU-consistency test: every session on
        its own connection); each connection's statements stop `call_timeout` seconds after it was opened."""
        engine = create_engine(self.engine.url, poolclass=NullPool, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _tune)

        @event.listens_for(engine, "connect")
        def _deadline(dbapi_conn, _record):
            deadline = time.monotonic() + call_timeout
            dbapi_conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000_000)  # rarely: the GIL
        try:
            yield engine
        finally:
            engine.dispose()

    def _write_url(self):
        return f"sqlite:///file:{self.path}?mode=rw&uri=true"

    def translate_write(self, exc, elapsed) -> ApiError:
        orig = getattr(exc, "orig", exc)
        name = getattr(orig, "sqlite_errorname", "")
        if isinstance(orig, sqlite3.Error) and name.startswith(READ_ONLY_ERRORS) and self.path.exists():
            return ReadOnly(f"this store is read-only: {self.path.name} cannot be written here ({orig}); "
                            "record results on a writable store or on Oracle")
        if isinstance(orig, sqlite3.OperationalError) and "locked" in str(orig):
            return DatabaseTimeout(f"the store stayed locked by another writer for {self.settings.call_timeout:g} s")
        return self.translate(exc, elapsed)

    def prepare(self, conn):
        deadline = time.monotonic() + self.settings.call_timeout
        conn.connection.driver_connection.set_progress_handler(lambda: time.monotonic() > deadline, 20_000)

    def translate(self, exc, elapsed):
        orig = getattr(exc, "orig", exc)
        if isinstance(orig, sqlite3.OperationalError) and "interrupt" in str(orig):
            return DatabaseTimeout(f"the query ran longer than {self.settings.call_timeout:g} s")
        if not self.path.exists():
            return DatabaseUnavailable(f"the embedded store {self.path} does not exist; build it with "
                                       "`make demo` or `flask --app app demo`")
        return DatabaseUnavailable(f"embedded store error: {orig}")


def _tune_writer(dbapi_conn, _record):
    dbapi_conn.execute("PRAGMA foreign_keys = ON")


def _tune(dbapi_conn, _record):
    dbapi_conn.execute("PRAGMA query_only = ON")
    # 8 MiB of page cache per connection: a server thread each (gunicorn.conf.py), and the OS page cache holds the
    # file once for all of them; a 45-day answer reads a few hundred pages
    dbapi_conn.execute("PRAGMA cache_size = -8192")
    # No mmap: the OS page cache holds the file once for every worker, where mapped pages would count in each
    # worker's RSS (418 MB under perf/load.py with a 256 MiB map, 249 MB without; no slower).
