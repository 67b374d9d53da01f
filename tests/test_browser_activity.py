"""Top activity in real headless Chromium (the browser, server and page helpers of test_browser.py): the AAS chart
from Active Session History stacked by a dimension, the top lists and blocking sessions beside it, a click on a row
as a filter (a chip, the link), zoom, the link round trip and Back, no ASH in old windows, and the overview's AAS
chart switched to ASH. Every expectation comes from the API's answer to the request the page made (asked again
through the app's test client on the same store), or from the store."""

import csv
import io
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
from contract import lock_window
from test_browser import _drag, _png, _url

from tests.chromium import Page

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

OTHERS = "others (beyond the top 10)"  # the page's name for the API's "other" after its top 10
LISTS = {
    "sql_id": "ash-sql",
    "event": "ash-events",
    "session": "ash-sessions",
    "module": "ash-modules",
    "current_obj": "ash-objects",
}


LIVE_SECONDS = 15  # the live view asks again every 15 s (static/js/activity-views.js LIVE_REFRESH)


def state_examples(dbs, stories):
    """The keys of the link this view adds, {key: (the link's other keys, its value)}, as test_browser.py's
    _state_examples takes them (issue 17's rule test, on the branches that have it)."""
    rac, sql = dbs["rac"], stories["plan_regression"]["sql_id"]
    return {
        "by": ({"db": rac, "view": "activity", "range": "1d"}, "event"),
        "filter": ({"db": rac, "view": "activity", "range": "1d", "by": "event"}, [f"sql_id:{sql}", "module:billing"]),
        "aas": ({"db": rac, "view": "overview", "range": "1d"}, "ash"),
        "groups": ({"db": rac, "view": "activity", "range": "1d"}, "module,action"),
        # a pinned window of the live buffer (docs/awr-rules.md §30): the live row lock's
        "live": (
            {"db": rac, "view": "activity", "range": "1d"},
            f"{stories['live']['row_lock']['from']}/{stories['live']['row_lock']['to']}",
        ),
    }


def _asked(pg, kind):
    """The query of the page's last request to /activity (kind "") or /activity/top (kind "/top"), as a list of
    pairs, and its path."""
    urls = [u for u in pg.requests if f"/activity{kind}?" in u]
    assert urls, pg.requests
    parts = urlsplit(urls[-1])
    return parts.path, parse_qsl(parts.query)


def _answer(client, pg, kind=""):
    """The API's answer to the page's last request of that kind (as pairs of [time, value])."""
    path, query = _asked(pg, kind)
    r = client.get(path, query_string=[(k, v) for k, v in query if k != "shape"])
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


def _ms(iso):
    return round(datetime.fromisoformat(iso).timestamp() * 1000)


def _chart(pg, chart_id="activity"):
    return next(c for c in pg.charts() if c["id"] == chart_id)


def _legend(pg, chart_id="activity"):
    return pg.page.locator(f"[data-chart='{chart_id}'] .legend-item").all_text_contents()


def _names(body):
    """The legend the API's answer makes: its groups as labelled (a group without a value named, "no SQL"...), the CPU
    count last."""
    out = []
    for k, s in enumerate(body["series"]):
        out.append(OTHERS if k >= 10 and s["name"] == "other" else str(s["label"]))
    return out


def _same_points(chart, body):
    """The chart's points of each group are the API's, in the chart's window."""
    drawn = {d["label"]: d["points"] for d in chart["datasets"]}
    for name, s in zip(_names(body), body["series"], strict=True):
        api = [[_ms(t), v] for t, v in s["points"] if chart["from"] <= _ms(t) <= chart["to"]]
        assert drawn[name] == api, name
    assert sum(len(p) for p in drawn.values()) > 20


def _cells(pg, table_id, column=0):
    return pg.page.locator(f"[data-table='{table_id}'] tbody tr").evaluate_all(
        f"trs => trs.map(tr => tr.cells[{column}].textContent)"
    )


def _chips(pg):
    return pg.page.locator(".activity-form .chip span").all_text_contents()


# -- the view --------------------------------------------------------------------------------------------------------


