"""The report files the demo renders in Oracle's layouts (app/demo/report_files.py, docs/report-formats.md): every
layout renders from the tests' demo store (the generator of `make run`, read-only), with every section the page lists
for it, in order; values read back at the documented columns and compared with the store's own rows by the documented
formula (a counter's delta over the snapshots' seconds, rounded half up as TO_CHAR rounds); numbers too wide for their
column are '#'; the HTML is well-formed and the database's text in it is escaped; a folder holds a file per hour,
named as Oracle's scripts name them, and none across a restart."""

import itertools
import re
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from html.parser import HTMLParser

import pytest

from app.demo import report_files as rf
from app.demo.report_style import avg_wait, cell, kilo, tm, to_char

SECTIONS_19 = [
    "WORKLOAD REPOSITORY report for",
    "Load Profile",
    "Top 10 Foreground Events by Total Wait Time",
    "Wait Classes by Total Wait Time",
    "Time Model Statistics",
    "Operating System Statistics",
    "Foreground Wait Class",
    "Foreground Wait Events",
    "Background Wait Events",
    "Wait Event Histogram",
    "SQL ordered by Elapsed Time",
    "SQL ordered by CPU Time",
    "SQL ordered by Gets",
    "SQL ordered by Reads",
    "SQL ordered by Executions",
    "Instance Activity Stats",
    "Instance Activity Stats - Absolute Values",
    "IOStat by Function summary",
    "Segments by Logical Reads",
    "Segments by Physical Reads",
    "init.ora Parameters",
    "End of Report",
]
SECTIONS_11 = [s for s in SECTIONS_19 if s not in ("Wait Classes by Total Wait Time",)]
SECTIONS_11[2] = "Top 5 Timed Foreground Events"
SECTIONS_GLOBAL = [
    "WORKLOAD REPOSITORY REPORT (RAC)",
    "Database Summary",
    "Database Instances Included In Report",
    "OS Statistics By Instance",
    "Time Model",
    "Foreground Wait Events",
    "System Statistics",
    "SQL ordered by Elapsed Time (Global)",
    "SQL ordered by CPU Time (Global)",
    "init.ora Parameters",
    "End of Report",
]


def half_up(value, places=1) -> str:
    return f"{Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):,}"


def dbid_of(sql3, name):
    return sql3.execute("select dbid from dba_hist_database_instance where db_name = ?", (name,)).fetchone()[0]


def last_hour(sql3, dbid, inst=1):
    """The newest pair of snapshots two apart (an hour) of the same startup: the recent days keep segments and
    histograms too."""
    rows = sql3.execute(
        "select snap_id, startup_time, end_interval_time from dba_hist_snapshot where dbid = ? and instance_number = ? "
        "order by snap_id desc limit 30",
        (dbid, inst),
    ).fetchall()
    for (hi, up, _), (_, _, _), (lo, up0, _) in zip(rows, rows[1:], rows[2:], strict=False):
        if up == up0:
            return lo, hi
    raise AssertionError("no hour without a restart")


def delta(sql3, view, dbid, inst, lo, hi, name):
    (a,), (b,) = sql3.execute(
        f"select value from {view} where dbid = ? and instance_number = ? and stat_name = ? and snap_id in (?, ?) "
        "order by snap_id",
        (dbid, inst, name, lo, hi),
    ).fetchall()
    return b - a


def seconds(sql3, dbid, inst, lo, hi):
    t0, t1 = (
        datetime.fromisoformat(r[0])
        for r in sql3.execute(
            "select end_interval_time from dba_hist_snapshot where dbid = ? and instance_number = ? "
            "and snap_id in (?, ?) order by snap_id",
            (dbid, inst, lo, hi),
        )
    )
    return (t1 - t0).total_seconds()


