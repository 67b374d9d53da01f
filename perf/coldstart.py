"""Lambda cold start (BENCHMARKS.md, "The Lambda package and cold start"): a fresh process importing Zappa's handler
and answering one real event, awrlens (the demo package) against a minimal Zappa Flask app packaged the same way on
the same machine.

Usage: .venv/bin/python perf/coldstart.py [--runs 20]   (builds dist/awrlens-demo.zip first if missing)

Each package is unpacked as Lambda unpacks it (files dated 1980-01-01, as Zappa writes them; bytecode cannot be
written), with the runtime's boto3 beside it (perf/lambda_sim.py). One run = one new CPython 3.12 process (the
python3.12 runtime's) that imports handler.py and answers one API Gateway REST event: awrlens GET /api/v1/dbs (the
app built, the SQLite store opened and read), the minimal app GET /hello (a JSON dict). The runs alternate between
the packages; wall time and CPU time (user + system) of each process are recorded, medians compared. A third
package, awrlens as `zappa package` writes it (the .pyc files pip wrote, stale against the 1980 dates), shows what
finish() in infra/lambda_package.py buys. Results: perf/results/coldstart.json.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from infra import lambda_package
from perf import harness, lambda_sim
from perf.harness import ROOT
from tests.apigw import api_event

HELLO = '''from flask import Flask, jsonify

app = Flask(__name__)


@app.get("/hello")
def hello():
    return jsonify(hello="world")
'''


# finish() compiles with the runtime's Python: the packaging venv's
FINISH = "import sys; from infra.lambda_package import finish; finish(sys.argv[1])"


def zappa_package(project: Path, stage: str, output: Path):
    env = harness.server_env(VIRTUAL_ENV=ROOT / ".venv-lambda", PYTHONWARNINGS="ignore", AWS_DEFAULT_REGION="eu-west-1")
    subprocess.run(
        [str(ROOT / ".venv-lambda/bin/python"), "-m", "zappa.cli", "package", stage, "-o", str(output)],
        cwd=project,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def minimal_app(workdir: Path) -> Path:
    """hello.py packaged by Zappa from the same packaging venv, same runtime and excludes, then finished alike."""
    project = workdir / "hello"
    project.mkdir()
    (project / "hello.py").write_text(HELLO)
    demo = lambda_package.stage_settings("demo")
    settings = {
        "baseline": {
            k: demo[k]
            for k in (
                "runtime",
                "architecture",
                "aws_region",
                "use_precompiled_packages",
                "debug",
                "log_level",
                "binary_support",
                "exclude",
            )
        }
    }
    settings["baseline"].update(project_name="hello", app_function="hello.app", s3_bucket="hello-code")
    (project / "zappa_settings.json").write_text(json.dumps(settings))
    output = workdir / "hello.zip"
    zappa_package(project, "baseline", output)
    subprocess.run([str(ROOT / ".venv-lambda/bin/python"), "-c", FINISH, str(output)], cwd=ROOT, check=True)
    return output


def as_zappa_writes_it(workdir: Path) -> Path:
    output = workdir / "awrlens-demo-unfinished.zip"
    zappa_package(ROOT, "demo", output)
    return output


def main():
    parser = harness.options(__doc__, store=None)
    parser.add_argument("--runs", type=int, default=20, help="cold starts per package (after 2 to warm the disk)")
    args = harness.parse(parser, quick={"runs": 1})
    demo_zip = ROOT / "dist" / "awrlens-demo.zip"
    if not demo_zip.exists():
        subprocess.run(["make", "--no-print-directory", "package", "STAGE=demo"], cwd=ROOT, check=True)
    runtime = lambda_sim.runtime_sdk(ROOT / "dist" / "runtime-sdk")
    with tempfile.TemporaryDirectory(prefix="awrlens-coldstart-") as tmp:
        tmp = Path(tmp)
        packages = {
            "awrlens": (demo_zip, api_event("/api/v1/dbs"), "awrlens-demo"),
            "minimal Flask app": (minimal_app(tmp), api_event("/hello"), "hello-baseline"),
            "awrlens, zip as zappa writes it": (as_zappa_writes_it(tmp), api_event("/api/v1/dbs"), "awrlens-demo"),
        }
        tasks = {name: lambda_sim.unpack(z, tmp / f"task-{i}") for i, (name, (z, _, _)) in enumerate(packages.items())}
        runs = {name: [] for name in packages}
        for round_ in range(args.runs + 2):
            for name, (_, event, function) in packages.items():
                answer = lambda_sim.invoke(tasks[name], runtime, [event], function=function)
                status = answer["results"][0]["statusCode"]
                if status != 200:
                    raise SystemExit(f"{name}: {status}")
                if round_ >= 2:
                    runs[name].append(answer)
    packages = {
        name: {
            "wall_ms": {
                "median": harness.median([a["wall"] * 1000 for a in answers]),
                "p90": harness.percentile_ms([a["wall"] for a in answers], 0.9),
            },
            "cpu_ms": {"median": harness.median([a["cpu"] * 1000 for a in answers])},
            "import_handler_ms": harness.median([a["import"] * 1000 for a in answers]),
            "first_event_ms": harness.median([a["events"] * 1000 for a in answers]),
        }
        for name, answers in runs.items()
    }
    ours, base = packages["awrlens"], packages["minimal Flask app"]
    ratio = {
        "wall": round(ours["wall_ms"]["median"] / base["wall_ms"]["median"], 2),
        "cpu": round(ours["cpu_ms"]["median"] / base["cpu_ms"]["median"], 2),
    }
    print(
        harness.table(
            ["package", "wall ms (p90)", "CPU ms", "import handler ms", "first event ms"],
            [
                [
                    name,
                    f"{r['wall_ms']['median']:.0f} ({r['wall_ms']['p90']:.0f})",
                    f"{r['cpu_ms']['median']:.0f}",
                    f"{r['import_handler_ms']:.0f}",
                    f"{r['first_event_ms']:.0f}",
                ]
                for name, r in packages.items()
            ],
        )
    )
    print(f"ratio awrlens / minimal: wall {ratio['wall']}x, cpu {ratio['cpu']}x (target <= 1.15x)")
    harness.write("coldstart", {"runs": args.runs, "packages": packages, "ratio": ratio}, args)


if __name__ == "__main__":
    main()
