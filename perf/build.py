"""The demo history build (BENCHMARKS.md, "The demo store"): the wall and CPU time of `flask --app app demo` (the
45-day store `make run` builds on a fresh machine, its instances drawn by worker processes) and the store's size.

Usage: .venv/bin/python perf/build.py [--days 45]   (--quick builds the fewest days the demo's stories fit in)
"""

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.builder import MIN_DAYS
from perf import harness


def main():
    parser = harness.options(__doc__, store=None)
    parser.add_argument("--days", type=int, default=45)
    args = harness.parse(parser, quick={"days": MIN_DAYS})
    from app import demo

    with tempfile.TemporaryDirectory(prefix="awrlens-build-") as tmp:
        path = Path(tmp) / "demo.sqlite"
        before, started = os.times(), time.perf_counter()
        demo.build(path, days=args.days)
        wall, after = time.perf_counter() - started, os.times()
        size = path.stat().st_size
    cpu = sum(getattr(after, f) - getattr(before, f) for f in ("user", "system", "children_user", "children_system"))
    results = {"days": args.days, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "size_mb": round(size / 1e6, 1)}
    print(f"demo build, {args.days} days: {wall:.1f} s wall, {cpu:.1f} s CPU, {results['size_mb']} MB")
    harness.write("build", results, args)


if __name__ == "__main__":
    main()
