"""Build, finish and check the Lambda package of one Zappa stage: `make package STAGE=demo|prod`.

Run with the packaging virtualenv's Python (.venv-lambda: requirements.txt + Zappa, manylinux wheels for the runtime):
  .venv-lambda/bin/python infra/lambda_package.py demo    ->  dist/awrlens-demo.zip

1. `zappa package STAGE` builds the zip from the project and .venv-lambda, with the stage's excludes. It needs no
   network and no credentials (use_precompiled_packages is off: the wheels are already the right ones).
2. finish(): every module is compiled again as an *unchecked-hash* .pyc. Zappa writes every file with the zip
   date 1980-01-01, so the timestamp .pyc files pip wrote never match their sources on Lambda; /var/task is
   read-only, so each cold start would compile every module again in memory (twice the CPU time, see
   BENCHMARKS.md). Hash-based .pyc files are valid whatever the dates say. Tracebacks name /var/task paths.
3. check(): the zip against Lambda's limits and the runtime: size, native code built for CPython 3.12 x86_64 and
   at most glibc 2.34 (Amazon Linux 2023, the python3.12 runtime), no test-only or build-only package, and none of
   the project's own test and lab equipment or performance scripts (PROJECT_ONLY).
The checks import nothing from Zappa, so the tests use them on small zips too.
"""

import argparse
import importlib.util
import json
import os
import py_compile
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_FILE = ROOT / "zappa_settings.json"

ZIPPED_LIMIT = 50 * 2**20  # direct upload to Lambda
UNZIPPED_LIMIT = 250 * 2**20  # function and layers, unzipped
ZIPPED_TARGET = 25 * 10**6  # this project's target (issue 5)
RUNTIME = "python3.12"  # zappa_settings.json's runtime; the Makefile builds the packaging venv for it
RUNTIME_PYTHON = (3, 12)
RUNTIME_OS, RUNTIME_GLIBC = "Amazon Linux 2023", (2, 34)  # what runs the python3.12 runtime
CP = f"cp{RUNTIME_PYTHON[0]}{RUNTIME_PYTHON[1]}"  # its wheel and extension tag
TASK_ROOT = "/var/task"
# Import names of packages that must never ship, besides every test-only requirement (requirements-dev.txt):
# the test runner's own dependencies, and what only Zappa's command line needs.
NEVER_SHIPPED = {
    "_pytest",
    "pluggy",
    "iniconfig",
    "py",
    "responses",
    "xmltodict",
    "werkzeug_debugger",
    "troposphere",
    "cfn_flip",
    "placebo",
    "hjson",
    "argcomplete",
    "tqdm",
    "slugify",
    "yaml",
    "setuptools",
    "pkg_resources",
    "pip",
    "wheel",
}
# Imported from the Lambda runtime (/var/runtime) instead of the package: the app uses one Secrets Manager call.
FROM_RUNTIME = {"boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six", "certifi"}
# The project's directories that hold test and lab equipment (the loopback TNS stand-in, the hang lab, the tests)
# and the performance scripts: never in a package (zappa_settings.json's exclude_glob leaves them out).
PROJECT_ONLY = ("lab", "tests", "perf")
# Parts of app/ that run only where a package is built: the demo generator (the demo stage ships the store it built).
BUILD_ONLY = ("app/demo",)


def stage_settings(stage: str, path: Path = SETTINGS_FILE) -> dict:
    """The stage's settings with `extends` applied, as Zappa merges them (a shallow update)."""
    settings = json.loads(path.read_text())
    if stage not in settings:
        raise SystemExit(f"no stage {stage!r} in {path.name}; stages: {', '.join(settings)}")
    merged: dict = {}
    chain = []
    while stage:
        if stage in chain:
            raise ValueError(f"circular extends: {' -> '.join([*chain, stage])}")
        chain.append(stage)
        stage = settings[stage].get("extends")
    for name in reversed(chain):
        merged.update(settings[name])
    merged.pop("extends", None)
    return merged


