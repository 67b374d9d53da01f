"""Statspack's instance report (spreport.sql / sprepins.sql, `sp_<begin>_<end>.lst`) into a Report of source
"statspack" (docs/report-formats.md, "statspack-text-19").

The report is SQL*Plus output: each section a TTITLE ("Foreground Wait Events  DB/Inst: BILLING/BILLING  Snaps: 1-2",
or the summary's "Load Profile", "Top 5 Timed Events"), its headings and a rule of dashes whose runs are the columns,
its rows, and a centred rule closing it. Columns are taken by position in the order sprepins.sql selects them; a text
wrapped by its column (an event in the histogram, a parameter's value) is joined back. Statements are known by their
OLD_HASH_VALUE (Sql.sql_id as text), their text the pieces printed under them."""

import re

from app.report_files import numbers
from app.report_files.awr_common import KnownNames, Reader, Sections, Table, fill
from app.report_files.awr_text import clean_lines, is_end_marker, is_spec, load_profile_lines, parse_time, snap_lines
from app.report_files.model import Instance, InstanceData, Report, ReportError, Sql

LAYOUT = "statspack-text-19"
TITLE = re.compile(r"^(\S.*?)  DB/Inst: (\S+?)/(\S+)\s+Snaps:")
ELAPSED_TITLE = re.compile(r"^SQL ordered by Elapsed time for DB: (\S+)\s+Instance: (\S+)\s+Snaps:")
SUMMARY = ("Load Profile", "Instance Efficiency", "Top 5 Timed Events", "Host CPU", "Cache Sizes", "Instance CPU")
SNAP = re.compile(r"^\s*(Begin|End) Snap:\s+(\d+)\s+(\d\d-\w{3}-\d\d \d\d:\d\d:\d\d)\s*([\d,]*)")
MINUTES = re.compile(r"^\s*(Elapsed|DB time):\s+(\S+)\s+\(mins\)")
# V$SYS_TIME_MODEL's names, which the Time Model section cuts at 35 characters
TIME_MODEL = (
    "DB time",
    "DB CPU",
    "background elapsed time",
    "background cpu time",
    "sequence load elapsed time",
    "parse time elapsed",
    "hard parse elapsed time",
    "sql execute elapsed time",
    "connection management call elapsed time",
    "failed parse elapsed time",
    "failed parse (out of shared memory) elapsed time",
    "hard parse (sharing criteria) elapsed time",
    "hard parse (bind mismatch) elapsed time",
    "PL/SQL execution elapsed time",
    "inbound PL/SQL rpc elapsed time",
    "PL/SQL compilation elapsed time",
    "Java execution elapsed time",
    "repeated bind elapsed time",
    "RMAN cpu time (backup/restore)",
    "OLAP engine elapsed time",
    "OLAP engine CPU time",
)
# each SQL section's figures, in sprepins.sql's order (None: a ratio the model does not keep)
SQL_COLUMNS = {
    "CPU": ("cpu", "executions", None, None, "elapsed", "buffer_gets"),
    "Elapsed time": ("elapsed", "executions", None, None, "cpu", "disk_reads"),
    "Gets": ("buffer_gets", "executions", None, None, "cpu", "elapsed"),
    "Reads": ("disk_reads", "executions", None, None, "cpu", "elapsed"),
    "Executions": ("executions", "rows", None, None, None),
}
SEGMENTS = {"Logical Reads": "logical_reads", "Physical Reads": "physical_reads"}


def runs(rule: str) -> list[int]:
    """The starts of a rule's runs of dashes (or tildes)."""
    return [m.start() for m in re.finditer(r"[-~]+", rule)]


def cut(line: str, starts: list[int]) -> list[str]:
    return [line[a : starts[k + 1] if k + 1 < len(starts) else None].strip() for k, a in enumerate(starts)]


class StatspackText:
    """A Statspack report's header lines and its sections in order: (title, lines), a title repeated as printed."""

    def __init__(self, name: str, text: str):
        self.name = name
        lines = clean_lines(text)
        start = next((i for i, line in enumerate(lines) if line.strip() == "STATSPACK report for"), None)
        if start is None:
            raise ReportError(f"{name}: not a Statspack report (no 'STATSPACK report for' heading)")
        end = next((i for i in range(start, len(lines)) if lines[i].strip().startswith("End of Report")), None)
        self.head: list[str] = []
        self.sections: list[tuple[str, list[str]]] = []
        self.db_name = self.instance_name = None
        current = self.head
        for line in lines[start + 1 : end if end is not None else len(lines)]:
            found = self._title(line)
            if found is not None:
                current = []
                self.sections.append((found, current))
            current.append(line)
        if end is None:
            last = self.sections[-1][0] if self.sections else "the header"
            raise ReportError(f"{name}: the Statspack report is cut short in section {last!r} (no 'End of Report')")

    def _title(self, line: str) -> str | None:
        m = TITLE.match(line)
        if m:
            if self.db_name is None:
                self.db_name, self.instance_name = m.group(2), m.group(3)
            return m.group(1).strip()
        m = ELAPSED_TITLE.match(line)
        if m:
            if self.db_name is None:
                self.db_name, self.instance_name = m.group(1), m.group(2)
            return "SQL ordered by Elapsed time"
        return next((s for s in SUMMARY if line.startswith(s)), None)

    def get(self, title: str, nth: int = 0) -> list[str] | None:
        found = [lines for t, lines in self.sections if t == title]
        return found[nth] if len(found) > nth else None


