"""The IAM policies of infra/iam: they parse, and each names exactly the actions that its code calls.

The actions are not listed by hand here. Zappa's: every boto3 call of its source (cli.py, core.py) on the paths
the stages' settings allow (infra/zappa_actions.py), and the CloudFormation template Zappa's own code generates for
the stage; then Zappa's deploy, update, status, rollback and undeploy run against moto with every call recorded,
and each call must be allowed by a statement whose Resource matches what it touches (moto enforces no IAM: this is
the check). deploy_site.py's and the app's: their code runs against moto with every call recorded. What AWS checks
beyond the operation itself (iam:PassRole where a role is handed over, the template CloudFormation reads, what
CloudFormation creates for Zappa and the stack's tags it copies onto the API) and what the Lambda service does with
the function's role (logs, VPC network interfaces) are the tables below (infra/README.md, IAM).
"""

import fnmatch
import json
import re
import zipfile
from pathlib import Path
from urllib.parse import quote

import pytest

from infra import zappa_actions
from infra.deploy_site import Aws, deploy
from infra.lambda_package import stage_settings
from tests.aws import REGION, dummy_credentials, lambda_quota, record_calls

ROOT = Path(__file__).resolve().parent.parent
IAM = ROOT / "infra" / "iam"
SETTINGS = json.loads((ROOT / "zappa_settings.json").read_text())

ACCOUNT = "123456789012"  # moto's account, and the placeholder of the documents
# Checked on the caller besides the operation itself (a role handed over is iam:PassRole: ROLE_PARAMETERS).
IMPLIED = {
    ("cloudformation", "CreateStack"): {"s3:GetObject"},  # CloudFormation reads TemplateURL as the caller
    ("cloudformation", "UpdateStack"): {"s3:GetObject"},
}
VPC_CHECKS = {"ec2:DescribeSecurityGroups", "ec2:DescribeSubnets", "ec2:DescribeVpcs"}  # a VpcConfig in the call
# CloudFormation creates a template's resources with the caller's rights.
STACK_RESOURCES = {
    "AWS::ApiGateway::": {
        "apigateway:GET",
        "apigateway:POST",
        "apigateway:PUT",
        "apigateway:PATCH",
        "apigateway:DELETE",
    },
    "AWS::Lambda::Permission": {"lambda:AddPermission", "lambda:RemovePermission"},
}
# A stack's tags (CreateStack/UpdateStack `Tags`: Zappa always sends ZappaProject and the stage's `tags`) are copied
# by CloudFormation onto each resource of the template that takes tags (CloudFormation User Guide, "Resource tag":
# stack-level tags propagate), with the caller's rights. The API Gateway resources that take tags (API Gateway
# Developer Guide, "API Gateway resources that can be tagged"), as template types, and the path of each one's ARN;
# API Gateway authorizes a tag as TagResource, `PUT /tags/{resource_arn}`, and an untag (an update that drops a
# tag) as UntagResource, `DELETE /tags/{resource_arn}` (API Gateway API Reference): apigateway:PUT and
# apigateway:DELETE on arn:aws:apigateway:REGION::/tags/<the resource's ARN, URL-encoded>.
TAGGABLE = {
    "AWS::ApiGateway::ApiKey": "/apikeys",
    "AWS::ApiGateway::ClientCertificate": "/clientcertificates",
    "AWS::ApiGateway::DomainName": "/domainnames",
    "AWS::ApiGateway::RestApi": "/restapis",
    "AWS::ApiGateway::Stage": "/restapis/api0id/stages",
    "AWS::ApiGateway::UsagePlan": "/usageplans",
    "AWS::ApiGateway::VpcLink": "/vpclinks",
}
# The service that assumes a role named in a template property of a resource of this type.
CREDENTIAL_USERS = {
    "AWS::ApiGateway::": "apigateway.amazonaws.com",
    "AWS::ApiGatewayV2::": "apigateway.amazonaws.com",
    "AWS::Events::": "events.amazonaws.com",
}
CREDENTIAL_PROPERTIES = {"Credentials", "AuthorizerCredentials", "CredentialsArn", "RoleArn"}
# What the Lambda service does with the function's role: its logs, and network interfaces in the VPC.
LAMBDA_LOGS = {"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"}
UNSCOPED = {
    "lambda:GetAccountSettings",
    "events:ListRuleNamesByTarget",
    "cloudwatch:GetMetricStatistics",
    "cloudfront:ListDistributions",
    "cloudfront:ListOriginAccessControls",
    "cloudfront:ListCachePolicies",
}  # take no resource but "*"
LAMBDA_VPC = {
    "ec2:CreateNetworkInterface",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSubnets",
    "ec2:DeleteNetworkInterface",
    "ec2:AssignPrivateIpAddresses",
    "ec2:UnassignPrivateIpAddresses",
}


