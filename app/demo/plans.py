"""Execution plans (DBA_HIST_SQL_PLAN) and captured bind values (DBA_HIST_SQLBIND) of the demo's statements, read
from each statement's text as Oracle's optimizer would plan it on indexed OLTP tables: a lookup by key is an index
unique scan, a filter on a column an index range scan, a join of two rows nested loops. The plan regression's bad
plan (docs/awr-rules.md §26) reads ORDER_LINES with a full scan into a hash join instead of the index range scan
and nested loops of the good one. PL/SQL blocks have no plan, as in Oracle. Active Session History (app/demo/ash.py)
puts each sample on a line of its statement's plan (`line_for`)."""

import random
import re
import zlib
from datetime import timedelta

from app.demo.workload import fmt

OWNER = "APP"
BAD_PLAN_GETS = 150_000  # buffer gets per execution of the regression's full scan plan (900 with its index)
ROW_LIMIT = '"from$_subquery$_004"."rowlimit_$$_rownumber"<=50'


class Node:
    """A plan line and its children; `rows` the optimizer's cardinality estimate, `cost` its own cost."""

    def __init__(self, op, options=None, obj=None, rows=1, cost=1, access=None, filter_=None, children=(), width=40):
        self.op, self.options, self.obj, self.rows, self.cost = op, options, obj, rows, cost
        self.access, self.filter, self.children, self.width = access, filter_, list(children), width


def _flatten(root: Node, timestamp: str) -> list[tuple]:
    """The plan's rows (id, operation, options, owner, name, parent_id, depth, position, cost, cardinality, bytes,
    access and filter predicates, timestamp): ids in pre-order, a line's cost its own plus its children's."""
    out = []

    def walk(node, parent, depth, position):
        at = len(out)
        out.append(None)
        total = node.cost
        for k, child in enumerate(node.children, 1):
            total += walk(child, at, depth + 1, k)
        out[at] = (
            at,
            node.op,
            node.options,
            OWNER if node.obj else None,
            node.obj,
            parent,
            depth,
            position,
            total,
            node.rows,
            node.rows * node.width,
            node.access,
            node.filter,
            timestamp,
        )
        return total

    walk(root, None, 0, 0)
    return out


def _pk(t):
    return f"{t.upper()}_PK"


def _ix(t, col):
    return f"{t.upper()}_{col.upper()}_IX"[:30]