def section(text, title):
    """The lines of one section of a text report, from its heading to its closing rule or the blank line after it."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i] in (" " * 26 + "-" * 54, " " * 10 + "-" * 61)),
        len(lines),
    )
    return lines[start:end]


def row(lines, label):
    return next(line for line in lines if line.startswith(label))


@pytest.fixture(scope="module")
def orcl(sql3):
    dbid = dbid_of(sql3, "ORCL")
    lo, hi = last_hour(sql3, dbid)
    return dbid, lo, hi


@pytest.fixture(scope="module")
def reports(sql3, orcl):
    dbid, lo, hi = orcl
    return {layout: rf.awr_report_file(sql3, dbid, 1, lo, hi, layout) for layout in rf.LAYOUTS[:4]}


@pytest.mark.parametrize(
    ("layout", "titles"), [("awr-text-19", SECTIONS_19), ("awr-text-11.2", SECTIONS_11)], ids=["19", "11.2"]
)
def test_text_sections_in_order(reports, layout, titles):
    text = reports[layout]
    starts = [i for i, line in enumerate(text.split("\n")) for t in titles[:1] if line == t]
    assert starts == [0]
    positions = []
    for title in titles:
        found = [m.start() for m in re.finditer(rf"(?m)^{re.escape(title)}(?=\s|$)", text)]
        assert found, title
        positions.append(found[0])
    assert positions == sorted(positions)
    assert "Complete List of SQL Text" not in text  # the text report prints each statement's text under it


@pytest.mark.parametrize("layout", ["awr-html-19", "awr-html-11.2"])
def test_html_sections_and_summaries(reports, layout):
    doc = reports[layout]
    titles = SECTIONS_19 if layout.endswith("19") else SECTIONS_11
    for title in titles[1:-1]:
        assert re.search(
            rf"<h3 class=\"awr\"><a class=\"awr\" name=\"\d+\"></a>{re.escape(title)}</h3>|<p />"
            rf"{re.escape(title)}<p />",
            doc,
        ), title
    assert "Complete List of SQL Text" in doc
    assert 'summary="This table displays load profile"' in doc
    assert doc.count('class="tdiff"') == doc.count("<table")


def test_header_19(sql3, orcl, reports):
    dbid, lo, hi = orcl
    lines = reports["awr-text-19"].split("\n")
    assert lines[2] == "DB Name         DB Id    Unique Name DB Role          Edition Release    RAC CDB"
    name, unique, role, edition, version, parallel, cdb = sql3.execute(
        "select db_name, db_unique_name, database_role, edition, version, parallel, cdb from "
        "dba_hist_database_instance where dbid = ? order by startup_time desc limit 1",
        (dbid,),
    ).fetchone()
    assert lines[4] == (f"{name:<12} {dbid:>11} {unique:<11} {role:<16} {edition:<7} {version:<10} {parallel:<3} {cdb}")
    snaps = [line for line in lines if "Snap:" in line]
    assert snaps[0].split()[2] == str(lo) and snaps[1].split()[2] == str(hi)
    minutes = seconds(sql3, dbid, 1, lo, hi) / 60
    assert row(lines, "   Elapsed:") == f"   Elapsed:{half_up(minutes, 2):>20} (mins)"
    db_time = delta(sql3, "dba_hist_sys_time_model", dbid, 1, lo, hi, "DB time")
    assert row(lines, "   DB Time:") == f"   DB Time:{half_up(db_time / 6e7, 2):>20} (mins)"


@pytest.mark.parametrize(
    ("layout", "label", "width"), [("awr-text-19", "Redo size (bytes):", 24), ("awr-text-11.2", "Redo size:", 17)]
)
def test_load_profile_redo_per_second_and_per_transaction(sql3, orcl, reports, layout, label, width):
    """docs/awr-rules.md §13: redo size's delta over the elapsed seconds, and over user commits + user rollbacks."""
    dbid, lo, hi = orcl
    redo = delta(sql3, "dba_hist_sysstat", dbid, 1, lo, hi, "redo size")
    txn = sum(delta(sql3, "dba_hist_sysstat", dbid, 1, lo, hi, n) for n in ("user commits", "user rollbacks"))
    line = row(section(reports[layout], "Load Profile"), label.rjust(width))
    assert line[:width] == label.rjust(width)
    per_second, per_txn = line[width:].split()
    assert per_second == half_up(redo / seconds(sql3, dbid, 1, lo, hi))
    assert per_txn == half_up(redo / txn)


