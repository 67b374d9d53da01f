"""An Oracle target of the settings (README, infra/README.md): its keys checked (check_target), its host for
messages (dsn_host), and a password it keeps in AWS Secrets Manager, read once per process (read_secret) and read
again after the database refused it (forget_secret). Connecting to it: app/store/oracle.py."""

import logging
import os
import threading

import oracledb

from app.errors import DatabaseUnavailable
from app.secrets import SecretUnavailable, secret_value
from app.store.awr.views import PREFIXES
from app.store.licence import check_declared

log = logging.getLogger(__name__)

TARGET_KEYS = ("dsn", "user", "password_env", "password_secret", "password", "view_prefix", "management_packs")
PASSWORD_KEYS = ("password_env", "password_secret", "password")


def check_target(alias: str, target: dict) -> dict:
    """The target, checked: a ValueError names the alias and the key at fault."""

    def bad(message):
        return ValueError(f"target {alias!r}: {message}")

    unknown = sorted(set(target) - set(TARGET_KEYS))
    if unknown:
        raise bad(f"unknown key {', '.join(map(repr, unknown))}; an Oracle target takes {', '.join(TARGET_KEYS)}")
    for key in ("dsn", "user"):
        if not isinstance(target.get(key), str) or not target[key].strip():
            raise bad(
                f"\"{key}\" is required and must be a non-empty string"
                + (" (an Oracle DSN such as host:1521/service)" if key == "dsn" else "")
            )
    dsn = target["dsn"].strip()
    if not dsn.startswith("(") and "@" in dsn:
        raise bad(
            "\"dsn\" must not carry credentials (user/password@...); use \"user\" and \"password_env\" "
            "or \"password_secret\""
        )
    given = [k for k in PASSWORD_KEYS if k in target]
    if not given:
        raise bad(
            "a password source is required: \"password_env\" (an environment variable's name), "
            "\"password_secret\" (an AWS Secrets Manager secret) or \"password\""
        )
    if len(given) > 1:
        raise bad(f"give one password source, not {' and '.join(map(repr, given))}")
    key = given[0]
    if not isinstance(target[key], str) or not target[key]:
        raise bad(f"\"{key}\" must be a non-empty string")
    if key == "password_env" and not os.environ.get(target[key]):
        raise bad(f"\"password_env\" names the environment variable {target[key]}, which is not set")
    if key == "password":
        log.warning("target %r: a literal \"password\" in the settings; prefer password_env or password_secret", alias)
    prefix = target.get("view_prefix", "dba_hist_")
    if prefix not in PREFIXES:
        raise bad(f"\"view_prefix\" must be one of {', '.join(PREFIXES)}, not {prefix!r}")
    if "management_packs" in target:
        try:
            target = {**target, "management_packs": check_declared(target["management_packs"])}
        except ValueError as exc:
            raise bad(str(exc)) from None
    return {**target, "dsn": dsn}


def dsn_host(dsn: str) -> str:
    """host:port of a DSN for messages (the DSN itself when it is a tnsnames alias)."""
    try:
        params = oracledb.ConnectParams()
        params.parse_connect_string(dsn)
        hosts, ports = params.host, params.port
    except Exception:
        return dsn
    if isinstance(hosts, list):
        return ",".join(f"{h}:{p}" for h, p in zip(hosts, ports, strict=True))
    return f"{hosts}:{ports}" if hosts else dsn


# -- AWS Secrets Manager ---------------------------------------------------------------------------------------

_secrets: dict[str, str] = {}  # secret id -> password, per process
_secrets_lock = threading.Lock()


def read_secret(alias: str, secret_id: str, timeout: float) -> str:
    """The password in an AWS Secrets Manager secret: a plain SecretString or JSON with a "password" key."""
    with _secrets_lock:
        if secret_id in _secrets:
            return _secrets[secret_id]
        try:
            value = secret_value(secret_id, "password", timeout, "the password secret")
        except SecretUnavailable as exc:
            raise DatabaseUnavailable(f"{alias}: {exc}") from None
        _secrets[secret_id] = value
        return value


def cached_secret(secret_id: str) -> str | None:
    """The password read from `secret_id` by this process, if it was."""
    return _secrets.get(secret_id)


def forget_secret(secret_id: str) -> None:
    """Read `secret_id` again next time (rotated?)."""
    _secrets.pop(secret_id, None)
