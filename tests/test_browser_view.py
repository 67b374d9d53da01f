"""The viewer as people use it (issue 15), in real headless Chromium (same browser, server and page helpers as
test_browser.py): on a phone and on the common laptop widths, in the light and the dark theme, the mouse wheel and
Back, several units on one chart, and runs of different kinds compared.
"""
from pathlib import Path
from urllib.parse import urlencode

import pytest
from test_browser import Page, browser, server  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
PHONE_SHOT = ROOT / "docs" / "phone.png"
HANG, GP2, MODEL = "client-hang-rds-failover", "ebs-5x-gp2-burst", "ebs-io1-gp2-io-size-model"


def _url(server, **params):
    return f"{server}/?" + urlencode(params, doseq=True)


def _views(server, dbs, stories):
    """A link to every view: the history views on RACPROD, the benchmark list, a run and runs compared."""
    rac = dbs["rac"]
    return [_url(server, db=rac, view="overview", inst="each", range="7d"),
            _url(server, db=rac, view="explorer", range="7d", series=["derived:aas", "sysstat:redo size"]),
            _url(server, db=rac, view="sql", range="7d", sql=stories["plan_regression"]["sql_id"]),
            _url(server, db=rac, view="compare", range="7d"),
            _url(server, db=rac, view="tablespaces", range="7d"),
            f"{server}/?view=benchmarks", f"{server}/?view=run&run={HANG}",
            f"{server}/?view=runs&runs={GP2}&runs={MODEL}"]


def _open(browser, width, scheme="light"):
    ctx = browser.new_context(viewport={"width": width, "height": 844}, timezone_id="UTC", locale="en-US",
                              color_scheme=scheme, accept_downloads=True)
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

def test_a_phone_never_scrolls_sideways(server, dbs, stories, browser):
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
                assert c["left"] == pytest.approx(got["grid"]["left"], abs=1) and \
                    c["width"] == pytest.approx(got["grid"]["width"], abs=1), (url, c)
            tops = [c["top"] for c in got["charts"]]
            assert tops == sorted(tops) and len(set(tops)) == len(tops), url
            assert all(t["right"] <= 390 for t in got["tables"]), url
            if "view=tablespaces" in url:  # its table is wider than a phone: it scrolls in its card
                assert any(t["inner"] for t in got["tables"]), got["tables"]
            if "view=overview" in url:
                page.page.mouse.move(5, 5)
                page.page.screenshot(path=str(PHONE_SHOT), full_page=False)
                assert PHONE_SHOT.stat().st_size > 20000
        # the menu with the keyboard: the next view
        page.open(_views(server, dbs, stories)[0])
        assert page.page.locator("#view-menu").input_value() == "overview"
        page.page.locator("#view-menu").focus()
        page.page.keyboard.press("ArrowDown")
        page.settle()
        assert page.state()["view"] == "explorer" and page.page.locator("[data-chart=explorer]").count() == 1
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
