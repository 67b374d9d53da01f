"""The runs API (/api/v1/benchmarks) end to end through the Flask test client: the demo runs, public and private
with and without the key, CSV (and that a run's CSV imports again), compare, uploads (400 naming the row and field
with nothing stored, 409 and replace, 413 before any write, 401/403, a read-only store), where runs are stored, and
the OpenAPI document.

Reads use the session's demo store (never written here); uploads go to a store of each test's own.
"""

import csv
import io
import json
import sqlite3
import threading
import time

import pytest
from conftest import assert_error

from app import MAX_BODY, create_app
from app.errors import DatabaseTimeout
from app.runs import demo_runs, repo
from app.runs.files import read_csv
from app.runs.model import parse_run
from app.settings import Settings

KEY = "runs-key-with-enough-length-0123"
PUBLIC, PRIVATE = "httpd-freebsd-vs-linux", "async-io-fix-orcl"
DEMO_SLUGS = {
    "cpu-consistency-c4-4xlarge",
    "ebs-5x-gp2-burst",
    "ebs-io1-gp2-io-size-model",
    "client-hang-rds-failover",
    PRIVATE,
    PUBLIC,
}
WITH_KEY = {"X-API-Key": KEY}
RUN = {
    "slug": "lab-run",
    "title": "Lab run",
    "kind": "other",
    "measurements": [
        {"series": "a", "x": 1, "y": 2.5, "unit": "s"},
        {"series": "a", "x": 2, "y": 3.5, "unit": "s"},
        {"series": "b", "x": 1, "y": 4.0, "unit": "s", "extra": {"k": "v"}},
    ],
}


def body(resp, status=200):
    assert resp.status_code == status, resp.get_data(as_text=True)[:500]
    return resp.get_json()


def csv_rows(resp):
    assert resp.status_code == 200 and resp.mimetype == "text/csv", resp.get_data(as_text=True)[:300]
    return list(csv.DictReader(io.StringIO(resp.get_data(as_text=True))))


@pytest.fixture()
def open_api(app):
    """The session app: no key configured, so everything is open (the local demo)."""
    return app.test_client()


@pytest.fixture()
def keyed(demo_store, monkeypatch):
    """The demo store behind a configured key."""
    monkeypatch.setenv("AWRLENS_RUNS_TEST_KEY", KEY)
    return create_app(
        Settings.from_env(
            {}, targets={"demo": {"sqlite": str(demo_store[0])}}, api_key_secret="env:AWRLENS_RUNS_TEST_KEY"
        )
    ).test_client()


@pytest.fixture()
def lab(tmp_path, monkeypatch):
    """An empty store of this test's own, behind a key: (client, path of the file)."""
    monkeypatch.setenv("AWRLENS_RUNS_TEST_KEY", KEY)
    path = tmp_path / "lab.sqlite"
    sqlite3.connect(path).close()
    app = create_app(
        Settings.from_env({}, targets={"lab": {"sqlite": str(path)}}, api_key_secret="env:AWRLENS_RUNS_TEST_KEY")
    )
    return app.test_client(), path


def stored(path):
    con = sqlite3.connect(path)
    try:
        return dict(
            con.execute(
                "select r.slug, (select count(*) from bench_measurement m where m.run_id = r.run_id) from bench_run r"
            )
        )
    except sqlite3.OperationalError:
        return {}
    finally:
        con.close()


# -- the demo runs ----------------------------------------------------------------------------------------------


def test_the_demo_store_holds_the_field_runs(open_api, stories):
    listed = body(open_api.get("/api/v1/benchmarks"))
    assert {r["slug"] for r in listed["rows"]} == DEMO_SLUGS and listed["count"] == 6
    assert listed["columns"][:3] == ["slug", "title", "kind"]
    by_slug = {r["slug"]: r for r in listed["rows"]}
    assert by_slug[PRIVATE]["visibility"] == "private"
    assert {r["kind"] for r in listed["rows"]} == {"cpu_consistency", "io_sweep", "client_hang", "before_after", "ab"}
    fix = stories["async_io_fix"]
    assert by_slug[PRIVATE]["awr_db"] == f"demo.{fix['dbid']}"
    assert by_slug[PRIVATE]["awr_begin_snap"] < fix["first_snap_after"] < by_slug[PRIVATE]["awr_end_snap"]


