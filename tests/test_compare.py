"""Comparing two periods, what changed first (docs/awr-rules.md §29): the movers of DB time and of the Load Profile,
the plans that appeared or disappeared, ±100 % for what one period alone holds, and which way is better by nature.

Expectations come from the demo store's rows with plain SQL (deltas between each period's two snapshots, summed over
instances, per second of the period; ranked as §29 says), never from the code under test. The periods are on RACPROD
around the plan regression (no restart, missing or manual snapshot in them) and of different lengths, so that only
per-second values can agree.
"""

import csv
import io
import re
from datetime import datetime

import pytest
from contract import dbid_of, ok, url

# §29's table of directions, as the rules page states it
BETTER_PER_TRANSACTION = {
    "DB Time(s)",
    "DB CPU(s)",
    "Logical read (blocks)",
    "Physical read (blocks)",
    "Read IO requests",
    "Read IO (MB)",
    "Parses (SQL)",
    "Hard parses (SQL)",
}
LOAD_PROFILE_STATS = {  # §13's rows: statistics summed and scale
    "Redo size (bytes)": (("redo size",), 1),
    "Logical read (blocks)": (("session logical reads",), 1),
    "Block changes": (("db block changes",), 1),
    "Physical read (blocks)": (("physical reads",), 1),
    "Physical write (blocks)": (("physical writes",), 1),
    "Read IO requests": (("physical read IO requests",), 1),
    "Write IO requests": (("physical write IO requests",), 1),
    "Read IO (MB)": (("physical read bytes",), 1 / 2**20),
    "Write IO (MB)": (("physical write bytes",), 1 / 2**20),
    "Global Cache blocks received": (("gc cr blocks received", "gc current blocks received"), 1),  # RAC only
    "Global Cache blocks served": (("gc cr blocks served", "gc current blocks served"), 1),
    "User calls": (("user calls",), 1),
    "Parses (SQL)": (("parse count (total)",), 1),
    "Hard parses (SQL)": (("parse count (hard)",), 1),
    "SQL Work Area (MB)": (("bytes processed",), 1 / 2**20),  # DBA_HIST_PGASTAT
    "Logons": (("logons cumulative",), 1),
    "User logons": (("user logons cumulative",), 1),
    "Executes (SQL)": (("execute count",), 1),
    "Rollbacks": (("user rollbacks",), 1),
    "Transactions": (("user commits", "user rollbacks"), 1),
}


class Period:
    """One period from the store: deltas between its two snapshots (no restart inside), summed over instances."""

    def __init__(self, sql3, dbid, lo, hi):
        self.lo, self.hi = lo, hi
        ends = {}
        for inst, snap, end in sql3.execute(
            "select instance_number, snap_id, end_interval_time from dba_hist_snapshot "
            "where dbid = ? and snap_id in (?, ?)",
            (dbid, lo, hi),
        ):
            ends.setdefault(inst, {})[snap] = datetime.fromisoformat(end)
        self.elapsed = max((e[hi] - e[lo]).total_seconds() for e in ends.values())

        def deltas(select, table, where=""):
            out = {}
            for name, snap, value in sql3.execute(
                f"select {select}, snap_id, sum(value) from (select {select}, snap_id, {table[1]} as value "
                f"from {table[0]} where dbid = ? and snap_id in (?, ?) {where}) group by {select}, snap_id",
                (dbid, lo, hi),
            ):
                out[name] = out.get(name, 0) + (value if snap == hi else -value)
            return out

        self.time_model = {k: v / 1e6 for k, v in deltas("stat_name", ("dba_hist_sys_time_model", "value")).items()}
        self.sysstat = deltas("stat_name", ("dba_hist_sysstat", "value"))
        self.sysstat.update(deltas("name", ("dba_hist_pgastat", "value")))
        idle = "and wait_class != 'Idle'"
        self.events = {
            k: v / 1e6 for k, v in deltas("event_name", ("dba_hist_system_event", "time_waited_micro_fg"), idle).items()
        }
        self.waits = deltas("event_name", ("dba_hist_system_event", "total_waits_fg"), idle)
        # top SQL (§15): the first 200 (statement, plan) pairs by elapsed time, then per statement
        pairs = sql3.execute(
            "select sql_id, plan_hash_value, sum(elapsed_time_delta) as e from dba_hist_sqlstat "
            "where dbid = ? and snap_id > ? and snap_id <= ? group by con_dbid, sql_id, "
            "plan_hash_value order by e desc limit 200",
            (dbid, lo, hi),
        ).fetchall()
        self.sql, self.plans = {}, {}
        for sql_id, plan, ela in pairs:
            self.sql[sql_id] = self.sql.get(sql_id, 0) + ela / 1e6
            self.plans.setdefault(sql_id, set()).add(plan)
        self.txns = self.sysstat["user commits"] + self.sysstat["user rollbacks"]

    def per_second(self, seconds):
        return seconds / self.elapsed

    def top(self, values, n, skip=()):
        return sorted((k for k in values if k not in skip), key=lambda k: (-values[k], k))[:n]


