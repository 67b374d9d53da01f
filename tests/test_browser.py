"""The single-page viewer in real headless Chromium (Debian's `chromium`, driven by Playwright for Python), against
the app on a free port serving the session's demo store: every view with data, zoom and pan, the share link, CSV,
errors, hostile SQL text, Back and Forward, and no console errors.

Without Chromium or Playwright these tests are skipped locally and fail under CI=true.
"""

import csv
import io
import json
import sqlite3
import struct
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from conftest import gunicorn

from tests.chromium import Page

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

VIEWS = ("overview", "explorer", "sql", "compare", "tablespaces")


def _rows(pg, table_id):
    return pg.page.locator(f"[data-table='{table_id}'] tbody tr").count()


def _url(server, **params):
    return f"{server}/?" + urlencode(params, doseq=True)


def _sql_text(demo_store, sql_id):
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    try:
        return con.execute("select sql_text from dba_hist_sqltext where sql_id = ?", (sql_id,)).fetchone()[0]
    finally:
        con.close()


@pytest.fixture(scope="module")
def hostile(demo_store, dbs):
    """The demo's SQL statements whose text or module holds markup and script, per database."""
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    rows = con.execute("""select t.dbid, t.sql_id, t.sql_text, max(s.module) from dba_hist_sqltext t
                          join dba_hist_sqlstat s on s.dbid = t.dbid and s.sql_id = t.sql_id
                          where t.sql_text like '%<%>%' and (t.sql_text like '%script%' or t.sql_text like '%onerror%'
                                or t.sql_text like '%</td>%')
                          group by t.dbid, t.sql_id, t.sql_text order by t.dbid, t.sql_id""").fetchall()
    con.close()
    return [{"dbid": r[0], "sql_id": r[1], "text": r[2], "module": r[3]} for r in rows]


# -- every view renders with data ----------------------------------------------------------------------------------


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_renders_with_data(server, dbs, stories, demo_store, page, view):
    rac = dbs["rac"]
    params = {"db": rac, "view": view, "inst": "each" if view in ("overview", "explorer") else "all"}
    if view == "sql":
        params["sql"] = stories["plan_regression"]["sql_id"]
    if view == "explorer":
        params["series"] = "sysmetric:Host CPU Utilization (%)"
    page.open(_url(server, **params))
    charts = page.charts()
    tables = page.page.locator("[data-table]")
    # SQL detail: four per-plan charts and the statement's activity from ASH
    expected_charts = {"overview": 5, "explorer": 1, "sql": 5, "compare": 3, "tablespaces": 1}[view]
    assert len(charts) == expected_charts
    for chart in charts:
        assert chart["state"] == "ready", chart
        # a tablespace's projection: a line from the window's end on (its first point in the window)
        projected = [d for d in chart["datasets"] if d["label"].endswith("used, projected")]
        drawn = [d for d in chart["datasets"] if d not in projected]
        assert drawn and all(len(d["points"]) > 10 for d in drawn), chart["id"]
        assert all(len(d["points"]) == 1 for d in projected)
    for k in range(tables.count()):
        card = tables.nth(k)
        if card.get_attribute("data-table") == "compare-differences":  # no plan need change between two periods
            continue
        assert card.get_attribute("data-state") == "ready", card.get_attribute("data-table")
        assert card.locator("tbody tr").count() > 0
    assert page.page.locator(f"#tabs button[data-view={view}]").get_attribute("aria-pressed") == "true"
    assert page.error_text() == ""
    assert page.errors == [], page.errors
    # a 1280 px laptop screen: nothing wider than the window
    assert page.page.evaluate("document.documentElement.scrollWidth") <= 1280
    if view == "overview":
        titles = [c["title"] for c in charts]
        assert titles[:2] == [
            "Average active sessions by wait class · instance 1",
            "Average active sessions by wait class · instance 2",
        ]
        aas = charts[0]["datasets"]
        assert aas[0]["label"] == "DB CPU" and aas[-1]["label"] == "CPU count"
        assert {d["label"] for d in aas} >= {"User I/O", "Commit", "Cluster"}
        assert [d["label"] for d in charts[2]["datasets"]][:2] == ["Host CPU % · inst 1", "Host CPU % · inst 2"]
        # Oracle's 19 rows, In-Memory's two, SQL Work Area, User logons, and on RAC the global cache's two
        assert _rows(page, "load-profile") == 25 and _rows(page, "top-sql") == 10
        # the restart of RACPROD instance 2 is marked on its charts, and its line breaks across the gap
        assert (
            page.page.evaluate("""Chart.getChart(document.querySelector('[data-chart=aas-2] canvas'))
                                     .$awr.markers.restarts.length""")
            == 1
        )
    if view == "sql":
        plans = {d["label"] for d in charts[0]["datasets"]}
        assert plans == {"plan 1718423581", "plan 3904417271"}
        slow = next(d for d in charts[0]["datasets"] if d["label"] == "plan 3904417271")
        assert min(p[1] for p in slow["points"]) > 100  # the regression: hundreds of ms per execution
        assert page.page.locator(".sql-text").text_content() == _sql_text(demo_store, params["sql"])
    if view == "explorer":
        _explorer_search(page)


def _explorer_search(page):
    """The explorer's search: every word, any order, in a name or description; a typo offers the closest names; the
    arrow keys and Enter add the match (issue 15)."""
    box = page.page.get_by_label("Add a series")

    def options(text):
        box.fill(text)
        page.page.wait_for_function(
            "(q) => [...document.querySelectorAll('#catalog-matches li')].some("
            "li => li.textContent.toLowerCase().includes(q))",
            arg=text.split()[-1].lower(),
        )
        return page.page.locator("#catalog-matches [role=option] .name").all_text_contents()

    wanted = "system_event:log file sync:avg_ms"
    assert wanted in options("log file sync") and wanted in options("sync log")
    assert "wait_class:Commit" in options("commit class")  # a word of the description: "Wait class Commit"
    box.fill("log fle sync")
    page.page.wait_for_selector("#catalog-matches .none")
    assert "Did you mean" in page.page.locator("#catalog-matches .none").text_content()
    page.page.locator("#catalog-matches .suggest", has_text="log file sync").first.dispatch_event("mousedown")
    page.page.wait_for_function("document.querySelectorAll('#catalog-matches [role=option]').length > 0")
    assert all(
        "log file sync" in n for n in page.page.locator("#catalog-matches [role=option] .name").all_text_contents()
    )
    options("redo size")
    first = page.page.locator("#catalog-matches [role=option] .name").first.text_content()
    box.press("ArrowDown")
    assert page.page.locator("#match-0").get_attribute("aria-selected") == "true"
    box.press("Enter")
    page.settle()
    assert first in page.state()["series"]