def test_top_events_and_wait_classes(sql3, orcl, reports):
    dbid, lo, hi = orcl
    events = sql3.execute(
        "select event_name, wait_class, sum(case snap_id when ? then total_waits_fg else -total_waits_fg end), "
        "sum(case snap_id when ? then time_waited_micro_fg else -time_waited_micro_fg end) from dba_hist_system_event "
        "where dbid = ? and instance_number = 1 and snap_id in (?, ?) and wait_class != 'Idle' group by 1, 2",
        (hi, hi, dbid, lo, hi),
    ).fetchall()
    cpu = delta(sql3, "dba_hist_sys_time_model", dbid, 1, lo, hi, "DB CPU")
    db_time = delta(sql3, "dba_hist_sys_time_model", dbid, 1, lo, hi, "DB time")
    ranked = sorted([("DB CPU", "", None, cpu)] + [e for e in events if e[2] > 0], key=lambda e: -e[3])[:10]
    lines = section(reports["awr-text-19"], "Top 10 Foreground Events")
    rows = lines[lines.index("------------------------------ ----------- ---------- --------- ------ --------") + 1 :]
    assert len(rows[: len(ranked)]) == len(ranked)
    for line, (name, wclass, waits, micros) in zip(rows, ranked, strict=False):
        assert line[:30].rstrip() == name[:30]
        assert line[31:42].strip() == (f"{waits:,}" if waits is not None else "")
        assert line[43:53].strip() == kilo(micros / 1e6)
        assert line[54:63].strip() == (avg_wait(micros / waits) if waits else "")
        assert line[64:70].strip() == to_char(100 * micros / db_time, "999.9").strip()
        assert line[71:].rstrip() == wclass[:8]


def test_instance_activity_every_statistic(sql3, orcl, reports):
    dbid, lo, hi = orcl
    lines = section(reports["awr-text-19"], "Instance Activity Stats ")
    body = lines[lines.index("-------------------------------- ------------------ -------------- -------------") + 1 :]
    names = [
        n
        for (n,) in sql3.execute(
            "select distinct stat_name from dba_hist_sysstat where dbid = ? and instance_number = 1 and snap_id = ?",
            (dbid, hi),
        )
    ]
    readings = {  # docs/awr-rules.md §8's list, kept here apart from the code's (app/history/catalog.py)
        "logons current",
        "opened cursors current",
        "session cursor cache count",
        "session pga memory",
        "session pga memory max",
        "session uga memory",
        "session uga memory max",
        "workarea memory allocated",
        "session stored procedure space",
    }
    counters = sorted(n for n in names if n not in readings)
    assert [line[:32].rstrip() for line in body] == [n[:32].rstrip() for n in counters]
    commits = delta(sql3, "dba_hist_sysstat", dbid, 1, lo, hi, "user commits")
    txn = commits + delta(sql3, "dba_hist_sysstat", dbid, 1, lo, hi, "user rollbacks")
    line = row(body, "user commits ")
    assert line[33:51].strip() == f"{commits:,.0f}"
    assert line[52:66].strip() == half_up(commits / seconds(sql3, dbid, 1, lo, hi))
    assert line[67:].strip() == half_up(commits / txn)
    absolute = section(reports["awr-text-19"], "Instance Activity Stats - Absolute Values")
    logons = sql3.execute(
        "select value from dba_hist_sysstat where dbid = ? and instance_number = 1 and snap_id in (?, ?) "
        "and stat_name = 'logons current' order by snap_id",
        (dbid, lo, hi),
    ).fetchall()
    assert row(absolute, "logons current").split()[2:] == [f"{v:,.0f}" for (v,) in logons]


def test_osstat_counters_and_readings(sql3, orcl, reports):
    dbid, lo, hi = orcl
    lines = section(reports["awr-text-19"], "Operating System Statistics")
    busy = delta(sql3, "dba_hist_osstat", dbid, 1, lo, hi, "BUSY_TIME")
    assert row(lines, "BUSY_TIME ").split()[1] == f"{busy:,.0f}"
    (cpus,) = sql3.execute(
        "select value from dba_hist_osstat where dbid = ? and instance_number = 1 and snap_id = ? and stat_name = "
        "'NUM_CPUS'",
        (dbid, lo),
    ).fetchone()
    assert row(lines, "NUM_CPUS ").split()[1:] == [f"{cpus:,.0f}"]


def test_sql_elapsed_rows(sql3, orcl, reports):
    dbid, lo, hi = orcl
    top = sql3.execute(
        "select sql_id, sum(elapsed_time_delta), sum(executions_delta) from dba_hist_sqlstat where dbid = ? "
        "and instance_number = 1 and snap_id > ? and snap_id <= ? group by sql_id order by 2 desc, 1 limit 3",
        (dbid, lo, hi),
    ).fetchall()
    lines = section(reports["awr-text-19"], "SQL ordered by Elapsed Time")
    for sql_id, ela, execs in top:
        line = next(line for line in lines if line.endswith(" " + sql_id))
        assert line[:16].strip() == half_up(ela / 1e6)
        assert line[17:31].strip() == f"{execs:,}"
        assert line[32:45].strip() == half_up(ela / 1e6 / execs, 2)
        text = sql3.execute(
            "select sql_text from dba_hist_sqltext where dbid = ? and sql_id = ?", (dbid, sql_id)
        ).fetchone()[0]
        assert lines[lines.index(line) + 2] == text.split("\n")[0][:80]  # after the Module: line


