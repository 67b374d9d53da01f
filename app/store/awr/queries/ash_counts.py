"""Active Session History from the embedded store's counts (docs/awr-rules.md §22): its samples counted per block of
snapshots for each top list (embedded.ash.ASH_TOP), with the coded samples of the snapshots at a range's ends, and
per minute and half hour by wait class, event and SQL_ID (embedded.ash.ASH_TOTALS); the top lists in one statement
over the coded samples, or the counts less the samples a filter leaves out. SQLite only: on Oracle the statements of
ash read the view."""

from app.store.awr.queries.ash_coded import _ash_code, _ash_named, _coded_dimension, _coded_filters, _coded_where
from app.store.awr.queries.ash_samples import ON_CPU, TOP_ACTIVITY_ROWS, TOP_LISTS, _in_window
from app.store.awr.queries.core import statement
from app.store.awr.views import Views


def _ash_top(name: str, filters: tuple, sql_id=None, window: bool = False):
    """The embedded store's counts of one top list over the intervals bound as blocks_48 and blocks_6 (the first
    snapshots of ASH_TOP's blocks) and blocks_1 (the snapshots whose coded samples are counted as they are,
    ash_top_blocks), with the instance filter bound as _ash_where binds it, and the list's first column equal
    to `sql_id` (a code) if given: a subquery of the list's columns k0, k1... (codes where the samples keep codes),
    samples and on_cpu, and first_seen and last_seen for a list that keeps them (ASH_TOP_SEEN). With `window`, also
    the samples in the window (w0, w1] of the snapshots bound as edge_snaps (those the window cuts). SQLite only."""
    from sqlalchemy import bindparam, case, literal, null, select, union_all

    from app.store.awr.embedded.ash import ASH_BASE, ASH_TOP, ASH_TOP_KEYS, ASH_TOP_LISTS, ASH_TOP_SEEN, ASH_TOP_SPANS

    if set(filters) - {"instance"}:
        raise ValueError(f"ASH_TOP counts no filter but the instance, not {filters}")
    seen = name in ASH_TOP_SEEN

    def arm(source, snaps, keys, samples, on_cpu, times, where):
        where = [source.c.dbid == bindparam("dbid"), *where]
        if filters:
            where.append(source.c.instance_number == bindparam("f_instance_0"))
        if sql_id is not None:
            where.append(keys[0] == sql_id)
        first = source.c.first_snap if source is ASH_TOP else source.c.snap_id
        where.append(first.in_(bindparam(snaps, expanding=True)))
        keys = [*keys, *[null()] * (ASH_TOP_KEYS - len(keys))]
        times = [t.label(n) for t, n in zip(times, ("first_seen", "last_seen"), strict=True)] if seen else []
        return select(
            *[k.label(f"k{n}") for n, k in enumerate(keys)], samples.label("samples"), on_cpu.label("on_cpu"), *times
        ).where(*where)

    t, b = ASH_TOP, ASH_BASE
    arms = [
        arm(
            t,
            f"blocks_{span}",
            [t.c[f"k{n}"] for n in range(ASH_TOP_KEYS)],
            t.c.samples,
            t.c.on_cpu,
            (t.c.first_seen, t.c.last_seen),
            [t.c.list == list(ASH_TOP_LISTS).index(name), t.c.span == span],
        )
        for span in ASH_TOP_SPANS
    ]
    by_name = {c.name: c for c in b.c}
    columns = [by_name[c] for c in ASH_TOP_LISTS[name]]
    if name in ("event", "ashtop"):  # CPU for a sample ON CPU (embedded.ash.ash_top_fill)
        ((columns[ASH_TOP_LISTS[name].index("event")], _),) = _coded_dimension(b, "event")
    on_cpu = case((b.c.session_state == _ash_code(bindparam("on_cpu", ON_CPU)), 1), else_=0)
    where = [b.c.blocking_session.isnot(None)] if name == "blocking" else []
    times = (b.c.sample_time, b.c.sample_time)
    arms.append(arm(b, "blocks_1", columns, literal(1), on_cpu, times, where))
    if window:
        arms.append(arm(b, "edge_snaps", columns, literal(1), on_cpu, times, [*where, _in_window(b)]))
    return union_all(*arms).subquery("counts")


@statement
def activity_groups_counted(v: Views, group_by: tuple, filters: tuple = (), window: bool = False):
    """activity_groups by SQL_ID and event (`group_by` of those) from the embedded store's counts per block and
    session (ASH_TOP's list ashtop, `filters` the instance at most) of the snapshots wholly inside the range or
    window, and with `window` the samples inside it of the snapshots it cuts (edge_snaps): each session counted once
    over the blocks, the same rows as over the samples. SQLite only (`v` unused)."""
    from sqlalchemy import func, select

    from app.store.awr.embedded.ash import ASH_TOP_LISTS, ash_coded
    from app.store.awr.queries.ash_samples import TOP_GROUP_ROWS

    columns = ASH_TOP_LISTS["ashtop"]
    if set(group_by) - set(columns[:2]):
        raise ValueError(f"ASH_TOP counts ashtop by sql_id and event only, not {group_by}")
    c = _ash_top("ashtop", filters, window=window)
    keys = [c.c[f"k{columns.index(name)}"] for name in group_by]
    per_session = (
        select(
            *[k.label(f"g{n}") for n, k in enumerate(keys)],
            func.sum(c.c.samples).label("samples"),
            func.min(c.c.first_seen).label("first_seen"),
            func.max(c.c.last_seen).label("last_seen"),
        )
        .group_by(*keys, c.c.k2, c.c.k3, c.c.k4)
        .subquery()
    )
    g = [per_session.c[f"g{n}"] for n in range(len(keys))]
    grouped = (
        select(
            *g,
            func.sum(per_session.c.samples).label("samples"),
            func.count().label("sessions"),
            func.min(per_session.c.first_seen).label("first_seen"),
            func.max(per_session.c.last_seen).label("last_seen"),
        )
        .group_by(*g)
        .subquery()
    )
    coded = [ash_coded(name) for name in group_by]
    named = [_ash_named(grouped.c[f"g{n}"], code).label(f"g{n}") for n, code in enumerate(coded)]
    return (
        select(
            *named,
            grouped.c.samples,
            grouped.c.sessions,
            grouped.c.first_seen,
            grouped.c.last_seen,
            func.sum(grouped.c.samples).over(),
        )
        .order_by(grouped.c.samples.desc(), *named)
        .limit(TOP_GROUP_ROWS)
    )


