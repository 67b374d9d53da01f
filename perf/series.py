"""The series and its floor (BENCHMARKS.md, "The series"): a 45-day, full-resolution series of both RACPROD
instances (about 4,300 points).

1. In process: the floor (the counter rows the API reads, read and written as JSON by the API's library, orjson),
   the LAG query that computes the same rates in SQL, and the API's answer (Flask test client, answer cache off; in
   pairs, in the page's shape=axes, and from its answer cache), the sides alternating over 5 rounds, the median of
   each side's means; the API's answer is checked against the LAG query's, point for point.
2. With --profile: where an in-process answer's time goes, each step timed by wrapping the function that does it.
3. Under gunicorn (3 workers), --clients keep-alive clients for --seconds: the answer cache off (every request
   computed) and on (the same link asked again and again).

Usage: .venv/bin/python perf/series.py [--store var/awrlens.sqlite] [--seconds 15] [--clients 8] [--profile]
"""

import sqlite3
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

DBID = 3120466125  # RACPROD
STAT = "redo size"
LAG = """
select v.instance_number, v.snap_id,
       (v.value - lag(v.value) over w)
       / ((julianday(s.end_interval_time) - julianday(lag(s.end_interval_time) over w)) * 86400) as per_second,
       s.startup_time = lag(s.startup_time) over w as same_startup
from dba_hist_sysstat v join dba_hist_snapshot s
  on s.dbid = v.dbid and s.instance_number = v.instance_number and s.snap_id = v.snap_id
where v.dbid = ? and v.stat_id = ?
window w as (partition by v.instance_number order by v.snap_id)"""
FETCH = (
    "select instance_number, snap_id, value from dba_hist_sysstat "
    "where dbid = ? and stat_id = ? and snap_id between ? and ?"
)


def stat_id(store: Path) -> int:
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    sql = "select stat_id from dba_hist_sysstat where dbid = ? and stat_name = ? limit 1"
    return con.execute(sql, (DBID, STAT)).fetchone()[0]


def floor_vs_api(store: Path, calls: int = 100, rounds: int = 5) -> dict:
    """The floor, the LAG query and the API in process: each side's mean over `calls`, the median over `rounds`,
    the sides alternating (one side is not measured in a quieter minute)."""
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    stat = stat_id(store)
    client = harness.app(store).test_client()
    cached = harness.app(store, answer_cache_mb=64).test_client()
    first = client.get(f"/api/v1/dbs/demo.{DBID}").get_json()["snapshots"]["from"]
    name = quote("sysstat:" + STAT)
    url = f"/api/v1/dbs/demo.{DBID}/series?name={name}&instance=each&max_points=0&from={quote(first)}"
    body = client.get(url).get_json()
    points = sum(len(s["points"]) for s in body["series"])
    # the same answer both ways: every valid LAG rate equals the API's point at that snapshot
    lag = [r for r in con.execute(LAG, (DBID, stat)) if r[3] and r[2] is not None and r[2] >= 0]
    assert len(lag) == points, (len(lag), points)
    api = sorted(v for s in body["series"] for _, v in s["points"])
    assert all(abs(a - b) <= 1e-3 * max(1, abs(b)) for a, b in zip(api, sorted(r[2] for r in lag), strict=True))
    sides = {
        "raw_fetch_ms": lambda: con.execute(FETCH, (DBID, stat, 0, 10**9)).fetchall(),
        "raw_fetch_json_ms": lambda: orjson.dumps(con.execute(FETCH, (DBID, stat, 0, 10**9)).fetchall()),
        "raw_lag_ms": lambda: con.execute(LAG, (DBID, stat)).fetchall(),
        "api_in_process_ms": lambda: client.get(url).data,
        "api_axes_in_process_ms": lambda: client.get(url + "&shape=axes").data,
        "api_cached_ms": lambda: cached.get(url).data,
    }
    means = {name: [] for name in sides}
    for _ in range(rounds):
        for name, fn in sides.items():
            means[name].append(statistics.fmean(harness.times_ms(fn, calls)))
    out = {"points": points, **{name: harness.median(m, 3) for name, m in means.items()}, "url": url}
    out["api_vs_read_and_json"] = round(out["api_in_process_ms"] / out["raw_fetch_json_ms"], 2)
    out["api_axes_vs_read_and_json"] = round(out["api_axes_in_process_ms"] / out["raw_fetch_json_ms"], 2)
    return out


