"""infra/deploy_site.py against moto's S3, CloudFront, CloudFormation and API Gateway: the private bucket behind
CloudFront (origin access control, HTTPS, the cache policy against every object's headers) or the public website,
every object's headers, the page rendered from its template (the stage URL found through Zappa's stack, the
stage's limits, no key), the API's CORS origin, idempotent re-runs, stale-file removal. Where moto's CloudFront
falls short, tests/aws.py's CloudFrontGaps answers as CloudFront does."""

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from app import page
from app.settings import Settings
from infra import deploy_site
from infra.deploy_site import IMMUTABLE, NO_CACHE, SECURITY_HEADERS_POLICY, YEAR, Aws, DeployError, deploy
from tests.aws import REGION, CloudFrontGaps

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
    """The website hosting unless told: what these tests check of the files is the same for both."""
    return deploy(
        BUCKET,
        api_url=kw.pop("api_url", API),
        static=static,
        aws=Aws(REGION),
        progress=False,
        templates=kw.pop("templates", static.parent / "templates"),
        hosting=kw.pop("hosting", "website"),
        **kw,
    )


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
    assert report.site_url == f"http://{BUCKET}.s3-website-{REGION}.amazonaws.com"
    assert report.distribution == {}


def test_every_object_has_its_type_and_cache_headers(static, s3):
    report = run(static)
    version = re.search(
        r"static/vendor/([0-9a-f]{12})/", s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    ).group(1)
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
    assert text == PAGE.replace('{{ api_base|tojson }}', f'"{API}"').replace(
        "{{ vendor }}", f"static/vendor/{version}"
    ).replace("{{ limits.max_series|tojson }}", str(defaults.max_series)).replace(
        "{{ limits.max_range_days|tojson }}", str(defaults.max_range_days)
    ).replace("{{ limits.max_compare_runs|tojson }}", "8").rstrip("\n")  # everything else as the template has it


def test_the_limits_are_the_stages(static, s3, tmp_path):
    """With a stage, the page's limits are the API's there: its environment_variables, with `extends`."""
    zappa = tmp_path / "zappa_settings.json"
    zappa.write_text(
        json.dumps(
            {
                "base": {"environment_variables": {"AWRLENS_MAX_SERIES": "12"}},
                "small": {
                    "extends": "base",
                    "environment_variables": {"AWRLENS_MAX_SERIES": "4", "AWRLENS_MAX_RANGE_DAYS": "31"},
                },
            }
        )
    )
    zappa_stack("small")
    report = deploy(
        BUCKET,
        stage="small",
        static=static,
        aws=Aws(REGION),
        progress=False,
        hosting="website",
        templates=static.parent / "templates",
        settings_file=zappa,
    )
    text = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    assert "maxSeries: 4," in text and "maxRangeDays: 31.0," in text
    assert report.limits["max_series"] == 4 and report.limits["max_range_days"] == 31.0
    zappa.write_text(json.dumps({"small": {"environment_variables": {"AWRLENS_MAX_SERIE": "4"}}}))
    with pytest.raises(DeployError, match="AWRLENS_MAX_SERIE"):  # a setting the API would refuse at start
        deploy(
            BUCKET,
            stage="small",
            static=static,
            aws=Aws(REGION),
            progress=False,
            hosting="website",
            templates=static.parent / "templates",
            settings_file=zappa,
        )
    with pytest.raises(DeployError, match="no stage 'nope'"):
        deploy(
            BUCKET,
            stage="nope",
            static=static,
            aws=Aws(REGION),
            progress=False,
            hosting="website",
            templates=static.parent / "templates",
            settings_file=zappa,
        )


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
    with pytest.raises(DeployError, match=r"index\.html is missing"):
        run(static)
    assert BUCKET not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_second_run_changes_nothing(static, s3):
    first = run(static)
    before = {k: o["ETag"] for k, o in objects(s3).items()}
    again = run(static)
    assert again.uploaded == [] and again.deleted == []
    assert sorted(again.unchanged) == sorted(first.uploaded)
    assert {k: o["ETag"] for k, o in objects(s3).items()} == before
    assert (
        before["index.html"].strip('"')
        == hashlib.md5(s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read()).hexdigest()
    )


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


