"""The series benchmark of BENCHMARKS.md: a 45-day, full-resolution series of both RACPROD instances.

Measures, on the demo store (`make bench` builds it if missing):
  1. the floor: the raw SQLite queries in-process (the counter fetch the API runs, and the LAG query that computes
     the same rates in SQL), against the API answering in-process (Flask test client), computing every time and
     from its answer cache; the API's answer is checked against the LAG query's;
  2. throughput, latency and worker memory under the production WSGI server (gunicorn) at 8 concurrent clients,
     with the answer cache off (every request computed) and on (the same link opened again and again);
  3. with --build, the time to build the 45-day demo store.
Usage: .venv/bin/python bench/series.py [--store var/awrlens.sqlite] [--seconds 15] [--clients 8] [--build]
"""
import argparse
import http.client
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app, demo, tune_gc  # noqa: E402
from app.settings import Settings  # noqa: E402

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
FETCH = ("select instance_number, snap_id, value from dba_hist_sysstat "
         "where dbid = ? and stat_id = ? and snap_id between ? and ?")


def timed(fn, repeat=100):
    """Mean milliseconds per call (a mean, so garbage collections are counted)."""
    fn()
    t = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t) / repeat * 1000


def series_url(first, name=STAT):
    return (f"/api/v1/dbs/demo.{DBID}/series?name={quote('sysstat:' + name)}&instance=each&max_points=0"
            f"&from={quote(first)}")


def floor_vs_api(store: Path) -> dict:
    tune_gc()  # as the server does (app/wsgi.py)
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    stat_id = con.execute("select stat_id from dba_hist_sysstat where dbid = ? and stat_name = ? limit 1",
                          (DBID, STAT)).fetchone()[0]
    client = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(store)}}, answer_cache_mb=0)).test_client()
    cached = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(store)}})).test_client()
    first = client.get(f"/api/v1/dbs/demo.{DBID}").get_json()["snapshots"]["from"]
    url = series_url(first)
    body = client.get(url).get_json()
    points = sum(len(s["points"]) for s in body["series"])
    # the same answer both ways: every valid LAG rate equals the API's point at that snapshot
    lag = [r for r in con.execute(LAG, (DBID, stat_id)) if r[3] and r[2] is not None and r[2] >= 0]
    assert len(lag) == points, (len(lag), points)
    api = sorted(v for s in body["series"] for _, v in s["points"])
    assert all(abs(a - b) <= 1e-3 * max(1, abs(b)) for a, b in zip(api, sorted(r[2] for r in lag)))
    return {"points": points,
            "raw_fetch_ms": timed(lambda: con.execute(FETCH, (DBID, stat_id, 0, 10**9)).fetchall()),
            "raw_lag_ms": timed(lambda: con.execute(LAG, (DBID, stat_id)).fetchall()),
            "api_in_process_ms": timed(lambda: client.get(url).data),
            "api_cached_ms": timed(lambda: cached.get(url).data),
            "url": url}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load(port, urls, clients, seconds):
    """`clients` threads, each with its own keep-alive connection, cycling through `urls` for `seconds`."""
    latencies, errors = [], []
    stop = time.monotonic() + seconds

    def worker(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        i = k
        while time.monotonic() < stop:
            t = time.perf_counter()
            try:
                conn.request("GET", urls[i % len(urls)])
                resp = conn.getresponse()
                resp.read()
                if resp.status != 200:
                    errors.append(resp.status)
                if resp.will_close:
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            except OSError as exc:
                errors.append(repr(exc))
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            latencies.append(time.perf_counter() - t)
            i += clients

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    latencies.sort()
    return {"requests": len(latencies), "req_per_s": round(len(latencies) / elapsed, 1), "errors": len(errors),
            "p50_ms": round(latencies[len(latencies) // 2] * 1000, 1),
            "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 1)}


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def throughput(store: Path, url: str, clients: int, seconds: float, workers: int, cache: bool) -> dict:
    """One gunicorn on a free port, `clients` clients asking `url` for `seconds`; with the answer cache off,
    every request is computed."""
    port = free_port()
    env = {**os.environ, "AWRLENS_STORE_PATH": str(store), "AWRLENS_ANSWER_CACHE_MB": "64" if cache else "0"}
    server = subprocess.Popen([str(ROOT / ".venv/bin/gunicorn"), "--bind", f"127.0.0.1:{port}", "--workers",
                               str(workers), "app.wsgi:app"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/api/v1/dbs")
                break
            except OSError:
                time.sleep(0.1)
        warm = load(port, [url], clients, 2)
        result = load(port, [url], clients, seconds)
        children = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()
        result["max_worker_rss_mb"] = round(max(rss_mb(int(p)) for p in children)) if children else None
    finally:
        server.terminate()
        server.wait(10)
    assert warm["errors"] == result["errors"] == 0
    return {"workers": workers, "clients": clients, "seconds": seconds, "answer_cache": cache, **result}


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
    parser.add_argument("--out", default=str(ROOT / "bench/results/series.json"))
    args = parser.parse_args()
    store = Path(args.store)
    results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    results["floor"] = floor_vs_api(store)
    f = results["floor"]
    print(f"45-day series, {f['points']} points: raw fetch {f['raw_fetch_ms']:.1f} ms, raw LAG query "
          f"{f['raw_lag_ms']:.1f} ms, API in-process {f['api_in_process_ms']:.1f} ms "
          f"({f['api_in_process_ms'] / f['raw_lag_ms']:.2f}x the LAG query), from memory {f['api_cached_ms']:.2f} ms")
    results["throughput"] = []
    for cache in (False, True):
        t = throughput(store, f["url"], args.clients, args.seconds, args.workers, cache)
        results["throughput"].append(t)
        print(f"gunicorn {t['workers']} workers, {t['clients']} clients, answer cache {'on' if cache else 'off'}: "
              f"{t['req_per_s']} req/s, p50 {t['p50_ms']} ms, p99 {t['p99_ms']} ms, errors {t['errors']}, "
              f"largest worker RSS {t['max_worker_rss_mb']} MB")
    if args.build:
        results["build"] = b = build_time()
        print(f"demo build, 45 days: {b['seconds']} s, {b['size_mb']} MB")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
