"""Active Session History: top activity, its top lists, the blocking sessions and the embedded store's counts
(docs/awr-rules.md §22)."""

from functools import cache

from app.store.queries.core import _intervals, statement
from app.store.schema import Views

ON_CPU, CPU = "ON CPU", "CPU"  # SESSION_STATE of a sample on CPU, and the name its wait class and event are given
SECONDS_PER_DAY = 86400
TOP_ACTIVITY_ROWS = 25  # a constant of the code: rows of each top list


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


@cache
def _sample_bucket():
    """The SQL function sample_bucket(SAMPLE_TIME, t0, width, seconds_per_day): the bucket of a sample, whole seconds
    from `t0` (bound) to SAMPLE_TIME, // `width` seconds (bound); defined on first use (SQLAlchemy imported then)."""
    from sqlalchemy import Integer
    from sqlalchemy.ext.compiler import compiles
    from sqlalchemy.sql.functions import FunctionElement

    class sample_bucket(FunctionElement):
        type = Integer()
        name = "sample_bucket"
        inherit_cache = True

    @compiles(sample_bucket, "oracle")
    def _bucket_oracle(element, compiler, **kw):
        t, t0, width, day = (compiler.process(c, **kw) for c in element.clauses)
        return f"FLOOR(ROUND((CAST({t} AS DATE) - {t0}) * {day}) / {width})"  # DATE - DATE is days

    @compiles(sample_bucket, "sqlite")
    def _bucket_sqlite(element, compiler, **kw):
        t, t0, width, day = (compiler.process(c, **kw) for c in element.clauses)
        return f"(CAST(round((julianday({t}) - julianday({t0})) * {day}) AS INTEGER) / {width})"

    return sample_bucket


def _equal(column, value):
    """column = value, a null value matching the nulls (a filter on the samples without a value: one statement for
    both, the value a bind)."""
    from sqlalchemy import and_, or_

    return or_(column == value, and_(column.is_(None), value.is_(None)))


def _ash_where(t, filters):
    """The samples of the intervals (lo, hi] (AWR partitions the view by DBID and SNAP_ID), with each filter a bind
    (null: the samples without a value)."""
    from sqlalchemy import bindparam

    where = [_intervals(t)]
    for name in filters:
        for k, col in enumerate(DIMENSIONS[name](t)):
            where.append(
                col == bindparam(f"f_{name}_{k}") if name == "instance" else _equal(col, bindparam(f"f_{name}_{k}"))
            )
    return where


def _samples(t, columns, filters, extra=()):
    """The range's samples as a subquery of `columns` labelled g0, g1...: grouped outside it, so the GROUP BY names
    plain columns where Oracle would not match an expression holding bind variables to the select list's."""
    from sqlalchemy import select

    return select(*[c.label(f"g{k}") for k, c in enumerate(columns)]).where(*_ash_where(t, filters), *extra).subquery()


@statement
def activity(v: Views, group_by: str, filters: tuple = (), coded: bool = False):
    """Samples per time bucket and group (`group_by` a key of DIMENSIONS, `filters` keys whose values are bound); with
    `coded`, over the embedded store's coded samples (schema.ASH_BASE), the groups named once counted."""
    from sqlalchemy import DateTime, bindparam, func, select

    t = v.active_sess_history
    if coded:
        from app.store.schema import ASH_BASE as t
    bucket = _sample_bucket()(
        t.c.sample_time,
        bindparam("t0", type_=DateTime()),
        bindparam("width"),
        bindparam("seconds_per_day", SECONDS_PER_DAY),
    )
    if not coded:
        s = _samples(t, (bucket, *DIMENSIONS[group_by](t)), filters)
        keys = list(s.c)
        return select(*keys, func.count().label("samples")).group_by(*keys)
    columns = _coded_dimension(t, group_by)
    keys = [bucket, *[c for c, _ in columns]]
    g = (
        select(*[c.label(f"g{k}") for k, c in enumerate(keys)], func.count().label("samples"))
        .where(*_coded_where(t, filters))
        .group_by(*keys)
        .subquery()
    )
    named = [_ash_named(g.c[f"g{k + 1}"], code).label(f"g{k + 1}") for k, (_, code) in enumerate(columns)]
    return select(g.c.g0, *named, g.c.samples)


