"""A CDB root on the embedded store: rows of two PDBs (and the root) in the same views, the real API, answers
computed by hand from the rows written here. In a CDB root TS# repeats in every container and one SQL_ID can run in
several PDBs: the tablespace join includes CON_DBID and top SQL keeps one row per container (docs/awr-rules.md §15,
§16). The same store shows the statement-level row cap (a 422 naming how to narrow) and the bounded snapshot list.
"""

import sqlite3

import pytest
from conftest import assert_error
from histories import empty_views
from sqlalchemy import create_engine

from app import create_app
from app.settings import Settings

DBID = 900  # the CDB
ROOT, PDB1, PDB2 = DBID, 901, 902  # CON_DBID of the root and of two PDBs
# DBA_HIST_PDB_INSTANCE: each PDB as opened on each instance; PDB2 was renamed, its newest name counts
PDBS = [
    (PDB1, "SALES", "2026-03-01 00:00:05"),
    (PDB2, "OLDHR", "2026-02-01 00:00:05"),
    (PDB2, "HR", "2026-03-01 00:00:05"),
]
NAMES = {ROOT: "CDB$ROOT", PDB1: "SALES", PDB2: "HR"}
MIB = 1024 * 1024
SNAPS = {1: "2026-03-01 00:00:00", 2: "2026-03-01 00:30:00", 3: "2026-03-01 01:00:00"}
# (container, TS#, name, block size) -> used blocks per snap_id: TS# 1 is in every container, under other names
TABLESPACES = {
    (ROOT, 1, "SYSAUX", 8192): {1: 100, 2: 110, 3: 120},
    (PDB1, 1, "SYSAUX", 8192): {1: 200, 2: 260, 3: 320},
    (PDB2, 1, "APPDATA", 16384): {1: 1000, 2: 1500, 3: 1800},
}
# (container, sql_id, plan) -> (executions, elapsed µs) per interval ending at snap 2 and 3, on instance 1
SQL = {
    (PDB1, "0s4ruwf8v2hxq", 11): {2: (10, 4_000_000), 3: (30, 6_000_000)},
    (PDB2, "0s4ruwf8v2hxq", 11): {2: (5, 9_000_000), 3: (5, 1_000_000)},
    (PDB2, "7h35uxf5uhmm1", 22): {2: (1, 500_000), 3: (0, 0)},
}

# (container, TS#, OBJ#, owner, name) -> logical reads per interval ending at snap 2 and 3: the same TS#, OBJ# and
# DATAOBJ# in two PDBs are two segments
# DBA_HIST_EVENT_HISTOGRAM of one event on instance 1 per container: {snap_id: {bucket: cumulative WAIT_COUNT}};
# the root's rows start at snap 2 (a container whose rows start later, as when AWR begins to capture it); PDB1's bucket
# of 16 ms first gets a wait (and a row) at snap 3
EVENT_ID, EVENT = 2000, "db file sequential read"
HISTOGRAM = {
    PDB1: {1: {1: 100, 4: 10}, 2: {1: 150, 4: 30}, 3: {1: 160, 4: 31, 16: 2}},
    ROOT: {2: {1: 5000, 8: 700}, 3: {1: 5004, 8: 701}},
}

# DBA_HIST_PARAMETER of instance 1: (container, name) -> value per snap_id; each container has its own value, and only
# SALES changes one (at snap 3)
PARAMETERS = {
    (ROOT, "optimizer_index_cost_adj"): {1: "100", 2: "100", 3: "100"},
    (PDB1, "optimizer_index_cost_adj"): {1: "100", 2: "100", 3: "400"},
    (PDB2, "optimizer_index_cost_adj"): {1: "50", 2: "50", 3: "50"},
    (ROOT, "open_cursors"): {1: "300", 2: "300", 3: "300"},
    (PDB1, "open_cursors"): {1: "1000", 2: "1000", 3: "1000"},
}