def profile(store: Path, url: str, requests: int) -> dict:
    """Each step's mean milliseconds per request of the page's shape=axes (the rest of a request is Flask, the
    parameters and the test client)."""
    from app import analysis
    from app.api import history as api_history
    from app.history import series

    client = harness.app(store).test_client()
    url += "&shape=axes"
    steps = {
        "rows read (SQLite) and put in a dict per instance": (series.Fetcher, "_load"),
        "deltas and rates per second, in one pass": (analysis, "counter_rates"),
        "values rounded to four decimals": (series, "rounded"),
        "the series question in all (the three above and the rest)": (series, "compute"),
        "the answer shaped, written as JSON (orjson), its ETag": (api_history, "series_answer"),
    }
    spent = dict.fromkeys(steps, 0.0)
    originals = {label: getattr(owner, name) for label, (owner, name) in steps.items()}

    def timing(label):
        def step(*args, **kwargs):
            started = time.perf_counter()
            try:
                return originals[label](*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - started

        return step

    client.get(url)  # the warm-up, not timed
    for label, (owner, name) in steps.items():
        setattr(owner, name, timing(label))
    try:
        whole = harness.times_ms(lambda: client.get(url).get_data(), requests, warmup=0)
    finally:
        for label, (owner, name) in steps.items():
            setattr(owner, name, originals[label])
    out = {label: round(total / requests * 1000, 3) for label, total in spent.items()}
    out["the request in all (median)"] = harness.median(whole, 3)
    return out


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="also time each step of an in-process answer")
    args = harness.parse(parser, quick={"seconds": 2})
    calls, rounds, requests = (3, 1, 5) if args.quick else (100, 5, 300)
    results = {"floor": floor_vs_api(args.store, calls, rounds)}
    f = results["floor"]
    print(
        f"45-day series, {f['points']} points: the floor (rows read and written as JSON) {f['raw_fetch_json_ms']:.2f} "
        f"ms, the LAG query {f['raw_lag_ms']:.1f} ms; the API in process {f['api_in_process_ms']:.2f} ms "
        f"({f['api_vs_read_and_json']}x the floor), shape=axes {f['api_axes_in_process_ms']:.2f} ms "
        f"({f['api_axes_vs_read_and_json']}x), cached {f['api_cached_ms']:.2f} ms"
    )
    if args.profile:
        results["profile"] = steps = profile(args.store, f["url"], requests)
        print(harness.table(["step", "ms"], [[label, ms] for label, ms in steps.items()]))
    results["throughput"] = []
    for cache_mb in (0, 64):
        env = harness.server_env(args.store, cache_mb)
        run = harness.measure(
            harness.gunicorn(workers=args.workers), env, [f["url"]], args.clients, args.seconds, "/api/v1/dbs"
        )
        results["throughput"].append({"workers": args.workers, "answer_cache_mb": cache_mb, **run})
    print(
        harness.table(
            ["answer cache", "requests/s", "p50 ms", "p99 ms", "errors", "largest worker MB"],
            [
                [
                    f"{t['answer_cache_mb']} MB",
                    t["req_per_s"],
                    t["p50_ms"],
                    t["p99_ms"],
                    t["errors"],
                    t["largest_worker_rss_mb"],
                ]
                for t in results["throughput"]
            ],
        )
    )
    harness.write("series", results, args)


if __name__ == "__main__":
    main()
