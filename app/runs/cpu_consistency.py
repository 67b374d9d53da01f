"""Field test 002 (CPU consistency): N parallel sessions, each on its own connection, run one CPU-only statement at
the same moment, for N = 1..M and with repeats; the elapsed time of every session is recorded.

On Oracle the statement is the field test's own (a bind instead of the literal 200):
    with t as (select rownum from dual connect by level <= :lvl) select /*+ ALL_ROWS */ count(*) from t,t,t,t
On SQLite, the same shape: a recursive CTE of `level` rows cross joined four times, level^4 rows counted in the
engine with no I/O (the GIL is released while SQLite runs, so the sessions do run in parallel). At the same level
the row count is the same; SQLite counts about 70 million rows a second per core on this project's machines, so
level 200 (1.6 billion rows) takes some 20 s per session, near the field test's 40 s on Oracle.

Each repeat opens N fresh connections (as the field test's script starts N sqlplus sessions), waits until all are
connected, then releases them together; the connect time is kept too (field test 002 found it varied).
"""

import contextlib
import threading
import time

from sqlalchemy import bindparam, func, literal, select, text, true

from app.runs.awr_window import Window
from app.runs.machine import machine
from app.runs.model import default_slug, utc_now
from app.store.awr.queries import render

FIELD_TEST_LEVEL = 200  # rows per side of the cross join in field test 002
ORACLE_STATEMENT = (
    "with t as (select rownum from dual connect by level <= :lvl) select /*+ ALL_ROWS */ count(*) from t,t,t,t"
)


def statement(dialect: str):
    """The CPU-only statement for a backend; its one bind is `lvl`."""
    if dialect == "oracle":
        return text(ORACLE_STATEMENT).bindparams(bindparam("lvl"))
    t = select(literal(1).label("n")).cte("t", recursive=True)
    t = t.union_all(select(t.c.n + 1).where(t.c.n < bindparam("lvl")))
    a, b, c, d = (t.alias(name) for name in "abcd")
    return select(func.count()).select_from(a.join(b, true()).join(c, true()).join(d, true()))


def run(
    store,
    max_sessions: int,
    repeats: int = 3,
    level: int = FIELD_TEST_LEVEL,
    timeout: float = 600.0,
    slug: str | None = None,
    visibility: str = "public",
    take_snapshots: bool = False,
    environment=None,
    on_progress=None,
) -> dict:
    """Run the test on `store` and return the run document (not yet stored)."""
    if not 1 <= max_sessions <= 256 or not 1 <= repeats <= 1000 or not 1 <= level <= 100_000:
        raise ValueError("max_sessions 1..256, repeats 1..1000, level 1..100000")
    stmt = statement(store.dialect)
    total = max_sessions * repeats
    done = 0
    rows = []
    started = utc_now()
    with Window(store, take_snapshots) as window, store.session_engine(max_sessions, timeout) as engine:
        version = _version(engine)
        for n in range(1, max_sessions + 1):
            for repeat in range(1, repeats + 1):
                results = _round(engine, stmt, n, level)
                first = min(r[1] for r in results)
                for session, (connect_s, began, elapsed) in enumerate(results, 1):
                    rows.append(
                        {
                            "series": f"N={n}",
                            "x": n,
                            "y": round(elapsed, 4),
                            "unit": "s",
                            "extra": {
                                "session": session,
                                "repeat": repeat,
                                "connect_s": round(connect_s, 4),
                                "start_s": round(began - first, 4),
                            },
                        }
                    )
                done += 1
                if on_progress:
                    on_progress(done, total)
    finished = utc_now()
    host = machine()
    env = {
        "host": host["host"],
        "vcpus": host["vcpus"],
        "cores": host["cores"],
        "db_version": version,
        **(environment or {}),
    }
    expected = level**4
    sql = render(stmt, engine.dialect)
    doc = {
        "slug": slug or default_slug("cpu", started),
        "kind": "cpu_consistency",
        "visibility": visibility,
        "title": f"CPU consistency on {host['host']}: 1 to {max_sessions} parallel sessions, "
        f"{env.get('vcpus')} vCPUs / {env.get('cores')} cores",
        "description": f"N parallel sessions, each on its own connection to {store.alias} ({store.dialect}), run "
        f"the same CPU-only statement ({expected:,} rows counted, no I/O) at the same moment, for "
        f"N = 1 to {max_sessions}, {repeats} times each; y is each session's elapsed time. Sessions "
        f"that share a core take longer (field test 002: with 9 sessions on 8 cores, two took 50 % "
        f"longer). Recorded by `flask runs cpu`.",
        "environment": {k: v for k, v in env.items() if v is not None},
        "started": started.isoformat(),
        "finished": finished.isoformat(),
        "parameters": {
            "statement": sql,
            "level": level,
            "rows_counted": expected,
            "max_sessions": max_sessions,
            "repeats": repeats,
            "target": store.alias,
            "backend": store.dialect,
            "os": host["os"],
            "timeout_s": timeout,
            **({"awr": window.note()} if window.note() else {}),
        },
        "measurements": rows,
    }
    if window.document():
        doc["awr"] = window.document()
    return doc


def _round(engine, stmt, n: int, level: int) -> list[tuple[float, float, float]]:
    """N sessions, connected first, then released together: [(connect s, start time, elapsed s)] by session."""
    ready = threading.Barrier(n + 1)
    results: list = [None] * n
    errors: list = []

    def session(i):
        try:
            t0 = time.perf_counter()
            conn = engine.connect()
        except Exception as exc:  # connect failed: let the others go, then report
            errors.append(exc)
            ready.abort()
            return
        try:
            connect_s = time.perf_counter() - t0
            ready.wait()
            t1 = time.perf_counter()
            count = conn.execute(stmt, {"lvl": level}).scalar()
            if count != level**4:
                raise RuntimeError(f"session {i + 1} counted {count} rows, not {level**4}")
            results[i] = (connect_s, t1, time.perf_counter() - t1)
        except threading.BrokenBarrierError:
            pass
        except Exception as exc:
            errors.append(exc)
        finally:
            conn.close()

    threads = [threading.Thread(target=session, args=(i,), daemon=True, name=f"cpu-session-{i}") for i in range(n)]
    for t in threads:
        t.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        ready.wait()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _version(engine) -> str:
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            return "SQLite " + conn.execute(select(func.sqlite_version())).scalar()
        return "Oracle " + conn.connection.driver_connection.version
