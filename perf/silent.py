"""A silent target beside the demo (BENCHMARKS.md, "A silent target"): the demo's latency while an Oracle target that
never answers holds requests.

gunicorn as `make run` serves it (gunicorn.conf.py), with two targets: the demo store and an Oracle listener that
accepts connections and never answers (lab/endpoints.py). 16 clients keep asking the silent target the whole time
(each waits for its 504 or 503 and asks again), while --clients keep-alive clients ask the demo's questions (answer
cache off); the same load is measured once with no silent target for comparison.

Usage: .venv/bin/python perf/silent.py [--store var/awrlens.sqlite] [--seconds 15] [--clients 4]
"""

import json
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.endpoints import Listener
from perf import harness

SILENT_CLIENTS = 16
QUESTIONS = (
    "/series?name=derived:aas&name=derived:tps",
    "/wait-classes",
    "/load-profile",
    "/top-events",
    "/top-sql",
    "/series?name=sysstat:redo%20size&instance=each",
)


def run(store: Path, seconds: float, clients: int, silent: bool) -> dict:
    listener = Listener("silent") if silent else None
    targets = {"demo": {"sqlite": str(store)}}
    if listener:
        targets["silent"] = {"dsn": f"127.0.0.1:{listener.port}/svc", "user": "u", "password_env": "PERF_SILENT_PW"}
    env = harness.server_env(answer_cache_mb=0, AWRLENS_TARGETS=json.dumps(targets), PERF_SILENT_PW="unused")
    try:
        with harness.serving(harness.gunicorn("--graceful-timeout", "3"), env, "/api/v1/") as (port, _):
            dbs = harness.get_json(port, "/api/v1/dbs")["databases"]
            urls = [f"/api/v1/dbs/{d['id']}{q}" for d in dbs for q in QUESTIONS]
            done, statuses = threading.Event(), Counter()

            def hold():
                while not done.is_set():
                    statuses[harness.get(port, "/api/v1/dbs/silent.1/series?name=derived:aas", timeout=60)[0]] += 1

            holders = [threading.Thread(target=hold, daemon=True) for _ in range(SILENT_CLIENTS if silent else 0)]
            for t in holders:
                t.start()
            time.sleep(1)
            result = harness.load(port, urls, clients, seconds)
            done.set()
            for t in holders:
                t.join(30)
            return {**result, "silent_clients": len(holders), "silent_answers": dict(statuses)}
    finally:
        if listener:
            listener.close()


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=4)
    args = harness.parse(parser, quick={"seconds": 2})
    results = {
        "alone": run(args.store, args.seconds, args.clients, False),
        "beside_a_silent_target": run(args.store, args.seconds, args.clients, True),
    }
    print(
        harness.table(
            ["the demo's questions", "requests/s", "p50 ms", "p99 ms", "errors", "the silent target's answers"],
            [
                [name, r["req_per_s"], r["p50_ms"], r["p99_ms"], r["errors"], r["silent_answers"] or "—"]
                for name, r in results.items()
            ],
        )
    )
    harness.write("silent", results, args)


if __name__ == "__main__":
    main()
