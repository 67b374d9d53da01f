"""The demo history: its contents, its internal consistency (docs/awr-rules.md §10), its stories, determinism and an
atomic build. Checked straight from the SQLite file and, for the stories, through the API a user would call."""

import hashlib
import inspect
import itertools
import os
import re
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta
from statistics import median

import pytest
from conftest import ROOT

from app import create_app, demo
from app.history.load_profile import LOAD_PROFILE
from app.settings import Settings


@pytest.fixture(scope="module")
def db(demo_store):
    con = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    yield con
    con.close()


def ids(stories):
    return {d["db_name"]: d["dbid"] for d in stories["databases"] if d["source"] == "awr"}


def deltas(db, view, name, dbid, instance=1, column="value", name_column="stat_name"):
    """snap_id -> (delta, seconds) over intervals of the same startup, straight from the file."""
    rows = db.execute(
        f"""
        select s.snap_id, s.startup_time, s.end_interval_time, v.{column}
        from dba_hist_{view} v join dba_hist_snapshot s
          on s.dbid = v.dbid and s.instance_number = v.instance_number and s.snap_id = v.snap_id
        where v.dbid = ? and v.instance_number = ? and v.{name_column} = ? order by s.snap_id""",
        (dbid, instance, name),
    ).fetchall()
    out = {}
    for (_, st0, t0, v0), (snap, st1, t1, v1) in itertools.pairwise(rows):
        if st0 == st1:
            seconds = (datetime.fromisoformat(t1) - datetime.fromisoformat(t0)).total_seconds()
            out[snap] = (v1 - v0, round(seconds))
    return out


def test_two_databases_as_the_issue_describes(db, stories):
    rows = db.execute(
        "select db_name, count(distinct instance_number), max(parallel) "
        "from dba_hist_database_instance group by dbid order by db_name"
    ).fetchall()
    assert rows == [("ORCL", 1, "NO"), ("RACPROD", 2, "YES")]
    cpus = dict(
        db.execute(
            "select i.db_name, max(o.value) from dba_hist_osstat o join dba_hist_database_instance i "
            "using (dbid, instance_number) where o.stat_name = 'NUM_CPUS' group by i.db_name"
        )
    )
    assert cpus == {"ORCL": 4, "RACPROD": 16}
    steps = db.execute(
        "select (julianday(b.end_interval_time) - julianday(a.end_interval_time)) * 1440 as m, count(*) "
        "from dba_hist_snapshot a join dba_hist_snapshot b on b.dbid = a.dbid "
        "and b.instance_number = a.instance_number and b.snap_id = a.snap_id + 1 "
        "group by round(m) order by 2 desc"
    ).fetchall()
    assert round(steps[0][0]) == 30 and steps[0][1] > 0.95 * sum(n for _, n in steps)


