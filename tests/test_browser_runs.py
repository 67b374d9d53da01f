"""The benchmark run pages in real headless Chromium (same browser, server and page helpers as test_browser.py): the
list, a run's chart by kind with its raw measurements, a shared run link opened in a fresh context that draws the
same chart data, comparing runs, the button to the AWR window's history, PNG and CSV, and public versus private
runs on a server that wants a key.
"""

import csv
import io
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import gunicorn
from test_browser import settings

from tests.chromium import Page

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

CPU, GP2, HANG, ASYNC, HTTPD, MODEL = (
    "cpu-consistency-c4-4xlarge",
    "ebs-5x-gp2-burst",
    "client-hang-rds-failover",
    "async-io-fix-orcl",
    "httpd-freebsd-vs-linux",
    "ebs-io1-gp2-io-size-model",
)
KEY = "browser-runs-key-0123456789"


def run_url(server, slug):
    return f"{server}/?view=run&run={slug}"


def api_rows(client, slug):
    return client.get(f"/api/v1/benchmarks/{slug}").get_json()["rows"]


def fresh(browser):
    return browser.new_context(
        viewport={"width": 1280, "height": 900}, timezone_id="UTC", locale="en-US", accept_downloads=True
    )


# -- the list and the run pages -------------------------------------------------------------------------------------


def test_the_list_links_to_every_run(server, page):
    page.open(f"{server}/?view=benchmarks")
    rows = page.page.locator("[data-table=benchmarks] tbody tr")
    assert rows.count() == 6
    assert page.page.locator("#tabs button[data-view=benchmarks]").get_attribute("aria-pressed") == "true"
    assert not page.page.locator(".rangebar").is_visible()  # no database range on these pages
    page.page.get_by_role("link", name="Apache httpd: FreeBSD 13.0 vs Oracle Linux 8.4").click()
    page.settle()
    assert page.state() == {"view": "run", "run": HTTPD}
    assert page.page.locator(".run-head h2").text_content() == "Apache httpd: FreeBSD 13.0 vs Oracle Linux 8.4"
    assert page.errors == []


@pytest.mark.parametrize(
    "slug, charts",
    [
        (CPU, {"run-cpu": ["every session", "median", "fastest", "slowest"]}),
        (GP2, {"run-1": 6, "run-2": 6}),
        (HANG, {"run-1": ["defaults", "with the settings"]}),
        (ASYNC, {"run-1": 2, "run-2": 2}),
        (HTTPD, {"run-1": 2, "run-2": 2, "run-3": 2}),
    ],
)
def test_each_kind_draws_the_chart_that_fits_it(server, client, page, slug, charts):
    page.open(run_url(server, slug))
    got = {c["id"]: c for c in page.charts()}
    assert set(got) == set(charts)
    for cid, expected in charts.items():
        assert got[cid]["state"] == "ready"
        labels = [d["label"] for d in got[cid]["datasets"]]
        assert labels == expected if isinstance(expected, list) else len(labels) == expected
    rows = api_rows(client, slug)
    table = page.page.locator("[data-table=measurements]")
    assert table.get_attribute("data-state") == "ready"
    assert f"of {len(rows)} entries" in table.locator(".dt-info").text_content()
    if slug == CPU:  # every session is a point, and the spread at N=9 is visible: the slowest line jumps
        chart = got["run-cpu"]["datasets"]
        assert chart[0]["points"] == [[r["x"], r["y"]] for r in rows]
        slowest = dict(chart[3]["points"])
        fastest = dict(chart[2]["points"])
        assert slowest[9] > 55 and fastest[9] < 42 and slowest[8] < 42
    if slug == GP2:  # one line per volume, throughput and IOPS apart, against I/O size
        assert {d["unit"] for d in got["run-1"]["datasets"]} == {"IO/s"}
        assert {d["unit"] for d in got["run-2"]["datasets"]} == {"KB/s"}
        total = next(d for d in got["run-2"]["datasets"] if d["label"] == "5 x gp2 (ASM total)")
        assert total["points"] == [[8, 48214], [1024, 245111]]
    if slug == HANG:  # bars by case
        defaults = got["run-1"]["datasets"][0]["points"]
        assert [p[0] for p in defaults] == ["new connection", "new call on a dead connection", "call in flight"]
    assert page.errors == []


