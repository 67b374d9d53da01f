"""Property-based fuzzing of the whole API from its own OpenAPI document (schemathesis on hypothesis).

Every operation of /api/v1/openapi.json gets generated requests, sent in-process. The GET operations go to the app
on the demo store that the other tests share:
- "valid": requests the document allows, generated from the document as served;
- "invalid": requests the document forbids (wrong types, out-of-range numbers, bad patterns, missing required
  parameters...), which must be refused with a 4xx (schemathesis's negative_data_rejection, which skips the
  generated cases that turn out valid once serialized);
- "known": requests the document allows, with the parameters that name things (database, series, sql_id, run
  slug, snapshot ids, dates, sort keys...) drawn from values that exist in the demo store, so that generation
  reaches the computations behind a 200 instead of stopping at "unknown database". Only request parameters differ
  from the served document; responses are checked against it, unchanged (test_known_values_change_only_parameters).

The one write, POST /api/v1/benchmarks, goes to an app with an API key on a private copy of the demo store (the
shared one is never written), in the same kinds: "valid" and "invalid" bodies and replace parameters, and "known"
bodies, narrowed so that most are stored: the rules across fields kept (times and snapshots in order, cores <= vcpus,
a configured AWR target, x all numbers or all categories), a stored slug, or a new one for half of them. All carry the
key, but for "no key" (none, empty or wrong: 401). On top of the checks below: a refused upload (any non-2xx) leaves
every row of the runs' tables as it was; a stored one (201, or 200 for replace=1 on a stored slug, never without
it) changes no other run and reads back from GET /benchmarks/{slug} with every row sent; the same upload again is a
409 that changes nothing, and a 200 with replace=1; and a "known" body is stored (or a 409).

Each answer must never be a 5xx; must have a status code the document lists for the operation, a documented content
type and a body that matches the documented schema; and errors must have the one error shape, with `status` equal
to the HTTP status. The body is checked twice: by schemathesis, and against the served document with a JSON Schema
2020-12 validator, because schemathesis 4.32 rewrites OpenAPI 3.1 `prefixItems` (our [time, value] points) into a
Draft 4 tuple and then rejects it as a 2020-12 schema; the copy it gets has the points as `items: anyOf`.

Size: FUZZ_EXAMPLES examples per operation and kind (default 10: about 450 GET and 50 POST requests in well under a
minute, part of `make test`, with a fixed seed; "no key" uploads: a fifth, at least 5). The full run, over 2000
requests, with a random seed each time:
    FUZZ_EXAMPLES=100 .venv/bin/python -m pytest tests/test_fuzz.py -p no:cacheprovider -s
It prints the number of requests and the answers by status (GET, and POST apart, with the repeated uploads) and
writes them to perf/results/fuzz.json (BENCHMARKS.md, "Hostile input").
"""

import copy
import hashlib
import itertools
import json
import os
import sqlite3
import threading
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import jsonschema_rs
import pytest
import schemathesis
from conftest import assert_error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from app import create_app
from app.api import auth
from app.settings import Settings
from app.store.awr.queries import TOP_SQL_ORDER

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "10"))
FULL = "FUZZ_EXAMPLES" in os.environ
CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance]
RESULTS = Path(__file__).resolve().parent.parent / "perf/results/fuzz.json"
SERIES = [
    "derived:aas",
    "derived:tps",
    "derived:host_cpu_pct",
    "sysstat:redo size",
    "sys_time_model:DB time",
    "system_event:log file sync:avg_ms",
    "wait_class:User I/O",
    "sysmetric:Host CPU Utilization (%)",
    "sysmetric_history:Average Active Sessions",
    "iostat_function:LGWR:megabytes",
    "osstat:BUSY_TIME",
    "sysstat:user commits",
]
TALLY: dict = {
    "statuses": Counter(),
    "kinds": Counter(),
    "known": Counter(),
    "post": Counter(),
    "post_kinds": Counter(),
    "post_known": Counter(),
}


