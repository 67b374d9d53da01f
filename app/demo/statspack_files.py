"""Statspack report files (`sp_<begin>_<end>.lst`, layout "statspack-text-19") rendered from the demo's STATS$ tables
in the layout of Oracle's sprepins.sql (docs/report-formats.md, "statspack-text-19"): SQL*Plus columns of fixed
widths, multi-line headings standing on their last line, a rule of dashes under each heading, and each figure by
sprepins.sql's arithmetic on the two snapshots of the same startup (docs/awr-rules.md §31). Every value is read with
plain SQL from the store's STATS$ rows; the importer's tests read the files back."""

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from app.demo.report_data import EVENT_COLUMNS, IO_SUMS, RangeError, event_side
from app.demo.report_files import LOAD_PROFILE_STATS, hourly_folder
from app.demo.report_style import half_up, to_char
from app.history.catalog import POINT_IN_TIME

LAYOUT = "statspack-text-19"
TOP_SQL = 65  # sprepcon.sql: top_n_sql
TEXT_PIECES = 4  # sprepcon.sql: num_rows_per_hash
TOP_SQL_PCT = 1.0  # sprepcon.sql: top_pct_sql
TOP_SEGMENTS = 5  # sprepcon.sql: top_n_segstat
TOP_EVENTS = 5
EVENT_TIME_MIN = 0.001  # sprepins.sql: total_event_time_s_th, seconds
SEGMENT_LEVEL = 7
RULE = " " * 10 + "-" * 61  # repfooter center of 61 dashes in a line of 80
# SYSSTAT readings sprepins.sql prints as Begin/End values, never as deltas
READINGS = ("logons current", "opened cursors current", "workarea memory allocated", "session cursor cache count")
# OS statistics that are values, not counters (V$OSSTAT's CUMULATIVE = 'NO'): printed as the end value
OS_VALUES = POINT_IN_TIME["osstat"]
MB = 1048576.0


@dataclass
class Event:
    name: str
    idle: bool
    waits: int
    timeouts: int
    micros: int
    waits_fg: int
    timeouts_fg: int
    micros_fg: int


@dataclass
class SpInterval:
    """One instance's interval between two Statspack snapshots of the same startup, as sprepins.sql reads it."""

    dbid: int
    db_name: str
    instance: int
    instance_name: str
    host: str
    platform: str
    release: str
    rac: bool
    startup: datetime
    lo: int
    hi: int
    t0: datetime
    t1: datetime
    seconds: int  # sprepins.sql's :ela, round((e.snap_time - b.snap_time) * 86400)
    level_lo: int
    sysstat: dict[str, float] = field(default_factory=dict)  # deltas, every statistic but the readings
    stats_begin: dict[str, float] = field(default_factory=dict)
    stats_end: dict[str, float] = field(default_factory=dict)
    time_model: dict[str, float] = field(default_factory=dict)  # microseconds
    events: list[Event] = field(default_factory=list)
    os_begin: dict[str, float] = field(default_factory=dict)
    os_end: dict[str, float] = field(default_factory=dict)
    io_functions: dict[str, dict[str, float]] = field(default_factory=dict)
    histograms: dict[str, tuple[bool, dict[int, int]]] = field(default_factory=dict)
    parameters_begin: dict[str, tuple] = field(default_factory=dict)  # name -> (value, isdefault, ismodified)
    parameters_end: dict[str, tuple] = field(default_factory=dict)
    sql: list[dict] = field(default_factory=list)
    segments: list[dict] = field(default_factory=list)
    pga_bytes_processed: float | None = None
    thresholds: dict[str, float] = field(default_factory=dict)  # STATS$SNAPSHOT's *_TH at the end snapshot

    @property
    def transactions(self) -> float:
        return self.sysstat.get("user commits", 0) + self.sysstat.get("user rollbacks", 0)

    def stat(self, name: str) -> float:
        return self.sysstat.get(name, 0)


def _when(text) -> datetime:
    return datetime.fromisoformat(text)


def _pairs(con, sql: str, args: tuple) -> dict:
    return dict(con.execute(sql, args))