def _rule_index(lines: list[str]) -> int | None:
    return next((i for i, line in enumerate(lines) if is_spec(line)), None)


def table(lines: list[str] | None, names: list[str], wrapped: tuple[int, ...] = (), cuts: bool = True) -> Table | None:
    """A section's rows cut at its rule's runs, as a Table of the given column names; a line whose other cells are
    blank carries on the texts of the `wrapped` columns of the row above."""
    if lines is None:
        return None
    i = _rule_index(lines)
    if i is None:
        return Table(names, [])
    starts = [m.start() for m in re.finditer(r"-+", lines[i])]
    widths = [m.end() - m.start() for m in re.finditer(r"-+", lines[i])]
    t = Table(names[: len(starts)], [], widths if cuts else None)
    for line in lines[i + 1 :]:
        if is_end_marker(line):
            break
        if not line.strip():
            continue
        row = cut(line, starts)
        others = [c for k, c in enumerate(row) if k not in wrapped]
        if t.rows and wrapped and not any(others):
            for k in wrapped:
                t.rows[-1][k] += row[k]
            continue
        t.rows.append(row)
    return t


def _small(head: list[str], must: str) -> list[str] | None:
    """The row under a header table whose heading line starts with `must`, cut at its rule's runs."""
    for i, line in enumerate(head):
        if line.startswith(must) and i + 2 < len(head):
            return cut(head[i + 2], runs(head[i + 1]))
    return None


def _sql(rep: StatspackText, reader: Reader) -> list[Sql] | None:
    """The five SQL sections: each statement's figures line (its last cell the hash value), then its module and text
    up to the blank line closing it."""
    found: dict[str, Sql] = {}
    printed = False
    for kind, fields in SQL_COLUMNS.items():
        lines = rep.get(f"SQL ordered by {kind}")
        if lines is None:
            continue
        printed = True
        i = _rule_index(lines)
        if i is None:
            continue
        starts = runs(lines[i])
        current: Sql | None = None
        text: list[str] = []
        for line in [*lines[i + 1 :], ""]:
            if is_end_marker(line):
                line = ""
            cells = cut(line, starts)
            if current is None:
                if cells[-1].isdigit() and numbers.number(cells[0]) is not None:
                    current = found.setdefault(cells[-1], Sql(cells[-1]))
                    for name, cell in zip(fields, cells, strict=False):
                        if name is None or getattr(current, name) is not None:
                            continue
                        value = reader.num(cell, f"SQL {cells[-1]}")
                        if value is not None and name not in ("cpu", "elapsed"):
                            value = round(value)
                        setattr(current, name, value)
                    text = []
                continue
            if not line.strip():
                if text and current.text is None:
                    current.text = "".join(text)
                current = None
                continue
            if line.startswith("Module: ") and not text and current.module is None:
                current.module = line[8:].strip()
            elif not line.startswith("Module: ") or text:
                text.append(line)
    return list(found.values()) if printed else None


