"""Importing AWR report files from the page (docs/awr-rules.md §35) in real headless Chromium (the browser and page
helpers of tests/chromium.py, a server with a reports store and an API key): a day of ORCL's hourly reports (the
demo's, as a DBA's folder holds them: app/demo/report_files.py) chosen with "Import reports…" open the overview of
the database they make, over the snapshots they report, its charts a point per report; Compare periods over two of
their hours compares those hours; the link reopens the same view. A file dropped on the page takes the same way; a
batch with a file that is no report is refused naming it, and nothing is imported. Expectations from the files
(their names give their snapshots), the demo store they were rendered from, and the API's answers."""

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from test_browser import _rows

from app.demo.report_files import report_folder
from tests.chromium import REPORTS_KEY, Page, reports_gunicorn

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

HOURS = 24
HOSTILE = '<img src=x onerror="window.__hostile = 1">.txt'  # a file name is the sender's text, never markup


def snaps(path: Path) -> tuple[int, int]:
    """A report's begin and end snapshot, from its name as Oracle's scripts write it (awrrpt_1_<begin>_<end>.txt)."""
    lo, hi = re.search(r"_(\d+)_(\d+)\.\w+$", path.name).groups()
    return int(lo), int(hi)


@pytest.fixture(scope="module")
def orcl(sql3):
    """ORCL's DBID and the midnight two days before its newest snapshot, database-local."""
    dbid, newest = sql3.execute(
        "SELECT d.dbid, max(s.end_interval_time) FROM dba_hist_snapshot s JOIN dba_hist_database_instance d "
        "USING (dbid) WHERE d.db_name = 'ORCL'"
    ).fetchone()
    return dbid, datetime.fromisoformat(newest).replace(hour=0, minute=0, second=0) - timedelta(days=2)


@pytest.fixture(scope="module")
def day(tmp_path_factory, demo_store, orcl):
    """A day of ORCL's hourly reports (19c text), one file an hour."""
    files = report_folder(demo_store[0], tmp_path_factory.mktemp("orcl-day"), "ORCL", 1, orcl[1], HOURS, "awr-text-19")
    assert len(files) == HOURS  # the demo's ORCL has every snapshot of that day
    return files


def with_key(browser):
    """A fresh context whose pages have the API key in their tab's session, where the page's key form puts it."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC", locale="en-US")
    ctx.add_init_script(f"sessionStorage.setItem('awrlens.apiKey', {REPORTS_KEY!r})")
    return ctx


def ask(pg, path, params=None):
    """GET /api/v1<path> from the page, with its key, past what it kept (the answer the API gives now)."""
    return pg.page.evaluate("(a) => AWRLens.Api.get(a.path, a.params, {fresh: true})", {"path": path, "params": params})


def reports_dbs(pg) -> list:
    """The reports store's databases, as /api/v1/dbs lists them now."""
    return [d for d in ask(pg, "/dbs")["databases"] if d["target"] == "reports"]


def drop(pg, files: list[Path], names: dict | None = None):
    """Drop files on the page as a file manager does: a DataTransfer holding them (a file under its name in `names`,
    where given), built in the page, dispatched as dragover and drop on the view."""
    dt = pg.page.evaluate_handle(
        """(files) => { const dt = new DataTransfer();
            files.forEach(f => dt.items.add(new File([f.text], f.name, {type: 'text/plain'})));
            return dt; }""",
        [{"name": (names or {}).get(f, f.name), "text": f.read_text(encoding="utf-8")} for f in files],
    )
    pg.page.dispatch_event("main", "dragover", {"dataTransfer": dt})
    assert pg.page.evaluate(
        "document.documentElement.hasAttribute('data-dropping')"
    )  # the page shows it will take them
    pg.page.dispatch_event("main", "drop", {"dataTransfer": dt})


def wait_for_error(pg) -> str:
    pg.page.wait_for_function("!document.querySelector('#error').hidden")
    pg.settle()
    return pg.error_text()


# -- a refused batch ---------------------------------------------------------------------------------------------


