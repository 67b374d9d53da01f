"""The embedded store: an SQLite file with the DBA_HIST views' names, opened read-only.

Reads run each statement's SQLite text with the sqlite3 module, on read-only connections kept for the next read (at
most POOL_SIZE idle). The text of the statements of app.store.awr.queries comes from sqlite_statements.json, compiled
from their Core statements (`flask --app app sql --sqlite` writes it; tests/test_sqlite_statements.py checks it is
current), so reading imports no SQLAlchemy, which was most of a Lambda cold start (BENCHMARKS.md). A statement the
file lacks (the runs', or all of them under another AWRLENS_ROW_CAP) is compiled with SQLAlchemy on its first use.
Values are bound as they come: the columns read are numbers and text, which need no conversion.

Writes (the app's test-result tables only) go through a SQLAlchemy engine that opens the file read-write, one
connection per write, and takes the write lock at BEGIN IMMEDIATE. On a read-only file system (the package of
a Lambda function) or a read-only file, a write is refused with ReadOnly (503) and reads go on as before.
"""

import json
import queue
import re
import sqlite3
import threading
import time
from contextlib import closing, contextmanager
from functools import cache, cached_property
from pathlib import Path

from app.errors import ApiError, DatabaseTimeout, DatabaseUnavailable, NotGranted, ReadOnly
from app.settings import Settings
from app.store.awr import queries
from app.store.awr.embedded.ash import ASH_BASE_NAME, ASH_TOP_NAME, ASH_TOTALS_NAME
from app.store.awr.embedded.parameters import PARAMETER_BASE_NAME
from app.store.awr.embedded.reports import AWR_REPORTS_NAME
from app.store.awr.embedded.summaries import CLASS_TOTALS_NAME, PLAN_FIRSTS_NAME, SQLSTAT_BLOCKS_NAME
from app.store.awr.views import views
from app.store.base import Store
from app.store.statspack.listing import statspack_questions
from app.store.statspack.views import statspack_views

READ_ONLY_ERRORS = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")
POOL_SIZE = 5  # idle read connections kept, as SQLAlchemy's pool kept them before
STATEMENTS = Path(__file__).with_name("sqlite_statements.json")
TEXTS = json.loads(STATEMENTS.read_text())
STATSPACK_KEY = "statspack:"  # a Statspack statement's key in sqlite_statements.json
EXPANDING = re.compile(r"__\[POSTCOMPILE_(\w+)\]")  # an IN list, one bind per value (queries.render)


def _keeps(table: str, what: str) -> cached_property:
    """A store flag: whether the file keeps `table`, looked up once."""

    def keeps(self) -> bool:
        return self._has_table(table)

    keeps.__doc__ = f"Whether the file keeps {what}."
    return cached_property(keeps)


