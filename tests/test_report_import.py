"""Report files imported into a reports store (docs/awr-rules.md §35): folders of the demo's hourly reports in each
layout (app/demo/report_files.py) become databases whose Load Profile and top events equal what each report printed,
read from the file here with the layout's own columns (docs/report-formats.md), within Oracle's rounding; a missing
report is an unreported interval that a later import fills; duplicates are kept once, overlaps and malformed files
refused, each named, with the store unchanged; the command and the upload endpoint do the same."""

import hashlib
import io
import re
import zipfile
from datetime import datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from report_files import given_back, snaps

from app import create_app
from app.demo.report_files import awr_report_file, report_folder
from app.errors import ApiError
from app.report_files import files, importer
from app.report_files.importer import ImportRefused, import_files
from app.settings import Settings

HOURS = 6
KEY = "k3y-0f-the-reports-with-some-length"


# -- the printed values, read here from the files by their layout ------------------------------------------------


def printed_number(text: str) -> float | None:
    """A figure as the reports print it: '1,062.5', '.8', '21.8K' (docs/report-formats.md)."""
    text = text.strip().replace(",", "")
    if not text:
        return None
    scale = {"K": 1e3, "M": 1e6, "G": 1e9}.get(text[-1], 1)
    return float(text[:-1] if scale != 1 else text) * scale


def text_load_profile(text: str) -> dict:
    """label -> (per second, per transaction) of a text report's Load Profile: 'label:' then the figures."""
    block = text.split("Load Profile", 1)[1].split("\n\n", 1)[0]
    out = {}
    for line in block.splitlines()[2:]:
        label, sep, figures = line.partition(":")
        if sep and not label.startswith("~"):
            values = figures.split()
            out[label.strip()] = (printed_number(values[0]), printed_number(values[1]) if len(values) > 1 else None)
    return out


class Tables(HTMLParser):
    """The rows of each <table> of an HTML report by its summary attribute."""

    def __init__(self):
        super().__init__()
        self.tables, self.row, self.cell, self.current = {}, None, None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.current = self.tables.setdefault(dict(attrs).get("summary", ""), [])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.row is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.current is not None:
            self.current.append(self.row)


def html_load_profile(text: str) -> dict:
    parser = Tables()
    parser.feed(text)
    rows = next(rows for summary, rows in parser.tables.items() if "load profile" in summary.lower())
    return {r[0].rstrip(":"): (printed_number(r[1]), printed_number(r[2])) for r in rows[1:] if len(r) > 2}


def load_profile_printed(path: Path) -> dict:
    text = path.read_text()
    return html_load_profile(text) if path.suffix == ".html" else text_load_profile(text)


def top_events_printed(text: str) -> dict:
    """event -> seconds of a 19c text report's Top 10 Foreground Events (Total Wait Time (sec))."""
    block = text.split("Top 10 Foreground Events by Total Wait Time", 1)[1].split("\n\n", 1)[0]
    lines = block.splitlines()
    dashes = next(i for i, line in enumerate(lines) if line.startswith("-----"))
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[dashes])]
    out = {}
    for line in lines[dashes + 1 :]:
        cells = [line[a:b].strip() for a, b in spans]
        out[cells[0]] = printed_number(cells[2])
    return out


# -- fixtures ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def day(sql3):
    """Midnight two days before the store's newest ORCL snapshot, database-local."""
    newest = sql3.execute(
        "SELECT max(end_interval_time) FROM dba_hist_snapshot s JOIN dba_hist_database_instance d USING (dbid) "
        "WHERE d.db_name = 'ORCL'"
    ).fetchone()[0]
    return datetime.fromisoformat(newest).replace(hour=0, minute=0, second=0) - timedelta(days=2)


@pytest.fixture(scope="module")
def folder(tmp_path_factory, demo_store, day):
    """The demo's hourly reports of ORCL and RACPROD in each layout, rendered once: layout -> files."""
    root = tmp_path_factory.mktemp("reports")

    def render(layout, db="ORCL", instance=1):
        return report_folder(demo_store[0], root / f"{db}-{layout}", db, instance, day, HOURS, layout)

    return {
        **{layout: render(layout) for layout in ("awr-text-19", "awr-html-19", "awr-text-11.2", "awr-html-11.2")},
        "rac-global": render("awr-global-text-19", "RACPROD", None),
        "rac-2": render("awr-text-19", "RACPROD", 2),
    }


