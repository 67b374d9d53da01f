"""A week of hourly AWR reports imported (BENCHMARKS.md, "Report files"): the demo's ORCL rendered as 168 hourly
report files (text, then HTML: app/demo/report_files.py), each folder imported into a fresh reports store as
`flask reports import` does it (app/report_files/importer.py), the median of --runs; beside its floors: the files
read (their bytes), and read and parsed (no store written).

Usage: .venv/bin/python perf/report_import.py [--store var/awrlens.sqlite] [--runs 3] [--hours 168]
"""

import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perf import harness

LAYOUTS = ("awr-text-19", "awr-html-19")


def main():
    parser = harness.options(__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hours", type=int, default=168)
    args = harness.parse(parser, quick={"runs": 1, "hours": 6})

    from app.demo.report_files import report_folder
    from app.report_files import files
    from app.report_files.importer import import_files
    from app.report_files.parse import parse
    from app.settings import Settings
    from app.store.reports import ReportStore

    with sqlite3.connect(f"file:{args.store}?mode=ro", uri=True) as con:
        newest = con.execute(
            "SELECT max(end_interval_time) FROM dba_hist_snapshot JOIN dba_hist_database_instance USING (dbid) "
            "WHERE db_name = 'ORCL'"
        ).fetchone()[0]
    start = datetime.fromisoformat(newest).replace(hour=0, minute=0, second=0) - timedelta(hours=args.hours)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for layout in LAYOUTS:
            folder = Path(tmp) / layout
            paths = report_folder(args.store, folder, "ORCL", 1, start, args.hours, layout)
            size = sum(p.stat().st_size for p in paths)

            def read(paths=paths):
                for p in paths:
                    p.read_bytes()

            def read_and_parse(paths=paths):
                for p in paths:
                    parse(p.name, p.read_bytes())

            def imported(layout=layout, folder=folder, paths=paths):
                path = Path(tmp) / f"{layout}-{time.monotonic_ns()}.sqlite"
                store = ReportStore("reports", path, Settings.from_env({}))
                outcome = import_files(store, files.gather([folder]))
                assert len(outcome.imported) == len(paths)

            row = {"layout": layout, "files": len(paths), "mb": round(size / 1e6, 1)}
            for name, fn in (("read_ms", read), ("parse_ms", read_and_parse), ("import_ms", imported)):
                row[name] = harness.median(harness.times_ms(fn, args.runs, warmup=0))
            results.append(row)
    print(
        harness.table(
            ["layout", "files", "MB", "read, ms", "read and parsed, ms", "imported, ms"],
            [[r["layout"], r["files"], r["mb"], r["read_ms"], r["parse_ms"], r["import_ms"]] for r in results],
        )
    )
    harness.write("report_import", {"hours": args.hours, "results": results}, args)


if __name__ == "__main__":
    main()
