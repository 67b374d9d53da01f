"""Markup in every database-sourced string stays inert in the viewer (real headless Chromium, the helpers of
test_browser.py). test_browser.py covers SQL text and module of the demo's own hostile statements; this covers the
rest, on a copy of the session's demo store where ORCL's display-only text holds markup and script:

- DBA_HIST_DATABASE_INSTANCE: db_name, instance_name, host_name, platform_name (the database and instance
  pickers, the range label, the page title);
- added names (nothing the API looks up by name is renamed): a sysstat statistic (the explorer's type-ahead, a
  chip, the legend), a non-idle wait event of a new wait class (top events, the AAS legend, compare periods), a
  tablespace and its contents (chart legend and title, the table), a SQL statement's module and text (top SQL, the
  SQL detail); in Active Session History, a module and a wait event and its class (top activity's legend, lists,
  filter chip and chart title);
- a benchmark run whose title, description, environment, parameters, series labels, categories, units and extra
  attributes (names and values) all hold markup: the list, the run page, runs compared.

Each page must show the strings literally as text and hold no injected element, no inline handler, no
window.__xss, no dialog and no console error.

The same store holds a run whose text starts as spreadsheet formulas do (= + - @, a tab): its chart CSV and its
table CSV (and Copy) must come out guarded with a leading apostrophe, as the API's CSV is.
"""

import base64
import csv
import io
import json
import sqlite3
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

import markupsafe
import pytest
from conftest import gunicorn
from sqlalchemy import create_engine

from app import create_app
from app.runs.model import parse_run
from app.runs.repo import insert_run
from app.settings import Settings
from app.store.awr.embedded.summaries import fill_summaries

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

IMG = '<img src=x onerror="window.__xss=(window.__xss||0)+1">'
SCRIPT = "<script>window.__xss=1</script>"
CELL = "</td></tr><b>x</b>"
SVG = "<svg onload=__xss=1>"  # 20 characters: a measurement's unit holds no more

DBID = 1645932817  # ORCL, the single-instance demo database
DB = f"demo.{DBID}"
SQL_ID = "zz9xssmodule1"
H = {  # no ':' in a name that becomes part of a series name (source:item:field)
    "db_name": "ORCL" + IMG,
    "instance_name": SCRIPT + "orcl",
    "host_name": CELL + "host",
    "platform_name": IMG + "platform",
    "stat": "redo " + IMG + " size",
    "event": "log " + CELL + IMG + " sync",
    "wait_class": "<i>Class</i>" + SCRIPT,
    "tablespace": IMG + "TS",
    "contents": CELL + "contents",
    "module": SCRIPT + CELL + "billing",
    "sql_text": "select '" + IMG + "' from dual /* " + CELL + " */",
}
SLUG = "xss-run"
PARAMETERS = {IMG: SCRIPT, "note": CELL, "list": [IMG, 1]}
RUN = {
    "slug": SLUG,
    "title": "Hostile " + IMG + " run",
    "kind": "ab",
    "visibility": "public",
    "description": SCRIPT + " and " + CELL + " in a description",
    "environment": {
        "host": CELL + "host",
        "instance_type": "<b>c5</b>.large",
        "vcpus": 4,
        "cores": 2,
        "db_version": "19c " + IMG,
    },
    "parameters": PARAMETERS,
    "measurements": [
        {
            "series": IMG + " A",
            "x": CELL + " case",
            "y": 12.5,
            "unit": SVG,
            "extra": {IMG + "attr": SCRIPT, "note": CELL + "note"},
        },
        {
            "series": "<b>B</b>" + SCRIPT,
            "x": CELL + " case",
            "y": 14.0,
            "unit": SVG,
            "extra": {IMG + "attr": "<u>u</u>", "note": IMG},
        },
    ],
}
HTTPD = "httpd-freebsd-vs-linux"
FORMULA = '=HYPERLINK("http://x","y")'
FORMULA_RUN = {
    "slug": "formula-run",
    "title": "Formulas in a run",
    "kind": "ab",
    "visibility": "public",
    "measurements": [
        {"series": FORMULA, "x": "+SUM(1,2)", "y": 1.5, "unit": "s", "extra": {"note": "-2+3"}},
        {"series": "@cmd", "x": "+SUM(1,2)", "y": -2.0, "unit": "s", "extra": {"note": "\tTAB"}},
    ],
}


