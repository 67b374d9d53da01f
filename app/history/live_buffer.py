"""A window of the live buffer, GV$ACTIVE_SESSION_HISTORY (docs/awr-rules.md §30): the last minutes to the database's
now, or a window pinned by its from/to, with what the buffer still holds; every ASH answer reads it as it reads a
window of the history (app/history/activity.py)."""

from datetime import datetime, timedelta, timezone

from app import analysis
from app.errors import BadParameter
from app.history.database import Database, Range
from app.store.awr import queries

SPACING = 1.0  # seconds between V$ACTIVE_SESSION_HISTORY's samples: once a second (Database Reference)
MINUTES = 15  # a live window's minutes unless asked
MOST_MINUTES = 180


def window(db: Database, start: datetime | None, end: datetime | None, minutes: int | None) -> Range:
    """A window of the live buffer (docs/awr-rules.md §30): from `start` to `end` (a date-time without an offset in
    the database's zone), or the last `minutes` to the database's now (queries.live_clock); its `live` the buffer's
    now and oldest sample (the latest of the instances' oldest: from then on every instance's are all there)."""
    rows = db.rows(queries.live_clock(db.store.views))
    if not rows:
        raise BadParameter("the live buffer (GV$ACTIVE_SESSION_HISTORY) holds no sample of this database", "ash")
    zone = rows[0][4]
    tz = db.tz() if not zone else timezone(timedelta(hours=int(zone[:3]), minutes=int(zone[0] + zone[4:6])))
    now = analysis.as_datetime(rows[0][3]).replace(tzinfo=tz)
    oldest = max((analysis.as_datetime(r[1]) for r in rows if r[1] is not None), default=None)
    local = [m if m is None or m.tzinfo else m.replace(tzinfo=tz) for m in (start, end)]
    if (start is None) != (end is None):
        raise BadParameter(
            "a live window is from and to, or neither (the last minutes to now)", "from" if end else "to"
        )
    if start is None:
        t1 = now.timestamp()
        t0 = t1 - 60 * (minutes or MINUTES)
    else:
        t0, t1 = local[0].timestamp(), local[1].timestamp()
        if t0 >= t1:
            raise BadParameter("from must be before to", "from")
        if t1 - t0 > 60 * MOST_MINUTES:
            raise BadParameter(f"a live window is at most {MOST_MINUTES} minutes; narrow it", "from")
    stamp = [analysis.iso(datetime.fromtimestamp(t, tz)) for t in (t0, t1)]
    held = analysis.iso(oldest.replace(tzinfo=tz)) if oldest else None
    return Range(None, None, *stamp, False, (t0, t1), (analysis.iso(now), held))


def note(rng: Range) -> dict | None:
    """What an answer of the live buffer says of it: its now and oldest sample, and where the window starts before
    that, that one-second samples age out (the history keeps one in ten)."""
    if rng.live is None:
        return None
    now, oldest = rng.live
    note = {"now": now, "oldest_sample": oldest}
    if oldest is None or analysis.as_datetime(oldest).timestamp() > rng.window[0] + SPACING:  # (w0, w1]
        note["aged_out"] = (
            "one-second samples before "
            + (oldest or "now")
            + " have aged out of the in-memory buffer; the history keeps one in ten (ash=history)"
        )
    return note
