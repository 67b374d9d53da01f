"""Oracle's own reports in the demo store (docs/awr-rules.md §27), rendered when the store is built, from its own rows:

- AWR reports, in the layout of Oracle's (header with the snapshots, elapsed and DB time; Load Profile; top foreground
  events; SQL ordered by elapsed time), for a few ranges that tell the stories: ORCL before and after the async I/O
  fix and the two compared; RACPROD during the plan regression, global and for instance 1, and compared with the same
  hours before it. Stored in embedded.reports.AWR_REPORTS, the stand-in for what DBMS_WORKLOAD_REPOSITORY renders
  on request.
- SQL monitor reports of the long executions: the nightly batch's statements (each execution minutes long) over the
  last days of ASH. A row of DBA_HIST_REPORTS per execution, its text in embedded.reports.MONITOR_REPORTS, the
  stand-in for DBA_HIST_REPORTS_DETAILS. An execution's elapsed time, CPU, gets and reads are its interval's
  DBA_HIST_SQLSTAT deltas divided by the interval's executions, so the list agrees with top SQL. Oracle monitors an
  execution once it has used 5 s of CPU or I/O time (or runs in parallel): the plan regression's executions, 0.52 s
  each, are not.

Every value is read back from the store with plain SQL; the text of SQL statements is escaped in the HTML, as
Oracle's reports escape it.
"""

import html
import random
import sqlite3
import zlib
from contextlib import closing
from datetime import datetime, timedelta

from app.store.embedded.reports import AWR_REPORTS, MONITOR_REPORTS

MONITOR_COMPONENT = "sqlmonitor"
FIRST_EXEC_ID = 16777216  # SQL_EXEC_ID numbering starts at 2^24 on an instance
KEY3_FORMAT = "%m/%d/%Y %H:%M:%S"  # SQL_EXEC_START as DBA_HIST_REPORTS.KEY3 holds it
LOAD_PROFILE = (
    ("DB Time(s)", "tm", "DB time", 1e-6),
    ("DB CPU(s)", "tm", "DB CPU", 1e-6),
    ("Redo size (bytes)", "ss", "redo size", 1),
    ("Logical read (blocks)", "ss", "session logical reads", 1),
    ("Physical read (blocks)", "ss", "physical reads", 1),
    ("User calls", "ss", "user calls", 1),
    ("Executes (SQL)", "ss", "execute count", 1),
    ("Transactions", "txn", None, 1),
)
TOP_EVENTS, TOP_SQL = 10, 10
NUM_CLASS = ' class="num"'


def add_reports(path, public: dict, monitor_days: float, seed: int = 42) -> None:
    """Write the demo's AWR and SQL monitor reports into the store at `path` (before it is packed)."""
    with closing(sqlite3.connect(path)) as con:
        for table in (AWR_REPORTS, MONITOR_REPORTS):
            cols = ", ".join(f'"{c.name}"' for c in table.columns)
            key = ", ".join(f'"{c.name}"' for c in table.primary_key.columns)
            con.execute(f"CREATE TABLE {table.name} ({cols}, PRIMARY KEY ({key})) WITHOUT ROWID")
        dbs = {d["db_name"]: d for d in public["databases"]}
        orcl, rac = dbs["ORCL"], dbs["RACPROD"]
        fix = datetime.fromisoformat(public["async_io_fix"]["startup_time"]).replace(tzinfo=None)
        before, after = _hours(con, orcl, fix - timedelta(days=1)), _hours(con, orcl, fix + timedelta(days=1))
        regression = datetime.fromisoformat(public["plan_regression"]["to"]).replace(tzinfo=None)
        during, earlier = (
            _hours(con, rac, regression - timedelta(days=1)),
            _hours(con, rac, regression - timedelta(days=3)),
        )
        ranges = [
            (orcl, [1], before, None),
            (orcl, [1], after, None),
            (orcl, [1], before, after),
            (rac, [1, 2], during, None),
            (rac, [1], during, None),
            (rac, [1, 2], earlier, during),
        ]
        for db, instances, a, b in ranges:
            for kind_type in ("html", "text"):
                kind = ("global" if len(instances) > 1 else "report") + ("_diff" if b else "")
                kind = "diff" if kind == "report_diff" else kind
                text = awr_report(con, db, instances, a, b, kind_type)
                con.execute(
                    f"INSERT INTO {AWR_REPORTS.name} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        db["dbid"],
                        kind,
                        ",".join(map(str, instances)),
                        *a,
                        *(b or (0, 0)),
                        kind_type,
                        zlib.compress(text.encode(), 9),
                    ),
                )
        rng = random.Random(f"{seed}:sqlmonitor")
        report_id = 1
        for db in (orcl, rac):
            report_id = _monitored(con, db, monitor_days, rng, report_id)
        con.commit()


