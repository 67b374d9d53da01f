"""The field tests run here: field test 002 (CPU consistency) end to end on SQLite with small N (flask runs cpu ->
stored run -> API), field test 001 (client hangs) in the hang lab against loopback endpoints with the real
python-oracledb driver (bounded vs unbounded, measured), the machine's vCPU and core counts, and the AWR window a
run on Oracle records.
"""

import os
import sqlite3
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, event
from sqlalchemy.dialects import oracle

from app import create_app
from app.errors import Forbidden
from app.runs import cpu_consistency as cpu
from app.runs.awr_window import SNAPSHOT_NOW, Window, database_id_statement, newest_snapshot_statement
from app.runs.machine import physical_cores
from app.settings import Settings
from app.store.awr.queries import render
from app.store.awr.views import views
from lab import hang

KEY = "field-test-key-0123456789abcdef"


@pytest.fixture()
def scratch(tmp_path, monkeypatch):
    """An app on an empty SQLite file of this test's own, the API behind a key."""
    monkeypatch.setenv("AWRLENS_FIELD_TEST_KEY", KEY)
    path = tmp_path / "lab.sqlite"
    sqlite3.connect(path).close()
    return create_app(
        Settings.from_env({}, targets={"lab": {"sqlite": str(path)}}, api_key_secret="env:AWRLENS_FIELD_TEST_KEY")
    )


def runs(app, *args):
    result = app.test_cli_runner().invoke(args=["runs", *args])
    return result


def get(app, path):
    resp = app.test_client().get(path, headers={"X-API-Key": KEY})
    assert resp.status_code == 200, resp.get_data(as_text=True)[:300]
    return resp.get_json()


# -- CPU consistency ---------------------------------------------------------------------------------------------


def test_cpu_consistency_end_to_end_on_sqlite(scratch, monkeypatch):
    store = scratch.extensions["awrlens"].stores["lab"]
    connects = []
    real = store.session_engine

    @contextmanager
    def counting(sessions, call_timeout):
        with real(sessions, call_timeout) as engine:
            event.listen(engine, "connect", lambda dbapi_conn, rec: connects.append(id(dbapi_conn)))
            yield engine

    monkeypatch.setattr(store, "session_engine", counting)

    result = runs(
        scratch,
        "cpu",
        "--max-sessions",
        "3",
        "--repeats",
        "2",
        "--level",
        "20",
        "--slug",
        "cpu-small",
        "--private",
        "--instance-type",
        "lab VM",
    )
    assert result.exit_code == 0, result.output
    assert "Stored cpu_consistency run 'cpu-small' (12 measurements, private)" in result.output
    got = get(scratch, "/api/v1/benchmarks/cpu-small")
    run, rows = got["run"], got["rows"]
    assert run["kind"] == "cpu_consistency" and run["visibility"] == "private"
    assert run["vcpus"] == os.cpu_count() and run["cores"] == physical_cores() and run["instance_type"] == "lab VM"
    assert run["db_version"].startswith("SQLite 3.")
    assert run["parameters"]["level"] == 20 and run["parameters"]["rows_counted"] == 160_000
    assert "WITH RECURSIVE" in run["parameters"]["statement"] and "?" in run["parameters"]["statement"]
    assert run["started"] <= run["finished"] and run["awr_db"] is None
    # N = 1..3, two repeats: N sessions per repeat, each timed
    assert [(r["series"], r["x"]) for r in rows] == [(f"N={n}", float(n)) for n in (1, 2, 3) for _ in range(2 * n)]
    assert all(r["unit"] == "s" and 0 < r["y"] < 30 for r in rows)
    for n in (1, 2, 3):
        for repeat in (1, 2):
            group = [r["extra"] for r in rows if r["x"] == n and r["extra"]["repeat"] == repeat]
            assert sorted(e["session"] for e in group) == list(range(1, n + 1))
            assert min(e["start_s"] for e in group) == 0 and max(e["start_s"] for e in group) < 1.0  # together
    # every session on its own, new connection (plus one for the version)
    assert len(connects) == 2 * (1 + 2 + 3) + 1 and len(set(connects)) >= 3


def test_cpu_statement_is_the_field_tests_on_oracle_and_counts_level_to_the_fourth_on_sqlite():
    sql = render(cpu.statement("oracle"), oracle.dialect())
    assert sql == (
        "with t as (select rownum from dual connect by level <= :lvl) select /*+ ALL_ROWS */ count(*) from t,t,t,t"
    )
    engine = create_engine("sqlite://")
    with engine.connect() as conn:
        for level in (1, 3, 7, 12):
            assert conn.execute(cpu.statement("sqlite"), {"lvl": level}).scalar() == level**4


