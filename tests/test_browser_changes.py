"""What changed, on the charts (static/js/changes.js, docs/awr-rules.md §23), in real headless Chromium (the helpers of
test_browser.py): on the overview of ORCL around the async I/O fix, every time chart has a marker for the restart and
one for the FILESYSTEMIO_OPTIONS change, whose text shows on hover, and lists both under the chart; a chart's Δ tool
hides them on every chart, and the link keeps that (changes=hide) through a shared link, Back and Forward. Then on a
copy of the session's demo store where the new value holds markup: it stays text.
"""

import shutil
import sqlite3
from datetime import datetime, timedelta
from urllib.parse import urlencode

import pytest
from conftest import gunicorn

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

IMG = '<img src=x onerror="window.__xss=(window.__xss||0)+1">'
VALUE = "SETALL" + IMG


@pytest.fixture(scope="module")
def hostile(demo_store, stories, tmp_path_factory):
    path = tmp_path_factory.mktemp("changes") / "demo.sqlite"
    shutil.copy(demo_store[0], path)
    with sqlite3.connect(path) as con:  # the store's own table under DBA_HIST_PARAMETER (app/store/awr/views.py)
        con.execute(
            "update awrlens_parameter set value = ? where dbid = ? and parameter_name = 'filesystemio_options' "
            "and value = 'SETALL'",
            (VALUE, stories["async_io_fix"]["dbid"]),
        )
        assert con.total_changes == 1
    with gunicorn(path, workers=2) as url:
        yield url


def state_examples(dbs, stories):
    """The key of the link this layer adds, as test_browser.py's _state_examples takes them: changes=hide."""
    return {"changes": ({"db": dbs["single"], "view": "overview", "range": "1d"}, "hide")}


# every time chart of the page has its changes loaded (shown or not)
LOADED = (
    "(() => { const cs = AWRLens.ChartCard.live().filter(c => c.changeList);"
    " return cs.length >= 3 && cs.every(c => c.changes && c.changes.length); })()"
)


def overview(pg, url, stories, **more):
    """The overview of ORCL from 12 hours before the async I/O fix's restart to 12 hours after, once every time chart
    has its changes."""
    fix = stories["async_io_fix"]
    startup = datetime.fromisoformat(fix["startup_time"])
    query = {
        "db": f"demo.{fix['dbid']}",
        "view": "overview",
        "from": (startup - timedelta(hours=12)).isoformat(timespec="minutes"),
        "to": (startup + timedelta(hours=12)).isoformat(timespec="minutes"),
        **more,
    }
    pg.open(f"{url}/?{urlencode(query)}")
    pg.page.wait_for_function(LOADED, timeout=20000)
    cards = pg.page.locator(".chart-card:has(canvas)")
    assert cards.count() >= 3
    return cards


def shown(pg, cards):
    """Per time chart: (its Δ tool pressed, its pins, its list visible), the page's state settled."""
    pg.settle()
    return [
        (
            card.locator("[data-act=changes]").get_attribute("aria-pressed"),
            card.locator(".change-pin").count(),
            card.locator(".change-list").is_visible(),
        )
        for card in (cards.nth(k) for k in range(cards.count()))
    ]


def lines(card):
    items = card.locator(".change-list li")
    return [items.nth(i).text_content() for i in range(items.count())]


def test_the_async_io_fix_shows_the_restart_and_the_parameter_on_every_chart(server, page, stories, screenshot):
    pg = page
    cards = overview(pg, server, stories)
    for k in range(cards.count()):
        card = cards.nth(k)
        texts = lines(card)
        assert any("inst 1 · restart: instance 1 restarted" in t for t in texts), texts
        assert any("inst 1 · parameter: filesystemio_options: none → SETALL (at the restart)" in t for t in texts), (
            texts
        )
        assert card.locator(".change-pin[data-kind=restart]").count() == 1
        assert card.locator(".change-pin[data-kind=parameter]").count() == 1
    first = cards.nth(0)
    pin = first.locator(".change-pin[data-kind=parameter]")
    pin.hover()
    tip = first.locator(".change-tip")
    assert tip.is_visible() and "filesystemio_options: none → SETALL (at the restart)" in tip.text_content()
    # the restart and the parameter change stand together: their pins a few pixels apart
    restart = first.locator(".change-pin[data-kind=restart]").bounding_box()
    assert abs(pin.bounding_box()["x"] - restart["x"]) < 20
    pg.page.screenshot(path=str(screenshot("changes.png")), clip=first.bounding_box())  # the README's picture
    # a card's tool hides them on every chart, and shows them again
    first.locator("[data-act=changes]").click()
    assert shown(pg, cards) == [("false", 0, False)] * cards.count()
    cards.nth(1).locator("[data-act=changes]").click()
    assert shown(pg, cards) == [("true", 2, True)] * cards.count()
    assert pg.api("/changes") and not pg.errors


def test_changes_that_come_before_the_data_are_on_the_charts_first_drawing(server, page, stories):
    """A chart asks its changes with its data (charts.js): when they come first, the chart's first drawing has them,
    with no drawing after. The charts' data is held back here until the changes have come."""
    import time

    pg, order = page, []
    pg.page.on("response", lambda r: order.append(r.url.split("?")[0].rsplit("/", 1)[-1]))

    def later(route):
        time.sleep(0.3)
        route.continue_()

    for part in ("series", "wait-classes"):
        pg.page.route(f"**/api/v1/dbs/*/{part}?*", later)
    cards = overview(pg, server, stories)
    data = [i for i, name in enumerate(order) if name in ("series", "wait-classes")]
    assert len(data) >= 3 and order.index("changes") < min(data), order  # the case this test is for
    for k in range(cards.count()):
        card = cards.nth(k)
        assert card.locator(".change-pin[data-kind=restart]").count() == 1
        assert card.locator(".change-pin[data-kind=parameter]").count() == 1
    assert not pg.errors


def test_a_link_with_the_changes_hidden_keeps_them_hidden_and_back_restores_it(server, page, stories):
    """changes=hide in a link: every time chart has its changes but shows none; the tool shows them (a history entry,
    the key gone from the link); Back hides them again, Forward shows them."""
    pg = page
    cards = overview(pg, server, stories, changes="hide")
    hidden, visible = [("false", 0, False)] * cards.count(), [("true", 2, True)] * cards.count()
    assert shown(pg, cards) == hidden and pg.state()["changes"] == "hide"
    cards.nth(2).locator("[data-act=changes]").click()
    assert shown(pg, cards) == visible and "changes" not in pg.state()
    pg.page.go_back()
    assert shown(pg, cards) == hidden and pg.state()["changes"] == "hide"
    pg.page.go_forward()
    assert shown(pg, cards) == visible and "changes" not in pg.state()
    assert not pg.errors


def test_markup_in_a_parameter_value_stays_text(hostile, page, stories):
    pg = page
    cards = overview(pg, hostile, stories)
    assert any(f"filesystemio_options: none → {VALUE} (at the restart)" in t for t in lines(cards.nth(0)))
    cards.nth(0).locator(".change-pin[data-kind=parameter]").hover()
    assert f"none → {VALUE}" in cards.nth(0).locator(".change-tip").text_content()
    assert pg.page.locator(".change-list img, .change-tip img, .change-pins img").count() == 0
    assert pg.page.evaluate("window.__xss") is None and not pg.dialogs and not pg.errors
