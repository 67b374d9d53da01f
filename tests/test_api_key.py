"""The API key (AWRLENS_API_KEY_SECRET): X-API-Key on /api/v1, CORS on the refusals, the secret read once."""

import json

import pytest

from app import create_app
from app.api import auth
from app.demo.detail import HOSTILE_OBJ
from app.settings import Settings
from tests.conftest import assert_error
from tests.contract import monitor_report_id, monitor_report_query, stored_awr_reports

KEY = "k3y-0f-the-demo-with-some-length"
ORIGIN = "https://awrlens.example.com"


def make_app(demo_store, source, **settings):
    return create_app(
        Settings.from_env(
            {}, targets={"demo": {"sqlite": str(demo_store[0])}}, api_key_secret=source, cors_origins=ORIGIN, **settings
        )
    )


@pytest.fixture()
def client(demo_store, monkeypatch):
    monkeypatch.setenv("AWRLENS_TEST_KEY", KEY)
    return make_app(demo_store, "env:AWRLENS_TEST_KEY").test_client()


def test_the_setting_is_an_awrlens_variable():
    s = Settings.from_env({"AWRLENS_API_KEY_SECRET": "awrlens/prod"})
    assert s.api_key_secret == "awrlens/prod"
    assert Settings.from_env({}).api_key_secret is None


@pytest.mark.parametrize(
    "headers",
    [{}, {"X-API-Key": "wrong"}, {"X-API-Key": KEY[:-1]}, {"X-API-Key": KEY + " "}, {"Authorization": f"Bearer {KEY}"}],
)
def test_missing_or_wrong_key_is_401_with_cors(client, headers):
    resp = client.get("/api/v1/dbs", headers={"Origin": ORIGIN, **headers})
    err = assert_error(resp, 401)
    assert err["code"] == "unauthorized" and "X-API-Key" in err["message"]
    assert resp.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert KEY not in resp.get_data(as_text=True)


def test_right_key_answers(client):
    resp = client.get("/api/v1/dbs", headers={"X-API-Key": KEY, "Origin": ORIGIN})
    assert resp.status_code == 200 and resp.get_json()["databases"]
    assert resp.headers["Access-Control-Allow-Origin"] == ORIGIN


def test_a_key_in_the_url_does_not_count(client):
    for name in ("api_key", "x-api-key", "key"):
        assert_error(client.get(f"/api/v1/dbs?{name}={KEY}"), 401)


def test_preflight_needs_no_key_and_allows_the_header(client):
    resp = client.options(
        "/api/v1/dbs",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "X-API-Key",
        },
    )
    assert resp.status_code == 200
    assert resp.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert "x-api-key" in resp.headers["Access-Control-Allow-Headers"].lower()


def test_other_origins_get_no_cors_header(client):
    resp = client.get("/api/v1/dbs", headers={"X-API-Key": KEY, "Origin": "https://evil.example.net"})
    assert resp.status_code == 200 and "Access-Control-Allow-Origin" not in resp.headers


@pytest.mark.parametrize("path", ["/api/v1/", "/api/v1/openapi.json"])
def test_index_and_openapi_are_open(client, path):
    assert client.get(path).status_code == 200


def test_the_openapi_document_says_which_operations_need_the_key(client):
    doc = client.get("/api/v1/openapi.json", base_url="http://x/demo").get_json()
    assert doc["servers"] == [{"url": "/demo/"}]  # behind a stage prefix
    assert doc["components"]["securitySchemes"]["ApiKey"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    series = doc["paths"]["/api/v1/dbs/{db}/series"]["get"]
    assert series["security"] == [{"ApiKey": []}] and "401" in series["responses"]
    runs = doc["paths"]["/api/v1/benchmarks"]["get"]
    assert {} in runs["security"]  # public runs open without a key


def test_answers_vary_on_origin(client):
    resp = client.get("/api/v1/dbs", headers={"X-API-Key": KEY, "Origin": ORIGIN})
    assert "Origin" in resp.headers["Vary"] and resp.headers["Access-Control-Allow-Origin"] == ORIGIN


def test_a_cached_answer_needs_the_key_too(client):
    url = "/api/v1/dbs"
    assert client.get(url, headers={"X-API-Key": KEY}).status_code == 200
    assert client.get(url, headers={"X-API-Key": KEY}).status_code == 200  # from the answer cache
    assert_error(client.get(url), 401)


def test_a_keyed_answer_is_private_to_its_caller(client, demo_store):
    """RFC 9111 5.2.2.7: `private` keeps a shared cache (a CDN, a proxy) from serving the keyed answer to a caller
    without the key; an open API's answers stay `public`."""
    for answered in (client.get("/api/v1/dbs", headers={"X-API-Key": KEY}),) * 2:  # computed, then from the cache
        directives = {d.strip().split("=")[0] for d in answered.headers["Cache-Control"].split(",")}
        assert "private" in directives and "public" not in directives
    open_app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}))
    assert "public" in open_app.test_client().get("/api/v1/dbs").headers["Cache-Control"]


