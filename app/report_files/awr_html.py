"""AWR's HTML layout (DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_HTML, awrrpt.sql's html choice), 11.2 to 19c and later
(docs/report-formats.md).

Each table is told by its `summary` attribute ("This table displays load profile") and the heading before it (an
<h3>, or the summary part's plain text "Load Profile"); its columns are the last row of <th> cells. Read with the
standard library's html.parser, text only: the report's markup is never rendered, and SQL text is unescaped data."""

from html.parser import HTMLParser

from app.report_files import numbers
from app.report_files.awr_common import (
    PARAMETER_TITLES,
    SEGMENT_STATS,
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
from app.report_files.awr_text import parse_time
from app.report_files.model import InstanceData, Report, ReportError

SQL_SUMMARIES = {
    "top sql by elapsed time": "elapsed time",
    "top sql by cpu time": "cpu time",
    "top sql by user i/o time": "user i/o wait time",
    "top sql by buffer gets": "gets",
    "top sql by physical reads": "reads",
    "top sql by number of executions": "executions",
    "top sql by number of parse calls": "parse calls",
}


class _Tables(HTMLParser):
    """The document's tables: for each, its summary, the heading and the plain text before it, its rows of cells
    (with whether a row is all <th>)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self.depth = 0
        self.current: dict | None = None
        self.row: list[str] | None = None
        self.row_th = True
        self.cell: list[str] | None = None
        self.in_heading = False
        self.heading_text: list[str] = []
        self.last_heading = ""
        self.last_text = ""
        self.closed = False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                summary = dict(attrs).get("summary") or ""
                self.current = {
                    "summary": heading(summary),
                    "heading": self.last_heading,
                    "text": self.last_text,
                    "rows": [],
                }
        elif self.current is not None and self.depth == 1:
            if tag == "tr":
                self.row, self.row_th = [], True
            elif tag in ("td", "th") and self.row is not None:
                self.cell = []
                if tag == "td":
                    self.row_th = False
            elif tag == "br" and self.cell is not None:
                self.cell.append("\n")
        elif tag in ("h1", "h2", "h3", "h4"):
            self.in_heading, self.heading_text = True, []

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth -= 1
            if self.depth == 0 and self.current is not None:
                self.tables.append(self.current)
                self.current = None
                self.last_text = ""
        elif self.current is not None and self.depth == 1:
            if tag in ("td", "th") and self.cell is not None and self.row is not None:
                self.row.append("".join(self.cell).strip())
                self.cell = None
            elif tag == "tr" and self.row is not None:
                if self.row:
                    self.current["rows"].append((self.row, self.row_th))
                self.row = None
        elif tag in ("h1", "h2", "h3", "h4") and self.in_heading:
            self.in_heading = False
            self.last_heading = " ".join("".join(self.heading_text).split())
            self.last_text = self.last_heading
        elif tag == "html":
            self.closed = True

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        elif self.in_heading:
            self.heading_text.append(data)
        elif self.current is None and data.strip():
            self.last_text = " ".join(data.split())


def _table(raw: dict) -> Table:
    columns: list[str] = []
    rows = []
    for cells, is_th in raw["rows"]:
        if is_th:
            columns = [heading(c) for c in cells]
        else:
            rows.append(cells)
    return Table(columns, rows)


def _sql_table(raw: dict) -> Table:
    t = _table(raw)
    module_i, pdb_i, text_i = t.col("sql module"), t.col("pdb name"), t.col("sql text")
    for row in t.rows:
        extra = {}
        for key, i in (("module", module_i), ("container", pdb_i), ("text", text_i)):
            value = (t.cell(row, i) or "").strip()
            if value and value != "**Not Available**":
                extra[key] = value
        t.extras.append(extra)
    return t


def _kind(raw: dict) -> tuple[str, str | None]:
    """What a table holds, from its summary and the heading before it."""
    s, h = raw["summary"], raw["heading"].lower()
    text = raw["text"].lower()
    title = h if h else text
    if "database instance information" in s:
        return "db", None
    if "instance information" in s:
        return "instance", None
    if "host information" in s:
        return "host", None
    if "snapshot information" in s:
        return "snap", None
    if "load profile" in s:
        return "load_profile", None
    if "top 10 wait events" in s or "top 5" in s or text.startswith(("top 10 foreground", "top 5 timed")):
        return "top", None
    if "wait class statistics ordered by total wait time" in s:
        return "wait_classes", None
    if "foreground wait class" in s:
        return "fg_wait_class", None
    if "time model statistics" in s:
        return "time_model", None
    if "foreground wait events" in s:
        return "fg", None
    if "background wait events" in s:
        return "bg", None
    if title.startswith("wait event histogram"):
        return "histogram", raw["heading"] or raw["text"]
    if "text of the sql" in s:
        return "sql_text", None
    for key, kind in SQL_SUMMARIES.items():
        if key in s:
            return "sql", kind
    if title.startswith("sql ordered by "):
        kind = title[len("sql ordered by ") :].strip()
        return ("sql", kind) if kind in SQL_SECTIONS else ("other", None)
    if "key instance activity" in s:
        return "sysstat", "Key Instance Activity Stats"
    if "instance activity statistics" in s and "absolute" not in s and "thread" not in s:
        return "sysstat", "Instance Activity Stats"
    if "io statistics for different functions" in s or title == "iostat by function summary":
        return "io_functions", None
    if title == "operating system statistics" or ("operating system statistics" in s and "detail" not in s):
        return "osstat", None
    if title.startswith("segments by ") or "top segments by" in s:
        name = title[len("segments by ") :] if title.startswith("segments by ") else s.split("top segments by ")[1]
        name = name.split(".")[0].strip()
        return ("segments", SEGMENT_STATS[name]) if name in SEGMENT_STATS else ("other", None)
    if title in (t.lower() for t in PARAMETER_TITLES) or "init.ora" in s or "initialization parameters" in s:
        return "parameters", None
    return "other", None


def _rows_by_label(t: Table) -> dict[str, list[str]]:
    return {(row[0] or "").strip().rstrip(":").strip(): row for row in t.rows if row}


def _cells(t: Table) -> dict[str, str]:
    return dict(zip(t.columns, t.rows[0], strict=False)) if t.rows else {}


def parse(name: str, text: str, known: KnownNames | None = None) -> Report:
    """An HTML AWR report (an instance's) into a Report."""
    doc = _Tables()
    doc.feed(text)
    doc.close()
    by_kind: dict[str, list[tuple[str | None, dict]]] = {}
    for raw in doc.tables:
        kind, detail = _kind(raw)
        by_kind.setdefault(kind, []).append((detail, raw))
    if not doc.closed:
        last = doc.last_heading or "the header"
        raise ReportError(f"{name}: the report is cut short in section {last!r} (no closing </html>)")
    if "(rac)" in text[:4096].lower() and "db" not in by_kind:
        raise ReportError(f"{name}: a RAC global report in HTML: only the text one is read")

    def one(kind: str) -> Table | None:
        found = by_kind.get(kind)
        return _table(found[0][1]) if found else None

    db_t, snap_t = one("db"), one("snap")
    if db_t is None or snap_t is None or not db_t.rows:
        raise ReportError(f"{name}: no header (the database instance and snapshot tables)")
    db = _cells(db_t)
    inst = _cells(one("instance")) if one("instance") is not None else db
    host = _cells(one("host")) if one("host") is not None else {}
    snaps = _rows_by_label(snap_t)
    minutes = {k: (snaps.get(k) or [""] * 3)[2].replace("(mins)", "").strip() for k in ("Elapsed", "DB Time")}
    lp_t = one("load_profile")
    samples = [minutes["Elapsed"], minutes["DB Time"]]
    if lp_t is not None:
        samples += [row[1] for row in lp_t.rows[:4] if len(row) > 1]
    seps = numbers.detect(samples)
    notes: list[str] = []
    reader = Reader(seps, notes)
    try:
        begin, end = snaps["Begin Snap"], snaps["End Snap"]
        begin_time, end_time = parse_time(begin[2], True), parse_time(end[2], True)
        startup_text = inst.get("startup time")
        startup = parse_time(startup_text, False) if startup_text else None
    except (KeyError, IndexError, ValueError) as e:
        raise ReportError(f"{name}: the snapshot table cannot be read ({e})") from None
    if lp_t is None:
        raise ReportError(f"{name}: no Load Profile section")
    release = (db.get("release") or "").strip()
    number = numbers.integer(inst.get("inst num")) or 1
    report = Report(
        source="awr",
        layout="awr-html-11.2" if "instance" in db else "awr-html-19",
        dbid=int(numbers.number(db.get("db id")) or 0),
        db_name=(db.get("db name") or "").strip(),
        release=release,
        rac=flag(db.get("rac")),
        begin_snap=numbers.integer(begin[1]) or 0,
        end_snap=numbers.integer(end[1]) or 0,
        begin_time=begin_time,
        end_time=end_time,
        elapsed_minutes=numbers.number(minutes["Elapsed"], seps),
        db_time_minutes=numbers.number(minutes["DB Time"], seps),
        instances=[header_instance(number, inst, host, startup, seps, "memory (gb)")],
        data={},
        cdb=flag(db.get("cdb")),
        edition=(db.get("edition") or "").strip() or None,
        notes=notes,
    )
    report.load_profile = {
        row[0].strip().rstrip(":").strip(): (
            numbers.number(row[1], seps) if len(row) > 1 else None,
            numbers.number(row[2], seps) if len(row) > 2 else None,
        )
        for row in lp_t.rows
        if row and row[0].strip()
    }
    data = InstanceData(sessions=(numbers.integer(_at(begin, 3)), numbers.integer(_at(end, 3))))
    report.data[number] = data
    sec = Sections(
        top=one("top"),
        time_model=one("time_model"),
        wait_classes=one("wait_classes") or one("fg_wait_class"),
        fg=one("fg"),
        bg=one("bg"),
        osstat=one("osstat"),
        io_functions=one("io_functions"),
    )
    sec.histograms = [(detail or "", _table(raw)) for detail, raw in by_kind.get("histogram", [])]
    sec.sysstat = [(detail or "", _table(raw)) for detail, raw in by_kind.get("sysstat", [])]
    sec.parameters = [_table(raw) for _, raw in by_kind.get("parameters", [])]
    sec.sql = [(detail, _sql_table(raw)) for detail, raw in by_kind.get("sql", [])]
    sec.segments = [(detail, _table(raw)) for detail, raw in by_kind.get("segments", [])]
    texts = by_kind.get("sql_text")
    if texts:
        t = _table(texts[0][1])
        id_i, text_i = t.col("sql id"), t.col("sql text")
        sec.sql_text = {t.cell(r, id_i): t.cell(r, text_i) for r in t.rows if t.cell(r, id_i)}
    fill(report, data, reader, known or KnownNames.default(), sec)
    return report


def _at(row: list[str], i: int) -> str | None:
    return row[i] if i < len(row) else None