def test_overview_screenshot(server, dbs, page, screenshot):
    """The picture in README.md and docs/viewer.md (docs/overview.png): RACPROD's last week."""
    page.open(_url(server, db=dbs["rac"], view="overview", range="7d"))
    page.page.mouse.move(5, 5)
    shot = screenshot("overview.png")
    page.page.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 20000
    assert page.errors == []


# -- zoom, pan ---------------------------------------------------------------------------------------------------


def _drag(pg, selector, a, b, shift=False):
    box = pg.page.locator(f"{selector} canvas").bounding_box()
    y = box["y"] + box["height"] * 0.45
    x0, x1 = box["x"] + box["width"] * a, box["x"] + box["width"] * b
    if shift:
        pg.page.keyboard.down("Shift")
    pg.page.mouse.move(x0, y)
    pg.page.mouse.down()
    pg.page.mouse.move((x0 + x1) / 2, y, steps=4)
    pg.page.mouse.move(x1, y, steps=4)
    pg.page.mouse.up()
    if shift:
        pg.page.keyboard.up("Shift")


def test_zoom_refetches_at_finer_resolution_and_pan_prefetches(server, dbs, page):
    page.open(_url(server, db=dbs["single"], view="overview", range="1d"))
    before = {c["id"]: c for c in page.charts()}
    width = before["host-cpu"]["to"] - before["host-cpu"]["from"]
    # after the first load, the day before is prefetched (the day after is past the newest snapshot)
    start = datetime.fromtimestamp(before["host-cpu"]["from"] / 1000, UTC)  # ORCL is on UTC
    left = [u for u in page.api("/series") if "derived:host_cpu_pct" in u and f"to={start:%Y-%m-%dT%H:%M}+00:00" in u]
    assert left, page.api("/series")
    page.requests.clear()
    _drag(page, "[data-chart=host-cpu]", 0.55, 0.65)  # about 2.4 hours of the day
    page.settle()
    state = page.state()
    assert "range" not in state and state["from"] < state["to"]
    after = {c["id"]: c for c in page.charts()}
    assert after["host-cpu"]["to"] - after["host-cpu"]["from"] < width / 5
    # the zoom asked again for the new window, now with the per-minute sysmetric history
    asked = page.api("/series")
    # (the window's own from, as its tables ask: a range by time is the intervals ending in (from, to], §12)
    assert any("sysmetric_history:Host CPU Utilization (%)" in u and f"from={state['from']}" in u for u in asked), asked
    cpu = after["host-cpu"]["datasets"][0]
    assert cpu["label"] == "Host CPU % · per minute"
    assert len(cpu["points"]) > 100  # one a minute, against 5 half-hourly snapshots
    assert "Per-minute detail" in page.page.locator("[data-chart=host-cpu] .status").text_content()
    # ...and every table asked for the new window
    for endpoint in ("/load-profile", "/top-events", "/top-sql"):
        assert any(f"from={state['from']}" in u for u in page.api(endpoint)), endpoint
    # pan with Shift+drag: the prefetched neighbours are drawn at once, the window moves in the URL
    page.requests.clear()
    _drag(page, "[data-chart=host-cpu]", 0.3, 0.7, shift=True)  # content to the right: earlier
    page.settle()
    moved = page.state()
    assert moved["from"] < state["from"]
    panned = {c["id"]: c for c in page.charts()}["host-cpu"]
    assert len(panned["datasets"][0]["points"]) > 100
    assert page.errors == []


def _snapshot_times(demo_store, dbid, instance, lo_ms, hi_ms):
    """Epoch ms of an instance's snapshots whose end falls in [lo_ms, hi_ms], straight from the store."""
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "select end_interval_time, snap_timezone from dba_hist_snapshot where dbid = ? and instance_number = ?",
            (dbid, instance),
        ).fetchall()
    finally:
        con.close()
    times = [round((datetime.fromisoformat(end).replace(tzinfo=UTC).timestamp() - tz) * 1000) for end, tz in rows]
    return sorted(t for t in times if lo_ms <= t <= hi_ms)


def test_a_window_shows_the_point_at_its_first_snapshot(server, dbs, stories, demo_store, page):
    """A range by time is the intervals that end in (from, to] (docs/awr-rules.md §12), and the page asks the window
    itself: every snapshot of the window has its point, the first one too, and a pan leaves none out between the
    windows it joins."""
    db = dbs["single"]
    dbid = int(db.split(".")[1])
    start = datetime.fromisoformat(stories["plan_regression"]["from"]).astimezone(UTC)
    lo, hi = start + timedelta(minutes=1), start + timedelta(hours=12, minutes=1)
    page.open(
        _url(
            server, db=db, view="explorer", series="sysstat:redo size", **{"from": lo.isoformat(), "to": hi.isoformat()}
        )
    )
    (chart,) = page.charts()
    drawn = [p[0] for p in chart["datasets"][0]["points"]]
    assert drawn == _snapshot_times(demo_store, dbid, 1, chart["from"], chart["to"])
    page.page.locator("[data-chart=explorer] button[data-act=earlier]").click()
    page.settle()
    (moved,) = page.charts()
    drawn = [p[0] for p in moved["datasets"][0]["points"]]
    assert drawn == _snapshot_times(demo_store, dbid, 1, moved["from"], moved["to"]) and len(drawn) >= 24
    # the page asks for each list of times once (shape=axes: issue 16)
    assert page.api("/series") and all("shape=axes" in u for u in page.api("/series"))
    assert page.errors == []


