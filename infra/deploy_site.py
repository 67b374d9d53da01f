"""Deploy the page: `make deploy-site BUCKET=... STAGE=prod` (CloudFront over HTTPS in front of a private bucket),
or `HOSTING=website` (the S3 website endpoint, HTTP only: the public demo).

  .venv/bin/python infra/deploy_site.py --bucket awrlens-site-123456789012 --stage prod [--region eu-west-1]
  .venv/bin/python infra/deploy_site.py --bucket ... --stage prod --domain awrlens.example.com \
      --certificate-arn arn:aws:acm:us-east-1:123456789012:certificate/...
  .venv/bin/python infra/deploy_site.py --bucket ... --stage demo --hosting website

What it does, idempotently (a second run uploads, creates and deletes nothing):
- the bucket, created if it does not exist.
  cloudfront (the default): the bucket stays private (every Block Public Access setting on); a CloudFront
  distribution reads it through an origin access control (OAC), answers over HTTPS only (HTTP is redirected),
  serves index.html for `/`, and caches by the objects' own Cache-Control (a cache policy with a minimum TTL of 0,
  so `no-cache` objects are fetched again, and `immutable` ones kept a year); AWS's managed security-headers policy
  adds HSTS. The bucket policy lets only that distribution read (AWS:SourceArn). With --domain and
  --certificate-arn (ACM, us-east-1) the distribution answers for your domain.
  website: website hosting (index and error document: index.html) and a public-read bucket policy (Block Public
  Access relaxed for policies only; ACLs stay blocked). HTTP only: for the public demo, never for a page that asks
  for an API key.
- renders the page, templates/index.html (as Flask does for `/`, app/page.py), into the bucket's index.html: apiBase
  is the stage's API URL (--api-url, or found through Zappa's CloudFormation stack for --stage, as Zappa finds it),
  and the limits are the API's on that stage (its environment_variables in zappa_settings.json, read by
  Settings.from_env; the defaults without --stage), so the page asks for nothing the API refuses. A page that would
  hold an API key is refused.
- uploads every file of static/ with its Content-Type and a Cache-Control header (the page's own scripts as the one
  file it loads, app/page.py's SCRIPTS joined, as Flask serves it): the vendored libraries
  (static/vendor, pinned by package-lock.json) go under a directory named after a hash of their contents and are
  cached for a year as immutable; index.html, which points there, and the app's own files are `no-cache` (the
  browser, and CloudFront, revalidate with the ETag, so a deploy shows at once).
- skips files whose MD5 equals the object's ETag and whose headers are unchanged; deletes objects that no longer
  exist locally (the bucket is the site's alone).
- says whether the stage's AWRLENS_CORS_ORIGINS allows the site's origin, and what to set if not.
The AWS calls it makes are exactly the actions of infra/iam/site-deployer.json (tests/test_iam.py checks).
"""

import argparse
import base64
import hashlib
import io
import json
import os
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # app/ (the page's context and the settings), when run as a script

from app import page  # noqa: E402
from app.api import limits  # noqa: E402
from app.settings import Settings  # noqa: E402

STATIC = ROOT / "static"
TEMPLATES = page.TEMPLATES
SETTINGS_FILE = ROOT / "zappa_settings.json"
PROJECT = "awrlens"  # Zappa names the Lambda function and its API "<project>-<stage>"

NO_CACHE = "no-cache"
YEAR = 31536000
IMMUTABLE = f"public, max-age={YEAR}, immutable"
HOSTING = ("cloudfront", "website")
# CloudFront: the cache policy (the objects' Cache-Control decides; with MinTTL 0 a `no-cache` object is fetched
# again, a minimum above 0 would keep it that long anyway) and AWS's managed response headers policy
# "SecurityHeadersPolicy" (HSTS, nosniff, frame options, referrer policy).
CACHE_POLICY = {
    "Name": "awrlens-site",
    "Comment": "awrlens: the objects' own Cache-Control decides",
    "MinTTL": 0,
    "DefaultTTL": 0,
    "MaxTTL": YEAR,
    "ParametersInCacheKeyAndForwardedToOrigin": {
        "EnableAcceptEncodingGzip": True,
        "EnableAcceptEncodingBrotli": True,
        "HeadersConfig": {"HeaderBehavior": "none"},
        "CookiesConfig": {"CookieBehavior": "none"},
        "QueryStringsConfig": {"QueryStringBehavior": "none"},
    },  # the page's state is in the query: one index.html
}
SECURITY_HEADERS_POLICY = "67f7725c-6f97-4210-82d7-5512b31e9d03"
ORIGIN_ID = "site"
TYPES = {  # fixed here rather than read from the machine's mime.types, so every machine uploads the same headers
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".txt": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".xml": "application/xml",
}
# S3 website endpoints of the older regions use a dash (s3-website-eu-west-1), newer ones a dot (s3-website.eu-south-2)
DASH_REGIONS = {
    "us-east-1",
    "us-west-1",
    "us-west-2",
    "eu-west-1",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-northeast-1",
    "sa-east-1",
    "us-gov-west-1",
}
API_BASE = re.compile(r'^\s*apiBase:\s*("[^"]*")', re.M)  # the page's settings, not an example in a comment
API_KEY = re.compile(r'^\s*apiKey:\s*"([^"]*)"', re.M)