def render_page():
    """The page as Flask serves it (no store is read to serve it)."""
    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": "/nonexistent/awrlens.sqlite"}}))
    return app.test_client().get("/").get_data(as_text=True)


SCRIPTS = render_page().count("<script")  # the page's own
# the page holds no element any of the payloads would make, and no inline event handler anywhere
INJECTED = """() => ({
  elements: Array.from(document.querySelectorAll('img, svg, iframe, b, i, u')).map(e => e.outerHTML),
  scripts: document.querySelectorAll('script').length,
  handlers: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes)
    .some(a => a.name.startsWith('on'))).map(e => e.tagName),
  xss: window.__xss === undefined ? null : window.__xss
})"""


# -- the hostile store and a server on it -------------------------------------------------------------------------


def _hostile_copy(src, dst):
    con, source = sqlite3.connect(dst), sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    source.backup(con)
    source.close()
    with con:
        con.execute(
            """update dba_hist_database_instance set db_name = ?, instance_name = ?, host_name = ?,
                       platform_name = ? where dbid = ?""",
            (H["db_name"], H["instance_name"], H["host_name"], H["platform_name"], DBID),
        )
        # a statistic: 'redo size' under a new id and name
        con.execute(
            """insert into dba_hist_sysstat (snap_id, dbid, instance_number, stat_id, stat_name, value)
                       select snap_id, dbid, instance_number, 4000000001, ?, value from dba_hist_sysstat
                       where dbid = ? and stat_name = 'redo size'""",
            (H["stat"], DBID),
        )
        # a wait event of a new class, 1.5 times 'log file sync': second in the top events
        con.execute(
            """insert into dba_hist_system_event select snap_id, dbid, instance_number, 4000000002, ?,
                       4000000003, ?, cast(total_waits * 1.5 as integer), total_timeouts,
                       cast(time_waited_micro * 1.5 as integer), cast(total_waits_fg * 1.5 as integer),
                       total_timeouts_fg, cast(time_waited_micro_fg * 1.5 as integer), con_dbid
                       from dba_hist_system_event where dbid = ? and event_name = 'log file sync'""",
            (H["event"], H["wait_class"], DBID),
        )
        # a tablespace: APP_DATA's usage, at its allocated size (the fullest: the one charted by default)
        con.execute(
            "insert into dba_hist_tablespace values (?, 8, ?, ?, 8192, ?)", (DBID, H["tablespace"], H["contents"], DBID)
        )
        con.execute(
            """insert into dba_hist_tbspc_space_usage select dbid, snap_id, 8, tablespace_size,
                       tablespace_size, tablespace_usedsize, rtime, con_dbid from dba_hist_tbspc_space_usage
                       where dbid = ? and tablespace_id = 5""",
            (DBID,),
        )
        # a statement: the top one's history, doubled (the new top SQL), with its own module and text
        top = con.execute(
            """select sql_id from dba_hist_sqlstat where dbid = ? group by sql_id
                             order by sum(elapsed_time_delta) desc limit 1""",
            (DBID,),
        ).fetchone()[0]
        cols = [r[1] for r in con.execute("pragma table_info(dba_hist_sqlstat)")]
        picked = [f":{c}" if c in ("sql_id", "module") else f"{c} * 2" if c.endswith("_delta") else c for c in cols]
        con.execute(
            f"insert into dba_hist_sqlstat ({', '.join(cols)}) select {', '.join(picked)} "
            "from dba_hist_sqlstat where dbid = :dbid and sql_id = :top",
            {"sql_id": SQL_ID, "module": H["module"], "dbid": DBID, "top": top},
        )
        con.execute(
            "insert into dba_hist_sqltext (dbid, sql_id, sql_text, command_type, con_dbid) values (?, ?, ?, 3, ?)",
            (DBID, SQL_ID, H["sql_text"], DBID),
        )
        # Active Session History: the samples of a module and of a wait event take the hostile names (top activity).
        # The store keeps each text once, in awrlens_ash_names, for its samples and its totals (embedded.ash.ASH_BASE, a
        # view over it): the names are renamed there, for both databases
        for old, new in (("crm-web", H["module"]), ("log file sync", H["event"]), ("Commit", H["wait_class"])):
            assert con.execute("update awrlens_ash_names set value = ? where value = ?", (new, old)).rowcount == 1
        fill_summaries(con)  # the store's summaries of the views, with the rows added
    con.close()
    engine = create_engine(f"sqlite:///{dst}")  # the run, as the app stores an upload
    try:
        with engine.begin() as conn:
            insert_run(conn, parse_run(RUN), datetime(2026, 11, 20))
            insert_run(conn, parse_run(FORMULA_RUN), datetime(2026, 11, 20))
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def hostile_store(demo_store, tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "hostile.sqlite"
    _hostile_copy(demo_store[0], path)
    return path


@pytest.fixture(scope="module")
def api(hostile_store):
    return create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(hostile_store)}})).test_client()


