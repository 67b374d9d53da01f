"""The row generator: the rows of one instance, snapshot by snapshot, from the workload model's rates. Counters are
kept per instance since its startup (they restart from zero at each restart) and written as Oracle's cumulative
values; the system metrics (app/demo/sysmetrics.py) are computed from the same integer deltas the counters hold."""

import random
from datetime import timedelta

from app.demo import baselines, parameters
from app.demo.ash import USERS, Ash, foreground, live_rows, service_hash, service_names
from app.demo.detail import Detail
from app.demo.names import (
    EVENT_ROWS,
    IO_FILETYPES,
    READING_ROWS,
    SYSSTAT_ROWS,
    TIME_MODEL_ROWS,
    stat_id,
)
from app.demo.objects import dictionary_objects
from app.demo.plans import plan_rows
from app.demo.sqlstats import Statements
from app.demo.sysmetrics import metrics, sysmetric_rows
from app.demo.tablespaces import Tablespaces
from app.demo.workload import (
    BLOCKS_PER_DIRECT_READ,
    BLOCKS_PER_TEMP_IO,
    CS_PER_S,
    EVENT_SCALE,
    GIB,
    STEP,
    US_PER_S,
    fmt,
    rates,
)
from app.store.awr.embedded.ash import ASH_BASE, ASH_NAMES, ASH_TOTALS
from app.store.awr.embedded.parameters import PARAMETER_BASE
from app.store.awr.views import IO_FUNCTIONS
from app.units import DAY, MIB


