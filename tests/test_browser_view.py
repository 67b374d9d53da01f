"""The viewer as people use it (issue 15), in real headless Chromium (same browser, server and page helpers as
test_browser.py): on a phone and on the common laptop widths, in the light and the dark theme, the mouse wheel and
Back, several units on one chart, and runs of different kinds compared.
"""

from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.chromium import Page

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

HANG, GP2, MODEL = "client-hang-rds-failover", "ebs-5x-gp2-burst", "ebs-io1-gp2-io-size-model"


def _url(server, **params):
    return f"{server}/?" + urlencode(params, doseq=True)


def _views(server, dbs, stories):
    """A link to every view: the history views on RACPROD, the benchmark list, a run and runs compared."""
    rac = dbs["rac"]
    return [
        _url(server, db=rac, view="overview", inst="each", range="7d"),
        _url(server, db=rac, view="explorer", range="7d", series=["derived:aas", "sysstat:redo size"]),
        _url(server, db=rac, view="sql", range="7d", sql=stories["plan_regression"]["sql_id"]),
        _url(server, db=rac, view="compare", range="7d"),
        _url(server, db=rac, view="tablespaces", range="7d"),
        f"{server}/?view=benchmarks",
        f"{server}/?view=run&run={HANG}",
        f"{server}/?view=runs&runs={GP2}&runs={MODEL}",
    ]


def _open(browser, width, scheme="light"):
    ctx = browser.new_context(
        viewport={"width": width, "height": 844},
        timezone_id="UTC",
        locale="en-US",
        color_scheme=scheme,
        accept_downloads=True,
    )
    return ctx, Page(ctx)


LAYOUT = """() => {
  const cards = sel => [...document.querySelectorAll(sel)].map(c => { const r = c.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, width: r.width, inner: c.scrollWidth > c.clientWidth}; });
  const grid = document.querySelector('main .grid'), box = grid && grid.getBoundingClientRect();
  return {scroll: document.scrollingElement.scrollWidth, width: innerWidth,
          grid: box ? {left: box.left, width: box.width} : null,
          charts: cards('[data-chart]'), tables: cards('[data-table]'),
          menu: getComputedStyle(document.querySelector('#view-menu')).display !== 'none',
          tabs: [...document.querySelectorAll('#tabs button')].some(b => getComputedStyle(b).display !== 'none')};
}"""


# -- phones and laptops --------------------------------------------------------------------------------------------


def test_a_phone_never_scrolls_sideways(server, dbs, stories, browser, screenshot):
    """At 390 px: no view scrolls sideways, the view tabs are a menu (keyboard too), charts stack one per row at the
    grid's width, and a table wider than the screen scrolls inside its card."""
    ctx, page = _open(browser, 390)
    try:
        for url in _views(server, dbs, stories):
            page.open(url)
            got = page.page.evaluate(LAYOUT)
            assert got["scroll"] <= got["width"] == 390, url
            assert got["menu"] and not got["tabs"], url
            for c in got["charts"]:
                assert c["left"] == pytest.approx(got["grid"]["left"], abs=1) and c["width"] == pytest.approx(
                    got["grid"]["width"], abs=1
                ), (url, c)
            tops = [c["top"] for c in got["charts"]]
            assert tops == sorted(tops) and len(set(tops)) == len(tops), url
            assert all(t["right"] <= 390 for t in got["tables"]), url
            if "view=tablespaces" in url:  # its table is wider than a phone: it scrolls in its card
                assert any(t["inner"] for t in got["tables"]), got["tables"]
            if "view=overview" in url:
                page.page.mouse.move(5, 5)
                shot = screenshot("phone.png")
                page.page.screenshot(path=str(shot), full_page=False)
                assert shot.stat().st_size > 20000
        # the menu with the keyboard: the next view
        page.open(_views(server, dbs, stories)[0])
        assert page.page.locator("#view-menu").input_value() == "overview"
        page.page.locator("#view-menu").focus()
        following = (
            page.page.locator("#view-menu option").nth(1).get_attribute("value")
        )  # Top activity, then the explorer
        page.page.keyboard.press("ArrowDown")
        page.settle()
        assert page.state()["view"] == following != "overview"
        assert page.page.locator("#view-menu").input_value() == following
        page.page.go_back()
        page.settle()
        assert page.page.locator("#view-menu").input_value() == "overview"
        assert page.errors == []
    finally:
        ctx.close()


