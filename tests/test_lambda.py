"""The Flask app behind Zappa's Lambda handler, stage by stage, with real API Gateway REST proxy events.

Set up as on Lambda: the zappa_settings module that `zappa package` writes into the zip is generated from
zappa_settings.json by Zappa itself and put on sys.path, and `zappa.handler.lambda_handler` loads the app from it.
Only what cannot exist here is replaced: the demo store is the test one, and the prod stage reads it instead of
Oracle (its key comes from a moto Secrets Manager).
"""

import json
import os
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.apigw import api_event, keep_warm_event

ROOT = Path(__file__).resolve().parent.parent
SITE = "https://awrlens.example.com"  # the prod stage's AWRLENS_CORS_ORIGINS
KEY = "0123456789abcdef-prod-key"


@cache
def zappa_settings_module(stage: str) -> str:
    """The text of zappa_settings.py for `stage`, as `zappa package` writes it into the zip."""
    from zappa.cli import ZappaCLI

    env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("AWS_PROFILE")}
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    try:
        cli = ZappaCLI()
        cli.api_stage = stage
        cli.load_settings(str(ROOT / "zappa_settings.json"))
        return cli.get_zappa_settings_string()
    finally:
        os.environ.update(env)


@pytest.fixture()
def stage(tmp_path, monkeypatch, demo_store):
    """stage(name, **env) -> invoke(event): a fresh Lambda container for `name`, its ENVIRONMENT_VARIABLES
    updated with `env`; the process's environment, modules and Zappa's singleton are restored afterwards."""
    from zappa import handler

    saved_env, saved_path = dict(os.environ), list(sys.path)

    def forget():
        handler.LambdaHandler._LambdaHandler__instance = None
        for name in ("zappa_settings", "app.wsgi"):
            sys.modules.pop(name, None)

    def start(name, **env):
        forget()
        (tmp_path / "zappa_settings.py").write_text(
            zappa_settings_module(name) + f"ENVIRONMENT_VARIABLES.update({env!r})\n"
        )
        sys.path.insert(0, str(tmp_path))
        monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", f"awrlens-{name}")
        monkeypatch.chdir(ROOT)
        return lambda event: handler.lambda_handler(event, None)

    yield start
    forget()
    os.environ.clear()
    os.environ.update(saved_env)
    sys.path[:] = saved_path


@pytest.fixture()
def demo(stage, demo_store):
    return stage("demo", AWRLENS_STORE_PATH=str(demo_store[0]))


@pytest.fixture()
def prod(stage, demo_store, aws):
    import boto3

    arn = boto3.client("secretsmanager", region_name="eu-west-1").create_secret(
        Name="awrlens/prod", SecretString=json.dumps({"password": "not-used-here", "api_key": KEY})
    )["ARN"]
    return stage(
        "prod", AWRLENS_API_KEY_SECRET=arn, AWRLENS_TARGETS=json.dumps({"prod": {"sqlite": str(demo_store[0])}})
    )


def body(result):
    assert not result.get("isBase64Encoded"), "the app sends text only (binary_support is off)"
    return json.loads(result["body"])


def assert_error(result, status):
    assert result["statusCode"] == status, result
    err = body(result)["error"]
    assert err["status"] == status and err["code"] and err["message"]
    assert result["headers"]["Content-Type"] == "application/json"
    return err


# -- demo -----------------------------------------------------------------------------------------------------------


def test_demo_answers_through_zappa(demo):
    result = demo(api_event("/api/v1/dbs", headers={"Origin": "https://anyone.example.org"}))
    assert result["statusCode"] == 200
    names = sorted((d["db_name"], d["source"]) for d in body(result)["databases"])
    assert names == [("BILLING", "statspack"), ("ORCL", "awr"), ("RACPROD", "awr")]
    headers = result["headers"]
    assert headers["Content-Type"] == "application/json"
    assert headers["Access-Control-Allow-Origin"] in ("*", "https://anyone.example.org")  # the demo is public
    assert headers["ETag"] and "max-age" in headers["Cache-Control"]
    assert result["multiValueHeaders"]["Content-Type"] == ["application/json"]


def test_demo_errors_carry_cors_and_the_error_shape(demo):
    origin = {"Origin": "https://anyone.example.org"}
    for path, query, status in [
        ("/api/v1/dbs/demo.1", "", 404),
        ("/api/v1/dbs", "bogus=1", 400),
        ("/api/v1/nowhere", "", 404),
    ]:
        result = demo(api_event(path, query, headers=origin))
        assert_error(result, status)
        assert result["headers"]["Access-Control-Allow-Origin"] in ("*", origin["Origin"])
    result = demo(api_event("/api/v1/dbs", method="DELETE", headers=origin))
    assert_error(result, 405)
    assert result["headers"]["Allow"]


