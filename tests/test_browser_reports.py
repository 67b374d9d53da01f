"""Oracle's own reports in real headless Chromium (issues 13, 14; the browser, server and page helpers of
test_browser.py): the Oracle reports view opens and downloads the AWR report the API serves, HTML in an iframe with an
empty sandbox and text in a <pre>; SQL detail lists the monitored executions and opens their reports; and a report
holding script, from a store planted with one, runs nothing and reaches nothing, in the page and opened on its own.
Expectations come from the API's answers (through the app's test client on the same store) and from the store."""

import shutil
import sqlite3
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import gunicorn
from test_browser import _url

from app.api.report import REPORT_POLICY

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

PLANTED = (
    "<!DOCTYPE html><html><head><title>AWR</title></head><body><h1>WORKLOAD REPOSITORY report</h1>"
    "<script>window.top.pwned = 1; parent.pwned = 1; window.pwned = 1; "
    "document.body.setAttribute('data-ran', 'script');</script>"
    "<img src=\"x\" onerror=\"parent.pwned2 = 1; this.setAttribute('data-ran', 'onerror')\">"
    "<form action=\"/api/v1/\"><button id=\"go\">go</button></form><p id=\"end\">End of Report</p></body></html>"
)


# What the viewer puts first in the iframe's document: the API's policy for its documents but sandbox, which the
# iframe's attribute gives (app/api/oracle_reports.py CSP = "sandbox; " + REPORT_POLICY).
META = f'<meta http-equiv="Content-Security-Policy" content="{REPORT_POLICY}">'


def loads(elsewhere: str) -> str:
    """A report naming things to load from `elsewhere`, and a <base> that would re-point its relative links there."""
    return (
        f'<!DOCTYPE html><html><head><base href="{elsewhere}/base/"><title>AWR</title>'
        f'<link rel="stylesheet" href="{elsewhere}/style.css"><style>@import url("{elsewhere}/import.css");'
        f' body {{ background: url("{elsewhere}/background.png"); }}</style></head><body>'
        f'<h1>WORKLOAD REPOSITORY report</h1><img src="{elsewhere}/image.png">'
        f'<object data="{elsewhere}/object"></object><iframe src="{elsewhere}/frame"></iframe>'
        '<a id="link" href="relative.html">a link</a><p id="end">End of Report</p></body></html>'
    )


def state_examples(dbs, stories):
    """The keys of the link this view adds, as test_browser.py's _state_examples takes them."""
    single = dbs["single"]
    return {
        "rtype": ({"db": single, "view": "oracle-reports", "range": "1d"}, "text"),
        "b_begin_snap": ({"db": single, "view": "oracle-reports", "range": "1d", "b_end_snap": "20400"}, "20396"),
        "b_end_snap": ({"db": single, "view": "oracle-reports", "range": "1d", "b_begin_snap": "20396"}, "20400"),
        # the SQL monitor report open in SQL detail (one this range does not list: kept, and said)
        "mon": ({"db": dbs["rac"], "view": "sql", "range": "7d", "sql": stories["plan_regression"]["sql_id"]}, "1"),
    }


def _stored(client, db):
    return client.get(f"/api/v1/dbs/{db}/awr-report/stored").get_json()["reports"]


def _frame(pg):
    return pg.page.locator("[data-report=awr-report] iframe")


