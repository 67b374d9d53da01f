"""The report benchmark of BENCHMARKS.md (issue 14): server time and size of GET /report over the last day and the
last 45 days of RACPROD (both instances combined) and of ORCL, answered in-process (Flask test client, answer cache
off), median of `--runs` requests after one warm-up; the size of the HTML file and of its two SVG charts; and /top-sql
over the same range, as the report asks for top SQL four times (elapsed, CPU, gets, reads).
Usage: .venv/bin/python perf/report.py [--store /tmp/report45.sqlite] [--runs 5]
"""

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from perf.common import timed  # noqa: E402

DAYS = (1, 45)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default=str(ROOT / "var" / "awrlens.sqlite"))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    app = create_app(Settings.from_env({"AWRLENS_ANSWER_CACHE_MB": "0"}, targets={"demo": {"sqlite": args.store}}))
    client = app.test_client()
    results = []
    for db in ("RACPROD", "ORCL"):
        snaps = client.get(f"/api/v1/dbs/{db}").get_json()["snapshots"]
        for days in DAYS:
            begin = max(snaps['first_snap'], snaps['last_snap'] - days * 48)
            r, times = timed(client, f"/api/v1/dbs/{db}/report?begin_snap={begin}", args.runs)
            _, top_sql = timed(client, f"/api/v1/dbs/{db}/top-sql?begin_snap={begin}", args.runs)
            text = r.get_data(as_text=True)
            charts = [len(m) for m in re.findall(r'src="(data:image/svg\+xml;base64,[^"]+)"', text)]
            results.append(
                {
                    "db": db,
                    "days": days,
                    "median_ms": round(statistics.median(times), 1),
                    "min_ms": round(min(times), 1),
                    "kb": round(len(r.data) / 1024, 1),
                    "top_sql_median_ms": round(statistics.median(top_sql), 1),
                    "charts_kb": [round(c / 1024, 1) for c in charts],
                }
            )
    print(json.dumps({"store": args.store, "results": results}, indent=1))


if __name__ == "__main__":
    main()
