"""`/`: the page rendered from templates/index.html with the API's own limits, and, where the template is not
shipped (Lambda), the API's address as before. The S3 copy of the page is tests/test_deploy.py's."""

import re

import pytest

from app import create_app, page
from app.api import limits
from app.api.runs import MAX_COMPARE
from app.settings import Settings


def _app(tmp_path, **settings):
    # nothing is read from the store to serve the page
    return create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(tmp_path / "none.sqlite")}}, **settings))


def _config(html):
    """The page's settings as name -> text of the value."""
    block = re.search(r"window\.AWRLENS_CONFIG = \{(.*?)\n\s*\};", html, re.S).group(1)
    return dict(re.findall(r"^\s*(\w+): ([^,\n]+?),?(?:\s*//.*)?$", block, re.M))


def test_the_page_has_the_servers_limits(tmp_path):
    client = _app(tmp_path, max_series=5, max_range_days=31.0).test_client()
    resp = client.get("/")
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    config = _config(resp.get_data(as_text=True))
    assert config["apiBase"] == '""' and config["apiKey"] == '""'  # this origin; never a key in the page
    assert (config["maxSeries"], config["maxRangeDays"], config["maxCompareRuns"]) == ("5", "31.0", str(MAX_COMPARE))
    assert config["maxPoints"] == "1000" and config["defaultRange"] == '"7d"'  # the page's own settings


def test_the_page_is_revalidated(tmp_path):
    client = _app(tmp_path).test_client()
    resp = client.get("/")
    assert resp.headers["Cache-Control"] == "no-cache" and resp.headers["ETag"]
    assert client.get("/", headers={"If-None-Match": resp.headers["ETag"]}).status_code == 304


def test_the_page_loads_what_static_holds(tmp_path):
    html = _app(tmp_path).test_client().get("/").get_data(as_text=True)
    refs = re.findall(r'(?:src|href)="(static/[^"]+)"', html)
    assert "static/js/app.js" in refs and "static/vendor/jquery.min.js" in refs
    own = [r for r in refs if not r.startswith("static/vendor/")]
    assert all((page.TEMPLATES.parent / r).is_file() for r in own), own


def test_without_the_template_the_root_names_the_api(tmp_path, monkeypatch):
    """On Lambda only app/ ships: `/` answers as it always has there."""
    monkeypatch.setattr(page, "TEMPLATES", tmp_path / "templates")
    resp = _app(tmp_path).test_client().get("/")
    assert resp.status_code == 200
    assert resp.get_json() == {"name": "awrlens", "api": "/api/v1/", "openapi": "/api/v1/openapi.json"}


@pytest.mark.parametrize("settings", [{}, {"max_series": 3, "max_points": 500, "max_range_days": 7.5}])
def test_limits_follow_the_settings(settings, demo_store):
    s = Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, **settings)
    expected = {
        "max_series": s.max_series,
        "max_points": s.max_points,
        "max_range_days": s.max_range_days,
        "max_compare_runs": MAX_COMPARE,
    }
    assert limits(s) == expected
    assert create_app(s).test_client().get("/api/v1/").get_json()["limits"] == expected  # API users see the same