def _union(*lists):
    out = []
    for keys in lists:
        out += [k for k in keys if k not in out]
    return out


def _ask(api, db, a, b, **extra):
    return ok(api, url(db, "/compare"), a_begin_snap=a[0], a_end_snap=a[1], b_begin_snap=b[0], b_end_snap=b[1], **extra)


@pytest.fixture(scope="module")
def periods(stories):
    """A: 12 intervals before the plan regression; B: its first 6 intervals (half as long)."""
    lo = stories["plan_regression"]["begin_snap"]
    return (lo - 14, lo - 2), (lo, lo + 6)


def test_the_time_movers_are_time_per_second_ranked_by_their_share_of_a_db_time(api, dbs, sql3, periods):
    db, (a, b) = dbs["rac"], periods
    pa, pb = (Period(sql3, dbid_of(db), *p) for p in (a, b))
    assert pa.elapsed == pytest.approx(2 * pb.elapsed)
    body = _ask(api, db, a, b)
    db_a = pa.per_second(pa.time_model["DB time"])
    assert body["elapsed_seconds"] == {"a": round(pa.elapsed), "b": round(pb.elapsed)}
    assert body["db_time"]["a"] == pytest.approx(db_a, abs=1e-4)
    assert body["db_time"]["b"] == pytest.approx(pb.per_second(pb.time_model["DB time"]), abs=1e-4)
    expected = []  # (kind, item, A per second, B per second)
    for name in set(pa.time_model) | set(pb.time_model):
        if name != "DB time" and (pa.time_model.get(name) or pb.time_model.get(name)):
            expected.append(
                (
                    "time model",
                    name,
                    pa.per_second(pa.time_model.get(name, 0)),
                    pb.per_second(pb.time_model.get(name, 0)),
                )
            )
    for name in _union(pa.top(pa.events, 15), pb.top(pb.events, 15)):
        expected.append(
            ("wait event", name, pa.per_second(pa.events.get(name, 0)), pb.per_second(pb.events.get(name, 0)))
        )
    for sql_id in _union(pa.top(pa.sql, 10), pb.top(pb.sql, 10)):
        expected.append(("sql", sql_id, pa.per_second(pa.sql.get(sql_id, 0)), pb.per_second(pb.sql.get(sql_id, 0))))
    expected.sort(key=lambda e: -abs(e[3] - e[2]))
    rows = [r for r in body["movers"]["rows"] if r["group"] == "time"]
    assert [(r["kind"], r["item"]) for r in rows] == [(k, i) for k, i, _, _ in expected[:15]]
    for r, (_kind, _item, va, vb) in zip(rows, expected[:15], strict=True):
        assert (r["a"], r["b"]) == (pytest.approx(va, abs=1e-4), pytest.approx(vb, abs=1e-4)), r
        assert r["db_time_change_pct"] == pytest.approx(100 * (vb - va) / db_a, abs=1e-3), r
        assert r["unit"] == "s/s" and r["measure"] == "per second" and r["better"] == "lower"
    # the regression's statement leads: its elapsed time is most of B's extra DB time
    assert rows[0]["item"] == "n9t346r3d25vu" or rows[0]["kind"] != "sql"
    assert any(r["kind"] == "sql" and r["item"] == "n9t346r3d25vu" and r["db_time_change_pct"] > 50 for r in rows)
    series = {r["kind"]: r["series"] for r in rows}
    assert series.get("sql") is None and all(
        r["series"] == f"system_event:{r['item']}:time" for r in rows if r["kind"] == "wait event"
    )
    classes = dict(sql3.execute("select distinct event_name, wait_class from dba_hist_system_event"))
    assert {r["kind"] for r in rows} == {"time model", "wait event", "sql"}
    for r in rows:  # a non-CDB: no container; a wait class for a wait event only; in both periods here
        assert (r["group"], r["container"], r["only_in"]) == ("time", None, None), r
        assert r["wait_class"] == (classes[r["item"]] if r["kind"] == "wait event" else None), r
        if r["kind"] == "time model":
            assert r["series"] == f"sys_time_model:{r['item']}"


