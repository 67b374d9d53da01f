"""Declaring tables: the helpers every source family's definitions (app/store/awr/views.py) and the embedded
store's own tables (app/store/awr/embedded/) share. SQLAlchemy is imported when a table is built, not before."""


def int_columns(*names):
    """A non-null whole-number column of each name."""
    from sqlalchemy import Column, Integer

    return [Column(n, Integer, nullable=False) for n in names]


def keyed_table(md, name, *columns, key, rowid=False, drop=(), schema=None):
    """A table of `columns` but those named in `drop`, keyed by `key` (SQLite clusters by it), in `schema` if any."""
    from sqlalchemy import PrimaryKeyConstraint, Table

    return Table(
        name,
        md,
        *[c for c in columns if c.name not in drop],
        PrimaryKeyConstraint(*[k for k in key if k not in drop]),
        sqlite_with_rowid=rowid,
        schema=schema,
    )