class DeployError(Exception):
    pass


@dataclass
class SiteFile:
    key: str
    body: bytes
    content_type: str
    cache_control: str

    @cached_property
    def md5(self) -> str:
        return hashlib.md5(self.body).hexdigest()


@dataclass
class Report:
    bucket: str
    site_url: str  # the origin the page is served from (the API's AWRLENS_CORS_ORIGINS must allow it)
    api_url: str
    hosting: str = "cloudfront"
    limits: dict = field(default_factory=dict)
    uploaded: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    deleted: list = field(default_factory=list)
    distribution: dict = field(default_factory=dict)  # id, arn, domain, status, created
    cors_origins: str | None = None  # the stage's AWRLENS_CORS_ORIGINS (None without a stage)

    @property
    def cors_allows_site(self) -> bool | None:
        if self.cors_origins is None:
            return None
        origins = [o.strip() for o in self.cors_origins.split(",")]
        return "*" in origins or self.site_url in origins


class Aws:
    """boto3 clients, each created on first use (nothing is opened at import or before it is needed)."""

    def __init__(self, region: str | None = None):
        self.region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if not self.region:
            raise DeployError("no region: give --region or set AWS_REGION")

    @cached_property
    def session(self):
        import boto3

        return boto3.session.Session(region_name=self.region)

    @cached_property
    def s3(self):
        return self.session.client("s3")

    @cached_property
    def apigateway(self):
        return self.session.client("apigateway")

    @cached_property
    def cloudformation(self):
        return self.session.client("cloudformation")

    @cached_property
    def cloudfront(self):
        return self.session.client("cloudfront")

    @cached_property
    def logs(self):
        return self.session.client("logs")

    @cached_property
    def cloudwatch(self):
        return self.session.client("cloudwatch")

    @cached_property
    def lambda_(self):
        return self.session.client("lambda")


# -- what to upload -----------------------------------------------------------------------------------------------


def site_files(static: Path, api_url: str, settings: Settings, templates: Path = TEMPLATES) -> list[SiteFile]:
    """Every file of the site with its key and headers: index.html (the page rendered for `api_url` and
    `settings`) at the root, the files of static/ under static/ as the page references them, the vendored
    libraries under static/vendor/<hash>/."""
    static = Path(static)
    local = local_files(static)
    vendor = [p for p in local if p.relative_to(static).parts[0] == "vendor"]
    version = vendor_version(static, vendor)
    html = render_page(templates, api_url, settings, f"static/vendor/{version}")
    if f"static/vendor/{version}/" in html and not vendor:
        raise DeployError("static/vendor is empty: build the page's libraries first (make static/vendor/.installed)")
    files = [SiteFile("index.html", html.encode(), TYPES[".html"], NO_CACHE)]
    joined = set()
    if f'"{page.SCRIPTS_PATH}"' in html:  # the page's own scripts as one file, as Flask serves it (app/page.py)
        try:
            files.append(SiteFile(page.SCRIPTS_PATH, page.scripts(static), content_type(page.SCRIPTS_PATH), NO_CACHE))
        except FileNotFoundError as exc:
            raise DeployError(str(exc)) from None
        joined = {f"js/{name}" for name in page.SCRIPTS}
    for path in local:
        rel = path.relative_to(static).as_posix()
        if rel in joined:
            continue  # in SCRIPTS_PATH
        if rel.startswith("vendor/"):
            files.append(
                SiteFile(
                    f"static/vendor/{version}/{rel[len('vendor/') :]}", path.read_bytes(), content_type(rel), IMMUTABLE
                )
            )
        else:
            files.append(SiteFile(f"static/{rel}", path.read_bytes(), content_type(rel), NO_CACHE))
    return files


