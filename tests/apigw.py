"""API Gateway REST (v1) proxy events as Lambda receives them behind a Zappa deployment (`ANY /{proxy+}`)."""

import copy
from urllib.parse import parse_qs

HOST = "a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com"

TEMPLATE = {
    "resource": "/{proxy+}",
    "path": "/",
    "httpMethod": "GET",
    "headers": {},
    "multiValueHeaders": {},
    "queryStringParameters": None,
    "multiValueQueryStringParameters": None,
    "pathParameters": None,
    "stageVariables": None,
    "requestContext": {
        "resourceId": "abc123",
        "resourcePath": "/{proxy+}",
        "httpMethod": "GET",
        "extendedRequestId": "Kq9XyFhBjoEFf3w=",
        "requestTime": "20/Nov/2026:06:01:02 +0000",
        "path": "/demo/",
        "accountId": "123456789012",
        "protocol": "HTTP/1.1",
        "stage": "demo",
        "domainPrefix": "a1b2c3d4e5",
        "requestTimeEpoch": 1795154462000,
        "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
        "identity": {
            "cognitoIdentityPoolId": None,
            "accountId": None,
            "cognitoIdentityId": None,
            "caller": None,
            "sourceIp": "203.0.113.9",
            "principalOrgId": None,
            "accessKey": None,
            "cognitoAuthenticationType": None,
            "cognitoAuthenticationProvider": None,
            "userArn": None,
            "userAgent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0",
            "user": None,
            "apiKey": None,
        },
        "domainName": HOST,
        "apiId": "a1b2c3d4e5",
    },
    "body": None,
    "isBase64Encoded": False,
}
BASE_HEADERS = {
    "Accept": "application/json",
    "Accept-Encoding": "gzip, deflate, br",
    "Host": HOST,
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0",
    "X-Forwarded-For": "203.0.113.9",
    "X-Forwarded-Port": "443",
    "X-Forwarded-Proto": "https",
    "X-Amzn-Trace-Id": "Root=1-674d8a2e-0a1b",
}


def api_event(
    path: str, query: str = "", headers: dict | None = None, method: str = "GET", stage: str = "demo", host: str = HOST
) -> dict:
    """The event for `method path?query` through the stage's execute-api URL (or a custom domain `host`)."""
    event = copy.deepcopy(TEMPLATE)
    all_headers = {**BASE_HEADERS, "Host": host, **(headers or {})}
    all_headers = {k: v for k, v in all_headers.items() if v is not None}
    multi = parse_qs(query, keep_blank_values=True) if query else None
    event.update(
        path=path,
        httpMethod=method,
        headers=all_headers,
        multiValueHeaders={k: [v] for k, v in all_headers.items()},
        queryStringParameters={k: v[-1] for k, v in multi.items()} if multi else None,
        multiValueQueryStringParameters=multi,
        pathParameters={"proxy": path.lstrip("/")},
    )
    event["requestContext"].update(httpMethod=method, stage=stage, path=f"/{stage}{path}", domainName=host)
    return event


def keep_warm_event(function: str = "awrlens-prod") -> dict:
    """What the keep_warm rule sends (Zappa names the rule after the function and handler.keep_warm_callback)."""
    return {
        "version": "0",
        "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": "2026-11-20T06:00:00Z",
        "region": "eu-west-1",
        "detail": {},
        "resources": [
            f"arn:aws:events:eu-west-1:123456789012:rule/{function}-zappa-keep-warm-handler.keep_warm_callback"
        ],
    }
