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


def test_only_the_pages_own_origin_may_frame_it(tmp_path):
    """CSP Level 3's frame-ancestors 'self', and RFC 7034's X-Frame-Options SAMEORIGIN for browsers without it."""
    resp = _app(tmp_path).test_client().get("/")
    assert resp.headers["Content-Security-Policy"] == "frame-ancestors 'self'"
    assert resp.headers["X-Frame-Options"] == "SAMEORIGIN"


@pytest.mark.parametrize(
    "asked, location",
    [
        ("/api/v1", "/api/v1/"),
        ("/api/v1?x=1", "/api/v1/?x=1"),
        ("/api/v1//dbs", "/api/v1/dbs"),
    ],
)
def test_a_redirect_names_no_host(tmp_path, asked, location):
    """Werkzeug's redirect to a route's own URL: a relative Location (RFC 9110 10.2.2), whatever the Host header says,
    in JSON; resolved against the request's URL it is the route's."""
    from urllib.parse import urljoin

    resp = _app(tmp_path).test_client().get(asked, base_url="http://evil.example")
    assert resp.status_code == 308 and resp.mimetype == "application/json"
    assert resp.headers["Location"] == location and resp.get_json() == {"location": location}
    assert "evil.example" not in resp.get_data(as_text=True)
    assert urljoin("http://awrlens.test" + asked, location) == "http://awrlens.test" + location


def test_the_page_loads_what_static_holds(tmp_path):
    client = _app(tmp_path).test_client()
    html = client.get("/").get_data(as_text=True)
    refs = re.findall(r'(?:src|href)="(static/[^"]+)"', html)
    assert refs == [
        "static/vendor/vendor.min.css",
        "static/css/app.css",
        "static/js/theme.js",
        "static/vendor/vendor.min.js",
        page.SCRIPTS_PATH,
    ]
    for ref in refs:
        resp = client.get("/" + ref)
        assert resp.status_code == 200 and resp.mimetype in ("text/css", "text/javascript"), ref
        resp.close()


def test_every_script_of_static_js_is_in_the_page_once():
    """A new module of static/js is never left out of the page's one file of scripts (theme.js runs in the head)."""
    names = sorted(p.name for p in (page.STATIC / "js").glob("*.js"))
    assert sorted(page.SCRIPTS) == [n for n in names if n != "theme.js"]
    assert len(set(page.SCRIPTS)) == len(page.SCRIPTS)


def test_the_scripts_are_the_files_joined_in_order(tmp_path):
    """Each file whole, in SCRIPTS' order, after its name; revalidated with the ETag, so an edit shows at once."""
    client = _app(tmp_path).test_client()
    resp = client.get("/" + page.SCRIPTS_PATH)
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-cache"
    body, at = resp.get_data(), 0
    for name in page.SCRIPTS:
        text = b"// static/js/%s\n%s\n;\n" % (name.encode(), (page.STATIC / "js" / name).read_bytes())
        assert body.index(text, at) == at, name
        at += len(text)
    assert at == len(body)
    assert client.get("/" + page.SCRIPTS_PATH, headers={"If-None-Match": resp.headers["ETag"]}).status_code == 304


def test_scripts_with_a_file_missing_are_not_served(tmp_path, monkeypatch):
    """Never a page without one of its modules: a clear error, and Flask's answer a 404."""
    static = tmp_path / "static"
    (static / "js").mkdir(parents=True)
    for name in page.SCRIPTS[1:]:
        (static / "js" / name).write_text("/* */")
    with pytest.raises(FileNotFoundError, match=r"static/js/dom\.js is missing"):
        page.scripts(static)
    monkeypatch.setattr(page, "STATIC", static)
    resp = _app(tmp_path).test_client().get("/" + page.SCRIPTS_PATH)
    assert resp.status_code == 404 and resp.get_json()["error"]["code"] == "not_found"


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
