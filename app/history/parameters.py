"""Initialization parameters (DBA_HIST_PARAMETER, docs/awr-rules.md §23): the values in force at a snapshot, every
change over a range with its old and new value, the parameters not at their default in a range, and the parameters
whose values differ between two ranges (for compare)."""

from bisect import bisect_left, bisect_right

from app.errors import BadParameter
from app.history.database import Database, Range
from app.store.awr import queries

# The parameters whose value is a size in bytes (Oracle Database Reference, each one's "Range of values";
# DB_nK_CACHE_SIZE for each block size): shown in binary units (sga_target 64 GB, not 68719476736) in the page, the
# changes layer and the report; answers and CSV keep the value as Oracle keeps it, with its unit beside it (`unit`).
SIZES = frozenset(
    {
        "bitmap_merge_area_size",
        "create_bitmap_area_size",
        "data_transfer_cache_size",
        "db_block_size",
        "db_cache_size",
        "db_flash_cache_size",
        "db_keep_cache_size",
        "db_recovery_file_dest_size",
        "db_recycle_cache_size",
        *(f"db_{k}k_cache_size" for k in (2, 4, 8, 16, 32)),
        "hash_area_size",
        "inmemory_size",
        "java_max_sessionspace_size",
        "java_pool_size",
        "java_soft_sessionspace_limit",
        "large_pool_size",
        "log_buffer",
        "memoptimize_pool_size",
        "memory_max_target",
        "memory_target",
        "olap_page_pool_size",
        "parallel_execution_message_size",
        "pga_aggregate_limit",
        "pga_aggregate_target",
        "result_cache_max_size",
        "sga_max_size",
        "sga_min_size",
        "sga_target",
        "shared_pool_reserved_size",
        "shared_pool_size",
        "sort_area_retained_size",
        "sort_area_size",
        "streams_pool_size",
    }
)
BYTE_UNITS = ("bytes", "KB", "MB", "GB", "TB", "PB")

VALUE_COLUMNS = ["instance", "snap_id", "time", "parameter", "value", "unit", "isdefault", "ismodified"]
CHANGE_COLUMNS = [
    "time",
    "snap_id",
    "instance",
    "parameter",
    "old_value",
    "new_value",
    "unit",
    "old_snap_id",
    "old_time",
    "isdefault",
    "ismodified",
    "restart",
    "con_dbid",
]
NON_DEFAULT_COLUMNS = ["parameter", "instance", "value", "unit", "first_snap", "last_snap", "from", "to"]
DIFFERENCE_COLUMNS = ["parameter", "instance", "a_value", "b_value"]


def unit(name: str) -> str | None:
    """A parameter's unit: bytes for a size (SIZES), else none."""
    return "bytes" if name.lower() in SIZES else None


def shown(name: str, value) -> str:
    """A value as people read it: a size in the largest binary unit that shows it as 1 or more (68719476736 is
    64 GB; 0 stays 0, as Oracle's 0 often means "not set"), any other value as Oracle keeps it, NULL for none. The
    page's Format.fmtValue rounds bytes the same way."""
    if value is None:
        return "NULL"
    text = str(value)
    if unit(name) is None or not text.isdigit() or int(text) == 0:
        return text
    x, k = float(text), 0
    while round(x) >= 1024 and k < len(BYTE_UNITS) - 1:  # 1,024 of a unit (once rounded) is one of the next
        x, k = x / 1024, k + 1
    places = 0 if x >= 100 else 1 if x >= 10 else 2
    number = f"{x:,.{places}f}"
    return (number.rstrip("0").rstrip(".") if "." in number else number) + " " + BYTE_UNITS[k]


def in_force(db: Database, snap_id: int, inst: int | None = None) -> dict[int, int]:
    """Per instance (one, or every one), its own snapshot at or before `snap_id`: the one whose values are in force
    there (an instance may lack a snapshot, docs/awr-rules.md §5)."""
    out = {}
    for i, rows in db.timeline().all.items():
        if inst in (None, i):
            ids = [s.snap_id for s in rows if s.snap_id <= snap_id]
            if ids:
                out[i] = ids[-1]
    return out


def values(db: Database, snap_id: int, inst: int | None = None) -> list[dict]:
    """The parameters in force at `snap_id`, per instance: name, value, ISDEFAULT and ISMODIFIED, by instance and
    name."""
    at = in_force(db, snap_id, inst)
    if not at:
        return []
    tl = db.timeline()
    rows = db.rows(queries.parameters_at(db.store.views), snap_ids=sorted(set(at.values())))
    return [
        {
            "instance": i,
            "snap_id": s,
            "time": tl.by_id[(i, s)].time,
            "parameter": name,
            "value": value,
            "unit": unit(name),
            "isdefault": isdefault,
            "ismodified": ismodified,
        }
        for i, s, name, value, isdefault, ismodified in rows
        if at.get(i) == s
    ]


