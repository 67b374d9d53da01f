"""Answers kept in memory: served again without touching the store, bounded in bytes and in time; and kept by a
server's processes together."""

import time

import pytest

from app import create_app
from app.api import cache as answer_cache
from app.settings import Settings


@pytest.fixture()
def counted(demo_store, monkeypatch):
    """A fresh app on the demo store, and the number of statements its store has run."""
    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}))
    store = app.extensions["awrlens"].stores["demo"]
    runs = []
    real = store.rows
    monkeypatch.setattr(store, "rows", lambda *a, **k: runs.append(a[0]) or real(*a, **k))
    return app.test_client(), runs


def series_url(dbs, extra=""):
    return f"/api/v1/dbs/{dbs['rac']}/series?name=derived:aas&instance=each&begin_snap=8200&end_snap=8300{extra}"


def test_the_same_question_is_answered_from_memory(counted, dbs):
    client, runs = counted
    first = client.get(series_url(dbs), headers={"Origin": "https://example.org"})
    ran = len(runs)
    assert first.status_code == 200 and ran > 0
    again = client.get(series_url(dbs), headers={"Origin": "https://example.org"})
    assert len(runs) == ran  # nothing ran
    assert again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["Cache-Control"] == first.headers["Cache-Control"]
    assert again.headers["Access-Control-Allow-Origin"] == first.headers["Access-Control-Allow-Origin"]
    assert "Age" not in first.headers and again.headers["Age"] == "0"  # RFC 9111 5.1: how long ago it was computed
    reordered = f"/api/v1/dbs/{dbs['rac']}/series?end_snap=8300&begin_snap=8200&instance=each&name=derived:aas"
    assert client.get(reordered).data == first.data and len(runs) == ran  # the same question
    not_modified = client.get(series_url(dbs), headers={"If-None-Match": first.headers["ETag"]})
    assert not_modified.status_code == 304 and not_modified.data == b""
    csv = client.get(series_url(dbs, "&format=csv"))
    assert csv.mimetype == "text/csv" and len(runs) > ran  # another question


def test_show_sql_and_errors_always_run(counted, dbs):
    client, runs = counted
    client.get(series_url(dbs, "&show_sql=1"))
    ran = len(runs)
    body = client.get(series_url(dbs, "&show_sql=1")).get_json()
    assert len(runs) > ran and body["sql"]  # the series statements ran again
    for _ in range(2):
        assert client.get(f"/api/v1/dbs/{dbs['rac']}/series?name=no:such").status_code == 404
    assert client.get(f"/api/v1/dbs/{dbs['rac']}/series?name=no:such").status_code == 404


def test_bounded_in_bytes_least_recently_used_first(monkeypatch):
    c = answer_cache.AnswerCache(max_bytes=800, closed_ttl=3600, open_ttl=60)
    for key in "abc":
        c.put(key, 60, b"x" * 100, [])
    assert c.get("a") is not None  # a is now the most recently used
    c.put("big", 60, b"x" * 101, [])  # over max_bytes / 8: never kept
    assert c.get("big") is None
    for key in "defghi":
        c.put(key, 60, b"x" * 100, [])
    assert c.size <= 800 and c.get("b") is None and c.get("a") is not None and c.get("i") is not None


def test_expires(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(answer_cache.time, "monotonic", lambda: now[0])
    c = answer_cache.AnswerCache(max_bytes=10_000, closed_ttl=3600, open_ttl=60)
    c.put("open", 60, b"1", [])
    c.put("closed", 3600, b"2", [])
    now[0] += 61
    assert c.get("open") is None and c.get("closed")[:2] == (b"2", [])
    assert c.size == 1


def test_open_ranges_are_kept_briefly_and_closed_ones_longer(counted, dbs):
    client, _ = counted
    cache = client.application.extensions["answer_cache"]
    client.get(f"/api/v1/dbs/{dbs['rac']}/series?name=derived:aas")  # up to the newest snapshot: open
    client.get(series_url(dbs))  # ends before it: closed
    now = answer_cache.time.monotonic()
    left = sorted(expires - now for expires, *_ in cache.entries.values())
    assert len(left) == 2 and 50 < left[0] <= 60 and 3500 < left[1] <= 3600


@pytest.mark.parametrize("ttl", [17, 60])
def test_an_open_range_is_kept_by_browsers_as_long_as_the_snapshot_list(demo_store, dbs, ttl):
    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, snapshot_ttl=ttl))
    client = app.test_client()
    open_range = client.get(f"/api/v1/dbs/{dbs['rac']}/series?name=derived:aas")
    closed_range = client.get(series_url(dbs))
    assert open_range.status_code == closed_range.status_code == 200
    assert open_range.cache_control.max_age == ttl
    assert closed_range.cache_control.max_age == 86400


