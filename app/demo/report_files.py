"""The report files a consultant receives, rendered from the demo store in Oracle's own layouts
(docs/report-formats.md): the AWR instance report of 19c and 11.2, as text and as HTML, and the RAC global report of
19c as text. Every value comes from the store's DBA_HIST_* rows (app/demo/report_data.py); each section is built once
as a table (its columns' widths and formats, its rows) and written as text or HTML. The importer's tests read them
back; the short reports of §27 are app/demo/awr_reports.py."""

import html
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from app.demo.report_data import Interval, RangeError, event_side, interval, sql_totals
from app.demo.report_style import avg_wait, cell, half_up, kilo, size_mb, tm, to_char

LAYOUTS = ("awr-text-19", "awr-html-19", "awr-text-11.2", "awr-html-11.2", "awr-global-text-19")
NO_DATA = "                  No data exists for this section of the report."
TOP_SQL, TOP_SEGMENTS, TOP_EVENTS = 15, 5, 10
MB = 1048576.0


@dataclass
class Col:
    """One column: its width in the text layout, how a value is written, left-aligned text or a number."""

    width: int
    fmt: Callable = str
    left: bool = False


@dataclass
class Table:
    """One section: its heading, the notes under it, its text header lines (above the dashes), its HTML column names
    and summary, its rows, and per row the lines the text layout prints under it (a statement's module and text)."""

    title: str
    summary: str
    cols: list[Col]
    head: list[str]
    names: list[str]
    rows: list[list] = field(default_factory=list)
    after: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    banner: bool = True  # a heading with DB/Inst and the snapshots; False: a summary table under a ~~~ line
    extra: list[str] = field(default_factory=list)  # HTML-only columns (the SQL's module and text)
    extra_rows: list[list[str]] = field(default_factory=list)
    dashes: str | None = None  # the Load Profile's own rule line under its title
    owner_first: bool = False  # 12c and later segments: owner and tablespace on a line above the object's
    full_rows: list | None = None  # segments: every column, owner and tablespace first (the HTML table's)
    html_only: bool = False  # Complete List of SQL Text: the text report prints the text under each statement


def heads(cols, *rows) -> list[str]:
    """Header lines whose names stand over their columns (left or right as the column's values): the global report's,
    which no printed sample fixed (docs/report-formats.md)."""
    return [
        " ".join(
            cell(n, c.width, c.left) if len(n) <= c.width else n[: c.width] for n, c in zip(r, cols, strict=True)
        ).rstrip()
        for r in rows
    ]


def _pct(part, whole):
    return 100.0 * part / whole if whole else None


def _text_cells(table: Table, row) -> str:
    return " ".join(
        cell(c.fmt(v) if v is not None else "", c.width, c.left) for c, v in zip(table.cols, row, strict=True)
    )


# -- the sections of the instance report ---------------------------------------------------------------------------


def _mask(mask):
    return lambda v: to_char(v, mask)


INT = _mask("999,999,999,999,999")
ONE = _mask("999,999,999,990.9")


def _two_then_one(value):
    """A Load Profile rate as Oracle prints it: ROUND(rate, 2) by the report's query, then TO_CHAR to one decimal
    (so a printed v covers [v - 0.055, v + 0.045): docs/report-formats.md)."""
    return ONE(None if value is None else float(half_up(value, 2)))


# the Load Profile rows of one SYSSTAT statistic each that 11.2 and Statspack (sprepins.sql) print alike, in order
LOAD_PROFILE_STATS = (
    ("Redo size", "redo size"),
    ("Logical reads", "session logical reads"),
    ("Block changes", "db block changes"),
    ("Physical reads", "physical reads"),
    ("Physical writes", "physical writes"),
    ("User calls", "user calls"),
    ("Parses", "parse count (total)"),
    ("Hard parses", "parse count (hard)"),
)
PCT = _mask("999.9")  # .8, 98.9: no leading zero
PCT0 = _mask("990.9")  # 0.8
PCT2 = _mask("990.99")


def load_profile_rows(it: Interval, release: str) -> list[tuple[str, float, float | None, float | None, float | None]]:
    """The Load Profile (docs/awr-rules.md §13): label, per second, per transaction, per execution, per call."""
    ss, tmd, txn = it.sysstat, it.time_model, it.transactions
    execs, calls = ss.get("execute count"), ss.get("user calls")
    rows = []

    def add(label, total, timed=False):
        if total is None:
            return
        per_exec = total / execs if timed and execs else None
        per_call = total / calls if timed and calls else None
        rows.append((label, total / it.seconds, total / txn if txn else None, per_exec, per_call))

    gc = ("gc cr blocks received", "gc current blocks received", "gc cr blocks served", "gc current blocks served")
    add("DB Time(s)", tmd.get("DB time", 0) / 1e6, True)
    add("DB CPU(s)", tmd.get("DB CPU", 0) / 1e6, True)
    if release == "11.2":
        for label, name in LOAD_PROFILE_STATS:
            add(label, ss.get(name))
        add("W/A MB processed", it.pga_bytes_processed / MB if it.pga_bytes_processed is not None else None)
        add("Logons", ss.get("logons cumulative"))
        add("Executes", execs)
    else:
        add("Background CPU(s)", tmd.get("background cpu time", 0) / 1e6, True)
        for label, name in (
            ("Redo size (bytes)", "redo size"),
            ("Logical read (blocks)", "session logical reads"),
            ("Block changes", "db block changes"),
            ("Physical read (blocks)", "physical reads"),
            ("Physical write (blocks)", "physical writes"),
            ("Read IO requests", "physical read IO requests"),
            ("Write IO requests", "physical write IO requests"),
        ):
            add(label, ss.get(name))
        for label, name in (("Read IO (MB)", "physical read bytes"), ("Write IO (MB)", "physical write bytes")):
            add(label, ss[name] / MB if name in ss else None)
        add("IM scan rows", ss.get("IM scan rows"))
        add("Session Logical Read IM", ss.get("session logical reads - IM"))
        if it.rac and all(n in ss for n in gc):
            add("RAC GC blocks received", ss[gc[0]] + ss[gc[1]])
            add("RAC GC blocks served", ss[gc[2]] + ss[gc[3]])
        add("User calls", calls)
        add("Parses (SQL)", ss.get("parse count (total)"))
        add("Hard parses (SQL)", ss.get("parse count (hard)"))
        add("SQL Work Area (MB)", it.pga_bytes_processed / MB if it.pga_bytes_processed is not None else None)
        add("Logons", ss.get("logons cumulative"))
        add("User logons", ss.get("user logons cumulative"))
        add("Executes (SQL)", execs)
    add("Rollbacks", ss.get("user rollbacks"))
    rows.append(("Transactions", txn / it.seconds, None, None, None))
    return rows


def _load_profile(it, release) -> Table:
    rows = load_profile_rows(it, release)
    if release == "11.2":
        cols = [
            Col(17, lambda v: v + ":"),
            Col(18, _two_then_one),
            Col(18, _two_then_one),
            Col(10, _mask("99,990.99")),
            Col(10, _mask("99,990.99")),
        ]
        head = ["Load Profile              Per Second    Per Transaction   Per Exec   Per Call"]
        dashes = "~~~~~~~~~~~~         ---------------    --------------- ---------- ----------"
    else:
        cols = [
            Col(24, lambda v: v + ":"),
            Col(17, _two_then_one),
            Col(17, _two_then_one),
            Col(9, _mask("9,990.99")),
            Col(9, _mask("9,990.99")),
        ]
        head = ["Load Profile                    Per Second   Per Transaction  Per Exec  Per Call"]
        dashes = "~~~~~~~~~~~~~~~            ---------------   --------------- --------- ---------"
    t = Table(
        "Load Profile",
        "This table displays load profile",
        cols,
        head,
        ["", "Per Second", "Per Transaction", "Per Exec", "Per Call"],
        rows=[list(r) for r in rows],
        banner=False,
    )
    t.dashes = dashes
    return t


