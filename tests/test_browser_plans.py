"""The SQL detail's plans, plan diff and binds in real headless Chromium (the browser, server and page helpers of
test_browser.py): the regression's plans as indented plan tables with the time by line beside them, the two plans
side by side with the full scan line marked, the captured binds, the chosen plans in the link, and markup in
predicates and bind values inert (on a copy of the store where they hold some). Every expectation comes from the
API's answer (asked through the app's test client on the same store) or from the store."""

import csv
import sqlite3
from urllib.parse import urlencode

import pytest
from conftest import gunicorn
from test_browser import _url

pytestmark = [pytest.mark.browser, pytest.mark.wire, pytest.mark.slow]

IMG = '<img src=x onerror="window.__xss=(window.__xss||0)+1">'
CELL = "</td></tr><b>x</b>"


def state_examples(dbs, stories):
    """The keys of the link this view adds, as test_browser.py's _state_examples takes them."""
    reg, rac = stories["plan_regression"], dbs["rac"]
    sql = {"db": rac, "view": "sql", "range": "7d", "sql": reg["sql_id"]}
    return {
        "plan": (sql, str(reg["bad_plan"])),
        "plan_b": ({**sql, "plan": str(reg["good_plan"])}, str(reg["bad_plan"])),
    }


def _rows(pg, table_id):
    """The text of every cell of a table's rows, and each row's data-mark."""
    return pg.page.locator(f"[data-table='{table_id}'] tbody tr").evaluate_all(
        "trs => trs.map(tr => [Array.from(tr.cells).map(td => td.textContent), tr.getAttribute('data-mark')])"
    )


def _api(client, path, **query):
    r = client.get(path, query_string=query)
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


def _asked(pg, part):
    urls = [u for u in pg.requests if part in u]
    assert urls, pg.requests
    return urls[-1]


def _sql_url(server, dbs, stories, **extra):
    reg = stories["plan_regression"]
    return _url(
        server,
        db=dbs["rac"],
        view="sql",
        sql=reg["sql_id"],
        begin_snap=reg["begin_snap"],
        end_snap=reg["begin_snap"] + 12,
        **extra,
    )


def test_the_plan_view_shows_the_indented_plan_and_the_time_by_line(server, client, dbs, stories, page):
    """Opened without a choice it shows the plan with the most samples in the window: in the regression's first
    hours, the bad plan, its full scan line holding most of the time."""
    reg = stories["plan_regression"]
    page.open(_sql_url(server, dbs, stories))
    body = _api(
        client,
        f"/api/v1/dbs/{dbs['rac']}/sql/{reg['sql_id']}/plans",
        begin_snap=reg["begin_snap"],
        end_snap=reg["begin_snap"] + 12,
    )
    bad = next(p for p in body["plans"] if p["plan_hash_value"] == reg["bad_plan"])
    assert bad["samples"] == max(p["samples"] for p in body["plans"])
    rows = _rows(page, "plan-lines")
    assert [r[0][0] for r in rows] == [str(line["id"]) for line in bad["lines"]]
    for (cells, mark), line in zip(rows, bad["lines"], strict=True):
        # the operation indented two no-break spaces per depth, its options after it
        assert cells[1] == "\u00a0\u00a0" * line["depth"] + " ".join(filter(None, (line["operation"], line["options"])))
        assert cells[2] == (f"{line['object_owner']}.{line['object_name']}" if line["object_name"] else "")
        assert cells[10] == (line["access_predicates"] or "") and cells[11] == (line["filter_predicates"] or "")
        assert cells[3].replace(",", "") == str(line["samples"])  # the time by line beside the line
        assert mark == ("sampled" if line["samples"] else None)
    # a click on a column's header keeps the tree's order (issue 34: a sort would scramble the plan)
    page.page.locator("[data-table=plan-lines] thead th", has_text="ASH samples").click()
    page.settle()
    assert [r[0][0] for r in _rows(page, "plan-lines")] == [str(line["id"]) for line in bad["lines"]]
    top = max(zip(rows, bad["lines"], strict=True), key=lambda pair: pair[1]["samples"])
    assert top[0][0][1].strip() == "TABLE ACCESS FULL" and top[0][0][2] == "APP.ORDER_LINES"
    assert page.page.locator("#plan-pick").input_value() == str(reg["bad_plan"])
    options = page.page.locator("#plan-pick option").all_text_contents()
    assert options == [str(p["plan_hash_value"]) for p in body["plans"]]
    assert page.errors == []


