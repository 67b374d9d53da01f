"""The series benchmark of BENCHMARKS.md: a 45-day, full-resolution series of both RACPROD instances.

Measures, on the demo store (`make perf` builds it if missing):
  1. the floor: the raw SQLite queries in-process (the counter fetch the API runs, that fetch with its rows written
     as JSON by the library the API uses (orjson), and the LAG query that computes the same rates in SQL), against
     the API answering in-process (Flask test client), computing every time (pairs and the page's `shape=axes`) and
     from its answer cache; the API's answer is checked against the LAG query's;
  2. throughput, latency and worker memory under the production WSGI server (gunicorn) at 8 concurrent clients,
     with the answer cache off (every request computed) and on (the same link opened again and again);
  3. with --build, the time to build the 45-day demo store; with --profile, where an in-process answer's time goes.
Usage: .venv/bin/python perf/series.py [--store var/awrlens.sqlite] [--seconds 15] [--clients 8] [--build]
       [--profile]
"""

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app, demo, tune_gc  # noqa: E402
from app.settings import Settings  # noqa: E402
from perf.common import VENV_BIN, measure  # noqa: E402

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


def timed(fn, repeat=100):
    """Mean milliseconds per call (a mean, so garbage collections are counted)."""
    fn()
    t = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t) / repeat * 1000


def series_url(first, name=STAT):
    return (
        f"/api/v1/dbs/demo.{DBID}/series?name={quote('sysstat:' + name)}&instance=each&max_points=0&from={quote(first)}"
    )


def floor_vs_api(store: Path) -> dict:
    tune_gc()  # as the server does (app/wsgi.py)
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    stat_id = con.execute(
        "select stat_id from dba_hist_sysstat where dbid = ? and stat_name = ? limit 1", (DBID, STAT)
    ).fetchone()[0]
    client = create_app(
        Settings.from_env({}, targets={"demo": {"sqlite": str(store)}}, answer_cache_mb=0)
    ).test_client()
    cached = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(store)}})).test_client()
    first = client.get(f"/api/v1/dbs/demo.{DBID}").get_json()["snapshots"]["from"]
    url = series_url(first)
    body = client.get(url).get_json()
    points = sum(len(s["points"]) for s in body["series"])
    # the same answer both ways: every valid LAG rate equals the API's point at that snapshot
    lag = [r for r in con.execute(LAG, (DBID, stat_id)) if r[3] and r[2] is not None and r[2] >= 0]
    assert len(lag) == points, (len(lag), points)
    api = sorted(v for s in body["series"] for _, v in s["points"])
    assert all(abs(a - b) <= 1e-3 * max(1, abs(b)) for a, b in zip(api, sorted(r[2] for r in lag), strict=True))
    sides = {
        "raw_fetch_ms": lambda: con.execute(FETCH, (DBID, stat_id, 0, 10**9)).fetchall(),
        "raw_fetch_json_ms": lambda: orjson.dumps(con.execute(FETCH, (DBID, stat_id, 0, 10**9)).fetchall()),
        "raw_lag_ms": lambda: con.execute(LAG, (DBID, stat_id)).fetchall(),
        "api_in_process_ms": lambda: client.get(url).data,
        "api_axes_in_process_ms": lambda: client.get(url + "&shape=axes").data,
        "api_cached_ms": lambda: cached.get(url).data,
    }
    rounds = {name: [] for name in sides}
    for _ in range(5):  # the sides alternating, the median of 5 rounds: one side is not measured in a quieter minute
        for name, fn in sides.items():
            rounds[name].append(timed(fn))
    out = {"points": points, **{name: round(statistics.median(r), 3) for name, r in rounds.items()}, "url": url}
    out["api_vs_read_and_json"] = round(out["api_in_process_ms"] / out["raw_fetch_json_ms"], 2)
    out["api_axes_vs_read_and_json"] = round(out["api_axes_in_process_ms"] / out["raw_fetch_json_ms"], 2)
    return out


