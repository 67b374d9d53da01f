"""The numbers of the answers no other test computed (issue 30, tests/test_asserted_fields.py lists who asserts each):
every field recomputed here from the demo store's rows, read with sqlite3, under the documented rule
(docs/awr-rules.md, cited by section), never from the code under test.

The ranges are RACPROD's around the plan regression (no restart, missing or manual snapshot inside them), the row
lock's hour for the top lists, and the snapshots around ORCL's restart and RACPROD's crash for the markers."""

import itertools
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import UTC, datetime, timedelta
from statistics import median

import pytest
from contract import dbid_of, local_iso, ok, url
from test_activity import SAMPLE_KEYS
from test_segments import STATS as SEGMENT_STATS

ASH = "dba_hist_active_sess_history"
MIB = 1048576
# §13's rows: (view, statistics summed, scale), as the rules page's table states them
LOAD_PROFILE = {
    "DB Time(s)": ("dba_hist_sys_time_model", ("DB time",), 1e-6),
    "DB CPU(s)": ("dba_hist_sys_time_model", ("DB CPU",), 1e-6),
    "Background CPU(s)": ("dba_hist_sys_time_model", ("background cpu time",), 1e-6),
    "Redo size (bytes)": ("dba_hist_sysstat", ("redo size",), 1),
    "Logical read (blocks)": ("dba_hist_sysstat", ("session logical reads",), 1),
    "Block changes": ("dba_hist_sysstat", ("db block changes",), 1),
    "Physical read (blocks)": ("dba_hist_sysstat", ("physical reads",), 1),
    "Physical write (blocks)": ("dba_hist_sysstat", ("physical writes",), 1),
    "Read IO requests": ("dba_hist_sysstat", ("physical read IO requests",), 1),
    "Write IO requests": ("dba_hist_sysstat", ("physical write IO requests",), 1),
    "Read IO (MB)": ("dba_hist_sysstat", ("physical read bytes",), 1 / MIB),
    "Write IO (MB)": ("dba_hist_sysstat", ("physical write bytes",), 1 / MIB),
    "IM scan rows": ("dba_hist_sysstat", ("IM scan rows",), 1),
    "Session Logical Read IM": ("dba_hist_sysstat", ("session logical reads - IM",), 1),
    "Global Cache blocks received": ("dba_hist_sysstat", ("gc cr blocks received", "gc current blocks received"), 1),
    "Global Cache blocks served": ("dba_hist_sysstat", ("gc cr blocks served", "gc current blocks served"), 1),
    "User calls": ("dba_hist_sysstat", ("user calls",), 1),
    "Parses (SQL)": ("dba_hist_sysstat", ("parse count (total)",), 1),
    "Hard parses (SQL)": ("dba_hist_sysstat", ("parse count (hard)",), 1),
    "SQL Work Area (MB)": ("dba_hist_pgastat", ("bytes processed",), 1 / MIB),
    "Logons": ("dba_hist_sysstat", ("logons cumulative",), 1),
    "User logons": ("dba_hist_sysstat", ("user logons cumulative",), 1),
    "Executes (SQL)": ("dba_hist_sysstat", ("execute count",), 1),
    "Rollbacks": ("dba_hist_sysstat", ("user rollbacks",), 1),
    "Transactions": ("dba_hist_sysstat", ("user commits", "user rollbacks"), 1),
}


def close(got, want, rel=1e-9):
    """An answer's value against the exact one: rounded to four decimals, whole beyond a million (§19)."""
    if want is None or got is None:
        return got is want
    return abs(got - want) <= (0.5 if abs(want) >= 1e6 else 5e-5) + rel * abs(want)


def change(a, b):
    """§29's change from A to B."""
    if a is None or b is None:
        return None
    if a == 0:
        return 100.0 if b > 0 else -100.0 if b < 0 else 0.0
    return 100 * (b - a) / a


def instants(sql3, dbid, lo, hi) -> dict:
    """{(instance, snap_id): the snapshot's end as an absolute instant (epoch seconds), with its own SNAP_TIMEZONE}
    of the snapshots in [lo, hi] (§17)."""
    return {
        (inst, snap): datetime.fromisoformat(end).replace(tzinfo=UTC).timestamp() - (tz or 0)
        for inst, snap, end, tz in sql3.execute(
            "select instance_number, snap_id, end_interval_time, snap_timezone from dba_hist_snapshot "
            "where dbid = ? and snap_id between ? and ?",
            (dbid, lo, hi),
        )
    }


def range_seconds(sql3, dbid, lo, hi) -> float:
    """§22.1: from the earliest instance's snapshot begin_snap to the latest one's end_snap."""
    at = instants(sql3, dbid, lo, hi)
    return max(t for (_, s), t in at.items() if s == hi) - min(t for (_, s), t in at.items() if s == lo)


def sample_spacing(sql3, dbid, hi) -> float:
    """§22.2: per instance, over the samples of the range's last interval, the smallest step between SAMPLE_IDs x the
    seconds per SAMPLE_ID (first to last sample); the median over instances, to the second."""
    found = []
    for (inst,) in sql3.execute(
        f"select distinct instance_number from {ASH} where dbid = ? and snap_id = ?", (dbid, hi)
    ):
        rows = sql3.execute(
            f"select distinct sample_id, sample_time from {ASH} where dbid = ? and snap_id = ? and instance_number = ? "
            "order by sample_id",
            (dbid, hi, inst),
        ).fetchall()
        ids = [i for i, _ in rows]
        if len(ids) >= 2:
            step = min(b - a for a, b in itertools.pairwise(ids))
            seconds = (datetime.fromisoformat(rows[-1][1]) - datetime.fromisoformat(rows[0][1])).total_seconds()
            found.append(step * seconds / (ids[-1] - ids[0]))
    return float(round(median(found))) if found else 10.0