def test_the_plan_prints_as_dbms_xplan_and_copies(server, client, dbs, stories, page, screenshot):
    """Beside the plan table, the plan shown as DBMS_XPLAN.DISPLAY_AWR prints it (the API's text, §34), following the
    plan picked; Copy puts that text on the clipboard."""
    reg = stories["plan_regression"]
    page.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.open(_sql_url(server, dbs, stories))
    base = f"/api/v1/dbs/{dbs['rac']}/sql/{reg['sql_id']}/plans/xplan"
    for plan in (reg["bad_plan"], reg["good_plan"]):  # the busiest first, then the one picked
        if plan == reg["good_plan"]:
            page.page.locator("#plan-pick").select_option(str(plan))
            page.settle()
        text = _api(client, base, plan_hash_value=plan)["text"]
        assert f"Plan hash value: {plan}" in text
        assert page.page.locator("#plan-xplan").text_content() == text
    shot = screenshot("xplan.png")  # docs/viewer.md's picture of the plan as DBMS_XPLAN prints it
    page.page.locator("section[aria-labelledby=h-plan-xplan]").screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    page.page.locator("#plan-xplan-copy").click()
    page.page.wait_for_function("document.getElementById('plan-xplan-copy').textContent === 'Copied'")
    assert page.page.evaluate("navigator.clipboard.readText()") == text
    assert page.errors == []


def test_the_diff_of_the_regression_marks_the_full_scan(server, client, dbs, stories, page):
    """Picking the good plan and comparing it with the bad one: a table of both plans line by line, the full scan
    marked changed where the good plan had its index range scan; the choice in the link, and back after Back."""
    reg = stories["plan_regression"]
    page.open(_sql_url(server, dbs, stories))
    page.page.locator("#plan-pick").select_option(str(reg["good_plan"]))
    page.settle()
    assert page.state()["plan"] == str(reg["good_plan"])
    page.page.locator("#plan-pick-b").select_option(str(reg["bad_plan"]))
    page.settle()
    assert page.state()["plan_b"] == str(reg["bad_plan"])
    asked = _asked(page, "/plans/diff")
    assert f"a={reg['good_plan']}" in asked and f"b={reg['bad_plan']}" in asked
    diff = _api(
        client, f"/api/v1/dbs/{dbs['rac']}/sql/{reg['sql_id']}/plans/diff", a=reg["good_plan"], b=reg["bad_plan"]
    )
    rows = _rows(page, "plan-diff")
    assert [mark for _, mark in rows] == [r["change"] for r in diff["rows"]]
    full = next(cells for cells, mark in rows if "TABLE ACCESS FULL" in cells[8])
    assert full[0] == "changed" and full[3] == "APP.ORDER_LINES_ORDER_IX" and full[9] == "APP.ORDER_LINES"
    # both plans named in the title, and both plans' predicates beside their lines (issue 34)
    title = page.page.locator("[data-table=plan-diff] h3").text_content()
    assert title == f"Plan {reg['good_plan']} (A) and plan {reg['bad_plan']} (B), line by line"
    for cells, r in zip((c for c, _ in rows), diff["rows"], strict=True):
        for side, at in (("a", 5), ("b", 11)):
            line = r[side] or {}
            assert cells[at] == (line.get("access_predicates") or "")
            assert cells[at + 1] == (line.get("filter_predicates") or "")
    marked = page.page.locator("[data-table=plan-diff] tr[data-mark=changed]", has_text="TABLE ACCESS FULL")
    color = marked.locator("td").first.evaluate("td => getComputedStyle(td).backgroundColor")
    plain = page.page.locator("[data-table=plan-diff] tr[data-mark=same] td").first.evaluate(
        "td => getComputedStyle(td).backgroundColor"
    )
    assert color != plain  # a changed line looks different from a line both plans share
    wrap = page.page.locator("[data-table=plan-diff] tbody td.wrap").first  # long predicates wrap, anywhere
    assert wrap.evaluate("td => getComputedStyle(td).overflowWrap") == "anywhere"
    # the plan table shows plan A, the good one: no full scan in it
    assert not any("FULL" in cells[1] for cells, _ in _rows(page, "plan-lines"))
    # the link opens the same comparison
    link = page.page.url
    page.page.evaluate("AWRLens.State.set({view: 'overview'})")
    page.settle()
    page.page.go_back()
    page.settle()
    assert page.page.url == link and [m for _, m in _rows(page, "plan-diff")] == [r["change"] for r in diff["rows"]]
    assert page.errors == []


