"""The licence check on the wire: the real python-oracledb driver against the loopback stand-in (tests/fake_oracle.py),
answering CONTROL_MANAGEMENT_PACK_ACCESS and V$VERSION's banner as each estate would. Whatever the answer, no
statement of a pack the database does not enable reaches the server; what the licence covers is sent.

The expectations are Oracle's, written here from its documents, not from app/store/licence.py: the Database Reference
(CONTROL_MANAGEMENT_PACK_ACCESS: NONE, DIAGNOSTIC, DIAGNOSTIC+TUNING) and the Licensing Information (the packs are
sold with Enterprise Edition only; the Diagnostics Pack covers every DBA_HIST_ view but six, ASH and
DBMS_WORKLOAD_REPOSITORY; SQL monitor, DBA_HIST_REPORTS and DBMS_AUTO_REPORT among them, is the Tuning Pack's).
"""

import re
import threading

import pytest
from conftest import ORACLE_PASSWORD, ORCL, assert_error

from app.settings import Settings
from app.store import licence
from app.store.awr.queries import all_statements, render, report_statements
from app.store.awr.views import PREFIXES, views
from app.store.oracle import OracleStore

pytestmark = pytest.mark.wire

EE = "Oracle Database 19c Enterprise Edition Release 19.0.0.0.0 - Production"
SE2 = "Oracle Database 19c Standard Edition 2 Release 19.0.0.0.0 - Production"
FREE_VIEWS = {  # the DBA_HIST_ views the Licensing Information leaves out of the Diagnostics Pack
    "dba_hist_snapshot",
    "dba_hist_database_instance",
    "dba_hist_snap_error",
    "dba_hist_seg_stat",
    "dba_hist_seg_stat_obj",
    "dba_hist_undostat",
}


def packs_of(sql: str) -> set:
    """The packs a statement on the wire uses, by the names it reads (an alias dba_hist_x_1 is view dba_hist_x)."""
    names = {re.sub(r"_\d+$", "", n) for n in re.findall(r"[a-z_$]+", sql.lower())}
    packs = set()
    if any(n.startswith(("dba_hist_", "awr_pdb_", "awr_root_", "awr_cdb_")) and n not in FREE_VIEWS for n in names):
        packs.add("diagnostic")
    # V$ASH_INFO describes the ASH buffer: counted with it (the stricter reading; the Licensing Information names
    # V$ACTIVE_SESSION_HISTORY)
    ash = {"v$active_session_history", "gv$active_session_history", "v$ash_info", "gv$ash_info"}
    if names & (ash | {"dbms_workload_repository"}):
        packs.add("diagnostic")
    if names & {"dba_hist_reports", "dba_hist_reports_details", "dbms_auto_report", "v$sql_monitor"}:
        packs |= {"diagnostic", "tuning"}
    return packs


# (CONTROL_MANAGEMENT_PACK_ACCESS, banner, the target's management_packs) -> the packs that may be used
ESTATES = [
    pytest.param("NONE", EE, None, set(), id="EE-NONE"),
    pytest.param("DIAGNOSTIC", EE, None, {"diagnostic"}, id="EE-DIAGNOSTIC"),
    pytest.param("DIAGNOSTIC+TUNING", EE, None, {"diagnostic", "tuning"}, id="EE-DIAGNOSTIC+TUNING"),
    pytest.param("NONE", SE2, None, set(), id="SE2"),
    pytest.param("DIAGNOSTIC+TUNING", SE2, None, set(), id="SE2-parameter-set-anyway"),
    pytest.param("DIAGNOSTIC+TUNING", EE, "DIAGNOSTIC", {"diagnostic"}, id="EE-declared-stricter"),
    pytest.param("DIAGNOSTIC", EE, "DIAGNOSTIC+TUNING", {"diagnostic"}, id="EE-declared-wider-is-not"),
    pytest.param("DIAGNOSTIC+TUNING", EE, "NONE", set(), id="EE-declared-none"),
]
Q = f"/api/v1/dbs/ora.{ORCL}"
REQUESTS = {  # a request -> the packs its statements use
    f"{Q}/series?name=sysstat:redo%20size&begin_snap=100&end_snap=104": {"diagnostic"},
    f"{Q}/activity?begin_snap=100&end_snap=104": {"diagnostic"},
    f"{Q}/activity/top?ash=live&minutes=5": {"diagnostic"},  # GV$ASH_INFO, then GV$ACTIVE_SESSION_HISTORY
    f"{Q}/awr-report?begin_snap=100&end_snap=104": {"diagnostic"},
    f"{Q}/sql/6da5n2tu8uq4d/monitor?begin_snap=100&end_snap=104": {"diagnostic", "tuning"},
    f"{Q}/segments/78939?begin_snap=100&end_snap=104": set(),  # DBA_HIST_SEG_STAT and _SEG_STAT_OBJ only
}