def local_files(static: Path) -> list[Path]:
    """Every file under `static`, symbolic links followed (static/vendor may be one), dotfiles left out."""
    found = [Path(d, name) for d, _, names in os.walk(static, followlinks=True) for name in names]
    return sorted(p for p in found if not any(part.startswith(".") for part in p.relative_to(static).parts))


def render_page(templates: Path, api_url: str, settings: Settings, vendor: str) -> str:
    """The page for the bucket: the template with the stage's API URL and limits. A key never goes into a public
    file: a page whose apiKey is set is refused."""
    import jinja2

    index = Path(templates) / page.PAGE
    if not index.is_file():
        raise DeployError(f"{index} is missing")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates),
        autoescape=jinja2.select_autoescape(),
        undefined=jinja2.StrictUndefined,
    )  # as Flask renders it, but a missing value fails
    try:
        html = env.get_template(page.PAGE).render(**page.context(settings, api_url, vendor))
    except jinja2.TemplateError as exc:
        raise DeployError(f"{index}: {exc}") from None
    base = API_BASE.search(html)
    if not base or json.loads(base.group(1)) != api_url.rstrip("/"):
        raise DeployError(f"{index} has no apiBase: {{{{ api_base|tojson }}}} setting to fill in")
    key = API_KEY.search(html)
    if key and key.group(1):
        raise DeployError(f"{index} holds an apiKey: a file in a public bucket must not; the page asks for it")
    return html


def stage_settings(stage: str | None, path: Path = SETTINGS_FILE) -> Settings:
    """The API's settings on a Zappa stage: its environment_variables (with `extends`, as Zappa merges them), read
    as the Lambda function reads them; the defaults without a stage."""
    if not stage:
        return Settings.from_env({})
    from infra.lambda_package import stage_settings as zappa_stage

    try:
        environment = zappa_stage(stage, path).get("environment_variables", {})
    except SystemExit as exc:
        raise DeployError(str(exc)) from None
    try:
        return Settings.from_env(environment)
    except ValueError as exc:
        raise DeployError(f"stage {stage} in {Path(path).name}: {exc}") from None


