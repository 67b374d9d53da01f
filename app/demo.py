"""A realistic, deterministic AWR history for the embedded store (`flask --app app demo`).

Two databases with 30-minute snapshots: ORCL, a single-instance RDS-like database on 4 vCPUs, and RACPROD, a
two-node RAC on 16 vCPUs per node (database time zone +01:00). The workload follows daily and weekly cycles, and
the counters are derived from one model per interval, so the views agree with each other the way Oracle's do:
DB time = DB CPU + foreground non-idle waits (+ CPU queueing when saturated), sysmetric rates = sysstat deltas
/ seconds, OSSTAT BUSY + IDLE = seconds x NUM_CPUS x 100.

Stories (returned by build() and listed by `flask demo`):
- async_io_fix: ORCL is I/O bound (~101 TPS, ~90 ms per transaction, iowait > 70 %) until FILESYSTEMIO_OPTIONS
  is set and the instance restarts (~136 TPS, ~70 ms), as in field-results.md;
- restart: RACPROD instance 2 crashes, three snapshots are missing, its counters restart from zero;
- manual_snapshot: a manual ORCL snapshot 4 minutes after an automatic one;
- plan_regression: a RACPROD statement switches plan, its elapsed per execution jumps and CPU saturates,
  until a SQL plan baseline restores the old plan;
- batch: a nightly batch (01:00-03:00 local) of full scans and direct-path I/O; RMAN backups on Sunday nights.
"""
import math
import multiprocessing
import os
import random
import sqlite3
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import create_engine

from app.runs import demo_runs
from app.store.schema import views

END = datetime(2026, 11, 20, 6, 0)  # UTC instant of the newest snapshot by default: the file is reproducible
STEP = 1800
DETAIL_DAYS = 8  # per-minute sysmetric history kept for the most recent days only
MB = 1048576