def _top_events(it, release) -> Table:
    db_time, cpu = it.time_model.get("DB time", 0), it.time_model.get("DB CPU", 0)
    events = [e for e in it.events if e.wait_class != "Idle" and e.waits_fg > 0]
    rows = [("DB CPU", None, cpu, None, _pct(cpu, db_time), "")]
    rows += [
        (e.name, e.waits_fg, e.micros_fg, e.micros_fg / e.waits_fg, _pct(e.micros_fg, db_time), e.wait_class)
        for e in events
    ]
    if release == "11.2":
        rows = sorted(rows, key=lambda r: -r[2])[:5]
        cols = [
            Col(30, left=True),
            Col(12, INT),
            Col(11, lambda v: to_char(v / 1e6, "999,999,990")),
            Col(6, lambda v: to_char(v / 1e3, "99,990")),
            Col(6, PCT),
            Col(10, left=True),
        ]
        head = [
            "                                                           Avg",
            "                                                          wait   % DB",
            "Event                                 Waits     Time(s)   (ms)   time Wait Class",
        ]
        return Table(
            "Top 5 Timed Foreground Events",
            "Top 5 Timed Foreground Events",
            cols,
            head,
            ["Event", "Waits", "Time(s)", "Avg wait (ms)", "% DB time", "Wait Class"],
            [list(r) for r in rows],
            banner=False,
        )
    rows = sorted(rows, key=lambda r: -r[2])[:TOP_EVENTS]
    cols = [
        Col(30, left=True),
        Col(11, INT),
        Col(10, lambda v: kilo(v / 1e6)),
        Col(9, avg_wait),
        Col(6, PCT),
        Col(8, left=True),
    ]
    head = [
        "                                           Total Wait       Avg   % DB Wait",
        "Event                                Waits Time (sec)      Wait   time Class",
    ]
    return Table(
        "Top 10 Foreground Events by Total Wait Time",
        "This table displays top 10 wait events by total wait time",
        cols,
        head,
        ["Event", "Waits", "Total Wait Time (sec)", "Avg Wait", "% DB time", "Wait Class"],
        [list(r) for r in rows],
        banner=False,
    )


def _wait_classes(it) -> Table:
    db_time, cpu = it.time_model.get("DB time", 0), it.time_model.get("DB CPU", 0)
    classes: dict[str, list] = {}
    for e in it.events:
        if e.wait_class != "Idle" and e.waits > 0:
            c = classes.setdefault(e.wait_class, [0, 0])
            c[0] += e.waits
            c[1] += e.micros
    rows = [("DB CPU", None, cpu, None)] + [(k, w, t, t / w) for k, (w, t) in classes.items()]
    rows = [[n, w, t, a, _pct(t, db_time), t / 1e6 / it.seconds] for n, w, t, a in sorted(rows, key=lambda r: -r[2])]
    cols = [
        Col(16, left=True),
        Col(16, INT),
        Col(16, lambda v: to_char(v / 1e6, "999,999,999,990")),
        Col(10, avg_wait),
        Col(6, PCT),
        Col(8, _mask("9,990.9")),
    ]
    head = [
        "                                                          Avg             Avg",
        "                                        Total Wait       Wait   % DB   Active",
        "Wait Class                  Waits       Time (sec)       Time   time Sessions",
    ]
    return Table(
        "Wait Classes by Total Wait Time",
        "This table displays wait class statistics ordered by total wait time",
        cols,
        head,
        ["Wait Class", "Waits", "Total Wait Time (sec)", "Avg Wait", "% DB time", "Avg Active Sessions"],
        rows,
        banner=False,
    )


TIME_MODEL_LAST = ("DB time", "background elapsed time", "background cpu time")


def _time_model(it, release) -> Table:
    stats, db_time = it.time_model, it.time_model.get("DB time", 0)
    total_cpu = stats.get("DB CPU", 0) + stats.get("background cpu time", 0)
    fg = [(n, v) for n, v in stats.items() if n not in TIME_MODEL_LAST and not n.startswith("RMAN") and v > 0]
    fg.sort(key=lambda r: (-r[1], r[0]))
    rows = [[n, v / 1e6, _pct(v, db_time), _pct(v, total_cpu) if n == "DB CPU" else None] for n, v in fg]
    rows += [
        [n, stats[n] / 1e6, None, _pct(stats[n], total_cpu) if n == "background cpu time" else None]
        for n in TIME_MODEL_LAST
        if n in stats
    ]
    if release == "11.2":
        notes = [
            f"Total time in database user-calls (DB Time): {tm(db_time / 1e6)}s",
            'Statistics including the word "background" measure background process',
            "  time, and so do not contribute to the DB time statistic",
            "Ordered by % or DB time desc, Statistic name",
        ]
        cols = [Col(42, left=True), Col(18, ONE), Col(12, PCT)]
        return Table(
            "Time Model Statistics",
            "This table displays different time model statistics. For each "
            "statistic, time and % of DB time are displayed",
            cols,
            ["Statistic Name                                       Time (s) % of DB Time"],
            ["Statistic Name", "Time (s)", "% of DB Time"],
            [r[:3] for r in rows],
            notes=notes,
        )
    rows.append(["total CPU time", total_cpu / 1e6, None, None])
    notes = [
        "DB Time represents total time in user calls",
        "DB CPU represents CPU time of foreground processes",
        "Total CPU Time represents foreground and background processes",
        'Statistics including the word "background" measure background process',
        "  time, therefore do not contribute to the DB time statistic",
        "Ordered by % of DB time in descending order, followed by Statistic Name",
    ]
    cols = [Col(42, left=True), Col(18, ONE), Col(7, PCT), Col(10, PCT)]
    head = [
        "                                                                % of  % of Total",
        "Statistic Name                                       Time (s) DB Time   CPU Time",
    ]
    return Table(
        "Time Model Statistics",
        "This table displays different time model statistics. For each statistic, time and % of DB time are displayed",
        cols,
        head,
        ["Statistic Name", "Time (s)", "% of DB Time", "% of Total CPU Time"],
        rows,
        notes=notes,
    )


OS_ORDER = (
    "BUSY_TIME",
    "IDLE_TIME",
    "IOWAIT_TIME",
    "NICE_TIME",
    "SYS_TIME",
    "USER_TIME",
    "LOAD",
    "RSRC_MGR_CPU_WAIT_TIME",
    "VM_IN_BYTES",
    "VM_OUT_BYTES",
    "PHYSICAL_MEMORY_BYTES",
    "NUM_CPUS",
    "NUM_CPU_CORES",
    "NUM_CPU_SOCKETS",
    "GLOBAL_RECEIVE_SIZE_MAX",
    "GLOBAL_SEND_SIZE_MAX",
    "TCP_RECEIVE_SIZE_DEFAULT",
    "TCP_RECEIVE_SIZE_MAX",
    "TCP_RECEIVE_SIZE_MIN",
    "TCP_SEND_SIZE_DEFAULT",
    "TCP_SEND_SIZE_MAX",
    "TCP_SEND_SIZE_MIN",
)


def _osstat(it) -> Table:
    names = set(it.osstat) | set(it.osstat_begin) | set(it.osstat_end)
    order = [n for n in OS_ORDER if n in names] + sorted(names - set(OS_ORDER))
    rows = []
    for n in order:
        if n in it.osstat:
            rows.append([n, it.osstat[n], None])
        else:
            begin, end = it.osstat_begin.get(n), it.osstat_end.get(n)
            rows.append([n, begin if begin is not None else end, end if begin is not None and end != begin else None])
    notes = [
        "*TIME statistic values are diffed.",
        "  All others display actual values.  End Value is displayed if different",
        "ordered by statistic type (CPU Use, Virtual Memory, Hardware Config), Name",
    ]
    cols = [Col(25, left=True), Col(22, INT), Col(16, INT)]
    head = ["Statistic                                  Value        End Value"]
    return Table(
        "Operating System Statistics",
        "This table displays operating system statistics",
        cols,
        head,
        ["Statistic", "Value", "End Value"],
        rows,
        notes=notes,
    )


def _fg_wait_class(it, release) -> Table:
    db_time, cpu = it.time_model.get("DB time", 0), it.time_model.get("DB CPU", 0)
    classes: dict[str, list] = {}
    for e in it.events:
        if e.wait_class != "Idle":
            c = classes.setdefault(e.wait_class, [0, 0, 0])
            c[0] += e.waits_fg
            c[1] += e.timeouts_fg
            c[2] += e.micros_fg
    fg_wait = sum(c[2] for c in classes.values())
    rows = [["DB CPU", None, None, cpu, None, _pct(cpu, db_time)]]
    rows += [
        [k, w, round(100 * o / w) if w else None, t, t / w if w else None, _pct(t, db_time)]
        for k, (w, o, t) in classes.items()
    ]
    rows.sort(key=lambda r: (-r[3], -(r[1] or 0)))
    notes = [
        "s  - second, ms - millisecond, us - microsecond, ns - nanosecond"
        if release != "11.2"
        else "s  - second, ms - millisecond -    1000th of a second",
        "ordered by wait time desc, waits desc",
        "%Timeouts: value of 0 indicates value was < .5%.  Value of null is truly 0",
        f"Captured Time accounts for {to_char(_pct(fg_wait + cpu, db_time) or 0, '9999990.9').strip():>11}%  "
        f"of Total DB time {to_char(db_time / 1e6, '999,999,990.99').strip():>14} (s)",
        f"Total FG Wait Time: {to_char(fg_wait / 1e6, '999,999,999.99').strip():>20} (s)  "
        f"DB CPU time: {to_char(cpu / 1e6, '999,999,999.99').strip():>14} (s)",
    ]
    if release == "11.2":
        cols = [
            Col(20, left=True),
            Col(16, INT),
            Col(5, INT),
            Col(16, lambda v: to_char(v / 1e6, "999,999,999,990")),
            Col(8, lambda v: to_char(v / 1e3, "9999990")),
            Col(9, PCT0),
        ]
        head = [
            "                                                                  Avg",
            "                                      %Time       Total Wait     wait",
            "Wait Class                      Waits -outs         Time (s)     (ms)  %DB time",
        ]
    else:
        cols = [
            Col(20, left=True),
            Col(15, INT),
            Col(5, INT),
            Col(15, lambda v: to_char(v / 1e6, "999,999,999,990")),
            Col(10, avg_wait),
            Col(9, PCT0),
        ]
        head = [
            "                                     %Time      Total Wait",
            "Wait Class                     Waits -outs        Time (s)   Avg wait  %DB time",
        ]
    return Table(
        "Foreground Wait Class",
        "This table displays foreground wait class statistics",
        cols,
        head,
        ["Wait Class", "Waits", "%Time -outs", "Total Wait Time (s)", "Avg wait", "%DB time"],
        rows,
        notes=notes,
    )


