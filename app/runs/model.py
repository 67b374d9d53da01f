"""A run document, checked: what an upload (JSON, a CSV file, a field test) must look like before it is stored.

    {"slug": "cpu-c4-4xlarge", "title": "...", "kind": "cpu_consistency", "description": "...",
     "environment": {"host": "...", "instance_type": "c4.4xlarge", "vcpus": 16, "cores": 8, "db_version": "..."},
     "started": "2017-01-10T09:00:00Z", "finished": "...", "parameters": {...}, "visibility": "public",
     "awr": {"target": "demo", "dbid": 1645932817, "begin_snap": 100, "end_snap": 104},
     "measurements": [{"series": "N=9", "x": 9, "y": 61.2, "unit": "s", "extra": {"session": 3}}, ...]}

Every problem is a BadParameter whose `parameter` names the field (`measurements[3].y` is the third row's y) and
whose message says the row and the field, so a script or a person can find it. Nothing is stored unless the whole
document is valid.
"""

import json
import math
import re
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime

from app import iso8601
from app.errors import BadParameter

TEXT_MAX = 4000  # bytes in a text column of the runs' tables (app.store.runs_schema)
KINDS = ("cpu_consistency", "io_sweep", "client_hang", "before_after", "ab", "other")
VISIBILITY = ("public", "private")
SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,78}[a-z0-9])?")
SLUG_HELP = "1 to 80 characters: lower-case letters, digits and '-', starting and ending with a letter or digit"
RESERVED = ("compare",)  # /api/v1/benchmarks/compare is the comparison
MAX_MEASUREMENTS = 100_000
TOP = (
    "slug",
    "title",
    "kind",
    "description",
    "environment",
    "started",
    "finished",
    "parameters",
    "visibility",
    "awr",
    "measurements",
)
ENVIRONMENT = ("host", "instance_type", "vcpus", "cores", "db_version")
AWR = ("target", "dbid", "begin_snap", "end_snap")
ROW = ("series", "x", "y", "unit", "extra")
MAX_DEPTH = 32  # levels of objects and lists in `parameters` and a measurement's `extra`
LIMITS = {
    "title": 200,
    "host": 255,
    "instance_type": 64,
    "db_version": 100,
    "series": 100,
    "x": 100,
    "unit": 20,
    "target": 64,
}


@dataclass
class Measurement:
    series: str
    x: float | str
    y: float
    unit: str | None = None
    extra: dict = field(default_factory=dict)


@dataclass
class Run:
    slug: str
    title: str
    kind: str
    description: str | None = None
    environment: dict = field(default_factory=dict)
    started: datetime | None = None  # naive UTC
    finished: datetime | None = None
    parameters: dict = field(default_factory=dict)
    visibility: str = "public"
    awr: dict | None = None  # {"target", "dbid", "begin_snap", "end_snap"}
    measurements: list[Measurement] = field(default_factory=list)


def parse_run(doc, *, targets=None, where=None) -> Run:
    """The run in `doc` (a dict as decoded from JSON), checked. `targets`: the configured target aliases an AWR
    window may name (None: any). `where`: for each measurement, where it came from (e.g. "line 7"), for messages."""
    if not isinstance(doc, dict):
        raise BadParameter("the body must be a JSON object describing one run: slug, title, kind, measurements, ...")
    _unknown(doc, TOP, "")
    slug = _text(doc, "slug", required=True, limit=80)
    if not SLUG.fullmatch(slug):
        raise BadParameter(f"slug {slug!r} is malformed: {SLUG_HELP}", "slug")
    if slug in RESERVED:
        raise BadParameter(f"slug {slug!r} is reserved; choose another", "slug")
    kind = _text(doc, "kind", required=True, limit=20)
    if kind not in KINDS:
        raise BadParameter(f"kind must be one of {', '.join(KINDS)}; got {kind!r}", "kind")
    visibility = _text(doc, "visibility") or "public"
    if visibility not in VISIBILITY:
        raise BadParameter(f"visibility must be public or private; got {visibility!r}", "visibility")
    run = Run(
        slug=slug,
        title=_text(doc, "title", required=True),
        kind=kind,
        description=_text(doc, "description", limit=None),
        visibility=visibility,
    )
    run.environment = _environment(doc.get("environment"))
    run.started, run.finished = _moment(doc, "started"), _moment(doc, "finished")
    if run.started and run.finished and run.finished < run.started:
        raise BadParameter("finished is before started", "finished")
    run.parameters = _object(doc.get("parameters"), "parameters")
    run.awr = _awr(doc.get("awr"), targets)
    run.measurements = _measurements(doc.get("measurements"), where)
    return run