def ten_minutes_after(sql3, rac, tz, lo, hi) -> dict:
    """`from` and `to` 10 minutes after snapshots lo and hi; §12 resolves them to (lo, hi): end_snap the largest id of
    the snapshots ending in [from, to], begin_snap the last one ending at or before `from`."""
    at = instants(sql3, rac["dbid"], lo - 2, hi + 2)
    start, end = (min(t for (_, s), t in at.items() if s == x) + 600 for x in (lo, hi))
    begin_snap = max(s for (_, s), t in at.items() if t <= start)
    end_snap = max(s for (_, s), t in at.items() if start <= t <= end)
    assert (begin_snap, end_snap) == (lo, hi)
    zone = tz[rac["dbid"]]
    return {
        "from": datetime.fromtimestamp(start, zone).isoformat(),
        "to": datetime.fromtimestamp(end, zone).isoformat(),
    }


@pytest.fixture(scope="module")
def rac(summary):
    return next(d for d in summary.values() if d["rac"])


@pytest.fixture(scope="module")
def regression(stories):
    lo = stories["plan_regression"]["begin_snap"]
    return lo, lo + 8


# -- top activity's lists and blockers: §22 ---------------------------------------------------------------------------


def test_top_lists_and_blockers_are_their_samples_with_aas_and_shares(api, sql3, rac, stories, tz):
    """§22: each top list's rows are its groups with the most samples, each with AAS = samples x sample spacing / the
    range's seconds, % of the range's samples, and the share on CPU and waiting; each blocker (instance, SID, serial#,
    and the event its waiters wait on) with its waiters' samples, their AAS and the distinct waiting sessions."""
    lock = stories["row_lock"]
    story = ok(api, url(rac["id"], "/range"), **{"from": lock["from"], "to": lock["to"]})["range"]
    lo, hi = story["begin_snap"], story["end_snap"]
    body = ok(api, url(rac["id"], "/activity/top"), begin_snap=lo, end_snap=hi)
    assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (lo, hi)
    rows = sql3.execute(
        f'select sql_id, instance_number, session_id, "SESSION_SERIAL#", module, event, "CURRENT_OBJ#", '
        f'session_state, blocking_inst_id, blocking_session, "BLOCKING_SESSION_SERIAL#" from {ASH} '
        "where dbid = ? and snap_id > ? and snap_id <= ?",
        (rac["dbid"], lo, hi),
    ).fetchall()
    seconds, spacing = range_seconds(sql3, rac["dbid"], lo, hi), sample_spacing(sql3, rac["dbid"], hi)
    assert spacing == 10 and body["sample_seconds"] == spacing
    assert body["total_samples"] == len(rows) > 1000
    keys = SAMPLE_KEYS  # the sample's columns in its order
    assert set(body["lists"]) == set(keys)
    for name, key in keys.items():
        samples, on_cpu = Counter(key(r) for r in rows), Counter(key(r) for r in rows if r[7] == "ON CPU")
        got = body["lists"][name]
        assert len(got) == min(25, len(samples)), name
        shown = {r["name"] for r in got}
        assert min(r["samples"] for r in got) >= max((n for k, n in samples.items() if k not in shown), default=0)
        for r in got:
            n = samples[r["name"]]
            assert r["samples"] == n, (name, r)
            assert close(r["aas"], n * spacing / seconds), (name, r)
            assert close(r["pct_activity"], 100 * n / len(rows)), (name, r)
            assert close(r["pct_cpu"], 100 * on_cpu[r["name"]] / n), (name, r)
            assert close(r["pct_wait"], 100 * (n - on_cpu[r["name"]]) / n), (name, r)
    blockers: dict = {}
    for r in rows:
        if r[9] is not None:
            b = blockers.setdefault((r[8], r[9], r[10], r[5]), [0, set()])
            b[0] += 1
            b[1].add((r[1], r[2], r[3]))
    assert len(blockers) == len(body["blocking"]) == 2
    for r in body["blocking"]:
        n, waiters = blockers[r["blocking_instance"], r["blocking_session"], r["blocking_serial"], r["event"]]
        assert (r["samples"], r["waiters"]) == (n, len(waiters)), r
        assert close(r["aas"], n * spacing / seconds), r


# -- top SQL, one statement, its plans: §15, §26 ----------------------------------------------------------------------


def _db_time(sql3, dbid, lo, hi):
    """DB time (s) of a range without a restart: each instance's delta between its two snapshots, summed (§13)."""
    at = {
        (i, s): v
        for i, s, v in sql3.execute(
            "select instance_number, snap_id, value from dba_hist_sys_time_model where dbid = ? and "
            "stat_name = 'DB time' and snap_id in (?, ?)",
            (dbid, lo, hi),
        )
    }
    return sum(at[i, hi] - at[i, lo] for i, s in at if s == lo) / 1e6


def test_top_sql_rows_are_every_statistic_summed_over_the_range(api, sql3, rac, regression):
    """§15: the *_DELTA columns of begin_snap < SNAP_ID <= end_snap summed per (con_dbid, sql_id) over every instance
    and the first 200 (statement, plan) pairs; elapsed per execution; % of the range's DB time."""
    lo, hi = regression
    body = ok(api, url(rac["id"], "/top-sql"), begin_snap=lo, end_snap=hi, limit=25)
    pairs = sql3.execute(
        "select con_dbid, sql_id, plan_hash_value, sum(executions_delta), sum(elapsed_time_delta), "
        "sum(cpu_time_delta), sum(buffer_gets_delta), sum(disk_reads_delta), sum(rows_processed_delta) "
        "from dba_hist_sqlstat where dbid = ? and snap_id > ? and snap_id <= ? group by 1, 2, 3 "
        "order by 5 desc limit 200",
        (rac["dbid"], lo, hi),
    ).fetchall()
    sums: dict = {}
    for con, sql_id, plan, *values in pairs:
        s = sums.setdefault((con, sql_id), [set(), *[0] * len(values)])
        s[0].add(plan)
        for k, v in enumerate(values, 1):
            s[k] += v or 0
    db_time = _db_time(sql3, rac["dbid"], lo, hi)
    assert len(body["rows"]) == 25
    for r in body["rows"]:
        plans, execs, ela, cpu, gets, reads, nrows = sums[r["con_dbid"], r["sql_id"]]
        assert r["con_dbid"] == rac["dbid"]  # a non-CDB's one container is the database itself (§1)
        assert set(r["plan_hash_values"]) == plans
        assert (r["executions"], r["buffer_gets"], r["disk_reads"], r["rows_processed"]) == (execs, gets, reads, nrows)
        assert close(r["elapsed_s"], ela / 1e6) and close(r["cpu_s"], cpu / 1e6), r
        assert close(r["elapsed_per_exec_ms"], ela / execs / 1000 if execs else None), r
        assert close(r["pct_db_time"], 100 * ela / 1e6 / db_time, rel=1e-6), r


