"""Statspack report files (docs/report-formats.md, "statspack-text-19"): the demo's BILLING reports rendered from its
STATS$ tables (app/demo/statspack_files.py) read back by the parser (app/report_files/statspack_text.py) equal the
store's rows by sprepins.sql's arithmetic, computed here with plain SQL (docs/awr-rules.md §31); a day of them imported
(docs/awr-rules.md §35) is a Statspack database whose Load Profile gives back each report's printed one within
Oracle's rounding, and which answers what Statspack does not keep with a 404 not_in_source."""

import itertools
import re
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

import pytest
from report_files import LABELS, given_back, snaps

from app import create_app
from app.demo.statspack_files import statspack_folder, statspack_report
from app.report_files import files
from app.report_files.importer import import_files
from app.report_files.model import ReportError
from app.report_files.parse import parse
from app.settings import Settings

SECTIONS = [
    "STATSPACK report for",
    "Load Profile",
    "Instance Efficiency Indicators",
    "Top 5 Timed Events",
    "Host CPU",
    "Time Model System Stats",
    "Foreground Wait Events",
    "Background Wait Events",
    "Wait Event Histogram",
    "SQL ordered by CPU",
    "SQL ordered by Elapsed time",
    "SQL ordered by Gets",
    "SQL ordered by Reads",
    "SQL ordered by Executions",
    "Instance Activity Stats",
    "OS Statistics",
    "IO Stat by Function - summary",
    "Segments by Logical Reads",
    "Segments by Physical Reads",
    "init.ora Parameters",
    "End of Report",
]
STATS = {  # Load Profile label -> STATS$SYSSTAT statistic (sprepins.sql's STAT_CHANGES)
    "Redo size": "redo size",
    "Logical reads": "session logical reads",
    "Block changes": "db block changes",
    "Physical reads": "physical reads",
    "Physical writes": "physical writes",
    "User calls": "user calls",
    "Parses": "parse count (total)",
    "Hard parses": "parse count (hard)",
    "Logons": "logons cumulative",
    "Executes": "execute count",
    "Rollbacks": "user rollbacks",
}
READINGS = ("logons current", "opened cursors current", "workarea memory allocated", "session cursor cache count")


def rounded(value, places) -> Decimal:
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def two_then_one(value) -> float:
    """sprepins.sql's ROUND(x, 2) printed through a mask of one decimal."""
    return float(rounded(rounded(value, 2), 1))


@pytest.fixture(scope="module")
def billing(sql3):
    (dbid,) = sql3.execute("SELECT DISTINCT dbid FROM stats$database_instance WHERE db_name = 'BILLING'").fetchone()
    return dbid


@pytest.fixture(scope="module")
def hour(sql3, billing):
    """The newest pair of consecutive level-7 snapshots of the same startup."""
    snaps = sql3.execute(
        "SELECT snap_id, startup_time, snap_level FROM stats$snapshot WHERE dbid = ? AND instance_number = 1 "
        "ORDER BY snap_id DESC LIMIT 10",
        (billing,),
    ).fetchall()
    for (hi, up, _), (lo, up0, level) in itertools.pairwise(snaps):
        if up == up0 and level >= 7:
            return lo, hi
    raise AssertionError("no hour of one startup at level 7")


@pytest.fixture(scope="module")
def report(sql3, billing, hour):
    text = statspack_report(sql3, billing, 1, *hour)
    return text, parse(f"sp_{hour[0]}_{hour[1]}.lst", text.encode())


def deltas(sql3, dbid, lo, hi, sql: str) -> dict:
    """name -> end value less begin value of a (snap_id, name, value) query, for names at both snapshots."""
    at: dict = {}
    for snap, name, value in sql3.execute(sql, (dbid, lo, hi)):
        at.setdefault(name, {})[snap] = value
    return {n: v[hi] - v[lo] for n, v in at.items() if lo in v and hi in v}