def test_contents_cover_what_a_dba_reads(db):
    def names(sql):
        return {r[0] for r in db.execute(sql)}

    sysstat = names("select distinct stat_name from dba_hist_sysstat")
    assert len(sysstat) >= 150
    load_profile = {n for _, view, ns, _ in LOAD_PROFILE if view == "sysstat" for n in ns}
    assert load_profile <= sysstat
    assert {"physical read total IO requests", "physical write total IO requests"} <= sysstat
    time_model = names("select distinct stat_name from dba_hist_sys_time_model")
    assert {
        "DB time",
        "DB CPU",
        "background cpu time",
        "sql execute elapsed time",
        "parse time elapsed",
        "hard parse elapsed time",
        "PL/SQL execution elapsed time",
        "connection management call elapsed time",
        "RMAN cpu time (backup/restore)",
    } <= time_model and len(time_model) >= 18
    events = db.execute("select count(distinct event_name), count(distinct wait_class) from dba_hist_system_event")
    n_events, n_classes = events.fetchone()
    assert n_events >= 60 and n_classes >= 11
    assert names("select distinct wait_class from dba_hist_system_event") >= {
        "Idle",
        "User I/O",
        "System I/O",
        "Commit",
        "Concurrency",
        "Application",
        "Configuration",
        "Network",
        "Cluster",
        "Other",
        "Scheduler",
        "Administrative",
        "Queueing",
    }
    units = dict(db.execute("select distinct metric_name, metric_unit from dba_hist_sysmetric_summary"))
    assert units["Host CPU Utilization (%)"] == "% Busy/(Idle+Busy)"
    assert units["Average Active Sessions"] == "Active Sessions"
    assert units["I/O Megabytes per Second"] == "Megabtyes per Second"
    assert units["I/O Requests per Second"] == "Requests per Second"
    assert units["User Transaction Per Sec"] == "Transactions Per Second"
    assert units["Executions Per Sec"] == "Executes Per Second"
    assert names("select distinct stat_name from dba_hist_osstat") >= {
        "BUSY_TIME",
        "IDLE_TIME",
        "USER_TIME",
        "SYS_TIME",
        "IOWAIT_TIME",
        "RSRC_MGR_CPU_WAIT_TIME",
        "NUM_CPUS",
        "NUM_CPU_CORES",
        "LOAD",
        "PHYSICAL_MEMORY_BYTES",
    }
    assert {"LGWR", "DBWR", "Direct Reads", "Buffer Cache Reads", "RMAN"} <= names(
        "select distinct function_name from dba_hist_iostat_function"
    )
    assert {"Data File", "Log File", "Temp File", "Control File"} <= names(
        "select distinct filetype_name from dba_hist_iostat_filetype"
    )
    per_db = db.execute(
        "select t.dbid, count(distinct t.sql_id) from dba_hist_sqltext t "
        "where t.sql_text <> '' and exists (select 1 from dba_hist_sqlstat s "
        "where s.dbid = t.dbid and s.sql_id = t.sql_id) group by t.dbid"
    ).fetchall()
    assert len(per_db) == 2 and all(n >= 200 for _, n in per_db)
    assert db.execute("select count(*) from dba_hist_sqltext where sql_text like '%<script>%'").fetchone()[0] >= 2
    assert db.execute("select count(*) from dba_hist_sgastat").fetchone()[0] > 0
    assert db.execute("select count(*) from dba_hist_pgastat").fetchone()[0] > 0


@pytest.mark.slow  # a GROUP BY over every ASH sample of the demo: seconds
def test_a_session_keeps_its_user_program_and_machine_for_its_life(db):
    """A session (instance, SID, serial#) logs in once: every ASH sample of it has one USER_ID, PROGRAM and MACHINE
    (docs/awr-rules.md §22, Names), while its statements' parsing schemas may differ; several users are sampled."""
    mixed = db.execute(
        'SELECT count(*) FROM (SELECT 1 FROM dba_hist_active_sess_history GROUP BY dbid, instance_number, session_id, '
        '"SESSION_SERIAL#" HAVING count(DISTINCT user_id) > 1 OR count(DISTINCT program) > 1 '
        "OR count(DISTINCT machine) > 1)"
    ).fetchone()[0]
    users = db.execute("SELECT count(DISTINCT user_id) FROM dba_hist_active_sess_history").fetchone()[0]
    assert (mixed, users >= 3) == (0, True)


def test_tablespaces_grow(db, stories):
    for dbid in ids(stories).values():
        first, last = db.execute(
            "select min(snap_id), max(snap_id) from dba_hist_tbspc_space_usage where dbid = ?", (dbid,)
        ).fetchone()
        used = dict(
            db.execute(
                "select t.tsname, u.tablespace_usedsize from dba_hist_tbspc_space_usage u "
                "join dba_hist_tablespace t on t.dbid = u.dbid and t.\"TS#\" = u.tablespace_id "
                "where u.dbid = ? and u.snap_id = ?",
                (dbid, last),
            )
        )
        before = dict(
            db.execute(
                "select t.tsname, u.tablespace_usedsize from dba_hist_tbspc_space_usage u "
                "join dba_hist_tablespace t on t.dbid = u.dbid and t.\"TS#\" = u.tablespace_id "
                "where u.dbid = ? and u.snap_id = ?",
                (dbid, first),
            )
        )
        assert used["APP_DATA"] > before["APP_DATA"] * 1.01
        bad = db.execute(
            "select count(*) from dba_hist_tbspc_space_usage where dbid = ? and "
            "(tablespace_usedsize > tablespace_size or tablespace_size > tablespace_maxsize)",
            (dbid,),
        ).fetchone()[0]
        assert bad == 0