def test_points_that_sum_fewer_instances_are_marked(server, dbs, stories, client, page):
    """Around RACPROD instance 2's crash the combined series sums instance 1 alone at some points: the page marks
    exactly the points the API lists as partial, says so under the chart, and the chart's CSV names the instance
    left out (issue 12: the combined AAS quietly halved)."""
    db = dbs["rac"]
    first = stories["restart"]["first_snap_after"]
    body = client.get(
        f"/api/v1/dbs/{db}/series",
        query_string={"name": "derived:aas", "begin_snap": first - 12, "end_snap": first + 12, "max_points": 0},
    ).get_json()
    (api_series,) = body["series"]
    short = {round(datetime.fromisoformat(p["time"]).timestamp() * 1000) for p in api_series["partial"]}
    assert len(short) >= 4
    page.open(
        _url(
            server,
            db=db,
            view="explorer",
            series="derived:aas",
            inst="all",
            **{"from": body["range"]["from"], "to": body["range"]["to"]},
        )
    )
    (chart,) = page.charts()
    (aas,) = chart["datasets"]
    marked = {int(ms) for ms in aas["partial"]} & {p[0] for p in aas["points"]}
    assert marked == short
    drawn = page.page.evaluate("""() => Chart.getChart(document.querySelector('[data-chart=explorer] canvas'))
      .$awrPartial""")
    assert set(drawn) == short  # the open triangles are drawn at those points only
    status = page.page.locator("[data-chart=explorer] .status").text_content()
    assert f"{len(short)} points sum fewer instances" in status and "instance 2" in status
    with page.page.expect_download() as dl:
        page.page.locator("[data-chart=explorer] button[data-act=csv]").click()
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text(encoding="utf-8"))))
    assert sum(r["missing_instances"] == "2" for r in rows) == len(short)
    assert page.errors == []


def test_zoom_buttons_and_keyboard(server, dbs, page):
    page.open(_url(server, db=dbs["rac"], view="explorer", range="7d", series="derived:aas"))
    start = page.charts()[0]
    page.page.locator("[data-chart=explorer] button[data-act=zoomin]").focus()
    page.page.keyboard.press("Enter")
    page.settle()
    zoomed = page.charts()[0]
    assert zoomed["to"] - zoomed["from"] == pytest.approx((start["to"] - start["from"]) / 2, abs=120000)
    page.page.locator("[data-chart=explorer] button[data-act=earlier]").click()
    page.settle()
    assert page.charts()[0]["from"] < zoomed["from"]
    # the legend toggles a series, with the keyboard too
    item = page.page.locator("[data-chart=explorer] .legend-item").first
    item.focus()
    page.page.keyboard.press("Space")
    assert item.get_attribute("aria-pressed") == "false"
    assert (
        page.page.evaluate("Chart.getChart(document.querySelector('[data-chart=explorer] canvas')).isDatasetVisible(0)")
        is False
    )
    assert page.errors == []


def test_empty_state(server, dbs, page):
    """Per-minute history exists for the last days only: older windows say so instead of drawing nothing."""
    page.open(
        _url(
            server,
            db=dbs["single"],
            view="explorer",
            series="sysmetric_history:Session Count",
            **{"from": "2026-11-11T00:00", "to": "2026-11-12T00:00"},
        )
    )
    card = page.page.locator("[data-chart=explorer]")
    assert card.get_attribute("data-state") == "empty"
    assert (
        card.locator(".status")
        .text_content()
        .startswith(
            "No per-minute detail in this window: AWR keeps the per-minute history (sysmetric history) for recent days"
        )
    )
    # zoomed into a few hours that old, the overview draws the snapshot values and says why there is no detail
    page.open(_url(server, db=dbs["single"], view="overview", **{"from": "2026-11-11T10:00", "to": "2026-11-11T13:00"}))
    cpu = page.page.locator("[data-chart=host-cpu]")
    assert cpu.get_attribute("data-state") == "ready"
    assert "No per-minute detail in this window" in cpu.locator(".status").text_content()
    assert "the snapshot values are shown" in cpu.locator(".status").text_content()
    assert page.error_text() == "" and page.errors == []


@pytest.mark.parametrize("name", ["constructor", "__proto__", "toString", "hasOwnProperty"])
def test_a_link_naming_an_objects_own_member_opens_the_default(server, dbs, page, name):
    """Keys from a link are looked up in tables without Object's prototype: `?view=constructor` is an unknown view,
    not Object's constructor (the page broke on it)."""
    page.open(_url(server, db=name, view=name, range=name, rate=name, inst=name, tz=name, series=name))
    assert page.state()["view"] == "overview" and page.state()["db"] in dbs.values()
    assert page.page.locator("[data-chart=aas]").get_attribute("data-state") == "ready"
    page.open(_url(server, db=dbs["single"], view="explorer", range="1d", rate=name, series=["derived:aas", name]))
    assert page.state()["rate"] == "per_second"
    assert page.errors == [] or all("404" in e for e in page.errors), page.errors