def test_one_statement_per_plan_and_snapshot_from_its_deltas(api, sql3, rac, stories, tz):
    """§15: per plan, the executions, elapsed time and snapshots of the range; at each snapshot the deltas summed over
    instances, per execution where the line is (skipping snapshots without executions), timed at the lowest-numbered
    instance's snapshot."""
    reg = stories["plan_regression"]
    lo, hi = reg["begin_snap"] - 10, reg["begin_snap"] + 4
    body = ok(api, url(rac["id"], f"/sql/{reg['sql_id']}"), begin_snap=lo, end_snap=hi)
    per: dict = {}
    for plan, end, execs, ela, cpu, gets in sql3.execute(
        "select q.plan_hash_value, (select s.end_interval_time from dba_hist_snapshot s where s.dbid = q.dbid "
        "and s.snap_id = q.snap_id order by s.instance_number limit 1), sum(q.executions_delta), "
        "sum(q.elapsed_time_delta), sum(q.cpu_time_delta), sum(q.buffer_gets_delta) from dba_hist_sqlstat q "
        "where q.dbid = ? and q.sql_id = ? and q.snap_id > ? and q.snap_id <= ? group by q.plan_hash_value, q.snap_id "
        "order by q.plan_hash_value, q.snap_id",
        (rac["dbid"], reg["sql_id"], lo, hi),
    ):
        per.setdefault(plan, []).append((local_iso(end, tz[rac["dbid"]]), execs, ela, cpu, gets))
    assert set(per) == {reg["good_plan"], reg["bad_plan"]}
    plans = {p["plan_hash_value"]: p for p in body["plans"]}
    assert set(plans) == set(per)
    for plan, points in per.items():
        execs, ela = sum(p[1] for p in points), sum(p[2] for p in points)
        p = plans[plan]
        assert (p["executions"], p["snapshots"]) == (execs, len(points))
        assert close(p["elapsed_s"], ela / 1e6) and close(p["elapsed_per_exec_ms"], ela / execs / 1000)
    want = {
        "elapsed_per_exec": lambda p: p[2] / p[1] / 1000,
        "cpu_per_exec": lambda p: p[3] / p[1] / 1000,
        "buffer_gets_per_exec": lambda p: p[4] / p[1],
        "executions": lambda p: p[1],
        "elapsed": lambda p: p[2] / 1e6,
    }
    assert len(body["series"]) == len(want) * len(per)
    for s in body["series"]:
        points = [p for p in per[s["plan_hash_value"]] if p[1] or s["metric"] in ("executions", "elapsed")]
        assert [t for t, _ in s["points"]] == [p[0] for p in points], s["metric"]
        for (_, got), p in zip(s["points"], points, strict=True):
            assert close(got, want[s["metric"]](p)), (s["metric"], s["plan_hash_value"], got)


def test_each_plans_samples_its_lines_as_stored_and_the_samples_on_no_line(api, sql3, rac, stories, regression):
    """§26: a plan's samples are those on its lines (the lines add up to them); COST, CARDINALITY, BYTES and POSITION as
    the optimizer wrote them in DBA_HIST_SQL_PLAN; the samples of a statement without a plan, on no line, are listed
    with their shares (every plan's samples together are 100 %)."""
    reg = stories["plan_regression"]
    lo, hi = regression
    body = ok(api, url(rac["id"], f"/sql/{reg['sql_id']}/plans"), begin_snap=lo, end_snap=hi)
    stored = {
        (plan, line): rest
        for plan, line, *rest in sql3.execute(
            "select plan_hash_value, id, cost, cardinality, bytes, position, cpu_cost, io_cost, time, con_dbid "
            "from dba_hist_sql_plan where dbid = ? and sql_id = ?",
            (rac["dbid"], reg["sql_id"]),
        )
    }
    samples = {
        (plan, line): n
        for plan, line, n in sql3.execute(
            f"select sql_plan_hash_value, sql_plan_line_id, count(*) from {ASH} where dbid = ? and snap_id > ? "
            "and snap_id <= ? and sql_id = ? group by 1, 2",
            (rac["dbid"], lo, hi, reg["sql_id"]),
        )
    }
    for plan in body["plans"]:
        phv = plan["plan_hash_value"]
        assert plan["samples"] == sum(n for (p, line), n in samples.items() if p == phv and (p, line) in stored)
        assert plan["con_dbid"] == rac["dbid"]
        for line in plan["lines"]:
            got = (
                *(line[f] for f in ("cost", "cardinality", "bytes", "position", "cpu_cost", "io_cost", "time")),
                plan["con_dbid"],
            )
            assert got == tuple(stored[phv, line["id"]]), line
    assert any(plan["samples"] for plan in body["plans"])
    assert any(line["bytes"] for plan in body["plans"] for line in plan["lines"])
    lines = [line for plan in body["plans"] for line in plan["lines"]]
    assert any(line["cpu_cost"] and line["io_cost"] and line["time"] for line in lines)
    # a statement whose samples sit on no plan line (a PL/SQL block: no plan in DBA_HIST_SQL_PLAN)
    (sql_id, phv, n, on_cpu) = sql3.execute(
        f"select a.sql_id, a.sql_plan_hash_value, count(*), sum(a.session_state = 'ON CPU') from {ASH} a where "
        "a.dbid = ? and a.snap_id > ? and a.snap_id <= ? and a.sql_id is not null and a.sql_plan_line_id is null "
        "and not exists (select 1 from dba_hist_sql_plan p where p.dbid = a.dbid and p.sql_id = a.sql_id) "
        "group by 1, 2 order by 3 desc limit 1",
        (rac["dbid"], lo, hi),
    ).fetchone()
    unplaced = ok(api, url(rac["id"], f"/sql/{sql_id}/plans"), begin_snap=lo, end_snap=hi)
    assert unplaced["plans"] == [] and unplaced["total_samples"] == n
    (u,) = [u for u in unplaced["unplaced"] if u["plan_hash_value"] == phv]
    assert (u["id"], u["samples"], u["pct_samples"]) == (None, n, 100.0)
    assert close(u["pct_cpu"], 100 * on_cpu / n) and close(u["pct_wait"], 100 * (n - on_cpu) / n)


