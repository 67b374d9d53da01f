"""Active Session History from Oracle's view (docs/awr-rules.md §22): the dimensions samples are grouped by, top
activity, its top lists, the blocking sessions and the samples' spacing. The embedded store answers some of these
from its own tables instead (a statement's `coded` or `blocks`): from its coded samples (ash_coded) or its counts
(ash_counts), which build on the same samples (ash_samples)."""

from app.store.awr.queries.ash_coded import _activity_coded, _activity_groups_coded
from app.store.awr.queries.ash_counts import _activity_top_counted, _blocking_counted
from app.store.awr.queries.ash_samples import *  # noqa: F403  (the dimensions and top lists, with the statements)
from app.store.awr.queries.ash_samples import (
    DIMENSIONS,
    ON_CPU,
    TOP_ACTIVITY_ROWS,
    TOP_GROUP_ROWS,
    ZONE_FORMAT,
    _ash_where,
    _bucket,
    _cpu_or,
    _dialect_function,
    _samples,
    session_number,
)
from app.store.awr.queries.core import statement
from app.store.awr.views import Views


def _table(v: Views, live: bool):
    """The samples read: the history's (DBA_HIST_ACTIVE_SESS_HISTORY), or with `live` the in-memory buffer's
    (GV$ACTIVE_SESSION_HISTORY, read by a window of sample times: docs/awr-rules.md §30)."""
    return v.live_ash if live else v.active_sess_history


@statement
def activity(v: Views, group_by: str, filters: tuple = (), coded: bool = False, window: bool = False, live=False):
    """Samples per time bucket and group (`group_by` a key of DIMENSIONS, `filters` keys whose values are bound); with
    `coded`, over the embedded store's coded samples (embedded.ash.ASH_BASE), the groups named once counted; with
    `window`, the samples of a window of sample times (w0, w1] only; `live`: those of the live buffer's window."""
    from sqlalchemy import func, select

    if coded and not live:
        return _activity_coded(group_by, filters, window)
    t = _table(v, live)
    s = _samples(t, (_bucket(t), *DIMENSIONS[group_by](t)), filters, window=window)
    keys = list(s.c)
    return select(*keys, func.count().label("samples")).group_by(*keys)


@statement
def activity_top(v: Views, group_by: str, filters: tuple = (), blocks: bool = False, window: bool = False, live=False):
    """The groups with the most samples over the range, each with its samples on CPU; on the embedded store that
    keeps embedded.ash.ASH_TOP (`blocks`), from its counts; with `window`, of a window of sample times only; `live`:
    of the live buffer's window."""
    from sqlalchemy import bindparam, case, func, select

    if blocks and not live:
        return _activity_top_counted(group_by, filters)
    t = _table(v, live)
    on_cpu = case((t.c.session_state == bindparam("on_cpu", ON_CPU), t.c.sample_id))
    s = _samples(t, (*DIMENSIONS[group_by](t), on_cpu), filters, window=window)
    *keys, cpu = list(s.c)
    samples = func.count()
    return (
        select(*keys, samples.label("samples"), func.count(cpu).label("on_cpu"))
        .group_by(*keys)
        .order_by(samples.desc(), *keys)
        .limit(TOP_ACTIVITY_ROWS)
    )


@statement
def blocking(v: Views, filters: tuple = (), blocks: bool = False, window: bool = False, live: bool = False):
    """Blocking sessions and the events their waiters wait on: waiters' samples and distinct waiting sessions; with
    `blocks`, from embedded.ash.ASH_TOP's counts; with `window`, of a window of sample times only; `live`: of the
    live buffer's window."""
    from sqlalchemy import func, select

    if blocks and not live:
        return _blocking_counted(filters)
    t = _table(v, live)
    s = _samples(
        t,
        (t.c.blocking_inst_id, t.c.blocking_session, t.c.blocking_session_serial, t.c.event, t.c.session_id),
        filters,
        (t.c.blocking_session.isnot(None),),
        window,
    )
    *keys, waiter = list(s.c)
    samples = func.count()
    return (
        select(*keys, samples.label("samples"), func.count(waiter.distinct()).label("waiters"))
        .group_by(*keys)
        .order_by(samples.desc(), *keys)
        .limit(TOP_ACTIVITY_ROWS)
    )