def vendor_version(static: Path, vendor: list[Path]) -> str:
    """A name for this exact set of vendored files: 12 hex digits of a hash over their paths and contents."""
    digest = hashlib.sha256()
    for path in vendor:
        digest.update(path.relative_to(static).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def content_type(name: str) -> str:
    return TYPES.get(Path(name).suffix.lower(), "application/octet-stream")


# -- AWS ----------------------------------------------------------------------------------------------------------


def find_api_url(aws: Aws, stage: str, project: str = PROJECT) -> str:
    """The invoke URL of the REST API Zappa deployed for `stage` (find_api)."""
    return f"https://{find_api(aws, stage, project)}.execute-api.{aws.region}.amazonaws.com/{stage}"


def find_api(aws: Aws, stage: str, project: str = PROJECT) -> str:
    """The id of the REST API Zappa deployed for `stage`, found as Zappa finds it: the resource "Api" of its
    CloudFormation stack (both named <project>-<stage>); for a deployment without the stack, the one REST API of that
    name. Several such APIs (left behind by old deploys) are an error, never a guess; so is an API without the
    stage."""
    from botocore.exceptions import ClientError

    name = f"{project}-{stage}"
    try:
        api_id = aws.cloudformation.describe_stack_resource(StackName=name, LogicalResourceId="Api")[
            "StackResourceDetail"
        ]["PhysicalResourceId"]
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in ("ValidationError", "ResourceNotFoundException"):
            raise
        api_id = None
    if api_id is None:
        ids = [
            api["id"]
            for listing in aws.apigateway.get_paginator("get_rest_apis").paginate()
            for api in listing["items"]
            if api["name"] == name
        ]
        if len(ids) > 1:
            raise DeployError(
                f"no CloudFormation stack {name} in {aws.region}, and {len(ids)} REST APIs named "
                f"{name!r} ({', '.join(sorted(ids))}): delete the stale ones or give --api-url"
            )
        if not ids:
            raise DeployError(
                f"no CloudFormation stack {name} and no REST API named {name!r} in {aws.region}: "
                f"deploy it first (zappa deploy {stage}) or give --api-url"
            )
        api_id = ids[0]
    try:
        aws.apigateway.get_stage(restApiId=api_id, stageName=stage)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "NotFoundException":
            raise
        raise DeployError(
            f"the REST API {api_id} of {name} has no stage {stage!r}: did `zappa deploy {stage}` finish?"
        ) from None
    return api_id


def website_url(bucket: str, region: str) -> str:
    sep = "-" if region in DASH_REGIONS else "."
    return f"http://{bucket}.s3-website{sep}{region}.amazonaws.com"


def ensure_bucket(aws: Aws, bucket: str, hosting: str):
    """The bucket, created if missing: private behind CloudFront, or a public website."""
    from botocore.exceptions import ClientError

    s3 = aws.s3
    try:
        s3.head_bucket(Bucket=bucket)
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        if code in ("403", "AccessDenied", "Forbidden"):
            raise DeployError(
                f"bucket {bucket} exists but this account cannot use it (another owner, or no s3:ListBucket permission)"
            ) from None
        if code not in ("404", "NoSuchBucket", "NotFound"):
            raise
        create = {"Bucket": bucket}
        if aws.region != "us-east-1":
            create["CreateBucketConfiguration"] = {"LocationConstraint": aws.region}
        s3.create_bucket(**create)
    if hosting == "cloudfront":
        s3.put_public_access_block(
            Bucket=bucket,
            PublicAccessBlockConfiguration={
                "BlockPublicAcls": True,
                "IgnorePublicAcls": True,
                "BlockPublicPolicy": True,
                "RestrictPublicBuckets": True,
            },
        )
        return
    s3.put_bucket_website(
        Bucket=bucket,
        WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "index.html"}},
    )
    s3.put_public_access_block(
        Bucket=bucket,
        PublicAccessBlockConfiguration={
            "BlockPublicAcls": True,
            "IgnorePublicAcls": True,
            "BlockPublicPolicy": False,
            "RestrictPublicBuckets": False,
        },
    )
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(public_read_policy(bucket)))


def public_read_policy(bucket: str) -> dict:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "PublicReadForWebsite",
                "Effect": "Allow",
                "Principal": "*",
                "Action": "s3:GetObject",
                "Resource": f"arn:aws:s3:::{bucket}/*",
            }
        ],
    }


def cloudfront_read_policy(bucket: str, distribution_arn: str) -> dict:
    """Only the site's distribution may read the bucket (through its origin access control)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "CloudFrontReadsTheSite",
                "Effect": "Allow",
                "Principal": {"Service": "cloudfront.amazonaws.com"},
                "Action": "s3:GetObject",
                "Resource": f"arn:aws:s3:::{bucket}/*",
                "Condition": {"StringEquals": {"AWS:SourceArn": distribution_arn}},
            }
        ],
    }


# -- CloudFront ---------------------------------------------------------------------------------------------------


def origin_domain(bucket: str, region: str) -> str:
    """The bucket's regional REST endpoint: the origin CloudFront signs its requests to (OAC)."""
    return f"{bucket}.s3.{region}.amazonaws.com"


def ensure_origin_access_control(aws: Aws, bucket: str) -> str:
    """The id of the bucket's origin access control (named after the bucket), created if missing."""
    cf = aws.cloudfront
    for listing in cf.get_paginator("list_origin_access_controls").paginate():
        for item in listing.get("OriginAccessControlList", {}).get("Items") or []:
            if item["Name"] == bucket:
                return item["Id"]
    return cf.create_origin_access_control(
        OriginAccessControlConfig={
            "Name": bucket,
            "Description": f"awrlens site s3://{bucket}",
            "SigningProtocol": "sigv4",
            "SigningBehavior": "always",
            "OriginAccessControlOriginType": "s3",
        }
    )["OriginAccessControl"]["Id"]


