"""gunicorn's settings for `make run`, the tests and the performance scripts (gunicorn reads this file from the
working directory). Threads, not one process per request: a request waiting on a slow or silent database holds a
thread, and the app lets only AWRLENS_MAX_IN_FLIGHT of them wait on one target (503 target_busy past it), so the
other targets, the page and the OpenAPI document keep being answered; a client that trickles its headers holds
one thread too, not a whole worker. On Lambda none of this applies: API Gateway gives each container one request.
"""

import json
import os
import shutil
import tempfile

import gunicorn.util

worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", 3))
threads = 16  # per worker: above AWRLENS_MAX_IN_FLIGHT (8), so a busy target leaves threads for everything else
timeout = 60  # a worker whose threads all stay stuck this long is restarted (requests end well before: 26 s)
keepalive = 5
# What gunicorn reads of a request before the app sees it (its defaults, named here for the refusals below)
limit_request_line = 4094  # bytes of the request line: method, path and query
limit_request_fields = 100  # header fields
limit_request_field_size = 8190  # bytes of one header field
# The SCRIPT_NAME header (a path prefix) and X-Forwarded-Proto only from a proxy named in FORWARDED_ALLOW_IPS:
# gunicorn's default trusts any client on 127.0.0.1, whose SCRIPT_NAME then showed in the OpenAPI document's servers
# (a client over a Unix socket is trusted whatever this says: gunicorn/http/message.py _peer_is_trusted_proxy)
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "")

LIMITS = {
    414: f"the request line (method, path and query) is over {limit_request_line} bytes",
    431: f"more than {limit_request_fields} header fields, or one over {limit_request_field_size} bytes",
}


def write_error(sock, status_int, reason, mesg):
    """A request gunicorn refuses itself (a request line or headers past the limits above, a request it cannot
    read) in the API's JSON error shape (app/errors.py), where gunicorn writes an HTML page: gunicorn/util.py
    write_error, which its workers' handle_error calls, with the same arguments."""
    from app.errors import error_body  # in a worker, where the app is imported already

    message = f"{LIMITS[status_int]} ({mesg})" if status_int in LIMITS else mesg or reason
    code = "internal_error" if status_int == 500 else reason.lower().replace(" ", "_")  # as app/__init__.py's
    body = json.dumps(error_body(status_int, code, message)).encode()
    head = f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
    gunicorn.util.write_nonblock(sock, f"{head}Content-Length: {len(body)}\r\n\r\n".encode("latin-1") + body)


gunicorn.util.write_error = write_error


def on_starting(server):
    """The workers keep their answers together (app/api/cache.py), in a directory of this server's own: fresh at each
    start, so a rebuilt store is never answered from an older server's answers."""
    if not os.environ.get("AWRLENS_ANSWER_CACHE_DIR"):
        os.environ["AWRLENS_ANSWER_CACHE_DIR"] = server.answers_dir = tempfile.mkdtemp(prefix="awrlens-answers-")


M_ARENA_MAX, ARENAS = -8, 2  # glibc's mallopt(3) parameter, and the malloc arenas a worker's threads share


def post_worker_init(worker):
    """Each worker imports at start what a visitor's first request would otherwise wait for: SQLAlchemy, which the
    benchmark runs' tables need (app/runs/repo.py; /changes and /benchmarks read them) and the embedded store's
    history answers do not, 0.2 s. On Lambda it stays imported on first use, out of the cold start.

    And its threads share ARENAS malloc arenas (glibc gives each thread its own, up to 8 per core): memory a
    statement's sorts freed in one thread's arena is used again by the next statement in another, instead of each
    arena keeping its own peak (the largest worker under perf/load.py: 280 MB without, 217 MB with; BENCHMARKS.md)."""
    import ctypes

    import app.runs.repo  # noqa: F401

    libc = ctypes.CDLL(None)
    if hasattr(libc, "mallopt"):  # glibc
        libc.mallopt(M_ARENA_MAX, ARENAS)


def on_exit(server):
    if getattr(server, "answers_dir", None):
        shutil.rmtree(server.answers_dir, ignore_errors=True)
