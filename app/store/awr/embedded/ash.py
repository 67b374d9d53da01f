"""Active Session History as the embedded store keeps it (docs/awr-rules.md §22): its samples coded under Oracle's
view (ASH_BASE, ASH_NAMES), counted per minute and half hour (ASH_TOTALS) and per block of snapshots of each top
list (ASH_TOP). The Tables are built on first use (__getattr__ below), and SQLAlchemy imported then."""

import zlib
from functools import cache

from app.store.awr.views import LIVE, views
from app.store.tables import int_columns, keyed_table

# The embedded store keeps DBA_HIST_ACTIVE_SESS_HISTORY
# as Oracle does, as a view over a table (Oracle's WRH$_ACTIVE_SESSION_HISTORY): the view has Oracle's name and
# columns, and the table keeps each text column as a code of ASH_NAMES, as most samples repeat a few hundred texts
# (SQL_IDs, events, modules...): 113 bytes a sample instead of 216. Statements read the view; a store made
# otherwise may keep a plain table of the same name.
ASH_CODED = (
    "session_type",
    "sql_id",
    "top_level_sql_id",
    "sql_plan_operation",
    "sql_plan_options",
    "event",
    "wait_class",
    "session_state",
    "module",
    "action",
    "program",
    "machine",
)
ASH_CODE_SPACE = (1 << 23) - 1  # codes of at most 3 bytes in a record


def ash_code(text: str) -> int:
    """The code of a text in ASH_NAMES: a function of the text alone, so every build process agrees without talking
    to the others (the merge fails on a collision: ASH_NAMES.id is its key); 0 is none."""
    return zlib.crc32(text.encode()) % ASH_CODE_SPACE + 1


ASH_BASE_NAME, ASH_NAMES_NAME, ASH_TOTALS_NAME = (
    "awrlens_active_sess_history",
    "awrlens_ash_names",
    "awrlens_ash_totals",
)


@cache
def _ash_tables():
    """(ASH_BASE, ASH_NAMES), built on first use (__getattr__ below)."""
    from sqlalchemy import Column, Integer, MetaData, PrimaryKeyConstraint, Table, Text

    md = MetaData()
    ash = views().active_sess_history
    base = Table(
        ASH_BASE_NAME,
        md,
        *[Column(c.name, Integer if c.key in ASH_CODED else c.type, key=c.key, nullable=c.nullable) for c in ash.c],
        PrimaryKeyConstraint(*[c.name for c in ash.primary_key.columns]),
        sqlite_with_rowid=False,
    )
    names = Table(ASH_NAMES_NAME, md, Column("id", Integer, primary_key=True), Column("value", Text, nullable=False))
    return base, names


def ash_view_ddl(prefix: str = "dba_hist_") -> str:
    """CREATE VIEW of the store's DBA_HIST_ACTIVE_SESS_HISTORY over ASH_BASE: every column under Oracle's name, a
    coded one as its text."""
    cols = []
    for c in _ash_tables()[0].c:
        cols.append(
            f'(SELECT n.value FROM {ASH_NAMES_NAME} n WHERE n.id = a."{c.name}") AS "{c.name}"'
            if c.key in ASH_CODED
            else f'a."{c.name}"'
        )
    return f"CREATE VIEW {prefix}active_sess_history AS SELECT {', '.join(cols)} FROM {ASH_BASE_NAME} a"


def ash_info_view_ddl() -> str:
    """CREATE VIEW of the store's GV$ASH_INFO (views.LIVE) over its live buffer: per database and instance, the oldest
    and newest sample it holds."""
    live, info = (views(embedded=True).metadata.tables[n] for n in (LIVE["live_ash"], LIVE["ash_info"]))
    return (
        f'CREATE VIEW "{info.name}" AS SELECT dbid, "INST_ID", min(sample_time) AS oldest_sample_time, '
        f'max(sample_time) AS latest_sample_time FROM "{live.name}" GROUP BY dbid, "INST_ID"'
    )


