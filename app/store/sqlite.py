"""The embedded store: an SQLite file with the DBA_HIST views' names, opened read-only."""
import sqlite3
import time
from pathlib import Path

from sqlalchemy import create_engine, event

from app.errors import DatabaseTimeout, DatabaseUnavailable
from app.store.base import Store


class SqliteStore(Store):
    dialect = "sqlite"

    def __init__(self, alias, path, settings):
        self.path = Path(path).resolve()
        engine = create_engine(f"sqlite:///file:{self.path}?mode=ro&uri=true", connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _tune)
        super().__init__(alias, engine, settings)

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


def _tune(dbapi_conn, _record):
    dbapi_conn.execute("PRAGMA query_only = ON")
    dbapi_conn.execute("PRAGMA cache_size = -65536")  # 64 MiB page cache per connection
    dbapi_conn.execute("PRAGMA mmap_size = 268435456")