def interval(con, dbid: int, inst: int, lo: int, hi: int) -> SpInterval:
    """The interval (lo, hi] of instance `inst`, each section's rows read from the STATS$ tables."""
    snaps = con.execute(
        "SELECT snap_id, snap_time, startup_time, snap_level FROM stats$snapshot WHERE dbid = ? "
        "AND instance_number = ? AND snap_id IN (?, ?) ORDER BY snap_id",
        (dbid, inst, lo, hi),
    ).fetchall()
    if lo >= hi or len(snaps) != 2:
        raise RangeError(f"instance {inst} of {dbid} has no Statspack snapshot pair {lo}-{hi}")
    (_, t0, up0, level_lo), (_, t1, up1, _) = snaps
    if up0 != up1:  # sprepins.sql: "The instance was shutdown between snapshots"
        raise RangeError(f"the instance was shutdown between snapshots {lo} and {hi}")
    info = con.execute(
        "SELECT db_name, instance_name, host_name, platform_name, version, parallel FROM stats$database_instance "
        "WHERE dbid = ? AND instance_number = ? AND startup_time = ?",
        (dbid, inst, up0),
    ).fetchone()
    it = SpInterval(
        dbid=dbid,
        db_name=info[0],
        instance=inst,
        instance_name=info[1],
        host=info[2],
        platform=info[3],
        release=info[4],
        rac=info[5] == "YES",
        startup=_when(up0),
        lo=lo,
        hi=hi,
        t0=_when(t0),
        t1=_when(t1),
        seconds=round((_when(t1) - _when(t0)).total_seconds()),
        level_lo=level_lo,
    )
    key = (dbid, inst)
    for snap, into in ((lo, it.stats_begin), (hi, it.stats_end)):
        into.update(
            _pairs(
                con,
                "SELECT name, value FROM stats$sysstat WHERE dbid = ? AND instance_number = ? AND snap_id = ?",
                (*key, snap),
            )
        )
    # Instance Activity Stats: e.value >= b.value and e.value > 0, the readings apart
    it.sysstat = {
        n: e - it.stats_begin[n]
        for n, e in it.stats_end.items()
        if n in it.stats_begin and n not in READINGS and e >= it.stats_begin[n] and e > 0
    }
    it.time_model = dict(
        con.execute(
            "SELECT sn.stat_name, e.value - b.value FROM stats$sys_time_model e JOIN stats$sys_time_model b "
            "ON b.dbid = e.dbid AND b.instance_number = e.instance_number AND b.stat_id = e.stat_id AND b.snap_id = ? "
            "JOIN stats$time_model_statname sn ON sn.stat_id = e.stat_id "
            "WHERE e.dbid = ? AND e.instance_number = ? AND e.snap_id = ?",
            (lo, *key, hi),
        )
    )
    idle = {r[0] for r in con.execute("SELECT event FROM stats$idle_event")}
    diffs = ", ".join(f"e.{c} - coalesce(b.{c}, 0)" for c in EVENT_COLUMNS)
    for name, *values in con.execute(
        f"SELECT e.event, {diffs} FROM stats$system_event e LEFT JOIN stats$system_event b ON b.dbid = e.dbid "
        "AND b.instance_number = e.instance_number AND b.event_id = e.event_id AND b.snap_id = ? "
        "WHERE e.dbid = ? AND e.instance_number = ? AND e.snap_id = ?",
        (lo, *key, hi),
    ):
        it.events.append(Event(name, name in idle, *values))
    for snap, into in ((lo, it.os_begin), (hi, it.os_end)):
        into.update(
            _pairs(
                con,
                "SELECT n.stat_name, s.value FROM stats$osstat s JOIN stats$osstatname n ON n.osstat_id = s.osstat_id "
                "WHERE s.dbid = ? AND s.instance_number = ? AND s.snap_id = ?",
                (*key, snap),
            )
        )
    sums = ", ".join(f"sum(CASE f.snap_id WHEN ? THEN {c} ELSE -({c}) END)" for c in IO_SUMS.values())
    for name, *values in con.execute(
        f"SELECT n.function_name, {sums} FROM stats$iostat_function f JOIN stats$iostat_function_name n "
        "ON n.function_id = f.function_id WHERE f.dbid = ? AND f.instance_number = ? AND f.snap_id IN (?, ?) "
        "GROUP BY n.function_name HAVING count(*) = 2",
        (hi,) * len(IO_SUMS) + (*key, lo, hi),
    ):
        it.io_functions[name] = dict(zip(IO_SUMS, values, strict=True))
    for name, milli, count in con.execute(
        "SELECT n.name, h.wait_time_milli, sum(CASE h.snap_id WHEN ? THEN h.wait_count ELSE -h.wait_count END) "
        "FROM stats$event_histogram h JOIN v$event_name n ON n.event_id = h.event_id "
        "WHERE h.dbid = ? AND h.instance_number = ? AND h.snap_id IN (?, ?) GROUP BY n.name, h.wait_time_milli",
        (hi, *key, lo, hi),
    ):
        it.histograms.setdefault(name, (name in idle, {}))[1][milli] = count
    for snap, into in ((lo, it.parameters_begin), (hi, it.parameters_end)):
        for name, value, isdefault, ismodified in con.execute(
            "SELECT name, value, isdefault, ismodified FROM stats$parameter WHERE dbid = ? AND instance_number = ? "
            "AND snap_id = ?",
            (*key, snap),
        ):
            into[name] = (value, isdefault, ismodified)
    pga = _pairs(
        con,
        "SELECT snap_id, value FROM stats$pgastat WHERE dbid = ? AND instance_number = ? AND snap_id IN (?, ?) "
        "AND name = 'bytes processed'",
        (*key, lo, hi),
    )
    if len(pga) == 2:
        it.pga_bytes_processed = pga[hi] - pga[lo]
    names = ("executions_th", "disk_reads_th", "parse_calls_th", "buffer_gets_th")
    found = con.execute(
        f"SELECT {', '.join(names)} FROM stats$snapshot WHERE dbid = ? AND instance_number = ? AND snap_id = ?",
        (*key, hi),
    ).fetchone()
    it.thresholds = dict(zip(names, found, strict=True))
    it.sql = sql_deltas(con, dbid, inst, lo, hi)
    it.segments = segment_deltas(con, dbid, inst, lo, hi) if level_lo >= SEGMENT_LEVEL else []
    return it


SQL_VALUES = ("buffer_gets", "executions", "cpu_time", "elapsed_time", "disk_reads", "parse_calls", "rows_processed")


def sql_deltas(con, dbid: int, inst: int, lo: int, hi: int) -> list[dict]:
    """Each statement's work in (lo, hi] by sprepins.sql's STATS$TEMP_SQLSTATS: over its rows from lo to hi in snapshot
    order, a row at lo with none before adds nothing; a row whose ADDRESS changed or whose value fell adds its whole
    value; any other row adds its value less the one before (a first row after lo: its whole value)."""
    cols = ", ".join(SQL_VALUES)
    rows = con.execute(
        f"SELECT snap_id, old_hash_value, text_subset, module, address, {cols} FROM stats$sql_summary "
        "WHERE dbid = ? AND instance_number = ? AND snap_id BETWEEN ? AND ? ORDER BY old_hash_value, text_subset, "
        "snap_id",
        (dbid, inst, lo, hi),
    ).fetchall()
    out: dict[tuple, dict] = {}
    prev: dict[tuple, tuple] = {}
    for snap, ohv, subset, module, address, *values in rows:
        key = (ohv, subset)
        before = prev.get(key)
        acc = out.setdefault(key, {"old_hash_value": ohv, "text_subset": subset, "module": module})
        for name, value in zip(SQL_VALUES, values, strict=True):
            value = value or 0
            if before is None:
                add = 0 if snap == lo else value
            else:
                old = before[1][SQL_VALUES.index(name)] or 0
                add = value if (address != before[0] or value < old) else value - old
            acc[name] = acc.get(name, 0) + add
        acc["module"] = module
        prev[key] = (address, values)
    found = [s for s in out.values() if any(s.get(n, 0) > 0 for n in SQL_VALUES)]
    for s in found:
        s["pieces"] = [
            t
            for (t,) in con.execute(
                "SELECT sql_text FROM stats$sqltext WHERE old_hash_value = ? AND text_subset = ? AND piece < ? "
                "ORDER BY piece",
                (s["old_hash_value"], s["text_subset"], TEXT_PIECES),
            )
        ]
    return found