def test_the_view_lists_the_stored_reports_and_opens_one_sandboxed_then_as_text(server, dbs, client, page):
    db = dbs["single"]
    page.open(_url(server, db=db, view="oracle-reports", range="7d"))
    stored = _stored(client, db)
    rows = page.page.locator("[data-table=awr-stored] tbody tr")
    assert rows.count() == len(stored) == 3
    first = next(k for k, r in enumerate(stored) if r["kind"] == "report")
    report = stored[first]
    rows.nth(first).click()
    page.settle()
    state = page.state()
    assert (state["begin_snap"], state["end_snap"]) == (str(report["begin_snap"]), str(report["end_snap"]))
    api = client.get(
        f"/api/v1/dbs/{db}/awr-report",
        query_string={
            "begin_snap": report["begin_snap"],
            "end_snap": report["end_snap"],
            "instance": "all",
            "type": "html",
        },
    )
    frame = _frame(page)
    assert frame.count() == 1
    assert frame.get_attribute("sandbox") == ""  # no allow-scripts, no allow-same-origin
    assert page.page.evaluate("document.querySelector('[data-report=awr-report] iframe').sandbox.length") == 0
    assert frame.evaluate("f => f.srcdoc") == META + api.get_data(as_text=True)
    inside = page.page.frame_locator("[data-report=awr-report] iframe")
    assert "Load Profile" in inside.locator("body").text_content()
    # the same report as text: in a <pre>, as text
    page.page.select_option("#awr-type", "text")
    page.page.get_by_role("button", name="Open report").click()
    page.settle()
    assert page.state()["rtype"] == "text"
    text = client.get(
        f"/api/v1/dbs/{db}/awr-report",
        query_string={"begin_snap": report["begin_snap"], "end_snap": report["end_snap"], "type": "text"},
    ).get_data(as_text=True)
    assert page.page.locator("[data-report=awr-report] pre.report-text").text_content() == text
    assert _frame(page).count() == 0
    assert page.errors == [], page.errors


def test_download_saves_the_api_document_under_its_name(server, dbs, client, page):
    db = dbs["single"]
    diff = next(r for r in _stored(client, db) if r["kind"] == "diff")
    page.open(
        _url(
            server,
            db=db,
            view="oracle-reports",
            begin_snap=diff["begin_snap"],
            end_snap=diff["end_snap"],
            b_begin_snap=diff["b_begin_snap"],
            b_end_snap=diff["b_end_snap"],
        )
    )
    assert page.page.locator("#awr-compare").is_checked()
    with page.page.expect_download() as info:
        page.page.locator("[data-report=awr-report] .report-download").click()
    api = client.get(
        f"/api/v1/dbs/{db}/awr-report/compare",
        query_string={
            "a_begin_snap": diff["begin_snap"],
            "a_end_snap": diff["end_snap"],
            "b_begin_snap": diff["b_begin_snap"],
            "b_end_snap": diff["b_end_snap"],
            "instance": "all",
            "type": "html",
            "download": 1,
        },
    )
    name = api.headers["Content-Disposition"].split('filename="')[1].rstrip('"')
    assert info.value.suggested_filename == name and name.startswith("awrdiff_ORCL_1_")
    assert Path(info.value.path()).read_bytes() == api.get_data()
    assert page.errors == [], page.errors


def test_a_range_without_a_stored_report_says_so(server, dbs, client, page):
    report = _stored(client, dbs["single"])[0]
    page.open(
        _url(
            server,
            db=dbs["single"],
            view="oracle-reports",
            begin_snap=report["begin_snap"],
            end_snap=report["end_snap"] + 1,
        )
    )
    card = page.page.locator("[data-report=awr-report]")
    assert card.get_attribute("data-state") == "error"
    assert "/awr-report/stored" in card.locator(".status").text_content()