def test_sections_in_order_and_the_header(report, sql3, billing, hour):
    text, rep = report
    lines = text.splitlines()
    positions = []
    for title in SECTIONS:
        found = [i for i, line in enumerate(lines) if line.startswith(title)]
        assert found, title
        positions.append(found[0])
    assert positions == sorted(positions)
    lo, hi = hour
    (t0, up), (t1, _) = sql3.execute(
        "SELECT snap_time, startup_time FROM stats$snapshot WHERE dbid = ? AND instance_number = 1 "
        "AND snap_id IN (?, ?) ORDER BY snap_id",
        (billing, lo, hi),
    ).fetchall()
    seconds = round((datetime.fromisoformat(t1) - datetime.fromisoformat(t0)).total_seconds())
    assert (rep.source, rep.layout, rep.dbid, rep.db_name) == ("statspack", "statspack-text-19", billing, "BILLING")
    assert (rep.begin_snap, rep.end_snap) == hour
    assert (rep.begin_time, rep.end_time) == (datetime.fromisoformat(t0), datetime.fromisoformat(t1))
    assert rep.elapsed_minutes == float(rounded(seconds / 60, 2))
    assert rep.instances[0].startup == datetime.fromisoformat(up).replace(second=0)
    assert rep.missing == []
    assert all("overflowed" in n for n in rep.notes)  # an idle event's average of more than 99,990 ms
    # the header's table leaves the database's name blank: the sections' DB/Inst names it
    assert re.search(rf"^ {{8}} +{billing} BILLING ", text, re.M)


def test_load_profile_and_activity_are_the_stats_rows_by_sprepins_arithmetic(report, sql3, billing, hour):
    _, rep = report
    lo, hi = hour
    stats = deltas(
        sql3, billing, lo, hi, "SELECT snap_id, name, value FROM stats$sysstat WHERE dbid = ? AND snap_id IN (?, ?)"
    )
    model = deltas(
        sql3,
        billing,
        lo,
        hi,
        "SELECT m.snap_id, n.stat_name, m.value FROM stats$sys_time_model m JOIN stats$time_model_statname n "
        "USING (stat_id) WHERE m.dbid = ? AND m.snap_id IN (?, ?)",
    )
    (pga,) = deltas(
        sql3,
        billing,
        lo,
        hi,
        "SELECT snap_id, name, value FROM stats$pgastat WHERE dbid = ? AND snap_id IN (?, ?) "
        "AND name = 'bytes processed'",
    ).values()
    seconds = (rep.end_time - rep.begin_time).total_seconds()
    tran = stats["user commits"] + stats["user rollbacks"]
    totals = {label: stats[name] for label, name in STATS.items()}
    totals |= {"DB time(s)": model["DB time"] / 1e6, "DB CPU(s)": model["DB CPU"] / 1e6}
    totals |= {"W/A MB processed": pga / 1048576, "Transactions": tran}
    assert set(rep.load_profile) == set(LABELS)
    for label, (per_second, per_txn) in rep.load_profile.items():
        assert per_second == two_then_one(totals[label] / seconds), label
        if label != "Transactions":
            assert per_txn == two_then_one(totals[label] / tran), label
    # Instance Activity Stats: every statistic but the readings whose end value is positive and not below the begin
    ends = dict(sql3.execute("SELECT name, value FROM stats$sysstat WHERE dbid = ? AND snap_id = ?", (billing, hi)))
    expected = {n: v for n, v in stats.items() if n not in READINGS and ends[n] > 0 and v >= 0}
    assert rep.data[1].sysstat == expected
    for name, seconds_printed in rep.data[1].time_model.items():
        assert abs(seconds_printed - model[name] / 1e6) <= 0.05 + 1e-9, name
    assert {n for n, v in model.items() if v > 0} == set(rep.data[1].time_model)