# -- the share link ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "view,extra",
    [
        ("overview", {"inst": "each"}),
        (
            "explorer",
            {
                "inst": "each",
                "series": [
                    "sysstat:redo size",
                    "system_event:log file sync:avg_ms",
                    "sysmetric:Host CPU Utilization (%)",
                ],
                "rate": "per_txn",
            },
        ),
    ],
)
def test_share_link_round_trip(server, dbs, browser, page, view, extra):
    query = urlencode({"db": dbs["rac"], "view": view, "range": "7d", **extra}, doseq=True)
    page.open(f"{server}/?{query}")
    page.page.get_by_role("button", name="Copy link").click()
    link = page.page.locator("#link").input_value()
    shared = parse_qs(urlsplit(link).query)
    assert "range" not in shared and shared["from"] and shared["to"]  # the relative range made absolute
    assert shared["db"] == [dbs["rac"]] and shared["view"] == [view]
    original = page.charts()
    fresh = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC", locale="en-US")
    try:
        other = Page(fresh).open(link)
        assert other.page.url == link
        copy = other.charts()
        assert [(c["id"], c["from"], c["to"]) for c in copy] == [(c["id"], c["from"], c["to"]) for c in original]
        for a, b in zip(original, copy, strict=True):
            assert [(d["label"], d["unit"]) for d in a["datasets"]] == [(d["label"], d["unit"]) for d in b["datasets"]]
            assert [d["points"] for d in a["datasets"]] == [d["points"] for d in b["datasets"]], a["id"]
            assert sum(len(d["points"]) for d in a["datasets"]) > 100
        assert other.errors == []
    finally:
        fresh.close()


def _state_examples(dbs, stories):
    """For each key of the page's state, a link where it matters: {key: (the link's other keys, its value)}."""
    from test_browser_activity import state_examples as activity_state_examples  # it imports this module
    from test_browser_changes import state_examples as changes_state_examples
    from test_browser_histseg import state_examples as histseg_state_examples
    from test_browser_plans import state_examples as plans_state_examples
    from test_browser_reports import state_examples as reports_state_examples  # Oracle reports (issues 13, 14)

    rac, single = dbs["rac"], dbs["single"]
    lo, sql = stories["plan_regression"]["begin_snap"], stories["plan_regression"]["sql_id"]
    day = {"from": "2026-11-16T08:00+01:00", "to": "2026-11-17T08:00+01:00"}
    return {
        "db": ({"view": "overview", "range": "1d"}, single),
        "inst": ({"db": rac, "range": "1d"}, "2"),
        "view": ({"db": single, "range": "1d"}, "tablespaces"),
        "run": ({"view": "run"}, "ebs-5x-gp2-burst"),
        "runs": ({"view": "runs"}, ["ebs-5x-gp2-burst", "ebs-io1-gp2-io-size-model"]),
        "range": ({"db": single}, "1d"),
        "from": ({"db": single, "to": day["to"]}, day["from"]),
        "to": ({"db": single, "from": day["from"]}, day["to"]),
        "begin_snap": ({"db": rac, "end_snap": str(lo + 8)}, str(lo)),
        "end_snap": ({"db": rac, "begin_snap": str(lo)}, str(lo + 8)),
        "tz": ({"db": rac, "range": "1d"}, "browser"),
        "band_ref": ({"db": single, "range": "1d"}, "BEFORE_ASYNC_IO_FIX"),
        "series": ({"db": rac, "view": "explorer", "range": "1d"}, ["derived:aas", "sysstat:redo size"]),
        "rate": ({"db": rac, "view": "explorer", "range": "1d", "series": "sysstat:redo size"}, "per_txn"),
        "sql": ({"db": rac, "view": "sql", "range": "7d"}, sql),
        "con": ({"db": rac, "view": "sql", "range": "7d", "sql": sql}, rac.split(".")[1]),
        "order": ({"db": rac, "view": "sql", "range": "7d"}, "cpu"),
        "ts": ({"db": single, "view": "tablespaces", "range": "7d"}, "SYSAUX"),
        **{
            f"{side}_{end}": (
                {
                    "db": single,
                    "view": "compare",
                    **{f"{s}_{e}": day[e] for s in "ab" for e in day if (s, e) != (side, end)},
                },
                day[end],
            )
            for side in "ab"
            for end in ("from", "to")
        },
        **activity_state_examples(dbs, stories),  # by, filter, aas: the Top activity view's (issue 13)
        **reports_state_examples(dbs, stories),  # rtype, b_begin_snap, b_end_snap: the Oracle reports view's
        **plans_state_examples(dbs, stories),  # plan, plan_b: the SQL detail's plans (issue 13)
        **histseg_state_examples(dbs, stories),  # event, stat, seg: the wait histogram and segments views (issue 14)
        **changes_state_examples(dbs, stories),  # changes: what changed hidden on every time chart (issue 17)
    }


RANGE_KINDS = ({"range"}, {"from", "to"}, {"begin_snap", "end_snap"})  # a link holds one kind of range


def _state_links(examples):
    """The examples merged into as few links as keep each example's whole link: [(link, {key: value})]. Two merge
    where no key has two values (a missing view is the overview) and one kind of range remains."""
    links = []
    for key, (others, value) in examples.items():
        want = {"view": "overview", **others, key: value} if key not in ("run", "runs") else {**others, key: value}
        for link, keys in links:
            keys_of_both = set(link) | set(want)
            if (
                all(link.get(k, v) == v for k, v in want.items())
                and sum(bool(kind & keys_of_both) for kind in RANGE_KINDS) <= 1
            ):
                link.update(want)
                keys[key] = value
                break
        else:
            links.append((want, {key: value}))
    return links


def _in_link(value) -> list:
    """A state value as parse_qs reads it back from a link: a list of one or more strings."""
    return value if isinstance(value, list) else [value]


def test_every_key_of_the_state_survives_the_link_and_back(server, dbs, stories, page):
    """Each key the page keeps in its link (AWRLens.State.KEYS: a key added there must get an example here), opened
    from a link: the page keeps it, Copy link carries it, and after another view Back restores it (the examples
    that fit one link are asked together)."""
    examples = _state_examples(dbs, stories)
    page.open(_url(server))
    assert set(page.page.evaluate("AWRLens.State.KEYS")) == set(examples)
    links = _state_links(examples)
    assert len(links) < len(examples) and {k for _, keys in links for k in keys} == set(examples)
    for link, keys in links:
        page.open(_url(server, **link))
        asked = parse_qs(urlsplit(page.page.url).query)
        for key, value in keys.items():
            assert asked.get(key) == _in_link(value), (key, page.page.url)
        page.page.get_by_role("button", name="Copy link").click()
        box = page.page.locator("#link:visible, .permalink:visible")  # the header's, or a run page's own
        copied = parse_qs(urlsplit(box.first.input_value()).query)
        for key, value in keys.items():  # Copy link makes a relative range absolute (test_share_link_...)
            if key not in ("range", "from", "to"):
                assert copied.get(key) == _in_link(value), (key, copied)
        page.page.evaluate("AWRLens.State.set({view: 'benchmarks', run: null, runs: null})")
        page.settle()
        page.page.go_back()
        page.settle()
        back, state = parse_qs(urlsplit(page.page.url).query), page.page.evaluate("AWRLens.State.get()")
        for key, value in keys.items():
            assert back.get(key) == _in_link(value), (key, "after Back", back)
            assert state[key] == value, (key, "the state after Back")
    assert page.errors == [], page.errors