def test_the_view_renders_with_data(server, client, dbs, page):
    page.open(_url(server, db=dbs["rac"], view="activity", range="1d"))
    assert page.state()["by"] == "wait_class"  # the default dimension, in the link
    assert page.page.locator("#tabs button[data-view=activity]").get_attribute("aria-pressed") == "true"
    chart = _chart(page)
    assert chart["state"] == "ready" and chart["title"] == "Average active sessions by wait class"
    body = _answer(client, page)
    assert dict(_asked(page, "")[1])["group_by"] == "wait_class"
    assert _legend(page) == [*_names(body), "CPU count"]
    assert _names(body)[0] == "CPU"
    _same_points(chart, body)
    cpus = next(d for d in chart["datasets"] if d["label"] == "CPU count")
    assert {p[1] for p in cpus["points"]} == {32}  # RACPROD: 2 x 16 CPUs, its NUM_CPUS
    status = page.page.locator("[data-chart=activity] .status").text_content()
    assert f"{body['bucket_seconds'] // 60} min buckets of samples taken every 10 s" in status
    # the top lists of the same window, as the API ranks them
    top = _answer(client, page, "/top")
    assert dict(_asked(page, "/top")[1])["from"] == dict(_asked(page, "")[1])["from"]
    for name, table in LISTS.items():
        expected = [str(r["label"]) for r in top["lists"][name]][:10]
        assert _cells(page, table) == expected and expected, name
    # each top session named: its user (DBA_USERS), program and machine, as the API gives them
    assert (
        _cells(page, "ash-sessions", 1)
        == [" · ".join(str(r[k]) for k in ("user_name", "program", "machine")) for r in top["lists"]["session"]][:10]
    )
    assert page.page.locator("[data-table=ash-chains]").get_attribute("data-state") == "empty"
    assert page.page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert page.error_text() == "" and page.errors == []


def test_the_dimension_switch_changes_the_request_and_the_legend(server, client, dbs, page):
    page.open(_url(server, db=dbs["rac"], view="activity", range="1d"))
    wait_classes = _legend(page)
    page.page.get_by_label("Stack by").select_option("event")
    page.settle()
    assert page.state()["by"] == "event"
    assert dict(_asked(page, "")[1])["group_by"] == "event"
    body = _answer(client, page)
    assert _legend(page) == [*_names(body), "CPU count"] != wait_classes
    assert "log file sync" in _legend(page)
    assert _chart(page)["title"] == "Average active sessions by event"
    _same_points(_chart(page), body)
    page.page.get_by_label("Stack by").select_option("session")
    page.settle()
    body = _answer(client, page)
    assert _legend(page)[:3] == _names(body)[:3] and all(":" in n and "," in n for n in _names(body)[:3])
    assert page.errors == []


def test_a_click_on_a_row_filters(server, client, dbs, stories, page):
    """A SQL_ID clicked: the chart shows that statement's activity, then by event; a chip says so and removes it."""
    reg = stories["plan_regression"]
    page.open(
        _url(
            server,
            db=dbs["rac"],
            view="activity",
            by="wait_class",
            begin_snap=reg["begin_snap"],
            end_snap=reg["begin_snap"] + 8,
        )
    )
    before, every = _chart(page), _answer(client, page)
    row = page.page.locator("[data-table=ash-sql] tbody tr", has_text=reg["sql_id"])
    row.locator("td").nth(2).click()  # a cell of the row, not its SQL detail link
    page.settle()
    assert page.state()["filter"] == f"sql_id:{reg['sql_id']}"
    assert ("sql_id", reg["sql_id"]) in _asked(page, "")[1] and ("sql_id", reg["sql_id"]) in _asked(page, "/top")[1]
    assert _chips(page) == [f"SQL ID = {reg['sql_id']}"]
    assert _cells(page, "ash-sql") == [reg["sql_id"]]  # the lists are the statement's too
    body = _answer(client, page)
    chart = _chart(page)
    assert chart["title"].endswith(f" · SQL ID = {reg['sql_id']}")
    assert _legend(page) == _names(body)  # no CPU count: one statement's sessions are read alone
    assert 0 < body["total_samples"] < every["total_samples"]
    _same_points(chart, body)
    assert chart["datasets"] != before["datasets"]
    # that statement by event: the regressed plan burns CPU
    page.page.get_by_label("Stack by").select_option("event")
    page.settle()
    assert page.state()["filter"] == f"sql_id:{reg['sql_id']}" and page.state()["by"] == "event"
    body = _answer(client, page)
    assert {"group_by": "event", "sql_id": reg["sql_id"]}.items() <= dict(_asked(page, "")[1]).items()
    assert _legend(page) == _names(body) and _legend(page)[0] == "CPU"
    _same_points(_chart(page), body)
    # a second filter from another list, then the chip of the first removed
    module = _cells(page, "ash-modules")[0]
    page.page.locator("[data-table=ash-modules] tbody tr").first.click()
    page.settle()
    assert parse_qs(urlsplit(page.page.url).query)["filter"] == [f"sql_id:{reg['sql_id']}", f"module:{module}"]
    assert _chips(page) == [f"SQL ID = {reg['sql_id']}", f"module = {module}"]
    page.page.get_by_role("button", name=f"Remove the filter SQL ID = {reg['sql_id']}").click()
    page.settle()
    assert page.state()["filter"] == f"module:{module}" and _chips(page) == [f"module = {module}"]
    assert ("sql_id", reg["sql_id"]) not in _asked(page, "")[1] and ("module", module) in _asked(page, "")[1]
    assert page.errors == []


