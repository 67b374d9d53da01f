"""The Oracle store under network faults: the real python-oracledb driver (thin mode) against loopback endpoints
this file controls, through the API. Every failure must come back as the JSON error shape, 503 or 504, within
connect_timeout + 2 x call_timeout (+ slack), never naming the password; nothing may stay stuck for the next request.

Two kinds of endpoints: plain TCP listeners (refused, SYN dropped, silent, reset at accept) and, for faults in the
middle of a call, tests/fake_oracle.py, a loopback server that speaks enough of Oracle's wire protocol for the real
driver to connect, log in and run the API's queries, and that resets or stalls at a chosen round trip.
"""

import json
import socket
import threading
import time

import oracledb
import pytest
from fake_oracle import FakeOracle
from oracledb import errors as driver_errors

from app import create_app
from app.errors import DatabaseTimeout, DatabaseUnavailable
from app.settings import Settings
from app.store import oracle, oracle_target
from lab import endpoints

pytestmark = [pytest.mark.wire, pytest.mark.slow]

PASSWORD = "Pw-9f3K-never-in-messages"
CONNECT, CALL = 1.0, 1.0
# the most a failing request may take: connect + twice the call timeout (docs/oracle.md, Never hang)
BOUND = CONNECT + 2 * CALL + 0.5
FAST = 0.5  # a refused, reset or unresolvable database answers at once, well before connect_timeout


class Listener(endpoints.Listener):
    """The lab's loopback listener (mode "silent": accept and never say a word, a hung listener; "reset":
    accept and close with a TCP reset), which can also stop listening."""

    reserve = None

    def refuse(self):
        """Stop listening but keep the accepted connections silent: new connects are refused while the driver's
        old connect attempts stay stuck (a zombie peer after a failover)."""
        self._stop.set()
        self._thread.join()
        self.sock.close()
        self.reserve = _reserved_port(self.port)

    def close(self):
        """Reset everything, so any connect still stuck on us ends and the driver's threads can finish."""
        super().close()
        if self.reserve:
            self.reserve.close()


def _reserved_port(port=0):
    """A socket bound to a port without listening: connecting to it is refused, and no one else can take it."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    return s


@pytest.fixture()
def listeners():
    made = []

    def make(mode):
        made.append(Listener(mode))
        return made[-1]

    yield make
    for lis in made:
        lis.close()


@pytest.fixture()
def refused_port():
    s = _reserved_port()
    yield s.getsockname()[1]
    s.close()


@pytest.fixture()
def make_app(monkeypatch):
    monkeypatch.setenv("AWRLENS_TEST_PW", PASSWORD)
    stores = []

    def make(dsn, **target):
        target = {"dsn": dsn, "user": "u", "password_env": "AWRLENS_TEST_PW", **target}
        app = create_app(
            Settings.from_env(
                {}, targets={"ora": target}, connect_timeout=CONNECT, call_timeout=CALL, answer_cache_mb=0
            )
        )  # every request asks
        stores.append(app.extensions["awrlens"].stores["ora"])
        return app

    yield make
    for store in stores:  # no request may leave a connection checked out
        assert store.pool is None or store.pool.busy == 0


def ask(app):
    """GET /api/v1/dbs: (status, JSON body, seconds). A request that hangs fails the test instead of the run."""
    out = {}

    def run():
        started = time.monotonic()
        out["resp"] = app.test_client().get("/api/v1/dbs")
        out["elapsed"] = time.monotonic() - started

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(BOUND + 5)
    if worker.is_alive():
        pytest.fail(f"the request hung for more than {BOUND + 5:g} s")
    resp = out["resp"]
    assert PASSWORD not in resp.get_data(as_text=True)
    return resp.status_code, resp.get_json(), out["elapsed"]


def call(app):
    """GET /api/v1/dbs, expected to fail: (status, error body, seconds), the error shape checked."""
    status, body, elapsed = ask(app)
    assert set(body) == {"error"}, body
    err = body["error"]
    assert err["status"] == status and err["code"] and err["message"]
    return status, err, elapsed


def store_of(app):
    return app.extensions["awrlens"].stores["ora"]


# -- faults ----------------------------------------------------------------------------------------------------


def test_silent_listener_times_out_with_504(make_app, listeners):
    lis = listeners("silent")
    app = make_app(f"127.0.0.1:{lis.port}/svc")
    status, err, elapsed = call(app)
    assert status == 504 and err["code"] == "database_timeout"
    assert CONNECT - 0.05 <= elapsed < BOUND, elapsed
    assert "ora" in err["message"] and f"127.0.0.1:{lis.port}" in err["message"]
    assert f"within {CONNECT:g} s" in err["message"]
    assert lis.accepted >= 1  # the driver did get through to the listener and then waited on it


def test_reset_by_listener_is_a_fast_503(make_app, listeners):
    lis = listeners("reset")
    app = make_app(f"127.0.0.1:{lis.port}/svc")
    status, err, elapsed = call(app)
    assert status == 503 and err["code"] == "database_unavailable"
    assert elapsed < FAST, elapsed
    assert f"ora (127.0.0.1:{lis.port})" in err["message"] and "reset" in err["message"].lower()
    assert lis.accepted >= 1


def test_refused_is_a_fast_503(make_app, refused_port):
    app = make_app(f"127.0.0.1:{refused_port}/svc")
    status, err, elapsed = call(app)
    assert status == 503 and elapsed < FAST, (status, elapsed)
    assert f"ora (127.0.0.1:{refused_port})" in err["message"] and "refused" in err["message"].lower()


def test_dropped_syn_times_out_with_504(make_app):
    """A full accept queue drops the SYN, like a host that went away: bounded by tcp_connect_timeout and the
    pool's wait, whichever ends first."""
    with endpoints.DroppedSyn() as dropped:
        status, err, elapsed = call(make_app(f"127.0.0.1:{dropped.port}/svc"))
        assert status == 504 and CONNECT - 0.05 <= elapsed < BOUND, (status, err, elapsed)
        assert f"ora (127.0.0.1:{dropped.port})" in err["message"] and f"within {CONNECT:g} s" in err["message"]


