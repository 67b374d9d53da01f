"""zappa_settings.json and the packaging rules, checked fast (the full `zappa package` of both stages, with its
smoke test on the unzipped package, is perf/package.py)."""

import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib
from fnmatch import fnmatch
from importlib import metadata
from pathlib import Path

import pytest

from app.settings import Settings
from app.store.oracle import BREAK_WAIT
from app.store.oracle_target import check_target
from infra import lambda_package as lp

ROOT = Path(__file__).resolve().parent.parent
RAW = json.loads((ROOT / "zappa_settings.json").read_text())
STAGES = {name: lp.stage_settings(name) for name in RAW}
API_GATEWAY_TIMEOUT = 29


def test_two_stages():
    assert set(RAW) == {"demo", "prod"}
    assert RAW["prod"]["extends"] == "demo"


@pytest.mark.slow  # a Python subprocess: over half a second
@pytest.mark.parametrize("stage", sorted(STAGES))
def test_runtime_matches_the_package_build(stage):
    """The stage's runtime is the one the package is built and checked for: a current one (python3.11 runs on
    Amazon Linux 2, whose support has ended), its Python in the Makefile's wheel download and venv, and wheels for
    no newer glibc than its OS has."""
    s = STAGES[stage]
    assert s["runtime"] == lp.RUNTIME == f"python{lp.RUNTIME_PYTHON[0]}.{lp.RUNTIME_PYTHON[1]}"
    assert lp.RUNTIME_PYTHON >= (3, 12) and s["architecture"] == "x86_64"
    version = ".".join(map(str, lp.RUNTIME_PYTHON))
    makefile = (ROOT / "Makefile").read_text()
    assert f"--python-version {version}" in makefile and f"LAMBDA_PYTHON ?= python{version}" in makefile
    assert f"LAMBDA_SITE := $(LAMBDA_VENV)/lib/python{version}/site-packages" in makefile
    platforms = re.findall(r"--platform (manylinux\S+)", makefile)
    glibc = {"manylinux2014_x86_64": (2, 17)}
    assert platforms[0] == "manylinux2014_x86_64"  # the most portable first: pip prefers the first it can
    for platform in platforms:
        needed = glibc.get(platform) or tuple(
            map(int, re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", platform).groups())
        )
        assert needed <= lp.RUNTIME_GLIBC, platform
    assert s["use_precompiled_packages"] is False  # no PyPI lookups: the wheels are installed for the runtime
    from zappa.core import build_manylinux_wheel_file_match_pattern
    from zappa.utilities import get_runtime_from_python_version  # noqa: F401  (Zappa knows the runtime)

    assert build_manylinux_wheel_file_match_pattern(lp.RUNTIME, "x86_64")


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_time_bounds_nest(stage):
    """Every database bound fits in the function's timeout, which fits in API Gateway's 29 s."""
    s = STAGES[stage]
    settings = Settings.from_env(s["environment_variables"])
    # a call in flight costs twice the bound (docs/oracle.md, Never hang)
    worst = settings.connect_timeout + 2 * settings.call_timeout
    # one of Oracle's reports: its own bound, then BREAK_WAIT for the answer to the break (tests/test_oracle_reports)
    worst = max(worst, settings.connect_timeout + settings.report_timeout + BREAK_WAIT)
    assert worst < s["timeout_seconds"] < API_GATEWAY_TIMEOUT
    assert s["timeout_seconds"] - worst >= 2, "room for Python and the answer"


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_deliberate_choices(stage):
    s = STAGES[stage]
    assert "keep_warm" in RAW[stage], "keep_warm is chosen per stage, not left to Zappa's default"
    assert 512 <= s["memory_size"] <= 3008 and s["memory_size"] % 64 == 0
    assert s["app_function"] == "app.wsgi.app" and (ROOT / "app" / "wsgi.py").is_file()
    assert s["debug"] is False  # DEBUG=True puts tracebacks in 500 bodies
    assert s["binary_support"] is False and s["payload_compression"] is True
    assert s["cors"] is False  # the app answers preflights with the allowed origins; Zappa's mock would say *
    assert s["manage_roles"] is False and s["role_name"] == f"awrlens-{stage}-lambda"
    assert s["endpoint_configuration"] == ["REGIONAL"]
    assert s.get("slim_handler", False) is False


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_environment_is_valid_settings_and_holds_no_secret(stage):
    env = STAGES[stage]["environment_variables"]
    assert all(k.startswith("AWRLENS_") for k in env)
    Settings.from_env(env)  # unknown or malformed AWRLENS_* variables would stop the app
    text = json.dumps(env).lower()
    assert '"password"' not in text and "password_env" not in text


def test_demo_is_public_and_ships_its_store():
    s = STAGES["demo"]
    env = s["environment_variables"]
    assert "AWRLENS_TARGETS" not in env and "AWRLENS_API_KEY_SECRET" not in env
    assert env["AWRLENS_CORS_ORIGINS"] == "*"
    store = Path(env["AWRLENS_STORE_PATH"])
    assert not store.is_absolute() and store.parts[0] not in s["exclude"] + s["exclude_glob"]
    assert "build/demo.sqlite" in (ROOT / "Makefile").read_text()
    assert s["keep_warm"] is False
    assert {"oracledb", "cryptography", "cffi"} <= set(s["exclude"])  # the demo never imports the driver


def test_prod_reads_oracle_in_a_vpc_with_a_key_and_one_origin():
    s = STAGES["prod"]
    env = s["environment_variables"]
    settings = Settings.from_env(env)
    [(alias, target)] = settings.targets.items()
    check_target(alias, target)
    assert target["password_secret"].startswith("arn:aws:secretsmanager:")
    assert settings.api_key_secret == target["password_secret"]  # one secret: {"password", "api_key"}
    assert settings.cors_origins.startswith("https://") and "*" not in settings.cors_origins
    assert "," not in settings.cors_origins
    assert s["vpc_config"]["SubnetIds"] and s["vpc_config"]["SecurityGroupIds"]
    assert len(s["vpc_config"]["SubnetIds"]) >= 2, "two subnets in two zones"
    assert s["keep_warm"] is True and s["keep_warm_expression"] == "rate(4 minutes)"
    assert "build" in s["exclude_glob"]  # no demo store in the prod package
    assert "oracledb" not in s["exclude"] and "cryptography" not in s["exclude"]


# -- what the package holds ---------------------------------------------------------------------------------------


def project_top_level():
    """The repository's top-level names, tracked (in a copy without .git, such as `git archive` exports, the names
    the copy holds) or made locally by the Makefile and the tools."""
    if (ROOT / ".git").exists():  # a clone or a worktree (where .git is a file)
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
        assert listed.returncode == 0, f"`git ls-files` failed in {ROOT}: {listed.stderr.strip()}"
        names = {p.split("/", 1)[0] for p in listed.stdout.split()}
    else:
        names = {p.name for p in ROOT.iterdir()}
    return names | {
        ".venv",
        ".venv-lambda",
        "node_modules",
        "var",
        "dist",
        "build",
        ".pytest_cache",
        ".hypothesis",
        ".git",
    }


def ignored(stage, names):
    """The top-level names Zappa leaves out: its own excludes, the stage's `exclude` (names at any depth) and
    `exclude_glob` (paths from the package root)."""
    from zappa.core import ZIP_EXCLUDES

    out = shutil.ignore_patterns(*ZIP_EXCLUDES, *STAGES[stage]["exclude"])(str(ROOT), sorted(names))
    return out | {n for n in names for g in STAGES[stage]["exclude_glob"] if "/" not in g and fnmatch(n, g)}


@pytest.mark.slow  # every file of the project against both stages' exclusions: over a third of a second each
@pytest.mark.parametrize("stage, kept", [("demo", {"app", "build"}), ("prod", {"app"})])
def test_only_the_app_leaves_the_project(stage, kept):
    names = project_top_level()
    shipped = names - ignored(stage, names)
    assert shipped == kept, (
        f"{sorted(shipped - kept)} would ship in the {stage} Lambda package: add it to "
        "exclude_glob in zappa_settings.json, or here if the app needs it on Lambda"
    )


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_no_name_exclude_reaches_into_the_app(stage):
    """`exclude` patterns match names at any depth: none may match a directory or file of app/ (a top-level
    `bench` pattern once dropped app/bench, now app/runs). Project directories are left out with `exclude_glob`
    instead."""
    patterns = STAGES[stage]["exclude"]
    for dirpath, dirnames, filenames in os.walk(ROOT / "app"):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in dirnames + filenames:
            hit = [p for p in patterns if fnmatch(name, p)]
            assert not hit, f"{stage}: {Path(dirpath, name).relative_to(ROOT)} matches {hit}"


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_test_and_lab_equipment_and_performance_scripts_stay_out(stage):
    """lab/ (the loopback TNS stand-in, the hang lab), tests/ and perf/ are project directories that Zappa's
    exclude_glob leaves out of both stages, and the package check names them if they are in a zip anyway."""
    assert set(lp.PROJECT_ONLY) == {"lab", "tests", "perf"}
    for name in lp.PROJECT_ONLY:
        assert (ROOT / name).is_dir() and (ROOT / name / "__init__.py").is_file() == (name != "tests")
    assert set(lp.PROJECT_ONLY) <= ignored(stage, project_top_level())
    assert not (ROOT / "app" / "harness").exists(), "the lab equipment moved out of app/ (lab/)"
    assert set(lp.BUILD_ONLY) <= set(STAGES[stage]["exclude_glob"])  # the demo generator: build time only


@pytest.mark.slow  # a Python subprocess: over half a second
def test_nothing_in_the_app_imports_the_lab_at_import_time():
    """Importing the app and every module under app/ (as Lambda's handler and the CLI's start do) never imports
    lab/: `flask runs hang` imports it only when it runs, and lab/ is not in the Lambda package."""
    script = (
        "import importlib, pkgutil, sys\n"
        "import app\n"
        "app.create_app()\n"
        "names = [m.name for m in pkgutil.walk_packages(app.__path__, 'app.')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "print(len(names))\n"
        "leaked = sorted(m for m in sys.modules if m == 'lab' or m.startswith('lab.'))\n"
        "assert not leaked, leaked\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWRLENS_")}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) >= 30  # every module of app/ was imported, runs and the CLI included


