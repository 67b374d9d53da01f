"""The AWS calls Zappa makes for one stage's deploy, update, status, undeploy and rollback, read from Zappa's own
source (zappa/cli.py and zappa/core.py), and the IAM actions they need: infra/iam/zappa-deployer.json must allow
every one (tests/test_iam.py). When Zappa is upgraded, run this and compare:

  .venv/bin/python -m infra.zappa_actions prod          # the IAM actions, one a line
  .venv/bin/python -m infra.zappa_actions prod --calls  # with the boto3 calls and where Zappa makes them

How: every boto3 client method called on one of Zappa's clients (`self.lambda_client.create_function(...)` in
core.py, `self.zappa.lambda_client.get_function(...)` in cli.py, a paginator or a waiter by its name, a client held
in a local name) is collected from the command's method down through every method of ZappaCLI and Zappa it calls.
Branches are followed unless Zappa's own settings decide them: the stage is loaded with Zappa's load_settings, and an
`if` whose test reads a setting (`self.use_alb`, `self.manage_roles`, `self.stage_config.get("slim_handler")`, an
argument bound to one) is evaluated with the stage's value; whatever is not known from the settings (the state of
the account, the command line) counts both ways. So the set covers every path the stage's settings allow, and no
path of a feature the settings leave off (ALB, function URLs, EFS, managed roles, domains, API keys, Cognito...).
Zappa's client methods become IAM actions through botocore's service models (method -> operation) and the tables
below, for the few whose IAM action is not `<service>:<Operation>` (infra/README.md, IAM).
"""

import argparse
import ast
import functools
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_FILE = ROOT / "zappa_settings.json"

# What the five commands are called with. Unknown (the command line decides) unless bound here: the project deploys
# zip packages, never Docker images (infra/README.md step 6), and `zappa undeploy` without --remove-logs (the log group
# keeps its retention, infra/guard_rails.py; --remove-logs needs logs:DescribeLogStreams and logs:DeleteLogStream).
COMMANDS = {
    "deploy": {"docker_image_uri": None},
    "update": {"docker_image_uri": None},
    "status": {},
    "undeploy": {"no_confirm": True, "remove_logs": False},
    "rollback": {},
}
# IAM prefixes that are not the client's signing name.
IAM_PREFIX = {"monitoring": "cloudwatch"}
# Operations whose IAM action has another name; (): no permission needed.
ACTION_OF = {
    ("s3", "HeadBucket"): ("s3:ListBucket",),
    ("s3", "ListObjects"): ("s3:ListBucket",),
    ("s3", "ListObjectsV2"): ("s3:ListBucket",),
    ("s3", "HeadObject"): ("s3:GetObject",),
    ("s3", "DeleteObjects"): ("s3:DeleteObject",),
    ("s3", "CopyObject"): ("s3:GetObject", "s3:PutObject"),
    ("s3", "PutPublicAccessBlock"): ("s3:PutBucketPublicAccessBlock",),
    ("s3", "PutBucketLifecycleConfiguration"): ("s3:PutLifecycleConfiguration",),
    ("s3", "GetBucketLifecycleConfiguration"): ("s3:GetLifecycleConfiguration",),
    ("lambda", "Invoke"): ("lambda:InvokeFunction",),
    ("sts", "GetCallerIdentity"): (),
}
# boto3's managed transfers (methods boto3 adds to the S3 client): the operations they make.
S3_TRANSFERS = {
    "upload_file": ("PutObject",),
    "upload_fileobj": ("PutObject",),
    "download_file": ("GetObject",),
    "download_fileobj": ("GetObject",),
    "copy": ("HeadObject", "CopyObject"),
}
# API Gateway's IAM actions are HTTP verbs on resource paths.
APIGATEWAY_VERBS = {
    "Get": "GET",
    "Create": "POST",
    "Put": "PUT",
    "Import": "PUT",
    "Update": "PATCH",
    "Delete": "DELETE",
    "Flush": "DELETE",
    "Test": "POST",
    "Generate": "POST",
}
# The IAM resource objects Zappa uses (boto3.resource("iam")): what a call or attribute of each needs.
RESOURCE_ACTIONS = {
    ("iam", "Role"): ("iam:GetRole",),
    ("iam", "RolePolicy"): ("iam:GetRolePolicy", "iam:PutRolePolicy"),
    ("iam", "create_role"): ("iam:CreateRole",),
}
READ_ONLY_METHODS = {"get", "keys", "items", "values", "copy", "index", "count"}
NO_REQUEST = {"get_paginator", "get_waiter", "can_paginate", "generate_presigned_url", "close", "meta", "exceptions"}


