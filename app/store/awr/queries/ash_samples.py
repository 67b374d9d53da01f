"""Active Session History's samples in Oracle's view (docs/awr-rules.md §22): the dimensions they are grouped by, the
top lists, their time buckets and the filters on them: what every form of an ASH statement (ash, ash_coded,
ash_counts, plans) builds on."""

from functools import cache

from app.store.awr.queries.core import _intervals

ON_CPU, CPU = "ON CPU", "CPU"  # SESSION_STATE of a sample on CPU, and the name its wait class and event are given
SECONDS_PER_DAY = 86400
TOP_ACTIVITY_ROWS = 25  # a constant of the code: rows of each top list
TOP_GROUP_ROWS = 50  # a constant of the code: groups of ashtop's table (queries.ash.activity_groups)
ZONE_FORMAT = "TZH:TZM"  # the offset of the database's clock, as TO_CHAR prints it (queries.ash.live_clock)


def _cpu_or(t, column):
    """The column, or 'CPU' for a sample on CPU (whose EVENT and WAIT_CLASS are null)."""
    from sqlalchemy import bindparam, case

    return case((t.c.session_state == bindparam("on_cpu", ON_CPU), bindparam("cpu", CPU)), else_=column)


def _container(t, column):
    """CON_DBID where `column` has a value: in a CDB root USER_ID and CURRENT_OBJ# are per container, so a user or an
    object is (CON_DBID, id); the samples without one are one group whatever their container."""
    from sqlalchemy import case

    return case((column.is_not(None), t.c.con_dbid))


# group_by -> the columns of a dimension: a fixed list, never a request's text
DIMENSIONS = {
    "wait_class": lambda t: (_cpu_or(t, t.c.wait_class),),
    "event": lambda t: (_cpu_or(t, t.c.event),),
    "sql_id": lambda t: (t.c.sql_id,),
    "top_level_sql_id": lambda t: (t.c.top_level_sql_id,),
    "sql_plan_hash_value": lambda t: (t.c.sql_plan_hash_value,),
    "module": lambda t: (t.c.module,),
    "action": lambda t: (t.c.action,),
    "program": lambda t: (t.c.program,),
    "service": lambda t: (t.c.service_hash,),
    "user": lambda t: (_container(t, t.c.user_id), t.c.user_id),
    "session": lambda t: (t.c.instance_number, t.c.session_id, t.c.session_serial),
    "instance": lambda t: (t.c.instance_number,),
    "machine": lambda t: (t.c.machine,),
    # a blocker is (instance, session, serial#): the same SID on two instances of a RAC is two sessions
    "blocking_session": lambda t: (t.c.blocking_inst_id, t.c.blocking_session, t.c.blocking_session_serial),
    "current_obj": lambda t: (_container(t, t.c.current_obj), t.c.current_obj),  # CURRENT_OBJ#
}
TOP_LISTS = ("sql_id", "session", "module", "event", "current_obj")


SESSION_SHIFTS = (2**48, 2**32)  # a session as one number: instance x the first + SID x the second + serial#


def session_number(t):
    """A session (instance, SID, serial#) of `t` as one number (SESSION_SHIFTS: Oracle's SIDs and serial#s fit), to
    count distinct sessions or bind a list of them (history.activity.session_number gives the same)."""
    return t.c.instance_number * SESSION_SHIFTS[0] + t.c.session_id * SESSION_SHIFTS[1] + t.c.session_serial


@cache
def _dialect_function(name: str, type_: str, oracle: str, sqlite: str):
    """A SQL function `name` of SQLAlchemy type `type_`, written out per dialect: `oracle` and `sqlite` are its text,
    {0}, {1}... its arguments; defined on first use (SQLAlchemy imported then)."""
    import sqlalchemy
    from sqlalchemy.ext.compiler import compiles
    from sqlalchemy.sql.functions import FunctionElement

    function = type(
        name, (FunctionElement,), {"type": getattr(sqlalchemy, type_)(), "name": name, "inherit_cache": True}
    )
    for dialect, text in (("oracle", oracle), ("sqlite", sqlite)):
        compiles(function, dialect)(
            lambda element, compiler, text=text, **kw: text.format(
                *(compiler.process(c, **kw) for c in element.clauses)
            )
        )
    return function


def _in_window(t):
    """The samples of `t` in the window (w0, w1] of sample times (both bound): a time range that cuts the snapshots'
    intervals (docs/awr-rules.md §22)."""
    from sqlalchemy import DateTime, bindparam

    within = _dialect_function(  # on SQLite as Julian days, whatever the text's form (with a fraction or not)
        "sample_within",
        "Boolean",
        "({0} > {1} AND {0} <= {2})",
        "(julianday({0}) > julianday({1}) AND julianday({0}) <= julianday({2}))",
    )
    return within(t.c.sample_time, bindparam("w0", type_=DateTime()), bindparam("w1", type_=DateTime()))


def _bucket(t):
    """The bucket of each sample of `t`: whole seconds from `t0` to SAMPLE_TIME, // `width` seconds (both bound)."""
    from sqlalchemy import DateTime, bindparam

    bucket = _dialect_function(  # on Oracle DATE - DATE is days
        "sample_bucket",
        "Integer",
        "FLOOR(ROUND((CAST({0} AS DATE) - {1}) * {3}) / {2})",
        "(CAST(round((julianday({0}) - julianday({1})) * {3}) AS INTEGER) / {2})",
    )
    return bucket(
        t.c.sample_time,
        bindparam("t0", type_=DateTime()),
        bindparam("width"),
        bindparam("seconds_per_day", SECONDS_PER_DAY),
    )


def _equal(column, value):
    """column = value, a null value matching the nulls (a filter on the samples without a value: one statement for
    both, the value a bind)."""
    from sqlalchemy import and_, or_

    return or_(column == value, and_(column.is_(None), value.is_(None)))


def _ash_where(t, filters, window: bool = False):
    """The samples of the intervals (lo, hi] (AWR partitions the view by DBID and SNAP_ID), with each filter a bind
    (null: the samples without a value); with `window`, only those of the window (w0, w1] (_in_window). The live
    buffer (views.LIVE: no SNAP_ID) is read by its window alone, on the embedded store the database's rows."""
    from sqlalchemy import bindparam

    if "snap_id" not in t.c:
        where = [_in_window(t), *([t.c.dbid == bindparam("dbid")] if "dbid" in t.c else [])]
    else:
        where = [_intervals(t), *([_in_window(t)] if window else [])]
    for name in filters:
        for k, col in enumerate(DIMENSIONS[name](t)):
            where.append(
                col == bindparam(f"f_{name}_{k}") if name == "instance" else _equal(col, bindparam(f"f_{name}_{k}"))
            )
    return where


def _samples(t, columns, filters, extra=(), window: bool = False):
    """The range's samples as a subquery of `columns` labelled g0, g1...: grouped outside it, so the GROUP BY names
    plain columns where Oracle would not match an expression holding bind variables to the select list's."""
    from sqlalchemy import select

    where = _ash_where(t, filters, window)
    return select(*[c.label(f"g{k}") for k, c in enumerate(columns)]).where(*where, *extra).subquery()