def runtime_python() -> str | None:
    """A CPython of the runtime's version on this machine (to build and compile the package, and to run it as
    Lambda would): $LAMBDA_PYTHON, python3.X on the PATH, or pyenv's; None when there is none."""
    version = ".".join(map(str, RUNTIME_PYTHON))
    candidates = [
        os.environ.get("LAMBDA_PYTHON"),
        f"python{version}",
        *sorted(map(str, Path.home().glob(f".pyenv/versions/{version}*/bin/python{version}")), reverse=True),
    ]
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run(
                [candidate, "-c", f"import sys; print(sys.version_info[:2] == {RUNTIME_PYTHON!r})"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except OSError:
            continue
        if done.returncode == 0 and done.stdout.strip() == "True":
            return candidate
    return None


def requirement_names(path: Path) -> set[str]:
    """Normalized project names in a requirements file, following -r includes."""
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r"):
            names |= requirement_names(path.parent / line[2:].strip())
            continue
        names.add(normalize(re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0]))
    return names


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def forbidden_names(root: Path = ROOT) -> set[str]:
    """Import or distribution names that must not be in any package: test-only requirements and NEVER_SHIPPED."""
    test_only = requirement_names(root / "requirements-dev.txt") - requirement_names(root / "requirements.txt")
    return (test_only - {"zappa"}) | NEVER_SHIPPED  # the tests use Zappa's handler; the package needs it


# -- finishing ----------------------------------------------------------------------------------------------------


def finish(zip_path: Path) -> dict:
    """Rewrite the zip with an unchecked-hash .pyc beside every module (stale .pyc files dropped), sorted, dated
    1980-01-01 like Zappa's entries, mode 0755, deflated at zlib's level 9 (Zappa's 6: the demo package 0.27 MB larger,
    BENCHMARKS.md). Returns counts."""
    if sys.version_info[:2] != RUNTIME_PYTHON:
        raise SystemExit(
            f"compile with Python {'.'.join(map(str, RUNTIME_PYTHON))} (the {RUNTIME} runtime), "
            f"not {sys.version.split()[0]}"
        )
    zip_path = Path(zip_path)
    compiled = failed = 0
    with tempfile.TemporaryDirectory(prefix="awrlens-pkg-") as tmp:
        tmp = Path(tmp)
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(tmp)
        for pyc in tmp.rglob("*.pyc"):
            pyc.unlink()
        for src in sorted(tmp.rglob("*.py")):
            rel = src.relative_to(tmp).as_posix()
            try:
                py_compile.compile(
                    str(src),
                    # beside the module, where the runtime looks: not under this machine's PYTHONPYCACHEPREFIX
                    cfile=str(src.parent / "__pycache__" / f"{src.stem}.{sys.implementation.cache_tag}.pyc"),
                    dfile=f"{TASK_ROOT}/{rel}",
                    doraise=True,
                    invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
                )
                compiled += 1
            except py_compile.PyCompileError:
                failed += 1  # e.g. a template that only looks like Python; it is never imported
        out = zip_path.with_name(zip_path.name + ".tmp")
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for path in sorted(p for p in tmp.rglob("*") if p.is_file()):
                info = zipfile.ZipInfo(path.relative_to(tmp).as_posix())
                info.create_system = 3
                info.external_attr = 0o100755 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, path.read_bytes(), compresslevel=9)
        os.replace(out, zip_path)
    return {"compiled": compiled, "not_compiled": failed}


# -- checks -------------------------------------------------------------------------------------------------------

GLIBC = re.compile(rb"GLIBC_(\d+)\.(\d+)")
SO_TAG = re.compile(r"\.(cpython-(\d+)-([a-z0-9_]+)-linux-gnu|abi3)\.so$")


