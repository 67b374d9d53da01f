"""A statement's execution plans (DBA_HIST_SQL_PLAN), where its Active Session History samples sat on them, two plans
line by line, and its captured bind values (DBA_HIST_SQLBIND) (docs/awr-rules.md §26). The database groups the
samples by plan line: only counts leave it."""

import difflib
from datetime import timedelta, timezone

from app import analysis
from app.errors import NotFound
from app.history import activity as ash
from app.history import xplan
from app.history.database import Database, Range, offset
from app.history.numbers import round4
from app.history.sql_text import texts
from app.store.awr import queries
from app.store.awr.embedded.ash import ash_top_blocks
from app.store.awr.queries import PLAN_COLUMNS

LINE_KEYS = PLAN_COLUMNS[1:-3]  # id ... filter_predicates: a line as the answer gives it (OTHER_XML gives notes)
ALIGN_ON = ("operation", "options", "object_name")  # what makes two lines of two plans the same line


def _time(value, tz):
    """A DATE (database local time, as AWR stores it) as ISO text with the offset `tz`, as every time of an answer."""
    return None if value is None else analysis.iso(analysis.as_datetime(value).replace(tzinfo=tz))


def _plans(db: Database, sql_id: str) -> list[dict]:
    """The statement's plans in the order of their hash values, each with its lines in plan order; in a CDB root one
    plan per container that captured it."""
    plans: dict = {}
    tz = db.tz()
    for row in db.rows(queries.sql_plans(db.store.views), sql_id=sql_id):
        values = dict(zip(PLAN_COLUMNS, row, strict=True))
        plan = plans.setdefault(
            (values["plan_hash_value"], values["con_dbid"]),
            {
                "plan_hash_value": values["plan_hash_value"],
                "con_dbid": values["con_dbid"],
                "timestamp": _time(values["timestamp"], tz),
                "notes": [],
                "lines": [],
            },
        )
        plan["lines"].append({k: values[k] for k in LINE_KEYS})
        plan["notes"] += xplan.notes(values["other_xml"])
    return list(plans.values())


def _known(db: Database, sql_id: str, plans: list):
    """NotFound where the history holds neither the statement's text nor a plan of it."""
    if not plans and sql_id not in texts(db, [sql_id]):
        raise NotFound(f"sql_id {sql_id!r} is not in the history of {db.key}", "sql_id")


def _pick(plans: list, plan_hash_value: int, parameter: str) -> dict:
    """The plan of that hash value, or NotFound naming the ones the history holds."""
    found = next((p for p in plans if p["plan_hash_value"] == plan_hash_value), None)
    if found is None:
        held = ", ".join(str(p["plan_hash_value"]) for p in plans) or "none"
        raise NotFound(
            f"plan hash value {plan_hash_value} is not a plan of this statement in DBA_HIST_SQL_PLAN; "
            f"its plans: {held}",
            parameter,
        )
    return found


def compute(db: Database, sql_id: str, rng: Range, plan_hash_value: int | None = None) -> dict:
    """Every plan of the statement (or the one asked for), each line with the statement's ASH samples of the range
    on it: samples, % of the statement's samples (every plan's), and the share on CPU and waiting; `unplaced`, the
    samples on no line of a plan shown (no plan line id, or a plan AWR did not keep)."""
    plans = _plans(db, sql_id)
    _known(db, sql_id, plans)
    if plan_hash_value is not None:
        plans = [_pick(plans, plan_hash_value, "plan_hash_value")]
    activity = {}
    for phv, line, operation, options, samples, on_cpu in _line_samples(db, sql_id, rng):
        was = activity.get((phv, line), (0, 0))  # a line in two runs of a window (SNAP_TIMEZONE changes inside)
        activity[phv, line] = (samples + was[0], on_cpu + was[1], operation, options)
    total = sum(a[0] for a in activity.values())
    placed = set()
    for plan in plans:
        plan["samples"] = 0
        for line in plan["lines"]:
            key = (plan["plan_hash_value"], line["id"])
            samples, on_cpu, *_ = activity.get(key, (0, 0))
            placed.add(key)
            plan["samples"] += samples
            line.update(_shares(samples, on_cpu, total))
    elsewhere = [
        {"plan_hash_value": phv, "id": line, "operation": op, "options": opt, **_shares(samples, on_cpu, total)}
        for (phv, line), (samples, on_cpu, op, opt) in sorted(
            activity.items(), key=lambda kv: (kv[0][0] is None, kv[0][0] or 0, kv[0][1] is None, kv[0][1] or 0)
        )
        if (phv, line) not in placed and (plan_hash_value is None or phv == plan_hash_value)
    ]
    body = {
        "db": db.key,
        "sql_id": sql_id,
        "range": rng.public(),
        "total_samples": total,
        "plans": plans,
        "unplaced": elsewhere,
        "columns": ["plan_hash_value", *LINE_KEYS, "samples", "pct_samples", "pct_cpu", "pct_wait"],
    }
    if db.store.source != "awr":
        body["samples_reason"] = "Statspack keeps no Active Session History: no samples per plan line"
    if not plans:
        kept = "DBA_HIST_SQL_PLAN" if db.store.source == "awr" else "STATS$SQL_PLAN (snapshots of level 6 and higher)"
        body["reason"] = f"{kept} holds no plan of this statement (a PL/SQL block has none)"
    return body


