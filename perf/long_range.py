"""A long range (BENCHMARKS.md, "A long range"): rows read and time for 400-day questions at max_points=2000.

On a 400-day demo store (built with --build: `flask --app app demo --days 400`, about 2 minutes and 2.6 GB), the
series and wait-class questions over the whole history of both databases, in-process (Flask test client, answer
cache off, snapshot list and catalog already read, as on a running server): rows fetched (counted at Store.rows),
statements, time (the median over --rounds of the median of --repeat answers), and answer bytes. With --before TREE,
the same questions answered by the code of another checkout (e.g. `git archive <commit> | tar -x -C /tmp/old`), each
side in its own process, the sides alternating.
Usage: .venv/bin/python perf/long_range.py [--store var/awrlens-400.sqlite] [--build] [--before TREE] [--rounds 3]
(--quick: one round of one answer each, on the store given, built with --days 400 or any other length)
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

DAYS = 400
QUESTIONS = [  # (label, path, query) asked of each database over its whole history
    (
        "series: AAS, redo, logons, host CPU metric",
        "/series",
        {"name": ["derived:aas", "sysstat:redo size", "sysstat:logons current", "sysmetric:Host CPU Utilization (%)"]},
    ),
    ("wait classes", "/wait-classes", {}),
]


def measure(tree: Path, store: Path, repeat: int, max_points: int) -> list[dict]:
    """Each question of each database, answered by the code of `tree` (imported in this process)."""
    sys.path.insert(0, str(tree))
    from app.store.base import Store

    counted = {"rows": 0, "statements": 0}
    rows = Store.rows

    def counting(self, stmt, params=None):
        out = rows(self, stmt, params)
        counted["rows"] += len(out)
        counted["statements"] += 1
        return out

    Store.rows = counting
    client = harness.app(store, snapshot_ttl=3600).test_client()
    out = []
    for db in client.get("/api/v1/dbs").get_json()["databases"]:
        whole = {"from": db["snapshots"]["from"], "to": db["snapshots"]["to"], "max_points": max_points}
        for label, path, query in QUESTIONS:
            url = f"/api/v1/dbs/{db['id']}{path}?" + urlencode({**whole, **query}, doseq=True)
            assert client.get(url).status_code == 200  # the catalog and the class totals' check, read once
            counted.update(rows=0, statements=0)
            body = client.get(url).data
            seen = dict(counted)
            times = harness.times_ms(lambda url=url: client.get(url), repeat, warmup=0)
            answer = json.loads(body)
            out.append(
                {
                    "db": db["db_name"],
                    "instances": len(db["instances"]),
                    "question": label,
                    "url": url,
                    "rows": seen["rows"],
                    "statements": seen["statements"],
                    "ms": harness.median(times),
                    "bytes": len(body),
                    "points": max(len(s["points"]) for s in answer["series"]),
                    "points_total": max(s["points_total"] for s in answer["series"]),
                }
            )
    return out


def main():
    parser = harness.options(__doc__, store=harness.ROOT / "var/awrlens-400.sqlite")
    parser.add_argument("--build", action="store_true", help=f"build the {DAYS}-day demo store first if missing")
    parser.add_argument("--before", help="a checkout of the code to measure first, for comparison")
    parser.add_argument("--repeat", type=int, default=5, help="answers timed per question and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the sides alternating")
    parser.add_argument("--max-points", type=int, default=2000)
    parser.add_argument("--tree", help=argparse.SUPPRESS)  # measure the code of this tree and print JSON
    if "--build" in sys.argv:  # before the options are checked: the store they name is made here
        store = parser.parse_known_args()[0].store.resolve()
        if not store.exists():
            flask = [str(harness.VENV_BIN / "flask"), "--app", "app", "demo", "--path", str(store)]
            subprocess.run([*flask, "--days", str(DAYS)], cwd=harness.ROOT, check=True)
    args = harness.parse(parser, quick={"repeat": 1, "rounds": 1})
    store = args.store
    if args.tree:
        print(json.dumps(measure(Path(args.tree), store, args.repeat, args.max_points)))
        return
    results = {"store": store.name, "max_points": args.max_points}
    sides = [(side, tree) for side, tree in (("before", args.before), ("after", str(harness.ROOT))) if tree]
    runs: dict = {side: [] for side, _ in sides}
    for _ in range(args.rounds):  # the sides alternate, each in its own process (the code of one tree imported)
        for side, tree in sides:
            run = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--tree",
                    str(Path(tree).resolve()),
                    "--store",
                    str(store),
                    "--repeat",
                    str(args.repeat),
                    "--max-points",
                    str(args.max_points),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            runs[side].append(json.loads(run.stdout.strip().splitlines()[-1]))
    for side, rounds in runs.items():  # each question's median time over the rounds
        results[side] = [{**r, "ms": statistics.median(x[k]["ms"] for x in rounds)} for k, r in enumerate(rounds[0])]
        print(
            "\n".join(
                f"{side:6} {r['db']:8} {r['question']:45} {r['rows']:>8,} rows in {r['statements']:>2} "
                f"statements, {r['ms']:7.1f} ms, {r['points']} of {r['points_total']} points, "
                f"{r['bytes']:,} bytes"
                for r in results[side]
            )
        )
    harness.write("long_range", results, args)


if __name__ == "__main__":
    main()