def _hours(con, db, day: datetime) -> tuple[int, int]:
    """The snapshots of 10:00 and 12:00 (database time) of `day`: two hours, four intervals."""
    ids = []
    for hh in (10, 12):
        at = day.replace(hour=hh, minute=0, second=0).isoformat(" ")
        ids.append(
            con.execute(
                "SELECT min(snap_id) FROM dba_hist_snapshot WHERE dbid = ? AND end_interval_time = ?", (db["dbid"], at)
            ).fetchone()[0]
        )
    return ids[0], ids[1]


# -- what a range holds, from the store's rows ---------------------------------------------------------------------


def _delta(con, view, db, instances, lo, hi, names):
    marks = ", ".join("?" * len(instances))
    rows = con.execute(
        f"SELECT stat_name, sum(CASE snap_id WHEN ? THEN value ELSE -value END) FROM {view} WHERE dbid = ? "
        f"AND snap_id IN (?, ?) AND instance_number IN ({marks}) AND stat_name IN "
        f"({', '.join('?' * len(names))}) GROUP BY stat_name",
        (hi, db["dbid"], lo, hi, *instances, *names),
    ).fetchall()
    return dict(rows)


def _period(con, db, instances, lo, hi):
    """Header, Load Profile, top events and top SQL of the intervals (lo, hi] of `instances`."""
    marks = ", ".join("?" * len(instances))
    snaps = con.execute(
        f"SELECT snap_id, min(end_interval_time), min(startup_time) FROM dba_hist_snapshot WHERE dbid = ? "
        f"AND snap_id IN (?, ?) AND instance_number IN ({marks}) GROUP BY snap_id ORDER BY snap_id",
        (db["dbid"], lo, hi, *instances),
    ).fetchall()
    t0, t1 = (datetime.fromisoformat(s[1]) for s in snaps)
    seconds = (t1 - t0).total_seconds()
    tm = _delta(con, "dba_hist_sys_time_model", db, instances, lo, hi, ["DB time", "DB CPU"])
    ss = _delta(
        con,
        "dba_hist_sysstat",
        db,
        instances,
        lo,
        hi,
        [
            "redo size",
            "session logical reads",
            "physical reads",
            "user calls",
            "execute count",
            "user commits",
            "user rollbacks",
        ],
    )
    txn = ss["user commits"] + ss["user rollbacks"]
    profile = []
    for label, source, name, scale in LOAD_PROFILE:
        total = txn if source == "txn" else (tm if source == "tm" else ss)[name] * scale
        profile.append((label, total / seconds, total / txn if txn else None))
    events = con.execute(
        f"SELECT event_name, wait_class, sum(CASE snap_id WHEN ? THEN total_waits_fg ELSE -total_waits_fg END), "
        f"sum(CASE snap_id WHEN ? THEN time_waited_micro_fg ELSE -time_waited_micro_fg END) FROM dba_hist_system_event "
        f"WHERE dbid = ? AND snap_id IN (?, ?) AND instance_number IN ({marks}) AND wait_class != 'Idle' "
        f"GROUP BY event_name, wait_class",
        (hi, hi, db["dbid"], lo, hi, *instances),
    ).fetchall()
    db_time = tm["DB time"]
    top = [("DB CPU", "", None, tm["DB CPU"])] + [(n, c, w, t) for n, c, w, t in events if t > 0]
    top = sorted(top, key=lambda r: -r[3])[:TOP_EVENTS]
    sql = con.execute(
        f"SELECT s.sql_id, sum(s.executions_delta), sum(s.elapsed_time_delta), sum(s.cpu_time_delta), max(s.module), "
        f"(SELECT t.sql_text FROM dba_hist_sqltext t WHERE t.dbid = s.dbid AND t.sql_id = s.sql_id) "
        f"FROM dba_hist_sqlstat s WHERE s.dbid = ? AND s.snap_id > ? AND s.snap_id <= ? AND s.instance_number IN "
        f"({marks}) GROUP BY s.sql_id ORDER BY sum(s.elapsed_time_delta) DESC, s.sql_id LIMIT ?",
        (db["dbid"], lo, hi, *instances, TOP_SQL),
    ).fetchall()
    return {
        "lo": lo,
        "hi": hi,
        "t0": t0,
        "t1": t1,
        "startup": snaps[0][2],
        "seconds": seconds,
        "db_time": db_time,
        "profile": profile,
        "events": top,
        "sql": sql,
    }


