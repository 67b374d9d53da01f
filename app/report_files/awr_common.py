"""What AWR's text and HTML layouts share (docs/report-formats.md): the header's instance, and once a section is a
table, the columns found by their headings, each row's cells read into the model's units, and the names a text column
cut short mapped back to Oracle's full names.

A `Table` is a section's header (its column headings, lower-cased) and rows (the cells as printed); the text
layout cuts them by the dashed underline's widths, the HTML one takes the <th> and <td> cells. The readers below
take a Table, so both layouts fill the model the same way."""

import math
import re
from dataclasses import dataclass, field

from app.report_files import numbers, oracle_names
from app.report_files.model import Event, Instance, InstanceData, IoFunction, Report, Segment, Sql

SQL_ID = re.compile(r"[0-9a-z]{11,13}")
WAIT_CLASSES = (
    "Administrative",
    "Application",
    "Cluster",
    "Commit",
    "Concurrency",
    "Configuration",
    "Idle",
    "Network",
    "Other",
    "Queueing",
    "Scheduler",
    "System I/O",
    "User I/O",
)
# "Segments by ..." -> DBA_HIST_SEG_STAT's *_DELTA column (docs/awr-rules.md §25)
SEGMENT_STATS = {
    "logical reads": "logical_reads",
    "physical reads": "physical_reads",
    "physical read requests": "physical_read_requests",
    "optimized reads": "optimized_physical_reads",
    "direct physical reads": "physical_reads_direct",
    "physical writes": "physical_writes",
    "physical write requests": "physical_write_requests",
    "direct physical writes": "physical_writes_direct",
    "table scans": "table_scans",
    "db blocks changes": "db_block_changes",
    "row lock waits": "row_lock_waits",
    "itl waits": "itl_waits",
    "buffer busy waits": "buffer_busy_waits",
    "global cache buffer busy": "gc_buffer_busy",
    "cr blocks received": "gc_cr_blocks_received",
    "current blocks received": "gc_cu_blocks_received",
    "global cache remote grants": "gc_remote_grants",
}
# "SQL ordered by ..." -> the Sql field its first column is
SQL_SECTIONS = {
    "elapsed time": "elapsed",
    "cpu time": "cpu",
    "user i/o wait time": "io_wait",
    "gets": "buffer_gets",
    "reads": "disk_reads",
    "executions": "executions",
    "parse calls": None,
    "physical reads (unoptimized)": None,
    "sharable memory": None,
    "version count": None,
    "cluster wait time": None,
}


@dataclass
class Table:
    """A section's columns (headings, lower-cased, spaces collapsed) and rows (cells as printed). `cut` holds, per
    column, the width at which the text layout cut its cells (None: never cut, as in HTML)."""

    columns: list[str]
    rows: list[list[str]]
    cut: list[int | None] | None = None
    extras: list[dict[str, str]] = field(default_factory=list)  # per row: module, container, text (SQL sections)

    def col(self, *words: str, avoid: tuple[str, ...] = ()) -> int | None:
        """The first column whose heading holds every word and none of `avoid`."""
        for i, name in enumerate(self.columns):
            if all(w in name for w in words) and not any(a in name for a in avoid):
                return i
        return None

    def cell(self, row: list[str], index: int | None) -> str | None:
        if index is None or index >= len(row):
            return None
        return row[index]

    def may_be_cut(self, index: int, text: str) -> bool:
        """Whether a name in column `index` fills the width the text layout cuts at, or all but its last character
        (a cut that ends on a space: "shared hash latch upgrades - no"), so it may be cut short."""
        if not self.cut or index >= len(self.cut) or self.cut[index] is None:
            return False
        return len(text) >= self.cut[index] - 1


