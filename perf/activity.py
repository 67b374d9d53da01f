"""Top activity (BENCHMARKS.md, "Top activity"): server time of RACPROD's Active Session History questions, in
process (Flask test client, answer cache off), the median of --runs requests after a warm-up.

1. The targets: /activity over the last day and the last 8 days, grouped by sql_id and by event (under 100 ms a
   day, under 500 ms 8 days); and windows off the snapshots' grid, read by sample time: an hour (under 100 ms) and 8
   days (under 300 ms), by wait class, by sql_id, and the top lists.
2. Digging (issue 31): the wait-chain tree of a day, the blocking chain's (under 300 ms), ashtop's table of an hour
   by sql_id,event (under 100 ms) and of 8 days by sql_id (under 300 ms) and by sql_id,event (under 500 ms), windows
   off the grid.
3. Live (docs/awr-rules.md §30): a refresh of the live view, its four answers over the live buffer's last 15
   minutes (under 100 ms together), beside the floor: the window's samples counted by one raw query.
4. The top lists (/activity/top), filtered /activity and a statement's plan lines over a day and over 8 days, each
   asked of the same store three ways (docs/awr-rules.md §22): as the embedded store answers them (the top lists'
   counts per block and its coded samples), from its coded samples alone, and from the view's samples in a
   statement per list, as on Oracle (the store's flags turned off). Every way must give the same bytes.

Usage: .venv/bin/python perf/activity.py [--store var/awrlens.sqlite] [--runs 7]
"""

import sys
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

DB = "RACPROD"
TARGETS_MS = {1: 100, 8: 500}  # days: the target for /activity
WAYS = {  # the store's flags for each way
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
    ("/activity/top", "service={service}"),
    ("/activity", "group_by=event&sql_id={sql_id}"),
    ("/activity", "group_by=module&user=107"),
    ("/activity", "group_by=session"),
    ("/sql/{sql_id}/plans", ""),
)


def targets(client, last: int, runs: int) -> list[dict]:
    out = []
    for days, target in TARGETS_MS.items():
        for group_by in ("sql_id", "event"):
            url = f"/api/v1/dbs/{DB}/activity?group_by={group_by}&begin_snap={last - days * 48}"
            answer, times = harness.asked(client, url, runs)
            body = answer.get_json()
            out.append(
                {
                    "days": days,
                    "group_by": group_by,
                    "median_ms": harness.median(times),
                    "target_ms": target,
                    "samples": body["total_samples"],
                    "bucket_seconds": body["bucket_seconds"],
                }
            )
    return out


WINDOW_TARGETS_MS = {1: 100, 8 * 24: 300}  # hours of a window off the snapshots' grid: its target (issue 31)


def windows(client, runs: int) -> list[dict]:
    """Windows by sample time (docs/awr-rules.md §22): an hour and 8 days ending at 15:07 of the last day, off the
    half-hour snapshots, /activity by wait class and by sql_id and /activity/top."""
    newest = client.get(f"/api/v1/dbs/{DB}").get_json()["snapshots"]["to"]
    end = datetime.fromisoformat(newest).replace(hour=15, minute=7) - timedelta(days=1)
    out = []
    for hours, target in WINDOW_TARGETS_MS.items():
        start = end - timedelta(hours=hours)
        window = f"from={quote(start.isoformat())}&to={quote(end.isoformat())}"
        for path, query in (
            ("/activity", "group_by=wait_class"),
            ("/activity", "group_by=sql_id"),
            ("/activity/top", ""),
        ):
            answer, times = harness.asked(client, f"/api/v1/dbs/{DB}{path}?{window}&{query}", runs)
            body = answer.get_json()
            out.append(
                {
                    "hours": hours,
                    "question": f"{path} {query}".strip(),
                    "median_ms": harness.median(times),
                    "target_ms": target,
                    "samples": body["total_samples"],
                }
            )
    return out


DIGGING = (  # (question, hours of the window ending at 15:07, days before the last day, its target ms: issue 31)
    ("/activity/chains", 24, 4, 300),  # the day of the demo's blocking chain (14:05-14:50, 4 days before)
    ("/activity/groups?group_by=sql_id,event", 1, 1, 100),
    ("/activity/groups?group_by=sql_id", 8 * 24, 1, 300),
    ("/activity/groups?group_by=sql_id,event", 8 * 24, 1, 500),
)


def digging(client, runs: int) -> list[dict]:
    """The wait-chain tree of a day and ashtop's table (docs/awr-rules.md §22) of windows off the snapshots' grid."""
    newest = datetime.fromisoformat(client.get(f"/api/v1/dbs/{DB}").get_json()["snapshots"]["to"])
    out = []
    for question, hours, days_back, target in DIGGING:
        end = newest.replace(hour=15, minute=7) - timedelta(days=days_back)
        window = f"from={quote((end - timedelta(hours=hours)).isoformat())}&to={quote(end.isoformat())}"
        joiner = "&" if "?" in question else "?"
        answer, times = harness.asked(client, f"/api/v1/dbs/{DB}{question}{joiner}{window}", runs)
        body = answer.get_json()
        samples = body.get("total_samples", body.get("blocked_samples"))
        out.append(
            {
                "hours": hours,
                "question": question,
                "median_ms": harness.median(times),
                "target_ms": target,
                "samples": samples,
            }
        )
    return out