def licence_answer(pack_access, banner):
    return {"as pack_access": [(pack_access, banner)]}


@pytest.mark.parametrize("pack_access, banner, declared, allowed", ESTATES)
def test_only_what_the_licence_enables_reaches_the_database(oracle_app, pack_access, banner, declared, allowed):
    """Each request on each estate: refused 403 not_licensed naming the parameter's value where its pack is not
    enabled, and none of its statements sent; sent where it is."""
    client, server = oracle_app(
        target={"management_packs": declared} if declared else None, answers=licence_answer(pack_access, banner)
    )
    for url, needs in REQUESTS.items():
        before = len(server.statements)
        resp = client.get(url)
        sent = server.statements[before:]
        used = set().union(*map(packs_of, sent))
        if needs <= allowed:
            assert resp.status_code != 403 or resp.get_json()["error"]["code"] != "not_licensed", (url, resp.json)
            assert needs <= used and sent, (url, sent)  # what the request is about was asked of the database
        else:
            err = assert_error(resp, 403)
            assert err["code"] == "not_licensed", err
            assert f"CONTROL_MANAGEMENT_PACK_ACCESS = {pack_access}" in err["message"], err
            assert ("Standard Edition 2 has no management packs" in err["message"]) == (banner == SE2), err
            assert ("Tuning Pack" in err["message"]) == ("tuning" in needs - allowed), err
        assert used <= allowed, (url, sent)
    asked = [s for s in server.statements if "as pack_access" in s]
    assert len(asked) == (1 if any(REQUESTS.values()) else 0), asked  # read once, within AWRLENS_LICENCE_TTL
    assert ":parameter" in asked[0] and "from v$parameter" in asked[0] and "'" not in asked[0]


def test_the_listing_reads_only_views_outside_the_packs_and_is_sent_without_them(oracle_app):
    """/dbs reads DBA_HIST_DATABASE_INSTANCE and DBA_HIST_SNAPSHOT, which the Licensing Information leaves out of the
    Diagnostics Pack: on a database without the pack the listing is asked, and nothing else."""
    client, server = oracle_app(answers=licence_answer("NONE", SE2))
    client.application.extensions["awrlens"].stores["ora"]._cache.clear()
    resp = client.get("/api/v1/dbs")
    assert resp.status_code == 200 and resp.get_json()["databases"] == [], resp.get_json()
    listing = [s for s in server.statements if "dba_hist_database_instance" in s]
    assert listing and not any(packs_of(s) for s in server.statements), server.statements


@pytest.mark.parametrize(
    "pack_access, banner, declared, source, packs",
    [
        ("NONE", SE2, None, None, []),
        ("DIAGNOSTIC+TUNING", SE2, None, None, []),
        ("NONE", EE, None, None, []),
        ("DIAGNOSTIC", EE, None, "awr", ["Diagnostics Pack"]),
        ("DIAGNOSTIC+TUNING", EE, None, "awr", ["Diagnostics Pack", "Tuning Pack"]),
        ("DIAGNOSTIC+TUNING", EE, "NONE", None, []),
    ],
)
def test_the_listing_says_which_history_each_database_has_and_why(
    oracle_app, pack_access, banner, declared, source, packs
):
    """Each database of /dbs names its source: AWR where the Diagnostics Pack is enabled, none otherwise, with the
    parameter's value, the edition and the packs it allows."""
    client, server = oracle_app(
        target={"management_packs": declared} if declared else None, answers=licence_answer(pack_access, banner)
    )
    (db,) = client.get("/api/v1/dbs").get_json()["databases"]
    assert db["source"] == source, db
    assert db["licence"] == {
        "control_management_pack_access": pack_access,
        "edition": "Standard Edition 2" if banner == SE2 else "Enterprise Edition",
        "management_packs": declared,
        "packs": packs,
    }
    assert not any(packs_of(s) for s in server.statements), server.statements