def zappa_stack(stage: str, project: str = "awrlens") -> str:
    """What `zappa deploy STAGE` leaves: the CloudFormation stack <project>-<stage> whose resource "Api" is the REST
    API (named the same, with one method, as Zappa's template has), deployed to the stage. Returns the API's id."""
    import boto3

    name = f"{project}-{stage}"
    uri = (
        f"arn:aws:apigateway:{REGION}:lambda:path/2015-03-31/functions/arn:aws:lambda:{REGION}:123456789012:"
        f"function:{name}/invocations"
    )
    template = {
        "Resources": {
            "Api": {"Type": "AWS::ApiGateway::RestApi", "Properties": {"Name": name}},
            "ANY0": {
                "Type": "AWS::ApiGateway::Method",
                "Properties": {
                    "RestApiId": {"Ref": "Api"},
                    "ResourceId": {"Fn::GetAtt": ["Api", "RootResourceId"]},
                    "HttpMethod": "ANY",
                    "AuthorizationType": "NONE",
                    "Integration": {"Type": "AWS_PROXY", "IntegrationHttpMethod": "POST", "Uri": uri},
                },
            },
        }
    }
    cfn = boto3.client("cloudformation", region_name=REGION)
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(template))
    api_id = cfn.describe_stack_resource(StackName=name, LogicalResourceId="Api")["StackResourceDetail"][
        "PhysicalResourceId"
    ]
    boto3.client("apigateway", region_name=REGION).create_deployment(restApiId=api_id, stageName=stage)
    return api_id


def test_api_url_from_zappas_stack_not_the_first_api_of_that_name(static, s3):
    """The API is the stack's, as Zappa finds it (get_api_id): an older REST API of the same name, left behind by a
    deploy, is not taken even when it comes first."""
    import boto3

    apigateway = boto3.client("apigateway", region_name=REGION)
    stale = apigateway.create_rest_api(name="awrlens-prod")["id"]
    api_id = zappa_stack("prod")
    assert next(a["id"] for a in apigateway.get_rest_apis()["items"]) == stale  # the name alone would pick it
    report = deploy(
        BUCKET,
        stage="prod",
        static=static,
        aws=Aws(REGION),
        progress=False,
        hosting="website",
        templates=static.parent / "templates",
    )
    assert report.api_url == f"https://{api_id}.execute-api.{REGION}.amazonaws.com/prod"


def test_api_url_without_a_stack(static, s3):
    """Without Zappa's stack (a deployment older than Zappa's stacks), the one REST API of the name, as Zappa falls
    back to; several are an error naming them, none is an error naming the stage, and so is an API without the
    stage."""
    import boto3

    apigateway = boto3.client("apigateway", region_name=REGION)
    site = {
        "static": static,
        "aws": Aws(REGION),
        "progress": False,
        "hosting": "website",
        "templates": static.parent / "templates",
    }
    with pytest.raises(DeployError, match="no CloudFormation stack awrlens-prod and no REST API named 'awrlens-prod'"):
        deploy(BUCKET, stage="prod", **site)
    only = apigateway.create_rest_api(name="awrlens-prod")["id"]
    with pytest.raises(DeployError, match=f"REST API {only} of awrlens-prod has no stage 'prod'"):
        deploy(BUCKET, stage="prod", **site)
    root = apigateway.get_resources(restApiId=only)["items"][0]["id"]
    apigateway.put_method(restApiId=only, resourceId=root, httpMethod="GET", authorizationType="NONE")
    apigateway.put_integration(restApiId=only, resourceId=root, httpMethod="GET", type="MOCK")
    apigateway.create_deployment(restApiId=only, stageName="prod")
    assert deploy(BUCKET, stage="prod", **site).api_url == f"https://{only}.execute-api.{REGION}.amazonaws.com/prod"
    other = apigateway.create_rest_api(name="awrlens-prod")["id"]
    with pytest.raises(DeployError, match="2 REST APIs named 'awrlens-prod'") as err:
        deploy(BUCKET, stage="prod", **site)
    assert only in str(err.value) and other in str(err.value)
    with pytest.raises(DeployError, match="awrlens-demo"):
        deploy(BUCKET, stage="demo", **site)


def test_missing_vendor_build_is_a_clear_error(static, s3):
    shutil.rmtree(static / "vendor")
    with pytest.raises(DeployError, match="vendor"):
        run(static)


def test_a_page_whose_scripts_are_missing_is_refused(static, s3):
    """The page's own scripts go up as one file (app/page.py): one missing is named, and nothing is uploaded."""
    index = static.parent / "templates" / "index.html"
    index.write_text(index.read_text().replace('"static/js/app.js"', f'"{page.SCRIPTS_PATH}"'))
    with pytest.raises(DeployError, match=r"static/js/dom\.js is missing"):
        run(static)
    assert BUCKET not in [b["Name"] for b in s3.list_buckets().get("Buckets", [])]  # nothing made, nothing sent