def test_histogram_and_segments(sql3, orcl, reports):
    dbid, lo, hi = orcl
    counts = dict(
        sql3.execute(
            "select wait_time_milli, sum(case snap_id when ? then wait_count else -wait_count end) from "
            "dba_hist_event_histogram where dbid = ? and instance_number = 1 and snap_id in (?, ?) "
            "and event_name = 'log file sync' group by 1",
            (hi, dbid, lo, hi),
        ).fetchall()
    )
    total = sum(counts.values())
    line = row(section(reports["awr-text-19"], "Wait Event Histogram"), "log file sync ")
    assert line[27:32].strip() == kilo(total, width=5)
    assert line[33:38].strip() == (to_char(100 * counts[1] / total, "999.9").strip() if counts.get(1) else "")
    top = sql3.execute(
        'select o.object_name, sum(s.logical_reads_delta) from dba_hist_seg_stat s join dba_hist_seg_stat_obj o '
        'on o.dbid = s.dbid and o."OBJ#" = s."OBJ#" and o."DATAOBJ#" = s."DATAOBJ#" and o."TS#" = s."TS#" '
        "where s.dbid = ? and s.instance_number = 1 and s.snap_id > ? and s.snap_id <= ? group by s.\"OBJ#\", "
        "s.\"DATAOBJ#\", s.\"TS#\" order by 2 desc limit 1",
        (dbid, lo, hi),
    ).fetchone()
    lines = section(reports["awr-text-19"], "Segments by Logical Reads")
    line = next(line for line in lines if line.startswith(top[0][:20] + " "))
    whole = delta(sql3, "dba_hist_sysstat", dbid, 1, lo, hi, "session logical reads")
    assert line.split()[-2:] == [f"{top[1]:,}", half_up(100 * top[1] / whole, 2)]


def test_parameters_begin_and_end(sql3, orcl, reports):
    dbid, _lo, hi = orcl
    lines = section(reports["awr-text-19"], "init.ora Parameters")
    values = sql3.execute(
        "select parameter_name, value from dba_hist_parameter where dbid = ? and instance_number = 1 and snap_id = ? "
        "and (isdefault = 'FALSE' or ismodified != 'FALSE') order by 1",
        (dbid, hi),
    ).fetchall()
    body = lines[lines.index("----------------------------- --------------------------------- --------------") + 1 :]
    assert [(line[:29].rstrip(), line[30:63].rstrip()) for line in body] == [(n[:29], v[:33]) for n, v in values]


def test_numbers_too_wide_and_names_cut():
    assert to_char(123456, "999.9") == "######"
    assert cell("1,234,567", 5) == "#####"
    assert cell("enq: TX - row lock contention (long)", 26, left=True) == "enq: TX - row lock content"
    assert to_char(0.4, "999.9").strip() == ".4" and to_char(0.4, "990.9").strip() == "0.4"
    assert (tm(52.86), tm(0.44), tm(0), tm(2.0)) == ("52.9", ".4", "0", "2")
    assert (avg_wait(52.86e6), avg_wait(3230), avg_wait(268.69), avg_wait(0)) == (
        "52.86 s",
        "3.23ms",
        "268.69us",
        ".00ns",
    )
    assert (kilo(30829), kilo(3926.14), kilo(165359, width=5)) == ("30.8K", "3926.1", "165K")


