"""sqlmap (Debian's package) against awrlens under gunicorn: every parameter of every GET endpoint, bounded in time.

For each GET operation of the OpenAPI document, sqlmap gets a URL that answers 200 (real database id, series,
sql_id, snapshot range) and tests every query parameter (-p) and every path parameter (a * marker), at --level and
--risk (default 2 and 1: boolean, error, UNION, stacked and time-based techniques, for every DBMS it knows). The
server runs with the answer cache off, so every request reaches the code that builds the SQL. The scan fails if
sqlmap reports an injection point, the server answers any request with a 5xx (from gunicorn's access log), or
an endpoint could not be tested (no starting URL that answers 200: the store needs the demo's benchmark runs).

Usage: .venv/bin/python perf/sqlmap_scan.py [--store var/awrlens.sqlite] [--level 2] [--risk 1] [--budget 900]
Needs sqlmap on the PATH (`apt-get install -y sqlmap`). Results: perf/results/sqlmap.json.
"""

import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness
from perf.harness import get_json

FOUND = re.compile(
    r"identified the following injection point|parameter '[^']+' (?:is|appears to be) "
    r"'?[^']*'? ?(?:injectable|vulnerable)",
    re.I,
)
NOT_FOUND = "do not appear to be injectable"


def good_values(port):
    """A valid value for each parameter, from the store being served."""
    dbs = get_json(port, "/api/v1/dbs")["databases"]
    rac = next((d for d in dbs if d["rac"]), dbs[0])
    snaps = rac["snapshots"]
    hi = snaps["last_snap"] - 2
    lo = hi - 16
    top = get_json(port, f"/api/v1/dbs/{rac['id']}/top-sql?begin_snap={lo}&end_snap={hi}&limit=1")["rows"]
    day = snaps["to"][:10]
    status, body = harness.get(port, "/api/v1/benchmarks")  # benchmark runs, when the store has some
    runs = [r["slug"] for r in json.loads(body)["rows"]][:2] if status == 200 else []
    slug = {"slug": runs[0], "runs": runs} if runs else {}
    near = f"/api/v1/dbs/{rac['id']}/%s?begin_snap={lo}&end_snap={hi}"
    event = next(r["event"] for r in get_json(port, near % "top-events")["rows"] if r["wait_class"] != "CPU")
    segment = get_json(port, near % "segments" + "&limit=1")["rows"][0]
    return {
        **slug,
        "first_snap": snaps["first_snap"],
        "last_snap": snaps["last_snap"],
        "event": event,
        "obj": segment["obj"],
        "dataobj": segment["dataobj"],
        "db": rac["id"],
        "sql_id": top[0]["sql_id"] if top else "aaaaaaaaaaaaa",
        "name": "sysstat:redo size",
        "from": f"{day}T00:00:00",
        "to": f"{day}T04:00:00",
        "begin_snap": lo,
        "end_snap": hi,
        "a_from": f"{day}T00:00:00",
        "a_to": f"{day}T02:00:00",
        "b_from": f"{day}T02:00:00",
        "b_to": f"{day}T04:00:00",
        "a_begin_snap": lo - 16,
        "a_end_snap": lo - 1,
        "b_begin_snap": lo,
        "b_end_snap": hi,
        "instance": "1",
        "rate": "per_second",
        "max_points": 50,
        "format": "json",
        "show_sql": 0,
        "q": "redo",
        "source": "sysstat",
        "order_by": "cpu",
        "limit": 5,
    }


BY_TIME, BY_SNAPSHOT = ("from", "to"), ("begin_snap", "end_snap")