# -- statistic names -----------------------------------------------------------------------------------------
# name: driver x coefficient, per second. Drivers are the model's quantities (see _rates).
SYSSTAT = """
user commits|commit|1;user rollbacks|rollback|1;execute count|exec|1;user calls|call|1;recursive calls|rec|1
session logical reads|lread|1;db block gets|cur|1;db block gets from cache|cur|1;consistent gets|cons|1
consistent gets from cache|cons|0.97;consistent gets direct|cons|0.03;db block changes|chg|1;consistent changes|chg|0.02
physical reads|pread|1;physical reads cache|pcache|1;physical reads direct|pdirect|1;physical reads direct temporary tablespace|ptemp|1
physical writes|pwrite|1;physical writes from cache|pwrite|0.9;physical writes direct|pwrite|0.1;physical writes direct temporary tablespace|ptemp|0.9
physical read IO requests|rreq|1;physical write IO requests|wreq|1;physical read bytes|rbytes|1;physical write bytes|wbytes|1
physical read total IO requests|trreq|1;physical write total IO requests|twreq|1;physical read total bytes|trbytes|1
physical write total bytes|twbytes|1;physical read total multi block requests|mreq|1;physical write total multi block requests|wreq|0.05
redo size|redo|1;redo entries|redo_entries|1;redo writes|redo_writes|1;redo blocks written|redo|0.0021;redo write time|redo_writes|0.08
redo synch writes|commit|1.02;redo synch time|commit|0.5;redo wastage|redo_writes|260;redo log space requests|one|0.001;redo ordering marks|one|0.3
undo change vector size|redo|0.31;CPU used by this session|cpu_cs|1;CPU used when call started|cpu_cs|0.98;recursive cpu usage|cpu_cs|0.12
parse time cpu|cpu_cs|0.02;parse time elapsed|cpu_cs|0.03;DB time|dbtime_cs|1;non-idle wait time|wait_cs|1;non-idle wait count|wait_count|1
user I/O wait time|io_cs|1;concurrency wait time|wait_cs|0.02;application wait time|wait_cs|0.01;cluster wait time|gc_cs|1
scheduler wait time|sched_cs|1;file io wait time|io_cs|10000;file io service time|io_cs|9000;in call idle wait time|call|0.6
parse count (total)|parse|1;parse count (hard)|hard|1;parse count (failures)|one|0.002;parse count (describe)|one|0.01
opened cursors cumulative|parse|1.1;session cursor cache hits|parse|0.8;logons cumulative|logon|1;user logons cumulative|logon|0.9
user logouts cumulative|logon|0.9;sorts (memory)|sort|1;sorts (disk)|batch|0.2;sorts (rows)|sort|40;table scans (short tables)|exec|0.04
table scans (long tables)|mreq|0.002;table scan rows gotten|lread|3;table scan blocks gotten|lread|0.3;table fetch by rowid|lread|0.45
table fetch continued row|lread|0.002;index fast full scans (full)|exec|0.001;index fetch by key|exec|1.9;index scans kdiixs1|exec|1.4
leaf node splits|chg|0.0006;leaf node 90-10 splits|chg|0.0002;branch node splits|chg|0.00001;bytes sent via SQL*Net to client|call|2100
bytes received via SQL*Net from client|call|900;SQL*Net roundtrips to/from client|call|1;bytes sent via SQL*Net to dblink|one|40
bytes received via SQL*Net from dblink|one|300;SQL*Net roundtrips to/from dblink|one|0.2;Requests to/from client|call|1
workarea executions - optimal|sort|1.1;workarea executions - onepass|batch|0.02;workarea executions - multipass|batch|0.0005
enqueue requests|txn|4;enqueue releases|txn|4;enqueue waits|txn|0.01;enqueue timeouts|one|0.01;enqueue deadlocks|one|0.00001
enqueue conversions|txn|0.2;free buffer requested|pread|1.2;free buffer inspected|pread|0.1;dirty buffers inspected|pwrite|0.05
pinned buffers inspected|pread|0.002;hot buffers moved to head of LRU|lread|0.01;buffer is pinned count|lread|0.6
buffer is not pinned count|lread|0.7;no work - consistent read gets|cons|0.8;cleanouts only - consistent read gets|chg|0.01
rollbacks only - consistent read gets|chg|0.005;cleanouts and rollbacks - consistent read gets|chg|0.002
immediate (CURRENT) block cleanout applications|chg|0.03;immediate (CR) block cleanout applications|chg|0.01
deferred (CURRENT) block cleanout applications|chg|0.05;commit cleanouts|commit|3;commit cleanouts successfully completed|commit|2.98
transaction rollbacks|rollback|0.4;rollback changes - undo records applied|rollback|3;data blocks consistent reads - undo records applied|chg|0.02
cluster key scans|exec|0.05;cluster key scan block gets|exec|0.1;rows fetched via callback|lread|0.2;messages sent|redo_writes|1.3
messages received|redo_writes|1.3;background timeouts|one|2.5;calls to kcmgcs|lread|0.01;calls to kcmgas|txn|1.1
calls to get snapshot scn: kcmgss|exec|1.3;DBWR checkpoint buffers written|pwrite|0.3;DBWR transaction table writes|one|0.01
DBWR undo block writes|pwrite|0.2;DBWR checkpoints|one|0.0003;DBWR thread checkpoint buffers written|pwrite|0.02
DBWR object drop buffers written|one|0.001;DBWR lru scans|pwrite|0.001;DBWR revisited being-written buffer|pwrite|0.0001
gc cr blocks received|gc|0.6;gc current blocks received|gc|0.4;gc cr block receive time|gc|0.03;gc current block receive time|gc|0.025
gc cr blocks served|gc|0.6;gc current blocks served|gc|0.4;global enqueue gets sync|gc|0.3;global enqueue releases|gc|0.3
gcs messages sent|gc|1.5;ges messages sent|gc|0.2;lob reads|exec|0.01;lob writes|exec|0.005;heap block compress|chg|0.001
HSC Heap Segment Block Changes|chg|0.4;shared hash latch upgrades - no wait|lread|0.005;switch current to new buffer|chg|0.01
write clones created in foreground|chg|0.0001;prefetched blocks aged out before use|pread|0.001;physical reads prefetch warmup|one|0
IMU commits|commit|0.7;IMU Flushes|commit|0.05;IMU undo allocation size|commit|9000;queries parallelized|batch|0.01
DML statements parallelized|batch|0.001;DDL statements parallelized|batch|0.0002;PX local messages sent|batch|40;PX local messages recv'd|batch|40
Parallel operations not downgraded|batch|0.01;Batched IO vector read count|mreq|0.1;CCursor + sql area evicted|hard|0.8;sql area evicted|hard|0.9
sql area purged|one|0.001;OS CPU Qt wait time|sched_cs|1;Effective IO time|io_cs|9500;Number of read IOs issued|mreq|1
temp space allocated (bytes)|ptemp|8192;lob reads|exec|0.01;session connect time|logon|0;process last non-idle time|one|1
"""
READINGS = """
logons current|sessions|1;opened cursors current|sessions|7.5;session cursor cache count|sessions|40
session pga memory|sessions|4200000;session pga memory max|sessions|6500000;session uga memory|sessions|1500000
session uga memory max|sessions|2600000;workarea memory allocated|sessions|30000;session stored procedure space|sessions|800
"""
TIME_MODEL = (  # name: share of a driver
    ("DB time", "dbtime", 1), ("DB CPU", "dbcpu", 1), ("background cpu time", "bgcpu", 1),
    ("background elapsed time", "bgcpu", 4.2), ("sql execute elapsed time", "dbtime", 0.88),
    ("parse time elapsed", "dbtime", 0.03), ("hard parse elapsed time", "dbtime", 0.012),
    ("hard parse (sharing criteria) elapsed time", "dbtime", 0.003),
    ("hard parse (bind mismatch) elapsed time", "dbtime", 0.0004), ("failed parse elapsed time", "dbtime", 0.0001),
    ("failed parse (out of shared memory) elapsed time", "dbtime", 0.0), ("PL/SQL execution elapsed time", "dbtime", 0.06),
    ("PL/SQL compilation elapsed time", "dbtime", 0.001), ("inbound PL/SQL rpc elapsed time", "dbtime", 0.0),
    ("Java execution elapsed time", "dbtime", 0.0005), ("connection management call elapsed time", "dbtime", 0.004),
    ("sequence load elapsed time", "dbtime", 0.002), ("repeated bind elapsed time", "dbtime", 0.0002),
    ("RMAN cpu time (backup/restore)", "rman", 1),
)
# event | wait class | driver | share of the driver | average ms | background share
EVENTS = """
log file sync|Commit|commit|1|1|0
db file sequential read|User I/O|sread|0.86|1|0.02
db file parallel read|User I/O|sread|0.08|3|0
read by other session|User I/O|sread|0.05|1.2|0
Disk file operations I/O|User I/O|sread|0.01|0.05|0.2
db file scattered read|User I/O|mread|0.3|6|0
direct path read|User I/O|mread|0.55|9|0
direct path read temp|User I/O|mread|0.08|4|0
direct path write temp|User I/O|mread|0.05|5|0
direct path write|User I/O|mread|0.02|3|0.1
log file parallel write|System I/O|redo_bg|1|1|1
db file parallel write|System I/O|dbwr_bg|1|1|1
control file parallel write|System I/O|ctl|0.6|1.5|1
control file sequential read|System I/O|ctl|0.4|0.3|0.7
log file sequential read|System I/O|rman|0.2|4|1
Log archive I/O|System I/O|rman|0.1|3|1
RMAN backup & recovery I/O|System I/O|rman|0.7|12|1
enq: TX - row lock contention|Application|app|0.8|45|0
enq: TM - contention|Application|app|0.15|30|0
SQL*Net break/reset to client|Application|app|0.05|0.3|0
buffer busy waits|Concurrency|conc|0.3|0.8|0.05
latch: cache buffers chains|Concurrency|conc|0.2|0.1|0
cursor: pin S wait on X|Concurrency|conc|0.1|6|0
library cache: mutex X|Concurrency|conc|0.15|0.2|0
latch: shared pool|Concurrency|conc|0.05|0.5|0.1
enq: TX - index contention|Concurrency|conc|0.15|3|0
library cache lock|Concurrency|conc|0.05|2|0
log file switch (checkpoint incomplete)|Configuration|config|0.25|60|0
log file switch completion|Configuration|config|0.25|25|0
free buffer waits|Configuration|config|0.3|18|0
log buffer space|Configuration|config|0.1|9|0
enq: HW - contention|Configuration|config|0.05|2|0
write complete waits|Configuration|config|0.05|30|0
SQL*Net message to client|Network|net|0.6|0.002|0
SQL*Net more data from client|Network|net|0.3|0.05|0
SQL*Net more data to client|Network|net|0.1|0.01|0
gc cr block 2-way|Cluster|gcwait|0.3|0.4|0
gc current block 2-way|Cluster|gcwait|0.25|0.45|0
gc cr grant 2-way|Cluster|gcwait|0.1|0.25|0
gc current grant 2-way|Cluster|gcwait|0.05|0.25|0
gc buffer busy acquire|Cluster|gcwait|0.1|2|0
gc cr multi block request|Cluster|gcwait|0.1|1.5|0
gc current block busy|Cluster|gcwait|0.06|4|0
gc cr block busy|Cluster|gcwait|0.04|3|0
resmgr:cpu quantum|Scheduler|sched|1|15|0
ADR block file read|Other|other|0.05|1|0.5
reliable message|Other|other|0.2|0.7|0.2
enq: CF - contention|Other|other|0.1|4|0.5
latch free|Other|other|0.1|0.2|0.1
os thread startup|Other|other|0.1|20|0.7
PX Deq: Slave Session Stats|Other|other|0.05|0.2|0
DLM cross inst call completion|Other|other|0.2|1.2|0.3
IPC send completion sync|Other|other|0.2|0.5|0.3
Backup: MML write backup piece|Administrative|rman|0.0001|40|1
switch logfile command|Administrative|other|0.0|10|0
Streams AQ: enqueue blocked on low memory|Queueing|other|0.0|100|0
SQL*Net message from client|Idle|idle_client|1|1|0
rdbms ipc message|Idle|idle_bg|0.5|900|1
Space Manager: slave idle wait|Idle|idle_bg|0.1|5000|1
DIAG idle wait|Idle|idle_bg|0.08|1000|1
pmon timer|Idle|idle_bg|0.02|3000|1
smon timer|Idle|idle_bg|0.02|300000|1
Streams AQ: qmn coordinator idle wait|Idle|idle_bg|0.02|28000|1
Streams AQ: qmn slave idle wait|Idle|idle_bg|0.02|28000|1
jobq slave wait|Idle|idle_bg|0.05|500|1
PX Idle Wait|Idle|idle_bg|0.02|2000|1
watchdog main loop|Idle|idle_bg|0.02|3000|1
LGWR worker group idle|Idle|idle_bg|0.04|500|1
VKTM Logical Idle Wait|Idle|idle_bg|0.02|10000000|1
heartbeat redo informer|Idle|idle_bg|0.02|1000|1
AQPC idle|Idle|idle_bg|0.02|30000|1
lreg timer|Idle|idle_bg|0.02|3000|1
pman timer|Idle|idle_bg|0.02|3000|1
gcs remote message|Idle|idle_rac|0.6|30|1
ges remote message|Idle|idle_rac|0.4|30|1
"""
# name, unit, how the value comes from the interval's rates (a key of _metrics); per-minute history when starred
METRICS = """
Host CPU Utilization (%)*|% Busy/(Idle+Busy)|host_pct
Average Active Sessions*|Active Sessions|aas
Database Time Per Sec*|CentiSeconds Per Second|dbtime_cs
CPU Usage Per Sec*|CentiSeconds Per Second|cpu_cs
CPU Usage Per Txn|CentiSeconds Per Txn|cpu_cs/txn
Background CPU Usage Per Sec|CentiSeconds Per Second|bgcpu_cs
Host CPU Usage Per Sec|CentiSeconds Per Second|busy_cs
Database CPU Time Ratio|% Cpu/DB_Time|cpu_ratio
Database Wait Time Ratio|% Wait/DB_Time|wait_ratio
I/O Megabytes per Second*|Megabtyes per Second|io_mb
I/O Requests per Second*|Requests per Second|io_req
User Transaction Per Sec*|Transactions Per Second|txn
User Commits Per Sec|Commits Per Second|commit
User Rollbacks Per Sec|Rollbacks Per Second|rollback
Executions Per Sec*|Executes Per Second|exec
Executions Per Txn|Executes Per Txn|exec/txn
User Calls Per Sec|Calls Per Second|call
User Calls Per Txn|Calls Per Txn|call/txn
Recursive Calls Per Sec|Calls Per Second|rec
Recursive Calls Per Txn|Calls Per Txn|rec/txn
Logical Reads Per Sec*|Reads Per Second|lread
Logical Reads Per Txn|Reads Per Txn|lread/txn
Physical Reads Per Sec*|Reads Per Second|pread
Physical Reads Per Txn|Reads Per Txn|pread/txn
Physical Writes Per Sec|Writes Per Second|pwrite
Physical Writes Per Txn|Writes Per Txn|pwrite/txn
Physical Read Total IO Requests Per Sec|Requests Per Second|trreq
Physical Write Total IO Requests Per Sec|Requests Per Second|twreq
Physical Read Total Bytes Per Sec|Bytes Per Second|trbytes
Physical Write Total Bytes Per Sec|Bytes Per Second|twbytes
Redo Generated Per Sec*|Bytes Per Second|redo
Redo Generated Per Txn|Bytes Per Txn|redo/txn
Redo Writes Per Sec|Writes Per Second|redo_writes
Redo Writes Per Txn|Writes Per Txn|redo_writes/txn
DB Block Changes Per Sec|Blocks Per Second|chg
DB Block Changes Per Txn|Blocks Per Txn|chg/txn
Total Parse Count Per Sec|Parses Per Second|parse
Total Parse Count Per Txn|Parses Per Txn|parse/txn
Hard Parse Count Per Sec|Parses Per Second|hard
Hard Parse Count Per Txn|Parses Per Txn|hard/txn
Logons Per Sec|Logons Per Second|logon
Logons Per Txn|Logons Per Txn|logon/txn
Network Traffic Volume Per Sec|Bytes Per Second|net
Response Time Per Txn*|CentiSeconds Per Txn|dbtime_cs/txn
SQL Service Response Time|CentiSeconds Per Call|dbtime_cs/call
User Rollback UndoRec Applied Per Sec|Records Per Second|undo_applied
User Rollback Undo Records Applied Per Txn|Records Per Txn|undo_applied/txn
Buffer Cache Hit Ratio|% (LogRead - PhyRead)/LogRead|bchr
Soft Parse Ratio|% SoftParses/TotalParses|soft_pct
Average Synchronous Single-Block Read Latency*|Milliseconds|sread_ms
Current OS Load*|Number Of Processes|load
Session Count*|Sessions|sessions
Current Logons Count|Logons|sessions
GC CR Block Received Per Second|Blocks Per Second|gc_cr
GC CR Block Received Per Txn|Blocks Per Txn|gc_cr/txn
"""
IO_FUNCTIONS = ["RMAN", "DBWR", "LGWR", "ARCH", "XDB", "Streams AQ", "Data Pump", "Recovery", "Buffer Cache Reads",
                "Direct Reads", "Direct Writes", "Smart Scan", "Archive Manager", "Others"]
