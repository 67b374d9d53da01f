"""The top activity benchmark of BENCHMARKS.md: server time of /activity over 1 day and 8 days of RACPROD's Active
Session History, grouped by sql_id and by event, answered in-process (Flask test client, answer cache off), median of
`--runs` requests after one warm-up. Targets: under 100 ms for a day, under 500 ms for 8 days.

Then the top lists (/activity/top), filtered /activity and a statement's plan lines over a day and over the 8 days,
each asked of the same store three ways (docs/awr-rules.md §22): as the embedded store answers them (the top lists'
counts per block, embedded.ash.ASH_TOP, and its coded samples), from its coded samples alone, and from the view's
samples in a statement per list, as on Oracle (the store's flags turned off). Every way gives the same answer (checked).
Usage: .venv/bin/python perf/activity.py [--store var/awrlens.sqlite] [--runs 7]
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from perf.common import timed  # noqa: E402

DB = "RACPROD"
TARGETS_MS = {1: 100, 8: 500}
WAYS = {
    "the store": {},
    "coded samples only": {"ash_top": False},
    "the view (as Oracle)": {"ash_top": False, "ash_coded": False},
}
QUESTIONS = (  # (path, query) over RACPROD; {sql_id} is its top statement of the 8 days, {service} its top service
    ("/activity/top", ""),
    ("/activity/top", "instance=2"),
    ("/activity/top", "module=reporting"),
    ("/activity/top", "wait_class=CPU&instance=2"),
    ("/activity/top", "program=JDBC+Thin+Client"),
    ("/activity/top", "sql_id={sql_id}"),
    ("/activity", "group_by=event&sql_id={sql_id}"),
    ("/activity", "group_by=module&user=107"),
    ("/activity", "group_by=session"),
    ("/activity/top", "service={service}"),
    ("/sql/{sql_id}/plans", ""),
)


def ways(store: str, runs: int, snaps: dict) -> list:
    """Each question over a day and over 8 days, asked the three WAYS: their medians, the answers checked equal."""
    clients = {}
    for name, flags in WAYS.items():
        app = create_app(Settings.from_env({"AWRLENS_ANSWER_CACHE_MB": "0"}, targets={"demo": {"sqlite": store}}))
        for flag, value in flags.items():
            setattr(app.extensions["awrlens"].stores["demo"], flag, value)
        clients[name] = app.test_client()
    last = snaps["last_snap"]
    top = clients["the store"].get(f"/api/v1/dbs/{DB}/activity/top?begin_snap={last - 8 * 48}").get_json()
    sql_id = next(r["name"] for r in top["lists"]["sql_id"] if r["name"])
    services = clients["the store"].get(f"/api/v1/dbs/{DB}/activity?group_by=service&begin_snap={last - 8 * 48}")
    service = services.get_json()["series"][0]["name"]  # the service most samples hold
    out = []
    for days in (1, 8):
        for path, query in QUESTIONS:
            asked = f"begin_snap={last - days * 48}&{query.format(sql_id=sql_id, service=service)}"
            url = f"/api/v1/dbs/{DB}{path.format(sql_id=sql_id)}?{asked}"
            row, bodies = {"days": days, "question": f"{path} {query}".strip()}, []
            for name, client in clients.items():
                r, times = timed(client, url, runs)
                bodies.append(r.data)
                row[name] = round(statistics.median(times), 1)
            assert len(set(bodies)) == 1, url  # the same answer every way
            print(row, file=sys.stderr)
            out.append(row)
    return out


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
            r, times = timed(client, url, args.runs)
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
    compared = ways(args.store, max(args.runs // 2, 2), snaps)
    print(json.dumps({"store": args.store, "to": to, "results": results, "ways": compared}, indent=1))


if __name__ == "__main__":
    main()