def top_levels(dist: str) -> set[str]:
    """Import names and the .dist-info directory of an installed distribution."""
    d = metadata.distribution(dist)
    names = {f.parts[0] for f in d.files or [] if f.parts[0] != ".." and not f.parts[0].endswith(".data")}
    names = {n for n in names if n not in ("__pycache__", "bin")}
    return names


def test_build_and_test_packages_are_excluded():
    """Zappa's command-line dependencies and the SDK that the Lambda runtime brings stay out of both stages."""
    shipping = lp.requirement_names(ROOT / "requirements.txt") | {"zappa", "durationpy", "werkzeug"}
    build_only = lp.requirement_names(ROOT / "infra" / "requirements-zappa.txt") - shipping
    assert {"boto3", "botocore", "troposphere", "pip", "setuptools"} <= build_only
    for stage in STAGES:
        for dist in sorted(build_only):
            try:
                names = top_levels(dist)
            except metadata.PackageNotFoundError:
                continue  # not in the dev venv (e.g. wheel): covered by the package check
            leaked = names - ignored(stage, names)
            assert not leaked, f"{stage}: {dist} would ship {leaked}"
    forbidden = lp.forbidden_names()
    assert {"pytest", "moto", "playwright", "sqlglot", "gunicorn"} <= forbidden
    assert "zappa" not in forbidden and not forbidden & shipping