def test_time_zone_switch(server, dbs, page, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="America/New_York", locale="en-US")
    try:
        pg = Page(ctx).open(_url(server, db=dbs["rac"], view="overview", range="1d"))
        in_db = pg.page.locator("#from").input_value()
        points = pg.charts()[2]["datasets"]
        pg.page.get_by_label("Times in").select_option("browser")
        pg.settle()
        assert pg.state()["tz"] == "browser"
        in_browser = pg.page.locator("#from").input_value()
        assert in_db.endswith("T07:00") and in_browser.endswith("T01:00")  # RACPROD is UTC+01:00, New York UTC-05:00
        assert "browser time" in pg.page.locator("#range-label").text_content()
        assert pg.charts()[2]["datasets"] == points  # the same moments, only shown in another zone
        assert pg.errors == []
    finally:
        ctx.close()


def test_compare_defaults_to_two_periods_with_data(server, dbs, page):
    """B is the range shown and A as long just before it; when the range starts at the first snapshot, its halves."""
    for range_ in ("1d", "7d", "45d"):
        page.open(_url(server, db=dbs["single"], view="compare", range=range_))
        st = page.state()
        a_from, a_to, b_from, b_to = (datetime.fromisoformat(st[k]) for k in ("a_from", "a_to", "b_from", "b_to"))
        assert a_from < a_to == b_from < b_to
        assert abs((b_to - b_from) - (a_to - a_from)).total_seconds() <= 60, st
        if range_ == "1d":  # room before it: the day before
            assert b_to - b_from == timedelta(days=1)
        cells = page.page.locator("[data-table=compare-load-profile] tbody tr").first.locator("td")
        assert _rows(page, "compare-load-profile") == 23, (range_, cells.all_text_contents())  # no global cache
        assert cells.nth(1).text_content() not in ("", "—") and cells.nth(2).text_content() not in ("", "—")
    assert page.errors == []


def test_range_forms(server, dbs, client, page):
    """Absolute from/to and a snapshot range, typed into their forms."""
    page.open(_url(server, db=dbs["single"], view="overview", range="1d"))
    page.page.get_by_label("From").fill("2026-11-17T09:00")
    page.page.get_by_label("to", exact=True).fill("2026-11-17T17:00")
    page.page.locator("#abs-range button[type=submit]").click()
    page.settle()
    state = page.state()
    assert "range" not in state and (state["from"], state["to"]) == ("2026-11-17T09:00+00:00", "2026-11-17T17:00+00:00")
    assert page.charts()[1]["datasets"][0]["points"][0][0] == datetime(2026, 11, 17, 9, tzinfo=UTC).timestamp() * 1000
    last = client.get(f"/api/v1/dbs/{dbs['single']}").get_json()["snapshots"]["last_snap"]
    page.page.get_by_label("Snapshots").fill(str(last - 10))
    page.page.get_by_label("Last snapshot").fill(str(last))
    page.page.get_by_label("Last snapshot").press("Enter")
    page.settle()
    state = page.state()
    assert (state["begin_snap"], state["end_snap"]) == (str(last - 10), str(last)) and "from" not in state
    assert f"snapshots {last - 10}–{last}" in page.page.locator("#range-label").text_content()
    assert any(f"begin_snap={last - 10}" in u for u in page.api("/top-events"))
    page.page.get_by_role("button", name="Copy link").click()
    assert f"begin_snap={last - 10}&end_snap={last}" in page.page.locator("#link").input_value()
    assert page.errors == []


def settings(page, **changes):
    """Change the page's settings (window.AWRLENS_CONFIG, written by the page) as it sets them: a page served from
    elsewhere, or rendered with other values. (Not by rewriting the page in flight: Chromium then treats it as
    public and refuses its requests to this loopback address.)"""
    page.page.add_init_script(f"""(changes => {{ let set;
      Object.defineProperty(window, "AWRLENS_CONFIG", {{ configurable: true, get: () => set,
        set: value => {{ set = Object.assign(value, changes); }} }}); }})({json.dumps(changes)})""")


def test_config_points_at_another_origin(server, dbs, page):
    """As from S3: the page's settings name the API's origin (here localhost, the page is on 127.0.0.1) and an API
    key (which the bucket's page never holds, but a page may be given one)."""
    api_origin = server.replace("127.0.0.1", "localhost")
    settings(page, apiBase=api_origin, apiKey="k-123")
    headers = []
    page.page.on(
        "request", lambda r: headers.append((r.url, r.headers.get("x-api-key"))) if "/api/v1/" in r.url else None
    )
    page.open(_url(server, db=dbs["single"], view="overview", range="1d"))
    assert headers and all(u.startswith(api_origin + "/api/v1/") and key == "k-123" for u, key in headers)
    assert all(c["state"] == "ready" for c in page.charts())
    assert page.errors == []


