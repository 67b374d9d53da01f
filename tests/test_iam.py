"""The IAM policies of infra/iam: they parse, and each names exactly the actions that its code calls.

The actions are not listed by hand here: the code runs against moto with every AWS call recorded (deploy_site.py
through a create, a re-run and a change; Zappa's deploy, update and undeploy of the prod stage; the app reading
its secret), and the recorded operations are turned into IAM actions. What AWS checks beyond the operation
itself (iam:PassRole on CreateFunction, the template CloudFormation reads, what CloudFormation creates for Zappa)
and what the Lambda service does with the function's role (logs, VPC network interfaces) are the tables below.
"""
import fnmatch
import json
import zipfile
from pathlib import Path

import pytest

from infra.deploy_site import Aws, deploy
from tests.aws import REGION, aws, aws_calls  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parent.parent
IAM = ROOT / "infra" / "iam"
SETTINGS = json.loads((ROOT / "zappa_settings.json").read_text())

# Operations whose IAM action has another name (S3's model); None: no permission needed.
ACTION_OF = {("s3", "HeadBucket"): "s3:ListBucket", ("s3", "ListObjectsV2"): "s3:ListBucket",
             ("s3", "HeadObject"): "s3:GetObject", ("s3", "DeleteObjects"): "s3:DeleteObject",
             ("s3", "PutPublicAccessBlock"): "s3:PutBucketPublicAccessBlock", ("sts", "GetCallerIdentity"): None}
# API Gateway's actions are HTTP verbs on resource paths.
APIGATEWAY_VERBS = {"Get": "GET", "Create": "POST", "Put": "PUT", "Update": "PATCH", "Delete": "DELETE"}
# Checked on the caller besides the operation itself.
IMPLIED = {("lambda", "CreateFunction"): {"iam:PassRole"}, ("lambda", "UpdateFunctionConfiguration"): {"iam:PassRole"},
           ("cloudformation", "CreateStack"): {"s3:GetObject"},  # CloudFormation reads TemplateURL as the caller
           ("cloudformation", "UpdateStack"): {"s3:GetObject"}}
VPC_CHECKS = {"ec2:DescribeSecurityGroups", "ec2:DescribeSubnets", "ec2:DescribeVpcs"}  # a VpcConfig in the call
# CloudFormation creates a template's resources with the caller's rights.
STACK_RESOURCES = {"AWS::ApiGateway::": {"apigateway:GET", "apigateway:POST", "apigateway:PUT", "apigateway:PATCH",
                                         "apigateway:DELETE"},
                   "AWS::Lambda::Permission": {"lambda:AddPermission", "lambda:RemovePermission"}}
# What the Lambda service does with the function's role: its logs, and network interfaces in the VPC.
LAMBDA_LOGS = {"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"}
LAMBDA_VPC = {"ec2:CreateNetworkInterface", "ec2:DescribeNetworkInterfaces", "ec2:DescribeSubnets",
              "ec2:DeleteNetworkInterface", "ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses"}


def iam_actions(calls) -> set[str]:
    """The IAM actions that the recorded calls need."""
    actions = set()
    for service, op, params in calls.log:
        if service == "apigateway":
            verb = next(v for prefix, v in APIGATEWAY_VERBS.items() if op.startswith(prefix))
            actions.add(f"apigateway:{verb}")
        else:
            action = ACTION_OF.get((service, op), f"{service}:{op}")
            if action:
                actions.add(action)
        actions |= IMPLIED.get((service, op), set())
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
                assert set(st["Action"]) <= VPC_CHECKS | LAMBDA_VPC | {"events:ListRuleNamesByTarget"}, st


