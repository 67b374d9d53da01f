"""Shared fixtures: a demo store built once per run, an app on it, a client, the app under gunicorn, one
error-shape check, and the fixtures of the API contract tests (tests/test_api_*.py; their helpers: contract.py)."""

import fcntl
import hashlib
import os
import pickle
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from datetime import timedelta, timezone
from pathlib import Path
from urllib.request import urlopen

import pytest
from contract import ok

from app import create_app
from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
# Fixtures shared by several test modules: the AWS emulation (moto) and Chromium through Playwright.
pytest_plugins = ["tests.aws", "tests.chromium"]


def pytest_ignore_collect(collection_path, config):
    """The edit loop (`-m "not slow"`, make test-fast) does not import a module whose tests are all slow (its
    module-level pytestmark names slow): each worker would import it, and what it imports, only to deselect it."""
    if config.getoption("markexpr") == "not slow" and collection_path.suffix == ".py":
        text = collection_path.read_text(encoding="utf-8")
        if any(line.startswith("pytestmark") and "mark.slow" in line for line in text.splitlines()):
            return True
    return None


def demo_sources() -> list[Path]:
    """The files the demo store is made from: every module under app/ but the API's (the demo renders Oracle's
    reports through app.history; the import contracts in pyproject.toml keep app.api out of its imports)."""
    app_dir = ROOT / "app"
    return sorted(p for p in app_dir.rglob("*.py") if "api" not in p.relative_to(app_dir).parts[:1])


def _demo_key() -> str:
    digest = hashlib.sha256()
    for path in demo_sources():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory):
    """A 10-day demo history (same generator and stories as `make run`, fewer days), built once per change of its
    sources and kept in var/tests/demo-<key>; each pytest session gets its own copy, so no test can alter the kept
    one. TESTS_DEMO_DIR (set by `make mutate`, docs/mutation.md) names another folder, used in place: its runner's
    tests only read, and a copy per mutant would cost more than the mutant's tests."""
    from app import demo

    keep = Path(os.environ.get("TESTS_DEMO_DIR") or ROOT / "var" / "tests" / f"demo-{_demo_key()}")
    kept, saved = keep / "demo.sqlite", keep / "stories.pickle"
    keep.parent.mkdir(parents=True, exist_ok=True)
    with open(keep.parent / ".build-lock", "w") as lock:  # pytest-xdist's workers: one builds, the others wait for it
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not saved.exists():
            if not os.environ.get("TESTS_DEMO_DIR"):  # the stores of earlier sources: one kept at a time
                for old in keep.parent.glob("demo-*"):
                    shutil.rmtree(old, ignore_errors=True)
            keep.mkdir(parents=True, exist_ok=True)
            kept.unlink(missing_ok=True)
            stories = demo.build(kept, days=10)
            part = saved.with_suffix(".part")  # written last, under its name only when whole: a killed build rebuilds
            part.write_bytes(pickle.dumps(stories))
            part.replace(saved)
    path = kept
    if not os.environ.get("TESTS_DEMO_DIR"):
        path = tmp_path_factory.mktemp("store") / "demo.sqlite"
        shutil.copyfile(kept, path)
    return path, pickle.loads(saved.read_bytes())


@pytest.fixture(scope="session")
def stories(demo_store):
    return demo_store[1]


@pytest.fixture(scope="session")
def app(demo_store):
    # Under mutmut (make mutate, docs/mutation.md) every test computes its answers: one kept from an earlier test's
    # question would hide the functions behind it from mutmut's stats, and their mutants from the test.
    mutating = "MUTANT_UNDER_TEST" in os.environ
    targets = {"demo": {"sqlite": str(demo_store[0])}}
    return create_app(Settings.from_env({}, targets=targets, **({"answer_cache_mb": 0} if mutating else {})))


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def dbs(app):
    """{'single': db id, 'rac': db id} of the demo's two AWR databases (its Statspack one: statspack_db)."""
    body = app.test_client().get("/api/v1/dbs").get_json()
    return {"rac" if d["rac"] else "single": d["id"] for d in body["databases"] if d["source"] == "awr"}


@pytest.fixture(scope="session")
def statspack_db(app):
    """The id of the demo's Statspack database (BILLING)."""
    body = app.test_client().get("/api/v1/dbs").get_json()
    (db,) = [d["id"] for d in body["databases"] if d["source"] == "statspack"]
    return db