SEGMENT_VALUES = ("logical_reads", "physical_reads")


def segment_deltas(con, dbid: int, inst: int, lo: int, hi: int) -> list[dict]:
    """STATS$SEG_STAT's end values less the begin ones (none at the begin: the whole value), named by
    STATS$SEG_STAT_OBJ."""
    cols = ", ".join(f"e.{c} - coalesce(b.{c}, 0)" for c in SEGMENT_VALUES)
    rows = con.execute(
        f'SELECT n.owner, n.tablespace_name, n.object_name, n.subobject_name, n.object_type, {cols} '
        'FROM stats$seg_stat e LEFT JOIN stats$seg_stat b ON b.dbid = e.dbid AND b.instance_number = e.instance_number '
        'AND b."TS#" = e."TS#" AND b."OBJ#" = e."OBJ#" AND b."DATAOBJ#" = e."DATAOBJ#" AND b.snap_id = ? '
        'JOIN stats$seg_stat_obj n ON n.dbid = e.dbid AND n."TS#" = e."TS#" AND n."OBJ#" = e."OBJ#" '
        'AND n."DATAOBJ#" = e."DATAOBJ#" WHERE e.dbid = ? AND e.instance_number = ? AND e.snap_id = ?',
        (lo, dbid, inst, hi),
    ).fetchall()
    keys = ("owner", "tablespace", "object", "subobject", "type", *SEGMENT_VALUES)
    return [dict(zip(keys, r, strict=True)) for r in rows]


# -- SQL*Plus columns ---------------------------------------------------------------------------------------------


@dataclass
class Col:
    """A SQL*Plus column: its heading ('|' parts lines), the width of its format, right-aligned (numbers, `just r`),
    cut (TRUNCATED) or wrapped onto the next lines (WRAPPED, SQL*Plus's default)."""

    heading: str
    width: int
    right: bool = False
    trunc: bool = False
    center: bool = False  # the heading's `just c`

    @property
    def shown(self) -> int:  # SQL*Plus shows a column as wide as its format or its heading's longest line
        return max(self.width, *(len(p) for p in self.heading.split("|")))


def num(mask: str):
    """A NUMBER column's format: TO_CHAR's mask, len(mask) + 1 wide (the sign's place)."""
    return lambda v: "" if v is None else to_char(v, mask)


def columns(cols: list[Col]) -> list[str]:
    """The heading lines (each heading on the last lines, as SQL*Plus stands them) and the rule of dashes."""
    parts = [c.heading.split("|") for c in cols]
    depth = max(len(p) for p in parts)
    lines = []
    for k in range(depth):
        cells = []
        for c, p in zip(cols, parts, strict=True):
            text = p[k - (depth - len(p))] if k >= depth - len(p) else ""
            cells.append(text.center(c.shown) if c.center else text.rjust(c.shown) if c.right else text.ljust(c.shown))
        lines.append(" ".join(cells).rstrip())
    lines.append(" ".join("-" * c.shown for c in cols))
    return lines


def rows(cols: list[Col], values: list[list[str]]) -> list[str]:
    """Each row's cells in their columns; a text longer than its column cut (TRUNCATED) or carried onto the next lines
    (WRAPPED), the other columns blank there."""
    out = []
    for row in values:
        chunks = []
        for c, text in zip(cols, row, strict=True):
            text = text or ""
            w = c.shown
            if c.right:
                chunks.append([text.strip().rjust(w)[-w:] if len(text.strip()) <= w else "#" * w])
            elif c.trunc or len(text) <= w:
                chunks.append([text[:w].ljust(w)])
            else:
                chunks.append([text[i : i + w].ljust(w) for i in range(0, len(text), w)])
        for k in range(max(len(ch) for ch in chunks)):
            out.append(
                " ".join(ch[k] if k < len(ch) else " " * c.shown for c, ch in zip(cols, chunks, strict=True)).rstrip()
            )
    return out


def title(name: str, it: SpInterval) -> str:
    """A section's TTITLE: its name, two spaces, DB/Inst and the snapshots (text substitution variables: not padded)."""
    return f"{name}  DB/Inst: {it.db_name}/{it.instance_name}  Snaps: {it.lo}-{it.hi}"


def section(head: str, notes: list[str], cols: list[Col], body: list[list[str]]) -> list[str]:
    return [head, *notes, "", *columns(cols), *rows(cols, body), RULE, ""]


def _pct(part, whole):
    return None if not whole else 100.0 * part / whole


def _round2(value):
    """ROUND(value, 2), as the report's query rounds before SQL*Plus prints the column's format."""
    return None if value is None else float(half_up(value, 2))


def _mi(value) -> str:
    """substr(to_char(value, '999.9MI'), 1, 5): one decimal, the trailing sign's place cut off."""
    if value is None:
        return ""
    return to_char(value, "999.9")[1:][:5] if value >= 0 else ("#" * 5)


# -- the sections ---------------------------------------------------------------------------------------------------


