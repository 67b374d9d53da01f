"""The statements' machinery: a Statement (a builder and its arguments, built once per views and arguments) and
the helpers every statement uses to read a range (docs/awr-rules.md §12, §21)."""

import inspect
import re
from collections.abc import Callable
from functools import cache, wraps
from typing import NamedTuple

from app.store.awr.views import Views

IN_LIST = 1000  # Oracle's most expressions in one IN list (ORA-01795)
MOST_CHOSEN = 30 * IN_LIST  # snapshots bound in IN lists at most: binds under SQLite's 32,766 (and Oracle's 65,535)


class Statement(NamedTuple):
    """One of this module's statements for some views: `build(views, *args)` makes it (Core)."""

    build: Callable
    views: Views
    args: tuple

    @property
    def key(self) -> str:
        """The statement's name and arguments, e.g. "counter_series('sysstat')"."""
        return f"{self.build.__name__}({', '.join(map(repr, self.args))})"

    def core(self):
        return self.build(self.views, *self.args)


def statement(build):
    """`build(v: Views, *args)` -> a Core statement, as a function that returns the Statement instead; its arguments
    with their defaults filled in, so that one statement has one key however it is called."""
    signature = inspect.signature(build)
    build = cache(build)

    @wraps(build)
    def named(v: Views, *args, **kwargs) -> Statement:
        bound = signature.bind(v, *args, **kwargs)
        bound.apply_defaults()
        return Statement(build, v, tuple(bound.arguments.values())[1:])

    return named


def core(stmt):
    """The SQLAlchemy Core statement: a Statement built, anything else as it is."""
    return stmt.core() if isinstance(stmt, Statement) else stmt


def _snap_range(t):
    """The snapshots [lo, hi] of the database: a delta at lo needs the counters there."""
    from sqlalchemy import and_, bindparam

    return and_(t.c.dbid == bindparam("dbid"), t.c.snap_id.between(bindparam("lo"), bindparam("hi")))


def _chosen(t, chunks: int):
    """The rows of the snapshots [lo, hi], or with `chunks`, of the chosen snapshots among them (a long range's bucket
    boundaries, docs/awr-rules.md §21), their snap_ids bound as `chunks` IN lists (in_lists)."""
    from sqlalchemy import and_

    if not chunks:
        return _snap_range(t)
    return and_(_snap_range(t), _in_lists(t.c.snap_id, chunks))


def _in_lists(column, chunks: int):
    from sqlalchemy import bindparam, or_

    return or_(*[column.in_(bindparam(f"snap_ids_{k}", expanding=True)) for k in range(chunks)])


def in_lists(snap_ids: list[int]) -> dict[str, list[int]]:
    """The binds of `chunks` = len(result) IN lists holding `snap_ids`: at most IN_LIST each, each padded (with its
    last id again) to a power of two or IN_LIST, so that Oracle sees a few distinct statement texts, not one per
    length."""
    out = {}
    for k in range(0, len(snap_ids), IN_LIST):
        part = list(snap_ids[k : k + IN_LIST])
        size = min(IN_LIST, 1 << (len(part) - 1).bit_length())
        out[f"snap_ids_{k // IN_LIST}"] = part + part[-1:] * (size - len(part))
    return out


def _intervals(t):
    """The rows of the intervals (lo, hi], as the AWR report counts a range (docs/awr-rules.md §12): a row at snapshot
    s holds what happened in the interval ending at s."""
    from sqlalchemy import and_, bindparam

    return and_(t.c.dbid == bindparam("dbid"), t.c.snap_id > bindparam("lo"), t.c.snap_id <= bindparam("hi"))


def capped(stmt, row_cap: int):
    """The statement as sent: a query without a row limit of its own returns one row more than AWRLENS_ROW_CAP at
    most, so a question too wide stops in the database and is answered 422 (Store.rows)."""
    from sqlalchemy import Select

    if isinstance(stmt, Select) and stmt._limit_clause is None:
        return stmt.limit(row_cap + 1)
    return stmt


def render(stmt, dialect) -> str:
    """The statement's text for a dialect, as sent; an expanding IN list shows as (:name_1, :name_2, ...)."""
    return rendered(stmt.compile(dialect=dialect))


def rendered(compiled) -> str:
    """A compiled statement's text as render() shows it."""
    text = re.sub(r"\(__\[POSTCOMPILE_(\w+)\]\)", r"(:\1_1, :\1_2, ...)", str(compiled))
    # a literal the driver receives inline (the top-SQL row limit) shows as its value
    return re.sub(r"__\[POSTCOMPILE_(\w+)\]", lambda m: str(compiled.params[m.group(1)]), text)