def test_a_listing_without_the_grant_for_the_licence_says_so_and_has_no_source(oracle_app):
    client, _ = oracle_app(errors={"from v$parameter": (942, "ORA-00942: table or view does not exist")})
    (db,) = client.get("/api/v1/dbs").get_json()["databases"]
    assert db["source"] is None and "GRANT SELECT ON SYS.V_$PARAMETER TO AWRLENS" in db["licence"]["error"], db


def test_a_licence_read_again_after_its_ttl_sees_the_change(oracle_app):
    """Within AWRLENS_LICENCE_TTL the licence is read once; once it has passed, the next statement of a pack reads it
    again: a DBA's ALTER SYSTEM SET control_management_pack_access = NONE stops the next statement."""
    url = f"{Q}/awr-report?begin_snap=100&end_snap=104"  # asked of the database every time (series are cached)
    kept_client, kept = oracle_app(settings={"licence_ttl": 3600.0}, answers=licence_answer("DIAGNOSTIC", EE))
    ttl0_client, ttl0 = oracle_app(settings={"licence_ttl": 0.0}, answers=licence_answer("DIAGNOSTIC", EE))
    for client in (kept_client, ttl0_client):
        assert client.get(url).status_code != 403  # sent (the stand-in's report has no lines)
    for server in (kept, ttl0):
        server.answers.update(licence_answer("NONE", EE))
    assert kept_client.get(url).status_code != 403  # within its hour: as read
    err = assert_error(ttl0_client.get(url), 403)
    assert err["code"] == "not_licensed" and "= NONE" in err["message"]
    assert sum("as pack_access" in s for s in kept.statements) == 1
    last = ttl0.statements[-1]
    assert "as pack_access" in last, ttl0.statements  # the refused statement itself was never sent


def test_a_parameter_the_user_may_not_read_is_no_licence_and_names_the_grant(oracle_app):
    """Without SELECT on V_$PARAMETER the licence cannot be read: 403 naming the grant, and no statement of a pack."""
    client, server = oracle_app(errors={"from v$parameter": (942, "ORA-00942: table or view does not exist")})
    err = assert_error(client.get(next(iter(REQUESTS))), 403)
    assert err["code"] == "missing_grant", err
    assert "GRANT SELECT ON SYS.V_$PARAMETER TO AWRLENS" in err["message"] and ORACLE_PASSWORD not in err["message"]
    assert not any(packs_of(s) for s in server.statements), server.statements


