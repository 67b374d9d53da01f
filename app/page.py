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


def context(settings: Settings, api_base: str = "", vendor: str = VENDOR) -> dict:
    """The template's variables: where the API lives ("" = the page's own origin), where the vendored libraries
    are, and the limits."""
    return {"api_base": api_base.rstrip("/"), "vendor": vendor, "limits": limits(settings)}