# -- segments: §25 ----------------------------------------------------------------------------------------------------


def test_every_statistic_of_a_top_segment_and_of_one_segment_over_time(api, sql3, rac, regression):
    """§25: each statistic the sum of its *_DELTA over the range per segment (CON_DBID, TS#, OBJ#, DATAOBJ#) and every
    instance; one segment's statistics per snapshot summed over instances, its space_used_total the largest reading."""
    lo, hi = regression
    body = ok(api, url(rac["id"], "/segments"), begin_snap=lo, end_snap=hi, limit=100)
    columns = ", ".join(f"sum({s}_delta)" for s in SEGMENT_STATS)
    sums = {
        tuple(key): values
        for *key, values in (
            (r[0], r[1], r[2], r[3], r[4:])
            for r in sql3.execute(
                f'select con_dbid, "TS#", "OBJ#", "DATAOBJ#", {columns} from dba_hist_seg_stat where dbid = ? and '
                'snap_id > ? and snap_id <= ? group by 1, 2, 3, 4',
                (rac["dbid"], lo, hi),
            )
        )
    }
    assert len(body["rows"]) == min(100, len(sums))
    for r in body["rows"]:
        assert [r[s] for s in SEGMENT_STATS] == list(sums[r["con_dbid"], r["ts"], r["obj"], r["dataobj"]]), r
    top = body["rows"][0]
    one = ok(api, url(rac["id"], f"/segments/{top['obj']}"), begin_snap=lo, end_snap=hi)
    assert (one["obj"], one["dataobj"]) == (top["obj"], top["dataobj"])
    assert (one["range"]["begin_snap"], one["range"]["end_snap"]) == (lo, hi)
    per_snap = {
        snap: values
        for snap, *values in sql3.execute(
            f'select snap_id, {columns}, max(space_used_total) from dba_hist_seg_stat where dbid = ? and "OBJ#" = ? '
            'and "DATAOBJ#" = ? and snap_id > ? and snap_id <= ? group by 1 order by 1',
            (rac["dbid"], top["obj"], top["dataobj"], lo, hi),
        )
    }
    lines = {s["metric"]: [v for _, v in s["points"]] for s in one["series"]}
    assert set(lines) == {*SEGMENT_STATS, "space_used_total"}
    for k, metric in enumerate((*SEGMENT_STATS, "space_used_total")):
        assert lines[metric] == [per_snap[s][k] for s in sorted(per_snap)], metric


# -- compare: §29 -----------------------------------------------------------------------------------------------------


class Period:
    """One period of RACPROD without a restart: deltas between its two snapshots summed over the instances."""

    def __init__(self, sql3, dbid, lo, hi):
        at = instants(sql3, dbid, lo, hi)
        self.elapsed = max(at[i, hi] - at[i, lo] for i, s in at if s == lo)

        def deltas(view, name, value, where=""):
            out: dict = {}
            for stat, snap, v in sql3.execute(
                f"select {name}, snap_id, sum({value}) from {view} where dbid = ? and snap_id in (?, ?) {where} "
                "group by 1, 2",
                (dbid, lo, hi),
            ):
                out[stat] = out.get(stat, 0) + (v if snap == hi else -v)
            return out

        self.stats = {
            view: deltas(view, "name" if view == "dba_hist_pgastat" else "stat_name", "value")
            for view in ("dba_hist_sys_time_model", "dba_hist_sysstat", "dba_hist_pgastat")
        }
        idle = "and wait_class != 'Idle'"
        self.time = {
            k: v / 1e6 for k, v in deltas("dba_hist_system_event", "event_name", "time_waited_micro_fg", idle).items()
        }
        self.waits = deltas("dba_hist_system_event", "event_name", "total_waits_fg", idle)
        self.time["DB CPU"] = self.stats["dba_hist_sys_time_model"]["DB CPU"] / 1e6  # §14's DB CPU row
        self.db_time = self.stats["dba_hist_sys_time_model"]["DB time"] / 1e6
        self.txns = self.total("Transactions")

    def total(self, label):
        view, stats, scale = LOAD_PROFILE[label]
        return sum(self.stats[view].get(s, 0) for s in stats) * scale


def test_compare_changes_per_second_per_transaction_and_shares_of_db_time(api, dbs, sql3, regression):
    """§29: DB time per second and its change; per Load Profile row, its value per second and per transaction (§13:
    total / elapsed, total / transactions) and their changes; per event, its time, its time per second, waits per
    transaction, average wait and % of DB time in each period (§14), from the exact totals. A: 12 intervals before the
    regression, B: its first 6."""
    db = dbs["rac"]
    lo = regression[0]
    a, b = (lo - 14, lo - 2), (lo, lo + 6)
    pa, pb = (Period(sql3, dbid_of(db), *p) for p in (a, b))
    body = ok(api, url(db, "/compare"), a_begin_snap=a[0], a_end_snap=a[1], b_begin_snap=b[0], b_end_snap=b[1])
    assert (body["a"]["begin_snap"], body["a"]["end_snap"], body["b"]["begin_snap"], body["b"]["end_snap"]) == (*a, *b)
    assert body["elapsed_seconds"] == {"a": round(pa.elapsed), "b": round(pb.elapsed)}
    dta, dtb = pa.db_time / pa.elapsed, pb.db_time / pb.elapsed
    assert close(body["db_time"]["change_pct"], change(dta, dtb), rel=1e-6)
    for r in body["load_profile"]["rows"]:
        sa, sb = pa.total(r["metric"]) / pa.elapsed, pb.total(r["metric"]) / pb.elapsed
        assert close(r["a_per_second"], sa) and close(r["b_per_second"], sb), r
        assert close(r["change_pct"], change(sa, sb), rel=1e-6), r
        va, vb = pa.total(r["metric"]) / pa.txns, pb.total(r["metric"]) / pb.txns
        assert close(r["a_per_transaction"], va) and close(r["b_per_transaction"], vb), r
        assert close(r["change_pct_per_transaction"], change(va, vb), rel=1e-6), r
    rows = body["top_events"]["rows"]
    assert rows and any(r["a_waits_per_transaction"] for r in rows)
    for r in rows:
        for side, p in (("a", pa), ("b", pb)):
            time, waits = p.time.get(r["event"], 0), p.waits.get(r["event"])
            assert close(r[f"{side}_time_s"], time), (side, r)
            assert close(r[f"{side}_per_second"], time / p.elapsed), (side, r)
            assert close(r[f"{side}_pct_db_time"], 100 * time / p.db_time), (side, r)
            assert close(r[f"{side}_avg_ms"], time * 1000 / waits if waits else None), (side, r)
            assert close(r[f"{side}_waits_per_transaction"], None if waits is None else waits / p.txns), (side, r)


