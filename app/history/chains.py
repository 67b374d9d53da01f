"""Wait chains from Active Session History (docs/awr-rules.md §22): over any range or window of sample times, the tree
of who blocked whom, root blockers first, as ash_wait_chains prints them. A session is (instance, SID, serial#); its
blocker is (BLOCKING_INST_ID, BLOCKING_SESSION, BLOCKING_SESSION_SERIAL#), so the same SID on two RAC instances is
two sessions. Each node says what the session did meanwhile (its own samples: state, event, SQL_ID, user, program,
machine) and, under its blocker, what it waited on (event and object) for how many samples."""

from collections import Counter

from app.history import activity, live_buffer, names
from app.history.database import Database, Range
from app.history.numbers import round4
from app.store.awr import queries

MOST_ROOTS = 25  # root blockers shown, the most waited-on first
MOST_WAITERS = 25  # waiters shown under one blocker
MOST_NODES = 500  # nodes of the whole tree: a node past it is listed, its waiters not
MOST_ELSEWHERE = 100  # sessions of a chain read again in another run of a SNAP_TIMEZONE (_elsewhere)
DOING = 5  # (state, event, SQL_ID) of a node shown, the most sampled first
NOT_SAMPLED = (
    "not sampled in the window: idle meanwhile (ASH samples active sessions only), e.g. in an open transaction"
)


class _Session:
    def __init__(self, key):
        self.key = key
        self.samples = self.on_cpu = 0
        self.doing, self.users, self.programs, self.machines = Counter(), Counter(), Counter(), Counter()
        self.blockers: dict = {}  # blocker key -> Counter((event, object key) -> samples)
        self.waiters: dict = {}  # waiter key -> its samples blocked by this session


def compute(db: Database, rng: Range) -> dict:
    sampled = activity.sampled_range(db, rng)
    body = {
        "db": db.key,
        "range": activity.public_range(rng, sampled[0]) if sampled else rng.public(),
        "unit": "sessions",
        "sample_seconds": None,
        "blocked_samples": 0,
        "sessions": 0,
        "roots": [],
    }
    if sampled is None:
        body["reason"] = "the range holds no interval"
        return body
    read, _, seconds, by_time, live = sampled
    step = activity.spacing(db, read)
    runs = [(inst, where) for _, inst, where in activity.sampled_runs(db, sampled, {})]
    found = [
        db.rows(queries.wait_chains(db.store.views, by_time, () if inst is None else ("instance",), live), **where)
        for inst, where in runs
    ]
    rows = [r for got in found for r in got]
    if len(runs) > 1:  # SNAP_TIMEZONE changes inside: a session of a chain has its samples of every run
        rows += _elsewhere(db, runs, found, rows, by_time, live)
    sessions = _sessions(rows)
    objects = names.objects(db, {obj for s in sessions.values() for c in s.blockers.values() for _, obj in c})
    users = names.users(db, {u for s in sessions.values() for u in s.users})
    aas = (lambda n: round4(n * step / seconds)) if seconds else (lambda n: None)
    tree = _Tree(sessions, objects, users, aas, db.dbid)
    body.update(
        sample_seconds=step,
        blocked_samples=sum(sum(s.waiters.values()) for s in sessions.values()),
        sessions=len(sessions),
        roots=tree.roots(),
        truncated=tree.nodes > MOST_NODES,
    )
    if live:
        body["live"] = live_buffer.note(read)
    return body


def _elsewhere(db: Database, runs: list, found: list, rows: list, by_time: bool, live: bool) -> list:
    """The samples, in each run (activity.sampled_runs), of the sessions of a chain that the run's own statement left
    out, as they blocked or were blocked in another run only: a statement per such session and run (MOST_ELSEWHERE
    sessions at most, the most sampled chains' first)."""
    chained = {r[:3] for r in rows} | {r[3:6] for r in rows if r[4] is not None}
    out = []
    for (inst, where), got in zip(runs, found, strict=True):
        keys = ("instance", "session") if inst is not None else ("session",)
        for key in sorted(chained - {r[:3] for r in got}, key=str)[:MOST_ELSEWHERE]:
            if inst is not None and key[0] != inst:
                continue
            stmt = queries.wait_chains(db.store.views, by_time, keys, live)
            out += db.rows(stmt, **where, f_session_0=key[0], f_session_1=key[1], f_session_2=key[2])
    return out