class Unknown:
    def __repr__(self):
        return "?"


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Client:
    service: str  # botocore's service name, e.g. "lambda", "elbv2"


@dataclass(frozen=True)
class Resource:
    service: str


@dataclass(frozen=True)
class Call:
    service: str  # botocore's service name
    method: str  # the client method as Zappa wrote it (a paginator's or waiter's name for those)
    operation: str  # the API operation it makes
    where: str  # file:line in Zappa's source
    keywords: frozenset = frozenset()  # the parameters it passes, as far as the source names them


@dataclass
class Found:
    calls: set = field(default_factory=set)
    resource_calls: set = field(default_factory=set)  # (service, name, where)
    methods: set = field(default_factory=set)  # "cli.deploy", "core.create_lambda_function", ...
    problems: list = field(default_factory=list)  # a call this module cannot name the operation of


@functools.cache
def source() -> "Source":
    return Source()


class Source:
    """Zappa's cli.py and core.py, parsed: the methods of ZappaCLI and Zappa, the clients Zappa creates."""

    def __init__(self):
        import zappa.cli
        import zappa.core

        self.files = {"cli": Path(inspect.getsourcefile(zappa.cli)), "core": Path(inspect.getsourcefile(zappa.core))}
        trees = {name: ast.parse(path.read_text()) for name, path in self.files.items()}
        self.methods = {"cli": self._methods(trees["cli"], "ZappaCLI"), "core": self._methods(trees["core"], "Zappa")}
        self.clients, self.resources = {}, {}
        for node in ast.walk(self.methods["core"]["__init__"]):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)
                and node.value.args
                and isinstance(node.value.args[0], ast.Constant)
            ):
                target = node.targets[0]
                if isinstance(target, ast.Attribute) and _is_self(target.value):
                    kind = node.value.func.attr
                    if kind == "boto_client":
                        self.clients[target.attr] = Client(node.value.args[0].value)
                    elif kind == "boto_resource":
                        self.resources[target.attr] = Resource(node.value.args[0].value)
        # Settings: attributes load_settings sets (on the CLI, or on its Zappa object) that nothing else changes
        self.settled = {
            "cli": self._assigned(trees["cli"], "ZappaCLI", only="load_settings")
            - self._assigned(trees["cli"], "ZappaCLI", skip="load_settings"),
            "core": (
                self._assigned(trees["core"], "Zappa", only="__init__")
                | self._assigned_on_zappa(self.methods["cli"]["load_settings"])
            )
            - self._assigned(trees["core"], "Zappa", skip="__init__"),
        }

    @staticmethod
    def _methods(tree, cls):
        [node] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
        return {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}

    def _assigned(self, tree, cls, only=None, skip=None):
        names = set()
        for name, fn in self._methods(tree, cls).items():
            if (only and name != only) or (skip and name == skip):
                continue
            for node in ast.walk(fn):
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else [node.target]
                    if isinstance(node, (ast.AugAssign, ast.AnnAssign))
                    else []
                )
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Attribute) and _is_self(sub.value):
                            names.add(sub.attr)
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "setattr"
                    and node.args
                    and _is_self(node.args[0])
                ):
                    names.add("*")
        return names

    @staticmethod
    def _assigned_on_zappa(fn):
        """Attributes load_settings sets on its Zappa object (`setattr(self.zappa, setting, ...)` for
        CUSTOM_SETTINGS)."""
        from zappa.cli import CUSTOM_SETTINGS

        names = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                names |= set(CUSTOM_SETTINGS)
        return names

    def where(self, owner, node):
        return f"zappa/{self.files[owner].name}:{node.lineno}"


def _is_self(node):
    return isinstance(node, ast.Name) and node.id == "self"