# DBA_HIST_ACTIVE_SESS_HISTORY: (instance, snap_id, sample_time, SID, serial#, event or None on CPU, blocker as
# (instance, SID, serial#) or None, SQL_ID, USER_ID, CURRENT_OBJ#, container). SID 1801 blocks on both instances: two
# sessions. USER_ID 110 and OBJ# 5000 in both PDBs are two users and two objects.
TX = "enq: TX - row lock contention"
ASH_ROWS = [
    (1, 2, "00:10:00", 100, 1, TX, (1, 1801, 10), "0s4ruwf8v2hxq", 110, 5000, PDB1),
    (1, 2, "00:10:00", 101, 1, TX, (1, 1801, 10), "0s4ruwf8v2hxq", 110, 5000, PDB1),
    (1, 2, "00:20:00", 100, 1, TX, (1, 1801, 10), "0s4ruwf8v2hxq", 110, 5000, PDB1),
    (2, 2, "00:10:00", 200, 1, TX, (2, 1801, 20), "7h35uxf5uhmm1", 110, 5000, PDB2),
    (2, 3, "00:40:00", 200, 1, TX, (2, 1801, 20), "7h35uxf5uhmm1", 110, 5000, PDB2),
    (2, 3, "00:50:00", 201, 1, TX, (2, 1801, 20), "7h35uxf5uhmm1", 110, 5000, PDB2),
    (1, 3, "00:40:00", 1801, 10, None, None, None, 120, None, PDB1),
    (2, 3, "00:40:00", 1801, 20, None, None, None, 120, None, PDB2),
    (1, 3, "00:50:00", 1801, 10, None, None, None, 120, None, PDB1),
]

SEGMENTS = {(PDB1, 4, 5000, "SALES", "ORDERS"): {2: 700, 3: 300}, (PDB2, 4, 5000, "HR", "EMPLOYEES"): {2: 600, 3: 50}}


