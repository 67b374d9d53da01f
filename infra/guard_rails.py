"""The API's guard rails on AWS, after `zappa deploy STAGE`: `make guard-rails STAGE=prod [ALARM_TOPIC=arn:...]`.

  .venv/bin/python infra/guard_rails.py prod [--region eu-west-1] [--alarm-topic arn:aws:sns:...]

Idempotent: a second run changes nothing it has set (each value is written as wanted, not added to). Zappa's
`update` keeps them (it redeploys the stage, which keeps a stage's settings, and rewrites only its logging, metrics
and caching settings: tests/test_guard_rails.py reads that from Zappa's source); run it after every `zappa deploy`
(a new API) and, to be sure, after `zappa update`. What it sets, for the stage's API (found through Zappa's
CloudFormation stack, as infra/deploy_site.py finds it) and function:
- stage throttling: every method of the stage at RATE requests a second with bursts of BURST; more is answered
  429 by API Gateway before the function runs (with lambda_concurrency 10, the function is never the first limit);
- API Gateway's own error answers (DEFAULT_4XX, DEFAULT_5XX: a throttled request, a crashed or timed-out function)
  carry the stage's CORS origin, so the page reads their status instead of a CORS error;
- where API Gateway itself requires the key (the stage's api_key_required), a usage plan on the stage with the
  same throttle and a daily quota, holding the stage's key (Zappa's, or the stage's api_key). The stages of this
  project check the key in the app (infra/README.md): API Gateway meters no key there, so no plan is made;
- the function's log group /aws/lambda/<function> with a retention of LOG_DAYS days (created if missing; Lambda's
  default keeps logs for ever);
- CloudWatch alarms: the stage's 5XX answers, the function's errors, its throttles, and its longest run near the
  timeout (DURATION_SHARE of timeout_seconds), each to --alarm-topic (an SNS topic) when given.
The AWS calls it makes are exactly the actions of infra/iam/api-guard-rails.json (tests/test_iam.py checks).

Before the first `zappa deploy` in an account, `--check-concurrency` only reads the account's Lambda settings and says
whether Lambda will accept the reserved concurrency Zappa asks for (the stage's lambda_concurrency, on deploy and on
every update): Lambda refuses a reservation that would leave fewer than MIN_UNRESERVED executions unreserved, and a
new account's quota can be far below the usual 1,000. Refused, Zappa's deploy stops after creating the function
(infra/README.md, step 6).
"""

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # when run as a script

from infra.deploy_site import PROJECT, SETTINGS_FILE, Aws, DeployError, find_api  # noqa: E402
from infra.lambda_package import stage_settings  # noqa: E402

RATE, BURST = 25, 50  # requests a second, steady and in a burst, for the whole stage
QUOTA_PER_DAY = 50_000  # a key's requests a day, where a usage plan applies
LOG_DAYS = 30  # one of CloudWatch Logs' allowed retention periods
DURATION_SHARE = 0.8  # the duration alarm: a run over this share of the function's timeout
PERIOD = 300  # seconds each alarm looks at
ERROR_RESPONSES = ("DEFAULT_4XX", "DEFAULT_5XX")
MIN_UNRESERVED = 100  # what a reservation must leave unreserved (Lambda Developer Guide, reserved concurrency)


@dataclass
class Rails:
    stage: str
    api_id: str
    function: str
    changed: list = field(default_factory=list)  # what this run set that was not so
    alarms: list = field(default_factory=list)
    usage_plan: str | None = None
    cors_origin: str | None = None


