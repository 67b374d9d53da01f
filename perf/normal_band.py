"""The normal band's cost (BENCHMARKS.md, "What is normal"): the overview of RACPROD's 45 days (every instance
combined), its API answers in process (answer cache off) as the page asks them, without the band and with it on the
three charts that draw one (docs/awr-rules.md §32); the median of --runs of the whole set; and the band's own series
(each chart's points over the range and the 4 weeks before, every point).

Usage: .venv/bin/python perf/normal_band.py [--store var/awrlens.sqlite] [--runs 7]
"""

import sys
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

DB = "RACPROD"
BANDED = (
    ("derived:host_cpu_pct", "derived:host_iowait_pct"),
    ("derived:iops", "derived:io_mbps"),
    ("derived:tps", "derived:executions"),
)
TARGET = 1.3  # issue 34: the band costs at most 30 % more than the overview without it


def overview(summary: dict, band: bool, max_points: int) -> list[str]:
    """The overview's requests for the range, as the page makes them."""
    times = f"from={quote(summary['snapshots']['from'])}&to={quote(summary['snapshots']['to'])}"
    rng, base = f"{times}&instance=all", f"/api/v1/dbs/{summary['id']}"
    urls = [f"{base}/wait-classes?{rng}&max_points={max_points}&shape=axes"]
    for names in BANDED:
        named = "&".join(f"name={n}" for n in names)
        urls.append(f"{base}/series?{named}&{rng}&max_points={max_points}&shape=axes" + ("&band=1" if band else ""))
    urls += [f"{base}/{q}?{rng}" for q in ("load-profile", "top-events")] + [f"{base}/top-sql?{times}"]
    return urls


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = harness.parse(parser, quick={"runs": 1})
    app = harness.app(args.store)
    client, max_points = app.test_client(), app.config["SETTINGS"].max_points
    summary = client.get(f"/api/v1/dbs/{DB}").get_json()
    results = {}
    for band in (False, True):
        urls = overview(summary, band, max_points)
        for url in urls:
            assert client.get(url).status_code == 200, url
        results["with" if band else "without"] = harness.median(
            harness.times_ms(lambda urls=urls: [client.get(u).data for u in urls], args.runs)
        )
    ratio = results["with"] / results["without"]
    print(
        harness.table(
            ["the overview of 45 days", "answers, ms"],
            [["without the band", results["without"]], ["with the band on its three charts", results["with"]]],
        )
    )
    print(f"ratio {ratio:.2f} (target at most {TARGET})")
    harness.write("normal_band", {"results": results, "ratio": round(ratio, 3), "target": TARGET}, args)


if __name__ == "__main__":
    main()