def build(path):
    empty_views(path)
    con = sqlite3.connect(path)
    for inst in (1, 2):
        con.execute(
            "insert into dba_hist_database_instance (dbid, instance_number, startup_time, parallel, db_name,"
            " instance_name, host_name, version, cdb) values (?,?,?,?,?,?,?,?,?)",
            (DBID, inst, SNAPS[1], "YES", "CDB1", f"CDB1{inst}", f"node{inst}", "19.0.0.0.0", "YES"),
        )
        for snap_id, time in SNAPS.items():
            con.execute(
                "insert into dba_hist_snapshot (snap_id, dbid, instance_number, startup_time, "
                "begin_interval_time, end_interval_time, snap_flag, snap_timezone) values (?,?,?,?,?,?,0,0)",
                (snap_id, DBID, inst, SNAPS[1], SNAPS.get(snap_id - 1, time), time),
            )
        for con_dbid, name, opened in PDBS:
            con.execute(
                "insert into dba_hist_pdb_instance (dbid, instance_number, startup_time, con_dbid, open_time, "
                "open_mode, pdb_name) values (?,?,?,?,?,?,?)",
                (DBID, inst, opened[:10] + " 00:00:00", con_dbid, opened, "READ WRITE", name),
            )
    for (con_dbid, ts, name, block), used in TABLESPACES.items():
        con.execute(
            'insert into dba_hist_tablespace (dbid, "TS#", tsname, contents, block_size, con_dbid) '
            "values (?,?,?,?,?,?)",
            (DBID, ts, name, "PERMANENT", block, con_dbid),
        )
        for snap_id, blocks in used.items():
            con.execute(
                "insert into dba_hist_tbspc_space_usage (dbid, snap_id, tablespace_id, tablespace_size, "
                "tablespace_maxsize, tablespace_usedsize, con_dbid) values (?,?,?,?,?,?,?)",
                (DBID, snap_id, ts, 4000, 8000, blocks, con_dbid),
            )
    for (con_dbid, sql_id, plan), deltas in SQL.items():
        con.execute(
            "insert into dba_hist_sqltext (dbid, sql_id, sql_text, command_type, con_dbid) values (?,?,?,3,?)",
            (DBID, sql_id, f"select /* {sql_id} */ 1 from dual", con_dbid),
        )
        for snap_id, (execs, elapsed) in deltas.items():
            con.execute(
                "insert into dba_hist_sqlstat (snap_id, dbid, instance_number, sql_id, plan_hash_value, "
                "executions_delta, elapsed_time_delta, con_dbid) values (?,?,1,?,?,?,?,?)",
                (snap_id, DBID, sql_id, plan, execs, elapsed, con_dbid),
            )
    for (con_dbid, ts, obj, owner, name), deltas in SEGMENTS.items():
        con.execute(
            'insert into dba_hist_seg_stat_obj (dbid, "TS#", "OBJ#", "DATAOBJ#", owner, object_name, '
            "object_type, tablespace_name, con_dbid) values (?,?,?,?,?,?,?,?,?)",
            (DBID, ts, obj, obj, owner, name, "TABLE", "USERS", con_dbid),
        )
        for snap_id, reads in deltas.items():
            con.execute(
                'insert into dba_hist_seg_stat (snap_id, dbid, instance_number, "TS#", "OBJ#", "DATAOBJ#", '
                "logical_reads_delta, con_dbid) values (?,?,1,?,?,?,?,?)",
                (snap_id, DBID, ts, obj, obj, reads, con_dbid),
            )
    for con_dbid, per_snap in HISTOGRAM.items():
        for snap_id, buckets in per_snap.items():
            for upper, count in buckets.items():
                con.execute(
                    "insert into dba_hist_event_histogram (snap_id, dbid, instance_number, event_id, event_name, "
                    "wait_class, wait_time_milli, wait_count, con_dbid) values (?,?,1,?,?,'User I/O',?,?,?)",
                    (snap_id, DBID, EVENT_ID, EVENT, upper, count, con_dbid),
                )
    for k, (inst, snap_id, at, sid, serial, event, blocker, sql_id, user, obj, con_dbid) in enumerate(ASH_ROWS):
        b_inst, b_sid, b_serial = blocker or (None, None, None)
        con.execute(
            'insert into dba_hist_active_sess_history (snap_id, dbid, instance_number, sample_id, sample_time, '
            'session_id, "SESSION_SERIAL#", session_type, user_id, sql_id, event, wait_class, session_state, '
            'blocking_inst_id, blocking_session, "BLOCKING_SESSION_SERIAL#", "CURRENT_OBJ#", con_dbid) '
            "values (?,?,?,?,?,?,?,'FOREGROUND',?,?,?,?,?,?,?,?,?,?)",
            (
                snap_id,
                DBID,
                inst,
                k,
                "2026-03-01 " + at,
                sid,
                serial,
                user,
                sql_id,
                event,
                "Application" if event else None,
                "WAITING" if event else "ON CPU",
                b_inst,
                b_sid,
                b_serial,
                obj,
                con_dbid,
            ),
        )
    for (con_dbid, name), per_snap in PARAMETERS.items():
        for snap_id, value in per_snap.items():
            con.execute(
                "insert into dba_hist_parameter (snap_id, dbid, instance_number, parameter_hash, parameter_name, "
                "value, isdefault, ismodified, con_dbid) values (?,?,1,?,?,?,'FALSE','FALSE',?)",
                (snap_id, DBID, len(name), name, value, con_dbid),
            )
    for snap_id in SNAPS:
        con.execute(
            "insert into dba_hist_system_event (snap_id, dbid, instance_number, event_id, event_name, wait_class, "
            "total_waits, time_waited_micro, con_dbid) values (?,?,1,?,?,'User I/O',?,?,?)",
            (snap_id, DBID, EVENT_ID, EVENT, 10 * snap_id, 1000 * snap_id, DBID),
        )
    con.commit()
    con.close()