def test_the_workload_movers_are_volumes_per_second_and_costs_per_transaction(api, dbs, sql3, periods):
    db, (a, b) = dbs["rac"], periods
    pa, pb = (Period(sql3, dbid_of(db), *p) for p in (a, b))
    body = _ask(api, db, a, b)
    rows = [r for r in body["movers"]["rows"] if r["group"] == "workload"]
    expected = {}
    for label, (stats, scale) in LOAD_PROFILE_STATS.items():
        costs = label in BETTER_PER_TRANSACTION
        va, vb = (sum(p.sysstat[s] for s in stats) * scale / (p.txns if costs else p.elapsed) for p in (pa, pb))
        expected[label] = (va, vb, "per transaction" if costs else "per second", "lower" if costs else None)
    for label in ("DB Time(s)", "DB CPU(s)"):  # time per transaction; background CPU per second is a time mover
        name = {"DB Time(s)": "DB time", "DB CPU(s)": "DB CPU"}[label]
        expected[label] = (pa.time_model[name] / pa.txns, pb.time_model[name] / pb.txns, "per transaction", "lower")
    assert {r["item"] for r in rows} == set(expected)
    for r in rows:
        va, vb, measure, better = expected[r["item"]]
        assert (r["a"], r["b"]) == (pytest.approx(va, rel=1e-4, abs=1e-4), pytest.approx(vb, rel=1e-4, abs=1e-4)), r
        assert (r["measure"], r["better"]) == (measure, better), r
        assert r["change_pct"] == pytest.approx(100 * (vb - va) / va, rel=1e-3, abs=1e-2), r
    changes = [abs(r["change_pct"]) for r in rows]
    assert changes == sorted(changes, reverse=True)
    neutral = {r["item"]: r["better"] for r in rows}
    assert (
        neutral["Transactions"] is None and neutral["Executes (SQL)"] is None and neutral["Redo size (bytes)"] is None
    )
    assert neutral["Hard parses (SQL)"] == "lower" and neutral["Parses (SQL)"] == "lower"
    for r in rows:  # the unit the row's label names (a count: 1), per second or per transaction (§7)
        named = re.search(r"\((bytes|MB|s)\)$", r["item"])
        assert r["unit"] == (named[1] if named else "1") + {"per second": "/s", "per transaction": "/txn"}[r["measure"]]
        assert (r["group"], r["kind"], r["db_time_change_pct"], r["series"]) == ("workload", "load profile", None, None)
        assert r["only_in"] is None and r["container"] is None and r["wait_class"] is None
    lp = {r["metric"]: r for r in body["load_profile"]["rows"]}
    assert lp["Transactions"]["better_per_second"] is None and lp["Parses (SQL)"]["better_per_transaction"] == "lower"


