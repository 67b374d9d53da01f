"""The AWR report's Load Profile over a range: per second, per transaction and in total
(docs/awr-rules.md §13)."""

from math import fsum

from app.history.database import Database, Range
from app.history.intervals import coverage, totals
from app.history.numbers import round4
from app.history.series import TXN
from app.units import MIB

LOAD_PROFILE = [  # (label, view, statistics summed, scale) -- the AWR report's rows
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
    ("User calls", "sysstat", ("user calls",), 1),
    ("Parses (SQL)", "sysstat", ("parse count (total)",), 1),
    ("Hard parses (SQL)", "sysstat", ("parse count (hard)",), 1),
    ("Logons", "sysstat", ("logons cumulative",), 1),
    ("Executes (SQL)", "sysstat", ("execute count",), 1),
    ("Rollbacks", "sysstat", ("user rollbacks",), 1),
    ("Transactions", "sysstat", TXN, 1),
]


def compute(db: Database, rng: Range, instance="all") -> dict:
    inst = db.instance(instance)
    rows = []
    covers = coverage(db, rng, inst)
    if covers["reason"] is None:
        per_view = {}
        for view in ("sys_time_model", "sysstat"):
            names = {n for _, v, ns, _ in LOAD_PROFILE if v == view for n in ns}
            per_view[view] = totals(db, view, names, rng, inst)
        sums, seconds = per_view["sysstat"]
        # the range's seconds: those of the instance that covered the most of it. RAC combined is every instance's
        # total over that same time, so per second x elapsed = total, as for one instance (docs/awr-rules.md §13)
        elapsed = max(seconds.values(), default=0)
        txns = fsum(sums.get((i, n), 0) for i in seconds for n in TXN)
        for label, view, names, scale in LOAD_PROFILE:
            t, sec = per_view[view]
            total = fsum(t.get((i, n), 0) for i in sec for n in names) * scale
            rows.append(
                {
                    "metric": label,
                    "per_second": round4(total / elapsed) if elapsed else 0.0,
                    "per_transaction": round4(total / txns) if txns else None,
                    "total": round4(total),
                }
            )
        covered = [{"instance": i, "seconds": round(seconds[i])} for i in sorted(seconds)]
    else:
        elapsed, covered = 0, []
    return {
        "db": db.key,
        "range": rng.public(),
        "instance": instance,
        "elapsed_seconds": round(elapsed),
        "instances": covered,
        **covers,
        "columns": ["metric", "per_second", "per_transaction", "total"],
        "rows": rows,
    }