@pytest.mark.parametrize("width", [1366, 1440])
def test_laptop_widths(server, dbs, stories, browser, width):
    """At 1366 and 1440 px: nothing wider than the window, the tabs shown (not the menu), the overview's three small
    charts side by side in one row and the AAS chart across the grid."""
    ctx, page = _open(browser, width)
    try:
        for url in _views(server, dbs, stories):
            page.open(url)
            got = page.page.evaluate(LAYOUT)
            assert got["scroll"] <= got["width"] == width, url
            assert got["tabs"] and not got["menu"], url
            if "view=overview" in url:
                aas, _, *small = got["charts"]
                assert aas["width"] == pytest.approx(got["grid"]["width"], abs=1)
                assert len({round(c["top"]) for c in small}) == 1 and len(small) == 3
                assert all(c["width"] < got["grid"]["width"] / 3 for c in small)
        assert page.errors == []
    finally:
        ctx.close()


# -- the dark theme ------------------------------------------------------------------------------------------------

CONTRAST = """() => {
  const cv = document.createElement('canvas'), g = cv.getContext('2d', {willReadFrequently: true});
  cv.width = cv.height = 1;
  const rgb = (color, under) => {  // a colour as drawn over another (an rgba tooltip over the chart)
    g.clearRect(0, 0, 1, 1);
    for (const c of [under, color]) { if (c) { g.fillStyle = c; g.fillRect(0, 0, 1, 1); } }
    const d = g.getImageData(0, 0, 1, 1).data; return `rgb(${d[0]}, ${d[1]}, ${d[2]})`;
  };
  const lum = c => { const [r, gr, b] = c.match(/\\d+/g).map(Number).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * gr + 0.0722 * b; };
  const ratio = (fg, bg, base) => { const b = rgb(bg, base || 'white'), f = rgb(fg, b), [x, y] = [lum(f), lum(b)];
    return Math.round(100 * (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05)) / 100; };
  const css = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
  const bgOf = sel => { for (let e = document.querySelector(sel); e; e = e.parentElement) {
    const b = getComputedStyle(e).backgroundColor; if (b !== 'rgba(0, 0, 0, 0)') { return b; } } return 'white'; };
  const text = sel => ratio(css(sel, 'color'), bgOf(sel));
  const chart = Chart.getChart(document.querySelector('[data-chart=host-cpu] canvas'));
  const panel = AWRLens.Theme.color('--panel'), tip = chart.options.plugins.tooltip;
  const corner = chart.ctx.getImageData(2, 2, 1, 1).data;
  return {theme: document.documentElement.dataset.theme, panel: rgb(panel),
    corner: `rgb(${corner[0]}, ${corner[1]}, ${corner[2]})`,
    ticks: chart.scales.x.options.ticks.color,
    text: {page: text('.range-label'), card: text('[data-chart=host-cpu] h3'),
      status: text('[data-chart=host-cpu] .status'),
      button: text('[data-chart=host-cpu] .tools button'), pressed: text('button[data-range][aria-pressed=true]'),
      legend: text('[data-chart=host-cpu] .legend-item'), cell: text('[data-table=top-events] tbody td'),
      link: text('[data-table=top-sql] .row-link'), input: text('#series-search, #from'),
      ticks: ratio(chart.scales.x.options.ticks.color, panel),
      yTicks: ratio(chart.scales.y0.options.ticks.color, panel),
      axisTitle: ratio(chart.scales.x.options.title.color, panel),
      tooltip: ratio(tip.bodyColor, tip.backgroundColor, panel),
      tooltipTitle: ratio(tip.titleColor, tip.backgroundColor, panel),
      restart: ratio(AWRLens.Theme.color('--restart'), panel), marker: ratio(AWRLens.Theme.color('--muted'), panel)},
    grid: ratio(chart.scales.x.options.grid.color, panel)};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_theme_follows_the_system_with_readable_text_and_charts(server, dbs, browser, scheme):
    """Light or dark as the system says (prefers-color-scheme): every text of the page and the charts (ticks, axis
    titles, legend, tooltip, marker labels) at least 4.5:1 against its background (WCAG AA), charts drawn on the
    theme's background, on a laptop and a phone."""
    for width in (1366, 390):
        ctx, page = _open(browser, width, scheme)
        try:
            page.open(_url(server, db=dbs["rac"], view="overview", inst="each", range="7d"))
            got = page.page.evaluate(CONTRAST)
            assert got["theme"] == scheme and got["corner"] == got["panel"], got
            low = {k: v for k, v in got["text"].items() if v < 4.5}
            assert low == {}, (scheme, width, got)
            assert got["grid"] >= 1.2, got  # grid lines stay faint, and visible (Chart.js's own in light)
            assert page.errors == []
        finally:
            ctx.close()


