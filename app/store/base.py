"""The store interface: run a SQLAlchemy Core statement with binds, a time limit and a row cap.

Views and analysis never import a driver; they hand statements to a Store. Each backend maps its driver's
failures to DatabaseUnavailable (503) or DatabaseTimeout (504).

Reads go through `rows()`. The only writes are to the app's own test-result tables, through `write()`: one
transaction on a writable connection that the backend opens for it (the AWR side of the embedded store is
opened read-only), all of it stored or none.
"""
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from app.errors import ApiError, Conflict, TargetBusy, TooManyRows
from app.store.queries import capped, render
from app.store.schema import NEWEST, Views, views

T = TypeVar("T")

# When a request asks for show_sql=1, every statement it runs is appended here.
sql_log: ContextVar[list | None] = ContextVar("sql_log", default=None)


class Store:
    """One AWR source. Subclasses build the engine and translate driver errors."""

    dialect = "?"

    def __init__(self, alias: str, engine: Engine, settings, view_prefix: str = "dba_hist_"):
        self.alias = alias
        self.engine = engine
        self.settings = settings
        self.view_prefix = view_prefix
        self._cache: dict = {}
        # a target that can go silent (a remote database) holds at most AWRLENS_MAX_IN_FLIGHT of a process's threads
        self._in_flight = threading.BoundedSemaphore(settings.max_in_flight) if self.remote else None

    class_totals = False  # whether the store keeps per-snapshot wait class totals (schema.CLASS_TOTALS)
    ash_totals = False  # whether the store keeps ASH totals per minute and half hour (schema.ASH_TOTALS)
    remote = False  # reached over the network, so it can be slow or silent: requests in flight are limited
    release = NEWEST  # the Oracle release whose view columns the store has (schema.RELEASES)

    @property
    def views(self) -> Views:
        """The AWR views as this store has them: under its prefix, with the columns of its release."""
        return views(self.view_prefix, self.release)

    def rows(self, stmt, params: dict | None = None) -> list[tuple]:
        """All rows of `stmt` as tuples; raises an ApiError subclass on any database failure, and TargetBusy at once
        when AWRLENS_MAX_IN_FLIGHT statements of this process are already waiting on this (remote) target."""
        if self._in_flight is None:
            return self._rows(stmt, params)
        if not self._in_flight.acquire(blocking=False):
            raise TargetBusy(f"{self.alias} is busy: {self.settings.max_in_flight} requests of this server are "
                             "waiting on it already; try again shortly")
        try:
            return self._rows(stmt, params)
        finally:
            self._in_flight.release()

    def _rows(self, stmt, params):
        started = time.monotonic()
        stmt = capped(stmt, self.settings.row_cap)
        try:
            with self.engine.connect() as conn:
                self.prepare(conn)
                result = conn.execute(stmt, params or {})
                # plain tuples from the driver's cursor: these columns need no SQLAlchemy result processing
                rows = result.cursor.fetchmany(self.settings.row_cap + 1) if result.returns_rows else []
        except ApiError:
            raise
        except Exception as exc:
            raise self.translate(exc, time.monotonic() - started) from exc
        if len(rows) > self.settings.row_cap:
            first = (stmt.get_final_froms() or [None])[0] if hasattr(stmt, "get_final_froms") else None
            while hasattr(first, "left"):  # a join: its first table
                first = first.left
            read = f" from {first.name.upper()}" if hasattr(first, "name") else ""
            raise TooManyRows(f"this question reads more than {self.settings.row_cap} rows{read} (AWRLENS_ROW_CAP); "
                              "narrow it: a shorter range (from/to or begin_snap/end_snap), one instance, or fewer "
                              "series")
        log = sql_log.get()
        if log is not None:
            fixed = stmt.compile(dialect=self.engine.dialect).params  # literals bound by the query itself
            entry = {"sql": render(stmt, self.engine.dialect),
                     "params": {**{k: v for k, v in fixed.items() if v is not None}, **(params or {})},
                     "rows": len(rows), "ms": round((time.monotonic() - started) * 1000, 1)}
            if self.engine.dialect.name != "oracle":  # as it would run on Oracle, to paste into SQL*Plus
                from sqlalchemy.dialects import oracle  # only when asked: the embedded store's path never needs it
                entry["sql_oracle"] = render(stmt, oracle.dialect())
            log.append(entry)
        return rows

    def write(self, work: Callable[[Connection], T]) -> T:
        """`work(conn)` in one transaction on a writable connection: committed if it returns, rolled back if it
        raises. A constraint violation raises Conflict (409); other failures the backend's ApiError."""
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

    def write_engine(self) -> Engine:
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
