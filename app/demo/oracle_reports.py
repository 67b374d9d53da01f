"""Oracle's own reports in the demo store (docs/awr-rules.md §27), rendered when the store is built, from its own rows:

- AWR reports, in the layout of Oracle's (header with the snapshots, elapsed and DB time; Load Profile; top foreground
  events; SQL ordered by elapsed time), for a few ranges that tell the stories: ORCL before and after the async I/O
  fix and the two compared; RACPROD during the plan regression, global and for instance 1, and compared with the same
  hours before it. Stored in reports.AWR_REPORTS, the stand-in for what DBMS_WORKLOAD_REPOSITORY renders on request.
- SQL monitor reports of the long executions: the nightly batch's statements (each execution minutes long) over the
  last days of ASH. A row of DBA_HIST_REPORTS per execution, its text in reports.MONITOR_REPORTS, the stand-in for
  DBA_HIST_REPORTS_DETAILS. An execution's elapsed time, CPU, gets and reads are its interval's DBA_HIST_SQLSTAT deltas
  divided by the interval's executions, so the list agrees with top SQL. Oracle monitors an execution once it has
  used 5 s of CPU or I/O time (or runs in parallel): the plan regression's executions, 0.52 s each, are not.

Every value is read back from the store with plain SQL; the text of SQL statements is escaped in the HTML, as
Oracle's reports escape it. This module picks the ranges and writes the tables; `awr_reports` renders an AWR report,
`monitor_reports` the SQL monitor reports, `report_style` holds what both look like.
"""

import random
import sqlite3
import zlib
from contextlib import closing
from datetime import datetime, timedelta

from app.demo.awr_reports import awr_report
from app.demo.monitor_reports import add_monitored
from app.store.awr.embedded.reports import AWR_REPORTS, MONITOR_REPORTS


def add_reports(path, public: dict, monitor_days: float, seed: int = 42) -> None:
    """Write the demo's AWR and SQL monitor reports into the store at `path` (before it is packed)."""
    with closing(sqlite3.connect(path)) as con:
        for table in (AWR_REPORTS, MONITOR_REPORTS):
            cols = ", ".join(f'"{c.name}"' for c in table.columns)
            key = ", ".join(f'"{c.name}"' for c in table.primary_key.columns)
            con.execute(f"CREATE TABLE {table.name} ({cols}, PRIMARY KEY ({key})) WITHOUT ROWID")
        dbs = {d["db_name"]: d for d in public["databases"]}
        orcl, rac = dbs["ORCL"], dbs["RACPROD"]
        fix = datetime.fromisoformat(public["async_io_fix"]["startup_time"]).replace(tzinfo=None)
        before, after = _hours(con, orcl, fix - timedelta(days=1)), _hours(con, orcl, fix + timedelta(days=1))
        regression = datetime.fromisoformat(public["plan_regression"]["to"]).replace(tzinfo=None)
        during, earlier = (
            _hours(con, rac, regression - timedelta(days=1)),
            _hours(con, rac, regression - timedelta(days=3)),
        )
        ranges = [
            (orcl, [1], before, None),
            (orcl, [1], after, None),
            (orcl, [1], before, after),
            (rac, [1, 2], during, None),
            (rac, [1], during, None),
            (rac, [1, 2], earlier, during),
        ]
        for db, instances, a, b in ranges:
            for kind_type in ("html", "text"):
                kind = ("global" if len(instances) > 1 else "report") + ("_diff" if b else "")
                kind = "diff" if kind == "report_diff" else kind
                text = awr_report(con, db, instances, a, b, kind_type)
                con.execute(
                    f"INSERT INTO {AWR_REPORTS.name} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        db["dbid"],
                        kind,
                        ",".join(map(str, instances)),
                        *a,
                        *(b or (0, 0)),
                        kind_type,
                        zlib.compress(text.encode(), 9),
                    ),
                )
        rng = random.Random(f"{seed}:sqlmonitor")
        report_id = 1
        for db in (orcl, rac):
            report_id = add_monitored(con, db, monitor_days, rng, report_id)
        con.commit()


def _hours(con, db, day: datetime) -> tuple[int, int]:
    """The snapshots of 10:00 and 12:00 (database time) of `day`: two hours, four intervals."""
    ids = []
    for hh in (10, 12):
        at = day.replace(hour=hh, minute=0, second=0).isoformat(" ")
        ids.append(
            con.execute(
                "SELECT min(snap_id) FROM dba_hist_snapshot WHERE dbid = ? AND end_interval_time = ?", (db["dbid"], at)
            ).fetchone()[0]
        )
    return ids[0], ids[1]
