"""A Statspack database's history made from its report files: the DBA_HIST_* rows of history.rows (docs/awr-rules.md
§35) kept as Statspack keeps them, in its STATS$ tables (§31), so the database reads as a Statspack one.

- The counters are the same cumulative values, under Statspack's tables and names (STATISTIC# the statistic's id);
  a snapshot's time is its SNAP_TIME, its level 7 (the sections a report leaves out write no rows, so nothing is
  read as zero), and the events' wait classes go to V$EVENT_NAME, the Idle ones to STATS$IDLE_EVENT.
- SQL summaries and segment statistics are cumulative in Statspack: each statement's (each segment's) interval deltas
  summed in snapshot order over its instance's startup, so that §31's rule (a row less the key's previous row of the
  same startup) gives back each interval's printed work. A statement is its OLD_HASH_VALUE (the report's id) and
  TEXT_SUBSET (its text's first 31 characters); its text goes to STATS$SQLTEXT in pieces of 64 characters.
- Statspack keeps no begin time: an interval no report covers cannot be marked unreported (§35). The counters of the
  run after it start again from 0, so that interval is dropped as counters that went down (§3).
"""

import math

from app.store.awr.views import IO_COLUMNS
from app.store.statspack.tables import SEGMENT_COLUMNS, SEGMENT_LEVEL
from app.store.statspack.views import SQL_COLUMNS

PIECE = 64  # STATS$SQLTEXT's piece length
SUBSET = 31  # STATS$SQL_SUMMARY's TEXT_SUBSET
# the STATS$ tables this module fills with a DBID (each database's own) and those without (shared names)
BY_DBID = (
    "stats$snapshot",
    "stats$database_instance",
    "stats$sysstat",
    "stats$sys_time_model",
    "stats$osstat",
    "stats$system_event",
    "stats$event_histogram",
    "stats$iostat_function",
    "stats$pgastat",
    "stats$parameter",
    "stats$sql_summary",
    "stats$seg_stat",
    "stats$seg_stat_obj",
)
SHARED = (
    "stats$time_model_statname",
    "stats$osstatname",
    "stats$iostat_function_name",
    "stats$idle_event",
    "v$event_name",
    "stats$sqltext",
)
OPEN_BUCKET = 2048  # V$EVENT_HISTOGRAM's first bound above 1 s: the printed ">1s" bucket


