"""Statspack's questions (BENCHMARKS.md, "Statspack"): the demo's BILLING (hourly Statspack snapshots) against ORCL
(30-minute AWR snapshots, the same workload model), over the last day and week: the overview's AAS by wait class, the
Load Profile, top events, top SQL, segments and the changes layer, each answer in process (answer cache off); and
the floor, the time its statements took in the store (show_sql's own timing of each, summed).

Usage: .venv/bin/python perf/statspack.py [--store var/awrlens.sqlite] [--runs 7]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

QUESTIONS = ("wait-classes", "load-profile", "top-events", "top-sql", "segments", "changes")
DAYS = (1, 7)


def statements_ms(client, url: str, runs: int) -> tuple[float, int]:
    """The floor: the time the answer's statements took in the store (show_sql's `ms` of each, summed: the database's
    share of the answer, its rows fetched), the median of `runs`; and how many statements it ran."""
    sums, count = [], 0
    for _ in range(runs):
        shown = client.get(url + "&show_sql=1").get_json()["sql"]
        sums.append(sum(e["ms"] for e in shown))
        count = len(shown)
    return harness.median(sums), count


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = harness.parse(parser, quick={"runs": 1})
    client = harness.app(args.store).test_client()
    results = []
    for db in ("BILLING", "ORCL"):
        summary = client.get(f"/api/v1/dbs/{db}").get_json()
        snaps, per_day = summary["snapshots"], 1440 // summary["snapshots"]["interval_minutes"]
        for days in DAYS:
            begin = max(snaps["first_snap"], snaps["last_snap"] - days * per_day)
            for question in QUESTIONS:
                url = f"/api/v1/dbs/{db}/{question}?begin_snap={begin}&end_snap={snaps['last_snap']}"
                _, times = harness.asked(client, url, args.runs)
                floor, count = statements_ms(client, url, args.runs)
                results.append(
                    {
                        "db": db,
                        "source": summary["source"],
                        "days": days,
                        "question": question,
                        "median_ms": harness.median(times),
                        "statements": count,
                        "floor_ms": floor,
                    }
                )
    print(
        harness.table(
            ["database", "source", "days", "question", "answer ms", "statements", "its statements, ms"],
            [
                [r["db"], r["source"], r["days"], r["question"], r["median_ms"], r["statements"], r["floor_ms"]]
                for r in results
            ],
        )
    )
    harness.write("statspack", {"results": results}, args)


if __name__ == "__main__":
    main()
