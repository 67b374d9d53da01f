"""infra/guard_rails.py against moto: stage throttling, API Gateway's own errors with the stage's CORS origin, the
usage plan where API Gateway requires the key, the log group's retention, the four alarms; idempotent; what Zappa's
`update` leaves of them."""

import json
import zipfile
from pathlib import Path

import pytest

from infra import guard_rails
from infra.deploy_site import Aws, DeployError
from infra.lambda_package import stage_settings
from tests.aws import REGION, lambda_quota
from tests.test_deploy import zappa_stack

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def clients(aws):
    import boto3

    return {name: boto3.client(name, region_name=REGION) for name in ("apigateway", "logs", "cloudwatch")}


def settings_file(tmp_path, **stages) -> Path:
    path = tmp_path / "zappa_settings.json"
    path.write_text(json.dumps(stages))
    return path


@pytest.mark.slow
def test_the_rails_of_the_prod_stage(clients):
    api_id = zappa_stack("prod")
    topic = "arn:aws:sns:eu-west-1:123456789012:awrlens-alarms"
    rails = guard_rails.apply("prod", Aws(REGION), alarm_topic=topic)
    ag = clients["apigateway"]
    settings = ag.get_stage(restApiId=api_id, stageName="prod")["methodSettings"]["*/*"]
    assert (settings["throttlingRateLimit"], settings["throttlingBurstLimit"]) == (guard_rails.RATE, guard_rails.BURST)
    origin = stage_settings("prod")["environment_variables"]["AWRLENS_CORS_ORIGINS"]
    for kind in ("DEFAULT_4XX", "DEFAULT_5XX"):  # a 429 or a 502 from API Gateway reaches the page readable
        params = ag.get_gateway_response(restApiId=api_id, responseType=kind)["responseParameters"]
        assert params["gatewayresponse.header.Access-Control-Allow-Origin"] == f"'{origin}'"
    assert not ag.get_usage_plans()["items"]  # prod's key is checked by the app: API Gateway meters no key
    [group] = clients["logs"].describe_log_groups(logGroupNamePrefix="/aws/lambda/awrlens-prod")["logGroups"]
    assert group["logGroupName"] == "/aws/lambda/awrlens-prod" and group["retentionInDays"] == guard_rails.LOG_DAYS
    found = {a["AlarmName"]: a for a in clients["cloudwatch"].describe_alarms()["MetricAlarms"]}
    assert (
        set(found)
        == {"awrlens-prod-api-5xx", "awrlens-prod-errors", "awrlens-prod-throttles", "awrlens-prod-duration"}
        == set(rails.alarms)
    )
    dims = lambda a: {d["Name"]: d["Value"] for d in a["Dimensions"]}  # noqa: E731
    assert (found["awrlens-prod-api-5xx"]["Namespace"], found["awrlens-prod-api-5xx"]["MetricName"]) == (
        "AWS/ApiGateway",
        "5XXError",
    )
    assert dims(found["awrlens-prod-api-5xx"]) == {"ApiName": "awrlens-prod", "Stage": "prod"}
    for name, metric in [("errors", "Errors"), ("throttles", "Throttles"), ("duration", "Duration")]:
        alarm = found[f"awrlens-prod-{name}"]
        assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/Lambda", metric)
        assert dims(alarm) == {"FunctionName": "awrlens-prod"}
    timeout_ms = stage_settings("prod")["timeout_seconds"] * 1000
    duration = found["awrlens-prod-duration"]
    assert duration["Statistic"] == "Maximum" and timeout_ms / 2 < duration["Threshold"] < timeout_ms
    assert all(
        a["AlarmActions"] == [topic] and a["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
        for a in found.values()
    )


@pytest.mark.slow
def test_a_second_run_changes_nothing(clients):
    zappa_stack("demo")
    first = guard_rails.apply("demo", Aws(REGION))
    assert first.changed and first.cors_origin == "*"
    deployments = clients["apigateway"].get_deployments(restApiId=first.api_id)["items"]
    again = guard_rails.apply("demo", Aws(REGION))
    assert again.changed == []
    assert clients["apigateway"].get_deployments(restApiId=first.api_id)["items"] == deployments
    assert len(clients["cloudwatch"].describe_alarms()["MetricAlarms"]) == 4


@pytest.mark.slow
def test_an_existing_log_group_gets_its_retention(clients):
    zappa_stack("demo")
    clients["logs"].create_log_group(logGroupName="/aws/lambda/awrlens-demo")  # made by Lambda at first run
    clients["logs"].create_log_group(logGroupName="/aws/lambda/awrlens-demo-other")  # the prefix matches it too
    guard_rails.apply("demo", Aws(REGION))
    groups = {g["logGroupName"]: g.get("retentionInDays") for g in clients["logs"].describe_log_groups()["logGroups"]}
    assert groups == {"/aws/lambda/awrlens-demo": guard_rails.LOG_DAYS, "/aws/lambda/awrlens-demo-other": None}


@pytest.mark.slow
def test_a_usage_plan_where_api_gateway_requires_the_key(clients, tmp_path):
    """With api_key_required, Zappa makes the key <stage>_<api id> at deploy: the plan holds it, on the stage, with
    the throttle and the daily quota; run again, nothing is added; a plan found with other limits is corrected."""
    ag = clients["apigateway"]
    api_id = zappa_stack("keyed")
    key = ag.create_api_key(name=f"keyed_{api_id}", enabled=True)["id"]  # as Zappa's create_api_key names it
    ag.create_api_key(name="keyed_other", enabled=True)
    path = settings_file(
        tmp_path,
        keyed={
            "api_key_required": True,
            "timeout_seconds": 27,
            "environment_variables": {"AWRLENS_CORS_ORIGINS": "https://a.example"},
        },
    )
    rails = guard_rails.apply("keyed", Aws(REGION), settings_file=path)
    [plan] = ag.get_usage_plans()["items"]
    assert rails.usage_plan == plan["id"] and plan["name"] == "awrlens-keyed"
    assert [(s["apiId"], s["stage"]) for s in plan["apiStages"]] == [(api_id, "keyed")]
    assert plan["throttle"] == {"rateLimit": guard_rails.RATE, "burstLimit": guard_rails.BURST}
    assert plan["quota"]["limit"] == guard_rails.QUOTA_PER_DAY and plan["quota"]["period"] == "DAY"
    assert [k["id"] for k in ag.get_usage_plan_keys(usagePlanId=plan["id"])["items"]] == [key]
    assert guard_rails.apply("keyed", Aws(REGION), settings_file=path).changed == []
    ag.update_usage_plan(
        usagePlanId=plan["id"], patchOperations=[{"op": "replace", "path": "/throttle/rateLimit", "value": "1000"}]
    )
    assert guard_rails.apply("keyed", Aws(REGION), settings_file=path).changed == ["usage plan awrlens-keyed updated"]
    assert ag.get_usage_plan(usagePlanId=plan["id"])["throttle"]["rateLimit"] == guard_rails.RATE


@pytest.mark.slow
def test_a_usage_plan_needs_the_key(clients, tmp_path):
    zappa_stack("keyed")
    path = settings_file(tmp_path, keyed={"api_key_required": True})
    with pytest.raises(DeployError, match="no API key keyed_"):
        guard_rails.apply("keyed", Aws(REGION), settings_file=path)


@pytest.mark.slow
def test_several_origins_leave_api_gateways_errors_alone(clients, tmp_path):
    api_id = zappa_stack("two")
    path = settings_file(
        tmp_path, two={"environment_variables": {"AWRLENS_CORS_ORIGINS": "https://a.example,https://b.example"}}
    )
    assert guard_rails.apply("two", Aws(REGION), settings_file=path).cors_origin is None
    assert clients["apigateway"].get_gateway_responses(restApiId=api_id)["items"] == [] or all(
        "gatewayresponse.header.Access-Control-Allow-Origin" not in (r.get("responseParameters") or {})
        for r in clients["apigateway"].get_gateway_responses(restApiId=api_id)["items"]
    )


@pytest.mark.slow
def test_command_line(clients, capsys):
    zappa_stack("prod")
    assert guard_rails.main(["prod", "--region", REGION]) == 0
    out = capsys.readouterr().out
    assert f"stage throttling {guard_rails.RATE}/s" in out
    assert "they notify nobody" in out
    assert guard_rails.main(["prod", "--region", REGION]) == 0
    assert "every guard rail already in place" in capsys.readouterr().out
    assert guard_rails.main(["nope", "--region", REGION]) == 2


def test_zappa_update_leaves_the_throttling_alone():
    """`zappa update` redeploys the stage (CreateDeployment to an existing stage keeps its settings in API Gateway;
    moto 5.2 makes a new stage instead, so this is read from Zappa's source): the only stage settings Zappa writes
    are its logging, metrics and caching ones, never the throttling."""
    import ast
    import inspect

    from zappa.core import Zappa

    tree = ast.parse(inspect.getsource(Zappa.deploy_api_gateway).strip().replace("\n    ", "\n"))
    written = [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "get_patch_op"
    ]
    assert written and {p.split("/")[0] for p in written} == {"logging", "metrics", "caching"}, written
    updates = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("update_stage", "create_stage")
    ]
    assert len(updates) == 1  # the one update_stage, with the patch operations above