def _wait_events(it, release, background: bool) -> Table:
    db_time, bg_time = it.time_model.get("DB time", 0), it.time_model.get("background elapsed time", 0)
    txn = it.transactions
    rows = []
    for e in it.events:
        waits, outs, micros = event_side(e, background)
        if waits <= 0 or micros < 1000:  # only events with Total Wait Time (s) >= .001
            continue
        idle = e.wait_class == "Idle"
        timeouts = round(100 * outs / waits) if (outs or release == "11.2") else None
        rows.append(
            [
                e.name,
                waits,
                timeouts,
                micros,
                micros / waits,
                waits / txn if txn else None,
                None if idle else _pct(micros, bg_time if background else db_time),
                idle,
            ]
        )
    rows.sort(key=lambda r: (r[7], -r[3], -r[1]))
    rows = [r[:7] for r in rows]
    share = "% bg time" if background else "% DB time"
    notes = [
        "s  - second, ms - millisecond, us - microsecond, ns - nanosecond"
        if release != "11.2"
        else "s  - second, ms - millisecond -    1000th of a second",
        "Only events with Total Wait Time (s) >= .001 are shown",
        "ordered by wait time desc, waits desc (idle events last)",
        "%Timeouts: value of 0 indicates value was < .5%.  Value of null is truly 0",
    ]
    if background:
        notes = notes[2:3] + notes[1:2] + notes[3:]
    if release == "11.2":
        cols = [
            Col(26, left=True),
            Col(12, INT),
            Col(5, INT),
            Col(10, lambda v: to_char(v / 1e6, "999,999,990")),
            Col(7, lambda v: to_char(v / 1e3, "9999990")),
            Col(8, _mask("99,990.9")),
            Col(6, PCT),
        ]
        head = [
            "                                                             Avg",
            "                                        %Time Total Wait    wait    Waits   " + share[:4].rjust(4),
            "Event                             Waits -outs   Time (s)    (ms)     /txn   time",
        ]
    else:
        cols = [
            Col(26, left=True),
            Col(11, INT),
            Col(5, INT),
            Col(8, lambda v: to_char(v / 1e6, "9,999,990")),
            Col(9, avg_wait),
            Col(8, _mask("99,990.9")),
            Col(6, PCT),
        ]
        head = [
            "                                                Total",
            "                                       %Time     Wait              Waits   " + share[:4].rjust(4),
            "Event                            Waits -outs Time (s)  Avg wait     /txn   time",
        ]
    if background:
        return Table(
            "Background Wait Events",
            "This table displays background wait events statistics",
            cols,
            head,
            ["Event", "Waits", "%Time -outs", "Total Wait Time (s)", "Avg wait", "Waits /txn", share],
            rows,
            notes=notes,
        )
    return Table(
        "Foreground Wait Events",
        "This table displays Foreground Wait Events and their wait statistics",
        cols,
        head,
        ["Event", "Waits", "%Time -outs", "Total Wait Time (s)", "Avg wait", "Waits /txn", share],
        rows,
        notes=notes,
    )


BUCKETS = (
    ("<1ms", 1, 1),
    ("<2ms", 2, 2),
    ("<4ms", 4, 4),
    ("<8ms", 8, 8),
    ("<16ms", 16, 16),
    ("<32ms", 32, 32),
    ("<=1s", 64, 1024),
    (">1s", 2048, 1 << 62),
)


def _histogram(it) -> Table:
    rows = []
    for name, (wclass, counts) in it.histograms.items():
        total = sum(counts.values())
        if total <= 0:
            continue
        pcts = [sum(v for ms, v in counts.items() if lo <= ms <= hi) for _, lo, hi in BUCKETS]
        rows.append((wclass == "Idle", name, [name, total] + [100.0 * v / total if v else None for v in pcts]))
    rows = [r for _, _, r in sorted(rows)]
    notes = [
        "Units for Total Waits column: K is 1000, M is 1000000, G is 1000000000",
        "% of Waits: value of .0 indicates value was <.05%; value of null is truly 0",
        "% of Waits: column heading of <=1s is truly <1024ms, >1s is truly >=1024ms",
        "Ordered by Event (idle events last)",
    ]
    cols = [Col(26, left=True), Col(5, lambda v: kilo(v, width=5))] + [Col(5, PCT) for _ in BUCKETS]
    head = [
        "                                                    % of Waits",
        "                                 -----------------------------------------------",
        "                           Total",
        "Event                      Waits  <1ms  <2ms  <4ms  <8ms <16ms <32ms  <=1s   >1s",
    ]
    return Table(
        "Wait Event Histogram",
        "This table displays total number of waits, and information about total wait time, for each wait event",
        cols,
        head,
        ["Event", "Total Waits"] + [b[0] for b in BUCKETS],
        rows,
        notes=notes,
    )


def sql_lines(text: str, lines=4, width=80) -> list[str]:
    """A statement's text as the text report prints it under the statement: its lines cut every 80 characters, the
    first four of them."""
    out = []
    for line in text.split("\n"):
        out += [line[i : i + width] for i in range(0, max(len(line), 1), width)]
    return out[:lines]


def _sql_after(s, cdb=False) -> list[str]:
    return ([f"Module: {s['module']}"] if s["module"] else []) + sql_lines(s["text"]) + [""]


def _share(part, whole) -> str:
    return f"{to_char(_pct(part, whole) or 0, '99990.9').strip():>6}"


def _count(value) -> str:
    return f"{to_char(value, '999,999,999,999').strip():>15}"