def alarms(stage: str, function: str, timeout_seconds: int) -> list[dict]:
    """The four alarms of a stage, as put_metric_alarm takes them (without the actions)."""
    api = [{"Name": "ApiName", "Value": function}, {"Name": "Stage", "Value": stage}]
    fn = [{"Name": "FunctionName", "Value": function}]
    common = {
        "Period": PERIOD,
        "EvaluationPeriods": 1,
        "ComparisonOperator": "GreaterThanOrEqualToThreshold",
        "TreatMissingData": "notBreaching",
    }
    return [
        {
            "AlarmName": f"{function}-api-5xx",
            "Namespace": "AWS/ApiGateway",
            "MetricName": "5XXError",
            "Dimensions": api,
            "Statistic": "Sum",
            "Threshold": 5.0,
            "AlarmDescription": "5 or more 5xx answers in 5 minutes: the database unreachable or slow (503, 504), or "
            "the function failing (502)",
            **common,
        },
        {
            "AlarmName": f"{function}-errors",
            "Namespace": "AWS/Lambda",
            "MetricName": "Errors",
            "Dimensions": fn,
            "Statistic": "Sum",
            "Threshold": 1.0,
            "AlarmDescription": "the function failed (an unhandled error, a timeout, an answer over 6 MB)",
            **common,
        },
        {
            "AlarmName": f"{function}-throttles",
            "Namespace": "AWS/Lambda",
            "MetricName": "Throttles",
            "Dimensions": fn,
            "Statistic": "Sum",
            "Threshold": 1.0,
            "AlarmDescription": "requests refused at the function's concurrency limit (lambda_concurrency)",
            **common,
        },
        {
            "AlarmName": f"{function}-duration",
            "Namespace": "AWS/Lambda",
            "MetricName": "Duration",
            "Dimensions": fn,
            "Statistic": "Maximum",
            "Threshold": round(DURATION_SHARE * timeout_seconds * 1000.0, 1),
            "Unit": "Milliseconds",
            "AlarmDescription": f"a run took {DURATION_SHARE:.0%} of the {timeout_seconds} s timeout: the database "
            "bounds are being reached (docs/oracle.md, Never hang)",
            **common,
        },
    ]


def cors_origin(settings: dict) -> str | None:
    """The one origin API Gateway's own answers may name: the stage's AWRLENS_CORS_ORIGINS when it is one origin
    or "*"; None for several (a gateway response has one fixed header)."""
    from app.settings import Settings

    origins = [o.strip() for o in Settings.from_env(settings.get("environment_variables", {})).cors_origins.split(",")]
    return origins[0] if len(origins) == 1 else None


def apply(
    stage: str,
    aws: Aws | None = None,
    region: str | None = None,
    alarm_topic: str | None = None,
    settings_file: Path = SETTINGS_FILE,
) -> Rails:
    aws = aws or Aws(region)
    try:
        settings = stage_settings(stage, settings_file)
    except SystemExit as exc:
        raise DeployError(str(exc)) from None
    function = f"{settings.get('project_name', PROJECT)}-{stage}"
    rails = Rails(stage, find_api(aws, stage, settings.get("project_name", PROJECT)), function)
    rails.cors_origin = cors_origin(settings)
    error_responses(aws, rails)  # first: it may redeploy the stage
    throttle(aws, rails)
    if settings.get("api_key_required"):
        usage_plan(aws, rails, settings.get("api_key"))
    log_retention(aws, rails)
    for alarm in alarms(stage, function, int(settings.get("timeout_seconds", 30))):
        if alarm_topic:
            alarm = {**alarm, "AlarmActions": [alarm_topic], "OKActions": [alarm_topic]}
        aws.cloudwatch.put_metric_alarm(**alarm)
        rails.alarms.append(alarm["AlarmName"])
    return rails


def concurrency_refusal(aws: Aws, function: str, wanted: int) -> str | None:
    """Why Lambda would refuse to reserve `wanted` concurrent executions for `function` in this account and region,
    and what to do; None when it would accept. What the function already holds is counted as its own."""
    from botocore.exceptions import ClientError

    limit = aws.lambda_.get_account_settings()["AccountLimit"]
    try:
        held = aws.lambda_.get_function_concurrency(FunctionName=function).get("ReservedConcurrentExecutions") or 0
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
        held = 0  # not deployed yet
    left = limit["UnreservedConcurrentExecutions"] + held - wanted
    if left >= MIN_UNRESERVED:
        return None
    return (
        f"Lambda will refuse to reserve {wanted} concurrent executions for {function} (the stage's "
        f"lambda_concurrency): this account's quota in {aws.region} is {limit['ConcurrentExecutions']} concurrent "
        f"executions, {limit['UnreservedConcurrentExecutions']} of them unreserved, and a reservation must leave "
        f"{MIN_UNRESERVED} unreserved (this one would leave {left}); zappa deploy would stop after creating the "
        f"function. Either ask for a quota of at least {limit['ConcurrentExecutions'] - left + MIN_UNRESERVED} "
        "(Service Quotas, AWS Lambda, Concurrent executions) and deploy once it is granted, or deploy without the "
        "reservation: remove lambda_concurrency from the stage in zappa_settings.json (the account's quota then "
        "caps the function, and the stage throttling of make guard-rails still applies), and put it back when the "
        "quota is raised."
    )