def reports_app(tmp_path, demo_store, **settings):
    path = tmp_path / "reports.sqlite"
    targets = {"demo": {"sqlite": str(demo_store[0])}, "reports": {"reports": str(path)}}
    app = create_app(Settings.from_env({}, targets=targets, answer_cache_mb=0, **settings))
    return app, app.extensions["awrlens"].stores["reports"]


def imported(store, *paths):
    return import_files(store, files.gather(list(paths)))


def state(store) -> str:
    """What the store file holds: its bytes' digest (no file: none)."""
    return hashlib.sha256(store.path.read_bytes()).hexdigest() if store.path.exists() else "none"


def db_id(client, name="ORCL"):
    found = [d for d in client.get("/api/v1/dbs").get_json()["databases"] if d["target"] == "reports"]
    return next(d["id"] for d in found if d["db_name"] == name)


# -- what a report printed, given back ------------------------------------------------------------------------


# 19c's layouts in the edit loop, 11.2's in make test (each about half a second)
@pytest.mark.parametrize(
    "layout",
    [
        "awr-text-19",
        "awr-html-19",
        *(pytest.param(k, marks=pytest.mark.slow) for k in ("awr-text-11.2", "awr-html-11.2")),
    ],
)
def test_each_report_gives_back_its_printed_load_profile(tmp_path, demo_store, folder, layout):
    app, store = reports_app(tmp_path, demo_store)
    outcome = imported(store, folder[layout][0].parent)
    assert len(outcome.imported) == len(folder[layout]) == HOURS
    client = app.test_client()
    db = db_id(client)
    compared = 0
    for path in folder[layout]:
        lo, hi = snaps(path)
        body = client.get(f"/api/v1/dbs/{db}/load-profile", query_string={"begin_snap": lo, "end_snap": hi}).get_json()
        compared += given_back(path, load_profile_printed(path), body)
    assert compared >= HOURS * 12


def test_top_events_are_the_printed_ones(tmp_path, demo_store, folder):
    app, store = reports_app(tmp_path, demo_store)
    imported(store, folder["awr-text-19"][0].parent)
    client = app.test_client()
    db = db_id(client)
    for path in folder["awr-text-19"]:
        lo, hi = snaps(path)
        printed = top_events_printed(path.read_text())
        rows = client.get(f"/api/v1/dbs/{db}/top-events", query_string={"begin_snap": lo, "end_snap": hi}).get_json()
        got = {r["event"]: r["time_s"] for r in rows["rows"]}
        for event, seconds in printed.items():
            # one decimal, or three significant digits with K: half a unit of the last printed digit
            tolerance = 50 if seconds >= 10_000 else 0.05
            assert abs(got[event] - seconds) <= tolerance + 1e-9, (path.name, event, seconds, got[event])
        assert list(got)[: len(printed)] == list(printed)  # in the same order


# -- an honest history --------------------------------------------------------------------------------------------


def test_a_missing_report_is_unreported_until_it_comes(tmp_path, demo_store, folder):
    files_ = folder["awr-text-19"]
    gone = files_[2]
    app, store = reports_app(tmp_path, demo_store)
    imported(store, *[f for f in files_ if f != gone])
    client = app.test_client()
    db = db_id(client)
    first, last = snaps(files_[0])[0], snaps(files_[-1])[1]
    lo, hi = snaps(gone)
    series = client.get(
        f"/api/v1/dbs/{db}/series", query_string={"name": "sysstat:redo size", "begin_snap": first, "end_snap": last}
    ).get_json()
    ends = {snaps(f)[1] for f in files_ if f != gone}
    assert len(series["series"][0]["points"]) == len(ends)  # a point per report, none for the missing one
    (gap,) = series["markers"]["missing"]
    assert (gap["after_snap_id"], gap["before_snap_id"]) == (lo, hi)
    whole = client.get(
        f"/api/v1/dbs/{db}/load-profile", query_string={"begin_snap": first, "end_snap": last}
    ).get_json()
    assert [(x["after_snap_id"], x["before_snap_id"], x["reason"]) for x in whole["left_out"]] == [
        (lo, hi, "unreported")
    ]
    redo = {r["metric"]: r for r in whole["rows"]}["Redo size (bytes)"]["total"]
    assert redo == sum(instance_stat(f, "redo size") for f in files_ if f != gone)  # the printed totals, summed

    # its answers are never kept as a closed range's (a report may fill a gap at any time): AWRLENS_SNAPSHOT_TTL's
    before = client.get(f"/api/v1/dbs/{db}/load-profile", query_string={"begin_snap": first, "end_snap": lo})
    assert before.headers["Cache-Control"].endswith(f"max-age={int(Settings().snapshot_ttl)}")
    imported(store, gone)  # the report that was missing joins the runs on either side
    series = client.get(
        f"/api/v1/dbs/{db}/series", query_string={"name": "sysstat:redo size", "begin_snap": first, "end_snap": last}
    ).get_json()
    assert series["markers"]["missing"] == []
    assert len(series["series"][0]["points"]) == HOURS
    whole = client.get(
        f"/api/v1/dbs/{db}/load-profile", query_string={"begin_snap": first, "end_snap": last}
    ).get_json()
    assert whole["left_out"] == []
    assert {r["metric"]: r for r in whole["rows"]}["Redo size (bytes)"]["total"] == sum(
        instance_stat(f, "redo size") for f in files_
    )