def _tree(body) -> list[tuple[int, str]]:
    """The wait-chain tree's (depth, session) depth first, as the page lists it."""
    out = []

    def walk(node, depth):
        out.append((depth, node["session"]))
        for w in node["waiters"]:
            walk(w, depth + 1)

    for r in body["roots"]:
        walk(r, 0)
    return out


def _tree_shown(pg) -> list[tuple[int, str]]:
    return [
        (int(d), s.replace("\xa0", "").removeprefix("└ "))
        for s, d in zip(_cells(pg, "ash-chains"), _cells(pg, "ash-chains", 1), strict=True)
    ]


def test_the_blocking_chain(server, client, dbs, stories, page):
    """The demo's row-lock chain as a tree, as the API gives it for the window: the root blocker first (what it did:
    the update that took the lock), its waiters indented under it and the two behind the first waiter under that one,
    with the event and the object's name they waited on; a click on the root keeps the samples it blocked."""
    lock = stories["row_lock"]
    page.open(
        _url(
            server,
            db=dbs["rac"],
            view="activity",
            by="event",
            **lock_window(lock, "13:30", "15:30"),
        )
    )
    chains = _answer(client, page, "/chains")
    assert dict(_asked(page, "/chains")[1])["from"] == dict(_asked(page, "/top")[1])["from"]
    assert _tree_shown(page) == _tree(chains) and [d for d, _ in _tree(chains)] == [0, 1, 2, 2, 1, 1, 1]
    root = chains["roots"][0]
    # the blocker, sampled once on CPU in the update that took the lock, idle after it
    doing = root["doing"][0]
    assert root["sid"] == 1801 and (root["samples"], doing["event"]) == (1, "CPU")
    assert _cells(page, "ash-chains", 3)[0] == f"CPU · {doing['sql_id']} (1 of 1 samples)"
    blocked_on = _cells(page, "ash-chains", 4)[1]
    assert blocked_on == f"{lock['event']} · APP.INVENTORY"
    page.page.locator("[data-table=ash-chains] tbody tr").first.click()
    page.settle()
    assert page.state()["filter"] == f"blocking_session:{root['session']}"  # a blocker is instance, SID and serial#
    assert ("blocking_session", root["session"]) in _asked(page, "")[1]
    assert _legend(page) == _names(_answer(client, page)) == [lock["event"]]
    assert page.errors == []