def test_run_screenshot(server, page, screenshot):
    """The run picture in docs/viewer.md (docs/run.png): the async I/O fix, before and after."""
    page.open(run_url(server, ASYNC))
    page.page.mouse.move(5, 5)
    shot = screenshot("run.png")
    page.page.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 20000 and len(page.charts()) == 2
    assert page.errors == []


# -- the share link --------------------------------------------------------------------------------------------------


def test_a_shared_run_link_opens_the_same_chart_in_a_fresh_context(server, client, browser, page):
    page.open(f"{server}/?view=benchmarks")
    page.page.get_by_role("link", name="CPU consistency on 16 vCPUs", exact=False).click()
    page.settle()
    page.page.get_by_role("button", name="Copy link").click()
    link = page.page.locator(".permalink").input_value()
    assert link == run_url(server, CPU)  # short and readable: the slug is the whole state
    original = page.charts()
    other_ctx = fresh(browser)
    try:
        other = Page(other_ctx).open(link)
        copy = other.charts()
        assert [(c["id"], c["title"]) for c in copy] == [(c["id"], c["title"]) for c in original]
        for a, b in zip(original, copy, strict=True):
            assert a["datasets"] == b["datasets"], a["id"]
        assert sum(len(d["points"]) for d in copy[0]["datasets"]) > 450
        assert copy[0]["datasets"][0]["points"] == [[r["x"], r["y"]] for r in api_rows(client, CPU)]
        assert other.page.locator(".run-head h2").text_content().startswith("CPU consistency on 16 vCPUs")
        assert other.errors == []
    finally:
        other_ctx.close()


def test_compare_several_runs_on_one_chart(server, browser, page):
    page.open(f"{server}/?view=benchmarks")
    page.page.get_by_label(GP2).check()
    page.page.get_by_label(MODEL).check()
    page.page.get_by_role("button", name="Compare the selected runs").click()
    page.settle()
    assert page.state() == {"view": "runs", "runs": GP2}  # state() keeps the first of a repeated key
    assert parse_qs(urlsplit(page.page.url).query)["runs"] == [GP2, MODEL]
    charts = {c["id"]: c for c in page.charts()}
    iops = charts["run-1"]["datasets"]  # both runs' IO/s on one chart, one line per run and volume
    assert {d["label"].split(" · ")[0] for d in iops} == {GP2, MODEL}
    assert len(iops) == 8
    assert page.page.locator("[data-table=measurements] thead th").first.text_content() == "Run"
    link = page.page.locator(".permalink").input_value()
    assert link == f"{server}/?view=runs&runs={GP2}&runs={MODEL}"
    other_ctx = fresh(browser)
    try:
        other = Page(other_ctx).open(link)
        assert [c["datasets"] for c in other.charts()] == [c["datasets"] for c in page.charts()]
    finally:
        other_ctx.close()
    # and from a run page, one more
    page.open(run_url(server, HTTPD))
    page.page.get_by_label("Compare with").select_option(HANG)
    page.page.get_by_role("button", name="Compare", exact=True).click()
    page.settle()
    assert parse_qs(urlsplit(page.page.url).query)["runs"] == [HTTPD, HANG]
    assert page.errors == []


def test_no_more_runs_than_the_api_compares(server, page):
    """The most runs compared at once (the page's settings, from the API's): the list stops ticking there, and
    a comparison that holds that many offers no run to add."""
    settings(page, maxCompareRuns=2)
    page.open(f"{server}/?view=benchmarks")
    boxes = page.page.locator(".pick-runs input[type=checkbox]")
    assert boxes.count() == 6 and not any(boxes.nth(i).is_disabled() for i in range(6))
    page.page.get_by_label(GP2).check()
    page.page.get_by_label(MODEL).check()
    assert [boxes.nth(i).is_disabled() for i in range(6)].count(True) == 4
    page.page.get_by_label(MODEL).uncheck()
    assert not any(boxes.nth(i).is_disabled() for i in range(6))
    page.open(f"{server}/?view=runs&runs={GP2}&runs={MODEL}")
    assert page.page.locator("form.compare-runs").count() == 0
    page.open(run_url(server, GP2))
    assert page.page.locator("form.compare-runs").count() == 1
    assert page.errors == []