def _measurements(rows, where) -> list[Measurement]:
    if not isinstance(rows, list) or not rows:
        raise BadParameter("measurements must be a non-empty list of {series, x, y, unit, extra} rows", "measurements")
    if len(rows) > MAX_MEASUREMENTS:
        raise BadParameter(f"at most {MAX_MEASUREMENTS} measurements per run, got {len(rows)}", "measurements")
    out, numeric = [], None
    for i, row in enumerate(rows, 1):
        at = f"row {i}" + (f" ({where[i - 1]})" if where else "")
        name = f"measurements[{i}]"
        if not isinstance(row, dict):
            raise BadParameter(f"{at}: must be an object with series, x, y, unit, extra", name)
        for key in row:
            if key not in ROW:
                raise BadParameter(f"{at}, field {key}: unknown field; a row has {', '.join(ROW)}", f"{name}.{key}")

        def bad(key, message, at=at, name=name):
            return BadParameter(f"{at}, field {key}: {message}", f"{name}.{key}")

        series = row.get("series")
        if not isinstance(series, str) or not series.strip():
            raise bad("series", "required: the label of the line or bar group this value belongs to")
        if len(series) > LIMITS["series"] or not series.isprintable():
            raise bad("series", f"at most {LIMITS['series']} printable characters")
        x = row.get("x")
        if isinstance(x, bool) or x is None or not isinstance(x, (int, float, str)):
            raise bad("x", f"required: a number or a category name, got {_show(x)}")
        if isinstance(x, str):
            x = x.strip()
            if not x or len(x) > LIMITS["x"] or not x.isprintable():
                raise bad("x", f"a category name must be 1 to {LIMITS['x']} printable characters")
        elif _number(x) is None:
            raise bad("x", f"must be a finite number, got {_show(x)}")
        if numeric is None:
            numeric = not isinstance(x, str)
        elif numeric == isinstance(x, str):
            raise bad(
                "x",
                "every x of a run is a number or every x is a category; this row mixes them "
                f"(row 1 has {'numbers' if numeric else 'categories'})",
            )
        y = _number(row.get("y"))
        if y is None:
            raise bad("y", f"required: a finite number, got {_show(row.get('y'))}")
        unit = row.get("unit")
        if unit is not None and (not isinstance(unit, str) or len(unit) > LIMITS["unit"] or not unit.isprintable()):
            raise bad("unit", f"at most {LIMITS['unit']} printable characters, got {_show(unit)}")
        extra = row.get("extra")
        if extra is not None and not isinstance(extra, dict):
            raise bad("extra", f"must be an object of attributes, got {_show(extra)}")
        clash = [k for k in (extra or {}) if k in ROW or k in ("seq", "run")]
        if clash:
            raise bad("extra", f"an attribute may not be called {clash[0]!r} (a column of every row)")
        if extra and _depth(extra) > MAX_DEPTH:
            raise bad("extra", f"nests objects and lists more than {MAX_DEPTH} levels deep")
        if extra and _json_bytes(extra) > TEXT_MAX:
            raise bad("extra", f"more than {TEXT_MAX} bytes as JSON, or not JSON (NaN)")
        out.append(Measurement(series.strip(), x if isinstance(x, str) else _number(x), y, unit or None, extra or {}))
    return out


def _environment(env) -> dict:
    if env is None:
        return {}
    if not isinstance(env, dict):
        raise BadParameter(
            "environment must be an object: host, instance_type, vcpus, cores, db_version", "environment"
        )
    _unknown(env, ENVIRONMENT, "environment.")
    out = {}
    for key in ("host", "instance_type", "db_version"):
        value = _text(env, key, name=f"environment.{key}")
        if value:
            out[key] = value
    for key in ("vcpus", "cores"):
        raw = env.get(key)
        if raw is None:
            continue
        value = _whole(raw)
        if value is None or not 1 <= value <= 100_000:
            raise BadParameter(
                f"environment.{key} must be a whole number from 1 to 100000, got {_show(raw)}", f"environment.{key}"
            )
        out[key] = value
    if out.get("cores") and out.get("vcpus") and out["cores"] > out["vcpus"]:
        raise BadParameter("environment.cores is more than environment.vcpus", "environment.cores")
    return out