def test_the_real_page(s3, tmp_path):
    """Every file of the repository's static/ (vendor included when it is built) lands with a known type, and the
    bucket's page is the one Flask serves for `/` (same template, same settings), with only the API's address and
    the vendored libraries' folder told apart."""
    static = ROOT / "static"
    if not (static / "vendor").is_dir():
        pytest.skip("static/vendor is not built (make static/vendor/.installed)")
    report = run(static, templates=ROOT / "templates")
    local = [
        Path(d, n)
        for d, _, names in os.walk(static, followlinks=True)
        for n in names  # vendor: maybe a link
        if not any(part.startswith(".") for part in Path(d, n).relative_to(static).parts)
    ]
    joined = [p for p in local if p.parent == static / "js" and p.name in page.SCRIPTS]
    assert len(joined) == len(page.SCRIPTS) and page.SCRIPTS_PATH in report.uploaded
    assert len(report.uploaded) == len(local) - len(joined) + 2  # their one file instead, and index.html
    body = s3.get_object(Bucket=BUCKET, Key=page.SCRIPTS_PATH)["Body"].read()
    assert body == local_app_scripts(tmp_path)  # the bytes Flask serves
    for key, _obj in objects(s3).items():
        head = s3.head_object(Bucket=BUCKET, Key=key)
        assert head["ContentType"] != "application/octet-stream", key
        assert head["CacheControl"] == (IMMUTABLE if key.startswith("static/vendor/") else NO_CACHE), key
    html = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    version = re.search(r"static/vendor/([0-9a-f]{12})/", html).group(1)
    from app import create_app  # nothing is read from the store to serve the page

    local_app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(tmp_path / "none.sqlite")}}))
    served = local_app.test_client().get("/").get_data(as_text=True)
    assert html == served.replace('apiBase: ""', f'apiBase: "{API}"').replace(
        "static/vendor/", f"static/vendor/{version}/"
    )
    refs = re.findall(r'(?:src|href)="(static/[^"]+)"', html)
    assert len(refs) == 5 and all(ref in objects(s3) for ref in refs), refs  # 2 style sheets, 3 scripts


def local_app_scripts(tmp_path) -> bytes:
    from app import create_app

    local_app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(tmp_path / "none.sqlite")}}))
    resp = local_app.test_client().get("/" + page.SCRIPTS_PATH)
    assert resp.status_code == 200
    return resp.get_data()


