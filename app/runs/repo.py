"""Runs in and out of the test-result tables of a store, with SQLAlchemy Core and bind variables only.

A run is saved in one transaction (Store.write): the run row and every measurement, or nothing. A slug that is
taken is refused (409) unless `replace` was asked for, in which case the old run and its measurements are deleted
in the same transaction. A run is read with its measurements in one read-only transaction (Store.rows_together).
On SQLite the tables are created on the first write when the store lacks them; a store
that lacks them reads as having no runs. On Oracle they come from infra/oracle/bench_tables.sql.
"""

import json
from datetime import UTC, datetime

from sqlalchemy import column, delete, func, insert, literal_column, select, table

from app import iso8601
from app.errors import Conflict, DatabaseUnavailable, NotFound
from app.runs.model import Run, dump
from app.store.runs_schema import bench_measurement as m
from app.store.runs_schema import bench_run as r
from app.store.runs_schema import metadata

RUN_COLUMNS = [
    "slug",
    "title",
    "kind",
    "visibility",
    "started",
    "finished",
    "host",
    "instance_type",
    "vcpus",
    "cores",
    "db_version",
    "measurements",
    "awr_db",
    "awr_begin_snap",
    "awr_end_snap",
]
ROW_COLUMNS = ["seq", "series", "x", "y", "unit"]
_SUMMARY = (
    r.c.run_id,
    r.c.slug,
    r.c.title,
    r.c.kind,
    r.c.visibility,
    r.c.started_at,
    r.c.finished_at,
    r.c.host,
    r.c.instance_type,
    r.c.vcpus,
    r.c.cores,
    r.c.db_version,
    r.c.awr_target,
    r.c.awr_dbid,
    r.c.awr_begin_snap,
    r.c.awr_end_snap,
)
_DETAIL = (*_SUMMARY, r.c.description, r.c.parameters, r.c.created_at)
_MISSING_ON_ORACLE = "the test-result tables are missing: create them with infra/oracle/bench_tables.sql"


# -- writing ---------------------------------------------------------------------------------------------------


def save(store, run: Run, replace: bool = False, now: datetime | None = None) -> dict:
    """Store `run` (all or nothing); returns its summary and whether an older run was replaced."""
    created = (now or datetime.now(UTC)).astimezone(UTC).replace(tzinfo=None, microsecond=0)

    def work(conn):
        if conn.dialect.name == "sqlite":
            metadata.create_all(conn, checkfirst=True)
        return insert_run(conn, run, created, replace)

    try:
        replaced = _guard(store, lambda: store.write(work))
    except Conflict as exc:
        if exc.parameter:
            raise
        # two uploads of the same slug at once: the unique key stopped the second
        raise Conflict(f"a run with slug {run.slug!r} was stored meanwhile; try again", "slug") from exc
    return {
        "slug": run.slug,
        "title": run.title,
        "kind": run.kind,
        "visibility": run.visibility,
        "measurements": len(run.measurements),
        "replaced": replaced,
        "created": created.isoformat() + "+00:00",
    }


def insert_run(conn, run: Run, created: datetime, replace: bool = False) -> bool:
    """The statements of one save, on a connection inside a transaction; True when an older run was replaced."""
    old = conn.execute(select(r.c.run_id).where(r.c.slug == run.slug)).scalar()
    if old is not None:
        if not replace:
            raise Conflict(
                f"a run with slug {run.slug!r} exists; choose another slug or replace it "
                "explicitly (replace=1, or --replace)",
                "slug",
            )
        conn.execute(delete(m).where(m.c.run_id == old))
        conn.execute(delete(r).where(r.c.run_id == old))
    run_id = conn.execute(insert(r).values(**_run_row(run, created))).inserted_primary_key[0]
    conn.execute(insert(m), [_measurement_row(run_id, seq, x) for seq, x in enumerate(run.measurements, 1)])
    return old is not None


def delete_run(store, slug: str) -> bool:
    def work(conn):
        old = conn.execute(select(r.c.run_id).where(r.c.slug == slug)).scalar()
        if old is None:
            return False
        conn.execute(delete(m).where(m.c.run_id == old))
        conn.execute(delete(r).where(r.c.run_id == old))
        return True

    return bool(has_tables(store)) and _guard(store, lambda: store.write(work))


def _run_row(run: Run, created: datetime) -> dict:
    env, awr = run.environment, run.awr or {}
    return {
        "slug": run.slug,
        "title": run.title,
        "kind": run.kind,
        "description": run.description,
        "host": env.get("host"),
        "instance_type": env.get("instance_type"),
        "vcpus": env.get("vcpus"),
        "cores": env.get("cores"),
        "db_version": env.get("db_version"),
        "started_at": run.started,
        "finished_at": run.finished,
        "parameters": dump(run.parameters) if run.parameters else None,
        "visibility": run.visibility,
        "awr_target": awr.get("target"),
        "awr_dbid": awr.get("dbid"),
        "awr_begin_snap": awr.get("begin_snap"),
        "awr_end_snap": awr.get("end_snap"),
        "created_at": created,
    }