class Walker:
    """Follows the methods a command calls, with the stage's settings deciding the branches they decide."""

    def __init__(self, source: Source, cli, found: Found):
        self.src, self.cli, self.found = source, cli, found
        self.done: set = set()

    # -- values ---------------------------------------------------------------------------------------------------

    def obj(self, owner):
        return self.cli if owner == "cli" else self.cli.zappa

    def attr(self, owner, name):
        if name == "stage_config" and owner == "cli":
            return self.cli.stage_config
        if name in self.src.settled[owner] and hasattr(self.obj(owner), name):
            return getattr(self.obj(owner), name)
        return UNKNOWN

    def value(self, node, owner, env):
        """The value of an expression when the settings decide it, else UNKNOWN."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e, owner, env) for e in node.elts]
            return (
                UNKNOWN
                if any(i is UNKNOWN or isinstance(e, ast.Starred) for i, e in zip(items, node.elts, strict=True))
                else (items if isinstance(node, ast.List) else tuple(items))
            )
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                return UNKNOWN
            keys = [self.value(k, owner, env) for k in node.keys]
            if any(k is UNKNOWN for k in keys):
                return UNKNOWN
            return {k: self.value(v, owner, env) for k, v in zip(keys, node.values, strict=True)}
        if isinstance(node, ast.Name):
            return env.get(node.id, UNKNOWN)
        if isinstance(node, ast.Attribute):
            if _is_self(node.value):
                if owner == "core" and node.attr in self.src.clients:
                    return self.src.clients[node.attr]
                if owner == "core" and node.attr in self.src.resources:
                    return self.src.resources[node.attr]
                return self.attr(owner, node.attr)
            if (
                owner == "cli"
                and isinstance(node.value, ast.Attribute)
                and _is_self(node.value.value)
                and node.value.attr == "zappa"
            ):
                if node.attr in self.src.clients:
                    return self.src.clients[node.attr]
                return self.attr("core", node.attr)
            return UNKNOWN
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "get" and node.args:
                base = self.value(f.value, owner, env)
                key = self.value(node.args[0], owner, env)
                default = self.value(node.args[1], owner, env) if len(node.args) > 1 else None
                if isinstance(base, dict) and key is not UNKNOWN:
                    return base.get(key, default)
            if isinstance(f, ast.Name) and f.id == "dict" and not node.args:
                out = {}
                for kw in node.keywords:
                    if kw.arg is None:
                        return UNKNOWN
                    out[kw.arg] = self.value(kw.value, owner, env)
                return out
            if (
                isinstance(f, ast.Attribute)
                and f.attr == "client"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and "boto_session" in ast.unparse(f.value)
            ):
                return Client(node.args[0].value)
            return UNKNOWN
        if isinstance(node, ast.Subscript):
            base, key = self.value(node.value, owner, env), self.value(node.slice, owner, env)
            if isinstance(base, (dict, list, tuple)) and key is not UNKNOWN:
                try:
                    return base[key]
                except (KeyError, IndexError, TypeError):
                    return UNKNOWN
            return UNKNOWN
        if isinstance(node, ast.BoolOp):
            values = [self.value(v, owner, env) for v in node.values]
            deciding = (lambda v: not v) if isinstance(node.op, ast.And) else bool
            for v in values:
                if v is UNKNOWN:
                    return UNKNOWN
                if deciding(v):
                    return v
            return values[-1]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self.value(node.operand, owner, env)
            return UNKNOWN if v is UNKNOWN else not v
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.value(node.left, owner, env), self.value(node.comparators[0], owner, env)
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            op = type(node.ops[0])
            try:
                return {
                    ast.Eq: lambda a, b: a == b,
                    ast.NotEq: lambda a, b: a != b,
                    ast.Is: lambda a, b: a is b,
                    ast.IsNot: lambda a, b: a is not b,
                    ast.In: lambda a, b: a in b,
                    ast.NotIn: lambda a, b: a not in b,
                }[op](left, right)
            except (KeyError, TypeError):
                return UNKNOWN
        return UNKNOWN

    # -- walking --------------------------------------------------------------------------------------------------

    def method(self, owner, name, bound: dict):
        key = (owner, name, repr(sorted(bound.items(), key=lambda kv: kv[0])))
        if key in self.done:
            return
        self.done.add(key)
        self.found.methods.add(f"{owner}.{name}")
        fn = self.src.methods[owner][name]
        self.walk(fn.body, owner, self.bind(fn, bound))

    def bind(self, fn, bound):
        args = fn.args
        params = [a.arg for a in args.posonlyargs + args.args][1:]  # without self
        defaults = dict(zip(params[len(params) - len(args.defaults) :], args.defaults, strict=True))
        env = {KEYS: {}}
        for p in params + [a.arg for a in args.kwonlyargs]:
            if p in bound:
                env[p] = bound[p]
            elif bound.get("**") is UNKNOWN:
                env[p] = UNKNOWN
            elif p in defaults:
                env[p] = self.value(defaults[p], "core", {})
            else:
                env[p] = UNKNOWN
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            if a.arg not in bound and d is not None and bound.get("**") is not UNKNOWN:
                env[a.arg] = self.value(d, "core", {})
        return env

    def walk(self, stmts, owner, env):
        """Runs through `stmts` updating `env` (local name -> value) as the code would; where the settings do not
        decide a branch, both are followed and a name that differs between them becomes UNKNOWN."""
        for st in stmts:
            if isinstance(st, ast.If):
                self.expr(st.test, owner, env)
                test = self.value(st.test, owner, env)
                if test is UNKNOWN:
                    other = _copy(env)
                    self.walk(st.body, owner, env)
                    self.walk(st.orelse, owner, other)
                    _merge(env, other)
                else:
                    self.walk(st.body if test else st.orelse, owner, env)
            elif isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
                self.expr(st.iter if isinstance(st, (ast.For, ast.AsyncFor)) else st.test, owner, env)
                looped = _copy(env)
                if isinstance(st, (ast.For, ast.AsyncFor)):
                    for sub in ast.walk(st.target):
                        if isinstance(sub, ast.Name):
                            looped[sub.id] = UNKNOWN
                self.walk(st.body, owner, looped)
                _merge(env, looped)
                self.walk(st.orelse, owner, env)
            elif isinstance(st, ast.Try):
                before = _copy(env)
                self.walk(st.body, owner, env)
                states = []
                for handler in st.handlers:
                    state = _copy(before)
                    _merge(state, env)
                    if handler.name:
                        state[handler.name] = UNKNOWN
                    self.walk(handler.body, owner, state)
                    states.append(state)
                self.walk(st.orelse, owner, env)
                for state in states:
                    _merge(env, state)
                self.walk(st.finalbody, owner, env)
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                for item in st.items:
                    self.expr(item.context_expr, owner, env)
                    if item.optional_vars is not None:
                        for sub in ast.walk(item.optional_vars):
                            if isinstance(sub, ast.Name):
                                env[sub.id] = UNKNOWN
                self.walk(st.body, owner, env)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.walk(st.body, owner, _copy(env))  # a helper defined inside a method: counted as called
            elif isinstance(st, ast.Assign):
                self.expr(st.value, owner, env)
                value = self.value(st.value, owner, env)
                for target in st.targets:
                    self.assign(target, value, owner, env, st.value)
            elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
                if st.value is not None:
                    self.expr(st.value, owner, env)
                value = self.value(st.value, owner, env) if isinstance(st, ast.AnnAssign) and st.value else UNKNOWN
                self.assign(st.target, value, owner, env)
            else:
                for child in ast.iter_child_nodes(st):
                    if isinstance(child, ast.expr):
                        self.expr(child, owner, env)

    def assign(self, target, value, owner, env, node=None):
        if isinstance(target, ast.Name):
            env[target.id] = dict(value) if isinstance(value, dict) else value
            if node is not None and _literal_keys(node):
                env[KEYS].setdefault(target.id, set()).update(_literal_keys(node))
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            base, key = env.get(target.value.id), self.value(target.slice, owner, env)
            if key is not UNKNOWN:
                env[KEYS].setdefault(target.value.id, set()).add(key)
            if isinstance(base, dict):
                if key is UNKNOWN:
                    env[target.value.id] = UNKNOWN
                else:
                    base[key] = value
        else:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    env[sub.id] = UNKNOWN

    def expr(self, node, owner, env):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self.call(sub, owner, env)

    def call(self, node, owner, env):
        f = node.func
        if not isinstance(f, ast.Attribute):
            return
        if isinstance(f.value, ast.Name) and f.attr not in READ_ONLY_METHODS:
            self.mutate(f.value.id, f.attr, node, owner, env)
        target = self.value(f.value, owner, env)
        where = self.src.where(owner, node)
        if isinstance(target, Client):
            self.client_call(target, f.attr, node, owner, env, where)
            return
        if isinstance(target, Resource):
            self.found.resource_calls.add((target.service, f.attr, where))
            return
        if isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Attribute):
            inner = self.value(f.value.func.value, owner, env)
            if isinstance(inner, Resource):
                return  # role.put(...) on self.iam.RolePolicy(...): counted with the resource (RESOURCE_ACTIONS)
        if _is_self(f.value) and f.attr in self.src.methods[owner]:
            self.method(owner, f.attr, self.arguments(node, owner, env, self.src.methods[owner][f.attr]))
        elif (
            owner == "cli"
            and isinstance(f.value, ast.Attribute)
            and _is_self(f.value.value)
            and f.value.attr == "zappa"
            and f.attr in self.src.methods["core"]
        ):
            self.method("core", f.attr, self.arguments(node, owner, env, self.src.methods["core"][f.attr]))

    def mutate(self, name, method, node, owner, env):
        """`name.append(x)`, `name.update(d)`, ...: the local's value as far as known, and the keys a dict may hold."""
        base = env.get(name)
        arg = self.value(node.args[0], owner, env) if node.args else UNKNOWN
        if method == "update" and node.args:
            env[KEYS].setdefault(name, set()).update(_literal_keys(node.args[0]))
        if method == "append" and isinstance(base, list):
            base.append(arg)
        elif method == "update" and isinstance(base, dict) and isinstance(arg, dict):
            base.update(arg)
        elif isinstance(base, (list, dict)):
            env[name] = UNKNOWN

    def arguments(self, node, owner, env, fn):
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args][1:]
        bound = {}
        for p, a in zip(params, node.args, strict=False):  # a call may leave the last parameters out
            bound[p] = UNKNOWN if isinstance(a, ast.Starred) else self.value(a, owner, env)
        for kw in node.keywords:
            if kw.arg is None:
                spread = self.value(kw.value, owner, env)
                if isinstance(spread, dict):
                    bound.update(spread)
                else:
                    bound["**"] = UNKNOWN
            else:
                bound[kw.arg] = self.value(kw.value, owner, env)
        return bound

    def client_call(self, client: Client, method, node, owner, env, where):
        operations = _operations(client.service)
        if method in ("get_paginator", "get_waiter"):
            name = self.value(node.args[0], owner, env) if node.args else UNKNOWN
            if name is UNKNOWN:
                self.found.problems.append(f"{where}: {client.service}.{method} with a name not written out")
                return
            operation = _waiters(client.service).get(name) if method == "get_waiter" else operations.get(name)
            self.add(client, f"{method}({name!r})", operation, where)
            return
        if method in NO_REQUEST:
            return
        if client.service == "s3" and method in S3_TRANSFERS:
            for operation in S3_TRANSFERS[method]:
                self.add(client, method, operation, where)
            return
        keywords = set()
        for kw in node.keywords:
            if kw.arg:
                keywords.add(kw.arg)
                continue
            spread = self.value(kw.value, owner, env)
            if isinstance(spread, dict):
                keywords |= set(spread)
            elif isinstance(kw.value, ast.Name) and kw.value.id in env[KEYS]:
                keywords |= env[KEYS][kw.value.id]
            else:
                keywords.add("**")
        self.add(client, method, operations.get(method), where, frozenset(keywords))

    def add(self, client, method, operation, where, keywords=frozenset()):
        if not operation:
            self.found.problems.append(f"{where}: {client.service}.{method} is no operation of botocore's model")
            return
        self.found.calls.add(Call(client.service, method, operation, where, keywords))