def test_the_processes_of_a_server_keep_their_answers_together(demo_store, dbs, tmp_path, monkeypatch):
    """With a directory (AWRLENS_ANSWER_CACHE_DIR), what one app computed another answers without touching its store:
    two apps stand for two gunicorn workers."""
    settings = Settings.from_env(
        {"AWRLENS_ANSWER_CACHE_DIR": str(tmp_path / "answers")}, targets={"demo": {"sqlite": str(demo_store[0])}}
    )
    workers = [create_app(settings) for _ in range(2)]
    runs = []
    for app in workers:
        store = app.extensions["awrlens"].stores["demo"]
        monkeypatch.setattr(store, "rows", lambda *a, _real=store.rows, **k: runs.append(a[0]) or _real(*a, **k))
    first = workers[0].test_client().get(series_url(dbs))
    ran = len(runs)
    assert first.status_code == 200 and ran > 0
    again = workers[1].test_client().get(series_url(dbs), headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and len(runs) == ran  # the other worker ran nothing
    again = workers[1].test_client().get(series_url(dbs))
    assert again.data == first.data and again.headers["Cache-Control"] == first.headers["Cache-Control"]
    assert "Age" in again.headers and len(runs) == ran
    assert workers[1].test_client().get(series_url(dbs, "&format=csv")).status_code == 200 and len(runs) > ran


def test_the_shared_answers_expire_and_are_bounded(tmp_path):
    c = answer_cache.AnswerCache(max_bytes=1_000_000, closed_ttl=3600, open_ttl=60, directory=str(tmp_path))
    c.put("brief", 0.05, b"1", [("ETag", '"a"')])
    c.put("closed", 3600, b"2", [])
    c.put("big", 60, b"x" * 125_001, [])  # over max_bytes / 8: never kept
    time.sleep(0.1)
    assert c.get("brief") is None and c.get("closed")[:2] == (b"2", []) and c.get("big") is None
    other = answer_cache.AnswerCache(max_bytes=1_000_000, closed_ttl=3600, open_ttl=60, directory=str(tmp_path))
    assert other.get("closed")[:2] == (b"2", [])  # another process's cache over the same directory


@pytest.mark.slow  # starts gunicorn
def test_every_gunicorn_worker_answers_from_what_one_computed(demo_store, dbs, tmp_path):
    """gunicorn.conf.py gives each server a directory of its own for its workers' answers (set before they start, so
    each has it): the worker that computed an answer keeps it there, every request for it is then an answer from the
    cache (its Age header), whichever worker takes it, and the directory goes when the server stops. The server's
    temporary directory is the test's own, so another server (another test, or another pytest worker) is not counted."""
    import http.client
    from concurrent.futures import ThreadPoolExecutor
    from urllib.parse import urlparse

    import diskcache
    from conftest import gunicorn

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with gunicorn(demo_store[0], workers=3, env={"TMPDIR": str(tmp)}, clean=True) as url:
        address = urlparse(url)
        path = series_url(dbs)

        def ask(_):
            conn = http.client.HTTPConnection(address.hostname, address.port, timeout=30)  # a connection each
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            conn.close()
            return resp.status, resp.getheader("Age")

        assert ask(0) == (200, None)  # computed
        made = set(tmp.glob("awrlens-answers-*"))
        assert len(made) == 1
        with diskcache.Cache(made.pop()) as kept:  # where the worker that computed it put it, for every worker
            assert [key[0] for key in kept] == [urlparse(path).path]
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(ask, range(48)))
        assert answers and all(status == 200 and age is not None for status, age in answers), answers
    assert not list(tmp.glob("awrlens-answers-*"))