def parse(name: str, text: str, known: KnownNames | None = None) -> Report:
    """A Statspack text report into a Report."""
    rep = StatspackText(name, text)
    db = _small(rep.head, "Database")
    host = _small(rep.head, "Host")
    if db is None or len(db) < 7:
        raise ReportError(f"{name}: no header (the Database / DB Id table) before the first section")
    snaps, minutes = snap_lines(name, rep.head, SNAP, MINUTES)
    seps = numbers.detect(list(minutes.values()))
    notes: list[str] = []
    reader = Reader(seps, notes)
    try:
        begin_time, end_time = parse_time(snaps["Begin"][1], True), parse_time(snaps["End"][1], True)
        startup = parse_time(db[4], False) if db[4] else None
    except (ValueError, KeyError) as e:
        raise ReportError(f"{name}: the header's snapshot times cannot be read ({e})") from None
    lp = rep.get("Load Profile")
    if lp is None:
        raise ReportError(f"{name}: no Load Profile section")
    number = numbers.integer(db[3]) or 1
    host = host or [""] * 7
    instance = Instance(
        number=number,
        name=db[2] or rep.instance_name or "",
        host=host[1] or None,
        startup=startup,
        platform=host[2] or None,
        cpus=numbers.integer(host[3]),
        cores=numbers.integer(host[4]),
        sockets=numbers.integer(host[5]),
        memory_gb=numbers.number(host[6], seps),
    )
    report = Report(
        source="statspack",
        layout=LAYOUT,
        dbid=int(db[1]),
        db_name=db[0] or rep.db_name or db[2],
        release=db[5],
        rac=db[6].upper() == "YES",
        begin_snap=snaps["Begin"][0],
        end_snap=snaps["End"][0],
        begin_time=begin_time,
        end_time=end_time,
        elapsed_minutes=numbers.number(minutes["Elapsed"], seps),
        db_time_minutes=numbers.number(minutes.get("DB time"), seps),
        instances=[instance],
        data={},
        notes=notes,
    )
    report.load_profile = load_profile_lines(lp, seps)  # "DB time(s): 0.5 0.1 0.00 0.01", as AWR's
    data = InstanceData(sessions=(numbers.integer(snaps["Begin"][2]), numbers.integer(snaps["End"][2])))
    report.data[number] = data
    fill(report, data, reader, known or KnownNames.default(), sections(rep))
    if data.time_model is not None:
        data.time_model = {_full(n, TIME_MODEL, 35): v for n, v in data.time_model.items()}
    # Top 5 Timed Events are every session's waits and 'CPU used by this session', not the foreground's: apart
    top = table(rep.get("Top 5 Timed Events"), ["event", "waits", "time (s)", "avg wait (ms)", "%total call"])
    report.top_events = reader.top_events(top)[0] if top is not None else None
    _io_wait_time(rep, data, reader)
    report.sql = _sql(rep, reader)
    report.missing = [  # Statspack prints no wait classes
        m
        for m in report.missing
        if m not in ("Wait Classes", "Top events") and not (m.startswith("SQL ordered by") and report.sql is not None)
    ]
    return report


def _full(name: str, pool, width: int) -> str:
    """A name cut at `width` mapped back to the one name of `pool` it begins."""
    if len(name) < width - 1 or name in pool:
        return name
    matches = [n for n in pool if n.startswith(name)]
    return matches[0] if len(matches) == 1 else name


def _io_wait_time(rep: StatspackText, data: InstanceData, reader: Reader) -> None:
    """sprepins.sql's Avg Tm(ms) is the wait time over the requests (reads and writes), not over the waits."""
    if not data.io_functions:
        return
    t = _io_table(rep)
    for row in t.rows if t else ():
        f = next((v for k, v in data.io_functions.items() if k.startswith(row[0])), None)
        avg = reader.num(row[8] if len(row) > 8 else None)
        if f is not None and avg is not None:
            f.wait_time = avg / 1000 * ((f.read_reqs or 0) + (f.write_reqs or 0))


def _io_table(rep: StatspackText) -> Table | None:
    names = ["function", "reads data", "reads reqs per sec", "reads data per sec", "writes data",
             "writes reqs per sec", "writes data per sec", "waits count", "avg tm(ms)"]  # fmt: skip
    return table(rep.get("IO Stat by Function - summary"), names)


def sections(rep: StatspackText) -> Sections:
    """The tables fill() reads, each named so its reader finds its columns."""
    sec = Sections()
    sec.time_model = table(rep.get("Time Model System Stats"), ["statistic", "time (s)", "% db time"])
    events = ["event", "waits", "%time -outs", "total wait time (s)", "avg wait (ms)", "waits /txn", "% total"]
    sec.fg = table(rep.get("Foreground Wait Events"), events)
    sec.bg = table(rep.get("Background Wait Events"), events)
    hist = rep.get("Wait Event Histogram")
    if hist is not None:
        buckets = ["<1ms", "<2ms", "<4ms", "<8ms", "<16ms", "<32ms", "<=1s", ">1s"]
        sec.histograms = [("Wait Event Histogram", table(hist, ["event", "waits", *buckets], (0,), cuts=False))]
    stats = table(rep.get("Instance Activity Stats"), ["statistic", "total", "per second", "per trans"])
    if stats is not None:
        sec.sysstat = [("Instance Activity Stats", stats)]
    sec.osstat = table(rep.get("OS Statistics"), ["statistic", "value"])
    sec.io_functions = _io_table(rep)
    params = table(rep.get("init.ora Parameters"), ["parameter name", "begin value", "end value"], (1, 2))
    if params is not None:
        sec.parameters = [params]
    for label, stat in SEGMENTS.items():
        names = ["owner", "tablespace", "object name", "subobject name", "obj. type", stat, "% total"]
        t = table(rep.get(f"Segments by {label}"), names)
        if t is not None:
            sec.segments.append((stat, t))
    return sec
