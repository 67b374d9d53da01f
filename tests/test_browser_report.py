"""The report of the range shown (docs/awr-rules.md §28) and the snapshot ids of every view's range, in real
headless Chromium (the browser, server and page helpers of test_browser.py): the Report button opens a new tab
whose document has the sections and the chart images, printing breaks the pages between sections, the download
has the file's name; and the range label names the snapshots the store has in the range (plain SQL here).
"""

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from conftest import gunicorn
from test_api_report import SECTIONS

from tests.chromium import Page

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

DOCUMENT = """() => ({
  sections: Array.from(document.querySelectorAll('header[id], section[id]')).map(s => s.id),
  images: Array.from(document.images).map(i => ({data: i.src.startsWith('data:image/svg+xml;base64,'),
                                                 loaded: i.complete && i.naturalWidth > 0})),
  scripts: document.querySelectorAll('script').length,
  title: document.title
})"""
KEY = "report-k3y-of-some-length"
PRINTED = """() => ({
  breakBefore: getComputedStyle(document.getElementById('load-profile')).breakBefore,
  fontSize: getComputedStyle(document.body).fontSize
})"""


def _url(server, **params):
    return f"{server}/?" + urlencode(params, doseq=True)


def _snapshots_ending_in(demo_store, dbid, days):
    """The first and last snap_id whose END_INTERVAL_TIME falls in the last `days` days before the newest one."""
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    try:
        (newest,) = con.execute(
            "select max(end_interval_time) from dba_hist_snapshot where dbid = ?", (dbid,)
        ).fetchone()
        start = (datetime.fromisoformat(newest) - timedelta(days=days)).isoformat(sep=" ")
        return con.execute(
            "select min(snap_id), max(snap_id) from dba_hist_snapshot where dbid = ? and "
            "end_interval_time between ? and ?",
            (dbid, start, newest),
        ).fetchone()
    finally:
        con.close()


def _label_snapshots(page):
    page.page.wait_for_function("document.getElementById('range-label').textContent.includes('snapshots ')")
    return page.page.locator("#range-label").text_content().rsplit(" · snapshots ", 1)[1]


@pytest.mark.parametrize("view", ["overview", "activity", "explorer", "compare", "tablespaces"])
def test_every_view_shows_the_snapshot_ids_of_its_range(server, dbs, demo_store, page, view):
    db = dbs["rac"]
    lo, hi = _snapshots_ending_in(demo_store, int(db.rsplit(".", 1)[1]), 1)
    page.open(_url(server, db=db, view=view, range="1d"))
    assert _label_snapshots(page) == f"{lo}–{hi}"
    assert page.errors == []


def test_the_report_opens_in_a_new_tab_prints_and_downloads(server, dbs, demo_store, context, page):
    db = dbs["rac"]
    lo, hi = _snapshots_ending_in(demo_store, int(db.rsplit(".", 1)[1]), 1)
    page.open(_url(server, db=db, view="overview", range="1d"))
    with context.expect_page() as opened:
        page.page.get_by_role("button", name="Report", exact=True).click()
    tab = opened.value
    tab_errors = []
    tab.on("console", lambda m: tab_errors.append(m.text) if m.type == "error" else None)
    tab.wait_for_function("document.getElementById('changes') !== null", timeout=20000)
    assert tab.url.startswith("blob:")  # fetched with the key header, shown from a Blob URL: no key in any URL
    got = tab.evaluate(DOCUMENT)
    assert got["sections"] == SECTIONS
    assert got["images"] == [{"data": True, "loaded": True}] * 2
    assert got["scripts"] == 0 and got["title"] == f"awrlens report · RACPROD · snapshots {lo}–{hi}"
    assert tab.evaluate(PRINTED) == {"breakBefore": "auto", "fontSize": "13px"}
    tab.emulate_media(media="print")
    assert tab.evaluate(PRINTED) == {"breakBefore": "page", "fontSize": "10px"}
    assert tab.evaluate("window.opener") is None and tab_errors == []
    tab.close()
    with page.page.expect_download() as info:
        page.page.get_by_role("button", name="Download report").click()
    download = info.value
    assert download.suggested_filename == f"awrlens-RACPROD-{lo}-{hi}.html"
    text = Path(download.path()).read_text(encoding="utf-8")
    assert f"<h1>RACPROD · snapshots {lo}–{hi}</h1>" in text and "<script" not in text
    assert any("/report?from=" in u and "instance=all" in u for u in page.api("/report"))
    assert page.errors == []


def test_the_report_follows_the_instance_and_a_snapshot_range(server, dbs, demo_store, context, page):
    db = dbs["rac"]
    lo, hi = _snapshots_ending_in(demo_store, int(db.rsplit(".", 1)[1]), 1)
    page.open(_url(server, db=db, view="overview", inst="2", begin_snap=lo, end_snap=hi))
    assert _label_snapshots(page) == f"{lo}–{hi}"
    with page.page.expect_download() as info:
        page.page.get_by_role("button", name="Download report").click()
    assert info.value.suggested_filename == f"awrlens-RACPROD-{lo}-{hi}.html"
    assert any(f"begin_snap={lo}&end_snap={hi}&instance=2&download=1" in u for u in page.api("/report"))


@pytest.fixture(scope="module")
def keyed_server(demo_store):
    """The `server` of test_browser.py with an API key configured."""
    with gunicorn(demo_store[0], env={"AWRLENS_API_KEY_SECRET": "env:REPORT_KEY", "REPORT_KEY": KEY}) as url:
        yield url


def test_the_report_is_fetched_with_the_key_header_never_a_key_in_a_url(keyed_server, dbs, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC", locale="en-US")
    try:
        ctx.add_init_script(f"sessionStorage.setItem('awrlens.apiKey', {KEY!r})")  # as the page's key form keeps it
        sent = []
        ctx.on("request", lambda r: sent.append((r.url, r.headers.get("x-api-key"))) if "/report" in r.url else None)
        pg = Page(ctx).open(_url(keyed_server, db=dbs["single"], view="overview", range="1d"))
        with ctx.expect_page() as opened:
            pg.page.get_by_role("button", name="Report", exact=True).click()
        tab = opened.value
        tab.wait_for_function("document.getElementById('changes') !== null", timeout=20000)
        assert tab.evaluate("document.querySelectorAll('section[id]').length") == len(SECTIONS) - 1
        assert sent and all(key == KEY and KEY not in u for u, key in sent)
        assert KEY not in tab.url and pg.errors == []
    finally:
        ctx.close()
