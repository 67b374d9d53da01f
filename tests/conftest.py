"""Shared fixtures: a demo store built once per run, an app on it, a client, and one error-shape check."""
import pytest

from app import create_app
from app.settings import Settings


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