def test_db_time_is_cpu_plus_foreground_waits(db, stories):
    """Per interval: DB time = DB CPU + foreground non-idle waits, plus CPU queueing only when CPU saturates."""
    rows = db.execute("""
        with tm as (select dbid, instance_number, snap_id,
                           sum(case when stat_name = 'DB time' then value end) as dbt,
                           sum(case when stat_name = 'DB CPU' then value end) as cpu
                    from dba_hist_sys_time_model group by dbid, instance_number, snap_id),
             ev as (select dbid, instance_number, snap_id, sum(time_waited_micro_fg) as w
                    from dba_hist_system_event where wait_class <> 'Idle' group by dbid, instance_number, snap_id),
             busy as (select dbid, instance_number, snap_id, value as b from dba_hist_osstat
                      where stat_name = 'BUSY_TIME'),
             x as (select tm.dbid, tm.instance_number, tm.snap_id, s.startup_time,
                          tm.dbt - lag(tm.dbt) over w as d_dbt, tm.cpu - lag(tm.cpu) over w as d_cpu,
                          ev.w - lag(ev.w) over w as d_w, lag(s.startup_time) over w as prev_startup
                   from tm join ev using (dbid, instance_number, snap_id)
                   join dba_hist_snapshot s using (dbid, instance_number, snap_id)
                   window w as (partition by tm.dbid, tm.instance_number order by tm.snap_id))
        select dbid, d_dbt, d_cpu, d_w from x where prev_startup = startup_time and d_dbt > 0""").fetchall()
    assert len(rows) > 1000
    gaps = [(dbt - cpu - w) / dbt for _, dbt, cpu, w in rows]
    assert all(g > -0.001 for g in gaps), min(gaps)
    assert median(gaps) < 0.005
    # the only large gaps are CPU queueing, on RACPROD while the regressed plan saturates the CPUs
    rac = ids(stories)["RACPROD"]
    assert {dbid for (dbid, *_), g in zip(rows, gaps, strict=True) if g > 0.02} <= {rac}


def test_osstat_busy_plus_idle_is_all_cpu_time(db, stories):
    for name, dbid in ids(stories).items():
        busy = deltas(db, "osstat", "BUSY_TIME", dbid)
        idle = deltas(db, "osstat", "IDLE_TIME", dbid)
        cpus = 4 if name == "ORCL" else 16
        for snap, (b, seconds) in busy.items():
            assert b + idle[snap][0] == pytest.approx(seconds * cpus * 100, abs=2), (name, snap)
            assert b >= 0 and idle[snap][0] >= 0


@pytest.mark.slow
def test_sysmetric_rates_agree_with_sysstat_deltas(db, stories):
    for dbid in ids(stories).values():
        commits = deltas(db, "sysstat", "user commits", dbid)
        rollbacks = deltas(db, "sysstat", "user rollbacks", dbid)
        execs = deltas(db, "sysstat", "execute count", dbid)
        metric = {
            r[0]: r[1:]
            for r in db.execute(
                "select snap_id, average, intsize from dba_hist_sysmetric_summary "
                "where dbid = ? and instance_number = 1 and metric_name = 'User Transaction Per Sec'",
                (dbid,),
            )
        }
        exec_metric = dict(
            db.execute(
                "select snap_id, average from dba_hist_sysmetric_summary where dbid = ? "
                "and instance_number = 1 and metric_name = 'Executions Per Sec'",
                (dbid,),
            )
        )
        checked = 0
        for snap, (c, seconds) in commits.items():
            average, intsize = metric[snap]
            assert intsize == seconds * 100
            assert average == pytest.approx((c + rollbacks[snap][0]) / seconds, rel=1e-3, abs=1e-3)
            assert exec_metric[snap] == pytest.approx(execs[snap][0] / seconds, rel=1e-3, abs=1e-3)
            checked += 1
        assert checked > 400


