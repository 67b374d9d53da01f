"""What the performance scripts share: a server on a free port, a load of keep-alive clients, worker memory."""

import http.client
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv/bin"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(argv, env, ready_path="/"):
    """Start `argv` (with {port} filled in) and yield (port, process) once `ready_path` answers; stop it after."""
    port = free_port()
    proc = subprocess.Popen(
        [a.format(port=port) for a in argv], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(300):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", ready_path)
                conn.getresponse().read()
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"{argv[0]} exited with {proc.returncode}") from None
                time.sleep(0.1)
        yield port, proc
    finally:
        proc.terminate()
        proc.wait(10)


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
    return {
        "requests": len(latencies),
        "req_per_s": round(len(latencies) / elapsed, 1),
        "errors": len(errors),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 1),
        "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 1),
    }


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def largest_worker_rss(proc) -> int:
    """MB of the largest child of a pre-forking server (or of the process itself when it has none)."""
    children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    return round(max(rss_mb(int(p)) for p in children or [proc.pid]))


def measure(argv, env, urls, clients, seconds, ready_path="/", warmup=2.0) -> dict:
    """Throughput and latency of a server under `clients` concurrent clients; fails on any error."""
    with serving(argv, env, ready_path) as (port, proc):
        warm = load(port, urls, clients, warmup)
        result = load(port, urls, clients, seconds)
        result["largest_worker_rss_mb"] = largest_worker_rss(proc)
    assert warm["errors"] == result["errors"] == 0, (warm, result)
    return {"clients": clients, "seconds": seconds, **result}


def timed(client, url, runs):
    """In process (a Flask test client): the last answer and the times of `runs` requests after a warm-up, in ms."""
    times = []
    for k in range(runs + 1):
        started = time.perf_counter()
        r = client.get(url)
        assert r.status_code == 200, r.get_data(as_text=True)[:300]
        if k:
            times.append((time.perf_counter() - started) * 1000)
    return r, times
