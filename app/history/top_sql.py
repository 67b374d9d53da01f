"""Top SQL over a range by elapsed time, CPU, gets, reads, executions or rows, with text and plan hash values, one
row per container and SQL_ID (docs/awr-rules.md §15)."""

from math import fsum

from app.history.database import Database, Range
from app.history.intervals import totals
from app.history.numbers import round4
from app.history.sql_text import TOP_SQL_TEXT_CHARS, texts
from app.store.awr import queries

SORT_KEYS = {
    "elapsed": "elapsed_s",
    "cpu": "cpu_s",
    "gets": "buffer_gets",
    "reads": "disk_reads",
    "executions": "executions",
    "rows": "rows_processed",
}  # order_by -> the row's column


def statements(db: Database, rng: Range, order="elapsed", raw=None) -> list[dict]:
    """The statements of the first 200 (statement, plan) pairs by `order`, one row per container and SQL_ID with its
    sums (seconds unrounded) and plan hash values, sorted by `order` (steps 1 to 3 of docs/awr-rules.md §15).
    `raw`: the statement's rows when they were read already (by_orders)."""
    if rng.lo is None or rng.lo >= rng.hi:
        return []
    if raw is None:
        raw = db.rows(queries.top_sql(db.store.views, order, db.store.sqlstat_blocks), lo=rng.lo, hi=rng.hi)
    by_sql: dict = {}  # per container and SQL_ID: in a CDB root one SQL_ID can run in several PDBs
    for con_dbid, sql_id, plan, execs, ela, cpu, gets, reads, nrows, module, schema in raw:
        r = by_sql.setdefault(
            (con_dbid, sql_id),
            {
                "sql_id": sql_id,
                "con_dbid": con_dbid,
                "plan_hash_values": [],
                "executions": 0,
                "elapsed_s": 0.0,
                "cpu_s": 0.0,
                "buffer_gets": 0,
                "disk_reads": 0,
                "rows_processed": 0,
                "module": module,
                "parsing_schema": schema,
            },
        )
        r["plan_hash_values"].append(plan)
        r["executions"] += execs or 0
        r["elapsed_s"] += (ela or 0) / 1e6
        r["cpu_s"] += (cpu or 0) / 1e6
        r["buffer_gets"] += gets or 0
        r["disk_reads"] += reads or 0
        r["rows_processed"] += nrows or 0
    key = SORT_KEYS[order]
    return sorted(by_sql.values(), key=lambda r: (-r[key], r["sql_id"], r["con_dbid"] or 0))


def compute(db: Database, rng: Range, order="elapsed", limit=25, raw=None) -> dict:
    rows = statements(db, rng, order, raw)[:limit]
    if rows:
        text = texts(db, [r["sql_id"] for r in rows])
        names = db.containers()
        db_time, _ = totals(db, "sys_time_model", ("DB time",), rng, None)
        total_db = fsum(db_time.values()) / 1e6
        for r in rows:
            r["elapsed_per_exec_ms"] = round4(r["elapsed_s"] * 1000 / r["executions"]) if r["executions"] else None
            r["pct_db_time"] = round4(100 * r["elapsed_s"] / total_db) if total_db else None
            r["elapsed_s"], r["cpu_s"] = round4(r["elapsed_s"]), round4(r["cpu_s"])
            r["sql_text"] = (text.get(r["sql_id"]) or "")[:TOP_SQL_TEXT_CHARS]
            r["container"] = names.get(r["con_dbid"])
    return {
        "db": db.key,
        "range": rng.public(),
        "order_by": order,
        "columns": [
            "sql_id",
            "elapsed_s",
            "cpu_s",
            "executions",
            "elapsed_per_exec_ms",
            "buffer_gets",
            "disk_reads",
            "rows_processed",
            "pct_db_time",
            "plan_hash_values",
            "module",
            "parsing_schema",
            "con_dbid",
            "container",
            "sql_text",
        ],
        "rows": rows,
    }


def by_orders(db: Database, rng: Range, orders: tuple, limit=25) -> dict[str, dict]:
    """compute() for several orders from one statement that sums once and ranks by each (queries.top_sql_ranked):
    each order's rows are those top_sql gives for it, in its order (a statement's plans are listed in that order)."""
    if rng.lo is None or rng.lo >= rng.hi:
        return {order: compute(db, rng, order, limit) for order in orders}
    raw = db.rows(queries.top_sql_ranked(db.store.views, orders, db.store.sqlstat_blocks), lo=rng.lo, hi=rng.hi)
    width = len(raw[0]) - len(orders) if raw else 0
    return {
        order: compute(
            db,
            rng,
            order,
            limit,
            [r[:width] for r in sorted(raw, key=lambda r: r[width + k]) if r[width + k] <= queries.TOP_SQL_ROWS],
        )
        for k, order in enumerate(orders)
    }