def test_repeated_query_parameters_and_csv(demo):
    db = next(d["id"] for d in body(demo(api_event("/api/v1/dbs")))["databases"] if not d["rac"])
    result = demo(api_event(f"/api/v1/dbs/{db}/series", "name=derived:tps&name=derived:aas&max_points=50"))
    assert [s["name"] for s in body(result)["series"]] == ["derived:tps", "derived:aas"]
    result = demo(api_event(f"/api/v1/dbs/{db}/load-profile", "format=csv"))
    assert result["statusCode"] == 200 and not result.get("isBase64Encoded")
    assert result["headers"]["Content-Type"].startswith("text/csv")
    assert result["body"].splitlines()[0].startswith("name") or "," in result["body"].splitlines()[0]


def test_conditional_request_gives_304_without_body(demo):
    first = demo(api_event("/api/v1/dbs"))
    again = demo(api_event("/api/v1/dbs", headers={"If-None-Match": first["headers"]["ETag"]}))
    assert again["statusCode"] == 304 and "body" not in again


def test_bodies_are_plain_text_and_compression_is_api_gateways(demo):
    """The app never compresses: API Gateway gzips answers over 1 KB (payload_minimum_compression_size), so the
    body Lambda returns is plain JSON, never base64 (binary_support is off)."""
    result = demo(api_event("/api/v1/openapi.json", headers={"Accept-Encoding": "gzip"}))
    assert result["statusCode"] == 200 and "Content-Encoding" not in result["headers"]
    assert body(result)["openapi"].startswith("3.")


@pytest.mark.slow  # the range report through Zappa's handler: over half a second
def test_the_range_report_through_zappa(demo):
    """The report (an HTML answer, docs/awr-rules.md §28) comes back as text with its script-free policy."""
    result = demo(api_event("/api/v1/dbs/RACPROD/report", "download=1"))
    assert result["statusCode"] == 200 and not result.get("isBase64Encoded")
    headers = result["headers"]
    assert headers["Content-Type"] == "text/html; charset=utf-8" and headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Content-Security-Policy"].startswith("default-src 'none'; style-src 'unsafe-inline'; img-src data:")
    assert headers["Content-Disposition"].startswith('attachment; filename="awrlens-RACPROD-')
    assert "<h1>RACPROD · snapshots " in result["body"] and "<script" not in result["body"]


def test_stage_prefix_on_the_execute_api_host_only(demo):
    """Behind https://{api}.execute-api.../demo the app's own URLs carry /demo; behind a custom domain they do not."""
    result = demo(api_event("/api/v1"))  # a redirect to the canonical /api/v1/
    assert result["statusCode"] in (301, 308)
    assert result["headers"]["Location"] == "/demo/api/v1/"  # relative: never the Host header's
    result = demo(api_event("/api/v1", host="api.awrlens.example.com"))
    assert result["headers"]["Location"] == "/api/v1/"
    assert demo(api_event("/api/v1/dbs"))["statusCode"] == 200  # the path in the event has no stage


# -- prod -----------------------------------------------------------------------------------------------------------


@pytest.mark.slow  # Zappa's handler on the prod stage: over half a second
def test_prod_needs_the_key_and_allows_only_the_site(prod):
    for headers in ({"Origin": SITE}, {"Origin": SITE, "X-API-Key": "guess"}):
        result = prod(api_event("/api/v1/dbs", headers=headers, stage="prod"))
        assert assert_error(result, 401)["code"] == "unauthorized"
        assert result["headers"]["Access-Control-Allow-Origin"] == SITE
    result = prod(api_event("/api/v1/dbs", headers={"Origin": SITE, "X-API-Key": KEY}, stage="prod"))
    assert result["statusCode"] == 200 and body(result)["databases"]
    assert result["headers"]["Access-Control-Allow-Origin"] == SITE
    other = prod(
        api_event("/api/v1/dbs", headers={"Origin": "https://evil.example.net", "X-API-Key": KEY}, stage="prod")
    )
    assert "Access-Control-Allow-Origin" not in other["headers"]


