"""How the page reads (issue 34) in real headless Chromium: time axes that tell noon from midnight, times in the
largest unit that shows them, snapshot ids as ids, the snapshot boxes holding the range shown, every line of a chart
in contrast with the dark theme's panel, and the Parameters view's sizes in binary units. Expectations come from the
store's answers (the API asked again through the app's test client) and from WCAG 2.2's contrast ratio (1.4.11: 3:1
for graphics)."""

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from test_browser import _url

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]


def _listed(client, db_id):
    return next(d for d in client.get("/api/v1/dbs").get_json()["databases"] if d["id"] == db_id)


def test_a_weeks_axis_names_midnight_by_its_date_and_noon_by_its_time(server, dbs, client, page):
    """The overview's last week: ticks on round hours of the database's zone; each label is the date at midnight and
    the time of day elsewhere, so no two ticks read the same (the week read "14 Nov, 14 Nov, 15 Nov..." before)."""
    page.page.set_viewport_size({"width": 1920, "height": 1000})  # wide enough for a tick every 12 hours
    page.open(_url(server, db=dbs["single"], view="overview", range="7d"))
    ticks = page.page.evaluate(
        """() => { const c = Chart.getChart(document.querySelector('[data-chart=aas] canvas'));
        return c.scales.x.ticks.map((t) => [t.value, t.label]); }"""
    )
    offset = datetime.fromisoformat(_listed(client, dbs["single"])["snapshots"]["to"]).tzinfo
    assert len(ticks) >= 10  # the wide chart: ticks every 12 hours
    for value, label in ticks:
        at = datetime.fromtimestamp(value / 1000, offset)
        assert at.minute == 0 and at.second == 0  # a round hour there
        assert label == (f"{at:%d %b}" if at.hour == 0 else f"{at:%H:%M}"), (at, label)
    labels = [label for _, label in ticks]
    assert len(set(labels) - {"12:00"}) == len([x for x in labels if x != "12:00"])  # no date twice
    assert page.errors == []


def test_the_snapshot_boxes_hold_the_range_shown(server, dbs, client, page):
    """A time range's snapshot boxes hold its own snapshot ids (the API's /range), not the whole history's."""
    page.open(_url(server, db=dbs["rac"], view="overview", range="1d"))
    listed = _listed(client, dbs["rac"])
    end = datetime.fromisoformat(listed["snapshots"]["to"])
    rng = client.get(
        f"/api/v1/dbs/{dbs['rac']}/range",
        query_string={"from": (end - timedelta(days=1)).isoformat(), "to": end.isoformat()},
    ).get_json()["range"]
    page.page.wait_for_function(f"document.querySelector('#begin-snap').value === '{rng['begin_snap']}'")
    assert page.page.input_value("#end-snap") == str(rng["end_snap"])
    assert rng["begin_snap"] != listed["snapshots"]["first_snap"]
    assert str(rng["end_snap"]) in page.page.locator("#range-label").text_content()
    assert page.errors == []


def test_snapshot_ids_are_ids_and_times_scale_their_unit(server, dbs, client, demo_store, page):
    """The Oracle reports view lists the kept reports' snapshot ids as their digits (10261, not 10,261); SQL detail's
    monitored executions show each elapsed time in the largest unit that reads 1 or more (s, min, h)."""
    db = dbs["rac"]
    page.open(_url(server, db=db, view="oracle-reports", range="7d"))
    page.page.wait_for_selector("[data-table=awr-stored] tbody tr td:nth-child(3)")
    kept = client.get(f"/api/v1/dbs/{db}/awr-report/stored").get_json()["reports"]
    shown = [r.locator("td").all_text_contents() for r in page.page.locator("[data-table=awr-stored] tbody tr").all()]
    assert {(r[2], r[3]) for r in shown} <= {(str(k["begin_snap"]), str(k["end_snap"])) for k in kept}
    assert all(int(r[2]) >= 1000 for r in shown)  # ids that a separator would have split

    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    sql_id = con.execute(
        "select key1 from dba_hist_reports where dbid = ? group by key1 order by count(*) desc limit 1",
        (int(db.split(".")[1]),),
    ).fetchone()[0]
    con.close()
    page.open(_url(server, db=db, view="sql", sql=sql_id, range="7d"))
    api = client.get(f"/api/v1/dbs/{db}/sql/{sql_id}/monitor", query_string={"instance": "all"}).get_json()["rows"]
    page.page.wait_for_selector("[data-table=sql-monitor] tbody tr td:nth-child(7)")
    by_exec = {(str(r["sql_exec_id"]), r["instance"]): r for r in api}
    for row in page.page.locator("[data-table=sql-monitor] tbody tr").all():
        cells = row.locator("td").all_text_contents()
        want = by_exec[(cells[5], int(cells[4]))]["elapsed_s"]
        unit = "h" if want >= 3600 * 0.99995 else "min" if want >= 60 * 0.99995 else "s"
        value = want / {"s": 1, "min": 60, "h": 3600}[unit]
        digits = 0 if value >= 100 else 1 if value >= 10 else 2 if value >= 1 else 3
        assert cells[6] == f"{value:,.{digits}f}".rstrip("0").rstrip(".") + f" {unit}", (cells, want)
    assert page.errors == []