@pytest.fixture(scope="module")
def cdb(tmp_path_factory):
    path = tmp_path_factory.mktemp("cdb") / "cdb.sqlite"
    build(path)
    return path


def client(path, **settings):
    return create_app(
        Settings.from_env({}, targets={"c": {"sqlite": str(path)}}, answer_cache_mb=0, **settings)
    ).test_client()


def test_tablespaces_of_each_container_keep_their_own_name_and_block_size(cdb):
    """TS# 1 in three containers: each usage row is joined to its own container's name and block size. Joined on
    DBID and TS# only, every row would also take the other containers' names (six rows, sizes mixed up)."""
    r = client(cdb).get(f"/api/v1/dbs/c.{DBID}/tablespaces", query_string={"begin_snap": 1, "end_snap": 3})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert "con_dbid" in body["columns"]
    got = {(row["con_dbid"], row["tablespace"]): row for row in body["rows"]}
    assert set(got) == {(con, name) for con, _, name, _ in TABLESPACES}
    for (con, _, name, block), used in TABLESPACES.items():
        row = got[(con, name)]
        assert row["used_mb"] == pytest.approx(used[3] * block / MIB, abs=1e-4)
        assert row["growth_mb"] == pytest.approx((used[3] - used[1]) * block / MIB, abs=1e-4)
        assert row["size_mb"] == pytest.approx(4000 * block / MIB, abs=1e-4)
    series = {(s["con_dbid"], s["tablespace"], s["metric"]) for s in body["series"]}
    assert series == {(con, name, m) for con, _, name, _ in TABLESPACES for m in ("used", "size", "max")}
    assert {(row["con_dbid"], row["container"]) for row in body["rows"]} == set(NAMES.items())
    assert all(s["container"] == NAMES[s["con_dbid"]] for s in body["series"])


def test_top_sql_keeps_one_row_per_container_and_sql_id(cdb):
    """The same SQL_ID in two PDBs is two rows, each with its own container's sums over the intervals (1, 3]."""
    r = client(cdb).get(f"/api/v1/dbs/c.{DBID}/top-sql", query_string={"begin_snap": 1, "end_snap": 3})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert "con_dbid" in body["columns"]
    got = {(row["con_dbid"], row["sql_id"]): row for row in body["rows"]}
    assert set(got) == {(con, sql_id) for con, sql_id, _ in SQL}
    for (con, sql_id, plan), deltas in SQL.items():
        row = got[(con, sql_id)]
        assert row["executions"] == sum(e for e, _ in deltas.values())
        assert row["elapsed_s"] == pytest.approx(sum(t for _, t in deltas.values()) / 1e6, abs=1e-4)
        assert row["plan_hash_values"] == [plan]
        assert row["container"] == NAMES[con]  # the PDB's name as last opened (DBA_HIST_PDB_INSTANCE)
    elapsed = [row["elapsed_s"] for row in body["rows"]]
    assert elapsed == sorted(elapsed, reverse=True)


def test_sql_detail_sums_every_container_or_reads_the_one_asked(cdb):
    """Without con_dbid the detail sums the statement's rows of every container and names them; with one, only
    that container's rows; a CON_DBID that is not one of the database's is a 404 naming its containers."""
    api = client(cdb)
    url = f"/api/v1/dbs/c.{DBID}/sql/0s4ruwf8v2hxq"
    rows = {con: deltas for (con, sql_id, _), deltas in SQL.items() if sql_id == "0s4ruwf8v2hxq"}

    def executions(body):
        return next(p["executions"] for p in body["plans"])

    both = api.get(url, query_string={"begin_snap": 1, "end_snap": 3}).get_json()
    assert both["con_dbid"] is None
    assert both["containers"] == [{"con_dbid": c, "container": NAMES[c]} for c in sorted(rows)]
    assert executions(both) == sum(e for deltas in rows.values() for e, _ in deltas.values())
    for con, deltas in rows.items():
        one = api.get(url, query_string={"begin_snap": 1, "end_snap": 3, "con_dbid": con}).get_json()
        assert one["con_dbid"] == con and one["containers"] == [{"con_dbid": con, "container": NAMES[con]}]
        assert executions(one) == sum(e for e, _ in deltas.values())
    err = assert_error(api.get(url, query_string={"con_dbid": 12345}), 404, "con_dbid")
    assert "12345" in err["message"] and "901 (SALES)" in err["message"], err