def test_cpu_run_shows_the_n9_slowdown_on_16_vcpus(open_api):
    got = body(open_api.get("/api/v1/benchmarks/cpu-consistency-c4-4xlarge"))
    assert got["run"]["vcpus"] == 16 and got["run"]["cores"] == 8
    assert "connect by level <= 200" in got["run"]["parameters"]["statement"]
    by_n = {}
    for r in got["rows"]:
        by_n.setdefault(r["x"], []).append(r["y"])
    assert sorted(by_n) == [float(n) for n in range(1, 10)]
    for n in range(1, 9):
        assert all(38 < y < 42 for y in by_n[n]), n
    nine = by_n[9.0]
    repeats = got["run"]["parameters"]["repeats"]
    assert len(nine) == 9 * repeats and sum(y > 55 for y in nine) == 2 * repeats  # two of nine, every repeat
    assert {"session", "repeat"} == set(got["extra_columns"])


def test_the_real_figures_are_there(open_api):
    gp2 = body(open_api.get("/api/v1/benchmarks/ebs-5x-gp2-burst"))["rows"]
    total = {(r["x"], r["unit"]): r["y"] for r in gp2 if r["series"].startswith("5 x gp2")}
    assert total == {(8.0, "IO/s"): 6024, (8.0, "KB/s"): 48214, (1024.0, "IO/s"): 1925, (1024.0, "KB/s"): 245111}
    hang = body(open_api.get("/api/v1/benchmarks/client-hang-rds-failover"))["rows"]
    cells = {(r["series"], r["x"]): r["y"] for r in hang}
    assert cells[("defaults", "new connection")] == 70 and cells[("with the settings", "new connection")] == 10
    assert cells[("with the settings", "new call on a dead connection")] == 13
    assert cells[("with the settings", "call in flight")] == 45
    fix = body(open_api.get(f"/api/v1/benchmarks/{PRIVATE}"))["rows"]
    assert sorted(r["y"] for r in fix if r["x"] == "transactions/s") == [101, 136]
    assert sorted(r["y"] for r in fix if r["x"] == "response time") == [70, 90]
    httpd = body(open_api.get(f"/api/v1/benchmarks/{PUBLIC}"))["rows"]
    assert {(r["series"], r["y"]) for r in httpd if r["x"] == "requests/s"} == {
        ("Oracle Linux 8.4", 8800),
        ("FreeBSD 13.0", 10300),
    }


def test_the_awr_window_of_the_async_io_run_is_a_range_the_history_api_answers(open_api, stories):
    run = body(open_api.get(f"/api/v1/benchmarks/{PRIVATE}"))["run"]
    series = body(
        open_api.get(
            f"/api/v1/dbs/{run['awr_db']}/series",
            query_string={
                "name": "derived:tps",
                "begin_snap": run["awr_begin_snap"],
                "end_snap": run["awr_end_snap"],
                "max_points": 0,
            },
        )
    )
    restart = stories["async_io_fix"]["startup_time"]
    points = [(t, v) for t, v in series["series"][0]["points"] if v is not None]
    before = [v for t, v in points if t < restart]
    after = [v for t, v in points if t > restart]
    assert len(before) > 100 and len(after) > 60  # days before and after the fix
    assert max(before) < 118 < max(after)


def test_demo_runs_are_deterministic(stories):
    assert demo_runs.runs(stories) == demo_runs.runs(stories)


# -- visibility ---------------------------------------------------------------------------------------------------


def test_without_a_key_only_public_runs_are_seen(keyed):
    listed = body(keyed.get("/api/v1/benchmarks"))
    assert {r["slug"] for r in listed["rows"]} == DEMO_SLUGS - {PRIVATE}
    assert body(keyed.get(f"/api/v1/benchmarks/{PUBLIC}"))["run"]["slug"] == PUBLIC
    # a private run answers exactly as an unknown one: nothing tells which private slugs exist
    unknown = "no-such-run-0"
    for query in ({}, {"format": "csv"}):
        private = keyed.get(f"/api/v1/benchmarks/{PRIVATE}", query_string=query)
        missing = keyed.get(f"/api/v1/benchmarks/{unknown}", query_string=query)
        assert_error(private, 404, "slug")
        assert private.get_data(as_text=True).replace(PRIVATE, unknown) == missing.get_data(as_text=True)
        assert dict(private.headers) == {**dict(missing.headers), "Content-Length": private.headers["Content-Length"]}
    assert_error(keyed.get("/api/v1/benchmarks/compare", query_string={"runs": [PUBLIC, PRIVATE]}), 404, "runs")
    # AWR data stays behind the key
    assert_error(keyed.get("/api/v1/dbs"), 401)