def iam_actions(calls) -> set[str]:
    """The IAM actions that the recorded calls need."""
    actions = set()
    for service, op, params in calls.log:
        actions |= set(zappa_actions.actions_of(service, op))
        actions |= IMPLIED.get((service, op), set())
        if set(params) & zappa_actions.ROLE_PARAMETERS:
            actions.add("iam:PassRole")
        if (params.get("VpcConfig") or {}).get("SubnetIds"):
            actions |= VPC_CHECKS
    return actions


def policy(name) -> dict:
    return json.loads((IAM / name).read_text())


def policy_actions(doc) -> set[str]:
    out = set()
    for st in doc["Statement"]:
        acts = st["Action"]
        out |= {acts} if isinstance(acts, str) else set(acts)
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in IAM.glob("*.json")))
def test_policies_parse_and_allow_only_named_actions(name):
    doc = policy(name)
    assert doc["Version"] == "2012-10-17"
    for st in doc["Statement"]:
        assert st["Effect"] == "Allow"
        assert set(st) <= {"Sid", "Effect", "Action", "Resource", "Principal", "Condition"}
        for action in [st["Action"]] if isinstance(st["Action"], str) else st["Action"]:
            assert "*" not in action, f"{name}: wildcard action {action}"
        if name != "lambda-trust.json":
            resources = [st["Resource"]] if isinstance(st["Resource"], str) else st["Resource"]
            assert resources and all(r == "*" or r.startswith("arn:aws:") for r in resources)
            if "*" in resources:  # only actions that cannot be scoped to a resource
                assert set(st["Action"]) <= VPC_CHECKS | LAMBDA_VPC | UNSCOPED, st


@pytest.mark.slow  # Zappa's CLI and its clients: over half a second
def test_the_guide_makes_the_deploying_identity_the_later_steps_use(monkeypatch, tmp_path):
    """infra/README.md, step 4: the identity the deploys run as holds the deployer documents (every one of iam/ but
    the function roles' and their trust), its profile is the one the later steps export, Zappa's own session takes
    that profile, and the scripts take the exported region."""
    step = (ROOT / "infra" / "README.md").read_text().split("### 4.", 1)[1].split("### 5.", 1)[0]
    [user] = re.findall(r"aws iam create-user --user-name (\S+)", step)
    [docs] = re.findall(r"^for doc in ([^;]+); do$", step, re.M)
    assert set(docs.split()) == {p.stem for p in IAM.glob("*.json") if not p.stem.startswith("lambda-")}
    assert f"attach-user-policy --user-name {user} --policy-arn arn:aws:iam::$ACCOUNT:policy/awrlens-$doc" in step
    assert re.findall(r"aws configure --profile (\S+)", step) == [user]
    exported = dict(re.findall(r"\b(AWS_[A-Z_]+)=(\S+)", re.search(r"^export AWS_PROFILE=.*$", step, re.M).group()))
    assert exported == {"AWS_PROFILE": user, "AWS_REGION": "$REGION"}
    dummy_credentials(monkeypatch)
    config = tmp_path / "config"
    config.write_text(f"[profile {user}]\nregion = {REGION}\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", user)
    assert zappa_actions.load_stage("prod").zappa.boto_session.profile_name == user
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert Aws().region == "eu-central-1"


# -- the site deployer ----------------------------------------------------------------------------------------------


def documented_sites() -> set[tuple[str, str, str]]:
    """(bucket, stage, hosting) of every `make deploy-site` the deploying guide gives for an account
    (infra/README.md; the emulator's rehearsal, which no IAM guards, left out), the account as the guide's
    placeholder."""
    sites = set()
    for line in re.findall(r"make deploy-site (BUCKET=\S+ .*)", (ROOT / "infra" / "README.md").read_text()):
        args = dict(re.findall(r"\b([A-Z_]+)=([^\s`]+)", line))
        bucket = args["BUCKET"].replace("$ACCOUNT", ACCOUNT)
        if bucket.endswith(ACCOUNT):
            sites.add((bucket, args["STAGE"], args.get("HOSTING", "cloudfront")))
    return sites