def test_prod_preflight_and_open_documents(prod):
    result = prod(
        api_event(
            "/api/v1/dbs",
            method="OPTIONS",
            stage="prod",
            headers={
                "Origin": SITE,
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "x-api-key",
            },
        )
    )
    assert result["statusCode"] == 200
    assert result["headers"]["Access-Control-Allow-Origin"] == SITE
    assert "x-api-key" in result["headers"]["Access-Control-Allow-Headers"].lower()
    for path in ("/api/v1/", "/api/v1/openapi.json"):
        assert prod(api_event(path, stage="prod"))["statusCode"] == 200


def test_prod_keep_warm_ping_loads_the_app_and_answers_nothing(prod):
    assert prod(keep_warm_event("awrlens-prod")) is None
    assert sys.modules.get("app.wsgi") is not None


def test_prod_errors_past_the_key_keep_cors(stage, aws):
    """The real prod settings, with the Oracle host unreachable (a refused port): 503 in JSON, with CORS."""
    import boto3

    arn = boto3.client("secretsmanager", region_name="eu-west-1").create_secret(
        Name="awrlens/prod", SecretString=json.dumps({"password": "pw", "api_key": KEY})
    )["ARN"]
    targets = {"prod": {"dsn": "127.0.0.1:9/ORCL", "user": "AWRLENS", "password_secret": arn}}
    invoke = stage("prod", AWRLENS_API_KEY_SECRET=arn, AWRLENS_TARGETS=json.dumps(targets))
    result = invoke(api_event("/api/v1/dbs", headers={"Origin": SITE, "X-API-Key": KEY}, stage="prod"))
    assert assert_error(result, 503)["code"] == "database_unavailable"
    assert result["headers"]["Access-Control-Allow-Origin"] == SITE
    assert "pw" not in result["body"] and KEY not in result["body"]


# -- answers that fit Lambda --------------------------------------------------------------------------------------


def payload_bytes(result) -> int:
    """What the python3.12 runtime sends back for the handler's result: its JSON, non-ASCII as UTF-8."""
    return len(json.dumps(result, ensure_ascii=False).encode())


BIG = "name=derived:aas&name=derived:tps&name=derived:host_cpu_pct&name=sysstat:redo size&instance=each&max_points=0"


def test_an_answer_lambda_cannot_return_is_a_json_422_naming_max_points_and_the_range(demo, monkeypatch):
    """Lambda returns at most 6 MB; over it the runtime fails and API Gateway answers a bare 502 without CORS
    headers. The limit is lowered here to just under what Zappa's handler really returns for a long answer (the
    demo store holds no 6 MB answer): the answer is refused as JSON, with CORS, saying how to ask for less; with the
    limit just over it, the same answer goes through."""
    from app.api import respond

    assert respond.LAMBDA_RESPONSE_LIMIT == 6_291_556  # Lambda's quota, as the runtime states it when it refuses
    origin = {"Origin": "https://anyone.example.org"}
    rac = next(d for d in body(demo(api_event("/api/v1/dbs")))["databases"] if d["rac"])
    path = f"/api/v1/dbs/{rac['id']}/series"
    whole = demo(api_event(path, BIG, headers=origin))
    assert whole["statusCode"] == 200
    size, rng = payload_bytes(whole), body(whole)["range"]
    monkeypatch.setattr(respond, "LAMBDA_RESPONSE_LIMIT", size - 1)
    refused = demo(api_event(path, BIG, headers=origin))
    err = assert_error(refused, 422)
    assert err["code"] == "answer_too_large" and err["parameter"] == "max_points"
    assert "max_points=0 asked for every point" in err["message"]
    assert f"{rng['from']} to {rng['to']} (snapshots {rng['begin_snap']} to {rng['end_snap']})" in err["message"]
    assert f"the answer is {size / 1e6:.1f} MB" in err["message"]
    assert refused["headers"]["Access-Control-Allow-Origin"] in ("*", origin["Origin"])
    monkeypatch.setattr(respond, "LAMBDA_RESPONSE_LIMIT", size + respond.LATER_HEADERS)  # what it adds after
    assert demo(api_event(path, BIG, headers=origin))["statusCode"] == 200


def test_other_long_answers_say_to_ask_for_less(demo, monkeypatch):
    from app.api import respond

    monkeypatch.setattr(respond, "LAMBDA_RESPONSE_LIMIT", 20_000)
    err = assert_error(demo(api_event("/api/v1/openapi.json")), 422)
    assert "AWS Lambda function can return" in err["message"] and "range" not in err["message"]