def test_unresolvable_host_is_a_503(make_app):
    # the driver raises socket.gaierror here, not an oracledb.Error
    app = make_app("no-such-host.invalid:1521/svc")
    status, err, elapsed = call(app)
    assert status == 503 and elapsed < BOUND, (status, elapsed)
    assert "no-such-host.invalid" in err["message"] and "resolve" in err["message"]


def test_after_a_hang_the_next_request_starts_afresh(make_app, listeners):
    """The driver's pool has one background thread, and it stays stuck in the connect to a silent peer. Once new
    connections are answered again (here: refused at once), the next request must see that answer, not wait
    behind the stuck connect until the bound again."""
    lis = listeners("silent")
    app = make_app(f"127.0.0.1:{lis.port}/svc")
    store = store_of(app)
    assert call(app)[0] == 504
    lis.refuse()  # the stuck connection stays silent; new ones are refused
    status, err, elapsed = call(app)
    assert status == 503 and elapsed < FAST, (status, err, elapsed)
    assert "refused" in err["message"].lower()
    pool = store.pool
    assert pool is not None and pool.busy == 0 and pool.opened == 0
    status, _, elapsed = call(app)  # and again: nothing accumulates
    assert status == 503 and elapsed < FAST
    assert store.pool is pool and pool.busy == 0 and pool.opened == 0


def test_concurrent_request_during_a_hang_is_bounded_too(make_app, listeners):
    lis = listeners("silent")
    app = make_app(f"127.0.0.1:{lis.port}/svc")
    results = [None, None]

    def run(i, delay):
        time.sleep(delay)
        results[i] = call(app)

    threads = [threading.Thread(target=run, args=(0, 0.0)), threading.Thread(target=run, args=(1, 0.3))]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads)
    for status, err, elapsed in results:
        assert status == 504 and elapsed < BOUND, (status, err, elapsed)
    assert time.monotonic() - started < BOUND + 0.3
    pool = store_of(app).pool
    assert pool is None or pool.busy == 0


