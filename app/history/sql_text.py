"""The text of SQL statements (DBA_HIST_SQLTEXT), for top SQL and one statement's history."""

from app.store.awr import queries

TOP_SQL_TEXT_CHARS = 400  # the start of each statement shown in the top SQL table; the SQL page shows all of it


def texts(db, sql_ids) -> dict[str, str]:
    """sql_id -> full text, for the statements the history holds."""
    if not sql_ids:
        return {}
    rows = db.rows(queries.sql_texts(db.store.views), sql_ids=list(sql_ids))
    return {sql_id: _text(text) for sql_id, text, _ in rows}


def _text(value):
    """A CLOB arrives as a LOB object from Oracle (unless fetched as text) and as str from SQLite."""
    return value.read() if hasattr(value, "read") else value