def header(it: SpInterval) -> list[str]:
    """STATSPACK report for, the database (whose name this header leaves blank under "Database"), the host and the
    snapshots (sprepins.sql's select of literals: widths as their dashes)."""
    busy = it.time_model.get("DB time", 0)
    ncpu, cores = it.os_begin.get("NUM_CPUS"), it.os_begin.get("NUM_CPU_CORES")
    sockets, mem = it.os_begin.get("NUM_CPU_SOCKETS"), it.os_begin.get("PHYSICAL_MEMORY_BYTES")

    def n(v, mask):
        return "" if v is None else to_char(v, mask)

    out = [
        "STATSPACK report for",
        "",
        "Database    DB Id    Instance     Inst Num  Startup Time   Release     RAC",
        "~~~~~~~~ ----------- ------------ -------- --------------- ----------- ---",
        " "
        * 8
        + f" {it.dbid:>11} {it.instance_name[:12]:<12} {it.instance:>8} {it.startup.strftime('%d-%b-%y %H:%M'):<15}"
        f" {it.release[:11]:<11} {'YES' if it.rac else 'NO'}",
        "",
        "Host Name             Platform                CPUs Cores Sockets   Memory (G)",
        "~~~~ ---------------- ---------------------- ----- ----- ------- ------------",
        f"     {it.host[:16]:<16} {it.platform[:22]:<22} {n(ncpu, '9999')} {n(cores, '9999')}"
        f" {n(sockets, '999999')} {n(None if mem is None else mem / 1024**3, '9,999,999.9')}",
        "",
        "Snapshot       Snap Id     Snap Time      Sessions Curs/Sess Comment",
        "~~~~~~~~    ---------- ------------------ -------- --------- ------------------",
    ]
    for label, snap, t, values in (
        ("Begin Snap:", it.lo, it.t0, it.stats_begin),
        ("  End Snap:", it.hi, it.t1, it.stats_end),
    ):
        logons, cursors = values.get("logons current"), values.get("opened cursors current")
        out.append(
            f"{label} {snap:>10} {t.strftime('%d-%b-%y %H:%M:%S'):<19} {n(logons, '99,999')} "
            f"{n(cursors / logons if logons else None, '99,999.0')}".rstrip()
        )
    minutes = it.seconds / 60
    out += [
        f"   Elapsed: {n(minutes, '99,990.00')} (mins) Av Act Sess: {n(busy / 1e6 / it.seconds, '99,990.9')}",
        f"   DB time: {n(busy / 6e7, '99,990.00')} (mins)      DB CPU: "
        f"{n(it.time_model.get('DB CPU', 0) / 6e7, '99,990.99')} (mins)",
        "",
    ]
    return out


def load_profile_rows(it: SpInterval) -> list[tuple[str, float, float | None, float | None, float | None]]:
    """sprepins.sql's Load Profile: label, per second, per transaction (ROUND to two decimals), per execution and per
    call (DB time and DB CPU only)."""
    ela, tran, exe, calls = it.seconds, it.transactions, it.stat("execute count"), it.stat("user calls")
    out = []

    def add(label, total, timed=False):
        out.append(
            (
                label,
                _round2(total / ela),
                _round2(total / tran) if tran and label != "Transactions" else None,
                _round2(total / exe) if timed and exe else None,
                _round2(total / calls) if timed and calls else None,
            )
        )

    add("DB time(s)", it.time_model.get("DB time", 0) / 1e6, True)
    add("DB CPU(s)", it.time_model.get("DB CPU", 0) / 1e6, True)
    for label, name in LOAD_PROFILE_STATS:
        add(label, it.stat(name))
    add("W/A MB processed", (it.pga_bytes_processed or 0) / MB)
    add("Logons", it.stat("logons cumulative"))
    add("Executes", exe)
    add("Rollbacks", it.stat("user rollbacks"))
    add("Transactions", tran)
    return out


def load_profile(it: SpInterval) -> list[str]:
    lp, sv = num("999,999,999,990.9"), num("999,990.99")
    out = [
        "Load Profile              Per Second    Per Transaction    Per Exec    Per Call",
        "~~~~~~~~~~~~      ------------------  ----------------- ----------- -----------",
    ]
    for label, ps, pt, pe, pc in load_profile_rows(it):
        cells = [lp(ps), lp(pt) or " " * 18, sv(pe) or " " * 11, sv(pc)]
        out.append(f"{label + ':':>17} " + " ".join(cells))
        out[-1] = out[-1].rstrip()
    return [*out, ""]


def efficiency(it: SpInterval) -> list[str]:
    """Instance Efficiency Indicators from STATS$SYSSTAT (sprepins.sql's ratios). Buffer Nowait %, Library Hit % and
    Latch Hit % come from STATS$WAITSTAT, STATS$LIBRARYCACHE and STATS$LATCH, which the demo does not keep: blank."""
    s = it.stat
    pct = num("990.99")

    def ratio(value):
        return pct(None if value is None else _round2(value))

    optimal = s("workarea executions - optimal")
    sorts = optimal + s("workarea executions - onepass") + s("workarea executions - multipass")

    def one_less(part, whole):
        return None if not s(whole) else 100 * (1 - s(part) / s(whole))

    lines = [
        ("Buffer Nowait %:", None, "Redo NoWait %:", one_less("redo log space requests", "redo entries")),
        ("Buffer  Hit   %:", one_less("physical reads cache", "session logical reads"), "Optimal W/A Exec %:",
         _pct(optimal, sorts)),
        ("Library Hit   %:", None, "Soft Parse %:", one_less("parse count (hard)", "parse count (total)")),
        ("Execute to Parse %:", one_less("parse count (total)", "execute count"), "Latch Hit %:", None),
        ("Parse CPU to Parse Elapsd %:", _pct(s("parse time cpu"), s("parse time elapsed")), "% Non-Parse CPU:",
         one_less("parse time cpu", "CPU used by this session")),
    ]  # fmt: skip
    out = ["Instance Efficiency Indicators", "~" * 30]
    for a, va, b, vb in lines:
        out.append(f"{a:>28} {ratio(va) or ' ' * 7} {b:>20} {ratio(vb)}".rstrip())
    return [*out, ""]


def _total_call_micros(it: SpInterval) -> float:
    """sprepins.sql's total call time (:tct_us): the non-idle events' wait time and the CPU of 'CPU used by this
    session' (centiseconds)."""
    return sum(e.micros for e in it.events if not e.idle) + it.stat("CPU used by this session") * 1e4


def top_events(it: SpInterval) -> list[str]:
    tct = _total_call_micros(it)
    found = [
        (e.name, e.waits, e.micros / 1e6, e.micros / 1e3 / e.waits) for e in it.events if not e.idle and e.waits > 0
    ]
    cpu = it.stat("CPU used by this session")
    if cpu > 0:
        found.append(("CPU time", None, cpu / 100, None))
    found.sort(key=lambda r: (-r[2], -(r[1] or 0)))
    cols = [
        Col("Top 5 Timed Events|~~~~~~~~~~~~~~~~~~|Event", 41, trunc=True),
        Col("Waits", 12, True),
        Col("Time (s)", 11, True),
        Col("Avg|wait|(ms)", 6, True),
        Col("%Total|Call|Time", 6, True),
    ]
    body = [
        [name, num("999,999,990")(w), num("99,999,990")(t), num("99990")(a), num("999.9")(_pct(t * 1e6, tct) or 0)]
        for name, w, t, a in found[:TOP_EVENTS]
    ]
    return [*columns(cols), *rows(cols, body), RULE, ""]


