"""The embedded store runs the statements' SQLite text from app/store/sqlite_statements.json (app/store/sqlite.py):
the file is what the Core statements of app/store/awr/queries/ compile to, each text gives the rows SQLAlchemy gives
running the Core statement, and the page's questions are answered without importing SQLAlchemy (most of a Lambda
cold start: BENCHMARKS.md)."""

import inspect
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from conftest import ROOT
from contract import dbid_of, url
from sqlalchemy import create_engine

from app.settings import Settings
from app.store import sqlite
from app.store.awr import queries

ITEMS = {
    "counter_series": (None, "stat_id"),
    "event_series": ("system_event", "event_id"),  # (view, item column)
    "metric_series": ("sysmetric_summary", "metric_id"),
    "running_sums": (None, None),
    "metric_detail_series": ("sysmetric_history", "metric_id"),
    "event_histogram": ("event_histogram", "event_id"),
}
ASH = {
    "activity",
    "activity_top_coded",
    "activity_top",
    "activity_groups",
    "activity_groups_counted",
    "blocking",
    "sample_spacing",
    "ash_first_snap",
    "ash_total_groups",
    "ash_total_buckets",
    "session_details",
    "activity_group_sessions",
}
REPORTS = {
    "monitored_executions",
    "monitored_execution",
    "stored_awr_reports",
    "stored_awr_report",
    "stored_monitor_report",
}
NO_ROWS = {"containers", "blocking", "plan_returns"}  # non-CDBs: DBA_HIST_PDB_INSTANCE is empty; the blocking chain and
# the good plan's return are older


@pytest.mark.slow  # every statement compiled: over half a second
def test_the_file_holds_what_the_statements_compile_to():
    assert json.loads(sqlite.STATEMENTS.read_text()) == sqlite.statement_texts(), (
        "out of date: flask --app app sql --sqlite > app/store/sqlite_statements.json"
    )