def _sql_tables(it, release, sql, db_time, db_cpu, totals) -> list[Table]:
    """SQL ordered by Elapsed Time, CPU Time, Gets, Reads and Executions, each of the TOP_SQL statements first by
    its column (ties by SQL Id)."""
    short = release == "11.2"
    sqlid = Col(11 if short else 13, left=True)
    pct_tm = Col(5, lambda v: tm(v)) if not short else Col(6, PCT)
    tables = []

    def top(key):
        return sorted((s for s in sql if (s[key] or 0) > 0), key=lambda s: (-s[key], s["sql_id"]))[:TOP_SQL]

    def pcts(s):
        return _pct(s["cpu"], s["elapsed"]), _pct(s["iowait"], s["elapsed"])

    def plsql(key):
        return sum(s[key] or 0 for s in sql if s["plsql"])

    def extra(rows):
        return [
            [s["sql_id"], s["module"] or "", (s["text"][:30] + "...") if len(s["text"]) > 30 else s["text"]]
            for s in rows
        ]

    common = [
        "Resources reported for PL/SQL code includes the resources used by all SQL",
        "  statements called by the code.",
    ]
    cpu_io = [
        "%CPU   - CPU Time      as a percentage of Elapsed Time",
        "%IO    - User I/O Time as a percentage of Elapsed Time",
    ]

    rows = top("elapsed")
    ela_total = sum(s["elapsed"] or 0 for s in sql if not s["plsql"])
    notes = [
        *common,
        "% Total DB Time is the Elapsed Time of the SQL statement divided",
        "  into the Total Database Time multiplied by 100",
        "%Total - Elapsed Time  as a percentage of Total DB time",
        *cpu_io,
        f"Captured SQL account for {_share(ela_total, db_time)}% of Total DB Time "
        f"(s): {to_char(db_time / 1e6, '999,999,999,999').strip():>15}",
        f"Captured PL/SQL account for {_share(plsql('elapsed'), db_time)}% of Total "
        f"DB Time (s): {to_char(db_time / 1e6, '999,999,999,999').strip():>15}",
    ]
    t = Table(
        "SQL ordered by Elapsed Time",
        "This table displays top SQL by elapsed time",
        [
            Col(16, lambda v: to_char(v / 1e6, "999,999,990.9")),
            Col(14, INT),
            Col(13, lambda v: to_char(v, "999,990.99") if v is not None else "N/A"),
            Col(6, PCT),
            Col(6, PCT),
            Col(6, PCT),
            sqlid,
        ],
        [
            "        Elapsed                  Elapsed Time",
            "        Time (s)    Executions  per Exec (s)  %Total   %CPU    %IO    SQL Id",
        ],
        ["Elapsed Time (s)", "Executions", "Elapsed Time per Exec (s)", "%Total", "%CPU", "%IO", "SQL Id"],
        [
            [
                s["elapsed"],
                s["executions"],
                s["elapsed"] / 1e6 / s["executions"] if s["executions"] else None,
                _pct(s["elapsed"], db_time),
                *pcts(s),
                s["sql_id"],
            ]
            for s in rows
        ],
        [_sql_after(s) for s in rows],
        notes,
        extra=["SQL Module", "SQL Text"],
        extra_rows=extra(rows),
    )
    tables.append(t)

    rows = top("cpu")
    cpu_total = sum(s["cpu"] or 0 for s in sql if not s["plsql"])
    notes = [
        *common,
        "%Total - CPU Time      as a percentage of Total DB CPU",
        *cpu_io,
        f"Captured SQL account for {_share(cpu_total, db_cpu)}% of Total CPU Time "
        f"(s): {to_char(db_cpu / 1e6, '999,999,999,999').strip():>15}",
        f"Captured PL/SQL account for {_share(plsql('cpu'), db_cpu)}% of Total "
        f"CPU Time (s): {to_char(db_cpu / 1e6, '999,999,999,999').strip():>15}",
    ]
    tables.append(
        Table(
            "SQL ordered by CPU Time",
            "This table displays top SQL by CPU time",
            [
                Col(10, lambda v: to_char(v / 1e6, "9,999,990.9")),
                Col(12, INT),
                Col(10, lambda v: to_char(v, "99,990.99") if v is not None else "N/A"),
                Col(6, PCT),
                Col(10, lambda v: to_char(v / 1e6, "9,999,990.9")),
                Col(6, PCT),
                Col(6, PCT),
                sqlid,
            ],
            [
                "    CPU                   CPU per           Elapsed",
                "  Time (s)  Executions    Exec (s) %Total   Time (s)   %CPU    %IO    SQL Id",
            ],
            ["CPU Time (s)", "Executions", "CPU per Exec (s)", "%Total", "Elapsed Time (s)", "%CPU", "%IO", "SQL Id"],
            [
                [
                    s["cpu"],
                    s["executions"],
                    s["cpu"] / 1e6 / s["executions"] if s["executions"] else None,
                    _pct(s["cpu"], db_cpu),
                    s["elapsed"],
                    *pcts(s),
                    s["sql_id"],
                ]
                for s in rows
            ],
            [_sql_after(s) for s in rows],
            notes,
            extra=["SQL Module", "SQL Text"],
            extra_rows=extra(rows),
        )
    )

    for key, title, summary, label, total_name, head, names in (
        (
            "gets",
            "SQL ordered by Gets",
            "This table displays top SQL by buffer gets",
            "Buffer Gets   as a percentage of Total Buffer Gets",
            ("Total Buffer Gets:", "session logical reads"),
            [
                "     Buffer                 Gets              Elapsed",
                "      Gets   Executions   per Exec   %Total   Time (s)"
                + ("   %CPU    %IO    SQL Id" if short else "  %CPU   %IO    SQL Id"),
            ],
            ["Buffer Gets", "Executions", "Gets per Exec", "%Total", "Elapsed Time (s)", "%CPU", "%IO", "SQL Id"],
        ),
        (
            "reads",
            "SQL ordered by Reads",
            "This table displays top SQL by physical reads",
            "Physical Reads as a percentage of Total Disk Reads",
            ("Total Disk Reads:", "physical reads"),
            [
                "   Physical              Reads              Elapsed",
                "      Reads  Executions per Exec   %Total   Time (s)   %CPU    %IO    SQL Id",
            ],
            ["Physical Reads", "Executions", "Reads per Exec", "%Total", "Elapsed Time (s)", "%CPU", "%IO", "SQL Id"],
        ),
    ):
        rows = top(key)
        whole = totals.get(total_name[1], 0)
        captured = sum(s[key] or 0 for s in sql if not s["plsql"])
        notes = (
            (common if key == "gets" else [])
            + [f"%Total - {label}"]
            + cpu_io
            + [
                f"{total_name[0]} {_count(whole)}",
                f"Captured SQL account for {_share(captured, whole)}% of Total",
            ]
        )
        if key == "gets":
            cols = [
                Col(11, INT),
                Col(11, INT),
                Col(12, lambda v: to_char(v, "999,999,990.9") if v is not None else "N/A"),
                Col(6, PCT),
                Col(10, lambda v: to_char(v / 1e6, "9,999,990.9")),
                pct_tm,
                pct_tm,
                sqlid,
            ]
        else:
            cols = [
                Col(11, INT),
                Col(11, INT),
                Col(10, lambda v: to_char(v, "9,999,990.9") if v is not None else "N/A"),
                Col(6, PCT0),
                Col(10, lambda v: to_char(v / 1e6, "9,999,990.9")),
                Col(6, PCT),
                Col(6, PCT),
                sqlid,
            ]
        tables.append(
            Table(
                title,
                summary,
                cols,
                head,
                names,
                [
                    [
                        s[key],
                        s["executions"],
                        s[key] / s["executions"] if s["executions"] else None,
                        _pct(s[key], whole),
                        s["elapsed"],
                        *pcts(s),
                        s["sql_id"],
                    ]
                    for s in rows
                ],
                [_sql_after(s) for s in rows],
                notes,
                extra=["SQL Module", "SQL Text"],
                extra_rows=extra(rows),
            )
        )

    rows = top("executions")
    whole = totals.get("execute count", 0)
    captured = sum(s["executions"] or 0 for s in sql if not s["plsql"])
    tables.append(
        Table(
            "SQL ordered by Executions",
            "This table displays top SQL by number of executions",
            [
                Col(12, INT),
                Col(15, INT),
                Col(14, _mask("999,999,990.9")),
                Col(10, lambda v: to_char(v / 1e6, "9,999,990.9")),
                pct_tm,
                pct_tm,
                sqlid,
            ],
            [
                "                                              Elapsed",
                " Executions   Rows Processed  Rows per Exec   Time (s)"
                + ("   %CPU    %IO    SQL Id" if short else "  %CPU   %IO    SQL Id"),
            ],
            ["Executions", "Rows Processed", "Rows per Exec", "Elapsed Time (s)", "%CPU", "%IO", "SQL Id"],
            [
                [s["executions"], s["rows"], s["rows"] / s["executions"], s["elapsed"], *pcts(s), s["sql_id"]]
                for s in rows
            ],
            [_sql_after(s) for s in rows],
            [
                *cpu_io,
                f"Total Executions: {_count(whole)}",
                f"Captured SQL account for {_share(captured, whole)}% of Total",
            ],
            extra=["SQL Module", "SQL Text"],
            extra_rows=extra(rows),
        )
    )
    if short:  # 11.2 prints gets and executions with an 11-character SQL Id column
        for t in tables:
            if t.title in ("SQL ordered by Gets", "SQL ordered by Executions"):
                t.head[-1] = t.head[-1].rstrip()
            else:
                t.cols[-1] = Col(13, left=True)
    return tables


def _complete_sql(tables, sql) -> Table:
    """HTML only: every statement the SQL sections named, in the order they first appear, with its whole text (the
    text report prints each statement's text under it instead)."""
    texts = {s["sql_id"]: s["text"] for s in sql}
    ids = dict.fromkeys(sql_id for t in tables for sql_id, _, _ in t.extra_rows)
    return Table(
        "Complete List of SQL Text",
        "This table displays the text of the SQL statements which have been referred to in the report",
        [Col(13, left=True), Col(80, left=True)],
        [],
        ["SQL Id", "SQL Text"],
        [[k, texts.get(k, "")] for k in ids],
        html_only=True,
    )


