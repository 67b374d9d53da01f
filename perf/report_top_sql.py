"""The report's top SQL (BENCHMARKS.md, issue 14): its four orders read by /top-sql's statement once per order against
one statement that sums once and ranks by each (top_sql.by_orders), one after the other in one process, median of 4.
Usage: .venv/bin/python perf/report_top_sql.py [--store /tmp/report45.sqlite]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.history import report, top_sql  # noqa: E402
from app.settings import Settings  # noqa: E402


def median_ms(fn, runs=4):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default=str(ROOT / "var" / "awrlens.sqlite"))
    args = ap.parse_args()
    app = create_app(Settings.from_env({"AWRLENS_ANSWER_CACHE_MB": "0"}, targets={"demo": {"sqlite": args.store}}))
    with app.app_context():
        for name in ("RACPROD", "ORCL"):
            db = app.extensions["awrlens"].database(name)
            last = max(db.timeline().snap_ids)
            for days in (1, 45):
                rng = db.resolve(begin_snap=last - days * 48, end_snap=last)
                four = median_ms(
                    lambda db=db, rng=rng: [top_sql.compute(db, rng, o, 10) for o in report.TOP_SQL_ORDERS]
                )
                one = median_ms(lambda db=db, rng=rng: top_sql.by_orders(db, rng, report.TOP_SQL_ORDERS, 10))
                print(f"{name} {days} days: four statements {four} ms, one ranked {one} ms")


if __name__ == "__main__":
    main()