@pytest.fixture(scope="module")
def server(hostile_store):
    """gunicorn on the hostile store, as the `server` of test_browser.py."""
    with gunicorn(hostile_store) as url:
        yield url


def _url(server, **params):
    return f"{server}/?" + urlencode(params, doseq=True)


def _cells(pg, table_id):
    """The text of every cell of a table's rows, as shown."""
    return pg.page.locator(f"[data-table='{table_id}'] tbody tr").evaluate_all(
        "trs => trs.map(tr => Array.from(tr.cells).map(td => td.textContent))"
    )


def _legend(pg, chart_id):
    return pg.page.locator(f"[data-chart='{chart_id}'] .legend-item").all_text_contents()


def _inert(pg):
    """Nothing was injected and nothing ran; no dialog, no console error."""
    pg.page.wait_for_timeout(100)  # an injected <img onerror> would have fired by now
    found = pg.page.evaluate(INJECTED)
    assert found == {"elements": [], "scripts": SCRIPTS, "handlers": [], "xss": None}, found
    assert pg.dialogs == [] and pg.errors == [], (pg.dialogs, pg.errors)


# -- the API answers every hostile string (else the browser tests would prove nothing) ---------------------------


def test_the_api_returns_the_hostile_strings(api):
    db = next(d for d in api.get("/api/v1/dbs").get_json()["databases"] if d["id"] == DB)
    assert (db["db_name"], db["platform"]) == (H["db_name"], H["platform_name"])
    assert [(i["instance_name"], i["host_name"]) for i in db["instances"]] == [(H["instance_name"], H["host_name"])]
    names = {r["name"] for r in api.get(f"/api/v1/dbs/{DB}/catalog").get_json()["rows"]}
    assert {f"sysstat:{H['stat']}", f"wait_class:{H['wait_class']}"} <= names
    events = api.get(f"/api/v1/dbs/{DB}/top-events").get_json()["rows"]
    assert (events[1]["event"], events[1]["wait_class"]) == (H["event"], H["wait_class"])
    ts = api.get(f"/api/v1/dbs/{DB}/tablespaces").get_json()["rows"]
    assert max(ts, key=lambda r: r["used_pct_of_max"])["tablespace"] == H["tablespace"]
    top = api.get(f"/api/v1/dbs/{DB}/top-sql").get_json()["rows"][0]
    assert (top["sql_id"], top["module"], top["sql_text"]) == (SQL_ID, H["module"], H["sql_text"])
    ash = api.get(f"/api/v1/dbs/{DB}/activity/top").get_json()["lists"]
    assert H["module"] in [r["name"] for r in ash["module"]] and H["event"] in [r["name"] for r in ash["event"]]
    body = api.get(f"/api/v1/benchmarks/{SLUG}").get_json()
    assert body["run"]["title"] == RUN["title"] and body["run"]["parameters"] == PARAMETERS
    assert [(r["series"], r["x"], r["unit"], r["extra"]) for r in body["rows"]] == [
        (m["series"], m["x"], m["unit"], m["extra"]) for m in RUN["measurements"]
    ]


# -- the history views -----------------------------------------------------------------------------------------