def ensure_cache_policy(aws: Aws) -> str:
    """The id of the account's "awrlens-site" cache policy (CACHE_POLICY), created or brought up to date."""
    cf = aws.cloudfront
    listing = cf.list_cache_policies(Type="custom").get("CachePolicyList", {})
    for item in listing.get("Items") or []:
        policy = item["CachePolicy"]
        if policy["CachePolicyConfig"]["Name"] == CACHE_POLICY["Name"]:
            if policy["CachePolicyConfig"] != CACHE_POLICY:
                etag = cf.get_cache_policy(Id=policy["Id"])["ETag"]
                cf.update_cache_policy(Id=policy["Id"], IfMatch=etag, CachePolicyConfig=CACHE_POLICY)
            return policy["Id"]
    return cf.create_cache_policy(CachePolicyConfig=CACHE_POLICY)["CachePolicy"]["Id"]


def distribution_config(
    bucket: str,
    region: str,
    oac_id: str,
    cache_policy_id: str,
    domain: str | None,
    certificate_arn: str | None,
    caller_reference: str,
) -> dict:
    """The distribution: the private bucket as its one origin, HTTPS only, index.html at `/`."""
    methods = {"Quantity": 2, "Items": ["GET", "HEAD"]}
    config = {
        "CallerReference": caller_reference,
        "Comment": f"awrlens site s3://{bucket}",
        "Enabled": True,
        "DefaultRootObject": "index.html",
        "Origins": {
            "Quantity": 1,
            "Items": [
                {
                    "Id": ORIGIN_ID,
                    "DomainName": origin_domain(bucket, region),
                    "OriginPath": "",
                    "S3OriginConfig": {"OriginAccessIdentity": ""},
                    "OriginAccessControlId": oac_id,
                }
            ],
        },
        "DefaultCacheBehavior": {
            "TargetOriginId": ORIGIN_ID,
            "ViewerProtocolPolicy": "redirect-to-https",
            "AllowedMethods": {**methods, "CachedMethods": methods},
            "Compress": True,
            "CachePolicyId": cache_policy_id,
            "ResponseHeadersPolicyId": SECURITY_HEADERS_POLICY,
        },
        "PriceClass": "PriceClass_100",
        "HttpVersion": "http2and3",
        "IsIPV6Enabled": True,
        "Aliases": {"Quantity": 1, "Items": [domain]} if domain else {"Quantity": 0},
        "ViewerCertificate": {
            "ACMCertificateArn": certificate_arn,
            "SSLSupportMethod": "sni-only",
            "MinimumProtocolVersion": "TLSv1.2_2021",
        }
        if certificate_arn
        else {"CloudFrontDefaultCertificate": True},
    }
    return config


MANAGED = ("Comment", "Enabled", "DefaultRootObject", "Aliases")  # compared besides the origin and the behaviour


def _differs(current: dict, wanted: dict) -> bool:
    if any(current.get(k) != wanted[k] for k in MANAGED):
        return True
    origin, want_origin = current["Origins"]["Items"][0], wanted["Origins"]["Items"][0]
    if any(origin.get(k) != want_origin[k] for k in ("DomainName", "OriginAccessControlId")):
        return True
    behaviour, want = current["DefaultCacheBehavior"], wanted["DefaultCacheBehavior"]
    if any(
        behaviour.get(k) != want[k]
        for k in ("ViewerProtocolPolicy", "CachePolicyId", "ResponseHeadersPolicyId", "Compress")
    ):
        return True
    certificate = current.get("ViewerCertificate", {})
    return (certificate.get("ACMCertificateArn") or None) != wanted["ViewerCertificate"].get("ACMCertificateArn")


