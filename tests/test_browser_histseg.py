"""The wait histogram and segments views in real headless Chromium (the browser, server and page helpers of
test_browser.py): the heat map's cells and percentile lines, the distribution's bars, zoom, CSV and the link; the top
segments' table, a click on a segment charting it, and markup in an object name staying inert. Every expectation
comes from the API's answer to the request the page made (asked again through the app's test client on the same
store)."""

import csv
import io
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
from test_browser import _drag, _url

from app.demo.detail import HOSTILE_SEGMENT

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]
LFS = "log file sync"


def state_examples(dbs, stories):
    """The keys of the link these views add, as test_browser.py's _state_examples takes them."""
    single, rac = dbs["single"], dbs["rac"]
    return {
        "event": ({"db": single, "view": "histogram", "range": "1d"}, "db file sequential read"),
        "stat": ({"db": rac, "view": "segments", "range": "1d"}, "physical_reads_direct"),
        "seg": ({"db": rac, "view": "segments", "range": "1d", "stat": "logical_reads"}, "60050.60050"),
    }


def _answer(client, pg, path_part, also="", which=-1):
    """The API's answer to the page's last (or `which`) request to a path holding path_part (and `also`)."""
    urls = [u for u in pg.requests if path_part in u and also in u]
    assert urls, pg.requests
    parts = urlsplit(urls[which])
    r = client.get(parts.path, query_string=parse_qsl(parts.query))
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


def _ms(iso):
    return round(datetime.fromisoformat(iso).timestamp() * 1000)


def _chart(pg, chart_id):
    return next(c for c in pg.charts() if c["id"] == chart_id)


def test_heat_map_with_percentile_lines_and_the_distribution(server, dbs, stories, client, page):
    fix = stories["async_io_fix"]["first_snap_after"]
    page.open(_url(server, db=dbs["single"], view="histogram", event=LFS, begin_snap=fix - 24, end_snap=fix + 24))
    assert page.page.locator("#tabs button[data-view=histogram]").get_attribute("aria-pressed") == "true"
    body = _answer(client, page, "/event-histogram?", "&from=")  # the chart's (the distribution's: the snapshots)
    heat = _chart(page, "event-histogram")
    assert heat["state"] == "ready"
    lines = {d["label"]: d["points"] for d in heat["datasets"]}
    assert set(lines) == {"p50 (estimated)", "p95 (estimated)", "p99 (estimated)"}
    assert lines["p99 (estimated)"] == [[_ms(i["time"]), i["p99_ms"]] for i in body["intervals"]]
    win = (heat["from"], heat["to"])
    cells = sum(1 for i in body["intervals"] if win[0] <= _ms(i["time"]) <= win[1] for n in i["counts"] if n)
    drawn = page.page.evaluate(
        "Chart.getChart(document.querySelector('[data-chart=event-histogram] canvas')).$heatCells"
    )
    assert drawn == cells > 200
    # the restart of the async I/O fix is marked, and the distribution's bars are the range's
    assert (
        page.page.evaluate("""Chart.getChart(document.querySelector('[data-chart=event-histogram] canvas'))
                                 .$awr.markers.restarts.length""")
        == 1
    )
    whole = _answer(client, page, "/event-histogram?", "begin_snap=")
    bars = _chart(page, "event-histogram-distribution")["datasets"][0]["points"]
    assert bars == [[d["label"], d["waits"]] for d in whole["distribution"]]
    assert "p99" in page.page.locator("[data-chart=event-histogram-distribution] .status").text_content()

    with page.page.expect_download() as info:
        page.page.locator("[data-chart=event-histogram] button[data-act=csv]").click()
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert rows[0] == ["time", "p50_ms", "p95_ms", "p99_ms"] + [b["label"] for b in body["buckets"]]
    assert len(rows) == 1 + len(body["intervals"])
    assert [int(x) for x in rows[1][4:]] == body["intervals"][0]["counts"]

    # zoom: a drag across the heat map narrows the window in the link and asks for it
    before = len(page.api("/event-histogram?"))
    _drag(page, "[data-chart=event-histogram]", 0.3, 0.6)
    page.settle()
    state = page.state()
    assert "from" in state and "to" in state and state["event"] == LFS and state["view"] == "histogram"
    assert len(page.api("/event-histogram?")) > before
    assert page.errors == [], page.errors


