"""The plan trees of the demo's statements, read from each statement's text as Oracle's optimizer would plan it on
indexed OLTP tables: a lookup by key is an index unique scan, a filter on a column an index range scan, a join of two
rows nested loops. The plan regression's bad plan (docs/awr-rules.md §26) reads ORDER_LINES with a full scan into a
hash join instead of the index range scan and nested loops of the good one. PL/SQL blocks have no plan, as in
Oracle. app/demo/plans.py turns a tree into DBA_HIST_SQL_PLAN's rows."""

import re

ROW_LIMIT = '"from$_subquery$_004"."rowlimit_$$_rownumber"<=50'


class Node:
    """A plan line and its children; `rows` the optimizer's cardinality estimate, `cost` its own cost."""

    def __init__(self, op, options=None, obj=None, rows=1, cost=1, access=None, filter_=None, children=(), width=40):
        self.op, self.options, self.obj, self.rows, self.cost = op, options, obj, rows, cost
        self.access, self.filter, self.children, self.width = access, filter_, list(children), width


def _pk(t):
    return f"{t.upper()}_PK"


def _ix(t, col):
    return f"{t.upper()}_{col.upper()}_IX"[:30]


def plan_tree(sql, plan_hash) -> Node | None:
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