def test_nothing_connects_at_start(make_app, listeners):
    lis = listeners("silent")
    started = time.monotonic()
    app = make_app(f"127.0.0.1:{lis.port}/svc")
    time.sleep(0.1)
    assert time.monotonic() - started < 1.0
    store = store_of(app)
    assert lis.accepted == 0 and store.pool is None
    assert store.engine.dialect.name == "oracle" and store.engine.dialect.driver == "oracledb"
    assert store.engine.dialect.auto_convert_lobs  # CLOBs come back as str
    assert store.views.database_instance.name == "dba_hist_database_instance"


def test_view_prefix_reaches_the_queries(make_app, refused_port):
    store = store_of(make_app(f"127.0.0.1:{refused_port}/svc", view_prefix="awr_pdb_"))
    assert store.views.database_instance.name == "awr_pdb_database_instance"


# -- faults in the middle of a call: a fake Oracle server that gets as far as the query --------------------------

# (stage, statement fragment, established): the round trip the fault interrupts. Every stage but "sql" is part of
# getting a connection (pool.acquire, bounded by connect_timeout); "sql" is a call on a logged-in connection
# (bounded by call_timeout, twice when the break goes unanswered).
ROUND_TRIPS = {
    "protocol": ("protocol", None, False),  # the first round trip after ACCEPT: protocol negotiation
    "auth2": ("auth2", None, False),  # logon phase two: the encrypted password, waiting for the session
    "first-query": ("sql", "sys_context", False),  # SQLAlchemy's first query on a new connection (current schema)
    "api-query": ("sql", "dba_hist_database_instance", True),  # the API's own query, on a pooled connection
}


@pytest.fixture()
def fake_oracle():
    made = []

    def make(*args, **kwargs):
        made.append(FakeOracle(PASSWORD, *args, **kwargs))
        return made[-1]

    yield make
    for fake in made:
        fake.close()


def fresh(app):
    """Every request asks the database (the list of databases is otherwise cached for snapshot_ttl)."""
    store_of(app).cached = lambda key, ttl, load: load()
    return app


def test_the_fake_oracle_server_is_good_enough_for_the_real_driver(make_app, fake_oracle):
    """Sanity check of the test double: the API's real path (pool, logon, SQLAlchemy's first-connect queries, the
    API's query, rollback on release) completes against it, and the connection goes back to the pool."""
    fake = fake_oracle()
    app = fresh(make_app(f"127.0.0.1:{fake.port}/svc"))
    for _ in range(2):
        status, body, _elapsed = ask(app)
        assert status == 200 and body == {"databases": []}, body
    pool = store_of(app).pool
    assert pool.opened == 1 and pool.busy == 0 and fake.accepted == 1  # one connection, reused
    assert fake.reached[:5] == ["connect", "protocol", "data_types", "auth1", "auth2"]
    assert any("current_schema" in sql for sql in fake.statements)
    assert sum("from dba_hist_database_instance" in sql for sql in fake.statements) == 2


def test_a_run_and_its_rows_are_read_in_one_read_only_transaction(make_app, fake_oracle):
    """GET /benchmarks/{slug} on Oracle: SET TRANSACTION READ ONLY (Oracle's SQL Language Reference: every query of
    the transaction sees the data as committed when it began), then the run and its rows, on one connection, which
    goes back to the pool (its rollback ends the transaction)."""
    run = (7, "r1", "n=2", "other", "public", "2026-01-01T00:00:00", "2026-01-01T01:00:00", "h", "t", 4, 2, "19c")
    run += ("ora", 42, 1, 2, "d", '{"k": 1}', "2026-01-02T00:00:00")
    points = [(1, "s", 1, "", 2.5, "s", "{}"), (2, "s", 2, "", 3.5, "s", "{}")]
    fake = fake_oracle(answers={"from bench_measurement": points, "from bench_run": [run]})
    app = make_app(f"127.0.0.1:{fake.port}/svc")
    resp = app.test_client().get("/api/v1/benchmarks/r1")
    assert resp.status_code == 200, resp.get_json()
    got = resp.get_json()
    assert got["run"]["title"] == "n=2" and got["run"]["measurements"] == len(got["rows"]) == 2
    at = fake.statements.index("set transaction read only")
    run_read, rows_read = fake.statements[at + 1 : at + 3]
    assert "from bench_run" in run_read and "from bench_measurement" not in run_read
    assert "from bench_measurement" in rows_read and "bench_run.slug = :slug" in rows_read
    assert fake.accepted == 1 and store_of(app).pool.busy == 0