@functools.cache
def _botocore():
    import botocore.session

    return botocore.session.get_session()


@functools.cache
def _operations(service: str) -> dict[str, str]:
    """A client's method names -> the API operations they make (botocore's service model)."""
    from botocore import xform_name

    return {xform_name(op): op for op in _botocore().get_service_model(service).operation_names}


@functools.cache
def _waiters(service: str) -> dict[str, str]:
    """A client's waiter names -> the operation each polls."""
    from botocore import xform_name
    from botocore.exceptions import DataNotFoundError

    try:
        model = _botocore().get_waiter_model(service)
    except DataNotFoundError:  # a service without waiters
        return {}
    return {xform_name(name): model.get_waiter(name).operation for name in model.waiter_names}


KEYS = "\0keys"  # in an env: local name -> every key its dict may hold on some path


def _literal_keys(node) -> set:
    """The keys a dict display or dict(...) call writes out."""
    if isinstance(node, ast.Dict):
        return {k.value for k in node.keys if isinstance(k, ast.Constant)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return {kw.arg for kw in node.keywords if kw.arg}
    return set()


def _copy(env: dict) -> dict:
    out = {
        k: dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v
        for k, v in env.items()
        if k != KEYS
    }
    out[KEYS] = {k: set(v) for k, v in env[KEYS].items()}
    return out


def _merge(env: dict, other: dict):
    """`env` becomes what is known after either path: a name that differs between `env` and `other` is UNKNOWN;
    a dict may hold the keys it holds on either."""
    for name, keys in other[KEYS].items():
        env[KEYS].setdefault(name, set()).update(keys)
    for name in (set(env) | set(other)) - {KEYS}:
        a, b = env.get(name, UNKNOWN), other.get(name, UNKNOWN)
        if a is UNKNOWN or b is UNKNOWN or type(a) is not type(b) or a != b:
            env[name] = UNKNOWN


# -- the stage ----------------------------------------------------------------------------------------------------


def load_stage(stage: str, settings_file: Path = SETTINGS_FILE):
    """Zappa's CLI with the stage's settings loaded as `zappa <command> <stage>` loads them (no AWS call: the
    clients are created, none is used)."""
    import os

    from zappa.cli import ZappaCLI

    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")}
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "none")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "none")
    cwd = os.getcwd()
    try:
        os.chdir(Path(settings_file).parent)
        cli = ZappaCLI()
        cli.api_stage = stage
        cli.vargs = {}
        cli.load_settings(str(settings_file))
        return cli
    finally:
        os.chdir(cwd)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def zappa_calls(stage: str, commands=tuple(COMMANDS), settings_file: Path = SETTINGS_FILE) -> Found:
    """Every AWS call Zappa's source makes for `commands` of `stage`, with the stage's settings."""
    cli = load_stage(stage, settings_file)
    found = Found()
    walker = Walker(source(), cli, found)
    walker.method("cli", "load_settings", {"settings_file": UNKNOWN, "session": None})
    for command in commands:
        walker.method("cli", command, COMMANDS[command])
    return found


