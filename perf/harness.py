"""The harness every performance script of BENCHMARKS.md shares, so that each script holds only its question.

- options: --store, --quick (one short round that proves the script runs; its results go to a temporary directory,
  not perf/results) and --out, parsed with the script's own;
- in process: the app on a store (answer cache off unless asked, the garbage collector tuned as the server tunes it)
  and the timing of repeated calls;
- a server: gunicorn (or a peer) on a free port, keep-alive clients against it for a time, its workers' memory;
- numbers: medians and nearest-rank percentiles in milliseconds;
- results: perf/results/NAME.json, with the machine and the time of the run, and Markdown tables on stdout.
"""

import argparse
import http.client
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv/bin"
STORE = ROOT / "var/awrlens.sqlite"  # the 45-day demo store: `make var/awrlens.sqlite`
RESULTS = ROOT / "perf/results"
QUICK_RESULTS = Path(tempfile.gettempdir()) / "awrlens-perf-quick"

# -- options and results --------------------------------------------------------------------------------------------


def options(doc: str, store: Path | None = STORE) -> argparse.ArgumentParser:
    """The options every script takes (its own are added to the parser it gets back)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if store is not None:
        parser.add_argument("--store", type=Path, default=store, help="the store measured (default: %(default)s)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"one short round to prove the script runs; results in {QUICK_RESULTS}, not perf/results",
    )
    parser.add_argument("--out", type=Path, help="where the results go (default: perf/results/NAME.json)")
    return parser


def parse(parser: argparse.ArgumentParser, quick: dict | None = None) -> argparse.Namespace:
    """The options, with `quick`'s values in place of the script's when --quick is given."""
    args = parser.parse_args()
    if args.quick:
        for name, value in (quick or {}).items():
            setattr(args, name, value)
    if getattr(args, "store", None) is not None:
        args.store = args.store.resolve()
        if not args.store.exists():
            sys.exit(f"{args.store} does not exist (`make var/awrlens.sqlite` builds the 45-day demo store)")
    return args


def machine() -> dict:
    return {"cpus": os.cpu_count(), "python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version}


def write(name: str, results: dict, args: argparse.Namespace, run: str | None = None) -> Path:
    """perf/results/NAME.json (with --quick, the temporary directory's): `results` with the machine and the time of
    the run; with `run`, kept under that key of the file's runs beside the other runs already there."""
    out = args.out or (QUICK_RESULTS if args.quick else RESULTS) / f"{name}.json"
    results = {"measured": datetime.now(UTC).isoformat(timespec="minutes"), "machine": machine(), **results}
    if run is not None:
        kept = json.loads(out.read_text()) if out.exists() else {}
        runs = kept.get("runs", {}) if isinstance(kept, dict) else {}
        results = {"runs": {**runs, run: results}}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written to {out}", file=sys.stderr)
    return out


def table(columns: list[str], rows: list[list]) -> str:
    """A Markdown table: the first column left-aligned, the others right-aligned."""
    lines = ["| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# -- numbers ------------------------------------------------------------------------------------------------------


def percentile_ms(seconds: list[float], p: float) -> float:
    """The nearest-rank percentile `p` (0 to 1) of durations in seconds, in milliseconds."""
    ordered = sorted(seconds)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000, 1)


def median(values, digits: int = 1) -> float:
    return round(statistics.median(values), digits)


# -- in process -----------------------------------------------------------------------------------------------------


def app(store: Path, answer_cache_mb: int = 0, **settings):
    """The app on `store` (one target, "demo"), built as the server builds it (app/wsgi.py tunes the collector)."""
    from app import create_app, tune_gc
    from app.settings import Settings

    built = create_app(
        Settings.from_env({}, targets={"demo": {"sqlite": str(store)}}, answer_cache_mb=answer_cache_mb, **settings)
    )
    tune_gc()
    return built


def times_ms(fn, runs: int, warmup: int = 1) -> list[float]:
    """`fn` called `warmup` times, then `runs` times: each of those calls' milliseconds."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def asked(client, url: str, runs: int):
    """In process (a Flask test client): the answer to `url` (it must be a 200) and the milliseconds of `runs`
    requests after a warm-up."""
    answer = client.get(url)
    assert answer.status_code == 200, (url, answer.get_data(as_text=True)[:300])
    return answer, times_ms(lambda: client.get(url).data, runs, warmup=0)


# -- a server and its clients ----------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(store: Path | None = None, answer_cache_mb: int | None = None, **extra) -> dict:
    """This process's environment without its AWRLENS_ settings, then the store, the answer cache and `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWRLENS_")}
    if store is not None:
        env["AWRLENS_STORE_PATH"] = str(store)
    if answer_cache_mb is not None:
        env["AWRLENS_ANSWER_CACHE_MB"] = str(answer_cache_mb)
    return env | {k: str(v) for k, v in extra.items()}


def gunicorn(*options: str, workers: int | None = None, wsgi: str = "app.wsgi:app") -> list[str]:
    """gunicorn as `make run` starts it (gunicorn.conf.py), on the port `serving` fills in."""
    count = ["--workers", str(workers)] if workers else []
    return [str(VENV_BIN / "gunicorn"), "--bind", "127.0.0.1:{port}", *count, *options, wsgi]


@contextmanager
def serving(argv: list[str], env: dict, ready_path: str = "/"):
    """Start `argv` (with {port} filled in) and yield (port, process) once `ready_path` answers; stop it after."""
    port = free_port()
    proc = subprocess.Popen(
        [a.format(port=port) for a in argv], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(300):
            try:
                get(port, ready_path, timeout=5)
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"{argv[0]} exited with {proc.returncode}") from None
                time.sleep(0.1)
        yield port, proc
    finally:
        proc.terminate()
        proc.wait(10)


def get(port: int, path: str, timeout: float = 120) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def get_json(port: int, path: str):
    """The JSON answer to `path`; the script stops, naming it, on any other status than 200."""
    status, body = get(port, path)
    if status != 200:
        sys.exit(f"GET {path} -> {status} {body[:300]!r}")
    return json.loads(body)


def clients(port: int, urls: list[tuple[str, str]], count: int, seconds: float):
    """`count` threads, each with its own keep-alive connection, going through its share of `urls` ((key, url)
    pairs) until `seconds` are up. Returns each request's (seconds, key, url, status: an int or the failure) and the
    time the run took."""
    asked, stop = [], time.monotonic() + seconds

    def client(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        i = k
        while time.monotonic() < stop:
            key, url = urls[i % len(urls)]
            i += count
            started = time.perf_counter()
            try:
                conn.request("GET", url)
                resp = conn.getresponse()
                resp.read()
                status = resp.status
                if resp.will_close:
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            except OSError as exc:
                status = repr(exc)
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            asked.append((time.perf_counter() - started, key, url, status))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(count)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return asked, time.monotonic() - started


def summary(asked: list, elapsed: float) -> dict:
    """Requests, their rate, the failed ones (any answer but a 200) and the p50 and p99 of `clients`' requests."""
    took = [a[0] for a in asked]
    return {
        "requests": len(asked),
        "req_per_s": round(len(asked) / elapsed, 1),
        "errors": sum(a[3] != 200 for a in asked),
        "p50_ms": percentile_ms(took, 0.5),
        "p99_ms": percentile_ms(took, 0.99),
    }


def load(port: int, urls: list[str], count: int, seconds: float) -> dict:
    """`count` keep-alive clients cycling through `urls` for `seconds`: their summary."""
    return summary(*clients(port, [(url, url) for url in urls], count, seconds))


def measure(argv, env, urls, count, seconds, ready_path="/", warmup=2.0) -> dict:
    """Throughput and latency of a server under `count` concurrent clients, and its largest worker; fails on any
    error."""
    with serving(argv, env, ready_path) as (port, proc):
        warm = load(port, urls, count, warmup)
        result = load(port, urls, count, seconds)
        result["largest_worker_rss_mb"] = max(m["rss_mb"] for m in worker_memory(proc))
    assert warm["errors"] == result["errors"] == 0, (warm, result)
    return {"clients": count, "seconds": seconds, **result}


def worker_memory(proc) -> list[dict]:
    """MB per worker of a pre-forking server (or of the process itself when it has none): RSS, its private
    (anonymous) and file-backed parts, and PSS (shared pages divided among the processes that map them)."""
    pids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    out = []
    for pid in pids or [str(proc.pid)]:
        fields = {}
        try:
            for name in ("status", "smaps_rollup"):
                for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
                    key, _, value = line.partition(":")
                    if key in ("VmRSS", "RssAnon", "RssFile", "Pss") and value.strip().endswith("kB"):
                        fields[key] = round(int(value.split()[0]) / 1024)
        except OSError:  # a worker that just exited
            continue
        out.append(
            {
                "rss_mb": fields.get("VmRSS", 0),
                "private_mb": fields.get("RssAnon", 0),
                "file_mb": fields.get("RssFile", 0),
                "pss_mb": fields.get("Pss", 0),
            }
        )
    return out