def _sessions(rows) -> dict:
    """{(instance, sid, serial#): _Session} from the statement's rows (queries.wait_chains)."""
    sessions: dict = {}

    def session(key):
        return sessions.get(key) or sessions.setdefault(key, _Session(key))

    for row in rows:
        (inst, sid, serial, b_inst, b_sid, b_serial, state, event, sql_id), n = row[:9], row[-1]
        user, (program, machine), obj = row[9:11], row[11:13], row[13:15]
        s = session((inst, sid, serial))
        s.samples += n
        s.on_cpu += n if state == queries.ON_CPU else 0
        s.doing[state, event, sql_id] += n
        s.users[user] += n
        s.programs[program] += n
        s.machines[machine] += n
        if b_sid is not None:
            blocker = (b_inst, b_sid, b_serial)
            s.blockers.setdefault(blocker, Counter())[event, tuple(obj)] += n
            b = session(blocker)
            b.waiters[s.key] = b.waiters.get(s.key, 0) + n
    return sessions


class _Tree:
    """The chains as a tree: the roots are the sessions that blocked others and were never blocked themselves; a
    session blocked only inside a cycle (a deadlock) is a root too, marked. A session blocked by two sessions is under
    both; a session already on its own path is not expanded again (`cycle`)."""

    def __init__(self, sessions: dict, objects: dict, users: dict, aas, dbid: int):
        self.sessions, self.objects, self.users, self.aas, self.dbid = sessions, objects, users, aas, dbid
        self.nodes = 0
        self._behind: dict = {}

    def roots(self) -> list:
        blocking = [s for s in self.sessions.values() if s.waiters]
        roots = [s for s in blocking if not s.blockers]
        reached = set()
        for r in roots:
            self._reach(r.key, reached)
        for s in sorted(blocking, key=lambda s: (-self.behind(s.key), s.key)):  # cycles nothing outside them blocks
            if s.key not in reached:
                roots.append(s)
                self._reach(s.key, reached)
        roots.sort(key=lambda s: (-self.behind(s.key), s.key))
        return [self._node(s, (), None) for s in roots[:MOST_ROOTS]]

    def _reach(self, key, reached: set):
        todo = [key]
        while todo:
            k = todo.pop()
            if k not in reached:
                reached.add(k)
                todo += self.sessions[k].waiters

    def behind(self, key) -> int:
        """The blocked samples of the session's waiters and of theirs (each waiter once)."""
        if key not in self._behind:
            seen, todo, total = {key}, [key], 0
            while todo:
                for waiter, n in self.sessions[todo.pop()].waiters.items():
                    total += n
                    if waiter not in seen:
                        seen.add(waiter)
                        todo.append(waiter)
            self._behind[key] = total
        return self._behind[key]

    def _node(self, s: _Session, path: tuple, blocker) -> dict:
        self.nodes += 1
        inst, sid, serial = s.key
        node = {
            "session": f"{inst}:{sid},{serial}",
            "instance": inst,
            "sid": sid,
            "serial": serial,
            "samples": s.samples,
            "aas": self.aas(s.samples),
            "on_cpu": s.on_cpu,
            "doing": [
                {"state": state, "event": event, "sql_id": sql_id, "samples": n}
                for (state, event, sql_id), n in sorted(s.doing.items(), key=lambda x: (-x[1], str(x[0])))[:DOING]
            ],
            "user": activity.most_sampled(s.users, lambda k: activity.label("user", k, self.dbid)),
            "user_name": activity.most_sampled(s.users, lambda k: self.users.get(k)),
            "program": activity.most_sampled(s.programs),
            "machine": activity.most_sampled(s.machines),
            "note": None if s.samples else NOT_SAMPLED,
            "behind": self.behind(s.key),
            "behind_aas": self.aas(self.behind(s.key)),
            "cycle": s.key in path or (blocker is None and bool(s.blockers)),
        }
        if blocker is not None:
            waits = s.blockers[blocker]
            node["blocked_samples"] = sum(waits.values())
            node["blocked_aas"] = self.aas(node["blocked_samples"])
            node["waits"] = [
                {
                    "event": event,
                    "current_obj": activity.label("current_obj", obj, self.dbid),
                    "object": (self.objects.get(obj) or {}).get("name"),
                    "object_type": (self.objects.get(obj) or {}).get("object_type"),
                    "samples": n,
                }
                for (event, obj), n in sorted(waits.items(), key=lambda x: (-x[1], str(x[0])))
            ]
        waiters = sorted(s.waiters.items(), key=lambda x: (-x[1], x[0]))
        node["more_waiters"] = max(len(waiters) - MOST_WAITERS, 0)
        if s.key in path or self.nodes > MOST_NODES:
            node["waiters"], node["more_waiters"] = [], len(waiters)
            return node
        node["waiters"] = [self._node(self.sessions[w], (*path, s.key), s.key) for w, _ in waiters[:MOST_WAITERS]]
        return node
