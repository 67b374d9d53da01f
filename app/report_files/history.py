"""A database's history made from its report files (docs/awr-rules.md §35): the DBA_HIST_* rows that give back, under
the rules of §3-§5, what each report printed of its interval.

A report prints each interval's totals; the views keep counters. Per instance, reports that follow each other (one's
end snapshot is the next one's begin snapshot, the same startup) form a run, and a counter's value at a snapshot of a
run is the sum of the intervals printed before it, from 0 at the run's first snapshot: each interval's delta is then
what its report printed. Where a report is missing, a new run begins: its first snapshot's BEGIN_INTERVAL_TIME is its
END_INTERVAL_TIME (nothing is known before it), which the timeline reads as an unreported interval, never as a delta.
A statistic a report does not print (Oracle leaves out what is below its thresholds) adds 0 there.
"""

import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from app.history.catalog import POINT_IN_TIME
from app.report_files.model import Report
from app.store.awr.views import IO_FUNCTIONS

# the seconds of an interval, refined from the Load Profile (elapsed_seconds): a printed per-second value and the
# total of its statistic in Instance Activity Stats
RATES = (
    ("Logical read (blocks)", "session logical reads"),
    ("Logical reads", "session logical reads"),
    ("Redo size (bytes)", "redo size"),
    ("Redo size", "redo size"),
    ("Executes (SQL)", "execute count"),
    ("Executes", "execute count"),
    ("User calls", "user calls"),
)
MB = 1024 * 1024


def name_id(name: str) -> int:
    """The id of a statistic, event, wait class or parameter a report names but does not number: a checksum of the
    name, the same in every store (as the demo numbers its own, app/demo/names.py)."""
    return zlib.crc32(name.encode())


def elapsed_seconds(report: Report, instance: int) -> float:
    """The interval's seconds as Oracle divided by them: the header prints minutes to two decimals (0.6 s), so
    where the Load Profile prints a per-second value of at least 100 whose total Instance Activity Stats prints,
    total / rate, if it agrees with the header within its rounding."""
    if report.source == "statspack":  # sprepins.sql divides by the snapshots' whole seconds, both printed
        return (report.end_time - report.begin_time).total_seconds()
    printed = report.elapsed_minutes * 60
    stats = (report.data.get(instance) or _EMPTY).sysstat or {}
    best = None
    for label, stat in RATES:
        rate = ((report.load_profile or {}).get(label) or (None,))[0]
        total = stats.get(stat)
        if rate and total and rate >= 100 and (best is None or rate > best[0]):
            best = (rate, total / rate)
    if best and abs(best[1] - printed) <= 0.6:
        return best[1]
    return printed


@dataclass
class _Instance:
    """What the walk keeps of one instance: the last report's end, its counters, and the rows so far."""

    end_snap: int | None = None
    end_time: datetime | None = None
    startup: datetime | None = None
    counters: dict = field(default_factory=dict)  # table -> key -> (row, values at end_snap) of the run
    snaps: list = field(default_factory=list)  # the run's snapshots so far, the last one this report's begin


class _EmptyData:
    sysstat = time_model = events = osstat = io_functions = parameters = event_histograms = None


_EMPTY = _EmptyData()


def rows(reports: list[Report]) -> dict[str, list[dict]]:
    """The rows of each DBA_HIST_* table (by its short name) for one database's reports (one DBID), which do not
    overlap (importer.check)."""
    out: dict[str, dict] = {}  # table -> key -> row: a snapshot's row written by two reports is one row

    def put(table: str, key: tuple, row: dict):
        out.setdefault(table, {})[key] = row

    dbid = reports[0].dbid
    by_instance: dict[int, list[Report]] = {}
    for r in reports:
        for inst in r.data:
            by_instance.setdefault(inst, []).append(r)
    for inst, mine in by_instance.items():
        state = _Instance()
        for r in sorted(mine, key=lambda r: r.begin_snap):
            about = next((i for i in r.instances if i.number == inst), None)
            startup = (about.startup if about else None) or state.startup or r.begin_time
            continues = state.end_snap == r.begin_snap and state.startup == startup
            if not continues:
                state = _Instance(startup=startup)
                begin_time = r.begin_time
                _snapshot(put, dbid, inst, r.begin_snap, startup, begin_time, begin_time, r.utc_offset)
            else:
                begin_time = state.end_time
            if not state.snaps:
                state.snaps.append(r.begin_snap)
            end_time = begin_time + timedelta(seconds=elapsed_seconds(r, inst))
            _snapshot(put, dbid, inst, r.end_snap, startup, begin_time, end_time, r.utc_offset)
            put(
                "database_instance",
                (inst, startup),
                {
                    "dbid": dbid,
                    "instance_number": inst,
                    "startup_time": _ts(startup),
                    "parallel": "YES" if r.rac else "NO",
                    "version": r.release,
                    "db_name": r.db_name,
                    "instance_name": about.name if about else f"{r.db_name}{inst}",
                    "host_name": about.host if about else None,
                    "platform_name": about.platform if about else None,
                    "cdb": "YES" if r.cdb else "NO",
                    "edition": r.edition,
                    "db_unique_name": r.db_name,
                    "database_role": "PRIMARY",
                },
            )
            _interval(put, dbid, inst, r, state)
            state.end_snap, state.end_time = r.end_snap, end_time
            state.snaps.append(r.end_snap)
    return {table: list(found.values()) for table, found in out.items()}