def test_no_key_configured_means_open(demo_store):
    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}))
    assert "api_key" not in app.extensions
    assert app.test_client().get("/api/v1/dbs").status_code == 200


def test_env_variable_not_set_is_503(demo_store, monkeypatch):
    monkeypatch.delenv("AWRLENS_TEST_KEY", raising=False)
    resp = (
        make_app(demo_store, "env:AWRLENS_TEST_KEY")
        .test_client()
        .get("/api/v1/dbs", headers={"X-API-Key": "x", "Origin": ORIGIN})
    )
    err = assert_error(resp, 503)
    assert err["code"] == "api_key_unavailable" and "AWRLENS_TEST_KEY" in err["message"]
    assert resp.headers["Access-Control-Allow-Origin"] == ORIGIN


# -- Secrets Manager (moto) ----------------------------------------------------------------------------------------


def test_key_from_a_json_secret_shared_with_the_password_read_once(demo_store, aws_calls):
    import boto3

    arn = boto3.client("secretsmanager").create_secret(
        Name="awrlens/prod", SecretString=json.dumps({"password": "db-pass", "api_key": KEY})
    )["ARN"]
    aws_calls.clear()
    c = make_app(demo_store, arn).test_client()
    assert aws_calls == set(), "nothing is read before the first request"
    for _ in range(3):
        assert c.get("/api/v1/dbs", headers={"X-API-Key": KEY}).status_code == 200
    assert aws_calls == {("secretsmanager", "GetSecretValue")}
    assert_error(c.get("/api/v1/dbs", headers={"X-API-Key": "db-pass"}), 401)


def test_plain_secret_by_name(demo_store, aws):
    import boto3

    boto3.client("secretsmanager").create_secret(Name="awrlens/key", SecretString=KEY)
    c = make_app(demo_store, "awrlens/key").test_client()
    assert c.get("/api/v1/dbs", headers={"X-API-Key": KEY}).status_code == 200


def test_a_rotated_key_is_picked_up(demo_store, aws, monkeypatch):
    import boto3

    sm = boto3.client("secretsmanager")
    sm.create_secret(Name="awrlens/key", SecretString="old-key")
    c = make_app(demo_store, "awrlens/key").test_client()
    assert c.get("/api/v1/dbs", headers={"X-API-Key": "old-key"}).status_code == 200
    sm.put_secret_value(SecretId="awrlens/key", SecretString="new-key")
    assert_error(c.get("/api/v1/dbs", headers={"X-API-Key": "new-key"}), 401)  # read again at most once a minute
    monkeypatch.setattr(auth, "REREAD_AFTER", 0.0)
    assert c.get("/api/v1/dbs", headers={"X-API-Key": "new-key"}).status_code == 200
    assert_error(c.get("/api/v1/dbs", headers={"X-API-Key": "old-key"}), 401)


@pytest.mark.parametrize("secret", [None, json.dumps({"password": "only"}), json.dumps({"api_key": ""})])
def test_missing_or_empty_secret_is_503(demo_store, aws, secret):
    import boto3

    if secret is not None:
        boto3.client("secretsmanager").create_secret(Name="awrlens/key", SecretString=secret)
    resp = make_app(demo_store, "awrlens/key").test_client().get("/api/v1/dbs", headers={"X-API-Key": "x"})
    err = assert_error(resp, 503)
    assert err["code"] == "api_key_unavailable"
    assert "only" not in err["message"]


def _gets(client):
    """(path, operation) of every GET the OpenAPI document lists."""
    doc = client.get("/api/v1/openapi.json").get_json()
    return [(path, item["get"]) for path, item in doc["paths"].items() if "get" in item]


