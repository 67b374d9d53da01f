"""Report files into a reports store (docs/awr-rules.md §35): all of a batch or none of it.

Every file is read first; one that is not a report, is cut short or overlaps another is refused, with the file and
the reason named, and then nothing is written. A file already imported (the same bytes), or a second file of the same
interval (the HTML and the text of one report), is kept once and said. What is kept: each file as it came
(REPORT_FILES), and each database it touches written again whole from all of its files (history.rows), in one
transaction of the store.
"""

import hashlib
import re
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.errors import BadParameter
from app.report_files import history, statspack_rows
from app.report_files.files import Found
from app.report_files.model import Report, ReportError
from app.report_files.parse import decode, parse

# the DBA_HIST_* tables history.rows writes, by short name
WRITTEN = (
    "database_instance",
    "snapshot",
    "sysstat",
    "sys_time_model",
    "osstat",
    "pgastat",
    "system_event",
    "iostat_function",
    "event_histogram",
    "parameter",
    "sqlstat",
    "sqltext",
    "seg_stat",
    "seg_stat_obj",
)


class ImportRefused(BadParameter):
    """A batch with files that cannot be imported: every problem, each naming its file (400 reports_refused, the
    problems listed in the error's `problems`)."""

    code = "reports_refused"

    def body(self):
        out = super().body()
        out["error"]["problems"] = self.problems
        return out

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else [])
        super().__init__(f"nothing was imported: {len(problems)} file(s) refused: " + "; ".join(shown), "files")


@dataclass
class Kept:
    """One file to import: its name, bytes, checksum and report."""

    name: str
    content: bytes
    sha256: str
    report: Report

    @property
    def instances(self) -> str:
        return ",".join(map(str, sorted(self.report.data)))


@dataclass
class Outcome:
    imported: list[Kept] = field(default_factory=list)
    kept_once: list[str] = field(default_factory=list)  # a message per file not imported again
    skipped: list[str] = field(default_factory=list)  # files of folders and zips not named as reports
    databases: dict[int, str] = field(default_factory=dict)  # DBID -> DB_NAME of each database written

    def public(self) -> dict:
        return {
            "imported": [
                {
                    "file": k.name,
                    "dbid": k.report.dbid,
                    "db_name": k.report.db_name,
                    "instances": sorted(k.report.data),
                    "begin_snap": k.report.begin_snap,
                    "end_snap": k.report.end_snap,
                    "layout": k.report.layout,
                    "missing_sections": k.report.missing,
                }
                for k in self.imported
            ],
            "kept_once": self.kept_once,
            "skipped": self.skipped,
            "databases": [{"dbid": dbid, "db_name": name} for dbid, name in sorted(self.databases.items())],
        }


def read(entries: Iterable[tuple], on_progress: Callable[[str], None] | None = None):
    """Each (name, function giving its bytes) read and parsed (files.Found.entries): (the files kept, the problems)."""
    kept, problems = [], []
    for name, reader in entries:
        try:
            content = reader()
            report = parse(name, content)
        except ReportError as exc:
            problems.append(str(exc))
        else:
            kept.append(Kept(name, content, hashlib.sha256(content).hexdigest(), report))
        if on_progress:
            on_progress(name)
    return kept, problems


def check(new: list[Kept], stored: list[tuple]) -> tuple[list[Kept], list[str], list[str]]:
    """The new files to import, the messages of those kept once, and the problems (overlaps), against each other
    and the files already `stored` (sha256, file_name, dbid, instances, begin_snap, end_snap)."""
    seen = {sha: name for sha, name, *_ in stored}
    intervals = [(name, dbid, set(map(int, inst.split(","))), lo, hi) for _, name, dbid, inst, lo, hi in stored]
    chosen, once, problems = [], [], []
    for k in sorted(new, key=lambda k: (k.report.dbid, k.report.begin_snap, k.name)):
        r = k.report
        if k.sha256 in seen:
            once.append(f"{k.name} is the same file as {seen[k.sha256]}: kept once")
            continue
        mine = set(r.data)
        same = next(
            (
                n
                for n, dbid, inst, lo, hi in intervals
                if (dbid, inst, lo, hi) == (r.dbid, mine, r.begin_snap, r.end_snap)
            ),
            None,
        )
        if same:
            once.append(
                f"{k.name} reports the same interval as {same} (DBID {r.dbid}, snapshots "
                f"{r.begin_snap}-{r.end_snap}): kept once"
            )
            continue
        clashes = sorted(
            (lo, hi, n)
            for n, dbid, inst, lo, hi in intervals
            if dbid == r.dbid and inst & mine and r.begin_snap < hi and lo < r.end_snap
        )
        if clashes:
            named = ", ".join(f"{n} (snapshots {lo}-{hi})" for lo, hi, n in clashes)
            problems.append(
                f"{k.name} (snapshots {r.begin_snap}-{r.end_snap}) overlaps {named} of the same database (DBID "
                f"{r.dbid}) and instance: import either, not both"
            )
            continue
        seen[k.sha256] = k.name
        intervals.append((k.name, r.dbid, mine, r.begin_snap, r.end_snap))
        chosen.append(k)
    return chosen, once, problems


