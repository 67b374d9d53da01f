"""The Statspack database's history (docs/awr-rules.md §31): drawn as AWR's rows by the same generator
(app/demo/rows.py), then kept as Statspack keeps it, in its part file: the STATS$ tables a level 5 or 7 snapshot
fills, the instance-wide statistics as the same cumulative values, the SQL summaries and segment statistics as
cumulative values of what passed the thresholds at each snapshot (statspack.tables.SQL_THRESHOLDS), SQL text in pieces
of 64 characters, plans by plan hash value. The AWR rows are then dropped from the part.

Statspack's SQL summaries sum a statement's child cursors (by OLD_HASH_VALUE, TEXT_SUBSET and ADDRESS); a cursor the
shared pool ages out begins again at zero when it is parsed again, under a new ADDRESS, and is kept again once it
passes a threshold. The demo's shared pool ages out a cursor no execution has used for AGE_OUT_HOURS."""

import zlib
from datetime import datetime

from app.store.awr.views import IO_COLUMNS, SQL_METRICS, view_name
from app.store.statspack.tables import (
    PLAN_LEVEL,
    SEGMENT_COLUMNS,
    SEGMENT_LEVEL,
    SQL_LEVEL,
    SQL_THRESHOLDS,
    tables,
)
from app.store.statspack.views import SQL_COLUMNS

SQL_ID_ALPHABET = "0123456789abcdfghjkmnpqrstuvwxyz"  # an SQL_ID: base 32 of the statement's 64-bit hash
PIECE = 64  # STATS$SQLTEXT's piece length
AGE_OUT_HOURS = 6  # a cursor no execution used for this long leaves the shared pool (least recently used first)


def hash_value(sql_id: str) -> int:
    """V$SQL.HASH_VALUE: the low 32 bits of the hash the SQL_ID spells."""
    n = 0
    for ch in sql_id:
        n = n * 32 + SQL_ID_ALPHABET.index(ch)
    return n & 0xFFFFFFFF


def old_hash_value(sql_id: str) -> int:
    """V$SQL.OLD_HASH_VALUE, the hash before 10g: another of the statement's (the demo's texts are not unique)."""
    return zlib.crc32(sql_id.encode())


def address(sql_id: str, load: int) -> str:
    """A parent cursor's address: another for each load."""
    return f"{(hash_value(sql_id) * 2654435761 + load * 0x10000) & 0xFFFFFFFFFFFF:016X}"


def insert(con, name: str, rows: list, columns: list[str] | None = None):
    """Rows into one STATS$ table of the part (all of its columns in order, or `columns`)."""
    if not rows:
        return
    t = tables(None).tables[name]
    names = columns or [c.name for c in t.columns]
    cols = ", ".join(f'"{n}"' for n in names)
    con.executemany(f'INSERT INTO "{name}" ({cols}) VALUES ({", ".join("?" * len(names))})', rows)


