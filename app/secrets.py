"""AWS Secrets Manager: the one reader of the secrets the app uses (the Oracle password, the API key).

boto3 is imported only when a secret is read: the Lambda runtime provides it, and a local run needs no secret.
"""

import json


class SecretUnavailable(Exception):
    """A secret that could not be read or holds no value; the message names the secret, never its value."""


def secret_value(secret_id: str, key: str, timeout: float, what: str = "the secret") -> str:
    """The SecretString of `secret_id` (an id or an ARN), or its `key` when it is a JSON object. One attempt, each
    connect and read bounded by `timeout` seconds; the region is the ARN's, or the environment's."""
    try:
        import boto3
        from botocore.config import Config

        region = secret_id.split(":")[3] if secret_id.startswith("arn:") else None
        client = boto3.client(
            "secretsmanager",
            region_name=region,
            config=Config(connect_timeout=timeout, read_timeout=timeout, retries={"total_max_attempts": 1}),
        )
        text = client.get_secret_value(SecretId=secret_id).get("SecretString")
    except Exception as exc:
        code = getattr(exc, "response", {}).get("Error", {}).get("Code") or type(exc).__name__
        raise SecretUnavailable(f"cannot read {what} {secret_id!r}: {code}") from None
    try:
        value = json.loads(text or "")
    except ValueError:
        value = text
    if isinstance(value, dict):
        value = value.get(key)
    elif not isinstance(value, str):
        value = text  # a value that happens to parse as a JSON number or list
    if not isinstance(value, str) or not value:
        raise SecretUnavailable(f"{what} {secret_id!r} holds no value (plain text, or JSON with {key!r})")
    return value