def test_with_the_key_private_runs_are_seen(keyed):
    listed = body(keyed.get("/api/v1/benchmarks", headers=WITH_KEY))
    assert {r["slug"] for r in listed["rows"]} == DEMO_SLUGS
    assert body(keyed.get(f"/api/v1/benchmarks/{PRIVATE}", headers=WITH_KEY))["run"]["visibility"] == "private"
    both = body(keyed.get("/api/v1/benchmarks/compare", query_string={"runs": [PUBLIC, PRIVATE]}, headers=WITH_KEY))
    assert [r["slug"] for r in both["runs"]] == [PUBLIC, PRIVATE]


def test_a_wrong_key_is_refused_even_for_public_runs(keyed):
    for path in ("/api/v1/benchmarks", f"/api/v1/benchmarks/{PUBLIC}"):
        err = assert_error(keyed.get(path, headers={"X-API-Key": "wrong"}), 401)
        assert "not valid" in err["message"]


def test_a_private_answer_is_never_served_to_someone_without_the_key(keyed):
    """Benchmark answers depend on the key, so the answer cache must not keep them, and a shared cache must
    revalidate them (no-cache, Vary: X-API-Key)."""
    with_key = keyed.get(f"/api/v1/benchmarks/{PRIVATE}", headers=WITH_KEY)
    assert with_key.status_code == 200
    assert with_key.cache_control.no_cache and not with_key.cache_control.public
    assert "X-API-Key" in with_key.headers["Vary"]
    assert_error(keyed.get(f"/api/v1/benchmarks/{PRIVATE}"), 404)
    full = body(keyed.get("/api/v1/benchmarks", headers=WITH_KEY))
    assert PRIVATE not in {r["slug"] for r in body(keyed.get("/api/v1/benchmarks"))["rows"]}
    assert PRIVATE in {r["slug"] for r in full["rows"]}
    again = keyed.get(
        f"/api/v1/benchmarks/{PUBLIC}",
        headers={"If-None-Match": keyed.get(f"/api/v1/benchmarks/{PUBLIC}").headers["ETag"]},
    )
    assert again.status_code == 304


def test_without_a_configured_key_everything_is_open_but_uploads_are_refused(open_api):
    assert PRIVATE in {r["slug"] for r in body(open_api.get("/api/v1/benchmarks"))["rows"]}
    err = assert_error(open_api.post("/api/v1/benchmarks", json=RUN), 403)
    assert "AWRLENS_API_KEY_SECRET" in err["message"] and "runs import" in err["message"]


# -- CSV and compare -------------------------------------------------------------------------------------------


def test_csv_of_the_list_a_run_and_a_comparison(open_api):
    listed = csv_rows(open_api.get("/api/v1/benchmarks", query_string={"format": "csv"}))
    assert {r["slug"] for r in listed} == DEMO_SLUGS
    run = body(open_api.get("/api/v1/benchmarks/cpu-consistency-c4-4xlarge"))
    rows = csv_rows(open_api.get("/api/v1/benchmarks/cpu-consistency-c4-4xlarge", query_string={"format": "csv"}))
    assert len(rows) == len(run["rows"]) and list(rows[0]) == ["seq", "series", "x", "y", "unit", "session", "repeat"]
    assert [float(r["y"]) for r in rows] == [r["y"] for r in run["rows"]]
    compared = csv_rows(
        open_api.get(
            "/api/v1/benchmarks/compare",
            query_string={"runs": ["ebs-5x-gp2-burst", "ebs-io1-gp2-io-size-model"], "format": "csv"},
        )
    )
    assert {r["run"] for r in compared} == {"ebs-5x-gp2-burst", "ebs-io1-gp2-io-size-model"}
    assert list(compared[0])[:6] == ["run", "seq", "series", "x", "y", "unit"]