def test_command_line(static, s3, capsys):
    templates = str(static.parent / "templates")
    assert (
        deploy_site.main(
            [
                "--bucket",
                BUCKET,
                "--api-url",
                API,
                "--region",
                REGION,
                "--static",
                str(static),
                "--templates",
                templates,
                "--hosting",
                "website",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "6 uploaded, 0 unchanged, 0 deleted" in out and "s3-website-eu-west-1" in out
    assert "HTTP only, for the public demo" in out
    assert "limits, as the API's defaults: max_series 8," in out
    assert (
        deploy_site.main(
            [
                "--bucket",
                BUCKET,
                "--api-url",
                "http://insecure",
                "--region",
                REGION,
                "--static",
                str(static),
                "--templates",
                templates,
            ]
        )
        == 2
    )
    with pytest.raises(SystemExit):  # neither where the API is nor its stage
        deploy_site.main(["--bucket", BUCKET, "--region", REGION])


# -- CloudFront: HTTPS in front of a private bucket ---------------------------------------------------------------


@pytest.fixture()
def cloudfront(aws_calls, s3):
    """moto's CloudFront, with what it lacks answered as CloudFront does (tests/aws.py)."""
    import boto3

    gaps = CloudFrontGaps(aws_calls)
    gaps.client = boto3.client("cloudfront", region_name=REGION)
    gaps.calls = aws_calls
    return gaps


def sent(calls, operation):
    return [params for service, op, params in calls.log if service == "cloudfront" and op == operation]


def edge_ttl(cache_control: str, policy: dict) -> int:
    """Seconds CloudFront keeps an object at the edge before asking the origin again, by the rule infra/README.md
    states (step 8): `no-cache`, `no-store` or `private` from the origin are honoured (not kept) only when the
    minimum TTL is 0, else kept the minimum TTL; `max-age` (or `s-maxage`) is kept between the minimum and maximum
    TTL; no header at all: the default TTL."""
    directives = {
        d.strip().split("=")[0]: (d.split("=")[1] if "=" in d else None) for d in cache_control.split(",") if d.strip()
    }
    if directives.keys() & {"no-cache", "no-store", "private"}:
        return policy["MinTTL"]
    age = directives.get("s-maxage") or directives.get("max-age")
    if age is None:
        return policy["DefaultTTL"]
    return min(max(int(age), policy["MinTTL"]), policy["MaxTTL"])


def test_cloudfront_serves_a_private_bucket_over_https(static, cloudfront, s3):
    report = run(static, hosting="cloudfront")
    [dist] = cloudfront.client.list_distributions()["DistributionList"]["Items"]
    [created] = sent(cloudfront.calls, "CreateDistribution")
    config = created["DistributionConfig"]
    assert config["DefaultRootObject"] == "index.html" and config["Enabled"] is True
    [origin] = config["Origins"]["Items"]
    assert origin["DomainName"] == f"{BUCKET}.s3.{REGION}.amazonaws.com"  # the REST endpoint, not the website one
    assert origin["S3OriginConfig"] == {"OriginAccessIdentity": ""}  # OAC, not the legacy identity
    [oac] = cloudfront.client.list_origin_access_controls()["OriginAccessControlList"]["Items"]
    assert origin["OriginAccessControlId"] == oac["Id"]
    assert (oac["SigningProtocol"], oac["SigningBehavior"], oac["OriginAccessControlOriginType"]) == (
        "sigv4",
        "always",
        "s3",
    )
    behaviour = config["DefaultCacheBehavior"]
    assert behaviour["ViewerProtocolPolicy"] == "redirect-to-https" and behaviour["TargetOriginId"] == origin["Id"]
    assert behaviour["ResponseHeadersPolicyId"] == SECURITY_HEADERS_POLICY
    assert config["ViewerCertificate"] == {"CloudFrontDefaultCertificate": True}
    assert report.site_url == f"https://{dist['DomainName']}" and report.distribution["id"] == dist["Id"]
    # the bucket: private, no website, readable by this distribution only
    block = s3.get_public_access_block(Bucket=BUCKET)["PublicAccessBlockConfiguration"]
    assert all(block.values()) and len(block) == 4
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError):
        s3.get_bucket_website(Bucket=BUCKET)
    [statement] = json.loads(s3.get_bucket_policy(Bucket=BUCKET)["Policy"])["Statement"]
    assert statement["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert statement["Action"] == "s3:GetObject" and statement["Resource"] == f"arn:aws:s3:::{BUCKET}/*"
    assert statement["Condition"] == {"StringEquals": {"AWS:SourceArn": dist["ARN"]}}


def test_the_cache_keeps_the_page_fresh_and_the_vendored_files_a_year(static, cloudfront, s3):
    """Every object's Cache-Control, through the distribution's cache policy by CloudFront's rule: index.html and
    the app's own files (config.js would be one) are asked of the bucket again on every request; the vendored
    files, named by their contents' hash, are kept a year at the edge and in the browser."""
    run(static, hosting="cloudfront")
    [policy] = cloudfront.configs
    [created] = sent(cloudfront.calls, "CreateDistribution")
    [listed] = cloudfront.client.list_cache_policies(Type="custom")["CachePolicyList"]["Items"]
    assert created["DistributionConfig"]["DefaultCacheBehavior"]["CachePolicyId"] == listed["CachePolicy"]["Id"]
    assert "CacheBehaviors" not in created["DistributionConfig"]  # one behaviour, the default, for every path
    keys = policy["ParametersInCacheKeyAndForwardedToOrigin"]
    assert keys["QueryStringsConfig"]["QueryStringBehavior"] == "none"  # ?db=...&view=... is one index.html
    assert keys["EnableAcceptEncodingGzip"] and keys["EnableAcceptEncodingBrotli"]
    ttl = {key: edge_ttl(s3.head_object(Bucket=BUCKET, Key=key)["CacheControl"], policy) for key in objects(s3)}
    vendor = {k for k in ttl if k.startswith("static/vendor/")}
    assert vendor and {ttl[k] for k in vendor} == {365 * 86400}
    fresh = set(ttl) - vendor
    assert {"index.html", "static/js/app.js", "static/css/app.css"} <= fresh and {ttl[k] for k in fresh} == {0}


def test_a_second_cloudfront_run_changes_nothing_and_a_domain_updates_the_distribution(static, cloudfront, s3):
    first = run(static, hosting="cloudfront")
    again = run(static, hosting="cloudfront")
    assert again.uploaded == [] and again.distribution["id"] == first.distribution["id"]
    assert not again.distribution["created"] and first.distribution["created"]
    for op, count in [
        ("CreateDistribution", 1),
        ("UpdateDistribution", 0),
        ("CreateOriginAccessControl", 1),
        ("CreateCachePolicy", 1),
        ("UpdateCachePolicy", 0),
    ]:
        assert len(sent(cloudfront.calls, op)) == count, op
    cert = "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-aaaa-bbbb-cccc-0123456789ab"
    report = run(static, hosting="cloudfront", domain="awrlens.example.com", certificate_arn=cert)
    [update] = sent(cloudfront.calls, "UpdateDistribution")
    assert update["DistributionConfig"]["Aliases"] == {"Quantity": 1, "Items": ["awrlens.example.com"]}
    assert update["DistributionConfig"]["ViewerCertificate"] == {
        "ACMCertificateArn": cert,
        "SSLSupportMethod": "sni-only",
        "MinimumProtocolVersion": "TLSv1.2_2021",
    }
    assert (
        update["DistributionConfig"]["CallerReference"]
        == sent(cloudfront.calls, "CreateDistribution")[0]["DistributionConfig"]["CallerReference"]
    )
    assert report.site_url == "https://awrlens.example.com"
    run(static, hosting="cloudfront", domain="awrlens.example.com", certificate_arn=cert)
    assert len(sent(cloudfront.calls, "UpdateDistribution")) == 1  # nothing changed the second time
    assert len(cloudfront.client.list_distributions()["DistributionList"]["Items"]) == 1


def test_a_changed_cache_policy_is_brought_up_to_date(static, cloudfront, monkeypatch):
    run(static, hosting="cloudfront")
    monkeypatch.setitem(deploy_site.CACHE_POLICY, "MaxTTL", 2 * YEAR)
    run(static, hosting="cloudfront")
    [update] = sent(cloudfront.calls, "UpdateCachePolicy")
    assert update["CachePolicyConfig"]["MaxTTL"] == 2 * YEAR and update["IfMatch"] == "E1"
    assert len(sent(cloudfront.calls, "CreateCachePolicy")) == 1


def test_a_domain_needs_its_certificate_from_us_east_1(static, cloudfront, s3):
    for kw, message in [
        ({"domain": "awrlens.example.com"}, "go together"),
        ({"domain": "a.example.com", "certificate_arn": "arn:aws:acm:eu-west-1:1:certificate/x"}, "us-east-1 only"),
    ]:
        with pytest.raises(DeployError, match=message):
            run(static, hosting="cloudfront", **kw)
    with pytest.raises(DeployError, match="need CloudFront"):
        run(static, hosting="website", domain="a.example.com", certificate_arn="arn:aws:acm:us-east-1:1:certificate/x")


def test_the_demo_website_moves_behind_cloudfront(static, cloudfront, s3):
    """A bucket that was the public website becomes private: its public-read policy gives way to the
    distribution's, and Block Public Access is on again."""
    run(static, hosting="website")
    run(static, hosting="cloudfront")
    [statement] = json.loads(s3.get_bucket_policy(Bucket=BUCKET)["Policy"])["Statement"]
    assert statement["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert all(s3.get_public_access_block(Bucket=BUCKET)["PublicAccessBlockConfiguration"].values())


def test_the_apis_cors_origin_is_the_sites(static, cloudfront, s3, tmp_path, capsys):
    """The stage's AWRLENS_CORS_ORIGINS must allow the site's HTTPS origin: the deploy says so, with what to set."""
    zappa = tmp_path / "zappa_settings.json"
    zappa.write_text(
        json.dumps({"prod": {"environment_variables": {"AWRLENS_CORS_ORIGINS": "https://awrlens.example.com"}}})
    )
    zappa_stack("prod")
    site = {
        "static": static,
        "aws": Aws(REGION),
        "progress": False,
        "templates": static.parent / "templates",
        "settings_file": zappa,
    }
    report = deploy(BUCKET, stage="prod", **site)
    assert report.site_url.startswith("https://") and report.site_url.endswith(".cloudfront.net")
    assert report.cors_allows_site is False
    cert = "arn:aws:acm:us-east-1:123456789012:certificate/x"
    report = deploy(BUCKET, stage="prod", domain="awrlens.example.com", certificate_arn=cert, **site)
    assert report.cors_allows_site is True
    args = [
        "--bucket",
        BUCKET,
        "--stage",
        "prod",
        "--region",
        REGION,
        "--static",
        str(static),
        "--templates",
        str(static.parent / "templates"),
    ]
    assert deploy_site.main(args) == 0  # zappa_settings.json's prod allows https://awrlens.example.com only
    out = capsys.readouterr().out
    assert "CloudFront distribution" in out
    assert "the API refuses this site: set AWRLENS_CORS_ORIGINS to https://" in out and "zappa update prod" in out
    assert deploy_site.main([*args, "--domain", "awrlens.example.com", "--certificate-arn", cert]) == 0
    assert "refuses" not in capsys.readouterr().out