def instance_stat(path: Path, name: str) -> float:
    """A statistic's Total in a text report's Instance Activity Stats."""
    block = path.read_text().split("Instance Activity Stats ", 1)[1]
    line = next(line for line in block.splitlines() if line.startswith(name + "  "))
    return printed_number(line[len(name) :].split()[0])


def test_the_offset_given_at_import_places_the_printed_times(tmp_path, demo_store, folder):
    app, store = reports_app(tmp_path, demo_store)
    first = folder["awr-text-19"][0]
    printed = re.search(r"Begin Snap:\s+\d+ (\S+ \S+)", first.read_text())[1]  # e.g. 18-Nov-26 00:00:00
    local = datetime.strptime(printed, "%d-%b-%y %H:%M:%S")
    import_files(store, files.gather([first.parent]), offset=importer.utc_offset("+05:30"))
    summary = next(d for d in app.test_client().get("/api/v1/dbs").get_json()["databases"] if d["target"] == "reports")
    assert summary["snapshots"]["from"] == local.isoformat() + "+05:30"
    with pytest.raises(ApiError, match="utc_offset must be an offset from UTC"):
        importer.utc_offset("+5")


def test_a_report_of_another_dbid_makes_its_own_database(tmp_path, demo_store, folder):
    app, store = reports_app(tmp_path, demo_store)
    imported(store, folder["awr-text-19"][0].parent, folder["rac-2"][0].parent)
    dbs = [d for d in app.test_client().get("/api/v1/dbs").get_json()["databases"] if d["target"] == "reports"]
    assert sorted((d["db_name"], [i["instance_number"] for i in d["instances"]]) for d in dbs) == [
        ("ORCL", [1]),
        ("RACPROD", [2]),
    ]
    assert all(d["imported"] == "report files" and d["source"] == "awr" for d in dbs)


def test_a_global_report_gives_each_instance_its_time_model(tmp_path, demo_store, folder, sql3):
    app, store = reports_app(tmp_path, demo_store)
    imported(store, folder["rac-global"][0].parent)
    client = app.test_client()
    db = db_id(client, "RACPROD")
    dbid = int(db.split(".")[1])
    for path in folder["rac-global"][:2]:
        lo, hi = snaps(path)
        for inst in (1, 2):
            body = client.get(
                f"/api/v1/dbs/{db}/load-profile", query_string={"begin_snap": lo, "end_snap": hi, "instance": inst}
            ).get_json()
            got = {r["metric"]: r["total"] for r in body["rows"]}["DB Time(s)"]
            want = sql3.execute(
                "SELECT sum(CASE snap_id WHEN ? THEN value ELSE -value END) / 1e6 FROM dba_hist_sys_time_model "
                "WHERE dbid = ? AND instance_number = ? AND snap_id IN (?, ?) AND stat_name = 'DB time'",
                (hi, dbid, inst, lo, hi),
            ).fetchone()[0]
            assert abs(got - want) <= 0.05 + 1e-9, (path.name, inst, got, want)  # printed to a tenth of a second


