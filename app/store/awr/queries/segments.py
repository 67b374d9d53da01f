"""Event histograms and segment statistics (docs/awr-rules.md §24, §25)."""

from app.store.awr.queries.core import _intervals, _snap_range, statement
from app.store.awr.views import Views

SEGMENT_ORDER = (
    "logical_reads",
    "physical_reads",
    "physical_writes",
    "physical_reads_direct",
    "physical_writes_direct",
    "row_lock_waits",
    "itl_waits",
    "buffer_busy_waits",
    "db_block_changes",
    "physical_read_requests",
    "physical_write_requests",
    "table_scans",
    "gc_cr_blocks_received",
    "gc_cu_blocks_received",
    "gc_buffer_busy",
    "space_used",
)
TOP_SEGMENT_ROWS = 100  # a constant of the code, never a request value


@statement
def event_histogram(v: Views):
    """One event's cumulative wait counts per instance, container (CON_DBID: a CDB root holds a row per container),
    snapshot and bucket (WAIT_TIME_MILLI, the bucket's upper bound in ms) over the snapshots [lo, hi], summed in the
    database."""
    from sqlalchemy import bindparam, func, select

    t = v.event_histogram
    keys = (t.c.instance_number, t.c.con_dbid, t.c.snap_id, t.c.wait_time_milli)
    return (
        select(*keys, func.sum(t.c.wait_count))
        .where(_snap_range(t), t.c.event_id == bindparam("item_id"))
        .group_by(*keys)
    )


@statement
def event_histogram_first(v: Views):
    """The first snapshot of [lo, hi] where DBA_HIST_EVENT_HISTOGRAM holds a row of any event: where the histograms
    kept start, in the range."""
    from sqlalchemy import func, select

    t = v.event_histogram
    return select(func.min(t.c.snap_id)).where(_snap_range(t)).group_by(t.c.dbid)  # no row where none is kept


def _segment_names(v, grouped):
    """The segments of `grouped` (a subquery keyed by con_dbid, ts_num, obj_num, dataobj_num) with their names from
    DBA_HIST_SEG_STAT_OBJ (none where AWR has no name for one)."""
    from sqlalchemy import and_, bindparam

    o = v.seg_stat_obj
    on = and_(
        o.c.dbid == bindparam("dbid"),
        o.c.ts_num == grouped.c.ts_num,
        o.c.obj_num == grouped.c.obj_num,
        o.c.dataobj_num == grouped.c.dataobj_num,
        o.c.con_dbid == grouped.c.con_dbid,
    )
    return o, on


@statement
def top_segments(v: Views, order: str, instance: bool = False):
    """Segments by the summed *_DELTA of one statistic (`order`, one of SEGMENT_ORDER) over the intervals (lo, hi],
    every statistic summed, with the total of the ranked one over every segment captured, and their names; with
    `instance`, of the instance bound as f_instance_0 only (a RAC instance's own reads and waits)."""
    from sqlalchemy import bindparam, func, select

    t = v.seg_stat
    keys = (t.c.con_dbid, t.c.ts_num, t.c.obj_num, t.c.dataobj_num)
    ranked = func.sum(t.c[f"{order}_delta"])
    g = (
        select(
            *keys,
            *[func.sum(t.c[f"{s}_delta"]).label(s) for s in SEGMENT_ORDER],
            func.sum(ranked).over().label("captured"),
            ranked.label("ranked"),
        )
        .where(_intervals(t), *([t.c.instance_number == bindparam("f_instance_0")] if instance else []))
        .group_by(*keys)
        .subquery("segments")
    )
    o, on = _segment_names(v, g)
    return (
        select(
            g.c.con_dbid,
            g.c.ts_num,
            g.c.obj_num,
            g.c.dataobj_num,
            o.c.owner,
            o.c.object_name,
            o.c.subobject_name,
            o.c.object_type,
            o.c.tablespace_name,
            *[g.c[s] for s in SEGMENT_ORDER],
            g.c.captured,
        )
        .join_from(g, o, on, isouter=True)
        .order_by(g.c.ranked.desc(), g.c.obj_num, g.c.dataobj_num, g.c.con_dbid)
        .limit(TOP_SEGMENT_ROWS)
    )


@statement
def segment_history(v: Views):
    """One segment (OBJ# and DATAOBJ# bound) per instance and snapshot of the intervals (lo, hi]: its *_DELTA columns
    and space used, and its names (the row's segment in DBA_HIST_SEG_STAT_OBJ)."""
    from sqlalchemy import bindparam, select

    t = v.seg_stat
    o, on = _segment_names(v, t)
    return (
        select(
            t.c.instance_number,
            t.c.snap_id,
            t.c.con_dbid,
            t.c.ts_num,
            *[t.c[f"{s}_delta"] for s in SEGMENT_ORDER],
            t.c.space_used_total,
            o.c.owner,
            o.c.object_name,
            o.c.subobject_name,
            o.c.object_type,
            o.c.tablespace_name,
        )
        .join_from(t, o, on, isouter=True)
        .where(_intervals(t), t.c.obj_num == bindparam("obj"), t.c.dataobj_num == bindparam("dataobj"))
        .order_by(t.c.snap_id, t.c.instance_number)
    )
