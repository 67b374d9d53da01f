"""Active Session History of one instance (DBA_HIST_ACTIVE_SESS_HISTORY), drawn from the same per-interval model as
the counters, so the views agree as Oracle's do (docs/awr-rules.md §22): AWR keeps one in ten of V$ACTIVE_SESSION_
HISTORY's one-second samples, so each row stands for 10 s of DB time and an interval's samples x 10 s ~ its DB time;
ON CPU against the waits, and the waits by event, follow the foreground time of each event; the SQL_IDs follow top
SQL's elapsed shares. Only foreground sessions are sampled (DB time is foreground time). The samples use their own
random stream: the other views' rows are the same with or without them.

Rows are written as the store keeps them (embedded.ash.ASH_BASE: each text as its code, named once in ASH_NAMES), with
the samples per minute and half hour by wait class, event and SQL_ID (embedded.ash.ASH_TOTALS)."""

import calendar
import re
import zlib
from collections import Counter
from datetime import timedelta
from functools import cache

from app.demo.objects import lock_table, object_ids
from app.demo.plans import kind_lines
from app.demo.workload import ROW_LOCK_WAITERS, fmt
from app.store.awr.embedded.ash import ASH_CODED, ASH_TOTAL_DIMENSIONS, ASH_TOTAL_PERIODS, ash_code
from app.store.awr.views import views

SAMPLE_SECONDS = 10  # DBA_HIST keeps every 10th one-second sample
MINUTE = min(ASH_TOTAL_PERIODS)  # the finest totals (embedded.ash.ASH_TOTALS); every other period is a multiple of it
ROW_LOCK_EVENT = "enq: TX - row lock contention"
USERS = {"APP": 107, "REPORTS": 108, "CRM": 109}
# the user a module's sessions log in as (APP for the others): a session's USER_ID is its login's for its life, while
# its statements' parsing schema (DBA_HIST_SQLSTAT) may be another (ALTER SESSION SET CURRENT_SCHEMA)
MODULE_USERS = {"crm-web": "CRM", "reporting": "REPORTS"}
POOL = 60  # sessions per module
BLOCKER, CHAIN = 1801, (1802, 1803, 1804, 1805, 1806, 1807)  # the blocking chain's sessions (SIDs)
NO_LINE = ((None, None, None),)  # a PL/SQL block has no plan


def service_names(db) -> list[str]:
    """The database's services: the application's first (its sessions'), then Oracle's own."""
    return [f"{db.name.lower()}_app", "SYS$USERS", "SYS$BACKGROUND"]


def service_hash(db, name: str) -> int:
    """A service's SERVICE_NAME_HASH in the demo (ASH's SERVICE_HASH, DBA_HIST_SERVICE_NAME's key)."""
    return zlib.crc32(name.encode())


def foreground(q: dict, name: str, driver: str, share: float, bg_share: float, seconds: float = 1.0) -> float:
    """Foreground seconds an event waits over `seconds` of an interval (its DBA_HIST_SYSTEM_EVENT *_FG time); the
    blocking chain's waits are the row lock's."""
    fg = q["w"].get(driver, 0.0) * share * seconds * (1 - bg_share)
    return fg + (q["w"]["row_lock"] * seconds if name == ROW_LOCK_EVENT else 0.0)


def row_lock_sql(oltp):
    """The statement of the blocking chain: the first OLTP update."""
    return next((s for s in oltp if s.command_type == 6), oltp[0])


