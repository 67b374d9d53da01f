"""Load: N concurrent clients for T seconds on the main endpoints, under gunicorn (the production WSGI server).

Every request is a different question drawn (seeded) from what the demo store holds: both databases; ranges of an
hour to the whole history, by time or by snapshot ids; one to four series from the catalog; instance all, each or
one; every rate, order and limit; one statement's history; two periods compared; CSV now and then. The clients are
Python threads with keep-alive connections, on the same machine as the server. Every answer must be a 200: any
other status or a failed connection is an error, and the run fails if there is one. Every worker's memory is sampled
every half second: RSS, split into private memory and file-backed pages (the memory-mapped SQLite file), and PSS.

Usage: .venv/bin/python perf/load.py [--clients 8] [--seconds 30] [--workers 3] [--answer-cache-mb 64]
                                      [--store var/awrlens.sqlite] [--seed 1]
Results: perf/results/load.json (per endpoint: requests, p50, p99, max); a Markdown table on stdout.
"""

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perf.common import VENV_BIN, serving  # noqa: E402

ENDPOINTS = (
    "dbs",
    "catalog",
    "series",
    "wait-classes",
    "load-profile",
    "top-events",
    "top-sql",
    "sql",
    "tablespaces",
    "compare",
)
SPANS = [
    timedelta(hours=1),
    timedelta(hours=6),
    timedelta(days=1),
    timedelta(days=3),
    timedelta(days=7),
    timedelta(days=14),
    timedelta(days=45),
]