def test_per_minute_history_covers_the_last_eight_days_and_averages_to_the_summary(db, stories):
    dbid = ids(stories)["ORCL"]
    first, last = db.execute(
        "select min(begin_time), max(end_time) from dba_hist_sysmetric_history where dbid = ?", (dbid,)
    ).fetchone()
    span = db.execute("select julianday(?) - julianday(?)", (last, first)).fetchone()[0]
    assert 7.9 < span < 8.1
    snap = db.execute("select max(snap_id) from dba_hist_snapshot where dbid = ?", (dbid,)).fetchone()[0] - 10
    minutes = [
        r[0]
        for r in db.execute(
            "select value from dba_hist_sysmetric_history where dbid = ? and snap_id = ? "
            "and metric_name = 'User Transaction Per Sec' order by begin_time",
            (dbid, snap),
        )
    ]
    summary = db.execute(
        "select average, num_interval from dba_hist_sysmetric_summary where dbid = ? and snap_id = ? "
        "and metric_name = 'User Transaction Per Sec'",
        (dbid, snap),
    ).fetchone()
    assert len(minutes) == summary[1] == 30
    assert sum(minutes) / len(minutes) == pytest.approx(summary[0], rel=0.01)


def series(client, db, names, **params):
    query = "&".join([f"name={n}" for n in names] + [f"{k}={v}" for k, v in params.items()])
    resp = client.get(f"/api/v1/dbs/{db}/series?{query}")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return {s["name"]: s for s in resp.get_json()["series"]}, resp.get_json()["markers"]


def test_story_async_io_fix(client, dbs, stories):
    """Field test 004 (docs/field-tests.md §004): ~101 TPS and ~90 ms with high iowait before; ~136 TPS and ~70 ms
    after the restart."""
    fix = stories["async_io_fix"]
    got, markers = series(
        client,
        dbs["single"],
        ["derived:tps", "sysmetric:Response Time Per Txn", "derived:host_iowait_pct"],
        max_points=0,
    )
    assert [m["startup_time"] for m in markers["restarts"]] == [fix["startup_time"]]

    def busy_hours(name, after):
        pts = got[name]["points"]
        tps = dict(got["derived:tps"]["points"])
        return [
            v
            for t, v in pts
            if (t >= fix["startup_time"]) == after and tps.get(t, 0) > 90 and "T10:00" <= t[10:16] <= "T17:00"
        ]

    assert median(busy_hours("derived:tps", False)) == pytest.approx(101, abs=5)
    assert median(busy_hours("derived:tps", True)) == pytest.approx(136, abs=6)
    assert median(busy_hours("sysmetric:Response Time Per Txn", False)) * 10 == pytest.approx(90, abs=6)
    assert median(busy_hours("sysmetric:Response Time Per Txn", True)) * 10 == pytest.approx(70, abs=6)
    assert median(busy_hours("derived:host_iowait_pct", False)) > 50
    assert median(busy_hours("derived:host_iowait_pct", True)) < 10


def test_story_restart_with_missing_snapshots(client, dbs, stories):
    story = stories["restart"]
    _, markers = series(client, dbs["rac"], ["derived:aas"], instance=story["instance"], max_points=0)
    assert [m["startup_time"] for m in markers["restarts"]] == [story["startup_time"]]
    gap = markers["missing"][0]
    assert gap["instance"] == story["instance"] and gap["seconds"] == 1800 * (len(story["missing_snap_ids"]) + 1)
    assert gap["after_snap_id"] < min(story["missing_snap_ids"]) and gap["before_snap_id"] == story["first_snap_after"]
    restart_time = markers["restarts"][0]["time"]
    resp = client.get(f"/api/v1/dbs/{dbs['rac']}/series?name=sysstat:redo size&instance=each&max_points=0")
    per_instance = {s["instance"]: dict(s["points"]) for s in resp.get_json()["series"]}
    # the interval across the restart is dropped on instance 2 only, and no rate is negative
    assert restart_time not in per_instance[story["instance"]] and restart_time in per_instance[1]
    assert all(v >= 0 for points in per_instance.values() for v in points.values())


def test_story_manual_snapshot_is_merged(client, dbs, stories):
    story = stories["manual_snapshot"]
    _, markers = series(client, dbs["single"], ["derived:tps"], max_points=0)
    assert [m["snap_id"] for m in markers["merged_snapshots"]] == [story["snap_id"]]
    assert story["minutes_after_previous"] == 4