def test_a_window_inside_one_snapshot_interval_has_its_lists_and_blockers(server, client, dbs, stories, page):
    """Issue 31: Top activity of RACPROD instance 1 zoomed to 16 minutes inside the blocking afternoon, half-hour
    snapshots around it: every top list and the blockers are there, as the API gives them for that window by sample
    time, with the AAS over the window's own seconds."""
    lock = stories["row_lock"]
    window = lock_window(lock, "14:07", "14:23")
    page.open(_url(server, db=dbs["rac"], view="activity", instance="1", **window))
    top, body = _answer(client, page, "/top"), _answer(client, page)
    asked = dict(_asked(page, "/top")[1])
    assert _ms(asked["from"]) == _ms(window["from"]) and _ms(asked["to"]) == _ms(window["to"])
    assert _ms(top["range"]["from"]) == _ms(window["from"]) and _ms(top["range"]["to"]) == _ms(window["to"])
    seconds = (_ms(body["range"]["to"]) - _ms(body["range"]["from"])) / 1000  # the chart's window (it may ask more)
    assert body["total_samples"] > 0 and body["aas"] == pytest.approx(body["total_samples"] * 10 / seconds, abs=1e-3)
    session = top["lists"]["session"][0]
    assert session["aas"] == pytest.approx(session["samples"] * 10 / 960, abs=1e-3)  # over the window's 16 minutes
    for name, table in LISTS.items():
        assert top["lists"][name], name
        shown, labels = _cells(page, table), [str(r["label"]) for r in top["lists"][name]]
        assert shown == labels[: len(shown)] and len(shown) >= min(10, len(labels)), name  # a page of the table
    chains = _answer(client, page, "/chains")
    assert dict(_asked(page, "/chains")[1])["from"] == asked["from"] and chains["roots"]
    assert _tree_shown(page) == _tree(chains)
    assert not page.page.locator("text=Could not load").count()
    assert page.errors == []


def test_a_sql_id_opens_its_sql_detail_over_the_same_window(server, client, dbs, stories, page):
    """Issue 31, no dead ends: in Top activity zoomed to 15 minutes of the blocking afternoon, the top SQL's link opens
    its SQL detail over that window (a click on the row itself still filters), whose chart of the statement's activity
    stacks by event the samples of that SQL_ID and window, as the API gives them."""
    lock = stories["row_lock"]
    window = lock_window(lock, "14:08", "14:23")
    page.open(_url(server, db=dbs["rac"], view="activity", **window))
    top = _answer(client, page, "/top")
    first = top["lists"]["sql_id"][0]
    link = page.page.locator("[data-table=ash-sql] tbody tr").first.locator("a[data-follow]")
    assert link.text_content() == "Open"
    link.click()
    page.settle()
    state = page.state()
    assert (state["view"], state["sql"]) == ("sql", first["name"]) and "filter" not in state
    assert _ms(state["from"]) == _ms(window["from"]) and _ms(state["to"]) == _ms(window["to"])
    asked = dict(_asked(page, "")[1])
    assert (asked["sql_id"], asked["group_by"]) == (first["name"], "event")
    assert _ms(asked["from"]) == _ms(window["from"]) and _ms(asked["to"]) == _ms(window["to"])
    body = _answer(client, page)
    assert body["total_samples"] == first["samples"]  # the same samples as the top list's row
    assert _chart(page, "sql-activity")["state"] == "ready"
    assert _legend(page, "sql-activity") == _names(body)
    assert page.error_text() == "" and page.errors == []


def test_ashtop_groups_by_the_dimensions_picked_and_filters_by_a_row(server, client, dbs, stories, page):
    """Issue 31, ashtop in the browser: over 15 minutes of the blocking afternoon the table groups by SQL ID and event
    (ashtop's default) as the API does; picking module and action in the card's selects asks for them and puts them
    in the link; a click on a row keeps the samples of that group, a filter per dimension."""
    lock = stories["row_lock"]
    window = lock_window(lock, "14:08", "14:23")
    page.open(_url(server, db=dbs["rac"], view="activity", **window))
    body = _answer(client, page, "/groups")
    assert dict(_asked(page, "/groups")[1])["group_by"] == "sql_id,event"
    assert _cells(page, "ash-groups") == [r["sql_id_label"] for r in body["rows"]][:10]
    assert _cells(page, "ash-groups", 1) == [r["event_label"] for r in body["rows"]][:10]
    assert body["rows"][0]["event"] == lock["event"]
    page.page.locator("#ash-groups-0").select_option("module")
    page.settle()
    page.page.locator("#ash-groups-1").select_option("action")
    page.settle()
    assert page.state()["groups"] == "module,action"
    body = _answer(client, page, "/groups")
    assert body["group_by"] == ["module", "action"] and body["rows"]
    assert _cells(page, "ash-groups") == [r["module_label"] for r in body["rows"]][:10]
    first = body["rows"][0]
    page.page.locator("[data-table=ash-groups] tbody tr").first.click()
    page.settle()
    wanted = {f"module:{first['module']}", f"action:{first['action'] or ''}"}
    assert set(parse_qs(urlsplit(page.page.url).query)["filter"]) == wanted
    assert _answer(client, page)["total_samples"] == first["samples"]
    assert page.error_text() == "" and page.errors == []


