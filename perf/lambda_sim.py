"""A Lambda-like place to run a Zappa package on this machine: the zip unpacked as /var/task would be, the SDK
the runtime brings (boto3 and its dependencies, from .venv-lambda) as /var/runtime, and a fresh CPython process of
the runtime's version (infra/lambda_package.py: RUNTIME, python3.12) per invocation, with no site-packages and no
bytecode writes (/var/task is read-only).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from infra.lambda_package import RUNTIME, runtime_python  # noqa: E402

LAMBDA_SITE = ROOT / f".venv-lambda/lib/{RUNTIME}/site-packages"
RUNTIME_SDK = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six.py", "certifi")


def base_python() -> str:
    """The runtime's CPython binary itself (not a pyenv shim, not a venv): what the runtime starts."""
    python = runtime_python()
    if python is None:
        raise SystemExit(f"no {RUNTIME} interpreter on this machine: set LAMBDA_PYTHON")
    out = subprocess.run(
        [python, "-c", "import sys; print(sys._base_executable)"], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def unpack(zip_path: Path, task: Path) -> Path:
    """The zip unpacked, each file dated as its zip entry says (1980-01-01 for Zappa's), like Lambda does."""
    shutil.rmtree(task, ignore_errors=True)
    task.mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            z.extract(info, task)
            stamp = time.mktime((*info.date_time, 0, 0, -1))
            os.utime(task / info.filename, (stamp, stamp))
    return task


@contextmanager
def read_only(task: Path):
    """`task` mounted read-only, as /var/task is on Lambda (a bind mount: needs root); `task` itself, and False,
    where mounting is not allowed."""
    mount = task.with_name(task.name + "-ro")
    mount.mkdir(exist_ok=True)
    ok = subprocess.run(["mount", "--bind", str(task), str(mount)], capture_output=True).returncode == 0
    if ok and subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], capture_output=True).returncode != 0:
        subprocess.run(["umount", str(mount)], capture_output=True)
        ok = False
    try:
        yield (mount, True) if ok else (task, False)
    finally:
        if ok:
            subprocess.run(["umount", str(mount)], capture_output=True)


def runtime_sdk(dest: Path) -> Path:
    """The runtime's boto3 and friends, compiled like the package (hash-based .pyc)."""
    if (dest / ".ready").exists():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for name in RUNTIME_SDK:
        src = LAMBDA_SITE / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        else:
            shutil.copy(src, dest / name)
    subprocess.run(
        [base_python(), "-m", "compileall", "-q", "-f", "--invalidation-mode", "unchecked-hash", str(dest)], check=True
    )
    (dest / ".ready").touch()
    return dest


INVOKE = """
import json, sys, time
t0 = time.perf_counter()
import handler
t1 = time.perf_counter()
results = [handler.lambda_handler(event, None) for event in json.loads(sys.argv[1])]
t2 = time.perf_counter()
with open(sys.argv[2], "w") as out:  # stdout carries the handler's own prints
    json.dump({"import": t1 - t0, "events": t2 - t1, "results": results}, out)
"""


def invoke(
    task: Path,
    runtime: Path,
    events: list[dict],
    function: str = "awrlens-demo",
    python: str | None = None,
    extra_env: dict | None = None,
) -> dict:
    """`events` through handler.lambda_handler in a fresh process, as a cold container would answer them.
    Returns the handler's results, the import and event times measured inside, and the process's wall and CPU
    seconds (user + system, from its rusage) measured outside."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "PYTHONPATH": f"{task}:{runtime}",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "AWS_LAMBDA_FUNCTION_NAME": function,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024",
        "AWS_REGION": "eu-west-1",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "LAMBDA_TASK_ROOT": str(task),
        **(extra_env or {}),
    }
    with tempfile.NamedTemporaryFile(suffix=".json") as result:
        started = time.perf_counter()
        proc, cpu = run_timed(
            [python or base_python(), "-S", "-c", INVOKE, json.dumps(events), result.name],
            cwd=task,
            env=env,
            capture_output=True,
        )
        wall = time.perf_counter() - started
        if proc.returncode:
            raise RuntimeError(f"the invocation failed ({proc.returncode}):\n{proc.stderr.decode()[-3000:]}")
        answer = json.loads(Path(result.name).read_text())
    answer.update(wall=wall, cpu=cpu)
    return answer


def run_timed(argv, **kw):
    """subprocess.run that also returns the CPU seconds (user + system) of the child, reaped by then."""
    before = os.times()
    proc = subprocess.run(argv, **kw)
    after = os.times()
    return proc, (after.children_user - before.children_user) + (after.children_system - before.children_system)


if __name__ == "__main__":
    sys.exit("a module of perf/package.py and perf/coldstart.py")