def test_the_theme_switch_is_kept_in_this_browser_not_in_the_link(server, dbs, browser):
    """The header's switch overrides the system's dark: the page and every chart redrawn light at once, the choice
    kept (localStorage) for the next visit, and the link unchanged."""
    ctx, page = _open(browser, 1366, "dark")
    try:
        page.open(_url(server, db=dbs["rac"], view="overview", range="7d"))
        dark = page.page.evaluate(CONTRAST)
        url = page.page.url
        page.page.get_by_label("Theme").select_option("light")
        light = page.page.evaluate(CONTRAST)
        assert (dark["theme"], light["theme"]) == ("dark", "light")
        assert light["corner"] == light["panel"] != dark["panel"] and light["ticks"] != dark["ticks"]
        assert min(light["text"].values()) >= 4.5, light
        assert page.page.url == url and "theme" not in url
        assert page.page.evaluate("localStorage.getItem('awrlens.theme')") == "light"
        page.open(url)  # the next visit: still light on a dark system
        assert page.page.evaluate(CONTRAST)["theme"] == "light"
        assert page.page.get_by_label("Theme").input_value() == "light"
        page.page.get_by_label("Theme").select_option("system")
        assert page.page.evaluate(CONTRAST)["theme"] == "dark"
        assert page.page.evaluate("localStorage.getItem('awrlens.theme')") is None
        assert page.errors == []
    finally:
        ctx.close()


PNG_PIXELS = """async (b64) => {
  const img = new Image(); img.src = 'data:image/png;base64,' + b64; await img.decode();
  const cv = document.createElement('canvas'); cv.width = img.width; cv.height = img.height;
  const g = cv.getContext('2d'); g.drawImage(img, 0, 0);
  const px = (x, y) => Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3));
  const band = g.getImageData(0, 0, img.width, 40).data, seen = [];
  for (let i = 0; i < band.length; i += 4) { seen.push([band[i], band[i + 1], band[i + 2]]); }
  return {corner: px(1, 1), band: seen};
}"""