def profile(store: Path, url: str, requests: int = 300) -> dict:
    """Where an in-process answer's time goes: each step's mean milliseconds per request, timed by wrapping the
    functions that do it (the rest of a request is Flask, the parameters and the test client)."""
    from app import analysis
    from app.api import history as api_history
    from app.history import series

    client = create_app(
        Settings.from_env({}, targets={"demo": {"sqlite": str(store)}}, answer_cache_mb=0)
    ).test_client()
    url += "&shape=axes"
    client.get(url)
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
            t = time.perf_counter()
            try:
                return originals[label](*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - t

        return step

    for label, (owner, name) in steps.items():
        setattr(owner, name, timing(label))
    whole = []
    try:
        for _ in range(requests):
            t = time.perf_counter()
            client.get(url).get_data()
            whole.append(time.perf_counter() - t)
    finally:
        for label, (owner, name) in steps.items():
            setattr(owner, name, originals[label])
    out = {label: round(total / requests * 1000, 3) for label, total in spent.items()}
    out["the request in all (median)"] = round(statistics.median(whole) * 1000, 3)
    return out


def throughput(store: Path, url: str, clients: int, seconds: float, workers: int, cache: bool) -> dict:
    """gunicorn with `workers` workers under `clients` clients asking `url`; with the answer cache off, every
    request is computed."""
    env = {**os.environ, "AWRLENS_STORE_PATH": str(store), "AWRLENS_ANSWER_CACHE_MB": "64" if cache else "0"}
    argv = [str(VENV_BIN / "gunicorn"), "--bind", "127.0.0.1:{port}", "--workers", str(workers), "app.wsgi:app"]
    return {
        "workers": workers,
        "answer_cache": cache,
        **measure(argv, env, [url], clients, seconds, ready_path="/api/v1/dbs"),
    }


def build_time() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        demo.build(Path(tmp) / "demo.sqlite", days=45)
        elapsed = time.perf_counter() - t
        size = (Path(tmp) / "demo.sqlite").stat().st_size / 1048576
    return {"days": 45, "seconds": round(elapsed, 1), "size_mb": round(size)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=str(ROOT / "var/awrlens.sqlite"))
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--build", action="store_true", help="also time a 45-day demo build")
    parser.add_argument("--profile", action="store_true", help="also time each step of an in-process answer")
    parser.add_argument("--out", default=str(ROOT / "perf/results/series.json"))
    args = parser.parse_args()
    store = Path(args.store)
    results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    results["floor"] = floor_vs_api(store)
    f = results["floor"]
    print(
        f"45-day series, {f['points']} points: raw fetch {f['raw_fetch_ms']:.2f} ms, with its rows as JSON "
        f"{f['raw_fetch_json_ms']:.2f} ms, raw LAG query {f['raw_lag_ms']:.1f} ms; API in-process "
        f"{f['api_in_process_ms']:.2f} ms ({f['api_vs_read_and_json']}x the read and JSON), shape=axes "
        f"{f['api_axes_in_process_ms']:.2f} ms ({f['api_axes_vs_read_and_json']}x), from memory "
        f"{f['api_cached_ms']:.2f} ms"
    )
    if args.profile:
        results["profile"] = p = profile(store, f["url"])
        for label, ms in p.items():
            print(f"  {ms:7.3f} ms  {label}")
    results["throughput"] = []
    for cache in (False, True):
        t = throughput(store, f["url"], args.clients, args.seconds, args.workers, cache)
        results["throughput"].append(t)
        print(
            f"gunicorn {t['workers']} workers, {t['clients']} clients, answer cache {'on' if cache else 'off'}: "
            f"{t['req_per_s']} req/s, p50 {t['p50_ms']} ms, p99 {t['p99_ms']} ms, errors {t['errors']}, "
            f"largest worker RSS {t['largest_worker_rss_mb']} MB"
        )
    if args.build:
        results["build"] = b = build_time()
        print(f"demo build, 45 days: {b['seconds']} s, {b['size_mb']} MB")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