def throttle(aws: Aws, rails: Rails):
    stage = aws.apigateway.get_stage(restApiId=rails.api_id, stageName=rails.stage)
    current = stage.get("methodSettings", {}).get("*/*", {})
    if current.get("throttlingRateLimit") == float(RATE) and current.get("throttlingBurstLimit") == BURST:
        return
    aws.apigateway.update_stage(
        restApiId=rails.api_id,
        stageName=rails.stage,
        patchOperations=[
            {"op": "replace", "path": "/*/*/throttling/rateLimit", "value": f"{RATE:g}"},
            {"op": "replace", "path": "/*/*/throttling/burstLimit", "value": str(BURST)},
        ],
    )
    rails.changed.append(f"stage throttling {RATE}/s, burst {BURST}")


def error_responses(aws: Aws, rails: Rails):
    """API Gateway's own 4xx and 5xx answers with the stage's CORS origin; the stage redeployed when they change
    (gateway responses take effect with a deployment)."""
    from botocore.exceptions import ClientError

    if rails.cors_origin is None:
        return
    wanted = {
        "gatewayresponse.header.Access-Control-Allow-Origin": f"'{rails.cors_origin}'",
        "gatewayresponse.header.Vary": "'Origin'",
    }
    changed = False
    for kind in ERROR_RESPONSES:
        try:
            current = aws.apigateway.get_gateway_response(restApiId=rails.api_id, responseType=kind)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "NotFoundException":
                raise
            current = {}
        if current.get("responseParameters") != wanted:
            aws.apigateway.put_gateway_response(restApiId=rails.api_id, responseType=kind, responseParameters=wanted)
            changed = True
    if changed:
        aws.apigateway.create_deployment(
            restApiId=rails.api_id,
            stageName=rails.stage,
            description="awrlens guard rails: API Gateway's errors with CORS",
        )
        rails.changed.append(f"API Gateway's own errors allow {rails.cors_origin}")


def usage_plan(aws: Aws, rails: Rails, api_key: str | None):
    """The stage's usage plan (throttle, daily quota) with the stage's key: the stage's api_key, or the key Zappa
    made (named <stage>_<api id>)."""
    ag = aws.apigateway
    name = rails.function
    plan = next(
        (p for page in ag.get_paginator("get_usage_plans").paginate() for p in page["items"] if p["name"] == name), None
    )
    throttle_ = {"rateLimit": float(RATE), "burstLimit": BURST}
    quota = {"limit": QUOTA_PER_DAY, "period": "DAY"}
    if plan is None:
        plan = ag.create_usage_plan(
            name=name,
            description=f"awrlens {rails.stage}: throttle and quota per key",
            apiStages=[{"apiId": rails.api_id, "stage": rails.stage}],
            throttle=throttle_,
            quota=quota,
        )
        rails.changed.append(f"usage plan {name}")
    else:
        ops = []
        if {"apiId": rails.api_id, "stage": rails.stage} not in [
            {"apiId": s["apiId"], "stage": s["stage"]} for s in plan.get("apiStages", [])
        ]:
            ops.append({"op": "add", "path": "/apiStages", "value": f"{rails.api_id}:{rails.stage}"})
        if plan.get("throttle", {}).get("rateLimit") != throttle_["rateLimit"]:
            ops.append({"op": "replace", "path": "/throttle/rateLimit", "value": f"{throttle_['rateLimit']:g}"})
        if plan.get("throttle", {}).get("burstLimit") != throttle_["burstLimit"]:
            ops.append({"op": "replace", "path": "/throttle/burstLimit", "value": str(throttle_["burstLimit"])})
        if plan.get("quota", {}).get("limit") != QUOTA_PER_DAY or plan.get("quota", {}).get("period") != "DAY":
            ops += [
                {"op": "replace", "path": "/quota/limit", "value": str(QUOTA_PER_DAY)},
                {"op": "replace", "path": "/quota/period", "value": "DAY"},
            ]
        if ops:
            ag.update_usage_plan(usagePlanId=plan["id"], patchOperations=ops)
            rails.changed.append(f"usage plan {name} updated")
    rails.usage_plan = plan["id"]
    if api_key:
        keys = [api_key]
    else:
        zappas = f"{rails.stage}_{rails.api_id}"
        keys = [
            k["id"]
            for page in ag.get_paginator("get_api_keys").paginate(nameQuery=zappas)
            for k in page["items"]
            if k["name"] == zappas
        ]
        if not keys:
            raise DeployError(
                f"no API key {zappas} (Zappa makes it on deploy with api_key_required): deploy first, "
                "or name the key in the stage's api_key"
            )
    held = {
        k["id"]
        for page in ag.get_paginator("get_usage_plan_keys").paginate(usagePlanId=plan["id"])
        for k in page["items"]
    }
    for key in keys:
        if key not in held:
            ag.create_usage_plan_key(usagePlanId=plan["id"], keyId=key, keyType="API_KEY")
            rails.changed.append(f"key {key} in the usage plan")


