"""AWS test helpers: dummy credentials and moto's mock_aws, started before any boto3 client exists, and a
record of every AWS operation the code under test calls (for the IAM policy checks)."""
import os

import pytest

REGION = "eu-west-1"


@pytest.fixture()
def aws(monkeypatch):
    """Dummy credentials, no profile or config from the machine, and every AWS call answered by moto."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    from moto import mock_aws
    with mock_aws():
        yield


class Calls(set):
    """(IAM service prefix, operation name) of every AWS call; `log` keeps the parameters too; `stubs` answers
    operations moto lacks: {(service, operation): response}."""

    def __init__(self):
        super().__init__()
        self.log: list[tuple[str, str, dict]] = []
        self.stubs: dict[tuple[str, str], dict] = {}


@pytest.fixture()
def aws_calls(aws, monkeypatch):
    """A set that collects (IAM service prefix, operation name) for every AWS API call made during the test."""
    from botocore.client import BaseClient
    calls = Calls()
    original = BaseClient._make_api_call

    def recording(self, operation_name, api_params):
        service = self.meta.service_model.signing_name
        calls.add((service, operation_name))
        calls.log.append((service, operation_name, api_params))
        if (service, operation_name) in calls.stubs:
            return calls.stubs[service, operation_name]
        return original(self, operation_name, api_params)

    monkeypatch.setattr(BaseClient, "_make_api_call", recording)
    return calls