@statement
def ash_top_groups(v: Views, group_by: str, filters: tuple = ()):
    """Every group of the top list `group_by` over the range from the embedded store's counts per block (schema.ASH_TOP,
    `filters` the instance at most): rows of the group's columns (codes where the samples keep codes), the same
    named, and its samples. SQLite only (`v` unused)."""
    from sqlalchemy import func, select

    from app.store.schema import ASH_TOP_LISTS

    columns = range(len(ASH_TOP_LISTS[group_by]))
    g, named = _ash_top_grouped(group_by, filters, columns, {"samples": lambda c: func.sum(c.c.samples)})
    return select(*[g.c[f"g{k}"].label(f"c{k}") for k in columns], *named, g.c.samples)


@statement
def activity_buckets(v: Views, group_by: str, filters: tuple, top: int):
    """Samples per time bucket of the embedded store's coded samples (schema.ASH_BASE): rows (bucket, n, samples) for
    each of `top` groups of `group_by`, its columns bound as top_{n}_{k} (codes where the samples keep codes; n from 1,
    nulls where fewer), and n = 0 for the other groups together; `top_last` binds the groups' last columns (a sample
    without one of them, or null there, is in no group shown: one lookup rules most out). SQLite only (`v` unused)."""
    from sqlalchemy import DateTime, and_, bindparam, case, func, or_, select

    from app.store.schema import ASH_BASE as t

    bucket = _sample_bucket()(
        t.c.sample_time,
        bindparam("t0", type_=DateTime()),
        bindparam("width"),
        bindparam("seconds_per_day", SECONDS_PER_DAY),
    )
    columns = [c for c, _ in _coded_dimension(t, group_by)]
    shown = [(and_(*[c.is_(bindparam(f"top_{n}_{k}")) for k, c in enumerate(columns)]), n) for n in range(1, top + 1)]
    candidate = or_(columns[-1].in_(bindparam("top_last", expanding=True)), columns[-1].is_(None))
    index = case((candidate, case(*shown, else_=0)), else_=0)
    return (
        select(bucket.label("g0"), index.label("g1"), func.count().label("samples"))
        .where(*_coded_where(t, filters))
        .group_by(bucket, index)
    )


def _ash_top(name: str, filters: tuple, sql_id=None):
    """The embedded store's counts of one top list over the intervals bound as blocks_48 and blocks_6 (the first
    snapshots of schema.ASH_TOP's blocks) and blocks_1 (the snapshots whose coded samples are counted as they are,
    schema.ash_top_blocks), with the instance filter bound as _ash_where binds it, and the list's first column equal
    to `sql_id` (a code) if given: a subquery of the list's columns k0, k1... (codes where the samples keep codes),
    samples and on_cpu. SQLite only."""
    from sqlalchemy import bindparam, case, literal, null, select, union_all

    from app.store.schema import ASH_BASE, ASH_TOP, ASH_TOP_KEYS, ASH_TOP_LISTS, ASH_TOP_SPANS

    if set(filters) - {"instance"}:
        raise ValueError(f"schema.ASH_TOP counts no filter but the instance, not {filters}")

    def arm(source, span, keys, samples, on_cpu, where):
        where = [source.c.dbid == bindparam("dbid"), *where]
        if filters:
            where.append(source.c.instance_number == bindparam("f_instance_0"))
        if sql_id is not None:
            where.append(keys[0] == sql_id)
        first = source.c.first_snap if source is ASH_TOP else source.c.snap_id
        where.append(first.in_(bindparam(f"blocks_{span}", expanding=True)))
        keys = [*keys, *[null()] * (ASH_TOP_KEYS - len(keys))]
        return select(
            *[k.label(f"k{n}") for n, k in enumerate(keys)], samples.label("samples"), on_cpu.label("on_cpu")
        ).where(*where)

    t, b = ASH_TOP, ASH_BASE
    arms = [
        arm(
            t,
            span,
            [t.c[f"k{n}"] for n in range(ASH_TOP_KEYS)],
            t.c.samples,
            t.c.on_cpu,
            [t.c.list == list(ASH_TOP_LISTS).index(name), t.c.span == span],
        )
        for span in ASH_TOP_SPANS
    ]
    by_name = {c.name: c for c in b.c}
    columns = [by_name[c] for c in ASH_TOP_LISTS[name]]
    if name == "event":
        ((columns[0], _),) = _coded_dimension(b, "event")
    on_cpu = b.c.session_state == _ash_code(bindparam("on_cpu", ON_CPU))
    where = [b.c.blocking_session.isnot(None)] if name == "blocking" else []
    arms.append(arm(b, 1, columns, literal(1), case((on_cpu, 1), else_=0), where))
    return union_all(*arms).subquery("counts")