# -- reserved concurrency in a new account ----------------------------------------------------------------------------


def lambda_function(name: str) -> str:
    """A function in moto, as Zappa's deploy creates it (before it reserves concurrency)."""
    import io
    import zipfile

    import boto3

    iam = boto3.client("iam", region_name=REGION)
    role = iam.create_role(RoleName=f"{name}-role", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    package = io.BytesIO()
    with zipfile.ZipFile(package, "w") as z:
        z.writestr("handler.py", "def handler(event, context):\n    return {}\n")
    return boto3.client("lambda", region_name=REGION).create_function(
        FunctionName=name,
        Runtime="python3.12",
        Role=role,
        Handler="handler.handler",
        Code={"ZipFile": package.getvalue()},
    )["FunctionArn"]


@pytest.mark.slow  # moto, once per case: over half a second
@pytest.mark.parametrize(("quota", "accepted"), [(10, False), (109, False), (110, True), (1000, True)])
def test_the_concurrency_check_agrees_with_lambdas_rule(aws_calls, monkeypatch, quota, accepted):
    """Lambda refuses a reservation that would leave fewer than 100 executions unreserved (Lambda Developer Guide,
    "Configuring reserved concurrency"), and a new account's quota may be as low as 10 (Lambda quotas): the stage's
    10 need a quota of 110. The check says so before the function exists, after, and once it holds its reservation
    (what Zappa's update asks again); moto's PutFunctionConcurrency, which models the same rule against
    MOTO_LAMBDA_CONCURRENCY_QUOTA, agrees."""
    import boto3
    from botocore.exceptions import ClientError

    lambda_quota(aws_calls, quota)
    monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", str(quota))
    wanted = stage_settings("prod")["lambda_concurrency"]
    assert wanted == 10
    aws = Aws(REGION)
    assert (guard_rails.concurrency_refusal(aws, "awrlens-prod", wanted) is None) == accepted  # not deployed yet
    lambda_function("awrlens-prod")
    assert (guard_rails.concurrency_refusal(aws, "awrlens-prod", wanted) is None) == accepted
    try:
        boto3.client("lambda", region_name=REGION).put_function_concurrency(
            FunctionName="awrlens-prod", ReservedConcurrentExecutions=wanted
        )
    except ClientError as exc:
        assert "UnreservedConcurrentExecution below its minimum value of [100]" in str(exc)
        assert not accepted
    else:
        assert accepted
        assert guard_rails.concurrency_refusal(aws, "awrlens-prod", wanted) is None  # its own reservation counted


@pytest.mark.slow  # moto: over half a second
def test_a_new_account_is_told_what_to_do(aws_calls, capsys, tmp_path):
    lambda_quota(aws_calls, 10)
    assert guard_rails.main(["prod", "--region", REGION, "--check-concurrency"]) == 2
    err = capsys.readouterr().err
    assert "quota in eu-west-1 is 10 concurrent executions, 10 of them unreserved" in err
    assert "would leave 0" in err and "a quota of at least 110" in err and "Service Quotas" in err
    assert "remove lambda_concurrency from the stage" in err
    lambda_quota(aws_calls, 1000)
    assert guard_rails.main(["prod", "--region", REGION, "--check-concurrency"]) == 0
    assert "accepts the reserved concurrency of 10" in capsys.readouterr().out
    unreserved = stage_settings("prod")
    del unreserved["lambda_concurrency"]
    lambda_quota(aws_calls, 10)
    assert guard_rails.check_concurrency("prod", Aws(REGION), settings_file(tmp_path, prod=unreserved)) == 0
    assert "nothing for Lambda to refuse" in capsys.readouterr().out


@pytest.mark.slow
def test_a_deploy_refused_its_reservation_is_recovered_as_the_guide_says(tmp_path, monkeypatch, capsys):
    """What Zappa 0.63's own code does in an account whose quota refuses the stage's reservation (moto refusing as
    Lambda does): `zappa deploy` stops after creating the function, before the API; run again, it answers "already
    deployed" (cli.deploy), and `zappa update` cannot finish either (refused again; with the quota raised, no stack);
    `zappa undeploy` then `zappa deploy` deploys, with the quota raised or the stage's lambda_concurrency removed
    (infra/README.md, step 6)."""
    import boto3
    import zappa.core
    from botocore.exceptions import ParamValidationError
    from moto import mock_aws
    from zappa.cli import ZappaCLI

    from tests.aws import dummy_credentials, record_calls

    dummy_credentials(monkeypatch)
    monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", "10")
    monkeypatch.setattr(ZappaCLI, "touch_endpoint", lambda self, url: None)  # an HTTP request to the live API
    monkeypatch.setattr(ZappaCLI, "check_for_update", lambda self: None)  # a request to PyPI
    monkeypatch.setattr(zappa.core.time, "sleep", lambda s: None)
    monkeypatch.chdir(tmp_path)  # Zappa writes its template here, and leaves it when update finds no stack
    package = tmp_path / "awrlens-demo.zip"
    with zipfile.ZipFile(package, "w") as z:
        z.writestr("handler.py", "def lambda_handler(event, context):\n    return {}\n")
    settings = json.loads((ROOT / "zappa_settings.json").read_text())
    (tmp_path / "zappa_settings.json").write_text(json.dumps(settings))
    with mock_aws():
        calls = record_calls(monkeypatch)
        calls.stubs[("lambda", "ListFunctionUrlConfigs")] = {"FunctionUrlConfigs": []}  # moto lacks it
        lambda_quota(calls, 10)
        trust = (ROOT / "infra" / "iam" / "lambda-trust.json").read_text()
        boto3.client("iam").create_role(RoleName="awrlens-demo-lambda", AssumeRolePolicyDocument=trust)
        assert guard_rails.main(["demo", "--region", REGION, "--check-concurrency"]) == 2  # what step 6 runs first
        with pytest.raises(Exception, match="UnreservedConcurrentExecution below its minimum value"):
            ZappaCLI().handle(["deploy", "demo", "-z", str(package)])
        lam, cfn = boto3.client("lambda"), boto3.client("cloudformation")
        assert lam.get_function(FunctionName="awrlens-demo")  # half-finished: the function, and no stack
        assert not [s for s in cfn.describe_stacks()["Stacks"] if s["StackName"] == "awrlens-demo"]
        capsys.readouterr()
        with pytest.raises(SystemExit):
            ZappaCLI().handle(["deploy", "demo", "-z", str(package)])
        assert "This application is already deployed - did you mean to call update?" in capsys.readouterr().err
        with pytest.raises(Exception, match="UnreservedConcurrentExecution below its minimum value"):
            ZappaCLI().handle(["update", "demo", "-z", str(package)])  # refused again, after the new code
        monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", "1000")  # the quota raised: update still lacks the stack
        with pytest.raises(ParamValidationError):  # Zappa finds no API (get_api_id: None) to deploy the stage to
            ZappaCLI().handle(["update", "demo", "-z", str(package)])

        def stacks():
            return [s["StackStatus"] for s in cfn.describe_stacks()["Stacks"] if s["StackName"] == "awrlens-demo"]

        ZappaCLI().handle(["undeploy", "demo", "--yes"])
        ZappaCLI().handle(["deploy", "demo", "-z", str(package)])
        assert stacks() == ["CREATE_COMPLETE"]
        assert lam.get_function_concurrency(FunctionName="awrlens-demo")["ReservedConcurrentExecutions"] == 10
        ZappaCLI().handle(["undeploy", "demo", "--yes"])
        monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", "10")  # no quota increase: the stage without it
        del settings["demo"]["lambda_concurrency"]
        (tmp_path / "zappa_settings.json").write_text(json.dumps(settings))
        ZappaCLI().handle(["deploy", "demo", "-z", str(package)])
        assert stacks() == ["CREATE_COMPLETE"]
        assert "ReservedConcurrentExecutions" not in lam.get_function_concurrency(FunctionName="awrlens-demo")