def iam_action(service: str, operation: str) -> tuple[str, ...]:
    """The IAM actions one operation of a botocore service needs."""
    return actions_of(_botocore().get_service_model(service).signing_name, operation)


def actions_of(signing_name: str, operation: str) -> tuple[str, ...]:
    """The IAM actions an operation needs, by the service's signing name (as a recorded call has it)."""
    prefix = IAM_PREFIX.get(signing_name, signing_name)
    if prefix == "apigateway":
        verb = next((v for p, v in APIGATEWAY_VERBS.items() if operation.startswith(p)), None)
        if verb is None:
            raise ValueError(f"apigateway {operation}: no HTTP verb known for it")
        return (f"apigateway:{verb}",)
    return ACTION_OF.get((prefix, operation), (f"{prefix}:{operation}",))


ROLE_PARAMETERS = {"Role", "RoleArn"}  # how a call hands an IAM role to the service it calls


def role_passed_to(found: Found) -> dict[str, set[str]]:
    """Service principal -> the calls that hand it a role (iam:PassRole is checked for each, with
    iam:PassedToService = the principal)."""
    out: dict[str, set[str]] = {}
    for call in found.calls:
        if call.keywords & ROLE_PARAMETERS:
            signing = _botocore().get_service_model(call.service).signing_name
            out.setdefault(f"{signing}.amazonaws.com", set()).add(f"{call.where} {call.service}.{call.method}")
    return out


def needed_actions(found: Found) -> dict[str, set[str]]:
    """IAM action -> where in Zappa's source a call needs it."""
    out: dict[str, set[str]] = {}
    for call in found.calls:
        for action in iam_action(call.service, call.operation):
            out.setdefault(action, set()).add(f"{call.where} {call.service}.{call.method}")
    for service, name, where in found.resource_calls:
        actions = RESOURCE_ACTIONS.get((service, name))
        if actions is None:
            found.problems.append(f"{where}: {service} resource {name}: no IAM action known (RESOURCE_ACTIONS)")
            continue
        for action in actions:
            out.setdefault(action, set()).add(f"{where} {service} resource {name}")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", nargs="+", help="stages of zappa_settings.json")
    parser.add_argument("--calls", action="store_true", help="show where Zappa makes each call")
    args = parser.parse_args(argv)
    actions: dict[str, set[str]] = {}
    problems = []
    for stage in args.stage:
        found = zappa_calls(stage)
        for action, where in needed_actions(found).items():
            actions.setdefault(action, set()).update(where)
        problems += found.problems
    for action in sorted(actions):
        print(action)
        if args.calls:
            for w in sorted(actions[action]):
                print("   ", w)
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