def _ash_named(column, coded: bool):
    """A column of ASH_TOP's counts as the view names it: a code's text from ASH_NAMES."""
    from sqlalchemy import select

    from app.store.schema import ASH_NAMES

    return select(ASH_NAMES.c.value).where(ASH_NAMES.c.id == column).scalar_subquery() if coded else column


def _ash_top_grouped(name: str, filters: tuple, keys: range, sums: dict, sql_id=None):
    """ASH_TOP's counts of the list `name` grouped by its columns `keys` (positions), with `sums` ({label: function
    of the counts}): (a subquery of g0, g1... and the sums' labels, the g columns as the view names them)."""
    from sqlalchemy import select

    from app.store.schema import ASH_TOP_LISTS, ash_coded

    c = _ash_top(name, filters, sql_id)
    columns = [c.c[f"k{k}"] for k in keys]
    g = (
        select(*[col.label(f"g{k}") for k, col in enumerate(columns)], *[f(c).label(n) for n, f in sums.items()])
        .group_by(*columns)
        .subquery("grouped")
    )
    coded = [ash_coded(ASH_TOP_LISTS[name][k]) for k in keys]
    return g, [_ash_named(g.c[f"g{k}"], code).label(f"g{k}") for k, code in enumerate(coded)]


@statement
def activity_top(v: Views, group_by: str, filters: tuple = (), blocks: bool = False):
    """The groups with the most samples over the range, each with its samples on CPU; on the embedded store that
    keeps schema.ASH_TOP (`blocks`), from its counts."""
    from sqlalchemy import bindparam, case, func, select

    if blocks:
        from app.store.schema import ASH_TOP_LISTS

        sums = {"samples": lambda c: func.sum(c.c.samples), "on_cpu": lambda c: func.sum(c.c.on_cpu)}
        g, named = _ash_top_grouped(group_by, filters, range(len(ASH_TOP_LISTS[group_by])), sums)
        return select(*named, g.c.samples, g.c.on_cpu).order_by(g.c.samples.desc(), *named).limit(TOP_ACTIVITY_ROWS)
    t = v.active_sess_history
    s = _samples(
        t, (*DIMENSIONS[group_by](t), case((t.c.session_state == bindparam("on_cpu", ON_CPU), t.c.sample_id))), filters
    )
    *keys, cpu = list(s.c)
    samples = func.count()
    return (
        select(*keys, samples.label("samples"), func.count(cpu).label("on_cpu"))
        .group_by(*keys)
        .order_by(samples.desc(), *keys)
        .limit(TOP_ACTIVITY_ROWS)
    )


def _ash_code(text):
    """The ASH_NAMES code of a text (a bind): NULL where no sample holds it."""
    from sqlalchemy import select

    from app.store.schema import ASH_NAMES

    return select(ASH_NAMES.c.id).where(ASH_NAMES.c.value == text).scalar_subquery()


def _coded_dimension(b, name: str):
    """DIMENSIONS[name] over the coded samples (schema.ASH_BASE), each column with whether it is a code: CPU's code
    for a sample ON CPU, as _cpu_or names it."""
    from sqlalchemy import bindparam, case

    from app.store.schema import ash_coded

    if name in ("wait_class", "event"):
        on_cpu = b.c.session_state == _ash_code(bindparam("on_cpu", ON_CPU))
        return ((case((on_cpu, _ash_code(bindparam("cpu", CPU))), else_=b.c[name]), True),)
    return tuple((c, hasattr(c, "name") and ash_coded(c.name)) for c in DIMENSIONS[name](b))  # a CASE: a number


def _coded_where(b, filters: tuple) -> list:
    """_ash_where over the coded samples (schema.ASH_BASE)."""
    return [_intervals(b), *_coded_filters(b, filters)]


def _coded_filters(b, filters: tuple) -> list:
    """Each filter's conditions over the coded samples: a text filter bound as its code."""
    from sqlalchemy import and_, bindparam, or_

    out = []
    for name in filters:
        for k, (col, coded) in enumerate(_coded_dimension(b, name)):
            value = bindparam(f"f_{name}_{k}")
            if name == "instance":
                out.append(col == value)
            else:
                out.append(or_(col == (_ash_code(value) if coded else value), and_(col.is_(None), value.is_(None))))
    return out