def test_a_question_wider_than_the_row_cap_is_a_422_that_says_how_to_narrow_it(cdb):
    """AWRLENS_ROW_CAP = 7: the tablespace statement of (1, 3] returns 9 rows, so the statement, limited to 8, stops
    in the database and the answer is 422 naming the cap and what to narrow; a narrower range answers."""
    api = client(cdb, row_cap=7)
    err = assert_error(api.get(f"/api/v1/dbs/c.{DBID}/tablespaces", query_string={"begin_snap": 1, "end_snap": 3}), 422)
    assert err["code"] == "too_many_rows"
    assert "more than 7 rows" in err["message"] and "AWRLENS_ROW_CAP" in err["message"], err
    assert "from DBA_HIST_TBSPC_SPACE_USAGE" in err["message"] and "narrow" in err["message"], err
    narrow = api.get(f"/api/v1/dbs/c.{DBID}/tablespaces", query_string={"begin_snap": 2, "end_snap": 3, "show_sql": 1})
    assert narrow.status_code == 200, narrow.get_json()
    sent = [s for s in narrow.get_json()["sql"] if "dba_hist_tbspc_space_usage" in s["sql"]]
    assert sent and "LIMIT" in sent[0]["sql"] and "FETCH FIRST 8 ROWS ONLY" in sent[0]["sql_oracle"]


def test_the_snapshot_list_is_bounded_and_keeps_the_newest_whole_snapshots(cdb):
    """AWRLENS_ROW_CAP = 5 bounds the snapshot list to the newest 5 (instance, snapshot) rows of the 6: snap 3 and 2
    of both instances and snap 1 of instance 1 only. A snapshot read for some instances only is left out, so the
    database's history starts at snap 2 on both instances."""
    r = client(cdb, row_cap=5).get(f"/api/v1/dbs/c.{DBID}/snapshots")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    ids = sorted((s["instance"], s["snap_id"]) for s in body["rows"])
    assert ids == [(1, 2), (1, 3), (2, 2), (2, 3)], ids
    whole = client(cdb).get(f"/api/v1/dbs/c.{DBID}/snapshots").get_json()
    assert len(whole["rows"]) == 6


def test_top_segments_keep_one_row_per_container_with_its_own_name(cdb):
    """TS#, OBJ# and DATAOBJ# repeat across PDBs: the name join includes CON_DBID (docs/awr-rules.md §25)."""
    body = client(cdb).get(f"/api/v1/dbs/c.{DBID}/segments", query_string={"begin_snap": 1, "end_snap": 3}).get_json()
    got = [(r["con_dbid"], r["container"], r["owner"], r["object_name"], r["logical_reads"]) for r in body["rows"]]
    assert got == [
        (con, NAMES[con], owner, name, sum(d.values()))
        for (con, _, _, owner, name), d in sorted(SEGMENTS.items(), key=lambda kv: -sum(kv[1].values()))
    ]
    assert body["captured"] == sum(sum(d.values()) for d in SEGMENTS.values())