def test_the_files_are_oracles_reports_and_what_they_lack_is_said(tmp_path, demo_store, folder):
    app, store = reports_app(tmp_path, demo_store)
    imported(store, folder["awr-html-19"][0].parent)
    client = app.test_client()
    db = db_id(client)
    stored = client.get(f"/api/v1/dbs/{db}/awr-report/stored").get_json()["reports"]
    assert sorted((r["begin_snap"], r["end_snap"], r["types"]) for r in stored) == sorted(
        (*snaps(p), ["html"]) for p in folder["awr-html-19"]
    )
    path = folder["awr-html-19"][1]
    lo, hi = snaps(path)
    served = client.get(f"/api/v1/dbs/{db}/awr-report", query_string={"begin_snap": lo, "end_snap": hi, "instance": 1})
    assert served.status_code == 200 and served.get_data(as_text=True) == path.read_text()  # the file as it came
    for question, lacks in (("/activity", "Active Session History"), ("/tablespaces", "tablespace usage")):
        r = client.get(f"/api/v1/dbs/{db}{question}", query_string={"begin_snap": lo, "end_snap": hi})
        assert r.status_code == 404, (question, r.get_json())
        err = r.get_json()["error"]
        assert err["code"] == "not_in_source" and lacks in err["message"] and "report files" in err["message"]


# -- kept once, refused, nothing half-written ---------------------------------------------------------------------


def test_the_same_report_twice_is_kept_once(tmp_path, demo_store, folder):
    _app, store = reports_app(tmp_path, demo_store)
    text, html = folder["awr-text-19"][0], folder["awr-html-19"][0]
    first = imported(store, text)
    assert len(first.imported) == 1
    before = state(store)
    again = imported(store, text, html)
    assert again.imported == []
    assert any(text.name in m and "same file" in m for m in again.kept_once)
    assert any(html.name in m and text.name in m and "same interval" in m for m in again.kept_once)
    assert state(store) == before


def test_an_overlapping_report_is_refused_naming_both(tmp_path, demo_store, folder, sql3):
    _app, store = reports_app(tmp_path, demo_store)
    imported(store, *folder["awr-text-19"][:2])
    before = state(store)
    lo, _ = snaps(folder["awr-text-19"][0])
    _, hi = snaps(folder["awr-text-19"][1])
    dbid = sql3.execute("SELECT dbid FROM dba_hist_database_instance WHERE db_name = 'ORCL'").fetchone()[0]
    wide = tmp_path / f"awrrpt_1_{lo}_{hi}.txt"
    wide.write_text(awr_report_file(sql3, dbid, 1, lo, hi, "awr-text-19"))
    with pytest.raises(ImportRefused) as refused:
        imported(store, wide, folder["awr-text-19"][2])
    (problem,) = refused.value.problems
    assert wide.name in problem and "overlaps" in problem and folder["awr-text-19"][0].name in problem
    assert state(store) == before