def xplan_text(db: Database, sql_id: str, plan_hash_value: int) -> dict:
    """The plan as DBMS_XPLAN.DISPLAY_AWR prints it (docs/awr-rules.md §34); in a CDB root one after the other per
    container that captured it."""
    plans = _plans(db, sql_id)
    _known(db, sql_id, plans)
    _pick(plans, plan_hash_value, "plan_hash_value")
    sql_text = texts(db, [sql_id]).get(sql_id)
    return {
        "db": db.key,
        "sql_id": sql_id,
        "plan_hash_value": plan_hash_value,
        "format": "TYPICAL",
        "text": "\n".join(xplan.text(sql_id, sql_text, p) for p in plans if p["plan_hash_value"] == plan_hash_value),
    }


def _line_samples(db: Database, sql_id: str, rng: Range) -> list:
    """The statement's samples per plan line of the range (docs/awr-rules.md §22): a snapshot range's from the store's
    counts per block where it keeps them; a time range off the snapshots' grid by sample time, a statement per run of
    one offset."""
    if db.store.source != "awr":  # Statspack samples no sessions: no line has samples
        return []
    sampled = ash.sampled_range(db, rng)
    if sampled is None:
        return []
    read, _, _, by_time, _ = sampled  # plans read no live range (never asked one)
    if not by_time:
        blocks = ash_top_blocks(read.lo, read.hi) if db.store.ash_top else {}
        return db.rows(
            queries.plan_line_activity(db.store.views, bool(blocks)),
            sql_id=sql_id,
            lo=read.lo,
            hi=read.hi,
            **{f"blocks_{span}": snaps for span, snaps in blocks.items()},
        )
    rows = []
    for _, inst, where in ash.sampled_runs(db, sampled, {}):
        stmt = queries.plan_line_activity(db.store.views, False, True, () if inst is None else ("instance",))
        rows += db.rows(stmt, sql_id=sql_id, **where)
    return rows


def _shares(samples: int, on_cpu: int, total: int) -> dict:
    return {
        "samples": samples,
        "pct_samples": round4(100 * samples / total) if total else None,
        "pct_cpu": round4(100 * on_cpu / samples) if samples else None,
        "pct_wait": round4(100 * (samples - on_cpu) / samples) if samples else None,
    }


def table(body: dict) -> list[dict]:
    """The CSV rows: one per plan line, with its plan hash value."""
    return [{"plan_hash_value": p["plan_hash_value"], **line} for p in body["plans"] for line in p["lines"]]


def diff(db: Database, sql_id: str, a: int, b: int) -> dict:
    """Plans `a` and `b` line by line: the lines aligned on (operation, options, object) with difflib's longest
    matching blocks, each row `same` (the same line at the same depth), `moved` (at another depth: the tree around it
    changed), or where the plans differ `changed` (a line of each in the same place), `only_a` or `only_b`."""
    plans = _plans(db, sql_id)
    _known(db, sql_id, plans)
    pa, pb = _pick(plans, a, "a"), _pick(plans, b, "b")
    la, lb = pa["lines"], pb["lines"]
    keys = [[tuple(line[k] for k in ALIGN_ON) for line in lines] for lines in (la, lb)]
    rows = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, *keys, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [
                {"change": "same" if la[i]["depth"] == lb[j]["depth"] else "moved", "a": la[i], "b": lb[j]}
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        pairs = min(i2 - i1, j2 - j1)
        rows += [{"change": "changed", "a": la[i1 + k], "b": lb[j1 + k]} for k in range(pairs)]
        rows += [{"change": "only_a", "a": la[i], "b": None} for i in range(i1 + pairs, i2)]
        rows += [{"change": "only_b", "a": None, "b": lb[j]} for j in range(j1 + pairs, j2)]
    return {
        "db": db.key,
        "sql_id": sql_id,
        "a": a,
        "b": b,
        "rows": rows,
        "differing": sum(r["change"] in ("changed", "only_a", "only_b") for r in rows),
        "columns": ["change", *[f"{side}_{k}" for side in "ab" for k in DIFF_KEYS]],
    }


DIFF_KEYS = (
    "id",
    "depth",
    "operation",
    "options",
    "object_name",
    "cost",
    "cardinality",
    "access_predicates",
    "filter_predicates",
)


def diff_table(body: dict) -> list[dict]:
    return [
        {"change": r["change"], **{f"{side}_{k}": (r[side] or {}).get(k) for side in "ab" for k in DIFF_KEYS}}
        for r in body["rows"]
    ]


def binds(db: Database, sql_id: str, rng: Range) -> dict:
    """The bind values AWR captured for the statement in the range's intervals, as text (VALUE_STRING), with the
    snapshot's time."""
    rows = []
    if rng.lo is not None and rng.lo < rng.hi:
        tl = db.timeline()
        for snap, inst, position, name, datatype, captured, last, value, con in db.rows(
            queries.sql_binds(db.store.views), sql_id=sql_id, lo=rng.lo, hi=rng.hi
        ):
            at = tl.by_id.get((inst, snap))
            rows.append(
                {
                    "snap_id": snap,
                    "instance_number": inst,
                    "time": at.time if at else None,
                    "position": position,
                    "name": name,
                    "datatype": datatype,
                    "value": value,
                    "was_captured": captured,
                    "last_captured": _time(last, timezone(timedelta(seconds=offset(at))) if at else db.tz()),
                    "con_dbid": con,
                }
            )
    if not rows and sql_id not in texts(db, [sql_id]):
        raise NotFound(f"sql_id {sql_id!r} is not in the history of {db.key}", "sql_id")
    return {
        "db": db.key,
        "sql_id": sql_id,
        "range": rng.public(),
        "rows": rows,
        "columns": [
            "snap_id",
            "instance_number",
            "time",
            "position",
            "name",
            "datatype",
            "value",
            "was_captured",
            "last_captured",
            "con_dbid",
        ],
    }