def _ts(moment: datetime) -> str:
    return moment.isoformat(" ", timespec="microseconds" if moment.microsecond else "seconds")


def _snapshot(put, dbid, inst, snap_id, startup, begin, end, utc_offset):
    put(
        "snapshot",
        (inst, snap_id),
        {
            "snap_id": snap_id,
            "dbid": dbid,
            "instance_number": inst,
            "startup_time": _ts(startup),
            "begin_interval_time": _ts(begin),
            "end_interval_time": _ts(end),
            "snap_level": 1,
            "error_count": 0,
            "snap_flag": 0,
            "snap_timezone": utc_offset,  # SNAP_TIMEZONE: the offset given at import (§17), else none (UTC)
        },
    )


def _interval(put, dbid, inst, r: Report, state: _Instance):
    """The rows of one report's interval on one instance: counters at both ends, readings and parameters as
    printed, the interval's SQL and segments at its end."""
    d = r.data[inst]
    lo, hi = r.begin_snap, r.end_snap
    shared = put

    def put(table: str, key: tuple, row: dict):  # the instance's own row
        shared(table, (inst, *key), row)

    base = {"dbid": dbid, "instance_number": inst, "con_dbid": dbid}

    printed: dict[str, dict] = {}  # table -> key -> (row, deltas) of the counters this report prints

    def counter(table: str, key: tuple, row: dict, deltas: dict):
        printed.setdefault(table, {})[key] = (row, deltas)

    for table, values, scale, readings in (
        ("sysstat", d.sysstat, 1, POINT_IN_TIME.get("sysstat", ())),
        ("sys_time_model", d.time_model, 1e6, ()),
        ("osstat", d.osstat, 1, POINT_IN_TIME.get("osstat", ())),
    ):
        for name, value in (values or {}).items():
            row = {"stat_id": name_id(name), "stat_name": name}
            if name in readings:
                put(table, (hi, name_id(name)), {**base, **row, "snap_id": hi, "value": value})
            else:
                counter(table, (name_id(name),), row, {"value": value * scale})
    for name, e in (d.events or {}).items():
        wait_class = e.wait_class or "Other"  # a class the report does not print is Oracle's class for the unclassed
        waits = (e.waits_fg or 0) + (e.waits_bg or 0)
        timeouts = (e.timeouts_fg or 0) + (e.timeouts_bg or 0)
        micro = round(((e.time_fg or 0) + (e.time_bg or 0)) * 1e6)
        row = {
            "event_id": name_id(name),
            "event_name": name,
            "wait_class_id": name_id(wait_class),
            "wait_class": wait_class,
        }
        counter(
            "system_event",
            (name_id(name),),
            row,
            {
                "total_waits": waits,
                "total_timeouts": timeouts,
                "time_waited_micro": micro,
                "total_waits_fg": e.waits_fg or 0,
                "total_timeouts_fg": e.timeouts_fg or 0,
                "time_waited_micro_fg": round((e.time_fg or 0) * 1e6),
            },
        )
    for name, io in (d.io_functions or {}).items():
        function_id = IO_FUNCTIONS.index(name) if name in IO_FUNCTIONS else name_id(name)
        counter(
            "iostat_function",
            (function_id,),
            {"function_id": function_id, "function_name": name},
            {
                # the report prints no split by request size: every request counted as small (docs/report-formats.md)
                "small_read_megabytes": (io.read_bytes or 0) / MB,
                "small_write_megabytes": (io.write_bytes or 0) / MB,
                "large_read_megabytes": 0,
                "large_write_megabytes": 0,
                "small_read_reqs": io.read_reqs or 0,
                "small_write_reqs": io.write_reqs or 0,
                "large_read_reqs": 0,
                "large_write_reqs": 0,
                "number_of_waits": io.waits or 0,
                "wait_time": (io.wait_time or 0) * 1000,  # milliseconds, as V$IOSTAT_FUNCTION
            },
        )
    classes = {name: e.wait_class or "Other" for name, e in (d.events or {}).items()}
    for name, buckets in (d.event_histograms or {}).items():
        for bound, count in buckets.items():
            counter(
                "event_histogram",
                (name_id(name), bound),
                {
                    "event_id": name_id(name),
                    "event_name": name,
                    "wait_class_id": name_id(classes[name]) if classes.get(name) else None,
                    "wait_class": classes.get(name),
                    "wait_time_milli": bound,
                },
                {"wait_count": count},
            )
    work_area = _work_area_bytes(r, inst)
    if work_area is not None:
        counter("pgastat", ("bytes processed",), {"name": "bytes processed"}, {"value": work_area})
    sections = {
        "pgastat": work_area,
        "sysstat": d.sysstat,
        "sys_time_model": d.time_model,
        "osstat": d.osstat,
        "system_event": d.events,
        "iostat_function": d.io_functions,
        "event_histogram": d.event_histograms,
    }
    for table, section in sections.items():
        run = state.counters.setdefault(table, {})
        if section is None:  # not printed: the run of this table's counters ends (the next report's start at 0)
            run.clear()
            continue
        for key, (row, deltas) in printed.get(table, {}).items():
            if key not in run:  # first printed here: nothing counted before it in this run
                for snap in state.snaps[:-1]:
                    put(table, (snap, *key), {**base, **row, "snap_id": snap, **dict.fromkeys(deltas, 0)})
            before = run.get(key, (row, {}))[1]
            run[key] = (row, {c: before.get(c, 0) + (v or 0) for c, v in deltas.items()})
            put(table, (lo, *key), {**base, **row, "snap_id": lo, **{c: before.get(c, 0) for c in deltas}})
        for key, (row, values) in run.items():  # what the report leaves out added 0
            put(table, (hi, *key), {**base, **row, "snap_id": hi, **values})
    for name, value in (d.parameters or {}).items():
        row = {
            **base,
            "parameter_hash": name_id(name),
            "parameter_name": name,
            "value": value,
            "isdefault": "FALSE",
            "ismodified": "FALSE",
        }
        for snap in (lo, hi):
            put("parameter", (snap, name_id(name)), {**row, "snap_id": snap})
    if inst == min(r.data):  # a global report's SQL and segments are the cluster's: kept on its first instance
        _sql(put, base, hi, r)
        _segments(put, base, hi, r)