def convert(con, db, stories: dict):
    """The part's AWR rows of `db` rewritten as Statspack's tables, and dropped."""
    dbid = db.dbid
    level = stories["level"]

    def awr(name):
        return view_name("dba_hist_", name)

    snaps = con.execute(
        f"SELECT snap_id, instance_number, startup_time, end_interval_time FROM {awr('snapshot')} WHERE dbid = ? "
        "ORDER BY instance_number, snap_id",
        (dbid,),
    ).fetchall()
    levels = {
        (s, i): level["lowered"] if level["from"] <= datetime.fromisoformat(end) < level["to"] else level["level"]
        for s, i, _, end in snaps
    }
    insert(
        con,
        "stats$snapshot",
        [(s, dbid, i, end, startup, levels[s, i], None, *SQL_THRESHOLDS.values()) for s, i, startup, end in snaps],
    )
    first = {}
    for s, i, startup, _ in snaps:
        first.setdefault((i, startup), s)
    instances = con.execute(
        f"SELECT instance_number, startup_time, parallel, version, db_name, instance_name, host_name, platform_name "
        f"FROM {awr('database_instance')} WHERE dbid = ?",
        (dbid,),
    ).fetchall()
    insert(con, "stats$database_instance", [(dbid, i, st, first.get((i, st)), *rest) for i, st, *rest in instances])
    _counters(con, dbid, awr)
    _sql(con, db, awr, snaps, levels)
    _segments(con, dbid, awr, snaps, levels)
    for t in _awr_tables(con):
        if "dbid" in [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')] and t not in ("dba_users", "dba_objects"):
            con.execute(f'DELETE FROM "{t}" WHERE dbid = ?', (dbid,))


def _awr_tables(con) -> list[str]:
    return [
        r[0]
        for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not r[0].startswith("stats$") and r[0] != "v$event_name"
    ]


def _counters(con, dbid: int, awr):
    """The instance-wide statistics: the same cumulative values, their names where Statspack keeps them."""
    # STATISTIC#: the statistics in name order (V$STATNAME's numbers differ by release; the name identifies)
    names = [r[0] for r in con.execute(f"SELECT DISTINCT stat_name FROM {awr('sysstat')} WHERE dbid = ?", (dbid,))]
    number = {n: k for k, n in enumerate(sorted(names))}
    insert(
        con,
        "stats$sysstat",
        [
            (s, dbid, i, number[n], n, v)
            for s, i, n, v in con.execute(
                f"SELECT snap_id, instance_number, stat_name, value FROM {awr('sysstat')} WHERE dbid = ?", (dbid,)
            )
        ],
    )
    for values, names_table in (("sys_time_model", "stats$time_model_statname"), ("osstat", "stats$osstatname")):
        rows = con.execute(
            f"SELECT snap_id, instance_number, stat_id, stat_name, value FROM {awr(values)} WHERE dbid = ?", (dbid,)
        ).fetchall()
        insert(con, names_table, sorted({(sid, n) for _, _, sid, n, _ in rows}))
        insert(con, f"stats${values}", [(s, dbid, i, sid, v) for s, i, sid, _, v in rows])
    events = con.execute(
        f"SELECT snap_id, instance_number, event_name, total_waits, total_timeouts, time_waited_micro, "
        f"total_waits_fg, total_timeouts_fg, time_waited_micro_fg, event_id FROM {awr('system_event')} WHERE dbid = ?",
        (dbid,),
    ).fetchall()
    insert(con, "stats$system_event", [(s, dbid, i, *rest) for s, i, *rest in events])
    classes = con.execute(
        f"SELECT DISTINCT event_id, event_name, wait_class_id, wait_class FROM {awr('system_event')} WHERE dbid = ?",
        (dbid,),
    ).fetchall()
    insert(con, "v$event_name", classes)
    insert(con, "stats$idle_event", [(name,) for _, name, _, wclass in classes if wclass == "Idle"])
    insert(
        con,
        "stats$event_histogram",
        con.execute(
            f"SELECT snap_id, dbid, instance_number, event_id, wait_time_milli, wait_count "
            f"FROM {awr('event_histogram')} WHERE dbid = ?",
            (dbid,),
        ).fetchall(),
    )
    io = ", ".join(IO_COLUMNS)
    rows = con.execute(
        f"SELECT snap_id, dbid, instance_number, function_id, function_name, {io}, number_of_waits, wait_time "
        f"FROM {awr('iostat_function')} WHERE dbid = ?",
        (dbid,),
    ).fetchall()
    insert(con, "stats$iostat_function_name", sorted({(r[3], r[4]) for r in rows}))
    insert(con, "stats$iostat_function", [(*r[:4], *r[5:]) for r in rows])
    insert(
        con,
        "stats$pgastat",
        con.execute(
            f"SELECT snap_id, dbid, instance_number, name, value FROM {awr('pgastat')} WHERE dbid = ?", (dbid,)
        ),
    )
    insert(
        con,
        "stats$parameter",
        con.execute(
            "SELECT s.snap_id, p.dbid, p.instance_number, p.parameter_name, p.value, p.isdefault, p.ismodified "
            f"FROM awrlens_parameter p JOIN {awr('snapshot')} s ON s.dbid = p.dbid "
            "AND s.instance_number = p.instance_number AND s.snap_id BETWEEN p.first_snap AND p.last_snap "
            "WHERE p.dbid = ?",
            (dbid,),
        ).fetchall(),
    )


def _sql(con, db, awr, snaps, levels):
    """STATS$SQL_SUMMARY, STATS$SQLTEXT, STATS$SQL_PLAN_USAGE and STATS$SQL_PLAN from the AWR rows: per statement the
    cumulative values since its cursor was loaded, kept at each snapshot of level 5 or higher where one passes its
    threshold; the plans of level 6 or higher."""
    dbid = db.dbid
    texts = dict(con.execute(f"SELECT sql_id, sql_text FROM {awr('sqltext')} WHERE dbid = ?", (dbid,)))
    commands = dict(con.execute(f"SELECT sql_id, command_type FROM {awr('sqltext')} WHERE dbid = ?", (dbid,)))
    metrics = ", ".join(f"{m}_delta" for m in SQL_METRICS)
    interval: dict = {}
    for s, i, sql_id, plan, module, *deltas in con.execute(
        f"SELECT snap_id, instance_number, sql_id, plan_hash_value, module, {metrics} FROM {awr('sqlstat')} "
        "WHERE dbid = ?",
        (dbid,),
    ):
        interval.setdefault((s, i), []).append((sql_id, plan, module, deltas))
    summary, usage, used_plans = [], [], {}
    state: dict = {}  # sql_id -> [cumulative values, module, load, last plan, when last executed]
    loads: dict = {}
    startup_of = None
    for s, i, startup, end in snaps:
        now = datetime.fromisoformat(end)
        if startup != startup_of:  # a startup: the shared pool is empty
            state, startup_of = {}, startup
        for sql_id, plan, module, deltas in interval.get((s, i), []):
            if sql_id not in state:
                loads[sql_id] = loads.get(sql_id, -1) + 1
                state[sql_id] = [[0] * len(SQL_METRICS), module, loads[sql_id], plan, now]
            row = state[sql_id]
            row[0] = [a + (d or 0) for a, d in zip(row[0], deltas, strict=True)]
            row[3], row[4] = plan, now
            used_plans.setdefault(plan, s)
        for sql_id in [k for k, row in state.items() if (now - row[4]).total_seconds() > AGE_OUT_HOURS * 3600]:
            del state[sql_id]  # aged out: parsed again, it is loaded again
        if levels[s, i] < SQL_LEVEL:
            continue
        for sql_id, (values, module, load, plan, _) in state.items():
            v = dict(zip(SQL_METRICS, values, strict=True))
            parse_calls = round(v["executions"] * 0.3)
            past = {"executions": v["executions"], "disk_reads": v["disk_reads"], "parse_calls": parse_calls}
            past["buffer_gets"] = v["buffer_gets"]
            if not any(past[k] > th for k, th in SQL_THRESHOLDS.items()):
                continue
            text = texts.get(sql_id, "")
            keys = (text[:31], old_hash_value(sql_id))
            where = address(sql_id, load)
            summary.append(
                (
                    s,
                    dbid,
                    i,
                    *keys,
                    sql_id,
                    module,
                    *[v[m] for m in SQL_METRICS],
                    parse_calls,
                    commands.get(sql_id),
                    where,
                    hash_value(sql_id),
                )
            )
            if levels[s, i] >= PLAN_LEVEL and plan:
                usage.append(
                    (s, dbid, i, keys[1], keys[0], plan, hash_value(sql_id), sql_id, None, where, "ALL_ROWS", end)
                )
    insert(
        con,
        "stats$sql_summary",
        summary,
        [
            "snap_id",
            "dbid",
            "instance_number",
            "text_subset",
            "old_hash_value",
            "sql_id",
            "module",
            *[SQL_COLUMNS[m] for m in SQL_METRICS],
            "parse_calls",
            "command_type",
            "address",
            "hash_value",
        ],
    )
    insert(con, "stats$sql_plan_usage", usage)
    pieces = []
    last = {}
    for row in summary:
        last[row[5]] = row[0]
    for sql_id, text in texts.items():
        if sql_id not in last:
            continue
        for k in range(0, max(len(text), 1), PIECE):
            pieces.append(
                (
                    old_hash_value(sql_id),
                    text[:31],
                    k // PIECE,
                    sql_id,
                    text[k : k + PIECE],
                    address(sql_id, 0),
                    commands.get(sql_id),
                    last[sql_id],
                )
            )
    insert(con, "stats$sqltext", pieces)
    lines = {}
    for row in con.execute(
        f"SELECT plan_hash_value, id, operation, options, object_owner, object_name, parent_id, depth, position, cost, "
        f"cardinality, bytes, access_predicates, filter_predicates, cpu_cost, io_cost, time FROM {awr('sql_plan')} "
        "WHERE dbid = ?",
        (dbid,),
    ):
        if row[0] in used_plans:
            lines[row[0], row[1]] = (*row, used_plans[row[0]])
    insert(con, "stats$sql_plan", [lines[k] for k in sorted(lines)])


def _segments(con, dbid: int, awr, snaps, levels):
    """STATS$SEG_STAT: per segment the cumulative values since the startup, kept at each snapshot of level 7 or
    higher (every segment the AWR rows name: the demo's are its busiest)."""
    deltas = ", ".join(f"{name}_delta" for name in SEGMENT_COLUMNS)
    interval: dict = {}
    for s, i, ts, obj, dataobj, *values in con.execute(
        f'SELECT snap_id, instance_number, "TS#", "OBJ#", "DATAOBJ#", {deltas} FROM {awr("seg_stat")} WHERE dbid = ?',
        (dbid,),
    ):
        interval.setdefault((s, i), []).append(((ts, obj, dataobj), values))
    rows, state, startup_of = [], {}, None
    for s, i, startup, _ in snaps:
        if startup != startup_of:
            state, startup_of = {}, startup
        for key, values in interval.get((s, i), []):
            before = state.get(key) or [0] * len(values)
            state[key] = [a + (d or 0) for a, d in zip(before, values, strict=True)]
        if levels[s, i] >= SEGMENT_LEVEL:
            rows += [(s, dbid, i, *key, *values) for key, values in state.items()]
    insert(
        con,
        "stats$seg_stat",
        rows,
        ["snap_id", "dbid", "instance_number", "TS#", "OBJ#", "DATAOBJ#", *SEGMENT_COLUMNS.values()],
    )
    insert(
        con,
        "stats$seg_stat_obj",
        con.execute(
            f'SELECT "TS#", "OBJ#", "DATAOBJ#", dbid, owner, object_name, subobject_name, object_type, '
            f"tablespace_name FROM {awr('seg_stat_obj')} WHERE dbid = ?",
            (dbid,),
        ).fetchall(),
    )