def test_sql_detail_lists_monitored_executions_and_opens_their_report(server, dbs, client, demo_store, page):
    db = dbs["rac"]
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    sql_id = con.execute(
        "select key1 from dba_hist_reports where dbid = ? group by key1 order by count(*) desc limit 1",
        (int(db.split(".")[1]),),
    ).fetchone()[0]
    con.close()
    page.open(_url(server, db=db, view="sql", sql=sql_id, range="7d"))
    api = client.get(f"/api/v1/dbs/{db}/sql/{sql_id}/monitor", query_string={"instance": "all"}).get_json()["rows"]
    rows = page.page.locator("[data-table=sql-monitor] tbody tr")
    assert rows.count() == min(len(api), 10) and len(api) > 3
    rows.first.click()
    page.settle()
    first = sorted(api, key=lambda r: r["start"])[0]
    frame = page.page.locator("[data-report=sql-monitor-report] iframe")
    assert frame.get_attribute("sandbox") == ""
    expected = client.get(f"/api/v1/dbs/{db}/sql-monitor/{first['report_id']}?snap_id={first['snap_id']}")
    assert expected.status_code == 200
    assert frame.evaluate("f => f.srcdoc") == META + expected.get_data(as_text=True)
    # the open report is part of the link (issue 34): the link alone opens it again
    assert parse_qs(urlsplit(page.page.url).query)["mon"] == [str(first["report_id"])]
    link = page.page.url
    page.open(_url(server, db=db, view="overview", range="1d"))
    page.open(link)
    frame = page.page.locator("[data-report=sql-monitor-report] iframe")
    assert frame.evaluate("f => f.srcdoc") == META + expected.get_data(as_text=True)
    assert page.errors == [], page.errors


def test_a_monitored_execution_shows_its_ash_samples_per_plan_line(server, dbs, client, demo_store, page):
    """Issue 31: under an execution's SQL monitor report, the statement's ASH samples per line of the execution's plan
    between its start and end (by sample time), as /plans gives them for that window; the lines in the plan's order."""
    db = dbs["rac"]
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    sql_id = con.execute(
        "select key1 from dba_hist_reports r where dbid = ? and exists (select 1 from dba_hist_sql_plan p where "
        "p.sql_id = r.key1) group by key1 order by count(*) desc limit 1",
        (int(db.split(".")[1]),),
    ).fetchone()[0]
    con.close()
    page.open(_url(server, db=db, view="sql", sql=sql_id, range="7d"))
    api = client.get(f"/api/v1/dbs/{db}/sql/{sql_id}/monitor", query_string={"instance": "all"}).get_json()["rows"]
    first = sorted(api, key=lambda r: r["start"])[0]
    page.page.locator("[data-table=sql-monitor] tbody tr").first.click()
    page.settle()
    plans = client.get(
        f"/api/v1/dbs/{db}/sql/{sql_id}/plans", query_string={"from": first["start"], "to": first["end"]}
    ).get_json()
    lines = next(p for p in plans["plans"] if p["plan_hash_value"] == first["plan_hash_value"])["lines"]
    shown = page.page.locator("[data-table=sql-monitor-lines] tbody tr").evaluate_all(
        "trs => trs.map(tr => [tr.cells[0].textContent.replace(/\\u00a0/g, ''), tr.cells[2].textContent])"
    )
    assert (
        shown
        == [
            [
                f"{line['id']} {line['operation']}" + (f" {line['options']}" if line["options"] else ""),
                f"{line['samples']:,}",
            ]
            for line in lines
        ][:25]
    )
    assert sum(line["samples"] for line in lines) > 0  # the demo samples its monitored executions
    assert page.errors == [], page.errors


def test_a_statement_without_monitored_executions_says_so(server, dbs, stories, page):
    page.open(_url(server, db=dbs["rac"], view="sql", sql=stories["plan_regression"]["sql_id"], range="7d"))
    assert page.page.locator("[data-table=sql-monitor]").count() == 0
    assert "No monitored execution" in page.page.locator(".sql-monitor .note").text_content()


@pytest.fixture(scope="module")
def planted(demo_store, tmp_path_factory):
    """A copy of the demo store whose every AWR and SQL monitor report of ORCL is PLANTED, served by gunicorn."""
    yield from _serving(demo_store, tmp_path_factory.mktemp("planted"), PLANTED)


def _serving(demo_store, folder, html: str):
    """gunicorn's URL on a copy of the demo store in `folder` whose every HTML report is `html`."""
    path = folder / "demo.sqlite"
    shutil.copy(demo_store[0], path)
    con = sqlite3.connect(path)
    blob = zlib.compress(html.encode())
    con.execute("update awrlens_awr_reports set report = ? where type = 'html'", (blob,))
    con.execute("update awrlens_monitor_reports set report = ? where type = 'html'", (blob,))
    con.commit()
    con.close()
    with gunicorn(path, workers=1) as url:
        yield url


