"""Tablespaces over a range: used, allocated and maximum size over time, the latest of each (MB), and when each
reaches its maximum at the range's growth (docs/awr-rules.md §16)."""

from datetime import datetime, timedelta
from statistics import linear_regression

from app import analysis
from app.history.database import Database, Range
from app.history.numbers import drawn, round4
from app.store.awr import queries
from app.units import MIB

DEFAULT_BLOCK_SIZE = 8192  # bytes, when the view has no block size for a tablespace (12.1: docs/awr-rules.md §16)
HORIZON_DAYS = 365  # a forecast further out than this is "not within a year"
DAY = 86400.0


def forecast(pts: list, block: int) -> dict:
    """When the tablespace reaches its maximum at the range's growth: the least-squares line of used MB over the
    snapshots' times (docs/awr-rules.md §16), from the last snapshot's used size. {growth_mb_per_day, full_at (ISO,
    the database's offset; None beyond HORIZON_DAYS or not growing), forecast (what it says), and the projection's
    two points (time, MB) for the chart: from the last snapshot to the maximum, where that is within the horizon}."""
    used = [p[3] * block / MIB for p in pts]
    last, top = pts[-1][0], pts[-1][2] * block / MIB
    if len(pts) < 2 or pts[-1][0].epoch - pts[0][0].epoch < 3600:
        return {"growth_mb_per_day": None, "full_at": None, "forecast": "too short to tell", "projection": []}
    slope = linear_regression([(p[0].epoch - pts[0][0].epoch) / DAY for p in pts], used).slope
    out = {"growth_mb_per_day": round4(slope), "full_at": None, "projection": []}
    if top <= 0:
        return out | {"forecast": "no maximum size"}
    if used[-1] >= top:
        return out | {"forecast": "full", "full_at": last.time}
    if slope <= 0:
        return out | {"forecast": "not growing"}
    days = (top - used[-1]) / slope
    if days > HORIZON_DAYS:
        return out | {"forecast": "not within a year"}
    end = datetime.fromisoformat(last.time) + timedelta(days=days)
    out["projection"] = [[last.time, round4(used[-1])], [end.isoformat(timespec="seconds"), round4(top)]]
    return out | {"forecast": f"full by {end:%Y-%m-%d}", "full_at": end.isoformat(timespec="seconds")}


def compute(db: Database, rng: Range, max_points=2000, with_series=True) -> dict:
    """Each tablespace's latest sizes and growth over the range (rows) and, `with_series`, its sizes over time."""
    when = db.timeline().lowest
    raw = db.rows(queries.tablespaces(db.store.views), lo=rng.lo, hi=rng.hi) if rng.lo is not None else []
    per: dict = {}  # per container and tablespace: in a CDB root every PDB has its SYSTEM, SYSAUX...
    for snap, con_dbid, name, contents, block, size, maxsize, used in raw:
        if snap in when:
            key = (con_dbid, name, contents, block or DEFAULT_BLOCK_SIZE)
            per.setdefault(key, []).append((when[snap], size, maxsize, used))
    rows, series = [], []
    names = db.containers()
    for (con_dbid, name, contents, block), pts in sorted(per.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1:])):
        pts.sort(key=lambda p: p[0].snap_id)  # in time order already, but for a name two TS# have had (queries)
        last = pts[-1]
        ahead = forecast(pts, block)
        rows.append(
            {
                "tablespace": name,
                "con_dbid": con_dbid,
                "container": names.get(con_dbid),
                "contents": contents,
                "used_mb": round4(last[3] * block / MIB),
                "size_mb": round4(last[1] * block / MIB),
                "max_mb": round4(last[2] * block / MIB),
                "used_pct_of_max": round4(100 * last[3] / last[2]) if last[2] else None,
                "growth_mb": round4((last[3] - pts[0][3]) * block / MIB),
                **{k: ahead[k] for k in ("growth_mb_per_day", "full_at", "forecast", "projection")},
            }
        )
        for metric, idx in (("used", 3), ("size", 1), ("max", 2)) if with_series else ():
            values = analysis.lttb([(p[0].time, p[0].epoch, p[idx] * block / MIB) for p in pts], max_points)
            series.append(
                {
                    "tablespace": name,
                    "con_dbid": con_dbid,
                    "container": names.get(con_dbid),
                    "metric": metric,
                    "unit": "MB",
                    "points": drawn(values),
                }
            )
    return {
        "db": db.key,
        "range": rng.public(),
        "columns": [
            "tablespace",
            "con_dbid",
            "container",
            "contents",
            "used_mb",
            "size_mb",
            "max_mb",
            "used_pct_of_max",
            "growth_mb",
            "growth_mb_per_day",
            "full_at",
            "forecast",
            "projection",
        ],
        "rows": rows,
        "series": series,
    }