def host_cpu(it: SpInterval) -> list[str]:
    b, e = it.os_begin, it.os_end
    ticks = e.get("BUSY_TIME", 0) - b.get("BUSY_TIME", 0) + e.get("IDLE_TIME", 0) - b.get("IDLE_TIME", 0)
    if ticks <= 0:
        return []

    def share(name):
        return num("990.99")(_round2(100 * (e.get(name, 0) - b.get(name, 0)) / ticks))

    def count(name):
        return "" if b.get(name) is None else str(round(b[name]))

    load = num("990.99")
    return [
        f"Host CPU  (CPUs: {count('NUM_CPUS')}  Cores: {count('NUM_CPU_CORES')}  Sockets: {count('NUM_CPU_SOCKETS')})",
        "~~~~~~~~              Load Average",
        "                      Begin     End      User  System    Idle     WIO     WCPU",
        "                    ------- -------   ------- ------- ------- ------- --------",
        " " * 19
        + f" {load(_round2(b.get('LOAD')))} {load(_round2(e.get('LOAD')))}   "
        + " ".join(share(n) for n in ("USER_TIME", "SYS_TIME", "IDLE_TIME", "IOWAIT_TIME", "RSRC_MGR_CPU_WAIT_TIME")),
        "",
    ]


def time_model(it: SpInterval) -> list[str]:
    """Time Model System Stats: the statistics within DB time by % of DB time, then DB time, then the background
    ones by time (sprepins.sql's order_col), each with a positive delta."""
    db_time = it.time_model.get("DB time", 0)
    order = {"DB time": 1, "background cpu time": 2, "background elapsed time": 2}
    found = [(order.get(n, 0), n, v) for n, v in it.time_model.items() if v > 0]
    found.sort(key=lambda r: (r[0], -r[2]))  # by % of DB time within the first group, by time in the others
    cols = [Col("Statistic", 35, trunc=True), Col("Time (s)", 20, True), Col("% DB time", 8, True)]
    body = [
        [n, num("9,999,999,999,990.9")(v / 1e6), num("99999.9")(_pct(v, db_time)) if o == 0 else ""]
        for o, n, v in found
    ]
    return section(
        title("Time Model System Stats", it), ["-> Ordered by % of DB time desc, Statistic name"], cols, body
    )


EVENT_COLS = [
    Col("Event", 28, trunc=True),
    Col("Waits", 12, True),
    Col("%Tim|out", 4, True),
    Col("Total Wait|Time (s)", 10, True),
    Col("Avg|wait|(ms)", 6, True),
    Col("Waits|/txn", 8, True),
    Col("%Total|Call|Time", 6, True),
]


def wait_events(it: SpInterval, background: bool) -> list[str]:
    """Foreground Wait Events (the _FG columns) or Background Wait Events (STATS$BG_EVENT_SUMMARY: the totals less
    the foreground's): events whose time is at least EVENT_TIME_MIN, non-idle by time and waits, then idle ones."""
    tct, tran = _total_call_micros(it), it.transactions
    found = []
    for e in it.events:
        waits, outs, micros = event_side(e, background)
        if waits <= 0 or micros / 1e6 < EVENT_TIME_MIN:
            continue
        found.append((e.idle, -micros, -waits, e.name, waits, outs, micros))
    found.sort()
    body = [
        [
            name,
            num("999,999,990")(waits),
            num("999")(100 * outs / waits),
            num("9,999,990")(micros / 1e6),
            num("99990")(micros / 1e3 / waits),
            num("9,990.0")(waits / tran) if tran else "",
            "" if idle else num("999.9")(_pct(micros, tct) or 0),
        ]
        for idle, _, _, name, waits, outs, micros in found
    ]
    notes = [
        f"-> Only events with Total Wait Time (s) >= {tm_threshold()} are shown",
        "-> ordered by Total Wait Time desc, Waits desc (idle events last)",
    ]
    name = "Background Wait Events" if background else "Foreground Wait Events"
    return section(title(name, it), notes, EVENT_COLS, body)


def tm_threshold() -> str:
    return f"{EVENT_TIME_MIN:g}".lstrip("0")


BUCKETS = (("<1ms", 1, 1), ("<2ms", 2, 2), ("<4ms", 4, 4), ("<8ms", 8, 8), ("<16ms", 16, 16), ("<32ms", 32, 32),
           ("<=1s", 64, 1024), (">1s", 2048, 1 << 62))  # fmt: skip