def test_plans_that_appeared_or_disappeared(api, dbs, sql3, stories, periods):
    db, (a, b) = dbs["rac"], periods
    pa, pb = (Period(sql3, dbid_of(db), *p) for p in (a, b))
    expected = []
    for sql_id in _union(pa.top(pa.sql, 10), pb.top(pb.sql, 10)):
        if sql_id not in pa.sql or sql_id not in pb.sql:  # a statement of one period only is a mover
            continue
        plans_a, plans_b = pa.plans.get(sql_id, set()) - {0}, pb.plans.get(sql_id, set()) - {0}
        expected += [(sql_id, None, str(p), "appeared") for p in sorted(plans_b - plans_a)]
        expected += [(sql_id, str(p), None, "disappeared") for p in sorted(plans_a - plans_b)]
    body = _ask(api, db, a, b)
    got = [(r["item"], r["a"], r["b"], r["change"]) for r in body["differences"]["rows"] if r["kind"] == "plan"]
    assert got == expected
    reg = stories["plan_regression"]
    assert (reg["sql_id"], None, str(reg["bad_plan"]), "appeared") in got
    assert (reg["sql_id"], str(reg["good_plan"]), None, "disappeared") in got
    assert {r["kind"] for r in body["differences"]["rows"]} == {"plan", "parameter"}


def test_a_wait_in_one_period_only_is_plus_or_minus_100_percent(api, dbs, sql3, periods):
    db, (a, b) = dbs["rac"], periods
    pa, pb = (Period(sql3, dbid_of(db), *p) for p in (a, b))
    for (x, y), (px, py), sign in (((a, b), (pa, pb), 1), ((b, a), (pb, pa), -1)):
        body = _ask(api, db, x, y)
        events = {r["event"]: r for r in body["top_events"]["rows"]}
        new = [e for e in _union(px.top(px.events, 15), py.top(py.events, 15)) if not px.events.get(e)]
        gone = [e for e in _union(px.top(px.events, 15), py.top(py.events, 15)) if not py.events.get(e)]
        assert new if sign > 0 else gone, "the regression's CPU saturation brings a wait A never had"
        for name in new:  # 0 time and 0 waits in the period without it (§29)
            r = events[name]
            assert (r["only_in"], r["change_pct"], r["a_time_s"]) == ("b", 100.0, 0), r
            assert (r["a_waits_per_transaction"], r["waits_per_transaction_change_pct"]) == (0, 100.0), r
            assert r["b_time_s"] == pytest.approx(py.events[name], abs=1e-4)
        for name in gone:
            r = events[name]
            assert (r["only_in"], r["change_pct"], r["b_time_s"]) == ("a", -100.0, 0), r
            assert (r["b_waits_per_transaction"], r["waits_per_transaction_change_pct"]) == (0, -100.0), r
        for name, r in events.items():
            if name in px.events and name in py.events and px.events[name] and py.events[name]:
                va, vb = px.per_second(px.events[name]), py.per_second(py.events[name])
                assert r["only_in"] is None and r["change_pct"] == pytest.approx(100 * (vb - va) / va, abs=1e-2)
                wa, wb = px.waits[name] / px.txns, py.waits[name] / py.txns
                assert r["a_waits_per_transaction"] == pytest.approx(wa, rel=1e-3, abs=1e-4)
                if wa:
                    assert r["waits_per_transaction_change_pct"] == pytest.approx(100 * (wb - wa) / wa, abs=1e-2)
                    assert r["better_waits_per_transaction"] == "lower" and r["better"] == "lower"
        movers = {r["item"]: r for r in body["movers"]["rows"] if r["kind"] == "wait event"}
        for name in new + gone:
            if name in movers:
                assert movers[name]["change_pct"] == 100.0 * sign and movers[name]["only_in"] == "ba"[sign < 0]


