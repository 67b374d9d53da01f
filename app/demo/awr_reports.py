"""The demo's AWR reports (docs/awr-rules.md §27), in the layout of Oracle's: the header with the snapshots, elapsed
and DB time; the Load Profile; the top foreground events; the SQL ordered by elapsed time; and for two ranges, the
compare-periods report. Every value is read back from the store's rows with plain SQL; the text of SQL statements
is escaped in the HTML, as Oracle's reports escape it."""

import html
from datetime import datetime

from app.demo.report_style import STYLE, number

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
    profile = [(label, number(per_s, 2), number(per_txn, 2)) for label, per_s, per_txn in p["profile"]]
    events = [
        (
            name,
            number(waits, 0) if waits is not None else "",
            number(us / 1e6, 1),
            number(us / waits / 1e3, 2) if waits else "",
            number(100 * us / p["db_time"], 1),
            wclass or "",
        )
        for name, wclass, waits, us in p["events"]
    ]
    sql = [
        (
            number(ela / 1e6, 1),
            number(execs, 0),
            number(ela / execs / 1e6, 2) if execs else "",
            number(100 * ela / p["db_time"], 1),
            number(100 * cpu / ela, 1) if ela else "",
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
            (l1, number(s1, 2), number(s2, 2), number(100 * (s2 - s1) / s1, 1) if s1 else "")
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