def test_wait_events_os_and_histogram_are_the_stats_rows(report, sql3, billing, hour):
    _, rep = report
    lo, hi = hour
    rows = sql3.execute(
        "SELECT e.event, e.total_waits - b.total_waits, e.total_waits_fg - b.total_waits_fg, "
        "e.time_waited_micro - b.time_waited_micro, e.time_waited_micro_fg - b.time_waited_micro_fg "
        "FROM stats$system_event e JOIN stats$system_event b ON b.dbid = e.dbid AND b.event_id = e.event_id "
        "AND b.instance_number = e.instance_number AND b.snap_id = ? WHERE e.dbid = ? AND e.snap_id = ?",
        (lo, billing, hi),
    ).fetchall()
    events = rep.data[1].events
    shown = 0
    for name, waits, waits_fg, micros, micros_fg in rows:
        for side, w, us in (("fg", waits_fg, micros_fg), ("bg", waits - waits_fg, micros - micros_fg)):
            if w > 0 and us >= 1000:  # Total Wait Time (s) >= .001
                e = events[name]
                assert getattr(e, f"waits_{side}") == w, (name, side)
                assert abs(getattr(e, f"time_{side}") - us / 1e6) <= 0.5, (name, side)
                shown += 1
    assert shown >= 20
    os_rows = deltas(
        sql3,
        billing,
        lo,
        hi,
        "SELECT s.snap_id, n.stat_name, s.value FROM stats$osstat s JOIN stats$osstatname n USING (osstat_id) "
        "WHERE s.dbid = ? AND s.snap_id IN (?, ?)",
    )
    osstat = rep.data[1].osstat
    for name in ("BUSY_TIME", "IDLE_TIME", "USER_TIME", "SYS_TIME", "IOWAIT_TIME"):
        assert osstat[name] == os_rows[name], name
    (cpus,) = sql3.execute(
        "SELECT s.value FROM stats$osstat s JOIN stats$osstatname n USING (osstat_id) WHERE s.dbid = ? "
        "AND s.snap_id = ? AND n.stat_name = 'NUM_CPUS'",
        (billing, hi),
    ).fetchone()
    assert osstat["NUM_CPUS"] == cpus and "LOAD" not in osstat
    # the histogram: each event's waits in its buckets, back within the printed percentage's rounding
    hist = {}
    for name, milli, count in sql3.execute(
        "SELECT n.name, h.wait_time_milli, sum(CASE h.snap_id WHEN ? THEN h.wait_count ELSE -h.wait_count END) "
        "FROM stats$event_histogram h JOIN v$event_name n USING (event_id) WHERE h.dbid = ? AND h.snap_id IN (?, ?) "
        "GROUP BY n.name, h.wait_time_milli",
        (hi, billing, lo, hi),
    ):
        hist.setdefault(name, {})[milli] = count
    for name, buckets in rep.data[1].event_histograms.items():
        total = sum(hist[name].values())
        for bound, count in buckets.items():
            if bound == 1024:
                real = sum(v for ms, v in hist[name].items() if 64 <= ms <= 1024)
            elif bound == float("inf"):
                real = sum(v for ms, v in hist[name].items() if ms > 1024)
            else:
                real = hist[name].get(int(bound), 0)
            # the total printed truncated to thousands ('1014K') from 10,000, the share to a tenth of a percent
            unit = 1 if total <= 9999 else 1000 if total // 1000 <= 9999 else 1_000_000
            assert abs(count - real) <= unit * real / total + 0.0005 * total + 1, (name, bound)


def test_sql_and_segments_are_sprepins_deltas(report, sql3, billing, hour):
    text, rep = report
    lo, hi = hour
    expected = {}
    for ohv, e_addr, e_ex, e_cpu, e_ela, e_gets, b_addr, b_ex, b_cpu, b_ela, b_gets in sql3.execute(
        "SELECT e.old_hash_value, e.address, e.executions, e.cpu_time, e.elapsed_time, e.buffer_gets, b.address, "
        "b.executions, b.cpu_time, b.elapsed_time, b.buffer_gets FROM stats$sql_summary e "
        "LEFT JOIN stats$sql_summary b ON b.dbid = e.dbid AND b.instance_number = e.instance_number "
        "AND b.old_hash_value = e.old_hash_value AND b.text_subset = e.text_subset AND b.snap_id = ? "
        "WHERE e.dbid = ? AND e.snap_id = ?",
        (lo, billing, hi),
    ):
        whole = b_addr is None or b_addr != e_addr or e_ex < b_ex
        expected[str(ohv)] = (
            (e_ex, e_cpu, e_ela, e_gets) if whole else (e_ex - b_ex, e_cpu - b_cpu, e_ela - b_ela, e_gets - b_gets)
        )
    assert rep.sql
    for s in rep.sql:
        ex, cpu, ela, gets = expected[s.sql_id]
        assert s.executions == ex, s.sql_id
        if s.cpu is not None:
            assert abs(s.cpu - cpu / 1e6) <= 0.005 + 1e-9, s.sql_id
        if s.elapsed is not None:
            assert abs(s.elapsed - ela / 1e6) <= 0.005 + 1e-9, s.sql_id
        if s.buffer_gets is not None:
            assert s.buffer_gets == gets, s.sql_id
        assert s.text, s.sql_id
    # the first statement by CPU is the store's
    top = max(expected, key=lambda k: expected[k][1])
    assert re.search(rf"^ *[\d.]+ +[\d,]+ .* {top}$", text.split("SQL ordered by CPU")[1], re.M)
    segments = {
        (owner, name): (lr, pr)
        for owner, name, lr, pr in sql3.execute(
            'SELECT o.owner, o.object_name, e.logical_reads - coalesce(b.logical_reads, 0), '
            "e.physical_reads - coalesce(b.physical_reads, 0) FROM stats$seg_stat e LEFT JOIN stats$seg_stat b "
            'ON b.dbid = e.dbid AND b."OBJ#" = e."OBJ#" AND b."DATAOBJ#" = e."DATAOBJ#" AND b.snap_id = ? '
            'JOIN stats$seg_stat_obj o ON o.dbid = e.dbid AND o."OBJ#" = e."OBJ#" AND o."DATAOBJ#" = e."DATAOBJ#" '
            "WHERE e.dbid = ? AND e.snap_id = ?",
            (lo, billing, hi),
        )
    }
    assert rep.segments
    for seg in rep.segments:
        lr, pr = segments[(seg.owner, seg.object_name)]
        assert seg.values.get("logical_reads", lr) == lr and seg.values.get("physical_reads", pr) == pr
    top5 = sorted(segments.values(), key=lambda v: -v[0])[:5]
    assert sorted(s.values["logical_reads"] for s in rep.segments if "logical_reads" in s.values) == sorted(
        v[0] for v in top5
    )
    params = dict(
        sql3.execute(
            "SELECT name, value FROM stats$parameter WHERE dbid = ? AND snap_id = ? AND isdefault = 'FALSE'",
            (billing, hi),
        )
    )
    assert rep.data[1].parameters == {k: v for k, v in params.items() if not k.startswith("__")}


def test_a_report_cut_short_is_refused_naming_it(report):
    text, _ = report
    with pytest.raises(ReportError, match=r"sp_1_2\.lst: the Statspack report is cut short in section 'OS Statistics'"):
        parse("sp_1_2.lst", text.split("IO Stat by Function")[0].encode())


# -- a day of reports imported ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def day_folder(tmp_path_factory, demo_store, sql3, billing):
    """A day of hourly reports of BILLING, the day before its newest snapshot."""
    (newest,) = sql3.execute("SELECT max(snap_time) FROM stats$snapshot WHERE dbid = ?", (billing,)).fetchone()
    start = datetime.fromisoformat(newest).replace(hour=0, minute=0, second=0) - timedelta(days=1)
    return statspack_folder(demo_store[0], tmp_path_factory.mktemp("statspack"), "BILLING", start, 24)


@pytest.fixture(scope="module")
def imported(tmp_path_factory, day_folder):
    path = tmp_path_factory.mktemp("store") / "reports.sqlite"
    app = create_app(Settings.from_env({}, targets={"reports": {"reports": str(path)}}, answer_cache_mb=0))
    outcome = import_files(app.extensions["awrlens"].stores["reports"], files.gather([day_folder[0].parent]))
    assert len(outcome.imported) == len(day_folder) >= 20
    client = app.test_client()
    (db,) = client.get("/api/v1/dbs").get_json()["databases"]
    return client, db


def test_a_day_imported_is_a_statspack_database(imported):
    _, db = imported
    assert (db["source"], db["db_name"]) == ("statspack", "BILLING")


def test_each_report_gives_back_its_printed_load_profile(imported, day_folder):
    client, db = imported
    compared = 0
    for path in day_folder:
        printed = parse(path.name, path.read_bytes()).load_profile
        lo, hi = snaps(path)
        body = client.get(
            f"/api/v1/dbs/{db['id']}/load-profile", query_string={"begin_snap": lo, "end_snap": hi}
        ).get_json()
        assert body["elapsed_seconds"] == 3600 and body["left_out"] == []
        compared += given_back(path, printed, body)
    assert compared == 15 * len(day_folder)


def test_what_statspack_does_not_keep_is_not_in_source(imported, day_folder):
    client, db = imported
    lo, hi = snaps(day_folder[-1])
    resp = client.get(f"/api/v1/dbs/{db['id']}/activity", query_string={"begin_snap": lo, "end_snap": hi})
    assert resp.status_code == 404
    assert resp.get_json()["error"]["code"] == "not_in_source"
    # the statements are the reports', by OLD_HASH_VALUE, with the work each report printed
    printed = {s.sql_id: s for s in parse(day_folder[-1].name, day_folder[-1].read_bytes()).sql}
    body = client.get(
        f"/api/v1/dbs/{db['id']}/top-sql", query_string={"begin_snap": lo, "end_snap": hi, "order_by": "cpu"}
    ).get_json()
    got = {r["sql_id"]: r for r in body["rows"]}
    for sql_id, s in printed.items():
        if s.cpu is not None and sql_id in got:
            assert got[sql_id]["cpu_s"] == pytest.approx(s.cpu, abs=0.01)
            assert got[sql_id]["executions"] == s.executions
    assert set(printed) & set(got)