# -- rendering ------------------------------------------------------------------------------------------------------

STYLE = (
    "body{font:10pt Arial,Helvetica,sans-serif;color:#000;background:#fff}h1{font-size:16pt;color:#336699}"
    "h2{font-size:12pt;color:#336699}table{border-collapse:collapse;margin-bottom:1em}"
    "th{background:#0066cc;color:#fff;padding:2px 6px;text-align:left}td{padding:2px 6px;background:#ffffcc}"
    "td.num{text-align:right}"
)


def _num(value, digits=1):
    if value is None:
        return ""
    return f"{value:,.{digits}f}" if abs(value) < 1e12 else f"{value:.3e}"


def _header(db, instances, kind):
    title = {
        "report": "WORKLOAD REPOSITORY report for",
        "global": "WORKLOAD REPOSITORY RAC report for",
        "diff": "WORKLOAD REPOSITORY COMPARE PERIOD REPORT",
        "global_diff": "WORKLOAD REPOSITORY RAC COMPARE PERIOD REPORT",
    }[kind]
    rows = [
        ("DB Name", db["db_name"]),
        ("DB Id", str(db["dbid"])),
        ("Instances", ", ".join(map(str, instances))),
        ("RAC", "YES" if db["rac"] else "NO"),
        ("CPUs", str(db["cpus"])),
    ]
    return title, rows


def _period_tables(p):
    snaps = [
        ("Begin Snap:", str(p["lo"]), p["t0"].strftime("%d-%b-%y %H:%M:%S")),
        ("End Snap:", str(p["hi"]), p["t1"].strftime("%d-%b-%y %H:%M:%S")),
        ("Elapsed:", "", f"{p['seconds'] / 60:,.2f} (mins)"),
        ("DB Time:", "", f"{p['db_time'] / 6e7:,.2f} (mins)"),
    ]
    profile = [(label, _num(per_s, 2), _num(per_txn, 2)) for label, per_s, per_txn in p["profile"]]
    events = [
        (
            name,
            _num(waits, 0) if waits is not None else "",
            _num(us / 1e6, 1),
            _num(us / waits / 1e3, 2) if waits else "",
            _num(100 * us / p["db_time"], 1),
            wclass or "",
        )
        for name, wclass, waits, us in p["events"]
    ]
    sql = [
        (
            _num(ela / 1e6, 1),
            _num(execs, 0),
            _num(ela / execs / 1e6, 2) if execs else "",
            _num(100 * ela / p["db_time"], 1),
            _num(100 * cpu / ela, 1) if ela else "",
            sql_id,
            module or "",
            " ".join((text or "").split())[:60],
        )
        for sql_id, execs, ela, cpu, module, text in p["sql"]
    ]
    return [
        ("Snapshots", ("", "Snap Id", "Snap Time"), snaps),
        ("Load Profile", ("", "Per Second", "Per Transaction"), profile),
        (
            "Top 10 Foreground Events by Total Wait Time",
            ("Event", "Waits", "Total Wait Time (sec)", "Avg Wait (ms)", "% DB time", "Wait Class"),
            events,
        ),
        (
            "SQL ordered by Elapsed Time",
            (
                "Elapsed Time (s)",
                "Executions",
                "Elapsed Time per Exec (s)",
                "%Total",
                "%CPU",
                "SQL Id",
                "SQL Module",
                "SQL Text",
            ),
            sql,
        ),
    ]