def _activity(it) -> list[Table]:
    txn = it.transactions
    rows = [[n, v, v / it.seconds, v / txn if txn else None] for n, v in sorted(it.sysstat.items())]
    stats = Table(
        "Instance Activity Stats",
        "This table displays Instance activity statistics. For each instance, "
        "activity total, activity per second, and activity per transaction are displayed",
        [Col(32, left=True), Col(18, INT), Col(14, _mask("999,999,990.9")), Col(13, _mask("99,999,990.9"))],
        ["Statistic                                     Total     per Second     per Trans"],
        ["Statistic", "Total", "per Second", "per Trans"],
        rows,
        notes=["Ordered by statistic name"],
    )
    names = sorted(set(it.sysstat_begin) | set(it.sysstat_end))
    absolute = Table(
        "Instance Activity Stats - Absolute Values",
        "This table displays Instance activity statistics with absolute values",
        [Col(32, left=True), Col(15, INT), Col(15, INT)],
        ["Statistic                            Begin Value       End Value"],
        ["Statistic", "Begin Value", "End Value"],
        [[n, it.sysstat_begin.get(n), it.sysstat_end.get(n)] for n in names],
        notes=["Statistics with absolute values (should not be diffed)"],
    )
    return [stats, absolute]


def _iostat(it, release) -> Table:
    rows, total = [], [0.0] * 6
    for name, v in it.io_functions.items():
        vals = [v["read_mb"], v["read_reqs"], v["write_mb"], v["write_reqs"], v["waits"], v["wait_ms"]]
        if any(vals):
            rows.append([name, *vals])
            total = [a + b for a, b in zip(total, vals, strict=True)]
    rows.sort(key=lambda r: (-(r[1] + r[3]), r[0]))
    rows.append(["TOTAL:", *total])
    sec = it.seconds
    out = [
        [n, rm, rq / sec, rm / sec, wm, wq / sec, wm / sec, w, (t / w if w else None)]
        for n, rm, rq, wm, wq, w, t in rows
    ]
    notes = [
        "'Data' columns suffixed with M,G,T,P are in multiples of 1024",
        "  other columns suffixed with K,M,G,T,P are in multiples of 1000",
        "ordered by (Data Read + Write) desc",
    ]
    if release == "11.2":
        rate = lambda v: "0M" if not v else tm(v, 6)[:7]  # noqa: E731 - Oracle's unlabelled MB/s, cut to 7
        avg = _mask("99,990.9")
        head = [
            "                Reads:   Reqs   Data    Writes:  Reqs   Data    Waits:    Avg",
            "Function Name   Data    per sec per sec Data    per sec per sec Count    Tm(ms)",
        ]
        name_w, avg_w = 15, 7
    else:
        rate = size_mb
        avg = lambda v: avg_wait(v * 1e3)  # noqa: E731 - milliseconds with their unit
        head = [
            "                Reads:  Reqs    Data   Writes:  Reqs    Data   Waits:     Avg",
            "Function Name     Data per sec per sec    Data per sec per sec  Count     Time",
        ]
        name_w, avg_w = 15, 8
    cols = [
        Col(name_w, left=True),
        Col(7, size_mb),
        Col(7, _mask("9,990.9")),
        Col(7, rate),
        Col(7, size_mb),
        Col(7, _mask("9,990.9")),
        Col(7, rate),
        Col(7, lambda v: kilo(v, width=7)),
        Col(avg_w, avg),
    ]
    return Table(
        "IOStat by Function summary",
        "This table displays the IO Statistics for different functions. IO "
        "stats includes amount of reads and writes, requests per second, data per second, wait count and "
        "average wait time",
        cols,
        head,
        [
            "Function Name",
            "Reads: Data",
            "Reqs per sec",
            "Data per sec",
            "Writes: Data",
            "Reqs per sec",
            "Data per sec",
            "Waits: Count",
            "Avg Tm(ms)" if release == "11.2" else "Avg Time",
        ],
        out,
        notes=notes,
    )


def _segments(it, release, key, label, total_stat, head_word) -> Table:
    whole = it.sysstat.get(total_stat, 0)
    segs = sorted((s for s in it.segments if (s[key] or 0) > 0), key=lambda s: (-s[key], s["obj"]))[:TOP_SEGMENTS]
    captured = sum(s[key] or 0 for s in it.segments)
    summary_word = label.lower()
    notes = [
        f"Total {label}: {_count(whole)}",
        f"Captured Segments account for {_share(captured, whole)}% of Total",
    ]
    rows = [
        [
            s["owner"],
            s["tablespace"],
            s["object"],
            s["subobject"],
            s["type"],
            s["obj"],
            s["dataobj"],
            s[key],
            _pct(s[key], whole),
        ]
        for s in segs
    ]
    summary = (
        f"This table displays top segments by {summary_word}. Owner, tablespace name, object type, "
        f"{summary_word}, etc. are displayed for each segment"
    )
    names = [
        "Owner",
        "Tablespace Name",
        "Object Name",
        "Subobject Name",
        "Obj. Type",
        "Obj#",
        "Dataobj#",
        label,
        "%Total",
    ]
    if release == "11.2":
        cols = [
            Col(10, left=True),
            Col(10, left=True),
            Col(20, left=True),
            Col(10, left=True),
            Col(5, left=True),
            Col(12, INT),
            Col(7, PCT2),
        ]
        head = [
            f"           Tablespace                      Subobject  Obj.{head_word[0]:>14}",
            f"Owner         Name    Object Name            Name     Type{head_word[1]:>14}  %Total",
        ]
        t = Table(
            f"Segments by {label}",
            summary,
            cols,
            head,
            [n for n in names if "obj#" not in n.lower()],
            [r[:5] + r[7:] for r in rows],
            notes=notes,
        )
        return t
    notes.append("When ** MISSING ** occurs, some of the object attributes may not be available")
    cols = [
        Col(20, left=True),
        Col(10, left=True),
        Col(5, left=True),
        Col(10, lambda v: f"{v}"),  # object numbers ungrouped (docs/report-formats.md, S1)
        Col(10, lambda v: f"{v}"),
        Col(12, INT),
        Col(7, PCT2),
    ]
    head = [
        "                     Tablespace",
        "Owner                   Name",
        "-------------------- ----------",
        f"                     Subobject  Obj.{head_word[0]:>36}",
        f"Object Name            Name     Type        Obj#   Dataobj#{head_word[1]:>13}  %Total",
    ]
    t = Table(
        f"Segments by {label}",
        summary,
        cols,
        head,
        names,
        [r[2:] for r in rows],
        after=[[f"{(r[0] or ''):<20} {(r[1] or '')[:10]}".rstrip()] for r in rows],
        notes=notes,
    )
    t.owner_first = True
    t.full_rows = rows
    return t


def _parameters(it, release, instance_col=False) -> Table:
    names = sorted(set(it.parameters_begin) | set(it.parameters_end))
    rows = []
    for n in names:
        begin, end = it.parameters_begin.get(n), it.parameters_end.get(n)
        rows.append([n, begin if begin is not None else end, end if begin is not None and end != begin else None])
    cols = [Col(29, left=True), Col(33, left=True), Col(14, left=True)]
    head = [
        "                                                                End value",
        "Parameter Name                Begin value                       (if different)",
    ]
    return Table(
        "init.ora Parameters",
        "This table displays name and value of init.ora parameters",
        cols,
        head,
        ["Parameter Name", "Begin value", "End value (if different)"],
        rows,
        notes=["if IP/Public/Source at End snap is different a '*' is displayed"],
    )


def instance_sections(it: Interval, release: str) -> list[Table]:
    """Every section of the instance report, in Oracle's order (docs/report-formats.md)."""
    db_time, db_cpu = it.time_model.get("DB time", 0), it.time_model.get("DB CPU", 0)
    out = [_load_profile(it, release), _top_events(it, release)]
    if release != "11.2":
        out.append(_wait_classes(it))
    out += [
        _time_model(it, release),
        _osstat(it),
        _fg_wait_class(it, release),
        _wait_events(it, release, False),
        _wait_events(it, release, True),
        _histogram(it),
    ]
    sql = _sql_tables(it, release, it.sql, db_time, db_cpu, it.sysstat)
    out += [*sql, _complete_sql(sql, it.sql)]
    out += [*_activity(it), _iostat(it, release)]
    out.append(_segments(it, release, "logical_reads", "Logical Reads", "session logical reads", ("Logical", "Reads")))
    out.append(_segments(it, release, "physical_reads", "Physical Reads", "physical reads", ("Physical", "Reads")))
    out.append(_parameters(it, release))
    return out


# -- text -------------------------------------------------------------------------------------------------------------

RELEASE_TEXT = {"19": (43, 78, " " * 26 + "-" * 54, "\n\n\n"), "11.2": (45, 77, " " * 10 + "-" * 61, "\n\n")}


def _banner(title, right, release):
    pad, cut, _, _ = RELEASE_TEXT[release]
    return (title.ljust(pad) + right)[:cut] if len(title) < pad else (title + right)[:cut]