# -- tablespaces: §16 -------------------------------------------------------------------------------------------------


def test_tablespace_sizes_in_mb_their_share_of_the_maximum_and_growth(api, sql3, rac, regression, tz):
    """§16: readings in blocks x the block size / 1,048,576 at each snapshot of [begin_snap, end_snap]: the last used,
    allocated and maximum sizes, used % of the maximum, growth = last used - first used; a line per size, timed at the
    lowest-numbered instance's snapshot."""
    lo, hi = regression
    body = ok(api, url(rac["id"], "/tablespaces"), begin_snap=lo, end_snap=hi, max_points=0)
    per: dict = {}
    for name, con, _snap, used, size, most, block, end in sql3.execute(
        'select t.tsname, t.con_dbid, u.snap_id, u.tablespace_usedsize, u.tablespace_size, u.tablespace_maxsize, '
        "t.block_size, (select s.end_interval_time from dba_hist_snapshot s where s.dbid = u.dbid and "
        "s.snap_id = u.snap_id order by s.instance_number limit 1) from dba_hist_tbspc_space_usage u join "
        'dba_hist_tablespace t on t.dbid = u.dbid and t."TS#" = u.tablespace_id and t.con_dbid = u.con_dbid '
        "where u.dbid = ? and u.snap_id between ? and ? order by u.snap_id",
        (rac["dbid"], lo, hi),
    ):
        mb = block / MIB
        per.setdefault((name, con), []).append((local_iso(end, tz[rac["dbid"]]), used * mb, size * mb, most * mb))
    rows = {(r["tablespace"], r["con_dbid"]): r for r in body["rows"]}
    assert set(rows) == set(per)
    for key, points in per.items():
        _, used, size, most = points[-1]
        r = rows[key]
        assert close(r["used_mb"], used) and close(r["size_mb"], size) and close(r["max_mb"], most), r
        assert close(r["used_pct_of_max"], 100 * used / most) and close(r["growth_mb"], used - points[0][1]), r
    lines = {(s["tablespace"], s["con_dbid"], s["metric"]): s["points"] for s in body["series"]}
    for (name, con), points in per.items():
        for k, metric in enumerate(("used", "size", "max"), 1):
            got = lines[name, con, metric]
            assert [t for t, _ in got] == [p[0] for p in points]
            assert all(close(v, p[k]) for (_, v), p in zip(got, points, strict=True)), (name, metric)
    forecasts = 0
    for key, points in per.items():  # §16's forecast: the least-squares line of used MB over days, from the last used
        r, end = rows[key], datetime.fromisoformat(points[-1][0])
        x = [
            (datetime.fromisoformat(p[0]) - datetime.fromisoformat(points[0][0])).total_seconds() / 86400
            for p in points
        ]
        y = [p[1] for p in points]
        mx, my = sum(x) / len(x), sum(y) / len(y)
        slope = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / sum((a - mx) ** 2 for a in x)
        assert close(r["growth_mb_per_day"], slope), r
        days = (points[-1][3] - y[-1]) / slope if slope > 0 else None
        if slope <= 0:
            assert (r["forecast"], r["full_at"], r["projection"]) == ("not growing", None, [])
        elif days > 365:
            assert (r["forecast"], r["full_at"], r["projection"]) == ("not within a year", None, [])
        else:
            full = end + timedelta(days=days)
            assert abs((datetime.fromisoformat(r["full_at"]) - full).total_seconds()) <= 1, r
            assert r["forecast"] == f"full by {full:%Y-%m-%d}" and r["full_at"].endswith(points[-1][0][-6:])
            assert r["projection"][0] == [points[-1][0], pytest.approx(y[-1], abs=1e-4)]
            assert r["projection"][1] == [r["full_at"], pytest.approx(points[-1][3], abs=1e-4)]
            forecasts += 1
    assert forecasts  # the demo's application tablespaces fill within the year


# -- SQL monitor, stored AWR reports, changes: §27, §23 ---------------------------------------------------------------


def test_monitored_executions_give_the_summarys_statistics(api, sql3):
    """§27: duration, plan and statistics from REPORT_SUMMARY's XML (`<stats type="monitor">`, times in microseconds,
    given in seconds to the millisecond), read here with the standard library's parser."""
    dbid, sql_id, lo, hi = sql3.execute(
        "select dbid, key1, min(snap_id) - 1, max(snap_id) from dba_hist_reports group by 1, 2 "
        "order by count(*) desc limit 1"
    ).fetchone()
    body = ok(api, url(f"demo.{dbid}", f"/sql/{sql_id}/monitor"), begin_snap=lo, end_snap=hi)
    summaries = dict(
        sql3.execute(
            "select report_id, report_summary from dba_hist_reports where dbid = ? and key1 = ?", (dbid, sql_id)
        )
    )
    assert len(body["rows"]) > 4
    for r in body["rows"]:
        sql = ET.fromstring(summaries[r["report_id"]]).find("sql")
        stats = {s.get("name"): float(s.text) for s in sql.find("stats")}
        assert (r["duration_s"], r["plan_hash_value"]) == (
            int(sql.findtext("duration")),
            int(sql.findtext("plan_hash")),
        )
        assert (r["buffer_gets"], r["disk_reads"]) == (stats["buffer_gets"], stats["disk_reads"]), r
        for field, stat in (("elapsed_s", "elapsed_time"), ("cpu_s", "cpu_time")):  # to the millisecond
            assert r[field] == pytest.approx(stats[stat] / 1e6, abs=0.0005), (field, r)