# -- the site deployer ----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_site_deployer_names_exactly_what_deploy_site_calls(aws_calls, tmp_path):
    import boto3
    static, templates = tmp_path / "static", tmp_path / "templates"
    (static / "vendor").mkdir(parents=True)
    templates.mkdir()
    (templates / "index.html").write_text('<script>window.AWRLENS_CONFIG = {\n  apiBase: {{ api_base|tojson }},\n'
                                          '  apiKey: ""\n};</script><script src="{{ vendor }}/a.js"></script>')
    (static / "vendor" / "a.js").write_text("a")
    (static / "app.js").write_text("app")  # unchanged by the second deploy
    (static / "old.js").write_text("old")
    boto3.client("apigateway", region_name=REGION).create_rest_api(name="awrlens-prod")
    aws_calls.log.clear()
    bucket = "awrlens-site-123456789012"
    site = {"static": static, "templates": templates, "aws": Aws(REGION), "progress": False}
    deploy(bucket, stage="prod", **site)  # creates
    (static / "old.js").unlink()
    (static / "vendor" / "a.js").write_text("b")
    report = deploy(bucket, stage="prod", **site)  # changes, deletes
    deploy(bucket, stage="prod", **site)  # nothing to do
    assert report.deleted and report.uploaded and report.unchanged
    doc = policy("site-deployer.json")
    assert policy_actions(doc) == iam_actions(aws_calls)
    assert {r for st in doc["Statement"] for r in [st["Resource"]] if r.startswith("arn:aws:s3")} == \
        {f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"}


# -- the Lambda roles ---------------------------------------------------------------------------------------------

def test_lambda_roles_name_what_the_app_calls_and_what_lambda_does(aws_calls, monkeypatch):
    import boto3

    from app.api.auth import read_key
    from app.store import oracle
    arn = boto3.client("secretsmanager", region_name=REGION).create_secret(
        Name="awrlens/prod", SecretString=json.dumps({"password": "pw", "api_key": "k"}))["ARN"]
    aws_calls.log.clear()
    monkeypatch.setattr(oracle, "_secrets", {})
    assert oracle.read_secret("prod", arn, 2.0) == "pw"
    assert read_key(arn, 2.0) == "k"
    app_actions = iam_actions(aws_calls)
    assert app_actions == {"secretsmanager:GetSecretValue"}
    assert policy_actions(policy("lambda-prod.json")) == app_actions | LAMBDA_LOGS | LAMBDA_VPC
    assert policy_actions(policy("lambda-demo.json")) == LAMBDA_LOGS  # the demo reads its own SQLite file


def test_lambda_roles_are_scoped_to_their_function_and_the_one_secret():
    for stage in ("demo", "prod"):
        doc = policy(f"lambda-{stage}.json")
        logs = next(st for st in doc["Statement"] if st["Sid"] == "OwnLogs")
        name = f"{SETTINGS['demo']['project_name']}-{stage}"
        assert all(r.split(":log-group:")[1].split(":")[0] == f"/aws/lambda/{name}" for r in logs["Resource"])
    [secret_resource] = next(st for st in policy("lambda-prod.json")["Statement"]
                             if st["Sid"] == "ReadTheOneSecret")["Resource"]
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
    resources = next(st for st in policy("zappa-deployer.json")["Statement"] if "iam:PassRole" in st["Action"])
    assert sorted(r.rsplit("/", 1)[1] for r in resources["Resource"]) == ["awrlens-demo-lambda",
                                                                          "awrlens-prod-lambda"]


# -- the Zappa deployer -------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_zappa_deployer_names_exactly_what_zappa_calls(aws_calls, tmp_path, monkeypatch):
    """`zappa deploy`, `update` and `undeploy` of the prod stage (VPC, keep-warm schedule, concurrency: every
    setting the demo has and more), with a prebuilt zip, against moto."""
    import boto3
    from zappa.cli import ZappaCLI
    trust = (IAM / "lambda-trust.json").read_text()
    boto3.client("iam").create_role(RoleName="awrlens-prod-lambda", AssumeRolePolicyDocument=trust)
    aws_calls.stubs[("lambda", "ListFunctionUrlConfigs")] = {"FunctionUrlConfigs": []}  # moto lacks it
    templates = []
    from botocore.client import BaseClient
    recorded = BaseClient._make_api_call

    def keeping_templates(self, op, params):  # Zappa deletes the template once the stack exists
        if op in ("CreateStack", "UpdateStack"):
            bucket, key = params["TemplateURL"].split(".amazonaws.com/", 1)[1].split("/", 1)
            body = boto3.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()  # s3:GetObject: implied
            templates.append(json.loads(body))
        return recorded(self, op, params)

    monkeypatch.setattr(BaseClient, "_make_api_call", keeping_templates)
    monkeypatch.setattr(ZappaCLI, "touch_endpoint", lambda self, url: None)  # an HTTP request to the live API
    monkeypatch.setattr(ZappaCLI, "check_for_update", lambda self: None)  # a request to PyPI
    monkeypatch.chdir(ROOT)
    package = tmp_path / "awrlens-prod.zip"
    with zipfile.ZipFile(package, "w") as z:
        z.writestr("handler.py", "def lambda_handler(event, context):\n    return {}\n")
    aws_calls.log.clear()
    for argv in (["deploy", "prod", "-z", str(package)], ["update", "prod", "-z", str(package)],
                 ["undeploy", "prod", "--yes"]):
        ZappaCLI().handle(argv)
    ops = {op for _, op, _ in aws_calls.log}
    assert {"CreateFunction", "UpdateFunctionCode", "DeleteFunction", "PutRule"} <= ops
    needed = iam_actions(aws_calls)
    types = {r["Type"] for t in templates for r in t["Resources"].values()}
    assert types and all(any(t.startswith(p) for p in STACK_RESOURCES) for t in types), types
    for prefix, actions in STACK_RESOURCES.items():
        if any(t.startswith(prefix) for t in types):
            needed |= actions
    assert policy_actions(policy("zappa-deployer.json")) == needed
