"""Recorded answers: a broad set of API requests (every endpoint, docs/api.md's examples, ranges at restarts, gaps
and manual snapshots, every rate and instance choice, CSV, errors) and a fingerprint of each answer, recorded from
the code before a refactoring so that tests/test_answers.py can show the answers did not change.

Record again only when an answer is meant to change, and say which in the commit:
    .venv/bin/python tests/answers.py            # writes tests/data/answers.json (10-day demo store)
"""

import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "tests" / "data" / "answers.json"
DAYS = 10  # the store the tests build (conftest.demo_store)

SERIES = [
    "derived:aas",
    "derived:tps",
    "derived:host_cpu_pct",
    "derived:io_mbps",
    "derived:num_cpus",
    "derived:hard_parse_pct",
    "sysstat:redo size",
    "sysstat:user commits",
    "sysstat:logons current",
    "sys_time_model:DB time",
    "osstat:NUM_CPUS",
    "osstat:BUSY_TIME",
    "system_event:log file sync:avg_ms",
    "system_event:db file sequential read:time",
    "system_event:log file sync:waits",
    "wait_class:User I/O",
    "wait_class:Commit",
    "sysmetric:Host CPU Utilization (%)",
    "sysmetric:User Transaction Per Sec",
    "sysmetric:Average Active Sessions",
    "sysmetric_history:Average Active Sessions",
    "iostat_function:LGWR:megabytes",
    "iostat_filetype:Data File:requests",
]


def url(path, **params):
    items = []
    for k, v in params.items():
        for x in v if isinstance(v, list) else [v]:
            items.append((k, x))
    return path + ("?" + urlencode(items, quote_via=quote) if items else "")


def documented_examples() -> list[str]:
    """The API examples written by hand in docs/api.md, as paths (`curl -s 'localhost:8000/api/...'`); the
    endpoint reference generated from the OpenAPI document (between its `<!-- made by` and `<!-- end -->` markers)
    is left out, so that regenerating it cannot change the record."""
    text = re.sub(r"<!-- made by .*?<!-- end -->", "", (ROOT / "docs" / "api.md").read_text(), flags=re.S)
    return [m.group(1) for m in re.finditer(r"curl -s '?localhost:8000(/api/v1/[^' \n]+)'?", text)]