def _ash_top_grouped(name: str, filters: tuple, keys: range, sums: dict, sql_id=None):
    """ASH_TOP's counts of the list `name` grouped by its columns `keys` (positions), with `sums` ({label: function
    of the counts}): (a subquery of g0, g1... and the sums' labels, the g columns as the view names them)."""
    from sqlalchemy import select

    from app.store.awr.embedded.ash import ASH_TOP_LISTS, ash_coded

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
def ash_top_groups(v: Views, group_by: str, filters: tuple = ()):
    """Every group of the top list `group_by` over the range from the embedded store's counts per block (ASH_TOP,
    `filters` the instance at most): rows of the group's columns (codes where the samples keep codes), the same
    named, and its samples. SQLite only (`v` unused)."""
    from sqlalchemy import func, select

    from app.store.awr.embedded.ash import ASH_TOP_LISTS

    columns = range(len(ASH_TOP_LISTS[group_by]))
    g, named = _ash_top_grouped(group_by, filters, columns, {"samples": lambda c: func.sum(c.c.samples)})
    return select(*[g.c[f"g{k}"].label(f"c{k}") for k in columns], *named, g.c.samples)


def _activity_top_counted(group_by: str, filters: tuple):
    """activity_top from the embedded store's counts per block (ASH_TOP)."""
    from sqlalchemy import func, select

    from app.store.awr.embedded.ash import ASH_TOP_LISTS

    sums = {"samples": lambda c: func.sum(c.c.samples), "on_cpu": lambda c: func.sum(c.c.on_cpu)}
    g, named = _ash_top_grouped(group_by, filters, range(len(ASH_TOP_LISTS[group_by])), sums)
    return select(*named, g.c.samples, g.c.on_cpu).order_by(g.c.samples.desc(), *named).limit(TOP_ACTIVITY_ROWS)


def _blocking_counted(filters: tuple):
    """blocking from the embedded store's counts per block (ASH_TOP)."""
    from sqlalchemy import func, select

    sums = {"samples": lambda c: func.sum(c.c.samples), "waiters": lambda c: func.count(c.c.k4.distinct())}
    g, named = _ash_top_grouped("blocking", filters, range(4), sums)
    return select(*named, g.c.samples, g.c.waiters).order_by(g.c.samples.desc(), *named).limit(TOP_ACTIVITY_ROWS)


def _instance_and_others(filters: tuple) -> tuple[tuple, tuple]:
    """The instance filter, the one ASH_TOP's counts can be filtered on, and the other filters."""
    return tuple(n for n in filters if n == "instance"), tuple(n for n in filters if n != "instance")


@statement
def activity_top_coded(v: Views, filters: tuple, minus: bool = False, window: bool = False):
    """Every top list (TOP_LISTS and the instances) and the blocking sessions of the samples that pass `filters`, in
    one statement over the embedded store's coded samples (ASH_BASE) that reads them once (a filter other than
    the instance, which ASH_TOP cannot count): rows (list, g0..g3, samples, on_cpu or waiters, rank), each list
    ranked as activity_top and blocking rank theirs, its first TOP_ACTIVITY_ROWS. With `minus`, for filters most
    samples pass: each list's counts per block (ASH_TOP, the instance filtered) less the samples that do not pass,
    fewer to read than those that do (docs/awr-rules.md §22). With `window` alone, the samples of a window of sample
    times; with both (the instance the only filter), the counts per block of the snapshots that hold the window less
    the samples outside it, read in the snapshots bound as `edge_snaps` only. SQLite only (`v` unused)."""
    from sqlalchemy import and_, bindparam, case, func, literal, not_, null, select, union_all

    from app.store.awr.embedded.ash import ASH_BASE as b
    from app.store.awr.embedded.ash import ASH_TOP_LISTS, ash_coded

    kept, rest = _instance_and_others(filters)
    if minus and window:  # the blocks' counts of the window's snapshots less their samples outside it (no other filter)
        edges = b.c.snap_id.in_(bindparam("edge_snaps", expanding=True))
        where = [*_coded_where(b, kept), edges, not_(_in_window(b))]
    else:
        where = _coded_where(b, kept, window)  # `window`: a window of sample times
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

    from app.store.awr.embedded.ash import ASH_BASE as b

    kept, rest = _instance_and_others(filters)
    where = [b.c.dbid == bindparam("dbid"), b.c.snap_id.in_(bindparam("snaps", expanding=True))]
    passing = func.count(case((and_(*_coded_filters(b, rest)), 1)))
    return select(func.count(), passing).where(*where, *_coded_filters(b, kept))


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
    """The embedded store's ASH totals (ASH_TOTALS): samples per group over the range (`filters` the instance
    at most), with the group's text (none for code 0). SQLite only: on Oracle `activity` groups the view itself (`v`
    unused: the store's own tables)."""
    from sqlalchemy import func, select

    from app.store.awr.embedded.ash import ASH_NAMES, ASH_TOTALS

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

    from app.store.awr.embedded.ash import ASH_TOTALS

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