def test_script_planted_in_a_stored_report_runs_nothing_and_reaches_nothing(planted, dbs, client, page):
    """The planted report's script and onerror handler would set globals of the page (parent, top) and mark their
    own document: none of it happens, in the view's iframe or with the report opened on its own; its document's
    origin is opaque."""
    db = dbs["single"]
    report = next(r for r in _stored(client, db) if r["kind"] == "report")
    page.open(_url(planted, db=db, view="oracle-reports", begin_snap=report["begin_snap"], end_snap=report["end_snap"]))
    frame = _frame(page)
    assert frame.get_attribute("sandbox") == "" and "End of Report" in frame.evaluate("f => f.srcdoc")
    page.page.wait_for_timeout(500)  # time for an image error to fire
    inside = page.page.frame_locator("[data-report=awr-report] iframe")
    assert inside.locator("#end").text_content() == "End of Report"  # the document is there
    assert inside.locator("[data-ran]").count() == 0 and inside.locator("body").get_attribute("data-ran") is None
    assert page.page.evaluate("[window.pwned, window.pwned2, window.top.pwned]") == [None, None, None]
    child = next(f for f in page.page.frames if f != page.page.main_frame)
    assert child.evaluate("window.origin") == "null"  # opaque: nothing of the app's origin is reachable
    # opened on its own (a link to the API), the response's CSP sandbox keeps it as inert
    own = page.context.new_page()
    own.goto(f"{planted}/api/v1/dbs/{db}/awr-report?begin_snap={report['begin_snap']}&end_snap={report['end_snap']}")
    own.wait_for_timeout(500)
    assert own.locator("#end").text_content() == "End of Report"
    assert own.evaluate("[window.pwned, window.pwned2, document.body.getAttribute('data-ran'), window.origin]") == [
        None,
        None,
        None,
        "null",
    ]
    own.close()
    assert not page.dialogs


@pytest.fixture(scope="module")
def elsewhere():
    """A loopback HTTP server that records every request it gets: (its URL, the paths asked)."""
    asked = []

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", asked
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def planted_loads(demo_store, elsewhere, tmp_path_factory):
    """A copy of the demo store whose every HTML AWR and SQL monitor report of ORCL is loads(), served by gunicorn."""
    yield from _serving(demo_store, tmp_path_factory.mktemp("planted_loads"), loads(elsewhere[0]))


def test_what_a_report_names_is_not_fetched_by_the_viewer_nor_on_its_own(planted_loads, elsewhere, dbs, client, page):
    """A report's <img>, stylesheets (<link>, @import, a background), <object> and nested frame make the browser
    request nothing, in the viewer's sandboxed iframe (the policy's <meta>) as opened on its own (the header), and its
    <base href> re-points no link (base-uri 'none'). The server they name records every request it gets."""
    url, asked = elsewhere
    db = dbs["single"]
    report = next(r for r in _stored(client, db) if r["kind"] == "report")
    page.open(
        _url(planted_loads, db=db, view="oracle-reports", begin_snap=report["begin_snap"], end_snap=report["end_snap"])
    )
    inside = page.page.frame_locator("[data-report=awr-report] iframe")
    assert inside.locator("#end").text_content() == "End of Report"  # the document is there
    page.page.wait_for_timeout(1000)  # time for anything it names to be asked for
    assert asked == []
    assert not inside.locator("#link").evaluate("a => a.href").startswith(url)
    own = page.context.new_page()
    own.goto(
        f"{planted_loads}/api/v1/dbs/{db}/awr-report?begin_snap={report['begin_snap']}&end_snap={report['end_snap']}"
    )
    own.wait_for_timeout(1000)
    assert own.locator("#end").text_content() == "End of Report"
    assert asked == []
    assert not own.locator("#link").evaluate("a => a.href").startswith(url)
    own.close()