def _tree(sql, plan_hash) -> Node | None:
    """The plan of a statement from its text; None for a PL/SQL block."""
    text = sql.text
    if getattr(sql, "bad_plan", None) is not None:
        return _regression(plan_hash == sql.bad_plan)
    if m := re.match(r"SELECT \* FROM (\w+) WHERE (\w+) = :1", text):
        t = m[1]
        return Node(
            "SELECT STATEMENT",
            children=[
                Node(
                    "TABLE ACCESS",
                    "BY INDEX ROWID",
                    t.upper(),
                    1,
                    1,
                    children=[Node("INDEX", "UNIQUE SCAN", _pk(t), 1, 1, access=f'"{m[2].upper()}"=:1')],
                    width=180,
                )
            ],
        )
    if m := re.match(r"SELECT a\.\*, b\.(\w+) FROM (\w+) a JOIN (\w+) b ON b\.id = a\.(\w+) WHERE a\.(\w+) = :1", text):
        col, t, u, fk, where = m[1], m[2], m[3], m[4], m[5]
        inner = Node(
            "NESTED LOOPS",
            rows=120,
            cost=0,
            children=[
                Node(
                    "NESTED LOOPS",
                    rows=120,
                    cost=0,
                    children=[
                        Node(
                            "TABLE ACCESS",
                            "BY INDEX ROWID BATCHED",
                            t.upper(),
                            120,
                            24,
                            children=[
                                Node("INDEX", "RANGE SCAN", _ix(t, where), 120, 3, access=f'"A"."{where.upper()}"=:1')
                            ],
                        ),
                        Node("INDEX", "UNIQUE SCAN", _pk(u), 1, 0, access=f'"B"."ID"="A"."{fk.upper()}"'),
                    ],
                ),
                Node("TABLE ACCESS", "BY INDEX ROWID", u.upper(), 1, 1, width=20),
            ],
            width=200,
        )
        return Node(
            "SELECT STATEMENT",
            children=[
                Node(
                    "VIEW",
                    rows=50,
                    filter_=ROW_LIMIT,
                    children=[
                        Node(
                            "WINDOW",
                            "SORT PUSHED RANK",
                            rows=120,
                            cost=1,
                            children=[inner],
                            filter_='ROW_NUMBER() OVER ( ORDER BY INTERNAL_FUNCTION("A"."CREATED_AT") DESC )<=50',
                        )
                    ],
                )
            ],
        )
    if m := re.match(r"SELECT (\w+), COUNT\(\*\), SUM\(amount\) FROM (\w+) WHERE created_at >= :1", text):
        col, t = m[1], m[2]
        return Node(
            "SELECT STATEMENT",
            children=[
                Node(
                    "HASH",
                    "GROUP BY",
                    rows=40,
                    cost=3,
                    children=[
                        Node(
                            "TABLE ACCESS",
                            "BY INDEX ROWID BATCHED",
                            t.upper(),
                            2400,
                            310,
                            children=[
                                Node("INDEX", "RANGE SCAN", _ix(t, "created_at"), 2400, 9, access='"CREATED_AT">=:1')
                            ],
                        )
                    ],
                )
            ],
        )
    if m := re.match(r"INSERT INTO (\w+) \(", text):
        return Node("INSERT STATEMENT", children=[Node("LOAD TABLE", "CONVENTIONAL", m[1].upper(), 1, 1)])
    if m := re.match(r"UPDATE (\w+) SET .* WHERE (\w+) = :(\w+)", text, re.I):
        t, col, b = m[1], m[2], m[3]
        return Node(
            "UPDATE STATEMENT",
            children=[
                Node(
                    "UPDATE",
                    obj=t.upper(),
                    cost=0,
                    children=[Node("INDEX", "UNIQUE SCAN", _pk(t), 1, 1, access=f'"{col.upper()}"=:{b.upper()}')],
                )
            ],
        )
    if m := re.match(r"DELETE FROM (\w+) WHERE id = :1", text):
        t = m[1]
        return Node(
            "DELETE STATEMENT",
            children=[
                Node(
                    "DELETE",
                    obj=t.upper(),
                    cost=0,
                    children=[Node("INDEX", "UNIQUE SCAN", _pk(t), 1, 1, access='"ID"=:1')],
                )
            ],
        )
    if m := re.match(r"MERGE INTO (\w+) d", text):
        t = m[1]
        return Node(
            "MERGE STATEMENT",
            children=[
                Node(
                    "MERGE",
                    obj=t.upper(),
                    cost=0,
                    children=[
                        Node(
                            "VIEW",
                            cost=0,
                            children=[
                                Node(
                                    "NESTED LOOPS",
                                    "OUTER",
                                    cost=0,
                                    children=[
                                        Node("FAST DUAL", cost=2),
                                        Node(
                                            "TABLE ACCESS",
                                            "BY INDEX ROWID",
                                            t.upper(),
                                            1,
                                            1,
                                            children=[
                                                Node("INDEX", "UNIQUE SCAN", _pk(t), 1, 1, access='"D"."ID"(+)=:1')
                                            ],
                                        ),
                                    ],
                                )
                            ],
                        )
                    ],
                )
            ],
        )
    if re.match(r"select .* from dual$", text, re.I):
        return Node("SELECT STATEMENT", children=[Node("FAST DUAL", cost=2)])
    if m := re.match(r"select .*count\(\*\) from (\w+) where (\w+) = :(\w+)", text, re.I):
        t, col, b = m[1], m[2], m[3]
        return Node(
            "SELECT STATEMENT",
            children=[
                Node(
                    "SORT",
                    "AGGREGATE",
                    rows=1,
                    cost=0,
                    children=[
                        Node("INDEX", "RANGE SCAN", _ix(t, col), 5200, 15, access=f'"{col.upper()}"=:{b.upper()}')
                    ],
                )
            ],
        )
    if text.startswith("INSERT /*+ APPEND */"):
        return Node(
            "INSERT STATEMENT",
            children=[
                Node(
                    "LOAD AS SELECT",
                    obj="SALES_HISTORY",
                    cost=0,
                    children=[
                        Node(
                            "OPTIMIZER STATISTICS GATHERING",
                            rows=4_100_000,
                            cost=0,
                            children=[
                                Node(
                                    "TABLE ACCESS",
                                    "FULL",
                                    "ORDERS",
                                    4_100_000,
                                    58_000,
                                    filter_='"CREATED_AT"<TRUNC(SYSDATE@!)',
                                    width=120,
                                )
                            ],
                        )
                    ],
                )
            ],
        )
    if text.startswith("SELECT /*+ FULL(o) PARALLEL(4) */"):
        scan = Node(
            "PX BLOCK",
            "ITERATOR",
            rows=4_200_000,
            cost=0,
            access=":Z>=:Z AND :Z<=:Z",
            children=[Node("TABLE ACCESS", "FULL", "ORDERS", 4_200_000, 16_100, filter_=None, width=12)],
        )
        return Node(
            "SELECT STATEMENT",
            children=[
                Node(
                    "PX COORDINATOR",
                    cost=0,
                    children=[
                        Node(
                            "PX SEND",
                            "QC (RANDOM)",
                            ":TQ10001",
                            12,
                            0,
                            children=[
                                Node(
                                    "HASH",
                                    "GROUP BY",
                                    rows=12,
                                    cost=40,
                                    children=[
                                        Node(
                                            "PX RECEIVE",
                                            rows=12,
                                            cost=0,
                                            children=[
                                                Node(
                                                    "PX SEND",
                                                    "HASH",
                                                    ":TQ10000",
                                                    12,
                                                    0,
                                                    children=[
                                                        Node("HASH", "GROUP BY", rows=12, cost=40, children=[scan])
                                                    ],
                                                )
                                            ],
                                        )
                                    ],
                                )
                            ],
                        )
                    ],
                )
            ],
        )
    if text.startswith("DELETE FROM audit_log"):
        return Node(
            "DELETE STATEMENT",
            children=[
                Node(
                    "DELETE",
                    obj="AUDIT_LOG",
                    cost=0,
                    children=[
                        Node("TABLE ACCESS", "FULL", "AUDIT_LOG", 900_000, 21_000, filter_='"CREATED_AT"<SYSDATE@!-90')
                    ],
                )
            ],
        )
    return None  # BEGIN ... END: PL/SQL has no plan


