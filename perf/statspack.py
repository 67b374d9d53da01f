"""Statspack's questions (BENCHMARKS.md, "Statspack"): the demo's BILLING (hourly Statspack snapshots) against ORCL
(30-minute AWR snapshots, the same workload model), over the last day and week: the overview's AAS by wait class, the
Load Profile, top events, top SQL, segments and the changes layer, each answer in process (answer cache off); and
each question's slowest statement run raw with sqlite3 (its text and binds as show_sql gives them): the floor.

Usage: .venv/bin/python perf/statspack.py [--store var/awrlens.sqlite] [--runs 7]
"""

import re
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

QUESTIONS = ("wait-classes", "load-profile", "top-events", "top-sql", "segments", "changes")
DAYS = (1, 7)
EXPANDING = re.compile(r"__\[POSTCOMPILE_(\w+)\]")


def floor_ms(store: Path, entry: dict, runs: int) -> float:
    """The statement run raw (sqlite3, read-only), its binds as the app bound them: the median of `runs`."""
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    sql, params = entry["sql"], dict(entry["params"])
    for name in set(re.findall(r"\(:(\w+)_1, :\w+_2, \.\.\.\)", sql)):  # an IN list as show_sql writes it
        values = params.pop(name)
        marks = ", ".join(f":{name}_{k}" for k in range(len(values)))
        sql = sql.replace(f"(:{name}_1, :{name}_2, ...)", f"({marks})")
        params.update({f"{name}_{k}": v for k, v in enumerate(values)})
    times = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        con.execute(sql, params).fetchall()
        times.append(time.perf_counter() - started)
    con.close()
    return harness.median([t * 1000 for t in times[1:]])


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
                shown = client.get(url + "&show_sql=1").get_json()["sql"]
                slowest = max(shown, key=lambda e: e["ms"])
                results.append(
                    {
                        "db": db,
                        "source": summary["source"],
                        "days": days,
                        "question": question,
                        "median_ms": harness.median(times),
                        "statements": len(shown),
                        "floor_ms": floor_ms(args.store, slowest, args.runs),
                    }
                )
    print(
        harness.table(
            ["database", "source", "days", "question", "answer ms", "statements", "its slowest statement raw, ms"],
            [
                [r["db"], r["source"], r["days"], r["question"], r["median_ms"], r["statements"], r["floor_ms"]]
                for r in results
            ],
        )
    )
    harness.write("statspack", {"results": results}, args)


if __name__ == "__main__":
    main()