def test_stored_awr_reports_list_both_periods_of_a_compare_report(api, sql3, dbs):
    """§27: the demo keeps Oracle's compare-periods reports with both ranges; the list gives each as stored."""
    for db in dbs.values():
        stored = {
            (kind, begin, end, begin2 or None, end2 or None, instances)  # 0: a report of one range
            for kind, begin, end, begin2, end2, instances in sql3.execute(
                "select kind, begin_snap, end_snap, begin_snap2, end_snap2, instances from awrlens_awr_reports "
                "where dbid = ?",
                (dbid_of(db),),
            )
        }
        listed = {
            (
                r["kind"],
                r["begin_snap"],
                r["end_snap"],
                r.get("b_begin_snap"),
                r.get("b_end_snap"),
                ",".join(map(str, r["instances"])),
            )
            for r in ok(api, url(db, "/awr-report/stored"))["reports"]
        }
        assert listed == stored and any(r[3] for r in listed)


def test_a_new_plans_elapsed_time_and_executions_are_its_rows_of_the_range(api, sql3, dbs, stories):
    """§23's `plan` changes: the plan's elapsed time and executions summed over its DBA_HIST_SQLSTAT rows of the range
    (every instance)."""
    reg = stories["plan_regression"]
    db = dbs["rac"]
    lo, hi = reg["begin_snap"] - 3, reg["end_snap"] + 3
    plans = [r for r in ok(api, url(db, "/changes"), begin_snap=lo, end_snap=hi)["rows"] if "elapsed_s" in r["details"]]
    assert any(r["details"]["plan_hash_value"] == reg["bad_plan"] for r in plans)
    for r in plans:
        d = r["details"]
        ela, execs = sql3.execute(
            "select sum(elapsed_time_delta), sum(executions_delta) from dba_hist_sqlstat where dbid = ? and "
            "sql_id = ? and plan_hash_value = ? and snap_id > ? and snap_id <= ?",
            (dbid_of(db), d["sql_id"], d["plan_hash_value"], lo, hi),
        ).fetchone()
        assert d["executions"] == execs and close(d["elapsed_s"], ela / 1e6), d


# -- ranges and markers: §5, §12 --------------------------------------------------------------------------------------

RANGED = [  # (path, the query beside the range)
    ("/snapshots", {}),
    ("/series", {"name": "derived:aas"}),
    ("/wait-classes", {}),
    ("/load-profile", {}),
    ("/top-events", {}),
    ("/top-sql", {}),
    ("/tablespaces", {}),
    ("/segments", {}),
    ("/event-histogram", {"event": "log file sync"}),
    ("/parameters", {}),
    ("/parameters/changes", {}),
    ("/parameters/non-default", {}),
    ("/changes", {}),
    ("/range", {}),
    ("/sql/{sql_id}", {}),
    ("/sql/{sql_id}/plans", {}),
    ("/sql/{sql_id}/binds", {}),
    ("/sql/{sql_id}/monitor", {}),
]


@pytest.mark.parametrize(("path", "query"), RANGED)
def test_every_answer_echoes_the_snapshots_its_time_range_resolves_to(api, sql3, rac, stories, tz, path, query):
    """§12: a time range is the intervals that end in (from, to] (top activity's: in the tests of its numbers)."""
    lo = stories["plan_regression"]["begin_snap"]
    path = path.replace("{sql_id}", stories["plan_regression"]["sql_id"])
    body = ok(api, url(rac["id"], path), **query, **ten_minutes_after(sql3, rac, tz, lo, lo + 8))
    assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (lo, lo + 8)


def test_the_gap_and_left_out_markers_give_the_seconds_between_their_snapshots(api, sql3, dbs, stories):
    """§4-§6: a gap's marker gives the instance and the seconds between the snapshots either side of it, a restart's
    the first snapshot after it, a merged snapshot its own (ORCL's manual one); the histogram's interval across a
    restart is left out (§24.2) with the same fields as the Load Profile's (§13): instance, the snapshots on either side
    and the seconds not covered."""
    crash = stories["restart"]
    db, dbid = dbs["rac"], dbid_of(dbs["rac"])
    after = crash["first_snap_after"]
    at = instants(sql3, dbid, after - 10, after + 2)
    before = max(s for (i, s) in at if i == crash["instance"] and s < after)
    gap = {"instance": crash["instance"], "after_snap_id": before, "before_snap_id": after}
    gap["seconds"] = round(at[crash["instance"], after] - at[crash["instance"], before])
    manual = stories["manual_snapshot"]["snap_id"]
    for path in ("/snapshots", "/wait-classes"):
        markers = ok(api, url(db, path), begin_snap=after - 5, end_snap=after + 2)["markers"]
        assert [{k: m[k] for k in gap} for m in markers["missing"]] == [gap], path
        assert [(m["instance"], m["snap_id"]) for m in markers["restarts"]] == [(crash["instance"], after)], path
        merged = ok(api, url(dbs["single"], path), begin_snap=manual - 2, end_snap=manual + 2)["markers"]
        assert [(m["instance"], m["snap_id"]) for m in merged["merged_snapshots"]] == [(1, manual)], path
    single, fix = dbs["single"], stories["async_io_fix"]["first_snap_after"]
    at = instants(sql3, dbid_of(single), fix - 1, fix)
    body = ok(api, url(single, "/event-histogram"), event="log file sync", begin_snap=fix - 3, end_snap=fix + 3)
    assert [
        {k: m[k] for k in ("instance", "after_snap_id", "before_snap_id", "seconds")} for m in body["left_out"]
    ] == [
        {"instance": 1, "after_snap_id": fix - 1, "before_snap_id": fix, "seconds": round(at[1, fix] - at[1, fix - 1])}
    ]
    assert [(m["instance"], m["snap_id"]) for m in body["markers"]["restarts"]] == [(1, fix)]
    (event_id,) = sql3.execute(
        "select distinct event_id from dba_hist_system_event where dbid = ? and event_name = 'log file sync'",
        (dbid_of(single),),
    ).fetchone()
    assert body["event_id"] == event_id