def _lum(rgb):
    def lin(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_a_dark_charts_png_is_readable(server, dbs, browser):
    """A chart's PNG in the dark theme: filled with the theme's background (not transparent, not white), its title
    readable on it (4.5:1 at least)."""
    import base64

    ctx, page = _open(browser, 1366, "dark")
    try:
        page.open(_url(server, db=dbs["rac"], view="overview", range="7d"))
        with page.page.expect_download() as info:
            page.page.locator("[data-chart=host-cpu] button[data-act=png]").click()
        data = base64.b64encode(Path(info.value.path()).read_bytes()).decode()
        got = page.page.evaluate(PNG_PIXELS, data)
        panel = page.page.evaluate(
            "(() => { const g = document.createElement('canvas').getContext('2d');"
            " g.fillStyle = AWRLens.Theme.color('--panel'); return g.fillStyle; })()"
        )
        assert got["corner"] == [int(panel[i : i + 2], 16) for i in (1, 3, 5)], (got["corner"], panel)
        bg = _lum(got["corner"])
        best = max((max(_lum(p), bg) + 0.05) / (min(_lum(p), bg) + 0.05) for p in got["band"])
        assert bg < 0.05 and best >= 4.5, best
        assert page.errors == []
    finally:
        ctx.close()


# -- the mouse wheel and Back --------------------------------------------------------------------------------------

AT_POINTER = """(px) => {
  const c = Chart.getChart(document.querySelector('[data-chart=explorer] canvas')), x = c.scales.x;
  return {at: x.getValueForPixel(px), min: x.min, max: x.max, history: history.length}; }"""


def test_ctrl_wheel_zooms_around_the_pointer_and_a_gesture_is_one_back_entry(server, dbs, browser):
    """Ctrl+wheel zooms the time axis around the pointer (the chart's help says so); a wheel gesture, with a pause
    in it, and a Shift+drag pan each leave one history entry, so Back returns to the window before each."""
    ctx, page = _open(browser, 1366)
    try:
        start = _url(server, db=dbs["rac"], view="explorer", range="7d", series="derived:aas")
        page.open(start)
        card = page.page.locator("[data-chart=explorer]")
        assert "Ctrl+wheel" in card.locator("button[data-act=help]").get_attribute("title")
        card.locator("button[data-act=help]").click()
        assert "Ctrl+wheel to zoom" in card.locator(".status").text_content()
        box = card.locator("canvas").bounding_box()
        px, y = box["width"] * 0.7, box["y"] + box["height"] * 0.4
        before = page.page.evaluate(AT_POINTER, px)
        page.page.mouse.move(box["x"] + px, y)
        page.page.mouse.wheel(0, -120)  # no modifier: the page scrolls, the chart stays
        page.page.wait_for_timeout(400)
        assert page.page.evaluate(AT_POINTER, px)["min"] == before["min"] and page.state()["range"] == "7d"
        page.page.keyboard.down("Control")
        # the pause: longer than the plugin's 250 ms, well inside GESTURE_MS (1 s) on a busy machine
        for pause in (40, 40, 40, 400, 40, 40):  # one gesture, with a pause longer than the plugin's 250 ms
            page.page.mouse.wheel(0, -120)
            page.page.wait_for_timeout(pause)
        # a busy page: the plugin's call for the last step comes late (a gesture is the steps' spacing, not the call's)
        page.page.evaluate("() => { const until = Date.now() + 700; while (Date.now() < until) {} }")
        page.page.keyboard.up("Control")
        page.page.wait_for_timeout(400)
        page.settle()
        after = page.page.evaluate(AT_POINTER, px)
        assert "range" not in page.state()
        assert after["max"] - after["min"] < 0.6 * (before["max"] - before["min"])
        # around the pointer: the moment under it stays under it (to a minute's rounding)
        assert abs(after["at"] - before["at"]) < 0.01 * (before["max"] - before["min"])
        assert after["history"] == before["history"] + 1
        zoomed = page.state()
        # a pan: one entry more
        box = card.locator("canvas").bounding_box()
        page.page.keyboard.down("Shift")
        page.page.mouse.move(box["x"] + box["width"] * 0.3, y)
        page.page.mouse.down()
        for k in range(1, 9):
            page.page.mouse.move(box["x"] + box["width"] * (0.3 + 0.05 * k), y)
        page.page.mouse.up()
        page.page.keyboard.up("Shift")
        page.settle()
        assert page.state()["from"] < zoomed["from"]
        assert page.page.evaluate("history.length") == before["history"] + 2
        page.page.go_back()
        page.settle()
        assert page.state() == zoomed
        page.page.go_back()
        page.settle()
        assert page.state()["range"] == "7d" and "from" not in page.state()
        assert page.errors == []
    finally:
        ctx.close()


# -- several series on one chart -----------------------------------------------------------------------------------

AXES = """(id) => { const c = Chart.getChart(document.querySelector(`[data-chart=${id}] canvas`));
  return Object.values(c.scales).filter(s => s.axis === 'y').map(s => ({id: s.id, type: s.type, min: s.min,
    title: s.options.title.text, units: c.data.datasets.filter(d => d.yAxisID === s.id).map(d => d.unit),
    least: Math.min(...c.data.datasets.filter(d => d.yAxisID === s.id)
      .flatMap(d => d.points.filter(p => p[0] >= c.scales.x.min && p[0] <= c.scales.x.max && p[1] > 0)
        .map(p => p[1])))})); }"""


def test_each_axis_names_its_unit_and_series_and_more_units_make_small_multiples(server, dbs, browser):
    """Two units: one chart, an axis each, titled with the unit and the series on it. Three: a small chart per unit,
    never more than two y axes on a chart and never two units on one axis."""
    ctx, page = _open(browser, 1366)
    try:
        two = ["system_event:log file sync:avg_ms", "system_event:db file sequential read:avg_ms", "derived:aas"]
        page.open(_url(server, db=dbs["single"], view="explorer", range="1d", series=two))
        (_chart,) = page.charts()
        axes = page.page.evaluate(AXES, "explorer")
        assert [a["title"] for a in axes] == [
            "ms — log file sync (average wait), db file sequential read (average wait)",
            "sessions — Average active sessions",
        ], axes
        assert all(len(set(a["units"])) == 1 for a in axes)
        page.open(_url(server, db=dbs["single"], view="explorer", range="1d", series=[*two, "sysstat:redo size"]))
        charts = page.charts()
        assert [c["id"] for c in charts] == ["explorer-1", "explorer-2", "explorer-3"]
        assert [len({d["unit"] for d in c["datasets"]}) for c in charts] == [1, 1, 1]
        assert sorted(len(c["datasets"]) for c in charts) == [1, 1, 2]
        assert {c["title"] for c in charts} == {
            "Metric explorer · ms",
            "Metric explorer · sessions",
            "Metric explorer · bytes/s",
        }, [c["title"] for c in charts]
        for c in charts:
            (axis,) = page.page.evaluate(AXES, c["id"])
            assert c["state"] == "ready" and " — " in axis["title"]
        assert page.errors == []
    finally:
        ctx.close()


def test_log_scale_on_demand(server, dbs, stories, browser):
    """The SQL detail's elapsed time per execution, good plan (a few ms) beside bad (hundreds): the chart's log
    tool draws both readable, its axis starting below the smallest value; off again, linear from zero. Kept in the
    chart, not the link. A run's bars on a log axis all rise from the axis, and the tool turns it off."""
    ctx, page = _open(browser, 1366)
    try:
        page.open(_url(server, db=dbs["rac"], view="sql", range="7d", sql=stories["plan_regression"]["sql_id"]))
        url, tool = page.page.url, page.page.locator("[data-chart=sql-elapsed-per-exec] button[data-act=log]")
        assert tool.get_attribute("aria-pressed") == "false"
        (linear,) = page.page.evaluate(AXES, "sql-elapsed-per-exec")
        assert linear["type"] == "linear" and linear["min"] == 0
        tool.click()
        (log,) = page.page.evaluate(AXES, "sql-elapsed-per-exec")
        assert tool.get_attribute("aria-pressed") == "true" and log["type"] == "logarithmic"
        assert 0 < log["min"] < log["least"] < 10 and log["min"] > log["least"] / 10.001, log  # the good plan's ms
        assert page.page.url == url
        tool.click()
        assert page.page.evaluate(AXES, "sql-elapsed-per-exec")[0]["type"] == "linear"
        # values of zero cannot be on a log axis: said under the chart
        page.open(
            _url(
                server,
                db=dbs["single"],
                view="explorer",
                range="7d",
                series=["wait_class:Configuration", "wait_class:Application"],
            )
        )
        page.page.locator("[data-chart=explorer] button[data-act=log]").click()
        zeros = sum(p[1] <= 0 for d in page.charts()[0]["datasets"] for p in d["points"])
        status = page.page.locator("[data-chart=explorer] .status").text_content()
        assert zeros and f"{zeros} value" in status and "not drawn on the log scale" in status, (zeros, status)

        page.open(f"{server}/?view=run&run={HANG}")
        (bars,) = page.page.evaluate(AXES, "run-1")
        tool = page.page.locator("[data-chart=run-1] button[data-act=log]")
        assert bars["type"] == "logarithmic" and tool.get_attribute("aria-pressed") == "true"
        least = min(y for d in page.charts()[0]["datasets"] for _, y in d["points"])
        assert 0 < bars["min"] < least, (bars, least)  # the shortest bar rises from the axis
        tool.click()
        (off,) = page.page.evaluate(AXES, "run-1")
        assert off["type"] == "linear" and off["min"] == 0 and tool.get_attribute("aria-pressed") == "false"
        assert page.errors == []
    finally:
        ctx.close()


# -- runs of different kinds ---------------------------------------------------------------------------------------


def test_runs_of_different_kinds_are_compared_one_unit_per_axis(server, client, browser):
    """A client-hang run (seconds, by case) beside an I/O sweep (IO/s and KB/s against I/O size): a chart per unit,
    each axis titled with its one unit, the sweep still drawn against its sizes, and the page says why."""
    ctx, page = _open(browser, 1366)
    try:
        page.open(f"{server}/?view=runs&runs={HANG}&runs={GP2}")
        units = {r["unit"] for slug in (HANG, GP2) for r in client.get(f"/api/v1/benchmarks/{slug}").get_json()["rows"]}
        charts = page.charts()
        assert len(charts) == len(units) == 3
        seen = set()
        for c in charts:
            (unit,) = {d["unit"] for d in c["datasets"]}
            seen.add(unit)
            (axis,) = page.page.evaluate(AXES, c["id"])
            assert axis["title"] == page.page.evaluate("(u) => AWRLens.Format.unitTitle(u)", unit)
        assert seen == units
        kinds = {
            c["id"]: page.page.evaluate(
                f"Chart.getChart(document.querySelector('[data-chart={c['id']}] canvas')).config.type"
            )
            for c in charts
        }
        assert sorted(kinds.values()) == ["bar", "scatter", "scatter"], kinds
        note = page.page.locator(".run-head .kinds").text_content()
        assert "client hangs" in note and "I/O by size" in note and all(u in note for u in ("s", "IO/s", "KB/s"))
        assert page.errors == []
    finally:
        ctx.close()