def test_a_session_over_its_time_limit_stops_the_test_with_a_message(scratch):
    result = runs(scratch, "cpu", "-m", "1", "-r", "1", "--level", "3000", "--timeout", "0.3", "--slug", "too-slow")
    assert result.exit_code == 1 and "the test stopped" in result.output and "interrupt" in result.output
    assert get(scratch, "/api/v1/benchmarks")["count"] == 0


def test_physical_cores_from_cpuinfo():
    # c4.4xlarge: 16 vCPUs = 8 cores x 2 hyperthreads (field test 002)
    blocks = [f"processor\t: {i}\nphysical id\t: 0\ncore id\t\t: {i % 8}\n" for i in range(16)]
    assert physical_cores("\n".join(blocks)) == 8
    two_sockets = [f"processor\t: {i}\nphysical id\t: {i // 4}\ncore id\t\t: {i % 4}\n" for i in range(8)]
    assert physical_cores("\n".join(two_sockets)) == 8
    assert physical_cores() >= 1


# -- AWR window --------------------------------------------------------------------------------------------------


class FakeOracleStore:
    """Answers the window's questions (may the user take snapshots, the database id, the newest snapshot) as an
    Oracle store would; `packages` is how many packages ALL_OBJECTS lists for the privilege check."""

    dialect, alias, user = "oracle", "prod", "awrlens"

    def __init__(self, snaps, packages=1):
        self.views = views("dba_hist_")
        self.snaps, self.writes, self.asked, self.packages = list(snaps), [], [], packages

    def rows(self, stmt, params=None):
        self.asked.append((render(stmt, oracle.dialect()), params))
        if "all_objects" in self.asked[-1][0]:
            return [(self.packages,)]
        if "sys_context" in self.asked[-1][0]:
            return [("1645932817",)]
        return [(self.snaps.pop(0),)]

    def write(self, work):
        self.writes.append(work)


def test_the_awr_window_is_the_snapshots_around_the_run():
    store = FakeOracleStore([20250, 20251])
    with Window(store) as w:
        pass
    assert w.document() == {"target": "prod", "dbid": 1645932817, "begin_snap": 20250, "end_snap": 20252}
    assert "first automatic snapshot after" in w.note() and store.writes == []
    sqls = [sql for sql, _ in store.asked]
    assert sqls[0].startswith("SELECT sys_context(:") and sqls[0].endswith("FROM DUAL")  # binds, no literals
    assert "max(dba_hist_snapshot.snap_id)" in sqls[1] and ":dbid" in sqls[1]
    assert store.asked[1][1] == {"dbid": 1645932817}


def test_with_snapshots_taken_the_window_is_exact():
    store = FakeOracleStore([20260, 20261])
    with Window(store, take_snapshots=True) as w:
        pass
    assert (w.document()["begin_snap"], w.document()["end_snap"]) == (20260, 20261) and len(store.writes) == 2
    assert "dbms_workload_repository.create_snapshot" in SNAPSHOT_NOW.text
    assert "all_objects" in store.asked[0][0]  # the privilege is checked first


def test_snapshots_without_execute_on_the_package_stop_before_anything_runs():
    """ALL_OBJECTS lists no DBMS_WORKLOAD_REPOSITORY to the user: the window refuses at once, naming the grant, before
    any snapshot is taken or the test runs; the check asks with binds only."""
    store = FakeOracleStore([20260, 20261], packages=0)
    with pytest.raises(Forbidden) as caught, Window(store, take_snapshots=True):
        pytest.fail("the test ran without the privilege")
    message = caught.value.message
    assert "GRANT EXECUTE ON SYS.DBMS_WORKLOAD_REPOSITORY TO AWRLENS" in message and "--snapshots" in message
    assert "grant_sys_object('DBMS_WORKLOAD_REPOSITORY', 'AWRLENS', 'EXECUTE')" in message  # RDS
    assert store.writes == [] and len(store.asked) == 1
    sql, params = store.asked[0]
    assert "'" not in sql and ":owner" in sql and ":name" in sql and ":kind" in sql
    assert params == {"owner": "SYS", "name": "DBMS_WORKLOAD_REPOSITORY", "kind": "PACKAGE"}
    # without --snapshots nothing is checked: the window needs no privilege beyond reading AWR
    store = FakeOracleStore([20250, 20251], packages=0)
    with Window(store):
        pass
    assert not any("all_objects" in sql for sql, _ in store.asked)


