"""The hang lab, field test 001 (client hangs during RDS failover): how long the real python-oracledb driver (thin
mode) waits in each of the three places a client hangs when its database fails over, against loopback endpoints that
stay silent, drop or reset, with the driver's defaults and with the bounds the app sets. Each wait is measured; one
that outlasts `cap` is recorded as `cap` with still_hanging, and the endpoint is then reset so the waiting thread
ends. Lab equipment, never shipped to Lambda: `flask runs hang` imports it only when it runs.

What each case exercises at the TCP level, without a real Oracle server:
- new connection (real): the driver's own connect against a listener that accepts and never answers (silent), a
  port whose accept queue is full so the SYN is dropped and retransmitted (drop), and one that resets (reset).
  Bounded by the app's pool wait (connect_timeout; the driver's connect() alone hangs for ever on a silent peer)
  and tcp_connect_timeout; with the defaults only by tcp_connect_timeout's 20 s, which a silent peer never hits.
- new call on a dead connection: a stand-in server completes a real logon, then dies before the call. silent: the
  server process stops answering but its kernel still acknowledges every packet, so the driver's request is
  delivered and no reply comes. This is not the field's dead host, where the client's TCP retransmits the
  unacknowledged call until tcp_retries2 gives up (15 min 35 s in field test 001): loopback cannot lose packets. Either
  way only a call timeout bounds the wait. reset: the connection was reset (as a moved RAC VIP does): the call
  fails at once.
- call in flight: the stand-in receives the call, lets it run `delay` seconds, then goes silent or resets. The
  wait counted is the time after the server died. Keepalive (expire_time) cannot fire on loopback, because the
  peer's kernel answers the probes; here the bound is call_timeout (twice at worst: the driver waits as long again
  for the answer to its break). Against a vanished host, keepalive is what ends a wait nothing else bounds.
"""

import contextlib
import re
import threading
import time

from app.runs.machine import machine
from app.runs.model import default_slug, utc_now

PASSWORD = "lab-Pw-1"  # shared by the stand-in and the client; nothing real
CASES = (
    ("new connection", ("silent", "drop", "reset")),
    ("new call on a dead connection", ("silent", "reset")),
    ("call in flight", ("silent", "reset")),
)
DEFAULTS, BOUNDED = "driver defaults", "app bounds"


def plan() -> list[tuple[str, str, str]]:
    return [
        (case, endpoint, mode) for case, endpoints in CASES for endpoint in endpoints for mode in (DEFAULTS, BOUNDED)
    ]


def run(
    settings,
    cap: float = 60.0,
    delay: float = 0.5,
    slug: str | None = None,
    visibility: str = "public",
    on_progress=None,
) -> dict:
    """Measure every case x endpoint x mode; returns the run document (not yet stored)."""
    import oracledb

    steps = plan()
    rows = []
    started = utc_now()
    for done, (case, endpoint, mode) in enumerate(steps, 1):
        waited, outcome, hanging, call_s = _measure(settings, case, endpoint, mode, cap, delay)
        extra = {"case": case, "endpoint": endpoint, "outcome": outcome, "still_hanging": hanging}
        if mode == BOUNDED:
            extra["bound_s"] = _bound(settings, case, endpoint)
        if call_s is not None:
            extra["call_s"] = round(call_s, 3)
        rows.append({"series": mode, "x": f"{case} / {endpoint}", "y": round(waited, 3), "unit": "s", "extra": extra})
        if on_progress:
            on_progress(done, len(steps))
    finished = utc_now()
    host = machine()
    s = settings
    return {
        "slug": slug or default_slug("hang", started),
        "kind": "client_hang",
        "visibility": visibility,
        "title": f"Client hangs against loopback endpoints: driver defaults vs the app's bounds "
        f"(connect {s.connect_timeout:g} s, call {s.call_timeout:g} s)",
        "description": (
            __doc__.split("\n\n", 1)[1].strip() + f"\n\nWaits over {cap:g} s are drawn at {cap:g} s "
            "with still_hanging. Recorded by `flask runs hang`."
        ),
        "environment": {
            "host": host["host"],
            "vcpus": host["vcpus"],
            "cores": host["cores"],
            "db_version": f"python-oracledb {oracledb.__version__} thin, loopback stand-in",
        },
        "started": started.isoformat(),
        "finished": finished.isoformat(),
        "parameters": {
            "connect_timeout_s": s.connect_timeout,
            "call_timeout_s": s.call_timeout,
            "expire_time_min": s.expire_time,
            "cap_s": cap,
            "in_flight_delay_s": delay,
            "driver_defaults": "oracledb.connect(): tcp_connect_timeout 20 s, no call timeout, no keepalive",
            "os": host["os"],
        },
        "measurements": rows,
    }