def test_each_captured_bind_is_listed_once_whatever_the_plans(cdb, tmp_path):
    """Oracle's DBA_HIST_SQLBIND reads the binds of WRH$_SQLSTAT, one row per PLAN_HASH_VALUE, and joins on SQL_ID: a
    snapshot where the statement ran two plans gives each bind twice. Here a plain table without the store's key holds
    such rows (plans 11 and 12 of each container's statement): each captured bind is shown once."""
    path = tmp_path / "binds.sqlite"
    path.write_bytes(cdb.read_bytes())
    con = sqlite3.connect(path)
    con.execute("DROP TABLE dba_hist_sqlbind")
    con.execute(
        "CREATE TABLE dba_hist_sqlbind (snap_id, dbid, instance_number, sql_id, name, position, datatype_string, "
        "was_captured, last_captured, value_string, con_dbid)"
    )
    captured = {(c, s, snap, pos) for c, s, _ in SQL for snap in (2, 3) for pos in (1, 2) if s == "0s4ruwf8v2hxq"}
    for c, sql_id, snap, pos in captured:
        for _plan in (11, 12):
            con.execute(
                "INSERT INTO dba_hist_sqlbind VALUES (?,?,1,?,?,?,'NUMBER','YES',?,?,?)",
                (snap, DBID, sql_id, f":{pos}", pos, SNAPS[snap], f"{c}-{snap}-{pos}", c),
            )
    con.commit()
    con.close()
    body = (
        client(path)
        .get(f"/api/v1/dbs/c.{DBID}/sql/0s4ruwf8v2hxq/binds", query_string={"begin_snap": 1, "end_snap": 3})
        .get_json()
    )
    got = [(r["con_dbid"], r["snap_id"], r["position"], r["value"]) for r in body["rows"]]
    assert sorted(got) == sorted((c, snap, pos, f"{c}-{snap}-{pos}") for c, _, snap, pos in captured)


def test_event_histogram_deltas_are_per_container(cdb):
    """Each container's rows are a counter of their own (docs/awr-rules.md §24): differenced per instance, container
    and bucket, then summed. The root's rows start at snap 2, so interval 2 holds PDB1's waits only; summed over the
    containers first, the root's whole count would read as waits of that interval. A bucket's first row counts 0
    before it where its container has rows: the interval it first appears in keeps its waits."""
    body = (
        client(cdb)
        .get(f"/api/v1/dbs/c.{DBID}/event-histogram", query_string={"event": EVENT, "begin_snap": 1, "end_snap": 3})
        .get_json()
    )
    expected = {}
    for per_snap in HISTOGRAM.values():
        for snap_id, buckets in per_snap.items():
            before = per_snap.get(snap_id - 1)
            for upper, count in buckets.items() if before is not None else ():
                expected.setdefault(snap_id, {}).setdefault(upper, 0)
                expected[snap_id][upper] += count - before.get(upper, 0)
    uppers = [b["wait_time_milli"] for b in body["buckets"]]
    got = {i["snap_id"]: {u: n for u, n in zip(uppers, i["counts"], strict=True) if n} for i in body["intervals"]}
    assert got == {s: {u: n for u, n in b.items() if n} for s, b in expected.items()}, body
    assert got[3][16] == 2


def test_parameter_changes_are_per_container(cdb):
    """A CDB root holds each container's parameters at each snapshot: a change is a value that differs from the same
    container's at the instance's previous snapshot (docs/awr-rules.md §23), so only SALES' change is one; the
    containers' different values are not changes between them."""
    body = (
        client(cdb)
        .get(f"/api/v1/dbs/c.{DBID}/parameters/changes", query_string={"begin_snap": 1, "end_snap": 3})
        .get_json()
    )
    expected = [
        (con, name, snap_id, per_snap[snap_id - 1], value)
        for (con, name), per_snap in PARAMETERS.items()
        for snap_id, value in per_snap.items()
        if snap_id - 1 in per_snap and per_snap[snap_id - 1] != value
    ]
    got = [(r["con_dbid"], r["parameter"], r["snap_id"], r["old_value"], r["new_value"]) for r in body["rows"]]
    assert got == expected == [(PDB1, "optimizer_index_cost_adj", 3, "100", "400")]


