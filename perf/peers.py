"""The same series question answered by awrlens and by its peers, side by side in one run, on the same SQLite file.

The question: `redo size` per second for both RACPROD instances over 45 days, every point (about 4,300).
- awrlens: GET /api/v1/dbs/{db}/series under gunicorn, with the answer cache off (every request computed), in the
  default shape (pairs) and in the page's (shape=axes, the time axis once per answer);
- Datasette (the `datasette` package) serving the equivalent SQL with LAG through its JSON API;
- a minimal Flask app running the LAG query under the same gunicorn (perf/peers/flask_lag.py);
- the floor: the raw LAG query in-process, and awrlens in-process.
Each server gets the same load: `--clients` concurrent keep-alive clients for `--seconds`.
Usage: .venv/bin/python perf/peers.py [--store var/awrlens.sqlite] [--seconds 15] [--clients 8]
(needs perf/requirements.txt: `make perf` installs it).
"""

import argparse
import json
import os
import sqlite3
import sys
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perf.common import VENV_BIN, measure  # noqa: E402
from perf.peers.flask_lag import LAG  # noqa: E402
from perf.series import DBID, STAT, floor_vs_api  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=str(ROOT / "var/awrlens.sqlite"))
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "perf/results/peers.json"))
    args = parser.parse_args()
    store = Path(args.store).resolve()
    stat_id = (
        sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        .execute("select stat_id from dba_hist_sysstat where dbid = ? and stat_name = ? limit 1", (DBID, STAT))
        .fetchone()[0]
    )
    floor = floor_vs_api(store)
    env = {**os.environ, "AWRLENS_STORE_PATH": str(store), "AWRLENS_ANSWER_CACHE_MB": "0", "STORE": str(store)}
    gunicorn = [str(VENV_BIN / "gunicorn"), "--bind", "127.0.0.1:{port}", "--workers", str(args.workers)]
    peer_query = {"dbid": DBID, "stat_id": stat_id}
    servers = {
        "awrlens": ([*gunicorn, "app.wsgi:app"], floor["url"], "/api/v1/dbs"),
        "awrlens, shape=axes (the page's)": ([*gunicorn, "app.wsgi:app"], floor["url"] + "&shape=axes", "/api/v1/dbs"),
        "minimal Flask + LAG query": (
            [*gunicorn, "perf.peers.flask_lag:app"],
            "/series?" + urlencode(peer_query),
            "/series?" + urlencode(peer_query),
        ),
        "Datasette + LAG query": (
            [
                str(VENV_BIN / "datasette"),
                "serve",
                "--immutable",
                str(store),
                "--host",
                "127.0.0.1",
                "--port",
                "{port}",
                "--setting",
                "sql_time_limit_ms",
                "20000",
                "--setting",
                "max_returned_rows",
                "10000",
            ],
            f"/{store.stem}.json?" + urlencode({"sql": LAG, "_shape": "array", **peer_query}),
            "/-/versions.json",
        ),
    }
    results = {
        "question": f"{STAT} per second, both RACPROD instances, 45 days, {floor['points']} points",
        "floor": floor,
        "servers": {},
    }
    print(
        f"floor: the rows read and written as JSON {floor['raw_fetch_json_ms']:.2f} ms, the LAG query "
        f"{floor['raw_lag_ms']:.1f} ms; awrlens in-process {floor['api_in_process_ms']:.2f} ms "
        f"({floor['api_vs_read_and_json']}x the read and JSON), shape=axes {floor['api_axes_in_process_ms']:.2f} ms "
        f"({floor['api_axes_vs_read_and_json']}x)"
    )
    for name, (argv, url, ready) in servers.items():
        r = measure(argv, env, [url], args.clients, args.seconds, ready_path=ready)
        results["servers"][name] = r
    base = results["servers"]["awrlens"]["req_per_s"]
    axes = results["servers"]["awrlens, shape=axes (the page's)"]["req_per_s"]
    for name, r in results["servers"].items():
        r["awrlens_speedup"] = round(base / r["req_per_s"], 2)
        r["awrlens_axes_speedup"] = round(axes / r["req_per_s"], 2)
        print(
            f"{name:34} {r['req_per_s']:8.1f} req/s  p50 {r['p50_ms']:7.1f} ms  p99 {r['p99_ms']:7.1f} ms  "
            f"awrlens is {r['awrlens_speedup']}x, with shape=axes {r['awrlens_axes_speedup']}x  "
            f"(largest worker {r['largest_worker_rss_mb']} MB)"
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