def test_targets_of_every_licence_at_once_keep_their_own(oracle_app):
    """Three targets asked together from eight threads (an Enterprise Edition with both packs, one with NONE, an SE2):
    each answers as its own licence says, and no statement of a pack reaches the two without it."""
    made = {
        name: oracle_app(answers=licence_answer(*estate))
        for name, estate in {"ee": ("DIAGNOSTIC+TUNING", EE), "none": ("NONE", EE), "se2": ("NONE", SE2)}.items()
    }
    results: dict = {name: [] for name in made}

    def ask(name):
        client, _ = made[name]
        for url in REQUESTS:
            resp = client.get(url)
            results[name].append((url, resp.status_code, (resp.get_json() or {}).get("error", {}).get("code")))

    threads = [threading.Thread(target=ask, args=(name,)) for name in made for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for name, (_, server) in made.items():
        refused = {url for url, status, code in results[name] if code == "not_licensed"}
        expected = set() if name == "ee" else {url for url, needs in REQUESTS.items() if needs}
        assert refused == expected, (name, results[name])
        assert len(results[name]) == 3 * len(REQUESTS)
        if name != "ee":
            assert not any(packs_of(s) for s in server.statements), (name, server.statements)


def test_runs_cpu_snapshots_without_the_pack_takes_no_snapshot(monkeypatch, oracle_app):
    """`flask runs cpu --snapshots` on a database without the Diagnostics Pack: DBMS_WORKLOAD_REPOSITORY is never
    called; the run stops before its test with the pack and the parameter named."""
    client, server = oracle_app(
        answers={
            **licence_answer("NONE", EE),
            "all_objects": [("1",)],
            "sys_context": [("1645932817",)],
            "max(dba_hist_snapshot.snap_id)": [("20250",)],
        }
    )
    result = client.application.test_cli_runner().invoke(
        args=["runs", "cpu", "--snapshots", "-m", "1", "-r", "1", "--level", "2"]
    )
    assert result.exit_code == 1, result.output
    assert "Diagnostics Pack" in result.output and "CONTROL_MANAGEMENT_PACK_ACCESS = NONE" in result.output
    assert not any("create_snapshot" in s or "connect by level" in s for s in server.statements), server.statements


@pytest.mark.parametrize("value", ["diagnostics", "TUNING", 1, ""])
def test_a_declared_licence_oracle_does_not_name_is_refused_at_start(value):
    with pytest.raises(ValueError, match=r"target 'ora': \"management_packs\" must be one of NONE, DIAGNOSTIC, "):
        OracleStore("ora", {"dsn": "h:1/s", "user": "u", "password": "p", "management_packs": value}, Settings())


# DBA_HIST_ in the edit loop (make test-fast); the CDB's prefixes, the same statements renamed, in make test
@pytest.mark.parametrize(
    "prefix", [p if p == "dba_hist_" else pytest.param(p, marks=pytest.mark.slow) for p in PREFIXES]
)
def test_every_statement_is_counted_in_the_packs_its_views_and_packages_belong_to(prefix):
    """What the store decides a statement needs (app/store/licence.py) is what the Licensing Information says of the
    views and packages in its text, for every statement the app sends; the licence check itself needs none."""
    from sqlalchemy.dialects import oracle

    sent = [*all_statements(views(prefix)), *report_statements()]
    for name, stmt in sent:
        text = render(stmt, oracle.dialect())
        assert {p.lower() for p in licence.packs_needed(text)} == packs_of(text), (name, text)
    assert not licence.packs_needed(licence.oracle_text())
    free = {name for name, stmt in sent if not packs_of(render(stmt, oracle.dialect()))}
    dictionary = {name for name in free if name.startswith("names: ") and "dictionary" in name}
    assert len(dictionary) == 2  # DBA_USERS, DBA_OBJECTS
    assert {"databases", "snapshots", "segment detail"} <= free if prefix == "dba_hist_" else free == dictionary


STATSPACK_INSTANCE = (ORCL, 1, "2026-11-01 04:00:12", "ORCL", "ORCL", "db1", "19.0.0.0.0", "NO", "Linux x86 64-bit")
STATSPACK_SNAPSHOTS = [
    (
        "1",
        str(100 + k),
        "2026-11-01 04:00:12",
        f"2026-11-20 {9 + k:02}:00:00",
        f"2026-11-20 {10 + k:02}:00:00",
        "0",
        "0",
    )
    for k in range(4)
]


@pytest.mark.parametrize(
    "pack_access, banner, statspack",
    [("NONE", SE2, True), ("NONE", EE, True), ("DIAGNOSTIC", EE, False), ("DIAGNOSTIC+TUNING", SE2, True)],
)
def test_statspack_is_read_where_awr_may_not_be_and_nothing_of_a_pack_is_sent(
    oracle_app, pack_access, banner, statspack
):
    """Statspack (PERFSTAT.STATS$*, in no pack) is where a database without the Diagnostics Pack keeps its history
    (docs/awr-rules.md §31): the listing finds it there, its questions read it, and no statement of a pack is sent;
    where AWR may be read, Statspack is not asked."""
    client, server = oracle_app(
        answers={
            **licence_answer(pack_access, banner),
            "from perfstat.stats$database_instance) database_instance": [STATSPACK_INSTANCE],
            "snapshot.snap_flag": STATSPACK_SNAPSHOTS,  # the snapshot list's statement alone reads SNAP_FLAG
        }
    )
    client.application.extensions["awrlens"].stores["ora"]._cache.clear()
    dbs = client.get("/api/v1/dbs").get_json()["databases"]
    if not statspack:
        assert not any("perfstat" in s for s in server.statements), server.statements
        return
    (db,) = dbs
    assert db["source"] == "statspack" and db["licence"]["control_management_pack_access"] == pack_access, db
    before = len(server.statements)
    for path in ("/catalog", "/load-profile", "/top-sql", "/top-events"):
        client.get(f"{Q}{path}")
    asked = server.statements[before:]
    history = [s for s in asked if "bench_run" not in s]  # the app's own runs, beside the changes
    assert history and all("perfstat.stats$" in s for s in history), history
    for path in ("/activity", "/activity/top?ash=live", "/awr-report"):
        sent = len(server.statements)
        err = assert_error(client.get(f"{Q}{path}"), 404)
        assert err["code"] == "not_in_source" and len(server.statements) == sent, (path, err)
    assert not any(packs_of(s) for s in server.statements), server.statements