IO_FILETYPES = ["Other", "Control File", "Data File", "Log File", "Archive Log", "Temp File", "Data File Backup",
                "Data File Incremental Backup", "Archive Log Backup", "Data File Copy", "Flashback Log",
                "Data Pump Dump File"]


def _table(text):
    return [line.split("|") for part in text.strip().splitlines() for line in part.split(";") if line]


def _stat_id(name: str) -> int:
    return zlib.crc32(name.encode())


def _dedupe(rows):
    seen, out = set(), []
    for r in rows:
        if r[0] not in seen:
            seen.add(r[0])
            out.append(r)
    return out


SYSSTAT_ROWS = [(_stat_id(n), n, d, float(c)) for n, d, c in _dedupe(_table(SYSSTAT))]
READING_ROWS = [(_stat_id(n), n, d, float(c)) for n, d, c in _table(READINGS)]
TIME_MODEL_ROWS = [(_stat_id(n), n, d, float(c)) for n, d, c in TIME_MODEL]
EVENT_ROWS = [(_stat_id(n), n, wc, _stat_id(wc), drv, float(share), float(ms), float(bg))
              for n, wc, drv, share, ms, bg in _table(EVENTS)]
METRIC_ROWS = [(2000 + k, n.rstrip("*"), unit, how, n.endswith("*")) for k, (n, unit, how) in enumerate(_table(METRICS))]


# -- the databases and their stories ----------------------------------------------------------------------------

@dataclass
class Instance:
    number: int
    name: str
    host: str
    startup: datetime  # database-local
    missing: set = field(default_factory=set)  # snapshot times (local) it has no row for
    restarts: dict = field(default_factory=dict)  # first snapshot time after a restart -> startup time


@dataclass
class Demo:
    dbid: int
    name: str
    cpus: int
    cores: int
    memory_gb: int
    tz: int  # seconds east of UTC
    rac: bool
    instances: list
    peak_tps: float  # demand per instance on a weekday afternoon
    capacity: float | None = None  # TPS the I/O can sustain (ORCL before the fix)
    snap_base: int = 1
    block_size: int = 8192
    sql_seed: int = 0


def _local(db, moment_utc: datetime) -> datetime:
    return moment_utc + timedelta(seconds=db.tz)


def _fmt(moment: datetime) -> str:
    return moment.isoformat(" ", "seconds")


def _iso(db, local: datetime) -> str:
    return local.replace(tzinfo=timezone(timedelta(seconds=db.tz))).isoformat(timespec="seconds")


def _databases(end_utc: datetime, days: int):
    start_utc = end_utc - timedelta(days=days)
    orcl = Demo(1645932817, "ORCL", 4, 2, 32, 0, False,
                [Instance(1, "ORCL", "ip-10-0-1-23", _local_start(start_utc, 0))], peak_tps=190.0,
                capacity=101.0, snap_base=20001, sql_seed=1)
    rac = Demo(3120466125, "RACPROD", 16, 8, 256, 3600, True,
               [Instance(1, "RACPROD1", "racprod-node1", _local_start(start_utc, 3600)),
                Instance(2, "RACPROD2", "racprod-node2", _local_start(start_utc, 3600))],
               peak_tps=420.0, snap_base=8101, sql_seed=2)
    return orcl, rac


def _local_start(start_utc, tz):
    return (start_utc + timedelta(seconds=tz) - timedelta(days=19, hours=3, minutes=17)).replace(second=12)


def _stories(orcl: Demo, rac: Demo, end_utc: datetime) -> dict:
    """Place the stories relative to the newest snapshot so a short history still holds all of them."""
    def at(db, days_before, hh, mm):
        day = (_local(db, end_utc) - timedelta(days=days_before)).replace(hour=hh, minute=mm, second=0)
        return day

    fix_startup = at(orcl, 5, 10, 21).replace(second=7)
    orcl.instances[0].restarts[at(orcl, 5, 10, 30)] = fix_startup
    manual = at(orcl, 2, 10, 4)
    crash_startup = at(rac, 7, 15, 52).replace(second=41)
    node2 = rac.instances[1]
    node2.missing = {at(rac, 7, 14, 30) + timedelta(minutes=30 * k) for k in range(3)}
    node2.restarts[at(rac, 7, 16, 0)] = crash_startup
    return {
        "async_io_fix": {"db": orcl, "startup": fix_startup, "before": {"tps": 101, "response_ms": 90},
                         "after": {"tps": 136, "response_ms": 70},
                         "change": "ALTER SYSTEM SET FILESYSTEMIO_OPTIONS=SETALL SCOPE=SPFILE; restart"},
        "manual_snapshot": {"db": orcl, "time": manual},
        "restart": {"db": rac, "instance": 2, "startup": crash_startup, "missing": sorted(node2.missing)},
        "plan_regression": {"db": rac, "from": at(rac, 3, 9, 10), "to": at(rac, 2, 15, 40), "sql": REGRESSION},
        "batch": {"hours": "01:00-03:00 database time, nightly; RMAN backup Sunday 03:00-04:30"},
    }


# -- SQL -------------------------------------------------------------------------------------------------------
TABLES = ["orders", "order_lines", "customers", "products", "inventory", "payments", "shipments", "invoices",
          "warehouses", "suppliers", "price_lists", "audit_log", "sessions", "carts", "returns", "promotions"]