def _luminance(rgb):
    """WCAG 2.2's relative luminance of an sRGB colour (0-255 each)."""

    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b):
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


RGB = """(css) => { const c = document.createElement('canvas').getContext('2d');
  c.fillStyle = css; c.fillRect(0, 0, 1, 1); return Array.from(c.getImageData(0, 0, 1, 1).data.slice(0, 3)); }"""


@pytest.mark.parametrize("view", ["activity", "overview"])
def test_every_line_has_contrast_on_the_dark_panel(server, dbs, page, view):
    """In the dark theme every line drawn (the CPU count's dashed line of Top activity among them, black on the dark
    panel before) has at least WCAG's 3:1 against the panel it is drawn on; stacked areas are drawn filled, and the Load
    Map's tiles are parted by the panel's own colour."""
    page.page.emulate_media(color_scheme="dark")
    page.open(_url(server, db=dbs["rac"], view=view, range="1d"))
    panel = page.page.evaluate(RGB, page.page.evaluate("AWRLens.Theme.color('--panel')"))
    lines = page.page.evaluate(
        """() => Array.from(document.querySelectorAll('[data-chart] canvas')).flatMap((cv) => {
          const c = Chart.getChart(cv); return c && c.config.type === 'line' ? c.data.datasets.filter((d) => !d.fill)
            .map((d) => [cv.closest('[data-chart]').dataset.chart, d.label, d.borderColor]) : []; })"""
    )
    assert any(label == "CPU count" for _, label, _ in lines) or view == "overview"
    low = [
        (chart, label, color, round(_contrast(page.page.evaluate(RGB, color), panel), 2))
        for chart, label, color in lines
        if _contrast(page.page.evaluate(RGB, color), panel) < 3
    ]
    assert lines and low == []
    assert page.errors == []


def test_the_parameters_view_reads_sizes_in_binary_units_and_exports_the_raw_values(server, dbs, client, page):
    """The Parameters view (issue 34): the range's changes per instance (RACPROD's sga_target resize, 64 GB to 80 GB,
    on both instances), the parameters not at their default and those in force at the range's last snapshot, as the
    API answers them; a size in binary units on the page and as Oracle keeps it in the CSV."""
    db = dbs["rac"]
    every = client.get(f"/api/v1/dbs/{db}/parameters/changes", query_string={"begin_snap": 1, "end_snap": 10**9})
    resize = [r for r in every.get_json()["rows"] if r["parameter"] == "sga_target"]
    assert len(resize) == 2
    rng = {"begin_snap": resize[0]["snap_id"] - 4, "end_snap": resize[0]["snap_id"] + 4}
    page.open(_url(server, db=db, view="parameters", **{k: str(v) for k, v in rng.items()}))
    asked = {
        p: client.get(f"/api/v1/dbs/{db}{p}", query_string={**rng, "instance": "all"}).get_json()
        for p in ("/parameters/changes", "/parameters/non-default", "/parameters")
    }

    def rows(table):
        return [r.locator("td").all_text_contents() for r in page.page.locator(f"[data-table={table}] tbody tr").all()]

    changed = rows("parameter-changes")
    want = asked["/parameters/changes"]["rows"]
    assert len(changed) == len(want) and want
    gib = {str(n << 30): f"{n} GB" for n in (64, 80)}
    for r in want:
        if r["parameter"] == "sga_target":
            assert [r["parameter"], gib[r["old_value"]], gib[r["new_value"]]] in [c[2:5] for c in changed]
    at = asked["/parameters"]
    assert page.page.locator("[data-table=parameters-at] h3").text_content() == (
        f"In force at snapshot {at['snap_id']} (the range's last)"
    )
    assert f"of {len(at['rows'])} entries" in page.page.locator("[data-table=parameters-at] .dt-info").text_content()
    set_rows = asked["/parameters/non-default"]["rows"]
    assert (
        f"of {len(set_rows)} entries"
        in page.page.locator("[data-table=parameters-non-default] .dt-info").text_content()
    )
    with page.page.expect_download() as info:
        page.page.locator("[data-table=parameter-changes] button.buttons-csv").click()
    exported = Path(info.value.path()).read_text(encoding="utf-8")
    assert str(64 << 30) in exported and str(80 << 30) in exported and "64 GB" not in exported
    assert page.errors == []