def own_values(port, good) -> dict[str, dict]:
    """Per path template, the values an operation needs beyond `good`: a statement with two plans to diff, a
    monitored execution, the ranges of the Oracle reports the store keeps (a range by time: their snapshots')."""
    base = f"/api/v1/dbs/{quote(good['db'])}"
    whole = urlencode({"begin_snap": good["first_snap"], "end_snap": good["last_snap"]})
    top = get_json(port, f"{base}/top-sql?limit=100&{whole}")["rows"]
    plans = next(r for r in top if len(r["plan_hash_values"] or []) > 1)
    monitored = next(
        rows[0] for r in top if (rows := get_json(port, f"{base}/sql/{r['sql_id']}/monitor?{whole}")["rows"])
    )

    def ranged(prefix, begin, end):
        r = get_json(port, f"{base}/range?begin_snap={begin}&end_snap={end}")["range"]
        return {
            f"{prefix}begin_snap": begin,
            f"{prefix}end_snap": end,
            f"{prefix}from": r["from"],
            f"{prefix}to": r["to"],
        }

    reports = get_json(port, f"{base}/awr-report/stored")["reports"]
    report = next(r for r in reports if not r["kind"].endswith("diff"))
    diff = next(r for r in reports if r["kind"].endswith("diff"))
    return {
        "/api/v1/dbs/{db}/sql/{sql_id}/plans/diff": {
            "sql_id": plans["sql_id"],
            "a": plans["plan_hash_values"][0],
            "b": plans["plan_hash_values"][1],
        },
        "/api/v1/dbs/{db}/sql-monitor/{report_id}": {
            "report_id": monitored["report_id"],
            "snap_id": monitored["snap_id"],
        },
        "/api/v1/dbs/{db}/awr-report": {
            **ranged("", report["begin_snap"], report["end_snap"]),
            "instance": ",".join(map(str, report["instances"])),
        },
        "/api/v1/dbs/{db}/awr-report/compare": {
            **ranged("a_", diff["begin_snap"], diff["end_snap"]),
            **ranged("b_", diff["b_begin_snap"], diff["b_end_snap"]),
            "instance": ",".join(map(str, diff["instances"])),
        },
    }


def targets(port):
    """(label, url, parameters to test, path marker?) for every GET operation sqlmap can start from: the query
    parameters of a URL that answers 200 (once with ranges by time, once by snapshot ids, as a range takes one or
    the other), then each path parameter with a * marker."""
    doc = get_json(port, "/api/v1/openapi.json")
    good = good_values(port)
    own = own_values(port, good)
    out, skipped = [], []
    for path, item in doc["paths"].items():
        params = item.get("get", {}).get("parameters", [])
        path_params = [p["name"] for p in params if p["in"] == "path"]
        if not params:
            continue
        values = {**good, **own.get(path, {})}
        if any(n not in values for n in path_params):
            skipped.append((path, "no known value for a path parameter"))
            continue
        filled = {n: quote(str(values[n]), safe="") for n in path_params}
        names = [p["name"] for p in params if p["in"] == "query"]
        ranged = any(n.endswith(BY_SNAPSHOT) for n in names)
        for style, other in ((BY_TIME, BY_SNAPSHOT), (BY_SNAPSHOT, BY_TIME)) if ranged else (((), ()),):
            query = {}
            for n in names:
                if n.removeprefix("a_").removeprefix("b_") in other:
                    continue
                enum = next(p["schema"].get("enum") for p in params if p["name"] == n)
                value = values.get(n) if not enum or values.get(n) in enum else None
                value = enum[0] if value is None and enum else value
                if value is not None:
                    query[n] = value
            url = f"{path.format(**filled)}?{urlencode(query, doseq=True)}"
            status = harness.get(port, url, timeout=30)[0]
            label = f"{path} ({'by time' if style == BY_TIME else 'by snapshot' if style else 'query'})"
            if status != 200:
                skipped.append((label, f"the starting URL answers {status}"))
                continue
            if style == BY_SNAPSHOT:  # the parameters both styles share were tested with the first
                out.append((label, url, [n for n in query if n.removeprefix("a_").removeprefix("b_") in style], False))
            elif query:
                out.append((label, url, list(query), False))
        for name in path_params:  # the * marker after the value: sqlmap injects there
            marked = path.format(**{n: v + ("*" if n == name else "") for n, v in filled.items()})
            out.append((f"{path} ({name})", marked, [name], True))
    return out, skipped


