"""The field tests, reproducible on the configured database: each returns a run document for the test-result
tables (app.bench.model), with the machine it ran on and, on Oracle, the AWR window it covers.

- cpu: seed 002, per-session elapsed time of a CPU-only statement as parallel sessions grow;
- hang: seed 001, how long the real driver waits when a database goes silent, drops or resets, with and without
  the bounds the app sets.
"""
import re
import socket
from datetime import datetime, timezone


def default_slug(prefix: str, moment: datetime | None = None) -> str:
    """A readable, unique-enough slug: prefix, host and UTC time, e.g. cpu-db1-20261120-0615."""
    moment = moment or datetime.now(timezone.utc)
    host = re.sub(r"[^a-z0-9]+", "-", socket.gethostname().lower().split(".")[0]).strip("-")[:30] or "host"
    return f"{prefix}-{host}-{moment:%Y%m%d-%H%M%S}"


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)
