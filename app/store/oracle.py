"""Oracle AWR through python-oracledb in thin mode: a lazy, bounded connection pool behind SQLAlchemy Core.

Never hang (field test 001, client hangs during RDS failover: a new connection, a new call on a dead connection, a
call in flight):
- Getting a connection is bounded by the pool's wait_timeout (connect_timeout). A listener that accepts and never
  answers makes the driver's connect() hang for ever, whatever tcp_connect_timeout says; waiting on a pool with
  getmode TIMEDWAIT returns DPY-4005 instead. The pool's one background thread stays stuck in that connect, so the
  stuck pool is abandoned (closed in the background once idle) and the next request starts a fresh one.
- Every round trip is bounded by call_timeout, set on the connection as soon as the pool hands it over, so the
  queries SQLAlchemy runs on the first connection (default schema, isolation level, decimal sign) are bounded too.
  A server that dies in mid-call costs up to twice call_timeout: the driver waits as long again for the answer to
  its break before it gives up on the connection.
- Idle connections: TCP keepalive every expire_time minutes, and a ping when one idle for a minute is handed out.
Broken connections leave the pool: the driver drops those whose socket is gone, and the ones SQLAlchemy
invalidates (ORA-03113, ORA-00028, DPY-4011...) are dropped explicitly. Nothing connects before the first query.

Releases: each connection tells the server's version; the store's views are those of that release (awr.views.RELEASES,
awr.views.ABSENT), and until the first connection those of the oldest, which every later release has. Large results
come FETCH_ROWS rows a round trip, the first ones with the execute itself (prefetch). The target's settings and its
password: app/store/oracle_target.py.
"""

import logging
import os
import re
import socket
import threading
import time
import weakref
from contextlib import contextmanager, suppress

import oracledb
from sqlalchemy import create_engine, event
from sqlalchemy.pool import NullPool

from app.errors import ApiError, DatabaseTimeout, DatabaseUnavailable, MissingGrant, NotGranted, NotLicensed
from app.store import licence
from app.store.awr.queries import capped, core
from app.store.awr.views import RELEASES, release_of
from app.store.base import Store
from app.store.oracle_target import cached_secret, check_target, dsn_host, forget_secret, read_secret

log = logging.getLogger(__name__)

PING_INTERVAL = 60  # seconds a connection may sit idle in the pool before it is pinged on the way out
MAX_ABANDONED = 4  # stuck pools still closing in the background before we stop replacing them
TIMEOUT_CODES = {"DPY-4024", "ORA-01013", "ORA-03136", "ORA-12170"}  # call timeout, cancelled, connect timed out
# a view or package the user may not see or run (table does not exist, invalid identifier, insufficient privileges,
# PL/SQL that cannot compile, identifier must be declared): NotGranted, so a feature can name its grant
GRANT_CODES = {"ORA-00942", "ORA-00904", "ORA-01031", "ORA-06550", "PLS-00201"}
FETCH_ROWS = 1000  # rows a round trip (cursor.arraysize; the driver's default is 100), and prefetched with the execute
# Once a statement with a bound of its own (AWRLENS_REPORT_TIMEOUT) is out of time, the driver's wait for the answer
# to its break: a live server answers at once; the driver would otherwise wait as long again as the round trip did.
BREAK_WAIT = 1.0  # seconds