def text_table(t: Table, right: str, release: str) -> str:
    _, _, rule, gap = RELEASE_TEXT[release]
    if not t.banner:
        lines = [t.title, "~" * len(t.title)] if t.title != "Load Profile" else []
        lines += [*t.head, t.dashes or " ".join("-" * c.width for c in t.cols)]
        lines += [_text_cells(t, r).rstrip() for r in t.rows]
        return "\n".join(lines) + "\n\n"
    lines = [_banner(t.title, right, release)] + [f"-> {n}" if not n.startswith("  ") else f" {n}" for n in t.notes]
    lines.append("")
    if not t.rows:
        return "\n".join([*lines, NO_DATA, rule]) + gap
    lines += t.head
    if not t.owner_first:
        lines.append(" ".join("-" * c.width for c in t.cols))
    else:
        lines.append(" ".join("-" * c.width for c in t.cols))
        for r, above in zip(t.rows, t.after, strict=True):
            lines += [*above, _text_cells(t, r).rstrip()]
        return "\n".join([*lines, rule]) + gap
    for i, r in enumerate(t.rows):
        lines.append(_text_cells(t, r).rstrip())
        if t.after:
            lines += t.after[i]
    return "\n".join([*lines, rule]) + gap


def _header_text(it: Interval, release: str, sessions) -> str:
    when, up = "%d-%b-%y %H:%M:%S", "%d-%b-%y %H:%M"
    out = ["WORKLOAD REPOSITORY report for", ""]
    if release == "11.2":
        out += [
            "DB Name         DB Id    Instance     Inst Num Startup Time    Release     RAC",
            "------------ ----------- ------------ -------- --------------- ----------- ---",
            f"{it.db_name[:12]:<12} {it.dbid:>11} {it.instance_name[:12]:<12} {it.instance:>8} "
            f"{it.startup.strftime(up)} {it.release[:11]:<11} {'YES' if it.rac else 'NO'}",
            "",
        ]
    else:
        out += [
            "DB Name         DB Id    Unique Name DB Role          Edition Release    RAC CDB",
            "------------ ----------- ----------- ---------------- ------- ---------- --- ---",
            f"{it.db_name[:12]:<12} {it.dbid:>11} {it.unique_name[:11]:<11} {it.role[:16]:<16} {it.edition[:7]:<7} "
            f"{it.release[:10]:<10} {'YES' if it.rac else 'NO':<3} {'YES' if it.cdb else 'NO'}",
            "",
            "Instance     Inst Num Startup Time",
            "------------ -------- ---------------",
            f"{it.instance_name[:12]:<12} {it.instance:>8} {it.startup.strftime(up)}",
            "",
        ]
    mem = it.osstat_end.get("PHYSICAL_MEMORY_BYTES")
    out += [
        "Host Name        Platform                         CPUs Cores Sockets Memory(GB)",
        "---------------- -------------------------------- ---- ----- ------- ----------",
        f"{it.host[:16]:<16} {it.platform[:32]:<32} {cell(INT(it.osstat_end.get('NUM_CPUS')), 4)} "
        f"{cell(INT(it.osstat_end.get('NUM_CPU_CORES')), 5)} {cell(INT(it.osstat_end.get('NUM_CPU_SOCKETS')), 7)} "
        f"{cell(to_char(mem / 1024**3, '9,999,990.99') if mem else '', 10)}",
        "",
    ]
    inst = " Instances" if it.rac else ""
    out += [
        "              Snap Id      Snap Time      Sessions Curs/Sess" + inst,
        "            --------- ------------------- -------- ---------" + (" ---------" if it.rac else ""),
    ]
    for label, snap, t, (sess, curs, count) in (
        ("Begin Snap:", it.lo, it.t0, sessions[0]),
        ("  End Snap:", it.hi, it.t1, sessions[1]),
    ):
        line = (
            f"{label} {snap:>9} {t.strftime(when)} {cell(INT(sess), 8)} "
            f"{cell(to_char(curs / sess, '99,999.9') if sess else '', 9)}"
        )
        out.append(line + (f" {count:>9}" if it.rac else ""))
    db_time = it.time_model.get("DB time", 0)
    out += [
        f"   Elapsed:{cell(to_char(it.seconds / 60, '9,999,999,990.99'), 20)} (mins)",
        f"   DB Time:{cell(to_char(db_time / 6e7, '9,999,999,990.99'), 20)} (mins)",
        "",
        "",
    ]
    return "\n".join(out) + "\n"


def _sessions(con, it: Interval):
    """Sessions, cursors and (RAC) instances at each end: SYSSTAT's logons current and opened cursors current."""
    out = []
    for snap, values in ((it.lo, it.sysstat_begin), (it.hi, it.sysstat_end)):
        count = con.execute(
            "SELECT count(*) FROM dba_hist_snapshot WHERE dbid = ? AND snap_id = ?", (it.dbid, snap)
        ).fetchone()[0]
        out.append((values.get("logons current"), values.get("opened cursors current") or 0, count))
    return out


def _text_report(con, it: Interval, release: str) -> str:
    right = f"DB/Inst: {it.db_name}/{it.instance_name}  Snaps: {it.lo}-{it.hi}"
    parts = [_header_text(it, release, _sessions(con, it))]
    for t in instance_sections(it, release):
        if not t.html_only:
            parts.append(text_table(t, right, release))
    parts.append("End of Report\n")
    return "".join(parts)


# -- HTML -------------------------------------------------------------------------------------------------------------

HTML_STYLE = (
    "body.awr {font:bold 10pt Arial,Helvetica,Geneva,sans-serif;color:black;background:White;}"
    "h1.awr {font:bold 20pt Arial,Helvetica,Geneva,sans-serif;color:#336699;background-color:White;"
    "border-bottom:1px solid #cccc99;margin-top:0pt;margin-bottom:0pt;padding:0px 0px 0px 0px;}"
    "h3.awr {font:bold 16pt Arial,Helvetica,Geneva,sans-serif;color:#336699;background-color:White;margin-top:4pt;"
    "margin-bottom:0pt;}"
    "li.awr {font:8pt Arial,Helvetica,Geneva,sans-serif;color:black;background:White;}"
    "th.awrbg {font:bold 8pt Arial,Helvetica,Geneva,sans-serif;color:White;background:#0066CC;padding-left:4px;"
    "padding-right:4px;padding-bottom:2px}"
    "th.awrnobg {font:bold 8pt Arial,Helvetica,Geneva,sans-serif;color:black;background:White;padding-left:4px;"
    "padding-right:4px;padding-bottom:2px}"
    "td.awrc {font:8pt Arial,Helvetica,Geneva,sans-serif;color:black;background:White;vertical-align:top;}"
    "td.awrnc {font:8pt Arial,Helvetica,Geneva,sans-serif;color:black;background:#FFFFCC;vertical-align:top;}"
    "td.awrnclb {font:8pt Arial,Helvetica,Geneva,sans-serif;color:black;background:#FFFFCC;vertical-align:top;"
    "border-left:thin solid black;}"
    "a.awr {font:bold 8pt Arial,Helvetica,sans-serif;color:#663300;vertical-align:top;margin-top:0pt;"
    "margin-bottom:0pt;}"
)


def _td(text, klass, numeric, first=False, raw=False) -> str:
    body = text if raw else (html.escape(text.strip()) if text.strip() else "&#160;")
    scope = ' scope="row"' if first else ""
    align = ' align="right"' if numeric and not first else ""
    return f"<td{scope}{align} class='{klass}'>{body}</td>"


def html_table(t: Table) -> str:
    names = t.names + t.extra
    head = (
        "<tr>"
        + "".join(f'<th class="{"awrnobg" if not n else "awrbg"}" scope="col">{html.escape(n)}</th>' for n in names)
        + "</tr>"
    )
    rows = t.full_rows
    lines = [f'<table border="0" width="600" class="tdiff" summary="{html.escape(t.summary)}">', head]
    for i, r in enumerate(t.rows):
        klass = "awrc" if i % 2 == 0 else "awrnc"
        cols, values = t.cols, r
        cells = []
        if rows is not None:  # segments: owner and tablespace come first in the HTML table
            cells += [_td(rows[i][0] or "", klass, False, first=True), _td(rows[i][1] or "", klass, False)]
        for k, (c, v) in enumerate(zip(cols, values, strict=True)):
            text = c.fmt(v) if v is not None else ""
            if c is t.cols[-1] and t.extra and k == len(cols) - 1:  # the SQL Id links to the complete text
                cells.append(
                    _td(f'<a class="awr" href="#{html.escape(v)}">{html.escape(v)}</a>', klass, False, raw=True)
                )
            elif t.title == "Complete List of SQL Text" and k == 0:
                cells.append(
                    _td(
                        f'<a class="awr" name="{html.escape(v)}"></a>{html.escape(v)}',
                        klass,
                        False,
                        first=True,
                        raw=True,
                    )
                )
            else:
                cells.append(_td(text, klass, not c.left, first=(k == 0 and rows is None)))
        for x in t.extra_rows[i][1:] if t.extra else []:
            cells.append(_td(x, klass, False))
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</table><p />")
    return "\n".join(lines)