# Samples per minute and per half hour of each snapshot and instance, by wait class, event and SQL_ID (ASH_TOTAL_
# DIMENSIONS, in that order from 1), counted when the demo store is built, so a day's or a week's top activity reads
# tens of thousands of totals instead of a million samples (BENCHMARKS.md). `start`: the first second of the minute
# or half hour, in seconds since 1970-01-01 of the database's local time; `code`: the group's ASH_NAMES code (0 for
# none; CPU for a sample ON CPU, as the statements name it). On Oracle the statements group the view itself.
ASH_TOTAL_DIMENSIONS = ("wait_class", "event", "sql_id")
ASH_TOTAL_PERIODS = (1800, 60)  # seconds, the widest first


@cache
def _ash_totals():
    """ASH_TOTALS, built on first use (__getattr__ below)."""
    from sqlalchemy import MetaData

    return keyed_table(
        MetaData(),
        ASH_TOTALS_NAME,
        *int_columns("dbid", "dimension", "period", "snap_id", "instance_number", "start", "code", "samples"),
        key=("dbid", "dimension", "period", "snap_id", "instance_number", "start", "code"),
    )


# Top activity lists (docs/awr-rules.md §22) group every sample of the range: 757 thousand for 8 days of RACPROD, a
# second or more per list. The embedded store also keeps the samples counted per instance and block of ASH_TOP_SPANS
# snapshot ids (first_snap = (snap_id - 1) // span * span + 1), for each list of ASH_TOP_LISTS with its samples on CPU:
# a range reads its widest whole blocks and the samples of the few snapshots at its ends (ash_top_blocks), a few
# thousand counts instead of the samples. Only the
# lists' own filter, the instance, can be applied to the counts; other filters read the samples, and so does Oracle.
# `list` is the list's position in ASH_TOP_LISTS, k0... its columns of ASH_BASE in order (codes where ASH_BASE codes
# them).
ASH_TOP_NAME = "awrlens_ash_top"
ASH_TOP_SPANS = (48, 6)  # snapshot ids per block, the widest first; each divides the one before
ASH_TOP_LISTS = {  # list -> its columns of ASH_BASE, as queries.DIMENSIONS, queries.blocking and plan_line_activity
    "sql_id": ("sql_id",),
    "session": ("instance_number", "session_id", "SESSION_SERIAL#"),
    "module": ("module",),
    "event": ("event",),  # CPU for a sample ON CPU, as queries.ash._cpu_or names it
    "current_obj": ("con_dbid", "CURRENT_OBJ#"),  # the store is a non-CDB's: one container
    "instance": ("instance_number",),
    "blocking": ("blocking_inst_id", "blocking_session", "BLOCKING_SESSION_SERIAL#", "event", "session_id"),
    "plan_line": ("sql_id", "sql_plan_hash_value", "sql_plan_line_id", "sql_plan_operation", "sql_plan_options"),
    # ashtop by SQL_ID and event (queries.ash_counts.activity_groups_counted): per session, to count sessions once
    # over the blocks, with the first and last SAMPLE_TIME (first_seen, last_seen: of this list only)
    "ashtop": ("sql_id", "event", "instance_number", "session_id", "SESSION_SERIAL#"),
}
ASH_TOP_SEEN = ("ashtop",)  # the lists whose counts keep their first and last sample time
ASH_TOP_KEYS = max(len(c) for c in ASH_TOP_LISTS.values())


@cache
def _ash_top():
    """ASH_TOP, built on first use (__getattr__ below)."""
    from sqlalchemy import Column, Index, Integer, MetaData, Table

    table = Table(
        ASH_TOP_NAME,
        MetaData(),
        *int_columns("dbid", "span", "first_snap", "instance_number"),
        Column("list", Integer, nullable=False),  # its position in ASH_TOP_LISTS
        *[Column(f"k{k}", Integer) for k in range(ASH_TOP_KEYS)],
        *int_columns("samples", "on_cpu"),
        *[Column(c, ash_sample_time().type) for c in ("first_seen", "last_seen")],
    )
    Index(f"{ASH_TOP_NAME}_blocks", table.c.dbid, table.c.list, table.c.span, table.c.first_snap)
    return table