def test_the_limits_come_from_the_page_settings(server, dbs, page):
    """The API's limits reach the page through its settings (tests/test_page.py: rendered from the server's):
    the explorer's most series, the size of each series request, the longest range the form accepts."""
    settings(page, maxSeries=2, maxRangeDays=2)
    page.open(
        _url(
            server,
            db=dbs["single"],
            view="explorer",
            series=["derived:aas", "derived:tps"],
            **{"from": "2026-11-17T09:00+00:00", "to": "2026-11-17T12:00+00:00"},
        )
    )
    asked = [parse_qs(urlsplit(u).query)["name"] for u in page.requests if "/series?" in u]
    assert asked and all(len(names) == 2 for names in asked)  # two names and their per-minute twins, 2 by 2
    assert ["derived:aas", "derived:tps"] in asked and [
        "sysmetric_history:Average Active Sessions",
        "sysmetric_history:User Transaction Per Sec",
    ] in asked
    assert len(page.charts()[0]["datasets"]) == 2
    page.page.get_by_label("Add a series").fill("derived:executions")
    page.page.get_by_label("Add a series").press("Enter")
    assert page.page.locator(".explorer-form .note").text_content() == "At most 2 series on one chart."
    assert page.state()["series"] == ["derived:aas", "derived:tps"]
    page.page.get_by_label("From").fill("2026-11-14T09:00")
    page.page.get_by_label("to", exact=True).fill("2026-11-17T12:00")
    page.page.locator("#abs-range button[type=submit]").click()
    assert "longer than the 2 days the API allows" in page.error_text()
    assert page.state()["from"] == "2026-11-17T09:00+00:00"
    assert page.errors == []


# -- a CDB root -----------------------------------------------------------------------------------------------------


def test_a_cdb_root_names_the_container_of_each_row(tmp_path, server, dbs, page):
    """In a CDB root (tests/test_multitenant.py's store) top SQL and tablespaces show each row's container, by its
    PDB's name; a statement picked in one container opens its detail there (con=CON_DBID in the link), and the
    tablespace picked is charted in its own container. A non-CDB shows no container column."""
    import test_multitenant as cdb

    path = tmp_path / "cdb.sqlite"
    cdb.build(path)
    with gunicorn(path, workers=1) as url:
        page.open(_url(url, db=f"demo.{cdb.DBID}", view="sql", begin_snap=1, end_snap=3))
        headers = page.page.locator("[data-table=top-sql] thead th").all_text_contents()
        assert headers[:2] == ["SQL ID", "Container"], headers
        cells = page.page.locator("[data-table=top-sql] tbody tr").evaluate_all(
            "rows => rows.map(r => [r.cells[0].textContent, r.cells[1].textContent])"
        )
        assert sorted(cells) == sorted([sql_id, cdb.NAMES[con]] for con, sql_id, _ in cdb.SQL), cells
        page.page.locator("[data-table=top-sql] tbody tr", has_text="HR").filter(has_text="0s4ruwf8v2hxq").click()
        page.settle()
        assert page.state()["sql"] == "0s4ruwf8v2hxq" and page.state()["con"] == str(cdb.PDB2)
        assert "container HR" in page.page.locator(".sql-info .meta").text_content()
        # the statement's answers in that container (plans and binds take no container yet: the closing notes)
        asked = [u for u in page.api("/sql/0s4ruwf8v2hxq") if "/plans" not in u and "/binds" not in u]
        assert asked and all("con_dbid=902" in u for u in asked)
        executions = page.page.locator("[data-table=sql-plans] tbody td").nth(1).text_content()
        assert executions == str(sum(e for e, _ in cdb.SQL[(cdb.PDB2, "0s4ruwf8v2hxq", 11)].values()))

        page.open(_url(url, db=f"demo.{cdb.DBID}", view="tablespaces", begin_snap=1, end_snap=3))
        headers = page.page.locator("[data-table=tablespaces] thead th").all_text_contents()
        assert headers[:2] == ["Tablespace", "Container"], headers
        page.page.locator("[data-table=tablespaces] tbody tr", has_text="SALES").click()
        page.settle()
        assert page.state()["ts"] == "SYSAUX" and page.state()["con"] == str(cdb.PDB1)
        chart = next(c for c in page.charts() if c["id"] == "tablespace")
        used = next(d for d in chart["datasets"] if d["key"] == "used")
        assert used["label"] == "SALES SYSAUX used"
        assert [p[1] for p in used["points"]] == pytest.approx(
            [b * 8192 / 1048576 for b in cdb.TABLESPACES[(cdb.PDB1, 1, "SYSAUX", 8192)].values()], abs=1e-4
        )
        assert page.errors == []
    page.open(_url(server, db=dbs["single"], view="tablespaces", range="7d"))
    assert "Container" not in page.page.locator("[data-table=tablespaces] thead th").all_text_contents()


# -- CSV ----------------------------------------------------------------------------------------------------------


def test_csv_downloads(server, dbs, client, page):
    page.open(_url(server, db=dbs["single"], view="overview", range="7d"))
    with page.page.expect_download() as info:
        page.page.locator("[data-table=top-sql] button.buttons-csv").click()
    download = info.value
    # the file names the database, the table and the range shown, in the database's local time (issue 34)
    listed = next(d for d in client.get("/api/v1/dbs").get_json()["databases"] if d["id"] == dbs["single"])
    end = datetime.fromisoformat(listed["snapshots"]["to"])
    shown = f"{end - timedelta(days=7):%Y%m%dT%H%M}-{end:%Y%m%dT%H%M}"
    assert download.suggested_filename == f"awrlens-{listed['db_name']}-top-sql-{shown}.csv"
    rows = list(csv.reader(io.StringIO(Path(download.path()).read_text(encoding="utf-8"))))
    # "Last week" ends at the newest snapshot, as the API's default range does
    api = client.get(f"/api/v1/dbs/{dbs['single']}/top-sql", query_string={"limit": 25}).get_json()["rows"]
    assert rows[0][:3] == ["SQL ID", "Elapsed (s)", "CPU (s)"] and rows[0][-1] == "SQL text"  # raw values: the unit
    assert rows[0][4:6] == ["Elapsed/exec (ms)", "Buffer gets"]
    assert len(rows) == 1 + len(api) == 26
    assert [r[0] for r in rows[1:]] == [r["sql_id"] for r in api]
    assert [float(r[1]) for r in rows[1:]] == [r["elapsed_s"] for r in api]  # raw values, not the display
    assert [r[-1] for r in rows[1:]] == [r["sql_text"] for r in api]

    with page.page.expect_download() as info:
        page.page.locator("[data-chart=host-cpu] button[data-act=csv]").click()
    assert info.value.suggested_filename == f"awrlens-{listed['db_name']}-host-cpu-{shown}.csv"
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert {r["database"] for r in rows} == {listed["db_name"]}
    chart = next(c for c in page.charts() if c["id"] == "host-cpu")
    assert len(rows) == sum(len(d["points"]) for d in chart["datasets"]) > 600
    assert {r["series"] for r in rows} == {"Host CPU %", "Host I/O wait %"}
    first = chart["datasets"][0]["points"][0]
    assert float(rows[0]["value"]) == first[1] and rows[0]["unit"] == "%"
    assert rows[0]["time"].endswith("+00:00") or rows[0]["time"].endswith("Z")

    assert page.errors == []