def changes(db: Database, rng: Range, inst: int | None = None) -> list[dict]:
    """Every value that differs from the one at the instance's previous snapshot, seen at a snapshot in (lo, hi],
    with the old value, in its container (CON_DBID); `restart` is the startup time when a restart lies between the
    two snapshots (a static parameter takes effect only there)."""
    if rng.lo is None or rng.lo >= rng.hi:
        return []
    tl = db.timeline()
    out = []
    stmt = queries.parameter_changes(db.store.views, db.store.parameter_runs)
    for i, s, name, old, new, old_s, isdefault, ismodified, con in db.rows(stmt, lo=rng.lo, hi=rng.hi):
        if inst not in (None, i) or (i, s) not in tl.by_id:
            continue
        snap, before = tl.by_id[(i, s)], tl.by_id.get((i, old_s))
        restart = snap.startup_time if before is not None and before.startup != snap.startup else None
        out.append(
            {
                "time": snap.time,
                "snap_id": s,
                "instance": i,
                "parameter": name,
                "old_value": old,
                "new_value": new,
                "unit": unit(name),
                "old_snap_id": old_s,
                "old_time": before.time if before else None,
                "isdefault": isdefault,
                "ismodified": ismodified,
                "restart": restart,
                "con_dbid": con,
            }
        )
    return out


def non_default(db: Database, rng: Range, inst: int | None = None) -> list[dict]:
    """The parameters not at their default value at some snapshot of [lo, hi] (set in the parameter file, or
    changed since the instance's startup), per instance and value, with the first and last snapshot it held."""
    if rng.lo is None:
        return []
    tl = db.timeline()
    runs = db.store.parameter_runs
    rows = db.rows(queries.non_default_parameters(db.store.views, runs), lo=rng.lo, hi=rng.hi)
    if runs:
        rows = _clipped(tl, rows, rng)
    out = []
    for i, name, value, first, last in rows:
        if inst not in (None, i):
            continue
        a, b = tl.by_id.get((i, first)), tl.by_id.get((i, last))
        out.append(
            {
                "parameter": name,
                "instance": i,
                "value": value,
                "unit": unit(name),
                "first_snap": first,
                "last_snap": last,
                "from": a.time if a else None,
                "to": b.time if b else None,
            }
        )
    return out


def _clipped(tl, runs, rng) -> list[tuple]:
    """Runs of values (instance, name, value, first_snap, last_snap) as the view's rows of [lo, hi] grouped: per
    instance, name and value, the first and last of the instance's snapshots in both the run and the range."""
    out: dict = {}
    snaps = {i: [s.snap_id for s in rows] for i, rows in tl.all.items()}
    for i, name, value, first, last in runs:
        ids = snaps.get(i, [])
        j, k = bisect_left(ids, max(first, rng.lo)), bisect_right(ids, min(last, rng.hi))
        if j < k:
            a, b = out.get((i, name, value), (ids[j], ids[k - 1]))
            out[(i, name, value)] = (min(a, ids[j]), max(b, ids[k - 1]))
    return [
        (i, name, value, a, b)
        for (i, name, value), (a, b) in sorted(out.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[1][0]))
    ]


def differences(db: Database, a: Range, b: Range, inst: int | None = None) -> list[dict]:
    """The parameters whose values differ between two ranges, per instance: the value in force at the end of each
    range (each instance's snapshot at or before its end_snap), a parameter only one range has with None on the
    other side. For compare (app/history/compare.py); ordered by name and instance."""
    if a.hi is None or b.hi is None:
        return []

    def keyed(rng):
        return {(r["parameter"], r["instance"]): r["value"] for r in values(db, rng.hi, inst)}

    va, vb = keyed(a), keyed(b)
    return [
        {
            "parameter": name,
            "instance": i,
            "a_value": va.get((name, i)),
            "b_value": vb.get((name, i)),
        }
        for name, i in sorted(set(va) | set(vb))
        if va.get((name, i)) != vb.get((name, i))
    ]


def compute(db: Database, what: str, rng: Range, instance="all", snap_id: int | None = None) -> dict:
    """One of the answers: `values` at snap_id (default: the range's last snapshot), `changes` or `non_default`."""
    inst = db.instance(instance)
    body = {"db": db.key, "range": rng.public(), "instance": instance}
    if what == "values":
        ids = db.timeline().snap_ids
        if snap_id is not None and not (ids and ids[0] <= snap_id <= ids[-1]):
            raise BadParameter(
                f"snap_id {snap_id} is not in the history of {db.key}, which has snap_id "
                + (f"{ids[0]}..{ids[-1]}" if ids else "none"),
                "snap_id",
            )
        at = snap_id if snap_id is not None else rng.hi
        body.update(snap_id=at, columns=VALUE_COLUMNS, rows=values(db, at, inst) if at is not None else [])
    elif what == "changes":
        body.update(columns=CHANGE_COLUMNS, rows=changes(db, rng, inst))
    else:
        body.update(columns=NON_DEFAULT_COLUMNS, rows=non_default(db, rng, inst))
    return body