@pytest.mark.parametrize("where", ROUND_TRIPS)
def test_reset_in_the_middle_of_a_call_is_a_fast_503_and_the_next_request_succeeds(make_app, fake_oracle, where):
    """The server sends a TCP reset instead of answering the round trip `where`: the driver reports DPY-4011 at
    once, the API answers 503, the broken connection is gone (never pooled, or dropped from the pool), and once the
    database answers again the next request succeeds on a new connection."""
    stage, match, established = ROUND_TRIPS[where]
    fake = fake_oracle()
    app = fresh(make_app(f"127.0.0.1:{fake.port}/svc"))
    store = store_of(app)
    if established:
        assert ask(app)[0] == 200 and store.pool.opened == 1
    fake.behave("reset", stage, match)
    status, err, elapsed = call(app)
    assert status == 503 and err["code"] == "database_unavailable", err
    assert elapsed < FAST, elapsed
    assert fake.struck and set(fake.struck) == {(stage, "reset")}  # the pool may have tried twice
    assert "DPY-4011" in err["message"] and "reset" in err["message"].lower(), err
    assert f"ora (127.0.0.1:{fake.port})" in err["message"]
    pool = store.pool
    assert pool is not None and pool.opened == 0 and pool.busy == 0  # the broken connection left the pool

    fake.behave()  # the database is back
    status, body, elapsed = ask(app)
    assert status == 200 and body == {"databases": []} and elapsed < CONNECT, (status, body, elapsed)
    assert store.pool is pool and pool.opened == 1 and pool.busy == 0


@pytest.mark.parametrize("where", ROUND_TRIPS)
def test_stall_in_the_middle_of_a_call_is_a_bounded_504_and_the_next_request_succeeds(make_app, fake_oracle, where):
    """The server keeps the connection open and never answers the round trip `where` (a zombie peer after a
    failover, field test 001). While connecting, the pool's wait bounds it (connect_timeout) and the pool, whose
    thread stays stuck in that handshake, is abandoned; on a logged-in connection, call_timeout bounds the round
    trip, the driver's break goes unanswered for as long again, and the connection is dropped. Either way a JSON 504
    within the bound, and the first request once the database answers again succeeds at once, without waiting behind
    the stalled connection, which the server still holds open."""
    stage, match, established = ROUND_TRIPS[where]
    fake = fake_oracle()
    app = fresh(make_app(f"127.0.0.1:{fake.port}/svc"))
    store = store_of(app)
    if established:
        assert ask(app)[0] == 200 and store.pool.opened == 1
    pool = store.pool
    fake.behave("stall", stage, match)
    status, err, elapsed = call(app)
    assert status == 504 and err["code"] == "database_timeout", err
    assert fake.struck == [(stage, "stall")] and len(fake.stalled) == 1, fake.struck
    if stage == "sql":
        assert 2 * CALL - 0.05 <= elapsed < BOUND, elapsed
        assert f"longer than {CALL:g} s" in err["message"] and "DPY-4011" in err["message"], err
        assert store.pool is not None and store.pool.opened == 0 and store.pool.busy == 0  # dropped
        assert pool is None or store.pool is pool
    else:
        assert CONNECT - 0.05 <= elapsed < CONNECT + 1.0, elapsed
        assert f"could not connect within {CONNECT:g} s" in err["message"], err
        assert store.pool is None  # abandoned, with its thread stuck in the handshake

    fake.behave()  # the database is back; the stalled connection stays stalled
    status, body, elapsed = ask(app)
    assert status == 200 and body == {"databases": []} and elapsed < CONNECT, (status, body, elapsed)
    assert store.pool.opened == 1 and store.pool.busy == 0
    assert len(fake.stalled) == 1