def test_a_refused_import_names_the_file_and_imports_nothing(demo_store, tmp_path, day, browser):
    """A file that is no report among good ones, chosen or dropped: the API's error naming it in the page's error
    display, the page where it was, and no database in the reports store (a server of its own: none before)."""
    wrong = tmp_path / "minutes-of-the-meeting.txt"
    wrong.write_text("Minutes of the capacity meeting.\n" * 40, encoding="utf-8")
    with reports_gunicorn(demo_store[0], tmp_path / "reports.sqlite") as url:
        ctx = with_key(browser)
        try:
            pg = Page(ctx).open(f"{url}/")
            assert reports_dbs(pg) == []
            before = pg.page.url
            pg.page.set_input_files("#import-files", [*day[:3], wrong, day[3]])
            shown = wait_for_error(pg)
            assert shown.startswith("The API answered 400 (reports_refused): nothing was imported"), shown
            assert f"{wrong.name}: " in shown and not any(f.name in shown for f in day[:4]), shown  # only it named
            assert pg.page.url == before and not pg.page.locator("#import-note").is_visible()
            assert reports_dbs(pg) == []
            # dropped, under a name holding markup: refused the same way, the name shown as text
            pg.page.evaluate("AWRLens.Controls.clearError()")
            drop(pg, [day[0], wrong], {wrong: HOSTILE})
            assert f"{HOSTILE}: " in wait_for_error(pg)
            assert pg.page.locator("#error img").count() == 0 and pg.page.evaluate("window.__hostile") is None
            assert pg.page.url == before and reports_dbs(pg) == [] and pg.dialogs == []
            assert [e for e in pg.errors if "status of 400" not in e] == []  # the browser's note on the refusal
        finally:
            ctx.close()


# -- a day imported ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def imported(reports_server, day, context):
    """The page after the day's files were chosen with "Import reports…", the key given in the page's key form."""
    pg = Page(context)
    pg.open(f"{reports_server}/")
    assert "needs the API key" in pg.page.locator("main").text_content()
    pg.page.get_by_label("API key", exact=True).fill(REPORTS_KEY)
    pg.page.get_by_role("button", name="Use this key").click()
    pg.page.wait_for_load_state()
    pg.settle()
    assert [e for e in pg.errors if "status of 401" not in e] == []  # the browser's note on the page without the key
    pg.errors.clear()
    with pg.page.expect_navigation():
        pg.page.set_input_files("#import-files", day)
    pg.settle()
    yield pg
    pg.page.close()


def test_the_import_opens_the_overview_of_the_imported_database(imported, orcl, day):
    """The overview of reports.<DBID> over the first report's begin snapshot to the last one's end snapshot, the
    picker saying the database is imported; every chart draws a point per report, where the API's answer over the
    same snapshots has them; the tables are filled."""
    pg = imported
    state = pg.state()
    assert (state["db"], state["view"]) == (f"reports.{orcl[0]}", "overview")
    assert (state["begin_snap"], state["end_snap"]) == (str(snaps(day[0])[0]), str(snaps(day[-1])[1]))
    assert pg.page.locator("#db option:checked").text_content() == f"ORCL ({orcl[0]}) · imported reports"
    label = pg.page.locator("#range-label").text_content()
    assert f"snapshots {snaps(day[0])[0]}–{snaps(day[-1])[1]}" in label, label
    answer = ask(
        pg,
        f"/dbs/{state['db']}/series",
        {"name": "derived:aas", "begin_snap": state["begin_snap"], "end_snap": state["end_snap"]},
    )
    times = [datetime.fromisoformat(p[0]).timestamp() * 1000 for p in answer["series"][0]["points"]]
    assert len(times) == HOURS  # a point per report (asked by snapshot)
    charts = pg.charts()
    assert len(charts) == 4, [c["id"] for c in charts]  # a single instance: AAS, host CPU, I/O, calls
    for chart in charts:
        assert chart["state"] == "ready", chart
        assert chart["datasets"], chart["id"]
        for d in chart["datasets"]:  # the charts ask by time: the same intervals, none left out at either end
            assert [p[0] for p in d["points"]] == times, (chart["id"], d["label"])
            assert any(p[1] for p in d["points"]), (chart["id"], d["label"])
    assert len(pg.page.locator("[data-table]").all()) == 3
    for card in pg.page.locator("[data-table]").all():
        assert card.get_attribute("data-state") == "ready", card.get_attribute("data-table")
        assert card.locator("tbody tr").count() > 0, card.get_attribute("data-table")
    assert pg.error_text() == "" and pg.errors == []
    assert not pg.page.evaluate("document.documentElement.hasAttribute('data-dropping')")