def test_a_runs_csv_imports_again_as_the_same_measurements(open_api):
    original = body(open_api.get(f"/api/v1/benchmarks/{PUBLIC}"))
    text = open_api.get(f"/api/v1/benchmarks/{PUBLIC}", query_string={"format": "csv"}).get_data(as_text=True)
    document, _ = read_csv(text)
    assert [(m["series"], m["x"], m["y"], m.get("unit")) for m in document["measurements"]] == [
        (r["series"], r["x"], r["y"], r["unit"]) for r in original["rows"]
    ]


def test_compare_runs_in_the_order_given(open_api):
    got = body(open_api.get("/api/v1/benchmarks/compare", query_string={"runs": [PUBLIC, "ebs-5x-gp2-burst", PUBLIC]}))
    assert [r["slug"] for r in got["runs"]] == [PUBLIC, "ebs-5x-gp2-burst"]
    assert got["columns"][0] == "run" and {r["run"] for r in got["rows"]} == {PUBLIC, "ebs-5x-gp2-burst"}


@pytest.mark.parametrize(
    "path, query, status, parameter",
    [
        ("/api/v1/benchmarks/compare", {}, 400, "runs"),
        ("/api/v1/benchmarks/compare", {"runs": [f"r{i}" for i in range(9)]}, 400, "runs"),
        ("/api/v1/benchmarks/compare", {"runs": [PUBLIC, "no-such-run"]}, 404, "runs"),
        ("/api/v1/benchmarks/compare", {"runs": "Bad Slug"}, 400, "runs"),
        ("/api/v1/benchmarks/no-such-run", {}, 404, "slug"),
        ("/api/v1/benchmarks/" + "x" * 81, {}, 400, "slug"),
        ("/api/v1/benchmarks/UPPER", {}, 400, "slug"),
        ("/api/v1/benchmarks", {"kind": "speed"}, 400, "kind"),
        ("/api/v1/benchmarks", {"format": "xml"}, 400, "format"),
        ("/api/v1/benchmarks", {"frm": "x"}, 400, "frm"),
    ],
)
def test_errors_have_the_one_shape(open_api, path, query, status, parameter):
    assert_error(open_api.get(path, query_string=query), status, parameter)


def test_kind_filter(open_api):
    got = body(open_api.get("/api/v1/benchmarks", query_string={"kind": "io_sweep"}))
    assert {r["slug"] for r in got["rows"]} == {"ebs-5x-gp2-burst", "ebs-io1-gp2-io-size-model"}


# -- uploads ------------------------------------------------------------------------------------------------------


def test_upload_then_read_back(lab):
    client, path = lab
    resp = client.post("/api/v1/benchmarks", json=RUN, headers=WITH_KEY)
    saved = body(resp, 201)
    assert saved["slug"] == "lab-run" and saved["measurements"] == 3 and saved["replaced"] is False
    assert resp.headers["Location"] == "/api/v1/benchmarks/lab-run"
    got = body(client.get(saved["url"]))
    assert [(r["series"], r["x"], r["y"]) for r in got["rows"]] == [("a", 1.0, 2.5), ("a", 2.0, 3.5), ("b", 1.0, 4.0)]
    assert got["rows"][2]["extra"] == {"k": "v"} and stored(path) == {"lab-run": 3}


def _nested(levels: int) -> str:
    """JSON text of an object nesting objects and lists at least `levels` deep (built as text: the standard
    library's encoder would recurse past Python's limit)."""
    wraps = levels // 2  # each {"a": [...]} is two levels
    return '{"deep": ' + '{"a": [' * wraps + "1" + "]}" * wraps + "}"


@pytest.mark.parametrize(
    "where, levels, parameter",
    [
        ("parameters", 33, "parameters"),
        ("parameters", 300, "parameters"),
        ("parameters", 1000, "parameters"),
        ("extra", 40, "measurements[2].extra"),
        ("extra", 900, "measurements[2].extra"),
    ],
)  # rows count from 1
def test_what_could_not_be_read_back_is_refused_at_the_door(lab, where, levels, parameter):
    """Nesting that orjson cannot write back (254 levels) or the standard library cannot even dump (about 1,000)
    answered 500 for ever after, or at upload: refused with a 400 naming the field, nothing stored."""
    client, path = lab
    doc = json.loads(json.dumps(RUN))
    if where == "parameters":
        doc["parameters"] = "DEEP"
    else:
        doc["measurements"][1]["extra"] = "DEEP"
    text = json.dumps(doc).replace('"DEEP"', _nested(levels))
    err = assert_error(
        client.post("/api/v1/benchmarks", data=text.encode(), content_type="application/json", headers=WITH_KEY),
        400,
        parameter,
    )
    assert "levels deep" in err["message"] and stored(path) == {}


