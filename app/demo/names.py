"""The names the demo writes and their ids: statistics, time model, wait events, OS statistics, sysmetrics, I/O
file types, each with the model quantity (the "driver", a key of `workload.rates`) it follows. The I/O functions are
Oracle's, numbered as Oracle numbers them (app/store/awr/views.py IO_FUNCTIONS)."""

import zlib

# name: driver x coefficient, per second. Drivers are the model's quantities (see workload.rates).
SYSSTAT = """
user commits|commit|1;user rollbacks|rollback|1;execute count|exec|1;user calls|call|1;recursive calls|rec|1
session logical reads|lread|1;db block gets|cur|1;db block gets from cache|cur|1;consistent gets|cons|1
consistent gets from cache|cons|0.97;consistent gets direct|cons|0.03;db block changes|chg|1;consistent changes|chg|0.02
physical reads|pread|1;physical reads cache|pcache|1;physical reads direct|pdirect|1;physical reads direct temporary tablespace|ptemp|1
physical writes|pwrite|1;physical writes from cache|pwcache|1;physical writes direct|pwdirect|1;physical writes direct temporary tablespace|ptemp|0.9
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
temp space allocated (bytes)|ptemp|8192;session connect time|logon|0;process last non-idle time|one|1
IM scan rows|one|0;session logical reads - IM|one|0
"""
READINGS = """
logons current|sessions|1;opened cursors current|sessions|7.5;session cursor cache count|sessions|40
session pga memory|sessions|4200000;session pga memory max|sessions|6500000;session uga memory|sessions|1500000
session uga memory max|sessions|2600000;workarea memory allocated|sessions|30000;session stored procedure space|sessions|800
"""
TIME_MODEL = (  # name: share of a driver
    ("DB time", "dbtime", 1),
    ("DB CPU", "dbcpu", 1),
    ("background cpu time", "bgcpu", 1),
    ("background elapsed time", "bgcpu", 4.2),
    ("sql execute elapsed time", "dbtime", 0.88),
    ("parse time elapsed", "dbtime", 0.03),
    ("hard parse elapsed time", "dbtime", 0.012),
    ("hard parse (sharing criteria) elapsed time", "dbtime", 0.003),
    ("hard parse (bind mismatch) elapsed time", "dbtime", 0.0004),
    ("failed parse elapsed time", "dbtime", 0.0001),
    ("failed parse (out of shared memory) elapsed time", "dbtime", 0.0),
    ("PL/SQL execution elapsed time", "dbtime", 0.06),
    ("PL/SQL compilation elapsed time", "dbtime", 0.001),
    ("inbound PL/SQL rpc elapsed time", "dbtime", 0.0),
    ("Java execution elapsed time", "dbtime", 0.0005),
    ("connection management call elapsed time", "dbtime", 0.004),
    ("sequence load elapsed time", "dbtime", 0.002),
    ("repeated bind elapsed time", "dbtime", 0.0002),
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
# name, unit, how the value comes from the interval's rates (a key of sysmetrics.metrics); per-minute history when starred
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
IO_FILETYPES = [
    "Other",
    "Control File",
    "Data File",
    "Log File",
    "Archive Log",
    "Temp File",
    "Data File Backup",
    "Data File Incremental Backup",
    "Archive Log Backup",
    "Data File Copy",
    "Flashback Log",
    "Data Pump Dump File",
]


METRIC_ID_BASE = 2000  # the sysmetric ids are numbered from here in the order of METRICS


def _table(text):
    return [line.split("|") for part in text.strip().splitlines() for line in part.split(";") if line]


def stat_id(name: str) -> int:
    """A stable id for a name (statistics, events, wait classes, OS statistics)."""
    return zlib.crc32(name.encode())


SYSSTAT_ROWS = [(stat_id(n), n, d, float(c)) for n, d, c in _table(SYSSTAT)]
READING_ROWS = [(stat_id(n), n, d, float(c)) for n, d, c in _table(READINGS)]
TIME_MODEL_ROWS = [(stat_id(n), n, d, float(c)) for n, d, c in TIME_MODEL]
EVENT_ROWS = [
    (stat_id(n), n, wc, stat_id(wc), drv, float(share), float(ms), float(bg))
    for n, wc, drv, share, ms, bg in _table(EVENTS)
]
METRIC_ROWS = [
    (METRIC_ID_BASE + k, n.rstrip("*"), unit, how, n.endswith("*")) for k, (n, unit, how) in enumerate(_table(METRICS))
]