@pytest.mark.slow  # a Python subprocess: over half a second
def test_zappa_settings_module_names_the_app(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    from tests.test_lambda import zappa_settings_module

    text = zappa_settings_module("prod")
    assert "APP_MODULE='app.wsgi'" in text and "APP_FUNCTION='app'" in text
    assert "DEBUG=False" in text and "BINARY_SUPPORT=False" in text


# -- finishing and checking a zip ---------------------------------------------------------------------------------


def elf(glibc="2.17", machine=0x3E):
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) + struct.pack("<HH", 3, machine)
    return header + bytes(40) + f"GLIBC_2.2.5\0GLIBC_{glibc}\0".encode()


def make_zip(path, files):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


GOOD = {
    "handler.py": "def lambda_handler(e, c): pass\n",
    "zappa_settings.py": "APP_MODULE='app.wsgi'\nAPP_FUNCTION='app'\n",
    "app/__init__.py": "",
    "app/wsgi.py": "app = None\n",
    "build/demo.sqlite": b"SQLite format 3\0",
    "orjson/orjson.cpython-312-x86_64-linux-gnu.so": elf(),
    "orjson-3.13.0.dist-info/WHEEL": "Tag: cp312-cp312-manylinux_2_17_x86_64\nTag: cp312-cp312-manylinux2014_x86_64\n",
    "cryptography-50.0.2.dist-info/WHEEL": "Tag: cp311-abi3-manylinux_2_34_x86_64\n",  # abi3 of 3.11, glibc 2.34
    "markupsafe/_speedups.cpython-312-x86_64-linux-gnu.so": elf("2.34"),
    "flask-3.1.3.dist-info/WHEEL": "Tag: py3-none-any\n",
}


