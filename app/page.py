"""What the page (templates/index.html) is rendered with: by Flask for `/` when the app serves it, and by
infra/deploy_site.py for the S3 bucket. The limits are the API's own, from the same settings, so the page never
offers what the API it talks to would refuse.

templates/ does not ship to Lambda (only app/ does): there `/` answers with the API's address instead.
"""

from pathlib import Path

from app.api import limits
from app.settings import Settings

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
PAGE = "index.html"
VENDOR = "static/vendor"  # the vendored libraries, as the page's own server has them
STATIC = TEMPLATES.parent / "static"
SCRIPTS_PATH = "static/awrlens.js"  # the page's own scripts as one file (scripts()); theme.js runs alone, in the head
# Only a page of the page's own origin may frame it (CSP's frame-ancestors; X-Frame-Options for browsers without it)
FRAMING = {"Content-Security-Policy": "frame-ancestors 'self'", "X-Frame-Options": "SAMEORIGIN"}
SCRIPTS = (  # static/js, in the order they run: each uses those before it
    "dom.js",
    "format.js",
    "api.js",
    "state.js",
    "databases.js",
    "chart-card.js",
    "changes.js",
    "chart-windows.js",
    "chart-config.js",
    "charts.js",
    "charts-xy.js",
    "tables.js",
    "controls.js",
    "router.js",
    "loaders.js",
    "history-views.js",
    "plan-views.js",
    "loadmap.js",
    "activity-views.js",
    "compare-views.js",
    "awr-report-views.js",
    "histogram-views.js",
    "segment-views.js",
    "parameter-views.js",
    "run-views.js",
    "report-import.js",
    "app.js",
)


def context(settings: Settings, api_base: str = "", vendor: str = VENDOR) -> dict:
    """The template's variables: where the API lives ("" = the page's own origin), where the vendored libraries
    are, and the limits."""
    return {"api_base": api_base.rstrip("/"), "vendor": vendor, "limits": limits(settings), "scripts": SCRIPTS_PATH}


def scripts(static: Path | None = None) -> bytes:
    """SCRIPTS joined into one file, served as SCRIPTS_PATH by Flask and uploaded as it to the bucket: one request
    instead of one per file (a browser asks at most six files of one server at a time; BENCHMARKS.md, "the page").
    Each file keeps its own scope (an IIFE, "use strict" inside) and ends its statements, so joined they run as they
    did one by one. A missing file is an error, never a page without it."""
    parts = []
    for name in SCRIPTS:
        path = Path(static or STATIC) / "js" / name
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: the page's scripts (app/page.py SCRIPTS) name it")
        parts.append(b"// static/js/%s\n%s\n;\n" % (name.encode(), path.read_bytes()))
    return b"".join(parts)