def _awr(awr, targets) -> dict | None:
    if awr is None:
        return None
    if not isinstance(awr, dict):
        raise BadParameter("awr must be an object: target, dbid, begin_snap, end_snap", "awr")
    _unknown(awr, AWR, "awr.")
    target = _text(awr, "target", required=True, name="awr.target")
    if targets is not None and target not in targets:
        raise BadParameter(
            f"awr.target {target!r} is not a configured target; known: {', '.join(targets)}", "awr.target"
        )
    out = {"target": target}
    for key in ("dbid", "begin_snap", "end_snap"):
        raw = awr.get(key)
        value = _whole(raw)
        if value is None or not 0 <= value < 10**15:
            raise BadParameter(f"awr.{key} must be a whole number, got {_show(raw)}", f"awr.{key}")
        out[key] = value
    if out["begin_snap"] > out["end_snap"]:
        raise BadParameter("awr.begin_snap is after awr.end_snap", "awr.begin_snap")
    return out


def _object(value, name) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadParameter(f"{name} must be an object, got {_show(value)}", name)
    if _depth(value) > MAX_DEPTH:
        raise BadParameter(f"{name} nests objects and lists more than {MAX_DEPTH} levels deep", name)
    if _json_bytes(value) > TEXT_MAX:
        raise BadParameter(f"{name} is more than {TEXT_MAX} bytes as JSON, or not JSON (NaN)", name)
    return value


def _text(doc, key, *, required=False, limit=0, name=None):
    """A string field: None when absent or empty; at most `limit` characters (LIMITS by default; None: bytes)."""
    name = name or key
    value = doc.get(key)
    if value is None or value == "":
        if required:
            raise BadParameter(f"{name} is required", name)
        return None
    if not isinstance(value, str):
        raise BadParameter(f"{name} must be a string, got {_show(value)}", name)
    if limit is None:
        if len(value.encode()) > TEXT_MAX:
            raise BadParameter(f"{name} is longer than {TEXT_MAX} bytes", name)
        return value
    limit = limit or LIMITS.get(key, 200)
    if len(value) > limit or not value.isprintable():
        raise BadParameter(f"{name} must be at most {limit} printable characters on one line", name)
    return value


def _moment(doc, key) -> datetime | None:
    value = doc.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise BadParameter(f"{key} must be an ISO 8601 date-time, got {_show(value)}", key)
    try:
        moment = iso8601.parse(value)
    except ValueError:
        raise BadParameter(
            f"{key} must be an ISO 8601 date-time such as 2026-11-20T08:00:00+00:00 (no offset: UTC); got {value!r}",
            key,
        ) from None
    if moment.year not in iso8601.YEARS:
        raise BadParameter(f"{key} must be in 1980..2999, got {value!r}", key)
    return iso8601.naive_utc(moment).replace(microsecond=0)


def _whole(value) -> int | None:
    """An int from a JSON integer, or from a number with no fraction (8.0: an integer to JSON Schema, as the
    OpenAPI document says), else None."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None if isinstance(value, bool) or not isinstance(value, int) else value


def _number(value) -> float | None:
    """A finite float from a JSON number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int) and abs(value) > 1e300:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _depth(value) -> int:
    """How deep objects and lists nest (an object of numbers: 1), counted without recursion: a value this app stores
    must also be one it can read back and answer (orjson writes at most 254 levels)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:  # deeper is refused anyway: no need to walk it all
                stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _json_bytes(value) -> int:
    try:
        return len(dump(value).encode())
    except (ValueError, TypeError):
        return TEXT_MAX + 1


def _unknown(doc, known, prefix):
    for key in doc:
        if key not in known:
            raise BadParameter(
                f"unknown field {prefix}{key}; {prefix or 'a run '}has {', '.join(known)}", f"{prefix}{key}"
            )


def _show(value) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def dump(value) -> str:
    """JSON text as stored (compact, keys in the given order)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# -- defaults for a run recorded here ---------------------------------------------------------------------------


def default_slug(prefix: str, moment: datetime | None = None) -> str:
    """A readable, unique-enough slug: prefix, host and UTC time, e.g. cpu-db1-20261120-0615."""
    moment = moment or datetime.now(UTC)
    host = re.sub(r"[^a-z0-9]+", "-", socket.gethostname().lower().split(".")[0]).strip("-")[:30] or "host"
    return f"{prefix}-{host}-{moment:%Y%m%d-%H%M%S}"


def utc_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
