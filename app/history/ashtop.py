"""ashtop's table from Active Session History (docs/awr-rules.md §22): the samples of a range or window grouped by
several dimensions at once (`sql_id,event`, `module,action`, `user,program`...), each group with its AAS, its share
of the activity, its distinct sessions and when it was first and last seen, the largest first; filtered as Top
activity is. Ids are named as everywhere in ASH (app/history/names.py)."""

from datetime import datetime, timedelta, timezone

from app import analysis
from app.errors import BadParameter
from app.history import activity, live_buffer
from app.history.database import Database, Range, offset
from app.history.numbers import round4
from app.store.awr import queries
from app.store.awr.embedded.ash import ASH_TOP_SPANS

MOST_DIMENSIONS = 3
COLUMNS = ("samples", "aas", "pct_activity", "sessions", "first_seen", "last_seen")  # after each group's values


def compute(db: Database, rng: Range, group_by: list, filters: dict | None = None) -> dict:
    group_by = list(dict.fromkeys(group_by))
    if not 1 <= len(group_by) <= MOST_DIMENSIONS:
        raise BadParameter(f"group_by takes 1 to {MOST_DIMENSIONS} dimensions, got {len(group_by)}", "group_by")
    filters = filters or {}
    binds = activity.filter_binds(filters, db.dbid)
    sampled = activity.sampled_range(db, rng)
    body = {
        "db": db.key,
        "range": activity.public_range(rng, sampled[0]) if sampled else rng.public(),
        "group_by": group_by,
        "filters": filters,
        "unit": "sessions",
        "sample_seconds": None,
        "total_samples": 0,
        "rows": [],
        "columns": [*group_by, *(f"{d}_label" for d in group_by), *COLUMNS],
    }
    if sampled is None:
        body["reason"] = "the range holds no interval"
        return body
    read, first, seconds, by_time, live = sampled
    step = activity.spacing(db, read)
    widths = [len(queries.DIMENSIONS[d](db.store.views.active_sess_history)) for d in group_by]
    runs = list(activity.sampled_runs(db, sampled, binds))
    if len(runs) > 1:  # SNAP_TIMEZONE changes inside: each group's sessions read, to count each once over the runs
        found, total = _across_runs(db, sampled, runs, group_by, widths, filters)
    elif _counted(db, sampled, group_by, filters):
        found, total = _from_counts(db, sampled, runs[0], group_by, widths, filters)
    else:
        found, total = {}, 0  # group -> (samples, sessions, (first seen, last seen))
        for t0, inst, where in runs:
            keys = _filter_keys(filters, inst)
            stmt = queries.activity_groups(db.store.views, tuple(group_by), keys, by_time, live, db.store.ash_coded)
            tz = offset(first) + (t0 - first.end).total_seconds()  # the run's own offset (activity._runs)
            rows = db.rows(stmt, **where)
            total = rows[0][-1] if rows else 0  # every group's samples, over () before the limit
            for *key, samples, sessions, seen0, seen1, _ in rows:
                found[_split(group_by, widths, key, db.dbid)] = (
                    samples,
                    sessions,
                    (_stamp(seen0, tz), _stamp(seen1, tz)),
                )
    names = {d: activity.display_names(db, d, {g[k] for g in found}) for k, d in enumerate(group_by)}
    ranked = sorted(found.items(), key=lambda x: (-x[1][0], [str(v) for v in x[0]]))[: queries.TOP_GROUP_ROWS]
    for group, (samples, sessions, (seen0, seen1)) in ranked:
        row = dict(zip(group_by, group, strict=True))
        row |= {
            f"{d}_label": names[d].get(v) or str(activity.named(d, v)) for d, v in zip(group_by, group, strict=True)
        }
        row |= {
            "samples": samples,
            "aas": round4(samples * step / seconds) if seconds else None,
            "pct_activity": round4(100 * samples / total) if total else None,
            "sessions": sessions,
            "first_seen": seen0,
            "last_seen": seen1,
        }
        body["rows"].append(row)
    body.update(sample_seconds=step, total_samples=total)
    if live:
        body["live"] = live_buffer.note(read)
    return body