SQL_ID_ALPHABET = "0123456789abcdfghjkmnpqrstuvwxyz"
HOSTILE_SQL = [  # database text is data: the viewer must show these as text
    ("select '<script>alert(\"awrlens\")</script>' as banner from dual", 3, "<b>web</b>"),
    ("select /* <img src=x onerror=alert(1)> */ count(*) from orders where status = :b1", 3, "JDBC Thin Client"),
    ("update customers set note = '</td></tr><tr><td>injected' where customer_id = :1", 6, "<i>crm</i>"),
]


@dataclass
class Sql:
    sql_id: str
    text: str
    command_type: int
    module: str
    schema: str
    plan: int
    exec_weight: float  # share of executions
    ms: float  # elapsed per execution
    cpu: float  # CPU share of elapsed
    gets: float  # buffer gets per execution
    reads: float
    rows: float
    batch: bool = False
    bad_plan: int | None = None


def _sql_id(rng):
    return "".join(rng.choice(SQL_ID_ALPHABET) for _ in range(13))


# the statement whose plan regresses on RACPROD: a good nested-loops plan, then a bad hash-join plan
REGRESSION = Sql(_sql_id(random.Random(7)), "SELECT o.order_id, o.status, SUM(l.quantity * l.price) FROM orders o "
                 "JOIN order_lines l ON l.order_id = o.order_id WHERE o.customer_id = :1 AND o.created_at > "
                 "SYSDATE - :2 GROUP BY o.order_id, o.status", 3, "order-service", "APP", 1718423581, 0, 3.8, 0.96,
                 900, 0.5, 12, bad_plan=3904417271)


def _statement(rng, k):
    t, u = rng.choice(TABLES), rng.choice(TABLES)
    col = rng.choice(["id", "status", "created_at", "customer_id", "product_id", "region", "amount"])
    forms = [
        (3, f"SELECT * FROM {t} WHERE {t[:-1]}_id = :1"),
        (3, f"SELECT a.*, b.{col} FROM {t} a JOIN {u} b ON b.id = a.{u[:-1]}_id WHERE a.{col} = :1 "
            f"ORDER BY a.created_at DESC FETCH FIRST 50 ROWS ONLY"),
        (3, f"SELECT {col}, COUNT(*), SUM(amount) FROM {t} WHERE created_at >= :1 GROUP BY {col}"),
        (2, f"INSERT INTO {t} (id, {col}, created_at) VALUES (:1, :2, SYSTIMESTAMP)"),
        (6, f"UPDATE {t} SET {col} = :1, updated_at = SYSTIMESTAMP WHERE id = :2"),
        (7, f"DELETE FROM {t} WHERE id = :1"),
        (47, f"BEGIN pkg_{t}.process_{col}(:1, :2); END;"),
        (189, f"MERGE INTO {t} d USING (SELECT :1 id, :2 {col} FROM dual) s ON (d.id = s.id) "
              f"WHEN MATCHED THEN UPDATE SET d.{col} = s.{col} WHEN NOT MATCHED THEN INSERT (id, {col}) "
              f"VALUES (s.id, s.{col})"),
    ]
    kind, text = forms[k % len(forms)] if k % 3 else rng.choice(forms)
    return kind, f"{text} /* q{k} */" if k % 4 == 0 else text


def _sql_catalog(db: Demo) -> list[Sql]:
    rng = random.Random(1000 + db.sql_seed)
    modules = ["JDBC Thin Client", "order-service", "billing", "crm-web", "SQL*Plus", "reporting"]
    out = []
    for k in range(214):
        kind, text = _statement(rng, k)
        out.append(Sql(_sql_id(rng), text, kind, rng.choice(modules), rng.choice(["APP", "APP", "REPORTS", "CRM"]),
                       rng.randrange(10**9, 4 * 10**9), rng.paretovariate(1.2), rng.lognormvariate(1.0, 1.1),
                       rng.uniform(0.3, 0.9), rng.lognormvariate(4, 1.2), rng.lognormvariate(0, 1.5),
                       rng.lognormvariate(1.5, 1)))
    for text, kind, module in HOSTILE_SQL:
        out.append(Sql(_sql_id(rng), text, kind, module, "APP", rng.randrange(10**9, 4 * 10**9), 0.4, 2.0, 0.5,
                       40, 1, 1))
    for k, (text, ms) in enumerate([
            ("INSERT /*+ APPEND */ INTO sales_history SELECT * FROM orders WHERE created_at < TRUNC(SYSDATE)", 9e5),
            ("SELECT /*+ FULL(o) PARALLEL(4) */ region, SUM(amount) FROM orders o GROUP BY region", 6e5),
            ("BEGIN dbms_stats.gather_schema_stats('APP'); END;", 4e5),
            ("DELETE FROM audit_log WHERE created_at < SYSDATE - 90", 3e5)]):
        out.append(Sql(_sql_id(rng), text, 2 if k == 0 else 3 if k == 1 else 47 if k == 2 else 7, "BATCH_NIGHTLY",
                       "APP", rng.randrange(10**9, 4 * 10**9), 0.002, ms, 0.4, 5e6, 2e6, 1e5, batch=True))
    return out


# -- the workload model ----------------------------------------------------------------------------------------

def _daily(hour: float, weekday: int) -> float:
    """Share of the weekday-afternoon peak: business hours, lunch dip, quiet nights, quieter weekends."""
    day = 0.22 + 0.78 * math.exp(-((hour - 14.0) / 4.2) ** 2) - 0.08 * math.exp(-((hour - 12.5) / 0.6) ** 2)
    return day * (0.55 if weekday >= 5 else 1.0)


