"""Two periods compared, what changed first (docs/awr-rules.md §29): the movers of DB time (time model, wait events,
top SQL) ranked by their share of A's DB time, the Load Profile's movers by relative change, the plans that appeared
or disappeared; then the Load Profile and the top events of A and B side by side, with the % change from A to B."""

from math import fsum

from app.history import catalog, load_profile, parameters, top_events, top_sql
from app.history.database import Database, Range
from app.history.intervals import totals
from app.history.numbers import change_pct, places4, round4

EVENTS_COMPARED = 15  # top events of each period, in the detailed table
SQL_COMPARED = 10  # top statements by elapsed time of each period: movers and plans
TIME_MOVERS = 15  # the time movers kept, largest share of DB time change first
EVERY = 10**9  # "no limit" for the lists whose every row is looked up in the other period

# Which way is better by nature (docs/awr-rules.md §29): "lower", "higher", or absent, neutral (coloured by neither).
# Time (time model, wait events, SQL elapsed) is better lower in every row. The Load Profile's volumes per second
# (transactions, executions, redo, calls...) are workload, neutral; its work per transaction below is better lower:
# more DB time, CPU, reads or parses for each transaction is a cost. Those rows are compared per transaction.
BETTER_PER_TRANSACTION = {
    "DB Time(s)": "lower",
    "DB CPU(s)": "lower",
    "Logical read (blocks)": "lower",
    "Physical read (blocks)": "lower",
    "Read IO requests": "lower",
    "Read IO (MB)": "lower",
    "Parses (SQL)": "lower",
    "Hard parses (SQL)": "lower",
}
BETTER_TIME = "lower"
BETTER_WAITS_PER_TRANSACTION = "lower"

MOVER_COLUMNS = [
    "group",
    "kind",
    "item",
    "container",
    "wait_class",
    "measure",
    "unit",
    "a",
    "b",
    "change_pct",
    "db_time_change_pct",
    "better",
    "only_in",
    "series",
]
DIFFERENCE_COLUMNS = ["kind", "item", "container", "a", "b", "change"]


def compute(db: Database, a: Range, b: Range, instance="all") -> dict:
    inst = db.instance(instance)
    pa, pb = _period(db, a, instance, inst), _period(db, b, instance, inst)
    db_a, db_b = (
        pa["time_model"].get("DB time", 0) / pa["elapsed"] if pa["elapsed"] else None,
        pb["time_model"].get("DB time", 0) / pb["elapsed"] if pb["elapsed"] else None,
    )
    movers = _time_movers(db, pa, pb, db_a) + _workload_movers(pa, pb)
    return {
        "db": db.key,
        "a": a.public(),
        "b": b.public(),
        "instance": instance,
        "elapsed_seconds": {"a": round(pa["elapsed"]), "b": round(pb["elapsed"])},
        "db_time": {
            "unit": "s/s",
            "a": round4(db_a),
            "b": round4(db_b),
            "change_pct": change_pct(db_a, db_b),
            "better": BETTER_TIME,
        },
        "movers": {"columns": MOVER_COLUMNS, "rows": movers},
        "differences": {"columns": DIFFERENCE_COLUMNS, "rows": _plans(db, pa, pb) + _parameters(db, a, b, inst)},
        "load_profile": {
            "columns": [
                "metric",
                "a_per_second",
                "b_per_second",
                "change_pct",
                "better_per_second",
                "a_per_transaction",
                "b_per_transaction",
                "change_pct_per_transaction",
                "better_per_transaction",
            ],
            "rows": _load_profile(pa, pb),
        },
        "top_events": {
            "columns": [
                "event",
                "wait_class",
                "only_in",
                "a_time_s",
                "b_time_s",
                "a_per_second",
                "b_per_second",
                "change_pct",
                "better",
                "a_waits_per_transaction",
                "b_waits_per_transaction",
                "waits_per_transaction_change_pct",
                "better_waits_per_transaction",
                "a_avg_ms",
                "b_avg_ms",
                "a_pct_db_time",
                "b_pct_db_time",
            ],
            "rows": _events(pa, pb),
        },
    }


def _period(db, rng, instance, inst) -> dict:
    """One period's totals: the time model (s), every event, the Load Profile, and its top statements (for every
    instance only, or the one a database has: top SQL has no instance, docs/awr-rules.md §15)."""
    names = catalog.time_model_names(db, rng)
    sums, _ = totals(db, "sys_time_model", names, rng, inst)
    lp = load_profile.measure(db, rng, inst)
    events, db_time = top_events.measure(db, rng, inst) if lp["covers"]["reason"] is None else ({}, 0.0)
    return {  # every total unrounded: a change is computed from the exact values, rounded once for the answer
        "elapsed": lp["elapsed"],  # the Load Profile's (docs/awr-rules.md §13)
        "txns": lp["txns"],
        "lp": lp["totals"],
        "time_model": {n: fsum(v for (_, m), v in sums.items() if m == n) / 1e6 for n in names},
        "events": {r["event"]: r for r in top_events.rows(events, db_time, EVERY)},
        "event_seconds": {name: micro / 1e6 for name, (_, _, micro) in events.items()},
        "sql": top_sql.statements(db, rng) if inst is None or len(db.instances) == 1 else [],
    }