class Ash:
    """The samples of one instance, interval by interval: those AWR keeps (one every SAMPLE_SECONDS), or with
    `spacing` 1 the in-memory buffer's one a second (live_rows)."""

    def __init__(self, db, inst, sqls, victim, events, stories, rng, spacing=SAMPLE_SECONDS):
        self.db, self.inst, self.victim, self.rng, self.spacing = db, inst, victim, rng, spacing
        self.events = [
            (name, wc, drv, share, bg) for _, name, wc, _, drv, share, _, bg in events if not drv.startswith("idle")
        ]
        self.oltp = [s for s in sqls if not s.batch and s is not victim]
        total = sum(s.exec_weight * s.ms for s in self.oltp)
        self.oltp_cum = _cumulative([s.exec_weight * s.ms / total for s in self.oltp])
        self.oltp_shares = _shares(self.oltp_cum)
        self.oltp_plans = [(s, s.plan) for s in self.oltp]
        self.batch = [s for s in sqls if s.batch]
        self.batch_plans = [(s, s.plan) for s in self.batch]
        modules = sorted({s.module for s in sqls})
        self.pool = {m: 100 + POOL * k for k, m in enumerate(modules)}
        self.service = service_hash(db, service_names(db)[0])
        self.lock = stories["row_lock"] if stories["row_lock"]["db"] is db and inst.number == 1 else None
        self.lock_sql = row_lock_sql(self.oltp)
        self.objects, self.tables = object_ids(db, self.lock_sql), {}  # NAME -> (OBJ#, type); SQL_ID -> its tables
        self.ctx = {}  # per (SQL, plan): the columns a session running it has
        self.codes, self.named, self.fresh = {}, {}, []  # text -> code, code -> text, names not written yet
        self.fg, self.on_cpu, self.waiting, self.cpu = (
            self.code(t) for t in ("FOREGROUND", "ON CPU", "WAITING", "CPU")
        )
        self.per_sql, self.per_line, self.per_session = {}, {}, {}

    def code(self, text):
        """The code of a text (embedded.ash.ash_code), remembered to be named once in ASH_NAMES; None stays None."""
        if text is None:
            return None
        c = self.codes.get(text)
        if c is None:
            c = ash_code(text)
            if self.named.setdefault(c, text) != text:
                raise RuntimeError(f"{text!r} and {self.named[c]!r} have the same code (embedded.ash.ash_code)")
            self.codes[text] = c
            self.fresh.append((c, text))
        return c

    def names(self):
        """The ASH_NAMES rows of the texts first used since the last call."""
        fresh, self.fresh = self.fresh, []
        return fresh

    def totals(self, snap_id, counts):
        """ASH_TOTALS rows of one interval from its samples counted per (minute, wait class, event, SQL_ID)."""
        minute = MINUTE
        per_dim = [Counter() for _ in ASH_TOTAL_DIMENSIONS]
        for (start, *groups), n in counts.items():
            for c, g in zip(per_dim, groups, strict=True):
                c[start, g] += n
        rows, head = [], (self.db.dbid,)
        for dim, c in enumerate(per_dim, 1):
            for period in ASH_TOTAL_PERIODS:
                if period == minute:
                    out = c
                else:
                    out = Counter()
                    for (start, g), n in c.items():
                        out[start - start % period, g] += n
                rows += [
                    (*head, dim, period, snap_id, self.inst.number, start, g or 0, n) for (start, g), n in out.items()
                ]
        return rows

    def interval(self, snap_id, startup, begin, end, seconds, q):
        """The rows of the interval (begin, end]: sample k of the instance's startup is taken at startup + k s."""
        rng, head = self.rng, (snap_id, self.db.dbid, self.inst.number)
        spacing = self.spacing
        first = int((begin - startup).total_seconds()) // spacing + 1
        last = int((end - startup).total_seconds()) // spacing
        if last < first:
            return [], []
        slots = []
        for k in range(first, last + 1):
            moment = startup + timedelta(seconds=k * spacing)
            second = calendar.timegm(moment.timetuple())
            slots.append((k * spacing, fmt(moment), second - second % MINUTE))
        rows, used = [], [set() for _ in slots]
        counts = Counter()  # (minute, wait class, event, SQL_ID) codes -> samples
        lock_samples = blocker_samples = 0
        if self.lock:
            for k, (sample_id, stamp, minute) in enumerate(slots):
                moment = startup + timedelta(seconds=sample_id)
                if self.lock["from"] <= moment < self.lock["to"]:
                    rows += self._chain(head, sample_id, stamp, minute, counts)
                    used[k].update((BLOCKER, *CHAIN))
                    lock_samples += ROW_LOCK_WAITERS
                    if moment < self.lock["from"] + timedelta(seconds=spacing):  # the update that took the lock
                        rows.append(self._blocker(head, sample_id, stamp, minute, counts))
                        blocker_samples += 1
        reg_execs, reg_ms, regressed = q["reg"]
        victim_time = reg_execs * reg_ms / 1000
        cpu = q["dbcpu"] + q["queue"]
        batch_cpu = min(q["batch"] * (4.0 if self.db.rac else 1.1), cpu)
        victim_cpu = min(victim_time * 0.96, cpu - batch_cpu)
        kinds = [("cpu", None, None, cpu, None)]
        for name, wc, drv, share, bg in self.events:
            fg = foreground(q, name, drv, share, bg)
            if name == ROW_LOCK_EVENT:
                fg = max(fg - lock_samples * spacing / seconds, 0.0)  # the chain's waits are drawn above
            if fg > 0:
                kinds.append(
                    (
                        "mread"
                        if drv == "mread"
                        else "sread"
                        if drv == "sread"
                        else "commit"
                        if drv == "commit"
                        else "other",
                        name,
                        wc,
                        fg,
                        drv,
                    )
                )
        total = sum(k[3] for k in kinds)
        count = round((q["dbtime"] * seconds) / spacing) - lock_samples - blocker_samples
        if count <= 0 or total <= 0:
            return rows, self.totals(snap_id, counts)
        picked = rng.choices(range(len(kinds)), cum_weights=_cumulative([k[3] for k in kinds]), k=count)
        per_kind = [0] * len(kinds)
        for k in picked:
            per_kind[k] += 1
        code, fg = self.code, self.fg
        for (kind, event, wait_class, rate, drv), n in zip(kinds, per_kind, strict=True):
            if not n:
                continue
            sources = self._sources(kind, drv, q, cpu, batch_cpu, victim_cpu, regressed, rate)
            on_cpu = kind == "cpu"
            state = self.on_cpu if on_cpu else self.waiting
            ev, wc = (self.cpu, self.cpu) if on_cpu else (code(event), code(wait_class))
            ev_row, wc_row = (None, None) if on_cpu else (ev, wc)
            for src, slot in zip(
                rng.choices(sources[0], cum_weights=sources[1], k=n), rng.choices(range(len(slots)), k=n), strict=True
            ):
                sql, plan = src
                sid = self._session(sql, used[slot])
                choices = kind_lines(sql, plan).get(kind, NO_LINE)  # the statement's own plan (app/demo/plans.py)
                line = choices[sid % len(choices)]
                sql_code, module, action, user = self._sql_codes(sql)
                program, machine = self._session_codes(sql, sid)
                sample_id, stamp, minute = slots[slot]
                if kind == "commit":
                    rows.append(
                        (
                            *head,
                            sample_id,
                            stamp,
                            sid,
                            _serial(sid),
                            fg,
                            user,
                            None,
                            sql_code,
                            None,
                            None,
                            None,
                            None,
                            ev_row,
                            wc_row,
                            state,
                            None,
                            None,
                            None,
                            None,
                            module,
                            action,
                            program,
                            self.service,
                            machine,
                        )
                    )
                    counts[minute, wc, ev, 0] += 1
                    continue
                obj = self._object(sql, line[1], sid) if kind in ("sread", "mread") else None
                rows.append(
                    (
                        *head,
                        sample_id,
                        stamp,
                        sid,
                        _serial(sid),
                        fg,
                        user,
                        sql_code,
                        sql_code,
                        plan,
                        *self._line_codes(line),
                        ev_row,
                        wc_row,
                        state,
                        None,
                        None,
                        None,
                        obj,
                        module,
                        action,
                        program,
                        self.service,
                        machine,
                    )
                )
                counts[minute, wc, ev, sql_code] += 1
        return rows, self.totals(snap_id, counts)

    def _sql_codes(self, sql):
        """(SQL_ID, module, action, user) of a statement's samples, codes where they are text; the user its module's
        sessions log in as."""
        c = self.per_sql.get(sql.sql_id)
        if c is None:
            c = self.per_sql[sql.sql_id] = (
                self.code(sql.sql_id),
                self.code(sql.module),
                self.code("nightly-load" if sql.batch else None),
                login_user(sql),
            )
        return c

    def _object(self, sql, operation, sid):
        """CURRENT_OBJ# of a read: one of the statement's tables (by the session), its primary key's index where
        the plan line reads an index; none for a statement that names no table of the application."""
        tables = self.tables.get(sql.sql_id)
        if tables is None:
            named = re.findall(r"\b(?:from|join|into|update)\s+(\w+)", sql.text, re.IGNORECASE)
            tables = self.tables[sql.sql_id] = [t.upper() for t in named if t.upper() in self.objects]
        if not tables:
            return None
        table = tables[sid % len(tables)]
        index = f"PK_{table}" if operation and operation.startswith("INDEX") else None
        return self.objects[index if index in self.objects else table][0]

    def _line_codes(self, line):
        c = self.per_line.get(line)
        if c is None:
            c = self.per_line[line] = (line[0], self.code(line[1]), self.code(line[2]))
        return c

    def _session_codes(self, sql, sid):
        key = (sql.batch, sql.module, sid)
        c = self.per_session.get(key)
        if c is None:
            c = self.per_session[key] = (self.code(self._program(sql, sid)), self.code(self._machine(sql, sid)))
        return c

    def _sources(self, kind, drv, q, cpu, batch_cpu, victim_cpu, regressed, rate):
        """(SQL, plan) choices and their cumulative weights for one kind of activity."""
        plan = self.victim and (self.victim.bad_plan if regressed else self.victim.plan)
        oltp = self.oltp_plans
        if kind == "cpu":
            rest = max(cpu - batch_cpu - victim_cpu, 0.0)
            batch = self.batch_plans if batch_cpu else []
            weights = [w * rest for w in self.oltp_shares] + [batch_cpu / len(self.batch)] * len(batch)
            if self.victim:
                return oltp + batch + [(self.victim, plan)], _cumulative([*weights, victim_cpu])
            return oltp + batch, _cumulative(weights)
        if kind == "mread" and q["batch"]:
            return self.batch_plans, _cumulative([1] * len(self.batch))
        if drv == "conc" and regressed and self.victim:  # the regressed plan's latch waits (workload.rates)
            victim = min(0.6 / rate, 1.0) if rate else 0.0
            return [*oltp, (self.victim, plan)], _cumulative([w * (1 - victim) for w in self.oltp_shares] + [victim])
        return oltp, self.oltp_cum

    def _chain(self, head, sample_id, stamp, minute, counts):
        """One sample of the blocking chain: its waiters on the row lock, blocked by the blocker or, behind it, by the
        first waiter; the blocker itself, idle in its open transaction, is not sampled (but once: _blocker)."""
        event, wait_class, sql_code = (
            self.code(ROW_LOCK_EVENT),
            self.code("Application"),
            self.code(self.lock_sql.sql_id),
        )
        rows = []
        for k, sid in enumerate(CHAIN):
            blocker = BLOCKER if k < 4 else CHAIN[0]
            rows.append(self._lock_row(head, sample_id, stamp, sid, self.waiting, event, wait_class, blocker))
            counts[minute, wait_class, event, sql_code] += 1
        return rows

    def _blocker(self, head, sample_id, stamp, minute, counts):
        """The blocker's one sample: on CPU in the update that took the row lock, at the chain's first sample; idle in
        its open transaction after it, and so not sampled."""
        counts[minute, self.cpu, self.cpu, self.code(self.lock_sql.sql_id)] += 1
        return self._lock_row(head, sample_id, stamp, BLOCKER, self.on_cpu, None, None, None)

    def _lock_row(self, head, sample_id, stamp, sid, state, event, wait_class, blocker):
        """A sample of a session of the blocking chain, in the row lock's statement on its table: waiting (blocked by
        `blocker` on this instance) or on CPU (event, wait class and blocker None)."""
        s, c = self.lock_sql, self.code
        sql_code = c(s.sql_id)
        return (
            *head,
            sample_id,
            stamp,
            sid,
            _serial(sid),
            self.fg,
            login_user(s),
            sql_code,
            sql_code,
            s.plan,
            1,
            c("UPDATE"),
            None,
            event,
            wait_class,
            state,
            blocker,
            None if blocker is None else _serial(blocker),
            None if blocker is None else self.inst.number,
            self.objects[lock_table(s)][0],
            c(s.module),
            None,
            c("JDBC Thin Client"),
            self.service,
            c(f"app-node{1 + sid % 4}"),
        )

    def _session(self, sql, used):
        """A SID of the module's pool not sampled yet at this instant (`used`): the next free one around the pool, so
        that a session stays its module's (and its login user's); past the pool only when all of it is sampled."""
        base, size = (20, 16) if sql.batch else (self.pool[sql.module], POOL)
        first = self.rng.randrange(size)
        sid = next((base + (first + k) % size for k in range(size) if base + (first + k) % size not in used), None)
        if sid is None:
            sid = base + size
            while sid in used:
                sid += 1
        used.add(sid)
        return sid

    def _program(self, sql, sid):
        if sql.batch:
            return f"oracle@{self.inst.host} (P{sid % 16:03d})"
        return "sqlplus@bastion (TNS V1-V3)" if sql.module == "SQL*Plus" else "JDBC Thin Client"

    def _machine(self, sql, sid):
        return self.inst.host if sql.batch else f"app-node{1 + sid % 4}"


def live_rows(ash: Ash, rows: list) -> list:
    """GV$ACTIVE_SESSION_HISTORY's rows (views.LIVE, as the embedded store keeps them: DBID first) of samples drawn as
    ASH_BASE's (Ash.interval): without SNAP_ID, each code its text again."""
    coded = _coded_positions()
    return [
        (r[1], r[2], *(ash.named.get(v) if k in coded and v is not None else v for k, v in enumerate(r[3:], 3)))
        for r in rows
    ]


@cache
def _coded_positions() -> frozenset:
    """The positions in an ASH_BASE row of its coded text columns (embedded.ash.ASH_CODED)."""
    return frozenset(k for k, c in enumerate(views().active_sess_history.c) if c.key in ASH_CODED)


def login_user(sql) -> int:
    """USER_ID of the sessions that run `sql`: its module's login (MODULE_USERS)."""
    return USERS[MODULE_USERS.get(sql.module, "APP")]


def _serial(sid: int) -> int:
    return (sid * 7919) % 65000 + 1


def _cumulative(weights):
    out, acc = [], 0.0
    for w in weights:
        acc += w
        out.append(acc)
    return out


def _shares(cum):
    return [b - a for a, b in zip([0.0, *cum[:-1]], cum, strict=True)]