def _rates(db: Demo, inst: Instance, local: datetime, stories: dict, noise: float, days_in: float) -> dict:
    """Per-second quantities of one instance over the interval centred on `local`."""
    hour = local.hour + local.minute / 60
    weekday = local.weekday()
    fix = stories["async_io_fix"]
    fixed = db is not fix["db"] or local >= fix["startup"]
    reg = stories["plan_regression"]
    regressed = db is reg["db"] and reg["from"] <= local < reg["to"]
    batch = 1.0 if 1 <= hour < 3 else 0.0
    rman = 1.0 if weekday == 6 and 3 <= hour < 4.5 else 0.0
    growth = 1 + 0.1 * days_in / 45
    demand = db.peak_tps * _daily(hour, weekday) * growth * noise
    if db.capacity:  # ORCL is I/O bound at about 101 TPS (unstable) until the fix, then about 136 (stable)
        cap = 136.0 * (1 + 0.2 * (noise - 1)) if fixed else db.capacity * (1 + 0.9 * (noise - 1))
        demand = min(demand, cap)
    txn = demand
    q = {"txn": txn, "commit": txn * 0.97, "rollback": txn * 0.03, "batch": batch, "one": 1.0}
    q["exec"] = txn * (11 if not db.rac else 14)
    q["call"] = txn * 8
    q["rec"] = q["exec"] * 0.6
    q["lread"] = txn * (700 if not db.rac else 520) + batch * (90000 if db.rac else 30000)
    q["cur"] = q["lread"] * 0.12
    q["cons"] = q["lread"] - q["cur"]
    q["chg"] = txn * 28 + batch * 4000
    q["pcache"] = txn * (30 if not db.rac else 3)
    q["pdirect"] = batch * (52000 if db.rac else 14000)
    q["ptemp"] = batch * (1800 if db.rac else 500)
    q["pread"] = q["pcache"] + q["pdirect"] + q["ptemp"]
    q["mreq"] = q["pdirect"] / 128 + q["ptemp"] / 16
    q["rreq"] = q["pcache"] + q["mreq"]
    q["pwrite"] = txn * 2.2 + batch * 900
    q["wreq"] = q["pwrite"] * 0.7
    q["rbytes"] = q["pread"] * db.block_size
    q["wbytes"] = q["pwrite"] * db.block_size
    q["redo"] = txn * 5600 + batch * 1.4e6
    q["redo_writes"] = min(txn * 0.9, 900) + 2
    q["redo_entries"] = txn * 24 + batch * 900
    q["rman_mb"] = rman * (90 if not db.rac else 350)
    q["trreq"] = q["rreq"] + q["redo_writes"] * 0.01 + 3 + q["rman_mb"] * 1.1
    q["twreq"] = q["wreq"] + q["redo_writes"] + 2 + q["rman_mb"] * 0.2
    q["trbytes"] = q["rbytes"] + 40000 + q["rman_mb"] * MB
    q["twbytes"] = q["wbytes"] + q["redo"] * 1.1 + 30000 + q["rman_mb"] * 0.2 * MB
    q["parse"] = q["exec"] * 0.28
    q["hard"] = q["parse"] * (0.004 + 0.05 * batch)
    q["logon"] = 0.35 + txn * 0.002
    q["sort"] = q["exec"] * 0.05
    q["gc"] = txn * 6 + batch * 400 if db.rac else 0.0
    q["gc_cr"] = q["gc"] * 0.6
    q["net"] = q["call"] * 3000
    q["undo_applied"] = q["rollback"] * 3
    q["sessions"] = round((60 if not db.rac else 180) + 140 * _daily(hour, weekday) * (4 if db.rac else 1))

    # CPU (sessions = CPU seconds per second)
    cpu_want = txn * (0.008 if not db.rac else 0.011) + batch * (1.1 if not db.rac else 4.0) + rman * 0.3
    reg_execs = (30.0 * _daily(hour, weekday) + 3) if db.rac else 0.0
    reg_ms = 520.0 if regressed else 3.8
    cpu_want += reg_execs * reg_ms / 1000 * 0.96
    bg_cpu = 0.08 + txn * 0.0012 + batch * 0.2 + rman * 0.6
    capacity = db.cpus * 0.97 - bg_cpu - 0.1
    db_cpu = min(cpu_want, capacity)
    queue = max(cpu_want - capacity, 0.0) * 1.15  # run-queue time counted in DB time, not in any wait

    # Waits (foreground seconds per second), per driver
    lfs_ms = (22.0 if not fixed else 6.0) if not db.rac else 1.6
    sread_ms = 1.75 if not db.rac else 0.45
    mread_ms = 9.0 if not db.rac else 4.0
    if batch and db.rac:
        sread_ms *= 1.6
    w = {"commit": q["commit"] * lfs_ms / 1000,
         "sread": q["pcache"] * sread_ms / 1000,
         "mread": q["mreq"] * mread_ms / 1000 * 0.7,
         "app": 0.002 * txn ** 0.5 + 0.05 * batch,
         "conc": 0.0004 * txn + (0.4 * batch if db.rac else 0.02 * batch) + (0.6 if regressed else 0.0),
         "config": (0.0 if fixed else 0.008 * txn) + 0.02 * batch,
         "net": 0.00002 * q["call"],
         "gcwait": q["gc"] * 0.0005 if db.rac else 0.0,
         "sched": queue * 0.08,
         "other": 0.01 + 0.01 * batch,
         "ctl": 0.0005, "rman": 0.002 * rman}
    q["sread_ms"] = sread_ms
    q["lat"] = {"commit": lfs_ms, "sread": sread_ms, "mread": mread_ms, "config": 1.0 if fixed else 1.6}
    q["bg"] = {"redo_bg": q["redo_writes"] * (0.6 if fixed else 28.0 if not db.rac else 0.5) / 1000,
               "dbwr_bg": q["pwrite"] / 40 * (2 if fixed else 40) / 1000,
               "ctl": 0.004, "rman": 0.4 * rman, "other": 0.02, "idle_bg": 6.0 + 0 * txn,
               "idle_rac": 2.0 if db.rac else 0.0}
    q["bg_lat"] = {"redo_bg": 0.6 if fixed or db.rac else 28.0, "dbwr_bg": 2.0 if fixed else 40.0}
    q["idle_client"] = q["sessions"] * 0.92
    fg_waits = sum(w.values())
    q["w"] = w
    q["dbcpu"], q["bgcpu"], q["queue"] = db_cpu, bg_cpu, queue
    q["dbtime"] = db_cpu + fg_waits + queue
    q["rman"] = rman * 0.3
    q["cpu_cs"], q["dbtime_cs"], q["wait_cs"] = db_cpu * 100, q["dbtime"] * 100, fg_waits * 100
    q["io_cs"] = (w["sread"] + w["mread"]) * 100
    q["gc_cs"], q["sched_cs"] = w["gcwait"] * 100, w["sched"] * 100
    q["wait_count"] = q["commit"] + q["pcache"] + q["mreq"] + q["call"] * 2
    q["reg"] = (reg_execs, reg_ms, regressed)

    # Host: BUSY + IDLE = all CPU time; IOWAIT is part of IDLE (Linux)
    busy = min(db_cpu + bg_cpu + 0.12 + 0.05 * noise, db.cpus * 0.995)
    iowait_share = 0.0 if db.rac else (0.68 + 1.2 * (noise - 1) if not fixed else 0.04 * noise ** 8) * min(txn / 101, 1.0)
    idle = db.cpus - busy
    q["busy"], q["idle"] = busy, idle
    q["iowait"] = min(idle * 0.97, db.cpus * max(iowait_share, 0.0))
    q["rsrc"] = queue * 0.3
    q["load"] = busy + queue + (q["iowait"] * 0.8 if not db.rac else 0)
    return q


def _metrics(q: dict, d: dict, seconds: float) -> dict:
    """The sysmetric values of an interval, from the same integer deltas the counters hold."""
    txn = (d["user commits"] + d["user rollbacks"]) or 1
    per = {k: v / seconds for k, v in d.items()}
    m = {"txn": per["user commits"] + per["user rollbacks"], "commit": per["user commits"],
         "rollback": per["user rollbacks"], "exec": per["execute count"], "call": per["user calls"],
         "rec": per["recursive calls"], "lread": per["session logical reads"], "pread": per["physical reads"],
         "pwrite": per["physical writes"], "trreq": per["physical read total IO requests"],
         "twreq": per["physical write total IO requests"], "trbytes": per["physical read total bytes"],
         "twbytes": per["physical write total bytes"], "redo": per["redo size"], "redo_writes": per["redo writes"],
         "chg": per["db block changes"], "parse": per["parse count (total)"], "hard": per["parse count (hard)"],
         "logon": per["logons cumulative"], "gc_cr": per["gc cr blocks received"],
         "undo_applied": per["rollback changes - undo records applied"],
         "net": per["bytes sent via SQL*Net to client"] + per["bytes received via SQL*Net from client"],
         "cpu_cs": per["DB CPU"] / 1e4, "dbtime_cs": per["DB time"] / 1e4, "bgcpu_cs": per["background cpu time"] / 1e4,
         "busy_cs": per["BUSY_TIME"]}
    m["aas"] = m["dbtime_cs"] / 100
    m["host_pct"] = 100 * d["BUSY_TIME"] / ((d["BUSY_TIME"] + d["IDLE_TIME"]) or 1)
    m["cpu_ratio"] = 100 * d["DB CPU"] / (d["DB time"] or 1)
    m["wait_ratio"] = 100 - m["cpu_ratio"]
    m["io_mb"] = (m["trbytes"] + m["twbytes"]) / MB
    m["io_req"] = m["trreq"] + m["twreq"]
    m["bchr"] = 100 * (1 - d["physical reads cache"] / (d["session logical reads"] or 1))
    m["soft_pct"] = 100 * (1 - d["parse count (hard)"] / (d["parse count (total)"] or 1))
    m["sread_ms"] = d["db file sequential read:time"] / 1000 / (d["db file sequential read:waits"] or 1)
    for key in list(m):
        m[f"{key}/txn"] = m[key] * seconds / txn
    return m


# -- building the file -----------------------------------------------------------------------------------------

class Writer:
    """Rows buffered per table and flushed with executemany."""

    def __init__(self, con, prefix="dba_hist_"):
        self.con, self.prefix, self.rows = con, prefix, {}

    def add(self, table, row):
        self.rows.setdefault(table, []).append(row)

    def extend(self, table, rows):
        self.rows.setdefault(table, []).extend(rows)

    def flush(self):
        for table, rows in self.rows.items():
            if rows:
                marks = ",".join("?" * len(rows[0]))
                self.con.executemany(f"insert into {self.prefix}{table} values ({marks})", rows)
        self.rows = {}


