"""infra/deploy_site.py against moto's S3 and API Gateway: the bucket, website and policy, every object's headers,
the page rendered from its template (the stage URL, the stage's limits, no key), idempotent re-runs, stale-file
removal."""
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from app.settings import Settings
from infra import deploy_site
from infra.deploy_site import IMMUTABLE, NO_CACHE, Aws, DeployError, deploy
from tests.aws import REGION, aws, aws_calls  # noqa: F401  (fixtures)

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
API = "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod"
BUCKET = "awrlens-site-test"
# A small page template: the vendored files through {{ vendor }}, the settings as the real page writes them
PAGE = """<!doctype html><link rel="stylesheet" href="{{ vendor }}/lib.min.css">
<script>
window.AWRLENS_CONFIG = {
  apiBase: {{ api_base|tojson }},
  apiKey: "",
  maxSeries: {{ limits.max_series|tojson }},
  maxRangeDays: {{ limits.max_range_days|tojson }},
  maxCompareRuns: {{ limits.max_compare_runs|tojson }}
};
</script><script src="{{ vendor }}/lib.min.js"></script><script src="static/js/app.js"></script>
"""


@pytest.fixture()
def static(tmp_path):
    """A small copy of the page's files: one CSS and JS, two libraries (and the template beside, templates/)."""
    d = tmp_path / "static"
    (d / "vendor").mkdir(parents=True)
    (d / "css").mkdir()
    (d / "js").mkdir()
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "index.html").write_text(PAGE)
    (d / "css" / "app.css").write_text("body { margin: 0 }")
    (d / "js" / "app.js").write_text("window.App = {};")
    (d / "vendor" / "lib.min.js").write_text("/*! lib 1.0 */")
    (d / "vendor" / "lib.min.css").write_text("/*! lib 1.0 */ .x{}")
    (d / "vendor" / "manifest.json").write_text('{"lib.min.js": "lib@1.0"}')
    (d / "vendor" / ".installed").write_text("")
    return d


def run(static, **kw):
    return deploy(BUCKET, api_url=kw.pop("api_url", API), static=static, aws=Aws(REGION), progress=False,
                  templates=kw.pop("templates", static.parent / "templates"), **kw)


def objects(s3):
    return {o["Key"]: o for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])}


@pytest.fixture()
def s3(aws):
    import boto3
    return boto3.client("s3", region_name=REGION)


def test_bucket_website_and_public_read_policy(static, s3):
    report = run(static)
    assert s3.get_bucket_location(Bucket=BUCKET)["LocationConstraint"] == REGION
    website = s3.get_bucket_website(Bucket=BUCKET)
    assert website["IndexDocument"] == {"Suffix": "index.html"}
    assert website["ErrorDocument"] == {"Key": "index.html"}
    policy = json.loads(s3.get_bucket_policy(Bucket=BUCKET)["Policy"])
    [statement] = policy["Statement"]
    assert statement["Effect"] == "Allow" and statement["Principal"] == "*"
    assert statement["Action"] == "s3:GetObject" and statement["Resource"] == f"arn:aws:s3:::{BUCKET}/*"
    block = s3.get_public_access_block(Bucket=BUCKET)["PublicAccessBlockConfiguration"]
    assert block["BlockPublicAcls"] and block["IgnorePublicAcls"]  # ACLs stay off; only the policy is public
    assert report.website_url == f"http://{BUCKET}.s3-website-{REGION}.amazonaws.com"


def test_no_public_leaves_the_bucket_private(static, s3):
    run(static, public=False)
    from botocore.exceptions import ClientError
    with pytest.raises(ClientError):
        s3.get_bucket_policy(Bucket=BUCKET)


def test_every_object_has_its_type_and_cache_headers(static, s3):
    report = run(static)
    version = re.search(r"static/vendor/([0-9a-f]{12})/", s3.get_object(Bucket=BUCKET, Key="index.html")["Body"]
                        .read().decode()).group(1)
    expected = {
        "index.html": ("text/html; charset=utf-8", NO_CACHE),
        "static/css/app.css": ("text/css; charset=utf-8", NO_CACHE),
        "static/js/app.js": ("text/javascript; charset=utf-8", NO_CACHE),
        f"static/vendor/{version}/lib.min.js": ("text/javascript; charset=utf-8", IMMUTABLE),
        f"static/vendor/{version}/lib.min.css": ("text/css; charset=utf-8", IMMUTABLE),
        f"static/vendor/{version}/manifest.json": ("application/json", IMMUTABLE),
    }
    assert set(objects(s3)) == set(expected) == set(report.uploaded)  # dotfiles (vendor/.installed) stay home
    for key, (ctype, cache) in expected.items():
        head = s3.head_object(Bucket=BUCKET, Key=key)
        assert (head["ContentType"], head["CacheControl"]) == (ctype, cache), key
    body = s3.get_object(Bucket=BUCKET, Key=f"static/vendor/{version}/lib.min.js")["Body"].read()
    assert body == (static / "vendor" / "lib.min.js").read_bytes()