def _per_second(total, period):
    return total / period["elapsed"] if period["elapsed"] else None


def _only_in(a, b):
    """Which period alone holds the item: "a" (gone in B), "b" (new in B), or None."""
    return "a" if a and not b else "b" if b and not a else None


def _time_movers(db, pa, pb, db_a) -> list[dict]:
    """Time-like items, per second, each with its change as a share of A's DB time per second:
    100 x (B's seconds per second - A's) / A's DB time per second (docs/awr-rules.md §29)."""
    out = []

    def add(kind, item, ta, tb, **extra):
        a, b = _per_second(ta, pa), _per_second(tb, pb)
        if a is None or b is None or not (a or b):
            return
        out.append(
            {
                "group": "time",
                "kind": kind,
                "item": item,
                "container": None,
                "wait_class": None,
                "measure": "per second",
                "unit": "s/s",
                "a": round4(a),
                "b": round4(b),
                "change_pct": change_pct(a, b),
                "db_time_change_pct": round4(100 * (b - a) / db_a) if db_a else None,
                "better": BETTER_TIME,
                "only_in": _only_in(ta, tb),
                "series": None,
                **extra,
            }
        )

    for name in sorted((set(pa["time_model"]) | set(pb["time_model"])) - {"DB time"}):
        add(
            "time model",
            name,
            pa["time_model"].get(name, 0),
            pb["time_model"].get(name, 0),
            series=f"sys_time_model:{name}",
        )
    for name in _union(pa["events"], pb["events"], _by_time, EVENTS_COMPARED, skip={"DB CPU"}):
        ea, eb = pa["events"].get(name, {}), pb["events"].get(name, {})
        add(
            "wait event",
            name,
            pa["event_seconds"].get(name, 0),
            pb["event_seconds"].get(name, 0),
            wait_class=ea.get("wait_class") or eb.get("wait_class"),
            series=f"system_event:{name}:time",
        )
    sa, sb = ({(r["con_dbid"], r["sql_id"]): r for r in p["sql"]} for p in (pa, pb))
    names = db.containers() if sa or sb else {}
    for key in _union(sa, sb, _by_elapsed, SQL_COMPARED):
        add(
            "sql",
            key[1],
            sa.get(key, {}).get("elapsed_s", 0),
            sb.get(key, {}).get("elapsed_s", 0),
            container=names.get(key[0]),
        )
    out.sort(key=lambda r: (-abs(r["db_time_change_pct"] or 0), r["kind"], r["item"]))
    return out[:TIME_MOVERS]


def _by_time(event: dict) -> tuple:
    """Events by time, the most first; ties by name."""
    return -event["time_s"], event["event"]


def _by_elapsed(statement: dict) -> tuple:
    """Statements by elapsed time, the most first; ties by SQL_ID, then container, as top SQL (§15)."""
    return -statement["elapsed_s"], statement["sql_id"], statement["con_dbid"]


def _union(by_a: dict, by_b: dict, rank, n, skip=()) -> list:
    """The keys of the first n of each period by `rank`, A's first (those of B alone after them)."""
    keys = []
    for rows in (by_a, by_b):
        for k in sorted((k for k in rows if k not in skip), key=lambda k: rank(rows[k]))[:n]:
            if k not in keys:
                keys.append(k)
    return keys


def _unit(label: str, measure: str) -> str:
    base = next((u for tag, u in (("(bytes)", "bytes"), ("(MB)", "MB"), ("(s)", "s")) if tag in label), "1")
    return base + ("/s" if measure == "per second" else "/txn")


def _rates(label, period):
    """A Load Profile row's (per second, per transaction), unrounded: its total over the period's seconds and
    transactions (docs/awr-rules.md §13); None where the period has no such row."""
    total = period["lp"].get(label)
    if total is None:
        return None, None
    return (
        total / period["elapsed"] if period["elapsed"] else None,
        total / period["txns"] if period["txns"] else None,
    )


def _lp_labels(pa, pb) -> list[str]:
    """The Load Profile rows of either period, in the report's order."""
    return [label for label, *_ in load_profile.LOAD_PROFILE if label in pa["lp"] or label in pb["lp"]]


def _workload_movers(pa, pb) -> list[dict]:
    """The Load Profile's rows by their relative change: volumes per second (neutral), work per transaction
    (better lower); the per-second time rows are time movers already. Ranked by |% change|."""
    out = []
    for label in _lp_labels(pa, pb):
        better = BETTER_PER_TRANSACTION.get(label)
        if _view(label) == "sys_time_model" and better is None:
            continue
        key, measure = (1, "per transaction") if better else (0, "per second")
        a, b = _rates(label, pa)[key], _rates(label, pb)[key]
        if not (a or b):  # nothing in either period (In-Memory off): no move
            continue
        out.append(
            {
                "group": "workload",
                "kind": "load profile",
                "item": label,
                "container": None,
                "wait_class": None,
                "measure": measure,
                "unit": _unit(label, measure),
                "a": round4(a),
                "b": round4(b),
                "change_pct": change_pct(a, b),
                "db_time_change_pct": None,
                "better": better,
                "only_in": _only_in(a, b),
                "series": None,
            }
        )
    out.sort(key=lambda r: (r["change_pct"] is None, -abs(r["change_pct"] or 0), r["item"]))
    return out


