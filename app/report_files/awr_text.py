"""AWR's text layout (DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT, awrrpt.sql's text choice), 11.2 to 19c and later
(docs/report-formats.md).

Sections are found by their headings ("Foreground Wait Events     DB/Inst: ORCL/orcl  Snaps: 37-38", the summary's
"Load Profile"), never by line numbers; a section cut by a page break (its heading and column headings printed
again) is read as one. A table's columns are the dashed underline's runs: each cell is the text from its run's
start to the next run's start, so an empty cell stays empty. The lines SQL*Plus adds when the report is spooled
from a query (an "OUTPUT" heading at each page, the blank line before it) are dropped first."""

import bisect
import re
from datetime import datetime

from app.report_files import numbers
from app.report_files.awr_common import (
    PARAMETER_TITLES,
    SEGMENT_STATS,
    SQL_ID,
    SQL_SECTIONS,
    KnownNames,
    Reader,
    Sections,
    Table,
    fill,
    flag,
    header_instance,
    heading,
)
from app.report_files.model import InstanceData, Report, ReportError

SUMMARY_HEADINGS = (
    "Database Summary",
    "Load Profile",
    "Top 10 Foreground Events by Total Wait Time",
    "Top 5 Timed Foreground Events",
    "Top 5 Timed Events",
    "Top Timed Events",
    "Wait Classes by Total Wait Time",
    "Host CPU",
    "Instance CPU",
    "IO Profile",
    "Memory Statistics",
    "Cache Sizes",
    "Shared Pool Statistics",
    "Instance Efficiency Percentages",
    "Top ADDM Findings",
)
NO_DATA = "No data exists for this section of the report."
MONTHS = {
    m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)
}
BANNER = re.compile(r"(DB/Inst: |\s+DB: \S+\s+Snaps?: )")
SNAP = re.compile(r"^\s*(Begin|End) Snap:\s+(\d+)\s+(\S+\s+\d\d:\d\d:\d\d)\s*(\S*)")
MINUTES = re.compile(r"^\s*(Elapsed|DB Time):\s+(\S+)\s+\(mins\)")


def clean_lines(text: str) -> list[str]:
    """The report's lines: carriage returns and form feeds removed; SQL*Plus's "OUTPUT" page headings (with the
    blank line before them and an underline after) dropped."""
    lines = text.replace("\r", "").replace("\f", "").split("\n")
    if "OUTPUT" not in lines:
        return lines
    out: list[str] = []
    skip_underline = False
    for line in lines:
        if line == "OUTPUT":
            if out and not out[-1].strip():
                out.pop()
            skip_underline = True
            continue
        if skip_underline:
            skip_underline = False
            if len(line) >= 40 and line.strip("-") == "":
                continue
        out.append(line)
    return out


def is_end_marker(line: str) -> bool:
    """The line closing a section: spaces, then one run of dashes."""
    return line[:1] == " " and len(line.strip()) >= 30 and line.strip().strip("-") == ""


def is_spec(line: str) -> bool:
    """A column underline: dashes from the first column, runs of dashes parted by spaces."""
    return line[:1] == "-" and line.strip(" -") == ""


def spans(spec: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"-+", spec)]


def cells(line: str, starts: list[int]) -> list[str]:
    """The cells of a row: each from its column's start to the next column's start."""
    out = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else None
        out.append(line[start:end].strip() if end is not None else line[start:].strip())
    return out


def column_names(header: list[str], starts: list[int]) -> list[str]:
    """Each column's heading words, stacked over the heading lines: a word belongs to the column its middle is in
    (a heading word wider than its column still names it)."""
    parts: list[list[str]] = [[] for _ in starts]
    for line in header:
        for m in re.finditer(r"\S+", line):
            middle = (m.start() + m.end() - 1) / 2
            k = max(0, bisect.bisect_right(starts, middle) - 1)
            parts[k].append(m.group())
    return [heading(" ".join(p)) for p in parts]


def header_above(lines: list[str], i: int) -> list[str]:
    """The heading lines right above line i: up to a blank, "->", "~~~" or dashed line."""
    out = []
    j = i - 1
    while j >= 0:
        s = lines[j].strip()
        if not s or s.startswith(("->", "~")) or s.strip("-") == "":
            break
        out.append(lines[j])
        j -= 1
    return out[::-1]