def _work_area_bytes(r: Report, inst: int) -> float | None:
    """The work areas' bytes processed in the interval (DBA_HIST_PGASTAT's counter, the Load Profile's SQL Work Area,
    §13), from the Load Profile, the report's only figure of it: per transaction x transactions or per second x
    seconds, whichever is printed with more digits. An instance report's only (a global report's is the cluster's)."""
    if len(r.data) != 1:
        return None
    printed = (r.load_profile or {}).get("SQL Work Area (MB)") or (r.load_profile or {}).get("W/A MB processed")
    if not printed:
        return None
    stats = r.data[inst].sysstat or {}
    txns = stats.get("user commits", 0) + stats.get("user rollbacks", 0)
    per_second, per_txn = printed
    choices = [(per_second or 0, (per_second or 0) * elapsed_seconds(r, inst))]
    if per_txn is not None and txns:
        choices.append((per_txn, per_txn * txns))
    return max(choices)[1] * MB


def _sql(put, base, snap, r: Report):
    for s in r.sql or ():
        plan = s.plan_hash_value or 0
        deltas = {
            "executions": s.executions,
            "elapsed_time": None if s.elapsed is None else round(s.elapsed * 1e6),
            "cpu_time": None if s.cpu is None else round(s.cpu * 1e6),
            "buffer_gets": s.buffer_gets,
            "disk_reads": s.disk_reads,
            "rows_processed": s.rows,
            "iowait": None if s.io_wait is None else round(s.io_wait * 1e6),
        }
        put(
            "sqlstat",
            (snap, s.sql_id, plan),
            {
                **base,
                "snap_id": snap,
                "sql_id": s.sql_id,
                "plan_hash_value": plan,
                "module": s.module,
                **{f"{m}_delta": v for m, v in deltas.items()},
            },
        )
        if s.text:
            put("sqltext", (s.sql_id,), {"dbid": base["dbid"], "sql_id": s.sql_id, "sql_text": s.text, **_con(base)})


def _con(base):
    return {"con_dbid": base["con_dbid"]}


def _segments(put, base, snap, r: Report):
    for seg in r.segments or ():
        ident = (seg.owner, seg.object_name, seg.subobject_name or "")
        obj = name_id(".".join(ident))
        ts = name_id(seg.tablespace or "")
        put(
            "seg_stat_obj",
            (ts, obj),
            {
                "dbid": base["dbid"],
                "ts_num": ts,
                "obj_num": obj,
                "dataobj_num": obj,
                "owner": seg.owner,
                "object_name": seg.object_name,
                "subobject_name": seg.subobject_name,
                "object_type": seg.object_type,
                "tablespace_name": seg.tablespace,
                **_con(base),
            },
        )
        put(
            "seg_stat",
            (snap, ts, obj),
            {
                **base,
                "snap_id": snap,
                "ts_num": ts,
                "obj_num": obj,
                "dataobj_num": obj,
                **{f"{k}_delta": v for k, v in seg.values.items()},
            },
        )