@pytest.mark.slow  # every statement twice on the demo store
def test_each_text_gives_the_rows_sqlalchemy_gives(app, demo_store, dbs, window, stories, sql3):
    """Every statement of the file, with binds that find rows, run by the store and by SQLAlchemy on the same file."""
    store = app.extensions["awrlens"].stores["demo"]
    dbid, (lo, hi) = dbid_of(dbs["rac"]), window
    newest = sql3.execute("select max(snap_id) from dba_hist_snapshot where dbid = ?", (dbid,)).fetchone()[0]
    sql_id = stories["plan_regression"]["sql_id"]
    common = {
        "dbid": dbid,
        "lo": lo,
        "hi": hi,
        "snap_id": hi,
        "snap_ids": [lo, hi],
        "sql_id": sql_id,
        "sql_ids": [sql_id, "none"],
        "names": ["redo size", "DB time", "NUM_CPUS", "user commits", "bytes processed"],
        "con_dbid": dbid,
        "f_instance_0": 1,  # a statement of one instance (top segments'); ASH's set their own below
    }
    every = sqlite.embedded_statements()
    assert {stmt.key for stmt in every} == {k for k in sqlite.TEXTS["statements"] if ":" not in k.split("(")[0]}
    engine = create_engine(f"sqlite:///file:{demo_store[0]}?mode=ro&uri=true")
    with engine.connect() as conn:
        for stmt in every:
            params = dict(common)
            name = stmt.build.__name__
            if name in ("parameter_changes", "new_plans"):  # from the snapshot before the regression's first
                params.update(lo=lo - 1)
            if name == "metric_detail_series":  # per-minute history is kept for the newest days only
                params.update(lo=newest - 4, hi=newest)
            if name in ("metric_detail_series", "event_histogram", "top_segments", "segment_history"):
                params.update(lo=newest - 4, hi=newest)  # per-minute history, histograms, segments: the newest days
            if name == "segment_history":
                params["obj"] = params["dataobj"] = sql3.execute(
                    'select "OBJ#" from dba_hist_seg_stat where dbid = ? and snap_id > ? limit 1', (dbid, newest - 4)
                ).fetchone()[0]
            if name in ASH:  # ASH is kept for the newest days only (docs/awr-rules.md §22)
                first = sql3.execute(
                    "select min(sample_time) from dba_hist_active_sess_history where dbid = ? and snap_id > ?",
                    (dbid, newest - 4),
                ).fetchone()[0]
                params.update(
                    lo=newest - 4,
                    hi=newest,
                    snap_id=newest,
                    width=600,
                    dimension=1,
                    period=1800,
                    t0=datetime.fromisoformat(first).replace(second=0, microsecond=0),
                )
                # a window of sample times inside the snapshots read (docs/awr-rules.md §22)
                params.update(w0=params["t0"] + timedelta(minutes=5), w1=params["t0"] + timedelta(minutes=65))
                inst, sid, serial, sql = sql3.execute(
                    'select instance_number, session_id, "SESSION_SERIAL#", sql_id from dba_hist_active_sess_history '
                    "where dbid = ? and snap_id > ? and sql_id is not null limit 1",
                    (dbid, newest - 4),
                ).fetchone()
                params.update(f_sql_id_0=sql, f_session_0=inst, f_session_1=sid, f_session_2=serial, f_instance_0=inst)
                if name == "ash_total_buckets":
                    params.update(
                        t0=int(params["t0"].replace(tzinfo=UTC).timestamp()),
                        period=60,
                        top=[
                            r[0]
                            for r in sql3.execute(
                                "select distinct code from awrlens_ash_totals where dbid = ? limit 3", (dbid,)
                            )
                        ],
                    )
            if name in REPORTS:  # Oracle's own reports, as the demo keeps them (docs/awr-rules.md §27)
                report_id, key1, snap, generated = sql3.execute(
                    "select report_id, key1, snap_id, generation_time from dba_hist_reports where dbid = ? "
                    "order by report_id limit 1",
                    (dbid,),
                ).fetchone()
                kept = sql3.execute(
                    "select kind, instances, begin_snap, end_snap, begin_snap2, end_snap2, type from "
                    "awrlens_awr_reports where dbid = ? limit 1",
                    (dbid,),
                ).fetchone()
                params.update(
                    report_id=report_id,
                    t0=datetime.fromisoformat(generated) - timedelta(hours=1),
                    t1=datetime.fromisoformat(generated),
                    sql_id=key1,
                    lo=snap - 1,
                    hi=snap,
                    **dict(
                        zip(
                            ("kind", "instances", "begin_snap", "end_snap", "begin_snap2", "end_snap2", "type"),
                            kept,
                            strict=True,
                        )
                    ),
                )
            if name == "wait_chains":  # the demo's blocking chain, its first 16 minutes (docs/awr-rules.md §22)
                lo_b, hi_b, first_b, *blocker = sql3.execute(
                    "select min(snap_id) - 1, max(snap_id), min(sample_time), min(blocking_inst_id), "
                    'min(blocking_session), min("BLOCKING_SESSION_SERIAL#") from dba_hist_active_sess_history '
                    "where dbid = ? and blocking_session is not null",
                    (dbid,),
                ).fetchone()
                start = datetime.fromisoformat(first_b) - timedelta(seconds=1)
                params.update(lo=lo_b, hi=hi_b, w0=start, w1=start + timedelta(minutes=16), f_instance_0=1)
                params.update({f"f_session_{k}": v for k, v in enumerate(blocker)})  # the root blocker's samples
            args = dict(zip(list(inspect.signature(stmt.build).parameters)[1:], stmt.args, strict=True))
            if args.get("live"):  # the live buffer's hour (docs/awr-rules.md §30), its row lock inside
                hour = stories["live"]["databases"][str(dbid)]
                w0, w1 = (datetime.fromisoformat(hour[k]).replace(tzinfo=None) for k in ("from", "to"))
                params.update(w0=w0, w1=w1, t0=w0, width=60)
            if name == "session_details":  # the sessions of the first samples found, as one number each
                params["sessions"] = [
                    (inst << 48) + (sid << 32) + serial
                    for inst, sid, serial in sql3.execute(
                        'select instance_number, session_id, "SESSION_SERIAL#" from dba_hist_active_sess_history '
                        "where dbid = ? and snap_id > ? limit 5",
                        (dbid, params["lo"]),
                    )
                ]
            if name == "plan_line_activity":  # a window of sample times holding the whole range, one instance
                params.update(w0=datetime(2000, 1, 1), w1=datetime(2100, 1, 1), f_instance_0=1)
            if name == "activity_top_coded":  # a window's lists: the blocks' counts less the edges' samples outside
                from app.store.awr.embedded.ash import ash_top_blocks

                params.update(
                    edge_snaps=[params["lo"] + 1, params["hi"]],
                    **{f"blocks_{span}": snaps for span, snaps in ash_top_blocks(params["lo"], params["hi"]).items()},
                )
            if name == "activity_groups_counted":  # ashtop: the inner snapshots' blocks, the edges' samples inside
                from app.store.awr.embedded.ash import ash_top_blocks

                params.update(
                    edge_snaps=[params["lo"] + 1, params["hi"]],
                    **{f"blocks_{span}": s for span, s in ash_top_blocks(params["lo"] + 1, params["hi"] - 1).items()},
                )
            if name in ("object_names", "dictionary_objects"):  # names (docs/awr-rules.md §22)
                params["objs"] = [
                    r[0] for r in sql3.execute('select "OBJ#" from dba_hist_seg_stat_obj where dbid = ?', (dbid,))
                ] + [r[0] for r in sql3.execute("select object_id from dba_objects")]
            if name == "user_names":
                params["users"] = [r[0] for r in sql3.execute("select user_id from dba_users")]
            if name == "service_names":
                params["services"] = [
                    r[0]
                    for r in sql3.execute("select service_name_hash from dba_hist_service_name where dbid = ?", (dbid,))
                ]
            chunks = dict(zip(list(inspect.signature(stmt.build).parameters)[1:], stmt.args, strict=True)).get(
                "chunks", 0
            )
            params.update({f"snap_ids_{k}": [lo, (lo + hi) // 2, hi] for k in range(chunks)})  # a bucket's bounds
            if name == "io_series":
                view, column = stmt.args[0], f"{queries.IO_VIEWS[stmt.args[0]]}_id"
            elif name == "running_sums":
                view = stmt.args[0]
                column = "metric_id" if view == "sysmetric_summary" else "stat_id"
                params["item_id2"] = sql3.execute(
                    "select metric_id from dba_hist_sysmetric_summary where metric_name = 'User Transaction Per Sec'"
                ).fetchone()[0]
            elif name in ITEMS:
                view, column = ITEMS[name][0] or stmt.args[0], ITEMS[name][1]
            if name == "io_series" or name in ITEMS:  # the item with the most rows
                params["item_id"] = sql3.execute(
                    f"select {column} from dba_hist_{view} where dbid = ? group by 1 order by count(*) desc limit 1",
                    (dbid,),
                ).fetchone()[0]
            ours = store.rows(stmt, params)
            theirs = [tuple(r) for r in conn.execute(queries.capped(stmt.core(), Settings.row_cap), params)]
            assert (ours or name in NO_ROWS) and ours == theirs, stmt.key


@pytest.mark.slow  # every Statspack statement run twice: over half a second
def test_each_statspack_text_gives_the_rows_sqlalchemy_gives(app, demo_store, statspack_db, sql3):
    """The Statspack statements of the file (docs/awr-rules.md §31), on the demo's BILLING over its last day: the
    store's texts and SQLAlchemy's compile of the same statements read the same rows, and most of them read some."""
    store = app.extensions["awrlens"].stores["demo"].reading("statspack")
    every = sqlite.embedded_statspack_statements()
    kept = {k for k in sqlite.TEXTS["statements"] if k.startswith(sqlite.STATSPACK_KEY)}
    assert {sqlite.STATSPACK_KEY + stmt.key for stmt in every} == kept and len(kept) > 50
    dbid = dbid_of(statspack_db)
    hi = sql3.execute("select max(snap_id) from stats$snapshot where dbid = ?", (dbid,)).fetchone()[0]
    lo = hi - 24
    (sql_id,) = sql3.execute(
        "select sql_id from stats$sql_summary where dbid = ? and snap_id = ? order by elapsed_time desc limit 1",
        (dbid, hi),
    ).fetchone()
    (obj,) = sql3.execute('select "OBJ#" from stats$seg_stat where dbid = ? and snap_id = ?', (dbid, hi)).fetchone()
    items = {  # (view, the item) -> its id as Statspack keeps it
        "sysstat": 'select "STATISTIC#" from stats$sysstat where name = \'user commits\'',
        "sys_time_model": "select stat_id from stats$time_model_statname where stat_name = 'DB time'",
        "osstat": "select osstat_id from stats$osstatname where stat_name = 'BUSY_TIME'",
        "system_event": "select event_id from v$event_name where name = 'db file sequential read'",
        "iostat_function": "select function_id from stats$iostat_function_name where function_name = 'LGWR'",
    }
    engine = create_engine(f"sqlite:///file:{demo_store[0]}?mode=ro&uri=true")
    found = 0
    with engine.connect() as conn:
        for stmt in every:
            name, args = (
                stmt.build.__name__,
                dict(zip(list(inspect.signature(stmt.build).parameters)[1:], stmt.args, strict=True)),
            )
            view = (
                "system_event"
                if name in ("event_series", "event_histogram", "event_histogram_first")
                else (args.get("view") or "sysstat")
            )
            params = {
                "dbid": dbid,
                "lo": lo,
                "hi": hi,
                "snap_id": hi,
                "snap_ids": [lo, hi],
                "sql_id": sql_id,
                "sql_ids": [sql_id, "none"],
                "names": ["redo size", "DB time", "NUM_CPUS", "user commits", "bytes processed"],
                "con_dbid": dbid,
                "f_instance_0": 1,
                "obj": obj,
                "dataobj": obj,
                "objs": [obj],
                "users": [r[0] for r in sql3.execute("select user_id from dba_users where dbid = ?", (dbid,))],
                "item_id": sql3.execute(items.get(view, items["sysstat"])).fetchone()[0],
                **{f"snap_ids_{k}": [lo, (lo + hi) // 2, hi] for k in range(args.get("chunks") or 0)},
            }
            ours = store.rows(stmt, params)
            theirs = [tuple(r) for r in conn.execute(queries.capped(stmt.core(), Settings.row_cap), params)]
            assert ours == theirs, stmt.key
            found += bool(ours)
    assert found > 0.7 * len(every), found


COLD = """
import json, sys
from app import create_app
from app.settings import Settings
client = create_app(Settings.from_env({}, targets={"demo": {"sqlite": sys.argv[1]}})).test_client()
statuses = [client.get(path).status_code for path in json.loads(sys.argv[2])]
print(json.dumps({"statuses": statuses, "sqlalchemy": sorted(m for m in sys.modules if m.startswith("sqlalchemy"))}))
"""


@pytest.mark.slow  # a Python subprocess: over half a second
def test_the_pages_questions_import_no_sqlalchemy(demo_store, dbs, window, stories):
    """What a cold start on the demo pays: building the app and answering the page's questions reads the store
    through the file's texts, never importing SQLAlchemy (only the runs, show_sql and writes do)."""
    rac, (lo, hi) = dbs["rac"], window
    span = f"begin_snap={lo}&end_snap={hi}"
    paths = [
        "/api/v1/dbs",
        url(rac),
        url(rac, "/snapshots"),
        url(rac, "/catalog"),
        url(rac, "/series?name=derived:aas&instance=each"),
        url(rac, "/series?name=sysmetric:Host CPU Utilization (%)"),
        url(rac, "/series?name=iostat_function:LGWR:megabytes"),
        url(rac, f"/wait-classes?{span}"),
        url(rac, f"/load-profile?{span}"),
        url(rac, f"/top-events?{span}"),
        url(rac, f"/top-sql?{span}"),
        url(rac, f"/sql/{stories['plan_regression']['sql_id']}?{span}"),
        url(rac, f"/tablespaces?{span}"),
        url(rac, f"/compare?a_begin_snap={lo}&a_end_snap={lo + 4}&b_begin_snap={lo + 4}&b_end_snap={hi}"),
    ]
    done = subprocess.run(
        [sys.executable, "-c", COLD, str(demo_store[0]), json.dumps(paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["statuses"] == [200] * len(paths), list(zip(paths, result["statuses"], strict=True))
    assert result["sqlalchemy"] == []
