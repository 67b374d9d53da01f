"""infra/README.md's rehearsal on an AWS emulator, run as written against moto's server in its own process: the
role, the emulator's Zappa settings (touch off), `zappa deploy`, the site (the S3 website: no emulator here has
CloudFront's cache policies) and the guard rails, every command reaching the emulator through AWS_ENDPOINT_URL."""

import json
import os
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from urllib.request import urlopen

import pytest

from infra import emulator

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # imports Zappa's CLI: over half a second
def test_every_stage_of_the_emulator_settings_has_touch_off():
    settings = emulator.emulator_settings()
    assert set(settings) == set(json.loads((ROOT / "zappa_settings.json").read_text()))
    assert all(stage["touch"] is False for stage in settings.values())
    import inspect

    from zappa.cli import ZappaCLI

    for command in (ZappaCLI.deploy, ZappaCLI.update):  # what the setting turns off: Zappa's request to the stage
        source = inspect.getsource(command)
        assert 'if self.stage_config.get("touch", True):' in source and "self.touch_endpoint(" in source


@pytest.fixture()
def moto_server(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(tmp_path / "moto.log", "w")  # noqa: SIM115  (the server writes to it until the fixture stops it)
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "moto_server"), "-p", str(port)], stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urlopen(f"{url}/moto-api/", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


@pytest.mark.slow
def test_the_documented_rehearsal_runs_as_written(moto_server, tmp_path):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "AWS_ENDPOINT_URL": moto_server,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "VIRTUAL_ENV": str(Path(sys.executable).parent.parent),
    }

    def run(*argv):
        done = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{argv}: {done.stdout[-1500:]}{done.stderr[-1500:]}"
        return done.stdout

    import boto3

    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="eu-west-1")
    session.client("iam", endpoint_url=moto_server).create_role(
        RoleName="awrlens-demo-lambda",
        AssumeRolePolicyDocument=(ROOT / "infra" / "iam" / "lambda-trust.json").read_text(),
    )
    settings = tmp_path / "zappa_settings.emulator.json"
    package = tmp_path / "awrlens-demo.zip"  # the emulator stores the code; it never runs it
    with zipfile.ZipFile(package, "w") as z:
        z.writestr("handler.py", "def lambda_handler(event, context):\n    return {}\n")
    run("infra/emulator.py", "--output", str(settings))
    out = run("-m", "zappa.cli", "deploy", "demo", "-s", str(settings), "-z", str(package))
    assert "Deployment complete" in out
    out = run("infra/deploy_site.py", "--bucket", "awrlens-site-emulator", "--stage", "demo", "--hosting", "website")
    api_id = session.client("cloudformation", endpoint_url=moto_server).describe_stack_resource(
        StackName="awrlens-demo", LogicalResourceId="Api"
    )["StackResourceDetail"]["PhysicalResourceId"]
    page = (
        session.client("s3", endpoint_url=moto_server)
        .get_object(Bucket="awrlens-site-emulator", Key="index.html")["Body"]
        .read()
        .decode()
    )
    assert f"https://{api_id}.execute-api.eu-west-1.amazonaws.com/demo" in page
    out = run("infra/guard_rails.py", "demo")
    assert "stage throttling" in out
    alarms = session.client("cloudwatch", endpoint_url=moto_server).describe_alarms()["MetricAlarms"]
    assert len(alarms) == 4
