"""Answers kept in memory: AWR history is written once, so the same question gets the same answer.

Each process keeps its own, or with a directory (AWRLENS_ANSWER_CACHE_DIR) the server's processes keep them together
in a diskcache Cache there (SQLite, safe across processes and threads), so that an answer one gunicorn worker
computed serves the next request whichever worker takes it. Its oldest answers are dropped first past the bound.

A successful GET under /api/v1 is kept for as long as its own Cache-Control allows (a closed range for
`closed_ttl`, an answer that depends on the newest snapshot for `snapshot_ttl`, the same time the snapshot list
is cached), in a least-recently-used map bounded in bytes. A hit skips the database and the computation; the
validators still apply (If-None-Match gives 304), CORS headers are added as for any answer, and `Age` says how long
ago it was computed.
Requests with show_sql=1 always run, since their answer is the SQL that ran.
"""

import threading
import time
from collections import OrderedDict

from flask import Response, g, request

KEPT_HEADERS = (
    "Content-Type",
    "Cache-Control",
    "ETag",
    "Content-Disposition",
    "Content-Security-Policy",
    "X-Content-Type-Options",
)  # documents keep their isolation: Oracle's reports, the app's report


class AnswerCache:
    def __init__(self, max_bytes: int, closed_ttl: float, open_ttl: float, directory: str | None = None):
        self.max_bytes, self.closed_ttl, self.open_ttl = max_bytes, closed_ttl, open_ttl
        self.entries: OrderedDict = OrderedDict()  # key -> (expires, body, headers, when stored: time.time())
        self.size = 0
        self.lock = threading.Lock()
        self.shared = None
        if directory and max_bytes > 0:
            import diskcache

            # least recently stored: a read writes nothing, so workers reading the same answers do not queue
            self.shared = diskcache.Cache(directory, size_limit=max_bytes, eviction_policy="least-recently-stored")

    def init_app(self, app, prefix="/api/v1/"):
        app.extensions["answer_cache"] = self

        def cacheable():
            return (
                self.max_bytes > 0
                and request.method == "GET"
                and request.path.startswith(prefix)
                and not request.args.get("show_sql")
            )

        @app.before_request
        def _answer_from_cache():
            if cacheable():
                hit = self.get(_key())
                if hit is not None:
                    g.answer_from_cache = True
                    body, headers, stored = hit
                    age = [("Age", str(max(int(time.time() - stored), 0)))]  # RFC 9111 5.1: a cache's answer's age
                    return Response(body, 200, headers + age).make_conditional(request)
            return None

        @app.after_request
        def _keep_answer(resp):
            if (
                resp.status_code == 200
                and cacheable()
                and not g.get("answer_from_cache")
                and not resp.direct_passthrough
            ):
                max_age = resp.cache_control.max_age or 0
                ttl = min(max_age, self.closed_ttl if max_age > self.open_ttl else self.open_ttl)
                if ttl > 0:
                    self.put(
                        _key(), ttl, resp.get_data(), [(h, resp.headers[h]) for h in KEPT_HEADERS if h in resp.headers]
                    )
            return resp

    def get(self, key):
        if self.shared is not None:
            return self.shared.get(key, retry=True)
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return None
            if entry[0] <= time.monotonic():  # RFC 9111 4.2: fresh while its age is less than its lifetime
                self._drop(key)
                return None
            self.entries.move_to_end(key)
            return entry[1:]

    def put(self, key, ttl, body: bytes, headers):
        if len(body) > self.max_bytes // 8:  # one answer may not push out most of the others
            return
        if self.shared is not None:
            self.shared.set(key, (body, headers, time.time()), expire=ttl, retry=True)
            return
        with self.lock:
            if key in self.entries:
                self._drop(key)
            self.entries[key] = (time.monotonic() + ttl, body, headers, time.time())
            self.size += len(body)
            while self.size > self.max_bytes:
                self._drop(next(iter(self.entries)))

    def clear(self):
        """Forget every answer (a reports store was written: the history it answered from changed)."""
        if self.shared is not None:
            self.shared.clear(retry=True)
            return
        with self.lock:
            self.entries.clear()
            self.size = 0

    def _drop(self, key):
        self.size -= len(self.entries.pop(key)[1])


def _key():
    """The question: the path and each parameter with its values in the order given (a repeated `name` of /series
    answers its series in that order), the parameters themselves in any order."""
    return request.path, tuple(sorted((k, tuple(request.args.getlist(k))) for k in request.args))