def heading(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass
class KnownNames:
    """Oracle's full names a truncated one is mapped back to: wait events (-> their class), statistics, I/O
    functions. From a store's views (`from_store`) and from the names the report prints uncut elsewhere."""

    events: dict[str, str | None] = field(default_factory=dict)
    stats: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)

    @classmethod
    def default(cls) -> "KnownNames":
        """The names the demo store holds (oracle_names.py)."""
        return cls(dict(oracle_names.EVENTS), set(oracle_names.STATS), set(oracle_names.FUNCTIONS))

    @classmethod
    def from_store(cls, con) -> "KnownNames":
        """The distinct names of DBA_HIST_SYSTEM_EVENT (with WAIT_CLASS), DBA_HIST_SYSSTAT and
        DBA_HIST_IOSTAT_FUNCTION on a DB-API connection."""
        events = dict(con.execute("SELECT DISTINCT event_name, wait_class FROM dba_hist_system_event").fetchall())
        stats = {r[0] for r in con.execute("SELECT DISTINCT stat_name FROM dba_hist_sysstat")}
        functions = {r[0] for r in con.execute("SELECT DISTINCT function_name FROM dba_hist_iostat_function")}
        return cls(events, stats, functions)


def resolve(text: str, pool, notes: list[str], what: str) -> str:
    """The one name of `pool` that starts with the cut `text`; the text itself when none or several do (noted)."""
    if text in pool:
        return text
    matches = [n for n in pool if n.startswith(text)]
    if len(matches) == 1:
        return matches[0]
    notes.append(
        f"{what} {text!r} is cut short and "
        + ("no known name starts with it" if not matches else f"{len(matches)} known names start with it")
        + ": kept as printed"
    )
    return text


def wait_class(text: str | None) -> str | None:
    """A wait class from its printed text, cut at 8 characters in the text layout's top events ("Applicat")."""
    if not text or not text.strip():
        return None
    text = text.strip()
    matches = [c for c in WAIT_CLASSES if c.startswith(text)]
    return matches[0] if len(matches) == 1 else text