def ensure_distribution(aws: Aws, bucket: str, domain: str | None = None, certificate_arn: str | None = None) -> dict:
    """The site's distribution (the one whose origin is the bucket), created or brought up to date; then the bucket
    policy that lets only it read."""
    if bool(domain) != bool(certificate_arn):
        raise DeployError("--domain and --certificate-arn go together (an ACM certificate in us-east-1 for the domain)")
    if certificate_arn and ":us-east-1:" not in certificate_arn:
        raise DeployError(f"CloudFront takes certificates from ACM in us-east-1 only, not {certificate_arn}")
    cf = aws.cloudfront
    oac_id = ensure_origin_access_control(aws, bucket)
    cache_policy_id = ensure_cache_policy(aws)
    origin = origin_domain(bucket, aws.region)
    found = None
    for listing in cf.get_paginator("list_distributions").paginate():
        for item in listing.get("DistributionList", {}).get("Items") or []:
            if any(o["DomainName"] == origin for o in item["Origins"].get("Items", [])):
                if found:
                    raise DeployError(
                        f"two CloudFront distributions read {origin} ({found['Id']}, {item['Id']}): delete one"
                    )
                found = item
    created = False
    if found is None:
        config = distribution_config(
            bucket, aws.region, oac_id, cache_policy_id, domain, certificate_arn, f"awrlens-{bucket}"
        )
        dist = cf.create_distribution(DistributionConfig=config)["Distribution"]
        created = True
    else:
        answer = cf.get_distribution_config(Id=found["Id"])
        current = answer["DistributionConfig"]
        wanted = distribution_config(
            bucket, aws.region, oac_id, cache_policy_id, domain, certificate_arn, current["CallerReference"]
        )
        if _differs(current, wanted):
            merged = {
                **current,
                **{
                    k: wanted[k]
                    for k in (
                        "Comment",
                        "Enabled",
                        "DefaultRootObject",
                        "Aliases",
                        "ViewerCertificate",
                        "Origins",
                        "DefaultCacheBehavior",
                    )
                },
            }
            dist = cf.update_distribution(Id=found["Id"], IfMatch=answer["ETag"], DistributionConfig=merged)[
                "Distribution"
            ]
        else:
            dist = {
                "Id": found["Id"],
                "ARN": found["ARN"],
                "DomainName": found["DomainName"],
                "Status": found["Status"],
            }
    aws.s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(cloudfront_read_policy(bucket, dist["ARN"])))
    return {
        "id": dist["Id"],
        "arn": dist["ARN"],
        "domain": dist["DomainName"],
        "status": dist["Status"],
        "created": created,
    }


def remote_objects(aws: Aws, bucket: str) -> dict[str, str]:
    """key -> ETag (without quotes) of every object in the bucket."""
    out = {}
    for listing in aws.s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for obj in listing.get("Contents", []):
            out[obj["Key"]] = obj["ETag"].strip('"')
    return out


def unchanged(aws: Aws, bucket: str, f: SiteFile, etag: str | None) -> bool:
    if etag != f.md5:
        return False
    head = aws.s3.head_object(Bucket=bucket, Key=f.key)
    return head.get("ContentType") == f.content_type and head.get("CacheControl") == f.cache_control


def deploy(
    bucket: str,
    api_url: str | None = None,
    stage: str | None = None,
    region: str | None = None,
    static: Path = STATIC,
    hosting: str = "cloudfront",
    domain: str | None = None,
    certificate_arn: str | None = None,
    aws: Aws | None = None,
    progress: bool = True,
    templates: Path = TEMPLATES,
    settings_file: Path = SETTINGS_FILE,
) -> Report:
    """Create or update the site in `bucket` for the API at `api_url` (default: the stage's, from Zappa's stack)
    with the limits of `stage` (default: the API's defaults), served by CloudFront (or the S3 website endpoint);
    returns what was uploaded, left alone and deleted, and where the site is."""
    if hosting not in HOSTING:
        raise DeployError(f"hosting is one of {', '.join(HOSTING)}, not {hosting!r}")
    if hosting == "website" and (domain or certificate_arn):
        raise DeployError("--domain and --certificate-arn need CloudFront (the S3 website endpoint has no HTTPS)")
    aws = aws or Aws(region)
    if not api_url and not stage:
        raise DeployError("give --api-url or --stage")
    settings = stage_settings(stage, settings_file)
    if not api_url:
        api_url = find_api_url(aws, stage)
    if not re.match(r"https://[^/\s]+(/[^\s]*)?$", api_url):
        raise DeployError(f"--api-url must be an https:// URL, not {api_url!r}")
    files = site_files(static, api_url, settings, templates)  # every local check before the first AWS change
    ensure_bucket(aws, bucket, hosting)
    report = Report(
        bucket,
        website_url(bucket, aws.region),
        api_url.rstrip("/"),
        hosting,
        limits(settings),
        cors_origins=settings.cors_origins if stage else None,
    )
    remote = remote_objects(aws, bucket)
    with click.progressbar(
        files,
        label=f"s3://{bucket}",
        show_pos=True,
        file=None if progress else io.StringIO(),
        item_show_func=lambda f: f.key if f else "",
    ) as bar:
        for f in bar:
            if unchanged(aws, bucket, f, remote.get(f.key)):
                report.unchanged.append(f.key)
                continue
            aws.s3.put_object(
                Bucket=bucket,
                Key=f.key,
                Body=f.body,
                ContentType=f.content_type,
                CacheControl=f.cache_control,
                ContentMD5=base64.b64encode(hashlib.md5(f.body).digest()).decode(),
            )
            report.uploaded.append(f.key)
    stale = sorted(set(remote) - {f.key for f in files})
    for start in range(0, len(stale), 1000):
        batch = stale[start : start + 1000]
        answer = aws.s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in batch], "Quiet": True})
        if answer.get("Errors"):
            raise DeployError(f"could not delete {answer['Errors'][0]['Key']}: {answer['Errors'][0]['Message']}")
        report.deleted.extend(batch)
    if hosting == "cloudfront":
        report.distribution = ensure_distribution(aws, bucket, domain, certificate_arn)
        report.site_url = f"https://{domain or report.distribution['domain']}"
    return report


