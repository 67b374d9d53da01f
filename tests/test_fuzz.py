"""Property-based fuzzing of the whole API from its own OpenAPI document (schemathesis on hypothesis).

Every GET operation of /api/v1/openapi.json gets generated requests, sent in-process to the app on the demo store
(only reads: a generated upload would write to the store the other tests share):
- "valid": requests the document allows, generated from the document as served;
- "invalid": requests the document forbids (wrong types, out-of-range numbers, bad patterns, missing required
  parameters...), which must be refused with a 4xx (schemathesis's negative_data_rejection, which skips the
  generated cases that turn out valid once serialized);
- "known": requests the document allows, with the parameters that name things (database, series, sql_id, run
  slug, snapshot ids, dates, sort keys...) drawn from values that exist in the demo store, so that generation
  reaches the computations behind a 200 instead of stopping at "unknown database". Only request parameters differ
  from the served document; responses are checked against it, unchanged (test_known_values_change_only_parameters).

Each answer must never be a 5xx; must have a status code the document lists for the operation, a documented content
type and a body that matches the documented schema; and errors must have the one error shape, with `status` equal
to the HTTP status. The body is checked twice: by schemathesis, and against the served document with a JSON Schema
2020-12 validator, because schemathesis 4.32 rewrites OpenAPI 3.1 `prefixItems` (our [time, value] points) into a
Draft 4 tuple and then rejects it as a 2020-12 schema; the copy it gets has the points as `items: anyOf`.

Size: FUZZ_EXAMPLES examples per operation and kind (default 10: about 450 requests in well under a minute, part of
`make test`, with a fixed seed). The full run, over 2000 requests, with a random seed each time:
    FUZZ_EXAMPLES=100 .venv/bin/python -m pytest tests/test_fuzz.py -p no:cacheprovider -s
It prints the number of requests and the answers by status and writes them to bench/results/fuzz.json
(BENCHMARKS.md, "Hostile input").
"""
import copy
import json
import os
import threading
from collections import Counter
from pathlib import Path

import jsonschema_rs
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import (content_type_conformance, negative_data_rejection,
                                               response_schema_conformance, status_code_conformance)

from app.store.queries import TOP_SQL_ORDER

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "10"))
FULL = "FUZZ_EXAMPLES" in os.environ
CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance]
RESULTS = Path(__file__).resolve().parent.parent / "bench/results/fuzz.json"
SERIES = ["derived:aas", "derived:tps", "derived:host_cpu_pct", "sysstat:redo size", "sys_time_model:DB time",
          "system_event:log file sync:avg_ms", "wait_class:User I/O", "sysmetric:Host CPU Utilization (%)",
          "sysmetric_history:Average Active Sessions", "iostat_function:LGWR:megabytes", "osstat:BUSY_TIME",
          "sysstat:user commits"]
TALLY: dict = {"statuses": Counter(), "kinds": Counter(), "known": Counter()}


class Recorder:
    """The app as the fuzzer sees it: a WSGI callable that counts the answers by status."""

    def __init__(self, app):
        self.app, self.lock = app, threading.Lock()

    def __call__(self, environ, start_response):
        def recording(status, headers, *args):
            with self.lock:
                TALLY["statuses"][int(status.split()[0])] += 1
            return start_response(status, headers, *args)
        return self.app(environ, recording)