# -- the API contract tests' fixtures: one of each per test module ------------------------------------------------


@pytest.fixture(scope="module")
def api(app):
    return app.test_client()


@pytest.fixture(scope="module")
def sql3(demo_store):
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    yield con
    con.close()


@pytest.fixture(scope="module")
def doc(api):
    return ok(api, "/api/v1/openapi.json")


@pytest.fixture(scope="module")
def summary(api):
    return {d["id"]: d for d in ok(api, "/api/v1/dbs")["databases"]}


@pytest.fixture(scope="module")
def rac(summary):
    """The demo's RAC database, as /dbs lists it."""
    return next(d for d in summary.values() if d["rac"])


@pytest.fixture(scope="module")
def tz(stories):
    """dbid -> the database's time zone, from the demo's own description."""
    return {d["dbid"]: timezone(timedelta(seconds=d["time_zone_seconds"])) for d in stories["databases"]}


@pytest.fixture(scope="module")
def window(stories):
    """A closed RAC range with no restart, missing or manual snapshot in it: the start of the plan regression."""
    lo = stories["plan_regression"]["begin_snap"]
    return lo, lo + 8


ORCL = 1645932817  # the DBID of the Oracle stand-in's database (oracle_app)
ORACLE_PASSWORD = "Pw-oracle-never-in-messages"


@pytest.fixture()
def oracle_app(monkeypatch):
    """An app on one Oracle target, a FakeOracle made with the given answers and errors, and the database's identity
    and snapshots put in the store's cache as it would have read them (the stand-in answers text only)."""
    from datetime import datetime

    from fake_oracle import FakeOracle

    from app import analysis
    from app.history.database import Database

    made = []

    def make(settings=None, target=None, **behaviour):
        server = FakeOracle(ORACLE_PASSWORD, **behaviour)
        made.append(server)
        monkeypatch.setenv("AWRLENS_ORACLE_PW", ORACLE_PASSWORD)
        app = create_app(
            Settings.from_env(
                {},
                targets={
                    "ora": {
                        "dsn": f"127.0.0.1:{server.port}/svc",
                        "user": "awrlens",
                        "password_env": "AWRLENS_ORACLE_PW",
                        **(target or {}),
                    }
                },
                **{"connect_timeout": 2, "call_timeout": 2, "answer_cache_mb": 0, **(settings or {})},
            )
        )
        store = app.extensions["awrlens"].stores["ora"]
        startup = datetime(2026, 11, 1, 4, 0, 12)
        db = Database(store, ORCL, [(ORCL, 1, startup, "ORCL", "ORCL", "db1", "19.0.0.0.0", "NO", "Linux x86 64-bit")])
        snaps = [
            analysis.make_snap(100 + k, 1, startup, datetime(2026, 11, 20, 10) + timedelta(minutes=30 * k))
            for k in range(5)
        ]
        now = time.monotonic()
        store._cache[("databases",)] = (now, [db])
        store._cache[("timeline", ORCL)] = (now, analysis.Timeline(snaps))
        return app.test_client(), server

    yield make
    for server in made:
        server.close()


def assert_error(resp, status, parameter=None):
    """The one error shape: {"error": {"status", "code", "message", "parameter"?}}."""
    assert resp.status_code == status, resp.get_data(as_text=True)
    body = resp.get_json()
    assert set(body) == {"error"}
    err = body["error"]
    assert err["status"] == status and err["code"] and err["message"]
    if parameter is not None:
        assert err.get("parameter") == parameter, err
    return err


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def gunicorn(store, workers: int = 2, env: dict | None = None, clean: bool = False):
    """The production WSGI server (gunicorn, as `make run`) on a free port, serving `store`; yields its URL once
    /api/v1/ answers, without the default reports store (var/reports.sqlite: what a developer imported is no test's
    data; tests.chromium.reports_gunicorn gives one). `env` adds variables; `clean` drops the AWRLENS_* ones of this
    process first."""
    port = free_port()
    base = {k: v for k, v in os.environ.items() if not (clean and k.startswith("AWRLENS_"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "app.wsgi:app"],
        cwd=ROOT,
        env={**base, "AWRLENS_STORE_PATH": str(store), "AWRLENS_REPORTS_PATH": "", **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urlopen(f"{url}/api/v1/", timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"gunicorn did not start: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.1)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
