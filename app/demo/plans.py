"""Execution plans (DBA_HIST_SQL_PLAN) of the demo's statements: the rows of each statement's plan tree
(app/demo/plan_trees.py) as the store keeps them, and the plan lines Active Session History (app/demo/ash.py) puts
each sample on (`kind_lines`)."""

import math

from app.demo.plan_trees import Node, plan_tree
from app.demo.workload import fmt

OWNER = "APP"
BAD_PLAN_GETS = 150_000  # buffer gets per execution of the regression's full scan plan (900 with its index)


# the optimizer's split of each line's own cost (docs/awr-rules.md §34): the share that is CPU by operation, the rest
# I/O; its time estimate from the cost in single-block reads of SREADTIM ms, at least a second
CPU_SHARE = {"HASH JOIN": 0.2, "HASH": 0.3, "SORT": 0.35, "WINDOW": 0.35, "NESTED LOOPS": 0.05, "TABLE ACCESS": 0.04}
CPU_CYCLES_PER_COST = 7_100_000  # CPU_COST's cycles per unit of cost (CPUSPEED 2,840 MHz x SREADTIM 2.5 ms)
SREADTIM_MS = 2.5


def _flatten(root: Node, timestamp: str, other_xml: str) -> list[tuple]:
    """The plan's rows (id, operation, options, owner, name, parent_id, depth, position, cost, cardinality, bytes,
    access and filter predicates, timestamp, cpu_cost, io_cost, time, other_xml): ids in pre-order, a line's cost
    (and its I/O part) its own plus its children's. The statement's line keeps only its cost, as V$SQL_PLAN's does;
    OTHER_XML is on line 1."""
    out = []

    def walk(node, parent, depth, position):
        at = len(out)
        out.append(None)
        total, io = node.cost, round(node.cost * (1 - CPU_SHARE.get(node.op, 0.0)))
        for k, child in enumerate(node.children, 1):
            child_cost, child_io = walk(child, at, depth + 1, k)
            total, io = total + child_cost, io + child_io
        top = at == 0
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
            None if top else (total - io) * CPU_CYCLES_PER_COST,
            None if top else io,
            None if top else max(1, math.ceil(total * SREADTIM_MS / 1000)),
            other_xml if at == 1 else None,
        )
        return total, io

    walk(root, None, 0, 0)
    return out


def _other_xml(sql, plan_hash: int) -> str:
    """Line 1's OTHER_XML: the release and full plan hash, and for the regression's bad plan the dynamic sampling its
    estimates came from (a note DBMS_XPLAN prints: docs/awr-rules.md §34)."""
    infos = [
        '<info type="db_version">19.0.0.0</info>',
        f'<info type="plan_hash_full">{plan_hash * 7 % 4294967291}</info>',
    ]
    if plan_hash == getattr(sql, "bad_plan", None):
        infos.append('<info type="dynamic_sampling" note="y">2</info>')
    return f"<other_xml>{''.join(infos)}</other_xml>"


_LINES: dict = {}  # (sql_id, plan hash value) -> lines (a statement is a dataclass: not hashable)
_KINDS: dict = {}


def lines(sql, plan_hash: int) -> tuple:
    """The DBA_HIST_SQL_PLAN rows of one plan (without DBID, SQL_ID and PLAN_HASH_VALUE, the timestamp empty); none
    for PL/SQL."""
    key = (sql.sql_id, plan_hash)
    if key not in _LINES:
        root = plan_tree(sql, plan_hash)
        _LINES[key] = tuple(_flatten(root, "", _other_xml(sql, plan_hash))) if root else ()
    return _LINES[key]


def plan_rows(db, sql, plan_hash: int, first_seen) -> list[tuple]:
    """The rows the store keeps for one plan of a statement: (dbid, sql_id, plan_hash_value, id, ...)."""
    return [(db.dbid, sql.sql_id, plan_hash, *line[:13], fmt(first_seen), *line[14:]) for line in lines(sql, plan_hash)]


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