class OracleStore(Store):
    dialect = "oracle"
    remote = True

    def __init__(self, alias: str, target: dict, settings):
        t = check_target(alias, target)
        self.dsn, self.user = t["dsn"], t["user"]
        self.host = dsn_host(self.dsn)
        self._password_env = t.get("password_env")
        self._password_secret = t.get("password_secret")
        self._password_literal = t.get("password")
        self._pool: oracledb.ConnectionPool | None = None
        self._pool_lock = threading.Lock()
        self._owners: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # connection -> its pool
        self._closing: list[threading.Thread] = []  # threads closing abandoned pools
        # NullPool: every SQLAlchemy checkout is a pool.acquire() and every close a release to the oracledb pool.
        # auto_convert_lobs (the default, set per connection by SQLAlchemy's output type handler) fetches CLOBs
        # as str, the connection-level equivalent of oracledb.defaults.fetch_lobs = False.
        engine = create_engine(
            "oracle+oracledb://",
            creator=self._acquire,
            poolclass=NullPool,
            auto_convert_lobs=True,
            arraysize=FETCH_ROWS,
        )
        event.listen(engine, "before_cursor_execute", self._licensed)
        event.listen(engine, "before_cursor_execute", _prefetch)
        engine.dialect.do_terminate = self._discard  # SQLAlchemy terminates what it invalidates: drop it
        self.engine = engine
        self.server_version: str | None = None  # the connected database's, e.g. "19.3.0.0.0"
        self.declared_packs: str | None = t.get("management_packs")
        self.licence: licence.Licence | None = None  # as last read (_licensed)
        super().__init__(alias, settings, t.get("view_prefix", "dba_hist_"))

    @property
    def release(self) -> str:
        """The release whose view columns the statements use: the connected server's, the oldest before that."""
        return release_of(self.server_version) if self.server_version else RELEASES[0]

    # -- the licence -------------------------------------------------------------------------------------------

    def _licensed(self, conn, cursor, statement, parameters, context, executemany):
        """Every statement on its way to the driver: one that needs a management pack is sent only if the licence
        enables it, read (on the same connection) when not known or older than AWRLENS_LICENCE_TTL; otherwise
        NotLicensed, and nothing is sent (app/store/licence.py)."""
        needed = licence.packs_needed(statement)
        if not needed:
            return
        known = self.licence
        if self._stale(known):
            known = self.licence = self._read_licence(cursor.connection)
        refusal = known.refusal(needed)
        if refusal:
            raise NotLicensed(f"{self.alias} ({self.host}): {refusal}")

    def _stale(self, known: licence.Licence | None) -> bool:
        return known is None or time.monotonic() - known.read_at >= self.settings.licence_ttl

    def current_licence(self) -> licence.Licence:
        """The licence as last read, or read now on a connection of its own when not known or too old."""
        known = self.licence
        if self._stale(known):
            with self._slot(), self._translated(time.monotonic()), self.engine.connect() as conn:
                known = self.licence = self._read_licence(conn.connection.driver_connection)
        return known

    def history_source(self) -> dict:
        """Statspack where the store reads it; else AWR where the licence enables the Diagnostics Pack, else none
        (`source` None); with the licence as read. A licence the user may not read is no AWR, with the grant that
        reads it."""
        try:
            known = self.current_licence()
        except MissingGrant as exc:
            return {"source": self.source if self.source == "statspack" else None, "licence": {"error": exc.message}}
        awr = "awr" if licence.DIAGNOSTIC in known.packs else None
        return {"source": "statspack" if self.source == "statspack" else awr, "licence": known.summary()}

    def keeps_statspack(self) -> bool:
        """Statspack is read where AWR may not be: the licence does not enable the Diagnostics Pack, or cannot be
        read (Statspack needs no pack)."""
        try:
            return licence.DIAGNOSTIC not in self.current_licence().packs
        except MissingGrant:
            return True

    def _read_licence(self, driver_conn) -> licence.Licence:
        """CONTROL_MANAGEMENT_PACK_ACCESS and the edition, read with the driver's own cursor (never seen by
        _licensed); a parameter the user may not read is no licence, with the grant that reads it."""
        try:
            with driver_conn.cursor() as cursor:
                cursor.execute(licence.oracle_text(), licence.BINDS)
                pack_access, banner = cursor.fetchone() or (None, None)
        except oracledb.Error as exc:
            if _code(exc) not in GRANT_CODES:
                raise
            raise MissingGrant(
                f"{self.alias} ({self.host}): awrlens reads CONTROL_MANAGEMENT_PACK_ACCESS before any statement of a "
                f"management pack, and user {self.user.upper()} may not ({self._reason(exc)}); as a DBA: GRANT "
                f"SELECT ON SYS.V_$PARAMETER TO {self.user.upper()} (infra/oracle/create_user*.sql)"
            ) from None
        return licence.Licence(pack_access, banner or "", self.declared_packs)

    # -- connections -------------------------------------------------------------------------------------------

    @property
    def pool(self) -> oracledb.ConnectionPool | None:
        """The current oracledb pool (None before the first query or after one was abandoned)."""
        return self._pool

    def _acquire(self):
        pool = self._current_pool()
        try:
            conn = pool.acquire()
        except oracledb.Error as exc:
            code = _code(exc)
            if code == "DPY-4005" and pool.opened < pool.max:
                # not a full pool: its background thread is stuck connecting (or died); start afresh next time
                self._abandon(pool, "no connection within the wait timeout")
            elif code == "ORA-01017" and self._password_secret:
                forget_secret(self._password_secret)
                self._abandon(pool, "the database refused the password")
            raise
        conn.call_timeout = self._call_ms()  # bounds SQLAlchemy's first-connect queries too
        try:
            self._learn_version(conn.version)
        except DatabaseUnavailable:
            pool.release(conn)
            raise
        self._owners[conn] = pool
        return conn

    def _learn_version(self, version: str):
        """Note the server's version; a release the view prefix cannot work with is refused with what to do."""
        try:
            release = release_of(version)
        except ValueError as exc:
            raise DatabaseUnavailable(f"{self.alias} ({self.host}): {exc}") from None
        if release == "12.1" and self.view_prefix != "dba_hist_":
            raise DatabaseUnavailable(
                f"{self.alias} ({self.host}): Oracle {version} has no "
                f"{self.view_prefix.upper()} views (12.2 and later); set \"view_prefix\": "
                "\"dba_hist_\""
            )
        self.server_version = version

    def _discard(self, dbapi_conn):
        """Drop an invalidated connection from its oracledb pool instead of handing it to the next request."""
        pool = self._owners.pop(dbapi_conn, None)
        try:
            if pool is not None:
                pool.drop(dbapi_conn)
                return
        except Exception:  # pool closed or connection already gone: closing below releases what is left
            pass
        with suppress(Exception):
            dbapi_conn.close()

    def _current_pool(self) -> oracledb.ConnectionPool:
        with self._pool_lock:
            if self._pool is None:
                self._pool = oracledb.create_pool(**self.pool_options())
            return self._pool

    def pool_options(self, max_connections: int | None = None) -> dict:
        """The oracledb pool's parameters, with every bound the app puts on a connection."""
        return bounded_pool_options(
            self.settings,
            user=self.user,
            password=self._password(),
            dsn=self.dsn,
            max_connections=max_connections or self.settings.pool_max,
        )

    @contextmanager
    def session_engine(self, sessions: int, call_timeout: float):
        """An engine for `sessions` dedicated connections at once (the CPU-consistency test: every session on its
        own connection), from a pool of their own with the app's bounds and `call_timeout` per round trip."""
        pool = oracledb.create_pool(**self.pool_options(sessions))
        call_ms = max(1, int(call_timeout * 1000))

        def acquire():
            conn = pool.acquire()
            conn.call_timeout = call_ms
            return conn

        engine = create_engine("oracle+oracledb://", creator=acquire, poolclass=NullPool)
        try:
            yield engine
        finally:
            engine.dispose()
            pool.close(force=True)

    def _abandon(self, pool, why: str):
        """Stop using `pool`; close it in the background once its borrowed connections are back."""
        with self._pool_lock:
            if self._pool is not pool:
                return  # a concurrent request already did
            self._closing = [t for t in self._closing if t.is_alive()]
            if len(self._closing) >= MAX_ABANDONED:
                log.warning(
                    "%s: pool to %s %s; %d abandoned pools still closing, keeping this one",
                    self.alias,
                    self.host,
                    why,
                    len(self._closing),
                )
                return
            self._pool = None
            closer = threading.Thread(
                target=_close_when_idle,
                args=(pool, self.settings.connect_timeout),
                daemon=True,
                name=f"awrlens-close-{self.alias}",
            )
            closer.start()
            self._closing.append(closer)
        log.warning("%s: abandoned the connection pool to %s: %s", self.alias, self.host, why)

    def prepare(self, conn):
        conn.connection.driver_connection.call_timeout = self._call_ms()

    def begin_read(self, conn):
        """Every query of the transaction sees the data as committed when it began (SET TRANSACTION READ ONLY, the
        first statement of the transaction); the rollback when the connection is released ends it."""
        conn.exec_driver_sql("SET TRANSACTION READ ONLY")

    def fetch(self, stmt, params: dict, limit: int, seconds: float | None = None) -> list[tuple]:
        """As Store.fetch; with `seconds`, every round trip of the statement (execute, then each fetch) is bounded by
        the time left of `seconds` instead of call_timeout, and the driver's wait for the answer to its break once the
        time is up by BREAK_WAIT: a request waits at most `seconds` + BREAK_WAIT on it (tests/test_oracle_faults.py).
        The driver reads call_timeout when a round trip starts and again when it waits for that answer, so a timer
        sets BREAK_WAIT shortly before the end, after the last round trip started."""
        if seconds is None:
            return super().fetch(stmt, params, limit)
        with self.engine.connect() as conn:
            driver = conn.connection.driver_connection
            end = time.monotonic() + seconds

            def left() -> int:  # ms, at least 1 (0 is no bound at all)
                return max(1, int((end - time.monotonic()) * 1000))

            short = threading.Timer(
                max(0.0, seconds - BREAK_WAIT / 2), setattr, (driver, "call_timeout", _ms(BREAK_WAIT))
            )
            short.daemon = True
            driver.call_timeout = left()
            short.start()
            try:
                result = conn.execute(capped(core(stmt), self.settings.row_cap), params)
                rows: list = []
                while result.returns_rows and len(rows) < limit:
                    driver.call_timeout = left()
                    got = result.cursor.fetchmany(FETCH_ROWS)
                    rows += got
                    if len(got) < FETCH_ROWS:
                        break
                return rows[:limit]
            except Exception as exc:
                orig = getattr(exc, "orig", None) or exc
                if isinstance(orig, oracledb.Error) and (_code(orig) in TIMEOUT_CODES or _timed_out(orig)):
                    raise DatabaseTimeout(
                        f"{self.alias} ({self.host}): Oracle took longer than {seconds:g} s (AWRLENS_REPORT_TIMEOUT) "
                        "to render the report; a shorter range or fewer instances renders sooner "
                        f"({self._reason(orig)})"
                    ) from exc
                raise
            finally:
                short.cancel()
                with suppress(Exception):  # a connection the timeout broke is dropped, not reused
                    driver.call_timeout = self._call_ms()

    def _call_ms(self) -> int:
        return _ms(self.settings.call_timeout)

    def _password(self) -> str:
        if self._password_env:
            value = os.environ.get(self._password_env)
            if not value:
                raise DatabaseUnavailable(
                    f"{self.alias}: the environment variable {self._password_env} named by password_env is not set"
                )
            return value
        if self._password_secret:
            return read_secret(self.alias, self._password_secret, self.settings.connect_timeout)
        return self._password_literal

    # -- errors ------------------------------------------------------------------------------------------------

    def translate(self, exc, elapsed):
        orig = getattr(exc, "orig", None) or exc
        where = f"{self.alias} ({self.host})"
        s = self.settings
        if isinstance(orig, ApiError):
            return orig
        if isinstance(orig, oracledb.Error):
            code = _code(orig)
            reason = self._reason(orig)
            if code == "DPY-4005":
                pool = self._pool
                if pool is not None and pool.opened >= pool.max and pool.busy >= pool.max:
                    return DatabaseTimeout(
                        f"{where}: all {pool.max} connections stayed busy for {s.connect_timeout:g} s"
                    )
                return DatabaseTimeout(f"{where}: could not connect within {s.connect_timeout:g} s")
            if code == "DPY-6005":
                if _timed_out(orig):  # the TCP connect (tcp_connect_timeout) or the listener's handshake
                    return DatabaseTimeout(f"{where}: could not connect within {s.connect_timeout:g} s ({reason})")
                return DatabaseUnavailable(f"{where}: {reason}")
            if code in TIMEOUT_CODES or _timed_out(orig):  # DPY-4011 when a timed-out call's break went unanswered
                return DatabaseTimeout(
                    f"{where}: a call to the database took longer than {s.call_timeout:g} s ({reason})"
                )
            if code == "ORA-01017":
                return DatabaseUnavailable(
                    f"{where}: the database refused user {self.user!r} or its password ({reason})"
                )
            if code in GRANT_CODES or "PLS-00201" in reason:
                return NotGranted(f"{where}: {reason}", ora_code=code if code in GRANT_CODES else "PLS-00201")
            return DatabaseUnavailable(f"{where}: {reason}")
        if isinstance(orig, socket.gaierror):
            return DatabaseUnavailable(f"{where}: cannot resolve the host name ({orig.strerror or orig})")
        if isinstance(orig, TimeoutError):
            return DatabaseTimeout(f"{where}: the network did not answer within {s.connect_timeout:g} s")
        if isinstance(orig, OSError):
            return DatabaseUnavailable(f"{where}: network error ({self._scrub(str(orig))})")
        log.exception("%s: unexpected error after %.1f s", self.alias, elapsed, exc_info=exc)
        return DatabaseUnavailable(f"{where}: unexpected {type(orig).__name__}; see the server log")

    def _reason(self, err: oracledb.Error) -> str:
        """The driver's message in one line: its error codes, then the innermost cause, without connection ids,
        help links or anything that looks like the password."""
        lines = [ln.strip() for ln in str(err).splitlines() if ln.strip() and not ln.startswith("Help:")]
        lines = [re.sub(r"\s*\(CONNECTION_ID=[^)]*\)", "", ln).rstrip(".") for ln in lines]
        reason = "; ".join(dict.fromkeys(lines)) or type(err).__name__
        return self._scrub(reason[:300])

    def _scrub(self, text: str) -> str:
        try:
            secret = (
                self._password()
                if (self._password_env or self._password_literal)
                else cached_secret(self._password_secret)
            )
        except ApiError:
            secret = None
        return text.replace(secret, "***") if secret else text