def test_overview_pickers_tables_and_legend(server, page):
    page.open(_url(server, db=DB, view="overview", range="7d"))
    assert page.page.locator(f"#db option[value='{DB}']").text_content() == f"{H['db_name']} ({DBID})"
    assert (
        page.page.locator("#instance option[value='1']").text_content()
        == f"1: {H['instance_name']} on {H['host_name']}"
    )
    assert page.page.locator("#range-label").text_content().startswith(H["db_name"] + " · ")
    assert page.page.title() == f"awrlens · {H['db_name']} · Overview"
    assert H["wait_class"] in _legend(page, "aas")
    events = _cells(page, "top-events")
    assert events[1][:2] == [H["event"], H["wait_class"]] and len(events) == 10
    sql = _cells(page, "top-sql")
    assert len(sql) == 10 and sql[0][0] == SQL_ID and sql[0][-2:] == [H["module"], H["sql_text"]]
    assert (
        page.page.locator("[data-table=top-sql] tbody tr").first.locator("td").last.get_attribute("title")
        == H["sql_text"]
    )
    _inert(page)
    # the statement's detail, from its row
    page.page.get_by_role("link", name=SQL_ID).click()
    page.settle()
    assert page.state()["sql"] == SQL_ID
    assert page.page.locator(".sql-text").text_content() == H["sql_text"]
    assert page.page.locator(".sql-info .meta").text_content().startswith(f"Module: {H['module']} · ")
    _inert(page)


def test_explorer_type_ahead_chip_and_legend(server, page):
    page.open(_url(server, db=DB, view="explorer", range="7d"))
    name = f"sysstat:{H['stat']}"

    def matches(text):
        """The search list's options for `text`, as {name: its label line}: the names shown as text."""
        page.page.get_by_label("Add a series").fill(text)
        page.page.wait_for_function(
            "(q) => { const o = document.querySelectorAll('#catalog-matches [role=option]');"
            " return o.length && [...o].some(li => li.textContent.includes(q)); }",
            arg=text.split()[0],
        )
        return dict(
            page.page.locator("#catalog-matches [role=option]").evaluate_all(
                "os => os.map(o => [o.querySelector('.name').textContent, o.querySelector('.meta').textContent])"
            )
        )

    assert matches(H["stat"])[name].startswith(H["stat"] + " · ")
    assert any(v.startswith(f"system_event:{H['event']}") for v in matches(H["event"]))
    assert matches(H["wait_class"])[f"wait_class:{H['wait_class']}"].startswith(H["wait_class"] + " · ")
    _inert(page)
    page.page.get_by_label("Add a series").fill(name)
    page.page.get_by_label("Add a series").press("Enter")
    page.settle()
    assert page.state()["series"] == ["derived:aas", name]
    assert page.page.locator(".chips .chip span").all_text_contents() == ["derived:aas", name]
    assert page.page.get_by_role("button", name=f"Remove {name}", exact=True).is_visible()
    chart = page.charts()[0]
    assert chart["state"] == "ready" and chart["datasets"][1]["label"] == H["stat"]
    assert chart["datasets"][1]["points"]
    assert _legend(page, "explorer")[1] == f"{H['stat']} ({chart['datasets'][1]['unit']})"
    _inert(page)


def test_compare_periods(server, page):
    page.open(_url(server, db=DB, view="compare", range="7d"))
    rows = _cells(page, "compare-top-events")
    assert [H["event"], H["wait_class"]] in [r[:2] for r in rows]
    _inert(page)


def test_tablespaces_legend_and_table(server, page):
    page.open(_url(server, db=DB, view="tablespaces", range="7d"))
    legend = _legend(page, "tablespace")  # and its projection, where it fills within the year (§16)
    assert legend[:3] == [f"{H['tablespace']} {m}" for m in ("used", "allocated", "max")]
    assert legend[3:] in ([], [f"{H['tablespace']} used, projected"])
    rows = _cells(page, "tablespaces")
    assert [H["tablespace"], H["contents"]] in [r[:2] for r in rows] and len(rows) == 9
    _inert(page)
    page.page.get_by_role("cell", name=H["tablespace"], exact=True).click()
    page.settle()
    assert page.state()["ts"] == H["tablespace"]
    assert page.page.locator("[data-chart=tablespace] h3").text_content().endswith(" · " + H["tablespace"])
    _inert(page)