def awr_report(con, db, instances, a, b, kind_type) -> str:
    """One AWR report (or compare-periods report, with `b`) as Oracle lays it out, in HTML or text."""
    kind = ("global" if len(instances) > 1 else "report") + ("_diff" if b else "")
    kind = "diff" if kind == "report_diff" else kind
    title, head = _header(db, instances, kind)
    periods = [("1st" if b else "", _period(con, db, instances, *a))] + (
        [("2nd", _period(con, db, instances, *b))] if b else []
    )
    sections = [
        (f"{title} DB: {db['db_name']}", ("DB Name", "DB Id", "Instances", "RAC", "CPUs"), [tuple(v for _, v in head)])
    ]
    for label, p in periods:
        for name, columns, rows in _period_tables(p):
            sections.append((f"{name} ({label})" if label else name, columns, rows))
    if b:
        (_, p1), (_, p2) = periods
        diff = [
            (l1, _num(s1, 2), _num(s2, 2), _num(100 * (s2 - s1) / s1, 1) if s1 else "")
            for (l1, s1, _), (_, s2, _) in zip(p1["profile"], p2["profile"], strict=True)
        ]
        sections.append(("Load Profile, per second: 1st, 2nd and %Diff", ("", "1st", "2nd", "%Diff"), diff))
    return _html(title, db, sections) if kind_type == "html" else _text(title, db, sections)


def _html(title, db, sections) -> str:
    out = [
        f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>AWR Report for DB: "
        f"{html.escape(db['db_name'])}</title><style>{STYLE}</style></head><body>",
        f"<h1>{html.escape(title)} DB: {html.escape(db['db_name'])}</h1>",
    ]
    for name, columns, rows in sections:
        out.append(
            f"<h2>{html.escape(name)}</h2><table><tr>"
            + "".join(f"<th>{html.escape(c)}</th>" for c in columns)
            + "</tr>"
        )
        for row in rows:
            out.append(
                "<tr>"
                + "".join(f"<td{NUM_CLASS if _numeric(v) else ''}>{html.escape(str(v))}</td>" for v in row)
                + "</tr>"
            )
        out.append("</table>")
    out.append("<p>End of Report</p></body></html>")
    return "\n".join(out)


def _numeric(value) -> bool:
    return bool(value) and str(value).replace(",", "").replace(".", "").replace("-", "").isdigit()