LIVE = (  # a refresh of the live view (docs/awr-rules.md §30): its four answers over the last 15 minutes
    "/activity?group_by=wait_class",
    "/activity/top",
    "/activity/groups?group_by=sql_id,event",
    "/activity/chains",
)
LIVE_TARGET_MS = 100  # a whole refresh


def live(client, store: Path, runs: int) -> list[dict]:
    """A live refresh's four answers over the live buffer's last 15 minutes, each with its median, and the floor: the
    window's samples counted by one raw query on the store (sqlite3)."""
    import sqlite3
    import time

    out = []
    for question in LIVE:
        joiner = "&" if "?" in question else "?"
        answer, times = harness.asked(client, f"/api/v1/dbs/{DB}{question}{joiner}ash=live&minutes=15", runs)
        body = answer.get_json()
        out.append(
            {
                "question": question,
                "median_ms": harness.median(times),
                "samples": body.get("total_samples", body.get("blocked_samples")),
            }
        )
    body = client.get(f"/api/v1/dbs/{DB}/activity?ash=live&minutes=15").get_json()
    dbid = client.get(f"/api/v1/dbs/{DB}").get_json()["dbid"]
    w0, w1 = (datetime.fromisoformat(body["range"][k]).replace(tzinfo=None).isoformat(sep=" ") for k in ("from", "to"))
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        con.execute(
            'SELECT count(*) FROM "gv$active_session_history" WHERE dbid = ? AND sample_time > ? AND sample_time <= ?',
            (dbid, w0, w1),
        ).fetchone()
        times.append(1000 * (time.perf_counter() - started))
    con.close()
    out.append(
        {
            "question": "floor: the window's samples counted (raw query)",
            "median_ms": harness.median(times),
            "samples": body["total_samples"],
        }
    )
    return out


def ways(store: Path, last: int, runs: int, days: tuple) -> list[dict]:
    """Each question over each of `days`, asked the three WAYS: their medians, the answers checked equal."""
    clients = {}
    for name, flags in WAYS.items():
        app = harness.app(store, call_timeout=60)  # the view's way over 8 days is seconds (not a 504)
        for flag, value in flags.items():
            setattr(app.extensions["awrlens"].stores["demo"], flag, value)
        clients[name] = app.test_client()
    store_client = clients["the store"]
    week = f"begin_snap={last - 8 * 48}"
    top = store_client.get(f"/api/v1/dbs/{DB}/activity/top?{week}").get_json()
    sql_id = next(r["name"] for r in top["lists"]["sql_id"] if r["name"])
    services = store_client.get(f"/api/v1/dbs/{DB}/activity?group_by=service&{week}").get_json()
    service = services["series"][0]["name"]  # the service most samples hold
    out = []
    for span in days:
        for path, query in QUESTIONS:
            asked = f"begin_snap={last - span * 48}&{query.format(sql_id=sql_id, service=service)}"
            url = f"/api/v1/dbs/{DB}{path.format(sql_id=sql_id)}?{asked}"
            row, bodies = {"days": span, "question": f"{path} {query}".strip()}, set()
            for name, client in clients.items():
                answer, times = harness.asked(client, url, runs)
                bodies.add(answer.data)
                row[name] = harness.median(times)
            assert len(bodies) == 1, url  # the same answer every way
            out.append(row)
    return out


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = harness.parse(parser, quick={"runs": 1})
    client = harness.app(args.store).test_client()
    last = client.get(f"/api/v1/dbs/{DB}").get_json()["snapshots"]["last_snap"]
    days = (1,) if args.quick else tuple(TARGETS_MS)  # --quick: the three ways over a day only
    results = {"targets": targets(client, last, args.runs), "windows": windows(client, args.runs)}
    results["digging"] = digging(client, args.runs)
    results["live"] = live(client, args.store, args.runs)
    results["ways"] = ways(args.store, last, max(args.runs // 2, 1), days)
    print(
        harness.table(
            ["days", "group_by", "samples", "median ms", "target ms"],
            [[r["days"], r["group_by"], r["samples"], r["median_ms"], r["target_ms"]] for r in results["targets"]],
        )
        + "\n"
    )
    print(
        harness.table(
            ["hours", "question", "samples", "median ms", "target ms"],
            [
                [r["hours"], f"`{r['question']}`", r["samples"], r["median_ms"], r["target_ms"]]
                for r in results["windows"]
            ],
        )
        + "\n"
    )
    print(
        harness.table(
            ["hours", "question", "samples", "median ms", "target ms"],
            [
                [r["hours"], f"`{r['question']}`", r["samples"], r["median_ms"], r["target_ms"]]
                for r in results["digging"]
            ],
        )
        + "\n"
    )
    refresh = sum(r["median_ms"] for r in results["live"][: len(LIVE)])
    print(
        harness.table(
            ["live (the last 15 minutes)", "samples", "median ms"],
            [[f"`{r['question']}`", r["samples"], r["median_ms"]] for r in results["live"]]
            + [["a refresh: the four answers", "", round(refresh, 1)]],
        )
        + f"\n\ntarget: a refresh within {LIVE_TARGET_MS} ms\n"
    )
    print(
        harness.table(
            ["days", "question", *WAYS],
            [[r["days"], f"`{r['question']}`", *(r[w] for w in WAYS)] for r in results["ways"]],
        )
    )
    harness.write("activity", results, args)


if __name__ == "__main__":
    main()