def build(path, *, seed: int = 42, days: int = 45, detail_days: float = DETAIL_DAYS, end: datetime | None = None,
          on_progress=None) -> dict:
    """Write a demo AWR store to `path` (atomically) and return its stories with snapshot ids and times.

    Each instance is generated by its own process into a part file (the first instance of a database also writes
    what the database shares: SQL text, tablespaces); the parts are then merged in key order.
    """
    if days < 10:
        raise ValueError("the demo needs at least 10 days of history to hold its stories")
    path = Path(path)
    end_utc = (end or END).replace(tzinfo=None, second=0, microsecond=0)
    end_utc -= timedelta(minutes=end_utc.minute % 30)
    orcl, rac = _databases(end_utc, days)
    stories = _stories(orcl, rac, end_utc)
    plan = [_schedule(db, end_utc, days, stories) for db in (orcl, rac)]
    total = sum(len(times) * len(db.instances) for db, times in plan)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    jobs = [(db, times, inst) for db, times in plan for inst in db.instances]
    parts = [path.with_name(f".{path.name}.{os.getpid()}.{db.name}.{inst.number}.tmp") for db, _, inst in jobs]
    workers = []
    try:
        ctx = multiprocessing.get_context("fork")
        done = ctx.Value("i", 0)
        workers = [ctx.Process(target=_build_part, args=(part, db, times, inst, stories, seed, detail_days, done),
                               daemon=True) for part, (db, times, inst) in zip(parts, jobs)]
        for w in workers:
            w.start()
        while any(w.is_alive() for w in workers):
            if on_progress:
                on_progress(min(done.value, total), total)
            time.sleep(0.2)
        for w in workers:
            w.join()
            if w.exitcode != 0:
                raise RuntimeError(f"building a demo database failed (worker exit code {w.exitcode})")
        con = _create(tmp)
        for k, part in enumerate(parts):
            con.execute("ATTACH DATABASE ? AS ?", (str(part), f"part{k}"))
        for table in views().metadata.sorted_tables:  # one merge of the sorted parts, appended in key order
            arms = " UNION ALL ".join(f"SELECT * FROM part{k}.{table.name}" for k in range(len(parts)))
            key = ", ".join(f'"{c.name}"' for c in table.primary_key.columns)
            con.execute(f"INSERT INTO main.{table.name} {arms}" + (f" ORDER BY {key}" if key else ""))
        con.commit()
        for k in range(len(parts)):
            con.execute("DETACH DATABASE ?", (f"part{k}",))
        con.execute("ANALYZE")
        con.commit()
        con.close()
        demo_runs.add_runs(tmp, _public_stories(stories, plan))  # benchmark runs from the field figures
        os.replace(tmp, path)
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()
            w.join()  # before the clean-up: a worker still running could write a file after it
        for f in (tmp, *parts):
            for leftover in (f, f.with_name(f.name + "-journal")):
                leftover.unlink(missing_ok=True)
    if on_progress:
        on_progress(total, total)
    return _public_stories(stories, plan)


def _create(path: Path) -> sqlite3.Connection:
    """A new, empty store file with every view, tuned for one bulk load."""
    path.unlink(missing_ok=True)
    engine = create_engine(f"sqlite:///{path}")
    views().metadata.create_all(engine)
    engine.dispose()
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    con.execute("PRAGMA cache_size = -1000000")
    return con


def _build_part(part: Path, db, times, inst, stories, seed, detail_days, done):
    """One instance's history into its own file (runs in a worker process), seeded per instance."""
    con = _create(part)
    out = Writer(con)
    rng = random.Random(f"{seed}:{db.name}" + ("" if inst is db.instances[0] else f":{inst.number}"))
    for step in _Generator(db, times, stories, rng, out, detail_days).run(inst):
        with done.get_lock():
            done.value += step
        if len(out.rows.get("sysstat", ())) > 50_000:
            out.flush()
    out.flush()
    con.commit()
    con.close()