@pytest.mark.slow
def test_site_deployer_names_exactly_what_deploy_site_calls(aws_calls, tmp_path, monkeypatch):
    """deploy_site.py against moto: every site the guides deploy (the demo's public website, prod behind
    CloudFront), then prod again with a change and a deleted file, a run with nothing to do, and a domain with a
    changed cache policy; the stage's API found through Zappa's stack. Every call is allowed, on what it touches,
    and nothing more is."""
    from infra import deploy_site
    from tests.aws import CloudFrontGaps
    from tests.test_deploy import zappa_stack

    static, templates = tmp_path / "static", tmp_path / "templates"
    (static / "vendor").mkdir(parents=True)
    templates.mkdir()
    (templates / "index.html").write_text(
        '<script>window.AWRLENS_CONFIG = {\n  apiBase: {{ api_base|tojson }},\n'
        '  apiKey: ""\n};</script><script src="{{ vendor }}/a.js"></script>'
    )
    (static / "vendor" / "a.js").write_text("a")
    (static / "app.js").write_text("app")  # unchanged by the second deploy
    (static / "old.js").write_text("old")
    sites = documented_sites()
    assert {(stage, hosting) for _, stage, hosting in sites} == {("demo", "website"), ("prod", "cloudfront")}, sites
    zappa_stack("prod")
    zappa_stack("demo")
    CloudFrontGaps(aws_calls)
    aws_calls.log.clear()
    site = {"static": static, "templates": templates, "aws": Aws(REGION), "progress": False}
    for bucket, stage, hosting in sorted(sites):  # each created
        deploy(bucket, stage=stage, hosting=hosting, **site)
    [bucket] = [b for b, stage, _ in sites if stage == "prod"]
    (static / "old.js").unlink()
    (static / "vendor" / "a.js").write_text("b")
    report = deploy(bucket, stage="prod", **site)  # changes, deletes
    deploy(bucket, stage="prod", **site)  # nothing to do
    assert report.deleted and report.uploaded
    monkeypatch.setitem(deploy_site.CACHE_POLICY, "Comment", "changed")
    deploy(
        bucket,
        stage="prod",
        domain="awrlens.example.com",
        certificate_arn=f"arn:aws:acm:us-east-1:{ACCOUNT}:certificate/x",
        **site,
    )
    assert {
        "PutBucketWebsite",
        "CreateDistribution",
        "UpdateDistribution",
        "UpdateCachePolicy",
        "GetStage",
        "DescribeStackResource",
    } <= {op for _, op in aws_calls}
    doc = policy("site-deployer.json")
    assert policy_actions(doc) == iam_actions(aws_calls)
    denied = [
        f"{a} on {arn}"
        for service, op, params in aws_calls.log
        for a in zappa_actions.actions_of(service, op)
        for arn in touched(service, op, params)
        if not allowed(doc, a, arn)
    ]
    assert not denied, sorted(set(denied))
    assert {
        r
        for st in doc["Statement"]
        for r in ([st["Resource"]] if isinstance(st["Resource"], str) else st["Resource"])
        if r.startswith("arn:aws:s3")
    } == {arn for b, _, _ in sites for arn in (f"arn:aws:s3:::{b}", f"arn:aws:s3:::{b}/*")}


# -- the API's guard rails ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_guard_rails_policy_names_exactly_what_guard_rails_calls(aws_calls, tmp_path):
    """guard_rails.py against moto on a fresh stage (with an alarm topic), again on a stage that has them, and on
    a stage where API Gateway requires the key (the usage plan made, then corrected). Every call is allowed, on what
    it touches, and nothing more is."""
    import boto3

    from infra import guard_rails
    from tests.test_deploy import zappa_stack

    ag = boto3.client("apigateway", region_name=REGION)
    zappa_stack("prod")
    api_id = zappa_stack("demo")
    ag.create_api_key(name=f"demo_{api_id}", enabled=True)
    keyed = json.loads((ROOT / "zappa_settings.json").read_text())
    keyed["demo"]["api_key_required"] = True
    settings = tmp_path / "zappa_settings.json"
    settings.write_text(json.dumps(keyed))
    aws_calls.log.clear()
    guard_rails.apply("prod", Aws(REGION), alarm_topic=f"arn:aws:sns:{REGION}:{ACCOUNT}:awrlens-alarms")
    guard_rails.apply("prod", Aws(REGION))
    guard_rails.apply("demo", Aws(REGION), settings_file=settings)
    [plan] = ag.get_usage_plans()["items"]
    ag.update_usage_plan(
        usagePlanId=plan["id"], patchOperations=[{"op": "replace", "path": "/quota/limit", "value": "1"}]
    )
    aws_calls.log[:] = [c for c in aws_calls.log if c[1] != "UpdateUsagePlan"]  # the line above, not the code
    guard_rails.apply("demo", Aws(REGION), settings_file=settings)
    lambda_quota(aws_calls, 1000)
    assert guard_rails.main(["prod", "--region", REGION, "--check-concurrency"]) == 0  # before a deploy
    assert {"UpdateUsagePlan", "CreateUsagePlanKey", "PutGatewayResponse", "PutRetentionPolicy", "PutMetricAlarm"} <= {
        op for _, op, _ in aws_calls.log
    }
    doc = policy("api-guard-rails.json")
    assert policy_actions(doc) == iam_actions(aws_calls)
    denied = [
        f"{a} on {arn}"
        for service, op, params in aws_calls.log
        for a in zappa_actions.actions_of(service, op)
        for arn in touched(service, op, params)
        if not allowed(doc, a, arn)
    ]
    assert not denied, sorted(set(denied))


# -- the Lambda roles ---------------------------------------------------------------------------------------------


