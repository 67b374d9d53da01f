"""Event histograms and segment statistics of one instance (DBA_HIST_EVENT_HISTOGRAM, DBA_HIST_SEG_STAT and _OBJ),
drawn from the interval's own integer deltas so the views agree (docs/awr-rules.md §24, §25):
- each main event's waits of the interval (its TOTAL_WAITS delta, exactly) spread over the buckets of powers of two
  ms by a lognormal whose mean is the event's average wait (TIME_WAITED_MICRO / TOTAL_WAITS); `log file sync` and
  `log file parallel write` have a long tail before the async I/O fix and a narrow one after it;
- the top segments' logical and physical reads a share (about 80 %) of the interval's `session logical reads` and
  `physical reads`, the batch's direct reads on ORDERS and its direct writes on SALES_HISTORY, the blocking chain's
  row lock waits on the table its UPDATE names (whose OBJ# is the samples' CURRENT_OBJ#, app/demo/ash.py).
Both use their own random stream, so the other views' rows are the same with or without them."""

from functools import lru_cache
from math import ceil, erf, log, sqrt

from app.demo.ash import row_lock_sql
from app.demo.objects import HOSTILE_OBJ, HOSTILE_SEGMENT, SEGMENTS, lock_table, object_ids, schema_of
from app.demo.workload import (
    BLOCKS_PER_DIRECT_READ,
    BLOCKS_PER_DIRECT_WRITE,
    GIB,
    STEP,
    WRITE_REQUESTS_PER_BLOCK,
)
from app.store.awr.views import SEGMENT_STATS
from app.units import DAY

HISTOGRAM_EVENTS = (
    "log file sync",
    "db file sequential read",
    "db file scattered read",
    "direct path read",
    "db file parallel read",
    "log file parallel write",
    "db file parallel write",
    "enq: TX - row lock contention",
    "buffer busy waits",
    "gc cr block 2-way",
    "gc current block 2-way",
)
TAILED = ("log file sync", "log file parallel write")  # the slow, unstable writes before the async I/O fix
UPPERS = [1 << k for k in range(17)]  # WAIT_TIME_MILLI: < 1 ms, < 2 ms, ... < 65536 ms
WOBBLE = (0.9, 0.95, 1.0, 1.05, 1.1)  # each interval's spread, around the event's
SPREAD = {"enq: TX - row lock contention": 1.1, "buffer busy waits": 0.9, "db file scattered read": 0.7}
DATA_TS, INDEX_TS = 5, 6  # APP_DATA and APP_INDEX in tablespaces.TABLESPACES
CAPTURED = 0.8  # of the interval's logical and cache reads: AWR keeps the top segments only


def buckets(waits: int, mean_ms: float, sigma: float) -> list[int]:
    """`waits` spread over UPPERS by a lognormal of mean `mean_ms` (its median exp(mu), mu = ln(mean) - sigma^2/2),
    as whole counts that add up to `waits` (largest remainders)."""
    if waits <= 0 or mean_ms <= 0:
        return [0] * len(UPPERS)
    exact = [waits * p for p in _shares(round(mean_ms, 3), sigma)]
    counts = [int(x) for x in exact]
    for k in sorted(range(len(exact)), key=lambda k: counts[k] - exact[k])[: waits - sum(counts)]:
        counts[k] += 1
    return counts


@lru_cache(maxsize=4096)
def _shares(mean_ms: float, sigma: float) -> list[float]:
    """Each bucket's share of a lognormal of mean `mean_ms` (the model's averages repeat: computed once each)."""
    mu = log(mean_ms) - sigma * sigma / 2
    cdf = [0.5 * (1 + erf((log(u) - mu) / (sigma * sqrt(2)))) for u in UPPERS]
    cdf[-1] = 1.0
    return [b - a for a, b in zip([0.0, *cdf[:-1]], cdf, strict=True)]


