"""What the API contract tests (tests/test_api_*.py) share: names of the demo's series and runs, request helpers, and
the time stamps of an answer. Their fixtures (api, sql3, doc, summary, tz, window) are in conftest.py.

Expectations come from the demo's stories and straight from its SQLite file, never from the code under test.
"""
import re
from datetime import datetime

AAS = "derived:aas"
REDO = "sysstat:redo size"
WITH_OFFSET = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)")
LOOKS_LIKE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
RUN = "httpd-freebsd-vs-linux"  # a public benchmark run of the demo store


def url(db, tail=""):
    return f"/api/v1/dbs/{db}{tail}"


def ok(api, path, **query):
    r = api.get(path, query_string=query)
    assert r.status_code == 200, (path, query, r.get_data(as_text=True)[:500])
    return r.get_json()


def dbid_of(db):
    return int(db.rsplit(".", 1)[1])


def timestamps(value):
    """Every string in an answer that looks like a date-time."""
    if isinstance(value, dict):
        for v in value.values():
            yield from timestamps(v)
    elif isinstance(value, list):
        for v in value:
            yield from timestamps(v)
    elif isinstance(value, str) and len(value) < 40 and LOOKS_LIKE_TIME.match(value):
        yield value


def local_iso(text, zone):
    return datetime.fromisoformat(text).replace(tzinfo=zone).isoformat(timespec="seconds")