def table(lines: list[str], sql: bool = False) -> Table | None:
    """A section's table: the first column underline, the headings above it, the rows below it up to the closing
    line. With `sql`, rows are the lines whose SQL Id cell is an id; the lines between rows are the row's module,
    container and text."""
    spec_i = next((i for i, line in enumerate(lines) if is_spec(line)), None)
    if spec_i is None:
        return None
    runs = spans(lines[spec_i])
    starts = [a for a, _ in runs]
    t = Table(column_names(header_above(lines, spec_i), starts), [], [b - a for a, b in runs])
    id_i = t.col("sql id") if sql else None
    for line in lines[spec_i + 1 :]:
        if is_end_marker(line):
            break
        if not line.strip() or line.strip() == NO_DATA:
            continue
        row = cells(line, starts)
        if sql:
            if (
                id_i is not None
                and SQL_ID.fullmatch(row[id_i] if id_i < len(row) else "")
                and numbers.number(row[0]) is not None
            ):
                t.rows.append(row)
                t.extras.append({})
            elif t.extras:
                _sql_extra(t.extras[-1], line)
            continue
        if line.startswith("   PDB:"):
            if t.extras:
                t.extras[-1]["container"] = line.split(":", 1)[1].strip()
            continue
        t.rows.append(row)
        t.extras.append({})
    return t


def _sql_extra(extra: dict[str, str], line: str) -> None:
    if line.startswith("Module: ") and "module" not in extra and "text" not in extra:
        extra["module"] = line[8:].strip()
    elif line.strip().startswith("PDB: ") and "text" not in extra:
        extra["container"] = line.strip()[5:].strip()
    else:
        extra["text"] = extra.get("text", "") + line


def segments_table(lines: list[str]) -> Table | None:
    """A "Segments by ..." table: 11.2's one line a segment, or 12c's two (owner and tablespace under their own
    underline, then the object), with a "PDB:" line in a CDB."""
    specs = [i for i, line in enumerate(lines) if is_spec(line)]
    if not specs:
        return None
    first = specs[0]
    if len(spans(lines[first])) > 2 or len(specs) < 2:
        return table(lines)
    second = specs[1]
    owner_runs, object_runs = spans(lines[first]), spans(lines[second])
    owner_starts, object_starts = [a for a, _ in owner_runs], [a for a, _ in object_runs]
    columns = ["owner", "tablespace name", *column_names(header_above(lines, second), object_starts)]
    cut = [b - a for a, b in owner_runs] + [b - a for a, b in object_runs]
    t = Table(columns, [], cut)
    pending = None
    for line in lines[second + 1 :]:
        if is_end_marker(line):
            break
        if not line.strip():
            continue
        if line.strip().startswith("PDB:"):
            if t.extras:
                t.extras[-1]["container"] = line.split(":", 1)[1].strip()
            continue
        row = cells(line, object_starts)
        if pending is not None and numbers.number(row[-2] if len(row) > 1 else None) is not None:
            t.rows.append(pending + row)
            t.extras.append({})
            pending = None
        else:
            pending = cells(line, owner_starts)
    return t


class TextReport:
    """One text report's sections, by heading."""

    def __init__(self, name: str, text: str):
        self.name = name
        lines = clean_lines(text)
        start = next((i for i, line in enumerate(lines) if "WORKLOAD REPOSITORY" in line), None)
        if start is None:
            raise ReportError(f"{name}: not an AWR report (no WORKLOAD REPOSITORY heading)")
        self.title = lines[start].strip()
        self.sections: dict[str, list[str]] = {}
        self.order: list[str] = []
        end = next((i for i in range(start, len(lines)) if lines[i].strip() == "End of Report"), None)
        self._split(lines, start, end if end is not None else len(lines))
        if end is None:
            last = self.order[-1] if self.order else "the header"
            raise ReportError(f"{name}: the report is cut short in section {last!r} (no 'End of Report')")
        self.lines = lines[start:end]

    def _split(self, lines: list[str], start: int, end: int) -> None:
        self.top: list[str] = []
        current: list[str] = self.top
        title = None
        in_summary = True
        self._skip = False
        for i in range(start + 1, end):
            line = lines[i]
            found = None
            banner = BANNER.search(line) if line[:1] not in (" ", "") and "Snap" in line else None
            if banner:
                found = line[: banner.start()].strip()
                in_summary = False
            elif in_summary and line[:1] not in ("", "~", "-"):
                s = line.lstrip()
                found = next((h for h in SUMMARY_HEADINGS if s.startswith(h)), None)
                if found is not None and not line.startswith(found) and not line.startswith(" " + found):
                    found = None
            if found:
                if found == title:
                    # the section goes on after a page break: skip its headings again, up to the underline
                    self._skip = True
                else:
                    title = found
                    if title not in self.sections:
                        self.sections[title] = []
                        self.order.append(title)
                    self._skip = False
                current = self.sections[title]
                if not self._skip:
                    current.append(line)
                continue
            if self._skip:
                if is_spec(line):
                    self._skip = False
                continue
            current.append(line)

    def get(self, title: str) -> list[str] | None:
        return self.sections.get(title)

    def find(self, prefix: str) -> list[tuple[str, list[str]]]:
        return [(t, self.sections[t]) for t in self.order if t.startswith(prefix)]