def test_off_lambda_nothing_is_refused(client, monkeypatch):
    """Under gunicorn there is no 6 MB limit: the check runs only behind Zappa's handler."""
    from app.api import respond

    monkeypatch.setattr(respond, "LAMBDA_RESPONSE_LIMIT", 1000)
    assert client.get("/api/v1/openapi.json").status_code == 200


# The answer below and, written out by hand, the invocation result Zappa's handler makes of it as the python3.12
# runtime serializes it (json.dumps: a control character escaped into 6 bytes, é left as its 2 UTF-8 bytes): 50,000
# bytes.
PADDED_BODY = "\x01" * 7959 + "é."
NOTE = "n" * 1000
PADDED_RESULT = (
    '{"body": "' + "\\u0001" * 7959 + 'é.", "statusCode": 200, '
    '"headers": {"X-Note": "' + NOTE + '", "Content-Type": "text/plain; charset=utf-8", "Content-Length": "7962"}, '
    '"multiValueHeaders": {"X-Note": ["' + NOTE + '"], "Content-Type": ["text/plain; charset=utf-8"], '
    '"Content-Length": ["7962"]}}'
)


def padded():
    from flask import Response

    return Response(PADDED_BODY, mimetype="text/plain", headers={"X-Note": NOTE})


@pytest.fixture(scope="module")
def lambda_app():
    """An app whose default max_points is 1234, with no database: fit_lambda() is called on answers made here."""
    from app import create_app
    from app.settings import Settings

    return create_app(Settings.from_env({}, targets={}, max_points=1234))


def fitted(app, resp, query="max_points=500"):
    from app.api.respond import fit_lambda

    with app.test_request_context(f"/api/v1/dbs/x/series?{query}"):
        return fit_lambda(resp)


def test_the_payload_is_zappas_result_as_the_runtime_writes_it():
    """The body as text, the status, each header under `headers` and as a list under `multiValueHeaders`."""
    from app.api import respond

    assert len(PADDED_RESULT.encode()) == 50_000
    assert respond.lambda_payload_size(padded()) == 50_000


def test_an_answer_is_refused_one_byte_over_what_lambda_returns(lambda_app, monkeypatch):
    """Whatever the answer's shape (here one that JSON escapes to nearly 6 times its bytes, with a long header), it
    goes through at exactly the limit less the headers added later, and one byte over it is refused, the message
    giving its size and the limit, and what to ask for instead."""
    from app.api import respond

    monkeypatch.setattr(respond, "LAMBDA_RESPONSE_LIMIT", 50_000 + respond.LATER_HEADERS)
    resp = padded()
    assert fitted(lambda_app, resp) is resp
    limit = 50_000 + respond.LATER_HEADERS - 1
    monkeypatch.setattr(respond, "LAMBDA_RESPONSE_LIMIT", limit)
    refused = fitted(lambda_app, padded())
    assert refused.status_code == 422
    assert refused.get_json() == {
        "error": {
            "status": 422,
            "code": "answer_too_large",
            "parameter": "max_points",
            "message": f"the answer is 0.1 MB (50,000 bytes), over the {limit:,} bytes an AWS Lambda function can "
            "return: ask for fewer points per series (max_points=500 asked for 500)",
        }
    }
    every = fitted(lambda_app, padded(), "max_points=0").get_json()["error"]["message"]
    assert every.endswith("ask for fewer points per series (max_points=0 asked for every point)")
    default = fitted(lambda_app, padded(), "").get_json()["error"]["message"]
    assert default.endswith("ask for fewer points per series (max_points, 1234 when not given)")


def test_a_streamed_answer_is_left_to_stream(lambda_app, monkeypatch):
    """An answer streamed or passed through (a file) is not read to measure it."""
    from flask import Response

    from app.api import respond

    monkeypatch.setattr(respond, "LAMBDA_RESPONSE_LIMIT", 3000)
    streamed = Response(iter([b"x" * 5000]), mimetype="text/plain")
    assert fitted(lambda_app, streamed) is streamed
    passed = Response(b"x" * 5000, mimetype="text/plain", direct_passthrough=True)
    assert fitted(lambda_app, passed) is passed


