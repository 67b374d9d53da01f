"""The API key: when one is configured, /api/v1 answers only requests that carry it in the X-API-Key header.

AWRLENS_API_KEY_SECRET says where the key lives: an AWS Secrets Manager secret id or ARN (a plain SecretString, or
JSON with an "api_key" key, so that one secret can hold the Oracle password under "password" and the key beside
it), or env:NAME for an environment variable (local runs). Nothing is read at start: the first request that needs
the key reads it, and the process keeps it. A key that does not match makes the process read the secret again, at
most once a minute, so a rotated key is picked up without a restart.

The key travels in the header only, never in the URL, where it would land in access logs and browser history.
Exempt: CORS preflights (OPTIONS carries no custom header), /api/v1/ and /api/v1/openapi.json, and views marked
`key_optional`, which check the key themselves (the benchmark runs: public ones open without a key).
"""

import hmac
import logging
import os
import threading
import time

from flask import request

from app.errors import ApiError, Unauthorized
from app.secrets import SecretUnavailable, secret_value

HEADER = "X-API-Key"
PREFIX = "/api/v1/"
EXEMPT = frozenset({"/api/v1/", "/api/v1/openapi.json"})
REREAD_AFTER = 60.0  # seconds before a wrong key may make the process read the secret again

log = logging.getLogger(__name__)


class KeyUnavailable(ApiError):
    status, code = 503, "api_key_unavailable"


def require_api_key(app):
    """Check X-API-Key on /api/v1 when AWRLENS_API_KEY_SECRET is set. Register before the answer cache."""
    settings = app.config["SETTINGS"]
    if not settings.api_key_secret:
        return
    key = app.extensions["api_key"] = ApiKey(settings.api_key_secret, settings.connect_timeout)

    @app.before_request
    def _require_api_key():
        if request.method == "OPTIONS" or not request.path.startswith(PREFIX) or request.path in EXEMPT:
            return None
        if getattr(app.view_functions.get(request.endpoint), "key_optional", False):
            return None  # the view checks the key itself (public benchmark runs open without one)
        given = request.headers.get(HEADER, "")
        if not given:
            raise Unauthorized(f"this API needs a key: send it in the {HEADER} header")
        if not key.matches(given):
            raise Unauthorized(f"the key in the {HEADER} header is not valid")
        return None


class ApiKey:
    """The expected key, read on first use and kept; read again when a wrong key comes after REREAD_AFTER s."""

    def __init__(self, source: str, timeout: float):
        self.source, self.timeout = source, timeout
        self._value: str | None = None
        self._read_at = 0.0
        self._lock = threading.Lock()

    def matches(self, given: str) -> bool:
        if _same(given, self._current()):
            return True
        with self._lock:
            if time.monotonic() - self._read_at < REREAD_AFTER:
                return False
            self._read_at = time.monotonic()
            try:
                self._value = read_key(self.source, self.timeout)
            except KeyUnavailable as exc:  # keep the key we have
                log.warning("could not read the API key again: %s", exc.message)
            return _same(given, self._value)

    def _current(self) -> str:
        with self._lock:
            if self._value is None:
                self._value = read_key(self.source, self.timeout)
                self._read_at = time.monotonic()
            return self._value


def _same(given: str, expected: str) -> bool:
    # any surrogate encodes (as bytes no key's UTF-8 holds): a header of undecodable bytes, or "\ud800" in an event
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8"))


def read_key(source: str, timeout: float) -> str:
    """The key from env:NAME or from a Secrets Manager secret; KeyUnavailable (503) when it cannot be had."""
    if source.startswith("env:"):
        value = os.environ.get(source[4:])
        if not value:
            raise KeyUnavailable(f"the environment variable {source[4:]} named by AWRLENS_API_KEY_SECRET is not set")
        return value
    try:
        return secret_value(source, "api_key", timeout, "the API key secret")
    except SecretUnavailable as exc:
        raise KeyUnavailable(str(exc)) from None