def test_story_plan_regression_saturates_cpu(client, dbs, stories):
    story = stories["plan_regression"]
    detail = client.get(f"/api/v1/dbs/{dbs['rac']}/sql/{story['sql_id']}?max_points=0").get_json()
    plans = {p["plan_hash_value"]: p for p in detail["plans"]}
    assert set(plans) == {story["good_plan"], story["bad_plan"]}
    got, _ = series(client, dbs["rac"], ["derived:host_cpu_pct"], max_points=0)
    during = [
        v
        for t, v in got["derived:host_cpu_pct"]["points"]
        if story["from"] < t <= story["to"] and "T12:00" <= t[10:16] <= "T16:00"
    ]
    before = [
        v for t, v in got["derived:host_cpu_pct"]["points"] if t < story["from"] and "T12:00" <= t[10:16] <= "T16:00"
    ]
    assert min(during) > 90 > 2 * median(before)
    top = client.get(f"/api/v1/dbs/{dbs['rac']}/top-sql?from={story['from']}&to={story['to']}".replace("+", "%2B"))
    assert top.get_json()["rows"][0]["sql_id"] == story["sql_id"]


def test_story_nightly_batch_reads_direct(client, dbs):
    got, _ = series(client, dbs["rac"], ["system_event:direct path read:time"], max_points=0)
    night = [v for t, v in got["system_event:direct path read:time"]["points"] if t[11:16] in ("02:00", "02:30")]
    day = [v for t, v in got["system_event:direct path read:time"]["points"] if t[11:16] in ("14:00", "14:30")]
    assert median(night) > 20 * max(median(day), 1e-6)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow  # two demo builds: seconds each
def test_same_seed_same_file_and_another_seed_another_history(tmp_path):
    """Built twice with one seed, here and by `flask demo` in a process with another hash seed (no set's order
    leaks into the rows), the demo is the same file byte for byte; another seed draws another history of the same
    workload. Half a day of per-minute detail and ASH (the session's store keeps 8): every part of the generator
    runs, in a fifth of the time."""
    small = {"days": 10, "detail_days": 0.5, "ash_days": 0.5}
    first, again, other = (tmp_path / f"{name}.sqlite" for name in ("first", "again", "other"))
    demo.build(first, **small)
    command = [sys.executable, "-m", "flask", "--app", "app", "demo", "--path", str(again), "--days", "10"]
    command += ["--detail-days", "0.5", "--ash-days", "0.5"]
    env = {**os.environ, "PYTHONHASHSEED": str(1 + (hash("awrlens") % 1000))}  # not this process's
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    assert digest(again) == digest(first)  # byte for byte
    demo.build(other, seed=7, **small)
    assert digest(other) != digest(first)
    for query in (
        "select total(value) from dba_hist_sysstat where stat_name = 'user commits'",
        "select count(*) from dba_hist_active_sess_history",
    ):
        totals = [sqlite3.connect(p).execute(query).fetchone()[0] for p in (first, other)]
        assert totals[0] != totals[1] and totals[1] == pytest.approx(totals[0], rel=0.05), query


@pytest.mark.slow  # a demo build started: over half a second
def test_a_failed_build_leaves_nothing_behind(tmp_path):
    target = tmp_path / "store.sqlite"
    target.write_bytes(b"the previous store")

    def interrupted(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        demo.build(target, days=10, on_progress=interrupted)
    assert target.read_bytes() == b"the previous store"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.sqlite"]
    with pytest.raises(ValueError, match="at least 10 days"):
        demo.build(target, days=3)


# -- the Lambda demo's store: `make package`'s recipe (Makefile), shorter AWR histories than the session's store --

STORIES = (
    test_story_async_io_fix,
    test_story_restart_with_missing_snapshots,
    test_story_manual_snapshot_is_merged,
    test_story_plan_regression_saturates_cpu,
    test_story_nightly_batch_reads_direct,
)


def recipe_flags() -> dict:
    """build()'s arguments as the Makefile's recipe of the demo stage's store gives them to `flask demo`."""
    recipe = (ROOT / "Makefile").read_text().split("$(LAMBDA_STORE):", 1)[1].split("\n\n", 1)[0]
    flags = dict(re.findall(r"--(days|awr-days|detail-days|ash-days|live-minutes) ([\d.]+)", recipe))
    kinds = {"days": int, "awr-days": int, "live-minutes": int}
    out = {k.replace("-", "_"): kinds.get(k, float)(v) for k, v in flags.items()}
    return out | {"ash_totals": "--no-ash-totals" not in recipe}


@pytest.fixture(scope="module")
def lambda_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("lambda") / "demo.sqlite"
    stories = demo.build(path, **recipe_flags())
    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(path)}}))
    body = app.test_client().get("/api/v1/dbs").get_json()
    dbs = {"rac" if d["rac"] else "single": d["id"] for d in body["databases"] if d["source"] == "awr"}
    return path, stories, app, dbs