def test_the_movers_as_csv_come_first(api, dbs, periods):
    db, (a, b) = dbs["rac"], periods
    query = {"a_begin_snap": a[0], "a_end_snap": a[1], "b_begin_snap": b[0], "b_end_snap": b[1]}
    body = ok(api, url(db, "/compare"), **query)
    resp = api.get(url(db, "/compare"), query_string={**query, "format": "csv"})
    assert resp.mimetype == "text/csv"
    header, *rows = list(csv.reader(io.StringIO(resp.get_data(as_text=True))))
    assert header[: len(body["movers"]["columns"]) + 1] == ["table", *body["movers"]["columns"]]
    movers = [dict(zip(header, r, strict=True)) for r in rows if r[0] == "movers"]
    assert [m["item"] for m in movers] == [r["item"] for r in body["movers"]["rows"]]
    assert [m["better"] for m in movers] == [r["better"] or "" for r in body["movers"]["rows"]]
    assert [r[0] for r in rows] == sorted(
        (r[0] for r in rows), key=["movers", "differences", "load_profile", "top_events"].index
    )
    assert {m["db_time_change_pct"] for m in movers if m["group"] == "time"} != {""}


def test_one_instance_of_rac_has_no_statements_but_a_single_instance_database_does(api, dbs, stories, periods):
    """Top SQL has no instance (§15): RACPROD's instance 2 alone compares no statements; ORCL's one instance, named,
    is the whole database and compares the same movers as `all`."""
    db, (a, b) = dbs["rac"], periods
    kinds = {r["kind"] for r in _ask(api, db, a, b, instance=2)["movers"]["rows"]}
    assert "sql" not in kinds and "time model" in kinds
    single = dbs["single"]
    lo = stories["async_io_fix"]["first_snap_after"]
    x, y = (lo - 30, lo - 10), (lo + 10, lo + 20)
    assert _ask(api, single, x, y, instance=1)["movers"] == _ask(api, single, x, y)["movers"]
    assert any(r["kind"] == "sql" for r in _ask(api, single, x, y)["movers"]["rows"])


def test_parameters_that_differ_at_the_ends_of_the_periods(api, dbs, sql3, periods):
    """§23 and §29: a parameter whose value in force at A's last snapshot differs from B's, per instance, from
    DBA_HIST_PARAMETER's rows; the regression's optimizer setting among them."""
    db, (a, b) = dbs["rac"], periods

    def at(snap):
        return {
            (name, inst): value
            for name, inst, value in sql3.execute(
                "select parameter_name, instance_number, value from dba_hist_parameter where dbid = ? and snap_id = ?",
                (dbid_of(db), snap),
            )
        }

    va, vb = at(a[1]), at(b[1])
    expected = sorted(
        (name, inst, va.get((name, inst)), vb.get((name, inst)))
        for name, inst in set(va) | set(vb)
        if va.get((name, inst)) != vb.get((name, inst))
    )
    assert any(name == "optimizer_index_cost_adj" for name, *_ in expected)
    rows = [r for r in _ask(api, db, a, b)["differences"]["rows"] if r["kind"] == "parameter"]
    assert [(r["item"], r["a"], r["b"]) for r in rows] == [
        (f"{name} (instance {inst})", x, y) for name, inst, x, y in expected
    ]
    assert all(r["change"] == "changed" for r in rows if r["a"] is not None and r["b"] is not None)


@pytest.fixture(scope="module")
def set_in_one_period(demo_store, dbs, periods, tmp_path_factory):
    """A copy of the demo store where instance 1 of RACPROD has a parameter in force only at A's end and another only
    at B's end (a hidden parameter set, then reset: it has rows only while set), as rows of the store's
    DBA_HIST_PARAMETER (awrlens_parameter: a value and the run of snapshots it was in force for, §23)."""
    import shutil
    import sqlite3

    from app import create_app
    from app.settings import Settings

    (a, b), dbid = periods, dbid_of(dbs["rac"])
    path = tmp_path_factory.mktemp("parameters") / "demo.sqlite"
    shutil.copyfile(demo_store[0], path)
    con = sqlite3.connect(path)
    runs = [("_a_only", "1", a[0], a[1]), ("_b_only", "TRUE", b[0], b[1])]
    for k, (name, value, first, last) in enumerate(runs):
        con.execute(
            "insert into awrlens_parameter (dbid, instance_number, parameter_hash, first_snap, last_snap, "
            "parameter_name, value, isdefault, ismodified) values (?, 1, ?, ?, ?, ?, ?, 'FALSE', 'SYSTEM_MOD')",
            (dbid, 4_000_000_000 + k, first, last, name, value),
        )
    con.commit()
    con.close()
    app = create_app(Settings.from_env({}, answer_cache_mb=0, targets={"demo": {"sqlite": str(path)}}))
    return app.test_client()


