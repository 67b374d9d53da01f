"""Parameters and the changes layer: parameter runs, new plans, versions (docs/awr-rules.md §23)."""

from app.store.awr.queries.core import _intervals, _snap_range, statement
from app.store.awr.views import Views

NOT_SET = "FALSE"  # ISDEFAULT and ISMODIFIED of a parameter the parameter file does not set and no ALTER SYSTEM changed
TOP_NEW_PLANS = 20  # a constant of the code: the new plans listed, by their elapsed time in the range


@statement
def parameters_at(v: Views):
    """The parameters in force at the chosen snapshots (one per instance: its own at or before the one asked)."""
    from sqlalchemy import bindparam, select

    t = v.parameter
    return (
        select(t.c.instance_number, t.c.snap_id, t.c.parameter_name, t.c.value, t.c.isdefault, t.c.ismodified)
        .where(t.c.dbid == bindparam("dbid"), t.c.snap_id.in_(bindparam("snap_ids", expanding=True)))
        .order_by(t.c.instance_number, t.c.parameter_name)
    )


def _differs(new, old):
    """new and old differ, NULL being a value (no literal: DECODE(a, b, 0, 1) would send two)."""
    from sqlalchemy import and_, or_

    return or_(new != old, and_(new.is_(None), old.is_not(None)), and_(new.is_not(None), old.is_(None)))


@statement
def parameter_changes(v: Views, runs: bool = False):
    """Each value of a parameter that differs from the one at the instance's previous snapshot in [lo, hi] (LAG per
    container, instance and parameter, by SNAP_ID: a CDB root holds a row per container), with the old value and its
    snapshot: the changes seen in (lo, hi]. With `runs`, from the embedded store's runs of values
    (embedded.parameters.PARAMETER_BASE, a non-CDB's: CON_DBID is the DBID; `v` unused): where a run follows one of
    another value that lasted until lo or later; the same rows, without a row per snapshot."""
    from sqlalchemy import and_, bindparam, func, select

    if runs:
        from app.store.awr.embedded.parameters import PARAMETER_BASE

        new, old, last = PARAMETER_BASE, PARAMETER_BASE.alias("old"), PARAMETER_BASE.alias("last")

        def same(a):
            return and_(
                a.c.dbid == new.c.dbid,
                a.c.instance_number == new.c.instance_number,
                a.c.parameter_hash == new.c.parameter_hash,
            )

        before = (
            select(func.max(last.c.first_snap))
            .where(same(last), last.c.first_snap < new.c.first_snap)
            .scalar_subquery()
        )
        return (
            select(
                new.c.instance_number,
                new.c.first_snap,
                new.c.parameter_name,
                old.c.value,
                new.c.value,
                old.c.last_snap,
                new.c.isdefault,
                new.c.ismodified,
                new.c.dbid.label("con_dbid"),
            )
            .join_from(new, old, and_(same(old), old.c.first_snap == before))
            .where(
                new.c.dbid == bindparam("dbid"),
                new.c.first_snap > bindparam("lo"),
                new.c.first_snap <= bindparam("hi"),
                old.c.last_snap >= bindparam("lo"),
                _differs(new.c.value, old.c.value),
            )
            .order_by(new.c.first_snap, new.c.instance_number, new.c.parameter_name)
        )
    t = v.parameter
    window = {"partition_by": (t.c.con_dbid, t.c.instance_number, t.c.parameter_hash), "order_by": t.c.snap_id}
    seen = (
        select(
            t.c.instance_number,
            t.c.snap_id,
            t.c.parameter_name,
            t.c.value,
            t.c.isdefault,
            t.c.ismodified,
            t.c.con_dbid,
            func.lag(t.c.value).over(**window).label("old_value"),
            func.lag(t.c.snap_id).over(**window).label("old_snap_id"),
        )
        .where(_snap_range(t))
        .subquery("seen")
    )
    new, old = seen.c.value, seen.c.old_value
    return (
        select(
            seen.c.instance_number,
            seen.c.snap_id,
            seen.c.parameter_name,
            old,
            new,
            seen.c.old_snap_id,
            seen.c.isdefault,
            seen.c.ismodified,
            seen.c.con_dbid,
        )
        .where(seen.c.snap_id > bindparam("lo"), seen.c.old_snap_id.is_not(None), _differs(new, old))
        .order_by(seen.c.snap_id, seen.c.instance_number, seen.c.parameter_name, seen.c.con_dbid)
    )


