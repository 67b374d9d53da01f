"""The range report (BENCHMARKS.md, "The range report"): server time and size of GET /report over the last day and
the last 45 days of RACPROD (both instances combined) and of ORCL, in process (Flask test client, answer cache off),
the median of --runs requests after a warm-up; the size of the HTML file and of its two SVG charts; and /top-sql over
the same range, one order (the report ranks top SQL by four).

Usage: .venv/bin/python perf/report.py [--store var/awrlens.sqlite] [--runs 7]
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

DAYS = (1, 45)


def charts(row: dict) -> str:
    return " + ".join(map(str, row["charts_kb"]))


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = harness.parse(parser, quick={"runs": 1})
    client = harness.app(args.store).test_client()
    results = []
    for db in ("RACPROD", "ORCL"):
        snaps = client.get(f"/api/v1/dbs/{db}").get_json()["snapshots"]
        for days in DAYS:
            begin = max(snaps["first_snap"], snaps["last_snap"] - days * 48)
            answer, times = harness.asked(client, f"/api/v1/dbs/{db}/report?begin_snap={begin}", args.runs)
            _, top_sql = harness.asked(client, f"/api/v1/dbs/{db}/top-sql?begin_snap={begin}", args.runs)
            svgs = re.findall(r'src="(data:image/svg\+xml;base64,[^"]+)"', answer.get_data(as_text=True))
            results.append(
                {
                    "db": db,
                    "days": days,
                    "median_ms": harness.median(times),
                    "kb": round(len(answer.data) / 1024, 1),
                    "charts_kb": [round(len(svg) / 1024, 1) for svg in svgs],
                    "top_sql_median_ms": harness.median(top_sql),
                }
            )
    print(
        harness.table(
            ["database", "days", "report ms", "KB", "its charts, KB", "/top-sql ms"],
            [[r["db"], r["days"], r["median_ms"], r["kb"], charts(r), r["top_sql_median_ms"]] for r in results],
        )
    )
    harness.write("report", {"results": results}, args)


if __name__ == "__main__":
    main()