def test_a_link_to_the_imported_view_reopens_it(imported, browser):
    """The page's URL opened in a fresh page (the key in its session) draws the same charts with the same data."""
    link = imported.page.url
    ctx = with_key(browser)
    try:
        other = Page(ctx).open(link)
        assert other.page.url == link
        mine, theirs = imported.charts(), other.charts()
        assert [(c["id"], c["title"]) for c in theirs] == [(c["id"], c["title"]) for c in mine]
        for a, b in zip(mine, theirs, strict=True):
            assert a["datasets"] == b["datasets"], a["id"]
        assert (
            other.page.locator("#db option:checked").text_content()
            == imported.page.locator("#db option:checked").text_content()
        )
        assert other.error_text() == "" and other.errors == []
    finally:
        ctx.close()


def test_compare_periods_over_two_imported_hours(imported, sql3, orcl, day):
    """Compare periods from the tab, then A and B two of the hours imported, typed in its form (their times from the
    demo store the reports came from): each period is that hour's report, and the tables have the answer's rows."""

    def hour(path):
        lo, hi = snaps(path)
        rows = sql3.execute(
            "SELECT snap_id, end_interval_time FROM dba_hist_snapshot WHERE dbid = ? AND instance_number = 1 "
            "AND snap_id IN (?, ?)",
            (orcl[0], lo, hi),
        ).fetchall()
        return [dict(rows)[s][:16].replace(" ", "T") for s in (lo, hi)]

    a, b = day[3], day[14]
    pg = imported
    pg.page.locator("#tabs button[data-view=compare]").click()
    pg.settle()
    assert pg.state()["view"] == "compare" and pg.state()["db"] == f"reports.{orcl[0]}"
    for period, path in (("a", a), ("b", b)):
        start, end = hour(path)
        pg.page.fill(f"#{period}-from", start)
        pg.page.fill(f"#{period}-to", end)
    pg.page.get_by_role("button", name="Compare", exact=True).click()
    pg.settle()
    state = pg.state()
    assert [state[k][:16] for k in ("a_from", "a_to", "b_from", "b_to")] == [*hour(a), *hour(b)]
    answer = ask(
        pg,
        f"/dbs/{state['db']}/compare",
        {k: state[k] for k in ("a_from", "a_to", "b_from", "b_to")} | {"instance": "all"},
    )
    for period, path in (("a", a), ("b", b)):  # each period is its report's interval, and only it
        assert (answer[period]["begin_snap"], answer[period]["end_snap"]) == snaps(path), answer[period]
    assert "A covers 1 h, B 1 h" in pg.page.locator("#compare-headline").text_content()
    assert _rows(pg, "compare-load-profile") == len(answer["load_profile"]["rows"]) > 0
    assert _rows(pg, "compare-top-events") == min(25, len(answer["top_events"]["rows"])) > 0
    assert _rows(pg, "compare-movers") == min(25, len(answer["movers"]["rows"])) > 0
    assert pg.error_text() == "" and pg.errors == []


# -- a dropped file --------------------------------------------------------------------------------------------


def test_a_report_dropped_on_the_page_is_imported(reports_server, demo_store, tmp_path, sql3, browser):
    """One report of RACPROD's instance 2 (another database than ORCL's day) dropped on the page: it opens that
    database's overview over the file's snapshots, the picker saying it is imported."""
    (dbid,) = sql3.execute("SELECT dbid FROM dba_hist_database_instance WHERE db_name = 'RACPROD'").fetchone()
    newest = sql3.execute("SELECT max(end_interval_time) FROM dba_hist_snapshot WHERE dbid = ?", (dbid,)).fetchone()[0]
    start = datetime.fromisoformat(newest).replace(minute=0, second=0) - timedelta(hours=6)
    (report,) = report_folder(demo_store[0], tmp_path, "RACPROD", 2, start, 1, "awr-text-19")
    ctx = with_key(browser)
    try:
        pg = Page(ctx).open(f"{reports_server}/")
        with pg.page.expect_navigation():
            drop(pg, [report])
        pg.settle()
        state = pg.state()
        assert (state["db"], state["view"]) == (f"reports.{dbid}", "overview")
        assert (state["begin_snap"], state["end_snap"]) == tuple(str(s) for s in snaps(report))
        (listed,) = [d for d in reports_dbs(pg) if d["dbid"] == dbid]
        assert listed["rac"] and [i["instance_number"] for i in listed["instances"]] == [2]  # what the file reports
        picked = pg.page.locator("#db option:checked").text_content()
        assert picked == f"RACPROD ({dbid}) · RAC, 1 instance · imported reports", picked
        assert [c["state"] for c in pg.charts()] == ["ready"] * len(pg.charts())
        assert pg.error_text() == "" and pg.errors == []
    finally:
        ctx.close()
