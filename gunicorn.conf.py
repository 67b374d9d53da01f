"""gunicorn's settings for `make run`, the tests and the performance scripts (gunicorn reads this file from the
working directory). Threads, not one process per request: a request waiting on a slow or silent database holds a
thread, and the app lets only AWRLENS_MAX_IN_FLIGHT of them wait on one target (503 target_busy past it), so the
other targets, the page and the OpenAPI document keep being answered; a client that trickles its headers holds
one thread too, not a whole worker. On Lambda none of this applies: API Gateway gives each container one request.
"""

import os

worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", 3))
threads = 16  # per worker: above AWRLENS_MAX_IN_FLIGHT (8), so a busy target leaves threads for everything else
timeout = 60  # a worker whose threads all stay stuck this long is restarted (requests end well before: 25 s)
keepalive = 5