def test_an_event_of_top_events_opens_its_histogram_per_instance(server, dbs, page):
    page.open(_url(server, db=dbs["rac"], view="overview", range="1d", inst="2"))
    row = page.page.locator("[data-table=top-events] tbody tr", has_text="gc cr block 2-way").first
    row.click()
    page.settle()
    state = page.state()
    assert state["view"] == "histogram" and state["event"] == "gc cr block 2-way" and state["inst"] == "2"
    asked = parse_qs(urlsplit(page.api("/event-histogram?")[-1]).query)
    assert asked["event"] == ["gc cr block 2-way"] and asked["instance"] == ["2"]
    assert page.page.locator("#histogram-event").input_value() == "gc cr block 2-way"
    assert _chart(page, "event-histogram")["state"] == "ready"
    assert page.errors == [], page.errors


def test_segments_table_and_one_segment_over_time(server, dbs, client, page):
    page.open(_url(server, db=dbs["rac"], view="segments", range="1d", stat="physical_reads_direct"))
    body = _answer(client, page, "/segments?")
    cells = page.page.locator("[data-table=segments] tbody tr td:nth-child(2)").all_text_contents()
    assert cells[:5] == [r["object_name"] for r in body["rows"][:5]] and cells[0] == "ORDERS"
    page.page.locator("[data-table=segments] tbody tr").first.click()
    page.settle()
    top = body["rows"][0]
    assert page.state()["seg"] == f"{top['obj']}.{top['dataobj']}"
    one = _answer(client, page, f"/segments/{top['obj']}?", which=0)  # the window's (then its neighbours')
    line = next(s for s in one["series"] if s["metric"] == "physical_reads_direct")
    chart = _chart(page, "segment")
    assert chart["state"] == "ready"
    window = [p for p in chart["datasets"][0]["points"] if chart["from"] < p[0] <= chart["to"]]  # (from, to], §12
    assert window == [[_ms(t), v] for t, v in line["points"]]
    assert page.page.locator("[data-chart=segment] h3").text_content().startswith("APP.ORDERS over time")
    assert page.errors == [], page.errors


def test_markup_in_an_object_name_stays_inert(server, dbs, client, page):
    page.open(_url(server, db=dbs["rac"], view="segments", range="1d"))
    page.page.locator("[data-table=segments] input[type=search]").fill("onerror")
    cell = page.page.locator("[data-table=segments] tbody td", has_text="onerror").first
    assert cell.text_content() == HOSTILE_SEGMENT
    assert page.page.locator("[data-table=segments] tbody img").count() == 0
    page.page.locator("[data-table=segments] tbody tr", has_text="onerror").first.click()
    page.settle()
    assert page.page.locator("[data-chart=segment] h3").text_content().startswith("CRM." + HOSTILE_SEGMENT)
    assert page.page.locator("[data-chart=segment] img, .legend img").count() == 0
    assert page.dialogs == [] and page.errors == [], (page.dialogs, page.errors)


def test_segments_table_shows_the_object_number_and_the_rac_and_scan_columns(server, dbs, client, page):
    """Issue 34: the OBJ# beside the object's name (ASH's CURRENT_OBJ#, digits only), and the columns of global cache
    blocks received, GC buffer busy, table scans and read and write requests, as counts: the API's values."""
    page.open(_url(server, db=dbs["rac"], view="segments", range="1d", stat="gc_cr_blocks_received", inst="2"))
    body = _answer(client, page, "/segments?")
    assert body["instance"] == "2" and body["rows"][0]["gc_cr_blocks_received"] > 0
    headers = page.page.locator("[data-table=segments] thead th").all_text_contents()
    assert headers[1:3] == ["Object", "OBJ#"], headers
    titles = {
        "gc_cr_blocks_received": "GC CR blocks received",
        "gc_cu_blocks_received": "GC current blocks received",
        "gc_buffer_busy": "GC buffer busy",
        "table_scans": "table scans",
        "physical_read_requests": "read requests",
        "physical_write_requests": "write requests",
    }
    cells = page.page.locator("[data-table=segments] tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells, c => c.textContent))"
    )
    assert len(cells) == min(25, len(body["rows"])) > 5
    for shown, r in zip(cells, body["rows"], strict=False):
        assert shown[1:3] == [r["object_name"], str(r["obj"])]
        for key, title in titles.items():
            assert int(shown[headers.index(title)].replace(",", "")) == r[key], (key, shown)
    assert page.page.locator("#segments-stat option:checked").text_content() == titles["gc_cr_blocks_received"]
    assert page.errors == [], page.errors