def test_the_range_named_is_the_views_or_the_one_its_json_states(demo_store, dbs, monkeypatch):
    """A CSV answer names the range its view answered; an answer served again from the answer cache (its view did
    not run) the range its JSON states: the same range as the JSON answer's."""
    from app import create_app
    from app.api import respond
    from app.settings import Settings

    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "awrlens-demo")  # fit_lambda() checks the answers
    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, max_points=1234))
    client = app.test_client()
    path = f"/api/v1/dbs/{dbs['rac']}/series?name=derived:aas&begin_snap=8200&end_snap=8300"
    rng = client.get(path).get_json()["range"]  # computed, and kept
    monkeypatch.setattr(respond, "LAMBDA_RESPONSE_LIMIT", 3000)
    snaps = f"(snapshots {rng['begin_snap']} to {rng['end_snap']})"
    named = f" or a shorter range than {rng['from']} to {rng['to']} {snaps}"
    for query in ("", "&format=csv"):
        resp = client.get(path + query)
        assert resp.status_code == 422, query
        assert resp.get_json()["error"]["message"].endswith(f"(max_points, 1234 when not given){named}"), query


def test_a_json_answer_states_its_range_only_as_an_object(lambda_app):
    from flask import Response

    from app.api import respond

    with lambda_app.test_request_context("/api/v1/dbs/x/series"):
        assert respond.range_of(Response('{"range": {"from": "a"}}', mimetype="application/json")) == {"from": "a"}
        assert respond.range_of(Response('[{"range": {"from": "a"}}]', mimetype="application/json")) is None
        assert respond.range_of(Response("{", mimetype="application/json")) is None
        assert respond.range_of(Response('{"range": {"from": "a"}}', mimetype="text/csv")) is None


# -- SnapStart readiness ------------------------------------------------------------------------------------------

INIT = r"""
import json, os, socket, sys, threading
reached = []  # every network address looked up or connected to during init
lookup, connect = socket.getaddrinfo, socket.socket.connect
socket.getaddrinfo = lambda host, *a, **k: reached.append(host) or lookup(host, *a, **k)
socket.socket.connect = lambda self, address: reached.append(address) or connect(self, address)
def fds():
    return {fd: os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}")}
before, threads = fds(), threading.active_count()
import zappa.handler as handler  # Lambda's init phase: what SnapStart snapshots
opened = {fd: path for fd, path in fds().items() if fd not in before}
state = {"app_built": handler.global_handler is not None and "app.wsgi" in sys.modules,
         "opened": sorted(opened.values()), "threads": threading.active_count() - threads, "reached": reached[:]}
result = handler.lambda_handler(json.loads(sys.argv[1]), None)  # the first request after a restore
state["status"] = result["statusCode"]
print(json.dumps(state))
"""


@pytest.mark.slow  # a Python subprocess per stage: over half a second
@pytest.mark.parametrize("name", ["demo", "prod"])
def test_the_app_is_built_at_init_with_nothing_unique_to_a_process(name, tmp_path, demo_store):
    """SnapStart (infra/README.md) snapshots a function after its init phase and starts every later container
    from that copy. With Zappa's INSTANTIATE_LAMBDA_HANDLER_ON_IMPORT the app is built at init, and that holds
    nothing that must be one per process or fresh: no file or socket open (no SQLite connection, no Oracle session:
    prod's database and secret are unreachable from here, and init does not notice), no thread, no AWS call; the
    first request after it is answered."""
    env = (
        {"AWRLENS_STORE_PATH": str(demo_store[0])}
        if name == "demo"
        else {
            "AWRLENS_TARGETS": json.dumps(
                {
                    "prod": {
                        "dsn": "127.0.0.1:9/ORCL",
                        "user": "AWRLENS",
                        "password_secret": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:awrlens/prod-AbCdEf",
                    }
                }
            ),
            "AWRLENS_API_KEY_SECRET": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:awrlens/prod-AbCdEf",
        }
    )
    (tmp_path / "zappa_settings.py").write_text(
        zappa_settings_module(name) + f"ENVIRONMENT_VARIABLES.update({env!r})\n"
    )
    event = api_event("/api/v1/dbs" if name == "demo" else "/api/v1/", stage=name)
    run_env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": f"{tmp_path}:{ROOT}",
        "AWS_LAMBDA_FUNCTION_NAME": f"awrlens-{name}",
        "INSTANTIATE_LAMBDA_HANDLER_ON_IMPORT": "true",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "AWS_ACCESS_KEY_ID": "none",
        "AWS_SECRET_ACCESS_KEY": "none",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", INIT, json.dumps(event)],
        cwd=ROOT,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    state = json.loads(done.stdout.strip().splitlines()[-1])
    assert state["app_built"]
    assert state["opened"] == [] and state["threads"] == 0, state
    assert state["reached"] == []  # no database, no Secrets Manager: both on first use
    assert state["status"] == 200