def requests(client, stories) -> list[str]:
    """Every request of the record, built from the store's own databases and stories."""
    dbs = client.get("/api/v1/dbs").get_json()["databases"]
    out = [
        "/api/v1/",
        "/api/v1/dbs",
        "/api/v1/dbs?format=csv",
        "/api/v1/openapi.json",
        "/api/v1/dbs/nope.1",
        "/api/v1/dbs?frm=1",
        "/api/v1/benchmarks",
        "/api/v1/benchmarks?format=csv",
    ]
    out += documented_examples()
    for d in dbs:
        db, base = d["id"], f"/api/v1/dbs/{d['id']}"
        snaps = d["snapshots"]
        first, last = snaps["first_snap"], snaps["last_snap"]
        mid = (first + last) // 2
        insts = [str(i["instance_number"]) for i in d["instances"]]
        ranges = [
            {},
            {"begin_snap": mid, "end_snap": mid + 12},
            {"begin_snap": mid},
            {"end_snap": first + 20},
            {"begin_snap": first, "end_snap": first},
            {"begin_snap": mid, "end_snap": mid + 1},
            {"from": snaps["from"][:10] + "T12:00:00", "to": snaps["to"][:10]},
            {"from": "2026-11-17T09:00:00Z", "to": "2026-11-17T17:00:00+01:00"},
            {"from": "2026-11-15"},
            {"to": "2026-11-18T06:00:00"},
            {"from": "2026-01-01", "to": "2026-01-02"},
        ]
        out += [url(base), url(base, show_sql=0)]
        for r in ranges:
            out.append(url(base + "/snapshots", **r))
            out.append(url(base + "/load-profile", **r))
            out.append(url(base + "/top-events", **r))
            out.append(url(base + "/top-sql", **r))
            out.append(url(base + "/wait-classes", max_points=300, **r))
            out.append(url(base + "/series", name=["derived:aas", "sysstat:redo size", "wait_class:User I/O"], **r))
        for inst in ["all", "each", *insts]:
            for name in SERIES:
                out.append(url(base + "/series", name=name, instance=inst, max_points=0, begin_snap=mid - 30))
            for rate in ("per_second", "per_txn", "raw"):
                out.append(
                    url(
                        base + "/series",
                        name=["sysstat:redo size", "sysstat:execute count", "sys_time_model:DB CPU"],
                        instance=inst,
                        rate=rate,
                    )
                )
            out.append(url(base + "/wait-classes", instance=inst))
            if inst != "each":
                out.append(url(base + "/load-profile", instance=inst, format="csv"))
                out.append(url(base + "/top-events", instance=inst, limit=30))
                out.append(url(base + "/snapshots", instance=inst, format="csv"))
        out.append(url(base + "/series", name=SERIES[:8], max_points=50, format="csv", instance="each"))
        out.append(url(base + "/series", name="derived:aas", max_points=3))
        out.append(url(base + "/series", name="derived:aas", from_="x"))
        out += [
            url(base + "/catalog"),
            url(base + "/catalog", q="redo"),
            url(base + "/catalog", source="osstat"),
            url(base + "/catalog", format="csv", q="file"),
        ]
        for order in ("elapsed", "cpu", "gets", "reads", "executions", "rows"):
            out.append(url(base + "/top-sql", order_by=order, limit=100, begin_snap=mid - 48, end_snap=mid))
        out.append(url(base + "/top-sql", format="csv"))
        sql_ids = [r["sql_id"] for r in client.get(url(base + "/top-sql", limit=12)).get_json()["rows"]]
        for sql_id in sql_ids:
            out.append(url(base + f"/sql/{sql_id}"))
            out.append(url(base + f"/sql/{sql_id}", max_points=0, begin_snap=mid - 96, end_snap=mid))
        out += [
            url(base + f"/sql/{sql_ids[0]}", format="csv"),
            url(base + "/sql/0000000000000"),
            url(base + "/sql/NOT-AN-ID"),
        ]
        out += [
            url(base + "/tablespaces"),
            url(base + "/tablespaces", max_points=0, begin_snap=mid),
            url(base + "/tablespaces", format="csv"),
        ]
        out += [  # the range report: the page of its sections and SVG charts (docs/awr-rules.md §28)
            url(base + "/report"),
            url(base + "/report", begin_snap=mid - 48, end_snap=mid, instance=insts[-1]),
            url(base + "/report", begin_snap=mid - 24, end_snap=mid, download=1),
        ]
        out += [
            url(base + "/compare", a_begin_snap=mid - 24, a_end_snap=mid, b_begin_snap=mid, b_end_snap=mid + 24),
            url(
                base + "/compare",
                a_from="2026-11-12T09:00:00",
                a_to="2026-11-12T17:00:00",
                b_from="2026-11-17T09:00:00",
                b_to="2026-11-17T17:00:00",
                format="csv",
            ),
            url(base + "/compare", a_begin_snap=mid - 24, a_end_snap=mid, instance=insts[-1]),
            url(base + "/compare", a_from="2026-11-12"),
        ]
        # bad input: each names its parameter
        out += [
            url(base + "/series"),
            url(base + "/series", name=SERIES[:9]),
            url(base + "/series", name="nope:x"),
            url(base + "/series", name="derived:aas", instance="7"),
            url(base + "/series", name="derived:aas", instance="x y"),
            url(base + "/series", name="derived:aas", max_points=1),
            url(base + "/series", name="derived:aas", rate="hourly"),
            url(base + "/series", name="derived:aas", begin_snap=mid, end_snap=mid - 1),
            url(base + "/series", name="derived:aas", begin_snap=10**9),
            url(base + "/series", name="derived:aas", **{"from": "2026-11-18", "to": "2026-11-17"}),
            url(base + "/series", name="derived:aas", **{"from": "2020-01-01", "to": "2026-01-01"}),
            url(base + "/series", name="derived:aas", **{"from": "yesterday"}),
            url(base + "/series", name="derived:aas", begin_snap=first - 5000, end_snap=last),
            url(base + "/load-profile", instance="each"),
            url(base + "/top-sql", order_by="x"),
            url(base + "/top-events", limit=0),
            url(base + "/compare"),
            url(base + "/compare", a_begin_snap=mid, a_end_snap=mid - 3, b_begin_snap=mid),
        ]
    for story in ("restart", "manual_snapshot", "async_io_fix", "plan_regression"):
        s = stories[story]
        db = next(d["id"] for d in dbs if d["dbid"] == s["dbid"])
        at = s.get("first_snap_after") or s.get("snap_id") or s.get("begin_snap")
        base = f"/api/v1/dbs/{db}"
        for lo, hi in ((at - 4, at + 4), (at - 1, at), (at, at + 1), (at - 1, at + 1), (at - 10, at - 1)):
            r = {"begin_snap": lo, "end_snap": hi}
            out += [
                url(
                    base + "/series",
                    name=["derived:aas", "derived:tps", "sysstat:redo size"],
                    instance=i,
                    max_points=0,
                    **r,
                )
                for i in ("all", "each")
            ]
            out += [
                url(base + "/load-profile", **r),
                url(base + "/top-events", **r),
                url(base + "/snapshots", **r),
                url(base + "/top-sql", **r),
            ]
    for run in client.get("/api/v1/benchmarks").get_json()["rows"]:
        out += [url(f"/api/v1/benchmarks/{run['slug']}"), url(f"/api/v1/benchmarks/{run['slug']}", format="csv")]
    slugs = [r["slug"] for r in client.get("/api/v1/benchmarks").get_json()["rows"]]
    out += [
        url("/api/v1/benchmarks/compare", runs=slugs[:3]),
        url("/api/v1/benchmarks/compare", runs=slugs[1:3], format="csv"),
        url("/api/v1/benchmarks/nope-nope"),
        url("/api/v1/benchmarks/compare", runs="nope"),
    ]
    return [u.replace("from_=", "from=") for u in dict.fromkeys(out)]


def fingerprint(resp) -> dict:
    """Status, the headers that shape the answer, and the body's SHA-256 (timings of show_sql left out)."""
    body = resp.get_data()
    return {
        "status": resp.status_code,
        "type": resp.headers.get("Content-Type"),
        "cache": resp.headers.get("Cache-Control"),
        "disposition": resp.headers.get("Content-Disposition"),
        "bytes": len(body),
        "sha256": hashlib.sha256(body).hexdigest(),
    }


def record(path=RECORD):
    sys.path.insert(0, str(ROOT))
    from app import create_app, demo
    from app.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "demo.sqlite"
        stories = demo.build(store, days=DAYS)
        app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(store)}}))
        client = app.test_client()
        answers = {u: fingerprint(client.get(u)) for u in requests(client, stories)}
    path.write_text(json.dumps({"days": DAYS, "answers": answers}, indent=1) + "\n")
    print(f"{len(answers)} answers recorded in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    record()