def test_wait_class_lines_count_every_interval_of_the_range(api, dbs, regression):
    """§21.5: points_total counts the points at full resolution: a counter's intervals not across a restart (none
    here), a reading's snapshots (the CPU count: §12, every snapshot of [begin_snap, end_snap])."""
    lo, hi = regression
    body = ok(api, url(dbs["rac"], "/wait-classes"), begin_snap=lo, end_snap=hi, max_points=0)
    for s in body["series"]:
        assert s["points_total"] == len(s["points"]) == hi - lo, s["name"]
    (cpus,) = body["cpu_count"]
    assert cpus["points_total"] == len(cpus["points"]) == hi - lo + 1


def test_combined_wait_classes_and_cpu_count_say_which_instances_they_sum(api, sql3, dbs, stories, tz):
    """§11: while RACPROD's instance 2 is down, and at its first snapshot after the restart, each combined wait class
    sums instance 1 alone (an interval needs two snapshots of one startup); the CPU count, a reading (§8), lacks
    instance 2 only at the snapshots it missed. Those points are listed under `partial`; each instance's own lines
    (`instance=each`) have none."""
    crash = stories["restart"]
    db, dbid = dbs["rac"], dbid_of(dbs["rac"])
    lo, hi = crash["first_snap_after"] - 5, crash["first_snap_after"] + 2
    snaps: dict = {}
    for inst, snap, startup, end in sql3.execute(
        "select instance_number, snap_id, startup_time, end_interval_time from dba_hist_snapshot where dbid = ? and "
        "snap_id between ? and ? order by instance_number, snap_id",
        (dbid, lo, hi),
    ):
        snaps.setdefault(inst, []).append((snap, startup, local_iso(end, tz[dbid])))
    intervals = {i: {b[0] for a, b in itertools.pairwise(rows) if a[1] == b[1]} for i, rows in snaps.items()}
    readings = {i: {s for s, _, _ in rows} for i, rows in snaps.items()}

    def partial(has, keys):
        return [{"time": t, "instances": 1, "missing": [2]} for s, _, t in snaps[1] if s in keys and s not in has[2]]

    body = ok(api, url(db, "/wait-classes"), begin_snap=lo, end_snap=hi)
    assert len(partial(intervals, intervals[1])) == 4 and len(partial(readings, readings[1])) == 3
    for s in body["series"]:
        assert s["partial"] == partial(intervals, intervals[1]), s["name"]
    (cpus,) = body["cpu_count"]
    assert cpus["partial"] == partial(readings, readings[1])
    each = ok(api, url(db, "/wait-classes"), begin_snap=lo, end_snap=hi, instance="each")
    for s in each["series"] + each["cpu_count"]:
        assert s["partial"] == [], s["name"]
    assert sorted(s["instance"] for s in each["cpu_count"]) == [1, 2]
    assert Counter(s["instance"] for s in each["series"]) == {1: len(body["series"]), 2: len(body["series"])}


def test_top_activity_by_object_names_each_object_by_its_number(api, sql3, rac, regression, tz):
    """§22: grouped by CURRENT_OBJ#, each group is the object's number (in a non-CDB, its own container's), labelled
    with its name, the samples without one a group of their own; the 10 largest are series of their own, the rest
    `other`; the range's AAS = its samples x the sample spacing / its seconds. (A time range that cuts the snapshots'
    intervals is read by sample time: tests/test_generated.py.)"""
    lo, hi = regression[0], regression[0] + 2
    body = ok(api, url(rac["id"], "/activity"), group_by="current_obj", begin_snap=lo, end_snap=hi)
    assert (body["range"]["begin_snap"], body["range"]["end_snap"]) == (lo, hi)
    counts = Counter(
        obj
        for (obj,) in sql3.execute(
            f'select "CURRENT_OBJ#" from {ASH} where dbid = ? and snap_id > ? and snap_id <= ?', (rac["dbid"], lo, hi)
        )
    )
    named = [s for s in body["series"] if s["name"] != "other"]
    assert len(named) == 10 and any(isinstance(s["name"], int) for s in named)
    known = dict(
        sql3.execute(
            "select object_id, owner || '.' || object_name from dba_objects where dbid = ?", (rac["dbid"],)
        ).fetchall()
    )
    known |= dict(
        sql3.execute(
            "select \"OBJ#\", owner || '.' || object_name from dba_hist_seg_stat_obj where dbid = ?", (rac["dbid"],)
        ).fetchall()
    )  # AWR's name first (tests/test_names.py)
    for s in named:
        assert s["samples"] == counts[s["name"]], s["name"]
        assert s["label"] == (known.get(s["name"], str(s["name"])) if s["name"] is not None else "no object")
    rest = [n for k, n in counts.items() if k not in {s["name"] for s in named}]
    assert min(s["samples"] for s in named) >= max(rest) and body["series"][-1]["samples"] == sum(rest)
    # the whole range: its samples x the spacing over its seconds; buckets the narrowest width giving 720 at most
    seconds, spacing = range_seconds(sql3, rac["dbid"], lo, hi), sample_spacing(sql3, rac["dbid"], hi)
    total = sum(counts.values())
    assert (body["total_samples"], body["sample_seconds"], body["bucket_seconds"]) == (total, spacing, 10)
    assert seconds / 10 <= 720 and close(body["aas"], total * spacing / seconds)


def test_each_line_of_a_plan_diff_is_the_plans_line_as_stored(api, sql3, rac, stories):
    """§26: the diff pairs the two plans' lines; each side is its plan's line with the optimizer's estimates as
    DBA_HIST_SQL_PLAN holds them; the answer names the two plans."""
    reg = stories["plan_regression"]
    a, b = reg["good_plan"], reg["bad_plan"]
    body = ok(api, url(rac["id"], f"/sql/{reg['sql_id']}/plans/diff"), a=a, b=b)
    assert (body["a"], body["b"]) == (a, b)
    fields = ("id", "parent_id", "depth", "position", "cost", "cardinality", "bytes", "cpu_cost", "io_cost", "time")
    stored = {
        (plan, row[0]): row
        for plan, *row in sql3.execute(
            f"select plan_hash_value, {', '.join(fields)} from dba_hist_sql_plan where dbid = ? and sql_id = ?",
            (rac["dbid"], reg["sql_id"]),
        )
    }
    sides = 0
    for r in body["rows"]:
        for plan, line in ((a, r["a"]), (b, r["b"])):
            if line is not None:
                assert tuple(line[f] for f in fields) == tuple(stored[plan, line["id"]]), line
                sides += 1
    assert sides == len(stored)