def native_problems(name: str, data: bytes) -> list[str]:
    """What is wrong with one shared library for the runtime, x86_64 (empty when nothing)."""
    problems = []
    if data[:4] != b"\x7fELF":
        return [f"{name}: not an ELF shared library"]
    if data[4] != 2 or int.from_bytes(data[18:20], "little") != 0x3E:
        problems.append(f"{name}: not built for x86_64")
    m = SO_TAG.search(name)
    if m and m.group(2) and (f"cp{m.group(2)}" != CP or m.group(3) != "x86_64"):
        problems.append(f"{name}: built for cpython-{m.group(2)} {m.group(3)}, not cpython-{CP[2:]} x86_64")
    needed = max((tuple(map(int, v)) for v in GLIBC.findall(data)), default=(0, 0))
    if needed > RUNTIME_GLIBC:
        problems.append(
            f"{name}: needs GLIBC_{needed[0]}.{needed[1]}; {RUNTIME_OS} has {RUNTIME_GLIBC[0]}.{RUNTIME_GLIBC[1]}"
        )
    return problems


def wheel_tag_problems(name: str, text: str) -> list[str]:
    """A dist-info WHEEL file whose tags do not run on the runtime (its Python, its OS's glibc, x86_64)."""
    tags = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]
    ok = []
    for tag in tags:
        py, abi, plat = tag.split("-")
        if plat == "any":
            ok.append(tag)
            continue
        m = re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64|manylinux(2014|2010|1)_x86_64", plat)
        if not m:
            continue
        glibc = (
            (int(m.group(1)), int(m.group(2)))
            if m.group(1)
            else {"2014": (2, 17), "2010": (2, 12), "1": (2, 5)}[m.group(3)]
        )
        if glibc <= RUNTIME_GLIBC and python_runs(py, abi):
            ok.append(tag)
    return (
        []
        if ok
        else [
            f"{name}: wheel tags {', '.join(tags)} do not run on {RUNTIME} x86_64 glibc "
            f"{RUNTIME_GLIBC[0]}.{RUNTIME_GLIBC[1]}"
        ]
    )


def python_runs(py: str, abi: str) -> bool:
    """Whether the runtime's CPython loads a wheel tagged `py`-`abi`: its own version; the stable ABI (abi3) of that
    version or an older 3.x; pure Python."""
    m = re.fullmatch(r"cp3(\d+)", py)
    if abi == CP:
        return py == CP
    if abi == "abi3":
        return bool(m) and int(m.group(1)) <= RUNTIME_PYTHON[1]
    return abi == "none" and (py in ("py3", "py2.py3") or (bool(m) and int(m.group(1)) <= RUNTIME_PYTHON[1]))