class SqliteStore(Store):
    dialect = "sqlite"
    embedded = True
    statspack_owner = None  # the STATS$ tables in no schema

    def __init__(self, alias, path, settings):
        self.path = Path(path).resolve()
        self._idle: queue.LifoQueue = queue.LifoQueue(POOL_SIZE)  # read connections not in use
        self._texts = TEXTS["statements"] if settings.row_cap == TEXTS["row_cap"] else {}
        self._compiled: dict = {}  # Statement -> its text, for those the file lacks
        self._writer = None
        self._writer_lock = threading.Lock()
        super().__init__(alias, settings)

    def fetch(self, stmt, params, limit, seconds=None):  # the embedded store renders no report: `seconds` unused
        with self._connection() as con:
            return self._fetch_on(con, stmt, params, limit)

    def _fetch_on(self, con, stmt, params, limit):
        sql, binds = self.text(stmt)
        values = {**binds, **params}
        lists = {name: values.pop(name) for name in set(EXPANDING.findall(sql))}
        sql = EXPANDING.sub(lambda m: _spell_out(m.group(1), lists[m.group(1)], values), sql)
        with closing(con.execute(sql, values)) as cursor:
            return cursor.fetchmany(limit)

    @contextmanager
    def read_transaction(self):
        """One read connection in one transaction (BEGIN: its first read takes the snapshot, or the shared lock that
        keeps a writer's commit out until the end), ended before the connection is kept for the next read."""
        with self._connection() as con:
            con.execute("BEGIN")
            try:
                yield lambda stmt, params, limit: self._fetch_on(con, stmt, params, limit)
            finally:
                con.set_progress_handler(None, 0)  # a deadline that has passed must not stop the rollback
                con.rollback()

    def text(self, stmt) -> tuple[str, dict]:
        """The statement as sent (queries.capped), compiled for SQLite: its text and the values it binds itself."""
        if not isinstance(stmt, queries.Statement):
            return sqlite_text(queries.capped(stmt, self.settings.row_cap))
        key = stmt.key if self.source == "awr" else STATSPACK_KEY + stmt.key
        found = self._texts.get(key) if stmt.views is self.views else None
        if found:
            return found["sql"], found["binds"]
        if stmt not in self._compiled:
            self._compiled[stmt] = sqlite_text(queries.capped(stmt.core(), self.settings.row_cap))
        return self._compiled[stmt]

    @contextmanager
    def _connection(self):
        """A read-only connection for one statement, its time limit set; kept for the next one afterwards."""
        try:
            con = self._idle.get_nowait()
        except queue.Empty:
            con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            _tune(con)
        _deadline(con, self.settings.call_timeout, 20_000)
        try:
            yield con
        finally:
            try:
                self._idle.put_nowait(con)
            except queue.Full:
                con.close()

    def dispose(self):
        """Close the idle read connections: the next reads open new ones."""
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return

    # what the file keeps beside Oracle's views: the demo builder writes each; a store made otherwise may not
    class_totals = _keeps(CLASS_TOTALS_NAME, "embedded.summaries.CLASS_TOTALS")
    sqlstat_blocks = _keeps(SQLSTAT_BLOCKS_NAME, "embedded.summaries.SQLSTAT_BLOCKS")
    plan_firsts = _keeps(PLAN_FIRSTS_NAME, "embedded.summaries.PLAN_FIRSTS")
    ash_totals = _keeps(ASH_TOTALS_NAME, "embedded.ash.ASH_TOTALS (and ASH_NAMES)")
    ash_coded = _keeps(ASH_BASE_NAME, "its ASH samples coded (embedded.ash.ASH_BASE under the view)")
    ash_top = _keeps(ASH_TOP_NAME, "embedded.ash.ASH_TOP")
    keeps_reports = _keeps(AWR_REPORTS_NAME, "Oracle's rendered reports and DBA_HIST_REPORTS")
    parameter_runs = _keeps(PARAMETER_BASE_NAME, "embedded.parameters.PARAMETER_BASE under its DBA_HIST_PARAMETER")
    statspack_tables = _keeps("stats$snapshot", "Statspack's STATS$ tables")

    def keeps_statspack(self) -> bool:
        return self.statspack_tables

    def _has_table(self, name: str) -> bool:
        try:
            with (
                self._connection() as con,
                closing(
                    con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
                ) as cursor,
            ):
                return cursor.fetchone() is not None
        except sqlite3.Error as exc:
            raise self.translate(exc, 0.0) from exc

    def sql_dialect(self):
        from sqlalchemy.dialects import sqlite

        return sqlite.dialect()

    def write_engine(self):
        from sqlalchemy import create_engine, event
        from sqlalchemy.pool import NullPool

        with self._writer_lock:
            if self._writer is None:
                self._writer = create_engine(
                    self._write_url(),
                    poolclass=NullPool,
                    connect_args={
                        "check_same_thread": False,
                        "timeout": self.settings.call_timeout,  # waits for the lock
                        "isolation_level": None,
                    },
                )  # no implicit transactions: BEGIN IMMEDIATE below
                event.listen(self._writer, "connect", _tune_writer)
                event.listen(self._writer, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))
            return self._writer

    @contextmanager
    def session_engine(self, sessions: int, call_timeout: float):
        """An engine whose every connect() opens a new read-only connection (the CPU-consistency test: every session on
        its own connection); each connection's statements stop `call_timeout` seconds after it was opened."""
        from sqlalchemy import create_engine, event
        from sqlalchemy.pool import NullPool

        engine = create_engine(
            f"sqlite:///file:{self.path}?mode=ro&uri=true",
            poolclass=NullPool,
            connect_args={"check_same_thread": False},
        )

        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn, _record):
            _tune(dbapi_conn)
            _deadline(dbapi_conn, call_timeout, 10_000_000)  # rarely: the GIL

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
            return ReadOnly(
                f"this store is read-only: {self.path.name} cannot be written here ({orig}); "
                "record results on a writable store or on Oracle"
            )
        if isinstance(orig, sqlite3.OperationalError) and "locked" in str(orig):
            return DatabaseTimeout(f"the store stayed locked by another writer for {self.settings.call_timeout:g} s")
        return self.translate(exc, elapsed)

    def prepare(self, conn):
        _deadline(conn.connection.driver_connection, self.settings.call_timeout, 20_000)

    def translate(self, exc, elapsed):
        orig = getattr(exc, "orig", exc)
        if isinstance(orig, sqlite3.OperationalError) and "interrupt" in str(orig):
            return DatabaseTimeout(f"the query ran longer than {self.settings.call_timeout:g} s")
        if not self.path.exists():
            return DatabaseUnavailable(
                f"the embedded store {self.path} does not exist; build it with `make demo` or `flask --app app demo`"
            )
        if isinstance(orig, sqlite3.OperationalError) and "no such table" in str(orig):
            # a store made by an older version, or otherwise, without a view: as Oracle's ORA-00942
            return NotGranted(f"embedded store error: {orig}")
        return DatabaseUnavailable(f"embedded store error: {orig}")