def test_top_activity_legend_lists_and_chips(server, page):
    page.open(_url(server, db=DB, view="activity", range="1d", by="module"))
    assert H["module"] in _legend(page, "activity")
    assert H["module"] in [r[0] for r in _cells(page, "ash-modules")]
    assert H["event"] in [r[0] for r in _cells(page, "ash-events")]
    _inert(page)
    page.page.get_by_label("Stack by").select_option("wait_class")
    page.settle()
    assert H["wait_class"] in _legend(page, "activity")
    _inert(page)
    # a click on the hostile module: the filter in the link, its chip and the chart's title, as text
    page.page.get_by_role("cell", name=H["module"], exact=True).click()
    page.settle()
    assert page.state()["filter"] == f"module:{H['module']}"
    assert page.page.locator(".activity-form .chip span").all_text_contents() == [f"module = {H['module']}"]
    assert page.page.locator("[data-chart=activity] h3").text_content().endswith(f" · module = {H['module']}")
    assert page.page.get_by_role("button", name=f"Remove the filter module = {H['module']}").is_visible()
    assert _cells(page, "ash-modules") == [[H["module"], *_cells(page, "ash-modules")[0][1:]]]
    page.page.get_by_label("Stack by").select_option("event")
    page.settle()
    assert H["event"] in _legend(page, "activity")
    _inert(page)


# -- the report (docs/awr-rules.md §28) ---------------------------------------------------------------------------

REPORTED = (
    "db_name",
    "instance_name",
    "host_name",
    "platform_name",
    "event",
    "wait_class",
    "tablespace",
    "contents",
    "module",
    "sql_text",
)
REPORT_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "h3",
    "p",
    "dl",
    "dt",
    "dd",
    "section",
    "figure",
    "img",
    "figcaption",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
    "footer",
}