def test_the_pdb_views_use_the_pdbs_dbid_and_sqlite_records_no_window(scratch):
    assert "CON_DBID" in str(database_id_statement("awr_pdb_").compile(compile_kwargs={"literal_binds": True}))
    assert "awr_pdb_snapshot" in render(newest_snapshot_statement(views("awr_pdb_")), oracle.dialect())
    with Window(scratch.extensions["awrlens"].stores["lab"]) as w:
        pass
    assert w.document() is None and w.note() is None


# -- client hangs ------------------------------------------------------------------------------------------------

CONNECT = CALL = 0.4
CAP = 1.5


@pytest.mark.wire
@pytest.mark.slow
def test_hang_lab_against_loopback_endpoints(scratch):
    """The real driver: unbounded waits outlast the cap where the endpoint is silent or drops, the app's bounds end
    them within connect_timeout or twice call_timeout, and a reset ends every case at once."""
    result = runs(
        scratch,
        "hang",
        "--cap",
        str(CAP),
        "--connect-timeout",
        str(CONNECT),
        "--call-timeout",
        str(CALL),
        "--delay",
        "0.2",
        "--slug",
        "hang-small",
    )
    assert result.exit_code == 0, result.output
    got = get(scratch, "/api/v1/benchmarks/hang-small")
    assert got["run"]["kind"] == "client_hang" and "python-oracledb" in got["run"]["db_version"]
    assert "loopback cannot lose packets" in got["run"]["description"]
    assert got["run"]["parameters"]["cap_s"] == CAP and got["run"]["parameters"]["call_timeout_s"] == CALL
    cells = {(r["series"], r["x"]): r for r in got["rows"]}
    assert len(cells) == len(hang.plan()) == 14
    for case, endpoints in hang.CASES:
        for endpoint in endpoints:
            free, bounded = (cells[(mode, f"{case} / {endpoint}")] for mode in (hang.DEFAULTS, hang.BOUNDED))
            if endpoint == "reset":
                assert free["y"] < 0.3 and bounded["y"] < 0.3, (case, free, bounded)
                assert not free["extra"]["still_hanging"] and "DPY-" in free["extra"]["outcome"]
                continue
            assert free["extra"]["still_hanging"] and free["y"] == CAP, (case, endpoint, free)
            limit = CONNECT if case == "new connection" else 2 * CALL
            assert bounded["extra"]["bound_s"] == limit and not bounded["extra"]["still_hanging"]
            assert bounded["y"] <= limit + 0.35, (case, endpoint, bounded)
            assert bounded["y"] < free["y"]  # the difference the bounds make, measured
            # the pool's wait (DPY-4005), the call timeout (DPY-4011, DPY-4024) or, connecting, whichever of the pool's
            # wait and tcp_connect_timeout (DPY-6005 ... timed out) ends first: both are connect_timeout
            outcome = bounded["extra"]["outcome"]
            assert outcome.startswith(("DPY-4005", "DPY-4011", "DPY-4024")) or (
                case == "new connection" and outcome.startswith("DPY-6005") and outcome.endswith("timed out")
            ), bounded
    in_flight = cells[(hang.BOUNDED, "call in flight / silent")]
    assert in_flight["extra"]["call_s"] == pytest.approx(in_flight["y"] + 0.2, abs=0.01)  # waited after it died


@pytest.mark.slow  # the real driver against a stand-in process: over half a second
@pytest.mark.wire
def test_the_stand_in_logs_on_with_the_real_driver_and_dies_on_command():
    import time

    import oracledb

    from lab.endpoints import OracleStandIn

    with OracleStandIn(hang.PASSWORD) as server:
        conn = oracledb.connect(user="u", password=hang.PASSWORD, dsn=server.dsn)
        assert conn.version == "19.3.0.0.0"
        conn.ping()
        conn.call_timeout = 300
        server.kill("silent")
        started = time.monotonic()
        with pytest.raises(oracledb.Error):
            conn.ping()
        assert 0.25 < time.monotonic() - started < 1.5
        with pytest.raises(oracledb.Error, match="DPY-4035"):  # the driver checks the server's proof
            oracledb.connect(user="u", password="not the same", dsn=server.dsn)