def _bound(s, case, endpoint) -> float:
    if endpoint == "reset":
        return 0.0
    return s.connect_timeout if case == "new connection" else 2 * s.call_timeout


def _measure(s, case, endpoint, mode, cap, delay):
    """(seconds waited, outcome, still hanging, whole call in seconds or None) for one combination."""
    import oracledb

    from app.store.oracle import bounded_pool_options
    from lab.endpoints import DroppedSyn, Listener, OracleStandIn

    bounded = mode == BOUNDED
    pool = None

    def client():
        nonlocal pool
        if bounded:
            pool = oracledb.create_pool(
                **bounded_pool_options(s, user="lab", password=PASSWORD, dsn=target.dsn, max_connections=1)
            )
            conn = pool.acquire()
            conn.call_timeout = max(1, int(s.call_timeout * 1000))  # as the app sets it on every checkout
            return conn
        return oracledb.connect(user="lab", password=PASSWORD, dsn=target.dsn)

    if case == "new connection":
        target = {"silent": lambda: Listener("silent"), "reset": lambda: Listener("reset"), "drop": DroppedSyn}[
            endpoint
        ]()
        call, dead = client, None
    else:
        target = OracleStandIn(PASSWORD)
        conn = client()  # a healthy logon first
        if case == "new call on a dead connection":
            target.kill(endpoint)  # the server dies between calls
            call = lambda: conn.cursor().execute("select 1 from dual")  # noqa: E731
        else:
            target.arm(endpoint, delay)  # ... or under the next call
            call = lambda: conn.cursor().execute("begin dbms_session.sleep(600); end;")  # noqa: E731
        dead = delay if case == "call in flight" else 0.0
    try:
        elapsed, error, hanging, thread = _timed(call, cap + (dead or 0.0))
    finally:
        target.close()  # resets what it holds: a client still waiting gets an error and its thread ends
    thread.join(5)
    if pool is not None:
        with contextlib.suppress(Exception):
            pool.close(force=True)
    if hanging:
        return cap, f">= {cap:g} s, still hanging", True, None
    outcome = _outcome(error) if error else "answered"
    if dead:
        return max(elapsed - dead, 0.0), outcome, False, elapsed
    return elapsed, outcome, False, None


def _timed(fn, limit):
    """Run fn() in a thread for at most `limit` seconds: (elapsed, error, still running, thread)."""
    out: dict = {}

    def run():
        t0 = time.monotonic()
        try:
            fn()
        except BaseException as exc:  # the driver's errors are what is measured
            out["error"] = exc
        out["elapsed"] = time.monotonic() - t0

    started = time.monotonic()
    thread = threading.Thread(target=run, daemon=True, name="hang-lab-client")
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        return time.monotonic() - started, None, True, thread
    return out["elapsed"], out.get("error"), False, thread


def _outcome(exc: BaseException) -> str:
    """The driver's error in one line: its first line, and its cause where it gives one on a last line (DPY-6005
    "cannot connect to database" says why below it: "timed out" when tcp_connect_timeout fired)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()] or [type(exc).__name__]
    text = re.sub(r"\s*\(CONNECTION_ID=[^)]*\)", "", lines[0]).rstrip(".")
    if len(lines) > 1:
        text += f": {lines[-1]}"
    return text[:160]
