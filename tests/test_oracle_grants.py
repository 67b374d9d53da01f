"""The Oracle scripts of infra/oracle: current with the code, and granting exactly the views the app reads."""

import re
import sys
from pathlib import Path

import pytest
from sqlalchemy.dialects import oracle

from app.store import licence
from app.store.awr.queries import all_statements
from app.store.awr.views import LIVE, views

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "infra" / "oracle"
sys.path.insert(0, str(ORACLE))
import generate  # noqa: E402


def views_in_the_sql(prefix: str) -> set[str]:
    """Every view named after FROM or JOIN in the statements as compiled for Oracle (what `make sql` prints)."""
    names = set()
    for _, stmt in all_statements(views(prefix)):
        text = str(stmt.compile(dialect=oracle.dialect()))
        names |= {n.upper() for n in re.findall(r"\b(?:FROM|JOIN)\s+(\w+)", text, re.I) if n.lower().startswith(prefix)}
    return names


def dictionary_views() -> set[str]:
    """The dictionary views the statements read for names (DBA_USERS, DBA_OBJECTS), named after FROM or JOIN."""
    names = set()
    for _, stmt in all_statements(views("dba_hist_")):
        text = str(stmt.compile(dialect=oracle.dialect()))
        names |= {n.upper() for n in re.findall(r"\b(?:FROM|JOIN)\s+(\w+)", text, re.I)}
    return {n for n in names if n.startswith("DBA_") and not n.startswith("DBA_HIST_")}


def licence_views() -> set[str]:
    """The views the licence check reads (app/store/licence.py), as granted: V$X is PUBLIC's synonym of SYS.V_$X."""
    text = licence.oracle_text()
    found = re.findall(r"\b(?:FROM|JOIN)\s+([\w$]+)", text, re.I)
    return {n.upper().replace("V$", "V_$") for n in found if n.upper() != "DUAL"}


def live_views() -> set[str]:
    """The live buffer's views (app/store/awr/views.py LIVE: GV$ACTIVE_SESSION_HISTORY, GV$ASH_INFO), as granted:
    GV$X is PUBLIC's synonym of SYS.GV_$X."""
    return {name.upper().replace("GV$", "GV_$") for name in LIVE.values()}


@pytest.mark.slow  # the four scripts written again from every statement: over half a second
def test_scripts_are_current():
    for name, text in generate.scripts().items():
        assert (ORACLE / name).read_text() == text, f"infra/oracle/{name} is stale: run infra/oracle/generate.py"


SCRIPTS = [
    ("create_user.sql", "dba_hist_", "AWRLENS"),
    ("create_user_pdb.sql", "awr_pdb_", "AWRLENS"),
    ("create_user_cdb.sql", "awr_root_", "C##AWRLENS"),
]


def statements(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.startswith("--")]


# the non-CDB's script in the edit loop (make test-fast); the CDB's two, the same views renamed, in make test
@pytest.mark.parametrize(
    "script, prefix, user", [s if s[1] == "dba_hist_" else pytest.param(*s, marks=pytest.mark.slow) for s in SCRIPTS]
)
def test_plain_oracle_grants_exactly_the_views_read(script, prefix, user):
    text = (ORACLE / script).read_text()
    grants = [line for line in text.splitlines() if line.upper().startswith("GRANT")]
    assert grants[0] == f"GRANT CREATE SESSION TO {user};"
    granted = set()
    for line in grants[1:]:
        m = re.fullmatch(rf"GRANT SELECT ON SYS\.([\w$]+) TO {re.escape(user)};", line)
        assert m, f"only SELECT on SYS views: {line}"
        granted.add(m.group(1))
    # SQL monitor's view is read as DBA_HIST_REPORTS under every prefix (Oracle has no AWR_PDB_/AWR_ROOT_ twin: its
    # grant would stop the script with ORA-00942), and is optional, as SQL monitor needs the Tuning Pack
    assert (
        granted == views_in_the_sql(prefix) - {"DBA_HIST_REPORTS"} | licence_views() | dictionary_views() | live_views()
    )
    assert licence_views() == {"V_$PARAMETER", "V_$VERSION"} and dictionary_views() == {"DBA_USERS", "DBA_OBJECTS"}
    assert live_views() == {"GV_$ACTIVE_SESSION_HISTORY", "GV_$ASH_INFO"}
    others = granted - licence_views() - dictionary_views() - live_views()
    assert all(name.startswith(prefix.upper()) for name in others)
    assert not re.search(r"AWR_(PDB|ROOT)_REPORTS", text)
    body = "\n".join(statements(text)).upper()
    assert " ANY " not in body and "ROLE" not in body and "EXECUTE" not in body
    # the feature grants are there, commented out: the user stays read-only unless a DBA chooses them
    lines = text.splitlines()
    assert f"-- GRANT EXECUTE ON SYS.DBMS_WORKLOAD_REPOSITORY TO {user};" in lines
    monitor = [f"-- GRANT SELECT ON SYS.{v} TO {user};" for v in ("DBA_HIST_REPORTS", "DBA_HIST_REPORTS_DETAILS")]
    monitor.append(f"-- GRANT EXECUTE ON SYS.DBMS_AUTO_REPORT TO {user};")
    assert all(line in lines for line in monitor)
    assert "Tuning Pack" in text and "Diagnostics Pack" in text