class Generator:
    """Rows of one database: counters kept per instance, reset at each startup."""

    def __init__(self, db, times, stories, rng, out, detail_days, ash_rng=None, ash_days=None, ash_totals=True):
        self.db, self.times, self.stories, self.rng, self.out = db, times, stories, rng, out
        self.live_minutes = stories["live"]["minutes"] if ash_days != 0 else 0  # the live buffer's (_live)
        self.ash_rng = ash_rng  # the samples' own random stream (app/demo/ash.py); None: no samples
        self.statements = Statements(db, stories)
        self.sqls, self.victim = self.statements.sqls, self.statements.victim
        self.start = times[0][1]
        # histograms and segments for the most recent days, as the per-minute metrics; Statspack's for all (level 7)
        self.history_from = times[0][1] if db.statspack else times[-1][1] - timedelta(days=detail_days)
        # ASH for the most recent `ash_days` (default: as the per-minute metrics), with its totals or not
        self.ash_from = times[-1][1] - timedelta(days=detail_days if ash_days is None else ash_days)
        self.ash_totals = ash_totals
        self.events = [e for e in EVENT_ROWS if db.rac or e[4] not in ("gcwait", "idle_rac")]

    def run(self, inst):
        """The rows of one instance; the first instance also writes the rows the database shares."""
        db, out = self.db, self.out
        shared = inst is db.instances[0]
        if shared:
            for s in self.sqls:
                out.add("sqltext", (db.dbid, s.sql_id, s.text, s.command_type))
                out.extend("sql_plan", plan_rows(db, s, s.plan, self.start))
            if self.victim:
                out.extend(
                    "sql_plan",
                    plan_rows(db, self.victim, self.victim.bad_plan, self.stories["plan_regression"]["from"]),
                )
            self.tablespaces = Tablespaces(db)
            out.extend("tablespace", self.tablespaces.rows())
        out.add("database_instance", self._instance_row(inst, inst.startup))
        self.detail = Detail(db, inst, self.sqls, random.Random(f"detail:{db.name}:{inst.number}"))
        if shared:
            out.extend("seg_stat_obj", list(self.detail.objects()))
            out.extend("objects", [(db.dbid, *r) for r in dictionary_objects(db, self.detail.lock_sql)])
            out.extend("users", [(db.dbid, name, user_id) for name, user_id in {"SYS": 0, **USERS}.items()])
            out.extend("service_name", [(db.dbid, service_hash(db, name), name) for name in service_names(db)])
            if not db.statspack:
                out.extend("baseline", baselines.rows(db, self.times, self.stories))
        self.ash = (
            Ash(db, inst, self.sqls, self.victim, self.events, self.stories, self.ash_rng) if self.ash_rng else None
        )
        st = State(inst.startup)
        prev_time = None
        taken = []  # (snap_id, time, startup) of the instance's snapshots, for its parameters
        for k, (snap_id, t, flag) in enumerate(self.times):
            if t not in inst.missing:
                begin = prev_time or t - timedelta(seconds=db.step)
                if t in inst.restarts:
                    st = State(inst.restarts[t])
                    out.add("database_instance", self._instance_row(inst, st.startup))
                    begin = st.startup
                self._snapshot(snap_id, inst, st, begin, t, (t - begin).total_seconds(), flag)
                taken.append((snap_id, t, st.startup))
                prev_time = t
                yield 1
            if shared:
                out.extend("tbspc_space_usage", self.tablespaces.usage(snap_id, t, k))
        out.extend(PARAMETER_BASE.name, parameters.rows(db, inst, taken, self.stories))
        if self.ash and self.live_minutes and self.times[-1][1] not in inst.missing:
            self._live(inst, st)

    def _live(self, inst, st):
        """GV$ACTIVE_SESSION_HISTORY of the instance: one-second samples for the live minutes after the newest
        snapshot, drawn as the history's from the same model (app/demo/ash.py), a half hour at a time; the live row
        lock's chain where the story puts it (workload.place_stories)."""
        db, end = self.db, self.times[-1][1]
        live = Ash(db, inst, self.sqls, self.victim, self.events, self.stories, random.Random(self.ash_rng.random()), 1)
        lock = self.stories["live"]["row_lock"]
        live.lock = lock if lock and lock["db"] is db and lock["instance"] == inst.number else None
        for begin in range(0, self.live_minutes, STEP // 60):
            t0, t1 = end + timedelta(minutes=begin), end + timedelta(minutes=min(begin + STEP // 60, self.live_minutes))
            mid = t0 + (t1 - t0) / 2
            q = rates(db, mid, self.stories, 1.0, (mid - self.start).total_seconds() / DAY, inst.number)
            rows, _ = live.interval(None, st.startup, t0, t1, (t1 - t0).total_seconds(), q)
            # the buffer's first and last seconds sampled: its oldest sample and its now (queries.live_clock)
            for k, at in ((-1, t0 + timedelta(seconds=1)), (-2, t1)):  # moved: samples drawn last, not the chain's
                second = int((at - st.startup).total_seconds())
                edge = at in (end + timedelta(seconds=1), end + timedelta(minutes=self.live_minutes))
                if rows and edge and all(r[3] != second for r in rows):
                    rows[k] = (*rows[k][:3], second, fmt(at), *rows[k][5:])
            self.out.extend("live_ash", live_rows(live, rows))

    def _instance_row(self, inst, startup):
        db = self.db
        return (
            db.dbid,
            inst.number,
            fmt(startup),
            "YES" if db.rac else "NO",
            "19.0.0.0.0",
            db.name,
            inst.name,
            inst.host,
            "Linux x86 64-bit",
            "NO",
            "EE",
            db.name,
            "PRIMARY",
        )

    def _snapshot(self, snap_id, inst, st, begin, end, seconds, flag):
        db, out, rng = self.db, self.out, self.rng
        key = (db.dbid, inst.number)
        out.add(
            "snapshot",
            (
                snap_id,
                db.dbid,
                inst.number,
                fmt(st.startup),
                fmt(begin),
                fmt(end),
                round(rng.uniform(0.4, 2.5), 3),
                1,
                0,
                flag,
                float(db.tz),
            ),
        )
        mid = begin + (end - begin) / 2
        noise = rng.lognormvariate(
            0, 0.05 if (db.capacity is None or mid >= self.stories["async_io_fix"]["startup"]) else 0.11
        )
        q = rates(db, mid, self.stories, noise, (mid - self.start).total_seconds() / DAY, inst.number)
        d = {}  # integer deltas of this interval, by name, for the metrics
        head = (snap_id, *key)
        for view, table, scale in (
            ("sysstat", SYSSTAT_ROWS, seconds),
            ("sys_time_model", TIME_MODEL_ROWS, seconds * US_PER_S),
        ):
            values, deltas = st.accumulate(view, [q[driver] * coef * scale for _, _, driver, coef in table])
            d.update(zip([r[1] for r in table], deltas, strict=True))
            out.extend(view, [(*head, r[0], r[1], v) for r, v in zip(table, values, strict=True)])
        out.extend(
            "sysstat",
            [
                (*head, sid, name, round(q[driver] * coef * rng.uniform(0.97, 1.03)))
                for sid, name, driver, coef in READING_ROWS
            ],
        )
        waits, ms = self._events(snap_id, key, st, q, seconds, d)
        if end > self.history_from:  # histograms and segments for the most recent days, as the per-minute metrics
            out.extend(
                "event_histogram",
                self.detail.histograms(snap_id, key, st, self.events, waits, ms, q["lat"]["config"] == 1.0),
            )
            chain = q["w"]["row_lock"] / (
                (q["w"]["row_lock"] + q["w"]["app"] * 0.8) or 1
            )  # workload.rates, names.EVENTS
            out.extend("seg_stat", self.detail.seg_stats(snap_id, key, d, waits, q["batch"], seconds, chain))
        self._osstat(snap_id, key, st, q, seconds, d)
        self._io(snap_id, key, st, q, seconds)
        detail = end > self.history_from and not db.statspack  # binds and per-minute metrics: AWR's
        sqlstats, binds = self.statements.interval(rng, snap_id, key, st, q, seconds, end, detail)
        out.extend("sqlstat", sqlstats)
        if binds:  # for the detail days only: small
            out.extend("sqlbind", binds)
        self._memory(snap_id, key, st, q, seconds)
        if db.statspack:  # no system metrics, no ASH
            return
        m = metrics(q, d, seconds)
        m.update(load=q["load"], sessions=q["sessions"])
        summary, history = sysmetric_rows(rng, snap_id, key, begin, end, seconds, m, noise, detail)
        out.extend("sysmetric_summary", summary)
        if history:
            out.extend("sysmetric_history", history)
        if self.ash and end > self.ash_from:  # ASH for the most recent days
            rows, totals = self.ash.interval(snap_id, st.startup, begin, end, seconds, q)
            out.extend(ASH_BASE.name, rows)  # the samples as the store keeps them (embedded.ash.ASH_BASE)
            if self.ash_totals:
                out.extend(ASH_TOTALS.name, totals)
            out.extend(ASH_NAMES.name, self.ash.names())

    def _events(self, snap_id, key, st, q, seconds, d):
        amounts, average = [], {}
        for _, name, _, _, driver, share, ms, bg_share in self.events:
            if driver.startswith("idle"):
                fg = q["idle_client"] * seconds if driver == "idle_client" else 0.0
                bg = q["bg"].get(driver, 0.0) * share * seconds
            else:
                fg = foreground(q, name, driver, share, bg_share, seconds)
                bg = (q["bg"].get(driver, 0.0) * share + q["w"].get(driver, 0.0) * share * bg_share) * seconds
                if driver in ("commit", "sread", "mread"):  # the main event's latency, and its relatives'
                    ms = q["lat"][driver] * EVENT_SCALE.get(name, 1.0)
                elif driver in q["bg_lat"]:
                    ms = q["bg_lat"][driver]
                elif driver == "config":
                    ms *= q["lat"]["config"]
            avg = ms / 1000
            average[name] = ms
            fg_waits, bg_waits = fg / avg, bg / avg
            timeouts = (fg_waits + bg_waits) * 0.3 if driver.startswith("idle") else 0.0
            amounts += (fg_waits + bg_waits, timeouts, (fg + bg) * US_PER_S, fg_waits, fg * US_PER_S)
        values, deltas = st.accumulate("system_event", amounts)
        rows, interval_waits = [], {}
        for k, (event_id, name, wait_class, class_id, *_) in enumerate(self.events):
            waits, timeouts, time_all, waits_fg, time_fg = values[5 * k : 5 * k + 5]
            interval_waits[name] = deltas[5 * k]
            if name == "db file sequential read":
                d[f"{name}:waits"], d[f"{name}:time"] = deltas[5 * k + 3], deltas[5 * k + 4]
            rows.append(
                (snap_id, *key, event_id, name, class_id, wait_class, waits, timeouts, time_all, waits_fg, 0, time_fg)
            )
        self.out.extend("system_event", rows)
        return interval_waits, average

    def _osstat(self, snap_id, key, st, q, seconds, d):
        db = self.db
        cs = seconds * CS_PER_S
        busy, idle = q["busy"] * cs, q["idle"] * cs
        user = busy * 0.82
        counters = {
            "BUSY_TIME": busy,
            "IDLE_TIME": idle,
            "USER_TIME": user,
            "SYS_TIME": busy - user,
            "IOWAIT_TIME": q["iowait"] * cs,
            "NICE_TIME": 0.0,
            "RSRC_MGR_CPU_WAIT_TIME": q["rsrc"] * cs,
            "VM_IN_BYTES": 0.0,
            "VM_OUT_BYTES": 0.0,
        }
        values, deltas = st.accumulate("osstat", list(counters.values()))
        # BUSY + IDLE is exactly the CPU time available: IDLE takes the rounding
        idle_delta = round(seconds * db.cpus * CS_PER_S) - deltas[0]
        st.values["osstat"][1] += idle_delta - deltas[1]
        values[1], deltas[1] = values[1] - deltas[1] + idle_delta, idle_delta
        d.update(zip(counters, deltas, strict=True))
        rows = [(snap_id, *key, stat_id(name), name, v) for name, v in zip(counters, values, strict=True)]
        readings = {
            "NUM_CPUS": db.cpus,
            "NUM_CPU_CORES": db.cores,
            "NUM_CPU_SOCKETS": 1,
            "PHYSICAL_MEMORY_BYTES": db.memory_gb * GIB,
            "LOAD": round(q["load"], 2),
            "TCP_SEND_SIZE_MAX": 4 * MIB,
            "TCP_RECEIVE_SIZE_MAX": 6 * MIB,
        }
        rows += [(snap_id, *key, stat_id(n), n, v) for n, v in readings.items()]
        self.out.extend("osstat", rows)

    def _io(self, snap_id, key, st, q, seconds):
        """I/O by function and by file type, consistent with the physical I/O statistics."""
        s = seconds
        small_r = q["pcache"] * s
        redo_w = q["redo_writes"] * s
        dbwr_w = q["wreq"] * 0.9 * s
        rman = q["rman_mb"] * s
        bs = self.db.block_size / MIB
        functions = {  # name -> (small read MB, small write MB, large read MB, large write MB, sr, sw, lr, lw)
            "Buffer Cache Reads": (small_r * bs, 0, 0, 0, small_r, 0, 0, 0),
            "Direct Reads": (0, 0, q["pdirect"] * s * bs, 0, 0, 0, q["pdirect"] * s / BLOCKS_PER_DIRECT_READ, 0),
            "Direct Writes": (0, 0, 0, q["ptemp"] * s * bs * 0.9, 0, 0, 0, q["ptemp"] * s / BLOCKS_PER_TEMP_IO),
            "DBWR": (0, dbwr_w * bs, 0, 0, 0, dbwr_w, 0, 0),
            "LGWR": (0, redo_w * 0.002, 0, q["redo"] * s / MIB, 0, redo_w * 0.02, 0, redo_w),
            "ARCH": (0, 0, q["redo"] * s / MIB, q["redo"] * s / MIB, 0, 0, redo_w * 0.01, redo_w * 0.01),
            "RMAN": (0, 0, rman, rman * 0.2, 0, 0, rman, rman * 0.2),
            "Others": (3 * s * bs, 2 * s * bs, 0, 0, 3 * s, 2 * s, 0, 0),
        }
        for view, names, table in (
            ("iostat_function", IO_FUNCTIONS, functions),
            ("iostat_filetype", IO_FILETYPES, self._filetypes(functions)),
        ):
            amounts = []
            for name in names:  # the eight I/O columns, then requests and wait time (ms)
                row = table.get(name, (0,) * 8)
                reqs = sum(row[4:])
                amounts += (*row, reqs, reqs * q["sread_ms"])
            values, _ = st.accumulate(view, amounts)
            rows = []
            for item_id, name in enumerate(names):
                *io, reqs, wait = values[10 * item_id : 10 * item_id + 10]
                if view == "iostat_function":
                    rows.append((snap_id, *key, item_id, name, *io, reqs, wait))
                else:
                    rows.append(
                        (
                            snap_id,
                            *key,
                            item_id,
                            name,
                            *io,
                            io[4],
                            wait,
                            wait // 3,
                            round(wait / io[4], 3) if io[4] else 0,
                            0,
                            0,
                        )
                    )
            self.out.extend(view, rows)

    @staticmethod
    def _filetypes(f):
        def add(*names):
            return tuple(sum(f[n][i] for n in names) for i in range(8))

        return {
            "Data File": add("Buffer Cache Reads", "Direct Reads", "DBWR"),
            "Temp File": add("Direct Writes"),
            "Log File": add("LGWR"),
            "Archive Log": add("ARCH"),
            "Data File Backup": add("RMAN"),
            "Control File": add("Others"),
        }

    def _memory(self, snap_id, key, st, q, seconds):
        sga = [
            ("shared pool", "free memory", 0.4 * GIB),
            ("shared pool", "SQLA", 1.1 * GIB),
            ("shared pool", "KGLH0", 0.5 * GIB),
            ("shared pool", "row cache", 0.1 * GIB),
            (None, "buffer_cache", (6 if not self.db.rac else 64) * GIB),
            (None, "log_buffer", 128 * MIB),
            (None, "fixed_sga", 12 * MIB),
            ("large pool", "free memory", 200 * MIB),
            ("java pool", "free memory", 64 * MIB),
            ("streams pool", "free memory", 32 * MIB),
        ]
        self.out.extend("sgastat", [(snap_id, *key, pool, name, round(b)) for pool, name, b in sga])
        target = (4 if not self.db.rac else 32) * GIB
        allocated = q["sessions"] * 6e6 + q["batch"] * 0.3 * target
        pga = [
            ("aggregate PGA target parameter", target),
            ("total PGA allocated", allocated),
            ("total PGA inuse", allocated * 0.7),
            ("maximum PGA allocated", max(allocated, target * 0.5)),
            ("total freeable PGA memory", allocated * 0.1),
            ("cache hit percentage", 99.2 - 4 * q["batch"]),
            ("over allocation count", 0),
            ("process count", q["sessions"] + 60),
        ]
        # the bytes the work areas (sorts, hash joins) processed since startup: a counter, the Load Profile's SQL
        # Work Area (MB)
        (processed,), _ = st.accumulate("pgastat", [(q["sort"] * MIB / 4 + q["batch"] * 200 * MIB) * seconds])
        pga.append(("bytes processed", processed))
        self.out.extend("pgastat", [(snap_id, *key, n, round(v)) for n, v in pga])


class State:
    """Cumulative counters of one instance since its startup."""

    __slots__ = ("startup", "values")

    def __init__(self, startup):
        self.startup = startup
        self.values = {}

    def accumulate(self, key, amounts):
        """Add a vector of amounts to the counters under `key`; returns (cumulative integers, integer deltas)."""
        before = self.values.get(key) or [0.0] * len(amounts)
        after = [b + a for b, a in zip(before, amounts, strict=True)]
        self.values[key] = after
        ints = [int(x) for x in after]
        return ints, [i - int(b) for i, b in zip(ints, before, strict=True)]