def rows(found: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """The STATS$ rows (each a dict by the table's column keys) of one database's history.rows answer."""
    out: dict[str, list[dict]] = {t: [] for t in (*BY_DBID, *SHARED)}
    snaps = sorted(found.get("snapshot", []), key=lambda r: (r["instance_number"], r["snap_id"]))
    startup = {(s["instance_number"], s["snap_id"]): s["startup_time"] for s in snaps}
    first: dict = {}
    for s in snaps:
        first.setdefault((s["instance_number"], s["startup_time"]), s["snap_id"])
        out["stats$snapshot"].append(
            {
                "snap_id": s["snap_id"],
                "dbid": s["dbid"],
                "instance_number": s["instance_number"],
                "snap_time": s["end_interval_time"],
                "startup_time": s["startup_time"],
                "snap_level": SEGMENT_LEVEL,
            }
        )
    for d in found.get("database_instance", []):
        keep = ("dbid", "instance_number", "startup_time", "parallel", "version", "db_name", "instance_name")
        out["stats$database_instance"].append(
            {
                **{k: d[k] for k in keep},
                "host_name": d.get("host_name"),
                "platform_name": d.get("platform_name"),
                "snap_id": first.get((d["instance_number"], d["startup_time"])),
            }
        )

    def base(r):
        return {"snap_id": r["snap_id"], "dbid": r["dbid"], "instance_number": r["instance_number"]}

    for r in found.get("sysstat", []):
        out["stats$sysstat"].append({**base(r), "statistic": r["stat_id"], "name": r["stat_name"], "value": r["value"]})
    for view, names, key in (
        ("sys_time_model", "stats$time_model_statname", "stat_id"),
        ("osstat", "stats$osstatname", "osstat_id"),
    ):
        named = {}
        for r in found.get(view, []):
            named[r["stat_id"]] = r["stat_name"]
            out[f"stats${view}"].append({**base(r), key: r["stat_id"], "value": r["value"]})
        out[names] += [{key: k, "stat_name": n} for k, n in named.items()]
    classes = {}
    for r in found.get("system_event", []):
        classes[r["event_id"]] = (r["event_name"], r["wait_class_id"], r["wait_class"])
        values = ("total_waits", "total_timeouts", "time_waited_micro")
        out["stats$system_event"].append(
            {
                **base(r),
                "event": r["event_name"],
                "event_id": r["event_id"],
                **{c: r[c] for c in values},
                **{f"{c}_fg": r[f"{c}_fg"] for c in values},
            }
        )
    for r in found.get("event_histogram", []):
        classes.setdefault(r["event_id"], (r["event_name"], r["wait_class_id"], r["wait_class"]))
        bound = r["wait_time_milli"]
        out["stats$event_histogram"].append(
            {
                **base(r),
                "event_id": r["event_id"],
                "wait_time_milli": OPEN_BUCKET if math.isinf(bound) else round(bound),
                "wait_count": r["wait_count"],
            }
        )
    out["v$event_name"] = [
        {"event_id": k, "name": n, "wait_class_id": cid, "wait_class": c} for k, (n, cid, c) in classes.items()
    ]
    out["stats$idle_event"] = [{"event": n} for n, _, c in classes.values() if c == "Idle"]
    functions = {}
    for r in found.get("iostat_function", []):
        functions[r["function_id"]] = r["function_name"]
        out["stats$iostat_function"].append(
            {
                **base(r),
                "function_id": r["function_id"],
                **{c: r.get(c) for c in (*IO_COLUMNS, "number_of_waits", "wait_time")},
            }
        )
    out["stats$iostat_function_name"] = [{"function_id": k, "function_name": n} for k, n in functions.items()]
    for r in found.get("pgastat", []):
        out["stats$pgastat"].append({**base(r), "name": r["name"], "value": r["value"]})
    for r in found.get("parameter", []):
        out["stats$parameter"].append(
            {
                **base(r),
                "name": r["parameter_name"],
                "value": r["value"],
                "isdefault": r["isdefault"],
                "ismodified": r["ismodified"],
            }
        )
    _sql(found, startup, out)
    _segments(found, startup, out)
    return out


def _running(rows: list[dict], startup: dict, key) -> list[tuple[dict, dict]]:
    """Each row with its key's running sums of `*_delta` over the rows before it of the same instance and startup."""
    sums: dict = {}
    out = []
    for r in sorted(rows, key=lambda r: (r["instance_number"], r["snap_id"])):
        k = (r["instance_number"], startup[(r["instance_number"], r["snap_id"])], key(r))
        acc = sums.setdefault(k, {})
        for c, v in r.items():
            if c.endswith("_delta") and v is not None:  # a figure no section printed stays unknown, not 0
                acc[c] = acc.get(c, 0) + v
        out.append((r, dict(acc)))
    return out


def _sql(found, startup, out):
    texts = {r["sql_id"]: r["sql_text"] or "" for r in found.get("sqltext", [])}
    last: dict = {}
    for r, acc in _running(found.get("sqlstat", []), startup, lambda r: r["sql_id"]):
        text = texts.get(r["sql_id"], "")
        ohv = int(r["sql_id"]) if r["sql_id"].isdigit() else 0
        out["stats$sql_summary"].append(
            {
                **{k: r[k] for k in ("snap_id", "dbid", "instance_number", "sql_id", "module")},
                "text_subset": text[:SUBSET],
                "old_hash_value": ohv,
                "hash_value": ohv,
                "address": f"{ohv:016X}",
                **{col: acc.get(f"{m}_delta") for m, col in SQL_COLUMNS.items()},
            }
        )
        last[r["sql_id"]] = max(last.get(r["sql_id"], 0), r["snap_id"])
    for sql_id, text in texts.items():
        ohv = int(sql_id) if sql_id.isdigit() else 0
        for k in range(0, max(len(text), 1), PIECE):
            out["stats$sqltext"].append(
                {
                    "old_hash_value": ohv,
                    "text_subset": text[:SUBSET],
                    "piece": k // PIECE,
                    "sql_id": sql_id,
                    "sql_text": text[k : k + PIECE],
                    "address": f"{ohv:016X}",
                    "last_snap_id": last.get(sql_id),
                }
            )


def _segments(found, startup, out):
    ident = ("ts_num", "obj_num", "dataobj_num")
    for r, acc in _running(found.get("seg_stat", []), startup, lambda r: tuple(r[k] for k in ident)):
        out["stats$seg_stat"].append(
            {
                **{k: r[k] for k in ("snap_id", "dbid", "instance_number", *ident)},
                **{col: acc[f"{m}_delta"] for m, col in SEGMENT_COLUMNS.items() if f"{m}_delta" in acc},
            }
        )
    for r in found.get("seg_stat_obj", []):
        keep = ("dbid", *ident, "owner", "object_name", "subobject_name", "object_type", "tablespace_name")
        out["stats$seg_stat_obj"].append({k: r.get(k) for k in keep})


def write(raw, dbid: int, found: dict[str, list[dict]]) -> None:
    """The database's STATS$ rows written again whole on a DB-API connection (sqlite3): its own rows deleted, then
    inserted; the shared names replaced."""
    from app.store.statspack.tables import tables

    md = tables(None)
    stats = rows(found)
    for name in (*BY_DBID, *SHARED):
        table = md.tables[name]
        if name in BY_DBID:
            raw.execute(f'DELETE FROM "{name}" WHERE dbid = ?', (dbid,))
        if not stats[name]:
            continue
        columns = list(table.columns)
        names = ", ".join(f'"{c.name}"' for c in columns)
        verb = "INSERT" if name in BY_DBID else "INSERT OR REPLACE"
        raw.executemany(
            f'{verb} INTO "{name}" ({names}) VALUES ({", ".join("?" * len(columns))})',
            [tuple(r.get(c.key) for c in columns) for r in stats[name]],
        )
