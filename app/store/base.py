"""The store interface: run a statement with binds, a time limit and a row cap.

Views and analysis never import a driver; they hand statements to a Store. Each backend maps its driver's
failures to DatabaseUnavailable (503) or DatabaseTimeout (504).

Reads go through `rows()`, or `rows_together()` for statements that must see the same data. The only writes are
to the app's own test-result tables, through `write()`: one transaction on a writable connection that the backend
opens for it (the AWR side of the embedded store is opened read-only), all of it stored or none.

A statement is a Statement of app.store.awr.queries or any SQLAlchemy Core statement: the Oracle store runs it through
its SQLAlchemy engine (fetch() here), the embedded store its SQLite text (app/store/sqlite.py).
"""

import copy
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, TypeVar

from app.errors import ApiError, Conflict, TargetBusy, TooManyRows
from app.store.awr.embedded import store_only_tables
from app.store.awr.queries import Statement, capped, core, render, rendered
from app.store.awr.views import NEWEST, Views, views
from app.store.statspack.tables import OWNER as STATSPACK_OWNER
from app.store.statspack.views import statspack_views

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

T = TypeVar("T")

# When a request asks for show_sql=1, every statement it runs is appended here.
sql_log: ContextVar[list | None] = ContextVar("sql_log", default=None)


# the embedded store's own tables a statement may read instead of the AWR views (the flags of Store)
SHORTCUTS = (
    "class_totals",
    "sqlstat_blocks",
    "plan_firsts",
    "parameter_runs",
    "ash_totals",
    "ash_coded",
    "ash_top",
    "keeps_reports",
)


