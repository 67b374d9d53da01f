"""The demo target's latency while a silent Oracle target holds requests (BENCHMARKS.md, "One failure stays one").

gunicorn as `make run` serves it (gunicorn.conf.py), with two targets: the demo store and an Oracle listener that
accepts connections and never answers (lab/endpoints.py). 16 clients keep asking the silent target the whole time
(each waits for its 504 or 503 and asks again), while `--clients` keep-alive clients ask the demo's questions;
their p50 and p99 are measured, and the same load is measured once with no silent target for comparison.
Usage: .venv/bin/python perf/silent.py [--store var/awrlens.sqlite] [--seconds 15] [--clients 4]
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.endpoints import Listener  # noqa: E402
from perf.common import VENV_BIN, load, serving  # noqa: E402

SILENT_CLIENTS = 16
QUESTIONS = (
    "/series?name=derived:aas&name=derived:tps",
    "/wait-classes",
    "/load-profile",
    "/top-events",
    "/top-sql",
    "/series?name=sysstat:redo%20size&instance=each",
)


def run(store: str, seconds: float, clients: int, silent: bool) -> dict:
    listener = Listener("silent") if silent else None
    targets = {"demo": {"sqlite": store}}
    if listener:
        targets["silent"] = {"dsn": f"127.0.0.1:{listener.port}/svc", "user": "u", "password_env": "PERF_SILENT_PW"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWRLENS_")}
    env.update({"AWRLENS_TARGETS": json.dumps(targets), "PERF_SILENT_PW": "unused", "AWRLENS_ANSWER_CACHE_MB": "0"})
    argv = [str(VENV_BIN / "gunicorn"), "--bind", "127.0.0.1:{port}", "--graceful-timeout", "3", "app.wsgi:app"]
    try:
        with serving(argv, env, "/api/v1/") as (port, _):
            dbs = json.loads(_get(port, "/api/v1/dbs")[1])["databases"]
            urls = [f"/api/v1/dbs/{d['id']}{q}" for d in dbs for q in QUESTIONS]
            done, held = threading.Event(), {"answers": 0, "statuses": {}}

            def hold():
                while not done.is_set():
                    status, _ = _get(port, "/api/v1/dbs/silent.1/series?name=derived:aas")
                    held["answers"] += 1
                    held["statuses"][status] = held["statuses"].get(status, 0) + 1

            holders = [threading.Thread(target=hold, daemon=True) for _ in range(SILENT_CLIENTS if silent else 0)]
            for t in holders:
                t.start()
            time.sleep(1)
            result = load(port, urls, clients, seconds)
            done.set()
            for t in holders:
                t.join(30)
            return {**result, "silent_clients": len(holders), "silent_answers": held["statuses"]}
    finally:
        if listener:
            listener.close()


def _get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    resp = conn.getresponse()
    return resp.status, resp.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=str(ROOT / "var/awrlens.sqlite"))
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--out", default=str(ROOT / "perf/results/silent.json"))
    args = parser.parse_args()
    results = {
        "alone": run(args.store, args.seconds, args.clients, False),
        "beside_a_silent_target": run(args.store, args.seconds, args.clients, True),
    }
    for name, r in results.items():
        print(
            f"{name}: {r['requests']} demo requests, {r['req_per_s']} req/s, p50 {r['p50_ms']} ms, "
            f"p99 {r['p99_ms']} ms, errors {r['errors']}; silent target answers {r['silent_answers']}"
        )
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