def test_index_points_at_the_versioned_vendor_directory(static, s3):
    run(static)
    html = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    refs = re.findall(r'(?:src|href)="(static/[^"]+)"', html)
    assert refs and all(ref in objects(s3) for ref in refs), refs
    assert "static/vendor/lib.min.js" not in html


def test_the_page_has_the_stage_url_the_limits_and_no_key(static, s3):
    run(static, api_url=API + "/")
    text = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    assert f'apiBase: "{API}"' in text  # no trailing slash: the page appends /api/v1
    assert 'apiKey: ""' in text
    version = re.search(r"static/vendor/([0-9a-f]{12})/", text).group(1)
    defaults = Settings.from_env({})  # no stage: the API's defaults
    assert text == PAGE.replace('{{ api_base|tojson }}', f'"{API}"') \
        .replace("{{ vendor }}", f"static/vendor/{version}") \
        .replace("{{ limits.max_series|tojson }}", str(defaults.max_series)) \
        .replace("{{ limits.max_range_days|tojson }}", str(defaults.max_range_days)) \
        .replace("{{ limits.max_compare_runs|tojson }}", "8").rstrip("\n")  # everything else as the template has it


def test_the_limits_are_the_stages(static, s3, tmp_path):
    """With a stage, the page's limits are the API's there: its environment_variables, with `extends`."""
    zappa = tmp_path / "zappa_settings.json"
    zappa.write_text(json.dumps({"base": {"environment_variables": {"AWRLENS_MAX_SERIES": "12"}},
                                 "small": {"extends": "base", "environment_variables": {
                                     "AWRLENS_MAX_SERIES": "4", "AWRLENS_MAX_RANGE_DAYS": "31"}}}))
    import boto3
    boto3.client("apigateway", region_name=REGION).create_rest_api(name="awrlens-small")
    report = deploy(BUCKET, stage="small", static=static, aws=Aws(REGION), progress=False,
                    templates=static.parent / "templates", settings_file=zappa)
    text = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    assert "maxSeries: 4," in text and "maxRangeDays: 31.0," in text
    assert report.limits["max_series"] == 4 and report.limits["max_range_days"] == 31.0
    zappa.write_text(json.dumps({"small": {"environment_variables": {"AWRLENS_MAX_SERIE": "4"}}}))
    with pytest.raises(DeployError, match="AWRLENS_MAX_SERIE"):  # a setting the API would refuse at start
        deploy(BUCKET, stage="small", static=static, aws=Aws(REGION), progress=False,
               templates=static.parent / "templates", settings_file=zappa)
    with pytest.raises(DeployError, match="no stage 'nope'"):
        deploy(BUCKET, stage="nope", static=static, aws=Aws(REGION), progress=False,
               templates=static.parent / "templates", settings_file=zappa)


def test_a_key_in_the_page_is_refused_before_any_upload(static, s3):
    template = static.parent / "templates" / "index.html"
    template.write_text(template.read_text().replace('apiKey: ""', 'apiKey: "secret"'))
    with pytest.raises(DeployError, match="apiKey"):
        run(static)
    assert BUCKET not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_a_page_without_the_api_url_is_refused(static, s3):
    template = static.parent / "templates" / "index.html"
    template.write_text(template.read_text().replace("{{ api_base|tojson }}", '""'))
    with pytest.raises(DeployError, match="apiBase"):
        run(static)
    template.unlink()
    with pytest.raises(DeployError, match="index.html is missing"):
        run(static)
    assert BUCKET not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_second_run_changes_nothing(static, s3):
    first = run(static)
    before = {k: o["ETag"] for k, o in objects(s3).items()}
    again = run(static)
    assert again.uploaded == [] and again.deleted == []
    assert sorted(again.unchanged) == sorted(first.uploaded)
    assert {k: o["ETag"] for k, o in objects(s3).items()} == before
    assert before["index.html"].strip('"') == hashlib.md5(
        s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read()).hexdigest()