def sqlite_text(stmt) -> tuple[str, dict]:
    """A Core statement compiled for SQLite with named binds: its text, and the values it binds itself (limits,
    constants). An IN list of values stays __[POSTCOMPILE_name]: fetch() spells it out for each call."""
    compiled = stmt.compile(dialect=_named_dialect())
    return str(compiled), {k: v for k, v in compiled.params.items() if v is not None}


@cache
def _named_dialect():
    from sqlalchemy.dialects import sqlite

    return sqlite.dialect(paramstyle="named")


def embedded_statements(row_cap: int = Settings.row_cap) -> list:
    """The Statements the embedded store runs, once each: every statement of the API, a long range's buckets in one IN
    list (the page's max_points) or in as many as AWRLENS_MAX_POINTS needs, the store's wait-class totals, top SQL's
    blocks, the plans' first snapshots and its ASH totals. Top activity with a filter is compiled on first use (its
    filters are its arguments)."""
    v = views("dba_hist_", Store.release, True)
    every = [
        stmt for most in (queries.IN_LIST, Settings.max_points) for _, stmt in queries.statements(v, row_cap, most)
    ]
    every += [
        queries.wait_class_series(v, True, chunks) for chunks in (0, 1, -(-Settings.max_points // queries.IN_LIST))
    ]
    every += [queries.top_sql(v, order, True) for order in queries.TOP_SQL_ORDER] + [
        queries.top_sql_ranked(v, blocks=True)
    ]
    # top activity: the store's ASH totals, and every instance's samples (the top lists' total, docs/awr-rules.md §22)
    every += [q(v, key) for q in (queries.ash_total_groups, queries.ash_total_buckets) for key in ((), ("instance",))]
    every += [queries.activity_top(v, "instance")]
    # ashtop over the coded samples, its default dimensions, a range and a window (history.ashtop)
    every += [queries.activity_groups(v, ("sql_id", "event"), (), window, False, True) for window in (False, True)]
    # ashtop by SQL_ID and event from the counts per block and session (history.ashtop)
    every += [
        queries.activity_groups_counted(v, group_by, key, window)
        for group_by in (("sql_id",), ("sql_id", "event"))
        for key in ((), ("instance",))
        for window in (False, True)
    ]
    # a window's top lists: the counts per block less the samples outside it (activity._top_lists_by_time)
    every += [queries.activity_top_coded(v, key, True, True) for key in ((), ("instance",))]
    # Oracle's own reports as the demo store keeps them (embedded.reports.AWR_REPORTS, MONITOR_REPORTS)
    every += [queries.stored_awr_reports(v), queries.stored_awr_report(v), queries.stored_monitor_report(v)]
    # the parameters from the store's runs of values (docs/awr-rules.md §23)
    every += [queries.parameter_changes(v, True), queries.non_default_parameters(v, True)]
    # the changes layer's plans from the store's first snapshots of each plan (embedded.summaries.PLAN_FIRSTS)
    every += [queries.new_plans(v, True), queries.plan_returns(v, True)]
    return list(dict.fromkeys(every))


def embedded_statspack_statements(row_cap: int = Settings.row_cap) -> list:
    """The Statements the embedded store sends to its Statspack tables: every question Statspack answers
    (statspack.listing), a long range's buckets in one IN list or in as many as AWRLENS_MAX_POINTS needs."""
    v = statspack_views(None, Store.release, True)
    return list(
        dict.fromkeys(
            stmt for most in (queries.IN_LIST, Settings.max_points) for _, stmt in statspack_questions(v, row_cap, most)
        )
    )


def statement_texts(row_cap: int = Settings.row_cap) -> dict:
    """What sqlite_statements.json holds: the SQLite text of every statement of app.store.awr.queries the embedded
    store runs, sent with AWRLENS_ROW_CAP = `row_cap`; its Statspack statements under their key prefixed
    `statspack:`."""
    texts = {}
    for prefix, stmts in (("", embedded_statements(row_cap)), (STATSPACK_KEY, embedded_statspack_statements(row_cap))):
        for stmt in stmts:
            sql, binds = sqlite_text(queries.capped(stmt.core(), row_cap))
            texts[prefix + stmt.key] = {"sql": sql, "binds": binds}
    return {"row_cap": row_cap, "statements": texts}


def _spell_out(name: str, items: list, values: dict) -> str:
    """The binds of an IN list, :name_1, :name_2, ..., one per value (none: `IN ()`, which SQLite allows), added to
    `values`; a list the statement holds twice is bound once."""
    values.update({f"{name}_{i}": item for i, item in enumerate(items, 1)})
    return ", ".join(f":{name}_{i}" for i in range(1, len(items) + 1))


def _deadline(dbapi_conn, seconds: float, every: int):
    """The connection's statements stop `seconds` from now (SQLite checks every `every` virtual machine steps)."""
    deadline = time.monotonic() + seconds
    dbapi_conn.set_progress_handler(lambda: time.monotonic() > deadline, every)


def _tune_writer(dbapi_conn, _record):
    dbapi_conn.execute("PRAGMA foreign_keys = ON")


def _tune(dbapi_conn):
    dbapi_conn.execute("PRAGMA query_only = ON")
    # 8 MiB of page cache per connection: a server thread each (gunicorn.conf.py), and the OS page cache holds the
    # file once for all of them; a 45-day answer reads a few hundred pages
    dbapi_conn.execute("PRAGMA cache_size = -8192")
    # No mmap: the OS page cache holds the file once for every worker, where mapped pages would count in each
    # worker's RSS (418 MB under perf/load.py with a 256 MiB map, 249 MB without; no slower).
