"""The segments behind the reads, writes and waits (docs/awr-rules.md §25): top segments of a range by one statistic of
DBA_HIST_SEG_STAT, named from DBA_HIST_SEG_STAT_OBJ, and one segment over time."""

from math import fsum

from app.errors import NotFound
from app.history.database import Database, Range
from app.history.intervals import totals
from app.history.numbers import round4
from app.store.awr import queries
from app.store.awr.queries import SEGMENT_ORDER
from app.store.statspack.tables import SEGMENT_COLUMNS
from app.store.statspack.views import NotInSource

# statistic -> the SYSSTAT counter it is a part of, for its share of the database's total (AWR's "% Total")
SYSSTAT_TOTALS = {
    "logical_reads": "session logical reads",
    "physical_reads": "physical reads",
    "physical_writes": "physical writes",
    "physical_reads_direct": "physical reads direct",
    "physical_writes_direct": "physical writes direct",
    "db_block_changes": "db block changes",
    "physical_read_requests": "physical read IO requests",
    "physical_write_requests": "physical write IO requests",
    "gc_cr_blocks_received": "gc cr blocks received",
    "gc_cu_blocks_received": "gc current blocks received",
}
NAMES = ("owner", "object_name", "subobject_name", "object_type", "tablespace_name")
# the statistics STATS$SEG_STAT keeps no column for: none in a Statspack answer (docs/awr-rules.md §31)
NOT_IN_STATSPACK = tuple(s for s in SEGMENT_ORDER if s not in SEGMENT_COLUMNS)


def top(db: Database, rng: Range, order="logical_reads", limit=25, instance="all") -> dict:
    """The top segments of the range by `order`, of every instance or of one (its own *_DELTA rows, and its own
    share of the database statistic: docs/awr-rules.md §25)."""
    inst = db.instance(instance)
    rows, captured, database_total = [], None, None
    unknown = NOT_IN_STATSPACK if db.store.source == "statspack" else ()  # docs/awr-rules.md §31
    if order in unknown:
        raise NotInSource(f"this database's history is Statspack, whose STATS$SEG_STAT keeps no {order}", "order_by")
    if rng.lo is not None and rng.lo < rng.hi:
        one = {} if inst is None else {"f_instance_0": inst}
        raw = db.rows(queries.top_segments(db.store.views, order, inst is not None), lo=rng.lo, hi=rng.hi, **one)
        if order in SYSSTAT_TOTALS and order not in unknown:
            sums, _ = totals(db, "sysstat", (SYSSTAT_TOTALS[order],), rng, inst)
            database_total = fsum(sums.values())
        containers = db.containers()
        for con_dbid, ts, obj, dataobj, *rest in raw[:limit]:
            names, stats, captured = rest[:5], rest[5:-1], rest[-1]
            r = {
                "obj": obj,
                "dataobj": dataobj,
                "ts": ts,
                "con_dbid": con_dbid,
                **dict(zip(NAMES, names, strict=True)),
                **{s: v or 0 for s, v in zip(SEGMENT_ORDER, stats, strict=True)},
            }
            r.update(dict.fromkeys(unknown))
            r["pct_captured"] = round4(100 * r[order] / captured) if captured else None
            r["pct_total"] = round4(100 * r[order] / database_total) if database_total else None
            r["container"] = containers.get(con_dbid)  # in a CDB root, the PDB's name (docs/awr-rules.md §1)
            rows.append(r)
        captured = raw[0][-1] if raw else 0
    return {
        "db": db.key,
        "range": rng.public(),
        "instance": instance,
        "order_by": order,
        "captured": captured,
        "database_total": None if database_total is None else round(database_total),
        "database_statistic": SYSSTAT_TOTALS.get(order),
        "columns": [
            "owner",
            "object_name",
            "obj",
            "subobject_name",
            "object_type",
            "tablespace_name",
            order,
            "pct_total",
            "pct_captured",
            *[s for s in SEGMENT_ORDER if s != order],
            "dataobj",
            "ts",
            "con_dbid",
            "container",
        ],
        "rows": rows,
    }


def history(db: Database, obj: int, dataobj: int, rng: Range, instance="all") -> dict:
    """One segment at each snapshot of the range: every statistic summed over instances (and containers), or of one
    instance's rows, timed at the lowest-numbered instance's snapshot; space used (a reading, not a delta) is the
    largest of the snapshot's rows."""
    inst = db.instance(instance)
    raw = db.rows(queries.segment_history(db.store.views), obj=obj, dataobj=dataobj, lo=rng.lo or 0, hi=rng.hi or 0)
    raw = [r for r in raw if inst is None or r[0] == inst]
    if not raw and rng.lo is not None:
        raise NotFound(f"segment obj {obj}, dataobj {dataobj} has no statistics in this range of {db.key}", "obj")
    tl = db.timeline()
    per_snap: dict = {}
    names = None
    for _instance_no, snap, _con, _ts, *rest in raw:
        stats, used, label = rest[: len(SEGMENT_ORDER)], rest[len(SEGMENT_ORDER)], rest[len(SEGMENT_ORDER) + 1 :]
        names = names or dict(zip(NAMES, label, strict=True))
        acc = per_snap.setdefault(snap, [0] * len(SEGMENT_ORDER) + [0])
        for k, v in enumerate(stats):
            acc[k] += v or 0
        acc[-1] = max(acc[-1], used or 0)  # a reading of the segment, the same on every instance
    times = [(tl.lowest[s].time, s) for s in sorted(per_snap) if s in tl.lowest]
    # what Statspack keeps no column for has no value, not zero (docs/awr-rules.md §31; nor space: a reading)
    unknown = (*NOT_IN_STATSPACK, "space_used_total") if db.store.source == "statspack" else ()
    series = [
        {
            "metric": stat,
            "unit": "bytes" if stat.startswith("space_used") else "count",
            "points": ([t for t, _ in times], [None if stat in unknown else per_snap[s][k] for _, s in times]),
        }
        for k, stat in enumerate((*SEGMENT_ORDER, "space_used_total"))
    ]
    return {
        "db": db.key,
        "obj": obj,
        "dataobj": dataobj,
        "range": rng.public(),
        **(names or dict.fromkeys(NAMES)),
        "series": series,
    }