def log_retention(aws: Aws, rails: Rails):
    logs = aws.logs
    group = f"/aws/lambda/{rails.function}"
    found = [
        g
        for page in logs.get_paginator("describe_log_groups").paginate(logGroupNamePrefix=group)
        for g in page["logGroups"]
        if g["logGroupName"] == group
    ]
    if not found:
        logs.create_log_group(logGroupName=group)
    elif found[0].get("retentionInDays") == LOG_DAYS:
        return
    logs.put_retention_policy(logGroupName=group, retentionInDays=LOG_DAYS)
    rails.changed.append(f"{group} kept {LOG_DAYS} days")


def check_concurrency(stage: str, aws: Aws, settings_file: Path = SETTINGS_FILE) -> int:
    try:
        settings = stage_settings(stage, settings_file)
    except SystemExit as exc:
        raise DeployError(str(exc)) from None
    function = f"{settings.get('project_name', PROJECT)}-{stage}"
    wanted = settings.get("lambda_concurrency")
    if wanted is None:
        print(f"{function}: no reserved concurrency asked (lambda_concurrency): nothing for Lambda to refuse")
        return 0
    refusal = concurrency_refusal(aws, function, int(wanted))
    if refusal:
        print(f"guard_rails: {refusal}", file=sys.stderr)
        return 2
    print(f"{function}: Lambda accepts the reserved concurrency of {wanted} in {aws.region}")
    return 0


def main(argv=None):
    from botocore.exceptions import ClientError

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", help="a stage of zappa_settings.json, deployed")
    parser.add_argument("--region", help="default: AWS_REGION / AWS_DEFAULT_REGION")
    parser.add_argument("--alarm-topic", help="an SNS topic ARN the alarms notify")
    parser.add_argument(
        "--check-concurrency",
        action="store_true",
        help="before zappa deploy: only say whether Lambda accepts the stage's reserved concurrency in this account",
    )
    args = parser.parse_args(argv)
    try:
        if args.check_concurrency:
            return check_concurrency(args.stage, Aws(args.region))
        rails = apply(args.stage, region=args.region, alarm_topic=args.alarm_topic)
    except DeployError as exc:
        print(f"guard_rails: {exc}", file=sys.stderr)
        return 2
    except ClientError as exc:
        error = exc.response.get("Error", {})
        print(
            f"guard_rails: AWS refused {exc.operation_name}: {error.get('Code')} {error.get('Message', '')}",
            file=sys.stderr,
        )
        return 2
    print(
        f"{rails.function} (API {rails.api_id}, stage {rails.stage}): "
        + ("; ".join(rails.changed) if rails.changed else "every guard rail already in place")
    )
    print(
        f"alarms: {', '.join(rails.alarms)}" + ("" if args.alarm_topic else " (no --alarm-topic: they notify nobody)")
    )
    if rails.cors_origin is None:
        print("API Gateway's own errors carry no CORS header: the stage allows several origins", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