def _png(data: bytes) -> tuple[tuple[int, int], dict]:
    """A PNG's (width, height) and its tEXt chunks, each chunk's CRC checked (the PNG specification's layout)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, size, texts = 8, None, {}
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0] == zlib.crc32(kind + body), kind
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"tEXt":
            key, _, text = body.partition(b"\0")
            texts[key.decode("latin-1")] = text.decode("latin-1")
        pos += 12 + length
    return size, texts


def test_a_charts_png_stands_alone(server, dbs, stories, page):
    """The PNG carries the chart's title, the database and instances, the window with its zone, the legend and the
    link that reproduces it: drawn around the plot and kept as the PNG's text (issue 15)."""
    db = dbs["rac"]
    page.open(_url(server, db=db, view="overview", inst="each", range="7d"))
    chart = next(c for c in page.charts() if c["id"] == "host-cpu")
    with page.page.expect_download() as info:
        page.page.locator("[data-chart=host-cpu] button[data-act=png]").click()
    (width, height), texts = _png(Path(info.value.path()).read_bytes())
    canvas = page.page.evaluate(
        "(() => { const c = document.querySelector('[data-chart=host-cpu] canvas'); return [c.width, c.height]; })()"
    )
    assert width == canvas[0] and height > canvas[1] + 60  # the title, what it shows, legend and link around it
    assert texts["Title"] == chart["title"] and texts["Source"] == page.page.url
    name = next(d["db_name"] for d in stories["databases"] if d["rac"])
    lines = texts["Description"].split("\n")
    assert lines[0] == f"{name} ({db}) · instances 1, 2, one line each"
    zone = page.page.evaluate("AWRLens.Databases.zone(AWRLens.Databases.get(AWRLens.State.get().db))")
    frm = datetime.fromtimestamp(chart["from"] / 1000, UTC).astimezone(
        datetime.fromisoformat(stories["restart"]["startup_time"]).tzinfo
    )
    assert lines[1].startswith(frm.strftime("%Y-%m-%d %H:%M")) and lines[1].endswith(f"({zone})"), lines
    to = datetime.fromtimestamp(chart["to"] / 1000, UTC).astimezone(frm.tzinfo)
    assert info.value.suggested_filename == f"awrlens-{name}-host-cpu-{frm:%Y%m%dT%H%M}-{to:%Y%m%dT%H%M}.png"
    assert page.errors == []


# -- errors --------------------------------------------------------------------------------------------------------


def test_api_errors_are_shown(server, dbs, page):
    # an unknown series in a link: the API's 404 message, and the rest of the page still works
    page.open(_url(server, db=dbs["single"], view="explorer", series="nope:x"))
    text = page.error_text()
    assert "404" in text and "unknown series 'nope:x'" in text
    assert page.page.locator("[data-chart=explorer]").get_attribute("data-state") == "error"
    assert "unknown series" in page.page.locator("[data-chart=explorer] .status").text_content()
    assert page.page.locator("#series-search").is_visible()
    # an API failure on one table: its message shown, the other panels drawn
    page.page.route(
        "**/top-events?*",
        lambda route: route.fulfill(
            status=503,
            content_type="application/json",
            body='{"error": {"status": 503, "code": "unavailable", '
            '"message": "the database <b>ORCL</b> cannot be reached"}}',
        ),
    )
    page.page.get_by_role("button", name="Overview").click()
    page.settle()
    assert "the database <b>ORCL</b> cannot be reached" in page.error_text()  # as text: the tags shown
    assert page.page.locator("#error b").count() == 0
    assert page.page.locator("[data-table=top-events]").get_attribute("data-state") == "error"
    assert page.page.locator("[data-table=load-profile]").get_attribute("data-state") == "ready"
    assert all(c["state"] == "ready" for c in page.charts())
    # the network gone: a message, never a blank page
    page.page.route("**/api/v1/**", lambda route: route.abort())
    page.page.get_by_role("button", name="Last 45 days").click()
    page.settle()
    assert "cannot reach the API" in page.error_text()
    assert page.page.locator("main .card").count() > 0


def test_boot_failure_is_shown(server, dbs, page):
    page.page.route(
        "**/api/v1/dbs",
        lambda route: route.fulfill(
            status=500,
            content_type="application/json",
            body='{"error": {"status": 500, "code": "internal_error", '
            '"message": "unexpected error; see the server log"}}',
        ),
    )
    page.page.goto(server + "/")
    page.page.wait_for_selector("main .is-error")
    assert "Cannot load the list of databases: unexpected error" in page.page.locator("main").text_content()
    assert "500" in page.error_text()


# -- database text stays text -----------------------------------------------------------------------------------