def _variants(op):
    """The ways a GET answers: JSON, and each other format (CSV, text) and with its SQL where the operation takes
    those parameters."""
    params = {p["name"]: p for p in op["parameters"]}
    formats = params["format"]["schema"]["enum"] if "format" in params else []
    return (
        [{}] + [{"format": f} for f in formats if f != "json"] + ([{"show_sql": "1"}] if "show_sql" in params else [])
    )


@pytest.mark.slow  # every GET of the API three times: about 6 s
def test_every_keyed_get_refuses_without_the_key_as_json_csv_and_with_its_sql(client, dbs, stories, sql3):
    """Each GET the document marks as needing the key, in every form it answers in, is a 401 without the key (or with a
    wrong one) and answers with it; the document's list of operations drives the test, so a new route is covered."""
    lo = stories["plan_regression"]["begin_snap"]
    stored = stored_awr_reports(sql3, dbs["rac"])  # the demo keeps Oracle's AWR reports of a few ranges (§27)
    fill = {
        "db": dbs["rac"],
        "sql_id": stories["plan_regression"]["sql_id"],
        "report_id": monitor_report_id(sql3, dbs["rac"]),
        "obj": HOSTILE_OBJ,
    }
    needs = {
        "/api/v1/dbs/{db}/series": {"name": "derived:aas"},
        "/api/v1/dbs/{db}/event-histogram": {"event": "log file sync"},
        "/api/v1/dbs/{db}/compare": {
            "a_begin_snap": lo,
            "a_end_snap": lo + 4,
            "b_begin_snap": lo + 4,
            "b_end_snap": lo + 8,
        },
        "/api/v1/dbs/{db}/awr-report": stored["global"],
        "/api/v1/dbs/{db}/awr-report/compare": stored["global_diff"],
        "/api/v1/dbs/{db}/sql-monitor/{report_id}": monitor_report_query(sql3, dbs["rac"]),
        "/api/v1/dbs/{db}/sql/{sql_id}/plans/diff": {
            "a": stories["plan_regression"]["good_plan"],
            "b": stories["plan_regression"]["bad_plan"],
        },
        "/api/v1/dbs/{db}/sql/{sql_id}/plans/xplan": {"plan_hash_value": stories["plan_regression"]["good_plan"]},
    }
    checked = 0
    for path, op in _gets(client):
        if {} in op["security"]:
            continue  # open, or checking the key itself: below
        for variant in _variants(op):
            url, query = path.format(**fill), {**needs.get(path, {}), **variant}
            for headers in ({}, {"X-API-Key": KEY[::-1]}):
                err = assert_error(client.get(url, query_string=query, headers=headers), 401)
                assert err["code"] == "unauthorized", (path, variant)
            ok = client.get(url, query_string=query, headers={"X-API-Key": KEY})
            assert ok.status_code == 200, (path, variant, ok.get_data(as_text=True)[:300])
            checked += 1
    assert checked >= 30


def test_without_the_key_only_public_runs_open_in_every_form(client):
    """The benchmark routes check the key themselves: public runs open without it, as JSON and CSV; a private run is
    the same 404 as an unknown one without the key, listed and open with it."""
    keyed = {"X-API-Key": KEY}
    runs = client.get("/api/v1/benchmarks", headers=keyed).get_json()["rows"]
    private = [r["slug"] for r in runs if r["visibility"] == "private"]
    public = [r["slug"] for r in runs if r["visibility"] == "public"]
    assert private and public
    for variant in ({}, {"format": "csv"}):
        listed = client.get("/api/v1/benchmarks", query_string=variant)
        assert listed.status_code == 200
        text = listed.get_data(as_text=True)
        assert all(slug in text for slug in public) and not any(slug in text for slug in private)
        for slug in public:
            assert client.get(f"/api/v1/benchmarks/{slug}", query_string=variant).status_code == 200
        for slug in private:
            assert_error(client.get(f"/api/v1/benchmarks/{slug}", query_string=variant), 404, "slug")
            assert_error(
                client.get("/api/v1/benchmarks/compare", query_string={"runs": [public[0], slug], **variant}),
                404,
                "runs",
            )
            assert client.get(f"/api/v1/benchmarks/{slug}", query_string=variant, headers=keyed).status_code == 200