class Tags(HTMLParser):
    """Every element closed in order (the void elements aside)."""

    VOID = frozenset({"p", "br", "meta", "img", "hr"})

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_html_well_formed_and_text_escaped(sql3, orcl, monkeypatch):
    """Every statement of the interval listed (so the demo's hostile texts are in it): the elements nest, the SQL
    text and segment names are text, never markup."""
    dbid = orcl[0]
    (hi,) = sql3.execute(
        "select max(s.snap_id) from dba_hist_sqlstat s join dba_hist_sqltext t on t.dbid = s.dbid and t.sql_id = "
        "s.sql_id where s.dbid = ? and s.instance_number = 1 and t.sql_text like '%<%'",
        (dbid,),
    ).fetchone()
    lo = hi - 2
    monkeypatch.setattr(rf, "TOP_SQL", 10_000)
    monkeypatch.setattr(rf, "TOP_SEGMENTS", 10_000)
    hostile = sql3.execute(
        "select t.sql_text from dba_hist_sqltext t where t.dbid = ? and t.sql_text like '%<%' and exists (select 1 "
        "from dba_hist_sqlstat s where s.dbid = t.dbid and s.sql_id = t.sql_id and s.snap_id > ? and s.snap_id <= ? "
        "and s.instance_number = 1)",
        (dbid, lo, hi),
    ).fetchall()
    assert hostile
    for layout in ("awr-html-19", "awr-html-11.2"):
        doc = rf.awr_report_file(sql3, dbid, 1, lo, hi, layout)
        parser = Tags()
        parser.feed(doc)
        assert parser.errors == [] and parser.stack == []
        for (text,) in hostile:
            assert text in "".join(parser.text)
        assert "<script" not in doc and "<img" not in doc and "</td></tr><tr><td>injected" not in doc


def test_rac_global_report(sql3):
    dbid = dbid_of(sql3, "RACPROD")
    lo, hi = last_hour(sql3, dbid, 1)
    text = rf.awr_report_file(sql3, dbid, None, lo, hi, "awr-global-text-19")
    positions = [text.index(t) for t in SECTIONS_GLOBAL]
    assert positions == sorted(positions)
    instances = section(text, "Database Instances Included In Report")
    system = section(text, "System Statistics ")
    for inst, name in sql3.execute(
        "select distinct instance_number, instance_name from dba_hist_database_instance where dbid = ? order by 1",
        (dbid,),
    ):
        assert any(line.split()[:2] == [str(inst), name] for line in instances)
        commits = delta(sql3, "dba_hist_sysstat", dbid, inst, lo, hi, "user commits")
        line = next(line for line in system if line[:4].strip() == str(inst) and line[5:37].rstrip() == "user commits")
        assert line[38:56].strip() == f"{commits:,.0f}"
    params = section(text, "init.ora Parameters")
    assert sum(1 for line in params if line.startswith("instance_number ")) == 2


def test_restart_refused(sql3):
    dbid = dbid_of(sql3, "RACPROD")
    rows = sql3.execute(
        "select snap_id, startup_time from dba_hist_snapshot where dbid = ? and instance_number = 2 order by snap_id",
        (dbid,),
    ).fetchall()
    across = next(((a[0], b[0]) for a, b in itertools.pairwise(rows) if a[1] != b[1]), None)
    if across is None:
        pytest.skip("the tests' history holds no restart of instance 2")
    with pytest.raises(rf.RangeError):
        rf.awr_report_file(sql3, dbid, 2, *across, "awr-text-19")


def test_folder_of_hourly_reports(demo_store, sql3, tmp_path):
    dbid = dbid_of(sql3, "ORCL")
    lo, _hi = last_hour(sql3, dbid)
    start = datetime.fromisoformat(
        sql3.execute(
            "select end_interval_time from dba_hist_snapshot where dbid = ? and snap_id = ?", (dbid, lo)
        ).fetchone()[0]
    )
    start -= timedelta(hours=2)
    paths = rf.report_folder(demo_store[0], tmp_path, "ORCL", 1, start, 3, "awr-text-19")
    snaps = dict(
        sql3.execute(
            "select end_interval_time, snap_id from dba_hist_snapshot where dbid = ? and instance_number = 1", (dbid,)
        )
    )
    ends = [snaps.get(str(start + timedelta(hours=k))) for k in range(4)]
    expected = [f"awrrpt_1_{a}_{b}.txt" for a, b in itertools.pairwise(ends) if a and b]
    assert [p.name for p in paths] == expected and len(expected) == 3
    for p in paths:
        assert p.read_text().startswith("WORKLOAD REPOSITORY report for")
    html_paths = rf.report_folder(demo_store[0], tmp_path, "ORCL", 1, start, 1, "awr-html-19")
    assert [p.name for p in html_paths] == [expected[0].replace(".txt", ".html")]
    rac = rf.report_folder(demo_store[0], tmp_path, "RACPROD", None, start, 1, "awr-global-text-19")
    assert all(re.fullmatch(r"awrrac_\d+_\d+\.txt", p.name) for p in rac)
