"""Which of Oracle's management packs a database may be queried with, and which packs a statement needs
(docs/oracle.md, "Grants and licences").

Oracle Database Licensing Information: the Diagnostics Pack covers AWR (every DBA_HIST_ view and what lies under it,
but DBA_HIST_SNAPSHOT, DBA_HIST_DATABASE_INSTANCE, DBA_HIST_SNAP_ERROR, DBA_HIST_SEG_STAT, DBA_HIST_SEG_STAT_OBJ and
DBA_HIST_UNDOSTAT), ASH (V$ACTIVE_SESSION_HISTORY) and DBMS_WORKLOAD_REPOSITORY (the AWR report, snapshots); the
Tuning Pack, which needs the Diagnostics Pack, covers SQL monitor (V$SQL_MONITOR, V$SQL_PLAN_MONITOR, DBMS_SQLTUNE,
DBMS_SQL_MONITOR, and the reports AWR keeps of it: DBA_HIST_REPORTS, DBMS_AUTO_REPORT). Both are sold with Enterprise
Edition only. CONTROL_MANAGEMENT_PACK_ACCESS says which packs the DBA enabled (Database Reference: NONE, DIAGNOSTIC or
DIAGNOSTIC+TUNING; NONE by default on every edition but Enterprise Edition and Database Free).

The Oracle store reads the parameter and the edition before the first statement that needs a pack and again once
AWRLENS_LICENCE_TTL has passed, and refuses every such statement the licence does not cover before it is sent
(OracleStore._licensed). A target may declare its licence ("management_packs"): stricter only, it can forbid what the
parameter allows, never allow what the parameter or the edition forbids. A parameter it cannot read is no licence.
"""

import re
import time
from dataclasses import dataclass, field
from functools import lru_cache

DIAGNOSTIC, TUNING = "DIAGNOSTIC", "TUNING"
PACK_NAMES = {DIAGNOSTIC: "Diagnostics Pack", TUNING: "Tuning Pack"}
PACK_ACCESS = {  # CONTROL_MANAGEMENT_PACK_ACCESS -> the packs it enables
    "NONE": frozenset(),
    "DIAGNOSTIC": frozenset({DIAGNOSTIC}),
    "DIAGNOSTIC+TUNING": frozenset({DIAGNOSTIC, TUNING}),
}
PARAMETER = "control_management_pack_access"
WITHOUT_PACKS = "Standard Edition"  # SE, SE One, SE2: in the banner of every edition the packs are not sold with

# the DBA_HIST_ views the Licensing Information leaves out of the Diagnostics Pack
FREE_VIEWS = frozenset({"snapshot", "database_instance", "snap_error", "seg_stat", "seg_stat_obj", "undostat"})
_AWR_VIEW = re.compile(r"\b(dba_hist|awr_pdb|awr_root|awr_cdb)_(\w+)", re.I)
_DIAGNOSTIC = re.compile(
    r"\bg?v\$active_session_history\b|\bg?v\$ash_info\b|\bdbms_workload_repository\b|\bdbms_addm\b", re.I
)
_TUNING = re.compile(
    r"\bg?v\$sql_(plan_)?monitor\b|\bdbms_sqltune\b|\bdbms_sql_monitor\b|\bdbms_auto_report\b|\bdba_hist_reports",
    re.I,
)


@lru_cache(maxsize=2048)
def packs_needed(sql: str) -> frozenset:
    """The packs a statement's text needs, from the views and packages it names."""
    needed = set()
    for m in _AWR_VIEW.finditer(sql):
        view = re.sub(r"_\d+$", "", m.group(2).lower())  # SQLAlchemy's alias of a view: dba_hist_snapshot_1
        if not (m.group(1).lower() == "dba_hist" and view in FREE_VIEWS):
            needed.add(DIAGNOSTIC)
    if _DIAGNOSTIC.search(sql):
        needed.add(DIAGNOSTIC)
    if _TUNING.search(sql):
        needed |= {DIAGNOSTIC, TUNING}
    return frozenset(needed)


def check_declared(value) -> str:
    """A target's "management_packs", checked (ValueError naming the choices)."""
    if not isinstance(value, str) or value.upper() not in PACK_ACCESS:
        raise ValueError(f'"management_packs" must be one of {", ".join(PACK_ACCESS)}, not {value!r}')
    return value.upper()


def statement():
    """The parameter and the database's banner (V$VERSION's first line, "Oracle Database 19c Standard Edition 2
    Release ..."), in one round trip; binds: parameter, banner."""
    from sqlalchemy import bindparam, column, func, select, table

    p = table("v$parameter", column("name"), column("value"))
    v = table("v$version", column("banner"))
    return select(
        select(p.c.value).where(p.c.name == bindparam("parameter")).scalar_subquery().label("pack_access"),
        select(func.min(v.c.banner)).where(v.c.banner.like(bindparam("banner"))).scalar_subquery().label("banner"),
    )


BINDS = {"parameter": PARAMETER, "banner": "Oracle%"}


@lru_cache(maxsize=1)
def oracle_text() -> str:
    from sqlalchemy.dialects import oracle

    return str(statement().compile(dialect=oracle.dialect()))


@dataclass(frozen=True)
class Licence:
    """What a database's settings allow: its CONTROL_MANAGEMENT_PACK_ACCESS, its banner, the target's declaration."""

    pack_access: str | None  # as read; None where the parameter was not found
    banner: str
    declared: str | None = None
    read_at: float = field(default_factory=time.monotonic)

    @property
    def packs(self) -> frozenset:
        if WITHOUT_PACKS in self.banner:
            return frozenset()
        allowed = PACK_ACCESS.get((self.pack_access or "").upper(), frozenset())  # an unknown value: none
        return allowed & PACK_ACCESS[self.declared] if self.declared else allowed

    @property
    def edition(self) -> str:
        """The edition as the banner names it ("Standard Edition 2"), or the banner itself."""
        m = re.search(r"(Enterprise|Standard|Personal|Express) Edition( One| 2)?|\bFree\b", self.banner)
        return m.group(0) if m else self.banner

    def summary(self) -> dict:
        """What /dbs shows of it."""
        return {
            "control_management_pack_access": self.pack_access,
            "edition": self.edition,
            "management_packs": self.declared,
            "packs": [PACK_NAMES[p] for p in sorted(self.packs)],
        }

    def refusal(self, needed: frozenset) -> str | None:
        """Why statements needing `needed` may not be sent, or None."""
        missing = sorted(needed - self.packs)
        if not missing:
            return None
        names = " and ".join(PACK_NAMES[p] for p in missing)
        value = f"CONTROL_MANAGEMENT_PACK_ACCESS = {self.pack_access or 'unset'}"
        if WITHOUT_PACKS in self.banner:
            why = f"{self.edition} has no management packs (Enterprise Edition only; {value})"
        elif not (needed <= PACK_ACCESS.get((self.pack_access or "").upper(), frozenset())):
            why = f"{value} does not enable it"
        else:
            why = f'the target\'s "management_packs" is {self.declared} ({value})'
        return f"this needs the {names}: {why}; awrlens sends no statement of the pack to this database"