class Reader:
    """Reads Tables into the model's values, with a report's separators; what it reads with doubt goes to
    `notes`."""

    def __init__(self, seps: numbers.Separators, notes: list[str]):
        self.seps = seps
        self.notes = notes
        self.event_classes: dict[str, str | None] = {}  # from a Wait Class column beside the events

    # -- cells -----------------------------------------------------------------------------------------------------

    def num(self, text: str | None, where: str = "") -> float | None:
        if numbers.overflowed(text):
            self.notes.append(f"{where}: {text.strip()} (the figure overflowed its column): left empty")
            return None
        return numbers.number(text, self.seps)

    def int_(self, text: str | None, where: str = "") -> int | None:
        value = self.num(text, where)
        return None if value is None else round(value)

    def seconds(self, text: str | None, bare: float = 1.0, where: str = "") -> float | None:
        if numbers.overflowed(text):
            self.notes.append(f"{where}: {text.strip()} (the figure overflowed its column): left empty")
            return None
        return numbers.duration(text, self.seps, bare)

    # -- sections --------------------------------------------------------------------------------------------------

    def name_values(self, t: Table, value_words: tuple[str, ...], scale: float = 1.0, what: str = "") -> dict:
        """A name column and one value column: {name: value}. Names that may be cut are returned in `cut_names`."""
        name_i, value_i = 0, t.col(*value_words)
        out: dict[str, float] = {}
        for row in t.rows:
            name = (t.cell(row, name_i) or "").strip()
            if not name:
                continue
            value = self.num(t.cell(row, value_i), f"{what} {name}")
            if value is not None:
                out[name] = value * scale
        return out

    def time_model(self, t: Table) -> dict[str, float]:
        return self.name_values(t, ("time",), what="Time Model Statistics")

    def osstat(self, t: Table) -> dict[str, float]:
        return self.name_values(t, ("value",), what="Operating System Statistics")

    def sysstat(self, t: Table) -> tuple[dict[str, float], set[str]]:
        """Instance Activity Stats' Total column, and the names that may be cut short."""
        total_i = t.col("total")
        out: dict[str, float] = {}
        maybe_cut: set[str] = set()
        for row in t.rows:
            name = (t.cell(row, 0) or "").strip()
            if not name:
                continue
            value = self.num(t.cell(row, total_i), f"Instance Activity Stats {name}")
            if value is None:
                continue
            if t.may_be_cut(0, name):
                maybe_cut.add(name)
                if name in out:
                    # two statistics cut to the same text: neither can be told apart
                    self.notes.append(f"statistic {name!r} is cut short and printed more than once: left out")
                    out[name] = math.nan
                    continue
            out[name] = value
        return {k: v for k, v in out.items() if not math.isnan(v)}, maybe_cut

    def wait_classes(self, t: Table) -> dict[str, tuple[int | None, float]]:
        waits_i = t.col("waits")
        time_i = t.col("total wait time") or t.col("time")
        out = {}
        for row in t.rows:
            name = (t.cell(row, 0) or "").strip()
            seconds = self.num(t.cell(row, time_i), f"wait class {name}")
            if name and seconds is not None:
                out[name] = (self.int_(t.cell(row, waits_i)), seconds)
        return out

    def top_events(self, t: Table) -> tuple[list[tuple[str, float]], dict[str, str | None], set[str]]:
        """Top events as printed: (event or "DB CPU", seconds), each event's class, and names maybe cut."""
        event_i = t.col("event")
        time_i = t.col("time", avoid=("avg", "%", "db time"))
        class_i = t.col("class")
        top, classes, cut = [], {}, set()
        for row in t.rows:
            name = (t.cell(row, event_i) or "").strip()
            seconds = self.num(t.cell(row, time_i), f"top event {name}")
            if not name or seconds is None:
                continue
            top.append((name, seconds))
            if name != "DB CPU":
                classes[name] = wait_class(t.cell(row, class_i))
                if t.may_be_cut(event_i, name):
                    cut.add(name)
        return top, classes, cut

    def events(self, t: Table) -> tuple[dict[str, tuple[int | None, int | None, float | None]], set[str]]:
        """Foreground or Background Wait Events: {event: (waits, timeouts, seconds)}, and names maybe cut.

        Seconds are the better of the two figures printed: the total (to its printed digit) or waits x the
        average wait (to the average's printed digit times the waits), whichever rounds less."""
        event_i = t.col("event")
        waits_i = t.col("waits", avoid=("/txn", "%", "avg"))
        outs_i = t.col("-outs") or t.col("timeouts")
        total_i = t.col("total wait time") or t.col("time (s)", avoid=("avg",))
        avg_i = t.col("avg wait")
        class_i = t.col("wait class")
        bare_avg = 1e-3 if avg_i is not None and "(ms)" in t.columns[avg_i] else 1.0
        out, cut = {}, set()
        for row in t.rows:
            name = (t.cell(row, event_i) or "").strip()
            if not name:
                continue
            if class_i is not None:
                self.event_classes[name] = wait_class(t.cell(row, class_i))
            where = f"wait event {name}"
            waits_text = t.cell(row, waits_i)
            waits = self.int_(waits_text, where)
            pct = self.num(t.cell(row, outs_i), where)
            timeouts = None if waits is None else round((pct or 0.0) * waits / 100)
            total_text, avg_text = t.cell(row, total_i), t.cell(row, avg_i)
            total = self.num(total_text, where)
            avg = self.seconds(avg_text, bare_avg, where)
            seconds = total
            if avg is not None and waits is not None:
                by_avg = avg * waits
                avg_res = numbers.resolution(avg_text, self.seps) * (1.0 if "s" in avg_text else bare_avg)
                by_avg_res = avg_res * waits + avg * numbers.resolution(waits_text, self.seps)
                if total is None or by_avg_res < numbers.resolution(total_text, self.seps):
                    seconds = by_avg
            if name in out and t.may_be_cut(event_i, name):
                self.notes.append(f"wait event {name!r} is cut short and printed more than once: left out")
                out[name] = None
                continue
            out[name] = (waits, timeouts, seconds)
            if t.may_be_cut(event_i, name):
                cut.add(name)
        return {k: v for k, v in out.items() if v is not None}, cut

    def io_functions(self, t: Table, elapsed: float | None) -> tuple[dict[str, IoFunction], set[str]]:
        """IOStat by Function summary: bytes read and written, requests (the per-second figure x the elapsed
        seconds: the report prints no total), waits and their time (count x average)."""
        data_i = [i for i, c in enumerate(t.columns) if "data" in c and "per sec" not in c]
        reqs_i = [i for i, c in enumerate(t.columns) if "reqs" in c]
        count_i = t.col("count")
        avg_i = t.col("avg")
        bare_avg = 1e-3 if avg_i is not None and "ms" in t.columns[avg_i] else 1.0
        out, cut = {}, set()
        for row in t.rows:
            name = (t.cell(row, 0) or "").strip()
            if not name or name.upper().startswith("TOTAL"):
                continue
            f = IoFunction()
            if len(data_i) >= 2:
                f.read_bytes = numbers.size(t.cell(row, data_i[0]), self.seps)
                f.write_bytes = numbers.size(t.cell(row, data_i[1]), self.seps)
            if len(reqs_i) >= 2 and elapsed:
                rr, wr = (self.num(t.cell(row, i)) for i in reqs_i[:2])
                f.read_reqs = None if rr is None else rr * elapsed
                f.write_reqs = None if wr is None else wr * elapsed
            f.waits = self.num(t.cell(row, count_i), f"IOStat {name}")
            avg = self.seconds(t.cell(row, avg_i), bare_avg, f"IOStat {name}")
            f.wait_time = (f.waits or 0.0) * avg if avg is not None else (0.0 if f.waits == 0 else None)
            out[name] = f
            if t.may_be_cut(0, name):
                cut.add(name)
        return out, cut

    def parameters(self, t: Table) -> dict[str, str]:
        """init.ora Parameters: the end value where printed, else the begin one; a multi-valued parameter's
        continuation rows (no name) join its value with ", "."""
        begin_i = t.col("begin")
        end_i = t.col("end")
        out: dict[str, str] = {}
        last = None
        for row in t.rows:
            name = (t.cell(row, 0) or "").strip()
            begin = (t.cell(row, begin_i) or "").strip()
            end = (t.cell(row, end_i) or "").strip()
            value = end or begin
            if name:
                out[name] = value
                last = name
            elif last and value:
                out[last] = f"{out[last]}, {value}" if out[last] else value
        return out

    def sql(self, t: Table, field_name: str | None, acc: dict[str, Sql]) -> None:
        """One "SQL ordered by ..." section into `acc`: each statement's columns this section prints."""
        id_i = t.col("sql id")
        first_i = 0
        columns = {
            "executions": t.col("executions", avoid=("per", "rows")),
            "elapsed": t.col("elapsed", avoid=("per",)),
            "rows": t.col("rows processed"),
        }
        for n, row in enumerate(t.rows):
            sql_id = (t.cell(row, id_i) or "").strip()
            if not SQL_ID.fullmatch(sql_id):
                continue
            s = acc.get(sql_id) or Sql(sql_id)
            acc[sql_id] = s
            where = f"SQL {sql_id}"
            if field_name == "elapsed":
                s.elapsed = _first(s.elapsed, self.num(t.cell(row, first_i), where))
            elif field_name in ("cpu", "io_wait"):
                setattr(s, field_name, _first(getattr(s, field_name), self.num(t.cell(row, first_i), where)))
            elif field_name in ("buffer_gets", "disk_reads"):
                setattr(s, field_name, _first(getattr(s, field_name), self.int_(t.cell(row, first_i), where)))
            if columns["executions"] is not None:
                s.executions = _first(s.executions, self.int_(t.cell(row, columns["executions"]), where))
            if columns["elapsed"] is not None and field_name != "elapsed":
                s.elapsed = _first(s.elapsed, self.num(t.cell(row, columns["elapsed"]), where))
            if columns["rows"] is not None:
                s.rows = _first(s.rows, self.int_(t.cell(row, columns["rows"]), where))
            extra = t.extras[n] if n < len(t.extras) else {}
            for key in ("module", "container"):
                if extra.get(key) and getattr(s, key) is None:
                    setattr(s, key, extra[key])
            if extra.get("text") and s.text is None:
                s.text = extra["text"]

    def segments(self, t: Table, stat: str, acc: dict[tuple, Segment]) -> None:
        """One "Segments by ..." section into `acc`, keyed by (owner, object, subobject, type, container)."""
        owner_i = t.col("owner")
        tbs_i = t.col("tablespace")
        name_i = t.col("object name")
        sub_i = t.col("subobject")
        type_i = t.col("type")
        pdb_i = t.col("pdb") or t.col("container")
        pct_i = next((i for i, c in enumerate(t.columns) if "%" in c), len(t.columns))
        value_i = pct_i - 1
        for n, row in enumerate(t.rows):
            owner = (t.cell(row, owner_i) or "").strip()
            name = (t.cell(row, name_i) or "").strip()
            value = self.num(t.cell(row, value_i), f"segment {owner}.{name}")
            if not owner or owner.startswith("**") or value is None:
                continue
            extra = t.extras[n] if n < len(t.extras) else {}
            container = (t.cell(row, pdb_i) or "").strip() or extra.get("container") or None
            sub = (t.cell(row, sub_i) or "").strip() or None
            otype = (t.cell(row, type_i) or "").strip() or None
            key = (owner, name, sub, otype, container)
            seg = acc.get(key)
            if seg is None:
                seg = acc[key] = Segment(owner, name, sub, otype, (t.cell(row, tbs_i) or "").strip() or None)
            seg.values[stat] = value