def _view(label):
    return next(v for lab, v, _, _ in load_profile.LOAD_PROFILE if lab == label)


def _load_profile(pa, pb) -> list[dict]:
    rows = []
    for label in _lp_labels(pa, pb):
        (sa, ta), (sb, tb) = _rates(label, pa), _rates(label, pb)
        rows.append(
            {
                "metric": label,
                "a_per_second": places4(sa),
                "b_per_second": places4(sb),
                "change_pct": change_pct(sa, sb),
                "better_per_second": None,
                "a_per_transaction": places4(ta),
                "b_per_transaction": places4(tb),
                "change_pct_per_transaction": change_pct(ta, tb),
                "better_per_transaction": BETTER_PER_TRANSACTION.get(label),
            }
        )
    return rows


def _events(pa, pb) -> list[dict]:
    """The top events of each period (A's first), each with its values in both: an event absent from a period has
    0 time there, so its change is +100 % (new in B) or -100 % (gone in B)."""
    rows = []
    for name in _union(pa["events"], pb["events"], _by_time, EVENTS_COMPARED):
        ea, eb = pa["events"].get(name, {}), pb["events"].get(name, {})
        ta, tb = (p["event_seconds"].get(name, 0) if p["elapsed"] else None for p in (pa, pb))
        a, b = _per_second(ta or 0, pa), _per_second(tb or 0, pb)
        wa, wb = (
            e.get("waits", 0) / p["txns"] if p["txns"] and e.get("waits", 0) is not None else None
            for e, p in ((ea, pa), (eb, pb))
        )
        rows.append(
            {
                "event": name,
                "wait_class": ea.get("wait_class") or eb.get("wait_class"),
                "only_in": _only_in(ta, tb),
                "a_time_s": round4(ta),
                "b_time_s": round4(tb),
                "a_per_second": round4(a),
                "b_per_second": round4(b),
                "change_pct": change_pct(a, b),
                "better": BETTER_TIME,
                "a_waits_per_transaction": round4(wa),
                "b_waits_per_transaction": round4(wb),
                "waits_per_transaction_change_pct": change_pct(wa, wb),
                # by nature (§29), whatever the periods hold; DB CPU counts no waits
                "better_waits_per_transaction": (
                    BETTER_WAITS_PER_TRANSACTION if all(e.get("waits", 0) is not None for e in (ea, eb)) else None
                ),
                "a_avg_ms": ea.get("avg_ms"),
                "b_avg_ms": eb.get("avg_ms"),
                "a_pct_db_time": ea.get("pct_db_time", 0.0 if pa["elapsed"] else None),
                "b_pct_db_time": eb.get("pct_db_time", 0.0 if pb["elapsed"] else None),
            }
        )
    return rows


def _parameters(db, a, b, inst) -> list[dict]:
    """Parameters whose values in force at the end of A and of B differ (docs/awr-rules.md §23), per instance on RAC."""
    rac = len(db.instances) > 1
    return [
        {
            "kind": "parameter",
            "item": d["parameter"] + (f" (instance {d['instance']})" if rac else ""),
            "container": None,
            "a": d["a_value"],
            "b": d["b_value"],
            "change": "changed"
            if d["a_value"] is not None and d["b_value"] is not None
            else "set in B only"
            if d["a_value"] is None
            else "set in A only",
        }
        for d in parameters.differences(db, a, b, inst)
    ]


def _plans(db, pa, pb) -> list[dict]:
    """Plans of the top statements (the first SQL_COMPARED of each period by elapsed time) that ran in both periods,
    seen in one period only: a plan hash value of the statement's SQLSTAT rows in B and not in A appeared; in A and
    not in B, disappeared. A statement of one period only is a mover (only_in), not a plan change. Plan hash value 0
    (no plan: PL/SQL calls) is left out (docs/awr-rules.md §29)."""
    sa, sb = ({(r["con_dbid"], r["sql_id"]): r for r in p["sql"]} for p in (pa, pb))
    names = db.containers() if sa or sb else {}
    out = []
    for key in _union(sa, sb, _by_elapsed, SQL_COMPARED):
        if key not in sa or key not in sb:
            continue
        plans_a, plans_b = (set(s[key]["plan_hash_values"]) - {0} for s in (sa, sb))  # a statement of both periods
        for plan in sorted(plans_b - plans_a):
            out.append(
                {
                    "kind": "plan",
                    "item": key[1],
                    "container": names.get(key[0]),
                    "a": None,
                    "b": str(plan),
                    "change": "appeared",
                }
            )
        for plan in sorted(plans_a - plans_b):
            out.append(
                {
                    "kind": "plan",
                    "item": key[1],
                    "container": names.get(key[0]),
                    "a": str(plan),
                    "b": None,
                    "change": "disappeared",
                }
            )
    return out