def test_changes_are_uploaded_and_stale_files_deleted(static, s3):
    run(static)
    s3.put_object(Bucket=BUCKET, Key="static/js/old-module.js", Body=b"gone")  # left by an older deploy
    (static / "js" / "app.js").write_text("window.App = {v: 2};")
    (static / "css" / "app.css").unlink()
    report = run(static)
    assert report.uploaded == ["static/js/app.js"]
    assert sorted(report.deleted) == ["static/css/app.css", "static/js/old-module.js"]
    assert "static/css/app.css" not in objects(s3)


def test_new_vendor_files_get_a_new_directory_and_the_old_one_goes(static, s3):
    run(static)
    old = {k for k in objects(s3) if k.startswith("static/vendor/")}
    (static / "vendor" / "lib.min.js").write_text("/*! lib 1.1 */")
    report = run(static)
    new = {k for k in objects(s3) if k.startswith("static/vendor/")}
    assert not old & new and len(new) == len(old)
    assert set(report.deleted) == old and "index.html" in report.uploaded


def test_changed_headers_are_uploaded_again(static, s3, monkeypatch):
    run(static)
    monkeypatch.setattr(deploy_site, "NO_CACHE", "no-cache, no-store")
    report = run(static)
    assert "static/js/app.js" in report.uploaded and not any("/vendor/" in k for k in report.uploaded)
    assert s3.head_object(Bucket=BUCKET, Key="static/js/app.js")["CacheControl"] == "no-cache, no-store"


def test_api_url_from_the_stage(static, s3):
    import boto3
    api_id = boto3.client("apigateway", region_name=REGION).create_rest_api(name="awrlens-prod")["id"]
    templates = static.parent / "templates"
    report = deploy(BUCKET, stage="prod", static=static, aws=Aws(REGION), progress=False, templates=templates)
    assert report.api_url == f"https://{api_id}.execute-api.{REGION}.amazonaws.com/prod"
    with pytest.raises(DeployError, match="awrlens-demo"):
        deploy(BUCKET, stage="demo", static=static, aws=Aws(REGION), progress=False, templates=templates)


def test_missing_vendor_build_is_a_clear_error(static, s3):
    shutil.rmtree(static / "vendor")
    with pytest.raises(DeployError, match="vendor"):
        run(static)


def test_the_real_page(s3, tmp_path):
    """Every file of the repository's static/ (vendor included when it is built) lands with a known type, and the
    bucket's page is the one Flask serves for `/` (same template, same settings), with only the API's address and
    the vendored libraries' folder told apart."""
    static = ROOT / "static"
    if not (static / "vendor").is_dir():
        pytest.skip("static/vendor is not built (make static/vendor/.installed)")
    report = run(static, templates=ROOT / "templates")
    local = [p for p in static.rglob("*") if p.is_file() and not any(
        part.startswith(".") for part in p.relative_to(static).parts)]
    assert len(report.uploaded) == len(local) + 1  # and index.html
    for key, obj in objects(s3).items():
        head = s3.head_object(Bucket=BUCKET, Key=key)
        assert head["ContentType"] != "application/octet-stream", key
        assert head["CacheControl"] == (IMMUTABLE if key.startswith("static/vendor/") else NO_CACHE), key
    html = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    version = re.search(r"static/vendor/([0-9a-f]{12})/", html).group(1)
    from app import create_app  # nothing is read from the store to serve the page
    local_app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(tmp_path / "none.sqlite")}}))
    served = local_app.test_client().get("/").get_data(as_text=True)
    assert html == served.replace('apiBase: ""', f'apiBase: "{API}"').replace(
        "static/vendor/", f"static/vendor/{version}/")
    refs = re.findall(r'(?:src|href)="(static/[^"]+)"', html)
    assert len(refs) > 20 and all(ref in objects(s3) for ref in refs), refs


def test_command_line(static, s3, capsys):
    templates = str(static.parent / "templates")
    assert deploy_site.main(["--bucket", BUCKET, "--api-url", API, "--region", REGION, "--static", str(static),
                             "--templates", templates]) == 0
    out = capsys.readouterr().out
    assert "6 uploaded, 0 unchanged, 0 deleted" in out and "s3-website-eu-west-1" in out
    assert "limits, as the API's defaults: max_series 8," in out
    assert deploy_site.main(["--bucket", BUCKET, "--api-url", "http://insecure", "--region", REGION,
                             "--static", str(static), "--templates", templates]) == 2
    with pytest.raises(SystemExit):  # neither where the API is nor its stage
        deploy_site.main(["--bucket", BUCKET, "--region", REGION])