def test_the_cdb_root_script_makes_a_common_user_that_sees_the_pdbs_rows():
    """A common user (C##), created in every container, logging in to the root only, reading the AWR_ROOT_ views,
    with CONTAINER_DATA = ALL so that the PDBs' rows of these views are not hidden from it."""
    lines = statements((ORACLE / "create_user_cdb.sql").read_text())
    assert lines[0] == "ALTER SESSION SET CONTAINER = CDB$ROOT;"
    assert lines[1] == 'CREATE USER C##AWRLENS IDENTIFIED BY "&&awrlens_password" CONTAINER = ALL;'
    assert "ALTER USER C##AWRLENS SET CONTAINER_DATA = ALL CONTAINER = CURRENT;" in lines
    assert not [line for line in lines if "CONTAINER = ALL" in line and line.startswith("GRANT")]  # root only


def test_rds_grants_the_same_through_rdsadmin():
    text = (ORACLE / "create_user_rds.sql").read_text()
    calls = re.findall(r"^  rdsadmin\.rdsadmin_util\.grant_sys_object\('([\w$]+)', 'AWRLENS', 'SELECT'\);", text, re.M)
    assert set(calls) == (
        views_in_the_sql("dba_hist_") - {"DBA_HIST_REPORTS"} | licence_views() | dictionary_views() | live_views()
    )
    assert len(calls) == len(set(calls))
    assert "-- EXEC rdsadmin.rdsadmin_util.grant_sys_object('DBA_HIST_REPORTS', 'AWRLENS', 'SELECT');" in text
    assert [line for line in text.splitlines() if line.startswith("GRANT")] == ["GRANT CREATE SESSION TO AWRLENS;"]
    assert "SYS." not in text  # RDS has no SYS access
    assert "EXECUTE" not in "\n".join(statements(text))
    assert (
        "-- EXEC rdsadmin.rdsadmin_util.grant_sys_object('DBMS_WORKLOAD_REPOSITORY', 'AWRLENS', 'EXECUTE');"
        in text.splitlines()
    )


def test_the_benchmark_tables_script_says_who_runs_it_with_the_privileges_its_ddl_needs():
    """bench_tables.sql is run by the app's user (the tables must be in its schema: the app names them without an
    owner) after a DBA grants what each kind of statement in it needs: CREATE TABLE for the tables, CREATE SEQUENCE
    for the identity column (Oracle makes a sequence for it), a quota for the rows; the DDL privileges are taken
    back after. The user is the one create_user.sql creates, whose own grants give none of this."""
    text = (ORACLE / "bench_tables.sql").read_text()
    ddl = "\n".join(statements(text)).upper()
    steps = [line.strip("- ").split("--")[0].strip() for line in text.splitlines() if line.startswith("--     ")]
    user = re.search(r"CREATE USER (\w+)", (ORACLE / "create_user.sql").read_text()).group(1)
    needed = {"CREATE TABLE"} | ({"CREATE SEQUENCE"} if "AS IDENTITY" in ddl else set())
    assert "CREATE TABLE" in ddl

    def privileges(step, verb, word):
        m = re.fullmatch(rf"{verb} (.+) {word} {user};", step)
        return m and set(m.group(1).split(", "))

    assert privileges(steps[0], "GRANT", "TO") == needed
    assert any(re.fullmatch(rf"ALTER USER {user} QUOTA \d+M ON \w+;", step) for step in steps)
    assert any(
        step.startswith(f"sqlplus {user}@") and step.endswith("@infra/oracle/bench_tables.sql") for step in steps
    )
    assert privileges(steps[-1], "REVOKE", "FROM") == needed
    granted = " ".join(
        line for line in (ORACLE / "create_user.sql").read_text().splitlines() if line.startswith("GRANT")
    )
    assert not any(priv in granted for priv in needed)  # so the script's own step is what makes it work