class Detail:
    """The histogram and segment rows of one instance, interval by interval."""

    def __init__(self, db, inst, sqls, rng):
        self.db, self.inst, self.rng = db, inst, rng
        self.shared = inst is db.instances[0]
        lock = self.lock_sql = row_lock_sql([s for s in sqls if not s.batch and s.bad_plan is None])
        locked = lock_table(lock)
        ids = object_ids(db, lock)
        self.segments = []  # (obj#, ts#, name, type, logical share, cache read share, change share)
        for name, (kind, lr, pr, chg) in SEGMENTS.items():
            self.segments.append((ids[name][0], INDEX_TS if kind == "INDEX" else DATA_TS, name, kind, lr, pr, chg))
        if locked not in SEGMENTS:  # the chain's table has no share of its own: its row lock waits only
            self.segments.append((ids[locked][0], DATA_TS, locked, "TABLE", 0.5, 0.5, 0.5))
        self.segments.append((HOSTILE_OBJ, DATA_TS, HOSTILE_SEGMENT, "TABLE", 0.2, 0.1, 0.1))
        self.lock_obj = ids[locked][0]
        for key in ("lr", "pr", "chg"):
            k = {"lr": 4, "pr": 5, "chg": 6}[key]
            total = sum(s[k] for s in self.segments)
            setattr(self, key, [s[k] / total for s in self.segments])
        self.used = {
            s[0]: (3.0 if s[3] == "TABLE" else 1.0) * GIB * (4 if db.rac else 1) * s[4] / 10 for s in self.segments
        }

    def objects(self):
        """DBA_HIST_SEG_STAT_OBJ rows of the database (dbid, ts#, obj#, dataobj#, owner, name, subobject, type,
        tablespace, partition type)."""
        for obj, ts, name, kind, *_ in self.segments:
            owner = schema_of(name)
            yield (
                self.db.dbid,
                ts,
                obj,
                obj,
                owner,
                name,
                None,
                kind,
                "APP_INDEX" if ts == INDEX_TS else "APP_DATA",
                "NONE",
            )

    def histograms(self, snap_id, key, st, events, waits, ms, fixed):
        """DBA_HIST_EVENT_HISTOGRAM rows: the buckets that ever had a wait since the startup, cumulative."""
        rows = []
        for event_id, name, wait_class, class_id, *_ in events:
            if name not in HISTOGRAM_EVENTS:
                continue
            sigma = ((0.5 if fixed else 1.25) if name in TAILED else SPREAD.get(name, 0.6)) * self.rng.choice(WOBBLE)
            values, _ = st.accumulate(("histogram", name), buckets(waits[name], ms[name], sigma))
            rows += [
                (snap_id, *key, event_id, name, class_id, wait_class, u, v)
                for u, v in zip(UPPERS, values, strict=True)
                if v
            ]
        return rows

    def seg_stats(self, snap_id, key, d, waits, batch, seconds, chain=0.0):
        """DBA_HIST_SEG_STAT rows of the interval: the *_DELTA columns (awr.views.SEGMENT_STATS order), then space used
        and allocated. `chain`: the blocking chain's share of the interval's row lock waits, all on its table; the
        others' spread as the block changes. Each is a part of the instance's own counter (`d`): the global cache
        blocks received are none on a single instance; read and write requests at most the blocks."""
        rng, rows = self.rng, []
        lread = d["session logical reads"] * CAPTURED * rng.uniform(0.92, 1.08)
        cache = d["physical reads cache"] * CAPTURED * rng.uniform(0.92, 1.08)
        changes = d["db block changes"] * CAPTURED
        direct, direct_w = d["physical reads direct"], d["physical writes direct"]
        writes = d["physical writes"] - direct_w
        lock_waits = waits.get("enq: TX - row lock contention", 0)
        busy, gc_busy = waits.get("buffer busy waits", 0), waits.get("gc buffer busy acquire", 0)
        gc_cr, gc_cu = d["gc cr blocks received"] * CAPTURED, d["gc current blocks received"] * CAPTURED
        short_scans, long_scans = d["table scans (short tables)"] * CAPTURED, d["table scans (long tables)"]
        grow = (0.35 * (4 if self.db.rac else 1) * GIB * seconds / DAY) if self.shared else 0.0
        for (obj, ts, name, kind, *_), lr, pr, chg in zip(self.segments, self.lr, self.pr, self.chg, strict=True):
            n = rng.uniform(0.85, 1.15)
            reads_direct = round(direct * 0.88) if name == "ORDERS" else 0  # the batch's full scans of ORDERS
            # its INSERT /*+ APPEND */, in the batch's hours only (docs/awr-rules.md §25)
            writes_direct = round(direct_w * 0.9) if name == "SALES_HISTORY" and batch else 0
            reads_cache, writes_cache = round(cache * pr * n), round(writes * chg * 0.8 * n)
            row_locks = round(lock_waits * ((chain if obj == self.lock_obj else 0.0) + (1 - chain) * chg * 0.8 * n))
            space = grow * chg + (writes_direct * self.db.block_size if batch else 0)
            self.used[obj] += space
            stats = {
                "logical_reads": round(lread * lr * n),
                "buffer_busy_waits": round(busy * chg * 0.7),
                "db_block_changes": round(changes * chg * n),
                "physical_reads": reads_cache + reads_direct,
                "physical_writes": writes_cache + writes_direct,
                "physical_reads_direct": reads_direct,
                "physical_writes_direct": writes_direct,
                "itl_waits": round(chg * 40 * rng.random() * seconds / STEP) if kind == "INDEX" else 0,
                "row_lock_waits": row_locks,
                "gc_buffer_busy": round(gc_busy * chg * 0.7),
                "gc_cr_blocks_received": round(gc_cr * lr * n),
                "gc_cu_blocks_received": round(gc_cu * chg * n),
                "space_used": round(space),
                "space_allocated": round(space * 1.1),
                # the short tables' scans as the reads; the batch's long scans are of ORDERS
                "table_scans": (round(short_scans * lr * n) + (round(long_scans * 0.9) if name == "ORDERS" else 0))
                if kind == "TABLE"
                else 0,
                "physical_read_requests": reads_cache + ceil(reads_direct / BLOCKS_PER_DIRECT_READ),
                "physical_write_requests": round(writes_cache * WRITE_REQUESTS_PER_BLOCK)
                + ceil(writes_direct / BLOCKS_PER_DIRECT_WRITE),
            }
            if any(stats.values()):
                values = [stats[s] for s in SEGMENT_STATS]
                rows.append((snap_id, *key, ts, obj, obj, *values, round(self.used[obj]), round(self.used[obj] * 1.15)))
        return rows