def test_a_blocker_is_its_instance_sid_and_serial(cdb):
    """SID 1801 blocks on both instances of the RAC: grouped, and filtered, by (BLOCKING_INST_ID, BLOCKING_SESSION,
    BLOCKING_SESSION_SERIAL#) they are two blockers, each with its own waiters' samples (docs/awr-rules.md §22)."""
    api = client(cdb)
    base = f"/api/v1/dbs/c.{DBID}/activity"
    blocked: dict = {}
    for row in ASH_ROWS:
        if row[6]:
            blocked[row[6]] = blocked.get(row[6], 0) + 1
    body = api.get(base, query_string={"begin_snap": 1, "end_snap": 3, "group_by": "blocking_session"}).get_json()
    got = {s["name"]: s["samples"] for s in body["series"]}
    assert {k: v for k, v in got.items() if k is not None} == {f"{i}:{s},{n}": c for (i, s, n), c in blocked.items()}
    for (i, s, n), count in blocked.items():
        one = api.get(base, query_string={"begin_snap": 1, "end_snap": 3, "blocking_session": f"{i}:{s},{n}"})
        assert one.get_json()["total_samples"] == count
    top = api.get(f"{base}/top", query_string={"begin_snap": 1, "end_snap": 3}).get_json()
    assert {
        (r["blocking_instance"], r["blocking_session"], r["blocking_serial"]): r["samples"] for r in top["blocking"]
    } == blocked


def test_ash_users_and_objects_are_per_container(cdb):
    """USER_ID and CURRENT_OBJ# are ids inside a container: in a CDB root the same ids in two PDBs are two users and two
    objects, named con_dbid:id, and a filter on one keeps its container's samples only (docs/awr-rules.md §22); the
    samples without an object are one group."""
    api = client(cdb)
    base, window = f"/api/v1/dbs/c.{DBID}/activity", {"begin_snap": 1, "end_snap": 3}
    for dimension, position in (("user", 8), ("current_obj", 9)):
        expected: dict = {}
        for row in ASH_ROWS:
            name = None if row[position] is None else f"{row[10]}:{row[position]}"
            expected[name] = expected.get(name, 0) + 1
        body = api.get(base, query_string={**window, "group_by": dimension}).get_json()
        assert {s["name"]: s["samples"] for s in body["series"]} == expected, dimension
        for name, count in expected.items():
            asked = {dimension: name} if name else {"without": dimension}
            assert api.get(base, query_string={**window, **asked}).get_json()["total_samples"] == count, name
    top = api.get(f"{base}/top", query_string=window).get_json()
    objects = {r["name"]: r["samples"] for r in top["lists"]["current_obj"]}
    assert objects == {f"{PDB1}:5000": 3, f"{PDB2}:5000": 3, None: 3}


# DBA_HIST_REPORTS: SQL monitor reports of the one SQL_ID both PDBs run, on instance 1: (REPORT_ID, container,
# SNAP_ID the report ended before, start, end)
MONITORED = [
    (71, PDB1, 2, "2026-03-01 00:05:00", "2026-03-01 00:06:40"),
    (72, PDB2, 2, "2026-03-01 00:12:00", "2026-03-01 00:12:30"),
    (73, PDB1, 3, "2026-03-01 00:40:00", "2026-03-01 00:41:00"),
    (74, PDB2, 3, "2026-03-01 00:45:00", "2026-03-01 00:50:00"),
]