def _as_oracle_report(report: Report, text: str) -> dict:
    """A file as one of Oracle's reports of the store (embedded.reports.AWR_REPORTS, docs/awr-rules.md §27): the
    report of its instance, or the global report of its instances, as the text or HTML it came as."""
    return {
        "dbid": report.dbid,
        "kind": "global" if len(report.data) > 1 or "global" in report.layout else "report",
        "instances": ",".join(map(str, sorted(report.data))),
        "begin_snap": report.begin_snap,
        "end_snap": report.end_snap,
        "begin_snap2": 0,
        "end_snap2": 0,
        "type": "html" if "html" in report.layout else "text",
        "report": zlib.compress(text.encode(), 6),
    }


def utc_offset(text: str | None) -> float | None:
    """An offset from UTC as ISO 8601 writes it ("+01:00", "-05:30", "Z") in seconds; None for none. A malformed one
    is a BadParameter naming utc_offset."""
    if text in (None, ""):
        return None
    if text == "Z":
        return 0.0
    m = re.fullmatch(r"([+-])(\d\d):(\d\d)", text)
    if not m or int(m[2]) > 14 or int(m[3]) > 59:
        raise BadParameter(
            f"utc_offset must be an offset from UTC such as +01:00, -05:30 or Z; got {text!r}", "utc_offset"
        )
    return (1 if m[1] == "+" else -1) * (int(m[2]) * 3600 + int(m[3]) * 60)


def import_files(
    store, found: Found, on_progress: Callable[[str], None] | None = None, offset: float | None = None
) -> Outcome:
    """Import the files `found` (files.gather, files.uploaded) into the reports store `store` (a ReportStore): all
    or nothing (ImportRefused). `offset`: the database's seconds east of UTC (utc_offset), where the caller knows it."""
    kept, problems = read(found.entries, on_progress)
    for k in kept:
        k.report.utc_offset = offset
    problems = found.problems + problems
    stored = store.report_files()
    chosen, once, overlaps = check(kept, stored)
    problems += overlaps
    if problems:
        raise ImportRefused(problems)
    out = Outcome(kept_once=once, skipped=found.skipped)
    if not chosen:
        return out

    def work(conn):
        from sqlalchemy import delete, insert, select

        from app.store.awr.embedded.report_files import REPORT_FILES
        from app.store.awr.embedded.reports import AWR_REPORTS

        store.create_schema(conn)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        conn.execute(
            insert(REPORT_FILES),
            [
                {
                    "sha256": k.sha256,
                    "file_name": k.name,
                    "dbid": k.report.dbid,
                    "begin_snap": k.report.begin_snap,
                    "end_snap": k.report.end_snap,
                    "instances": k.instances,
                    "source": k.report.source,
                    "layout": k.report.layout,
                    "imported_at": now,
                    "content": zlib.compress(k.content, 6),
                    "utc_offset": offset,
                }
                for k in chosen
            ],
        )
        views = store.views
        fresh = {k.sha256: k for k in chosen}
        for dbid in sorted({k.report.dbid for k in chosen}):
            kept = []  # (report, the file's text) of every file of the database
            files = REPORT_FILES.c
            for sha, name, content, given in conn.execute(
                select(files.sha256, files.file_name, files.content, files.utc_offset).where(files.dbid == dbid)
            ):
                data = zlib.decompress(content)
                report = fresh[sha].report if sha in fresh else parse(name, data)
                report.utc_offset = given
                kept.append((report, decode(name, data)))
            reports = [r for r, _ in kept]
            found = history.rows(reports)
            raw = conn.connection.driver_connection
            # a database of Statspack reports is kept in the STATS$ tables, and so read as Statspack (§31)
            statspack = all(r.source == "statspack" for r in reports)
            statspack_rows.write(raw, dbid, found if statspack else {})
            conn.execute(delete(AWR_REPORTS).where(AWR_REPORTS.c.dbid == dbid))
            if not statspack:  # the files as Oracle's AWR reports of their ranges (§27)
                conn.execute(insert(AWR_REPORTS), [_as_oracle_report(r, text) for r, text in kept])
            for short in WRITTEN:
                table = getattr(views, short)
                conn.execute(delete(table).where(table.c.dbid == dbid))
                rows = None if statspack else found.get(short)
                if rows:
                    columns = list(table.columns)
                    names = ", ".join(f'"{c.name}"' for c in columns)
                    marks = ", ".join("?" * len(columns))
                    raw.executemany(
                        f"INSERT INTO {table.name} ({names}) VALUES ({marks})",
                        [tuple(row.get(c.key) for c in columns) for row in rows],
                    )
            out.databases[dbid] = reports[0].db_name

    store.write(work)
    store.forget()
    out.imported = chosen
    return out