def ash_sample_time():
    """ASH_BASE's SAMPLE_TIME column."""
    return _ash_tables()[0].c.sample_time


def ash_coded(column: str) -> bool:
    """Whether ASH_BASE keeps the column (by its name) as a code of ASH_NAMES."""
    return next(c.key for c in _ash_tables()[0].c if c.name == column) in ASH_CODED


def ash_top_blocks(lo: int, hi: int) -> dict:
    """The blocks of ASH_TOP that make up the intervals (lo, hi], the widest that fit, and the snapshots left at the
    ends as blocks of 1, whose samples are counted as they are: {span: [first_snap...]}."""
    blocks = {span: [] for span in (*ASH_TOP_SPANS, 1)}
    snap = lo + 1
    while snap <= hi:
        span = next(s for s in (*ASH_TOP_SPANS, 1) if (snap - 1) % s == 0 and snap + s - 1 <= hi)
        blocks[span].append(snap)
        snap += span
    return blocks


def ash_top_fill():
    """The statements that fill ASH_TOP from ASH_BASE (the store's own rows only: nothing from a request): the
    narrowest blocks from the samples, each wider one from the one below it."""
    narrowest = ASH_TOP_SPANS[-1]
    block = f"(snap_id - 1) / {narrowest} * {narrowest} + 1"
    on_cpu = f"(SELECT id FROM {ASH_NAMES_NAME} WHERE value = 'ON CPU')"
    cpu = f"(SELECT id FROM {ASH_NAMES_NAME} WHERE value = 'CPU')"
    keys = [f"k{k}" for k in range(ASH_TOP_KEYS)]
    seen = ("first_seen", "last_seen")
    columns = ", ".join(["dbid", "span", "first_snap", "instance_number", "list", *keys, "samples", "on_cpu", *seen])
    into = f"INSERT INTO {ASH_TOP_NAME} ({columns})"
    fill = []
    for position, (name, columns) in enumerate(ASH_TOP_LISTS.items()):
        cols = [f'"{c}"' for c in columns]
        if name in ("event", "ashtop"):  # CPU for a sample ON CPU; blocking's is the event waited on
            cols[columns.index("event")] = f"CASE WHEN session_state = {on_cpu} THEN {cpu} ELSE event END"
        cols += ["NULL"] * (ASH_TOP_KEYS - len(cols))
        times = "min(sample_time), max(sample_time)" if name in ASH_TOP_SEEN else "NULL, NULL"
        where = " WHERE blocking_session IS NOT NULL" if name == "blocking" else ""
        fill.append(
            f"{into} SELECT dbid, {narrowest}, {block}, instance_number, {position}, {', '.join(cols)}, count(*), "
            f"count(CASE WHEN session_state = {on_cpu} THEN 1 END), {times} FROM {ASH_BASE_NAME}{where} "
            f"GROUP BY dbid, 3, instance_number, {', '.join(f'{k + 6}' for k in range(len(columns)))}"
        )
    for narrow, span in zip(ASH_TOP_SPANS[:0:-1], ASH_TOP_SPANS[-2::-1], strict=True):
        first = f"(first_snap - 1) / {span} * {span} + 1"
        fill.append(
            f"{into} SELECT dbid, {span}, {first}, instance_number, list, {', '.join(keys)}, sum(samples), "
            f"sum(on_cpu), min(first_seen), max(last_seen) FROM {ASH_TOP_NAME} WHERE span = {narrow} "
            f"GROUP BY dbid, {first}, instance_number, list, {', '.join(keys)}"
        )
    return fill


def __getattr__(name: str):
    """ASH_BASE, ASH_NAMES, ASH_TOTALS and ASH_TOP: Tables built on first use (PEP 562)."""
    if name in ("ASH_BASE", "ASH_NAMES"):
        return _ash_tables()[name == "ASH_NAMES"]
    if name == "ASH_TOTALS":
        return _ash_totals()
    if name == "ASH_TOP":
        return _ash_top()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