# -- the key's own rules (app/api/auth.py's docstring) --------------------------------------------------------------


def test_the_secret_is_read_within_the_connect_timeout(demo_store, aws, monkeypatch):
    """AWRLENS_CONNECT_TIMEOUT bounds every Secrets Manager read of the key, the first and a re-read after a wrong
    key: a stalled endpoint must not hold a request for botocore's default minute."""
    import boto3

    boto3.client("secretsmanager").create_secret(Name="awrlens/key", SecretString=KEY)
    real, seen = boto3.client, []

    def client(*args, **kwargs):
        if args[:1] == ("secretsmanager",):
            seen.append((kwargs["config"].connect_timeout, kwargs["config"].read_timeout))
        return real(*args, **kwargs)

    monkeypatch.setattr(boto3, "client", client)
    c = make_app(demo_store, "awrlens/key", connect_timeout=2.5).test_client()
    assert c.get("/api/v1/dbs", headers={"X-API-Key": KEY}).status_code == 200
    monkeypatch.setattr(auth, "REREAD_AFTER", 0.0)
    assert_error(c.get("/api/v1/dbs", headers={"X-API-Key": "wrong"}), 401)
    assert seen == [(2.5, 2.5), (2.5, 2.5)]


def test_an_unreadable_secret_is_named_in_the_503(demo_store, aws):
    resp = make_app(demo_store, "awrlens/none").test_client().get("/api/v1/dbs", headers={"X-API-Key": "x"})
    err = assert_error(resp, 503)
    assert "cannot read the API key secret 'awrlens/none'" in err["message"]
    assert "ResourceNotFoundException" in err["message"]


def test_a_secret_that_cannot_be_read_again_keeps_the_key_and_says_why(demo_store, aws, monkeypatch, caplog):
    import boto3

    sm = boto3.client("secretsmanager")
    sm.create_secret(Name="awrlens/key", SecretString=KEY)
    c = make_app(demo_store, "awrlens/key").test_client()
    assert c.get("/api/v1/dbs", headers={"X-API-Key": KEY}).status_code == 200
    sm.delete_secret(SecretId="awrlens/key", ForceDeleteWithoutRecovery=True)
    monkeypatch.setattr(auth, "REREAD_AFTER", 0.0)
    with caplog.at_level("WARNING", logger=auth.__name__):
        assert_error(c.get("/api/v1/dbs", headers={"X-API-Key": "wrong"}), 401)
    assert c.get("/api/v1/dbs", headers={"X-API-Key": KEY}).status_code == 200
    said = [r.getMessage() for r in caplog.records if r.name == auth.__name__]
    assert len(said) == 1 and said[0].startswith("could not read the API key again: ")
    assert "cannot read the API key secret 'awrlens/key'" in said[0]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now


def counting_key(monkeypatch, value=KEY):
    clock, reads = Clock(), []
    monkeypatch.setattr(auth, "time", clock)
    monkeypatch.setattr(auth, "read_key", lambda source, timeout: reads.append(clock.now) or value)
    return auth.ApiKey("env:UNUSED", 1.0), clock, reads


def test_a_wrong_key_reads_the_secret_again_once_a_minute_has_passed(monkeypatch):
    """ "at most once a minute": not 59.9 s after the last read, but at 60 s (and after)."""
    key, clock, reads = counting_key(monkeypatch)
    assert key.matches(KEY) and reads == [1000.0]
    clock.now = 1059.9
    assert not key.matches("wrong") and reads == [1000.0]
    clock.now = 1060.0
    assert not key.matches("wrong") and reads == [1000.0, 1060.0]
    clock.now = 1119.0
    assert not key.matches("wrong") and reads == [1000.0, 1060.0]


@pytest.mark.parametrize("given", ["\udcff", KEY + "\udc80", "\ud800", KEY[:4] + "\udbff\udfff"])
def test_a_header_utf8_cannot_encode_is_a_wrong_key_not_an_error(monkeypatch, given):
    """A lone surrogate (what a decoded header of undecodable bytes holds, or any in a Lambda event's JSON) compares as
    its bytes: not the key, and never a 500."""
    key, _, _ = counting_key(monkeypatch)
    assert key.matches(given) is False
    assert key.matches(KEY) is True
