"""Request limits through the production WSGI server, where the in-process checks of test_api_errors.py (a body with
a Content-Length over 1 MiB, over-long values, too many series, thousands of parameters) cannot reach:
- a body sent in chunks, without a Content-Length: refused with the JSON 413 once past the limit, on GET and on the
  one route that reads a body (POST /api/v1/benchmarks), where Werkzeug alone would cut it at the limit silently;
  a chunked body within the limit still reaches the view whole;
- too many series over the wire, and gunicorn's own limits on the request line and on headers (its 414 and 431, in
  the API's JSON error shape), and the SCRIPT_NAME header trusted only from a configured proxy.
"""

import contextlib
import io
import json
import socket
import time
from urllib.parse import urlsplit

import pytest
from conftest import assert_error, gunicorn

from app import MAX_BODY, create_app
from app.settings import Settings

pytestmark = pytest.mark.wire


@pytest.fixture(scope="module")
def port(demo_store):
    """gunicorn (as `make run`) on a free port, serving the session's demo store."""
    with gunicorn(demo_store[0], workers=1, clean=True) as url:
        yield urlsplit(url).port


def send(port, head: str, body: bytes = b"") -> tuple[int, dict, bytes]:
    """One raw HTTP/1.1 request; (status, headers, body) of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        with contextlib.suppress(OSError):  # the server may answer and close before the whole body is sent
            s.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        data = b""
        try:
            while part := s.recv(65536):
                data += part
        except ConnectionResetError:
            pass
    head_bytes, _, content = data.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, content


def chunked(total: int, size: int = 65536) -> bytes:
    out, left = b"", total
    while left:
        n = min(size, left)
        out += b"%x\r\n" % n + b"x" * n + b"\r\n"
        left -= n
    return out + b"0\r\n\r\n"


def request(path, method="GET", extra=""):
    return f"{method} {path} HTTP/1.1\nHost: test\nConnection: close\n{extra}"


def json_error(status, headers, content, expected):
    assert status == expected, (status, content[:300])
    assert headers.get("Content-Type", "").startswith("application/json"), headers
    err = json.loads(content)["error"]
    assert err["status"] == expected and err["code"] and err["message"]
    return err


@pytest.mark.slow  # gunicorn: over half a second
def test_a_chunked_body_over_the_limit_is_refused(port, dbs):
    series = f"/api/v1/dbs/{dbs['rac']}/series?name=derived:aas"
    started = time.monotonic()
    status, headers, content = send(port, request(series, extra="Transfer-Encoding: chunked\n"), chunked(MAX_BODY + 1))
    err = json_error(status, headers, content, 413)
    assert "over 1048576 bytes" in err["message"]
    assert time.monotonic() - started < 5
    for size in (0, 10, MAX_BODY):  # within the limit: ignored, as a body with a length is
        status, _, content = send(port, request(series, extra="Transfer-Encoding: chunked\n"), chunked(size))
        assert status == 200 and b'"series"' in content, (size, status, content[:200])
    status, headers, content = send(
        port,
        request("/api/v1/benchmarks", "POST", "Transfer-Encoding: chunked\nContent-Type: application/json\n"),
        chunked(4 * MAX_BODY),
    )
    json_error(status, headers, content, 413)  # before the route's own checks (and before anything is written)


def test_a_chunked_body_within_the_limit_reaches_the_view_whole(demo_store, monkeypatch):
    """The one route that reads a body gets a chunked one, read ahead by the limit check, byte for byte (here: JSON
    it cannot parse, quoted back in the error)."""
    monkeypatch.setenv("TEST_LIMITS_API_KEY", "k-123")
    app = create_app(
        Settings.from_env(
            {}, targets={"demo": {"sqlite": str(demo_store[0])}}, api_key_secret="env:TEST_LIMITS_API_KEY"
        )
    )
    body = b'{"slug": "x", ' + b"y" * 5000
    resp = app.test_client().post(
        "/api/v1/benchmarks",
        input_stream=io.BytesIO(body),
        headers={"Transfer-Encoding": "chunked", "X-API-Key": "k-123", "Content-Type": "application/json"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    err = assert_error(resp, 400, "body")
    assert "empty" not in err["message"].lower(), err  # the view saw the bytes, not an empty stream


@pytest.mark.slow  # gunicorn: over half a second
def test_a_body_with_a_length_over_the_limit_is_refused_over_the_wire(port, dbs):
    series = f"/api/v1/dbs/{dbs['rac']}/series?name=derived:aas"
    status, headers, content = send(
        port, request(series, extra=f"Content-Length: {MAX_BODY + 1}\n"), b"x" * (MAX_BODY + 1)
    )
    json_error(status, headers, content, 413)


@pytest.mark.slow  # gunicorn: over half a second
def test_too_many_series_over_the_wire(port, dbs):
    names = "&".join(f"name=sysstat:stat{i}" for i in range(9))
    status, headers, content = send(port, request(f"/api/v1/dbs/{dbs['rac']}/series?{names}"))
    assert json_error(status, headers, content, 400)["parameter"] == "name"


@pytest.mark.parametrize(
    "case, head, expected",
    [
        ("request line over 4094 bytes", request("/api/v1/dbs?" + "a" * 5000), 414),
        ("10,000 series names", request("/api/v1/dbs/x/series?" + "&".join(f"name=s{i}" for i in range(10_000))), 414),
        ("a long sql_id", request("/api/v1/dbs/x/sql/" + "a" * 5000), 414),
        ("more than 100 headers", request("/api/v1/dbs", extra="".join(f"X-H{i}: 1\n" for i in range(150))), 431),
        ("200 headers", request("/api/v1/dbs", extra="".join(f"X-H{i}: 1\n" for i in range(200))), 431),
        ("a header over 8190 bytes", request("/api/v1/dbs", extra="X-Big: " + "a" * 9000 + "\n"), 431),
        ("a 100 KB header", request("/api/v1/dbs", extra="X-Big: " + "a" * 100_000 + "\n"), 431),
        ("no request line", "NOT HTTP\n", 400),
    ],
)
@pytest.mark.slow  # gunicorn: over half a second
def test_gunicorn_limits_on_the_request_itself(port, case, head, expected):
    """gunicorn refuses these before the app sees them (RFC 9110 15.5.15 and RFC 6585 5 for the status), in the API's
    JSON error shape (gunicorn.conf.py) rather than its own HTML page."""
    status, headers, content = send(port, head)
    err = json_error(status, headers, content, expected)
    if expected == 414:
        assert "over 4094 bytes" in err["message"] and err["code"] == "uri_too_long", (case, err)
    if expected == 431:
        assert "more than 100 header fields, or one over 8190 bytes" in err["message"], (case, err)
        assert err["code"] == "request_header_fields_too_large"
    assert int(headers["Content-Length"]) == len(content)


@pytest.mark.slow  # gunicorn: over half a second
def test_a_script_name_header_counts_only_from_a_configured_proxy(port, demo_store):
    """gunicorn maps a SCRIPT_NAME header into the WSGI environ only from an address in forwarded_allow_ips: from no
    address unless FORWARDED_ALLOW_IPS names the proxy. The OpenAPI document's servers follow it, and it is
    revalidated (no-cache)."""
    ask = request("/evil/api/v1/openapi.json", extra="SCRIPT_NAME: /evil\n")
    status, headers, content = send(port, ask)
    json_error(status, headers, content, 404)  # the header ignored: no such path
    status, headers, content = send(port, request("/api/v1/openapi.json", extra="SCRIPT_NAME: /evil\n"))
    assert status == 200 and json.loads(content)["servers"] == [{"url": "/"}]
    assert headers["Cache-Control"] == "no-cache" and headers["ETag"]
    with gunicorn(demo_store[0], workers=1, env={"FORWARDED_ALLOW_IPS": "127.0.0.1"}, clean=True) as url:
        status, headers, content = send(urlsplit(url).port, ask)
    assert status == 200 and json.loads(content)["servers"] == [{"url": "/evil/"}]


@pytest.mark.slow  # gunicorn: over half a second
def test_the_longest_documented_request_is_within_gunicorns_limits(port, dbs, api):
    """gunicorn answers an over-long request line or headers itself (docs/oracle.md, Never hang); no request the API
    documents comes near: the 8 longest series names of the catalog, percent-encoded, with every other parameter of
    /series at its longest, is answered by the app (issue 12)."""
    from urllib.parse import urlencode

    names = sorted(
        (r["name"] for r in api.get(f"/api/v1/dbs/{dbs['rac']}/catalog").get_json()["rows"]),
        key=lambda n: len(urlencode({"name": n})),
    )[-8:]
    query = urlencode(
        [("name", n) for n in names]
        + [
            ("from", "2026-11-10T00:00:00.000000+01:00"),
            ("to", "2026-11-17T00:00:00.000000+01:00"),
            ("instance", "each"),
            ("rate", "per_second"),
            ("max_points", "50000"),
            ("shape", "axes"),
            ("format", "json"),
            ("show_sql", "1"),
        ]
    )
    path = f"/api/v1/dbs/{dbs['rac']}/series?{query}"
    assert len(f"GET {path} HTTP/1.1") < 4094 / 2  # half of gunicorn's request line limit at most
    status, _, content = send(port, request(path, extra="X-API-Key: " + "k" * 256 + "\n"))
    assert status == 200, content[:300]