def test_markup_in_sql_text_stays_inert(server, dbs, hostile, page):
    assert len(hostile) >= 6  # three statements in each database
    ours = [h for h in hostile if h["dbid"] == hostile[0]["dbid"]]
    db = next(v for v in dbs.values() if v.endswith(f".{hostile[0]['dbid']}"))
    page.open(_url(server, db=db, view="sql", range="45d"))
    scripts = page.page.locator("script").count()
    for h in ours:  # typed into the SQL ID form, as a DBA would
        page.page.get_by_role("textbox", name="SQL ID").fill(h["sql_id"])
        page.page.get_by_role("textbox", name="SQL ID").press("Enter")
        page.settle()
        assert page.state()["sql"] == h["sql_id"]
        assert page.page.locator(".sql-text").text_content() == h["text"]  # shown literally
        assert page.page.get_by_text(h["text"], exact=True).is_visible()
        assert f"Module: {h['module']}" in page.page.locator(".sql-info .meta").text_content()
        assert page.page.locator("main img, main b, main i, main script").count() == 0
        assert page.page.locator("script").count() == scripts
        assert page.charts()[0]["datasets"]
    # the same texts in the top SQL table (the demo ranks them low: put them first in the answer)
    texts = {h["sql_id"]: h for h in hostile}

    def top_sql(route):
        response = route.fetch()
        body = response.json()
        for row, h in zip(body["rows"], ours, strict=False):  # the first rows of the answer
            row.update(sql_id=h["sql_id"], sql_text=h["text"], module=h["module"])
        route.fulfill(response=response, json=body)

    page.page.route("**/top-sql?*", top_sql)
    page.open(_url(server, db=db, view="overview", range="7d"))
    rows = page.page.locator("[data-table=top-sql] tbody tr")
    assert rows.count() == 10  # the </td></tr> in a text made no extra row
    shown = [rows.nth(k).locator("td").last.text_content() for k in range(3)]
    assert set(shown) <= {h["text"] for h in hostile} and len(set(shown)) == 3
    assert page.page.locator("main img, main b, main i, tbody script").count() == 0
    assert page.page.locator("[data-table=top-sql] td", has_text="<b>web</b>").count() == 1  # the module, literally
    # a click on a hostile row opens its detail, still as text
    first = rows.nth(0).locator("td").first.text_content()
    rows.nth(0).locator("td").nth(2).click()
    page.settle()
    assert page.state()["sql"] == first
    assert page.page.locator(".sql-text").text_content() == texts[first]["text"]
    page.page.wait_for_timeout(300)
    assert page.dialogs == []
    assert page.errors == []


# -- Back and Forward ----------------------------------------------------------------------------------------------


def test_back_and_forward(server, dbs, page):
    page.open(_url(server, db=dbs["rac"]))
    assert page.state()["view"] == "overview" and page.state()["range"] == "7d"
    page.page.get_by_role("button", name="Metric explorer").click()
    page.settle()
    page.page.get_by_role("button", name="Last day").focus()
    page.page.keyboard.press("Enter")  # keyboard: a focused button
    page.settle()
    page.page.get_by_label("Database", exact=True).select_option(dbs["single"])
    page.settle()
    state = page.state()
    assert (state["db"], state["view"], state["range"]) == (dbs["single"], "explorer", "1d")
    page.page.go_back()
    page.settle()
    assert page.state()["db"] == dbs["rac"] and page.state()["range"] == "1d"
    assert page.page.locator("#db").input_value() == dbs["rac"]
    page.page.go_back()
    page.settle()
    assert page.state()["range"] == "7d" and page.state()["view"] == "explorer"
    assert page.page.locator("[data-chart=explorer]").count() == 1
    page.page.go_back()
    page.settle()
    assert page.state()["view"] == "overview"
    assert page.page.locator("#tabs button[data-view=overview]").get_attribute("aria-pressed") == "true"
    assert len(page.charts()) == 4  # instances combined: one AAS chart, and host CPU, I/O, calls
    page.page.go_forward()
    page.settle()
    assert page.state()["view"] == "explorer" and page.page.locator("[data-chart=explorer]").count() == 1
    assert page.errors == []


def test_a_chart_and_its_table_read_in_the_same_unit(server, dbs, page):
    """The tablespaces chart's axis reads in the unit its table shows (GB for hundreds of GB), on round ticks
    (issue 15: the chart was in MB, the table in GB)."""
    page.open(_url(server, db=dbs["rac"], view="tablespaces", range="7d"))
    ticks = page.page.evaluate(
        "Chart.getChart(document.querySelector('[data-chart=tablespace] canvas')).scales.y0.ticks.map(t => t.label)"
    )
    used = page.page.locator("[data-table=tablespaces] tbody tr td:nth-child(3)").first.text_content()
    assert used.split()[-1] == ticks[-1].split()[-1] == "GB", (used, ticks)
    assert all(float(t.split()[0].replace(",", "")).is_integer() for t in ticks if t.split()[-1] == "GB"), ticks
    assert page.errors == []


def test_time_axes_tick_on_round_times_name_the_zone_and_mark_manual_snapshots(server, dbs, stories, page):
    """Ticks fall on round times of the zone shown (whole hours for a window of hours, midnights for days), the axis
    names that zone, and a manual snapshot in the window is drawn (issue 15)."""
    manual = stories["manual_snapshot"]
    at = datetime.fromisoformat(manual["time"])
    for hours in (8, 24 * 6):
        frm, to = at - timedelta(hours=hours / 2), at + timedelta(hours=hours / 2)
        page.open(_url(server, db=dbs["single"], view="overview", **{"from": frm.isoformat(), "to": to.isoformat()}))
        axis = page.page.evaluate("""(() => {
            const c = Chart.getChart(document.querySelector('[data-chart=host-cpu] canvas'));
            return {ticks: c.scales.x.ticks.map(t => t.value), title: c.options.scales.x.title.text,
                    manual: c.$awr.markers.merged_snapshots.map(m => m.snap_id)}; })()""")
        zone = at.strftime("%z")
        assert axis["title"] == f"time (UTC{zone[:3]}:{zone[3:]})"
        moments = [datetime.fromtimestamp(v / 1000, at.tzinfo) for v in axis["ticks"]]
        assert len(moments) >= 3 and all(m.minute == 0 and m.second == 0 for m in moments), moments
        if hours > 48:
            assert all(m.hour == 0 for m in moments), moments
        assert axis["manual"] == [manual["snap_id"]]
    assert page.errors == []