@pytest.mark.slow  # moto: over half a second
def test_lambda_roles_name_what_the_app_calls_and_what_lambda_does(aws_calls, monkeypatch):
    import boto3

    from app.api.auth import read_key
    from app.store import oracle_target

    arn = boto3.client("secretsmanager", region_name=REGION).create_secret(
        Name="awrlens/prod", SecretString=json.dumps({"password": "pw", "api_key": "k"})
    )["ARN"]
    aws_calls.log.clear()
    monkeypatch.setattr(oracle_target, "_secrets", {})
    assert oracle_target.read_secret("prod", arn, 2.0) == "pw"
    assert read_key(arn, 2.0) == "k"
    app_actions = iam_actions(aws_calls)
    assert app_actions == {"secretsmanager:GetSecretValue"}
    invoked = {"lambda:InvokeFunction"}  # by API Gateway with the role's credentials (test below)
    assert policy_actions(policy("lambda-prod.json")) == app_actions | LAMBDA_LOGS | LAMBDA_VPC | invoked
    assert policy_actions(policy("lambda-demo.json")) == LAMBDA_LOGS | invoked  # the demo reads its SQLite file


def test_lambda_roles_are_scoped_to_their_function_and_the_one_secret():
    for stage in ("demo", "prod"):
        doc = policy(f"lambda-{stage}.json")
        logs = next(st for st in doc["Statement"] if st["Sid"] == "OwnLogs")
        name = f"{SETTINGS['demo']['project_name']}-{stage}"
        assert all(r.split(":log-group:")[1].split(":")[0] == f"/aws/lambda/{name}" for r in logs["Resource"])
    [secret_resource] = next(st for st in policy("lambda-prod.json")["Statement"] if st["Sid"] == "ReadTheOneSecret")[
        "Resource"
    ]
    env = SETTINGS["prod"]["environment_variables"]
    targets = json.loads(env["AWRLENS_TARGETS"])
    secrets = {t["password_secret"] for t in targets.values()} | {env["AWRLENS_API_KEY_SECRET"]}
    assert len(secrets) == 1, "one secret holds the password and the API key"
    assert fnmatch.fnmatchcase(secrets.pop(), secret_resource)


def test_roles_named_in_the_settings_exist_as_documents():
    assert SETTINGS["demo"]["manage_roles"] is False  # the deployer never writes IAM; the roles come first
    for stage in ("demo", "prod"):
        assert SETTINGS[stage]["role_name"] == f"awrlens-{stage}-lambda"
        assert (IAM / f"lambda-{stage}.json").is_file()
    [resources] = statements(policy("zappa-deployer.json"), "iam:PassRole")
    assert sorted(r.rsplit("/", 1)[1] for r in resources["Resource"]) == ["awrlens-demo-lambda", "awrlens-prod-lambda"]


# -- the Zappa deployer and what the roles must allow for Zappa's API ------------------------------------------------

STAGES = ("demo", "prod")
STAGE_SETTINGS = {stage: stage_settings(stage) for stage in STAGES}


@pytest.fixture(scope="module")
def templates():
    """stage -> the CloudFormation template Zappa's own code generates for it, against moto (Zappa reads the role's
    ARN from IAM)."""
    import boto3
    from moto import mock_aws

    with pytest.MonkeyPatch.context() as mp, mock_aws():
        dummy_credentials(mp)
        trust = (IAM / "lambda-trust.json").read_text()
        for stage in STAGES:
            boto3.client("iam").create_role(RoleName=f"awrlens-{stage}-lambda", AssumeRolePolicyDocument=trust)
        return {stage: zappa_template(stage) for stage in STAGES}


def zappa_template(stage: str) -> dict:
    """The template `zappa deploy` uploads for `stage`: Zappa's create_stack_template with the arguments
    cli.deploy gives it (the slow test below checks it is the one Zappa deploys)."""
    cli = zappa_actions.load_stage(stage)
    cli.zappa.create_stack_template(
        lambda_arn=function_arn(stage),
        lambda_name=cli.lambda_name,
        api_key_required=cli.api_key_required,
        iam_authorization=cli.iam_authorization,
        authorizer=cli.authorizer,
        cors_options=cli.cors,
        description=cli.apigateway_description,
        endpoint_configuration=cli.endpoint_configuration,
        apigateway_version=cli.apigateway_version,
        stage_name=cli.api_stage,
        lambda_qualifier=cli.apigateway_lambda_qualifier,
        websocket=cli.use_websocket,
    )
    return json.loads(cli.zappa.cf_template.to_json())


def function_arn(stage):
    return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:awrlens-{stage}"


def role_arn(stage):
    return f"arn:aws:iam::{ACCOUNT}:role/awrlens-{stage}-lambda"


