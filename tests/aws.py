"""AWS test helpers: dummy credentials and moto's mock_aws, started before any boto3 client exists, and a
record of every AWS operation the code under test calls (for the IAM policy checks)."""

import copy
import os

import pytest

REGION = "eu-west-1"


def dummy_credentials(monkeypatch):
    """Dummy credentials and no profile or config from the machine."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)


@pytest.fixture()
def aws(monkeypatch):
    """Dummy credentials, no profile or config from the machine, and every AWS call answered by moto."""
    dummy_credentials(monkeypatch)
    from moto import mock_aws

    with mock_aws():
        yield


class Calls(set):
    """(IAM service prefix, operation name) of every AWS call; `log` keeps the parameters too; `stubs` answers
    operations moto lacks: {(service, operation): response, or a function of the parameters that returns it}."""

    def __init__(self):
        super().__init__()
        self.log: list[tuple[str, str, dict]] = []
        self.stubs: dict[tuple[str, str], dict] = {}


@pytest.fixture()
def aws_calls(aws, monkeypatch):
    """A set that collects (IAM service prefix, operation name) for every AWS API call made during the test."""
    return record_calls(monkeypatch)


def record_calls(monkeypatch) -> Calls:
    """Every AWS API call from now on, recorded (and answered by `stubs` where moto lacks the operation)."""
    from botocore.client import BaseClient

    calls = Calls()
    original = BaseClient._make_api_call

    def recording(self, operation_name, api_params):
        service = self.meta.service_model.signing_name
        calls.add((service, operation_name))
        calls.log.append((service, operation_name, api_params))
        if (service, operation_name) in calls.stubs:
            stub = calls.stubs[service, operation_name]
            if getattr(stub, "wraps_moto", False):
                return stub(api_params, lambda params: original(self, operation_name, params))
            return stub(api_params) if callable(stub) else stub
        return original(self, operation_name, api_params)

    monkeypatch.setattr(BaseClient, "_make_api_call", recording)
    return calls


def wraps_moto(method):
    """A stub that gets moto's own answer to adapt: stub(params, moto)."""
    method.wraps_moto = True
    return method


class CloudFrontGaps:
    """What moto 5.2's CloudFront lacks or leaves out, answered as CloudFront answers (infra/README.md, Tests): custom
    cache policies (ListCachePolicies, GetCachePolicy, CreateCachePolicy, UpdateCachePolicy: none in moto; `configs`
    keeps what was sent), an origin's OriginAccessControlId and S3OriginConfig (moto drops them from
    GetDistributionConfig) and a distribution summary's Origins and Comment (moto leaves them out of
    ListDistributions). Everything else is moto's."""

    def __init__(self, calls: Calls):
        self.policies: dict[str, dict] = {}
        self.etags: dict[str, str] = {}
        self.configs: list[dict] = []
        self.distributions: dict[str, dict] = {}  # id -> the DistributionConfig last sent
        for op in (
            "ListCachePolicies",
            "GetCachePolicy",
            "CreateCachePolicy",
            "UpdateCachePolicy",
            "CreateDistribution",
            "UpdateDistribution",
            "GetDistributionConfig",
            "ListDistributions",
        ):
            calls.stubs[("cloudfront", op)] = getattr(self, op)

    @wraps_moto
    def CreateDistribution(self, params, moto):
        answer = moto(params)
        self.distributions[answer["Distribution"]["Id"]] = copy.deepcopy(params["DistributionConfig"])
        return answer

    @wraps_moto
    def UpdateDistribution(self, params, moto):
        answer = moto(params)
        self.distributions[params["Id"]] = copy.deepcopy(params["DistributionConfig"])
        return answer

    @wraps_moto
    def GetDistributionConfig(self, params, moto):
        answer = moto(params)
        sent = {o["Id"]: o for o in self.distributions[params["Id"]]["Origins"]["Items"]}
        for origin in answer["DistributionConfig"]["Origins"]["Items"]:
            for key in ("OriginAccessControlId", "S3OriginConfig"):
                if key in sent[origin["Id"]]:
                    origin[key] = sent[origin["Id"]][key]
        return answer

    @wraps_moto
    def ListDistributions(self, params, moto):
        answer = moto(params)
        for item in answer["DistributionList"].get("Items") or []:
            item.setdefault("Origins", self.distributions[item["Id"]]["Origins"])
            item.setdefault("Comment", self.distributions[item["Id"]]["Comment"])
        return answer

    def _policy(self, pid):
        return {"Id": pid, "LastModifiedTime": "2026-11-20T06:00:00Z", "CachePolicyConfig": self.policies[pid]}

    def ListCachePolicies(self, params):
        items = [{"Type": "custom", "CachePolicy": self._policy(pid)} for pid in self.policies]
        return {"CachePolicyList": {"MaxItems": 100, "Quantity": len(items), "Items": items}}

    def GetCachePolicy(self, params):
        return {"CachePolicy": self._policy(params["Id"]), "ETag": self.etags[params["Id"]]}

    def CreateCachePolicy(self, params):
        pid = f"c0ffee00-0000-4000-8000-{len(self.policies):012d}"
        self.policies[pid] = copy.deepcopy(params["CachePolicyConfig"])  # what went over the wire
        self.etags[pid] = "E1"
        self.configs.append(self.policies[pid])
        return {"CachePolicy": self._policy(pid), "ETag": "E1"}

    def UpdateCachePolicy(self, params):
        pid = params["Id"]
        assert params["IfMatch"] == self.etags[pid], "IfMatch must be the policy's ETag"
        self.policies[pid] = copy.deepcopy(params["CachePolicyConfig"])
        self.etags[pid] = self.etags[pid] + "1"
        self.configs.append(self.policies[pid])
        return {"CachePolicy": self._policy(pid), "ETag": self.etags[pid]}


def lambda_quota(calls: Calls, quota: int):
    """GetAccountSettings, which moto 5.2 lacks, answered as Lambda's API reference documents it for an account whose
    concurrency quota is `quota`: AccountLimit.ConcurrentExecutions, and UnreservedConcurrentExecutions the quota less
    what moto's functions hold reserved. (MOTO_LAMBDA_CONCURRENCY_QUOTA makes moto's PutFunctionConcurrency refuse as
    Lambda does against the same quota.)"""
    from moto.awslambda.models import lambda_backends

    def answer(params):
        functions = lambda_backends["123456789012"][REGION].list_functions()
        reserved = sum(int(fn.reserved_concurrency or 0) for fn in functions)
        return {
            "AccountLimit": {
                "TotalCodeSize": 80530636800,
                "CodeSizeUnzipped": 262144000,
                "CodeSizeZipped": 52428800,
                "ConcurrentExecutions": quota,
                "UnreservedConcurrentExecutions": quota - reserved,
            },
            "AccountUsage": {"TotalCodeSize": 0, "FunctionCount": len(functions)},
        }

    calls.stubs[("lambda", "GetAccountSettings")] = answer