def test_check_passes_a_good_package(tmp_path):
    report = lp.check(make_zip(tmp_path / "p.zip", GOOD), "demo", STAGES["demo"])
    assert report["problems"] == [] and report["native_libraries"] == 2


@pytest.mark.parametrize(
    "extra, problem",
    [
        ({"pytest/__init__.py": ""}, "pytest: test-only"),
        ({"moto-5.2.1.dist-info/METADATA": ""}, "moto: test-only"),
        ({"playwright/__init__.py": ""}, "playwright"),
        ({"boto3/__init__.py": ""}, "boto3: comes with the Lambda runtime"),
        ({"troposphere/__init__.py": ""}, "troposphere: test-only or build-only"),
        ({"x/_rust.abi3.so": elf("2.35")}, "needs GLIBC_2.35; Amazon Linux 2023 has 2.34"),
        ({"x/y.cpython-311-x86_64-linux-gnu.so": elf()}, "built for cpython-311"),
        ({"x/y.cpython-313-x86_64-linux-gnu.so": elf()}, "built for cpython-313"),
        ({"x/z.cpython-312-aarch64-linux-gnu.so": elf(machine=0xB7)}, "not built for x86_64"),
        ({"cryptography-50.0.2.dist-info/WHEEL": "Tag: cp311-abi3-manylinux_2_39_x86_64\n"}, "do not run on"),
        ({"orjson-3.13.0.dist-info/WHEEL": "Tag: cp311-cp311-manylinux_2_17_x86_64\n"}, "do not run on python3.12"),
        ({"x-1.dist-info/WHEEL": "Tag: cp313-abi3-manylinux_2_17_x86_64\n"}, "do not run on"),
        ({"x-1.dist-info/WHEEL": "Tag: cp312-cp312-musllinux_1_2_x86_64\n"}, "do not run on"),
        ({"lab/__init__.py": "", "lab/endpoints.py": ""}, "lab/: the project's test and lab equipment"),
        ({"tests/fake_oracle.py": ""}, "tests/: the project's test and lab equipment"),
        ({"perf/__init__.py": "", "perf/results/load.json": "{}"}, "perf/: the project's test and lab equipment"),
        ({"app/demo/__init__.py": ""}, "app/demo/: runs where the package is built"),
    ],
)
def test_check_finds_what_must_not_ship(tmp_path, extra, problem):
    report = lp.check(make_zip(tmp_path / "p.zip", {**GOOD, **extra}), "demo", STAGES["demo"])
    assert any(problem in p for p in report["problems"]), report["problems"]


def test_check_knows_each_stage_needs(tmp_path):
    demo = {k: v for k, v in GOOD.items() if k != "build/demo.sqlite"}
    assert any(
        "embedded store" in p for p in lp.check(make_zip(tmp_path / "d.zip", demo), "demo", STAGES["demo"])["problems"]
    )
    problems = lp.check(make_zip(tmp_path / "p.zip", GOOD), "prod", STAGES["prod"])["problems"]
    assert any("SQLite file ships" in p for p in problems) and any("oracledb missing" in p for p in problems)