class _Tags(HTMLParser):
    def __init__(self, text):
        super().__init__()
        self.tags, self.handlers, self.images = set(), [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        if tag == "img":
            self.images.append(dict(attrs)["src"])


def test_the_report_shows_every_hostile_string_as_text(api):
    text = api.get(f"/api/v1/dbs/{DB}/report").get_data(as_text=True)
    for key in REPORTED:
        assert str(markupsafe.escape(H[key])) in text, key
        assert H[key] not in text, key
    found = _Tags(text)
    assert found.tags <= REPORT_TAGS and found.handlers == [], (found.tags - REPORT_TAGS, found.handlers)
    assert len(found.images) == 2 and all(src.startswith("data:image/svg+xml;base64,") for src in found.images)
    legend = base64.b64decode(found.images[0].split(",", 1)[1]).decode()  # the wait classes' chart: its legend
    assert str(markupsafe.escape(H["wait_class"])) in legend and H["wait_class"] not in legend


def test_the_report_tab_is_inert(server, page):
    page.open(_url(server, db=DB, view="overview", range="7d"))
    with page.context.expect_page() as opened:
        page.page.get_by_role("button", name="Report", exact=True).click()
    tab = opened.value
    tab.wait_for_function("document.getElementById('changes') !== null", timeout=20000)
    tab.wait_for_timeout(100)
    assert tab.locator("h1").text_content().startswith(H["db_name"] + " · snapshots ")
    assert H["sql_text"] in tab.locator("#top-sql").text_content()
    found = tab.evaluate(INJECTED.replace("img, svg", 'img:not([src^="data:image/svg+xml;base64,"]), svg'))
    assert found == {"elements": [], "scripts": 0, "handlers": [], "xss": None}, found
    assert tab.evaluate("document.images.length") == 2
    tab.close()
    _inert(page)


# -- the benchmark views --------------------------------------------------------------------------------------


def test_benchmarks_list_and_run_page(server, page):
    page.open(_url(server, view="benchmarks"))
    row = next(r for r in _cells(page, "benchmarks") if r[-1] == SLUG)
    assert row[0] == RUN["title"] and row[4] == RUN["environment"]["instance_type"]
    _inert(page)
    page.page.get_by_role("link", name=RUN["title"], exact=True).click()
    page.settle()
    assert page.state() == {"view": "run", "run": SLUG}
    head = page.page.locator(".run-head")
    assert head.get_attribute("data-state") == "ready"
    assert head.locator("h2").text_content() == RUN["title"] and page.page.title() == f"awrlens · {RUN['title']}"
    env = RUN["environment"]
    assert head.locator("dl.env dd").all_text_contents() == [
        env["host"],
        env["instance_type"],
        str(env["vcpus"]),
        str(env["cores"]),
        env["db_version"],
    ]
    assert head.locator(".description").text_content() == RUN["description"]
    assert head.locator(".parameters pre").text_content() == json.dumps(PARAMETERS, indent=2)
    series = [m["series"] for m in RUN["measurements"]]
    assert _legend(page, "run-1") == series
    assert page.page.locator("[data-chart=run-1] h3").text_content().endswith(" · " + SVG)
    extra = list(RUN["measurements"][0]["extra"])
    assert page.page.locator("[data-table=measurements] thead th").all_text_contents() == [
        "#",
        "Series",
        "x",
        "y",
        "Unit",
        *extra,
    ]
    assert [r[1:3] + r[4:] for r in _cells(page, "measurements")] == [
        [m["series"], m["x"], m["unit"]] + [m["extra"][k] for k in extra] for m in RUN["measurements"]
    ]
    with page.page.expect_download() as info:  # the export has the raw text, titles too
        page.page.locator("[data-table=measurements] button.buttons-csv").click()
    table = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert table[0] == ["#", "Series", "x", "y", "Unit", *extra]
    assert [r[1:3] + r[4:] for r in table[1:]] == [
        [m["series"], m["x"], m["unit"]] + [m["extra"][k] for k in extra] for m in RUN["measurements"]
    ]
    _inert(page)


def test_compare_runs(server, page):
    page.open(_url(server, view="run", run=HTTPD))
    page.page.get_by_label("Compare with").select_option(label=f"{RUN['title']} ({SLUG})")
    page.page.get_by_role("button", name="Compare", exact=True).click()
    page.settle()
    assert page.page.locator(".run-head .chips a").all_text_contents()[1] == f"{RUN['title']} ({SLUG})"
    legends = [t for c in page.charts() for t in _legend(page, c["id"])]
    assert {f"{SLUG} · {m['series']}" for m in RUN["measurements"]} <= set(legends)
    rows = [r for r in _cells(page, "measurements") if r[0] == SLUG]
    assert [r[2] for r in rows] == [m["series"] for m in RUN["measurements"]]
    _inert(page)


# -- spreadsheet formulas in the CSV exports ---------------------------------------------------------------------


def _download(pg, selector):
    with pg.page.expect_download() as info:
        pg.page.locator(selector).click()
    return list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))


def test_chart_and_table_csv_are_formula_safe(server, page):
    """Text starting with = + - @ or a tab gets a leading apostrophe (the API's rule); numbers stay numbers."""
    page.open(_url(server, view="run", run=FORMULA_RUN["slug"]))
    assert page.page.locator(".run-head").get_attribute("data-state") == "ready"
    assert _legend(page, "run-1") == [FORMULA, "@cmd"]  # shown as they are
    chart = _download(page, "[data-chart=run-1] button[data-act=csv]")
    assert chart == [
        ["series", "unit", "x", "value", "note"],  # every field of a measurement (issue 15)
        ["'" + FORMULA, "s", "'+SUM(1,2)", "1.5", "'-2+3"],
        ["'@cmd", "s", "'+SUM(1,2)", "-2", "'\tTAB"],
    ]
    table = _download(page, "[data-table=measurements] button.buttons-csv")
    assert table == [
        ["#", "Series", "x", "y", "Unit", "note"],
        ["1", "'" + FORMULA, "'+SUM(1,2)", "1.5", "s", "'-2+3"],
        ["2", "'@cmd", "'+SUM(1,2)", "-2", "s", "'\tTAB"],
    ]
    assert page.dialogs == [] and page.errors == []