def main(argv=None):
    from botocore.exceptions import ClientError

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bucket", required=True, help="the site's bucket (created if missing)")
    parser.add_argument(
        "--stage",
        help="the Zappa stage: its settings give the page's limits, and its API "
        "(awrlens-STAGE) the URL when --api-url is not given",
    )
    parser.add_argument(
        "--api-url",
        help="the stage's invoke URL, e.g. https://abc123.execute-api.eu-west-1."
        "amazonaws.com/prod (default: found for --stage)",
    )
    parser.add_argument("--region", help="default: AWS_REGION / AWS_DEFAULT_REGION")
    parser.add_argument("--static", type=Path, default=STATIC, help="the page's files (default: static/)")
    parser.add_argument("--templates", type=Path, default=TEMPLATES, help="the page's template (default: templates/)")
    parser.add_argument(
        "--hosting",
        choices=HOSTING,
        default="cloudfront",
        help="cloudfront (default: HTTPS, private bucket) or website (the S3 website endpoint, HTTP "
        "only: the public demo)",
    )
    parser.add_argument("--domain", help="your domain for the CloudFront distribution (with --certificate-arn)")
    parser.add_argument("--certificate-arn", help="an ACM certificate in us-east-1 for --domain")
    args = parser.parse_args(argv)
    if not args.api_url and not args.stage:
        parser.error("give --stage, --api-url or both")
    try:
        report = deploy(
            args.bucket,
            api_url=args.api_url,
            stage=args.stage,
            region=args.region,
            static=args.static,
            hosting=args.hosting,
            domain=args.domain,
            certificate_arn=args.certificate_arn,
            templates=args.templates,
        )
    except DeployError as exc:
        print(f"deploy_site: {exc}", file=sys.stderr)
        return 2
    except ClientError as exc:
        error = exc.response.get("Error", {})
        print(
            f"deploy_site: AWS refused {exc.operation_name}: {error.get('Code')} {error.get('Message', '')}"
            + (
                " (an emulator without CloudFront's cache policies? --hosting website)"
                if exc.operation_name.endswith("CachePolicies")
                else ""
            ),
            file=sys.stderr,
        )
        return 2
    print(f"{len(report.uploaded)} uploaded, {len(report.unchanged)} unchanged, {len(report.deleted)} deleted")
    print(f"site: {report.site_url}  (API: {report.api_url})")
    if report.distribution:
        d = report.distribution
        print(
            f"CloudFront distribution {d['id']} ({d['domain']}): {d['status']}"
            + ("; a new distribution takes a few minutes to reach every edge" if d["created"] else "")
        )
    else:
        print(
            "S3 website endpoint: HTTP only, for the public demo (a page that asks for an API key needs HTTPS: "
            "--hosting cloudfront)"
        )
    print(
        "the page's limits, as the API's "
        + (f"on stage {args.stage}" if args.stage else "defaults")
        + ": "
        + ", ".join(f"{k} {v}" for k, v in report.limits.items())
    )
    if report.cors_allows_site is False:
        print(
            f"the API refuses this site: set AWRLENS_CORS_ORIGINS to {report.site_url} in stage {args.stage} of "
            f"zappa_settings.json (now {report.cors_origins!r}), then zappa update {args.stage}"
        )
    elif report.cors_allows_site is None:
        print(f"the API's AWRLENS_CORS_ORIGINS must allow {report.site_url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
