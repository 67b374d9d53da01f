"""A realistic, deterministic AWR history for the embedded store (`flask --app app demo`).

Two databases with 30-minute snapshots: ORCL, a single-instance RDS-like database on 4 vCPUs, and RACPROD, a
two-node RAC on 16 vCPUs per node (database time zone +01:00). The workload follows daily and weekly cycles, and
the counters are derived from one model per interval, so the views agree with each other the way Oracle's do:
DB time = DB CPU + foreground non-idle waits (+ CPU queueing when saturated), sysmetric rates = sysstat deltas
/ seconds, OSSTAT BUSY + IDLE = seconds x NUM_CPUS x 100.

Stories (returned by build() and listed by `flask demo`):
- async_io_fix: ORCL is I/O bound (~101 TPS, ~90 ms per transaction, iowait > 70 %) until FILESYSTEMIO_OPTIONS
  is set and the instance restarts (~136 TPS, ~70 ms), as in field test 004 (docs/field-tests.md);
- restart: RACPROD instance 2 crashes, three snapshots are missing, its counters restart from zero;
- manual_snapshot: a manual ORCL snapshot 4 minutes after an automatic one;
- plan_regression: a RACPROD statement switches plan, its elapsed per execution jumps and CPU saturates,
  until a SQL plan baseline restores the old plan;
- batch: a nightly batch (01:00-03:00 local) of full scans and direct-path I/O; RMAN backups on Sunday nights.

By concern: `names` (the statistic, event and metric names and their ids), `workload` (the databases, their stories,
the snapshot schedule and the model's per-second rates), `sql` (the SQL catalog), `rows` (the row generator of one
instance, with the views of its own: `sqlstats`, `sysmetrics`, `tablespaces`, `detail`, `ash`, `parameters`),
`plan_trees` and `plans` (the execution plans), `binds` (the captured bind values), `oracle_reports` (Oracle's own
reports: `awr_reports`, `monitor_reports`, `report_style`) and `builder` (the parallel per-instance build, the merge
and progress).
"""

from app.demo.builder import DETAIL_DAYS, build

__all__ = ["DETAIL_DAYS", "build"]