def test_the_load_map_draws_each_groups_aas_as_its_area_and_filters_by_a_click(server, client, dbs, stories, page):
    """Issue 31, the Load Map: the ashtop rows of the window drawn as a treemap, by SQL ID with the events inside, each
    leaf's value the group's AAS as the API gives it and its area in proportion; a click on the largest leaf keeps its
    group's samples (both dimensions); its PNG says what it shows."""
    lock = stories["row_lock"]
    window = lock_window(lock, "14:08", "14:23")
    page.open(_url(server, db=dbs["rac"], view="activity", **window))
    body = _answer(client, page, "/groups")
    card = page.page.locator("[data-chart=ash-loadmap]")
    assert card.get_attribute("data-state") == "ready"
    leaves = page.page.evaluate(
        """() => {
          const c = Chart.getChart(document.querySelector('[data-chart=ash-loadmap] canvas'));
          return c.getDatasetMeta(0).data.map((e, i) => ({raw: c.data.datasets[0].data[i], w: e.width, h: e.height}))
            .filter(x => x.raw.l === 1).map(x => ({g: x.raw.g, v: x.raw.v, area: x.w * x.h,
              sql: x.raw._data.children[0].sql_id, event: x.raw._data.children[0].event}));
        }"""
    )
    expected = {(r["sql_id"], r["event"]): r["aas"] for r in body["rows"]}
    assert {(x["sql"], x["event"]): x["v"] for x in leaves} == expected
    big = max(leaves, key=lambda x: x["v"])
    assert (big["sql"], big["event"]) == (body["rows"][0]["sql_id"], body["rows"][0]["event"])
    tops = page.page.evaluate(
        """() => {
          const c = Chart.getChart(document.querySelector('[data-chart=ash-loadmap] canvas'));
          return c.getDatasetMeta(0).data.map((e, i) => ({raw: c.data.datasets[0].data[i], area: e.width * e.height}))
            .filter(x => x.raw.l === 0).map(x => ({g: x.raw.g, v: x.raw.v, area: x.area}));
        }"""
    )
    sums: dict = {}
    for r in body["rows"]:
        sums[r["sql_id_label"]] = sums.get(r["sql_id_label"], 0) + r["aas"]
    assert {x["g"]: x["v"] for x in tops} == pytest.approx(sums)  # each SQL ID's box: its groups' AAS together
    first = max(tops, key=lambda x: x["v"])
    for x in [x for x in tops if x["v"] >= first["v"] / 20]:  # areas in proportion (a pixel of spacing aside)
        assert x["area"] / first["area"] == pytest.approx(x["v"] / first["v"], rel=0.1), x
    with page.page.expect_download() as info:
        card.locator("button[data-act=png]").click()
    _, texts = _png(Path(info.value.path()).read_bytes())
    assert texts["Title"] == "Load Map: average active sessions by SQL ID · event"
    box = page.page.evaluate(
        """() => {
          const c = Chart.getChart(document.querySelector('[data-chart=ash-loadmap] canvas'));
          const i = c.data.datasets[0].data.findIndex(d => d.l === 1 && d.v === Math.max(
            ...c.data.datasets[0].data.filter(x => x.l === 1).map(x => x.v)));
          const e = c.getDatasetMeta(0).data[i];
          return {x: e.x + e.width / 2, y: e.y + e.height / 2};
        }"""
    )
    # relative to the canvas: Playwright scrolls it into view and waits for it to stand still (viewport coordinates
    # missed when the card lay below the fold or the page above it was still growing)
    card.locator("canvas").click(position=box)
    page.page.wait_for_url(lambda u: "filter=" in u, timeout=20000)
    page.settle()
    assert set(parse_qs(urlsplit(page.page.url).query)["filter"]) == {
        f"sql_id:{big['sql']}",
        f"event:{big['event']}",
    }
    assert page.errors == []


