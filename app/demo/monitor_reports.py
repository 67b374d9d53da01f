"""The demo's SQL monitor reports (docs/awr-rules.md §27) of the long executions: the nightly batch's statements
(each execution minutes long) over the last days of ASH. A row of DBA_HIST_REPORTS per execution, its text in
reports.MONITOR_REPORTS, the stand-in for DBA_HIST_REPORTS_DETAILS. An execution's elapsed time, CPU, gets and reads
are its interval's DBA_HIST_SQLSTAT deltas divided by the interval's executions, so the list agrees with top SQL."""

import html
import zlib
from datetime import datetime, timedelta

from app.demo.report_style import STYLE, number
from app.store.awr.embedded.reports import MONITOR_REPORTS

MONITOR_COMPONENT = "sqlmonitor"
FIRST_EXEC_ID = 16777216  # SQL_EXEC_ID numbering starts at 2^24 on an instance
KEY3_FORMAT = "%m/%d/%Y %H:%M:%S"  # SQL_EXEC_START as DBA_HIST_REPORTS.KEY3 holds it


def add_monitored(con, db, days, rng, report_id) -> int:
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
        ("Elapsed Time(s)", number(e["ela"] / 1e6, 1)),
        ("Cpu Time(s)", number(e["cpu"] / 1e6, 1)),
        ("IO Waits(s)", number((e["ela"] - e["cpu"]) / 1e6, 1)),
        ("Buffer Gets", number(e["gets"], 0)),
        ("Read Blocks", number(e["reads"], 0)),
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