def _html_section(t: Table, anchor: int) -> str:
    out = []
    if t.banner:
        out.append(f'<h3 class="awr"><a class="awr" name="{anchor}"></a>{html.escape(t.title)}</h3>')
        if t.notes:
            out.append("<ul>" + "".join(f'<li class="awr"> {html.escape(n.strip())}</li>' for n in t.notes) + "</ul>")
    else:
        out.append(f"<p />{html.escape(t.title)}<p />")
    if not t.rows:
        out.append('<p />No data exists for this section of the report.<p />')
        return "\n".join(out)
    out.append(html_table(t))
    return "\n".join(out)


def _header_html(con, it: Interval, release: str) -> list[Table]:
    sess = _sessions(con, it)
    db = Table("", "This table displays database instance information", [Col(12, left=True)] * 0, [], [], banner=False)
    when, up = "%d-%b-%y %H:%M:%S", "%d-%b-%y %H:%M"
    if release == "11.2":
        db.names = ["DB Name", "DB Id", "Instance", "Inst num", "Startup Time", "Release", "RAC"]
        db.rows = [
            [
                it.db_name,
                str(it.dbid),
                it.instance_name,
                str(it.instance),
                it.startup.strftime(up),
                it.release,
                "YES" if it.rac else "NO",
            ]
        ]
    else:
        db.names = ["DB Name", "DB Id", "Unique Name", "Role", "Edition", "Release", "RAC", "CDB"]
        db.rows = [
            [
                it.db_name,
                str(it.dbid),
                it.unique_name,
                it.role,
                it.edition,
                it.release,
                "YES" if it.rac else "NO",
                "YES" if it.cdb else "NO",
            ]
        ]
    db.cols = [Col(0, left=not v.isdigit()) for v in db.rows[0]]
    tables = [db]
    if release != "11.2":
        inst = Table(
            "",
            "This table displays instance information",
            [Col(0, left=True), Col(0), Col(0, left=True)],
            [],
            ["Instance", "Inst Num", "Startup Time"],
            [[it.instance_name, str(it.instance), it.startup.strftime(up)]],
            banner=False,
        )
        tables.append(inst)
    mem = it.osstat_end.get("PHYSICAL_MEMORY_BYTES")
    tables.append(
        Table(
            "",
            "This table displays host information",
            [Col(0, left=True), Col(0, left=True), Col(0), Col(0), Col(0), Col(0)],
            [],
            ["Host Name", "Platform", "CPUs", "Cores", "Sockets", "Memory (GB)"],
            [
                [
                    it.host,
                    it.platform,
                    INT(it.osstat_end.get("NUM_CPUS")),
                    INT(it.osstat_end.get("NUM_CPU_CORES")),
                    INT(it.osstat_end.get("NUM_CPU_SOCKETS")),
                    to_char(mem / 1024**3, "9,999,990.99") if mem else "",
                ]
            ],
            banner=False,
        )
    )
    snaps = [
        [
            "Begin Snap:",
            str(it.lo),
            it.t0.strftime(when),
            INT(sess[0][0]),
            to_char(sess[0][1] / sess[0][0], "99,999.9") if sess[0][0] else "",
        ],
        [
            "End Snap:",
            str(it.hi),
            it.t1.strftime(when),
            INT(sess[1][0]),
            to_char(sess[1][1] / sess[1][0], "99,999.9") if sess[1][0] else "",
        ],
        ["Elapsed:", "", f"{to_char(it.seconds / 60, '9,999,999,990.99')} (mins)", "", ""],
        ["DB Time:", "", f"{to_char(it.time_model.get('DB time', 0) / 6e7, '9,999,999,990.99')} (mins)", "", ""],
    ]
    names = ["", "Snap Id", "Snap Time", "Sessions", "Cursors/Session"]
    if it.rac:
        names.append("Instances")
        for r, s in zip(snaps, [*sess, (0, 0, ""), (0, 0, "")], strict=True):
            r.append(str(s[2]))
    tables.append(
        Table(
            "",
            "This table displays snapshot information",
            [Col(0, left=True), Col(0), Col(0, left=True)] + [Col(0)] * (len(names) - 3),
            [],
            names,
            snaps,
            banner=False,
        )
    )
    return tables


def _html_report(con, it: Interval, release: str) -> str:
    title = f"AWR Report for DB: {it.db_name}, Inst: {it.instance_name}, Snaps: {it.lo}-{it.hi}"
    out = [
        f'<html lang="en"><head><title>{html.escape(title)}</title>',
        f'<style type="text/css">{HTML_STYLE}</style></head><body class="awr">',
        '<h1 class="awr">',
        "WORKLOAD REPOSITORY report for",
        "",
        "</h1>",
    ]
    for t in _header_html(con, it, release):
        t.cols = [Col(0, fmt=lambda v: v, left=c.left) for c in t.cols]
        out.append("<p />")
        out.append(html_table(t))
    out.append('<p />\n<h3 class="awr"><a class="awr" name="99999"></a>Report Summary</h3>')
    for n, t in enumerate(instance_sections(it, release)):
        if t.title == "Load Profile" or not t.banner:
            t.cols = [Col(c.width, c.fmt if k else (lambda v: v), c.left) for k, c in enumerate(t.cols)]
        out.append(_html_section(t, 100 + n))
    out.append("<p />\nEnd of Report\n</body></html>\n")
    return "\n".join(out)


# -- the RAC global report (19c text) ----------------------------------------------------------------------------------