@pytest.mark.slow  # starts gunicorn: over half a second
def test_each_gunicorn_worker_imports_sqlalchemy_as_it_starts(demo_store):
    """The embedded store's history answers never import SQLAlchemy (app/store/sqlite.py); the benchmark runs' tables
    do (/changes, /benchmarks): gunicorn.conf.py's post_worker_init imports it as each worker starts, so no visitor's
    first request waits the 0.2 s for it. A fresh interpreter: the app built as a worker builds it, then the hook."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    code = (
        "import runpy, sys; conf = runpy.run_path('gunicorn.conf.py'); import app.wsgi; "
        "before = 'sqlalchemy' in sys.modules; conf['post_worker_init'](None); "
        "print(before, 'sqlalchemy' in sys.modules)"
    )
    env = {**os.environ, "AWRLENS_STORE_PATH": str(demo_store[0])}
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_the_key_keeps_each_parameters_values_in_the_order_given():
    """A repeated parameter's order is part of the question (/series answers its names in that order); the order of
    different parameters is not."""
    app = create_app(Settings.from_env({}, targets={}))

    def key(query):
        with app.test_request_context(f"/api/v1/dbs/x/series?{query}"):
            return answer_cache._key()

    assert key("name=a&name=b") != key("name=b&name=a")
    assert key("name=a&name=b&from=1") == key("from=1&name=a&name=b") == key("name=a&from=1&name=b")
    assert key("name=a") != key("name=a&name=a")


def test_a_repeated_parameter_in_another_order_is_another_question(counted, dbs):
    """/series answers its series in the order the names were asked: the same names swapped are not served the
    first order's answer."""
    client, runs = counted
    asked = [("derived:tps", "derived:aas"), ("derived:aas", "derived:tps")]
    answers, ran = [], []
    for names in asked:
        resp = client.get(series_url(dbs).replace("name=derived:aas", "&".join(f"name={n}" for n in names)))
        assert resp.status_code == 200, resp.get_json()
        answers.append(resp)
        ran.append(len(runs))
    for names, resp in zip(asked, answers, strict=True):
        assert tuple(dict.fromkeys(s["name"] for s in resp.get_json()["series"])) == names  # each instance's
    assert answers[0].headers["ETag"] != answers[1].headers["ETag"]
    assert ran[1] > ran[0] and "Age" not in answers[1].headers  # computed, not served from memory


def test_a_repeated_instance_is_answered_as_if_nothing_were_kept(counted, demo_store, dbs):
    """The key's rule (app/api/cache.py): each parameter's values in the order given. instance=1&instance=2,
    instance=2&instance=1 and instance=1 are three questions (the first two refused: instance may be given once);
    asked one after another on one app, each answer is the one an app keeping nothing gives, never instance=1's
    answer kept and served to a repeated instance."""
    client, _ = counted
    fresh = create_app(
        Settings.from_env({}, answer_cache_mb=0, targets={"demo": {"sqlite": str(demo_store[0])}})
    ).test_client()
    base = f"/api/v1/dbs/{dbs['rac']}/series?name=derived:aas&begin_snap=8200&end_snap=8300"
    queries = ["instance=1&instance=2", "instance=2&instance=1", "instance=1", "instance=2", "instance=1&instance=2"]
    for query in queries:
        kept, computed = client.get(f"{base}&{query}"), fresh.get(f"{base}&{query}")
        assert kept.status_code == computed.status_code, query
        assert kept.get_data() == computed.get_data(), query
    firsts = {q: fresh.get(f"{base}&{q}").get_data() for q in ("instance=1", "instance=2")}
    assert firsts["instance=1"] != firsts["instance=2"]  # the check: the instances' answers differ


def test_the_key_of_a_repeated_instance():
    app = create_app(Settings.from_env({}, targets={}))

    def key(query):
        with app.test_request_context(f"/api/v1/dbs/x/series?{query}"):
            return answer_cache._key()

    keys = {key(q) for q in ("instance=1&instance=2", "instance=2&instance=1", "instance=1", "instance=2")}
    assert len(keys) == 4
    assert key("instance=1&name=a&instance=2") == key("name=a&instance=1&instance=2")


def test_an_answer_is_stale_once_its_lifetime_has_passed(monkeypatch):
    """RFC 9111 4.2: a response is fresh while its age is less than its freshness lifetime, so at exactly max-age it
    is stale (as in the shared cache, where diskcache keeps an answer while its expire time is after now)."""
    now = [1000.0]
    monkeypatch.setattr(answer_cache.time, "monotonic", lambda: now[0])
    c = answer_cache.AnswerCache(max_bytes=10_000, closed_ttl=3600, open_ttl=60)
    c.put("open", 60, b"1", [])
    now[0] = 1059.5
    assert c.get("open")[:2] == (b"1", [])
    now[0] = 1060.0
    assert c.get("open") is None and c.size == 0


def test_answers_filling_the_bound_exactly_are_all_kept():
    """The bound is in bytes: answers adding up to max_bytes all stay; one more byte drops the least recently used.
    An answer stored again under its key replaces it and is counted once."""
    c = answer_cache.AnswerCache(max_bytes=800, closed_ttl=3600, open_ttl=60)
    for key in "abcdefgh":
        c.put(key, 60, b"x" * 100, [])
        c.put(key, 60, b"y" * 100, [])
    assert c.size == 800 and all(c.get(key)[0] == b"y" * 100 for key in "abcdefgh")
    c.put("i", 60, b"z", [])
    assert c.size == 701 and c.get("a") is None and c.get("b") is not None


def test_an_answer_without_a_lifetime_is_never_kept(counted):
    """The OpenAPI document is revalidated (no-cache, no max-age): asked twice, it is computed twice, nothing is kept.
    A POST to a GET route is refused (405), even when that route's GET answer is kept."""
    client, _ = counted
    cache = client.application.extensions["answer_cache"]
    for _ in range(2):
        doc = client.get("/api/v1/openapi.json")
        assert doc.status_code == 200 and "Age" not in doc.headers and doc.cache_control.max_age is None
    assert not cache.entries and cache.size == 0
    client.get("/api/v1/dbs")
    assert len(cache.entries) == 1
    assert client.post("/api/v1/dbs").status_code == 405


