"""A/B of the series answer in-process (perf/series.py's floor_vs_api) between two checkouts, alternating, so that a
refactoring's cost is measured under the same load: each round runs old then new, each against the raw LAG query.

Usage: .venv/bin/python perf/ab_series.py OLD_TREE NEW_TREE STORE [ROUNDS]
  e.g. git worktree add /tmp/old <commit>; ln -s $PWD/.venv /tmp/old/.venv
       .venv/bin/python perf/ab_series.py /tmp/old . var/awrlens.sqlite 7
"""

import json
import statistics
import subprocess
import sys
from pathlib import Path

CODE = r'''  # run in each tree; a tree from before the layout step has the scripts in bench/
import sys, json
sys.path.insert(0, ".")
try:
    from perf import series as s
except ImportError:
    from bench import series as s
from pathlib import Path
f = s.floor_vs_api(Path(sys.argv[1]))
print(json.dumps(f))
'''
OLD, NEW, STORE = sys.argv[1:4]
out = {"old": [], "new": []}
for _round in range(int(sys.argv[4]) if len(sys.argv) > 4 else 5):
    for name, tree in (("old", OLD), ("new", NEW)):
        r = subprocess.run(
            [f"{tree}/.venv/bin/python", "-c", CODE, str(Path(STORE).resolve())],
            cwd=tree,
            capture_output=True,
            text=True,
            check=True,
        )
        f = json.loads(r.stdout.strip().splitlines()[-1])
        out[name].append((f["api_in_process_ms"], f["raw_lag_ms"], f["api_in_process_ms"] / f["raw_lag_ms"]))
        print(f"{name}: API {f['api_in_process_ms']:.2f} ms, LAG query {f['raw_lag_ms']:.2f} ms", flush=True)
for name, rows in out.items():
    print(
        f"{name}: median API {statistics.median(r[0] for r in rows):.2f} ms, median ratio to the LAG query "
        f"{statistics.median(r[2] for r in rows):.3f}"
    )
