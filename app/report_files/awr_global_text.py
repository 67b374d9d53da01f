"""AWR's RAC global report as text (awrgrpt.sql, DBMS_WORKLOAD_REPOSITORY.AWR_GLOBAL_REPORT_TEXT: "WORKLOAD
REPOSITORY REPORT (RAC)"; docs/report-formats.md).

Its sections print one row per instance and statistic, the instance number in an "I#" column: each such table is
cut into one table per instance (the I# column taken out) and read as the instance report's section is, into
that instance's InstanceData. The SQL sections ("SQL ordered by Elapsed Time (Global)") are the cluster's."""

from app.report_files import numbers
from app.report_files.awr_common import (
    PARAMETER_TITLES,
    SQL_SECTIONS,
    KnownNames,
    Reader,
    Sections,
    Table,
    fill,
)
from app.report_files.awr_text import TextReport, parse_time, table
from app.report_files.model import Instance, InstanceData, Report, ReportError

EXPECTED = (
    "Database Instances Included In Report",
    "OS Statistics By Instance",
    "Time Model",
    "Foreground Wait Events",
    "System Statistics",
    "SQL ordered by Elapsed Time (Global)",
    "init.ora Parameters",
)


def by_instance(t: Table | None) -> dict[int, Table]:
    """A table with an I# column as one table per instance, without that column."""
    if t is None:
        return {}
    i = t.col("i#")
    if i is None:
        return {}
    keep = [k for k in range(len(t.columns)) if k != i]
    out: dict[int, Table] = {}
    for n, row in enumerate(t.rows):
        number = numbers.integer(t.cell(row, i))
        if number is None:
            continue
        part = out.get(number)
        if part is None:
            cut = [t.cut[k] for k in keep] if t.cut else None
            part = out[number] = Table([t.columns[k] for k in keep], [], cut)
        part.rows.append([row[k] if k < len(row) else "" for k in keep])
        part.extras.append(t.extras[n] if n < len(t.extras) else {})
    return out


def _rows(t: Table | None) -> list[dict[str, str]]:
    if t is None:
        return []
    return [dict(zip(t.columns, row, strict=False)) for row in t.rows]


def parse_global(rep: TextReport, known: KnownNames | None) -> Report:
    name = rep.name

    def tab(title: str, sql: bool = False) -> Table | None:
        lines = rep.get(title)
        return None if lines is None else (table(lines, sql) or Table([], []))

    summary = tab("Database Summary")
    instances = _rows(tab("Database Instances Included In Report"))
    if summary is None or not summary.rows or not instances:
        raise ReportError(f"{name}: no header (Database Summary and Database Instances Included In Report)")

    def db(*words: str) -> str | None:
        return summary.cell(summary.rows[0], summary.col(*words))

    samples = [_starting(r, "elapsed") or "" for r in instances]
    seps = numbers.detect(samples)
    notes: list[str] = []
    reader = Reader(seps, notes)
    try:
        begin_time = parse_time(instances[0]["begin snap time"], False)
        end_time = parse_time(instances[0]["end snap time"], False)
    except (KeyError, ValueError) as e:
        raise ReportError(f"{name}: the instances' snapshot times cannot be read ({e})") from None
    os_rows = {numbers.integer(r.get("i#")): r for r in _rows(tab("OS Statistics By Instance"))}
    report = Report(
        source="awr",
        layout="awr-global-text-19",
        dbid=numbers.integer(summary.rows[0][0]) or 0,  # Id, then Name: the first two columns
        db_name=(summary.rows[0][1] if len(summary.rows[0]) > 1 else "").strip(),
        release=(db("release") or instances[0].get("release") or "").strip(),
        rac=True,
        begin_snap=numbers.integer(db("begin")) or 0,
        end_snap=numbers.integer(db("end")) or 0,
        begin_time=begin_time,
        end_time=end_time,
        elapsed_minutes=max(numbers.number(_starting(r, "elapsed"), seps) or 0.0 for r in instances),
        db_time_minutes=numbers.number(db("db time"), seps),
        instances=[],
        data={},
        notes=notes,
    )
    for r in instances:
        number = numbers.integer(r.get("i#"))
        if number is None:
            continue
        os_row = os_rows.get(number, {})
        memory_mb = numbers.number(os_row.get("memory (m)"), seps)
        startup = r.get("startup")
        report.instances.append(
            Instance(
                number=number,
                name=(r.get("instance") or "").strip(),
                host=(r.get("host") or "").strip() or None,
                startup=parse_time(startup, False) if startup else None,
                platform=(r.get("platform") or "").strip() or None,
                cpus=numbers.integer(os_row.get("num cpus")),
                cores=numbers.integer(os_row.get("cpu cores")),
                sockets=numbers.integer(os_row.get("cpu sckts")),
                memory_gb=None if memory_mb is None else memory_mb / 1024,
            )
        )
        osstat = {
            "NUM_CPUS": numbers.number(os_row.get("num cpus"), seps),
            "NUM_CPU_CORES": numbers.number(os_row.get("cpu cores"), seps),
            "NUM_CPU_SOCKETS": numbers.number(os_row.get("cpu sckts"), seps),
            # the report prints seconds; OSSTAT counts centiseconds
            "BUSY_TIME": _scaled(numbers.number(os_row.get("busy time (s)"), seps), 100),
            "IDLE_TIME": _scaled(numbers.number(os_row.get("idle time (s)"), seps), 100),
            "PHYSICAL_MEMORY_BYTES": _scaled(memory_mb, 1048576),
        }
        data = InstanceData(osstat={k: v for k, v in osstat.items() if v is not None} if os_row else None)
        report.data[number] = data
    per = {
        "time_model": by_instance(tab("Time Model")),
        "fg": by_instance(tab("Foreground Wait Events")),
        "bg": by_instance(tab("Background Wait Events")),
        "sysstat": by_instance(tab("System Statistics")),
        "io": by_instance(tab("IOStat by Function summary")),
        "params": by_instance(next((tab(t) for t in PARAMETER_TITLES if rep.get(t) is not None), None)),
        "hist": by_instance(tab("Wait Event Histogram")),
    }
    known = known or KnownNames.default()
    for number, data in report.data.items():
        sec = Sections(
            top=Table([], []),
            time_model=per["time_model"].get(number),
            fg=per["fg"].get(number),
            bg=per["bg"].get(number),
            io_functions=per["io"].get(number),
        )
        if number in per["sysstat"]:
            sec.sysstat = [("System Statistics", per["sysstat"][number])]
        if number in per["params"]:
            sec.parameters = [per["params"][number]]
        if number in per["hist"]:
            sec.histograms = [("Wait Event Histogram", per["hist"][number])]
        osstat = data.osstat
        fill(report, data, reader, known, sec)
        data.osstat = osstat
    sql = Sections(top=Table([], []))
    for title in rep.order:
        if title.startswith("SQL ordered by ") and title.endswith("(Global)"):
            kind = title[len("SQL ordered by ") : -len("(Global)")].strip().lower()
            if kind in SQL_SECTIONS:
                sql.sql.append((kind, tab(title, sql=True)))
    scratch = Report(**{**report.__dict__, "missing": [], "notes": notes, "data": {}})
    fill(scratch, InstanceData(), reader, known, sql)
    report.sql = scratch.sql
    report.top_events = None
    report.missing = [t for t in EXPECTED if rep.get(t) is None]
    if not report.data:
        raise ReportError(f"{name}: no instance rows in Database Instances Included In Report")
    return report


def _starting(row: dict[str, str], word: str) -> str | None:
    return next((v for k, v in row.items() if k.startswith(word)), None)


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor
