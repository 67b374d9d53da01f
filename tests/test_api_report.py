"""The app's own report of a range (GET /dbs/{db}/report, docs/awr-rules.md §28) and a range's snapshot ids
(GET /dbs/{db}/range).

The report's headline figures are compared with the demo store read by plain SQL here (deltas of the counters at the
range's two snapshots, as the AWR report takes them), never with the app's own code; its headers forbid scripts.
Markup in database text is covered on a hostile store in test_browser_xss.py.
"""

import base64
import re
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta
from html.parser import HTMLParser

import pytest
from conftest import assert_error
from contract import dbid_of, ok, url

SECTIONS = [
    "header",
    "charts",
    "load-profile",
    "time-model",
    "top-events",
    "wait-classes",
    "top-sql",
    "io-functions",
    "os-statistics",
    "tablespaces",
    "changes",
]
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


class Report(HTMLParser):
    """A report's sections (their ids), the text of each table row per section, the images and every tag seen."""

    def __init__(self, text):
        super().__init__()
        self.sections, self.rows, self.images, self.tags, self.facts, self.text = [], {}, [], [], {}, []
        self._section = self._row = self._cell = None
        self._dt = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag in ("section", "header") and attrs.get("id"):
            self._section = attrs["id"]
            self.sections.append(self._section)
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th", "dt", "dd"):
            self._cell = ""
        elif tag == "img":
            self.images.append(attrs)

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.setdefault(self._section, []).append(self._row)
            self._row = None
        elif tag == "dt":
            self._dt, self._cell = self._cell.strip(), None
        elif tag == "dd":
            self.facts[self._dt], self._cell = self._cell.strip(), None

    def table(self, section):
        """{first cell: the row's cells} of a section's table, its header row left out."""
        return {r[0]: r for r in self.rows.get(section, [])[1:]}


def number(text):
    return float(text.replace(",", "").split()[0])


def report(api, db, **query):
    r = api.get(url(db, "/report"), query_string=query)
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    return r, Report(r.get_data(as_text=True))


def delta(sql3, view, dbid, names, lo, hi):
    """sum over instances of value(hi) - value(lo) of the named counters: no restart in the range."""
    marks = ",".join("?" * len(names))
    at = dict(
        sql3.execute(
            f"select snap_id, sum(value) from {view} where dbid = ? and stat_name in ({marks}) "
            f"and snap_id in (?, ?) group by snap_id",
            (dbid, *names, lo, hi),
        )
    )
    return at[hi] - at[lo]


def seconds_between(sql3, dbid, lo, hi):
    """The seconds between two snapshots' ends (the latest instance's)."""
    ends = dict(
        sql3.execute(
            "select snap_id, max(end_interval_time) from dba_hist_snapshot where dbid = ? and "
            "snap_id in (?, ?) group by snap_id",
            (dbid, lo, hi),
        )
    )
    return (datetime.fromisoformat(ends[hi]) - datetime.fromisoformat(ends[lo])).total_seconds()


def test_the_headline_figures_are_the_stores(api, dbs, window, sql3):
    db, (lo, hi) = dbs["rac"], window
    dbid = dbid_of(db)
    _resp, rep = report(api, db, begin_snap=lo, end_snap=hi)
    assert rep.sections == SECTIONS
    assert "changes" not in rep.rows  # no table: the window holds no restart and no missing snapshot
    elapsed = seconds_between(sql3, dbid, lo, hi)
    db_time = delta(sql3, "dba_hist_sys_time_model", dbid, ["DB time"], lo, hi) / 1e6
    name = sql3.execute("select distinct db_name from dba_hist_database_instance where dbid = ?", (dbid,)).fetchone()[0]
    assert f"{name} (DBID {dbid})" in rep.facts["Database"]
    assert rep.facts["Snapshots"].startswith(f"begin {lo} at ") and f"end {hi} at " in rep.facts["Snapshots"]
    assert number(rep.facts["Elapsed"]) == pytest.approx(elapsed / 60, abs=0.006)
    assert number(rep.facts["DB time"]) == pytest.approx(db_time / 60, abs=0.006)
    assert number(rep.facts["Average active sessions"]) == pytest.approx(db_time / elapsed, abs=0.006)
    profile = rep.table("load-profile")
    redo = delta(sql3, "dba_hist_sysstat", dbid, ["redo size"], lo, hi)
    assert number(profile["Redo size (bytes)"][5]) == pytest.approx(redo, abs=0.006)
    assert number(profile["Redo size (bytes)"][1]) == pytest.approx(redo / elapsed, rel=1e-6)  # whole above a million
    txns = delta(sql3, "dba_hist_sysstat", dbid, ["user commits", "user rollbacks"], lo, hi)
    assert number(profile["Transactions"][1]) == pytest.approx(txns / elapsed, abs=0.006)
    assert number(profile["DB Time(s)"][1]) == pytest.approx(db_time / elapsed, abs=0.006)
    # the top event: the largest foreground time among the non-idle events and DB CPU
    waits = dict(
        sql3.execute(
            "select event_name, sum(case snap_id when ? then time_waited_micro_fg else -time_waited_micro_fg end) "
            "from dba_hist_system_event where dbid = ? and snap_id in (?, ?) and wait_class != 'Idle' "
            "group by event_name",
            (hi, dbid, lo, hi),
        )
    )
    waits["DB CPU"] = delta(sql3, "dba_hist_sys_time_model", dbid, ["DB CPU"], lo, hi)
    top = max(waits, key=waits.get)
    first = rep.rows["top-events"][1]
    assert first[0] == top and number(first[3]) == pytest.approx(waits[top] / 1e6, abs=0.006)
    assert number(first[5]) == pytest.approx(100 * waits[top] / 1e6 / db_time, abs=0.06)
    # the time model's DB time, and the top statement by elapsed time (DBA_HIST_SQLSTAT's deltas in (lo, hi])
    assert number(rep.table("time-model")["DB time"][1]) == pytest.approx(db_time, abs=0.006)
    sql_id, ela = sql3.execute(
        "select sql_id, sum(elapsed_time_delta) from dba_hist_sqlstat where dbid = ? and "
        "snap_id > ? and snap_id <= ? group by sql_id order by 2 desc limit 1",
        (dbid, lo, hi),
    ).fetchone()
    by_elapsed = rep.rows["top-sql"][1]  # the first table's first row
    assert by_elapsed[0] == sql_id and number(by_elapsed[1]) == pytest.approx(ela / 1e6, abs=0.006)
    # the charts: two SVG images as data: URIs, the only images
    assert [i["src"].split(",")[0] for i in rep.images] == ["data:image/svg+xml;base64"] * 2
    assert all(i["alt"] for i in rep.images)


def test_top_sql_by_each_order_is_the_top_sql_answers(api, dbs, window, sql3):
    """The report reads top SQL by four orders in one statement (ranked once per order): the same statements, in the
    same order, as /top-sql by each; the first by reads is the store's."""
    db, (lo, hi) = dbs["rac"], (window[0] - 48, window[1])
    _, rep = report(api, db, begin_snap=lo, end_snap=hi)
    tables = [t for t in rep.rows["top-sql"] if t[0] == "SQL ID"]
    assert len(tables) == 4
    cells = rep.rows["top-sql"]
    starts = [k for k, row in enumerate(cells) if row[0] == "SQL ID"] + [len(cells)]
    for order, k in zip(("elapsed", "cpu", "gets", "reads"), starts[:-1], strict=True):
        shown = [row[0] for row in cells[k + 1 : starts[starts.index(k) + 1]]]
        assert shown == [
            r["sql_id"]
            for r in ok(api, url(db, "/top-sql"), order_by=order, limit=10, begin_snap=lo, end_snap=hi)["rows"]
        ], order
    (first,) = sql3.execute(
        "select sql_id from dba_hist_sqlstat where dbid = ? and snap_id > ? and snap_id <= ? "
        "group by sql_id order by sum(disk_reads_delta) desc limit 1",
        (dbid_of(db), lo, hi),
    ).fetchone()
    assert shown[0] == first


def test_the_charts_name_every_wait_class_and_instance(api, dbs, window, sql3):
    """The wait classes' chart: DB CPU, every non-idle class the store has, the CPU count; the AAS chart: one line per
    instance, its value axis up to the highest AAS of an instance in an interval (DB time / seconds, from the
    store)."""
    db, (lo, hi) = dbs["rac"], window
    dbid = dbid_of(db)
    _, rep = report(api, db, begin_snap=lo, end_snap=hi)
    classes, per_instance = (ET.fromstring(base64.b64decode(i["src"].split(",", 1)[1])) for i in rep.images)
    texts = [t.text for t in classes.iter("{http://www.w3.org/2000/svg}text")]
    stored = {
        c
        for (c,) in sql3.execute(
            "select distinct wait_class from dba_hist_system_event where dbid = ? and wait_class != 'Idle'", (dbid,)
        )
    }
    assert texts[0] == "Average active sessions by wait class"
    assert {"DB CPU", "CPUs"} | stored <= set(texts)
    lines = [t.text for t in per_instance.iter("{http://www.w3.org/2000/svg}text")]
    assert {"instance 1", "instance 2"} <= set(lines)
    peak = max(
        v / s
        for v, s in sql3.execute(  # the highest AAS of an instance in an interval of the range
            "select (b.value - a.value) / 1e6, "
            "(julianday(sb.end_interval_time) - julianday(sa.end_interval_time)) * 86400 "
            "from dba_hist_sys_time_model a join dba_hist_sys_time_model b on b.dbid = a.dbid and b.instance_number = "
            "a.instance_number and b.stat_name = a.stat_name and b.snap_id = a.snap_id + 1 "
            "join dba_hist_snapshot sa on "
            "sa.dbid = a.dbid and sa.instance_number = a.instance_number and sa.snap_id = a.snap_id "
            "join dba_hist_snapshot sb on sb.dbid = b.dbid and sb.instance_number = b.instance_number "
            "and sb.snap_id = b.snap_id "
            "where a.dbid = ? and a.stat_name = 'DB time' and a.snap_id >= ? and b.snap_id <= ?",
            (dbid, lo, hi),
        )
    )
    axis = [float(t.replace(",", "")) for t in lines[1:6]]
    assert axis[0] == 0 and peak <= axis[-1] < 2 * peak
    assert len(list(per_instance.iter("{http://www.w3.org/2000/svg}polyline"))) == 2


def test_headers_download_and_cache(api, dbs, window):
    db, (lo, hi) = dbs["rac"], window
    for _attempt in range(2):  # the second is served from the answer cache: the headers are kept
        resp, _ = report(api, db, begin_snap=lo, end_snap=hi, download=1)
        assert resp.mimetype == "text/html"
        assert resp.headers["Content-Security-Policy"].startswith(POLICY)
        assert "script-src" not in resp.headers["Content-Security-Policy"]
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert resp.headers["Content-Disposition"] == f'attachment; filename="awrlens-RACPROD-{lo}-{hi}.html"'
        # its changes list benchmark runs, uploaded at any time: kept as /changes is, not as a closed range's tables
        changes = api.get(f"/api/v1/dbs/{db}/changes", query_string={"begin_snap": lo, "end_snap": hi})
        assert resp.headers["Cache-Control"] == changes.headers["Cache-Control"] and resp.headers["ETag"]
    resp, _ = report(api, db, begin_snap=lo, end_snap=hi)
    assert resp.headers["Content-Disposition"].startswith("inline; ")
    # the file keeps the policy itself (a saved copy, the page's Blob URL): a meta tag before any content
    text = resp.get_data(as_text=True)
    head = text[: text.index("<style>")]
    assert re.search(
        r'<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src '
        r'&#39;unsafe-inline&#39;; img-src data:',
        head,
    )
    assert "<script" not in text and "http://" not in text and "https://" not in text


def test_one_instance_and_a_restart_in_the_range(api, dbs, stories, sql3):
    db, crash = dbs["rac"], stories["restart"]
    lo, hi = crash["first_snap_after"] - 10, crash["first_snap_after"] + 10
    restarted = list(
        sql3.execute(
            "select a.snap_id, b.snap_id from dba_hist_snapshot a join dba_hist_snapshot b on b.dbid = a.dbid and "
            "b.instance_number = a.instance_number and b.snap_id = (select min(snap_id) from dba_hist_snapshot c "
            "where c.dbid = a.dbid and c.instance_number = a.instance_number and c.snap_id > a.snap_id) "
            "where a.dbid = ? and a.instance_number = 2 and a.startup_time != b.startup_time "
            "and b.snap_id between ? and ?",
            (dbid_of(db), lo, hi),
        )
    )
    assert len(restarted) == 1
    _, rep = report(api, db, begin_snap=lo, end_snap=hi)
    changes = rep.rows["changes"][1:]
    assert [c[1:3] for c in changes if c[2] == "restart"] == [["2", "restart"]]
    assert f"(snapshot {restarted[0][1]})" in next(c[3] for c in changes if c[2] == "restart")
    assert any(c[2] == "missing snapshots" for c in changes)
    _, one = report(api, db, begin_snap=lo, end_snap=hi, instance=1)
    assert one.facts["Instances"].startswith("1: ") and "2: " not in one.facts["Instances"]
    assert [c for c in one.rows.get("changes", [])[1:] if c[1] == "2"] == []


def test_a_range_without_an_interval_says_so(api, dbs, window):
    _, rep = report(api, dbs["rac"], begin_snap=window[0], end_snap=window[0])
    assert rep.sections == ["header", "load-profile", "changes"]
    assert "the range holds one snapshot: an interval needs two." in "".join(rep.text)


@pytest.mark.parametrize(
    "query, parameter",
    [
        ({"from": "yesterday"}, "from"),
        ({"instance": "each"}, "instance"),
        ({"instance": "7"}, "instance"),
        ({"download": "maybe"}, "download"),
        ({"format": "csv"}, "format"),
        ({"begin_snap": "5", "end_snap": "1"}, "begin_snap"),
    ],
)
def test_bad_input_is_a_400(api, dbs, query, parameter):
    assert_error(api.get(url(dbs["rac"], "/report"), query_string=query), 400, parameter)


def test_openapi_entries(doc):
    op = doc["paths"]["/api/v1/dbs/{db}/report"]["get"]
    assert list(op["responses"]["200"]["content"]) == ["text/html"]
    assert {p["name"] for p in op["parameters"]} == {
        "db",
        "from",
        "to",
        "begin_snap",
        "end_snap",
        "instance",
        "download",
    }
    assert "/api/v1/dbs/{db}/range" in doc["paths"]


def test_a_time_range_resolves_to_the_snapshots_that_end_in_it(api, dbs, sql3):
    for db in dbs.values():
        body = ok(api, url(db, "/range"), **{"from": "2026-11-17T09:00:00", "to": "2026-11-17T17:00:00"})
        lo, hi = sql3.execute(
            "select min(snap_id), max(snap_id) from dba_hist_snapshot where dbid = ? and "
            "end_interval_time between '2026-11-17 09:00:00' and '2026-11-17 17:00:00'",
            (dbid_of(db),),
        ).fetchone()
        assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (lo, hi)
        assert body["range"]["begin_time"].startswith("2026-11-17T09:00:00")
        assert body["range"]["end_time"].startswith("2026-11-17T17:00:00")
    assert_error(api.get(url(dbs["rac"], "/range"), query_string={"to": "x"}), 400, "to")
    as_csv = api.get(url(db, "/range"), query_string={"begin_snap": lo, "end_snap": hi, "format": "csv"})
    assert as_csv.get_data(as_text=True).splitlines()[1].startswith(f"{lo},{hi},")


def test_the_changes_of_the_range_are_the_changes_layers(api, dbs, stories, sql3):
    """§28 and §23: around the async I/O fix the report lists the restart, the parameter set at it (the value before
    and after read from DBA_HIST_PARAMETER) and the benchmark run linked to the window."""
    fix, db = stories["async_io_fix"], dbs["single"]
    first = fix["first_snap_after"]
    before, after = (
        sql3.execute(
            "select value from dba_hist_parameter where dbid = ? and snap_id = ? and "
            "parameter_name = 'filesystemio_options'",
            (dbid_of(db), s),
        ).fetchone()[0]
        for s in (first - 1, first)
    )
    assert before != after
    _, rep = report(api, db, begin_snap=first - 6, end_snap=first + 6)
    changes = rep.rows["changes"][1:]
    kinds = {c[2] for c in changes}
    assert {"restart", "parameter", "run"} <= kinds
    (param,) = [c[3] for c in changes if c[2] == "parameter"]
    assert param.startswith("filesystemio_options") and before in param and after in param


def test_top_events_list_only_the_events_that_waited(api, dbs, window, sql3):
    """Oracle's top events list the events that waited in the range: an event whose foreground waits did not move
    between the range's snapshots (the RMAN and archiving events of a weekday morning) is not a row of 0 (issue 28)."""
    db, (lo, hi) = dbs["rac"], window
    waits = dict(
        sql3.execute(
            "select event_name, sum(case snap_id when ? then total_waits_fg else -total_waits_fg end) "
            "from dba_hist_system_event where dbid = ? and snap_id in (?, ?) and wait_class != 'Idle' "
            "group by event_name",
            (hi, dbid_of(db), lo, hi),
        )
    )
    waited = {e for e, n in waits.items() if n > 0}
    assert len(waited) < len(waits)  # some did not wait: the test can tell
    rows = ok(api, url(db, "/top-events"), limit=100, begin_snap=lo, end_snap=hi)["rows"]
    assert {r["event"] for r in rows} == waited | {"DB CPU"}
    _resp, rep = report(api, db, begin_snap=lo, end_snap=hi)
    listed = set(rep.table("top-events"))
    assert listed <= waited | {"DB CPU"} and len(listed) == min(10, len(waited) + 1)
    classes = {
        c
        for (c,) in sql3.execute(
            "select distinct wait_class from dba_hist_system_event where dbid = ? "
            f"and event_name in ({','.join('?' * len(waited))})",
            (dbid_of(db), *waited),
        )
    }
    assert set(rep.table("wait-classes")) == classes | {"CPU"}


def test_the_numbers_are_oracles_names_and_exact_values_rounded_once(api, dbs, window, sql3):
    """I/O functions by their FUNCTION_NAME (not "Direct" twice, "Smart", "Data"); RMAN's CPU, background time,
    without a share of DB time; a value above a million printed with its own decimals, not rounded to a whole number
    first; each wait class's time the sum of its events' exact times (issue 28)."""
    db, (lo, hi) = dbs["rac"], window
    dbid = dbid_of(db)
    _resp, rep = report(api, db, begin_snap=lo, end_snap=hi)
    functions = {
        f
        for (f,) in sql3.execute("select distinct function_name from dba_hist_iostat_function where dbid = ?", (dbid,))
    }
    assert set(rep.table("io-functions")) == functions
    assert {"Direct Reads", "Direct Writes", "Smart Scan", "Data Pump"} <= functions
    rman = rep.table("time-model")["RMAN cpu time (backup/restore)"]
    assert rman[2] == "—" and rep.table("time-model")["DB CPU"][2] != "—"
    elapsed = seconds_between(sql3, dbid, lo, hi)
    redo = delta(sql3, "dba_hist_sysstat", dbid, ["redo size"], lo, hi)
    assert redo / elapsed > 1e6
    assert rep.table("load-profile")["Redo size (bytes)"][1] == f"{redo / elapsed:,.2f}"
    by_class = {}
    for wait_class, micro in sql3.execute(
        "select wait_class, sum(case snap_id when ? then time_waited_micro_fg else -time_waited_micro_fg end) "
        "from dba_hist_system_event where dbid = ? and snap_id in (?, ?) and wait_class != 'Idle' "
        "group by event_name, wait_class",
        (hi, dbid, lo, hi),
    ):
        by_class[wait_class] = by_class.get(wait_class, 0) + micro / 1e6
    for wait_class, row in rep.table("wait-classes").items():
        if wait_class != "CPU":
            assert row[2] == f"{by_class[wait_class]:,.2f}", wait_class


def test_a_range_without_a_snapshot_says_so_not_none(api, dbs, sql3):
    """From 5 to 25 minutes after a snapshot: no snapshot ends in it, and the report says "no snapshot" where it
    printed Python's None ("snapshots None–None", a file awrlens-RACPROD-None-None.html) (issue 28)."""
    db = dbs["rac"]
    (end,) = sql3.execute(
        "select max(end_interval_time) from dba_hist_snapshot where dbid = ? and instance_number = 1",
        (dbid_of(db),),
    ).fetchone()
    t = datetime.fromisoformat(end)
    resp, rep = report(
        api, db, **{"from": (t - timedelta(minutes=25)).isoformat(), "to": (t - timedelta(minutes=5)).isoformat()}
    )
    text = "".join(rep.text)
    assert "None" not in text and rep.facts["Snapshots"] == "none in the range"
    assert "RACPROD · no snapshot" in text
    assert "None" not in resp.headers["Content-Disposition"]
    assert resp.headers["Content-Disposition"].endswith('-empty.html"')


def test_os_statistics_of_one_instance_are_its_own(api, dbs, window, sql3):
    """§28 and §8: on RAC each instance has its own host, so one instance's report holds its own DBA_HIST_OSSTAT rows
    only (the cumulative times' deltas over the range, the readings at its last snapshot), and `all` their sum."""
    db, (lo, hi) = dbs["rac"], window

    def osstat(inst, snap):
        return dict(
            sql3.execute(
                "select stat_name, value from dba_hist_osstat where dbid = ? and instance_number = ? and snap_id = ?",
                (dbid_of(db), inst, snap),
            )
        )

    expected = {}
    for inst in (1, 2):
        first, last = osstat(inst, lo), osstat(inst, hi)
        expected[inst] = {
            "BUSY_TIME": (last["BUSY_TIME"] - first["BUSY_TIME"]) / 100,  # centiseconds
            "IDLE_TIME": (last["IDLE_TIME"] - first["IDLE_TIME"]) / 100,
            "NUM_CPUS (at the end)": last["NUM_CPUS"],
            "PHYSICAL_MEMORY_BYTES (at the end)": last["PHYSICAL_MEMORY_BYTES"],
            "LOAD (at the end)": last["LOAD"],
        }
    expected["all"] = {k: expected[1][k] + expected[2][k] for k in expected[1]}
    assert expected[1]["LOAD (at the end)"] != expected[2]["LOAD (at the end)"]  # the check: the hosts differ
    for inst, want in expected.items():
        _, rep = report(api, db, begin_snap=lo, end_snap=hi, instance=inst)
        table = rep.table("os-statistics")
        for name, value in want.items():
            assert number(table[name][1]) == pytest.approx(value, abs=0.006), (inst, name)


def per_instance_delta(sql3, view, dbid, lo, hi, columns="value", key="stat_name"):
    """{(instance, key): value(hi) - value(lo)} of a view's rows at the two snapshots: no restart in the range."""
    out = {}
    for inst, name, snap, value in sql3.execute(
        f"select instance_number, {key}, snap_id, {columns} from {view} where dbid = ? and snap_id in (?, ?)",
        (dbid, lo, hi),
    ):
        out[(inst, name)] = out.get((inst, name), 0) + (value if snap == hi else -value)
    return out


def summed(deltas, instances):
    out = {}
    for (inst, name), v in deltas.items():
        if inst in instances:
            out[name] = out.get(name, 0) + v
    return out


@pytest.mark.parametrize("instance", ["all", 2])
def test_the_reports_numbers_are_the_stores_deltas(app, dbs, window, sql3, instance):
    """§28 on the numbers `report.compute` gives, before the template rounds them: the header (the lowest instance's
    end times, elapsed, DB time, AAS = DB time / elapsed), the time model (seconds, % of DB time, none for the
    background statistics), the wait classes (time and waits summed over their events, % of DB time), I/O by function
    (MB and requests small + large, per second over the elapsed time, most MB first) and the OS statistics (times in
    centiseconds / 100, % of BUSY_TIME + IDLE_TIME, per second; the readings at the last snapshot, summed), each from
    the store's rows at the range's two snapshots (the window has no restart and no gap)."""
    from app.history import report

    db, (lo, hi) = dbs["rac"], window
    dbid = dbid_of(db)
    d = app.extensions["awrlens"].database(db)
    body = report.compute(d, d.resolve(begin_snap=lo, end_snap=hi), instance)
    instances = {1, 2} if instance == "all" else {instance}
    elapsed = seconds_between(sql3, dbid, lo, hi)
    model = summed(per_instance_delta(sql3, "dba_hist_sys_time_model", dbid, lo, hi), instances)
    db_time = model["DB time"] / 1e6
    h = body["header"]
    ends = dict(
        sql3.execute(
            "select snap_id, end_interval_time from dba_hist_snapshot where dbid = ? and instance_number = 1 "
            "and snap_id in (?, ?)",
            (dbid, lo, hi),
        )
    )
    assert (h["db_name"], h["dbid"], h["rac"], h["begin_snap"], h["end_snap"]) == ("RACPROD", dbid, True, lo, hi)
    assert [i["instance_number"] for i in h["instances"]] == sorted(instances)
    assert h["begin_time"] == ends[lo].replace(" ", "T") + "+01:00"
    assert h["end_time"] == ends[hi].replace(" ", "T") + "+01:00"
    assert h["elapsed_s"] == pytest.approx(elapsed) and h["db_time_s"] == pytest.approx(db_time)
    assert h["aas"] == pytest.approx(db_time / elapsed)

    background = {"background elapsed time", "background cpu time", "RMAN cpu time (backup/restore)"}
    rows = body["time_model"]
    assert [r["time_s"] for r in rows] == sorted((r["time_s"] for r in rows), reverse=True)
    assert {r["statistic"]: r["time_s"] for r in rows} == pytest.approx({n: v / 1e6 for n, v in model.items()})
    for r in rows:
        want = None if r["statistic"] in background else 100 * model[r["statistic"]] / 1e6 / db_time
        assert r["pct_db_time"] == (want if want is None else pytest.approx(want)), r["statistic"]

    events = {}
    raw = sql3.execute(
        "select instance_number, event_name, wait_class, snap_id, total_waits_fg, time_waited_micro_fg "
        "from dba_hist_system_event where dbid = ? and snap_id in (?, ?) and wait_class != 'Idle'",
        (dbid, lo, hi),
    ).fetchall()
    for inst, _name, wait_class, snap, waits, micro in raw:
        if inst in instances:
            sign = 1 if snap == hi else -1
            c = events.setdefault(wait_class, [0, 0])
            c[0] += sign * waits
            c[1] += sign * micro
    classes = {w: c for w, c in events.items() if c[0] > 0}  # the events that waited (the top events' rule)
    classes["CPU"] = [0, model["DB CPU"]]  # DB CPU: no waits
    got = {r["wait_class"]: r for r in body["wait_classes"]}
    assert set(got) == set(classes)
    for w, (waits, micro) in classes.items():
        assert got[w]["waits"] == waits, w
        assert got[w]["time_s"] == pytest.approx(micro / 1e6), w
        assert got[w]["pct_db_time"] == pytest.approx(100 * micro / 1e6 / db_time), w
    assert [r["wait_class"] for r in body["wait_classes"]] == sorted(classes, key=lambda w: -classes[w][1])

    io = {}
    for inst, name, snap, *values in sql3.execute(
        "select instance_number, function_name, snap_id, small_read_megabytes + large_read_megabytes, "
        "small_write_megabytes + large_write_megabytes, small_read_reqs + large_read_reqs, "
        "small_write_reqs + large_write_reqs from dba_hist_iostat_function where dbid = ? and snap_id in (?, ?)",
        (dbid, lo, hi),
    ):
        if inst in instances:
            sign = 1 if snap == hi else -1
            f = io.setdefault(name, [0, 0, 0, 0])
            for k, v in enumerate(values):
                f[k] += sign * v
    got = body["io_functions"]
    assert [r["function"] for r in got] == sorted(io, key=lambda n: (-(io[n][0] + io[n][1]), n))
    for r in got:
        read_mb, write_mb, read_reqs, write_reqs = io[r["function"]]
        assert (r["read_megabytes"], r["write_megabytes"]) == pytest.approx((read_mb, write_mb)), r["function"]
        assert (r["read_requests"], r["write_requests"]) == pytest.approx((read_reqs, write_reqs)), r["function"]
        assert r["mb_per_second"] == pytest.approx((read_mb + write_mb) / elapsed), r["function"]
        assert r["requests_per_second"] == pytest.approx((read_reqs + write_reqs) / elapsed), r["function"]

    os_deltas = summed(per_instance_delta(sql3, "dba_hist_osstat", dbid, lo, hi), instances)
    cpu = os_deltas["BUSY_TIME"] + os_deltas["IDLE_TIME"]
    at_end = {}
    for inst, name, value in sql3.execute(
        "select instance_number, stat_name, value from dba_hist_osstat where dbid = ? and snap_id = ?", (dbid, hi)
    ):
        if inst in instances:
            at_end[name] = at_end.get(name, 0) + value
    cumulative = ["BUSY_TIME", "IDLE_TIME", "USER_TIME", "SYS_TIME", "IOWAIT_TIME", "NICE_TIME"]
    cumulative += ["RSRC_MGR_CPU_WAIT_TIME", "VM_IN_BYTES", "VM_OUT_BYTES"]
    readings = ["NUM_CPUS", "NUM_CPU_CORES", "NUM_CPU_SOCKETS", "PHYSICAL_MEMORY_BYTES", "LOAD"]
    rows = body["os"]
    assert [(r["statistic"], r.get("at_end", False)) for r in rows] == [(n, False) for n in cumulative] + [
        (n, True) for n in readings
    ]
    for r in rows[: len(cumulative)]:
        n, time = r["statistic"], r["statistic"].endswith("_TIME")
        value = os_deltas[n] / 100 if time else os_deltas[n]
        assert (r["value"], r["unit"]) == (pytest.approx(value), "s" if time else "bytes"), n
        assert r["per_second"] == pytest.approx(value / elapsed), n
        assert r["pct_of_cpu_time"] == (pytest.approx(100 * os_deltas[n] / cpu) if time else None), n
    units = {"NUM_CPUS": "count", "NUM_CPU_CORES": "count", "NUM_CPU_SOCKETS": "count"}
    units |= {"PHYSICAL_MEMORY_BYTES": "bytes", "LOAD": "processes"}
    for r in rows[len(cumulative) :]:
        n = r["statistic"]
        assert (r["value"], r["unit"], r["per_second"], r["pct_of_cpu_time"]) == (
            pytest.approx(at_end[n]),
            units[n],
            None,
            None,
        ), n