def test_the_deepest_accepted_upload_reads_back(lab):
    client, _path = lab
    doc = {**RUN, "parameters": json.loads(_nested(31))}  # 31 levels: the object and 15 of {"a": [...]}
    body(client.post("/api/v1/benchmarks", json=doc, headers=WITH_KEY), 201)
    assert body(client.get("/api/v1/benchmarks/lab-run"))["run"]["parameters"] == doc["parameters"]
    assert client.get("/api/v1/benchmarks/lab-run", query_string={"format": "csv"}).status_code == 200


def test_an_upload_with_a_byte_order_mark_is_read(lab):
    client, path = lab
    resp = client.post(
        "/api/v1/benchmarks",
        data=b"\xef\xbb\xbf" + json.dumps(RUN).encode(),
        content_type="application/json",
        headers=WITH_KEY,
    )
    assert body(resp, 201)["slug"] == "lab-run" and stored(path) == {"lab-run": 3}


def test_upload_needs_the_key(lab):
    client, path = lab
    assert_error(client.post("/api/v1/benchmarks", json=RUN), 401)
    assert_error(client.post("/api/v1/benchmarks", json=RUN, headers={"X-API-Key": "nope"}), 401)
    assert stored(path) == {}


@pytest.mark.parametrize(
    "change, parameter, words",
    [
        (
            {"measurements": [*RUN["measurements"][:2], {"series": "b", "x": 1, "y": "4,0"}]},
            "measurements[3].y",
            ["row 3", "field y"],
        ),
        (
            {"measurements": [RUN["measurements"][0], {"series": "", "x": 2, "y": 1}]},
            "measurements[2].series",
            ["row 2", "field series"],
        ),
        ({"slug": "Lab Run"}, "slug", ["malformed"]),
        ({"awr": {"target": "elsewhere", "dbid": 1, "begin_snap": 1, "end_snap": 2}}, "awr.target", ["lab"]),
    ],
)
def test_a_bad_upload_names_row_and_field_and_stores_nothing(lab, change, parameter, words):
    client, path = lab
    err = assert_error(client.post("/api/v1/benchmarks", json={**RUN, **change}, headers=WITH_KEY), 400, parameter)
    assert all(w in err["message"] for w in words), err
    assert stored(path) == {}


@pytest.mark.parametrize(
    "data", [b"{", b"[]", b"", b"null", "{\"slug\": \"\u00e9\"}".encode("latin-1"), b'{"slug": "x", "y": NaN}']
)
def test_a_body_that_is_not_a_run_is_a_400(lab, data):
    client, path = lab
    err = assert_error(
        client.post("/api/v1/benchmarks", data=data, headers={**WITH_KEY, "Content-Type": "application/json"}), 400
    )
    assert err["message"]
    assert stored(path) == {}


def test_slug_conflict_then_explicit_replace(lab):
    client, path = lab
    body(client.post("/api/v1/benchmarks", json=RUN, headers=WITH_KEY), 201)
    err = assert_error(client.post("/api/v1/benchmarks", json={**RUN, "title": "Other"}, headers=WITH_KEY), 409, "slug")
    assert "replace" in err["message"]
    assert body(client.get("/api/v1/benchmarks/lab-run"))["run"]["title"] == "Lab run"
    smaller = {**RUN, "title": "Second", "measurements": RUN["measurements"][:1]}
    saved = body(client.post("/api/v1/benchmarks", json=smaller, headers=WITH_KEY, query_string={"replace": "1"}), 200)
    assert saved["replaced"] is True and stored(path) == {"lab-run": 1}
    assert body(client.get("/api/v1/benchmarks/lab-run"))["run"]["title"] == "Second"


