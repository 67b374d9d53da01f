"""The demo's AWR baselines (docs/awr-rules.md §33): the moving window Oracle keeps for every database
(SYSTEM_MOVING_WINDOW, 8 days to the newest snapshot) and a static baseline a DBA made of the days before the
database's story, a normal period to compare the story with."""

from datetime import timedelta

from app.demo.workload import fmt

MOVING_WINDOW_DAYS = 8  # DBMS_WORKLOAD_REPOSITORY's default window size
BEFORE_DAYS = 3  # the static baseline's length, ending at its story
KEPT_DAYS = 90  # the static baseline's EXPIRATION: kept 90 days after it was made


def rows(db, times: list, stories: dict) -> list[tuple]:
    """DBA_HIST_BASELINE's rows of `db` (its snapshots `times`: (snap_id, local time, flag)), in the view's column
    order: DBID, BASELINE_ID, NAME, TYPE, START_SNAP_ID, START_SNAP_TIME, END_SNAP_ID, END_SNAP_TIME,
    MOVING_WINDOW_SIZE, CREATION_TIME, EXPIRATION, TEMPLATE_NAME, LAST_TIME_COMPUTED."""

    def first_at(moment):  # the first snapshot at or after a moment
        return next((s, t) for s, t, _ in times if t >= moment)

    def last_before(moment):  # the last snapshot before a moment
        return [(s, t) for s, t, _ in times if t < moment][-1]

    end_id, end_t = times[-1][0], times[-1][1]
    start_id, start_t = first_at(end_t - timedelta(days=MOVING_WINDOW_DAYS))
    out = [
        (db.dbid, 0, "SYSTEM_MOVING_WINDOW", "MOVING_WINDOW", start_id, fmt(start_t), end_id, fmt(end_t),
         MOVING_WINDOW_DAYS, fmt(times[0][1]), None, None, fmt(end_t)),
    ]  # fmt: skip
    story = next(
        (
            (name, stories[key][at])
            for key, at, name in (
                ("async_io_fix", "startup", "BEFORE_ASYNC_IO_FIX"),
                ("plan_regression", "from", "BEFORE_PLAN_REGRESSION"),
            )
            if stories[key]["db"] is db
        ),
        None,
    )
    if story:
        name, at = story
        lo, hi = first_at(at - timedelta(days=BEFORE_DAYS)), last_before(at)
        created = hi[1] + timedelta(hours=2)
        out.append(
            (db.dbid, 1, name, "STATIC", lo[0], fmt(lo[1]), hi[0], fmt(hi[1]), None, fmt(created), KEPT_DAYS, None,
             fmt(created))
        )  # fmt: skip
    return out
