"""Captured bind values (DBA_HIST_SQLBIND) of the demo's statements: each bind's name and type read from the
statement's text, its values drawn per snapshot from their own random stream."""

import random
import re
import zlib
from datetime import timedelta

from app.demo.workload import fmt

BIND = re.compile(r"(\w+)\s*(=|>=|>|<|-)\s*:(\w+)")
NUMERIC = re.compile(r"(^id$|_id$|amount|quantity|price|region_no|\d$)")


def bind_names(sql) -> tuple:
    """(position, name, datatype) of each bind of the statement, in order of first use: the type from the column
    it is compared with or assigned to (a number for ids and amounts, a date for created_at, else VARCHAR2)."""
    seen, out = set(), []
    text = sql.text
    for m in re.finditer(r":(\w+)", text):
        name = m[1]
        if name in seen:
            continue
        seen.add(name)
        ctx = BIND.search(text[max(0, m.start() - 40) : m.end()])
        col = ctx[1].lower() if ctx and ctx[3] == name else ""
        if col in ("created_at", "updated_at"):
            kind = "DATE"
        elif NUMERIC.search(col) or col == "sysdate" or not col:
            kind = "NUMBER"
        else:
            kind = "VARCHAR2(32)"
        out.append((len(out) + 1, f":{name.upper()}", kind))
    return tuple(out)


STATUSES = ("NEW", "PAID", "SHIPPED", "CANCELLED", "RETURNED")


def bind_rows(db, inst, snap_id, end, sql, hostile=None) -> list[tuple]:
    """DBA_HIST_SQLBIND rows of one statement at one snapshot: the values captured last in the interval (Oracle
    captures at most every 15 minutes per cursor), as VALUE_STRING shows them (a DATE as MM/DD/YYYY HH24:MI:SS).
    Their own random stream: the other rows are the same with or without them."""
    rng = random.Random(zlib.crc32(f"{db.dbid}:{inst}:{snap_id}:{sql.sql_id}".encode()))
    captured = end - timedelta(seconds=rng.randrange(60, 900))
    rows = []
    for position, name, kind in bind_names(sql):
        if kind == "NUMBER":
            days = name == ":2" and "SYSDATE" in sql.text  # SYSDATE - :2: a number of days
            value = str(rng.choice((7, 30, 90)) if days else rng.randrange(1, 2_000_000))
        elif kind == "DATE":
            value = (captured - timedelta(days=rng.choice((1, 7, 30)))).strftime("%m/%d/%Y 00:00:00")
        else:
            value = hostile if hostile is not None else rng.choice(STATUSES)
        rows.append((snap_id, db.dbid, inst, sql.sql_id, name, position, kind, "YES", fmt(captured), value))
    return rows