@pytest.mark.slow  # a subprocess of the runtime's Python: over half a second
def test_finish_compiles_hash_based_pyc(tmp_path):
    """finish() with the runtime's Python (as `make package` runs it, from .venv-lambda): the .pyc files are the
    runtime's (cpython-312), hash-based."""
    python = lp.runtime_python()
    if python is None:
        pytest.skip(
            f"no CPython {lp.RUNTIME_PYTHON} on this machine (set LAMBDA_PYTHON): the package's .pyc are "
            "compiled by the runtime's Python"
        )
    rng = random.Random(31)  # a store's stand-in that zlib packs smaller at level 9 than at its default, 6
    words = ["".join(rng.choices("abcdefgh", k=rng.randint(2, 6))) for _ in range(300)]
    store = " ".join(rng.choice(words) for _ in range(60_000)).encode()
    path = make_zip(
        tmp_path / "p.zip",
        {
            "app/__init__.py": "X = 1\n",
            "app/broken_template.py": "{{ not python",
            "app/__pycache__/__init__.cpython-312.pyc": b"stale",
            "build/demo.sqlite": store,
        },
    )
    done = subprocess.run(
        [
            python,
            "-c",
            f"import json, sys; from infra.lambda_package import finish; print(json.dumps(finish({str(path)!r})))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"compiled": 1, "not_compiled": 1}
    with zipfile.ZipFile(path) as z:
        infos = {i.filename: i for i in z.infolist()}
        pyc = z.read(f"app/__pycache__/__init__.cpython-{lp.CP[2:]}.pyc")
    assert infos["app/__init__.py"].date_time == (1980, 1, 1, 0, 0, 0)
    assert infos["app/__init__.py"].external_attr >> 16 == 0o100755
    deflated = {level: zlib.compressobj(level, zlib.DEFLATED, -15) for level in (6, 9)}
    sizes = {level: len(d.compress(store) + d.flush()) for level, d in deflated.items()}
    assert infos["build/demo.sqlite"].compress_size == sizes[9] < sizes[6]
    assert struct.unpack("<I", pyc[4:8])[0] == 0b01, "hash-based, source not checked"
    assert re.search(rb"/var/task/app/__init__\.py", pyc)
    import importlib.util

    assert pyc[:4] != importlib.util.MAGIC_NUMBER or sys.version_info[:2] == lp.RUNTIME_PYTHON  # 3.12's magic


def test_finish_refuses_another_python(tmp_path):
    if sys.version_info[:2] == lp.RUNTIME_PYTHON:
        pytest.skip("this Python is the runtime's")
    with pytest.raises(SystemExit, match=f"compile with Python {lp.RUNTIME_PYTHON[0]}.{lp.RUNTIME_PYTHON[1]}"):
        lp.finish(make_zip(tmp_path / "p.zip", {"app/__init__.py": ""}))


def test_the_guide_describes_the_package_make_builds():
    """infra/README.md's figures are those of what `make package` builds: the demo store's history as the Makefile's
    recipe for it asks (days, the AWR databases' days, per-minute days, hours of ASH, its totals left out, minutes of
    the live buffer), and the packages' sizes as BENCHMARKS.md's summary last measured them."""
    recipe = (ROOT / "Makefile").read_text().split("$(LAMBDA_STORE):", 1)[1].split("\n\n", 1)[0]
    flags = dict(re.findall(r"--(days|awr-days|detail-days|ash-days|live-minutes) ([\d.]+)", recipe))
    guide = (ROOT / "infra" / "README.md").read_text()
    store = " ".join(guide.split("builds the demo store", 1)[1].split("\n3. ", 1)[0].split())
    days, detail, ash_hours = int(flags["days"]), float(flags["detail-days"]), float(flags["ash-days"]) * 24
    assert f"{days} days of history" in store
    awr = int(flags.get("awr-days", days))
    assert (f"the two AWR databases keep their {awr} most recent days" in store) == (awr < days)
    assert f"{'one' if detail == 1 else f'{detail:g}'} day{'' if detail == 1 else 's'} of per-minute metrics" in store
    assert f"{ash_hours:g} hours of Active Session History" in store
    assert ("without its totals" in store) == ("--no-ash-totals" in recipe)
    assert f"{int(flags['live-minutes'])} minutes of the live buffer" in store
    summary = re.search(
        r"^\| Lambda package \|[^|]*\| demo ([\d.]+) MB[^|]*, prod ([\d.]+) MB",
        (ROOT / "BENCHMARKS.md").read_text(),
        re.M,
    )
    demo, prod = (f"{float(size):.1f}" for size in summary.groups())
    assert f"dist/awrlens-prod.zip ({prod} MB); STAGE=demo: dist/awrlens-demo.zip ({demo} MB)" in guide
    assert f"demo {demo} MB zipped, prod {prod} MB" in guide