def test_a_tablespace_is_projected_to_its_maximum(server, dbs, client, page):
    """Tablespaces (issue 34): the table says when each tablespace reaches its maximum, as the API answers the page's
    request, and the chart draws the chosen one's projection dashed from its last used size to the maximum, the time
    axis running on to that day (docs/awr-rules.md §16)."""
    db = dbs["single"]
    week = client.get(f"/api/v1/dbs/{db}/tablespaces").get_json()
    filling = next(r for r in week["rows"] if r["full_at"])  # the demo's application data fills within the year
    page.open(_url(server, db=db, view="tablespaces", range="7d", ts=filling["tablespace"]))
    asked = [u for u in page.requests if "/tablespaces?" in u]
    parts = urlsplit(asked[0])  # the range shown (later ones: the chart prefetching the windows beside it)
    body = client.get(parts.path, query_string=parse_qsl(parts.query)).get_json()
    rows = page.page.locator("[data-table=tablespaces] tbody tr").all()
    shown = {cells[0]: cells[-1] for cells in (r.locator("td").all_text_contents() for r in rows)}
    assert shown == {r["tablespace"]: r["forecast"] for r in body["rows"]}
    chosen = next(r for r in body["rows"] if r["tablespace"] == filling["tablespace"])
    drawn = page.page.evaluate(
        """() => { const c = Chart.getChart(document.querySelector('[data-chart=tablespace] canvas'));
        const d = c.data.datasets.find((x) => x.key === 'forecast');
        return { points: d.points, dash: d.borderDash, max: c.scales.x.max }; }"""
    )
    ends = [[datetime.fromisoformat(t).timestamp() * 1000, v] for t, v in chosen["projection"]]
    assert drawn["points"] == ends and drawn["dash"] and drawn["max"] == ends[1][0]
    assert page.errors == []


def test_the_normal_band_is_drawn_from_the_four_weeks_before(tmp_path, page):
    """The ≈ tool of a chart (issue 34, docs/awr-rules.md §32), on a five-week history made for the test (the test demo
    keeps 10 days): the chart asks again with band=1 and draws its p10, p90 and median as the API answers them, and
    marks the hours whose own value lies outside their band; off again, the band is gone. On the last 10 days of that
    history the band is missing for the hours without four weeks before them, and the chart says so."""
    import json
    from urllib.request import urlopen

    from conftest import gunicorn
    from histories import DBID, database
    from test_normal_band import history

    h = history(60, None, 5)
    database(h, tmp_path / "band.sqlite")
    with gunicorn(tmp_path / "band.sqlite") as url:
        page.open(f"{url}/?db=g.{DBID}&view=explorer&range=7d&series=sysstat:redo+size")
        page.page.locator("[data-chart=explorer] button[data-act=band]").click()
        page.settle()
        assert page.page.locator("[data-chart=explorer] button[data-act=band]").get_attribute("aria-pressed") == "true"
        asked = [u for u in page.requests if "/series?" in u and "band=1" in u]
        body = json.loads(urlopen(asked[0]).read())
        band = body["series"][0]["band"]
        chart = page.charts()[0]  # its window's points (those of the windows fetched beside it left out)
        drawn = {
            d["label"].split(" · ")[-1]: [p for p in d["points"] if p[0] > chart["from"]] for d in chart["datasets"]
        }
        times = [datetime.fromisoformat(t).timestamp() * 1000 for t in band["times"]]
        for label, q in (("normal p10", "p10"), ("normal p90 (p10 to p90 shaded)", "p90"), ("normal median", "p50")):
            assert drawn[label] == [[t, v] for t, v in zip(times, band[q], strict=True) if v is not None], label
        outside = [
            [t, v]
            for t, v, lo, hi in zip(times, band["value"], band["p10"], band["p90"], strict=True)
            if lo is not None and not lo <= v <= hi
        ]
        assert drawn.get("outside its normal band", []) == outside and band["reason"] is None
        page.page.locator("[data-chart=explorer] button[data-act=band]").click()
        page.settle()
        assert len(page.charts()[0]["datasets"]) == 1  # the series alone
        early = "from=2026-02-26T00:00%2B00:00&to=2026-03-04T00:00%2B00:00"  # days 24 to 30: some hours lack a week
        page.open(f"{url}/?db=g.{DBID}&view=explorer&series=sysstat:redo+size&{early}")
        page.page.locator("[data-chart=explorer] button[data-act=band]").click()
        page.settle()
        status = page.page.locator("[data-chart=explorer] .status").text_content()
        assert "Normal band: " in status and "hours have no band" in status and "the history starts at" in status
    assert page.errors == []