def check(zip_path: Path, stage: str, settings: dict | None = None, root: Path = ROOT) -> dict:
    """The package's numbers and every problem found: {"problems": [...], "zipped": ..., ...}."""
    settings = settings if settings is not None else stage_settings(stage)
    zip_path = Path(zip_path)
    problems = []
    forbidden = forbidden_names(root)
    top, natives = set(), []
    unzipped = 0
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            unzipped += info.file_size
            first = info.filename.split("/", 1)[0]
            top.add(first)
            if re.search(r"\.so(\.|$)", info.filename):
                natives.append(info.filename)
                problems += native_problems(info.filename, z.read(info))
            elif info.filename.endswith(".dist-info/WHEEL"):
                problems += wheel_tag_problems(first, z.read(info).decode())
        names = set(z.namelist())
        settings_py = z.read("zappa_settings.py").decode() if "zappa_settings.py" in names else ""
    zipped = zip_path.stat().st_size
    if zipped > ZIPPED_LIMIT:
        problems.append(f"{zipped / 2**20:.1f} MiB zipped: over Lambda's 50 MiB direct upload")
    if unzipped > UNZIPPED_LIMIT:
        problems.append(f"{unzipped / 2**20:.1f} MiB unzipped: over Lambda's 250 MiB")
    shipped = {normalize(re.sub(r"(-[^-]+)?\.(dist-info|py)$", "", t)) for t in top}
    for name in sorted(shipped & forbidden):
        problems.append(f"{name}: test-only or build-only, must not ship")
    for name in sorted(shipped & FROM_RUNTIME):
        problems.append(f"{name}: comes with the Lambda runtime, must not ship")
    for name in PROJECT_ONLY:
        if any(n.startswith(f"{name}/") for n in names):
            problems.append(f"{name}/: the project's test and lab equipment or performance scripts, must not ship")
    for name in BUILD_ONLY:
        if any(n.startswith(f"{name}/") for n in names):
            problems.append(f"{name}/: runs where the package is built, not on Lambda, must not ship")
    for required in ("handler.py", "zappa_settings.py", "app/wsgi.py"):
        if required not in names:
            problems.append(f"{required} missing")
    module, _, function = settings.get("app_function", "").rpartition(".")
    if f"APP_MODULE='{module}'" not in settings_py or f"APP_FUNCTION='{function}'" not in settings_py:
        problems.append("zappa_settings.py does not name the stage's app_function")
    store = settings.get("environment_variables", {}).get("AWRLENS_STORE_PATH")
    uses_store = "AWRLENS_TARGETS" not in settings.get("environment_variables", {})
    if uses_store and store not in names:
        problems.append(f"the embedded store {store} is missing")
    if not uses_store and any(n.endswith((".sqlite", ".db")) for n in names):
        problems.append("an SQLite file ships in a stage that reads Oracle")
    if not uses_store:
        for pkg in ("oracledb", "cryptography"):
            if pkg not in top:
                problems.append(f"{pkg} missing: the stage reads Oracle")
    pycs = sum(1 for n in names if n.endswith(".pyc"))
    return {
        "stage": stage,
        "zip": str(zip_path),
        "zipped": zipped,
        "unzipped": unzipped,
        "files": len(names),
        "native_libraries": len(natives),
        "pyc": pycs,
        "within_target": zipped <= ZIPPED_TARGET,
        "problems": problems,
    }


# -- command ------------------------------------------------------------------------------------------------------


def build(stage: str, output: Path) -> float:
    """`zappa package STAGE -o output` with this virtualenv; returns the seconds it took."""
    venv = Path(sys.prefix)
    if venv == Path(sys.base_prefix) or importlib.util.find_spec("zappa") is None:
        raise SystemExit("run this with the packaging virtualenv: .venv-lambda/bin/python (make package)")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWRLENS_")}
    env.update(
        VIRTUAL_ENV=str(venv), PYTHONWARNINGS="ignore", AWS_DEFAULT_REGION=env.get("AWS_DEFAULT_REGION", "eu-west-1")
    )
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "zappa.cli", "package", stage, "-o", str(output.relative_to(ROOT))],
        cwd=ROOT,
        env=env,
        check=True,
    )
    return time.monotonic() - started


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", help="a stage of zappa_settings.json: demo or prod")
    parser.add_argument("--output", type=Path, help="default: dist/awrlens-STAGE.zip")
    parser.add_argument("--check-only", action="store_true", help="check an existing zip")
    args = parser.parse_args(argv)
    output = (args.output or ROOT / "dist" / f"awrlens-{args.stage}.zip").resolve()
    stage_settings(args.stage)  # a clear message for an unknown stage before anything runs
    if not args.check_only:
        seconds = build(args.stage, output)
        counts = finish(output)
        print(
            f"zappa package {args.stage}: {seconds:.1f} s; {counts['compiled']} modules compiled (unchecked-hash .pyc)"
        )
    report = check(output, args.stage)
    print(
        f"{output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}: "
        f"{report['zipped'] / 1e6:.1f} MB zipped ({report['zipped'] / 2**20:.1f} MiB; target 25 MB), "
        f"{report['unzipped'] / 1e6:.1f} MB unzipped, {report['files']} files, "
        f"{report['native_libraries']} native libraries"
    )
    for problem in report["problems"]:
        print("PROBLEM:", problem, file=sys.stderr)
    if not report["within_target"]:
        print("note: over the 25 MB target", file=sys.stderr)
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
