"""Every setting, declared once with its default and help; read from AWRLENS_* environment variables.

Unknown or malformed AWRLENS_* variables stop the app at start with a message that names them.
"""

import json
import os
from dataclasses import dataclass, field, fields

ON_LAMBDA = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))
EMBEDDED = "demo"  # the alias of the embedded SQLite store, a target when none is configured
REPORTS = "reports"  # the alias of the store of imported report files, the other one


def setting(default, help, *, parse=None, shown=None):
    """A setting's default, its help (docs/oracle.md's table is made from it), its parser, and how the default is
    shown when it is not the same everywhere."""
    return field(default=default, metadata={"help": help, "parse": parse, "shown": shown})


def _targets(text):
    value = json.loads(text)
    if not isinstance(value, dict) or not value:
        raise ValueError("a JSON object of alias -> target, e.g. {\"prod\": {\"dsn\": ..., \"user\": ...}}")
    return value


@dataclass(frozen=True)
class Settings:
    store_path: str = setting("var/awrlens.sqlite", "Embedded SQLite store used when no targets are set.")
    reports_path: str = setting(
        None if ON_LAMBDA else "var/reports.sqlite",
        "SQLite file the imported AWR report files are kept in (`flask reports import`, POST /api/v1/reports), "
        "served as the target `reports` when no targets are set (with targets, add {\"reports\": path}); empty: none.",
        parse=str,
        shown="`var/reports.sqlite` (none on Lambda)",
    )
    targets: dict = setting(
        None,
        "JSON object alias -> target. A target is {\"sqlite\": path}, {\"reports\": path} or an Oracle "
        "{\"dsn\", \"user\", \"password_env\" | \"password_secret\", \"view_prefix\", "
        "\"management_packs\"} (see Oracle above).",
        parse=_targets,
    )
    connect_timeout: float = setting(5.0, "Seconds allowed to get an Oracle connection (wall clock).")
    call_timeout: float = setting(10.0, "Seconds allowed for each round trip to the database.")
    report_timeout: float = setting(
        20.0,
        "Seconds Oracle may take to render one of its own reports (an AWR report, RAC global or over a long range, or "
        "a SQL monitor report), instead of AWRLENS_CALL_TIMEOUT; past it, 504 naming this setting. A report's request "
        "waits at most AWRLENS_CONNECT_TIMEOUT + this + 1 s: keep that under the Lambda function's timeout "
        "(zappa_settings.json), itself under API Gateway's 29 s.",
    )
    licence_ttl: float = setting(
        60.0,
        "Seconds an Oracle target's licence (CONTROL_MANAGEMENT_PACK_ACCESS and the edition) is kept before the next "
        "statement that needs a pack reads it again (docs/oracle.md, Grants and licences).",
    )
    expire_time: int = setting(1, "Minutes between TCP keepalive probes on Oracle connections (0 = off).")
    pool_max: int = setting(
        1 if ON_LAMBDA else 4, "Oracle connections per process (1 per Lambda container).", shown="4 (1 on Lambda)"
    )
    snapshot_ttl: float = setting(60.0, "Seconds the snapshot list of a database is cached.")
    min_interval: float = setting(
        300.0, "Snapshots closer than this many seconds to the previous one are merged (manual snapshots)."
    )
    max_points: int = setting(
        2000,
        "Default points per series: a longer series is read in buckets (docs/awr-rules.md §21) or downsampled (LTTB).",
    )
    max_series: int = setting(8, "Most series names in one request.")
    max_range_days: float = setting(400.0, "Widest time range one request may ask for.")
    row_cap: int = setting(
        500_000,
        "Most rows one statement may return, enforced in the statement: a question "
        "that reads more is answered 422 too_many_rows. The snapshot list reads the newest ones.",
    )
    max_in_flight: int = setting(
        8,
        "Statements in flight per Oracle target and process; past it a request is "
        "answered 503 target_busy at once, so a slow or silent database holds a few of "
        "the server's threads, never all of them.",
    )
    answer_cache_mb: int = setting(
        64,
        "Memory per process for answers kept to serve again (0 = off); with AWRLENS_ANSWER_CACHE_DIR, the size of "
        "the shared cache.",
    )
    answer_cache_dir: str = setting(
        None,
        "A directory the server's processes keep their answers in together (diskcache), so that an answer one "
        "worker computed serves every worker; gunicorn.conf.py sets a fresh one per server. Unset: each process "
        "keeps its own in memory (Lambda).",
        parse=str,
    )
    cors_origins: str = setting("*", "Allowed CORS origins, comma separated.")
    api_key_secret: str = setting(
        None,
        "Where the API key lives, when /api/v1 requires one in the X-API-Key "
        "header: an AWS Secrets Manager secret id or ARN (plain, or JSON with an "
        "\"api_key\" key), or env:NAME for an environment variable. Unset: no key. "
        "/api/v1/, the OpenAPI document and CORS preflights stay open; a key in the URL "
        "does not count.",
        parse=str,
    )
    runs_target: str = setting(
        None,
        "The target whose store holds the benchmark runs (the BENCH_RUN and "
        "BENCH_MEASUREMENT tables). Unset: the first target.",
        parse=str,
    )

    def __post_init__(self):
        if self.runs_target is not None and self.runs_target not in self.all_targets():
            raise ValueError(
                f"AWRLENS_RUNS_TARGET={self.runs_target!r} is not a target; targets: " + ", ".join(self.all_targets())
            )

    @classmethod
    def from_env(cls, environ=os.environ, **overrides):
        """Settings from AWRLENS_<NAME> variables, then overrides; refuses unknown or malformed values."""
        known = {f.name: f for f in fields(cls)}
        values = {}
        for key, text in environ.items():
            if not key.startswith("AWRLENS_"):
                continue
            name = key[len("AWRLENS_") :].lower()
            if name not in known:
                raise ValueError(f"unknown setting {key}; known: " + ", ".join("AWRLENS_" + n.upper() for n in known))
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
        if self.targets:
            return self.targets
        return {EMBEDDED: {"sqlite": self.store_path}} | (
            {REPORTS: {"reports": self.reports_path}} if self.reports_path else {}
        )

    @classmethod
    def describe(cls):
        """(variable, default as shown, help) for every setting, for docs/oracle.md and `flask settings`."""
        return [("AWRLENS_" + f.name.upper(), _shown(f), f.metadata["help"]) for f in fields(cls)]

    @classmethod
    def markdown(cls) -> str:
        """The table of settings in docs/oracle.md (tests/test_settings.py keeps the file equal to it)."""
        lines = ["| variable | default | meaning |", "|---|---|---|"]
        lines += [
            f"| `{var}` | {default} | {help_text.replace('|', chr(92) + '|')} |"
            for var, default, help_text in cls.describe()
        ]
        return "\n".join(lines) + "\n"


def _shown(f) -> str:
    if f.metadata["shown"]:
        return f.metadata["shown"]
    if f.default is None:
        return "—"
    if isinstance(f.default, str):
        return f"`{f.default}`"
    return f"{f.default:g}" if isinstance(f.default, float) else str(f.default)