class Recorder:
    """The app as the fuzzer sees it: a WSGI callable that counts the answers by status (in `counter`)."""

    def __init__(self, app, counter=None):
        self.app, self.lock = app, threading.Lock()
        self.counter = TALLY["statuses"] if counter is None else counter

    def __call__(self, environ, start_response):
        def recording(status, headers, *args):
            with self.lock:
                self.counter[int(status.split()[0])] += 1
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


def exact_check(documented, path, response, method="get"):
    """The JSON body against the served document's schema for this status, as JSON Schema 2020-12."""
    if response.headers.get("content-type", [""])[0].split(";")[0] != "application/json":
        return
    answer = documented["paths"][path][method]["responses"].get(str(response.status_code), {})
    schema = answer.get("content", {}).get("application/json", {}).get("schema")
    if schema is not None:
        jsonschema_rs.Draft202012Validator({**schema, "components": documented["components"]}).validate(response.json())


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
    doc = (
        create_app(Settings.from_env({}, targets={"demo": {"sqlite": "/nonexistent"}}))
        .test_client()
        .get("/api/v1/openapi.json")
        .get_json()
    )
    for path, item in doc["paths"].items():
        if "get" not in item:  # POST: test_uploads_... below, on a store of its own
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
    times = [
        rac["from"],
        rac["to"],
        single["from"][:10],
        single["to"][:16],
        rac["to"][:10] + "T09:00:00",
        rac["to"][:10] + "T02:00:00+01:00",
        single["to"][:10],
    ]
    slugs = [r["slug"] for r in client.get("/api/v1/benchmarks").get_json()["rows"]]
    return {
        "db": [dbs["rac"], dbs["single"], dbs["rac"].rsplit(".", 1)[1]],
        "sql_id": [stories["plan_regression"]["sql_id"]],
        "slug": [*slugs, "no-such-run"],
        "runs": slugs,
        "name": SERIES,
        "instance": ["all", "each", "1", "2"],
        "source": ["sysstat", "derived", "system_event", "sysmetric_history", "iostat_filetype"],
        "q": ["redo", "cpu", "file", "%"],
        "order_by": list(TOP_SQL_ORDER),
        "max_points": [0, 3, 50, 2000],
        **{f"{p}{k}": snaps for p in ("", "a_", "b_") for k in ("begin_snap", "end_snap")},
        **{f"{p}{k}": times for p in ("", "a_", "b_") for k in ("from", "to")},
    }


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
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=not FULL,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case):
        TALLY["kinds"][kind] += 1
        response = case.call()
        if kind == "known":
            TALLY["known"][response.status_code] += 1
        assert response.status_code < 500, (case.path, case.query, response.text[:300])
        case.validate_response(response, checks=CHECKS + ([negative_data_rejection] if kind == "invalid" else []))
        exact_check(documented, path, response)
        error_shape(response)

    check()


def error_shape(response):
    """An error has the one error shape, beyond what the schema says: `status` is the HTTP status."""
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"}, body
        err = body["error"]
        assert err["status"] == response.status_code and err["code"] and err["message"], err


def test_known_values_change_only_parameters(documented, known_values):
    narrowed = with_known_values(documented, known_values)
    for path, item in documented["paths"].items():
        for method, operation in item.items():
            assert narrowed["paths"][path][method]["responses"] == operation["responses"]
            assert [p["name"] for p in narrowed["paths"][path][method]["parameters"]] == [
                p["name"] for p in operation["parameters"]
            ]
    assert narrowed["components"] == documented["components"]
    documented_names = {
        p["name"] for item in documented["paths"].values() for p in item.get("get", {}).get("parameters", [])
    }
    assert set(known_values) <= documented_names, set(known_values) - documented_names


# -- the one write: POST /api/v1/benchmarks -----------------------------------------------------------------------

