"""The Statspack database (docs/awr-rules.md §31) in real headless Chromium (the browser, server and page helpers of
tests/chromium.py): BILLING's overview tells the gp2 burst-credit story from the snapshots, the database picker and
the AAS chart say the history is Statspack, Top activity says why there is no ASH and shows the snapshots' AAS
instead, and its links and exports work as the AWR databases' do."""

import csv
import io
from datetime import datetime
from pathlib import Path
from urllib.parse import urlencode

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]


def _url(server, **params):
    return f"{server}/?" + urlencode(params, doseq=True)


def test_the_overview_shows_the_burst_credit_story(server, statspack_db, stories, page):
    burst = stories["statspack"]["burst_credits"]
    page.open(_url(server, db=statspack_db, view="overview", range="7d"))
    picker = page.page.locator("#db option:checked").text_content()
    assert "BILLING" in picker and "Statspack" in picker
    (aas,) = [c for c in page.charts() if c["id"] == "aas"]
    io_class = next(d for d in aas["datasets"] if d["label"] == "User I/O")
    start = datetime.fromisoformat(burst["from"]).timestamp() * 1000
    before = [v for t, v in io_class["points"] if t < start and v is not None]
    during = [v for t, v in io_class["points"] if t >= start and v is not None]
    assert max(during) > 5 * max(before), (max(during), max(before))  # the afternoons the bucket is empty
    toggle = page.page.locator("[data-chart=aas] button[data-act=ash]")
    assert toggle.is_disabled() and "Statspack" in toggle.get_attribute("title")
    first = page.page.locator("[data-table=top-events] tbody tr").first.text_content()
    assert "db file sequential read" in first
    assert page.errors == []


def test_top_activity_says_why_there_is_no_ash_and_shows_the_snapshots_aas(server, statspack_db, page):
    page.open(_url(server, db=statspack_db, view="activity", range="1d"))
    note = page.page.locator("#ash-none").text_content()
    assert "Statspack" in note and "Active Session History" in note and "Diagnostics Pack" in note
    (chart,) = page.charts()
    assert chart["id"] == "activity" and "Statspack" in chart["title"]
    assert {d["label"] for d in chart["datasets"]} >= {"User I/O", "DB CPU"}
    assert not page.api("/activity")  # nothing asked of ASH
    assert page.errors == []


@pytest.mark.parametrize(
    "view, words", [("tablespaces", "tablespace usage"), ("oracle-reports", "AWR and SQL monitor")]
)
def test_views_of_what_statspack_does_not_keep_say_so(server, statspack_db, page, view, words):
    page.open(_url(server, db=statspack_db, view=view, range="7d"))
    note = page.page.locator("#not-kept").text_content()
    assert "Statspack" in note and words in note
    assert page.charts() == [] and page.error_text() == "" and page.errors == []


def test_a_link_and_the_exports_work_as_for_awr(server, statspack_db, client, browser, page):
    page.open(_url(server, db=statspack_db, view="overview", range="7d"))
    with page.page.expect_download() as info:
        page.page.locator("[data-table=top-sql] button.buttons-csv").click()
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    api = client.get(f"/api/v1/dbs/{statspack_db}/top-sql", query_string={"limit": 25}).get_json()
    assert api["source"] == "statspack" and [r[0] for r in rows[1:]] == [r["sql_id"] for r in api["rows"]]
    with page.page.expect_download() as info:
        page.page.locator("[data-chart=aas] button[data-act=png]").click()
    assert Path(info.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a link to a statement opens its detail, from Statspack's summaries
    sql_id = api["rows"][0]["sql_id"]
    other = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC")
    try:
        from tests.chromium import Page

        shared = Page(other).open(_url(server, db=statspack_db, view="sql", sql=sql_id, range="7d"))
        charts = shared.charts()
        assert charts and all(c["state"] == "ready" for c in charts), charts
        assert shared.errors == [] and shared.error_text() == ""
    finally:
        other.close()
    assert page.errors == []
