"""The AWR report's Load Profile over a range: per second, per transaction, per execution and per call (the time
rows, as Oracle prints them) and in total (docs/awr-rules.md §13)."""

from math import fsum

from app.history.database import Database, Range
from app.history.intervals import coverage, totals
from app.history.numbers import places4
from app.history.series import TXN
from app.units import MIB

LOAD_PROFILE = [  # (label, view, statistics summed, scale) -- the AWR report's rows, in its order
    ("DB Time(s)", "sys_time_model", ("DB time",), 1e-6),
    ("DB CPU(s)", "sys_time_model", ("DB CPU",), 1e-6),
    ("Background CPU(s)", "sys_time_model", ("background cpu time",), 1e-6),
    ("Redo size (bytes)", "sysstat", ("redo size",), 1),
    ("Logical read (blocks)", "sysstat", ("session logical reads",), 1),
    ("Block changes", "sysstat", ("db block changes",), 1),
    ("Physical read (blocks)", "sysstat", ("physical reads",), 1),
    ("Physical write (blocks)", "sysstat", ("physical writes",), 1),
    ("Read IO requests", "sysstat", ("physical read IO requests",), 1),
    ("Write IO requests", "sysstat", ("physical write IO requests",), 1),
    ("Read IO (MB)", "sysstat", ("physical read bytes",), 1 / MIB),
    ("Write IO (MB)", "sysstat", ("physical write bytes",), 1 / MIB),
    ("IM scan rows", "sysstat", ("IM scan rows",), 1),
    ("Session Logical Read IM", "sysstat", ("session logical reads - IM",), 1),
    ("Global Cache blocks received", "sysstat", ("gc cr blocks received", "gc current blocks received"), 1),
    ("Global Cache blocks served", "sysstat", ("gc cr blocks served", "gc current blocks served"), 1),
    ("User calls", "sysstat", ("user calls",), 1),
    ("Parses (SQL)", "sysstat", ("parse count (total)",), 1),
    ("Hard parses (SQL)", "sysstat", ("parse count (hard)",), 1),
    ("SQL Work Area (MB)", "pgastat", ("bytes processed",), 1 / MIB),
    ("Logons", "sysstat", ("logons cumulative",), 1),
    ("User logons", "sysstat", ("user logons cumulative",), 1),
    ("Executes (SQL)", "sysstat", ("execute count",), 1),
    ("Rollbacks", "sysstat", ("user rollbacks",), 1),
    ("Transactions", "sysstat", TXN, 1),
]
# rows shown only where their statistics exist (In-Memory from 12.1.0.2, user logons from 18c, the PGA's bytes
# processed) and, for the global cache, on RAC only, as Oracle's report does
OPTIONAL = {"IM scan rows", "Session Logical Read IM", "SQL Work Area (MB)", "User logons"}
RAC_ONLY = {"Global Cache blocks received", "Global Cache blocks served"}
PER_EXEC_AND_CALL = {"DB Time(s)", "DB CPU(s)", "Background CPU(s)"}  # the rows Oracle gives these columns
COLUMNS = ["metric", "per_second", "per_transaction", "per_exec", "per_call", "total"]


def measure(db: Database, rng: Range, inst) -> dict:
    """Unrounded: each row's total over the range, the range's seconds (those of the instance that covered the most
    of it) and each instance's, and the transactions, executions and user calls that divide them; the coverage."""
    covers = coverage(db, rng, inst)
    out = {"covers": covers, "totals": {}, "elapsed": 0.0, "seconds": {}, "txns": 0.0, "execs": 0.0, "calls": 0.0}
    if covers["reason"] is not None:
        return out
    per_view = {}
    for view in {v for _, v, _, _ in LOAD_PROFILE}:
        names = {n for _, v, ns, _ in LOAD_PROFILE if v == view for n in ns}
        per_view[view] = totals(db, view, names, rng, inst)
    seconds = per_view["sysstat"][1]

    def total(view, names):
        t, sec = per_view[view]
        return fsum(t.get((i, n), 0) for i in sec for n in names)

    # RAC combined is every instance's total over the range's time, so per second x elapsed = total, as for one
    # instance (docs/awr-rules.md §13)
    out.update(
        elapsed=max(seconds.values(), default=0),
        seconds=seconds,
        txns=total("sysstat", TXN),
        execs=total("sysstat", ("execute count",)),
        calls=total("sysstat", ("user calls",)),
    )
    for label, view, names, scale in LOAD_PROFILE:
        found = {n for _, n in per_view[view][0]}
        if (label in RAC_ONLY and not db.rac) or (label in OPTIONAL | RAC_ONLY and not set(names) <= found):
            continue
        out["totals"][label] = total(view, names) * scale
    return out


def rows(m: dict, rnd=places4) -> list[dict]:
    """measure()'s totals as the answer's rows, each rate computed from the exact totals and rounded once by `rnd`
    (the range report keeps them exact and rounds where it prints them)."""
    elapsed, txns, execs, calls = m["elapsed"], m["txns"], m["execs"], m["calls"]
    timed = PER_EXEC_AND_CALL
    return [
        {
            "metric": label,
            "per_second": rnd(total / elapsed) if elapsed else 0.0,
            "per_transaction": rnd(total / txns) if txns else None,
            "per_exec": rnd(total / execs) if label in timed and execs else None,
            "per_call": rnd(total / calls) if label in timed and calls else None,
            "total": rnd(total),
        }
        for label, total in m["totals"].items()
    ]


def compute(db: Database, rng: Range, instance="all") -> dict:
    m = measure(db, rng, db.instance(instance))
    return {
        "db": db.key,
        "range": rng.public(),
        "instance": instance,
        "elapsed_seconds": round(m["elapsed"]),
        "instances": [{"instance": i, "seconds": round(m["seconds"][i])} for i in sorted(m["seconds"])],
        **m["covers"],
        "columns": COLUMNS,
        "rows": rows(m),
    }