@pytest.mark.parametrize("sessions", [1, 3])
def test_the_cpu_tests_own_connections_are_bounded_by_the_call_timeout_too(make_app, fake_oracle, sessions):
    """The benchmark harness opens connections of its own (Store.session_engine: one per parallel session, outside
    the API's pool). A stalled call on them ends within twice call_timeout, as the API's do: unbounded, it would be
    the client hang of field test 001."""
    fake = fake_oracle()
    store = store_of(make_app(f"127.0.0.1:{fake.port}/svc"))
    out = {}

    def run():
        with store.session_engine(sessions, CALL) as engine, engine.connect() as conn:
            conn.exec_driver_sql("select 1 from dual").fetchall()  # logged in and answered
            fake.behave("stall", "sql", "stalled_here")
            started = time.monotonic()
            try:
                conn.exec_driver_sql("select 'stalled_here' from dual").fetchall()
            except Exception as exc:
                out["error"] = exc
            out["elapsed"] = time.monotonic() - started

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(BOUND + 5)
    assert not worker.is_alive(), "a stalled call on the harness's connection was not bounded"
    assert "DPY-4011" in str(out["error"]) or "DPY-4024" in str(out["error"]), out["error"]
    assert 2 * CALL - 0.05 <= out["elapsed"] < BOUND, out["elapsed"]
    assert fake.struck == [("sql", "stall")]


# -- translation of driver errors that need a live server to provoke ---------------------------------------------


def _driver_error(num, *args, **kwargs):
    try:
        driver_errors._raise_err(num, *args, **kwargs)
    except oracledb.Error as exc:
        return exc
    raise AssertionError("no error raised")


def test_call_timeout_and_dead_connection_map_to_504_and_503(make_app, refused_port):
    store = store_of(make_app(f"127.0.0.1:{refused_port}/svc"))
    timeout = store.translate(_driver_error(driver_errors.ERR_CALL_TIMEOUT_EXCEEDED, timeout=1000), 1.0)
    assert isinstance(timeout, DatabaseTimeout) and "longer than 1 s" in timeout.message
    gave_up = store.translate(
        _driver_error(
            driver_errors.ERR_CONNECTION_CLOSED, "socket timed out while recovering from previous socket timeout"
        ),
        2.0,
    )
    assert isinstance(gave_up, DatabaseTimeout)
    closed = store.translate(_driver_error(driver_errors.ERR_CONNECTION_CLOSED), 0.1)
    assert isinstance(closed, DatabaseUnavailable) and "DPY-4011" in closed.message
    for err in (timeout, gave_up, closed):
        assert f"ora (127.0.0.1:{refused_port})" in err.message and PASSWORD not in err.message


class FakePool:
    """Stands in for oracledb's pool where a live server would be needed, keeping the driver's contract:
    a pooled connection's close() releases it to the pool; drop() removes it for good."""

    max = 4

    def __init__(self):
        self.busy = self.opened = self.dropped = 0
        self.fail_with = None

    def acquire(self):
        self.busy += 1
        self.opened = max(self.opened, self.busy)
        return FakeConnection(self)

    def drop(self, conn):
        self.busy -= 1
        self.dropped += 1


class FakeConnection:
    version, thin, autocommit, max_identifier_length = "19.3.0.0.0", True, False, 128

    def __init__(self, pool):
        self.pool, self.call_timeout, self.outputtypehandler, self.calls = pool, 0, None, []

    def cursor(self):
        return FakeCursor(self)

    def rollback(self):
        pass

    def close(self):
        self.pool.busy -= 1


class FakeCursor:
    arraysize, rowcount, lastrowid, outputtypehandler = 100, -1, None, None

    def __init__(self, conn):
        self.conn, self.description, self.rows = conn, None, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def execute(self, sql, params=None, **kw):
        self.conn.calls.append((" ".join(sql.split())[:60], self.conn.call_timeout))
        if self.conn.pool.fail_with:
            raise self.conn.pool.fail_with
        if "dbms_transaction" in sql:
            raise oracledb.DatabaseError("ORA-00942: table or view does not exist")
        columns = 9 if "database_instance" in sql else 1
        self.description = [(f"C{i}", oracledb.DB_TYPE_VARCHAR, 10, 10, None, None, True) for i in range(columns)]
        self.rows = (
            [("U",)]
            if "current_schema" in sql
            else [("1.1",)]
            if "1.1" in sql
            else [("19.0.0",)]
            if "compatible" in sql
            else []
        )

    def fetchone(self):
        return self.rows.pop(0) if self.rows else None

    def fetchmany(self, size=None):
        rows, self.rows = self.rows, []
        return rows

    fetchall = fetchmany

    def setinputsizes(self, *args, **kwargs):
        pass

    def var(self, *args, **kwargs):
        return None

    def close(self):
        pass