def _measurement_row(run_id, seq, x) -> dict:
    numeric = not isinstance(x.x, str)
    return {
        "run_id": run_id,
        "seq": seq,
        "series": x.series,
        "x": x.x if numeric else None,
        "x_text": None if numeric else x.x,
        "y": x.y,
        "unit": x.unit,
        "extra": dump(x.extra) if x.extra else None,
    }


# -- reading ---------------------------------------------------------------------------------------------------


def list_runs(store, private: bool, kind: str | None = None) -> list[dict]:
    """Summaries of the runs, newest first; private ones only when `private` (a valid key came)."""
    if not has_tables(store):
        return []
    counts = select(m.c.run_id, func.count().label("n")).group_by(m.c.run_id).subquery()
    stmt = select(*_SUMMARY, counts.c.n).outerjoin(counts, counts.c.run_id == r.c.run_id)
    if not private:
        stmt = stmt.where(r.c.visibility == "public")
    if kind:
        stmt = stmt.where(r.c.kind == kind)
    stmt = stmt.order_by(r.c.started_at.desc().nulls_last(), r.c.created_at.desc(), r.c.slug)
    return [_summary(row[:-1], row[-1] or 0) for row in _guard(store, lambda: store.rows(stmt))]


def get_run(store, slug: str, private: bool, parameter: str = "slug") -> dict:
    """One run with its measurements, both read in one read-only transaction: a run replaced meanwhile is seen
    before or after, never its old row with the new measurements. 404 for an unknown slug, and the same 404 for a
    private run without a valid key: an answer must not tell which private slugs exist."""
    visible = r.c.slug == slug if private else (r.c.slug == slug) & (r.c.visibility == "public")
    points_stmt = (
        select(m.c.seq, m.c.series, m.c.x, m.c.x_text, m.c.y, m.c.unit, m.c.extra)
        .where(m.c.run_id == select(r.c.run_id).where(visible).scalar_subquery())
        .order_by(m.c.seq)
    )
    found, points = (
        _guard(store, lambda: store.rows_together(select(*_DETAIL).where(visible), points_stmt))
        if has_tables(store)
        else ([], [])
    )
    if not found:
        raise NotFound(f"no benchmark run {slug!r}; see /api/v1/benchmarks", parameter)
    row = found[0]
    run = _summary(row[: len(_SUMMARY)], len(points))
    description, parameters, created = row[len(_SUMMARY) :]
    run.update(description=description, parameters=json.loads(parameters) if parameters else {}, created=_iso(created))
    rows, extra_keys = [], []
    for seq, series, x, x_text, y, unit, extra in points:
        attrs = json.loads(extra) if extra else {}
        extra_keys.extend(k for k in attrs if k not in extra_keys)
        rows.append(
            {"seq": seq, "series": series, "x": x_text if x is None else x, "y": y, "unit": unit, "extra": attrs}
        )
    return {"run": run, "columns": ROW_COLUMNS, "extra_columns": extra_keys, "rows": rows}


def has_tables(store) -> bool:
    """Whether the store has the test-result tables (always assumed on Oracle: the DDL is a deploy step)."""
    if store.dialect != "sqlite":
        return True
    master = table("sqlite_master", column("name"), column("type"))
    stmt = (
        select(func.count())
        .select_from(master)
        .where(master.c.type == literal_column("'table'"), master.c.name.in_([r.name, m.name]))
    )
    if getattr(store, "_runs_tables", False):  # once there, they stay: only the answer "yes" is kept
        return True
    store._runs_tables = store.rows(stmt)[0][0] == 2
    return store._runs_tables


# -- helpers ---------------------------------------------------------------------------------------------------


def _summary(row, count) -> dict:
    (
        _,
        slug,
        title,
        kind,
        visibility,
        started,
        finished,
        host,
        instance_type,
        vcpus,
        cores,
        db_version,
        target,
        dbid,
        begin_snap,
        end_snap,
    ) = row
    return {
        "slug": slug,
        "title": title,
        "kind": kind,
        "visibility": visibility,
        "started": _iso(started),
        "finished": _iso(finished),
        "host": host,
        "instance_type": instance_type,
        "vcpus": vcpus,
        "cores": cores,
        "db_version": db_version,
        "measurements": count,
        "awr_db": f"{target}.{dbid}" if target else None,
        "awr_begin_snap": begin_snap,
        "awr_end_snap": end_snap,
    }


def _iso(value) -> str | None:
    """A stored naive-UTC time (datetime from Oracle, text from SQLite) as ISO 8601 with its offset."""
    if value is None:
        return None
    if isinstance(value, str):
        value = iso8601.parse(value)
    return value.replace(microsecond=0).isoformat() + "+00:00"


def _guard(store, call):
    """`call()`, with a missing table on Oracle explained."""
    try:
        return call()
    except DatabaseUnavailable as exc:
        if "ORA-00942" in exc.message:
            raise DatabaseUnavailable(f"{store.alias}: {_MISSING_ON_ORACLE} ({exc.message})") from exc
        raise