COUNTED = ("sql_id", "event")  # the dimensions the embedded store counts per block and session (ASH_TOP's ashtop)
COUNTED_FROM = ASH_TOP_SPANS[0]  # snapshot ids: a shorter range reads its samples faster than its blocks


def _counted(db: Database, sampled, group_by: list, filters: dict) -> bool:
    """Whether the embedded store's counts per block answer: its coded samples and counts, the history (not the live
    buffer) over COUNTED_FROM snapshot ids or more, dimensions it counts and no filter but the instance."""
    store = db.store
    return (
        store.ash_top
        and store.ash_coded
        and not sampled.live
        and sampled.read.hi - sampled.read.lo >= COUNTED_FROM
        and set(group_by) <= set(COUNTED)
        and set(filters) <= {"instance"}
    )


def _from_counts(db: Database, sampled, run: tuple, group_by: list, widths: list, filters: dict):
    """_across_runs' answer of one run from the counts per block and session of the snapshots wholly inside the range
    or window and the samples inside it of the snapshots it cuts (activity.edges)."""
    t0, inst, where = run
    keys = _filter_keys(filters, inst)
    read = sampled.read
    binds = {**where}
    if sampled.by_time:
        binds["edge_snaps"] = activity.edges(db, read, *read.window)
    cut = set(binds.get("edge_snaps", ()))
    binds |= activity.inner_blocks([s for s in range(read.lo + 1, read.hi + 1) if s not in cut])
    stmt = queries.activity_groups_counted(db.store.views, tuple(group_by), keys, sampled.by_time)
    tz = offset(sampled.first) + (t0 - sampled.first.end).total_seconds()
    rows = db.rows(stmt, **binds)
    found = {
        _split(group_by, widths, key, db.dbid): (samples, sessions, (_stamp(seen0, tz), _stamp(seen1, tz)))
        for *key, samples, sessions, seen0, seen1, _ in rows
    }
    return found, rows[0][-1] if rows else 0


def _across_runs(db, sampled, runs: list, group_by: list, widths: list, filters: dict):
    """({group: (samples, distinct sessions, (first seen, last seen))}, every sample) of a window read a run of one
    offset at a time (activity._runs): each group's sessions from every run, each session counted once."""
    first = sampled.first
    per: dict = {}  # group -> [samples, {session}, [seen...]]
    total = 0
    for t0, inst, where in runs:
        keys = _filter_keys(filters, inst)
        stmt = queries.activity_group_sessions(db.store.views, tuple(group_by), keys, sampled.by_time)
        tz = offset(first) + (t0 - first.end).total_seconds()
        for row in db.rows(stmt, **where):
            *key, samples, seen0, seen1 = row
            g = per.setdefault(_split(group_by, widths, key[: sum(widths)], db.dbid), [0, set(), []])
            g[0] += samples
            g[1].add(tuple(key[sum(widths) :]))
            g[2] += [_stamp(seen0, tz), _stamp(seen1, tz)]
            total += samples
    found = {
        group: (n, len(sessions), (min(seen, key=_instant), max(seen, key=_instant)))
        for group, (n, sessions, seen) in per.items()
    }
    return found, total


def _filter_keys(filters: dict, inst) -> tuple:
    """The filters a run's statement binds: the request's, and the run's own instance where it has one."""
    return tuple(sorted(filters)) if inst is None else tuple(sorted({*filters, "instance"}))


def _split(group_by: list, widths: list, key: list, dbid: int) -> tuple:
    """A group's values, one per dimension, as the answers name them (activity.label)."""
    out, at = [], 0
    for name, width in zip(group_by, widths, strict=True):
        out.append(activity.label(name, tuple(key[at : at + width]), dbid))
        at += width
    return tuple(out)


def _instant(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def _stamp(value, tz_seconds: float) -> str:
    """A SAMPLE_TIME (local) as ISO 8601 with its run's offset."""
    moment = analysis.as_datetime(value)
    return analysis.iso(moment.replace(tzinfo=timezone(timedelta(seconds=tz_seconds))))