class Store:
    """One AWR source. Subclasses run statements (`fetch`) and translate driver errors."""

    dialect = "?"
    engine: "Engine"  # what fetch(), sql_dialect() and write_engine() use unless the backend does without

    def __init__(self, alias: str, settings, view_prefix: str = "dba_hist_"):
        self.alias = alias
        self.settings = settings
        self.view_prefix = view_prefix
        self._cache: dict = {}
        self._shown_texts: dict = {}  # Statement -> show_sql's texts (_shown)
        # a target that can go silent (a remote database) holds at most AWRLENS_MAX_IN_FLIGHT of a process's threads
        self._in_flight = threading.BoundedSemaphore(settings.max_in_flight) if self.remote else None

    # what the embedded store keeps of its own (app/store/awr/embedded/), read where it keeps it
    class_totals = False  # per-snapshot wait class totals (summaries.CLASS_TOTALS)
    sqlstat_blocks = False  # top SQL's sums per block of snapshots (summaries.SQLSTAT_BLOCKS)
    plan_firsts = False  # each plan's first snapshot (summaries.PLAN_FIRSTS)
    parameter_runs = False  # DBA_HIST_PARAMETER as runs of values (parameters.PARAMETER_BASE)
    ash_totals = False  # ASH totals per minute and half hour (ash.ASH_TOTALS)
    ash_coded = False  # its ASH samples coded under the view (ash.ASH_BASE)
    ash_top = False  # the top lists' samples per block of snapshots (ash.ASH_TOP)
    keeps_reports = False  # Oracle's rendered reports (reports.AWR_REPORTS, docs/awr-rules.md §27)
    imported = False  # its history is imported report files: an interval no report covers is unreported (§35)
    remote = False  # reached over the network, so it can be slow or silent: requests in flight are limited
    release = NEWEST  # the Oracle release whose view columns the store has (awr.views.RELEASES)
    embedded = False  # one file of several databases: its live buffer keyed by DBID (awr.views.LIVE)
    source = "awr"  # the history its statements read: "awr" (the AWR views) or "statspack" (reading())
    statspack_owner: str | None = STATSPACK_OWNER  # the schema of the STATS$ tables (none in the embedded store)

    @property
    def views(self) -> Views:
        """The views this store's statements read: the AWR views under its prefix, with the columns of its release;
        or the STATS$ tables in their shape (app/store/statspack/views.py)."""
        if self.source == "statspack":
            return statspack_views(self.statspack_owner, self.release, self.embedded)
        return views(self.view_prefix, self.release, self.embedded)

    def reading(self, source: str) -> "Store":
        """This store reading `source`'s history: itself, or a copy that shares its connections, its limits and its
        cache, whose statements read that source and use none of the embedded store's own tables (they summarize
        the AWR views) but what that source's views keep of their own (`keeps`)."""
        if source == self.source:
            return self
        other = copy.copy(self)
        other.source = source
        for flag in SHORTCUTS:
            setattr(other, flag, flag in getattr(other.views, "keeps", ()))
        return other

    def keeps_statspack(self) -> bool:
        """Whether the store's databases may be read from Statspack (the backend says)."""
        return False

    def history_source(self) -> dict:
        """Where the store's history comes from, as /dbs shows it: the embedded store keeps AWR's views and
        Statspack's tables."""
        return {"source": self.source}

    def rows(self, stmt, params: dict | None = None, seconds: float | None = None) -> list[tuple]:
        """All rows of `stmt` as tuples; raises an ApiError subclass on any database failure, and TargetBusy at once
        when AWRLENS_MAX_IN_FLIGHT statements of this process are already waiting on this (remote) target. `seconds`:
        the statement's own bound instead of AWRLENS_CALL_TIMEOUT's (Oracle rendering a report)."""
        with self._slot():
            started = time.monotonic()
            with self._translated(started):
                rows = self.fetch(stmt, params or {}, self.settings.row_cap + 1, seconds)
            return self._checked(stmt, params, rows, started)

    def rows_together(self, *stmts) -> list[list[tuple]]:
        """The rows of each statement (as rows() gives them), all read in one read-only transaction on one connection:
        each sees what the others see, so what one write changed together is seen whole or not at all (a run and its
        measurements, app/runs/repo.py), whatever is committed meanwhile."""
        with self._slot():
            started = time.monotonic()
            with self._translated(started), self.read_transaction() as fetch:
                found = [fetch(stmt, {}, self.settings.row_cap + 1) for stmt in stmts]
            return [self._checked(stmt, None, rows, started) for stmt, rows in zip(stmts, found, strict=True)]

    @contextmanager
    def _slot(self):
        """One of the AWRLENS_MAX_IN_FLIGHT places of a remote target, or TargetBusy at once."""
        if self._in_flight is None:
            yield
            return
        if not self._in_flight.acquire(blocking=False):
            raise TargetBusy(
                f"{self.alias} is busy: {self.settings.max_in_flight} requests of this server are "
                "waiting on it already; try again shortly"
            )
        try:
            yield
        finally:
            self._in_flight.release()

    @contextmanager
    def _translated(self, started: float):
        """A driver's failure as the backend's ApiError."""
        try:
            yield
        except ApiError:
            raise
        except Exception as exc:
            raise self.translate(exc, time.monotonic() - started) from exc

    def _checked(self, stmt, params, rows: list, started: float) -> list:
        """`rows` of `stmt`, refused past the row cap, and logged when show_sql asks."""
        if len(rows) > self.settings.row_cap:
            sent = capped(core(stmt), self.settings.row_cap)
            first = (sent.get_final_froms() or [None])[0] if hasattr(sent, "get_final_froms") else None
            while hasattr(first, "left"):  # a join: its first table
                first = first.left
            read = f" from {first.name.upper()}" if hasattr(first, "name") else ""
            raise TooManyRows(
                f"this question reads more than {self.settings.row_cap} rows{read} (AWRLENS_ROW_CAP); "
                "narrow it: a shorter range (from/to or begin_snap/end_snap), one instance, or fewer "
                "series"
            )
        log = sql_log.get()
        if log is not None:
            log.append(self._logged(stmt, params, len(rows), started))
        return rows

    def fetch(self, stmt, params: dict, limit: int, seconds: float | None = None) -> list[tuple]:
        """At most `limit` rows of `stmt` as sent (queries.capped), as the driver's tuples (`seconds`: see rows())."""
        with self.engine.connect() as conn:
            self.prepare(conn)
            return self._fetch_on(conn, stmt, params, limit)

    def _fetch_on(self, conn, stmt, params: dict, limit: int) -> list[tuple]:
        result = conn.execute(capped(core(stmt), self.settings.row_cap), params)
        # plain tuples from the driver's cursor: these columns need no SQLAlchemy result processing
        return result.cursor.fetchmany(limit) if result.returns_rows else []

    @contextmanager
    def read_transaction(self):
        """One connection in one read-only transaction (begin_read), ended when the block ends; yields a fetch()
        on it."""
        with self.engine.connect() as conn:
            self.prepare(conn)
            self.begin_read(conn)
            yield lambda stmt, params, limit: self._fetch_on(conn, stmt, params, limit)

    def begin_read(self, conn):
        """Start the connection's read-only transaction (Oracle: SET TRANSACTION READ ONLY)."""
        raise NotImplementedError

    def _logged(self, stmt, params, rows: int, started: float) -> dict:
        """What show_sql reports of one statement run: its text for this store's dialect, and for Oracle's unless it
        reads a table only the embedded store keeps (embedded.store_only_tables)."""
        sql, sql_oracle, fixed = self._shown(stmt)
        entry = {
            "sql": sql,
            "params": {**fixed, **(params or {})},
            "rows": rows,
            "ms": round((time.monotonic() - started) * 1000, 1),
        }
        if sql_oracle is not None:
            entry["sql_oracle"] = sql_oracle  # as it would run on Oracle, to paste into SQL*Plus
        return entry

    def _shown(self, stmt) -> tuple[str, str | None, dict]:
        """show_sql's texts of a statement as sent (queries.capped), for this store's dialect and for Oracle's, and the
        literals it binds itself; a Statement's are kept, as its text never changes."""
        found = self._shown_texts.get(stmt) if isinstance(stmt, Statement) else None
        if found is None:
            sent = capped(core(stmt), self.settings.row_cap)
            compiled = sent.compile(dialect=self.sql_dialect())
            sql = rendered(compiled)
            sql_oracle = None
            if self.dialect != "oracle" and not any(t in sql for t in store_only_tables()):
                from sqlalchemy.dialects import oracle  # only when asked: the embedded store's path never needs it

                sql_oracle = render(sent, oracle.dialect())
            found = (sql, sql_oracle, {k: v for k, v in compiled.params.items() if v is not None})
            if isinstance(stmt, Statement):
                self._shown_texts[stmt] = found
        return found

    def sql_dialect(self):
        """The SQLAlchemy dialect the store's statements are compiled for."""
        return self.engine.dialect

    def write(self, work: Callable[["Connection"], T]) -> T:
        """`work(conn)` in one transaction on a writable connection: committed if it returns, rolled back if it
        raises. A constraint violation raises Conflict (409); other failures the backend's ApiError."""
        from sqlalchemy.exc import IntegrityError

        started = time.monotonic()
        try:
            with self.write_engine().begin() as conn:
                self.prepare(conn)
                return work(conn)
        except ApiError:
            raise
        except IntegrityError as exc:
            raise Conflict(f"the write conflicts with what is stored: {getattr(exc, 'orig', exc)}") from exc
        except Exception as exc:
            raise self.translate_write(exc, time.monotonic() - started) from exc

    def write_engine(self) -> "Engine":
        """The engine `write()` uses: the store's own unless the backend reads through a read-only one."""
        return self.engine

    def translate_write(self, exc: Exception, elapsed: float) -> ApiError:
        return self.translate(exc, elapsed)

    def session_engine(self, sessions: int, call_timeout: float):
        """A context manager giving an engine for `sessions` dedicated connections at once, none shared with the
        app's pool, each round trip bounded by `call_timeout` (the CPU-consistency test, app.runs)."""
        raise NotImplementedError

    def prepare(self, conn):
        """Per-checkout setup (time limits)."""

    def translate(self, exc: Exception, elapsed: float) -> ApiError:
        raise NotImplementedError

    def cached(self, key, ttl: float, load):
        """`load()` cached for `ttl` seconds under `key` (snapshot lists, catalogs)."""
        hit = self._cache.get(key)
        now = time.monotonic()
        if hit and now - hit[0] < ttl:
            return hit[1]
        value = load()
        self._cache[key] = (now, value)
        return value
