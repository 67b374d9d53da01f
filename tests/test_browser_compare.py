"""Compare periods in real headless Chromium (the browser, server and page helpers of test_browser.py): what changed
first (DB time per second, the movers as bars and as a table, the plans), colour only where the answer says which way
is better (docs/awr-rules.md §29), a wait new in B at +100 %, and the charts of A and B on one axis with B shifted onto
A. Every expectation comes from the API's answer to the same question (asked through the app's test client on the
same store) or from the store."""

import csv
import io
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from test_browser import _png, _rows, _url

from tests.chromium import Page

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]


@pytest.fixture(scope="module")
def periods(stories):
    """A: the six hours before the plan regression (the quiet early morning); B: its first three hours."""
    start = datetime.fromisoformat(stories["plan_regression"]["from"]).replace(tzinfo=None)
    iso = lambda t: t.isoformat(timespec="seconds")  # noqa: E731
    return {
        "a_from": iso(start - timedelta(hours=7)),
        "a_to": iso(start - timedelta(hours=1)),
        "b_from": iso(start),
        "b_to": iso(start + timedelta(hours=3)),
    }


@pytest.fixture(scope="module")
def opened(server, dbs, periods, context, app):
    pg = Page(context)
    pg.open(_url(server, db=dbs["rac"], view="compare", **periods))
    answer = (
        app.test_client()
        .get(f"/api/v1/dbs/{dbs['rac']}/compare", query_string={**periods, "instance": "all"})
        .get_json()
    )
    yield pg, answer
    pg.page.close()


def _ms(iso):
    return round(datetime.fromisoformat(iso).timestamp() * 1000)


def _change(pct):
    """The page's % change: one decimal at most, a sign when it grew (AWRLens.Format.fmtChange)."""
    text = f"{pct:,.1f}".rstrip("0").rstrip(".")
    return ("+" if pct > 0 else "") + text + " %"


def _color(pg, locator):
    return locator.evaluate("e => getComputedStyle(e).color")


def test_what_changed_comes_first(opened):
    pg, answer = opened
    order = pg.page.evaluate("""Array.from(document.querySelectorAll(
        '[data-table], [data-chart], .compare-headline')).map(e => e.dataset.table || e.dataset.chart || e.id)""")
    assert order[:4] == ["compare-headline", "compare-movers-chart", "compare-movers", "compare-differences"], order
    assert order.index("compare-aas") < order.index("compare-load-profile"), order
    head = pg.page.locator("#compare-headline").text_content()
    assert "DB time per second" in head and _change(answer["db_time"]["change_pct"]) in head
    rows = answer["movers"]["rows"]
    assert _rows(pg, "compare-movers") == min(len(rows), 25)
    items = pg.page.locator("[data-table=compare-movers] tbody tr td:nth-child(3)").all_text_contents()
    assert items == [r["item"] for r in rows][:25]
    bars = next(c for c in pg.charts() if c["id"] == "compare-movers-chart")
    time = [r for r in rows if r["group"] == "time"]
    assert [p[1] for p in bars["datasets"][0]["points"]] == [r["db_time_change_pct"] for r in time]
    plans = pg.page.locator("[data-table=compare-differences] tbody tr").all()
    assert [[c.text_content() for c in p.locator("td").all()] for p in plans] == [
        [r["kind"], r["item"], r["a"] or "", r["b"] or "", r["change"]] for r in answer["differences"]["rows"]
    ]
    assert {(r["kind"], r["change"]) for r in answer["differences"]["rows"]} == {
        ("plan", "appeared"),
        ("plan", "disappeared"),
        ("parameter", "changed"),
    }  # the regression's optimizer setting
    assert pg.errors == []


def test_colour_follows_the_answers_direction(opened):
    pg, answer = opened
    neutral_color = _color(pg, pg.page.locator("[data-table=compare-movers] tbody"))
    worse = pg.page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--worse').trim()")
    cells = pg.page.locator("[data-table=compare-movers] tbody tr")
    rows = answer["movers"]["rows"][:25]
    seen = set()
    for k, r in enumerate(rows):
        span = cells.nth(k).locator("td:nth-child(7) span")  # no container column outside a CDB root
        assert span.text_content() == _change(r["change_pct"]), r
        if r["better"] is None:
            assert span.get_attribute("class") == "" and _color(pg, span) == neutral_color, r
            seen.add("neutral up" if r["change_pct"] > 0 else "neutral")
        elif r["change_pct"] and (r["change_pct"] > 0) == (r["better"] == "lower"):
            assert span.get_attribute("class") == "worse" and _color(pg, span) != neutral_color, r
            seen.add("worse")
        elif r["change_pct"]:
            assert span.get_attribute("class") == "better", r
    # an increase of a neutral item (more transactions, more executions) is not coloured as bad
    assert {"neutral up", "worse"} <= seen, seen
    assert worse.startswith("#")


