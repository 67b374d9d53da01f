"""Active Session History from the embedded store's coded samples (docs/awr-rules.md §22, embedded.ash.ASH_BASE:
each text column a code of ASH_NAMES): the dimensions and filters over the codes, activity from them, and its
buckets for the top groups. SQLite only: on Oracle the statements of ash read the view."""

from app.store.awr.queries.ash_samples import CPU, DIMENSIONS, ON_CPU, _bucket, _in_window, session_number
from app.store.awr.queries.core import _intervals, statement
from app.store.awr.views import Views


def _activity_coded(group_by: str, filters: tuple, window: bool = False):
    """activity over the embedded store's coded samples (ASH_BASE), the groups named once counted."""
    from sqlalchemy import func, select

    from app.store.awr.embedded.ash import ASH_BASE as t

    columns = _coded_dimension(t, group_by)
    keys = [_bucket(t), *[c for c, _ in columns]]
    g = (
        select(*[c.label(f"g{k}") for k, c in enumerate(keys)], func.count().label("samples"))
        .where(*_coded_where(t, filters, window))
        .group_by(*keys)
        .subquery()
    )
    named = [_ash_named(g.c[f"g{k + 1}"], code).label(f"g{k + 1}") for k, (_, code) in enumerate(columns)]
    return select(g.c.g0, *named, g.c.samples)


def _activity_groups_coded(group_by: tuple, filters: tuple, window: bool = False):
    """activity_groups over the embedded store's coded samples (ASH_BASE), in one pass: grouped by the codes, the
    distinct sessions counted as one number each (session_number), each group named once before the groups are
    ranked (by samples, then by their texts, as over the view)."""
    from sqlalchemy import func, select

    from app.store.awr.embedded.ash import ASH_BASE as t
    from app.store.awr.queries.ash_samples import TOP_GROUP_ROWS

    columns = [c for name in group_by for c in _coded_dimension(t, name)]
    keys = [c for c, _ in columns]
    session = session_number(t)
    g = (
        select(
            *[c.label(f"g{k}") for k, c in enumerate(keys)],
            func.count().label("samples"),
            func.count(session.distinct()).label("sessions"),
            func.min(t.c.sample_time).label("first_seen"),
            func.max(t.c.sample_time).label("last_seen"),
        )
        .where(*_coded_where(t, filters, window))
        .group_by(*keys)
        .subquery()
    )
    named = [_ash_named(g.c[f"g{k}"], coded).label(f"g{k}") for k, (_, coded) in enumerate(columns)]
    return (
        select(*named, g.c.samples, g.c.sessions, g.c.first_seen, g.c.last_seen, func.sum(g.c.samples).over())
        .order_by(g.c.samples.desc(), *named)
        .limit(TOP_GROUP_ROWS)
    )


@statement
def activity_buckets(v: Views, group_by: str, filters: tuple, top: int):
    """Samples per time bucket of the embedded store's coded samples (ASH_BASE): rows (bucket, n, samples) for
    each of `top` groups of `group_by`, its columns bound as top_{n}_{k} (codes where the samples keep codes; n from 1,
    nulls where fewer), and n = 0 for the other groups together; `top_last` binds the groups' last columns (a sample
    without one of them, or null there, is in no group shown: one lookup rules most out). SQLite only (`v` unused)."""
    from sqlalchemy import and_, bindparam, case, func, or_, select

    from app.store.awr.embedded.ash import ASH_BASE as t

    bucket = _bucket(t)
    columns = [c for c, _ in _coded_dimension(t, group_by)]
    shown = [(and_(*[c.is_(bindparam(f"top_{n}_{k}")) for k, c in enumerate(columns)]), n) for n in range(1, top + 1)]
    candidate = or_(columns[-1].in_(bindparam("top_last", expanding=True)), columns[-1].is_(None))
    index = case((candidate, case(*shown, else_=0)), else_=0)
    return (
        select(bucket.label("g0"), index.label("g1"), func.count().label("samples"))
        .where(*_coded_where(t, filters))
        .group_by(bucket, index)
    )


def _ash_named(column, coded: bool):
    """A column of ASH_TOP's counts as the view names it: a code's text from ASH_NAMES."""
    from sqlalchemy import select

    from app.store.awr.embedded.ash import ASH_NAMES

    return select(ASH_NAMES.c.value).where(ASH_NAMES.c.id == column).scalar_subquery() if coded else column


def _ash_code(text):
    """The ASH_NAMES code of a text (a bind): NULL where no sample holds it."""
    from sqlalchemy import select

    from app.store.awr.embedded.ash import ASH_NAMES

    return select(ASH_NAMES.c.id).where(ASH_NAMES.c.value == text).scalar_subquery()


def _coded_dimension(b, name: str):
    """DIMENSIONS[name] over the coded samples (ASH_BASE), each column with whether it is a code: CPU's code
    for a sample ON CPU, as _cpu_or names it."""
    from sqlalchemy import bindparam, case

    from app.store.awr.embedded.ash import ash_coded

    if name in ("wait_class", "event"):
        on_cpu = b.c.session_state == _ash_code(bindparam("on_cpu", ON_CPU))
        return ((case((on_cpu, _ash_code(bindparam("cpu", CPU))), else_=b.c[name]), True),)
    return tuple((c, hasattr(c, "name") and ash_coded(c.name)) for c in DIMENSIONS[name](b))  # a CASE: a number


def _coded_where(b, filters: tuple, window: bool = False) -> list:
    """_ash_where over the coded samples (ASH_BASE)."""
    return [_intervals(b), *([_in_window(b)] if window else []), *_coded_filters(b, filters)]


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