def _malformed(tmp_path, folder) -> dict:
    good_text = folder["awr-text-19"][0].read_text()
    good_html = folder["awr-html-19"][0].read_text()
    other = folder["rac-2"][0].read_text()
    cases = {
        "truncated.txt": good_text[: len(good_text) // 2],
        "truncated.html": good_html[: len(good_html) // 2],
        "wrong.txt": "Hello, this is the quarterly revenue sheet.\n" * 20,
        "picture.html": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
        "no_load_profile.txt": re.sub(r"\nLoad Profile.*?\n\n", "\n", good_text, count=1, flags=re.S),
        "two_dbids.txt": good_text + "\n" + other,
    }
    paths = {}
    for name, content in cases.items():
        path = tmp_path / "bad" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        paths[name] = path
    huge = tmp_path / "bad" / "huge.txt"
    with huge.open("wb") as f:  # sparse: 200 MB without writing them
        f.truncate(200 * 1024 * 1024)
    paths["huge.txt"] = huge
    bomb = tmp_path / "bad" / "bomb.zip"
    with (
        zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z,
        z.open("awrrpt_1_1_2.txt", "w", force_zip64=True) as member,
    ):
        for _ in range(40):
            member.write(b"\0" * (1024 * 1024))
    paths["bomb.zip"] = bomb
    return paths


@pytest.mark.parametrize(
    "name, reason",
    [
        ("truncated.txt", "cut short"),
        ("truncated.html", "cut short"),
        ("wrong.txt", "not an AWR"),
        ("picture.html", "not a report"),
        ("no_load_profile.txt", "Load Profile"),
        ("two_dbids.txt", "reports"),
        ("huge.txt", "MB"),
        ("bomb.zip", "zip bomb"),
    ],
)
def test_a_malformed_file_refuses_the_batch_naming_it(tmp_path, demo_store, folder, name, reason):
    _app, store = reports_app(tmp_path, demo_store)
    imported(store, folder["awr-text-19"][0])
    before = state(store)
    bad = _malformed(tmp_path, folder)[name]
    with pytest.raises(ImportRefused) as refused:
        imported(store, *folder["awr-text-19"][1:3], bad)
    (problem,) = refused.value.problems
    assert bad.name in problem and reason in problem, problem
    assert state(store) == before
    assert len(store.report_files()) == 1


# -- the command and the endpoint ---------------------------------------------------------------------------------


def test_the_command_imports_with_a_progress_bar_or_refuses(tmp_path, demo_store, folder):
    app, store = reports_app(tmp_path, demo_store)
    runner = CliRunner()
    env = {"AWRLENS_REPORTS_PATH": str(store.path)}
    folder_path = str(folder["awr-text-19"][0].parent)
    done = runner.invoke(app.cli, ["reports", "import", folder_path], env=env, catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert f"Reading {HOURS} files" in done.output and f"Imported {HOURS} report(s)" in done.output
    listed = runner.invoke(app.cli, ["reports", "list"], env=env)
    assert listed.output.count("awrrpt_1_") == HOURS
    bad = tmp_path / "notes.txt"
    bad.write_text("not a report\n")
    before = state(store)
    refused = runner.invoke(app.cli, ["reports", "import", str(bad), str(folder["awr-html-19"][0])], env=env)
    assert refused.exit_code == 1
    assert "refused: " in refused.output and "notes.txt" in refused.output and "nothing was imported" in refused.output
    assert state(store) == before


def _zip_of(paths) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for p in paths:
            z.write(p, p.name)
    return out.getvalue()


def test_the_upload_needs_the_key_and_imports_all_or_nothing(tmp_path, demo_store, folder, monkeypatch):
    monkeypatch.setenv("AWRLENS_TEST_REPORTS_KEY", KEY)
    app, store = reports_app(tmp_path, demo_store, api_key_secret="env:AWRLENS_TEST_REPORTS_KEY")
    client = app.test_client()
    reports = folder["awr-text-19"]
    form = {"file": [(io.BytesIO(_zip_of(reports[:3])), "day.zip"), (reports[3].open("rb"), reports[3].name)]}
    assert client.post("/api/v1/reports", data=form).status_code == 401
    refused = client.post(
        "/api/v1/reports",
        data={"file": [(io.BytesIO(b"nothing"), "x.txt"), (reports[4].open("rb"), reports[4].name)]},
        headers={"X-API-Key": KEY},
    )
    assert refused.status_code == 400
    err = refused.get_json()["error"]
    assert err["code"] == "reports_refused" and any("x.txt" in p for p in err["problems"])
    assert store.report_files() == []
    form = {"file": [(io.BytesIO(_zip_of(reports[:3])), "day.zip"), (reports[3].open("rb"), reports[3].name)]}
    done = client.post("/api/v1/reports", data=form, headers={"X-API-Key": KEY})
    assert done.status_code == 201, done.get_json()
    body = done.get_json()
    assert sorted(f["file"] for f in body["imported"]) == sorted(
        [f"day.zip/{p.name}" for p in reports[:3]] + [reports[3].name]
    )
    (db,) = body["databases"]
    dbs = client.get("/api/v1/dbs", headers={"X-API-Key": KEY}).get_json()["databases"]
    assert db["id"] in [d["id"] for d in dbs]
    again = client.post(
        "/api/v1/reports", data={"file": [(reports[0].open("rb"), reports[0].name)]}, headers={"X-API-Key": KEY}
    )
    assert again.status_code == 200 and again.get_json()["imported"] == []
    big = client.post(
        "/api/v1/reports",
        data={"file": [(io.BytesIO(b"x" * (11 * 1024 * 1024)), "big.txt")]},
        headers={"X-API-Key": KEY},
    )
    assert big.status_code == 413


def test_without_a_key_configured_the_api_imports_nothing(tmp_path, demo_store, folder):
    app, store = reports_app(tmp_path, demo_store)
    r = app.test_client().post(
        "/api/v1/reports", data={"file": [(folder["awr-text-19"][0].open("rb"), folder["awr-text-19"][0].name)]}
    )
    assert r.status_code == 403 and "flask --app app reports import" in r.get_json()["error"]["message"]
    assert not store.path.exists() or store.report_files() == []


def test_a_reports_store_never_imported_lists_no_database(tmp_path, demo_store):
    app, store = reports_app(tmp_path, demo_store)
    body = app.test_client().get("/api/v1/dbs").get_json()
    assert [d for d in body["databases"] if d["target"] == "reports"] == []
    assert "reports" not in (body.get("errors") or {})
    assert not store.path.exists()  # reading makes no file: the first import does