def _first(old, new):
    return old if old is not None else new


def histogram(tables: list[tuple[str, Table]], reader: Reader) -> tuple[dict[str, dict[float, int]], set[str]]:
    """The Wait Event Histogram sections into {event: {bucket upper bound in ms: waits}}.

    The report prints each event's total waits (K/M/G for thousands and up) and the percentage of them in each
    bucket; a bucket's waits are total x percentage / 100, to the printed precision. The main table's open last
    bucket (">1s", ">=512us") is split by the detail tables ("up to 32 ms", "64 msec to 2 sec", ...) where they
    list the event: their first column is cumulative (the waits below their range) and is skipped."""
    out: dict[str, dict[float, int]] = {}
    totals: dict[str, float] = {}
    cut: set[str] = set()
    for title, t in tables:
        unit = _labels_unit(t.columns)
        buckets = [(i, _bucket_ms(c, unit)) for i, c in enumerate(t.columns)]
        buckets = [(i, b) for i, b in buckets if b is not None]
        detail = "(" in title
        total_i = t.col("waits")
        first_bound = None
        if detail and buckets:
            first_bound = buckets[0][1]
            buckets = buckets[1:]
        for row in t.rows:
            name = (t.cell(row, 0) or "").strip()
            if not name:
                continue
            if t.may_be_cut(0, name):
                cut.add(name)
            total = reader.num(t.cell(row, total_i), f"histogram {name}")
            if not detail:
                if total is None:
                    continue
                totals[name] = total
                out[name] = {b: round(total * (reader.num(t.cell(row, i)) or 0.0) / 100) for i, b in buckets}
                continue
            base = out.get(name)
            # a detail table splits the buckets above one of the event's bounds (a finer split of the lowest
            # ones, "up to 64 us", adds nothing the model keeps)
            if base is None or first_bound not in base:
                continue
            for b in [b for b in base if b > first_bound]:
                del base[b]
            for i, b in buckets:
                pct = reader.num(t.cell(row, i))
                base[b] = round(totals[name] * (pct or 0.0) / 100)
    return {k: {b: w for b, w in v.items() if w} for k, v in out.items()}, cut