def _regression(bad: bool) -> Node:
    """The regression's two plans: the orders of one customer, then their lines by the ORDER_LINES_ORDER_IX index
    in nested loops (good); or every line of ORDER_LINES by a full scan, hash joined (bad: the optimizer misjudged
    the customer's orders as many)."""
    orders = Node(
        "TABLE ACCESS",
        "BY INDEX ROWID BATCHED",
        "ORDERS",
        2400 if bad else 12,
        260 if bad else 4,
        filter_='"O"."CREATED_AT">SYSDATE@!-TO_NUMBER(:2)',
        children=[
            Node(
                "INDEX",
                "RANGE SCAN",
                "ORDERS_CUSTOMER_IX",
                2400 if bad else 12,
                9 if bad else 3,
                access='"O"."CUSTOMER_ID"=TO_NUMBER(:1)',
            )
        ],
    )
    if bad:
        join = Node(
            "HASH JOIN",
            rows=9600,
            cost=40,
            access='"L"."ORDER_ID"="O"."ORDER_ID"',
            children=[orders, Node("TABLE ACCESS", "FULL", "ORDER_LINES", 48_000_000, 131_000, width=22)],
        )
    else:
        join = Node(
            "NESTED LOOPS",
            rows=48,
            cost=0,
            children=[
                Node(
                    "NESTED LOOPS",
                    rows=48,
                    cost=0,
                    children=[
                        orders,
                        Node(
                            "INDEX", "RANGE SCAN", "ORDER_LINES_ORDER_IX", 4, 2, access='"L"."ORDER_ID"="O"."ORDER_ID"'
                        ),
                    ],
                ),
                Node("TABLE ACCESS", "BY INDEX ROWID", "ORDER_LINES", 4, 3, width=22),
            ],
        )
    return Node("SELECT STATEMENT", children=[Node("HASH", "GROUP BY", rows=12, cost=2, children=[join])])