def bounded_pool_options(s, *, user: str, password: str, dsn: str, max_connections: int) -> dict:
    """create_pool() arguments with the app's bounds from settings `s` (the hang lab, lab/hang.py, measures these too):
    getting a connection waits at most connect_timeout (TIMEDWAIT), TCP connects likewise, no retries, keepalive
    every expire_time minutes. call_timeout is set on each connection as it is handed out."""
    return {
        "user": user,
        "password": password,
        "dsn": dsn,
        "min": 0,
        "max": max_connections,
        "increment": 1,
        "getmode": oracledb.POOL_GETMODE_TIMEDWAIT,
        "wait_timeout": int(s.connect_timeout * 1000),
        "tcp_connect_timeout": s.connect_timeout,
        "retry_count": 0,
        "expire_time": s.expire_time,
        # a ping on a dead socket waits twice ping_timeout (break, then give up): keep both within
        # half the wait so a replacement connection still fits in connect_timeout
        "ping_interval": PING_INTERVAL,
        "ping_timeout": max(100, int(s.connect_timeout * 250)),
        "program": "awrlens",
    }


# -- helpers ---------------------------------------------------------------------------------------------------


def _ms(seconds: float) -> int:
    """A driver timeout in ms: at least 1 (0 is none)."""
    return max(1, int(seconds * 1000))


def _code(exc: oracledb.Error) -> str:
    err = exc.args[0] if exc.args else None
    return getattr(err, "full_code", "") or ""


def _timed_out(exc: BaseException) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, TimeoutError) or "timed out" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _prefetch(conn, cursor, statement, parameters, context, executemany):
    """Rows prefetched with the execute: a result of up to FETCH_ROWS rows comes in one round trip."""
    cursor.prefetchrows = FETCH_ROWS + 1  # one more, so the driver sees the end without another round trip


def _close_when_idle(pool, grace: float):
    """Close an abandoned pool once no request waits on it or holds one of its connections. Requests already
    waiting give up within `grace` (closing under them would fail them with DPY-1002 at once). The close then
    waits for the pool's background thread, which may stay stuck in a connect until the peer answers or goes."""
    try:
        threading.Event().wait(grace + 0.1)
        while pool.busy:
            threading.Event().wait(0.2)
        pool.close(force=True)
    except Exception:
        pass