def without_prefix_items(value):
    """The document with each `prefixItems` tuple loosened to `items: {anyOf: ...}` (see the module docstring)."""
    if isinstance(value, list):
        return [without_prefix_items(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: without_prefix_items(v) for k, v in value.items() if k != "prefixItems"}
    if "prefixItems" in value:
        out["items"] = {"anyOf": without_prefix_items(value["prefixItems"])}
    return out


def exact_check(documented, path, response):
    """The JSON body against the served document's schema for this status, as JSON Schema 2020-12."""
    if response.headers.get("content-type", [""])[0].split(";")[0] != "application/json":
        return
    answer = documented["paths"][path]["get"]["responses"].get(str(response.status_code), {})
    schema = answer.get("content", {}).get("application/json", {}).get("schema")
    if schema is not None:
        jsonschema_rs.Draft202012Validator({**schema, "components": documented["components"]}).validate(
            response.json())


def with_known_values(doc: dict, known: dict) -> dict:
    """A copy of the document whose parameters named in `known` take only those values."""
    doc = copy.deepcopy(doc)
    for item in doc["paths"].values():
        for param in item.get("get", {}).get("parameters", []):
            if param["name"] in known:
                values = {"enum": known[param["name"]]}
                if param["schema"].get("type") == "array":
                    param["schema"] = {**param["schema"], "items": values, "maxItems": 3}
                else:
                    param["schema"] = values
    return doc


def _operations():
    """(path, kind) for every GET operation, from the document of an app that reads no store."""
    from app import create_app
    from app.settings import Settings
    doc = create_app(Settings.from_env({}, targets={"demo": {"sqlite": "/nonexistent"}})).test_client().get(
        "/api/v1/openapi.json").get_json()
    for path, item in doc["paths"].items():
        if "get" not in item:  # only reads are fuzzed: a generated upload would write to the shared test store
            continue
        kinds = ("valid", "invalid", "known") if item["get"]["parameters"] else ("valid",)
        for kind in kinds:
            yield pytest.param(path, kind, id=f"{path} {kind}")


@pytest.fixture(scope="session")
def documented(app):
    return app.test_client().get("/api/v1/openapi.json").get_json()


@pytest.fixture(scope="session")
def known_values(app, dbs, stories):
    """Values that exist in the demo store (and a few that do not) for the parameters that name things."""
    client = app.test_client()
    rac = client.get(f"/api/v1/dbs/{dbs['rac']}").get_json()["snapshots"]
    single = client.get(f"/api/v1/dbs/{dbs['single']}").get_json()["snapshots"]
    first, last = min(rac["first_snap"], single["first_snap"]), max(rac["last_snap"], single["last_snap"])
    snaps = sorted({first, first + 1, (first + last) // 2, last - 3, last, stories["plan_regression"]["begin_snap"]})
    times = [rac["from"], rac["to"], single["from"][:10], single["to"][:16], rac["to"][:10] + "T09:00:00",
             rac["to"][:10] + "T02:00:00+01:00", single["to"][:10]]
    slugs = [r["slug"] for r in client.get("/api/v1/benchmarks").get_json()["rows"]]
    return {"db": [dbs["rac"], dbs["single"], dbs["rac"].rsplit(".", 1)[1]],
            "sql_id": [stories["plan_regression"]["sql_id"]], "slug": slugs + ["no-such-run"], "runs": slugs,
            "name": SERIES, "instance": ["all", "each", "1", "2"],
            "source": ["sysstat", "derived", "system_event", "sysmetric_history", "iostat_filetype"],
            "q": ["redo", "cpu", "file", "%"], "order_by": list(TOP_SQL_ORDER), "max_points": [0, 3, 50, 2000],
            **{f"{p}{k}": snaps for p in ("", "a_", "b_") for k in ("begin_snap", "end_snap")},
            **{f"{p}{k}": times for p in ("", "a_", "b_") for k in ("from", "to")}}


@pytest.fixture(scope="session")
def schemas(app, documented, known_values):
    """The schemathesis schemas: the document as served, and the one with known values."""
    out = {}
    for name, doc in (("documented", documented), ("known", with_known_values(documented, known_values))):
        schema = schemathesis.openapi.from_dict(without_prefix_items(doc))
        schema.app = Recorder(app)
        out[name] = schema
    return out


@pytest.mark.parametrize("path, kind", list(_operations()))
def test_the_api_answers_every_generated_request_as_documented(schemas, documented, path, kind):
    operation = schemas["known" if kind == "known" else "documented"][path]["GET"]
    mode = GenerationMode.NEGATIVE if kind == "invalid" else GenerationMode.POSITIVE

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=not FULL, database=None,
              suppress_health_check=list(HealthCheck))
    def check(case):
        TALLY["kinds"][kind] += 1
        response = case.call()
        if kind == "known":
            TALLY["known"][response.status_code] += 1
        assert response.status_code < 500, (case.path, case.query, response.text[:300])
        case.validate_response(response, checks=CHECKS + ([negative_data_rejection] if kind == "invalid" else []))
        exact_check(documented, path, response)
        if response.status_code >= 400:  # the error shape, beyond what the schema says
            err = response.json()["error"]
            assert err["status"] == response.status_code and err["code"] and err["message"], err
    check()


def test_known_values_change_only_parameters(documented, known_values):
    narrowed = with_known_values(documented, known_values)
    for path, item in documented["paths"].items():
        for method, operation in item.items():
            assert narrowed["paths"][path][method]["responses"] == operation["responses"]
            assert [p["name"] for p in narrowed["paths"][path][method]["parameters"]] == \
                [p["name"] for p in operation["parameters"]]
    assert narrowed["components"] == documented["components"]
    documented_names = {p["name"] for item in documented["paths"].values() for p in item.get("get", {}).get(
        "parameters", [])}
    assert set(known_values) <= documented_names, set(known_values) - documented_names


def test_fuzz_volume(documented):
    """After the fuzzing above (same module, so it runs after it): the tally, and enough of it."""
    statuses = dict(sorted(TALLY["statuses"].items()))
    total = sum(statuses.values())
    if not total:
        pytest.skip("the fuzzing test did not run")
    operations = sum("get" in item for item in documented["paths"].values())
    print(f"\nfuzz: {total} requests over {operations} GET operations, {EXAMPLES} examples per operation and kind; "
          f"by kind: {dict(TALLY['kinds'])}; by status: {statuses}; known values, by status: {dict(TALLY['known'])}")
    assert not [s for s in statuses if s >= 500], statuses
    assert total >= 2 * EXAMPLES * operations, statuses
    assert TALLY["known"][200] >= TALLY["kinds"]["known"] // 2, TALLY["known"]  # known values reach real answers
    if FULL:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps({"examples_per_operation_and_kind": EXAMPLES, "operations": operations,
                                       "requests": total, "by_kind": dict(TALLY["kinds"]),
                                       "by_status": statuses, "known_values_by_status": dict(TALLY["known"])},
                                      indent=2) + "\n")
