"""The AWR window of a run on Oracle: the snapshots around it, so the run's page can link to that period's history.

Before the test the newest snapshot id is read; after it, again. The run covers the interval that begins at the
first and ends at the snapshot after the second: the next automatic snapshot, taken up to one AWR interval after
the run (the history API answers for it once it exists). With `take_snapshots`, a snapshot is taken just before
and just after the test (DBMS_WORKLOAD_REPOSITORY.CREATE_SNAPSHOT: needs EXECUTE on the package), and the window is
exactly the test; whether the user may is checked before anything runs (may_take_snapshots). On SQLite there is no
window: the embedded store's AWR history is not the database that ran it.
"""

from sqlalchemy import bindparam, column, func, select, table, text

from app.errors import Forbidden

SNAPSHOT_NOW = text("begin dbms_workload_repository.create_snapshot; end;")
PACKAGE = {"owner": "SYS", "name": "DBMS_WORKLOAD_REPOSITORY", "kind": "PACKAGE"}


def package_statement():
    """How many packages of that owner and name the session may execute: ALL_OBJECTS lists a package to a user who
    holds EXECUTE on it, directly, through an enabled role or PUBLIC, or by EXECUTE ANY PROCEDURE, as an anonymous
    PL/SQL block needs it."""
    o = table("all_objects", column("owner"), column("object_name"), column("object_type"))
    return (
        select(func.count())
        .select_from(o)
        .where(
            o.c.owner == bindparam("owner"), o.c.object_name == bindparam("name"), o.c.object_type == bindparam("kind")
        )
    )


def may_take_snapshots(rows, user: str):
    """The decision on the answer of package_statement(): nothing if the user may run DBMS_WORKLOAD_REPOSITORY,
    otherwise Forbidden saying which grant is missing and how to give it."""
    if rows and int(rows[0][0] or 0) > 0:
        return
    raise Forbidden(
        f"--snapshots needs EXECUTE on SYS.DBMS_WORKLOAD_REPOSITORY, which user {user} does not have. "
        f"As a DBA: GRANT EXECUTE ON SYS.DBMS_WORKLOAD_REPOSITORY TO {user}; (on Amazon RDS: EXEC "
        f"rdsadmin.rdsadmin_util.grant_sys_object('DBMS_WORKLOAD_REPOSITORY', '{user}', 'EXECUTE');), "
        "as the commented lines of infra/oracle/create_user*.sql show; or run without --snapshots "
        "(the window then ends at the next automatic snapshot)",
        "snapshots",
    )


def database_id_statement(view_prefix: str):
    """The DBID AWR files this session's database under (the PDB's own with AWR_PDB_ views)."""
    return select(func.sys_context("USERENV", "CON_DBID" if view_prefix == "awr_pdb_" else "DBID"))


def newest_snapshot_statement(views):
    return select(func.max(views.snapshot.c.snap_id)).where(views.snapshot.c.dbid == bindparam("dbid"))


class Window:
    """Marks the AWR snapshots around a test on an Oracle store; does nothing on SQLite."""

    def __init__(self, store, take_snapshots: bool = False):
        self.store, self.take = store, take_snapshots
        self.enabled = store.dialect == "oracle"
        self.dbid = self.begin = self.end = None

    def __enter__(self):
        if self.enabled and self.take:  # before anything runs: a missing grant is said at once, not after the test
            may_take_snapshots(
                self.store.rows(package_statement(), PACKAGE), getattr(self.store, "user", "the app's user").upper()
            )
        if self.enabled:
            self.dbid = int(self.store.rows(database_id_statement(self.store.views.prefix))[0][0])
            self.begin = self._mark()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.enabled and exc_type is None:
            newest = self._mark()
            self.end = newest if self.take else (newest or 0) + 1
        return False

    def _mark(self) -> int | None:
        if self.take:
            self.store.write(lambda conn: conn.execute(SNAPSHOT_NOW))
        return self.store.rows(newest_snapshot_statement(self.store.views), {"dbid": self.dbid})[0][0]

    def document(self) -> dict | None:
        """The run document's "awr" field, or None."""
        if not self.enabled or self.begin is None or self.end is None:
            return None
        return {"target": self.store.alias, "dbid": self.dbid, "begin_snap": self.begin, "end_snap": self.end}

    def note(self) -> str | None:
        if not self.enabled:
            return None
        if self.take:
            return "AWR snapshots taken just before and just after the test"
        return "end_snap is the first automatic snapshot after the test (it exists one AWR interval later at most)"