def test_connections_go_back_to_the_pool_and_broken_ones_are_dropped(make_app, refused_port):
    """Through SQLAlchemy (NullPool + creator): closing a connection releases it to the oracledb pool, the
    dialect's first-connect queries already run under call_timeout, and a connection SQLAlchemy declares dead
    (DPY-4011) is dropped from the pool rather than handed to the next request."""
    app = make_app(f"127.0.0.1:{refused_port}/svc")
    store = store_of(app)
    pool = FakePool()
    store._current_pool = lambda: pool
    conns = []
    acquire = pool.acquire
    pool.acquire = lambda: conns.append(acquire()) or conns[-1]

    resp = app.test_client().get("/api/v1/dbs")
    assert resp.status_code == 200 and resp.get_json() == {"databases": []}
    assert pool.busy == 0 and pool.opened == 1 and pool.dropped == 0
    init = [sql for sql, _ in conns[0].calls if "database_instance" not in sql]
    assert any("current_schema" in sql for sql in init), conns[0].calls  # SQLAlchemy's own queries ran ...
    assert all(ms == int(CALL * 1000) for _, ms in conns[0].calls), conns[0].calls  # ... all bounded

    store.cached = lambda key, ttl, load: load()  # skip the databases cache
    pool.fail_with = _driver_error(driver_errors.ERR_CONNECTION_CLOSED)
    status, err, _ = call(app)
    assert status == 503 and "DPY-4011" in err["message"]
    assert pool.busy == 0 and pool.dropped == 1
    listing = next(sql for sql, _ in conns[0].calls if "database_instance" in sql)
    assert [sql for sql, _ in conns[-1].calls] == [listing]  # no second initialization


# -- targets ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target, words",
    [
        ({"user": "u", "password_env": "AWRLENS_TEST_PW"}, ["'bad'", '"dsn"']),
        ({"dsn": "h:1521/s", "password_env": "AWRLENS_TEST_PW"}, ["'bad'", '"user"']),
        ({"dsn": "h:1521/s", "user": "u"}, ["'bad'", "password_env", "password_secret"]),
        ({"dsn": "h:1521/s", "user": "u", "password_env": "AWRLENS_NO_SUCH_VAR"}, ["'bad'", "AWRLENS_NO_SUCH_VAR"]),
        (
            {"dsn": "h:1521/s", "user": "u", "password_env": "AWRLENS_TEST_PW", "password": "x"},
            ["'bad'", "'password_env'", "'password'"],
        ),
        ({"dsn": "h:1521/s", "user": "u", "pasword_env": "AWRLENS_TEST_PW"}, ["'bad'", "'pasword_env'"]),
        (
            {"dsn": "h:1521/s", "user": "u", "password_env": "AWRLENS_TEST_PW", "view_prefix": "v$"},
            ["'bad'", "view_prefix"],
        ),
        ({"dsn": "u/secret@h:1521/s", "user": "u", "password_env": "AWRLENS_TEST_PW"}, ["'bad'", '"dsn"']),
    ],
)
def test_bad_targets_are_refused_at_start(monkeypatch, target, words):
    monkeypatch.setenv("AWRLENS_TEST_PW", PASSWORD)
    monkeypatch.delenv("AWRLENS_NO_SUCH_VAR", raising=False)
    with pytest.raises(ValueError) as info:
        create_app(Settings.from_env({}, targets={"bad": target}))
    for word in words:
        assert word in str(info.value), str(info.value)
    assert "secret@" not in str(info.value) and PASSWORD not in str(info.value)


