"""What the tests of imported report files share (tests/test_report_import.py, tests/test_report_statspack.py): the
Load Profile's printed labels under the app's names, Oracle's rounding of a printed rate, a file's snapshots by its
name, and the check that an imported database's Load Profile gives back what a report printed."""

import re
from pathlib import Path

# Statspack's Load Profile labels -> the app's rows (docs/awr-rules.md §13); AWR 11.2 prints the same labels but for
# DB Time(s) and DB CPU(s), which it prints as the app names them
LABELS = {
    "DB time(s)": "DB Time(s)",
    "DB CPU(s)": "DB CPU(s)",
    "Redo size": "Redo size (bytes)",
    "Logical reads": "Logical read (blocks)",
    "Block changes": "Block changes",
    "Physical reads": "Physical read (blocks)",
    "Physical writes": "Physical write (blocks)",
    "User calls": "User calls",
    "Parses": "Parses (SQL)",
    "Hard parses": "Hard parses (SQL)",
    "W/A MB processed": "SQL Work Area (MB)",
    "Logons": "Logons",
    "Executes": "Executes (SQL)",
    "Rollbacks": "Rollbacks",
    "Transactions": "Transactions",
}


def within(printed: float, value: float) -> bool:
    """Oracle rounds a Load Profile rate to two decimals, then prints one: a printed v covers [v - 0.055, v + 0.045)."""
    return printed - 0.055 <= value < printed + 0.045


def snaps(path: Path) -> tuple[int, int]:
    """A report file's begin and end snapshots, as Oracle's scripts name it (awrrpt_1_10_12.txt, sp_10_12.lst)."""
    lo, hi = re.search(r"_(\d+)_(\d+)\.", path.name).groups()
    return int(lo), int(hi)


def given_back(path: Path, printed: dict, body: dict) -> int:
    """Every Load Profile row a report printed (label -> (per second, per transaction)) is the row of the app's
    load-profile answer `body` (under its name, LABELS) within Oracle's rounding: the rows compared."""
    rows = {r["metric"]: r for r in body["rows"]}
    for label, (per_second, per_txn) in printed.items():
        row = rows[LABELS.get(label, label)]  # every row Oracle printed, the app computes (§13)
        assert within(per_second, row["per_second"]), (path.name, label, per_second, row["per_second"])
        if per_txn is not None:
            assert within(per_txn, row["per_transaction"]), (path.name, label, per_txn, row["per_transaction"])
    return len(printed)