def test_the_diff_and_binds_export_csv(server, client, dbs, stories, page, tmp_path):
    reg = stories["plan_regression"]
    page.open(_sql_url(server, dbs, stories, plan=reg["good_plan"], plan_b=reg["bad_plan"]))
    with page.page.expect_download() as done:
        page.page.locator("[data-table=plan-diff] button", has_text="CSV").click()
    path = tmp_path / "diff.csv"
    done.value.save_as(path)
    table = list(csv.reader(path.open(encoding="utf-8-sig")))
    assert table[0][0] == "Change" and any(r[0] == "changed" and "TABLE ACCESS FULL" in r[8] for r in table[1:])
    assert page.errors == []


def test_the_binds_table_lists_the_captured_values(server, client, dbs, stories, page):
    reg = stories["plan_regression"]
    last = next(d for d in _api(client, "/api/v1/dbs")["databases"] if d["id"] == dbs["rac"])["snapshots"]["last_snap"]
    page.open(_url(server, db=dbs["rac"], view="sql", sql=reg["sql_id"], begin_snap=last - 2, end_snap=last))
    body = _api(client, f"/api/v1/dbs/{dbs['rac']}/sql/{reg['sql_id']}/binds", begin_snap=last - 2, end_snap=last)
    assert 0 < len(body["rows"]) <= 10  # one page of the table
    shown = [cells for cells, _ in _rows(page, "sql-binds")]
    assert [(c[2], c[3], c[4], c[5]) for c in shown] == [
        (str(r["position"]), r["name"], r["datatype"], r["value"]) for r in body["rows"]
    ]
    assert page.errors == []


# -- markup in predicates and bind values -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_plans(demo_store, stories, tmp_path_factory):
    """A copy of the store where the regression's bad plan has markup in its predicates and object name, and its
    binds in their names and values."""
    reg = stories["plan_regression"]
    path = tmp_path_factory.mktemp("hostile-plans") / "store.sqlite"
    con, source = sqlite3.connect(path), sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    source.backup(con)
    source.close()
    with con:
        assert (
            con.execute(
                "UPDATE dba_hist_sql_plan SET access_predicates = ?, filter_predicates = ?, "
                "object_name = ? WHERE sql_id = ? AND plan_hash_value = ? AND id = 5",
                (IMG, CELL, "<b>LINES</b>", reg["sql_id"], reg["bad_plan"]),
            ).rowcount
            == 1
        )
        assert (
            con.execute(
                "UPDATE dba_hist_sqlbind SET value_string = ?, name = ? WHERE sql_id = ?",
                (IMG + CELL, "<i>:1</i>", reg["sql_id"]),
            ).rowcount
            > 0
        )
    con.close()
    return path


def test_markup_in_predicates_and_bind_values_stays_inert(hostile_plans, stories, dbs, page):
    reg = stories["plan_regression"]
    last_snap = (
        sqlite3.connect(hostile_plans)
        .execute("SELECT max(snap_id) FROM dba_hist_snapshot WHERE dbid = ?", (int(dbs["rac"].split(".")[1]),))
        .fetchone()[0]
    )
    with gunicorn(hostile_plans) as url:
        query = {
            "db": dbs["rac"],
            "view": "sql",
            "sql": reg["sql_id"],
            "plan": reg["good_plan"],
            "plan_b": reg["bad_plan"],
            "begin_snap": last_snap - 4,
            "end_snap": last_snap,
        }
        page.open(f"{url}/?" + urlencode(query))
        diff = [cells for cells, _ in _rows(page, "plan-diff")]
        full = next(c for c in diff if "TABLE ACCESS FULL" in c[8])
        assert full[9] == "APP.<b>LINES</b>" and full[11] == IMG and full[12] == CELL
        binds = [cells for cells, _ in _rows(page, "sql-binds")]
        assert binds and all(c[3] == "<i>:1</i>" and c[5] == IMG + CELL for c in binds)
        page.page.locator("#plan-pick").select_option(str(reg["bad_plan"]))
        page.settle()
        lines = [cells for cells, _ in _rows(page, "plan-lines")]
        assert lines[5][2] == "APP.<b>LINES</b>" and lines[5][10] == IMG and lines[5][11] == CELL
        xplan = page.page.locator("#plan-xplan").text_content()
        assert f"access({IMG})" in xplan and "<b>LINES</b>" in xplan  # the plan's text as text
        assert page.page.evaluate("window.__xss") is None
        assert page.page.locator("#plan-xplan img, #plan-xplan b").count() == 0
        tables = ("plan-lines", "plan-diff", "sql-binds")
        assert (
            page.page.locator(
                ", ".join(f"[data-table={t}] tbody {tag}" for t in tables for tag in ("img", "b", "i"))
            ).count()
            == 0
        )
        assert page.dialogs == [] and page.errors == []