def _instance_and_others(filters: tuple) -> tuple[tuple, tuple]:
    """The instance filter, the one schema.ASH_TOP's counts can be filtered on, and the other filters."""
    return tuple(n for n in filters if n == "instance"), tuple(n for n in filters if n != "instance")


@statement
def activity_top_coded(v: Views, filters: tuple, minus: bool = False):
    """Every top list (TOP_LISTS and the instances) and the blocking sessions of the samples that pass `filters`, in
    one statement over the embedded store's coded samples (schema.ASH_BASE) that reads them once (a filter other than
    the instance, which ASH_TOP cannot count): rows (list, g0..g3, samples, on_cpu or waiters, rank), each list
    ranked as activity_top and blocking rank theirs, its first TOP_ACTIVITY_ROWS. With `minus`, for filters most
    samples pass: each list's counts per block (ASH_TOP, the instance filtered) less the samples that do not pass,
    fewer to read than those that do (docs/awr-rules.md §22). SQLite only (`v` unused)."""
    from sqlalchemy import and_, bindparam, case, func, literal, null, select, union_all

    from app.store.schema import ASH_BASE as b
    from app.store.schema import ASH_TOP_LISTS, ash_coded

    kept, rest = _instance_and_others(filters)
    where = _coded_where(b, kept)
    others = _coded_filters(b, rest)
    if others:
        where.append(and_(*others).is_not(True) if minus else and_(*others))
    on_cpu = b.c.session_state == _ash_code(bindparam("on_cpu", ON_CPU))
    ((event, _),) = _coded_dimension(b, "event")
    columns = {c.name: c for c in b.c if c.name != "event"} | {"event": event, "waited": b.c.event}
    lists = (*TOP_LISTS, "instance", "blocking")
    f = (
        select(*[columns[c].label(c) for c in sorted({*sum((ASH_TOP_LISTS[n] for n in lists), ()), "waited"})])
        .add_columns(case((on_cpu, 1), else_=0).label("cpu"))
        .where(*where)
        .cte("samples")
        .prefix_with("MATERIALIZED")
    )
    arms = []
    for name in lists:
        keys = [f.c["waited" if (name, c) == ("blocking", "event") else c] for c in ASH_TOP_LISTS[name]]
        waiters = name == "blocking"  # its last key: the waiting session, counted
        counted = select(
            *[k.label(f"k{n}") for n, k in enumerate(keys)],
            (-func.count() if minus else func.count()).label("samples"),
            (-func.sum(f.c.cpu) if minus else func.sum(f.c.cpu)).label("x"),
        ).group_by(*keys)
        if waiters:
            counted = counted.where(f.c.blocking_session.isnot(None))
        if minus:
            blocks = _ash_top(name, kept)
            both = union_all(
                select(*[blocks.c[f"k{n}"] for n in range(len(keys))], blocks.c.samples, blocks.c.on_cpu.label("x")),
                counted,
            ).subquery()
            ks = [both.c[f"k{n}"] for n in range(len(keys))]
            total = func.sum(both.c.samples)
            counted = select(*ks, total.label("samples"), func.sum(both.c.x).label("x")).group_by(*ks).having(total > 0)
        c = counted.subquery()
        shown = [c.c[f"k{n}"] for n in range(len(keys) - waiters)]
        g = select(*[k.label(f"g{n}") for n, k in enumerate(shown)])
        if waiters:
            g = g.add_columns(func.sum(c.c.samples).label("samples"), func.count().label("x")).group_by(*shown)
        else:
            g = g.add_columns(c.c.samples, c.c.x)
        g = g.subquery()
        coded = [ash_coded(ASH_TOP_LISTS[name][n]) for n in range(len(shown))]
        named = [_ash_named(g.c[f"g{n}"], code) for n, code in enumerate(coded)]
        rank = func.row_number().over(order_by=(g.c.samples.desc(), *named))
        padded = [*named, *[null()] * (4 - len(named))]
        r = select(
            literal(name).label("list"),
            *[c.label(f"g{k}") for k, c in enumerate(padded)],
            g.c.samples,
            g.c.x,
            rank.label("rank"),
        ).subquery()
        arms.append(select(r).where(r.c.rank <= TOP_ACTIVITY_ROWS))
    every = union_all(*arms).subquery("lists")
    return select(every).order_by(every.c.list, every.c.rank)


