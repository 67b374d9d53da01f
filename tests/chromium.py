"""Real headless Chromium (Debian's `chromium`, driven by Playwright for Python) for the browser tests: the browser, the
app under gunicorn on the session's demo store, and pages that record errors (fixtures shared by tests/conftest.py's
pytest_plugins). Without Chromium or Playwright the tests are skipped locally and fail under CI=true."""

import os
import shutil
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from conftest import gunicorn

from perf.frontend import CHROMIUM_ARGS  # the front-end benchmark's browser is the tests' (tests import perf, not back)

ROOT = Path(__file__).resolve().parent.parent
SETTLED = "window.AWRLens && AWRLens.App && AWRLens.App.settled()"


def _unavailable(reason):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: the browser tests must run; `make test` installs what they need)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    path = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if path is None:
        _unavailable("Debian's chromium is not installed (`make test` installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python is not installed (requirements-dev.txt)")
    if not (ROOT / "static" / "vendor" / "vendor.min.js").exists():
        _unavailable("static/vendor/ is not built (`npm ci && npm run vendor`, or `make test`)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def screenshot(tmp_path_factory):
    """The path a browser test saves its picture `name` (overview.png...) to: under pytest's temporary directory, so
    that a test run leaves the tree as it was; over the README's picture in docs/ only when TESTS_SCREENSHOTS=docs asks
    to refresh them (README: Tests and performance)."""
    asked = os.environ.get("TESTS_SCREENSHOTS", "")
    if asked not in ("", "docs"):
        pytest.fail(f"TESTS_SCREENSHOTS={asked!r}: give docs (refresh docs/*.png) or leave it unset")
    folder = ROOT / "docs" if asked == "docs" else tmp_path_factory.mktemp("screenshots")
    return lambda name: folder / name


@pytest.fixture(scope="module")
def server(demo_store):
    """The production WSGI server (gunicorn, as `make run`) on a free port, serving the session's demo store."""
    with gunicorn(demo_store[0], workers=3) as url:
        yield url


REPORTS_KEY = "browser-reports-key-0123456789"  # importing report files through the API needs a key (§35)


def reports_gunicorn(store, reports):
    """As `server`, with the reports store at `reports` (docs/awr-rules.md §35: a SQLite file made on first use) and
    the API key REPORTS_KEY."""
    env = {"AWRLENS_REPORTS_PATH": str(reports), "AWRLENS_API_KEY_SECRET": "env:BROWSER_REPORTS_KEY"}
    return gunicorn(store, env={**env, "BROWSER_REPORTS_KEY": REPORTS_KEY})


@pytest.fixture(scope="module")
def reports_server(demo_store, tmp_path_factory):
    """reports_gunicorn on the session's demo store, its reports store under pytest's temporary directory."""
    with reports_gunicorn(demo_store[0], tmp_path_factory.mktemp("reports") / "reports.sqlite") as url:
        yield url


class Page:
    """A page at 1280 x 900 that records console errors, page errors, dialogs and API requests."""

    def __init__(self, context):
        self.context = context
        self.page = context.new_page()
        self.errors, self.dialogs, self.requests = [], [], []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("dialog", self._dialog)
        self.page.on("request", lambda r: self.requests.append(r.url) if "/api/v1/" in r.url else None)

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, url):
        self.page.goto(url)
        return self.settle()

    def settle(self):
        self.page.wait_for_function(SETTLED, timeout=20000)
        return self

    def charts(self):
        return self.page.evaluate("AWRLens.Charts.snapshot()")

    def state(self):
        return {k: v if k == "series" else v[0] for k, v in parse_qs(urlsplit(self.page.url).query).items()}

    def error_text(self):
        return self.page.locator("#error-text").text_content() if self.page.locator("#error").is_visible() else ""

    def api(self, path_part):
        """The API requests so far to URLs containing path_part, decoded."""
        return [unquote(u.replace("+", " ")) for u in self.requests if path_part in u]


@pytest.fixture(scope="module")
def context(browser):
    """One browser context for the module's pages (its HTTP cache spares reloading the libraries each time);
    the share-link test opens its link in a context of its own."""
    ctx = browser.new_context(
        viewport={"width": 1280, "height": 900}, timezone_id="UTC", locale="en-US", accept_downloads=True
    )
    yield ctx
    ctx.close()


@pytest.fixture()
def page(context):
    pg = Page(context)
    yield pg
    pg.page.close()