def test_a_parameter_set_in_one_period_only_is_a_difference(set_in_one_period, dbs, periods):
    """§29: a parameter whose value in force at A's last snapshot differs from B's is listed, `set in A only` or `set in
    B only` when the other end has no value: not dropped for lack of one."""
    (a, b), db = periods, dbs["rac"]
    rows = _ask(set_in_one_period, db, a, b)["differences"]["rows"]
    got = {r["item"]: (r["a"], r["b"], r["change"]) for r in rows if r["kind"] == "parameter"}
    assert got["_a_only (instance 1)"] == ("1", None, "set in A only")
    assert got["_b_only (instance 1)"] == (None, "TRUE", "set in B only")
    assert not any(item.startswith(("_a_only", "_b_only")) and "instance 2" in item for item in got)


def test_the_answer_names_its_periods_and_compares_db_time_per_second(api, dbs, sql3, periods):
    """§29: `db_time` is each period's DB time per second (average active sessions, s/s), its change 100 × (B − A) /
    A, better lower; each table's `columns` name its rows' fields, in order."""
    db, (a, b) = dbs["rac"], periods
    pa, pb = (Period(sql3, dbid_of(db), *p) for p in (a, b))
    body = _ask(api, db, a, b)
    va, vb = (p.per_second(p.time_model["DB time"]) for p in (pa, pb))
    assert body["db_time"] == {
        "unit": "s/s",
        "a": pytest.approx(va, abs=1e-4),
        "b": pytest.approx(vb, abs=1e-4),
        "change_pct": pytest.approx(100 * (vb - va) / va, abs=1e-2),
        "better": "lower",
    }
    assert (body["db"], body["instance"]) == (db, "all")
    assert [(body[s]["begin_snap"], body[s]["end_snap"]) for s in "ab"] == [a, b]
    for table in ("movers", "differences", "load_profile", "top_events"):
        assert body[table]["rows"], table
        assert all(list(r) == body[table]["columns"] for r in body[table]["rows"]), table


def test_the_load_profile_side_by_side_is_each_periods_totals_per_second_and_per_transaction(api, dbs, sql3, periods):
    """§29's `load_profile`: each §13 row's total over each period's seconds and over its transactions, the change of
    each, better per transaction as §29's table says, never per second."""
    db, (a, b) = dbs["rac"], periods
    pa, pb = (Period(sql3, dbid_of(db), *p) for p in (a, b))
    time_rows = {"DB Time(s)": "DB time", "DB CPU(s)": "DB CPU", "Background CPU(s)": "background cpu time"}
    stats_of = {  # the demo has In-Memory's statistics too, all 0 (§13 ¹)
        **LOAD_PROFILE_STATS,
        "IM scan rows": (("IM scan rows",), 1),
        "Session Logical Read IM": (("session logical reads - IM",), 1),
    }
    rows = {r["metric"]: r for r in _ask(api, db, a, b)["load_profile"]["rows"]}
    assert set(rows) == set(stats_of) | set(time_rows)
    for label, r in rows.items():
        if label in time_rows:
            ta, tb = (p.time_model[time_rows[label]] for p in (pa, pb))
        else:
            stats, scale = stats_of[label]
            ta, tb = (sum(p.sysstat[s] for s in stats) * scale for p in (pa, pb))
        sa, sb, xa, xb = ta / pa.elapsed, tb / pb.elapsed, ta / pa.txns, tb / pb.txns
        assert sa or not sb, label  # 0 in A and 0 in B: a change of 0 % (§29), as below
        close = {"rel": 1e-4, "abs": 1e-4}
        assert r == {
            "metric": label,
            "a_per_second": pytest.approx(sa, **close),
            "b_per_second": pytest.approx(sb, **close),
            "change_pct": pytest.approx(100 * (sb - sa) / sa if sa else 0.0, rel=1e-3, abs=1e-2),
            "better_per_second": None,
            "a_per_transaction": pytest.approx(xa, **close),
            "b_per_transaction": pytest.approx(xb, **close),
            "change_pct_per_transaction": pytest.approx(100 * (xb - xa) / xa if xa else 0.0, rel=1e-3, abs=1e-2),
            "better_per_transaction": "lower" if label in BETTER_PER_TRANSACTION else None,
        }, label