def _labels_unit(columns: list[str]) -> dict[str, float]:
    """What a bare bucket figure and the letter "m" mean in a histogram table, in ms, from its other columns: where
    a column is in us or ms, a bare figure is us and "m" is ms ("<512", ">=32m"); elsewhere "m" is Oracle's
    minute of 64 x 1024 ms ("< 1m")."""
    fine = any(re.search(r"\d(us|u|ms)$", c.replace(" ", "")) for c in columns)
    return {"": 1e-3, "m": 1.0} if fine else {"": 1.0, "m": 64 * 1024.0}


_BUCKET = re.compile(r"^(<=|>=|<|>)\s*(\d+(?:/\d+)?)\s*([a-z]*)$")


def _bucket_ms(label: str, unit: dict[str, float]) -> float | None:
    """A histogram column's upper bound in ms ("<8us" 0.008, "<1ms" 1, "<=1s" 1024, "<1/8s" 128, "<128u" 0.128);
    an open last bucket (">1s", ">=512") is infinite; None for a column that is no bucket."""
    m = _BUCKET.match(label.replace(" ", "")) if label else None
    if not m:
        return None
    op, figure, suffix = m.groups()
    if op.startswith(">"):
        return math.inf
    if "/" in figure:
        a, b = figure.split("/")
        value = int(a) / int(b)
    else:
        value = float(figure)
    scale = {
        "us": 1e-3,
        "u": 1e-3,
        "ms": 1.0,
        "s": 1024.0,
        "h": 60 * 64 * 1024.0,
    }.get(suffix)
    if scale is None:
        scale = unit.get(suffix, 1.0) if suffix in ("", "m") else 1.0
    return value * scale