def credential_uses(template: dict) -> list[tuple[str, str, str]]:
    """(resource type, property, role ARN) wherever the template names a role for a service to assume."""
    out = []

    def visit(rtype, node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in CREDENTIAL_PROPERTIES and isinstance(value, str) and ":role/" in value:
                    out.append((rtype, key, value))
                visit(rtype, value)
        elif isinstance(node, list):
            for item in node:
                visit(rtype, item)

    for resource in template["Resources"].values():
        visit(resource["Type"], resource.get("Properties", {}))
    return out


def stack_tagging(op: str, params, template: dict) -> list[tuple[str, str]]:
    """(IAM action, ARN) that a CreateStack or UpdateStack with stack `Tags` among its `params` needs besides, for
    `template`: each API Gateway resource that takes tags is tagged (PUT) and, on an update, may be untagged (DELETE).
    Its id is CloudFormation's to choose: a placeholder stands for it."""
    if op not in ("CreateStack", "UpdateStack") or "Tags" not in params:
        return []
    verbs = ("apigateway:PUT",) + (("apigateway:DELETE",) if op == "UpdateStack" else ())
    out = []
    for resource in template["Resources"].values():
        if resource["Type"] in TAGGABLE:
            arn = f"arn:aws:apigateway:{REGION}::{TAGGABLE[resource['Type']]}/a1b2c3d4e5"
            out += [(verb, f"arn:aws:apigateway:{REGION}::/tags/{quote(arn, safe='')}") for verb in verbs]
    return out


def service_of(resource_type: str) -> str:
    return next(s for prefix, s in CREDENTIAL_USERS.items() if resource_type.startswith(prefix))


def statements(doc, action):
    return [
        st for st in doc["Statement"] if action in ([st["Action"]] if isinstance(st["Action"], str) else st["Action"])
    ]


def allowed(doc, action, arn, context=None) -> bool:
    """Whether a statement of `doc` allows `action` on `arn`, its StringEquals / StringEqualsIfExists conditions
    checked against `context` (a request's condition keys)."""
    for st in statements(doc, action):
        resources = [st["Resource"]] if isinstance(st["Resource"], str) else st["Resource"]
        if any(fnmatch.fnmatchcase(arn, r) for r in resources) and conditions_hold(st, context or {}):
            return True
    return False


def assumable(trust, service, context) -> bool:
    """Whether the trust policy `trust` lets `service` assume the role, with the condition keys `context`."""
    return any(
        service
        in ([st["Principal"]["Service"]] if isinstance(st["Principal"]["Service"], str) else st["Principal"]["Service"])
        and conditions_hold(st, context)
        for st in statements(trust, "sts:AssumeRole")
    )


def conditions_hold(statement, context) -> bool:
    """A statement's StringEquals / StringEqualsIfExists conditions against a request's condition keys: a key the
    request lacks fails StringEquals and passes StringEqualsIfExists (IAM User Guide, condition operators)."""
    ok = True
    for operator, keys in statement.get("Condition", {}).items():
        assert operator in ("StringEquals", "StringEqualsIfExists"), operator
        for key, values in keys.items():
            values = [values] if isinstance(values, str) else values
            if key not in context:
                ok &= operator.endswith("IfExists")
            else:
                ok &= context[key] in values
    return ok


@pytest.fixture(scope="module")
def zappa_source():
    return {stage: zappa_actions.zappa_calls(stage) for stage in STAGES}


@pytest.mark.slow  # reads Zappa's whole source: about 8 s
def test_zappa_deployer_allows_every_call_of_zappas_source_and_nothing_more(zappa_source, templates):
    """The deployer's actions are those of every boto3 call Zappa 0.63's cli.py and core.py make for deploy,
    update, status, undeploy and rollback on the paths the stages' settings allow, plus what AWS checks besides
    (IMPLIED, VPC_CHECKS, iam:PassRole) and what CloudFormation creates from Zappa's template (STACK_RESOURCES)."""
    need: dict[str, set[str]] = {}
    for stage, found in zappa_source.items():
        assert not found.problems, found.problems
        for action, where in zappa_actions.needed_actions(found).items():
            need.setdefault(action, set()).update(where)
        for call in found.calls:
            for action in IMPLIED.get((call.service, call.operation), ()):
                need.setdefault(action, set()).add(f"{call.where} (implied)")
            if call.operation in ("CreateFunction", "UpdateFunctionConfiguration") and STAGE_SETTINGS[stage].get(
                "vpc_config"
            ):
                for action in VPC_CHECKS:
                    need.setdefault(action, set()).add(f"{call.where} (VpcConfig of {stage})")
        for _service, where in zappa_actions.role_passed_to(found).items():
            need.setdefault("iam:PassRole", set()).update(where)
        types = {r["Type"] for r in templates[stage]["Resources"].values()}
        assert types and all(any(t.startswith(p) for p in STACK_RESOURCES) for t in types), types
        for prefix, actions in STACK_RESOURCES.items():
            for action in actions if any(t.startswith(prefix) for t in types) else ():
                need.setdefault(action, set()).add(f"the template's {prefix}")
    have = policy_actions(policy("zappa-deployer.json"))
    missing = {a: sorted(w)[:3] for a, w in need.items() if a not in have}
    assert not missing, f"zappa-deployer.json lacks what Zappa calls: {missing}"
    assert have <= set(need), f"zappa-deployer.json allows what Zappa never calls: {sorted(have - set(need))}"
    assert "cloudformation:ListStackResources" in need  # Zappa's wait for its stack (issue 11)


@pytest.mark.slow  # moto and Zappa's template: over half a second
def test_zappa_deployer_may_tag_what_cloudformation_tags_for_zappas_stack(zappa_source, templates):
    """Zappa's CreateStack and UpdateStack carry the stack's Tags (zappa/core.py, update_stack) and its template holds
    the REST API: CloudFormation tags the API as the caller, so the deployer must be allowed API Gateway's tagging
    (TAGGABLE) on it, and on nothing but tags."""
    doc = policy("zappa-deployer.json")
    needed = set()
    for stage, found in zappa_source.items():
        assert "AWS::ApiGateway::RestApi" in {r["Type"] for r in templates[stage]["Resources"].values()}
        for call in found.calls:
            for action, arn in stack_tagging(call.operation, call.keywords, templates[stage]):
                needed.add(action)
                assert allowed(doc, action, arn), f"{call.where} {call.method}: {action} on {arn}"
    assert needed == {"apigateway:PUT", "apigateway:DELETE"}
    [tags] = [st for st in doc["Statement"] if any("/tags/" in r for r in st["Resource"])]
    assert tags["Resource"] == [f"arn:aws:apigateway:{REGION}::/tags/*"] and set(tags["Action"]) == needed


def test_zappas_version_is_the_one_packaged():
    """The source read above is the Zappa that deploys: the packaging venv's pin (infra/requirements-zappa.txt)."""
    from importlib.metadata import version

    pins = (ROOT / "infra" / "requirements-zappa.txt").read_text()
    assert f"zappa=={version('zappa')}\n" in pins


@pytest.mark.slow  # moto and Zappa's template: over half a second
def test_the_roles_trust_every_service_they_are_handed_to(zappa_source, templates):
    """Zappa's API Gateway integration calls the function with the stage's role as its credentials (in the template
    Zappa generates), and Zappa hands the role to Lambda (CreateFunction, UpdateFunctionConfiguration) and to
    EventBridge (the keep-warm rule's RoleArn): the trust policy names each of those services, the deployer may pass
    the roles to exactly them, and to nothing else."""
    passed_to: dict[str, set[str]] = {}
    for stage, found in zappa_source.items():
        for service, where in zappa_actions.role_passed_to(found).items():
            passed_to.setdefault(service, set()).update(where)
        uses = credential_uses(templates[stage])
        assert uses, "Zappa's template names the role as the integration's credentials"
        for rtype, prop, arn in uses:
            assert arn == role_arn(stage), (rtype, prop, arn)
            passed_to.setdefault(service_of(rtype), set()).add(f"template {rtype}.{prop}")
    assert {"lambda.amazonaws.com", "apigateway.amazonaws.com"} <= set(passed_to)
    [trust] = policy("lambda-trust.json")["Statement"]
    principals = trust["Principal"]["Service"]
    assert trust["Action"] == "sts:AssumeRole"
    assert set([principals] if isinstance(principals, str) else principals) == set(passed_to), passed_to
    deployer = policy("zappa-deployer.json")
    for service in passed_to:
        for stage in STAGES:
            assert allowed(deployer, "iam:PassRole", role_arn(stage), {"iam:PassedToService": service}), service
    assert not allowed(deployer, "iam:PassRole", role_arn("prod"), {"iam:PassedToService": "ec2.amazonaws.com"})
    assert not allowed(
        deployer, "iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/admin", {"iam:PassedToService": "lambda.amazonaws.com"}
    )


def test_the_roles_trust_their_services_only_on_behalf_of_this_account():
    """The confused-deputy guard (IAM User Guide, "The confused deputy problem"): a service that assumes the role on
    behalf of a resource says whose (aws:SourceAccount), and it must be this account's. The key is in a request only
    when a service acts for a resource (IAM User Guide, global condition keys, with IfExists for such keys), and
    Lambda's Developer Guide documents none for assuming a function's execution role (aws:SourceArn "applies only to
    policies where your Lambda function is the target resource"): a request without it is not refused."""
    trust = policy("lambda-trust.json")
    [statement] = trust["Statement"]
    services = statement["Principal"]["Service"]
    assert services
    for service in services:
        assert assumable(trust, service, {"aws:SourceAccount": ACCOUNT}), service
        assert not assumable(trust, service, {"aws:SourceAccount": "210987654321"}), service
        assert assumable(trust, service, {}), service
    assert not assumable(trust, "ec2.amazonaws.com", {"aws:SourceAccount": ACCOUNT})


@pytest.mark.slow  # moto and Zappa's template: over half a second
def test_the_roles_let_api_gateway_invoke_their_function(templates):
    """API Gateway calls Lambda with the role's credentials (Integration.Credentials), so the role itself must allow
    lambda:InvokeFunction on the function the integration's URI names (Zappa's default role allows it on "*")."""
    for stage in STAGES:
        invoked = set()
        for resource in templates[stage]["Resources"].values():
            integration = resource.get("Properties", {}).get("Integration", {})
            if integration.get("Credentials"):
                uri = integration["Uri"]
                invoked.add(uri.split("/functions/", 1)[1].rsplit("/invocations", 1)[0])
        assert invoked == {function_arn(stage)}
        doc = policy(f"lambda-{stage}.json")
        for arn in invoked:
            assert allowed(doc, "lambda:InvokeFunction", arn)
            assert allowed(doc, "lambda:InvokeFunction", f"{arn}:snapstart")  # Zappa's alias with snap_start on
        other = "prod" if stage == "demo" else "demo"
        assert not allowed(doc, "lambda:InvokeFunction", function_arn(other))


# -- Zappa against moto: every call it makes, allowed on what it touches ----------------------------------------------


def touched(service, op, params) -> list[str]:
    """The ARNs a recorded call acts on, for the policy's Resource check ("*" where the action takes no resource)."""
    region = f"{REGION}:{ACCOUNT}"
    if service == "lambda" and op == "GetAccountSettings":
        return ["*"]
    if service == "lambda":
        name = params.get("FunctionName") or params.get("Resource", "")
        if name.startswith("function:"):  # Zappa's rollback: "function:NAME:VERSION"
            name = f"arn:aws:lambda:{region}:{name}"
        arn = name if name.startswith("arn:") else f"arn:aws:lambda:{region}:function:{name}"
        return [arn + (f":{params['Qualifier']}" if params.get("Qualifier") else "")]
    if service == "cloudformation":
        return [f"arn:aws:cloudformation:{region}:stack/{params['StackName']}/0a1b2c3d"]
    if service == "cloudfront":
        kind = {
            "Distribution": "distribution",
            "OriginAccessControl": "origin-access-control",
            "CachePolicy": "cache-policy",
        }
        if op.startswith("List"):
            return ["*"]
        name = next(v for k, v in kind.items() if op.endswith((k, k + "Config")))
        return [f"arn:aws:cloudfront::{ACCOUNT}:{name}/{params.get('Id', 'NEW')}"]
    if service == "events":
        rule = params.get("Name") or params.get("Rule")
        return [f"arn:aws:events:{region}:rule/{rule}"] if rule else ["*"]
    if service == "s3":
        bucket = f"arn:aws:s3:::{params['Bucket']}"
        if op == "DeleteObjects":  # checked as s3:DeleteObject on each object
            return [f"{bucket}/{o['Key']}" for o in params["Delete"]["Objects"]]
        return [f"{bucket}/{params['Key']}" if params.get("Key") else bucket]
    if service == "iam":
        return [f"arn:aws:iam::{ACCOUNT}:role/{params['RoleName']}"]
    if service == "apigateway":
        return [f"arn:aws:apigateway:{REGION}::{apigateway_path(op, params)}"]
    if service == "logs":
        group = params.get("logGroupName") or f"{params.get('logGroupNamePrefix', '')}*"
        return [f"arn:aws:logs:{region}:log-group:{group}"]
    if service == "monitoring" and "AlarmName" in params:
        return [f"arn:aws:cloudwatch:{region}:alarm:{params['AlarmName']}"]
    return ["*"]


def apigateway_path(op: str, params: dict) -> str:
    """The resource path an API Gateway call acts on (its IAM resource is arn:aws:apigateway:REGION::PATH)."""
    api = params.get("restApiId")
    plan = params.get("usagePlanId")
    if op in ("GetStage", "UpdateStage"):
        return f"/restapis/{api}/stages/{params['stageName']}"
    if op in ("GetGatewayResponse", "PutGatewayResponse"):
        return f"/restapis/{api}/gatewayresponses/{params['responseType']}"
    if op == "CreateDeployment":
        return f"/restapis/{api}/deployments"
    if op in ("GetUsagePlanKeys", "CreateUsagePlanKey"):
        return f"/usageplans/{plan}/keys"
    if plan:
        return f"/usageplans/{plan}"
    if op in ("GetUsagePlans", "CreateUsagePlan"):
        return "/usageplans"
    if op == "GetApiKeys":
        return "/apikeys"
    return f"/restapis/{api}" if api else "/restapis"


@pytest.fixture(scope="module")
def zappa_against_moto(tmp_path_factory, templates):
    """`zappa deploy`, `update`, `status`, `rollback` and `undeploy` of the prod stage (VPC, keep-warm schedule,
    concurrency: every setting the demo has and more), with a prebuilt zip, against moto; every call recorded, and
    the templates Zappa uploaded. `templates` is made first, in a moto of its own: made inside this one (when no
    earlier test of the module asked for it), moto would nest the two and share their roles."""
    import boto3
    import zappa.core
    from botocore.client import BaseClient
    from moto import mock_aws
    from zappa.cli import ZappaCLI

    with pytest.MonkeyPatch.context() as mp, mock_aws():
        dummy_credentials(mp)
        trust = (IAM / "lambda-trust.json").read_text()
        boto3.client("iam").create_role(RoleName="awrlens-prod-lambda", AssumeRolePolicyDocument=trust)
        templates = []
        plain = BaseClient._make_api_call

        def keeping_templates(self, op, params):  # Zappa deletes the template once the stack exists
            if op in ("CreateStack", "UpdateStack"):
                bucket, key = params["TemplateURL"].split(".amazonaws.com/", 1)[1].split("/", 1)
                from moto.s3.models import s3_backends  # read in moto, not through the recorded client

                templates.append(json.loads(s3_backends[ACCOUNT]["aws"].get_object(bucket, key).value))
            name = params.get("FunctionName", "")
            if name.startswith("function:"):  # rollback's partial ARN "function:NAME:VERSION", which moto cannot read
                _, name, qualifier = name.split(":")
                params = {**params, "FunctionName": name, "Qualifier": qualifier}
            return plain(self, op, params)

        mp.setattr(BaseClient, "_make_api_call", keeping_templates)
        calls = record_calls(mp)  # records the calls as Zappa makes them, before the line above adapts them
        calls.stubs[("lambda", "ListFunctionUrlConfigs")] = {"FunctionUrlConfigs": []}  # moto lacks it
        mp.setattr(ZappaCLI, "touch_endpoint", lambda self, url: None)  # an HTTP request to the live API
        mp.setattr(ZappaCLI, "check_for_update", lambda self: None)  # a request to PyPI
        mp.setattr(zappa.core.time, "sleep", lambda s: None)  # Zappa's 3 s polls of its stack
        mp.chdir(ROOT)
        package = tmp_path_factory.mktemp("zappa") / "awrlens-prod.zip"
        with zipfile.ZipFile(package, "w") as z:
            z.writestr("handler.py", "def lambda_handler(event, context):\n    return {}\n")
        calls.log.clear()
        for argv in (
            ["deploy", "prod", "-z", str(package)],
            ["update", "prod", "-z", str(package)],
            ["status", "prod"],
            ["rollback", "prod", "-n", "1"],
            ["undeploy", "prod", "--yes"],
        ):
            ZappaCLI().handle(argv)
        yield calls, templates


@pytest.mark.slow
def test_zappa_against_moto_makes_only_calls_the_deployer_allows_on_what_they_touch(
    zappa_against_moto, zappa_source, templates
):
    calls, deployed = zappa_against_moto
    ops = {op for _, op, _ in calls.log}
    # (moto's stacks are complete at once: Zappa's wait, ListStackResources, runs in a real account only)
    assert {"CreateFunction", "UpdateFunctionCode", "DeleteFunction", "PutRule", "GetMetricStatistics"} <= ops, ops
    # rollback asked for the older version's code (moto serves no code to download: its UpdateFunctionCode is the
    # same action as update's, checked above)
    assert any(op == "GetFunction" and p["FunctionName"].startswith("function:awrlens-prod:") for _, op, p in calls.log)
    doc = policy("zappa-deployer.json")
    denied = []
    stack_templates = iter(deployed)  # in the order of the CreateStack and UpdateStack calls
    for service, op, params in calls.log:
        for action in zappa_actions.actions_of(service, op):
            for arn in touched(service, op, params):
                if not allowed(doc, action, arn):
                    denied.append(f"{action} on {arn}")
        if op in ("CreateStack", "UpdateStack"):
            for action, arn in stack_tagging(op, params, next(stack_templates)):
                if not allowed(doc, action, arn):
                    denied.append(f"{action} on {arn} (the stack's tags)")
        for key in zappa_actions.ROLE_PARAMETERS & set(params):
            principal = f"{'events' if service == 'events' else service}.amazonaws.com"
            if not allowed(doc, "iam:PassRole", params[key], {"iam:PassedToService": principal}):
                denied.append(f"iam:PassRole of {params[key]} to {principal}")
    assert not denied, sorted(set(denied))
    statically = set().union(*(zappa_actions.needed_actions(f) for f in zappa_source.values()))
    recorded = {a for s, op, _ in calls.log for a in zappa_actions.actions_of(s, op)}
    assert recorded <= statically, f"Zappa called what its source analysis missed: {recorded - statically}"
    # the template the fast tests generate is the one Zappa deployed and updated
    assert len(deployed) == 2 and all(t["Resources"] == templates["prod"]["Resources"] for t in deployed)