def test_a_baseline_is_period_a_of_compare(server, dbs, client, page):
    """Compare periods (issue 34, docs/awr-rules.md §33): period A picked from the database's AWR baselines, as
    /baselines lists them; with B set it compares at once, A being the baseline's times, and the picker names it
    after."""
    db = dbs["rac"]
    kept = [r for r in client.get(f"/api/v1/dbs/{db}/baselines").get_json()["rows"] if r["from"]]
    listed = next(d for d in client.get("/api/v1/dbs").get_json()["databases"] if d["id"] == db)
    end = datetime.fromisoformat(listed["snapshots"]["to"])
    b = {"b_from": (end - timedelta(days=1)).isoformat(), "b_to": end.isoformat()}
    page.open(_url(server, db=db, view="compare", **b))
    options = page.page.locator("#a-baseline option").all_text_contents()
    assert [o.split(" (")[0] for o in options[1:]] == [r["name"] for r in kept]
    static = next(r for r in kept if r["type"] == "STATIC")
    page.page.locator("#a-baseline").select_option(label=options[1 + kept.index(static)])
    page.settle()
    state = page.state()
    assert datetime.fromisoformat(state["a_from"]) == datetime.fromisoformat(static["from"])
    assert datetime.fromisoformat(state["a_to"]) == datetime.fromisoformat(static["to"])
    assert page.page.locator("#a-baseline").input_value() == str(kept.index(static))
    hours = (datetime.fromisoformat(static["to"]) - datetime.fromisoformat(static["from"])).total_seconds() / 3600
    assert f"A covers {hours:g} h" in page.page.locator("#compare-headline").text_content()
    assert page.errors == []


def test_the_page_prints_the_view_without_its_controls(server, dbs, page):
    """The page's print style sheet (issue 34): printed (here, to PDF), the overview keeps its range line, charts and
    tables, light in the dark theme too, without the tabs, range controls, chart tools or table buttons; no card is
    cut across pages."""
    page.page.emulate_media(color_scheme="dark")
    page.open(_url(server, db=dbs["rac"], view="overview", range="1d"))
    page.page.emulate_media(media="print", color_scheme="dark")
    shown = page.page.evaluate(
        """() => Object.fromEntries(['#tabs', '.rangebar .group', '.tools', '.dt-buttons', '.dt-search',
          '#range-label', '[data-chart] canvas', '[data-table] table']
          .map((s) => [s, getComputedStyle(document.querySelector(s)).display]))"""
    )
    assert {k for k, v in shown.items() if v == "none"} == {
        "#tabs",
        ".rangebar .group",
        ".tools",
        ".dt-buttons",
        ".dt-search",
    }
    card = page.page.evaluate(
        """() => { const c = getComputedStyle(document.querySelector('.card'));
        return [c.breakInside, c.backgroundColor, getComputedStyle(document.body).color]; }"""
    )
    assert card == ["avoid", "rgb(255, 255, 255)", "rgb(0, 0, 0)"]
    pdf = page.page.pdf(format="A4")
    assert pdf[:5] == b"%PDF-" and len(pdf) > 20_000  # the charts and tables drawn in it
    assert page.errors == []


