"""The Oracle scripts of infra/oracle: current with the code, and granting exactly the views the app reads."""
import re
import sys
from pathlib import Path

import pytest
from sqlalchemy.dialects import oracle

from app.store.queries import all_statements
from app.store.schema import views

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "infra" / "oracle"
sys.path.insert(0, str(ORACLE))
import generate  # noqa: E402


def views_in_the_sql(prefix: str) -> set[str]:
    """Every view named after FROM or JOIN in the statements as compiled for Oracle (what `make sql` prints)."""
    names = set()
    for _, stmt in all_statements(views(prefix)):
        text = str(stmt.compile(dialect=oracle.dialect()))
        names |= {n.upper() for n in re.findall(r"\b(?:FROM|JOIN)\s+(\w+)", text, re.I)
                  if n.lower().startswith(prefix)}
    return names


def test_scripts_are_current():
    for name, text in generate.scripts().items():
        assert (ORACLE / name).read_text() == text, f"infra/oracle/{name} is stale: run infra/oracle/generate.py"


@pytest.mark.parametrize("script, prefix", [("create_user.sql", "dba_hist_"), ("create_user_pdb.sql", "awr_pdb_")])
def test_plain_oracle_grants_exactly_the_views_read(script, prefix):
    text = (ORACLE / script).read_text()
    grants = [line for line in text.splitlines() if line.upper().startswith("GRANT")]
    assert grants[0] == "GRANT CREATE SESSION TO AWRLENS;"
    granted = set()
    for line in grants[1:]:
        m = re.fullmatch(r"GRANT SELECT ON SYS\.(\w+) TO AWRLENS;", line)
        assert m, f"only SELECT on SYS views: {line}"
        granted.add(m.group(1))
    assert granted == views_in_the_sql(prefix)
    assert all(name.startswith(prefix.upper()) for name in granted)
    statements = "\n".join(line for line in text.splitlines() if not line.startswith("--")).upper()
    assert " ANY " not in statements and "ROLE" not in statements


def test_rds_grants_the_same_through_rdsadmin():
    text = (ORACLE / "create_user_rds.sql").read_text()
    calls = re.findall(r"rdsadmin\.rdsadmin_util\.grant_sys_object\('(\w+)', 'AWRLENS', 'SELECT'\);", text)
    assert set(calls) == views_in_the_sql("dba_hist_") and len(calls) == len(set(calls))
    assert [line for line in text.splitlines() if line.startswith("GRANT")] == ["GRANT CREATE SESSION TO AWRLENS;"]
    assert "SYS." not in text  # RDS has no SYS access
