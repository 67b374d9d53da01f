"""The Lambda packages (BENCHMARKS.md, "The Lambda package and cold start"): `zappa package demo` and `prod`, their
size, what fills them, a smoke test.

Usage: .venv/bin/python perf/package.py [--no-build]

For each stage: `make package STAGE=...` (the packaging venv and the demo store are built first when missing;
the time recorded is the packaging alone), the checks of infra/lambda_package.py (Lambda's limits, native code
for CPython 3.12 x86_64 and glibc <= 2.34, no test-only or build-only package), the zipped size by part, then
the package unpacked as Lambda unpacks it and real API Gateway events answered by a fresh Python 3.12 process
(perf/lambda_sim.py), on a read-only mount like /var/task where the machine allows it. Results:
perf/results/package.json.
"""

import collections
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from infra import lambda_package
from perf import harness, lambda_sim
from perf.harness import ROOT
from tests.apigw import api_event

ORCL, RAC = "demo.1645932817", "demo.3120466125"
PARTS = {
    "build": "demo store (SQLite)",
    "sqlalchemy": "SQLAlchemy",
    "oracledb": "python-oracledb",
    "cryptography": "cryptography + cffi",
    "cffi": "cryptography + cffi",
    "_cffi_backend": "cryptography + cffi",
    "pycparser": "cryptography + cffi",
    "app": "awrlens (app/)",
}
DEMO_EVENTS = [
    ("/api/v1/dbs", ""),
    ("/api/v1/benchmarks", ""),
    (f"/api/v1/dbs/{RAC}/series", "name=derived:aas&instance=each&max_points=500"),
    (f"/api/v1/dbs/{ORCL}/top-sql", "order_by=cpu"),
    (f"/api/v1/dbs/{ORCL}/load-profile", "format=csv"),
    (f"/api/v1/dbs/{RAC}/sql/n9t346r3d25vu", ""),
    ("/api/v1/openapi.json", ""),
]
IMPORT_ALL = """
import importlib, json, sys
failed = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
thin = None
if "oracledb" in sys.modules or any(n.startswith("oracledb.") for n in json.loads(sys.argv[1])):
    import oracledb
    thin = oracledb.is_thin_mode()
sys.stdout.write(json.dumps({"failed": failed, "thin": thin}))
"""


def part(name: str) -> str:
    top = name.split("/", 1)[0]
    top = top.split("-", 1)[0] if top.endswith(".dist-info") else top.split(".", 1)[0]
    return PARTS.get(top, "Flask, Werkzeug, Jinja2, Zappa's handler, orjson, ...")


def by_part(zip_path: Path) -> dict:
    zipped, unzipped = collections.Counter(), collections.Counter()
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            zipped[part(info.filename)] += info.compress_size
            unzipped[part(info.filename)] += info.file_size
    return {
        k: {"zipped_mb": round(v / 1e6, 2), "unzipped_mb": round(unzipped[k] / 1e6, 2)} for k, v in zipped.most_common()
    }


def native_modules(zip_path: Path) -> list[str]:
    """The import name of every compiled extension in the package."""
    with zipfile.ZipFile(zip_path) as z:
        sos = [n for n in z.namelist() if n.endswith(".so")]
    return sorted(n.split(".", 1)[0].replace("/", ".") for n in sos)


def native_imports(task: Path, runtime: Path, modules: list[str]) -> dict:
    """Import every compiled extension in a fresh Python of the runtime's version: they load on this glibc; the
    package check has already made sure they need no more than Amazon Linux 2023's."""
    proc, _ = lambda_sim.run_timed(
        [lambda_sim.base_python(), "-S", "-c", IMPORT_ALL, json.dumps(modules)],
        cwd=task,
        env={"PYTHONPATH": f"{task}:{runtime}", "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        return {"failed": {"*": proc.stderr[-500:]}, "thin": None}
    return json.loads(proc.stdout)


def smoke(stage: str, zip_path: Path, runtime: Path) -> dict:
    with (
        tempfile.TemporaryDirectory(prefix=f"awrlens-{stage}-task-") as tmp,
        lambda_sim.read_only(lambda_sim.unpack(zip_path, Path(tmp) / "task")) as (task, read_only),
    ):
        modules = native_modules(zip_path)
        native = native_imports(task, runtime, modules)
        if stage == "demo":
            shown = [f"{p}?{q}" if q else p for p, q in DEMO_EVENTS]
            events = [api_event(p, q, stage=stage) for p, q in DEMO_EVENTS]
            expected = [200] * len(events)
        else:  # no Oracle and no Secrets Manager here: the open index, and the key refused before either
            shown = ["/api/v1/", "/api/v1/dbs (no key)"]
            events = [api_event("/api/v1/", stage=stage), api_event("/api/v1/dbs", stage=stage)]
            expected = [200, 401]
        answer = lambda_sim.invoke(task, runtime, events, function=f"awrlens-{stage}")
        statuses = [r["statusCode"] for r in answer["results"]]
        ok = statuses == expected and not native["failed"] and (stage == "demo" or native["thin"] is True)
        return {
            "events": shown,
            "statuses": statuses,
            "read_only_task": read_only,
            "native_modules": len(modules),
            "native_import_failures": native["failed"],
            "oracledb_thin": native["thin"],
            "ok": ok,
        }


def main():
    parser = harness.options(__doc__, store=None)
    parser.add_argument("--no-build", action="store_true", help="check the zips already in dist/")
    args = harness.parse(parser)
    results = {"stages": {}}
    if not args.no_build:  # the packaging venv (the runtime's boto3 comes from it) and the demo's store
        make = ["make", "--no-print-directory", ".venv-lambda/.installed", "build/demo.sqlite"]
        subprocess.run(make, cwd=ROOT, check=True)
    runtime = lambda_sim.runtime_sdk(ROOT / "dist" / "runtime-sdk")
    for stage in ("demo", "prod"):
        zip_path = ROOT / "dist" / f"awrlens-{stage}.zip"
        entry = {}
        if not args.no_build:
            started = time.monotonic()
            subprocess.run(["make", "--no-print-directory", "package", f"STAGE={stage}"], cwd=ROOT, check=True)
            entry["package_seconds"] = round(time.monotonic() - started, 1)
        report = lambda_package.check(zip_path, stage)
        entry.update(
            {
                "zipped_mb": round(report["zipped"] / 1e6, 2),
                "zipped_mib": round(report["zipped"] / 2**20, 2),
                "unzipped_mb": round(report["unzipped"] / 1e6, 2),
                "files": report["files"],
                "native_libraries": report["native_libraries"],
                "problems": report["problems"],
                "within_25_mb_target": report["within_target"],
                "parts": by_part(zip_path),
                "smoke": smoke(stage, zip_path, runtime),
            }
        )
        results["stages"][stage] = entry
        print(
            f"{stage}: {entry['zipped_mb']} MB zipped ({entry['zipped_mib']} MiB), {entry['unzipped_mb']} MB "
            f"unzipped, {entry['native_libraries']} native libraries, problems: {len(report['problems'])}, "
            f"smoke {'ok' if entry['smoke']['ok'] else 'FAILED'} {entry['smoke']['statuses']}"
        )
        for name, size in entry["parts"].items():
            print(f"    {name:55} {size['zipped_mb']:6.2f} MB zipped  {size['unzipped_mb']:6.2f} MB unzipped")
    harness.write("package", results, args)
    bad = [s for s, e in results["stages"].items() if e["problems"] or not e["smoke"]["ok"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