def test_the_normal_band_against_a_baseline(server, client, dbs, page, screenshot):
    """The band's reference (issue 34: a baseline as the band's reference, docs/awr-rules.md §32): the overview lists
    the database's baselines; picking one puts it in the link and draws each small chart's band at once, asked with
    band_baseline and drawn as the API answers it; back to the 4 weeks before, the charts ask without it."""
    import json
    from urllib.request import urlopen

    single = dbs["single"]
    names = [r["name"] for r in client.get(f"/api/v1/dbs/{single}/baselines").get_json()["rows"] if r["from"]]
    page.open(f"{server}/?db={single}&view=overview&range=1d")
    options = page.page.locator("#band-ref option").evaluate_all("os => os.map(o => o.value)")
    assert options == ["", *names] and "BEFORE_ASYNC_IO_FIX" in names
    page.page.locator("#band-ref").select_option("BEFORE_ASYNC_IO_FIX")
    page.settle()
    assert page.state()["band_ref"] == "BEFORE_ASYNC_IO_FIX"
    assert page.page.locator("[data-chart=calls] button[data-act=band]").get_attribute("aria-pressed") == "true"
    asked = [u for u in page.requests if "/series?" in u and "band_baseline=BEFORE_ASYNC_IO_FIX" in u]
    assert asked and all("band=1" in u for u in asked)
    body = json.loads(urlopen(next(u for u in asked if "derived%3Atps" in u or "derived:tps" in u)).read())
    band = body["series"][0]["band"]
    assert band["baseline"]["name"] == "BEFORE_ASYNC_IO_FIX"
    chart = next(c for c in page.charts() if c["id"] == "calls")
    drawn = {d["label"]: [p for p in d["points"] if p[0] > chart["from"]] for d in chart["datasets"]}
    times = [datetime.fromisoformat(t).timestamp() * 1000 for t in band["times"]]
    median = next(
        v for k, v in drawn.items() if k.startswith(body["series"][0]["label"]) and k.endswith("normal median")
    )
    assert median == [[t, v] for t, v in zip(times, band["p50"], strict=True) if v is not None]
    page.page.mouse.move(5, 5)
    shot = screenshot("band.png")  # docs/viewer.md's picture of the band against a baseline
    page.page.locator("[data-chart=calls]").screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    page.page.locator("#band-ref").select_option("")
    page.settle()
    assert "band_ref" not in page.state()
    assert page.page.locator("[data-chart=calls] button[data-act=band]").get_attribute("aria-pressed") == "false"
    chart = next(c for c in page.charts() if c["id"] == "calls")
    assert not any("normal" in d["label"] for d in chart["datasets"])  # the series alone again
    page.page.locator("[data-chart=calls] button[data-act=band]").click()
    page.settle()
    latest = [u for u in page.requests if "/series?" in u and "band=1" in u][-1]
    assert "band_baseline" not in latest  # the ≈ tool's band is the 4 weeks before again
    assert page.errors == []


def test_top_activity_is_empty_where_ash_was_not_kept(server, dbs, client, page):
    """Top activity over the whole history (issue 34, docs/awr-rules.md §22): AWR kept ASH for its last days only; the
    chart draws nothing before the first samples kept (no value, not zero) and says from when ASH is kept."""
    db = dbs["rac"]
    page.open(_url(server, db=db, view="activity", range="45d"))
    asked = [u for u in page.requests if "/activity?" in u]
    parts = urlsplit(asked[0])
    body = client.get(parts.path, query_string=parse_qsl(parts.query)).get_json()
    kept = datetime.fromisoformat(body["ash_from"]).timestamp() * 1000
    chart = next(c for c in page.charts() if c["id"] == "activity")
    drawn = page.page.evaluate(
        """() => Chart.getChart(document.querySelector('[data-chart=activity] canvas')).data.datasets
          .filter((d) => d.stack === 'aas').map((d) => d.points)"""
    )
    assert drawn and all(p[1] is None for points in drawn for p in points if p[0] < kept)
    assert all(p[1] is not None for points in drawn for p in points if p[0] >= kept)
    status = page.page.locator("[data-chart=activity] .status").text_content()
    assert "AWR keeps Active Session History from" in status and "no samples kept there" in status
    assert chart["state"] == "ready" and page.errors == []