def run_sqlmap(url, params, marked, level, risk, timeout, workdir):
    argv = [
        "sqlmap",
        "-u",
        url,
        "--batch",
        "--flush-session",
        "--disable-coloring",
        f"--level={level}",
        f"--risk={risk}",
        f"--output-dir={workdir}",
        "--timeout=30",
        "--retries=1",
    ]
    if not marked:
        argv.append("-p" + ",".join(params))
    started = time.monotonic()
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, cwd=workdir, stdin=subprocess.DEVNULL
        )
        output, timed_out = proc.stdout + proc.stderr, False
    except subprocess.TimeoutExpired as exc:
        output, timed_out = (exc.stdout or b"").decode() + (exc.stderr or b"").decode(), True
    found = [line.strip() for line in output.splitlines() if FOUND.search(line)]
    return {
        "seconds": round(time.monotonic() - started, 1),
        "found": found,
        "timed_out": timed_out,
        "clean": NOT_FOUND in output and not found,
    }


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--level", type=int, default=2)
    parser.add_argument("--risk", type=int, default=1)
    parser.add_argument("--budget", type=float, default=900, help="seconds for the whole scan")
    parser.add_argument("--workers", type=int, default=2)
    args = harness.parse(parser, quick={"level": 1, "budget": 30})
    version = subprocess.run(["sqlmap", "--version"], capture_output=True, text=True).stdout.split()[0]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as workdir:
        log = Path(workdir) / "access.log"
        env = harness.server_env(args.store, answer_cache_mb=0)
        argv = harness.gunicorn("--access-logfile", str(log), workers=args.workers)
        with harness.serving(argv, env, "/api/v1/") as (port, _):
            runs, skipped = targets(port)
            results = []
            for label, url, params, marked in runs:
                left = args.budget - (time.monotonic() - started)
                if left <= 5:
                    results.append({"target": label, "params": params, "skipped": "time budget spent"})
                    continue
                r = run_sqlmap(f"http://127.0.0.1:{port}{url}", params, marked, args.level, args.risk, left, workdir)
                results.append({"target": label, "params": params, **r})
                print(
                    f"{label}: {'FOUND ' + '; '.join(r['found']) if r['found'] else 'clean' if r['clean'] else '?'}"
                    f" ({r['seconds']} s{', timed out' if r['timed_out'] else ''})",
                    flush=True,
                )
        lines = log.read_text().splitlines()
    statuses = Counter(int(m.group(1)) for m in (re.search(r'" (\d{3}) ', ln) for ln in lines) if m)
    findings = [f for r in results for f in r.get("found", [])]
    summary = {
        "sqlmap": version,
        "level": args.level,
        "risk": args.risk,
        "seconds": round(time.monotonic() - started),
        "targets": len(runs),
        "parameters": sum(len(r["params"]) for r in results),
        "requests": len(lines),
        "by_status": dict(sorted(statuses.items())),
        "findings": findings,
        "incomplete": [r["target"] for r in results if not r.get("clean")],
        "skipped": skipped,
        "runs": results,
    }
    harness.write("sqlmap", summary, args)
    print(
        f"sqlmap {version}, level {args.level}, risk {args.risk}: {summary['parameters']} parameters on "
        f"{len(runs)} targets, {len(lines)} requests in {summary['seconds']} s; by status {summary['by_status']}; "
        f"findings: {len(findings)}; incomplete: {len(summary['incomplete'])}; skipped: {len(skipped)}"
    )
    server_errors = sum(n for s, n in statuses.items() if s >= 500)
    untested = summary["incomplete"] and not args.quick  # --quick spends its budget on the first targets only
    sys.exit(1 if findings or server_errors or untested or skipped else 0)  # untested counts as failed


if __name__ == "__main__":
    main()