def histogram_total(n: int) -> str:
    """sprepins.sql's Total Waits: up to 9999 as is with a trailing space, else truncated thousands K, millions M..."""
    if n <= 9999:
        return f"{n} "
    for unit, scale in (("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)):
        if int(n // scale) <= 9999:
            return f"{int(n // scale)}{unit}"
    return f"{int(n // 1e15)}P"[:5]


def histogram(it: SpInterval) -> list[str]:
    found = []
    for name, (idle, counts) in it.histograms.items():
        total = sum(counts.values())
        if total <= 0:
            continue
        pcts = [sum(v for ms, v in counts.items() if lo <= ms <= hi) for _, lo, hi in BUCKETS]
        found.append(
            (idle, name, [name, histogram_total(total).rjust(5)] + [_mi(_pct(v, total)) if v else "" for v in pcts])
        )
    found.sort()
    cols = [Col("Event", 26), Col("Waits", 5)] + [Col(f"{b[0]:>5}", 5) for b in BUCKETS]
    notes = [
        "-> Total Waits - units: K is 1000, M is 1000000, G is 1000000000",
        "-> % of Waits - column heading: <=1s is truly <1024ms, >1s is truly >=1024ms",
        "-> % of Waits - value: .0 indicates value was <.05%, null is truly 0",
        "-> Ordered by Event (idle events last)",
        "",
        "                           Total ----------------- % of Waits ------------------",
    ]
    out = section(title("Wait Event Histogram", it), notes, cols, [r for _, _, r in found])
    del out[len(notes) + 1]  # the super heading stands right above the headings
    return out


def _sql_text_lines(s: dict, first: str) -> list[str]:
    """A statement's lines in the a80 column: the figures (80 characters), 'Module: ' padded to 80 where there is
    one, then the text's pieces of 64 characters, one a line; a blank line after it (break on hv skip 1)."""
    text = first + (f"Module: {s['module']}".ljust(80) if s["module"] else "") + (s["pieces"][0] if s["pieces"] else "")
    lines = [text[i : i + 80].rstrip() for i in range(0, len(text), 80)]
    return [*lines, *(p.rstrip() for p in s["pieces"][1:]), ""]


def _lpad(text: str, width: int) -> str:
    return text.rjust(width)[:width] if len(text) <= width else text[:width]


def sql_sections(it: SpInterval) -> list[str]:
    """SQL ordered by CPU, Elapsed time, Gets, Reads and Executions: the TOP_SQL statements over TOP_SQL_PCT % of the
    total, each its figures line, module and text (sprepins.sql's a80 column)."""
    tm_ = it.time_model
    dbcpu, dbtim = tm_.get("DB CPU", 0), tm_.get("DB time", 0)
    gets, phyr, exe = it.stat("session logical reads"), it.stat("physical reads"), it.stat("execute count")
    sql = it.sql

    def top(key, whole):
        chosen = [s for s in sql if whole and 100 * s[key] / whole > TOP_SQL_PCT]
        return sorted(chosen, key=lambda s: (-s[key], s["old_hash_value"]))[:TOP_SQL]

    def captured(key, whole, skip_plsql=False):
        return None if not whole else 100 * sum(s[key] for s in sql if s["executions"] > 0) / whole

    def lp(value, mask, width):
        return _lpad(to_char(value, mask), width)

    def per_exec(value, s, mask, width, scale=1.0):
        return _lpad(" " if not s["executions"] else to_char(value / s["executions"] / scale, mask), width)

    def pct(v, mask="990.9"):
        return "" if v is None else to_char(v, mask)

    out: list[str] = []
    # SQL ordered by CPU
    out += [
        title("SQL ordered by CPU", it),
        f"-> Total DB CPU (s): {to_char(dbcpu / 1e6, '99,999,999,999')}",
        f"-> Captured SQL accounts for {pct(captured('cpu_time', dbcpu))}% of Total DB CPU",
        f"-> SQL reported below exceeded  {TOP_SQL_PCT}% of Total DB CPU",
        "",
        "    CPU                  CPU per             Elapsd                     Old",
        "  Time (s)   Executions  Exec (s)  %Total   Time (s)    Buffer Gets  Hash Value",
        "---------- ------------ ---------- ------ ---------- --------------- ----------",
    ]
    for s in top("cpu_time", dbcpu):
        first = " ".join(
            [
                lp(s["cpu_time"] / 1e6, "99990.00", 10),
                lp(s["executions"], "999,999,999", 12),
                per_exec(s["cpu_time"], s, "999990.00", 10, 1e6),
                _lpad(" " if not dbcpu else to_char(100 * s["cpu_time"] / dbcpu, "999.0"), 6),
                lp(s["elapsed_time"] / 1e6, "99990.00", 10),
                lp(s["buffer_gets"], "99,999,999,999", 15),
                _lpad(str(s["old_hash_value"]), 10),
                "",
            ]
        )
        out += _sql_text_lines(s, first)
    out += [RULE, ""]
    # SQL ordered by Elapsed time
    out += [
        f"SQL ordered by Elapsed time for DB: {it.db_name}  Instance: {it.instance_name}  Snaps: {it.lo} -{it.hi}",
        f"-> Total DB Time (s): {to_char(dbtim / 1e6, '99,999,999,999')}",
        f"-> Captured SQL accounts for {pct(captured('elapsed_time', dbtim))}% of Total DB Time",
        f"-> SQL reported below exceeded  {TOP_SQL_PCT}% of Total DB Time",
        "",
        "  Elapsed                Elap per            CPU                        Old",
        "  Time (s)   Executions  Exec (s)  %Total   Time (s)  Physical Reads Hash Value",
        "---------- ------------ ---------- ------ ---------- --------------- ----------",
    ]
    for s in top("elapsed_time", dbtim):
        first = " ".join(
            [
                lp(s["elapsed_time"] / 1e6, "999990.00", 10),
                lp(s["executions"], "999,999,999", 12),
                per_exec(s["elapsed_time"], s, "999990.00", 10, 1e6),
                _lpad(" " if not dbtim else to_char(100 * s["elapsed_time"] / dbtim, "990.0"), 6),
                lp(s["cpu_time"] / 1e6, "99990.00", 10),
                lp(s["disk_reads"], "99,999,999,999", 15),
                _lpad(str(s["old_hash_value"]), 10),
                "",
            ]
        )
        out += _sql_text_lines(s, first)
    out += [RULE, ""]
    # SQL ordered by Gets and by Reads
    for key, whole, name, total_name, threshold, heads in (
        (
            "buffer_gets",
            gets,
            "Gets",
            "Buffer Gets",
            "buffer_gets_th",
            (
                "                                                     CPU      Elapsd     Old",
                "  Buffer Gets    Executions  Gets per Exec  %Total Time (s)  Time (s) Hash Value",
            ),
        ),
        (
            "disk_reads",
            phyr,
            "Reads",
            "Disk Reads",
            "disk_reads_th",
            (
                "                                                     CPU      Elapsd",
                "  Physical Rds   Executions  Rds per Exec   %Total Time (s)  Time (s) Hash Value",
            ),
        ),
    ):
        th = f"{it_threshold(it, threshold):>10}"
        label = "Buffer Gets Threshold: " if key == "buffer_gets" else "Disk Reads Threshold: "
        sep = " " if key == "buffer_gets" else "  "
        out += [
            title(f"SQL ordered by {name}", it),
            f"-> End {label}{th}{sep}Total {total_name}: {to_char(whole, '99,999,999,999')}",
            f"-> Captured SQL accounts for {pct(captured(key, whole))}% of Total {total_name}",
            f"-> SQL reported below exceeded  {TOP_SQL_PCT}% of Total {total_name}",
            "",
            *heads,
            "--------------- ------------ -------------- ------ -------- --------- ----------",
        ]
        for s in top(key, whole):
            first = " ".join(
                [
                    lp(s[key], "99,999,999,999", 15),
                    lp(s["executions"], "999,999,999", 12),
                    per_exec(s[key], s, "999,999,990.0", 14),
                    lp(100 * s[key] / whole, "999.0", 6),
                    lp(s["cpu_time"] / 1e6, "9990.00", 8),
                    lp(s["elapsed_time"] / 1e6, "99990.00", 9),
                    _lpad(str(s["old_hash_value"]), 10),
                ]
            )
            out += _sql_text_lines(s, first)
        out += [RULE, ""]
    # SQL ordered by Executions
    out += [
        title("SQL ordered by Executions", it),
        f"-> End Executions Threshold: {it_threshold(it, 'executions_th'):>10}  Total Executions: "
        f"{to_char(exe, '99,999,999,999')}",
        f"-> Captured SQL accounts for {pct(captured('executions', exe))}% of Total Executions",
        f"-> SQL reported below exceeded  {TOP_SQL_PCT}% of Total Executions",
        "",
        "                                                CPU per    Elap per     Old",
        " Executions   Rows Processed   Rows per Exec    Exec (s)   Exec (s)  Hash Value",
        "------------ --------------- ---------------- ----------- ---------- ----------",
    ]
    for s in top("executions", exe):
        first = " ".join(
            [
                lp(s["executions"], "999,999,999", 12),
                lp(s["rows_processed"], "99,999,999,999", 15),
                per_exec(s["rows_processed"], s, "9,999,999,990.0", 16),
                per_exec(s["cpu_time"], s, "999990.00", 10, 1e6),
                per_exec(s["elapsed_time"], s, "9999990.00", 11, 1e6),
                _lpad(str(s["old_hash_value"]), 11),
            ]
        )
        out += _sql_text_lines(s, first)
    return [*out, RULE, ""]


def it_threshold(it: SpInterval, column: str) -> str:
    """A threshold as SQL*Plus prints a NUMBER substitution variable of no format (NUMWIDTH 10 by the caller); blank
    where the store keeps none (the segment thresholds)."""
    value = it.thresholds.get(column)
    return "" if value is None else str(round(value))


def activity(it: SpInterval) -> list[str]:
    tran, ela = it.transactions, it.seconds
    cols = [
        Col("Statistic", 33, trunc=True),
        Col("Total", 18, True),
        Col("per Second", 14, True),
        Col("per Trans", 12, True),
    ]
    body = [
        [
            n,
            num("9,999,999,999,990")(v),
            num("999,999,990.9")(_round2(v / ela)),
            num("9,999,990.9")(_round2(v / tran)) if tran else "",
        ]
        for n, v in sorted(it.sysstat.items())
    ]
    out = section(title("Instance Activity Stats", it), [], cols, body)
    cols = [Col("Statistic", 33, trunc=True), Col("Begin Value", 15, True), Col("End Value", 15, True)]
    body = [
        [n, num("99,999,999,999")(it.stats_begin.get(n)), num("99,999,999,999")(it.stats_end.get(n))]
        for n in READINGS
        if n in it.stats_end and n in it.stats_begin and (it.stats_begin[n] > 0 or it.stats_end[n] > 0)
    ]
    return out + section(
        title("Instance Activity Stats", it), ["-> Statistics with absolute values (should not be diffed)"], cols, body
    )


def _os_type(name: str) -> int:
    """sprepins.sql's statistic type order: TIME 1, LOAD 2, CPU_WAIT 3, VM_ 4, PHYSICAL_MEMORY 5, NUM_CPU 6, TCP and
    GLOBAL 7, summed where a name holds several."""
    return sum(
        k
        for part, k in (
            ("TIME", 1),
            ("LOAD", 2),
            ("CPU_WAIT", 3),
            ("VM_", 4),
            ("PHYSICAL_MEMORY", 5),
            ("NUM_CPU", 6),
            ("TCP", 7),
            ("GLOBAL", 7),
        )
        if part in name
    )


def os_statistics(it: SpInterval) -> list[str]:
    found = []
    for n, e in it.os_end.items():
        b = it.os_begin.get(n)
        if b is None or n.startswith("AVG_") or "LOAD" in n or e < b or e <= 0:
            continue
        found.append((_os_type(n), n, e if n in OS_VALUES else e - b))
    found.sort()
    cols = [Col("Statistic", 25, trunc=True), Col("Total", 22, True)]
    body = [[n, num("9,999,999,999,999,990")(v)] for _, n, v in found]
    notes = ["-> ordered by statistic type (CPU use, Virtual Memory, Hardware Config), Name"]
    return section(title("OS Statistics", it), notes, cols, body)


def v1024(value, base_unit: str, precision: int, mag: int) -> str:
    """STATSPACK.V1024's reading here: the value with `precision` decimals and its unit while under `mag`, else in the
    next unit up ('M' megabytes: G, T, P by 1024; '' a count: K, M, G by 1000), no trailing zeros after the point."""
    units = ["M", "G", "T", "P"] if base_unit == "M" else ["", "K", "M", "G", "T"]
    k = 0
    while abs(value) >= mag and k < len(units) - 1:
        value /= mag
        k += 1
    text = f"{half_up(value, precision)}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + units[k]


def io_functions(it: SpInterval) -> list[str]:
    """IO Stat by Function - summary: functions with read requests, by data volume (read + write) desc."""
    ela = it.seconds
    found = []
    for name, v in it.io_functions.items():
        if v["read_reqs"] <= 0:
            continue
        reqs = v["read_reqs"] + v["write_reqs"]
        found.append(
            (
                -(v["read_mb"] + v["write_mb"]),
                name,
                [
                    name,
                    v1024(v["read_mb"], "M", 0, 1024),
                    v1024(v["read_reqs"] / ela, "", 1, 1000),
                    v1024(v["read_mb"] / ela, "M", 1, 1024),
                    v1024(v["write_mb"], "M", 0, 1024),
                    v1024(v["write_reqs"] / ela, "", 1, 1000),
                    v1024(v["write_mb"] / ela, "M", 1, 1024),
                    v1024(v["waits"], "", 0, 1000),
                    num("990.0")(v["wait_ms"] / reqs) if reqs else "",
                ],
            )
        )
    found.sort()
    cols = [
        Col("Function", 15, trunc=True),
        Col("Data |Volume", 6, True),
        Col("Requests|/sec", 8, True),
        Col("Data |Vol/sec", 8, True),
        Col("Data |Volume", 6, True),
        Col("Requests|/sec", 8, True),
        Col("Data |Vol/sec", 8, True),
        Col("Count", 6, True),
        Col("Avg  |Tm(ms)", 6, True),
    ]
    notes = [
        "->Data Volume values suffixed with   M,G,T,P are in multiples of 1024, ",
        "  other values suffixed with       K,M,G,T,P are in multiples of 1000",
        "->ordered by Data Volume (Read+Write) desc",
        "",
        "               ---------- Read --------- --------- Write -------- --- Wait ----",
    ]
    out = section(title("IO Stat by Function - summary", it), notes, cols, [r for _, _, r in found])
    del out[len(notes) + 1]
    return out


def segments(it: SpInterval, key: str, label: str) -> list[str]:
    """Segments by Logical Reads or Physical Reads: the TOP_SEGMENTS segments by the value, their % of the captured
    segments' total (RATIO_TO_REPORT), where the begin snapshot was taken at level 7 or higher."""
    found = [s for s in it.segments if s[key] > 0]
    whole = sum(s[key] for s in found)
    found.sort(key=lambda s: -s[key])
    word = label.split()[0]
    cols = [
        Col("Owner", 10, trunc=True),
        Col("Tablespace", 10, trunc=True),
        Col("Object Name", 20, trunc=True),
        Col("Subobject|Name", 12, trunc=True),
        Col("Obj.|Type", 5, trunc=True),
        Col(f"{word}|Reads", 12, True),
        Col("  Pct|Total", 5),
    ]

    def sub(name):
        return name if not name or len(name) < 11 else name[-10:]

    body = [
        [
            s["owner"],
            s["tablespace"],
            s["object"],
            sub(s["subobject"]),
            s["type"],
            num("999,999,999")(s[key]),
            _mi(100 * s[key] / whole),
        ]
        for s in found[:TOP_SEGMENTS]
    ]
    if key == "logical_reads":
        notes = [
            f"-> End Segment Logical Reads Threshold: {it_threshold(it, 'seg_log_reads_th'):>9}",
            "-> Pct Total shows % of logical reads for each top segment compared with total",
            "   logical reads for all segments captured by the Snapshot",
        ]
    else:
        notes = [f"-> End Segment Physical Reads Threshold: {it_threshold(it, 'seg_phy_reads_th'):>10}"]
    return section(title(f"Segments by {label}", it), notes, cols, body)


def parameters(it: SpInterval) -> list[str]:
    """init.ora Parameters: the end snapshot's parameters not default or modified at either end, or changed; the
    begin value (wrapped at 33), the end value where it differs."""
    body = []
    for name in sorted(it.parameters_end):
        if name.startswith("__"):
            continue
        e_value, _, e_mod = it.parameters_end[name]
        b_value, b_default, b_mod = it.parameters_begin.get(name, (None, "X", "X"))
        if b_default == "FALSE" or b_mod != "FALSE" or e_mod != "FALSE" or (e_value or "0") != (b_value or "0"):
            body.append([name, b_value or "", "" if b_value == e_value else e_value or ""])
    cols = [
        Col("Parameter Name", 29, trunc=True),
        Col("Begin value", 33),
        Col("End value|(if different)", 14, center=True),
    ]
    return section(title("init.ora Parameters", it), [], cols, body)


def statspack_report(con, dbid: int, instance: int, lo: int, hi: int, name: str | None = None) -> str:
    """The Statspack report of (lo, hi] on `instance`, as sprepins.sql spools it to `name` (sp_<lo>_<hi>.lst)."""
    it = interval(con, dbid, instance, lo, hi)
    parts = [
        header(it),
        load_profile(it),
        efficiency(it),
        top_events(it),
        host_cpu(it),
        time_model(it),
        wait_events(it, False),
        wait_events(it, True),
        histogram(it),
        sql_sections(it),
        activity(it),
        os_statistics(it),
        io_functions(it),
        segments(it, "logical_reads", "Logical Reads") if it.level_lo >= SEGMENT_LEVEL else [],
        segments(it, "physical_reads", "Physical Reads") if it.level_lo >= SEGMENT_LEVEL else [],
        parameters(it),
        ["", f"End of Report ( {name or report_file_name(lo, hi)} )", ""],
    ]
    return "\n".join(line for part in parts for line in part) + "\n"


def report_file_name(lo: int, hi: int) -> str:
    """sprepins.sql's default: 'sp_' || begin || '_' || end, with '.lst' added."""
    return f"sp_{lo}_{hi}.lst"


def statspack_folder(store_path, out_dir, db_name: str, start: datetime, hours: int, instance: int = 1) -> list[Path]:
    """A DBA's folder of hourly Statspack reports (hourly_folder): each from the snapshot taken at the hour to the
    one an hour later."""

    def plan(con):
        dbid = con.execute("SELECT dbid FROM stats$database_instance WHERE db_name = ?", (db_name,)).fetchone()[0]
        snaps = {
            _when(t): s
            for s, t in con.execute(
                "SELECT snap_id, snap_time FROM stats$snapshot WHERE dbid = ? AND instance_number = ?",
                (dbid, instance),
            )
        }
        return snaps, lambda lo, hi: (report_file_name(lo, hi), statspack_report(con, dbid, instance, lo, hi))

    return hourly_folder(store_path, out_dir, start, hours, plan)