PARAMETER_TITLES = (
    "init.ora Parameters",
    "Parameters modified by this container",
    "Parameters modified by other containers",
)


@dataclass
class Sections:
    """An instance's tables by what they hold, whichever layout printed them; None: the file lacks the section."""

    top: Table | None = None
    time_model: Table | None = None
    wait_classes: Table | None = None
    fg: Table | None = None
    bg: Table | None = None
    histograms: list[tuple[str, Table]] = field(default_factory=list)
    sysstat: list[tuple[str, Table]] = field(default_factory=list)
    osstat: Table | None = None
    io_functions: Table | None = None
    parameters: list[Table] = field(default_factory=list)
    sql: list[tuple[str, Table]] = field(default_factory=list)  # ("elapsed time", table), ...
    sql_text: dict[str, str] | None = None  # Complete List of SQL Text
    segments: list[tuple[str, Table]] = field(default_factory=list)  # ("logical_reads", table), ...


def flag(text: str | None) -> bool:
    """A header's YES / NO column (RAC, CDB)."""
    return (text or "").strip().upper() == "YES"


def header_instance(number: int, inst: dict, host: dict, startup, seps: numbers.Separators, memory: str) -> Instance:
    """The instance of an instance report's header, from its instance and host tables (cells by lower-cased heading):
    `memory` is the heading of the host's memory in GB ("memory(gb)" in text, "memory (gb)" in HTML)."""
    return Instance(
        number=number,
        name=(inst.get("instance") or "").strip(),
        host=(host.get("host name") or "").strip() or None,
        startup=startup,
        platform=(host.get("platform") or "").strip() or None,
        cpus=numbers.integer(host.get("cpus")),
        cores=numbers.integer(host.get("cores")),
        sockets=numbers.integer(host.get("sockets")),
        memory_gb=numbers.number(host.get(memory), seps),
    )