# -- password from AWS Secrets Manager (moto) --------------------------------------------------------------------


@pytest.fixture()
def aws(monkeypatch):
    from moto import mock_aws

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setattr(oracle_target, "_secrets", {})
    with mock_aws():
        import boto3

        yield boto3.client("secretsmanager", region_name="us-east-1")


def test_password_from_a_json_secret_is_read_lazily_once(refused_port, aws, monkeypatch):
    arn = aws.create_secret(
        Name="awrlens/ora", SecretString=json.dumps({"username": "u", "password": PASSWORD, "engine": "oracle"})
    )["ARN"]
    reads = []
    real = oracle.read_secret
    monkeypatch.setattr(oracle, "read_secret", lambda *a: reads.append(a) or real(*a))
    app = create_app(
        Settings.from_env(
            {},
            targets={"ora": {"dsn": f"127.0.0.1:{refused_port}/svc", "user": "u", "password_secret": arn}},
            connect_timeout=CONNECT,
            call_timeout=CALL,
            answer_cache_mb=0,
        )
    )
    assert reads == []  # the app starts without the secret ...
    status, err, elapsed = call(app)
    assert status == 503 and "refused" in err["message"].lower() and elapsed < FAST, err  # got as far as TCP
    assert oracle_target._secrets == {arn: PASSWORD}
    call(app)
    assert len(reads) == 1  # ... and reads it on first use, once per process


def test_plain_secret_and_missing_secret(refused_port, aws):
    aws.create_secret(Name="plain", SecretString=PASSWORD)
    assert oracle_target.read_secret("ora", "plain", 1.0) == PASSWORD
    app = create_app(
        Settings.from_env(
            {},
            targets={"ora": {"dsn": f"127.0.0.1:{refused_port}/svc", "user": "u", "password_secret": "no-such-secret"}},
            connect_timeout=CONNECT,
            call_timeout=CALL,
            answer_cache_mb=0,
        )
    )
    status, err, elapsed = call(app)
    assert status == 503 and "no-such-secret" in err["message"] and "ResourceNotFound" in err["message"], err
    assert elapsed < BOUND


# -- one failure stays one failure: a dead target beside a healthy one ------------------------------------------


@pytest.mark.parametrize("dead_first", [True, False])
def test_a_dead_target_never_breaks_a_healthy_one(demo_store, listeners, refused_port, monkeypatch, dead_first):
    """The demo store beside an Oracle target whose listener is silent (and one that refuses): /dbs lists the
    demo's databases and names each unreachable target with its error, the targets asked at once (within the
    connect bound, not the sum of the bounds); the demo's answers never wait on the dead target, even while it
    is asked concurrently; runs live where AWRLENS_RUNS_TARGET says, whichever target is first."""
    monkeypatch.setenv("AWRLENS_TEST_PW", PASSWORD)
    silent = listeners("silent")
    dead = {
        "silent": {"dsn": f"127.0.0.1:{silent.port}/svc", "user": "u", "password_env": "AWRLENS_TEST_PW"},
        "refused": {"dsn": f"127.0.0.1:{refused_port}/svc", "user": "u", "password_env": "AWRLENS_TEST_PW"},
    }
    healthy = {"demo": {"sqlite": str(demo_store[0])}}
    targets = {**dead, **healthy} if dead_first else {**healthy, **dead}
    app = create_app(
        Settings.from_env(
            {}, targets=targets, connect_timeout=CONNECT, call_timeout=CALL, answer_cache_mb=0, runs_target="demo"
        )
    )
    client = app.test_client()
    started = time.monotonic()
    resp = client.get("/api/v1/dbs")
    elapsed = time.monotonic() - started
    assert resp.status_code == 200 and elapsed < CONNECT + 1.0, (resp.status_code, elapsed)
    body = resp.get_json()
    assert {d["target"] for d in body["databases"]} == {"demo"} and len(
        body["databases"]
    ) == 3  # two AWR, one Statspack
    errors = {u["target"]: u for u in body["unreachable"]}
    assert set(errors) == {"silent", "refused"}
    assert errors["silent"]["status"] == 504 and errors["silent"]["code"] == "database_timeout"
    assert errors["refused"]["status"] == 503 and "refused" in errors["refused"]["message"].lower()
    assert "no-cache" in resp.headers["Cache-Control"] and PASSWORD not in resp.get_data(as_text=True)
    demo_db = body["databases"][0]["id"]

    # eight requests for the dead target's databases in flight, and the demo answers meanwhile
    results, workers = [], []
    for _ in range(8):
        workers.append(
            threading.Thread(
                target=lambda: results.append(
                    app.test_client().get("/api/v1/dbs/silent.1/series?name=derived:aas").status_code
                ),
                daemon=True,
            )
        )
        workers[-1].start()
    time.sleep(0.1)
    for path in (
        f"/api/v1/dbs/{demo_db}/series?name=derived:aas",
        f"/api/v1/dbs/{demo_db}/load-profile",
        "/api/v1/benchmarks",
        "/api/v1/",
    ):
        started = time.monotonic()
        assert client.get(path).status_code == 200, path
        assert time.monotonic() - started < 1.0, path
    for w in workers:
        w.join(BOUND + 5)
    assert results == [504] * 8