def test_png_and_csv_of_a_filtered_chart(server, client, dbs, stories, page):
    """A filter whose value holds ':' and spaces (an event) survives the link; the chart's CSV holds the API's
    points, and its PNG says which samples it shows."""
    lock = stories["row_lock"]
    page.open(
        _url(
            server,
            db=dbs["rac"],
            view="activity",
            by="session",
            filter=f"event:{lock['event']}",
            **{"from": lock["from"], "to": lock["to"]},
        )
    )
    assert page.state()["filter"] == f"event:{lock['event']}" and ("event", lock["event"]) in _asked(page, "")[1]
    body = _answer(client, page)
    chart = _chart(page)
    _same_points(chart, body)
    with page.page.expect_download() as info:
        page.page.locator("[data-chart=activity] button[data-act=csv]").click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert len(rows) == sum(len(d["points"]) for d in chart["datasets"])
    assert [r["series"] for r in rows][:: len(rows) // len(body["series"])] == _names(body)
    assert {r["unit"] for r in rows} == {"sessions"}
    with page.page.expect_download() as info:
        page.page.locator("[data-chart=activity] button[data-act=png]").click()
    _, texts = _png(Path(info.value.path()).read_bytes())
    assert texts["Title"] == f"Average active sessions by session · event = {lock['event']}"
    assert texts["Description"].split("\n")[-1] == f"Only the samples with event = {lock['event']}"
    assert texts["Source"] == page.page.url
    assert page.errors == []


def test_zoom_refetches_finer_buckets(server, client, dbs, page):
    page.open(_url(server, db=dbs["rac"], view="activity", range="1d"))
    wide = _answer(client, page)
    page.requests.clear()
    _drag(page, "[data-chart=activity]", 0.45, 0.55)  # about 2.4 hours of the day
    page.settle()
    state = page.state()
    assert "range" not in state and state["from"] < state["to"]
    asked = dict(_asked(page, "")[1])
    assert _ms(asked["from"]) <= _ms(state["from"]) and _ms(asked["to"]) >= _ms(state["to"])
    assert _ms(asked["to"]) - _ms(asked["from"]) < 4 * 3600e3  # the window (and a snapshot interval either side)
    narrow = _answer(client, page)
    assert narrow["bucket_seconds"] < wide["bucket_seconds"]
    chart = _chart(page)
    assert (chart["from"], chart["to"]) == (_ms(state["from"]), _ms(state["to"]))
    cpu = chart["datasets"][0]["points"]
    assert cpu[1][0] - cpu[0][0] == narrow["bucket_seconds"] * 1000
    _same_points(chart, narrow)
    width = narrow["bucket_seconds"]
    assert (f"{width} s" if width < 60 else f"{width // 60} min") + " buckets" in page.page.locator(
        "[data-chart=activity] .status"
    ).text_content()
    assert dict(_asked(page, "/top")[1])["from"] == state["from"]  # the lists follow the window
    assert page.errors == []


def test_the_link_round_trip_and_back(server, client, dbs, stories, browser, page):
    reg = stories["plan_regression"]
    page.open(
        _url(
            server,
            db=dbs["rac"],
            view="activity",
            by="event",
            filter=f"sql_id:{reg['sql_id']}",
            begin_snap=reg["begin_snap"],
            end_snap=reg["begin_snap"] + 8,
        )
    )
    original = _chart(page)
    chips = _chips(page)
    page.page.get_by_role("button", name="Copy link").click()
    link = page.page.locator("#link").input_value()
    shared = parse_qs(urlsplit(link).query)
    assert shared["by"] == ["event"] and shared["filter"] == [f"sql_id:{reg['sql_id']}"]
    fresh = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC", locale="en-US")
    try:
        other = Page(fresh).open(link)
        copy = _chart(other)
        assert (copy["title"], copy["from"], copy["to"]) == (original["title"], original["from"], original["to"])
        assert copy["datasets"] == original["datasets"] and original["datasets"]
        assert _chips(other) == chips and other.page.get_by_label("Stack by").input_value() == "event"
        assert other.errors == []
    finally:
        fresh.close()
    # a click and a dimension: each one Back step
    page.page.locator("[data-table=ash-modules] tbody tr").first.click()
    page.settle()
    page.page.get_by_label("Stack by").select_option("module")
    page.settle()
    assert len(_chips(page)) == 2 and page.state()["by"] == "module"
    page.page.go_back()
    page.settle()
    assert page.state()["by"] == "event" and len(_chips(page)) == 2
    page.page.go_back()
    page.settle()
    assert parse_qs(urlsplit(page.page.url).query)["filter"] == [f"sql_id:{reg['sql_id']}"]
    assert _chips(page) == chips and page.page.get_by_label("Stack by").input_value() == "event"
    assert _chart(page)["datasets"] == original["datasets"]
    assert page.errors == []


def test_the_state_keys_survive_the_link_copy_and_back(server, dbs, stories, page):
    """The link's keys of this view, as issue 17's rule test checks every key: kept, carried by Copy link, restored
    by Back after another view."""
    for key, (others, value) in state_examples(dbs, stories).items():
        page.open(_url(server, **others, **{key: value}))
        expected = value if isinstance(value, list) else [value]
        assert parse_qs(urlsplit(page.page.url).query).get(key) == expected, (key, page.page.url)
        page.page.get_by_role("button", name="Copy link").click()
        assert parse_qs(urlsplit(page.page.locator("#link").input_value()).query).get(key) == expected, key
        page.page.evaluate("AWRLens.State.set({view: 'benchmarks'})")
        page.settle()
        page.page.go_back()
        page.settle()
        assert page.page.evaluate("AWRLens.State.get()")[key] == value, key
    assert set(page.page.evaluate("AWRLens.State.KEYS")) >= {"by", "filter", "aas"}
    assert page.errors == []


def test_no_ash_in_old_windows_is_said(server, client, dbs, stories, page):
    """ASH is kept for the demo's last 8 days: an older window says so instead of an empty chart."""
    db = dbs["rac"]
    first = client.get(f"/api/v1/dbs/{db}").get_json()["snapshots"]["from"]
    start = datetime.fromisoformat(first) + timedelta(days=1)
    window = {"from": start.isoformat(), "to": (start + timedelta(hours=12)).isoformat()}
    page.open(_url(server, db=db, view="activity", **window))
    assert _answer(client, page)["total_samples"] == 0
    card = page.page.locator("[data-chart=activity]")
    assert card.get_attribute("data-state") == "empty"
    assert (
        card.locator(".status")
        .text_content()
        .startswith(
            "No Active Session History in this window: AWR keeps its ASH samples for fewer days than its snapshots"
        )
    )
    assert page.error_text() == "" and page.errors == []


def test_the_overview_aas_chart_switches_to_ash(server, client, dbs, page):
    """The overview's AAS from the snapshots (CPU Wait its own band) or, with the ASH button, from the samples; the
    status says which."""
    page.open(_url(server, db=dbs["rac"], view="overview", range="1d"))
    snapshots = _legend(page, "aas")
    assert snapshots[0] == "DB CPU" and "CPU Wait" in snapshots
    status = page.page.locator("[data-chart=aas] .status")
    assert "From the snapshots" in status.text_content()  # the page says which AAS it shows (issue 31)
    button = page.page.locator("[data-chart=aas] button[data-act=ash]")
    assert button.get_attribute("aria-pressed") == "false"
    button.click()
    page.settle()
    assert page.state()["aas"] == "ash"
    assert _chart(page, "aas")["title"] == "Average active sessions by wait class · Active Session History"
    assert "Active Session History" in status.text_content() and "From the snapshots" not in status.text_content()
    body = _answer(client, page)
    assert dict(_asked(page, "")[1])["group_by"] == "wait_class"
    assert _legend(page, "aas") == [*_names(body), "CPU count"]
    _same_points(_chart(page, "aas"), body)
    page.page.locator("[data-chart=aas] button[data-act=ash]").click()
    page.settle()
    assert "aas" not in page.state() and _legend(page, "aas") == snapshots
    page.page.go_back()
    page.settle()
    assert page.state()["aas"] == "ash" and _legend(page, "aas") == [*_names(body), "CPU count"]
    assert page.errors == []


def test_the_samples_without_an_object_are_a_named_row_and_a_filter(server, client, dbs, stories, page):
    """The samples without a CURRENT_OBJ# are the row "no object"; a click keeps exactly them (without=current_obj),
    with a chip that says so, and the link keeps it."""
    reg = stories["plan_regression"]
    page.open(
        _url(server, db=dbs["rac"], view="activity", begin_snap=reg["begin_snap"], end_snap=reg["begin_snap"] + 8)
    )
    top = _answer(client, page, "/top")
    none = next(r for r in top["lists"]["current_obj"] if r["name"] is None)
    assert none["label"] == "no object" and "no object" in _cells(page, "ash-objects")
    page.page.locator("[data-table=ash-objects] tbody tr", has_text="no object").first.click()
    page.settle()
    assert page.state()["filter"] == "current_obj:"
    assert ("without", "current_obj") in _asked(page, "")[1] and ("without", "current_obj") in _asked(page, "/top")[1]
    assert _chips(page) == ["object without a value"]
    assert _answer(client, page)["total_samples"] == none["samples"]
    assert _cells(page, "ash-objects") == ["no object"]
    assert page.errors == []


def _refreshes(page) -> int:
    return int(page.page.locator(".live-status").get_attribute("data-refreshes") or 0)


def test_the_live_view_refreshes_pauses_and_pins_its_window(server, client, dbs, stories, page):
    """Issue 31, now: Live shows the live buffer's last 15 minutes (the chart, lists, ashtop and chains asked with
    ash=live over the window the chart's answer resolved), asks again every 15 s, not while paused; Copy link pins the
    window shown, and the pinned link over the live row lock opens the same window with 1801's chain."""
    rac = dbs["rac"]
    page.open(_url(server, db=rac, view="activity", range="1d"))
    page.page.locator("#ash-live").click()
    page.settle()
    assert page.state()["live"] == "15"
    page.page.wait_for_function("document.querySelector('.live-status').dataset.refreshes === '1'", timeout=20000)
    chart = dict(_asked(page, "")[1])
    assert (chart["ash"], chart["minutes"]) == ("live", "15")
    body = client.get(f"/api/v1/dbs/{rac}/activity", query_string={"ash": "live", "minutes": 15}).get_json()
    top = dict(_asked(page, "/top")[1])
    assert (top["ash"], top["from"], top["to"]) == ("live", body["range"]["from"], body["range"]["to"])
    assert dict(_asked(page, "/chains")[1])["from"] == body["range"]["from"]
    assert _legend(page) == [s["label"] for s in body["series"]]
    page.page.wait_for_function(
        "document.querySelector('.live-status').dataset.refreshes === '2'", timeout=LIVE_SECONDS * 1000 + 8000
    )  # asked again
    page.page.locator("#ash-live-pause").click()
    paused = _refreshes(page)
    page.page.wait_for_timeout(LIVE_SECONDS * 1000 + 3000)
    assert _refreshes(page) == paused and "paused" in page.page.locator(".live-status").text_content()
    page.page.locator("#copy-link").click()  # the page's Copy link pins the live window shown
    pinned = page.page.locator("#link").input_value()
    assert parse_qs(urlsplit(pinned).query)["live"] == [f"{body['range']['from']}/{body['range']['to']}"]
    lock = stories["live"]["row_lock"]
    page.open(_url(server, db=rac, view="activity", range="1d", live=f"{lock['from']}/{lock['to']}"))
    page.page.wait_for_function("document.querySelector('.live-status').dataset.refreshes === '1'", timeout=20000)
    page.settle()
    chains = client.get(
        f"/api/v1/dbs/{rac}/activity/chains", query_string={"ash": "live", "from": lock["from"], "to": lock["to"]}
    ).get_json()
    assert chains["roots"][0]["sid"] == 1801 and _tree_shown(page) == _tree(chains)
    assert "pinned" in page.page.locator(".live-status").text_content()
    assert page.page.locator("#ash-live-pause").count() == 0  # a pinned window is not asked again
    _drag(page, "[data-chart=activity]", 0.3, 0.6)  # a zoom in the live view pins the window zoomed to
    page.page.wait_for_function(
        "document.querySelector('.live-status').dataset.refreshes === '1' && "
        f"!new URL(location.href).searchParams.get('live').startsWith({lock['from']!r})",
        timeout=20000,
    )
    page.settle()
    w0, w1 = page.state()["live"].split("/")
    assert _ms(lock["from"]) < _ms(w0) < _ms(w1) < _ms(lock["to"]), (w0, w1)
    asked = dict(_asked(page, "/top")[1])
    assert (asked["ash"], _ms(asked["from"]), _ms(asked["to"])) == ("live", _ms(w0), _ms(w1))
    assert page.errors == []