UPLOAD = "/api/v1/benchmarks"
KEY = "fuzz-key-with-enough-length-0123456789"
UPLOAD_KINDS = ("valid", "invalid", "known", "no key")
NO_KEY_EXAMPLES = max(5, EXAMPLES // 5)  # a few: the key is checked before anything else
FRESH = itertools.count(1)  # slugs never stored before: fuzz-1, fuzz-2...


def without_security(doc: dict) -> dict:
    """The document without its `security` requirements, for schemathesis only: it would make up X-API-Key values
    (and drop the header in negative mode); the test sends the key itself (or none, or a wrong one)."""
    doc = copy.deepcopy(doc)
    for item in doc["paths"].values():
        for operation in item.values():
            operation.pop("security", None)
    return doc


def upload_schema(doc: dict) -> dict:
    return doc["paths"][UPLOAD]["post"]["requestBody"]["content"]["application/json"]["schema"]


def with_known_upload(doc: dict, slugs: list, targets: list) -> dict:
    """A copy of the document whose upload body the store accepts more often than not: a stored slug (409, or a
    replacement with replace=1; the test gives half of the cases a new slug instead), printable names, times in
    order, a configured AWR target, and 2 to 12 rows whose x are all numbers or all categories. Only the body
    differs from the served document (test_known_upload_changes_only_the_body), and every body generated from it
    is valid by the served document (checked case by case)."""
    doc = copy.deepcopy(doc)
    documented = upload_schema(doc)["properties"]

    def pick(*values):
        return {"enum": list(values)}

    def between(low, high):
        return {"type": "integer", "minimum": low, "maximum": high}

    def rows(x):
        return {
            "type": "array",
            "minItems": 2,
            "maxItems": 12,
            "items": {
                "type": "object",
                "required": ["series", "x", "y"],
                "additionalProperties": False,
                "properties": {
                    "series": pick("a", "N=9", " FreeBSD 13.0 ", "Ünïcode ✓"),
                    "x": x,
                    "y": {"type": "number", "minimum": -1e12, "maximum": 1e12},
                    "unit": pick("s", "ms", "%", "1/s"),
                    "extra": {
                        "type": "object",
                        "maxProperties": 3,
                        "propertyNames": pick("session", "source", "note"),
                        "additionalProperties": {"type": ["integer", "string"], "maxLength": 20},
                    },
                },
            },
        }

    upload_schema(doc)["properties"] = {
        "slug": pick(*slugs),
        "title": pick("Lab run", "Apache httpd: FreeBSD 13.0 vs Oracle Linux 8.4", "Ünïcode ✓ 日本"),
        "kind": documented["kind"],
        "visibility": documented["visibility"],
        "description": pick("", "4 vCPU / 4 GB VMs.", "Two lines,\nand a tab\t."),
        "environment": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "host": pick("lab", "db1.example.com"),
                "instance_type": pick("c4.4xlarge", "VM 4 vCPU"),
                "db_version": pick("19.21.0.0.0", "12.1.0.2"),
                "vcpus": between(8, 64),
                "cores": between(1, 8),
            },
        },
        "started": pick("2017-01-10T09:00:00.250Z", "2021-09-01T10:00:00+02:00"),
        "finished": pick("2021-09-01T08:20:00Z", "2026-11-20T08:00:00+00:00"),
        "parameters": {
            "type": "object",
            "maxProperties": 4,
            "additionalProperties": {"type": ["integer", "string", "boolean", "null"], "maxLength": 20},
        },
        "awr": {
            "type": "object",
            "additionalProperties": False,
            "required": ["target", "dbid", "begin_snap", "end_snap"],
            "properties": {
                "target": pick(*targets),
                "dbid": between(0, 10**12),
                "begin_snap": between(1, 250),
                "end_snap": between(250, 500),
            },
        },
        "measurements": {
            "anyOf": [
                rows({"type": "number", "minimum": -1e6, "maximum": 1e6}),
                rows(pick("requests/s", "system CPU", " p99 ")),
            ]
        },
    }
    return doc