@statement
def activity_groups(
    v: Views, group_by: tuple, filters: tuple = (), window: bool = False, live: bool = False, coded: bool = False
):
    """ashtop's table (docs/awr-rules.md §22): the samples grouped by several dimensions at once (`group_by`, keys of
    DIMENSIONS), each group with its samples, its distinct sessions (instance, SID, serial#), its first and last
    SAMPLE_TIME, and every group's samples together (`total`); the TOP_GROUP_ROWS largest groups. The filters as in
    activity; with `window`, the samples of a window of sample times only; `live`: of the live buffer's window; with
    `coded`, over the embedded store's coded samples (embedded.ash.ASH_BASE), each group named once."""
    from sqlalchemy import func, select

    if coded and not live:
        return _activity_groups_coded(group_by, filters, window)
    t = _table(v, live)
    columns = [c for name in group_by for c in DIMENSIONS[name](t)]
    session = DIMENSIONS["session"](t)
    s = _samples(t, (*columns, *session, t.c.sample_time), filters, window=window)
    *keys, sample_time = list(s.c)
    keys, sessions = keys[: len(columns)], keys[len(columns) :]
    per_session = (
        select(
            *keys,
            func.count().label("samples"),
            func.min(sample_time).label("first_seen"),
            func.max(sample_time).label("last_seen"),
        )
        .group_by(*keys, *sessions)
        .subquery()
    )
    outer = [per_session.c[k.name] for k in keys]
    samples = func.sum(per_session.c.samples)
    return (
        select(
            *outer,
            samples.label("samples"),
            func.count().label("sessions"),
            func.min(per_session.c.first_seen),
            func.max(per_session.c.last_seen),
            func.sum(samples).over().label("total"),
        )
        .group_by(*outer)
        .order_by(samples.desc(), *outer)
        .limit(TOP_GROUP_ROWS)
    )


@statement
def activity_group_sessions(v: Views, group_by: tuple, filters: tuple = (), window: bool = False):
    """activity_groups' groups per session (instance, SID, serial#) too, each with its samples and first and last
    SAMPLE_TIME, every one: a window across a change of SNAP_TIMEZONE, read a statement per run, counts each session
    once over the runs (history.ashtop)."""
    from sqlalchemy import func, select

    t = v.active_sess_history
    columns = [c for name in group_by for c in DIMENSIONS[name](t)]
    s = _samples(t, (*columns, *DIMENSIONS["session"](t), t.c.sample_time), filters, window=window)
    *keys, sample_time = list(s.c)
    return select(*keys, func.count().label("samples"), func.min(sample_time), func.max(sample_time)).group_by(*keys)


@statement
def wait_chains(v: Views, window: bool = False, filters: tuple = (), live: bool = False):
    """The samples of the sessions in a wait chain (docs/awr-rules.md §22): every sample of a session blocked at some
    sample (BLOCKING_SESSION set) or blocking another (its instance, SID and serial# among the blocked samples'
    BLOCKING_INST_ID, BLOCKING_SESSION and BLOCKING_SESSION_SERIAL#), counted per session, blocker,
    state, event, SQL_ID, user, program, machine and object; with `window`, of a window of sample times only;
    `filters` (the instance, in a run of one instance's snapshots) narrow the samples counted, not the blockers; with
    the session among them, that session's samples whether or not it is in a chain in the same run (one found in a
    run of another SNAP_TIMEZONE: history.chains); `live`: of the live buffer's window."""
    from sqlalchemy import func, select, tuple_

    t = _table(v, live)
    blocked = (*_ash_where(t, (), window), t.c.blocking_session.isnot(None))
    blockers = select(t.c.blocking_inst_id, t.c.blocking_session, t.c.blocking_session_serial).where(*blocked)
    waiters = select(t.c.instance_number, t.c.session_id, t.c.session_serial).where(*blocked)
    session = tuple_(t.c.instance_number, t.c.session_id, t.c.session_serial)
    s = _samples(
        t,
        (
            t.c.instance_number,
            t.c.session_id,
            t.c.session_serial,
            t.c.blocking_inst_id,
            t.c.blocking_session,
            t.c.blocking_session_serial,
            t.c.session_state,
            _cpu_or(t, t.c.event),
            t.c.sql_id,
            *DIMENSIONS["user"](t),
            t.c.program,
            t.c.machine,
            *DIMENSIONS["current_obj"](t),
        ),
        filters,
        () if "session" in filters else (session.in_(waiters) | session.in_(blockers),),
        window,
    )
    keys = list(s.c)
    samples = func.count()
    return select(*keys, samples.label("samples")).group_by(*keys).order_by(samples.desc(), *keys)