def test_the_top_events_side_by_side_carry_each_periods_average_wait_and_share_of_db_time(api, dbs, sql3, periods):
    """§14 in each period: avg_ms = time / waits, pct_db_time = 100 × time / DB time; the DB CPU row (wait class CPU)
    has no waits, so no waits per transaction and no direction for them."""
    db, (a, b) = dbs["rac"], periods
    pa, pb = (Period(sql3, dbid_of(db), *p) for p in (a, b))
    classes = dict(sql3.execute("select distinct event_name, wait_class from dba_hist_system_event"))
    rows = {r["event"]: r for r in _ask(api, db, a, b)["top_events"]["rows"]}
    assert "DB CPU" in rows
    for name, r in rows.items():
        for side, p in (("a", pa), ("b", pb)):
            time = p.time_model["DB CPU"] if name == "DB CPU" else p.events.get(name, 0)
            waits = None if name == "DB CPU" else p.waits.get(name, 0)
            assert r[f"{side}_time_s"] == pytest.approx(time, abs=1e-4), (name, side)
            assert r[f"{side}_pct_db_time"] == pytest.approx(100 * time / p.time_model["DB time"], abs=1e-4)
            assert r[f"{side}_avg_ms"] == (pytest.approx(1000 * time / waits, abs=1e-4) if waits else None)
            if waits is None:
                assert r[f"{side}_waits_per_transaction"] is None
        assert r["wait_class"] == ("CPU" if name == "DB CPU" else classes[name])
        assert r["better_waits_per_transaction"] == (None if name == "DB CPU" else "lower")


def test_a_parameter_of_a_single_instance_database_names_no_instance(api, dbs, stories):
    """§29: on a database of one instance a parameter's item is its name alone; async_io_fix's FILESYSTEMIO_OPTIONS
    change (SPFILE, then a restart) differs between a period before the restart and one after."""
    lo = stories["async_io_fix"]["first_snap_after"]
    rows = _ask(api, dbs["single"], (lo - 30, lo - 10), (lo + 10, lo + 20))["differences"]["rows"]
    params = {r["item"]: r for r in rows if r["kind"] == "parameter"}
    assert params["filesystemio_options"]["change"] == "changed" and params["filesystemio_options"]["b"] == "SETALL"
    assert not any("instance" in item for item in params)


def test_a_period_of_one_snapshot_has_no_values_and_no_change(api, dbs, periods):
    """§13: a range of a single snapshot has no data, and no data is not zero; §29: a change from an unknown value is
    empty. A's values are all null, B's are there."""
    db, (_, b) = dbs["rac"], periods
    body = _ask(api, db, (b[0] - 2, b[0] - 2), b)
    assert body["elapsed_seconds"]["a"] == 0 and body["elapsed_seconds"]["b"] > 0
    assert (body["db_time"]["a"], body["db_time"]["change_pct"]) == (None, None) and body["db_time"]["b"] > 0
    lp = body["load_profile"]["rows"]
    assert lp and all(r["a_per_second"] is None and r["a_per_transaction"] is None for r in lp)
    assert all(r["change_pct"] is None and r["change_pct_per_transaction"] is None for r in lp)
    assert any(r["b_per_second"] for r in lp) and any(r["b_per_transaction"] for r in lp)
    events = body["top_events"]["rows"]
    assert events and all(r["b_time_s"] > 0 and r["b_pct_db_time"] > 0 for r in events)
    for r in events:
        assert [r[k] for k in ("a_time_s", "a_per_second", "a_pct_db_time", "a_waits_per_transaction")] == [None] * 4
        assert (r["change_pct"], r["waits_per_transaction_change_pct"]) == (None, None)
    movers = body["movers"]["rows"]
    assert movers and all(r["a"] is None and r["change_pct"] is None for r in movers)
    assert [r["item"] for r in movers] == sorted(r["item"] for r in movers)  # unknown changes: by name


