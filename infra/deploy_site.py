"""Deploy the page to an S3 bucket with website hosting: `make deploy-site BUCKET=... STAGE=prod`.

  .venv/bin/python infra/deploy_site.py --bucket awrlens-site-123456789012 --stage prod [--region eu-west-1]
  .venv/bin/python infra/deploy_site.py --bucket ... --stage prod \
      --api-url https://abc123.execute-api.eu-west-1.amazonaws.com/prod

What it does, idempotently (a second run uploads and deletes nothing):
- creates the bucket if it does not exist, turns on website hosting (index and error document: index.html), and
  makes the objects publicly readable with a bucket policy (the bucket's Block Public Access settings are relaxed
  for policies only; ACLs stay blocked). For production, CloudFront with origin access control in front of a
  private bucket is the better path (HTTPS, a custom domain): see infra/README.md and --no-public.
- renders the page, templates/index.html (as Flask does for `/`, app/page.py), into the bucket's index.html: apiBase
  is the stage's API URL (--api-url, or found in API Gateway by Zappa's API name for --stage), and the limits are
  the API's on that stage (its environment_variables in zappa_settings.json, read by Settings.from_env; the
  defaults without --stage), so the page asks for nothing the API refuses. A page that would hold an API key is
  refused: the bucket is public.
- uploads every file of static/ with its Content-Type and a Cache-Control header: the vendored libraries
  (static/vendor, pinned by package-lock.json) go under a directory named after a hash of their contents and are
  cached for a year as immutable; index.html, which points there, and the app's own files are `no-cache` (the
  browser revalidates with the ETag, so a deploy shows at once).
- skips files whose MD5 equals the object's ETag and whose headers are unchanged; deletes objects that no longer
  exist locally (the bucket is the site's alone).
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
IMMUTABLE = "public, max-age=31536000, immutable"
TYPES = {  # fixed here rather than read from the machine's mime.types, so every machine uploads the same headers
    ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8", ".json": "application/json", ".map": "application/json",
    ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp", ".ico": "image/x-icon", ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf",
    ".txt": "text/plain; charset=utf-8", ".csv": "text/csv; charset=utf-8", ".xml": "application/xml",
}
# S3 website endpoints of the older regions use a dash (s3-website-eu-west-1), newer ones a dot (s3-website.eu-south-2)
DASH_REGIONS = {"us-east-1", "us-west-1", "us-west-2", "eu-west-1", "ap-southeast-1", "ap-southeast-2",
                "ap-northeast-1", "sa-east-1", "us-gov-west-1"}
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
    website_url: str
    api_url: str
    limits: dict = field(default_factory=dict)
    uploaded: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    deleted: list = field(default_factory=list)


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


# -- what to upload -----------------------------------------------------------------------------------------------

def site_files(static: Path, api_url: str, settings: Settings, templates: Path = TEMPLATES) -> list[SiteFile]:
    """Every file of the site with its key and headers: index.html (the page rendered for `api_url` and
    `settings`) at the root, the files of static/ under static/ as the page references them, the vendored
    libraries under static/vendor/<hash>/."""
    static = Path(static)
    local = sorted(p for p in static.rglob("*") if p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(static).parts))
    vendor = [p for p in local if p.relative_to(static).parts[0] == "vendor"]
    version = vendor_version(static, vendor)
    html = render_page(templates, api_url, settings, f"static/vendor/{version}")
    if f"static/vendor/{version}/" in html and not vendor:
        raise DeployError("static/vendor is empty: build the page's libraries first (make static/vendor/.installed)")
    files = [SiteFile("index.html", html.encode(), TYPES[".html"], NO_CACHE)]
    for path in local:
        rel = path.relative_to(static).as_posix()
        if rel.startswith("vendor/"):
            files.append(SiteFile(f"static/vendor/{version}/{rel[len('vendor/'):]}", path.read_bytes(),
                                  content_type(rel), IMMUTABLE))
        else:
            files.append(SiteFile(f"static/{rel}", path.read_bytes(), content_type(rel), NO_CACHE))
    return files


def render_page(templates: Path, api_url: str, settings: Settings, vendor: str) -> str:
    """The page for the bucket: the template with the stage's API URL and limits. A key never goes into a public
    file: a page whose apiKey is set is refused."""
    import jinja2
    index = Path(templates) / page.PAGE
    if not index.is_file():
        raise DeployError(f"{index} is missing")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates), autoescape=jinja2.select_autoescape(),
                             undefined=jinja2.StrictUndefined)  # as Flask renders it, but a missing value fails
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
    """The invoke URL of the REST API Zappa deployed for `stage` (named <project>-<stage>)."""
    name = f"{project}-{stage}"
    for page in aws.apigateway.get_paginator("get_rest_apis").paginate():
        for api in page["items"]:
            if api["name"] == name:
                return f"https://{api['id']}.execute-api.{aws.region}.amazonaws.com/{stage}"
    raise DeployError(f"no API Gateway REST API named {name!r} in {aws.region}: deploy it first "
                      f"(zappa deploy {stage}) or give --api-url")


def website_url(bucket: str, region: str) -> str:
    sep = "-" if region in DASH_REGIONS else "."
    return f"http://{bucket}.s3-website{sep}{region}.amazonaws.com"


def ensure_bucket(aws: Aws, bucket: str, public: bool):
    """The bucket, created if missing, with website hosting and (when `public`) a public-read policy."""
    from botocore.exceptions import ClientError
    s3 = aws.s3
    try:
        s3.head_bucket(Bucket=bucket)
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        if code in ("403", "AccessDenied", "Forbidden"):
            raise DeployError(f"bucket {bucket} exists but this account cannot use it (another owner, or no "
                              "s3:ListBucket permission)") from None
        if code not in ("404", "NoSuchBucket", "NotFound"):
            raise
        create = {"Bucket": bucket}
        if aws.region != "us-east-1":
            create["CreateBucketConfiguration"] = {"LocationConstraint": aws.region}
        s3.create_bucket(**create)
    s3.put_bucket_website(Bucket=bucket, WebsiteConfiguration={
        "IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "index.html"}})
    if public:
        s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
            "BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": False,
            "RestrictPublicBuckets": False})
        s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(public_read_policy(bucket)))


def public_read_policy(bucket: str) -> dict:
    return {"Version": "2012-10-17", "Statement": [{
        "Sid": "PublicReadForWebsite", "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*"}]}


def remote_objects(aws: Aws, bucket: str) -> dict[str, str]:
    """key -> ETag (without quotes) of every object in the bucket."""
    out = {}
    for page in aws.s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for obj in page.get("Contents", []):
            out[obj["Key"]] = obj["ETag"].strip('"')
    return out


def unchanged(aws: Aws, bucket: str, f: SiteFile, etag: str | None) -> bool:
    if etag != f.md5:
        return False
    head = aws.s3.head_object(Bucket=bucket, Key=f.key)
    return head.get("ContentType") == f.content_type and head.get("CacheControl") == f.cache_control


def deploy(bucket: str, api_url: str | None = None, stage: str | None = None, region: str | None = None,
           static: Path = STATIC, public: bool = True, aws: Aws | None = None, progress: bool = True,
           templates: Path = TEMPLATES, settings_file: Path = SETTINGS_FILE) -> Report:
    """Create or update the site in `bucket` for the API at `api_url` (default: the stage's, from API Gateway)
    with the limits of `stage` (default: the API's defaults); returns what was uploaded, left alone and deleted."""
    aws = aws or Aws(region)
    if not api_url and not stage:
        raise DeployError("give --api-url or --stage")
    settings = stage_settings(stage, settings_file)
    if not api_url:
        api_url = find_api_url(aws, stage)
    if not re.match(r"https://[^/\s]+(/[^\s]*)?$", api_url):
        raise DeployError(f"--api-url must be an https:// URL, not {api_url!r}")
    files = site_files(static, api_url, settings, templates)  # every local check before the first AWS change
    ensure_bucket(aws, bucket, public)
    report = Report(bucket, website_url(bucket, aws.region), api_url.rstrip("/"), limits(settings))
    remote = remote_objects(aws, bucket)
    with click.progressbar(files, label=f"s3://{bucket}", show_pos=True, file=None if progress else io.StringIO(),
                           item_show_func=lambda f: f.key if f else "") as bar:
        for f in bar:
            if unchanged(aws, bucket, f, remote.get(f.key)):
                report.unchanged.append(f.key)
                continue
            aws.s3.put_object(Bucket=bucket, Key=f.key, Body=f.body, ContentType=f.content_type,
                              CacheControl=f.cache_control,
                              ContentMD5=base64.b64encode(hashlib.md5(f.body).digest()).decode())
            report.uploaded.append(f.key)
    stale = sorted(set(remote) - {f.key for f in files})
    for start in range(0, len(stale), 1000):
        batch = stale[start:start + 1000]
        answer = aws.s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in batch], "Quiet": True})
        if answer.get("Errors"):
            raise DeployError(f"could not delete {answer['Errors'][0]['Key']}: {answer['Errors'][0]['Message']}")
        report.deleted.extend(batch)
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bucket", required=True, help="the site's bucket (created if missing)")
    parser.add_argument("--stage", help="the Zappa stage: its settings give the page's limits, and its API "
                                        "(awrlens-STAGE) the URL when --api-url is not given")
    parser.add_argument("--api-url", help="the stage's invoke URL, e.g. https://abc123.execute-api.eu-west-1."
                                          "amazonaws.com/prod (default: found for --stage)")
    parser.add_argument("--region", help="default: AWS_REGION / AWS_DEFAULT_REGION")
    parser.add_argument("--static", type=Path, default=STATIC, help="the page's files (default: static/)")
    parser.add_argument("--templates", type=Path, default=TEMPLATES,
                        help="the page's template (default: templates/)")
    parser.add_argument("--no-public", action="store_true",
                        help="no public-read policy (CloudFront with origin access control reads the bucket)")
    args = parser.parse_args(argv)
    if not args.api_url and not args.stage:
        parser.error("give --stage, --api-url or both")
    try:
        report = deploy(args.bucket, api_url=args.api_url, stage=args.stage, region=args.region,
                        static=args.static, public=not args.no_public, templates=args.templates)
    except DeployError as exc:
        print(f"deploy_site: {exc}", file=sys.stderr)
        return 2
    print(f"{len(report.uploaded)} uploaded, {len(report.unchanged)} unchanged, {len(report.deleted)} deleted")
    print(f"site: {report.website_url}  (API: {report.api_url})")
    print("the page's limits, as the API's " + (f"on stage {args.stage}" if args.stage else "defaults") + ": "
          + ", ".join(f"{k} {v}" for k, v in report.limits.items()))
    print(f"the API's AWRLENS_CORS_ORIGINS must allow {report.website_url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