def test_the_reports_changes_are_the_timelines_restarts_and_gaps_and_the_changes_layer(app, dbs, stories, sql3):
    """§28, §4, §5: around instance 2's crash the report lists its restart (at its first snapshot after, with the
    new startup), the snapshots missing before it (from the last one before the gap, its length in minutes) and the
    changes layer's other changes (§23), in time order; instance 1's report has none of instance 2's."""
    from app.history import report

    db, dbid, crash = dbs["rac"], dbid_of(dbs["rac"]), stories["restart"]
    first = crash["first_snap_after"]
    d = app.extensions["awrlens"].database(db)
    rng = d.resolve(begin_snap=first - 10, end_snap=first + 10)
    (before,) = sql3.execute(
        "select max(snap_id) from dba_hist_snapshot where dbid = ? and instance_number = 2 and snap_id < ?",
        (dbid, first),
    ).fetchone()
    assert before == crash["missing_snap_ids"][0] - 1

    def end(snap):
        return (
            sql3.execute(
                "select end_interval_time from dba_hist_snapshot where dbid = ? and instance_number = 2 "
                "and snap_id = ?",
                (dbid, snap),
            )
            .fetchone()[0]
            .replace(" ", "T")
            + "+01:00"
        )

    minutes = (datetime.fromisoformat(end(first)) - datetime.fromisoformat(end(before))).total_seconds() / 60
    body = report.compute(d, rng, "all")
    timeline = [c for c in body["changes"] if c["kind"] in ("restart", "missing snapshots")]
    assert timeline == [
        {
            "time": end(before),
            "instance": 2,
            "kind": "missing snapshots",
            "text": f"no snapshot of instance 2 between {before} and {first} ({minutes:.0f} minutes)",
        },
        {
            "time": end(first),
            "instance": 2,
            "kind": "restart",
            "text": f"instance 2 started at {crash['startup_time']} (snapshot {first}): the interval across it is "
            "left out",
        },
    ]
    layer = ok(app.test_client(), url(db, "/changes"), begin_snap=first - 10, end_snap=first + 10)["rows"]
    others = [{k: c[k] for k in ("time", "instance", "kind", "text")} for c in layer if c["kind"] != "restart"]
    assert [c for c in body["changes"] if c not in timeline] == others
    times = [(datetime.fromisoformat(c["time"]), c["instance"] or 0) for c in body["changes"]]
    assert times == sorted(times)
    one = report.compute(d, rng, 1)
    assert [c for c in one["changes"] if c["instance"] == 2] == []