_LINES: dict = {}  # (sql_id, plan hash value) -> lines (a statement is a dataclass: not hashable)
_KINDS: dict = {}


def lines(sql, plan_hash: int) -> tuple:
    """The DBA_HIST_SQL_PLAN rows of one plan (without DBID, SQL_ID and PLAN_HASH_VALUE, the timestamp empty); none
    for PL/SQL."""
    key = (sql.sql_id, plan_hash)
    if key not in _LINES:
        root = _tree(sql, plan_hash)
        _LINES[key] = tuple(_flatten(root, "")) if root else ()
    return _LINES[key]


def plan_rows(db, sql, plan_hash: int, first_seen) -> list[tuple]:
    """The rows the store keeps for one plan of a statement: (dbid, sql_id, plan_hash_value, id, ...)."""
    return [(db.dbid, sql.sql_id, plan_hash, *line[:-1], fmt(first_seen)) for line in lines(sql, plan_hash)]


# ASH: the plan line a sample of each kind of activity sits on (app/demo/ash.py's kinds)
KIND_LINES = {
    "cpu": ("HASH JOIN", "NESTED LOOPS", "HASH", "SORT", "WINDOW", "INDEX", "TABLE ACCESS"),
    "sread": ("INDEX", "TABLE ACCESS"),
    "mread": ("TABLE ACCESS",),
}


def kind_lines(sql, plan_hash: int) -> dict:
    """Per kind of activity, the (line id, operation, options) a sample may sit on, two choices each: on CPU the
    joins, sorts and scans; single-block reads the index and rowid lines; multiblock reads the full scans; the rest
    the statement's top line. The bad plan's CPU is on its full scan (most) and its hash join."""
    key = (sql.sql_id, plan_hash)
    if key not in _KINDS:
        _KINDS[key] = _kind_lines(sql, plan_hash)
    return _KINDS[key]


def _kind_lines(sql, plan_hash: int) -> dict:
    found = lines(sql, plan_hash)
    if not found:
        return {}
    top = (0, found[0][1], found[0][2])
    out = {}
    for kind, ops in KIND_LINES.items():
        picked = [
            (ln[0], ln[1], ln[2])
            for ln in found
            if ln[1] in ops and (kind != "mread" or ln[2] == "FULL") and (kind != "sread" or ln[2] != "FULL")
        ]
        picked.sort(key=lambda p: (ops.index(p[1]), p[0]))
        out[kind] = tuple(picked[:2]) or (top,)
    if plan_hash == getattr(sql, "bad_plan", None):
        scan = next(ln for ln in found if ln[2] == "FULL")
        join = next(ln for ln in found if ln[1] == "HASH JOIN")
        out["cpu"] = ((scan[0], scan[1], scan[2]), (scan[0], scan[1], scan[2]), (join[0], join[1], join[2]))
    out["other"] = (top,)
    return out


# -- binds ----------------------------------------------------------------------------------------------------------

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