@pytest.fixture(scope="module")
def monitored(cdb, tmp_path_factory):
    """A copy of the CDB store that keeps SQL monitor reports (the AWR_REPORTS table marks a store that keeps them)."""
    from app.store.awr.embedded import reports

    path = tmp_path_factory.mktemp("monitored") / "cdb.sqlite"
    path.write_bytes(cdb.read_bytes())
    engine = create_engine(f"sqlite:///{path}")
    reports.AWR_REPORTS.metadata.create_all(engine)
    engine.dispose()
    con = sqlite3.connect(path)
    for report_id, con_dbid, snap_id, start, end in MONITORED:
        con.execute(
            "insert into dba_hist_reports (snap_id, dbid, instance_number, report_id, component_name, key1, key2, "
            "period_start_time, period_end_time, generation_time, con_dbid) values (?,?,1,?,'sqlmonitor',?,?,?,?,?,?)",
            (snap_id, DBID, report_id, "0s4ruwf8v2hxq", str(report_id), start, end, end, con_dbid),
        )
    con.commit()
    con.close()
    return path


def test_each_containers_monitored_executions_are_its_own(monitored):
    """con_dbid names one container: its list holds its own reports only (DBA_HIST_REPORTS.CON_DBID, §15); without
    it, every container's."""
    api = client(monitored)
    url = f"/api/v1/dbs/c.{DBID}/sql/0s4ruwf8v2hxq/monitor"
    window = {"begin_snap": 1, "end_snap": 3}
    for con_dbid in (PDB1, PDB2):
        body = api.get(url, query_string={**window, "con_dbid": con_dbid}).get_json()
        assert sorted(r["report_id"] for r in body["rows"]) == [m[0] for m in MONITORED if m[1] == con_dbid], body
    body = api.get(url, query_string=window).get_json()
    assert sorted(r["report_id"] for r in body["rows"]) == [m[0] for m in MONITORED]


def test_wait_chains_and_ashtop_in_a_cdb_root_keep_each_containers_ids(cdb):
    """In a CDB root (docs/awr-rules.md §22): SID 1801 on each instance is a root blocker of its own, with its own
    waiters and samples; the object the waiters wait on is the PDB's (con_dbid:obj#), named by the segment AWR keeps
    for that container; a user is the PDB's (con_dbid:user_id), which the root's dictionary does not name. ashtop
    groups users per container too."""
    api = client(cdb)
    window = {"begin_snap": 1, "end_snap": 3}
    body = api.get(f"/api/v1/dbs/c.{DBID}/activity/chains", query_string=window).get_json()
    own: dict = {}
    edges: dict = {}
    for inst, _, _, sid, serial, _, blocker, _, _, obj, con in ASH_ROWS:
        own[inst, sid, serial] = own.get((inst, sid, serial), 0) + 1
        if blocker:
            edges[blocker, (inst, sid, serial)] = (edges.get((blocker, (inst, sid, serial)), (0,))[0] + 1, obj, con)
    roots = [(r["instance"], r["sid"], r["serial"]) for r in body["roots"]]
    assert roots == [(1, 1801, 10), (2, 1801, 20)]  # as many blocked samples behind each: by instance
    names = {(con, obj): f"{owner}.{name}" for (con, _, obj, owner, name) in SEGMENTS}
    for root in body["roots"]:
        key = (root["instance"], root["sid"], root["serial"])
        assert root["samples"] == own[key] and root["user"] == f"{PDB1 if key[0] == 1 else PDB2}:120"
        assert root["user_name"] is None  # a PDB's user: the root's dictionary does not hold it
        waiters = {(w["instance"], w["sid"], w["serial"]): w for w in root["waiters"]}
        assert set(waiters) == {w for b, w in edges if b == key}
        for w, node in waiters.items():
            n, obj, con = edges[key, w]
            assert node["blocked_samples"] == n and node["samples"] == own[w]
            assert [(x["current_obj"], x["object"]) for x in node["waits"]] == [(f"{con}:{obj}", names[con, obj])]
    groups = api.get(f"/api/v1/dbs/c.{DBID}/activity/groups", query_string={**window, "group_by": "user"}).get_json()
    users: dict = {}
    for *_, user, _, con in ASH_ROWS:
        users[f"{con}:{user}"] = users.get(f"{con}:{user}", 0) + 1
    assert {r["user"]: r["samples"] for r in groups["rows"]} == users
