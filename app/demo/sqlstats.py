"""The SQL statistics of the demo's statements (DBA_HIST_SQLSTAT, and the binds AWR captured, DBA_HIST_SQLBIND): which
statements a snapshot holds (the busiest, a random few of the others, the plan regression's and the nightly batch's)
and their counters, their time a share of the interval's DB time."""

from app.demo.binds import bind_names, bind_rows
from app.demo.plans import BAD_PLAN_GETS
from app.demo.sql import catalog
from app.demo.workload import US_PER_S

TOP_OLTP = 28  # statements in every snapshot's SQL statistics, then a random few of the others
SAMPLED_OLTP = 8
HOSTILE_BIND = '<img src=x onerror="alert(2)">'


class Statements:
    """The statements of one database: the catalog, the plan regression's, the OLTP ones by their share of time."""

    def __init__(self, db, stories):
        self.db = db
        self.sqls = catalog(db.sql_seed)
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
        # the statements whose binds AWR captured (docs/awr-rules.md §26): the ten with the most time that have
        # binds, the regression's, and a hostile one's (a bind value is data too)
        bound = [s for s, _, _ in self.oltp if bind_names(s)][:10] + [
            s for s in self.sqls if bind_names(s) and (s is self.victim or s.text.startswith("select /* <img"))
        ]
        self.bound = {s.sql_id for s in bound}

    def interval(self, rng, snap_id, key, st, q, seconds, end, with_binds):
        """The sqlstat rows of one interval, and its sqlbind rows when `with_binds` (the detail days only)."""
        execs_total = q["exec"] * seconds
        time_total = q["dbtime"] * seconds * US_PER_S * 0.82
        cpu_total = q["dbcpu"] * seconds * US_PER_S
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
                picked.append(
                    (
                        s,
                        s.plan,
                        max(1.0, round(rng.uniform(0.5, 2))),
                        time_total * batch_share / 4 * rng.uniform(0.7, 1.3),
                        s.cpu,
                    )
                )
        oltp_time = max(time_total * (1 - batch_share), 0.0)
        chosen = self.oltp[:TOP_OLTP] + rng.sample(self.oltp[TOP_OLTP:], SAMPLED_OLTP)
        for s, exec_share, time_share in chosen:
            picked.append(
                (
                    s,
                    s.plan,
                    execs_total * exec_share * rng.uniform(0.8, 1.2),
                    oltp_time * time_share * rng.uniform(0.8, 1.2),
                    s.cpu,
                )
            )
        rows = []
        cpu_scale = min(1.0, cpu_total / max(sum(e * c for _, _, _, e, c in picked), 1.0))
        for s, plan, n, ela, cpu in picked:
            n = max(round(n), 0)
            if n == 0 and not s.batch:
                continue
            per = max(n, 1)
            gets = BAD_PLAN_GETS if plan == s.bad_plan else s.gets  # the full scan reads every line (§26)
            deltas = (
                n,
                round(ela),
                round(ela * cpu * cpu_scale),
                round(gets * per),
                round(s.reads * per),
                round(s.rows * per),
                round(ela * 0.1),
                round(ela * 0.02),
                round(ela * 0.01),
                round(ela * 0.005),
            )
            totals, _ = st.accumulate((s.sql_id, plan), deltas)
            rows.append(
                (
                    snap_id,
                    *key,
                    s.sql_id,
                    plan,
                    s.module,
                    None,
                    s.schema,
                    *[v for pair in zip(totals, deltas, strict=True) for v in pair],
                )
            )
        binds = []
        if with_binds:
            for s, _plan, n, *_ in picked:
                if s.sql_id in self.bound and round(n) > 0:
                    hostile = HOSTILE_BIND if s.text.startswith("select /* <img") else None
                    binds += bind_rows(self.db, key[1], snap_id, end, s, hostile)
        return rows, binds