def _text(title, db, sections) -> str:
    out = []
    for name, columns, rows in sections:
        widths = [max([len(str(c))] + [len(str(r[k])) for r in rows]) for k, c in enumerate(columns)]
        out += [
            name,
            "~" * len(name),
            " ".join(str(c).ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip(),
            " ".join("-" * w for w in widths),
        ]
        out += [
            " ".join(
                str(v).rjust(w) if _numeric(v) else str(v).ljust(w) for v, w in zip(r, widths, strict=True)
            ).rstrip()
            for r in rows
        ]
        out.append("")
    out.append("End of Report")
    return "\n".join(out) + "\n"


# -- SQL monitor ----------------------------------------------------------------------------------------------------


def _monitored(con, db, days, rng, report_id) -> int:
    """A report per execution of the batch's statements in the last `days`; returns the next REPORT_ID."""
    newest = con.execute(
        "SELECT max(snap_id), max(end_interval_time) FROM dba_hist_snapshot WHERE dbid = ?", (db["dbid"],)
    ).fetchone()
    since = (datetime.fromisoformat(newest[1]) - timedelta(days=days)).isoformat(" ")
    rows = con.execute(
        "SELECT s.snap_id, s.instance_number, s.sql_id, s.plan_hash_value, s.module, s.parsing_schema_name, "
        "s.executions_delta, s.elapsed_time_delta, s.cpu_time_delta, s.buffer_gets_delta, s.disk_reads_delta, "
        "n.end_interval_time, t.sql_text FROM dba_hist_sqlstat s JOIN dba_hist_snapshot n ON n.dbid = s.dbid AND "
        "n.snap_id = s.snap_id AND n.instance_number = s.instance_number JOIN dba_hist_sqltext t ON t.dbid = s.dbid "
        "AND t.sql_id = s.sql_id WHERE s.dbid = ? AND s.module = 'BATCH_NIGHTLY' AND s.executions_delta > 0 AND "
        "n.end_interval_time > ? ORDER BY s.snap_id, s.instance_number, s.sql_id",
        (db["dbid"], since),
    ).fetchall()
    exec_ids: dict = {}
    for snap_id, inst, sql_id, plan, module, schema, execs, ela, cpu, gets, reads, end, text in rows:
        each = [v / execs for v in (ela, cpu, gets, reads)]
        finish = datetime.fromisoformat(end) - timedelta(seconds=rng.uniform(5, 60))
        for k in range(execs):
            stop = finish - timedelta(microseconds=each[0] * (execs - 1 - k))
            start = stop - timedelta(microseconds=each[0])
            exec_id = exec_ids[inst] = exec_ids.get(inst, FIRST_EXEC_ID - 1) + 1
            sid, serial = rng.randrange(20, 2000), rng.randrange(1, 60000)
            e = {
                "sql_id": sql_id,
                "exec_id": exec_id,
                "start": start.replace(microsecond=0),
                "stop": stop.replace(microsecond=0),
                "inst": inst,
                "sid": sid,
                "serial": serial,
                "plan": plan,
                "module": module,
                "schema": schema,
                "text": text,
                "ela": each[0],
                "cpu": each[1],
                "gets": each[2],
                "reads": each[3],
                "db": db,
            }
            e["duration"] = round((e["stop"] - e["start"]).total_seconds())
            con.execute(
                "INSERT INTO dba_hist_reports (snap_id, dbid, instance_number, report_id, component_name, "
                "session_id, \"SESSION_SERIAL#\", period_start_time, period_end_time, generation_time, "
                "report_name, key1, key2, key3, report_summary, con_dbid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?)",
                (
                    snap_id,
                    db["dbid"],
                    inst,
                    report_id,
                    MONITOR_COMPONENT,
                    sid,
                    serial,
                    e["start"].isoformat(" "),
                    e["stop"].isoformat(" "),
                    (e["stop"] + timedelta(seconds=2)).isoformat(" "),
                    "main",
                    sql_id,
                    str(exec_id),
                    e["start"].strftime(KEY3_FORMAT),
                    _summary(e),
                    db["dbid"],
                ),
            )  # a non-CDB: CON_DBID = DBID
            for kind_type in ("html", "text"):
                con.execute(
                    f"INSERT INTO {MONITOR_REPORTS.name} VALUES (?, ?, ?, ?)",
                    (db["dbid"], report_id, kind_type, zlib.compress(monitor_report(e, kind_type).encode(), 9)),
                )
            report_id += 1
    return report_id


def _summary(e) -> str:
    """REPORT_SUMMARY: the execution in XML, as SQL monitor summarizes it."""
    stats = "".join(
        f'<stat name="{n}">{round(v)}</stat>'
        for n, v in (
            ("elapsed_time", e["ela"]),
            ("cpu_time", e["cpu"]),
            ("buffer_gets", e["gets"]),
            ("disk_reads", e["reads"]),
        )
    )
    return (
        f'<report_repository_summary><sql sql_id="{e["sql_id"]}" sql_exec_start="'
        f'{e["start"].strftime(KEY3_FORMAT)}" sql_exec_id="{e["exec_id"]}"><status>DONE</status>'
        f'<first_refresh_time>{e["start"].strftime(KEY3_FORMAT)}</first_refresh_time><last_refresh_time>'
        f'{e["stop"].strftime(KEY3_FORMAT)}</last_refresh_time><duration>{e["duration"]}</duration>'
        f'<module>{html.escape(e["module"] or "")}</module><plan_hash>{e["plan"]}</plan_hash>'
        f'<stats type="monitor">{stats}</stats></sql></report_repository_summary>'
    )


def monitor_report(e, kind_type) -> str:
    """A SQL monitor report of one execution, in the layout of Oracle's, in HTML or text."""
    info = [
        ("Status", "DONE"),
        ("Instance ID", str(e["inst"])),
        ("Session", f"{e['schema']} ({e['sid']}:{e['serial']})"),
        ("SQL ID", e["sql_id"]),
        ("SQL Execution ID", str(e["exec_id"])),
        ("Execution Started", e["start"].strftime(KEY3_FORMAT)),
        ("Last Refresh Time", e["stop"].strftime(KEY3_FORMAT)),
        ("Duration", f"{e['duration']}s"),
        ("Module/Action", f"{e['module']}/-"),
        ("Plan Hash Value", str(e["plan"])),
    ]
    stats = (
        ("Elapsed Time(s)", _num(e["ela"] / 1e6, 1)),
        ("Cpu Time(s)", _num(e["cpu"] / 1e6, 1)),
        ("IO Waits(s)", _num((e["ela"] - e["cpu"]) / 1e6, 1)),
        ("Buffer Gets", _num(e["gets"], 0)),
        ("Read Blocks", _num(e["reads"], 0)),
    )
    text = " ".join((e["text"] or "").split())
    if kind_type == "text":
        width = max(len(k) for k, _ in info)
        lines = (
            ["SQL Monitoring Report", "", "SQL Text", "-" * 30, text, "-" * 30, "", "Global Information", "-" * 30]
            + [f" {k.ljust(width)} :  {v}" for k, v in info]
            + ["", "Global Stats", "=" * 60]
        )
        widths = [max(len(k), len(v)) for k, v in stats]
        lines += [
            "| " + " | ".join(k.rjust(w) for (k, _), w in zip(stats, widths, strict=True)) + " |",
            "| " + " | ".join(v.rjust(w) for (_, v), w in zip(stats, widths, strict=True)) + " |",
            "=" * 60,
        ]
        return "\n".join(lines) + "\n"
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in info)
    stat_row = (
        "<tr>"
        + "".join(f"<th>{html.escape(k)}</th>" for k, _ in stats)
        + "</tr><tr>"
        + "".join(f'<td class="num">{html.escape(v)}</td>' for _, v in stats)
        + "</tr>"
    )
    return (
        f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>SQL Monitor Report "
        f"{html.escape(e['sql_id'])}</title><style>{STYLE}</style></head><body><h1>SQL Monitoring Report</h1>"
        f"<h2>SQL Text</h2><pre>{html.escape(text)}</pre><h2>Global Information</h2><table>{rows}</table>"
        f"<h2>Global Stats</h2><table>{stat_row}</table></body></html>\n"
    )