def test_parameter_changes_name_the_snapshot_before_and_the_container(api, sql3, dbs, stories):
    """§23: a change compares a value with the one at the instance's previous snapshot of the range (`old_snap_id`), per
    container (a non-CDB's is the database, §1); the values at a snapshot are the range's last unless one is asked; a
    benchmark run's change gives its AWR window (`awr_begin_snap`, `awr_end_snap`)."""
    db, dbid = dbs["single"], dbid_of(dbs["single"])
    fix = stories["async_io_fix"]["first_snap_after"]
    lo, hi = fix - 4, fix + 4
    previous = {}
    for inst, snap in sql3.execute(
        "select instance_number, snap_id from dba_hist_snapshot where dbid = ? and snap_id between ? and ? "
        "order by snap_id",
        (dbid, lo, hi),
    ):
        previous[inst, snap] = previous.get(inst)
        previous[inst] = snap
    changes = ok(api, url(db, "/parameters/changes"), begin_snap=lo, end_snap=hi)["rows"]
    listed = ok(api, url(db, "/changes"), begin_snap=lo, end_snap=hi)["rows"]
    assert changes and [r for r in listed if r["kind"] == "parameter"]
    for r in changes + [{**r, **r["details"]} for r in listed if r["kind"] == "parameter"]:
        assert r["old_snap_id"] == previous[r["instance"], r["snap_id"]] and r["con_dbid"] == dbid, r
    runs = {
        slug: (begin, end)
        for slug, begin, end in sql3.execute(
            "select slug, awr_begin_snap, awr_end_snap from bench_run where awr_dbid = ?", (dbid,)
        )
    }
    run = [r["details"] for r in listed if r["kind"] == "run"]
    assert run and all((d["begin_snap"], d["end_snap"]) == runs[d["slug"]] for d in run)
    assert ok(api, url(db, "/parameters"), begin_snap=lo, end_snap=hi)["snap_id"] == hi


def test_wait_classes_are_each_class_time_waited_over_each_intervals_seconds(api, sql3, rac, regression, tz):
    """§16: each non-idle wait class's foreground time waited, summed over its events, per second of each interval
    (average active sessions), DB CPU beside them (§10 derived:db_cpu) and CPU Wait, DB time less all of them where
    positive; per instance (`instance=each`), and combined as a sum over the instances (§11)."""
    lo, hi = regression
    dbid, zone = rac["dbid"], tz[rac["dbid"]]
    at = instants(sql3, dbid, lo, hi)
    ends = {
        (i, s): local_iso(e, zone)
        for i, s, e in sql3.execute(
            "select instance_number, snap_id, end_interval_time from dba_hist_snapshot where dbid = ? and "
            "snap_id between ? and ?",
            (dbid, lo, hi),
        )
    }
    micro: dict = {}  # (class, instance, snap_id) -> microseconds, cumulative
    for name, inst, snap, value in sql3.execute(
        "select 'wait_class:' || wait_class, instance_number, snap_id, sum(time_waited_micro_fg) from "
        "dba_hist_system_event where dbid = ? and wait_class != 'Idle' and snap_id between ? and ? group by 1, 2, 3 "
        "union all select case stat_name when 'DB CPU' then 'derived:db_cpu' else 'DB time' end, instance_number, "
        "snap_id, value from dba_hist_sys_time_model where dbid = ? and stat_name in ('DB CPU', 'DB time') and "
        "snap_id between ? and ?",
        (dbid, lo, hi, dbid, lo, hi),
    ):
        micro[name, inst, snap] = value
    want: dict = {}  # (class, instance) -> {time: sessions}
    for (name, inst, snap), value in micro.items():
        if snap > lo:
            seconds = at[inst, snap] - at[inst, snap - 1]
            want.setdefault((name, inst), {})[ends[inst, snap]] = (value - micro[name, inst, snap - 1]) / 1e6 / seconds
    db_time = {inst: want.pop(("DB time", inst)) for inst in (1, 2)}
    parts = len({name for name, _ in want})  # DB CPU and the classes, whose drawn values CPU Wait is made of

    def run_queue(time, instances):
        """§16's CPU Wait: DB time less DB CPU and every class's waits, where positive."""
        waits = sum(w.get(time, 0.0) for (n, i), w in want.items() if i in instances and n != "cpu_wait")
        return max(0.0, sum(db_time[i][time] for i in instances) - waits)

    for inst in (1, 2):
        want["cpu_wait", inst] = {t: run_queue(t, (inst,)) for t in db_time[inst]}
    assert max(v for inst in (1, 2) for v in want["cpu_wait", inst].values()) > 0.1  # the regression's CPU queue

    def near(got, expected, name):  # CPU Wait is computed from the drawn values, each rounded to four decimals
        return close(got, expected) if name != "cpu_wait" else abs(got - expected) <= 5e-5 * (parts + 1)

    each = ok(api, url(rac["id"], "/wait-classes"), begin_snap=lo, end_snap=hi, instance="each", max_points=0)
    assert {(s["name"], s["instance"]) for s in each["series"]} == set(want)
    assert [s["name"] for s in each["series"][:3]] == ["derived:db_cpu", "derived:db_cpu", "cpu_wait"]
    for s in each["series"]:
        expected = want[s["name"], s["instance"]]
        assert [t for t, _ in s["points"]] == sorted(expected)
        assert all(near(v, expected[t], s["name"]) for t, v in s["points"]), (s["name"], s["instance"])
    combined = ok(api, url(rac["id"], "/wait-classes"), begin_snap=lo, end_snap=hi, max_points=0)
    for s in combined["series"]:
        one, two = want[s["name"], 1], want[s["name"], 2]
        assert [t for t, _ in s["points"]] == sorted(one)  # the instances end each snapshot together here
        if s["name"] == "cpu_wait":  # of the instances' sums, not the sum of each one's clamped at zero
            assert all(near(v, run_queue(t, (1, 2)), s["name"]) for t, v in s["points"]), s["name"]
        else:
            assert all(close(v, one[t] + two[t]) for t, v in s["points"]), s["name"]