def _global_text(con, dbid: int, instances: list[int], lo: int, hi: int) -> str:
    its = [interval(con, dbid, i, lo, hi) for i in instances]
    first = its[0]
    release = "19"
    right = f"DB: {first.db_name}  Snaps: {lo}-{hi}"
    elapsed = max(it.seconds for it in its)
    db_time = sum(it.time_model.get("DB time", 0) for it in its)
    db_cpu = sum(it.time_model.get("DB CPU", 0) for it in its)
    out = ["WORKLOAD REPOSITORY REPORT (RAC)", "", ""]
    cols = [
        Col(11),
        Col(9, left=True),
        Col(3, left=True),
        Col(10, left=True),
        Col(9),
        Col(9),
        Col(4),
        Col(10, _mask("9,999,990.99")),
        Col(10, _mask("9,999,990.99")),
        Col(8, _mask("9,990.9")),
    ]
    summary = Table(
        "Database Summary",
        "Database Summary",
        cols,
        heads(
            cols,
            ["", "", "", "", "Begin", "End", "Num", "Elapsed", "DB time", "Avg Act"],
            ["Id", "Name", "RAC", "Release", "Snap", "Snap", "Inst", "Time(min)", "Time(min)", "Sess"],
        ),
        [],
        [
            [
                dbid,
                first.db_name,
                "YES",
                first.release,
                lo,
                hi,
                len(its),
                elapsed / 60,
                db_time / 6e7,
                db_time / 1e6 / elapsed,
            ]
        ],
        banner=False,
    )
    out.append(text_table(summary, right, release))
    up = "%d-%b-%y %H:%M"
    cols = [
        Col(4),
        Col(12, left=True),
        Col(16, left=True),
        Col(15, left=True),
        Col(15, left=True),
        Col(15, left=True),
        Col(10, left=True),
        Col(10, _mask("9,999,990.99")),
        Col(10, _mask("9,999,990.99")),
        Col(8, _mask("99,990.9")),
        Col(8, _mask("9,990.9")),
        Col(32, left=True),
    ]
    inst = Table(
        "Database Instances Included In Report",
        "Database Instances Included In Report",
        cols,
        heads(
            cols,
            ["", "", "", "", "", "", "", "Elapsed", "DB time", "Up Time", "Avg Act", ""],
            [
                "I#",
                "Instance",
                "Host",
                "Startup",
                "Begin Snap Time",
                "End Snap Time",
                "Release",
                "Time(min)",
                "Time(min)",
                "(hrs)",
                "Sess",
                "Platform",
            ],
        ),
        [],
        [
            [
                it.instance,
                it.instance_name,
                it.host,
                it.startup.strftime(up),
                it.t0.strftime(up),
                it.t1.strftime(up),
                it.release,
                it.seconds / 60,
                it.time_model.get("DB time", 0) / 6e7,
                (it.t1 - it.startup).total_seconds() / 3600,
                it.time_model.get("DB time", 0) / 1e6 / it.seconds,
                it.platform,
            ]
            for it in its
        ],
        notes=["Listed in order of instance number, I#"],
    )
    out.append(text_table(inst, right, release))
    os_rows = [
        [
            it.instance,
            it.osstat_end.get("NUM_CPUS"),
            it.osstat_end.get("NUM_CPU_CORES"),
            it.osstat_end.get("NUM_CPU_SOCKETS"),
            it.osstat_begin.get("LOAD"),
            it.osstat_end.get("LOAD"),
            _pct(it.osstat.get("BUSY_TIME", 0), it.osstat.get("BUSY_TIME", 0) + it.osstat.get("IDLE_TIME", 0)),
            it.osstat.get("BUSY_TIME", 0) / 100,
            it.osstat.get("IDLE_TIME", 0) / 100,
            (it.osstat_end.get("PHYSICAL_MEMORY_BYTES") or 0) / MB,
        ]
        for it in its
    ]
    out.append(
        text_table(
            Table(
                "OS Statistics By Instance",
                "OS Statistics By Instance",
                [
                    Col(4),
                    Col(5, INT),
                    Col(5, INT),
                    Col(5, INT),
                    Col(7, _mask("9,990.99")),
                    Col(7, _mask("9,990.99")),
                    Col(6, PCT0),
                    Col(12, ONE),
                    Col(12, ONE),
                    Col(12, ONE),
                ],
                [
                    "       Num   CPU   CPU    Load    Load   %       Busy        Idle",
                    "  I#  CPUs Cores Sckts   Begin     End  Busy    Time (s)    Time (s)  Memory (M)",
                ],
                [],
                os_rows,
            ),
            right,
            release,
        )
    )
    rows = []
    for it in its:
        rows += [[it.instance, *r[:3]] for r in _time_model(it, release).rows]
    out.append(
        text_table(
            Table(
                "Time Model",
                "Time Model",
                [Col(4), Col(42, left=True), Col(18, ONE), Col(7, PCT)],
                [
                    "                                                                     % of",
                    "  I# Statistic Name                                       Time (s) DB Time",
                ],
                [],
                rows,
                notes=["Ordered by instance, then as the instance report's Time Model"],
            ),
            right,
            release,
        )
    )
    rows = []
    for it in its:
        for r in _wait_events(it, release, False).rows:
            event = next(e for e in it.events if e.name == r[0])
            rows.append([it.instance, event.wait_class, r[0], r[1], r[2], r[3], r[4], r[6]])
    out.append(
        text_table(
            Table(
                "Foreground Wait Events",
                "Foreground Wait Events",
                [
                    Col(4),
                    Col(12, left=True),
                    Col(26, left=True),
                    Col(11, INT),
                    Col(5, INT),
                    Col(8, lambda v: to_char(v / 1e6, "9,999,990")),
                    Col(9, avg_wait),
                    Col(6, PCT),
                ],
                [
                    "                                                           %Time    Total",
                    "  I# Wait Class   Event                            Waits -outs Time (s)  Avg wait   % DB",
                    "                                                                                    time",
                ],
                [],
                rows,
                notes=[
                    "Only events with Total Wait Time (s) >= .001 are shown",
                    "ordered by instance, wait time desc, waits desc (idle events last)",
                ],
            ),
            right,
            release,
        )
    )
    rows = []
    for it in its:
        txn = it.transactions
        rows += [[it.instance, n, v, v / it.seconds, v / txn if txn else None] for n, v in sorted(it.sysstat.items())]
    out.append(
        text_table(
            Table(
                "System Statistics",
                "System Statistics",
                [
                    Col(4),
                    Col(32, left=True),
                    Col(18, INT),
                    Col(14, _mask("999,999,990.9")),
                    Col(13, _mask("99,999,990.9")),
                ],
                ["  I# Statistic                                     Total     per Second     per Trans"],
                [],
                rows,
                notes=["Ordered by instance, then statistic name"],
            ),
            right,
            release,
        )
    )
    sql = sql_totals(con, dbid, tuple(instances), lo, hi)
    totals: dict[str, float] = {}
    for it in its:
        for k, v in it.sysstat.items():
            totals[k] = totals.get(k, 0) + v
    for t in _sql_tables(first, release, sql, db_time, db_cpu, totals)[:2]:
        t.title += " (Global)"
        out.append(text_table(t, right, release))
    rows = []
    for it in its:
        rows += [[r[0], it.instance, r[1], r[2]] for r in _parameters(it, release).rows]
    rows.sort(key=lambda r: (r[0], r[1]))
    out.append(
        text_table(
            Table(
                "init.ora Parameters",
                "init.ora Parameters",
                [Col(29, left=True), Col(4), Col(33, left=True), Col(14, left=True)],
                [
                    "                                                                     End value",
                    "Parameter Name                  I# Begin value                       (if different)",
                ],
                [],
                rows,
            ),
            right,
            release,
        )
    )
    out.append("End of Report\n")
    return "\n".join(out[:3]) + "".join(out[3:])


# -- the public functions ----------------------------------------------------------------------------------------------


def awr_report_file(con, dbid: int, instance, lo: int, hi: int, layout: str) -> str:
    """The report file of the interval (lo, hi] in `layout` (LAYOUTS): an instance report of `instance`, or for
    awr-global-text-19 the global report of the instances in `instance` (a list, or None for every one)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}: one of {', '.join(LAYOUTS)}")
    if layout == "awr-global-text-19":
        if instance is None:
            instance = [
                r[0]
                for r in con.execute(
                    "SELECT DISTINCT instance_number FROM dba_hist_snapshot WHERE dbid = ? AND snap_id = ? ORDER BY 1",
                    (dbid, hi),
                )
            ]
        return _global_text(con, dbid, sorted(instance), lo, hi)
    release = "11.2" if layout.endswith("11.2") else "19"
    it = interval(con, dbid, instance, lo, hi)
    return _text_report(con, it, release) if "-text-" in layout else _html_report(con, it, release)


def report_file_name(layout: str, instance, lo: int, hi: int) -> str:
    """The name Oracle's scripts give the file: awrrpt_<inst>_<begin>_<end>.txt or .html (awrrpt.sql), and for the
    global report awrrac_<begin>_<end>.txt (awrgrpt.sql)."""
    if layout.startswith("awr-global"):
        return f"awrrac_{lo}_{hi}.txt"
    return f"awrrpt_{instance}_{lo}_{hi}.{'html' if '-html-' in layout else 'txt'}"


def hourly_folder(store_path, out_dir, start: datetime, hours: int, plan: Callable) -> list[Path]:
    """What a DBA's folder holds: one report per hour from `start` (database-local), each from the snapshot of the
    hour to the one an hour later, as Oracle's scripts name them. An hour whose snapshots are missing or span a restart
    has no report, as Oracle refuses it (§27). `plan(con)` gives the snapshots by their time (datetime -> snap_id)
    and the function of (lo, hi) giving a report's file name and text."""
    con = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    try:
        snaps, report = plan(con)
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        paths = []
        for k in range(hours):
            lo, hi = snaps.get(start + timedelta(hours=k)), snaps.get(start + timedelta(hours=k + 1))
            if lo is None or hi is None:
                continue
            try:
                name, text = report(lo, hi)
            except RangeError:
                continue
            path = out_dir / name
            path.write_text(text, encoding="utf-8")
            paths.append(path)
        return paths
    finally:
        con.close()


def report_folder(store_path, out_dir, db_name: str, instance, start: datetime, hours: int, layout: str) -> list[Path]:
    """The hourly reports of `layout` (hourly_folder), each from the snapshot that ends at the hour to the one that
    ends an hour later (two of the demo's 30-minute intervals)."""

    def plan(con):
        dbid = con.execute("SELECT dbid FROM dba_hist_database_instance WHERE db_name = ?", (db_name,)).fetchone()[0]
        inst = instance if instance is not None and not layout.startswith("awr-global") else None
        probe = (
            inst
            if inst is not None
            else con.execute("SELECT min(instance_number) FROM dba_hist_snapshot WHERE dbid = ?", (dbid,)).fetchone()[0]
        )
        snaps = {
            datetime.fromisoformat(t): s
            for s, t in con.execute(
                "SELECT snap_id, end_interval_time FROM dba_hist_snapshot WHERE dbid = ? AND instance_number = ?",
                (dbid, probe),
            )
        }
        return snaps, lambda lo, hi: (
            report_file_name(layout, inst, lo, hi),
            awr_report_file(con, dbid, inst if inst is not None else instance, lo, hi, layout),
        )

    return hourly_folder(store_path, out_dir, start, hours, plan)
