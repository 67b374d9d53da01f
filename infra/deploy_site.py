"""Deploy the page (static/) to an S3 bucket with website hosting: `make deploy-site BUCKET=... STAGE=prod`.

  .venv/bin/python infra/deploy_site.py --bucket awrlens-site-123456789012 --stage prod [--region eu-west-1]
  .venv/bin/python infra/deploy_site.py --bucket ... --api-url https://abc123.execute-api.eu-west-1.amazonaws.com/prod

What it does, idempotently (a second run uploads and deletes nothing):
- creates the bucket if it does not exist, turns on website hosting (index and error document: index.html), and
  makes the objects publicly readable with a bucket policy (the bucket's Block Public Access settings are relaxed
  for policies only; ACLs stay blocked). For production, CloudFront with origin access control in front of a
  private bucket is the better path (HTTPS, a custom domain): see infra/README.md and --no-public.
- uploads every file of static/ with its Content-Type and a Cache-Control header: the vendored libraries
  (static/vendor, pinned by package-lock.json) go under a directory named after a hash of their contents and are
  cached for a year as immutable; index.html, which is rewritten to point there, config.js and the app's own
  files are `no-cache` (the browser revalidates with the ETag, so a deploy shows at once).
- writes config.js with the stage's API URL (--api-url, or --stage: found in API Gateway by Zappa's API name).
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
STATIC = ROOT / "static"
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
API_BASE = re.compile(r'^(\s*apiBase:\s*)"[^"]*"', re.M)  # the setting, not an example in a comment
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

def site_files(static: Path, api_url: str) -> list[SiteFile]:
    """Every file of the site with its key and headers: index.html at the root, the rest under static/ as the page
    references them, the vendored libraries under static/vendor/<hash>/, config.js written for `api_url`."""
    static = Path(static)
    index = static / "index.html"
    if not index.is_file():
        raise DeployError(f"{index} is missing")
    local = sorted(p for p in static.rglob("*") if p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(static).parts))
    vendor = [p for p in local if p.relative_to(static).parts[0] == "vendor"]
    html = index.read_text(encoding="utf-8")
    if "static/vendor/" in html and not vendor:
        raise DeployError("static/vendor is empty: build the page's libraries first (make static/vendor/.installed)")
    version = vendor_version(static, vendor)
    files = []
    for path in local:
        rel = path.relative_to(static).as_posix()
        if rel == "index.html":
            body = html.replace("static/vendor/", f"static/vendor/{version}/").encode()
            files.append(SiteFile("index.html", body, TYPES[".html"], NO_CACHE))
        elif rel == "config.js":
            files.append(SiteFile("static/config.js", config_js(path.read_text(encoding="utf-8"), api_url).encode(),
                                  TYPES[".js"], NO_CACHE))
        elif rel.startswith("vendor/"):
            files.append(SiteFile(f"static/vendor/{version}/{rel[len('vendor/'):]}", path.read_bytes(),
                                  content_type(rel), IMMUTABLE))
        else:
            files.append(SiteFile(f"static/{rel}", path.read_bytes(), content_type(rel), NO_CACHE))
    if not any(f.key == "static/config.js" for f in files):
        raise DeployError(f"{static / 'config.js'} is missing")
    return files


def vendor_version(static: Path, vendor: list[Path]) -> str:
    """A name for this exact set of vendored files: 12 hex digits of a hash over their paths and contents."""
    digest = hashlib.sha256()
    for path in vendor:
        digest.update(path.relative_to(static).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def content_type(name: str) -> str:
    return TYPES.get(Path(name).suffix.lower(), "application/octet-stream")


def config_js(text: str, api_url: str) -> str:
    """The page's config.js with apiBase set to the stage URL. A key never goes into a public file."""
    if not API_BASE.search(text):
        raise DeployError("config.js has no apiBase: \"...\" setting to fill in")
    key = API_KEY.search(text)
    if key and key.group(1):
        raise DeployError("config.js holds an apiKey: a file in a public bucket must not; the page asks for it")
    return API_BASE.sub(lambda m: m.group(1) + json.dumps(api_url.rstrip("/")), text, count=1)


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
           static: Path = STATIC, public: bool = True, aws: Aws | None = None, progress: bool = True) -> Report:
    """Create or update the site in `bucket`; returns what was uploaded, left alone and deleted."""
    aws = aws or Aws(region)
    if not api_url:
        if not stage:
            raise DeployError("give --api-url or --stage")
        api_url = find_api_url(aws, stage)
    if not re.match(r"https://[^/\s]+(/[^\s]*)?$", api_url):
        raise DeployError(f"--api-url must be an https:// URL, not {api_url!r}")
    files = site_files(static, api_url)  # every local check before the first AWS call that changes anything
    ensure_bucket(aws, bucket, public)
    report = Report(bucket, website_url(bucket, aws.region), api_url.rstrip("/"))
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
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--api-url", help="the stage's invoke URL, e.g. https://abc123.execute-api.eu-west-1."
                                         "amazonaws.com/prod")
    where.add_argument("--stage", help="find the URL of Zappa's API for this stage (awrlens-STAGE)")
    parser.add_argument("--region", help="default: AWS_REGION / AWS_DEFAULT_REGION")
    parser.add_argument("--static", type=Path, default=STATIC, help="the page's files (default: static/)")
    parser.add_argument("--no-public", action="store_true",
                        help="no public-read policy (CloudFront with origin access control reads the bucket)")
    args = parser.parse_args(argv)
    try:
        report = deploy(args.bucket, api_url=args.api_url, stage=args.stage, region=args.region,
                        static=args.static, public=not args.no_public)
    except DeployError as exc:
        print(f"deploy_site: {exc}", file=sys.stderr)
        return 2
    print(f"{len(report.uploaded)} uploaded, {len(report.unchanged)} unchanged, {len(report.deleted)} deleted")
    print(f"site: {report.website_url}  (API: {report.api_url})")
    print(f"the API's AWRLENS_CORS_ORIGINS must allow {report.website_url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