def _small_table(lines: list[str], must: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of the header's small table whose headings hold `must`."""
    for i, line in enumerate(lines):
        if all(m in line for m in must) and i + 1 < len(lines) and is_spec(lines[i + 1]):
            starts = [a for a, _ in spans(lines[i + 1])]
            names = column_names(header_above(lines, i + 1), starts)
            rows = []
            for row_line in lines[i + 2 :]:
                if not row_line.strip() or is_spec(row_line):
                    break
                rows.append(dict(zip(names, cells(row_line, starts), strict=True)))
            return rows
    return []


def parse_time(text: str, fmt_seconds: bool) -> datetime:
    """A database-local time as AWR prints it ("10-Jun-26 10:00:07", "08-Nov-17 16:11"), in English or another
    language's month abbreviation where the day and year say which month by position is impossible: English
    only, else ReportError by the caller."""
    day, mon, rest = text.strip().split("-", 2)
    month = MONTHS.get(mon[:3].lower())
    if month is None:
        raise ValueError(f"month {mon!r}")
    year, _, clock = rest.partition(" ")
    parts = [int(p) for p in clock.split(":")]
    y = int(year)
    y += 2000 if y < 100 else 0
    return datetime(y, month, int(day), parts[0], parts[1], parts[2] if fmt_seconds and len(parts) > 2 else 0)


def snap_lines(name: str, lines: list[str], snap: re.Pattern, minutes: re.Pattern) -> tuple[dict, dict]:
    """A header's Begin Snap and End Snap lines by `snap` ("Begin" -> (snapshot, time, sessions)) and its minutes by
    `minutes` ("Elapsed", "DB Time" -> the figure as printed); a ReportError naming the file without them."""
    snaps, mins = {}, {}
    for line in lines:
        m = snap.match(line)
        if m:
            snaps[m.group(1)] = (int(m.group(2)), m.group(3), m.group(4))
        m = minutes.match(line)
        if m:
            mins[m.group(1)] = m.group(2)
    if "Begin" not in snaps or "End" not in snaps or "Elapsed" not in mins:
        raise ReportError(f"{name}: the header has no Begin Snap, End Snap or Elapsed line")
    return snaps, mins


def header(rep: TextReport) -> tuple[dict, list[str]]:
    """DB Name, DB Id, Release, RAC, CDB, instance, host, snapshots, sessions, Elapsed and DB Time; raises
    ReportError when the report has none."""
    top = rep.top
    db = _small_table(top, ("DB Name", "DB Id"))
    if not db:
        raise ReportError(f"{rep.name}: no header (the DB Name / DB Id table) before the first section")
    db = db[0]
    inst = _small_table(top, ("Instance", "Inst Num")) or [db]
    host = _small_table(top, ("Host Name", "Platform"))
    container = _small_table(top, ("Container DB Id",))
    snaps, minutes = snap_lines(rep.name, top, SNAP, MINUTES)
    return {
        "db": db,
        "inst": inst[0],
        "host": host[0] if host else {},
        "container": container[0] if container else None,
        "snaps": snaps,
        "minutes": minutes,
    }, list(minutes.values())


def load_profile_lines(lines: list[str], seps: numbers.Separators) -> dict[str, tuple[float | None, float | None]]:
    out = {}
    for line in lines[1:]:
        if not line.strip():
            if out:
                break
            continue
        if ":" not in line or line.lstrip().startswith("~"):
            continue
        label, _, rest = line.rpartition(":")
        values = rest.split()
        if not label.strip() or not values:
            continue
        first = numbers.number(values[0], seps)
        second = numbers.number(values[1], seps) if len(values) > 1 else None
        out[label.strip()] = (first, second)
    return out


def parse(rep: TextReport, known: KnownNames | None = None) -> Report:
    """An instance's text AWR report (its sections split by TextReport) into a Report."""
    name = rep.name
    h, samples = header(rep)
    lp_lines = rep.get("Load Profile")
    if lp_lines:
        samples += [v for line in lp_lines[2:6] for v in line.rpartition(":")[2].split()[:1]]
    seps = numbers.detect(samples)
    notes: list[str] = []
    reader = Reader(seps, notes)
    db, inst, host, snaps = h["db"], h["inst"], h["host"], h["snaps"]
    release = (db.get("release") or "").strip()
    try:
        begin_time = parse_time(snaps["Begin"][1], True)
        end_time = parse_time(snaps["End"][1], True)
        startup = parse_time(inst["startup time"], False) if inst.get("startup time") else None
    except (ValueError, KeyError) as e:
        raise ReportError(f"{name}: the header's snapshot times cannot be read ({e})") from None
    if lp_lines is None:
        raise ReportError(f"{name}: no Load Profile section")
    number = int(numbers.number(inst.get("inst num") or "1") or 1)
    instance = header_instance(number, inst, host, startup, seps, "memory(gb)")
    sessions = (numbers.integer(snaps["Begin"][2]), numbers.integer(snaps["End"][2]))
    report = Report(
        source="awr",
        layout="awr-text-11.2" if "instance" in db else "awr-text-19",
        dbid=int(db["db id"]),
        db_name=db["db name"].strip(),
        release=release,
        rac=flag(db.get("rac")),
        begin_snap=snaps["Begin"][0],
        end_snap=snaps["End"][0],
        begin_time=begin_time,
        end_time=end_time,
        elapsed_minutes=numbers.number(h["minutes"]["Elapsed"], seps),
        db_time_minutes=numbers.number(h["minutes"].get("DB Time"), seps),
        instances=[instance],
        data={},
        cdb=flag(db.get("cdb")) or h["container"] is not None,
        edition=(db.get("edition") or "").strip() or None,
        notes=notes,
    )
    report.load_profile = load_profile_lines(lp_lines, seps)
    data = InstanceData(sessions=sessions)
    report.data[number] = data
    fill(report, data, reader, known or KnownNames.default(), sections(rep))
    _join_short_ids(report, notes)
    return report


def _section_table(rep: TextReport, title: str, sql: bool = False) -> Table | None:
    lines = rep.get(title)
    if lines is None:
        return None
    return table(lines, sql) or Table([], [])


def sections(rep: TextReport) -> Sections:
    """The tables of an instance report's text, by what they hold."""
    sec = Sections()
    top_title = next((t for t in rep.order if t in SUMMARY_HEADINGS and t.startswith("Top") and "Events" in t), None)
    if top_title is not None:
        sec.top = _section_table(rep, top_title)
    sec.time_model = _section_table(rep, "Time Model Statistics")
    sec.wait_classes = _section_table(rep, "Wait Classes by Total Wait Time") or _section_table(
        rep, "Foreground Wait Class"
    )
    sec.fg = _section_table(rep, "Foreground Wait Events")
    sec.bg = _section_table(rep, "Background Wait Events")
    sec.histograms = [(title, table(lines) or Table([], [])) for title, lines in rep.find("Wait Event Histogram")]
    for title in ("Key Instance Activity Stats", "Other Instance Activity Stats", "Instance Activity Stats"):
        t = _section_table(rep, title)
        if t is not None:
            sec.sysstat.append((title, t))
    sec.osstat = _section_table(rep, "Operating System Statistics")
    sec.io_functions = _section_table(rep, "IOStat by Function summary")
    for title in PARAMETER_TITLES:
        t = _section_table(rep, title)
        if t is not None:
            sec.parameters.append(t)
    for title in rep.order:
        if title.startswith("SQL ordered by "):
            kind = title[len("SQL ordered by ") :].strip().lower()
            if kind in SQL_SECTIONS:
                sec.sql.append((kind, _section_table(rep, title, sql=True)))
        elif title.startswith("Segments by "):
            stat = SEGMENT_STATS.get(title[len("Segments by ") :].strip().lower())
            if stat is not None:
                sec.segments.append((stat, segments_table(rep.get(title)) or Table([], [])))
    return sec


def _join_short_ids(report: Report, notes: list[str]) -> None:
    """11.2's "SQL ordered by Gets" and "Executions" print the SQL Id in 11 characters: merge such a statement
    into the one full id that starts with it."""
    if not report.sql:
        return
    sqls = {s.sql_id: s for s in report.sql}
    full = [k for k in sqls if len(k) == 13]
    for short in [k for k in sqls if len(k) < 13]:
        matches = [k for k in full if k.startswith(short)]
        if len(matches) != 1:
            notes.append(f"SQL Id {short!r} is cut short and no single full id starts with it: kept as printed")
            continue
        s, target = sqls.pop(short), sqls[matches[0]]
        for f in (
            "elapsed",
            "cpu",
            "io_wait",
            "executions",
            "buffer_gets",
            "disk_reads",
            "rows",
            "module",
            "container",
            "text",
        ):
            if getattr(target, f) is None:
                setattr(target, f, getattr(s, f))
    report.sql = list(sqls.values())