def test_a_silent_target_and_slow_clients_cannot_starve_the_server(demo_store, listeners):
    """Under gunicorn as `make run` serves it (gunicorn.conf.py): 16 requests held by a silent Oracle target and 4
    clients trickling their headers, and the page, the OpenAPI document and the demo's answers still come within
    1 s; the silent target's requests end in 504 within their bound, or at once in 503 target_busy past
    AWRLENS_MAX_IN_FLIGHT."""
    from urllib.error import HTTPError
    from urllib.request import urlopen

    from conftest import gunicorn

    silent = listeners("silent")
    targets = {
        "demo": {"sqlite": str(demo_store[0])},
        "silent": {"dsn": f"127.0.0.1:{silent.port}/svc", "user": "u", "password_env": "ORACLE_TEST_PW"},
    }
    env = {
        "AWRLENS_TARGETS": json.dumps(targets),
        "ORACLE_TEST_PW": PASSWORD,
        "AWRLENS_CONNECT_TIMEOUT": "3",
        "AWRLENS_CALL_TIMEOUT": "3",
        "AWRLENS_ANSWER_CACHE_MB": "0",
    }
    with gunicorn(demo_store[0], workers=2, env=env, clean=True) as url:
        dbs = json.loads(urlopen(f"{url}/api/v1/dbs", timeout=30).read())
        demo_db = dbs["databases"][0]["id"]
        statuses, done = [], threading.Event()

        def held():
            try:
                urlopen(f"{url}/api/v1/dbs/silent.1/series?name=derived:aas", timeout=30)
                statuses.append(200)
            except HTTPError as exc:
                statuses.append((exc.code, json.loads(exc.read())["error"]["code"]))

        def trickle():
            host, port = url.removeprefix("http://").split(":")
            with socket.create_connection((host, int(port))) as sock:
                sock.sendall(b"GET /api/v1/ HTTP/1.1\r\nHost: x\r\n")
                while not done.wait(0.3):
                    try:
                        sock.sendall(b"X")
                    except OSError:
                        return

        workers = [threading.Thread(target=held, daemon=True) for _ in range(16)]
        workers += [threading.Thread(target=trickle, daemon=True) for _ in range(4)]
        for w in workers:
            w.start()
        time.sleep(0.5)  # all of them in flight
        try:
            for path in (
                "/",
                "/api/v1/openapi.json",
                f"/api/v1/dbs/{demo_db}/series?name=derived:aas",
                f"/api/v1/dbs/{demo_db}/top-sql",
                "/api/v1/benchmarks",
            ):
                started = time.monotonic()
                assert urlopen(f"{url}{path}", timeout=10).status == 200, path
                assert time.monotonic() - started < 1.0, (path, time.monotonic() - started)
        finally:
            done.set()
        for w in workers[:16]:
            w.join(3 + 2 * 3 + 5)
    assert len(statuses) == 16 and set(statuses) <= {(504, "database_timeout"), (503, "target_busy")}, statuses