@statement
def non_default_parameters(v: Views, runs: bool = False):
    """The parameters not at their default in [lo, hi]: set in the parameter file (ISDEFAULT FALSE) or changed since
    the startup (ISMODIFIED not FALSE); per instance and value, its first and last snapshot. With `runs`, the
    embedded store's runs of such values that overlap [lo, hi] (embedded.parameters.PARAMETER_BASE), for the caller to
    clip to the range's snapshots and group."""
    from sqlalchemy import bindparam, func, or_, select

    unset = bindparam("not_set", NOT_SET)
    if runs:
        from app.store.awr.embedded.parameters import PARAMETER_BASE as b

        return (
            select(b.c.instance_number, b.c.parameter_name, b.c.value, b.c.first_snap, b.c.last_snap)
            .where(
                b.c.dbid == bindparam("dbid"),
                b.c.first_snap <= bindparam("hi"),
                b.c.last_snap >= bindparam("lo"),
                or_(b.c.isdefault == unset, b.c.ismodified != unset),
            )
            .order_by(b.c.parameter_name, b.c.instance_number, b.c.first_snap)
        )
    t = v.parameter
    return (
        select(t.c.instance_number, t.c.parameter_name, t.c.value, func.min(t.c.snap_id), func.max(t.c.snap_id))
        .where(_snap_range(t), or_(t.c.isdefault == unset, t.c.ismodified != unset))
        .group_by(t.c.instance_number, t.c.parameter_name, t.c.value)
        .order_by(t.c.parameter_name, t.c.instance_number, func.min(t.c.snap_id))
    )


@statement
def new_plans(v: Views, firsts: bool = False):
    """Plans first seen in (lo, hi]: per statement, plan, container and instance, the first snapshot of the plan in
    the range, its elapsed time and executions there, for plans no earlier snapshot of any instance has; and the plan
    of the statement's latest snapshot before (none: a new statement, not a new plan). The TOP_NEW_PLANS largest by
    elapsed time. SQL_ID is the leading key of the lookups (Oracle's WRH$_SQLSTAT index and the store's). With
    `firsts` (embedded.summaries.PLAN_FIRSTS), only the plans whose first snapshot of an instance is in the range are
    summed: a plan an instance ran before the range has an earlier snapshot, so it is never new there; and whether
    any instance ran the plan before is a lookup there too, not a scan of the statement's earlier rows."""
    from sqlalchemy import bindparam, exists, func, select

    t = v.sqlstat
    if firsts:
        f = _plan_firsts(v)

        def in_range(column):
            own = t.alias("own")
            return (
                select(func.sum(own.c[column]))
                .where(
                    own.c.dbid == bindparam("dbid"),
                    own.c.sql_id == f.c.sql_id,
                    own.c.snap_id > bindparam("lo"),
                    own.c.snap_id <= bindparam("hi"),
                    own.c.plan_hash_value == f.c.plan_hash_value,
                    own.c.con_dbid == f.c.con_dbid,
                    own.c.instance_number == f.c.instance_number,
                )
                .scalar_subquery()
            )

        r = (
            select(
                f.c.sql_id,
                f.c.plan_hash_value,
                f.c.con_dbid,
                f.c.instance_number,
                f.c.first_snap,
                in_range("elapsed_time_delta").label("elapsed"),
                in_range("executions_delta").label("executions"),
            )
            .where(f.c.dbid == bindparam("dbid"), f.c.first_snap > bindparam("lo"), f.c.first_snap <= bindparam("hi"))
            .subquery("r")
        )
    else:
        r = (
            select(
                t.c.sql_id,
                t.c.plan_hash_value,
                t.c.con_dbid,
                t.c.instance_number,
                func.min(t.c.snap_id).label("first_snap"),
                func.sum(t.c.elapsed_time_delta).label("elapsed"),
                func.sum(t.c.executions_delta).label("executions"),
            )
            .where(_intervals(t))
            .group_by(t.c.sql_id, t.c.plan_hash_value, t.c.con_dbid, t.c.instance_number)
            .subquery("r")
        )
    # with `firsts`, whether the plan ran before is a lookup of its first snapshots, not a scan of earlier rows
    same = (f if firsts else t).alias("same_plan")
    before = same.c.first_snap if firsts else same.c.snap_id
    statement_of, _, previous = _statement_before(t, r, r.c.first_snap)
    seen_before = exists().where(
        statement_of(same), same.c.plan_hash_value == r.c.plan_hash_value, before < r.c.first_snap
    )
    return (
        select(
            r.c.sql_id,
            r.c.plan_hash_value,
            r.c.con_dbid,
            r.c.instance_number,
            r.c.first_snap,
            r.c.elapsed,
            r.c.executions,
            previous.label("previous_plan"),
        )
        .where(~seen_before, previous.is_not(None))
        .order_by(r.c.elapsed.desc(), r.c.sql_id, r.c.instance_number)
        .limit(TOP_NEW_PLANS)
    )


