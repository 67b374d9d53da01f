"""Shared fixtures: a demo store built once per run, an app on it, a client, the app under gunicorn, and one
error-shape check."""
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.request import urlopen

import pytest

from app import create_app
from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory):
    """A 10-day demo history (same generator and stories as `make run`, fewer days)."""
    from app import demo
    path = tmp_path_factory.mktemp("store") / "demo.sqlite"
    stories = demo.build(path, days=10)
    return path, stories


@pytest.fixture(scope="session")
def stories(demo_store):
    return demo_store[1]


@pytest.fixture(scope="session")
def app(demo_store):
    return create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}))


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def dbs(app):
    """{'single': db id, 'rac': db id} of the demo's two databases."""
    body = app.test_client().get("/api/v1/dbs").get_json()
    out = {}
    for d in body["databases"]:
        out["rac" if d["rac"] else "single"] = d["id"]
    return out


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
    /api/v1/ answers. `env` adds variables; `clean` drops the AWRLENS_* ones of this process first."""
    port = free_port()
    base = {k: v for k, v in os.environ.items() if not (clean and k.startswith("AWRLENS_"))}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
                             "app.wsgi:app"], cwd=ROOT, env={**base, "AWRLENS_STORE_PATH": str(store), **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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