def get_json(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    assert resp.status == 200, (path, resp.status, body[:300])
    return json.loads(body)


class Questions:
    """Random valid questions about the databases being served (seeded, so every run asks the same ones)."""

    def __init__(self, port, seed):
        self.rng = random.Random(seed)
        self.dbs = []
        for d in get_json(port, "/api/v1/dbs")["databases"]:
            s = d["snapshots"]
            catalog = get_json(port, f"/api/v1/dbs/{d['id']}/catalog")["rows"]
            names = [r["name"] for r in catalog if r["kind"] != "detail"]
            detail = [r["name"] for r in catalog if r["kind"] == "detail"]
            top = get_json(
                port, f"/api/v1/dbs/{d['id']}/top-sql?limit=100&from={quote(s['from'])}&to={quote(s['to'])}"
            )["rows"]
            self.dbs.append(
                {
                    "id": d["id"],
                    "rac": d["rac"],
                    "instances": [i["instance_number"] for i in d["instances"]],
                    "from": datetime.fromisoformat(s["from"]),
                    "to": datetime.fromisoformat(s["to"]),
                    "first": s["first_snap"],
                    "last": s["last_snap"],
                    "names": names,
                    "detail": detail,
                    "sql_ids": sorted({r["sql_id"] for r in top}),
                    "sources": sorted({r["source"] for r in catalog}),
                }
            )

    def _range(self, db, prefix="", span=None):
        rng = self.rng
        if rng.random() < 0.3:  # by snapshot ids (30-minute snapshots)
            length = min(max(2, int((span or rng.choice(SPANS)) / timedelta(minutes=30))), db["last"] - db["first"])
            lo = rng.randint(db["first"], db["last"] - length)
            return {f"{prefix}begin_snap": lo, f"{prefix}end_snap": lo + length}
        span = min(span or rng.choice(SPANS), db["to"] - db["from"])
        start = db["from"] + (db["to"] - db["from"] - span) * rng.random()
        if rng.random() < 0.2:  # an open range: from a moment to the newest snapshot
            return {f"{prefix}from": start.isoformat(timespec="seconds")}
        return {
            f"{prefix}from": start.isoformat(timespec="seconds"),
            f"{prefix}to": (start + span).isoformat(timespec="seconds"),
        }

    def _instance(self, db, each=True):
        choices = ["all"] + [str(i) for i in db["instances"]] + (["each"] if each else [])
        return self.rng.choice(choices)

    def ask(self, endpoint):
        rng = self.rng
        db = rng.choice(self.dbs)
        base = f"/api/v1/dbs/{db['id']}"
        fmt = {"format": "csv"} if rng.random() < 0.1 else {}
        if endpoint == "dbs":
            return "/api/v1/dbs", fmt
        if endpoint == "catalog":
            query = rng.choice(
                [{}, {"q": rng.choice(["redo", "cpu", "read", "wait", "sql"])}, {"source": rng.choice(db["sources"])}]
            )
            return f"{base}/catalog", {**query, **fmt}
        if endpoint == "series":
            if rng.random() < 0.15 and db["detail"]:  # per-minute detail: the last 8 days only, keep it short
                names = [rng.choice(db["detail"])]
                span = rng.choice(SPANS[:4])
                query = {"from": (db["to"] - span).isoformat(timespec="seconds")}
            else:
                names = rng.sample(db["names"], rng.randint(1, 4))
                query = self._range(db)
            return f"{base}/series", {
                "name": names,
                **query,
                "instance": self._instance(db),
                "rate": rng.choice(["per_second", "per_second", "per_txn", "raw"]),
                "max_points": rng.choice([0, 300, 1000, 2000, 2000]),
                **fmt,
            }
        if endpoint == "wait-classes":
            return f"{base}/wait-classes", {
                **self._range(db),
                "instance": self._instance(db),
                "max_points": rng.choice([0, 500, 2000]),
                **fmt,
            }
        if endpoint == "load-profile":
            return f"{base}/load-profile", {**self._range(db), "instance": self._instance(db, each=False)}
        if endpoint == "top-events":
            return f"{base}/top-events", {
                **self._range(db),
                "instance": self._instance(db, each=False),
                "limit": rng.choice([5, 10, 25]),
                **fmt,
            }
        if endpoint == "top-sql":
            return f"{base}/top-sql", {
                **self._range(db),
                "limit": rng.choice([10, 25, 100]),
                **fmt,
                "order_by": rng.choice(["elapsed", "cpu", "gets", "reads", "executions", "rows"]),
            }
        if endpoint == "sql":
            return f"{base}/sql/{rng.choice(db['sql_ids'])}", {
                **rng.choice([{}, self._range(db)]),
                "max_points": rng.choice([0, 500]),
                **fmt,
            }
        if endpoint == "tablespaces":
            return f"{base}/tablespaces", {**rng.choice([{}, self._range(db)]), **fmt}
        if endpoint == "compare":
            span = rng.choice(SPANS[:5])
            return f"{base}/compare", {
                **self._range(db, "a_", span),
                **self._range(db, "b_", span),
                "instance": self._instance(db, each=False),
                **fmt,
            }
        raise ValueError(endpoint)

    def urls(self, per_endpoint):
        out = []
        for _ in range(per_endpoint):
            for endpoint in ENDPOINTS:
                path, query = self.ask(endpoint)
                out.append((endpoint, f"{path}?{urlencode(query, doseq=True)}" if query else path))
        self.rng.shuffle(out)
        return out


def run(port, urls, clients, seconds):
    """`clients` threads with keep-alive connections, each going through its share of `urls` until time is up."""
    latencies, errors = defaultdict(list), defaultdict(list)
    stop = time.monotonic() + seconds

    def client(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        i = k
        while time.monotonic() < stop:
            endpoint, url = urls[i % len(urls)]
            i += clients
            started = time.perf_counter()
            try:
                conn.request("GET", url)
                resp = conn.getresponse()
                resp.read()
                if resp.status != 200:
                    errors[endpoint].append(f"{resp.status} {url}")
                if resp.will_close:
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            except OSError as exc:
                errors[endpoint].append(f"{exc!r} {url}")
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            latencies[endpoint].append(time.perf_counter() - started)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors, time.monotonic() - started


def memory(proc) -> list[dict]:
    """MB per gunicorn worker: RSS, its private (anonymous) and file-backed parts, and PSS (shared pages divided
    among the processes that map them). The file-backed part is mostly the SQLite file, memory-mapped (mmap_size):
    pages of the OS page cache, the same ones in every worker."""
    out = []
    for pid in subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split():
        try:
            fields = {}
            for name in ("status", "smaps_rollup"):
                for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
                    key, _, value = line.partition(":")
                    if key in ("VmRSS", "RssAnon", "RssFile", "Pss") and value.strip().endswith("kB"):
                        fields[key] = round(int(value.split()[0]) / 1024)
        except OSError:  # a worker that just exited
            continue
        out.append(
            {
                "rss_mb": fields.get("VmRSS"),
                "private_mb": fields.get("RssAnon"),
                "file_mb": fields.get("RssFile"),
                "pss_mb": fields.get("Pss"),
            }
        )
    return out


def pct(values, p):
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * p))] * 1000, 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=str(ROOT / "var/awrlens.sqlite"))
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--answer-cache-mb", type=int, default=64, help="per worker; 0 computes every answer")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "perf/results/load.json"))
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWRLENS_")}
    env.update(AWRLENS_STORE_PATH=str(Path(args.store).resolve()), AWRLENS_ANSWER_CACHE_MB=str(args.answer_cache_mb))
    argv = [str(VENV_BIN / "gunicorn"), "--bind", "127.0.0.1:{port}", "--workers", str(args.workers), "app.wsgi:app"]
    with serving(argv, env, "/api/v1/") as (port, proc):
        urls = Questions(port, args.seed).urls(per_endpoint=600)
        rss, done = [], threading.Event()

        def sample():
            while not done.wait(0.5):
                rss.extend(memory(proc))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _warm_lat, warm_err, _ = run(port, urls[::-1], args.clients, 3)  # the same kinds of questions, others
        latencies, errors, elapsed = run(port, urls, args.clients, args.seconds)
        done.set()
        sampler.join()
    total = sum(len(v) for v in latencies.values())
    rows = {
        e: {
            "requests": len(latencies[e]),
            "p50_ms": pct(latencies[e], 0.5),
            "p99_ms": pct(latencies[e], 0.99),
            "max_ms": pct(latencies[e], 1.0),
            "errors": len(errors[e]),
        }
        for e in ENDPOINTS
        if latencies[e]
    }
    result = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "clients": args.clients,
        "seconds": args.seconds,
        "workers": args.workers,
        "answer_cache_mb": args.answer_cache_mb,
        "seed": args.seed,
        "distinct_questions": len(set(urls)),
        "requests": total,
        "req_per_s": round(total / elapsed, 1),
        "p50_ms": pct([x for v in latencies.values() for x in v], 0.5),
        "p99_ms": pct([x for v in latencies.values() for x in v], 0.99),
        "errors": sum(len(v) for v in errors.values()),
        "warmup_errors": sum(len(v) for v in warm_err.values()),
        "largest_worker": max(rss, key=lambda m: m["rss_mb"] or 0) if rss else None,
        "largest_worker_private_mb": max((m["private_mb"] or 0 for m in rss), default=None),
        "largest_worker_pss_mb": max((m["pss_mb"] or 0 for m in rss), default=None),
        "endpoints": rows,
        "error_samples": [x for v in list(errors.values()) + list(warm_err.values()) for x in v][:20],
    }
    out = Path(args.out)
    runs = json.loads(out.read_text()) if out.exists() else {}
    runs = runs if isinstance(runs, dict) and "runs" in runs else {"runs": {}}
    runs["runs"][f"cache_{'on' if args.answer_cache_mb else 'off'}"] = result
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(runs, indent=2) + "\n")
    print(
        f"{args.clients} clients, {args.seconds:g} s, gunicorn {args.workers} workers, answer cache "
        f"{args.answer_cache_mb} MB: {total} requests, {result['req_per_s']} req/s, p50 {result['p50_ms']} ms, "
        f"p99 {result['p99_ms']} ms, errors {result['errors']} (+{result['warmup_errors']} in warm-up), "
        f"largest worker: {result['largest_worker']} (peak private {result['largest_worker_private_mb']} MB, "
        f"peak PSS {result['largest_worker_pss_mb']} MB)\n"
    )
    print("| endpoint | requests | p50 | p99 | max | errors |\n|---|---:|---:|---:|---:|---:|")
    for e, r in rows.items():
        print(f"| {e} | {r['requests']} | {r['p50_ms']} ms | {r['p99_ms']} ms | {r['max_ms']} ms | {r['errors']} |")
    for sample_error in result["error_samples"]:
        print("error:", sample_error)
    sys.exit(1 if result["errors"] or result["warmup_errors"] else 0)


if __name__ == "__main__":
    main()