def _plan_firsts(v: Views):
    """Each plan's first snapshot per statement, container and instance: the embedded store's summary of
    DBA_HIST_SQLSTAT (embedded.summaries.PLAN_FIRSTS), or what the views keep of their own (Statspack's plan usage)."""
    from app.store.awr.embedded.summaries import PLAN_FIRSTS

    kept = getattr(v, "plan_firsts", None)
    return PLAN_FIRSTS if kept is None else kept


def _statement_before(t, r, snap):
    """For the rows of subquery `r` (sql_id, con_dbid) at snapshot column `snap`: the condition that a row of an alias
    of `t` is the same statement, the statement's previous snapshot (of any instance) and the plan it ran there (the
    lowest, where several)."""
    from sqlalchemy import and_, bindparam, func, select

    earlier, latest = t.alias("earlier"), t.alias("latest")

    def statement_of(a):
        return and_(a.c.dbid == bindparam("dbid"), a.c.sql_id == r.c.sql_id, a.c.con_dbid == r.c.con_dbid)

    last_snap = (
        select(func.max(latest.c.snap_id))
        .where(statement_of(latest), latest.c.snap_id < snap)
        .correlate(r)
        .scalar_subquery()
    )
    previous = (
        select(func.min(earlier.c.plan_hash_value))
        .where(statement_of(earlier), earlier.c.snap_id == last_snap)
        .correlate(r)
        .scalar_subquery()
    )
    return statement_of, last_snap, previous


@statement
def plan_returns(v: Views, firsts: bool = False):
    """Plans that come back in (lo, hi]: a statement's plan at a snapshot where the statement's previous snapshot (of
    any instance) ran it on no instance but another plan, and an earlier snapshot had it. Within [lo, hi] the
    statement's snapshots are numbered (DENSE_RANK) and so are the plan's own (ROW_NUMBER): their difference grows
    where the statement ran without the plan, so a return is where it differs from the plan's snapshot before (LAG);
    a plan's first snapshot of the range looks up the statement's previous snapshot and the plan's earlier rows.
    Rows (sql_id, plan, con_dbid, instance, snap_id, previous_plan): the first instance that ran it at that snapshot,
    and the plan of the statement's previous snapshot; the first TOP_NEW_PLANS in time. With `firsts` (the embedded
    store's summaries.PLAN_FIRSTS), only the statements that ever ran more than one plan are numbered (a few), not
    every statement of the range."""
    from sqlalchemy import and_, bindparam, exists, func, or_, select

    t = v.sqlstat
    where = [_snap_range(t)]
    if firsts:
        f = _plan_firsts(v)
        several = (
            select(f.c.sql_id)
            .where(f.c.dbid == bindparam("dbid"))
            .group_by(f.c.con_dbid, f.c.sql_id)
            .having(func.count(f.c.plan_hash_value.distinct()) > 1)
        )
        where.append(t.c.sql_id.in_(several))
    g = (
        select(
            t.c.con_dbid,
            t.c.sql_id,
            t.c.plan_hash_value,
            t.c.snap_id,
            func.min(t.c.instance_number).label("instance_number"),
        )
        .where(*where)
        .group_by(t.c.con_dbid, t.c.sql_id, t.c.plan_hash_value, t.c.snap_id)
        .subquery("g")
    )
    statement, plan = (g.c.con_dbid, g.c.sql_id), (g.c.con_dbid, g.c.sql_id, g.c.plan_hash_value)
    away = func.dense_rank().over(partition_by=statement, order_by=g.c.snap_id) - func.row_number().over(
        partition_by=plan, order_by=g.c.snap_id
    )  # the statement's snapshots so far without the plan
    numbered = select(g, away.label("away")).subquery("numbered")
    n = numbered.c
    before = func.lag(n.away).over(partition_by=(n.con_dbid, n.sql_id, n.plan_hash_value), order_by=n.snap_id)
    w = select(numbered, before.label("away_before")).subquery("w")
    same, other = t.alias("same_plan"), t.alias("other")
    statement_of, last_snap, previous = _statement_before(t, w, w.c.snap_id)

    def of_plan(a):
        return and_(statement_of(a), a.c.plan_hash_value == w.c.plan_hash_value)

    ran_before = exists().where(of_plan(same), same.c.snap_id < last_snap).correlate(w)
    ran_there = exists().where(of_plan(other), other.c.snap_id == last_snap).correlate(w)
    return (
        select(w.c.sql_id, w.c.plan_hash_value, w.c.con_dbid, w.c.instance_number, w.c.snap_id, previous)
        .where(
            w.c.snap_id > bindparam("lo"),
            or_(
                and_(w.c.away_before.is_not(None), w.c.away != w.c.away_before),
                and_(w.c.away_before.is_(None), ~ran_there, ran_before),
            ),
        )
        .order_by(w.c.snap_id, w.c.sql_id, w.c.plan_hash_value)
        .limit(TOP_NEW_PLANS)
    )