@pytest.mark.slow
def test_a_run_read_while_it_is_replaced_is_one_run(lab, monkeypatch):
    """A run read while 4 threads replace it, again and again, with runs of 800 and of 4,000 measurements: every read
    is one of them whole, its title ("n=800") naming as many rows as come with it. The gap between reading the run and
    reading its rows is widened to 5 ms, so that without one read transaction a replacement lands in it often."""
    client, _path = lab
    store = client.application.extensions["awrlens"].stores["lab"]
    runs = [
        parse_run({**RUN, "title": f"n={n}", "measurements": [{"series": "s", "x": i, "y": 1.0} for i in range(n)]})
        for n in (800, 4000)
    ]
    repo.save(store, runs[0])
    text = store.text
    monkeypatch.setattr(store, "text", lambda stmt: time.sleep(0.005) or text(stmt))  # before each statement
    done, failed = threading.Event(), []

    def replace(k):
        for i in range(2000):  # bounded; stops when the reads are done
            if done.is_set():
                return
            try:
                repo.save(store, runs[(i + k) % 2], replace=True)
            except DatabaseTimeout:
                pass  # four writers of 4,000 rows queue for the lock: one may wait past the call timeout
            except Exception as exc:
                failed.append(exc)
                return

    writers = [threading.Thread(target=replace, args=(k,), daemon=True) for k in range(4)]
    for w in writers:
        w.start()
    seen = []
    try:
        for _ in range(150):
            got = repo.get_run(store, RUN["slug"], private=True)
            seen.append((got["run"]["title"], len(got["rows"]), got["run"]["measurements"]))
    finally:
        done.set()
        for w in writers:
            w.join(30)
    assert not failed, failed
    assert {title for title, _, _ in seen} == {"n=800", "n=4000"}  # the reads did overlap the replacements
    torn = [s for s in seen if not s[0] == f"n={s[1]}" == f"n={s[2]}"]
    assert not torn, f"{len(torn)} of {len(seen)} reads mixed two runs: {torn[:5]}"


def test_an_oversized_upload_is_413_before_anything_is_written(lab):
    client, path = lab
    rows = [{"series": "s", "x": i, "y": 1.0, "unit": "s"} for i in range(40_000)]
    data = json.dumps({**RUN, "measurements": rows}).encode()
    assert len(data) > MAX_BODY
    assert_error(
        client.post("/api/v1/benchmarks", data=data, headers={**WITH_KEY, "Content-Type": "application/json"}), 413
    )
    con = sqlite3.connect(path)
    tables = con.execute("select count(*) from sqlite_master").fetchone()[0]
    con.close()
    assert tables == 0  # not even the tables were created


def test_a_read_only_store_answers_503_read_only(lab, monkeypatch):
    client, _path = lab
    body(client.post("/api/v1/benchmarks", json=RUN, headers=WITH_KEY), 201)
    store = client.application.extensions["awrlens"].stores["lab"]
    monkeypatch.setattr(store, "_write_url", lambda: f"sqlite:///file:{store.path}?mode=ro&uri=true")
    store._writer = None
    err = assert_error(client.post("/api/v1/benchmarks", json={**RUN, "slug": "more"}, headers=WITH_KEY), 503)
    assert err["code"] == "read_only" and "read-only" in err["message"]
    assert body(client.get("/api/v1/benchmarks"))["count"] == 1  # reads go on


def test_cors_on_benchmark_answers_and_errors(open_api):
    for path in (f"/api/v1/benchmarks/{PUBLIC}", "/api/v1/benchmarks/nope"):
        resp = open_api.get(path, headers={"Origin": "https://elsewhere.example"})
        assert resp.headers["Access-Control-Allow-Origin"] in ("*", "https://elsewhere.example")


# -- where runs are stored -----------------------------------------------------------------------------------------