@statement
def ash_passing(v: Views, filters: tuple):
    """Of the coded samples of the snapshots bound as `snaps` that pass the instance filter, how many, and how many
    pass the other `filters` too: whether activity_top_coded reads fewer samples with `minus`. SQLite only (`v`
    unused)."""
    from sqlalchemy import and_, bindparam, case, func, select

    from app.store.schema import ASH_BASE as b

    kept, rest = _instance_and_others(filters)
    where = [b.c.dbid == bindparam("dbid"), b.c.snap_id.in_(bindparam("snaps", expanding=True))]
    passing = func.count(case((and_(*_coded_filters(b, rest)), 1)))
    return select(func.count(), passing).where(*where, *_coded_filters(b, kept))


@statement
def blocking(v: Views, filters: tuple = (), blocks: bool = False):
    """Blocking sessions and the events their waiters wait on: waiters' samples and distinct waiting sessions; with
    `blocks`, from schema.ASH_TOP's counts."""
    from sqlalchemy import func, select

    if blocks:
        sums = {"samples": lambda c: func.sum(c.c.samples), "waiters": lambda c: func.count(c.c.k4.distinct())}
        g, named = _ash_top_grouped("blocking", filters, range(4), sums)
        return select(*named, g.c.samples, g.c.waiters).order_by(g.c.samples.desc(), *named).limit(TOP_ACTIVITY_ROWS)
    t = v.active_sess_history
    s = _samples(
        t,
        (t.c.blocking_inst_id, t.c.blocking_session, t.c.blocking_session_serial, t.c.event, t.c.session_id),
        filters,
        (t.c.blocking_session.isnot(None),),
    )
    *keys, waiter = list(s.c)
    samples = func.count()
    return (
        select(*keys, samples.label("samples"), func.count(waiter.distinct()).label("waiters"))
        .group_by(*keys)
        .order_by(samples.desc(), *keys)
        .limit(TOP_ACTIVITY_ROWS)
    )


def _totals_where(t, filters: tuple):
    """The totals of one dimension and period (bound) over the intervals (lo, hi], of one instance if `filters` holds
    it (bound as _ash_where binds it)."""
    from sqlalchemy import bindparam

    instance = [t.c.instance_number == bindparam("f_instance_0")] if "instance" in filters else []
    return (
        t.c.dbid == bindparam("dbid"),
        t.c.dimension == bindparam("dimension"),
        t.c.period == bindparam("period"),
        t.c.snap_id > bindparam("lo"),
        t.c.snap_id <= bindparam("hi"),
        *instance,
    )


@statement
def ash_total_groups(v: Views, filters: tuple = ()):
    """The embedded store's ASH totals (schema.ASH_TOTALS): samples per group over the range (`filters` the instance
    at most), with the group's text (none for code 0). SQLite only: on Oracle `activity` groups the view itself (`v`
    unused: the store's own tables)."""
    from sqlalchemy import func, select

    from app.store.schema import ASH_NAMES, ASH_TOTALS

    t, n = ASH_TOTALS, ASH_NAMES
    g = (
        select(t.c.code, func.sum(t.c.samples).label("samples"))
        .where(*_totals_where(t, filters))
        .group_by(t.c.code)
        .subquery()
    )
    return select(g.c.code, n.c.value, g.c.samples).join_from(g, n, n.c.id == g.c.code, isouter=True)


@statement
def ash_total_buckets(v: Views, filters: tuple = ()):
    """Samples per time bucket of the groups whose codes are bound (`top`), the others together as code -1, from the
    totals of a period that divides the bucket width (`start`, `t0` and `width` in whole seconds); `filters` as
    ash_total_groups."""
    from sqlalchemy import Integer, bindparam, case, func, select

    from app.store.schema import ASH_TOTALS

    t = ASH_TOTALS
    s = (
        select(
            ((t.c.start - bindparam("t0", type_=Integer())) // bindparam("width", type_=Integer())).label("g0"),
            case((t.c.code.in_(bindparam("top", expanding=True)), t.c.code), else_=-1).label("g1"),
            t.c.samples,
        )
        .where(*_totals_where(t, filters))
        .subquery()
    )
    return select(s.c.g0, s.c.g1, func.sum(s.c.samples)).group_by(s.c.g0, s.c.g1)


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
