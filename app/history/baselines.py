"""AWR baselines (DBA_HIST_BASELINE, docs/awr-rules.md §33): the named snapshot ranges a DBA keeps from purging, and
the moving window, as ranges the page can show and compare: each with its snapshots (begin_snap, end_snap: the
intervals (begin_snap, end_snap], as the AWR report reads a range) and their times."""

from datetime import timedelta, timezone

from app import analysis
from app.history.database import Database, offset
from app.store.awr import queries

COLUMNS = [
    "baseline_id",
    "name",
    "type",
    "begin_snap",
    "end_snap",
    "from",
    "to",
    "moving_window_days",
    "expiration_days",
    "created",
]


def compute(db: Database) -> dict:
    """Every baseline of the database that holds snapshots this history has (a baseline whose snapshots were purged,
    or a moving window not yet computed, is listed with no times), in the order of their first snapshot."""
    tl = db.timeline()
    newest = max(tl.by_id.values(), key=lambda s: s.epoch, default=None)
    rows = []
    for bid, name, kind, lo, hi, window, expiration, created in db.rows(queries.baselines(db.store.views)):
        a, b = tl.lowest.get(lo), tl.lowest.get(hi)
        rows.append(
            {
                "baseline_id": bid,
                "name": name,
                "type": kind,
                "begin_snap": lo,
                "end_snap": hi,
                "from": a.time if a else None,
                "to": b.time if b else None,
                "moving_window_days": window,
                "expiration_days": expiration,
                "created": _stamped(created, b or newest),
            }
        )
    return {"db": db.key, "columns": COLUMNS, "rows": rows}


def _stamped(local, snap) -> str | None:
    """CREATION_TIME (a DATE: database-local) as ISO 8601 with the offset of the snapshot given (the baseline's last,
    or the newest)."""
    if local is None or snap is None:
        return None
    moment = analysis.as_datetime(local).replace(tzinfo=timezone(timedelta(seconds=offset(snap))))
    return moment.isoformat()