def test_the_api_the_cli_and_the_demo_store_runs_where_app_runs_where_says(tmp_path, monkeypatch, stories):
    """One rule (app.runs.where): the first configured target's store holds the runs, for an upload through the
    API and for `flask runs ...`; with no targets that is the embedded store, the alias the demo build's runs use."""
    from app.runs import where
    from app.settings import EMBEDDED, REPORTS

    monkeypatch.setenv("AWRLENS_RUNS_TEST_KEY", KEY)
    paths = {alias: tmp_path / f"{alias}.sqlite" for alias in ("first", "second")}
    for path in paths.values():
        sqlite3.connect(path).close()
    app = create_app(
        Settings.from_env(
            {}, targets={a: {"sqlite": str(p)} for a, p in paths.items()}, api_key_secret="env:AWRLENS_RUNS_TEST_KEY"
        )
    )
    assert where.runs_store(app.extensions["awrlens"].stores).alias == "first"
    body(app.test_client().post("/api/v1/benchmarks", json=RUN, headers=WITH_KEY), 201)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**RUN, "slug": "from-the-cli"}))
    result = app.test_cli_runner().invoke(args=["runs", "import", str(other)])
    assert result.exit_code == 0 and "in first:" in result.output, result.output
    assert stored(paths["first"]) == {"lab-run": 3, "from-the-cli": 3} and stored(paths["second"]) == {}
    # a setting, not only "the first target": AWRLENS_RUNS_TARGET names another
    second = create_app(
        Settings.from_env(
            {"AWRLENS_RUNS_TARGET": "second"},
            api_key_secret="env:AWRLENS_RUNS_TEST_KEY",
            targets={a: {"sqlite": str(p)} for a, p in paths.items()},
        )
    )
    body(second.test_client().post("/api/v1/benchmarks", json=RUN, headers=WITH_KEY), 201)
    assert stored(paths["second"]) == {"lab-run": 3}
    with pytest.raises(ValueError, match="AWRLENS_RUNS_TARGET='third' is not a target; targets: first, second"):
        Settings.from_env({"AWRLENS_RUNS_TARGET": "third"}, targets={a: {"sqlite": str(p)} for a, p in paths.items()})
    assert list(Settings.from_env({}).all_targets()) == [EMBEDDED, REPORTS]  # the runs' is the first
    assert where.runs_store(create_app(Settings.from_env({})).extensions["awrlens"].stores).alias == EMBEDDED
    linked = [run["awr"]["target"] for run in demo_runs.runs(stories) if run.get("awr")]
    assert linked == [EMBEDDED]


# -- OpenAPI -------------------------------------------------------------------------------------------------------


def test_openapi_documents_the_benchmark_routes(open_api):
    doc = body(open_api.get("/api/v1/openapi.json"))
    paths = doc["paths"]
    assert set(paths["/api/v1/benchmarks"]) == {"get", "post"}
    assert set(paths["/api/v1/benchmarks/{slug}"]) == {"get"} and set(paths["/api/v1/benchmarks/compare"]) == {"get"}
    post = paths["/api/v1/benchmarks"]["post"]
    assert {"200", "201", "400", "401", "403", "409", "413", "503"} <= set(post["responses"])
    assert post["requestBody"]["content"]["application/json"]["schema"]["required"] == [
        "slug",
        "title",
        "kind",
        "measurements",
    ]
    assert [p["name"] for p in post["parameters"]] == ["replace"]
    for path in ("/api/v1/benchmarks", "/api/v1/benchmarks/{slug}", "/api/v1/benchmarks/compare"):
        get = paths[path]["get"]
        assert "401" in get["responses"] and "text/csv" in get["responses"]["200"]["content"]
    slug = paths["/api/v1/benchmarks/{slug}"]["get"]["parameters"][0]
    assert slug["in"] == "path" and slug["required"] and slug["schema"]["maxLength"] == 80
    assert {op["operationId"] for item in paths.values() for op in item.values()} >= {
        "list_runs",
        "create_run",
        "get_run",
        "compare_runs",
    }


def test_answers_match_the_documented_required_fields(open_api):
    doc = body(open_api.get("/api/v1/openapi.json"))["paths"]
    for path, url in (
        ("/api/v1/benchmarks", "/api/v1/benchmarks"),
        ("/api/v1/benchmarks/{slug}", f"/api/v1/benchmarks/{PUBLIC}"),
        ("/api/v1/benchmarks/compare", f"/api/v1/benchmarks/compare?runs={PUBLIC}"),
    ):
        schema = doc[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        got = body(open_api.get(url))
        assert set(schema["required"]) <= set(got)
        rows = got["rows"]
        item = schema["properties"]["rows"]["items"]
        assert all(set(item["required"]) <= set(r) for r in rows)
