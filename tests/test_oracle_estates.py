"""What the Oracle store does on real estates, with the real python-oracledb driver (thin mode) against the loopback
stand-in of tests/fake_oracle.py: it learns the server's release at connect and builds its statements for it, refuses
a view prefix the release has no views for, fetches large results 1000 rows a round trip, and `flask runs cpu
--snapshots` checks the EXECUTE grant on DBMS_WORKLOAD_REPOSITORY before anything runs.
"""

import pytest
from fake_oracle import FakeOracle
from sqlalchemy import event, select, text

from app import create_app
from app.settings import Settings
from app.store import oracle
from lab import endpoints

pytestmark = pytest.mark.wire

PASSWORD = "Pw-estates-not-in-messages"


def version_number(major, minor, update=0, revision=0, increment=0) -> int:
    """AUTH_VERSION_NO as a server of 18c or later encodes its version (and the driver decodes it for the stand-in's
    TTC field version, 19c's): 8 bits major, 8 minor, 4 update, 8 revision, 4 increment."""
    return (major << 24) | (minor << 16) | (update << 12) | (revision << 4) | increment


@pytest.fixture()
def fake():
    made = []

    def make(**kwargs):
        made.append(FakeOracle(PASSWORD, **kwargs))
        return made[-1]

    yield make
    for f in made:
        f.close()


def app_for(monkeypatch, server, **target):
    monkeypatch.setenv("AWRLENS_ESTATE_PW", PASSWORD)
    target = {"dsn": f"127.0.0.1:{server.port}/svc", "user": "awrlens", "password_env": "AWRLENS_ESTATE_PW", **target}
    return create_app(
        Settings.from_env({}, targets={"ora": target}, connect_timeout=2, call_timeout=2, answer_cache_mb=0)
    )


@pytest.mark.parametrize("version, release", [((19, 3), "19c"), ((12, 1, 0, 2), "12.1"), ((23, 26), "23ai")])
def test_the_store_learns_the_release_at_connect_and_builds_its_statements_for_it(monkeypatch, fake, version, release):
    """Until it has connected the store builds statements with the oldest release's columns (valid on every later
    one); the server's version at connect picks the release, whose views the statements then use (on 12.1 no
    BLOCK_SIZE nor CON_DBID in DBA_HIST_TABLESPACE, from 12.2 both)."""
    monkeypatch.setattr(endpoints, "SERVER_VERSION", version_number(*version))
    app = app_for(monkeypatch, fake())
    store = app.extensions["awrlens"].stores["ora"]
    assert store.release == "12.1" and "block_size" not in store.views.tablespace.c
    resp = app.test_client().get("/api/v1/dbs")
    assert resp.status_code == 200 and resp.get_json()["databases"] == [], resp.get_json()
    assert store.server_version.startswith(".".join(map(str, version)))
    assert store.release == release and store.views.release == release
    assert ("block_size" in store.views.tablespace.c) == (release != "12.1")
    assert ("con_dbid" in store.views.tablespace.c) == (release != "12.1")


def test_a_view_prefix_the_release_lacks_is_refused_with_what_to_set(monkeypatch, fake):
    """12.1 has no AWR_PDB_ views: the target answers 503 naming the release and the prefix to use, at once."""
    monkeypatch.setattr(endpoints, "SERVER_VERSION", version_number(12, 1, 0, 2))
    app = app_for(monkeypatch, fake(), view_prefix="awr_pdb_")
    resp = app.test_client().get("/api/v1/dbs")
    err = resp.get_json()["error"]
    assert resp.status_code == 503 and err["code"] == "database_unavailable", err
    assert "Oracle 12.1.0.2" in err["message"] and "no AWR_PDB_ views" in err["message"], err
    assert 'set "view_prefix": "dba_hist_"' in err["message"] and PASSWORD not in err["message"], err
    store = app.extensions["awrlens"].stores["ora"]
    assert store.pool.busy == 0  # the refused connection went back to the pool


def test_large_results_come_1000_rows_a_round_trip_with_the_first_ones_prefetched(monkeypatch, fake):
    """The driver's cursor, as the store's engine executes on it: arraysize 1000 instead of the driver's 100, and
    prefetchrows 1001, so a result of up to 1000 rows comes with the execute itself."""
    app = app_for(monkeypatch, fake())
    store = app.extensions["awrlens"].stores["ora"]
    seen = []
    event.listen(
        store.engine,
        "after_cursor_execute",
        lambda conn, cursor, *args: seen.append((cursor.arraysize, cursor.prefetchrows)),
    )
    store.rows(select(text("1")).select_from(text("dual")))
    assert seen and set(seen) == {(oracle.FETCH_ROWS, oracle.FETCH_ROWS + 1)} and oracle.FETCH_ROWS == 1000


def cpu_snapshots(app):
    return app.test_cli_runner().invoke(args=["runs", "cpu", "--snapshots", "-m", "1", "-r", "1", "--level", "2"])


def test_runs_cpu_snapshots_without_the_grant_stops_at_once_naming_it(monkeypatch, fake):
    """ALL_OBJECTS lists no DBMS_WORKLOAD_REPOSITORY to the user: `flask runs cpu --snapshots` stops before anything
    runs (no snapshot, no session of the test), saying which grant is missing."""
    server = fake()
    result = cpu_snapshots(app_for(monkeypatch, server))
    assert result.exit_code == 1, result.output
    assert "--snapshots needs EXECUTE on SYS.DBMS_WORKLOAD_REPOSITORY" in result.output
    assert "GRANT EXECUTE ON SYS.DBMS_WORKLOAD_REPOSITORY TO AWRLENS" in result.output
    asked = [s for s in server.statements if "all_objects" in s]
    assert len(asked) == 1 and ":owner" in asked[0] and "'" not in asked[0]  # binds, no literals
    assert not any("create_snapshot" in s or "connect by level" in s for s in server.statements)


def test_runs_cpu_snapshots_with_the_grant_goes_on_to_take_the_first_snapshot(monkeypatch, fake):
    """The same check answered 1: the run goes on to read the DBID and the newest snapshot and to take a snapshot
    (which the stand-in refuses as PL/SQL it cannot run, so the run stops there, with the driver's error, not the
    check's message)."""
    server = fake(
        answers={
            "all_objects": [("1",)],
            "sys_context": [("1645932817",)],
            "max(dba_hist_snapshot.snap_id)": [("20250",)],
        }
    )
    result = cpu_snapshots(app_for(monkeypatch, server))
    assert result.exit_code == 1 and "needs EXECUTE" not in result.output, result.output
    assert "PLS-00201" in result.output
    mine = [s for s in server.statements if "current_schema" not in s]  # not SQLAlchemy's first-connect query
    order = [next((k for k in ("all_objects", "sys_context", "create_snapshot") if k in s), None) for s in mine]
    assert [k for k in order if k][:3] == ["all_objects", "sys_context", "create_snapshot"], server.statements


def test_a_release_before_12_1_is_refused_naming_the_supported_range(monkeypatch, fake):
    """(python-oracledb's thin mode refuses such a server itself, DPY-3010; the store's own check says the same in
    its words if a server reports it anyway.)"""
    monkeypatch.setattr(endpoints, "SERVER_VERSION", version_number(11, 2, 0, 4))
    resp = app_for(monkeypatch, fake()).test_client().get("/api/v1/dbs")
    err = resp.get_json()["error"]
    assert resp.status_code == 503 and "Oracle 11.2.0.4" in err["message"] and "12.1" in err["message"], err