def stored(path, but=None) -> tuple[str, set]:
    """A digest of the rows of the app's own tables (bench_run, bench_measurement: small), leaving out the run
    with the slug `but`; and the stored slugs."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        digest = hashlib.sha256()
        for stmt in (
            "select * from bench_run where slug is not ? order by run_id",
            "select * from bench_measurement where run_id not in (select run_id from bench_run where slug"
            " is ?) order by run_id, seq",
        ):
            for row in con.execute(stmt, (but,)):
                digest.update(repr(row).encode())
        return digest.hexdigest(), {s for (s,) in con.execute("select slug from bench_run")}
    finally:
        con.close()


@pytest.fixture(scope="module")
def lab(demo_store, tmp_path_factory):
    """A private copy of the session's demo store (the generated uploads write there, never to the shared store),
    an app on it with an API key, the document it serves (with a key: 401 listed) and the schemathesis schemas."""
    path = tmp_path_factory.mktemp("fuzz-upload") / "demo.sqlite"
    src, dst = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True), sqlite3.connect(path)
    try:
        src.backup(dst)
    finally:
        src.close(), dst.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWRLENS_FUZZ_TEST_KEY", KEY)
        app = create_app(
            Settings.from_env({}, targets={"demo": {"sqlite": str(path)}}, api_key_secret="env:AWRLENS_FUZZ_TEST_KEY")
        )
        client = app.test_client()
        doc = client.get("/api/v1/openapi.json").get_json()
        slugs = [r["slug"] for r in client.get(UPLOAD, headers={auth.HEADER: KEY}).get_json()["rows"]]
        fuzzed = without_security(without_prefix_items(doc))
        schemas = {}
        for name, d in (("documented", fuzzed), ("known", with_known_upload(fuzzed, slugs, ["demo"]))):
            schemas[name] = schemathesis.openapi.from_dict(d)
            schemas[name].app = Recorder(app, TALLY["post"])
        yield SimpleNamespace(client=client, path=path, documented=doc, schemas=schemas, slugs=slugs)


def read_back(lab, sent):
    """The stored run as GET /benchmarks/{slug} gives it: every row that was sent, in order."""
    got = lab.client.get(f"{UPLOAD}/{sent['slug']}", headers={auth.HEADER: KEY})
    assert got.status_code == 200, got.get_data(as_text=True)[:300]
    run, rows = got.get_json()["run"], got.get_json()["rows"]
    assert run["measurements"] == len(rows) == len(sent["measurements"]), (run, sent["measurements"])
    assert (run["title"], run["kind"]) == (sent["title"], sent["kind"]), run
    assert [(r["series"], r["y"]) for r in rows] == [(m["series"].strip(), m["y"]) for m in sent["measurements"]]


def replace_asked(query) -> bool:
    return str((query or {}).get("replace", "")).lower() in ("1", "true", "yes")


@pytest.mark.parametrize("kind", UPLOAD_KINDS)
def test_uploads_are_answered_as_documented_and_stored_all_or_nothing(lab, kind):
    """Generated uploads to a private store, with the key ("no key": none, an empty one or a wrong one: 401).
    Each answer is checked as for the reads above; a refusal leaves every stored row as it was; a 201 (new slug) or
    200 (replace=1 on a stored slug) changes that run only, which then reads back with every row sent; and the same
    upload again is a 409 that changes nothing without replace=1, a 200 with it."""
    operation = lab.schemas["known" if kind == "known" else "documented"][UPLOAD]["POST"]
    mode = GenerationMode.NEGATIVE if kind == "invalid" else GenerationMode.POSITIVE
    keys = st.sampled_from([None, "", "wrong-" + KEY]) if kind == "no key" else st.just(KEY)
    valid_body = jsonschema_rs.Draft202012Validator(
        {**upload_schema(lab.documented), "components": lab.documented["components"]}
    )
    checks = CHECKS + ([negative_data_rejection] if kind == "invalid" else [])

    def again(body, query):
        TALLY["post_kinds"]["repeated"] += 1
        resp = lab.client.post(
            UPLOAD,
            query_string=query,
            data=json.dumps(body),
            content_type="application/json",
            headers={auth.HEADER: KEY},
        )
        TALLY["post"][resp.status_code] += 1
        return resp

    @given(case=operation.as_strategy(generation_mode=mode), key=keys, fresh=st.sampled_from([True, False]))
    @settings(
        max_examples=NO_KEY_EXAMPLES if kind == "no key" else EXAMPLES,
        deadline=None,
        derandomize=not FULL,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case, key, fresh):
        TALLY["post_kinds"][kind] += 1
        if kind == "known":
            if fresh:
                case.body["slug"] = f"fuzz-{next(FRESH)}"
            assert valid_body.is_valid(case.body), case.body  # narrowed, but still what the document allows
        slug = case.body.get("slug") if isinstance(case.body, dict) else None
        before, slugs = stored(lab.path)
        others = stored(lab.path, but=slug if isinstance(slug, str) else None)[0]
        response = case.call(headers={} if key is None else {auth.HEADER: key})
        status = response.status_code
        if kind == "known":
            TALLY["post_known"][status] += 1
        assert status < 500, (case.query, repr(case.body)[:300], response.text[:300])
        case.validate_response(response, checks=checks)
        exact_check(lab.documented, UPLOAD, response, "post")
        error_shape(response)
        if kind == "no key":
            assert status == 401, response.text[:300]
        if kind == "known":  # allowed by the document, and by the rules across fields: stored, or a repeated slug
            assert status in (200, 201, 409), (repr(case.body)[:300], response.text[:300])
        if status not in (200, 201):  # refused: nothing written
            assert stored(lab.path)[0] == before, (status, response.text[:300])
            if status == 409:
                assert slug in slugs and not replace_asked(case.query), response.text[:300]
            return
        sent = case.body
        assert (status == 200) == (sent["slug"] in slugs), (status, sent["slug"])
        assert status == 201 or replace_asked(case.query), "a stored run replaced without replace=1"
        assert stored(lab.path, but=slug)[0] == others, "an upload changed another run"
        saved = response.json()
        assert (saved["slug"], saved["measurements"], saved["replaced"]) == (
            sent["slug"],
            len(sent["measurements"]),
            status == 200,
        ), saved
        assert response.headers["location"] == [f"{UPLOAD}/{sent['slug']}"], response.headers
        read_back(lab, sent)
        after = stored(lab.path)[0]
        assert_error(again(sent, {}), 409, "slug")  # the same slug again, without replace=1: nothing changes
        assert stored(lab.path)[0] == after
        replaced = again(sent, {"replace": "1"})
        assert replaced.status_code == 200 and replaced.get_json()["replaced"], replaced.get_data(as_text=True)
        assert stored(lab.path, but=slug)[0] == others, "a replacement changed another run"
        read_back(lab, sent)

    check()


def test_every_run_the_fuzzing_stored_reads_back(lab):
    """Nothing stored can fail to read (issue 12): after the generated uploads above, every run in the store answers
    as JSON and as CSV, and each lists as many measurements as the store holds for it."""
    _, slugs = stored(lab.path)
    assert slugs >= set(lab.slugs)
    con = sqlite3.connect(f"file:{lab.path}?mode=ro", uri=True)
    try:
        counts = dict(
            con.execute(
                "select r.slug, count(m.run_id) from bench_run r left join bench_measurement m "
                "on m.run_id = r.run_id group by r.slug"
            )
        )
    finally:
        con.close()
    for slug in sorted(slugs):
        got = lab.client.get(f"{UPLOAD}/{slug}", headers={auth.HEADER: KEY})
        assert got.status_code == 200, (slug, got.get_data(as_text=True)[:300])
        assert got.get_json()["run"]["measurements"] == counts[slug] == len(got.get_json()["rows"])
        as_csv = lab.client.get(f"{UPLOAD}/{slug}", query_string={"format": "csv"}, headers={auth.HEADER: KEY})
        assert as_csv.status_code == 200, (slug, as_csv.get_data(as_text=True)[:300])


def test_known_upload_changes_only_the_body(lab):
    """The known uploads differ from the served document in the body's properties only; the document they are
    checked against lists the 401 of a configured key."""
    documented = lab.documented
    narrowed = with_known_upload(documented, lab.slugs, ["demo"])
    assert {k: v for k, v in upload_schema(narrowed).items() if k != "properties"} == {
        k: v for k, v in upload_schema(documented).items() if k != "properties"
    }
    assert narrowed["paths"][UPLOAD]["post"]["responses"] == documented["paths"][UPLOAD]["post"]["responses"]
    assert narrowed["paths"][UPLOAD]["post"]["parameters"] == documented["paths"][UPLOAD]["post"]["parameters"]
    assert set(upload_schema(narrowed)["properties"]) == set(upload_schema(documented)["properties"])
    assert narrowed["components"] == documented["components"]
    assert (
        "security" in documented["paths"][UPLOAD]["post"] and "401" in documented["paths"][UPLOAD]["post"]["responses"]
    )


def test_fuzz_volume(documented):
    """After the fuzzing above (same module, so it runs after it): the tally, and enough of it."""
    statuses = dict(sorted(TALLY["statuses"].items()))
    posts = dict(sorted(TALLY["post"].items()))
    total, post_total = sum(statuses.values()), sum(posts.values())
    if not total or not post_total:
        pytest.skip("the fuzzing tests did not all run")
    operations = sum("get" in item for item in documented["paths"].values())
    print(
        f"\nfuzz: {total} requests over {operations} GET operations, {EXAMPLES} examples per operation and kind; "
        f"by kind: {dict(TALLY['kinds'])}; by status: {statuses}; known values, by status: {dict(TALLY['known'])}"
        f"\nfuzz: {post_total} POST {UPLOAD}; by kind: {dict(TALLY['post_kinds'])}; by status: {posts}; "
        f"known bodies, by status: {dict(TALLY['post_known'])}"
    )
    assert not [s for s in statuses if s >= 500], statuses
    assert total >= 2 * EXAMPLES * operations, statuses
    assert TALLY["known"][200] >= TALLY["kinds"]["known"] // 2, TALLY["known"]  # known values reach real answers
    assert not [s for s in posts if s >= 500], posts
    assert post_total >= 3 * EXAMPLES + NO_KEY_EXAMPLES, posts
    assert posts.get(201) and posts.get(200) and posts.get(409) and posts.get(400), posts  # stored, replaced, refused
    assert posts.get(401, 0) >= NO_KEY_EXAMPLES, posts
    assert TALLY["post_known"][201] + TALLY["post_known"][200] >= TALLY["post_kinds"]["known"] // 5, TALLY[
        "post_known"
    ]  # known bodies reach the store
    if FULL:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(
            json.dumps(
                {
                    "examples_per_operation_and_kind": EXAMPLES,
                    "operations": operations,
                    "requests": total,
                    "by_kind": dict(TALLY["kinds"]),
                    "by_status": statuses,
                    "known_values_by_status": dict(TALLY["known"]),
                    "post": {
                        "path": UPLOAD,
                        "requests": post_total,
                        "by_kind": dict(TALLY["post_kinds"]),
                        "by_status": posts,
                        "known_bodies_by_status": dict(TALLY["post_known"]),
                    },
                },
                indent=2,
            )
            + "\n"
        )
