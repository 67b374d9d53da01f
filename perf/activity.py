"""The top activity benchmark of BENCHMARKS.md: server time of /activity over 1 day and 8 days of RACPROD's Active
Session History, grouped by sql_id and by event, answered in-process (Flask test client, answer cache off), median of
`--runs` requests after one warm-up. Targets: under 100 ms for a day, under 500 ms for 8 days.
Usage: .venv/bin/python perf/activity.py [--store var/awrlens.sqlite] [--runs 7]
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402

DB = "RACPROD"
TARGETS_MS = {1: 100, 8: 500}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default=str(ROOT / "var" / "awrlens.sqlite"))
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    app = create_app(Settings.from_env({"AWRLENS_ANSWER_CACHE_MB": "0"}, targets={"demo": {"sqlite": args.store}}))
    client = app.test_client()
    snaps = client.get(f"/api/v1/dbs/{DB}").get_json()["snapshots"]
    to = snaps["to"]
    results = []
    for days in TARGETS_MS:
        for group_by in ("sql_id", "event"):
            url = f"/api/v1/dbs/{DB}/activity?group_by={group_by}&begin_snap={snaps['last_snap'] - days * 48}"
            times = []
            for k in range(args.runs + 1):
                started = time.perf_counter()
                r = client.get(url)
                assert r.status_code == 200, r.get_data(as_text=True)[:300]
                if k:
                    times.append((time.perf_counter() - started) * 1000)
            body = r.get_json()
            results.append(
                {
                    "days": days,
                    "group_by": group_by,
                    "median_ms": round(statistics.median(times), 1),
                    "min_ms": round(min(times), 1),
                    "target_ms": TARGETS_MS[days],
                    "samples": body["total_samples"],
                    "bucket_seconds": body["bucket_seconds"],
                }
            )
    print(json.dumps({"store": args.store, "to": to, "results": results}, indent=1))


if __name__ == "__main__":
    main()