def test_a_wait_new_in_b_shows_plus_100_percent(opened):
    pg, answer = opened
    new = [r for r in answer["top_events"]["rows"] if r["only_in"] == "b"]
    assert new, "the regression's CPU saturation brings a wait the quiet morning never had"
    table = pg.page.locator("[data-table=compare-top-events] tbody tr")
    names = table.locator("td:first-child").all_text_contents()
    for r in new:
        row = table.nth(names.index(r["event"]))
        change = row.locator("td:nth-child(5)")
        assert change.text_content() == "+100 %" and change.locator("span").get_attribute("class") == "worse"
        assert row.locator("td:nth-child(6)").text_content() == "B only (new in B)"
        assert row.locator("td:nth-child(3)").text_content() == "0 s/s"


def test_b_is_drawn_shifted_onto_a_with_its_own_time_in_the_tooltip(opened, app, dbs, periods):
    pg, answer = opened
    chart = next(c for c in pg.charts() if c["id"] == "compare-aas")
    a, b = (next(d for d in chart["datasets"] if d["label"].startswith(p)) for p in ("A · ", "B · "))
    shift = -7 * 3600 * 1000  # A.from - B.from, as asked
    series = {}
    for side in "ab":
        body = (
            app.test_client()
            .get(
                f"/api/v1/dbs/{dbs['rac']}/series",
                query_string={"name": "derived:aas", "from": periods[f"{side}_from"], "to": periods[f"{side}_to"]},
            )
            .get_json()
        )
        series[side] = {_ms(t): v for t, v in body["series"][0]["points"]}
    assert a["points"] and {p[0]: p[1] for p in a["points"]}.items() <= series["a"].items()
    assert len(b["points"]) >= 5
    assert {p[0] - shift: p[1] for p in b["points"]}.items() <= series["b"].items()  # B at its own times, moved
    assert b["shift"] == -shift and not a.get("shift")
    # the tooltip of a B point names B's own time
    label = pg.page.evaluate("""(() => {
        const c = Chart.getChart(document.querySelector('[data-chart=compare-aas] canvas'));
        const i = c.data.datasets.findIndex(d => d.label.startsWith('B · '));
        const d = c.data.datasets[i], p = d.points[0];
        const zone = AWRLens.Databases.zone(AWRLens.Databases.get(AWRLens.State.get().db));
        return [c.options.plugins.tooltip.callbacks.label({dataset: d, parsed: {x: p[0], y: p[1]}}),
                AWRLens.Format.fmtTime(p[0] + d.shift, zone, true)];
    })()""")
    assert label[0].endswith(" at " + label[1]), label
    dash = pg.page.evaluate("""Chart.getChart(document.querySelector('[data-chart=compare-aas] canvas'))
        .data.datasets.map(d => d.borderDash.length)""")
    assert dash == [0, 2]
    # the CSV gives B's points at their own time; the PNG names both periods
    with pg.page.expect_download() as info:
        pg.page.locator("[data-chart=compare-aas] button[data-act=csv]").click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    b_rows = [r for r in rows if r["series"].startswith("B · ")]
    assert {_ms(r["time"]) for r in b_rows} <= set(series["b"])
    with pg.page.expect_download() as info:
        pg.page.locator("[data-chart=compare-aas] button[data-act=png]").click()
    _, texts = _png(Path(info.value.path()).read_bytes())
    assert "A: " in texts["Description"] and " · B: " in texts["Description"]
    top = next(c for c in pg.charts() if c["id"] == "compare-top-movers")
    drawn = {d["label"] for d in top["datasets"]}
    assert len(drawn) == 2 * min(3, len([r for r in answer["movers"]["rows"] if r["series"]]))
    assert pg.errors == []


def test_the_movers_table_downloads_as_csv(opened):
    pg, answer = opened
    with pg.page.expect_download() as info:
        pg.page.locator("[data-table=compare-movers] button.buttons-csv").click()
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert [r[2] for r in rows[1:]] == [r["item"] for r in answer["movers"]["rows"]]