def test_a_run_links_to_the_database_history_of_its_awr_window(server, client, page):
    run = client.get(f"/api/v1/benchmarks/{ASYNC}").get_json()["run"]
    page.open(run_url(server, ASYNC))
    page.page.get_by_role("link", name="Database history of this run", exact=False).click()
    page.settle()
    state = page.state()
    assert (state["db"], state["view"]) == (run["awr_db"], "overview")
    assert (state["begin_snap"], state["end_snap"]) == (str(run["awr_begin_snap"]), str(run["awr_end_snap"]))
    assert "run" not in state
    assert (
        f"snapshots {run['awr_begin_snap']}–{run['awr_end_snap']}" in page.page.locator("#range-label").text_content()
    )
    assert page.page.locator(".rangebar").is_visible()
    charts = page.charts()
    assert charts and all(c["state"] == "ready" for c in charts)
    restart = page.page.evaluate(
        "Chart.getChart(document.querySelector('[data-chart=aas] canvas')).$awr.markers.restarts"
    )
    assert len(restart) == 1  # the restart that applied the fix is inside the window
    page.page.go_back()
    page.settle()
    assert page.state() == {"view": "run", "run": ASYNC}
    assert page.errors == []


def test_png_and_csv_of_a_run(server, client, page):
    page.open(run_url(server, GP2))
    with page.page.expect_download() as info:
        page.page.locator("[data-chart=run-2] button[data-act=csv]").click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    chart = next(c for c in page.charts() if c["id"] == "run-2")
    assert len(rows) == sum(len(d["points"]) for d in chart["datasets"]) == 12
    assert {r["unit"] for r in rows} == {"KB/s"} and list(rows[0])[:4] == ["series", "unit", "I/O size (KB)", "value"]
    with page.page.expect_download() as info:
        page.page.locator("[data-chart=run-1] button[data-act=png]").click()
    assert Path(info.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with page.page.expect_download() as info:
        page.page.locator("[data-table=measurements] button.buttons-csv").click()
    table = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    api = api_rows(client, GP2)
    assert table[0][:6] == ["#", "Series", "x", "y", "Unit", "limit"] and len(table) == 1 + len(api)
    assert [float(r[3]) for r in table[1:]] == [r["y"] for r in api]  # raw values, not the display
    assert page.errors == []


def test_a_run_charts_csv_keeps_every_field_of_each_measurement(server, client, page):
    """The hang run's chart CSV keeps each measurement's fields: the 3,600 s of the call that never ended carries
    still_hanging, and each setting tried is there (issue 15: they were dropped, so 3,600 s read as measured)."""
    page.open(run_url(server, HANG))
    with page.page.expect_download() as info:
        page.page.locator("[data-chart=run-1] button[data-act=csv]").click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    api = api_rows(client, HANG)
    assert len(rows) == len(api) and any(r["extra"].get("still_hanging") for r in api)
    for r in api:
        got = next(c for c in rows if c["series"] == r["series"] and c["x"] == r["x"])
        assert float(got["value"]) == r["y"]
        for k, v in r["extra"].items():
            assert got[k] == (str(v).lower() if isinstance(v, bool) else str(v)), (k, got)
    assert page.errors == []


# -- public and private on a server that wants a key ---------------------------------------------------------------


@pytest.fixture(scope="module")
def keyed_server(demo_store):
    """As the `server` of test_browser.py (gunicorn on the session's demo store), with an API key configured."""
    key = {"AWRLENS_API_KEY_SECRET": "env:BROWSER_RUNS_KEY", "BROWSER_RUNS_KEY": KEY}
    with gunicorn(demo_store[0], env=key) as url:
        yield url


def _unexpected(errors):
    """Console errors other than the browser's own note on a refused (401) or not found (404) request."""
    return [e for e in errors if "status of 401" not in e and "status of 404" not in e]


def test_public_runs_open_without_the_key_and_private_ones_ask_for_it(keyed_server, browser):
    ctx = fresh(browser)
    try:
        public = Page(ctx).open(run_url(keyed_server, HTTPD))
        assert all(c["state"] == "ready" for c in public.charts()) and len(public.charts()) == 3
        assert public.error_text() == "" and _unexpected(public.errors) == []
        listed = Page(ctx).open(f"{keyed_server}/?view=benchmarks")
        slugs = listed.page.locator("[data-table=benchmarks] tbody tr td:last-child").all_text_contents()
        assert HTTPD in slugs and ASYNC not in slugs  # no key: the public runs only
        private = Page(ctx).open(run_url(keyed_server, ASYNC))
        head = private.page.locator(".run-head")
        assert head.get_attribute("data-state") == "error"  # answered as an unknown run: 404, the key form shown
        assert "no benchmark run" in head.text_content() and "opens with the API key" in head.text_content()
        assert private.charts() == []
        private.page.get_by_label("API key", exact=True).fill(KEY)
        private.page.get_by_role("button", name="Use this key").click()
        private.page.wait_for_load_state()
        private.settle()
        assert private.page.locator(".run-head").get_attribute("data-state") == "ready"
        assert {c["id"] for c in private.charts()} == {"run-1", "run-2"}
        # the key stays for the tab's session: the database history opens too
        private.page.get_by_role("link", name="Database history of this run", exact=False).click()
        private.settle()
        assert private.charts() and private.state()["view"] == "overview"
    finally:
        ctx.close()


def test_the_history_asks_for_the_key_instead_of_failing(keyed_server, browser):
    ctx = fresh(browser)
    try:
        pg = Page(ctx).open(f"{keyed_server}/?view=overview")
        assert "needs the API key" in pg.page.locator("main").text_content()
        assert pg.page.get_by_label("API key", exact=True).is_visible()
        pg.page.get_by_role("button", name="Benchmarks").click()
        pg.settle()
        assert pg.page.locator("[data-table=benchmarks] tbody tr").count() == 5
    finally:
        ctx.close()


def _chart(page, chart_id):
    return page.page.evaluate(f"""(() => {{
        const c = Chart.getChart(document.querySelector('[data-chart={chart_id}] canvas'));
        return {{title: document.querySelector('[data-chart={chart_id}] h3').textContent,
                 status: document.querySelector('[data-chart={chart_id}] .status').textContent,
                 y: c.options.scales.y.title.text,
                 sets: c.data.datasets.map(d => ({{label: d.label, color: d.borderColor, dash: d.borderDash,
                                                  open: d.open}}))}}; }})()""")


def _pct(a, b):
    return f"{100 * (b - a) / a:+.1f} %"


def test_run_charts_never_mislead(server, client, page):
    """A case that never ended is an open bar marked as such; two-series runs state their conclusion with the numbers
    (from the API's rows); units read naturally; series are told apart by colour or line style (issue 15)."""
    page.open(run_url(server, HANG))
    hang = _chart(page, "run-1")
    api = api_rows(client, HANG)
    first, second = [s["label"] for s in hang["sets"]]
    for s in hang["sets"]:  # open exactly where the API says the measurement was still hanging
        mine = {r["x"]: bool(r["extra"].get("still_hanging")) for r in api if r["series"] == s["label"]}
        assert [b for b in s["open"] if b] == [True] * sum(mine.values()) and any(mine.values()) == any(s["open"])
    for case in dict.fromkeys(r["x"] for r in api):
        a, b = (next(r for r in api if r["series"] == name and r["x"] == case) for name in (first, second))
        if not a["extra"].get("still_hanging") and not b["extra"].get("still_hanging"):
            assert f"{case}: " in hang["status"] and _pct(a["y"], b["y"]) in hang["status"], (case, hang["status"])
        else:
            assert f"{case}: more than " in hang["status"]
    page.open(run_url(server, ASYNC))
    fix = _chart(page, "run-1")
    rows = {r["series"]: r for r in api_rows(client, ASYNC) if r["unit"] == "1/s"}
    before, after = (rows[s["label"]]["y"] for s in fix["sets"])
    assert _pct(before, after) in fix["status"] and "/s" in fix["status"]
    assert "1/s" not in fix["title"] + fix["status"] and fix["y"] == "per second"
    page.open(run_url(server, CPU))
    cpu = _chart(page, "run-cpu")
    assert len({s["color"] for s in cpu["sets"]}) == len(cpu["sets"]) == 4, cpu["sets"]
    page.open(run_url(server, GP2))
    for chart_id in ("run-1", "run-2"):
        sets = _chart(page, chart_id)["sets"]
        assert len({(s["color"], tuple(s["dash"])) for s in sets}) == len(sets) > 1
    assert page.errors == []


# -- runs compared keep each run's axis, and colour a change by whether it is good (issue 34) ----------------------

CHART_AXES = """() => Array.from(document.querySelectorAll('[data-chart]')).map(el => {
  const c = Chart.getChart(el.querySelector('canvas')), x = c.options.scales.x;
  return {id: el.dataset.chart, x: {type: x.type, title: x.title.text}, y: c.options.scales.y.title.text,
          sets: c.data.datasets.map(d => ({label: d.label, unit: d.unit, type: d.type, line: d.showLine}))}; })"""

# Which way is better for the demo's units, as docs/awr-rules.md §29 judges a change by nature: a time taken lower,
# a rate per second (TPS, requests/s, network) higher, a percentage of CPU neither
BETTER = {"s": "lower", "ms": "lower", "1/s": "higher", "Gbit/s": "higher", "%": None}


def _run_of(label, slugs):
    """The run of a compared series' label ("<slug> · <series>")."""
    return next(s for s in slugs if label.startswith(s + " · "))


@pytest.mark.parametrize("slugs", [(GP2, HTTPD), (CPU, HANG), (MODEL, ASYNC)])
def test_runs_compared_keep_each_runs_own_axis(server, client, page, slugs):
    """Each run's series compared sit on the x axis (type and title) and y title its own page draws them with; from
    the answer: text x on a category axis as bars (no line joins two cases), an I/O sweep's sizes on a log axis."""
    alone = {}
    for slug in slugs:
        page.open(run_url(server, slug))
        for chart in page.page.evaluate(CHART_AXES):
            alone.update({(slug, d["unit"]): (chart["x"], chart["y"]) for d in chart["sets"]})
    answer = client.get(f"/api/v1/benchmarks/compare?runs={slugs[0]}&runs={slugs[1]}").get_json()
    kinds = {r["slug"]: r["kind"] for r in answer["runs"]}
    page.open(f"{server}/?view=runs&runs={slugs[0]}&runs={slugs[1]}")
    compared = page.page.evaluate(CHART_AXES)
    placed = {}
    for chart in compared:
        assert len({d["unit"] for d in chart["sets"]}) == 1, chart  # never two units on one axis
        for d in chart["sets"]:
            key = (_run_of(d["label"], slugs), d["unit"])
            assert (chart["x"], chart["y"]) == alone[key], (chart["id"], d["label"])
            placed[key] = chart
    assert set(placed) == set(alone) == {(r["run"], r["unit"]) for r in answer["rows"]}
    for (slug, unit), chart in placed.items():
        mine = [r for r in answer["rows"] if r["run"] == slug and r["unit"] == unit]
        if any(isinstance(r["x"], str) for r in mine):
            assert chart["x"]["type"] == "category", chart
            assert all(d["type"] == "bar" and not d["line"] for d in chart["sets"]), chart
        else:
            assert chart["x"]["type"] == ("logarithmic" if kinds[slug] == "io_sweep" else "linear"), chart
    assert page.errors == []


def test_a_line_joins_a_sweep_and_never_two_lone_sizes(server, client, page):
    """8 KB and 1 MB (the gp2 burst's two tests) are two points, not joined by a line, alone and beside the model's
    sweep from 8 KB to 1 MB, which is a line: a series is a line where the answer has three sizes or more."""
    answer = client.get(f"/api/v1/benchmarks/compare?runs={GP2}&runs={MODEL}").get_json()
    for url in (run_url(server, GP2), f"{server}/?view=runs&runs={GP2}&runs={MODEL}"):
        page.open(url)
        seen = set()
        for chart in page.page.evaluate(CHART_AXES):
            for d in chart["sets"]:
                slug = _run_of(d["label"], (GP2, MODEL)) if "runs=" in url else GP2
                series = d["label"].removeprefix(slug + " · ")
                mine = [r for r in answer["rows"] if (r["run"], r["series"], r["unit"]) == (slug, series, d["unit"])]
                sizes = {r["x"] for r in mine}
                assert sizes and d["line"] == (len(sizes) >= 3), (url, d, sizes)
                seen.add(d["line"])
        assert seen == ({False, True} if "runs=" in url else {False})
    assert page.errors == []


def _changes(page):
    """Each chart's conclusion: its series and unit, and each change shown (text, class, data-better, colour)."""
    return page.page.evaluate("""() => Array.from(document.querySelectorAll('[data-chart]')).map(el => {
      const c = Chart.getChart(el.querySelector('canvas')), status = el.querySelector('.status');
      return {labels: c.data.datasets.map(d => d.label), unit: c.data.datasets[0].unit,
              neutral: getComputedStyle(status).color,
              changes: Array.from(status.querySelectorAll('span')).map(s => ({text: s.textContent,
                tone: s.className, better: s.dataset.better, color: getComputedStyle(s).color}))}; })""")


def _rgb(hex_color):
    return "rgb({}, {}, {})".format(*(int(hex_color.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)))


def _tone(pct, better):
    """Compare periods' class of a change (static/js/tables.js direction; docs/awr-rules.md §29)."""
    if not pct or better not in ("lower", "higher"):
        return ""
    return "better" if (pct > 0) == (better == "higher") else "worse"


def test_a_change_is_coloured_by_whether_it_is_good_for_its_measure(server, client, page):
    """Under a chart of two series, each case's change (second against first) is coloured as compare periods colours
    one, by the same classes and colours: better in --better, worse in --worse, neutral (a CPU percentage) in the text's
    own. The demo's changes are improvements; the async I/O fix read backwards (a rollback, the answer's rows of that
    run in the other order) gives the regressions. Expectations from the answer the page got."""
    answers = []

    def rollback(route):
        body = route.fetch().json()
        rows = body["rows"]
        body["rows"] = [r for r in rows if r["run"] != ASYNC] + [r for r in rows if r["run"] == ASYNC][::-1]
        answers.append(body)
        route.fulfill(json=body)

    seen = set()
    for routed, slugs in ((False, (HTTPD, HANG)), (True, (HANG, ASYNC))):
        if routed:
            page.page.route("**/api/v1/benchmarks/compare?*", rollback)
        try:
            page.open(f"{server}/?view=runs&runs={slugs[0]}&runs={slugs[1]}")
        finally:
            page.page.unroute("**/api/v1/benchmarks/compare?*")
        compared = f"/api/v1/benchmarks/compare?runs={slugs[0]}&runs={slugs[1]}"
        answer = answers[-1] if routed else client.get(compared).get_json()
        css = page.page.evaluate("""() => { const s = getComputedStyle(document.documentElement);
            return {better: s.getPropertyValue('--better').trim(), worse: s.getPropertyValue('--worse').trim()}; }""")
        for chart in _changes(page):
            if len(chart["labels"]) != 2:
                assert chart["changes"] == [], chart
                continue
            slug = _run_of(chart["labels"][0], slugs)
            first, second = (label.removeprefix(slug + " · ") for label in chart["labels"])
            rows = [r for r in answer["rows"] if r["run"] == slug and r["unit"] == chart["unit"]]
            expected = []
            for case in dict.fromkeys(r["x"] for r in rows):
                a, b = (next(r for r in rows if (r["series"], r["x"]) == (s, case)) for s in (first, second))
                if not (a["extra"] or {}).get("still_hanging") and not (b["extra"] or {}).get("still_hanging"):
                    pct = 100 * (b["y"] - a["y"]) / a["y"]
                    expected.append((round(pct, 1), _tone(pct, BETTER[chart["unit"]])))
            shown = [(float(c["text"].removesuffix(" %").replace(",", "")), c["tone"]) for c in chart["changes"]]
            assert shown == expected, chart
            for c in chart["changes"]:
                assert c["better"] == (BETTER[chart["unit"]] or "")
                assert c["color"] == (_rgb(css[c["tone"]]) if c["tone"] else chart["neutral"]), c
                seen.add(c["tone"])
    assert seen == {"better", "worse", ""}, seen
    assert _rgb(css["better"]) != _rgb(css["worse"])
    assert page.errors == []