def _schedule(db: Demo, end_utc: datetime, days: int, stories: dict):
    """Snapshot times (database-local) with snap ids: every 30 minutes, plus the manual one."""
    local_end = _local(db, end_utc)
    times = [local_end - timedelta(seconds=STEP * k) for k in range(days * 86400 // STEP, -1, -1)]
    manual = stories["manual_snapshot"]
    if manual["db"] is db:
        times.append(manual["time"])
        times.sort()
    return db, [(db.snap_base + k, t, 1 if manual["db"] is db and t == manual["time"] else 0)
                for k, t in enumerate(times)]


def _public_stories(stories, plan):
    ids = {db.name: {t: snap_id for snap_id, t, _ in times} for db, times in plan}

    def snap(db, moment):
        return ids[db.name].get(moment) or min((i for t, i in ids[db.name].items() if t >= moment), default=None)

    fix, man, rst, reg = (stories[k] for k in ("async_io_fix", "manual_snapshot", "restart", "plan_regression"))
    dbs = [db for db, _ in plan]
    return {
        "databases": [{"dbid": db.dbid, "db_name": db.name, "rac": db.rac, "cpus": db.cpus,
                       "instances": [i.number for i in db.instances], "time_zone_seconds": db.tz} for db in dbs],
        "async_io_fix": {"dbid": fix["db"].dbid, "startup_time": _iso(fix["db"], fix["startup"]),
                         "first_snap_after": snap(fix["db"], fix["startup"]), "before": fix["before"],
                         "after": fix["after"], "change": fix["change"]},
        "manual_snapshot": {"dbid": man["db"].dbid, "snap_id": ids[man["db"].name][man["time"]],
                            "time": _iso(man["db"], man["time"]), "minutes_after_previous": man["time"].minute % 30},
        "restart": {"dbid": rst["db"].dbid, "instance": rst["instance"],
                    "startup_time": _iso(rst["db"], rst["startup"]),
                    "missing_snap_ids": [ids[rst["db"].name][t] for t in rst["missing"]],
                    "first_snap_after": snap(rst["db"], rst["startup"])},
        "plan_regression": {"dbid": reg["db"].dbid, "sql_id": reg["sql"].sql_id, "good_plan": reg["sql"].plan,
                            "bad_plan": reg["sql"].bad_plan, "from": _iso(reg["db"], reg["from"]),
                            "to": _iso(reg["db"], reg["to"]), "begin_snap": snap(reg["db"], reg["from"]),
                            "end_snap": snap(reg["db"], reg["to"])},
        "batch": stories["batch"],
    }


class _Generator:
    """Rows of one database: counters kept per instance, reset at each startup."""

    def __init__(self, db, times, stories, rng, out, detail_days=DETAIL_DAYS):
        self.db, self.times, self.stories, self.rng, self.out = db, times, stories, rng, out
        self.sqls = _sql_catalog(db)
        self.start = times[0][1]
        self.history_from = times[-1][1] - timedelta(days=detail_days)
        reg = stories["plan_regression"]
        self.victim = reg["sql"] if reg["db"] is db else None
        if self.victim:
            self.sqls.append(self.victim)
        oltp = [s for s in self.sqls if not s.batch and s is not self.victim]
        total_w = sum(s.exec_weight for s in oltp)
        total_t = sum(s.exec_weight * s.ms for s in oltp)
        self.oltp = [(s, s.exec_weight / total_w, s.exec_weight * s.ms / total_t) for s in oltp]
        self.oltp.sort(key=lambda x: -x[2])
        self.batch_sql = [s for s in self.sqls if s.batch]
        self.events = [e for e in EVENT_ROWS if db.rac or e[4] not in ("gcwait", "idle_rac")]

    def run(self, inst):
        """The rows of one instance; the first instance also writes the rows the database shares."""
        db, out = self.db, self.out
        shared = inst is db.instances[0]
        if shared:
            for s in self.sqls:
                out.add("sqltext", (db.dbid, s.sql_id, s.text, s.command_type))
            self._tablespaces_static()
        out.add("database_instance", self._instance_row(inst, inst.startup))
        st = _State(inst.startup)
        prev_time = None
        for k, (snap_id, t, flag) in enumerate(self.times):
            if t not in inst.missing:
                begin = prev_time or t - timedelta(seconds=STEP)
                if t in inst.restarts:
                    st = _State(inst.restarts[t])
                    out.add("database_instance", self._instance_row(inst, st.startup))
                    begin = st.startup
                self._snapshot(snap_id, inst, st, begin, t, (t - begin).total_seconds(), flag)
                prev_time = t
                yield 1
            if shared:
                self._tablespaces(snap_id, t, k)

    def _instance_row(self, inst, startup):
        db = self.db
        return (db.dbid, inst.number, _fmt(startup), "YES" if db.rac else "NO", "19.0.0.0.0", db.name, inst.name,
                inst.host, "Linux x86 64-bit", "NO", "EE", db.name, "PRIMARY")

    def _snapshot(self, snap_id, inst, st, begin, end, seconds, flag):
        db, out, rng = self.db, self.out, self.rng
        key = (db.dbid, inst.number)
        out.add("snapshot", (snap_id, db.dbid, inst.number, _fmt(st.startup), _fmt(begin), _fmt(end),
                             round(rng.uniform(0.4, 2.5), 3), 1, 0, flag, float(db.tz)))
        mid = begin + (end - begin) / 2
        noise = rng.lognormvariate(0, 0.05 if (db.capacity is None or mid >= self.stories["async_io_fix"]["startup"])
                                   else 0.11)
        q = _rates(db, inst, mid, self.stories, noise, (mid - self.start).total_seconds() / 86400)
        d = {}  # integer deltas of this interval, by name, for the metrics
        head = (snap_id, *key)
        for view, table, scale in (("sysstat", SYSSTAT_ROWS, seconds), ("sys_time_model", TIME_MODEL_ROWS, seconds * 1e6)):
            values, deltas = st.accumulate(view, [q[driver] * coef * scale for _, _, driver, coef in table])
            d.update(zip([r[1] for r in table], deltas))
            out.extend(view, [(*head, r[0], r[1], v) for r, v in zip(table, values)])
        out.extend("sysstat", [(*head, stat_id, name, round(q[driver] * coef * rng.uniform(0.97, 1.03)))
                               for stat_id, name, driver, coef in READING_ROWS])
        self._events(snap_id, key, st, q, seconds, d)
        self._osstat(snap_id, key, st, q, seconds, d)
        self._io(snap_id, key, st, q, seconds)
        self._sql(snap_id, key, st, q, seconds)
        m = _metrics(q, d, seconds)
        m.update(load=q["load"], sessions=q["sessions"])
        self._sysmetric(snap_id, key, begin, end, seconds, m, noise)
        self._memory(snap_id, key, q)

    def _events(self, snap_id, key, st, q, seconds, d):
        amounts = []
        for event_id, name, wait_class, class_id, driver, share, ms, bg_share in self.events:
            if driver.startswith("idle"):
                fg = q["idle_client"] * seconds if driver == "idle_client" else 0.0
                bg = q["bg"].get(driver, 0.0) * share * seconds
            else:
                fg = q["w"].get(driver, 0.0) * share * seconds * (1 - bg_share)
                bg = (q["bg"].get(driver, 0.0) * share + q["w"].get(driver, 0.0) * share * bg_share) * seconds
                if driver in ("commit", "sread", "mread"):  # the main event's latency, and its relatives'
                    ms = q["lat"][driver] * EVENT_SCALE.get(name, 1.0)
                elif driver in q["bg_lat"]:
                    ms = q["bg_lat"][driver]
                elif driver == "config":
                    ms *= q["lat"]["config"]
            avg = ms / 1000
            fg_waits, bg_waits = fg / avg, bg / avg
            timeouts = (fg_waits + bg_waits) * 0.3 if driver.startswith("idle") else 0.0
            amounts += (fg_waits + bg_waits, timeouts, (fg + bg) * 1e6, fg_waits, fg * 1e6)
        values, deltas = st.accumulate("system_event", amounts)
        rows = []
        for k, (event_id, name, wait_class, class_id, *_) in enumerate(self.events):
            waits, timeouts, time_all, waits_fg, time_fg = values[5 * k:5 * k + 5]
            if name == "db file sequential read":
                d[f"{name}:waits"], d[f"{name}:time"] = deltas[5 * k + 3], deltas[5 * k + 4]
            rows.append((snap_id, *key, event_id, name, class_id, wait_class, waits, timeouts, time_all, waits_fg,
                         0, time_fg))
        self.out.extend("system_event", rows)

    def _osstat(self, snap_id, key, st, q, seconds, d):
        db = self.db
        cs = seconds * 100
        busy, idle = q["busy"] * cs, q["idle"] * cs
        user = busy * 0.82
        counters = {"BUSY_TIME": busy, "IDLE_TIME": idle, "USER_TIME": user, "SYS_TIME": busy - user,
                    "IOWAIT_TIME": q["iowait"] * cs, "NICE_TIME": 0.0, "RSRC_MGR_CPU_WAIT_TIME": q["rsrc"] * cs,
                    "VM_IN_BYTES": 0.0, "VM_OUT_BYTES": 0.0}
        values, deltas = st.accumulate("osstat", list(counters.values()))
        # BUSY + IDLE is exactly the CPU time available: IDLE takes the rounding
        idle_delta = round(seconds * db.cpus * 100) - deltas[0]
        st.values["osstat"][1] += idle_delta - deltas[1]
        values[1], deltas[1] = values[1] - deltas[1] + idle_delta, idle_delta
        d.update(zip(counters, deltas))
        rows = [(snap_id, *key, _stat_id(name), name, v) for name, v in zip(counters, values)]
        readings = {"NUM_CPUS": db.cpus, "NUM_CPU_CORES": db.cores, "NUM_CPU_SOCKETS": 1,
                    "PHYSICAL_MEMORY_BYTES": db.memory_gb * 1024 * MB, "LOAD": round(q["load"], 2),
                    "TCP_SEND_SIZE_MAX": 4194304, "TCP_RECEIVE_SIZE_MAX": 6291456}
        rows += [(snap_id, *key, _stat_id(n), n, v) for n, v in readings.items()]
        self.out.extend("osstat", rows)

    def _io(self, snap_id, key, st, q, seconds):
        """I/O by function and by file type, consistent with the physical I/O statistics."""
        s = seconds
        small_r = q["pcache"] * s
        redo_w = q["redo_writes"] * s
        dbwr_w = q["wreq"] * 0.9 * s
        rman = q["rman_mb"] * s
        bs = self.db.block_size / MB
        functions = {  # name -> (small read MB, small write MB, large read MB, large write MB, sr, sw, lr, lw)
            "Buffer Cache Reads": (small_r * bs, 0, 0, 0, small_r, 0, 0, 0),
            "Direct Reads": (0, 0, q["pdirect"] * s * bs, 0, 0, 0, q["pdirect"] * s / 128, 0),
            "Direct Writes": (0, 0, 0, q["ptemp"] * s * bs * 0.9, 0, 0, 0, q["ptemp"] * s / 16),
            "DBWR": (0, dbwr_w * bs, 0, 0, 0, dbwr_w, 0, 0),
            "LGWR": (0, redo_w * 0.002, 0, q["redo"] * s / MB, 0, redo_w * 0.02, 0, redo_w),
            "ARCH": (0, 0, q["redo"] * s / MB, q["redo"] * s / MB, 0, 0, redo_w * 0.01, redo_w * 0.01),
            "RMAN": (0, 0, rman, rman * 0.2, 0, 0, rman, rman * 0.2),
            "Others": (3 * s * bs, 2 * s * bs, 0, 0, 3 * s, 2 * s, 0, 0),
        }
        for view, names, table in (("iostat_function", IO_FUNCTIONS, functions),
                                   ("iostat_filetype", IO_FILETYPES, self._filetypes(functions))):
            amounts = []
            for name in names:  # the eight I/O columns, then requests and wait time (ms)
                row = table.get(name, (0,) * 8)
                reqs = sum(row[4:])
                amounts += (*row, reqs, reqs * q["sread_ms"])
            values, _ = st.accumulate(view, amounts)
            rows = []
            for item_id, name in enumerate(names):
                *io, reqs, wait = values[10 * item_id:10 * item_id + 10]
                if view == "iostat_function":
                    rows.append((snap_id, *key, item_id, name, *io, reqs, wait))
                else:
                    rows.append((snap_id, *key, item_id, name, *io, io[4], wait, wait // 3,
                                 round(wait / io[4], 3) if io[4] else 0, 0, 0))
            self.out.extend(view, rows)

    @staticmethod
    def _filetypes(f):
        def add(*names):
            return tuple(sum(f[n][i] for n in names) for i in range(8))
        return {"Data File": add("Buffer Cache Reads", "Direct Reads", "DBWR"), "Temp File": add("Direct Writes"),
                "Log File": add("LGWR"), "Archive Log": add("ARCH"), "Data File Backup": add("RMAN"),
                "Control File": add("Others")}

    def _sql(self, snap_id, key, st, q, seconds):
        rng = self.rng
        execs_total = q["exec"] * seconds
        time_total = q["dbtime"] * seconds * 1e6 * 0.82
        cpu_total = q["dbcpu"] * seconds * 1e6
        reg_execs, reg_ms, regressed = q["reg"]
        picked = []
        if self.victim is not None:
            n = reg_execs * seconds
            time_total -= n * reg_ms * 1000
            plan = self.victim.bad_plan if regressed else self.victim.plan
            picked.append((self.victim, plan, n, n * reg_ms * 1000 * rng.uniform(0.95, 1.05), 0.96))
        batch_share = 0.0
        if q["batch"]:
            batch_share = 0.55
            for s in self.batch_sql:
                picked.append((s, s.plan, max(1.0, round(rng.uniform(0.5, 2))), time_total * batch_share / 4
                               * rng.uniform(0.7, 1.3), s.cpu))
        oltp_time = max(time_total * (1 - batch_share), 0.0)
        chosen = self.oltp[:28] + rng.sample(self.oltp[28:], 8)
        for s, exec_share, time_share, in chosen:
            picked.append((s, s.plan, execs_total * exec_share * rng.uniform(0.8, 1.2),
                           oltp_time * time_share * rng.uniform(0.8, 1.2), s.cpu))
        rows = []
        cpu_scale = min(1.0, cpu_total / max(sum(e * c for _, _, _, e, c in picked), 1.0))
        for s, plan, n, ela, cpu in picked:
            n = max(round(n), 0)
            if n == 0 and not s.batch:
                continue
            per = max(n, 1)
            deltas = (n, round(ela), round(ela * cpu * cpu_scale), round(s.gets * per), round(s.reads * per),
                      round(s.rows * per), round(ela * 0.1), round(ela * 0.02), round(ela * 0.01), round(ela * 0.005))
            totals, _ = st.accumulate((s.sql_id, plan), deltas)
            rows.append((snap_id, *key, s.sql_id, plan, s.module, None, s.schema,
                         *[v for pair in zip(totals, deltas) for v in pair]))
        self.out.extend("sqlstat", rows)

    def _sysmetric(self, snap_id, key, begin, end, seconds, m, noise):
        rng = self.rng
        minutes = max(int(round(seconds / 60)), 1)
        detail = end > self.history_from
        summary, history = [], []
        stamps = [_fmt(begin + timedelta(seconds=60 * k)) for k in range(minutes + 1)] if detail else []
        begin_s, end_s = _fmt(begin), _fmt(end)
        for metric_id, name, unit, how, per_minute in METRIC_ROWS:
            value = m.get(how, 0.0)
            if per_minute and detail:
                wobble = [rng.gauss(0, 0.06) for _ in range(minutes)]
                base = value * (1 - sum(wobble) / minutes)  # the minutes average to the summary value
                values = [max(base + value * x, 0.0) for x in wobble]
                if "%" in unit:
                    values = [min(v, 100.0) for v in values]
                history += [(snap_id, *key, 2, metric_id, stamps[k], stamps[k + 1], 6000, name, round(v, 4), unit)
                            for k, v in enumerate(values)]
                lo, hi = min(values), max(values)
                sd = (sum((v - value) ** 2 for v in values) / minutes) ** 0.5
            else:
                spread = abs(value) * 0.12 * noise
                lo, hi, sd = max(value - spread, 0.0), value + spread, spread / 2
            summary.append((snap_id, *key, 2, metric_id, begin_s, end_s, round(seconds * 100), name, unit,
                            minutes, round(lo, 4), round(hi, 4), round(value, 4), round(sd, 4),
                            round(minutes * (sd * sd + value * value), 4)))
        self.out.extend("sysmetric_summary", summary)
        if history:
            self.out.extend("sysmetric_history", history)

    def _memory(self, snap_id, key, q):
        gb = 1024 * MB
        sga = [("shared pool", "free memory", 0.4 * gb), ("shared pool", "SQLA", 1.1 * gb),
               ("shared pool", "KGLH0", 0.5 * gb), ("shared pool", "row cache", 0.1 * gb),
               (None, "buffer_cache", (6 if not self.db.rac else 64) * gb), (None, "log_buffer", 128 * MB),
               (None, "fixed_sga", 12 * MB), ("large pool", "free memory", 200 * MB),
               ("java pool", "free memory", 64 * MB), ("streams pool", "free memory", 32 * MB)]
        self.out.extend("sgastat", [(snap_id, *key, pool, name, round(b)) for pool, name, b in sga])
        target = (4 if not self.db.rac else 32) * gb
        allocated = q["sessions"] * 6e6 + q["batch"] * 0.3 * target
        pga = [("aggregate PGA target parameter", target), ("total PGA allocated", allocated),
               ("total PGA inuse", allocated * 0.7), ("maximum PGA allocated", max(allocated, target * 0.5)),
               ("total freeable PGA memory", allocated * 0.1), ("cache hit percentage", 99.2 - 4 * q["batch"]),
               ("over allocation count", 0), ("process count", q["sessions"] + 60)]
        self.out.extend("pgastat", [(snap_id, *key, n, round(v)) for n, v in pga])

    # tablespaces: one row per database and snapshot (no instance), sizes in blocks
    TABLESPACES = [("SYSTEM", "PERMANENT", 1.1, 0.0002), ("SYSAUX", "PERMANENT", 2.4, 0.004),
                   ("UNDOTBS1", "UNDO", 3.0, 0.0), ("TEMP", "TEMPORARY", 0.5, 0.0), ("USERS", "PERMANENT", 0.1, 0.0),
                   ("APP_DATA", "PERMANENT", 140.0, 0.35), ("APP_INDEX", "PERMANENT", 60.0, 0.16),
                   ("AUDIT", "PERMANENT", 12.0, 0.2)]

    def _tablespaces_static(self):
        names = list(self.TABLESPACES) + ([("UNDOTBS2", "UNDO", 3.0, 0.0)] if self.db.rac else [])
        self.spaces = [(k, n, c, gb * (4 if self.db.rac else 1), grow * (4 if self.db.rac else 1))
                       for k, (n, c, gb, grow) in enumerate(names)]
        for ts, name, contents, _, _ in self.spaces:
            self.out.add("tablespace", (self.db.dbid, ts, name, contents, self.db.block_size))
        self.sizes = {}

    def _tablespaces(self, snap_id, t, k):
        gb = 1024 ** 3 / self.db.block_size
        elapsed_days = k * STEP / 86400
        rows = []
        for ts, name, contents, used_gb, grow in self.spaces:
            used = used_gb + grow * elapsed_days
            if name == "AUDIT":  # purged weekly by the batch
                used = used_gb + grow * (elapsed_days % 7)
            if name == "TEMP":
                used = used_gb + (3.0 if 1 <= t.hour < 3 else 0.0)
            size = self.sizes.get(ts, used * 1.25)
            while used > size * 0.92:  # autoextend
                size += max(size * 0.1, 1.0)
            self.sizes[ts] = size
            rows.append((self.db.dbid, snap_id, ts, round(size * gb), round(32 * (size // 32 + 2) * gb),
                         round(used * gb), t.strftime("%m/%d/%Y %H:%M:%S")))
        self.out.extend("tbspc_space_usage", rows)


# sequential reads of the parallel and buffer-busy kind wait longer than the single-block read itself
EVENT_SCALE = {"db file parallel read": 2.5, "read by other session": 1.1, "Disk file operations I/O": 0.05,
               "db file scattered read": 0.6, "direct path read": 1.0, "direct path read temp": 0.45,
               "direct path write temp": 0.55, "direct path write": 0.35}


class _State:
    """Cumulative counters of one instance since its startup."""

    __slots__ = ("startup", "values")

    def __init__(self, startup):
        self.startup = startup
        self.values = {}

    def accumulate(self, key, amounts):
        """Add a vector of amounts to the counters under `key`; returns (cumulative integers, integer deltas)."""
        before = self.values.get(key) or [0.0] * len(amounts)
        after = [b + a for b, a in zip(before, amounts)]
        self.values[key] = after
        ints = [int(x) for x in after]
        return ints, [i - int(b) for i, b in zip(ints, before)]