def fill(report: Report, data: InstanceData, reader: Reader, known: KnownNames, sec: Sections) -> None:
    """Every section the model keeps, from an instance's tables (either layout); what the layout prints and the
    file lacks goes to `report.missing`."""
    notes = reader.notes
    cut_events: set[str] = set()
    classes: dict[str, str | None] = {}
    if sec.top is not None:
        report.top_events, classes, cut = reader.top_events(sec.top)
        cut_events |= cut
    else:
        report.missing.append("Top events")
    data.time_model = reader.time_model(sec.time_model) if sec.time_model is not None else None
    data.wait_classes = reader.wait_classes(sec.wait_classes) if sec.wait_classes is not None else None
    events: dict[str, dict] = {}
    for t, side in ((sec.fg, "fg"), (sec.bg, "bg")):
        if t is None:
            continue
        values, cut = reader.events(t)
        cut_events |= cut
        for name, value in values.items():
            events.setdefault(name, {})[side] = value
    hist, hist_cut = histogram(sec.histograms, reader) if sec.histograms else ({}, set())
    classes = {**reader.event_classes, **classes}
    # full names: the store's, then those the report prints whole (the top list, the histogram)
    pool = dict(known.events)
    for n in [*classes, *events, *hist]:
        if n not in cut_events and n not in hist_cut:
            pool.setdefault(n, classes.get(n))
    if sec.fg is not None or sec.bg is not None:
        data.events = {}
        for name, sides in events.items():
            full = _resolve(name, name in cut_events, pool, notes, "wait event")
            w_fg, t_fg, s_fg = sides.get("fg", (None, None, None))
            w_bg, t_bg, s_bg = sides.get("bg", (None, None, None))
            data.events[full] = Event(pool.get(full) or classes.get(name), w_fg, t_fg, s_fg, w_bg, t_bg, s_bg)
    if sec.histograms:
        data.event_histograms = {_resolve(n, n in hist_cut, pool, notes, "histogram event"): v for n, v in hist.items()}
    if report.top_events:
        report.top_events = [
            (n if n == "DB CPU" else _resolve(n, n in cut_events, pool, notes, "top event"), s)
            for n, s in report.top_events
        ]
        for name, seconds in report.top_events:  # the top list prints a tenth of a second (below 10,000)
            event = (data.events or {}).get(name)
            if event and event.time_fg is not None and seconds < 10_000 and abs(event.time_fg - seconds) > 0.05:
                event.time_fg = seconds
    stats: dict[str, float] = {}
    stat_cut: set[str] = set()
    for _title, t in sec.sysstat:
        values, cut = reader.sysstat(t)
        stats.update(values)
        stat_cut |= cut
    if any("Key" not in title for title, _ in sec.sysstat):
        stat_pool = known.stats | {n for n in stats if n not in stat_cut}
        data.sysstat = {_resolve(n, n in stat_cut, stat_pool, notes, "statistic"): v for n, v in stats.items()}
    data.osstat = reader.osstat(sec.osstat) if sec.osstat is not None else None
    if sec.io_functions is not None:
        seconds = (report.end_time - report.begin_time).total_seconds()
        funcs, cut = reader.io_functions(sec.io_functions, seconds)
        fpool = known.functions | {n for n in funcs if n not in cut}
        data.io_functions = {_resolve(n, n in cut, fpool, notes, "I/O function"): f for n, f in funcs.items()}
    if sec.parameters:
        data.parameters = {}
        for t in reversed(sec.parameters):
            data.parameters.update(reader.parameters(t))
    if sec.sql:
        sqls: dict[str, Sql] = {}
        for kind, t in sec.sql:
            reader.sql(t, SQL_SECTIONS[kind], sqls)
        if sec.sql_text:
            for sql_id, s in sqls.items():
                if sql_id in sec.sql_text:
                    s.text = sec.sql_text[sql_id]
        report.sql = list(sqls.values())
    if sec.segments:
        segs: dict = {}
        for stat, t in sec.segments:
            reader.segments(t, stat, segs)
        report.segments = list(segs.values())
    present = {
        "Time Model Statistics": data.time_model,
        "Wait Classes": data.wait_classes,
        "Foreground Wait Events": sec.fg,
        "Background Wait Events": sec.bg,
        "SQL ordered by Elapsed Time": next((t for k, t in sec.sql if k == "elapsed time"), None),
        "Instance Activity Stats": data.sysstat,
        "IOStat by Function summary": data.io_functions,
        "Operating System Statistics": data.osstat,
        "Segments by Logical Reads": next((t for k, t in sec.segments if k == "logical_reads"), None),
        "Wait Event Histogram": data.event_histograms,
        "init.ora Parameters": data.parameters,
    }
    report.missing += [k for k, v in present.items() if v is None]


def _resolve(name: str, cut: bool, pool, notes: list[str], what: str) -> str:
    return resolve(name, pool, notes, what) if cut else name
