"""Query parameters declared once: parsed and checked for the view, and described in the OpenAPI document.

A bad value raises BadParameter naming the parameter and what it accepts; an unknown parameter is refused,
so a typo (`frm=`) is reported instead of silently ignored.
"""

import re
from dataclasses import dataclass
from datetime import datetime
from functools import wraps

from flask import request

from app import iso8601
from app.errors import BadParameter

IGNORED = {"_"}  # jQuery's cache buster


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # string | integer | datetime | enum | boolean
    help: str
    default: object = None
    choices: tuple = ()
    minimum: int | None = None
    maximum: int | None = None
    multi: bool = False
    pattern: str | None = None
    max_length: int = 200
    in_path: bool = False

    def parse(self, raw: str):
        if len(raw) > self.max_length:
            raise BadParameter(f"{self.name} is longer than {self.max_length} characters", self.name)
        if not raw.isprintable():
            raise BadParameter(f"{self.name} contains a control character", self.name)
        if self.kind == "integer":
            if not re.fullmatch(r"[+-]?[0-9]{1,18}", raw.strip()):  # ASCII digits: Python's \d takes any script's
                raise BadParameter(f"{self.name} must be an integer, got {raw!r}", self.name)
            value = int(raw)
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise BadParameter(
                    f"{self.name} must be between {self.minimum} and {self.maximum}, got {value}", self.name
                )
            return value
        if self.kind == "datetime":
            return parse_datetime(raw, self.name)
        if self.kind == "enum":
            if raw not in self.choices:
                raise BadParameter(f"{self.name} must be one of {', '.join(self.choices)}; got {raw!r}", self.name)
            return raw
        if self.kind == "boolean":
            if raw.lower() not in ("1", "0", "true", "false", "yes", "no", ""):
                raise BadParameter(f"{self.name} must be 1 or 0, got {raw!r}", self.name)
            return raw.lower() in ("1", "true", "yes")
        if self.pattern and not re.fullmatch(self.pattern, raw):
            raise BadParameter(f"{self.name} {raw!r} is malformed: {self.help}", self.name)
        return raw

    def schema(self) -> dict:
        s = {
            "integer": {"type": "integer"},
            "datetime": {"type": "string", "format": "date-time"},
            "enum": {"type": "string", "enum": list(self.choices)},
            "boolean": {"type": "boolean"},
            "string": {"type": "string"},
        }[self.kind].copy()
        if self.minimum is not None:
            s["minimum"] = self.minimum
        if self.maximum is not None:
            s["maximum"] = self.maximum
        if self.kind == "string":
            s["maxLength"] = self.max_length
            s["minLength"] = 1
            if self.pattern:
                s["pattern"] = f"^({self.pattern})$"  # grouped: ^a|b$ would anchor a's start and b's end only
        if self.default is not None:
            s["default"] = self.default
        if self.multi:
            s = {"type": "array", "items": s, "minItems": 1}
        return s

    def openapi(self) -> dict:
        p = {
            "name": self.name,
            "in": "path" if self.in_path else "query",
            "description": self.help,
            "required": self.in_path,
            "schema": self.schema(),
        }
        if self.multi:
            p.update(style="form", explode=True)
        elif not self.in_path:
            p["allowEmptyValue"] = True  # `?format=` is the same as leaving the parameter out (see accepts)
        return p


def parse_datetime(raw: str, name: str) -> datetime:
    """ISO 8601 date or date-time, with or without an offset (none = the database's time zone)."""
    try:
        return iso8601.parse(raw, iso8601.YEARS)
    except ValueError:
        raise BadParameter(
            f"{name} must be an ISO 8601 date or date-time in 1980..2999 such as 2026-11-20 or "
            f"2026-11-20T08:00:00+00:00; got {raw!r}",
            name,
        ) from None


def accepts(*declared: Param):
    """Decorator: parse the declared query parameters into a dict passed as `args`."""

    def wrap(view):
        @wraps(view)
        def run(**kwargs):
            known = {p.name: p for p in declared}
            for name in request.args:
                if name not in known and name not in IGNORED:
                    raise BadParameter(
                        f"unknown parameter {name!r}; this endpoint accepts {', '.join(sorted(known)) or 'none'}", name
                    )
            args = {}
            for p in declared:
                if p.in_path:
                    continue
                raws = request.args.getlist(p.name)
                if p.multi:
                    args[p.name] = [p.parse(r) for r in raws] or ([p.default] if p.default is not None else [])
                elif len(raws) > 1:
                    raise BadParameter(f"{p.name} may be given once", p.name)
                else:
                    args[p.name] = p.parse(raws[0]) if raws and raws[0] != "" else p.default
            return view(args=args, **kwargs)

        run.params = declared
        return run

    return wrap


RANGE = (
    Param(
        "from",
        "datetime",
        "Start of the range (ISO 8601; no offset = the database's time zone). Default: 7 days before `to`.",
    ),
    Param("to", "datetime", "End of the range. Default: the newest snapshot."),
    Param("begin_snap", "integer", "First snapshot id (instead of from/to).", minimum=0, maximum=10**12),
    Param("end_snap", "integer", "Last snapshot id (instead of from/to).", minimum=0, maximum=10**12),
)
INSTANCE = Param(
    "instance",
    "string",
    "all (RAC instances combined), each (one series per instance), or an instance number.",
    default="all",
    pattern=r"all|each|[0-9]{1,4}",
)
TABLE_INSTANCE = Param(
    "instance", "string", "all (combined) or an instance number.", default="all", pattern=r"all|[0-9]{1,4}"
)
RATE = Param(
    "rate",
    "enum",
    "How a cumulative counter is shown: per_second, per_txn (per transaction), or raw deltas.",
    default="per_second",
    choices=("per_second", "per_txn", "raw"),
)
FORMAT = Param("format", "enum", "json, or csv for a table.", default="json", choices=("json", "csv"))
BAND = Param(
    "band",
    "boolean",
    "1 adds each series' normal band: per hour of the range, the 10th, 50th and 90th percentiles of the series at "
    "the same hour of the week in the 4 weeks before (docs/awr-rules.md §32).",
    default=False,
)
BAND_BASELINE = Param(
    "band_baseline",
    "string",
    "With band=1: the AWR baseline (its name, as /baselines lists it) the band is made of instead: per hour of the "
    "range, the percentiles of the baseline's values at the same hour of the day (docs/awr-rules.md §32).",
)

SHOW_SQL = Param(
    "show_sql", "boolean", "1 adds the SQL statements run, with their binds, to the answer.", default=False
)


MAX_POINTS = Param(
    "max_points",
    "integer",
    "Most points per series. A series over more intervals is read in "
    "buckets, each point a bucket's rate or mean (docs/awr-rules.md §21); "
    "SQL detail and tablespaces are downsampled with LTTB (peaks kept). "
    "0 = every point, otherwise at least 3. Default: AWRLENS_MAX_POINTS.",
    minimum=0,
    maximum=50_000,
)
SHAPE = Param(
    "shape",
    "enum",
    "How a series' points are given: pairs, [[time, value], ...] per series; or axes, each "
    "distinct list of times once in the answer's `axes`, and per series its `axis` (an "
    "index there) and `values` (half the bytes where series share their times). CSV "
    "is always in long form.",
    default="pairs",
    choices=("pairs", "axes"),
)