@pytest.mark.slow  # a demo build: about 10 s
def test_the_lambda_demo_store_keeps_fewer_awr_days_and_every_story(lambda_store, demo_store):
    """The recipe keeps fewer days of the AWR databases than of the history (the Statspack database's); their first
    snapshot is that many days before the newest, each story's snapshots are inside, the static baseline before the
    async I/O fix is its 3 days (baselines.BEFORE_DAYS), and the Statspack database is the session store's, row for
    row (its 10 days: its stories are tests/test_statspack.py's)."""
    flags = recipe_flags()
    assert flags["awr_days"] < flags["days"]
    path, stories, _, _ = lambda_store
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    spans = con.execute(
        "select dbid, julianday(max(end_interval_time)) - julianday(min(end_interval_time)) from dba_hist_snapshot "
        "group by dbid"
    ).fetchall()
    assert {dbid: round(days, 3) for dbid, days in spans} == dict.fromkeys(ids(stories).values(), flags["awr_days"])
    billing = "select round(julianday(max(snap_time)) - julianday(min(snap_time)), 3), count(*) from stats$snapshot"
    assert con.execute(billing).fetchone() == (flags["days"], flags["days"] * 24 + 1)  # hourly
    snaps = {r[0] for r in con.execute("select distinct snap_id from dba_hist_snapshot")}
    node = "select snap_id from dba_hist_snapshot where dbid = ? and instance_number = ?"
    restart = stories["restart"]
    assert set(restart["missing_snap_ids"]).isdisjoint(
        r[0] for r in con.execute(node, (restart["dbid"], restart["instance"]))
    )
    inside = [stories[k]["first_snap_after"] for k in ("async_io_fix", "restart")]
    inside += [
        stories["manual_snapshot"]["snap_id"],
        *(stories["plan_regression"][k] for k in ("begin_snap", "end_snap")),
    ]
    assert set(inside) <= snaps
    (begin,) = con.execute("select start_snap_time from dba_hist_baseline where baseline_name = 'BEFORE_ASYNC_IO_FIX'")
    fix = datetime.fromisoformat(stories["async_io_fix"]["startup_time"]).replace(tzinfo=None)
    assert timedelta(days=3, minutes=-30) < fix - datetime.fromisoformat(begin[0]) <= timedelta(days=3)
    session = sqlite3.connect(f"file:{demo_store[0]}?mode=ro", uri=True)
    for table in ("stats$snapshot", "stats$sysstat", "stats$sql_summary", "stats$system_event"):
        query = f"select * from {table} order by 1, 2, 3, 4"
        assert con.execute(query).fetchall() == session.execute(query).fetchall(), table


@pytest.mark.slow  # the store's build (the test before)
@pytest.mark.parametrize("story", STORIES, ids=lambda f: f.__name__.removeprefix("test_"))
def test_the_lambda_demo_store_tells_each_story(story, lambda_store):
    """Each AWR story, through the API, as the session store tells it."""
    _, stories, app, dbs = lambda_store
    given = {"client": app.test_client(), "dbs": dbs, "stories": stories}
    story(**{k: given[k] for k in inspect.signature(story).parameters})


@pytest.mark.slow  # two `flask demo` processes: over half a second
def test_the_awr_days_are_those_that_hold_the_stories(tmp_path):
    """`flask demo --awr-days`: at least builder.MIN_AWR_DAYS, at most the history's days; refused before any build."""
    target = tmp_path / "store.sqlite"
    for days, awr in ((10, demo.builder.MIN_AWR_DAYS - 1), (10, 11)):
        command = [sys.executable, "-m", "flask", "--app", "app", "demo", "--path", str(target)]
        done = subprocess.run(
            [*command, "--days", str(days), "--awr-days", str(awr)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0 and "the AWR databases need 8 to 10 (the history's) days" in done.stderr
    assert not list(tmp_path.iterdir())
