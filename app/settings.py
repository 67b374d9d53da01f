"""Every setting, declared once with its default and help; read from AWRLENS_* environment variables.

Unknown or malformed AWRLENS_* variables stop the app at start with a message that names them.
"""
import json
import os
from dataclasses import dataclass, field, fields

ON_LAMBDA = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))
EMBEDDED = "demo"  # the alias of the embedded SQLite store, the one target when none is configured


def setting(default, help, *, parse=None):
    return field(default=default, metadata={"help": help, "parse": parse})


def _targets(text):
    value = json.loads(text)
    if not isinstance(value, dict) or not value:
        raise ValueError("a JSON object of alias -> target, e.g. {\"prod\": {\"dsn\": ..., \"user\": ...}}")
    return value


@dataclass(frozen=True)
class Settings:
    store_path: str = setting("var/awrlens.sqlite", "Embedded SQLite store used when no targets are set.")
    targets: dict = setting(None, "JSON object alias -> target. A target is {\"sqlite\": path} or an Oracle "
                            "{\"dsn\", \"user\", \"password_env\" | \"password_secret\", \"view_prefix\"}.",
                            parse=_targets)
    connect_timeout: float = setting(5.0, "Seconds allowed to get an Oracle connection (wall clock).")
    call_timeout: float = setting(10.0, "Seconds allowed for each round trip to the database.")
    expire_time: int = setting(1, "Minutes between TCP keepalive probes on Oracle connections (0 = off).")
    pool_max: int = setting(1 if ON_LAMBDA else 4, "Oracle connections per process (1 per Lambda container).")
    snapshot_ttl: float = setting(60.0, "Seconds the snapshot list of a database is cached.")
    min_interval: float = setting(300.0, "Snapshots closer than this many seconds to the previous one are merged.")
    max_points: int = setting(2000, "Default points per series after downsampling.")
    max_series: int = setting(8, "Most series names in one request.")
    max_range_days: float = setting(400.0, "Widest time range one request may ask for.")
    row_cap: int = setting(500_000, "Most rows one statement may return.")
    answer_cache_mb: int = setting(64, "Memory per process for answers kept to serve again (0 = off).")
    cors_origins: str = setting("*", "Allowed CORS origins, comma separated.")
    api_key_secret: str = setting(None, "API key that /api/v1 requires in the X-API-Key header: an AWS Secrets "
                                  "Manager secret id (plain, or JSON with an \"api_key\" key), or env:NAME for an "
                                  "environment variable. Unset: no key.", parse=str)

    @classmethod
    def from_env(cls, environ=os.environ, **overrides):
        """Settings from AWRLENS_<NAME> variables, then overrides; refuses unknown or malformed values."""
        known = {f.name: f for f in fields(cls)}
        values = {}
        for key, text in environ.items():
            if not key.startswith("AWRLENS_"):
                continue
            name = key[len("AWRLENS_"):].lower()
            if name not in known:
                raise ValueError(f"unknown setting {key}; known: "
                                 + ", ".join("AWRLENS_" + n.upper() for n in known))
            f = known[name]
            parse = f.metadata["parse"] or type(f.default)
            try:
                values[name] = parse(text)
            except ValueError as exc:
                raise ValueError(f"{key}={text!r} is not valid: {exc}") from None
        for name in overrides:
            if name not in known:
                raise ValueError(f"unknown setting {name}")
        values.update(overrides)
        return cls(**values)

    def all_targets(self) -> dict:
        return self.targets or {EMBEDDED: {"sqlite": self.store_path}}

    @classmethod
    def describe(cls):
        """(variable, default, help) for every setting, for the README and `flask settings`."""
        return [("AWRLENS_" + f.name.upper(), f.default, f.metadata["help"]) for f in fields(cls)]
