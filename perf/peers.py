"""The series beside its peers (BENCHMARKS.md, "The series"): the same question answered by awrlens and by two peers,
one server after the other on the same SQLite file, each under the same load.

The question is perf/series.py's: `redo size` per second for both RACPROD instances over 45 days, every point.
- awrlens: GET /api/v1/dbs/{db}/series under gunicorn, answer cache off, in pairs and in the page's shape=axes;
- a minimal Flask app running the LAG query under the same gunicorn (perf/peers/flask_lag.py);
- Datasette (perf/requirements.txt) serving the same LAG query through its JSON API, the file opened --immutable;
- the floor in process (perf/series.py's), measured in the same run.

Usage: .venv/bin/python perf/peers.py [--store var/awrlens.sqlite] [--seconds 15] [--clients 8]
(needs perf/requirements.txt: `make perf` installs it).
"""

import sys
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness
from perf.peers.flask_lag import LAG
from perf.series import DBID, floor_vs_api, stat_id


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--datasette", default=str(harness.VENV_BIN / "datasette"), help="its command (%(default)s)")
    args = harness.parse(parser, quick={"seconds": 2})
    store = args.store
    floor = floor_vs_api(store, *((3, 1) if args.quick else ()))
    env = harness.server_env(store, answer_cache_mb=0, STORE=store)
    gunicorn = harness.gunicorn(workers=args.workers)
    peer_query = urlencode({"dbid": DBID, "stat_id": stat_id(store)})
    datasette = [args.datasette, "serve", "--immutable", str(store)]
    datasette += ["--host", "127.0.0.1", "--port", "{port}", "--setting", "sql_time_limit_ms", "20000"]
    datasette += ["--setting", "max_returned_rows", "10000"]
    servers = {  # name: (argv, the question's URL, the URL that answers once the server is ready)
        "awrlens": (gunicorn, floor["url"], "/api/v1/dbs"),
        "awrlens, shape=axes (the page's)": (gunicorn, floor["url"] + "&shape=axes", "/api/v1/dbs"),
        "minimal Flask + LAG query": (
            harness.gunicorn(workers=args.workers, wsgi="perf.peers.flask_lag:app"),
            f"/series?{peer_query}",
            f"/series?{peer_query}",
        ),
        "Datasette + LAG query": (
            datasette,
            f"/{store.stem}.json?" + urlencode({"sql": LAG, "_shape": "array"}) + f"&{peer_query}",
            "/-/versions.json",
        ),
    }
    measured = {
        name: harness.measure(argv, env, [url], args.clients, args.seconds, ready)
        for name, (argv, url, ready) in servers.items()
    }
    pairs, axes = measured["awrlens"]["req_per_s"], measured["awrlens, shape=axes (the page's)"]["req_per_s"]
    for r in measured.values():
        r["awrlens_speedup"] = round(pairs / r["req_per_s"], 2)
        r["awrlens_axes_speedup"] = round(axes / r["req_per_s"], 2)
    print(
        f"the floor {floor['raw_fetch_json_ms']:.2f} ms; awrlens in process {floor['api_in_process_ms']:.2f} ms "
        f"({floor['api_vs_read_and_json']}x), shape=axes {floor['api_axes_in_process_ms']:.2f} ms "
        f"({floor['api_axes_vs_read_and_json']}x)\n"
    )
    print(
        harness.table(
            ["server", "requests/s", "p50 ms", "p99 ms", "largest worker MB", "awrlens is", "with shape=axes"],
            [
                [
                    name,
                    r["req_per_s"],
                    r["p50_ms"],
                    r["p99_ms"],
                    r["largest_worker_rss_mb"],
                    f"{r['awrlens_speedup']}x",
                    f"{r['awrlens_axes_speedup']}x",
                ]
                for name, r in measured.items()
            ],
        )
    )
    question = f"redo size per second, both RACPROD instances, 45 days, {floor['points']} points"
    harness.write("peers", {"question": question, "floor": floor, "servers": measured}, args)


if __name__ == "__main__":
    main()