@statement
def session_details(v: Views, window: bool = False, live: bool = False, filters: tuple = ()):
    """Who the sessions bound as `sessions` (session_number each: the top sessions') are: their samples of the range
    per user (DIMENSIONS), program and machine; with `window`, of a window of sample times; `live`, of the live
    buffer's; `filters`: the instance, in a run of one instance's snapshots."""
    from sqlalchemy import bindparam, func, select

    t = _table(v, live)
    s = _samples(
        t,
        (*DIMENSIONS["session"](t), *DIMENSIONS["user"](t), t.c.program, t.c.machine),
        filters,
        (session_number(t).in_(bindparam("sessions", expanding=True)),),
        window or live,
    )
    keys = list(s.c)
    return select(*keys, func.count().label("samples")).group_by(*keys)


@statement
def ash_first_snap(v: Views):
    """The first snapshot whose interval AWR kept Active Session History samples of (docs/awr-rules.md §22): before
    it a chart of ASH has no samples to draw, which is not no activity."""
    from sqlalchemy import bindparam, func, select

    t = v.active_sess_history
    return select(func.min(t.c.snap_id)).where(t.c.dbid == bindparam("dbid")).group_by(t.c.dbid)  # none: no row


@statement
def sample_spacing(v: Views):
    """Per instance, over one snapshot's samples: the smallest step between kept SAMPLE_IDs, and the first and last
    SAMPLE_ID and SAMPLE_TIME, which give the seconds per SAMPLE_ID: the spacing of the samples AWR kept (§22)."""
    from sqlalchemy import bindparam, func, select

    t = v.active_sess_history
    ids = (
        select(t.c.instance_number, t.c.sample_id, func.min(t.c.sample_time).label("sample_time"))
        .where(t.c.dbid == bindparam("dbid"), t.c.snap_id == bindparam("snap_id"))
        .group_by(t.c.instance_number, t.c.sample_id)
        .subquery()
    )
    steps = select(
        ids.c.instance_number,
        ids.c.sample_id,
        ids.c.sample_time,
        (
            ids.c.sample_id
            - func.lag(ids.c.sample_id).over(partition_by=ids.c.instance_number, order_by=ids.c.sample_id)
        ).label("step"),
    ).subquery()
    return select(
        steps.c.instance_number,
        func.min(steps.c.step),
        func.min(steps.c.sample_id),
        func.max(steps.c.sample_id),
        func.min(steps.c.sample_time),
        func.max(steps.c.sample_time),
    ).group_by(steps.c.instance_number)


@statement
def live_clock(v: Views):
    """The live buffer's clock (docs/awr-rules.md §30), per instance: its oldest and newest sample (GV$ASH_INFO), and
    the database's now on the clock the samples are stamped with (the server's, SYSTIMESTAMP without its zone) with
    that zone's offset (ZONE_FORMAT, bound). On the embedded store, whose demo stands still, now is its newest sample
    and the offset unknown (null)."""
    from sqlalchemy import bindparam, select

    t = v.ash_info
    now = _dialect_function("database_now", "String", "CAST(SYSTIMESTAMP AS TIMESTAMP)", "max({0}) OVER ()")
    zone = _dialect_function("database_zone", "String", "TO_CHAR(SYSTIMESTAMP, {0})", "NULLIF({0}, {0})")
    where = [t.c.dbid == bindparam("dbid")] if "dbid" in t.c else []
    return (
        select(
            t.c.instance_number,
            t.c.oldest_sample_time,
            t.c.latest_sample_time,
            now(t.c.latest_sample_time).label("database_now"),
            zone(bindparam("zone_format", ZONE_FORMAT)).label("database_zone"),
        )
        .where(*where)
        .order_by(t.c.instance_number)
    )