NEW_PLAN = ("0s4ruwf8v2hxq", 33, 2, 3_000_000)  # in HR, in B's interval: SQL_ID, plan, executions, elapsed µs


@pytest.fixture(scope="module")
def cdb_compared(tmp_path_factory):
    """test_multitenant's CDB root (two instances, one SQL_ID in two PDBs), with the counters a period needs (DB time
    and user commits on each instance, 1,800 s apart) and NEW_PLAN, a second plan of the statement in HR."""
    import sqlite3

    import test_multitenant as cdb

    path = tmp_path_factory.mktemp("cdb") / "cdb.sqlite"
    cdb.build(path)
    con = sqlite3.connect(path)
    for inst in (1, 2):
        for snap_id in cdb.SNAPS:
            for view, stat_id, name, value in (
                ("sys_time_model", 1, "DB time", 60_000_000 * snap_id),
                ("sysstat", 2, "user commits", 100 * snap_id),
            ):
                con.execute(
                    f"insert into dba_hist_{view} (snap_id, dbid, instance_number, stat_id, stat_name, value, "
                    "con_dbid) values (?, ?, ?, ?, ?, ?, ?)",
                    (snap_id, cdb.DBID, inst, stat_id, name, value, cdb.DBID),
                )
    con.execute(
        "insert into dba_hist_sqlstat (snap_id, dbid, instance_number, sql_id, plan_hash_value, executions_delta, "
        "elapsed_time_delta, con_dbid) values (3, ?, 1, ?, ?, ?, ?, ?)",
        (cdb.DBID, *NEW_PLAN, cdb.PDB2),
    )
    con.commit()
    con.close()
    return cdb.client(path), cdb


def test_statements_of_a_cdb_root_are_named_by_their_container(cdb_compared):
    """§29 with §15: a statement is a (container, SQL_ID): the same SQL_ID in SALES and in HR are two movers, each with
    its container's name and its own elapsed time per second; HR's new plan appeared in B, named by container."""
    api, cdb = cdb_compared
    body = _ask(api, f"c.{cdb.DBID}", (1, 2), (2, 3))
    assert body["elapsed_seconds"] == {"a": 1800, "b": 1800}
    sql_id, plan, execs, micro = NEW_PLAN
    elapsed = {}  # seconds of each (container, SQL_ID) in A (interval ending at 2) and B (at 3)
    for (con, sid, _), deltas in {**cdb.SQL, (cdb.PDB2, sql_id, plan): {3: (execs, micro)}}.items():
        per = elapsed.setdefault((con, sid), [0.0, 0.0])
        for k, snap in enumerate((2, 3)):
            per[k] += deltas.get(snap, (0, 0))[1] / 1e6
    sql = {(r["container"], r["item"]): r for r in body["movers"]["rows"] if r["kind"] == "sql"}
    assert set(sql) == {(cdb.NAMES[con], sid) for con, sid in elapsed}
    for (con, sid), (ta, tb) in elapsed.items():
        r = sql[cdb.NAMES[con], sid]
        assert (r["a"], r["b"]) == (pytest.approx(ta / 1800, abs=1e-4), pytest.approx(tb / 1800, abs=1e-4)), r
    plans = [(r["item"], r["container"], r["a"], r["b"], r["change"]) for r in body["differences"]["rows"]]
    assert [p for p in plans if p[4] in ("appeared", "disappeared")] == [(sql_id, "HR", None, str(plan), "appeared")]