def test_no_bytes_to_keep_opens_no_shared_cache(tmp_path):
    """AWRLENS_ANSWER_CACHE_MB=0 keeps nothing: with a directory set as well, no cache is opened in it."""
    c = answer_cache.AnswerCache(max_bytes=0, closed_ttl=3600, open_ttl=60, directory=str(tmp_path / "answers"))
    c.put("a", 60, b"1", [])
    assert c.get("a") is None and not (tmp_path / "answers").exists()


def test_no_bytes_to_keep_keeps_not_even_an_empty_answer():
    """AWRLENS_ANSWER_CACHE_MB=0 keeps nothing, not even an answer of no bytes that has a lifetime."""
    from flask import Response

    app = create_app(Settings.from_env({}, answer_cache_mb=0, targets={}))

    def empty():
        resp = Response(b"")
        resp.cache_control.max_age = 60
        return resp

    app.add_url_rule("/api/v1/empty", "empty", empty)
    client = app.test_client()
    answers = [client.get("/api/v1/empty") for _ in range(2)]
    assert [(a.status_code, "Age" in a.headers) for a in answers] == [(200, False), (200, False)]


def test_the_shared_answers_drop_the_oldest_stored_first(tmp_path):
    """The shared answers are bounded in bytes, the oldest stored dropped first however often it was read (a read
    writes nothing), even in a directory last used by a cache of another policy (diskcache keeps a cache's settings
    in its directory)."""
    import diskcache

    diskcache.Cache(str(tmp_path), eviction_policy="least-recently-used").close()
    c = answer_cache.AnswerCache(max_bytes=1_000_000, closed_ttl=3600, open_ttl=60, directory=str(tmp_path))
    c.put("first", 60, b"f" * 50_000, [])
    for i in range(40):  # 2 MB in all
        c.get("first")  # read again and again: under least-recently-used it would stay
        c.put(f"later {i}", 60, b"x" * 50_000, [])
    assert c.get("first") is None and c.get("later 39") is not None


def test_a_shared_answer_waits_for_another_process_writing(tmp_path, monkeypatch):
    """The workers write to one SQLite database: a worker storing an answer while another writes waits its turn
    instead of failing. diskcache's wait for the database lock is shortened here to 50 ms so that the other writer,
    holding the lock for 300 ms, outlasts it."""
    import functools
    import sqlite3
    import threading

    import diskcache

    monkeypatch.setattr(diskcache, "Cache", functools.partial(diskcache.Cache, timeout=0.05))
    c = answer_cache.AnswerCache(max_bytes=1_000_000, closed_ttl=3600, open_ttl=60, directory=str(tmp_path))
    other = sqlite3.connect(tmp_path / "cache.db", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # the other worker's write
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    try:
        c.put("answer", 60, b"1", [])
    finally:
        release.join()
        other.close()
    assert c.get("answer")[:2] == (b"1", [])


def test_clearing_forgets_every_answer_and_the_bytes_they_held():
    """Clearing (a reports store was written) forgets every kept answer; the bound counts from nothing again, so
    answers filling it exactly all stay afterwards."""
    c = answer_cache.AnswerCache(max_bytes=800, closed_ttl=3600, open_ttl=60)
    for key in "abc":
        c.put(key, 60, b"x" * 100, [])
    c.clear()
    assert c.size == 0 and [c.get(key) for key in "abc"] == [None, None, None]
    for key in "defghijk":
        c.put(key, 60, b"y" * 100, [])
    assert c.size == 800 and all(c.get(key) is not None for key in "defghijk")


def test_clearing_the_shared_answers_waits_for_another_process_writing(tmp_path, monkeypatch):
    """Clearing the shared answers while another worker writes waits its turn, as storing does (the test above),
    and forgets them for every worker: a cache opened afresh on the directory finds none."""
    import functools
    import sqlite3
    import threading

    import diskcache

    monkeypatch.setattr(diskcache, "Cache", functools.partial(diskcache.Cache, timeout=0.05))
    c = answer_cache.AnswerCache(max_bytes=1_000_000, closed_ttl=3600, open_ttl=60, directory=str(tmp_path))
    c.put("answer", 60, b"1", [])
    other = sqlite3.connect(tmp_path / "cache.db", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    try:
        c.clear()
    finally:
        release.join()
        other.close()
    another = answer_cache.AnswerCache(max_bytes=1_000_000, closed_ttl=3600, open_ttl=60, directory=str(tmp_path))
    assert c.get("answer") is None and another.get("answer") is None
