"""Top activity from Active Session History (docs/awr-rules.md §22), against the store's own rows read with sqlite3
(not through the app's statements): AAS per bucket = samples x sample spacing / bucket seconds; and the demo's ASH
agrees with its time model, wait events and top SQL."""

from collections import Counter
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from urllib.parse import quote

import pytest
from contract import lock_window

from app.history import activity

ASH = "dba_hist_active_sess_history"
# A top list's key of a sample row read as (sql_id, instance_number, session_id, SESSION_SERIAL#, module, event,
# CURRENT_OBJ#, session_state), as §22 names its groups.
SAMPLE_KEYS = {
    "sql_id": lambda r: r[0],
    "session": lambda r: f"{r[1]}:{r[2]},{r[3]}",
    "module": lambda r: r[4],
    "event": lambda r: "CPU" if r[7] == "ON CPU" else r[5],
    "current_obj": lambda r: r[6],
}


def _samples(sql3, dbid, lo, hi, where="", params=()):
    return sql3.execute(
        f"SELECT sample_time, session_state, wait_class, event, sql_id, instance_number FROM {ASH} "
        f"WHERE dbid = ? AND snap_id > ? AND snap_id <= ? {where}",
        (dbid, lo, hi, *params),
    ).fetchall()


def _window(sql3, dbid, lo, hi):
    ends = sql3.execute(
        "SELECT snap_id, end_interval_time FROM dba_hist_snapshot WHERE dbid = ? AND snap_id IN (?, ?)", (dbid, lo, hi)
    ).fetchall()
    t0 = min(datetime.fromisoformat(t) for s, t in ends if s == lo)
    t1 = max(datetime.fromisoformat(t) for s, t in ends if s == hi)
    return t0, (t1 - t0).total_seconds()


def ok(api, url):
    r = api.get(url)
    assert r.status_code == 200, (url, r.get_data(as_text=True)[:500])
    return r.get_json()


@pytest.fixture(scope="module")
def rac(summary):
    return next(d for d in summary.values() if d["rac"])


def test_aas_by_wait_class_is_samples_times_ten_over_bucket_seconds(api, sql3, rac):
    base = f"/api/v1/dbs/{rac['id']}/activity"
    last = rac["snapshots"]["last_snap"]
    body = ok(api, f"{base}?begin_snap={last - 12}&end_snap={last}")
    lo, hi = body["range"]["begin_snap"], body["range"]["end_snap"]
    t0, seconds = _window(sql3, rac["dbid"], lo, hi)
    width = body["bucket_seconds"]
    assert width == 30 and body["sample_seconds"] == 10  # 6 hours: 720 buckets at most
    expected: Counter = Counter()
    for t, state, wait_class, *_ in _samples(sql3, rac["dbid"], lo, hi):
        b = int((datetime.fromisoformat(t) - t0).total_seconds()) // width
        expected[("CPU" if state == "ON CPU" else wait_class, b)] += 1
    got = {s["name"]: dict(s["points"]) for s in body["series"]}
    assert set(got) == {g for g, _ in expected}
    for (group, b), n in expected.items():
        time = (t0 + timedelta(seconds=b * width)).isoformat(timespec="seconds") + "+01:00"
        span = min(width, seconds - b * width)
        assert got[group][time] == pytest.approx(n * 10 / span, abs=1e-4), (group, time)
    assert body["total_samples"] == sum(expected.values())


def test_the_time_before_ash_was_kept_has_no_value_not_zero(api, sql3, rac, tz):
    """docs/awr-rules.md §22: the demo keeps ASH for fewer days than its snapshots; over the whole history the buckets
    that start before the first kept snapshot's interval (the earliest instance's end of the snapshot before it) have
    no value, every later one a number, `ash_from` says where, and the AAS is over the seconds ASH covers."""
    base = f"/api/v1/dbs/{rac['id']}/activity"
    lo, hi = rac["snapshots"]["first_snap"], rac["snapshots"]["last_snap"]
    (first_kept,) = sql3.execute(
        "select min(snap_id) from dba_hist_active_sess_history where dbid = ?", (rac["dbid"],)
    ).fetchone()
    assert first_kept > lo + 1  # the case this test is for
    (kept_local,) = sql3.execute(
        "select min(end_interval_time) from dba_hist_snapshot where dbid = ? and snap_id = "
        "(select max(snap_id) from dba_hist_snapshot where dbid = ? and snap_id < ?)",
        (rac["dbid"], rac["dbid"], first_kept),
    ).fetchone()
    kept = datetime.fromisoformat(kept_local).replace(tzinfo=tz[rac["dbid"]])
    body = ok(api, f"{base}?begin_snap={lo}&end_snap={hi}")
    assert datetime.fromisoformat(body["ash_from"]) == kept
    for s in body["series"]:
        for t, v in s["points"]:
            assert (v is None) == (datetime.fromisoformat(t) < kept), (s["name"], t, v)
    t0, seconds = _window(sql3, rac["dbid"], lo, hi)
    covered = seconds - (kept.replace(tzinfo=None) - t0).total_seconds()
    assert body["aas"] == pytest.approx(body["total_samples"] * body["sample_seconds"] / covered, abs=1e-4)
    assert ok(api, f"{base}?begin_snap={first_kept}&end_snap={hi}")["ash_from"] is None  # ASH covers it all


def test_filters_and_the_top_groups_with_other(api, sql3, rac, stories):
    reg = stories["plan_regression"]
    base = f"/api/v1/dbs/{rac['id']}/activity"
    body = ok(
        api,
        f"{base}?begin_snap={reg['begin_snap']}&end_snap={reg['begin_snap'] + 8}&group_by=event&sql_id={reg['sql_id']}",
    )
    rows = _samples(sql3, rac["dbid"], reg["begin_snap"], reg["begin_snap"] + 8, "AND sql_id = ?", (reg["sql_id"],))
    events = Counter("CPU" if state == "ON CPU" else event for _, state, _, event, *_ in rows)
    assert {s["name"]: s["samples"] for s in body["series"]} == dict(events)
    assert body["series"][0]["name"] == "CPU"  # the regressed plan burns CPU
    wide = ok(api, f"{base}?begin_snap={reg['begin_snap']}&end_snap={reg['begin_snap'] + 8}&group_by=sql_id")
    names = [s["name"] for s in wide["series"]]
    assert names[0] == reg["sql_id"] and names[-1] == "other" and len(names) == 11
    all_ids = Counter(r[4] for r in _samples(sql3, rac["dbid"], reg["begin_snap"], reg["begin_snap"] + 8))
    assert wide["series"][-1]["samples"] == sum(n for _, n in all_ids.most_common()[10:])
    assert wide["total_samples"] == sum(all_ids.values())


def test_top_lists_and_the_blocking_chain(api, sql3, rac, stories):
    lock = stories["row_lock"]
    window = f"from={lock['from'][:13]}:00:00&to={lock['to'][:11]}15:30:00"
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity/top?{window}")
    top_event = body["lists"]["event"][0]
    assert top_event["name"] in ("CPU", lock["event"])
    tx = next(r for r in body["lists"]["event"] if r["name"] == lock["event"])
    assert tx["pct_wait"] == 100 and tx["pct_activity"] > 15
    blockers = {(r["blocking_instance"], r["blocking_session"]): r for r in body["blocking"]}
    assert len(blockers) == 2 and all(r["event"] == lock["event"] for r in body["blocking"])
    first = body["blocking"][0]
    assert first["waiters"] == 4 and first["samples"] == 2 * body["blocking"][1]["samples"]
    lo, hi = body["range"]["begin_snap"], body["range"]["end_snap"]
    n = sql3.execute(
        f"SELECT count(*) FROM {ASH} WHERE dbid = ? AND snap_id > ? AND snap_id <= ? AND blocking_session = ?",
        (rac["dbid"], lo, hi, first["blocking_session"]),
    ).fetchone()[0]
    assert first["samples"] == n
    csv = api.get(f"/api/v1/dbs/{rac['id']}/activity/top?{window}&format=csv")
    assert csv.status_code == 200 and csv.data.decode().startswith("list,name,label,samples,aas,pct_activity")


def test_the_wait_chain_of_a_window_inside_the_blocking_afternoon(api, sql3, rac, stories):
    """Issue 31: 14:07-14:23 of the blocking afternoon, read by sample time: the tree of who blocked whom from the
    samples' BLOCKING_INST_ID, BLOCKING_SESSION and BLOCKING_SESSION_SERIAL#: the root blocker (idle in its open
    transaction, never sampled) first, its waiters under it by their blocked samples, and the two sessions behind the
    first waiter under that one; each with its samples in the window and AAS over the window's 960 s, what it did, the
    event and object it waited on (named from DBA_HIST_SEG_STAT_OBJ); the CSV the same tree, depth first."""
    lock = stories["row_lock"]
    day = lock["from"][:10]
    window = lock_window(lock, "14:07", "14:23")
    body = ok(
        api, f"/api/v1/dbs/{rac['id']}/activity/chains?from={window['from']}&to={window['to']}".replace("+", "%2B")
    )
    lo, hi = body["range"]["begin_snap"], body["range"]["end_snap"]
    rows = sql3.execute(
        'SELECT instance_number, session_id, "SESSION_SERIAL#", blocking_inst_id, blocking_session, '
        f'"BLOCKING_SESSION_SERIAL#", session_state, event, "CURRENT_OBJ#", user_id FROM {ASH} '
        "WHERE dbid = ? AND snap_id > ? AND snap_id <= ? AND sample_time > ? AND sample_time <= ?",
        (rac["dbid"], lo, hi, f"{day} 14:07:00", f"{day} 14:23:00"),
    ).fetchall()
    edges, waits = Counter(), {}
    for inst, sid, serial, b_inst, b_sid, b_serial, _, event, obj, _ in rows:
        if b_sid is not None:
            edges[(b_inst, b_sid, b_serial), (inst, sid, serial)] += 1
            waits.setdefault(((b_inst, b_sid, b_serial), (inst, sid, serial)), Counter())[event, obj] += 1
    chained = {k for e in edges for k in e}
    own = Counter((inst, sid, serial) for inst, sid, serial, *_ in rows if (inst, sid, serial) in chained)
    on_cpu = Counter((r[0], r[1], r[2]) for r in rows if r[6] == "ON CPU")
    users = {(r[0], r[1], r[2]): Counter() for r in rows}
    for r in rows:
        users[r[0], r[1], r[2]][r[9]] += 1
    names = dict(
        sql3.execute(
            "SELECT \"OBJ#\", owner || '.' || object_name FROM dba_hist_seg_stat_obj WHERE dbid = ?", (rac["dbid"],)
        ).fetchall()
    )
    roots = {b for b, _ in edges} - {w for _, w in edges}
    assert [(r["instance"], r["sid"], r["serial"]) for r in body["roots"]] == sorted(roots)
    # the story's blocker, sampled once, at 14:05, in the update that took the lock: idle in the window
    assert len(roots) == 1 and body["roots"][0]["sid"] == 1801 and body["roots"][0]["note"]
    assert body["blocked_samples"] == sum(edges.values()) > 0 and body["sessions"] == len(chained) == 7
    expected = []

    def walk(node, above, depth):
        k = (node["instance"], node["sid"], node["serial"])
        expected.append((depth, node["session"], above and "{}:{},{}".format(*above)))
        assert node["samples"] == own[k] and node["aas"] == pytest.approx(own[k] * 10 / 960, abs=1e-4)
        assert node["on_cpu"] == on_cpu[k] and node["more_waiters"] == 0
        assert node["user"] == (users[k].most_common(1)[0][0] if k in users else None)
        below = sorted(((n, w) for (b, w), n in edges.items() if b == k), key=lambda x: (-x[0], x[1]))
        assert [(w["instance"], w["sid"], w["serial"]) for w in node["waiters"]] == [w for _, w in below]
        if above:
            assert node["blocked_samples"] == edges[above, k]
            assert {(w["event"], w["current_obj"], w["object"]): w["samples"] for w in node["waits"]} == {
                (event, obj, names.get(obj)): n for (event, obj), n in waits[above, k].items()
            }
            assert node["waits"][0]["object"] == "APP.INVENTORY"
        for w in node["waiters"]:
            walk(w, k, depth + 1)

    for r in body["roots"]:
        walk(r, None, 0)
    assert [e[0] for e in expected] == [0, 1, 2, 2, 1, 1, 1]  # 1801 > 1802 > (1806, 1807); 1803-1805
    csv = api.get(f"/api/v1/dbs/{rac['id']}/activity/chains", query_string={**window, "format": "csv"})
    lines = csv.data.decode().splitlines()
    assert csv.status_code == 200 and lines[0].startswith("depth,session,blocker,samples,aas")
    assert [tuple(line.split(",")[:1]) for line in lines[1:]] == [(str(d),) for d, _, _ in expected]


def test_ashtop_of_the_blocking_window_by_sql_id_and_event(api, sql3, rac, stories):
    """ashtop over 14:07-14:23 of the blocking afternoon (docs/awr-rules.md §22): the samples grouped by SQL_ID and
    event (CPU on CPU) from the store's rows, each group's samples, distinct sessions, AAS over the window's 960 s,
    share of all the window's samples, first and last sample time; the row lock's statement first; its CSV."""
    lock = stories["row_lock"]
    day = lock["from"][:10]
    window = lock_window(lock, "14:07", "14:23")
    body = ok(
        api,
        f"/api/v1/dbs/{rac['id']}/activity/groups?"
        + "&".join(f"{k}={v.replace('+', '%2B')}" for k, v in window.items()),
    )
    assert body["group_by"] == ["sql_id", "event"]  # the default, as ashtop's
    lo, hi = body["range"]["begin_snap"], body["range"]["end_snap"]
    rows = sql3.execute(
        f"SELECT sql_id, CASE WHEN session_state = 'ON CPU' THEN 'CPU' ELSE event END, count(*), "
        'count(DISTINCT instance_number || \':\' || session_id || \',\' || "SESSION_SERIAL#"), min(sample_time), '
        f"max(sample_time) FROM {ASH} WHERE dbid = ? AND snap_id > ? AND snap_id <= ? AND sample_time > ? "
        "AND sample_time <= ? GROUP BY 1, 2",
        (rac["dbid"], lo, hi, f"{day} 14:07:00", f"{day} 14:23:00"),
    ).fetchall()
    groups = {(sql, event): (n, sessions, first, last) for sql, event, n, sessions, first, last in rows}
    total = sum(g[0] for g in groups.values())
    assert body["total_samples"] == total
    assert [r["samples"] for r in body["rows"]] == sorted((g[0] for g in groups.values()), reverse=True)[:50]
    first = body["rows"][0]
    assert (first["event"], first["sessions"]) == (lock["event"], 6)  # the six waiters of the chain
    for r in body["rows"]:
        n, sessions, seen0, seen1 = groups[r["sql_id"], r["event"]]
        assert (r["samples"], r["sessions"]) == (n, sessions)
        assert r["aas"] == pytest.approx(n * 10 / 960, abs=1e-4)
        assert r["pct_activity"] == pytest.approx(100 * n / total, abs=1e-4)
        assert (
            r["first_seen"][:19].replace("T", " ") == seen0[:19] and r["last_seen"][:19].replace("T", " ") == seen1[:19]
        )
    csv = api.get(f"/api/v1/dbs/{rac['id']}/activity/groups", query_string={**window, "format": "csv"})
    assert csv.status_code == 200 and csv.data.decode().startswith(
        "sql_id,event,sql_id_label,event_label,samples,aas,pct_activity,sessions,first_seen,last_seen"
    )


@pytest.mark.parametrize(
    "hours", [1, 7, pytest.param(30, marks=pytest.mark.slow), pytest.param(8 * 24, marks=pytest.mark.slow)]
)
@pytest.mark.parametrize("instance", [None, "2"])
def test_a_windows_top_lists_from_the_counts_less_its_edges_equal_its_samples(demo_store, rac, hours, instance):
    """A window off the snapshots' grid (docs/awr-rules.md §22): on the embedded store its top lists are the counts
    per block of the snapshots that hold it less the samples of its edge snapshots outside it; the same bytes as the
    window's samples grouped (the store without its counts per block), from an hour to 8 days, for every instance
    or one."""
    from app import create_app
    from app.settings import Settings

    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, answer_cache_mb=0))
    client, store = app.test_client(), app.extensions["awrlens"].stores["demo"]
    end = datetime.fromisoformat(rac["snapshots"]["to"]).replace(hour=15, minute=7, second=0) - timedelta(days=1)
    query = {"from": (end - timedelta(hours=hours, minutes=11)).isoformat(), "to": end.isoformat()}
    if instance:
        query["instance"] = instance
    counted = client.get(f"/api/v1/dbs/{rac['id']}/activity/top", query_string=query)
    store.ash_top = False
    grouped = client.get(f"/api/v1/dbs/{rac['id']}/activity/top", query_string=query)
    assert counted.status_code == grouped.status_code == 200
    assert counted.get_json()["total_samples"] > 0 and counted.data == grouped.data


@pytest.mark.slow  # each question asked twice over up to 8 days of samples: the two ways' bytes
@pytest.mark.parametrize("hours", [1, 7, 30, 8 * 24])
@pytest.mark.parametrize("group_by", ["wait_class", "event", "sql_id"])
@pytest.mark.parametrize("instance", [None, "2"])
def test_a_windows_aas_from_the_totals_and_its_edges_equals_its_samples(demo_store, rac, hours, group_by, instance):
    """A window off the snapshots' grid (docs/awr-rules.md §22): on the embedded store its AAS over time by wait
    class, event or SQL_ID is the totals per minute of the snapshots wholly inside it and the samples of its edge
    snapshots inside it; the same bytes as the window's samples grouped (the store without its totals), from an hour
    (buckets of 10 s: the samples) to 8 days, for every instance or one, and a window not on a minute."""
    from app import create_app
    from app.settings import Settings

    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, answer_cache_mb=0))
    client, store = app.test_client(), app.extensions["awrlens"].stores["demo"]
    end = datetime.fromisoformat(rac["snapshots"]["to"]).replace(hour=15, minute=7, second=0) - timedelta(days=1)
    query = {
        "from": (end - timedelta(hours=hours, minutes=11)).isoformat(),
        "to": end.isoformat(),
        "group_by": group_by,
    }
    if instance:
        query["instance"] = instance
    odd = {**query, "from": (end - timedelta(hours=hours, minutes=11, seconds=7)).isoformat()}  # not on a minute
    counted = [client.get(f"/api/v1/dbs/{rac['id']}/activity", query_string=q) for q in (query, odd)]
    store.ash_totals = False
    grouped = [client.get(f"/api/v1/dbs/{rac['id']}/activity", query_string=q) for q in (query, odd)]
    for a, b in zip(counted, grouped, strict=True):
        assert a.status_code == b.status_code == 200
        assert a.get_json()["total_samples"] > 0 and a.data == b.data
    store.ash_totals = True
    ran = client.get(f"/api/v1/dbs/{rac['id']}/activity", query_string={**query, "show_sql": "1"}).get_json()
    from_totals = any("awrlens_ash_totals" in s["sql"] for s in ran["sql"])
    assert from_totals == (ran["bucket_seconds"] % 60 == 0)  # the totals read where whole minutes make the buckets


ASHTOP_GROUPS = ("sql_id", "sql_id,event", "event")


@pytest.mark.parametrize(
    "hours, instance, groups",
    [
        (30, None, ("sql_id,event",)),
        pytest.param(30, None, ASHTOP_GROUPS, marks=pytest.mark.slow),
        pytest.param(30, "2", ASHTOP_GROUPS, marks=pytest.mark.slow),
        pytest.param(8 * 24, None, ASHTOP_GROUPS, marks=pytest.mark.slow),
    ],
)
def test_ashtop_from_the_counts_per_block_and_session_equals_its_samples(demo_store, rac, hours, instance, groups):
    """ashtop by SQL_ID and event (docs/awr-rules.md §22) on the embedded store over 48 snapshot ids or more: the
    counts per block and session of the snapshots wholly inside the range, and the samples inside a window of the
    snapshots it cuts, give the same bytes as grouping the samples (the store without its counts per block), each
    session counted once over the blocks; a window off the grid and a range of snapshot ids, every instance or one
    (the edit loop: both groupings at once only)."""
    from app import create_app
    from app.settings import Settings

    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, answer_cache_mb=0))
    client, store = app.test_client(), app.extensions["awrlens"].stores["demo"]
    url = f"/api/v1/dbs/{rac['id']}/activity/groups"
    end = datetime.fromisoformat(rac["snapshots"]["to"]).replace(hour=15, minute=7, second=0) - timedelta(days=1)
    last = rac["snapshots"]["last_snap"] - 40
    ranges = [
        {"from": (end - timedelta(hours=hours, minutes=11)).isoformat(), "to": end.isoformat()},
        {"begin_snap": last - 2 * hours - 5, "end_snap": last},  # half-hour snapshots: not on a block's edge
    ]
    asked = [{**r, "group_by": g, **({"instance": instance} if instance else {})} for r in ranges for g in groups]
    counted = [client.get(url, query_string=q) for q in asked]
    shown = client.get(url, query_string={**asked[-1], "show_sql": "1"}).get_json()
    assert any("awrlens_ash_top" in s["sql"] for s in shown["sql"])  # the counts were read
    store.ash_top = False
    grouped = [client.get(url, query_string=q) for q in asked]
    for q, a, b in zip(asked, counted, grouped, strict=True):
        assert a.status_code == b.status_code == 200, q
        assert a.get_json()["rows"] and a.data == b.data, q


@pytest.mark.slow  # each question asked twice over up to 8 days of samples: the two ways' bytes
@pytest.mark.parametrize("hours", [1, 30, 8 * 24])
@pytest.mark.parametrize(
    "group_by", ["sql_id", "sql_id,event", "module,action", "user,program", "session", "current_obj"]
)
def test_ashtop_over_the_coded_samples_equals_ashtop_over_the_view(demo_store, rac, hours, group_by):
    """ashtop (docs/awr-rules.md §22) on the embedded store groups its coded samples in one pass (distinct sessions
    as one number each, each group named once): the same bytes as grouping the view's samples, as on Oracle, for a
    window off the grid from an hour to 8 days, with a filter and without."""
    from app import create_app
    from app.settings import Settings

    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, answer_cache_mb=0))
    client, store = app.test_client(), app.extensions["awrlens"].stores["demo"]
    end = datetime.fromisoformat(rac["snapshots"]["to"]).replace(hour=15, minute=7, second=0) - timedelta(days=1)
    window = {"from": (end - timedelta(hours=hours, minutes=11)).isoformat(), "to": end.isoformat()}
    queries_ = [
        {**window, "group_by": group_by},
        {**window, "group_by": group_by, "wait_class": "CPU", "instance": "2"},
    ]
    coded = [client.get(f"/api/v1/dbs/{rac['id']}/activity/groups", query_string=q) for q in queries_]
    store.ash_coded = False
    view = [client.get(f"/api/v1/dbs/{rac['id']}/activity/groups", query_string=q) for q in queries_]
    for a, b in zip(coded, view, strict=True):
        assert a.status_code == b.status_code == 200
        assert a.get_json()["rows"] and a.data == b.data


@pytest.mark.parametrize("hours", [1, 8 * 24])
def test_the_top_sessions_are_named_by_their_own_samples(api, sql3, rac, hours):
    """Issue 31, names (docs/awr-rules.md §22): each top session (instance, SID, serial#) with the user (named by
    DBA_USERS), program and machine most sampled in the newest WHO_BLOCK snapshot ids of the range read that hold its
    samples of the window (a session keeps them for its life: a day of a week is read, not the week)."""
    from collections import Counter

    from app.history.activity import WHO_BLOCK

    end = datetime.fromisoformat(rac["snapshots"]["to"]).replace(hour=15, minute=7, second=0) - timedelta(days=1)
    window = {"from": (end - timedelta(hours=hours, minutes=11)).isoformat(), "to": end.isoformat()}
    body = api.get(f"/api/v1/dbs/{rac['id']}/activity/top", query_string=window).get_json()
    users = dict(sql3.execute("SELECT user_id, username FROM dba_users WHERE dbid = ?", (rac["dbid"],)).fetchall())
    w0, w1 = (datetime.fromisoformat(window[k]).replace(tzinfo=None).isoformat(sep=" ") for k in ("from", "to"))
    lo, hi = body["range"]["begin_snap"], body["range"]["end_snap"]
    rows = body["lists"]["session"]
    assert len(rows) == 25

    def most(counts):
        return min(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))[0]

    for r in rows:
        inst, _, rest = r["name"].partition(":")
        sid, _, serial = rest.partition(",")
        for top in range(hi, lo, -WHO_BLOCK):  # the newest block that holds the session's samples
            seen = sql3.execute(
                f"SELECT user_id, program, machine FROM {ASH} WHERE dbid = ? AND instance_number = ? "
                'AND session_id = ? AND "SESSION_SERIAL#" = ? AND sample_time > ? AND sample_time <= ? '
                "AND snap_id > ? AND snap_id <= ?",
                (rac["dbid"], int(inst), int(sid), int(serial), w0, w1, max(top - WHO_BLOCK, lo), top),
            ).fetchall()
            if seen:
                break
        user, program, machine = (most(Counter(x[k] for x in seen)) for k in range(3))
        assert (r["user"], r["user_name"], r["program"], r["machine"]) == (user, users[user], program, machine)


@pytest.mark.parametrize(
    "query", ["group_by=nope", "sql_id=<b>x</b>", "session=1:2", "current_obj=abc", "instance=9", "filter=1"]
)
def test_bad_filters_are_refused(api, rac, query):
    r = api.get(f"/api/v1/dbs/{rac['id']}/activity?{query}")
    assert r.status_code == 400 and r.get_json()["error"]["parameter"]


def test_samples_agree_with_db_time_waits_and_top_sql(sql3, rac):
    """Each interval's samples x 10 s ~ its DB time (time model); ON CPU ~ DB CPU; the top SQL_ID by samples is the
    top statement by elapsed time over the same intervals (docs/awr-rules.md §22)."""
    dbid = rac["dbid"]
    hi = rac["snapshots"]["last_snap"]
    lo = hi - 48
    ash = dict(
        sql3.execute(
            f"SELECT snap_id, count(*) FROM {ASH} WHERE dbid = ? AND instance_number = 1 AND "
            "snap_id > ? AND snap_id <= ? GROUP BY snap_id",
            (dbid, lo, hi),
        ).fetchall()
    )
    cpu = dict(
        sql3.execute(
            f"SELECT snap_id, count(*) FROM {ASH} WHERE dbid = ? AND instance_number = 1 AND "
            "snap_id > ? AND snap_id <= ? AND session_state = 'ON CPU' GROUP BY snap_id",
            (dbid, lo, hi),
        ).fetchall()
    )
    model = {}
    for name in ("DB time", "DB CPU"):
        values = dict(
            sql3.execute(
                "SELECT snap_id, value FROM dba_hist_sys_time_model WHERE dbid = ? AND "
                "instance_number = 1 AND stat_name = ? AND snap_id BETWEEN ? AND ?",
                (dbid, name, lo, hi),
            ).fetchall()
        )
        model[name] = {s: (values[s] - values[s - 1]) / 1e6 for s in range(lo + 1, hi + 1)}
    for s in range(lo + 1, hi + 1):
        assert ash[s] * 10 == pytest.approx(model["DB time"][s], rel=0.02, abs=20)
        assert cpu[s] * 10 == pytest.approx(model["DB CPU"][s], rel=0.15, abs=60)
    top_ash = sql3.execute(
        f"SELECT sql_id FROM {ASH} WHERE dbid = ? AND snap_id > ? AND snap_id <= ? AND sql_id "
        "IS NOT NULL GROUP BY sql_id ORDER BY count(*) DESC LIMIT 1",
        (dbid, lo, hi),
    ).fetchone()
    top_sql = sql3.execute(
        "SELECT sql_id FROM dba_hist_sqlstat WHERE dbid = ? AND snap_id > ? AND snap_id <= ? "
        "GROUP BY sql_id ORDER BY sum(elapsed_time_delta) DESC LIMIT 1",
        (dbid, lo, hi),
    ).fetchone()
    assert top_ash == top_sql


@pytest.mark.slow  # minutes: every range shape asked of three stores
def test_activity_from_the_stores_totals_equals_the_samples_grouped(api, summary, demo_store, tmp_path):
    """The embedded store keeps ASH totals per minute and half hour by wait class, event and SQL_ID (embedded.ash.ASH_
    TOTALS, counted when it is built); a store without them groups the samples, as on Oracle. Both answer the same,
    and the demo store reads its totals where the buckets are whole minutes from the range's start and nothing but
    the instance is filtered (issue 13: a week by SQL_ID read 757,000 samples)."""
    import shutil
    import sqlite3

    from app import create_app
    from app.settings import Settings
    from app.store.awr.embedded.ash import ASH_TOTALS

    bare = tmp_path / "bare.sqlite"
    shutil.copy(demo_store[0], bare)
    with sqlite3.connect(bare) as con:
        con.execute(f"drop table {ASH_TOTALS.name}")
    grouped = create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(bare)}})).test_client()
    read = 0
    for db in [d for d in summary.values() if d["source"] == "awr"]:  # Statspack has no ASH
        last = db["snapshots"]["last_snap"]
        for q in (
            {},
            {"begin_snap": last - 2},
            {"begin_snap": last - 48},
            {"begin_snap": last - 200},
            {"begin_snap": last - 384},
            {"begin_snap": last - 100, "end_snap": last - 20},
        ):
            for group_by in ("wait_class", "event", "sql_id", "module"):
                for filters in ({}, {"instance": "1"}):
                    args = {**q, "group_by": group_by, **filters, "show_sql": "1"}
                    kept, plain = (c.get(f"/api/v1/dbs/{db['id']}/activity", query_string=args) for c in (api, grouped))
                    assert kept.status_code == plain.status_code == 200, kept.get_data(as_text=True)[:300]
                    kept, plain = kept.get_json(), plain.get_json()
                    from_totals = any(ASH_TOTALS.name in s["sql"] for s in kept.pop("sql"))
                    assert not any(ASH_TOTALS.name in s["sql"] for s in plain.pop("sql"))
                    assert from_totals == (group_by != "module" and kept["bucket_seconds"] >= 60)
                    read += from_totals
                    assert kept == plain
    assert read >= 20


@pytest.mark.slow  # minutes: every range shape and filter asked of three stores
def test_top_lists_and_plan_lines_from_the_stores_blocks_and_codes_equal_the_samples_grouped(
    api, summary, demo_store, tmp_path, monkeypatch
):
    """The embedded store keeps each top list's samples per instance and block of snapshot ids (embedded.ash.ASH_TOP),
    and its samples coded (embedded.ash.ASH_BASE): top lists unfiltered or for one instance add the blocks, with another
    filter one statement reads the coded samples once (or, when most of them pass, the blocks less those that do
    not); a store without either groups the view's samples in a statement per list, as on Oracle. All answer the
    same for ranges that start and end inside, at and across the blocks' edges, for every kind of filter, and so do
    a statement's plan lines (issue 16: 8 days of top lists grouped 757,000 samples seven times)."""
    import shutil
    import sqlite3

    from app import create_app
    from app.history import activity
    from app.settings import Settings
    from app.store.awr.embedded.ash import ASH_BASE, ASH_TOP, ASH_TOP_SPANS, ASH_TOTALS_NAME
    from app.store.awr.queries import TOP_LISTS

    bare = tmp_path / "bare.sqlite"
    shutil.copy(demo_store[0], bare)
    with sqlite3.connect(bare) as con:
        con.execute(f"drop table {ASH_TOP.name}")
    # the answers are compared, not timed: grouping the view's samples may outlast the call timeout on a busy machine
    roomy = {"call_timeout": 600.0}
    coded, plain = (
        create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(bare)}}, **roomy)) for _ in range(2)
    )
    plain.extensions["awrlens"].stores["demo"].ash_coded = False  # the view's samples, as on Oracle
    clients = (api, coded.test_client(), plain.test_client())
    computed = create_app(  # the answers computed each time: to ask one question both ways of the full store
        Settings.from_env({}, targets={"demo": {"sqlite": str(demo_store[0])}}, answer_cache_mb=0, **roomy)
    ).test_client()
    wide = ASH_TOP_SPANS[0]

    def same(path, args, askers=clients):
        answers = [c.get(path, query_string={**args, "show_sql": "1"}) for c in askers]
        assert len({a.status_code for a in answers}) == 1, [a.get_data(as_text=True)[:300] for a in answers]
        bodies = [a.get_json() for a in answers]
        sql = [b.pop("sql", []) for b in bodies]
        read = [[(ASH_TOP.name in x["sql"], f"{ASH_BASE.name} " in x["sql"]) for x in s] for s in sql]
        assert all(b == bodies[0] for b in bodies), (path, args)
        return answers[0].status_code, bodies[0], read, sql[0]

    minus = 0
    for db in [d for d in summary.values() if d["source"] == "awr"]:  # Statspack has no ASH
        last = db["snapshots"]["last_snap"]
        edge = (last // wide - 1) * wide  # the last snapshot of a wide block
        ranges = [(last - 1, last), (last - 48, last), (edge - 1, edge + 1), (edge - wide, edge), (edge - 7, edge + 13)]
        ranges += [(edge - wide - 5, last - 2), (last - 200, last), (edge + 2, edge + 4)]
        span = {"begin_snap": last - 200, "end_snap": last}
        lists = api.get(f"/api/v1/dbs/{db['id']}/activity/top", query_string=span).get_json()["lists"]
        program = api.get(f"/api/v1/dbs/{db['id']}/activity", query_string={**span, "group_by": "program"})
        common = program.get_json()["series"][0]["name"]  # the program most samples hold
        filtered = [
            {"module": lists["module"][0]["name"]},
            {"wait_class": "CPU", "instance": "1"},
            {"event": lists["event"][1]["name"]},
            {"sql_id": lists["sql_id"][0]["name"] or lists["sql_id"][1]["name"]},
            {"session": lists["session"][0]["name"]},
            {"user": "107"},
            {"sql_id": "zzzzzzzzzzzzz"},  # no sample holds it
            {"program": common},
            {"program": common, "instance": "1"},
            {"program": common, "module": lists["module"][0]["name"]},
            {"module": lists["module"][0]["name"], "event": lists["event"][1]["name"]},  # samples where module is null
        ]
        sql_ids = {r["name"] for r in lists["sql_id"][:4] if r["name"]}
        for n, (lo, hi) in enumerate(ranges):
            short = n in (0, 2, 4)  # every filter over the short ranges, at and across the edges: the view is slow
            # the view's samples grouped (plain) over the short ranges; the blocks against the codes over them all
            askers = clients if short else clients[:2]
            for filters in [{}, {"instance": "1"}, {"instance": "2"}] + (filtered if short else []):
                status, body, read, _ = same(
                    f"/api/v1/dbs/{db['id']}/activity/top", {"begin_snap": lo, "end_snap": hi, **filters}, askers
                )
                if "2" in filters.values() and not db["rac"]:
                    assert status == 400
                    continue
                assert status == 200 and (body["lists"]["sql_id"] or filters.get("sql_id", "").startswith("z"))
                kept, by_codes, *by_view = ([sum(r) for r in zip(*x, strict=True)] or [0, 0] for x in read)
                blocks = set(filters) <= {"instance"}
                # blocks and their ends' samples; or the share that passes, then the samples or the blocks less them
                assert kept == [2 + len(TOP_LISTS)] * 2 if blocks else kept in ([0, 2], [1, 2])
                assert by_codes == [0, 1] and by_view in ([], [[0, 0]])
                minus += kept == [1, 2]
                if not blocks:  # the blocks less the samples that do not pass, and the samples that pass: the same
                    for most in (True, False):
                        monkeypatch.setattr(activity, "_mostly_passing", lambda *_, most=most: most)
                        args = {"begin_snap": lo, "end_snap": hi, **filters}
                        asked = computed.get(f"/api/v1/dbs/{db['id']}/activity/top", query_string=args)
                        assert asked.get_json() == body, (args, most)
                    monkeypatch.undo()
            for filters in [{}, {"instance": "1"}, *filtered[:4]] if n in (0, 4) else []:
                for group_by in ("wait_class", "module", "session", "current_obj", "sql_id"):
                    args = {"begin_snap": lo, "end_snap": hi, "group_by": group_by, **filters}
                    status, body, read, kept_sql = same(f"/api/v1/dbs/{db['id']}/activity", args)
                    assert status == 200 and body["series"], args
                    totals = any(ASH_TOTALS_NAME in x["sql"] for x in kept_sql)  # from them (the test above)
                    assert [any(x[1] for x in r) for r in read] == [True, True, False] or totals
                    # many groups: their samples over the range from the blocks, then the buckets of the shown ones
                    many = group_by in activity.MANY_GROUPS and set(filters) <= {"instance"} and not totals
                    assert [any(x[0] for x in r) for r in read] == [many, False, False], args
            for sql_id in sorted(sql_ids):
                status, _, read, _ = same(
                    f"/api/v1/dbs/{db['id']}/sql/{sql_id}/plans", {"begin_snap": lo, "end_snap": hi}, askers
                )
                assert status == 200 and any(x[0] for x in read[0]) and not any(x[0] for x in read[-1])
    assert minus  # most samples passed some of the filters


@pytest.mark.parametrize("seed", range(5))
def test_the_blocks_of_a_range_are_aligned_and_cover_its_intervals_once(seed):
    """embedded.ash.ash_top_blocks: each block of span s (a kept span, or 1: a snapshot's samples) starts at a multiple
    of s + 1, together they hold every snapshot id of (lo, hi] exactly once, and they are few: at most one block of a
    span short of the next wider one on each side."""
    import random

    from app.store.awr.embedded.ash import ASH_TOP_SPANS, ash_top_blocks

    spans = (*ASH_TOP_SPANS, 1)
    rng = random.Random(seed)
    for _ in range(200):
        lo = rng.randint(0, 3000)
        hi = lo + rng.choice([0, 1, 2, 5, 6, 7, 47, 48, 49, 96, 300, rng.randint(0, 2000)])
        blocks = ash_top_blocks(lo, hi)
        held = Counter()
        for span, firsts in blocks.items():
            assert span in spans
            for first in firsts:
                assert (first - 1) % span == 0
                held.update(range(first, first + span))
        assert held == Counter(range(lo + 1, hi + 1)), (lo, hi)
        wider = [spans[k] // spans[k + 1] - 1 for k in range(len(spans) - 1)]  # at most, per side
        assert sum(map(len, blocks.values())) <= 2 * sum(wider) + (hi - lo) // spans[0]


def test_the_default_range_is_the_7_days_before_the_newest_snapshot(api, rac):
    """One default everywhere it is stated (docs/awr-rules.md §12, the OpenAPI document's `from`, the page's 7d)."""
    for path in ("activity", "activity/top"):
        echoed = ok(api, f"/api/v1/dbs/{rac['id']}/{path}")["range"]
        seconds = (datetime.fromisoformat(echoed["to"]) - datetime.fromisoformat(echoed["from"])).total_seconds()
        assert seconds == 7 * 86400, (path, echoed)


@pytest.mark.parametrize(
    ("dimension", "column", "group"), [("sql_id", "sql_id", "no SQL"), ("current_obj", '"CURRENT_OBJ#"', "no object")]
)
def test_samples_without_a_value_are_a_named_group_and_a_filter(api, sql3, rac, dimension, column, group):
    """The samples whose SQL_ID (CURRENT_OBJ#) is NULL are one group, named for a DBA ("no SQL", "no object"), ranked
    by their samples; `without=` keeps exactly those samples (counted here from the store's rows)."""
    last = rac["snapshots"]["last_snap"]
    lo, hi = last - 48, last
    where = f"dbid = ? AND snap_id > ? AND snap_id <= ? AND {column} IS NULL"
    (n,) = sql3.execute(f"SELECT count(*) FROM {ASH} WHERE {where}", (rac["dbid"], lo, hi)).fetchone()
    assert n > 0
    top = ok(api, f"/api/v1/dbs/{rac['id']}/activity/top?begin_snap={lo}&end_snap={hi}")
    rows = [r for r in top["lists"][dimension] if r["name"] is None]
    assert [(r["label"], r["samples"]) for r in rows] == [(group, n)]
    if dimension == "sql_id":  # a SQL_ID is its own label; objects are labelled by name (tests/test_names.py)
        assert all(r["label"] == r["name"] for r in top["lists"][dimension] if r["name"] is not None)
    only = ok(api, f"/api/v1/dbs/{rac['id']}/activity?begin_snap={lo}&end_snap={hi}&without={dimension}")
    assert only["total_samples"] == n and only["filters"] == {dimension: None}
    by = ok(api, f"/api/v1/dbs/{rac['id']}/activity?begin_snap={lo}&end_snap={hi}&group_by={dimension}")
    assert [(s["label"], s["samples"]) for s in by["series"] if s["name"] is None] == [(group, n)]
    listed = ok(api, f"/api/v1/dbs/{rac['id']}/activity/top?begin_snap={lo}&end_snap={hi}&without={dimension}")
    assert [(r["label"], r["samples"]) for r in listed["lists"][dimension]] == [(group, n)]


@pytest.mark.slow  # seconds, not the edit loop's milliseconds
def test_every_filter_answered_from_the_totals_equals_the_samples_grouped(demo_store, rac, stories, monkeypatch):
    """§22: the store's ASH totals answer /activity by wait class, event or SQL_ID only without a filter or with
    `instance` alone; with any other filter (each dimension, `without`, a filter beside the instance) the answer must
    be the one the raw samples give (the same store with its totals hidden)."""
    from app import create_app
    from app.settings import Settings
    from app.store.awr.embedded.ash import ASH_TOTAL_DIMENSIONS, ASH_TOTALS
    from app.store.awr.queries.ash import DIMENSIONS

    def client(totals):
        app = create_app(Settings.from_env({}, answer_cache_mb=0, targets={"demo": {"sqlite": str(demo_store[0])}}))
        if not totals:
            monkeypatch.setattr(app.extensions["awrlens"].stores["demo"], "ash_totals", False)
        return app.test_client()

    kept, raw = client(True), client(False)
    base = f"/api/v1/dbs/{rac['id']}/activity"
    day = stories["row_lock"]["from"][:10]  # the row lock's day, with the nightly batch: every dimension has a value
    after = (date.fromisoformat(day) + timedelta(days=1)).isoformat()  # on snapshots: the totals may serve
    window = {"from": f"{day}T00:00:00+01:00", "to": f"{after}T00:00:00+01:00", "show_sql": "1"}

    def ask(api, **query):
        resp = api.get(base, query_string={**window, **query})
        assert resp.status_code == 200, (query, resp.get_data(as_text=True)[:300])
        body = resp.get_json()
        return body, any(ASH_TOTALS.name in s["sql"] for s in body.pop("sql"))

    assert ask(kept, group_by="event")[1] and ask(kept, group_by="event", instance="2")[1]  # the check: they serve
    asked = []
    for dimension in DIMENSIONS:
        if dimension == "instance":
            continue
        named = [s["name"] for s in ask(raw, group_by=dimension)[0]["series"] if s["name"] is not None]
        asked.append({dimension: str(named[0])})
    asked += [{"without": "module"}, {"without": "sql_id"}, {"instance": "1", "wait_class": "CPU"}]
    for n, filters in enumerate(asked):
        group_by = ASH_TOTAL_DIMENSIONS[n % len(ASH_TOTAL_DIMENSIONS)]
        answer, from_totals = ask(kept, group_by=group_by, **filters)
        assert answer == ask(raw, group_by=group_by, **filters)[0], (group_by, filters)
        assert not from_totals, filters


# -- the parts of §22 on values worked out by hand ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "width"),
    [(0, 10), (7200, 10), (7201, 30), (21600, 30), (21601, 60), (720 * 86400, 86400), (721 * 86400, 86400)],
)
def test_the_bucket_is_the_narrowest_width_giving_at_most_720(seconds, width):
    """§22.1: 720 buckets of 10 s are 2 hours exactly; a second more takes 30 s buckets. Beyond 720 days no width
    gives 720 buckets or fewer: the widest there is, a day."""
    from app.history.activity import width_for

    assert width_for(seconds) == width


@pytest.mark.parametrize(
    ("filters", "binds"),
    [
        ({"sql_id": "7h35uxf5uhmm1"}, {"f_sql_id_0": "7h35uxf5uhmm1"}),
        ({"session": "1:1802,4127"}, {"f_session_0": 1, "f_session_1": 1802, "f_session_2": 4127}),
        ({"blocking_session": "2:7,9"}, {f"f_blocking_session_{k}": v for k, v in enumerate((2, 7, 9))}),
        ({"user": "107"}, {"f_user_0": 4242, "f_user_1": 107}),  # an id alone: the database's own container
        ({"current_obj": "901:-5000"}, {"f_current_obj_0": 901, "f_current_obj_1": -5000}),
        ({"service": "-9223372036854775808"}, {"f_service_0": -(2**63)}),  # the columns' range, both ends
        ({"sql_plan_hash_value": "9223372036854775807"}, {"f_sql_plan_hash_value_0": 2**63 - 1}),
        ({"sql_id": None}, {"f_sql_id_0": None}),  # without=: every column of the dimension null
        ({"user": None}, {"f_user_0": None, "f_user_1": None}),
        ({"session": None}, {"f_session_0": None, "f_session_1": None, "f_session_2": None}),
        ({"module": "m", "instance": "2"}, {"f_module_0": "m", "f_instance_0": 2}),
    ],
)
def test_a_filter_binds_its_columns_values(filters, binds):
    """§22: a session is instance:sid,serial#; a user or an object (CON_DBID, id), an id alone the database's own
    container's; a number where the column is one; `without=` binds null to each of the dimension's columns."""
    from app.history.activity import filter_binds

    assert filter_binds(filters, 4242) == binds


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("session", "1:1802", "instance:sid,serial#"),
        ("blocking_session", "x:1,2", "instance:sid,serial#"),
        ("instance", "one", "a whole number"),
        ("service", "١٢", "a whole number"),  # Arabic-Indic digits: not the ASCII digits of a number
        ("user", "4:", "a whole number"),
        ("current_obj", "1:-", "a whole number"),
        ("service", "9223372036854775808", "out of range"),  # 2^63: past the columns' range
        ("sql_plan_hash_value", "-9223372036854775809", "out of range"),
        ("session", "1:2,9223372036854775808", "out of range"),
    ],
)
def test_a_filter_that_is_not_its_columns_value_is_refused_naming_it(name, value, says):
    from app.errors import BadParameter
    from app.history.activity import filter_binds

    with pytest.raises(BadParameter) as refused:
        filter_binds({name: value}, 4242)
    assert refused.value.parameter == name
    assert says in refused.value.message and repr(value) in refused.value.message


def test_a_group_is_named_as_a_dba_reads_it():
    """§22: a session instance:sid,serial#; a user or an object its id in the database's own container (or where the
    container is unknown), con_dbid:id in another; the samples without a value are a group whose name is null and
    whose label names it."""
    from app.history.activity import label, named

    assert label("session", (1, 1802, 4127), 42) == "1:1802,4127"
    assert label("blocking_session", (2, None, None), 42) is None
    assert label("user", (42, 107), 42) == 107
    assert label("user", (None, 107), 42) == 107
    assert label("current_obj", (901, 5000), 42) == "901:5000"
    assert label("current_obj", (901, None), 42) is None
    assert label("sql_id", ("7h35uxf5uhmm1",), 42) == "7h35uxf5uhmm1"
    nulls = [named(d, None) for d in ("sql_id", "blocking_session", "current_obj")]
    assert nulls == ["no SQL", "not blocked", "no object"]
    assert named("sql_id", "7h35uxf5uhmm1") == "7h35uxf5uhmm1" and named("event", "CPU") == "CPU"


@pytest.mark.parametrize("filters", [{}, {"instance": "2"}, {"wait_class": "Application"}])
def test_each_top_list_row_is_its_samples_aas_and_shares(api, sql3, rac, stories, filters):
    """§22, top lists: per group its samples, AAS = samples x spacing / the range's seconds, % of the range's samples
    (those passing the filters) and the shares of its samples on CPU and waiting; per blocker and event its waiters'
    samples, the distinct waiting sessions and their AAS; over the row lock's hours, counted from the store's rows."""
    lock = stories["row_lock"]
    start = datetime.fromisoformat(lock["from"]).replace(tzinfo=None)
    ends = sql3.execute("SELECT snap_id, end_interval_time FROM dba_hist_snapshot WHERE dbid = ?", (rac["dbid"],))
    lo = max(snap for snap, end in ends if datetime.fromisoformat(end) <= start)
    hi = lo + 4
    extra = "".join(f"&{k}={v}" for k, v in filters.items())
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity/top?begin_snap={lo}&end_snap={hi}{extra}")
    _, seconds = _window(sql3, rac["dbid"], lo, hi)
    where = "".join(f" AND {'instance_number' if k == 'instance' else k} = ?" for k in filters)
    rows = sql3.execute(
        f'SELECT sql_id, instance_number, session_id, "SESSION_SERIAL#", module, event, "CURRENT_OBJ#", '
        f"session_state FROM {ASH} WHERE dbid = ? AND snap_id > ? AND snap_id <= ?{where}",
        (rac["dbid"], lo, hi, *filters.values()),
    ).fetchall()
    keys = SAMPLE_KEYS
    assert body["total_samples"] == len(rows) > 0 and body["sample_seconds"] == 10 and body["cpu_label"] == "CPU"
    for name, key in keys.items():
        samples, cpu = Counter(key(r) for r in rows), Counter(key(r) for r in rows if r[7] == "ON CPU")
        listed = body["lists"][name]
        assert (
            len(listed) == min(25, len(samples))
            and [r["samples"] for r in listed] == sorted((n for n in samples.values()), reverse=True)[:25]
        ), name
        for r in listed:
            n = samples[r["name"]]
            assert r["samples"] == n, (name, r)
            assert r["aas"] == pytest.approx(n * 10 / seconds, abs=1e-4)
            assert r["pct_activity"] == pytest.approx(100 * n / len(rows), abs=1e-4)
            assert r["pct_cpu"] == pytest.approx(100 * cpu[r["name"]] / n, abs=1e-4)
            assert r["pct_wait"] == pytest.approx(100 * (n - cpu[r["name"]]) / n, abs=1e-4)
    blockers = sql3.execute(
        f'SELECT blocking_inst_id, blocking_session, "BLOCKING_SESSION_SERIAL#", event, count(*), '
        f"count(DISTINCT session_id) FROM {ASH} WHERE dbid = ? AND snap_id > ? AND snap_id <= ?{where} AND "
        "blocking_session IS NOT NULL GROUP BY 1, 2, 3, 4",
        (rac["dbid"], lo, hi, *filters.values()),
    ).fetchall()
    assert blockers or filters.get("instance")  # the row lock's waiters (instance 1's)
    fields = ("blocking_instance", "blocking_session", "blocking_serial", "event", "samples", "waiters")
    assert sorted(tuple(b[f] for f in fields) for b in body["blocking"]) == sorted(blockers)
    for b in body["blocking"]:
        assert b["aas"] == pytest.approx(b["samples"] * 10 / seconds, abs=1e-4)
    assert body["columns"] == ["list", "name", "label", "samples", "aas", "pct_activity", "pct_cpu", "pct_wait"]
    assert body["db"] == rac["id"] and body["filters"] == filters and "reason" not in body


class _Counted:
    """A database whose one statement counts `samples` samples of which `passing` pass the filters, and keeps what
    it was asked with (the snapshot ids)."""

    def __init__(self, samples, passing):
        from types import SimpleNamespace

        from app.store.awr.views import views

        self.store, self.counts, self.asked = SimpleNamespace(views=views()), (samples, passing), []

    def rows(self, stmt, **binds):
        self.asked.append(binds)
        return [self.counts]


@pytest.mark.parametrize(
    ("lo", "hi", "snaps"),
    [
        (100, 101, [101]),
        (100, 102, [101, 102]),
        (100, 103, [101, 102, 103]),
        (100, 112, list(range(101, 113))),
        (0, 111, [1, 11, 21, 31, 41, 51, 61, 71, 81, 91, 101, 111]),  # 12 ids, first and last intervals included
    ],
)
def test_whether_most_samples_pass_is_seen_over_12_snapshots_spread_over_the_range(lo, hi, snaps):
    """§22: most samples pass the filters when more than half of those of 12 snapshot ids spread over the range's
    intervals (lo, hi] do (all of them in a range of 12 or fewer); half is not most."""
    from app.history.activity import Range, _mostly_passing

    rng = Range(lo, hi, None, None, True)
    for samples, passing, most in ((10, 6, True), (10, 5, False), (11, 6, True), (0, 0, False)):
        db = _Counted(samples, passing)
        assert _mostly_passing(db, rng, ("module",), {"f_module_0": "m"}) is most
        assert db.asked == [{"snaps": snaps, "f_module_0": "m"}]


def test_the_12_snapshots_that_tell_whether_most_samples_pass_are_whole_ids_evenly_spread():
    """§22: over a range of 199 intervals, 12 snapshot ids of (lo, hi], the first and the last interval's among
    them, whole ids a step of 18 or 19 apart (199 / 11 = 18.09)."""
    from app.history.activity import Range, _mostly_passing

    db = _Counted(10, 9)
    assert _mostly_passing(db, Range(0, 200, None, None, True), ("module",), {})
    (snaps,) = (asked["snaps"] for asked in db.asked)
    assert len(snaps) == 12 and snaps[0] == 1 and snaps[-1] == 200 and all(type(s) is int for s in snaps)
    assert {b - a for a, b in pairwise(snaps)} <= {18, 19}


@pytest.mark.parametrize(
    ("group_by", "span", "filters"),
    [
        ("module", 24, {}),  # the samples grouped (no totals nor blocks keep modules)
        ("session", 12, {}),  # thousands of groups: their samples from the blocks, then the buckets
        ("event", 24, {"instance": "2"}),  # minute buckets from the range's whole minute: the totals
        ("sql_id", 12, {"wait_class": "User I/O"}),  # a filter: the samples grouped
    ],
)
def test_every_bucket_of_the_top_groups_and_of_other_is_its_samples_aas(api, sql3, rac, group_by, span, filters):
    """§22.1-4, counted here from the store's rows: per group and bucket AAS = samples x 10 / the bucket's seconds;
    the 10 groups shown are ones with the most samples, largest first, each named and labelled; `other` adds up the
    rest, bucket by bucket; the answer's unit is sessions and its AAS all samples x 10 / the range's seconds."""
    last = rac["snapshots"]["last_snap"]
    lo, hi = last - span, last
    extra = "".join(f"&{k}={v}" for k, v in filters.items())
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity?begin_snap={lo}&end_snap={hi}&group_by={group_by}{extra}")
    t0, seconds = _window(sql3, rac["dbid"], lo, hi)
    width = body["bucket_seconds"]
    count = -int(-seconds // width)
    where = "".join(f" AND {'instance_number' if k == 'instance' else k} = ?" for k in filters)
    rows = sql3.execute(
        f'SELECT sample_time, session_state, event, sql_id, module, instance_number, session_id, "SESSION_SERIAL#" '
        f"FROM {ASH} WHERE dbid = ? AND snap_id > ? AND snap_id <= ?{where}",
        (rac["dbid"], lo, hi, *filters.values()),
    ).fetchall()
    key = {
        "module": lambda r: r[4],
        "session": lambda r: f"{r[5]}:{r[6]},{r[7]}",
        "event": lambda r: "CPU" if r[1] == "ON CPU" else r[2],
        "sql_id": lambda r: r[3],
    }[group_by]
    per: dict = {}
    for r in rows:
        b = min(int((datetime.fromisoformat(r[0]) - t0).total_seconds()) // width, count - 1)
        per.setdefault(key(r), Counter())[b] += 1
    totals = {g: sum(c.values()) for g, c in per.items()}
    shown = [s["name"] for s in body["series"] if s["name"] != "other"]
    rest = [g for g in per if g not in shown]
    assert len(shown) == min(10, len(per)) and set(shown) <= set(per)
    assert [totals[g] for g in shown] == sorted((totals[g] for g in shown), reverse=True)
    assert min(totals[g] for g in shown) >= max((totals[g] for g in rest), default=0)
    if rest:
        per["other"], totals["other"] = sum((per[g] for g in rest), Counter()), sum(totals[g] for g in rest)
    assert [s["name"] for s in body["series"]] == shown + (["other"] if rest else [])
    starts = [(t0 + timedelta(seconds=b * width)).isoformat(timespec="seconds") + "+01:00" for b in range(count)]
    for s in body["series"]:
        want = [per[s["name"]][b] * 10 / min(width, seconds - b * width) for b in range(count)]
        assert [t for t, _ in s["points"]] == starts and s["unit"] == "sessions" and s["samples"] == totals[s["name"]]
        assert [v for _, v in s["points"]] == pytest.approx(want, abs=1e-4), s["name"]
        assert s["label"] == ({"module": "no module", "sql_id": "no SQL"}[group_by] if s["name"] is None else s["name"])
    assert (body["group_by"], body["filters"], body["unit"]) == (group_by, filters, "sessions")
    assert body["total_samples"] == len(rows) and body["aas"] == pytest.approx(len(rows) * 10 / seconds, abs=1e-4)
    assert body["db"] == rac["id"] and (body["range"]["begin_snap"], body["range"]["end_snap"]) == (lo, hi)


@pytest.mark.parametrize("path", ["activity", "activity/top"])
def test_a_range_of_one_snapshot_holds_no_interval_and_no_sample(api, rac, path):
    """§12: begin_snap = end_snap is a range without an interval: no sample, and the answer says why."""
    last = rac["snapshots"]["last_snap"]
    body = ok(api, f"/api/v1/dbs/{rac['id']}/{path}?begin_snap={last - 3}&end_snap={last - 3}")
    assert body["reason"] == "the range holds no interval"
    lists = body.get("lists", {})
    assert body.get("series", []) == [] and all(v == [] for v in lists.values()) and body.get("blocking", []) == []
    assert set(lists) == (set() if path == "activity" else {"sql_id", "session", "module", "event", "current_obj"})
    assert body.get("total_samples", 0) == 0 and body.get("bucket_seconds") is None


def _late_ash_history(busy_before: bool):
    """One instance, 12 half-hour snapshots; ASH samples (one ON CPU every 10 s) only in the intervals ending at
    snapshots 8 to 12; DB time rises by a session's worth each interval from snapshot 8, and before it by as much
    (ASH not kept: busy_before) or not at all (idle)."""
    from histories import COUNTERS, History, Sample, Snap, local

    start = datetime(2026, 3, 2, 0, 0)
    db_time = COUNTERS.index(("sys_time_model", 10, "DB time"))
    snaps, samples, total = [], [], 0
    for k in range(1, 13):
        end = start + timedelta(minutes=30 * k)
        if k > 1 and (k >= 8 or busy_before):
            total += 1800 * 10**6
        counters = tuple(total if n == db_time else 0 for n in range(len(COUNTERS)))
        snaps.append(Snap(k, 1, local(end), 0, local(start - timedelta(hours=1)), counters))
        if k >= 8:
            at = [local(end - timedelta(seconds=10 * s + 5)) for s in range(180)]  # each bucket's tenth seconds
            samples += [Sample(k, 1, k * 1000 + s, t, 7, None) for s, t in enumerate(at)]
    return History(tuple(snaps), tuple(samples))


@pytest.mark.parametrize("busy_before", [True, False], ids=["not-kept", "idle"])
def test_ash_not_kept_is_a_gap_and_an_idle_start_is_zero(tmp_path, busy_before):
    """docs/awr-rules.md §22, on a history made here: before the first snapshot with samples, buckets have no value
    where the time model says the database was busy there (ASH was not kept), and zero where it was idle; `ash_from`
    is the end of the snapshot before the first kept one (7), and the AAS is over the seconds ASH covers."""
    from histories import database

    db = database(_late_ash_history(busy_before), tmp_path / "late.sqlite")
    body = activity.compute(db, db.resolve(begin_snap=1, end_snap=12))
    kept = datetime(2026, 3, 2, 3, 30, tzinfo=UTC)  # snapshot 7's end
    assert body["ash_from"] == (kept.isoformat() if busy_before else None)
    (cpu,) = body["series"]
    for t, v in zip(*cpu["points"], strict=True):
        before = datetime.fromisoformat(t) < kept
        assert v == (None if before and busy_before else 0 if before else pytest.approx(1.0, abs=0.06)), (t, v)
    covered = (5 if busy_before else 11) * 1800
    assert body["aas"] == pytest.approx(body["total_samples"] * 10 / covered, abs=1e-4)


def test_top_lists_read_the_counts_per_block_or_the_coded_samples(api, rac, sql3):
    """§22 on the embedded store, which summary the top lists read (the answers are the same either way: the slow
    test above, which the mutation runner leaves out): with only the instance filtered, the counts per block (ASH_TOP)
    and their ends' coded samples, a statement per list; with a filter most samples pass (the program of four in
    five, from the view's rows), the blocks less the coded samples (ASH_BASE) that do not pass; with a filter few
    pass, the coded samples that pass alone."""
    from app.store.awr.embedded.ash import ASH_BASE, ASH_TOP
    from app.store.awr.queries import TOP_LISTS

    last = rac["snapshots"]["last_snap"]
    lo, hi = last - 48, last
    programs = sql3.execute(
        f"select program, count(*) from {ASH} where dbid = ? and snap_id > ? and snap_id <= ? group by 1 "
        "order by 2 desc",
        (rac["dbid"], lo, hi),
    ).fetchall()
    total = sum(n for _, n in programs)
    most, few = programs[0], programs[1]
    assert most[1] > 0.7 * total and few[1] < 0.3 * total  # the two cases this test is for

    def read(filters):
        """How many of the answer's statements read the counts per block, and how many the coded samples."""
        query = "&".join(f"{k}={quote(v)}" for k, v in filters.items())
        body = ok(api, f"/api/v1/dbs/{rac['id']}/activity/top?begin_snap={lo}&end_snap={hi}&show_sql=1&{query}")
        return [sum(name in x["sql"] for x in body["sql"]) for name in (ASH_TOP.name, f"{ASH_BASE.name} ")]

    lists = 2 + len(TOP_LISTS)  # the top lists, the instances and the blockers: a statement each from the counts
    assert read({}) == read({"instance": "1"}) == [lists, lists]  # the blocks, and their ends' coded samples
    assert read({"program": most[0]}) == [1, 2]  # the share that passes, then the blocks less the samples that do not
    assert read({"program": few[0]}) == [0, 2]  # the share that passes, then the samples that pass


def test_inner_blocks_tile_each_run_of_consecutive_snapshots_and_no_other():
    """§22's counts per block: the blocks (span, first snapshot id) given for a set of snapshot ids cover each id
    once and no other, a run's blocks never crossing a gap between runs; a span without blocks is an empty list."""
    from app.store.awr.embedded.ash import ASH_TOP_SPANS

    runs = [list(range(3, 110)), list(range(120, 140)), [200]]  # 49 to 96 a block of 48
    got = activity.inner_blocks([s for run in runs for s in run])
    assert set(got) == {f"blocks_{span}" for span in (*ASH_TOP_SPANS, 1)}
    covered = [s for key, firsts in got.items() for f in firsts for s in range(f, f + int(key.split("_")[1]))]
    assert sorted(covered) == [s for run in runs for s in run]  # each once, none of the gaps
    assert got["blocks_48"] and got["blocks_6"]  # the wide blocks used where a run holds them
    assert activity.inner_blocks([5, 6]) == {"blocks_48": [], "blocks_6": [], "blocks_1": [5, 6]}
    assert activity.inner_blocks([]) == {"blocks_48": [], "blocks_6": [], "blocks_1": []}  # binds for no snapshot


def test_edges_are_the_snapshots_whose_intervals_reach_outside_the_window(tmp_path):
    """§22: of the range's snapshots, per instance, those whose interval starts before the window (its previous
    snapshot ends before w0, or it has none) or ends after it. Two instances, the second's ends 7 s later, joining at
    snapshot 2 and missing snapshot 4; written out per instance below."""
    from histories import History, Snap, database, epoch, local

    start = datetime(2026, 3, 2)
    snaps = [
        Snap(k, inst, local(start + timedelta(minutes=30 * k, seconds=7 * (inst - 1))), 0, local(start))
        for inst in (1, 2)
        for k in range(1, 9)
        if not (inst == 2 and k in (1, 4))
    ]
    db = database(History(tuple(snaps)), tmp_path / "edges.sqlite")
    read = db.resolve(begin_snap=1, end_snap=8)
    end = {(s.instance, s.snap_id): epoch(s.end, 0) for s in snaps}
    w0 = end[1, 3]  # instance 1's snapshot 4 starts on w0 exactly: inside
    # instance 1: 2 and 3 start before w0, 6 to 8 end after w1; instance 2: 2 (its first) and 3, 5 (02:30:07) to 8
    assert activity.edges(db, read, w0, end[1, 5] + 3) == [2, 3, 5, 6, 7, 8]
    assert activity.edges(db, read, w0, end[2, 5]) == [2, 3, 6, 7, 8]  # instance 2's 5 ends on w1 exactly: inside


def _sampled_history(ends: dict, wait_class=lambda inst, snap_id, j: (None, "User I/O", "Commit")[j % 3]):
    """A history made here: per instance its snapshots' (id, minutes after 2026-03-02 00:00 its end), a sample
    every 10 s of each interval after the instance's first snapshot (5 s past), of a session of its own, on CPU
    (None) or waiting in `wait_class(instance, snap id, j)` for the interval's sample j."""
    from histories import History, Sample, Snap, local

    start = datetime(2026, 3, 2)
    snaps, samples = [], []
    for inst, own in ends.items():
        before = None
        for k, minutes in own:
            end = start + timedelta(minutes=minutes)
            snaps.append(Snap(k, inst, local(end), 0, local(start - timedelta(days=1))))
            for j in range(int((end - before).total_seconds()) // 10 if before else 0):
                at = before + timedelta(seconds=10 * j + 5)
                samples.append(
                    Sample(k, inst, int((at - start).total_seconds()), local(at), inst, wait_class(inst, k, j))
                )
            before = end
    return History(tuple(snaps), tuple(samples))


def _store_of(history, path, totals: bool = True):
    """The history's store, with the totals per minute and half hour by wait class (embedded.ash.ASH_TOTALS and
    ASH_NAMES, written here from the samples as the demo builder counts them: each sample in the minute, and the half
    hour, its local SAMPLE_TIME starts, per snapshot and instance; CPU for a sample on CPU) unless `totals` is false."""
    import calendar
    import sqlite3

    from histories import DBID, write
    from sqlalchemy import create_engine

    from app.history.database import History as Stores
    from app.settings import Settings
    from app.store.awr.embedded.ash import ASH_NAMES, ASH_TOTAL_DIMENSIONS, ASH_TOTAL_PERIODS, ASH_TOTALS, ash_code
    from app.store.sqlite import SqliteStore

    write(history, path)
    if totals:
        engine = create_engine(f"sqlite:///{path}")
        for table in (ASH_NAMES, ASH_TOTALS):
            table.create(engine, checkfirst=True)
        engine.dispose()
        counted: Counter = Counter()
        for a in history.samples:
            minute = calendar.timegm(datetime.fromisoformat(a.time).timetuple()) // 60 * 60
            for period in ASH_TOTAL_PERIODS:
                counted[period, a.snap_id, a.instance, minute - minute % period, ash_code(a.wait_class or "CPU")] += 1
        with sqlite3.connect(path) as con:
            con.executemany(
                f"insert into {ASH_NAMES.name} (id, value) values (?, ?)",
                [(ash_code(t), t) for t in {a.wait_class or "CPU" for a in history.samples}],
            )
            con.executemany(
                f"insert into {ASH_TOTALS.name} (dbid, dimension, period, snap_id, instance_number, start, code, "
                "samples) values (?, ?, ?, ?, ?, ?, ?, ?)",
                [(DBID, ASH_TOTAL_DIMENSIONS.index("wait_class") + 1, *key, n) for key, n in counted.items()],
            )
    settings = Settings.from_env({}, targets={"g": {"sqlite": str(path)}})
    return Stores({"g": SqliteStore("g", path, settings)}).database(f"g.{DBID}")


def _reading(db, monkeypatch) -> list:
    """The names of the statements the database runs from now on (app.store.awr.queries), in order."""
    read, rows = [], db.rows
    monkeypatch.setattr(db, "rows", lambda stmt, **binds: read.append(stmt.build.__name__) or rows(stmt, **binds))
    return read


def _assert_series(body, per: dict, width: int, seconds: float):
    """The answer's series are the groups of `per` ({group: Counter of samples per bucket}, 10 groups at most), the
    most sampled first (ties by name), each bucket's AAS samples x 10 / its seconds (the last bucket's inside)."""
    count = -int(-seconds // width)
    assert (body["bucket_seconds"], body["sample_seconds"]) == (width, 10)
    assert [s["name"] for s in body["series"]] == sorted(per, key=lambda g: (-sum(per[g].values()), g))
    for s in body["series"]:
        assert s["samples"] == sum(per[s["name"]].values())
        want = [per[s["name"]][b] * 10 / min(width, seconds - b * width) for b in range(count)]
        assert s["points"][1] == pytest.approx(want, abs=1e-4), s["name"]


def test_samples_before_the_ranges_first_instant_are_in_its_first_bucket_from_the_totals_too(tmp_path, monkeypatch):
    """§22.1, on a history made here: two instances, a snapshot every half hour, instance 2 without snapshot 2 (a
    flush failed: its interval 3 runs from its snapshot 1, §5). The range (2, 16] starts at instance 1's snapshot 2,
    so instance 2's interval 3 begins half an hour before it; those samples are the range's (snapshot 3's) and in its
    first bucket, every other in the bucket of its own minute (7 hours: minute buckets). The store's totals per
    minute and the samples grouped give that answer."""
    history = _sampled_history(
        {1: [(k, 30 * k) for k in range(1, 17)], 2: [(k, 30 * k) for k in range(1, 17) if k != 2]}
    )
    db = _store_of(history, tmp_path / "missed.sqlite")
    t0, seconds, width = datetime(2026, 3, 2, 1, 0), 7 * 3600, 60  # instance 1's snapshot 2 to both ones' 16
    count = seconds // width
    per: dict = {}
    for a in history.samples:
        if 2 < a.snap_id <= 16:
            b = min(max(int((datetime.fromisoformat(a.time) - t0).total_seconds()) // width, 0), count - 1)
            per.setdefault(a.wait_class or "CPU", Counter())[b] += 1
    assert per["CPU"][0] > 2  # the case this test is for: more than the bucket's own 2 samples on CPU
    read = _reading(db, monkeypatch)
    for totals in (True, False):
        db.store.ash_totals = totals
        body = activity.compute(db, db.resolve(begin_snap=2, end_snap=16))
        assert ("ash_total_buckets" in read) is totals
        _assert_series(body, per, width, seconds)
        read.clear()


def _in_missed_snapshots(inst, snap_id, j):
    """One sample in four on CPU, the others User I/O (a minute's six samples: 1 or 2 on CPU, one minute not as the
    next); some Commit in snapshot 2 only (an edge of the 05:00 window below)."""
    return "Commit" if snap_id == 2 and j % 7 == 0 else "User I/O" if j % 4 else None


def _window_buckets(history, t0, t1, width) -> dict:
    """{wait class or CPU: Counter(bucket: samples)} of a made-here history's samples in (t0, t1] (§22.3: buckets of
    `width` seconds from t0, the last one cut at t1)."""
    seconds, per = (t1 - t0).total_seconds(), {}
    for a in history.samples:
        at = datetime.fromisoformat(a.time)
        if t0 < at <= t1:
            b = min(int((at - t0).total_seconds()) // width, -int(-seconds // width) - 1)
            per.setdefault(a.wait_class or "CPU", Counter())[b] += 1
    return per


@pytest.mark.parametrize(
    ("ends", "w0", "w1", "from_totals"),
    [
        # instance 2 without snapshots 7 and 8: its 9 (from 03:00) an edge between inner snapshots 8 and 10 of a
        # window from 03:15; only consecutive inner snapshots are read from the totals, so the samples are grouped
        (
            {1: [(k, 30 * k) for k in range(1, 25)], 2: [(k, 30 * k) for k in range(1, 25) if k not in (7, 8)]},
            195,
            607,
            False,
        ),
        # instance 2 without snapshots 7 to 23: its 24 (from 03:00 to 12:00) holds samples all through the window,
        # read with the edge snapshots at the window's end
        ({1: [(k, 30 * k) for k in range(1, 25)], 2: [(k, 30 * k) for k in (*range(1, 7), 24)]}, 195, 607, True),
        # snapshots every 3 hours: one inner snapshot (06:00-09:00) between its edges; Commit in its first edge only
        ({1: [(k, 180 * k) for k in range(1, 6)]}, 300, 690, True),
        # a window from a snapshot's end (06:00): its first snapshot read is an inner one
        ({1: [(k, 180 * k) for k in range(1, 6)]}, 360, 750, True),
        # a window from 03:15:30, not on a minute: no minute lies in one bucket, so the samples are grouped
        ({1: [(k, 30 * k) for k in range(1, 25)], 2: [(k, 30 * k) for k in range(1, 25)]}, 195.5, 607, False),
    ],
    ids=["non-consecutive", "across", "one-inner", "from-a-snapshot", "off-a-minute"],
)
def test_a_windows_aas_from_the_totals_and_its_edges_is_its_samples(tmp_path, monkeypatch, ends, w0, w1, from_totals):
    """§22, a window off the snapshots' grid (minutes after 00:00, on a minute, over 6 hours: minute buckets) on
    histories made here: per wait class and bucket the samples of `from` < SAMPLE_TIME <= `to` (local times), counted
    here from the history; the embedded store reads the totals per minute of the consecutive snapshots wholly inside
    the window and the samples of its edges (per instance the snapshots whose interval starts before `from` or ends
    after `to`), and answers the same with the samples grouped and from a store without totals."""
    history = _sampled_history(ends, _in_missed_snapshots)
    start = datetime(2026, 3, 2)
    t0, t1 = start + timedelta(minutes=w0), start + timedelta(minutes=w1)
    seconds = (t1 - t0).total_seconds()
    width = next(w for w in (10, 30, 60, 120, 300) if seconds / w <= 720)
    per = _window_buckets(history, t0, t1, width)
    assert width == 60 and ("Commit" in per) == (w0 == 300)  # a group that only an edge holds: the 05:00 window
    for path, totals in (("kept", True), ("kept", False), ("none", False)):
        db = _store_of(history, tmp_path / f"{path}.sqlite", path == "kept")
        db.store.ash_totals = totals
        read = _reading(db, monkeypatch)
        body = activity.compute(db, db.resolve(t0.replace(tzinfo=UTC), t1.replace(tzinfo=UTC)))
        assert ("ash_total_buckets" in read) is (from_totals and totals), path
        _assert_series(body, per, width, seconds)


WINDOW_GROUPS = {  # a sample's group, of its row (sample_time, session_state, wait_class, event, sql_id, ...)
    "wait_class": lambda r: "CPU" if r[1] == "ON CPU" else r[2],
    "event": lambda r: "CPU" if r[1] == "ON CPU" else r[3],
    "sql_id": lambda r: r[4],
    "module": lambda r: r[5],
}


@pytest.mark.parametrize(
    ("group_by", "filters", "from_totals"),
    [
        ("sql_id", {}, True),  # the totals of the snapshots inside, the edges' samples: 10 groups, other, no SQL
        ("wait_class", {"instance": "2"}, True),
        ("event", {"wait_class": "User I/O"}, False),  # a filter the totals cannot apply: the samples that pass
        ("event", {"wait_class": "User I/O", "instance": "2"}, False),
        ("module", {}, False),  # a dimension the totals do not count
    ],
)
def test_a_window_on_a_minute_is_its_samples_per_bucket(api, sql3, rac, group_by, filters, from_totals):
    """§22: a window off the snapshots' grid that starts on a minute, 7 hours and 11 minutes (minute buckets): per
    group and bucket the window's samples (`from` < SAMPLE_TIME <= `to`, local times) that pass the filters, counted
    here from the store's rows; the 10 groups with the most samples, `other` the rest; AAS = samples x 10 / the
    bucket's seconds. The embedded store reads the totals per minute of the snapshots wholly inside the window and
    the samples of its edge snapshots, with the instance the only filter; any other filter, the samples."""
    end = datetime.fromisoformat(rac["snapshots"]["to"]).replace(hour=15, minute=7, second=0) - timedelta(days=1)
    start = end - timedelta(hours=7, minutes=11)
    query = {"from": start.isoformat(), "to": end.isoformat(), "group_by": group_by, **filters, "show_sql": "1"}
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity?" + "&".join(f"{k}={quote(v)}" for k, v in query.items()))
    assert any("awrlens_ash_totals" in x["sql"] for x in body.pop("sql")) is from_totals
    seconds, width = (end - start).total_seconds(), body["bucket_seconds"]
    assert (width, body["sample_seconds"]) == (60, 10)
    count = -int(-seconds // width)
    w0, w1 = (t.replace(tzinfo=None) for t in (start, end))  # the store's local times, of the window's offset:
    where = "".join(f" AND a.{'instance_number' if k == 'instance' else k} = ?" for k in filters)
    rows = sql3.execute(
        "SELECT a.sample_time, a.session_state, a.wait_class, a.event, a.sql_id, a.module, s.snap_timezone "
        f"FROM {ASH} a JOIN dba_hist_snapshot s ON s.dbid = a.dbid AND s.snap_id = a.snap_id "
        "AND s.instance_number = a.instance_number WHERE a.dbid = ? AND a.snap_id BETWEEN "
        "(SELECT max(snap_id) FROM dba_hist_snapshot WHERE dbid = ? AND end_interval_time <= ?) AND "
        f"(SELECT min(snap_id) FROM dba_hist_snapshot WHERE dbid = ? AND end_interval_time >= ?){where}",
        (rac["dbid"], rac["dbid"], str(w0), rac["dbid"], str(w1), *filters.values()),
    ).fetchall()
    assert {r[-1] for r in rows} == {start.utcoffset().total_seconds()}  # no daylight-saving change inside
    per: dict = {}
    for r in rows:
        at = datetime.fromisoformat(r[0])
        if w0 < at <= w1:
            b = min(int((at - w0).total_seconds()) // width, count - 1)
            per.setdefault(WINDOW_GROUPS[group_by](r), Counter())[b] += 1
    ranked = sorted(per, key=lambda g: (-sum(per[g].values()), str(g)))
    shown, rest = ranked[:10], ranked[10:]
    if rest:
        per["other"] = sum((per[g] for g in rest), Counter())
    assert sum(sum(c.values()) for c in per.values()) > 100
    assert [s["name"] for s in body["series"]] == shown + (["other"] if rest else [])
    for s in body["series"]:
        want = [per[s["name"]][b] * 10 / min(width, seconds - b * width) for b in range(count)]
        assert s["samples"] == sum(per[s["name"]].values())
        assert s["label"] == ({"sql_id": "no SQL", "module": "no module"}[group_by] if s["name"] is None else s["name"])
        assert [v for _, v in s["points"]] == pytest.approx(want, abs=1e-4), s["name"]
    assert body["total_samples"] == sum(sum(c.values()) for g, c in per.items() if g != "other")
    assert bool(rest) or group_by != "sql_id"  # the case of the first: groups beyond the 10 shown


def test_the_top_sessions_of_a_filtered_range_are_named_by_their_own_samples(api, sql3, rac):
    """§22, names, over a range of snapshots (six hours) with a filter other than the instance, whose top lists count
    the samples that pass it: each top session (instance, SID, serial#) with the user (named by DBA_USERS), program
    and machine most sampled among its samples of the newest WHO_BLOCK snapshot ids of the range that hold any (a
    session keeps them for its life: they name the session, whatever the filter)."""
    from app.history.activity import WHO_BLOCK

    hi = rac["snapshots"]["last_snap"]
    lo = hi - 12
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity/top?begin_snap={lo}&end_snap={hi}&wait_class=User%20I%2FO")
    users = dict(sql3.execute("SELECT user_id, username FROM dba_users WHERE dbid = ?", (rac["dbid"],)).fetchall())
    seen: dict = {}
    for inst, sid, serial, snap_id, *named in sql3.execute(
        f'SELECT instance_number, session_id, "SESSION_SERIAL#", snap_id, user_id, program, machine FROM {ASH} '
        "WHERE dbid = ? AND snap_id > ? AND snap_id <= ?",
        (rac["dbid"], lo, hi),
    ):
        seen.setdefault(f"{inst}:{sid},{serial}", {}).setdefault((hi - snap_id) // WHO_BLOCK, []).append(named)
    rows = body["lists"]["session"]
    assert len(rows) == 25

    def most(values):
        return min(Counter(values).items(), key=lambda kv: (-kv[1], str(kv[0])))[0]

    for r in rows:
        newest = seen[r["name"]][min(seen[r["name"]])]  # the newest block of WHO_BLOCK ids from hi that holds any
        user, program, machine = (most(x[k] for x in newest) for k in range(3))
        assert (r["user"], r["user_name"], r["program"], r["machine"]) == (user, users[user], program, machine)


def _demo_window_samples(sql3, dbid, start, end, columns):
    """The demo's samples of the window `start` < SAMPLE_TIME <= `end` (local times, naive), `columns` of each, read
    from the snapshots whose intervals hold it (§22: the last ending at or before `start` to the first ending at or
    after `end`, any instance)."""
    rows = sql3.execute(
        f"SELECT sample_time, {columns} FROM {ASH} WHERE dbid = ? AND snap_id BETWEEN "
        "(SELECT max(snap_id) FROM dba_hist_snapshot WHERE dbid = ? AND end_interval_time <= ?) AND "
        "(SELECT min(snap_id) FROM dba_hist_snapshot WHERE dbid = ? AND end_interval_time >= ?)",
        (dbid, dbid, str(start), dbid, str(end)),
    ).fetchall()
    return [r[1:] for r in rows if start < datetime.fromisoformat(r[0]) <= end]


def _demo_edges(sql3, dbid, start, end):
    """§22's edge snapshots of the window (start, end] (local, naive), from DBA_HIST_SNAPSHOT: of the snapshots whose
    intervals hold it, per instance, those whose interval starts before `start` (the instance's snapshot before ends
    before it) or that end after `end`."""
    ends: dict = {}
    for inst, snap_id, at in sql3.execute(
        "SELECT instance_number, snap_id, end_interval_time FROM dba_hist_snapshot WHERE dbid = ? ORDER BY 1, 2",
        (dbid,),
    ):
        ends.setdefault(inst, []).append((snap_id, datetime.fromisoformat(at)))
    every = sorted((at, snap_id) for own in ends.values() for snap_id, at in own)
    lo = max(snap_id for at, snap_id in every if at <= start)
    hi = min(snap_id for at, snap_id in every if at >= end)
    return sorted(
        {
            snap_id
            for own in ends.values()
            for (_, before), (snap_id, at) in pairwise(own)
            if lo < snap_id <= hi and (before < start or at > end)
        }
    )


@pytest.mark.parametrize("filters", [{}, {"instance": "2"}])
def test_a_windows_top_lists_are_its_samples_counted_from_the_blocks_less_its_edges(api, sql3, rac, filters):
    """§22, a window off the snapshots' grid (an hour and 11 minutes to 15:07) with the instance the only filter: each
    top list's groups are the window's samples (`from` < SAMPLE_TIME <= `to`) counted here from the store's rows, the
    most sampled first; the blockers per event their waiters' samples and distinct sessions. The embedded store counts
    them in one statement: the counts per block (ASH_TOP) of the snapshots read less the samples outside the window,
    which only the edge snapshots hold (per instance, those whose interval starts before `from` or ends after `to`)."""
    from app.store.awr.embedded.ash import ASH_TOP

    end = datetime.fromisoformat(rac["snapshots"]["to"]).replace(hour=15, minute=7, second=0) - timedelta(days=1)
    start = end - timedelta(hours=1, minutes=11)
    query = {"from": start.isoformat(), "to": end.isoformat(), "show_sql": "1", **filters}
    r = api.get(f"/api/v1/dbs/{rac['id']}/activity/top", query_string=query)
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    body = r.get_json()
    w0, w1 = start.replace(tzinfo=None), end.replace(tzinfo=None)
    (counted,) = [x for x in body["sql"] if ASH_TOP.name in x["sql"]]  # one statement, every list
    assert counted["params"]["edge_snaps"] == _demo_edges(sql3, rac["dbid"], w0, w1)
    rows = [
        row
        for row in _demo_window_samples(
            sql3,
            rac["dbid"],
            w0,
            w1,
            'sql_id, instance_number, session_id, "SESSION_SERIAL#", module, event, "CURRENT_OBJ#", session_state, '
            'blocking_inst_id, blocking_session, "BLOCKING_SESSION_SERIAL#"',
        )
        if str(row[1]) == filters.get("instance", str(row[1]))
    ]
    assert body["total_samples"] == len(rows) > 100
    keys = SAMPLE_KEYS
    for name, key in keys.items():
        samples = Counter(key(r) for r in rows)
        listed = {x["name"]: x["samples"] for x in body["lists"][name]}
        assert listed == {g: samples[g] for g in listed}, name
        assert len(listed) == min(25, len(samples)), name
        assert min(listed.values()) >= max((n for g, n in samples.items() if g not in listed), default=0), name
    blocked, waiters = Counter(), {}
    for r in rows:
        if r[9] is not None:
            blocked[(*r[8:11], r[5])] += 1
            waiters.setdefault((*r[8:11], r[5]), set()).add(r[2])
    fields = ("blocking_instance", "blocking_session", "blocking_serial", "event")
    assert {tuple(b[f] for f in fields): (b["samples"], b["waiters"]) for b in body["blocking"]} == {
        k: (n, len(waiters[k])) for k, n in blocked.items()
    }


@pytest.fixture(scope="module")
def made_here(tmp_path_factory):
    """A folder for the stores of the histories made in the tests below: the empty store they copy is made once."""
    return tmp_path_factory.mktemp("made-here")


def _blocked_history():
    """One instance, a snapshot every half hour from 00:00 to 04:00; a sample every 10 s of each interval of one of five
    sessions (10 to 14), in turn on CPU, in User I/O and in Application, where session 99 (serial# 7) blocks it."""
    from histories import History, Sample, Snap, local

    start = datetime(2026, 3, 2)
    snaps = [
        Snap(k, 1, local(start + timedelta(minutes=30 * k)), 0, local(start - timedelta(days=1))) for k in range(9)
    ]
    samples = []
    for j in range(1, 8 * 180 + 1):
        at, k = start + timedelta(seconds=10 * j - 5), (j - 1) // 180 + 1  # 5 s before each tenth second
        wait_class = (None, "User I/O", "Application")[j % 3]
        blocker = (1, 99, 7) if wait_class == "Application" else None
        samples.append(Sample(k, 1, j, local(at), 10 + j % 5, wait_class, blocker))
    return History(tuple(snaps), tuple(samples))


def test_a_windows_top_lists_and_blockers_over_the_view_are_its_samples(made_here):
    """§22 on a history made here, whose store keeps neither coded samples nor counts per block (Oracle's way, over
    the view): a window off the snapshots' grid (01:15 to 02:44:50) holds the samples of `from` < SAMPLE_TIME <= `to`,
    whichever snapshot flushed them; each top list's groups and the blockers per event (their waiters' samples and
    distinct sessions) are those samples counted here, none of its edge snapshots' outside it."""
    from histories import database

    history = _blocked_history()
    db = database(history, made_here / "blocked.sqlite")
    assert not (db.store.ash_coded or db.store.ash_top)  # the view's samples, grouped
    t0, t1 = datetime(2026, 3, 2, 1, 15), datetime(2026, 3, 2, 2, 44, 50)
    body = activity.top(db, db.resolve(t0.replace(tzinfo=UTC), t1.replace(tzinfo=UTC)))
    inside = [a for a in history.samples if t0 < datetime.fromisoformat(a.time) <= t1]
    assert body["total_samples"] == len(inside) == 539
    events = Counter(f"{a.wait_class} event" if a.wait_class else "CPU" for a in inside)
    sessions = Counter(f"1:{a.session},1" for a in inside)
    for name, counted in (("event", events), ("session", sessions), ("sql_id", Counter({None: len(inside)}))):
        listed = [(x["name"], x["samples"]) for x in body["lists"][name]]
        assert dict(listed) == counted and [n for _, n in listed] == sorted(counted.values(), reverse=True), name
    blocked = [a for a in inside if a.blocker]
    (blocker,) = body["blocking"]
    assert (blocker["blocking_instance"], blocker["blocking_session"], blocker["blocking_serial"]) == (1, 99, 7)
    assert (blocker["event"], blocker["samples"], blocker["waiters"]) == (
        "Application event",
        len(blocked),
        len({a.session for a in blocked}),
    )
    assert blocker["aas"] == pytest.approx(len(blocked) * 10 / (t1 - t0).total_seconds(), abs=1e-4)


def test_the_live_buffers_blockers_are_its_waiters_samples_and_sessions(api, sql3, rac, stories):
    """§30 with §22's top lists: over the live row lock's window, the blocking sessions are those of the live buffer's
    samples (GV$ACTIVE_SESSION_HISTORY, `from` < SAMPLE_TIME <= `to`), per blocker and event its waiters' samples and
    distinct sessions, counted here from the buffer's rows; AAS at one sample a second."""
    lock = stories["live"]["row_lock"]
    r = api.get(
        f"/api/v1/dbs/{rac['id']}/activity/top", query_string={"ash": "live", "from": lock["from"], "to": lock["to"]}
    )
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    body = r.get_json()
    local = [datetime.fromisoformat(lock[k]).replace(tzinfo=None).isoformat(sep=" ") for k in ("from", "to")]
    blockers = sql3.execute(
        'SELECT blocking_inst_id, blocking_session, "BLOCKING_SESSION_SERIAL#", event, count(*), '
        'count(DISTINCT session_id) FROM "gv$active_session_history" WHERE dbid = ? AND blocking_session IS NOT NULL '
        "AND julianday(sample_time) > julianday(?) AND julianday(sample_time) <= julianday(?) GROUP BY 1, 2, 3, 4",
        (rac["dbid"], *local),
    ).fetchall()
    assert blockers and body["sample_seconds"] == 1  # the row lock's waiters
    fields = ("blocking_instance", "blocking_session", "blocking_serial", "event", "samples", "waiters")
    assert sorted(tuple(b[f] for f in fields) for b in body["blocking"]) == sorted(blockers)
    seconds = (datetime.fromisoformat(lock["to"]) - datetime.fromisoformat(lock["from"])).total_seconds()
    for b in body["blocking"]:
        assert b["aas"] == pytest.approx(b["samples"] / seconds, abs=1e-4)


def _statements_run(db, monkeypatch) -> list:
    """The statements the database runs from now on, in order: (name, binds) of each (app.store.awr.queries)."""
    ran, rows = [], db.rows
    monkeypatch.setattr(
        db, "rows", lambda stmt, **binds: ran.append((stmt.build.__name__, binds)) or rows(stmt, **binds)
    )
    return ran


@pytest.mark.parametrize(
    ("w1", "idle", "edges"),
    [
        (600, False, [(6, 7)]),  # to 10:00, snapshot 20's end: 20 wholly inside, no edge at the end
        (615, True, [(6, 7), (20, 21)]),  # to 10:15; the snapshots inside without a sample
    ],
    ids=["to-a-snapshot", "idle-inside"],
)
def test_a_windows_aas_reads_the_totals_of_the_snapshots_inside_and_the_samples_of_its_edges(
    made_here, monkeypatch, w1, idle, edges
):
    """§22 on a history made here (one instance, a snapshot every half hour): a window from 03:15 (on a minute, over 6
    hours: minute buckets) is, per wait class and bucket, its samples (`from` < SAMPLE_TIME <= `to`), counted here. The
    embedded store reads the groups' samples over the snapshots wholly inside it (8 to 20) from the half-hour totals,
    then per bucket their totals per minute, and the samples of its edge snapshots only (7, whose interval starts at
    03:00; 21, which ends after 10:15), one statement per edge; where the snapshots inside hold no sample, no totals
    per bucket are read."""
    history = _sampled_history({1: [(k, 30 * k) for k in range(1, 25)]})
    if idle:
        history = type(history)(history.snaps, tuple(a for a in history.samples if not 8 <= a.snap_id <= 20))
    start = datetime(2026, 3, 2)
    t0, t1 = start + timedelta(minutes=195), start + timedelta(minutes=w1)
    seconds, width = (t1 - t0).total_seconds(), 60
    per = _window_buckets(history, t0, t1, width)
    db = _store_of(history, made_here / f"window-{w1}.sqlite")
    ran = _statements_run(db, monkeypatch)
    body = activity.compute(db, db.resolve(t0.replace(tzinfo=UTC), t1.replace(tzinfo=UTC)))
    _assert_series(body, per, width, seconds)
    (groups,) = [binds for name, binds in ran if name == "ash_total_groups"]
    assert (groups["lo"], groups["hi"], groups["period"]) == (7, 20, 1800)  # the snapshots (7, 20], half hours
    assert [(b["lo"], b["hi"]) for name, b in ran if name == "activity"] == edges
    assert [b["period"] for name, b in ran if name == "ash_total_buckets"] == ([] if idle else [60])


def test_a_windows_aas_on_the_demo_reads_its_edges_coded_samples(api, sql3, rac):
    """§22 on the embedded store: a window on a minute (7 hours and 11 minutes to 15:07, minute buckets) by wait class
    holds its samples, counted here from the store's rows; it reads the totals of the snapshots wholly inside it (the
    groups' from the half-hour totals, then per minute) and its edge snapshots' samples in the window, those from the
    table's codes (ASH_BASE) rather than the view's texts, as every grouping of the embedded store's samples does."""
    from app.store.awr.embedded.ash import ASH_BASE, ASH_TOTALS

    end = datetime.fromisoformat(rac["snapshots"]["to"]).replace(hour=15, minute=7, second=0) - timedelta(days=1)
    start = end - timedelta(hours=7, minutes=11)
    query = {"from": start.isoformat(), "to": end.isoformat(), "group_by": "wait_class", "show_sql": "1"}
    r = api.get(f"/api/v1/dbs/{rac['id']}/activity", query_string=query)
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    body = r.get_json()
    w0, w1 = start.replace(tzinfo=None), end.replace(tzinfo=None)
    assert body["total_samples"] == len(_demo_window_samples(sql3, rac["dbid"], w0, w1, "1")) > 100
    edges = _demo_edges(sql3, rac["dbid"], w0, w1)
    read = [x for x in body["sql"] if "w0" in x["params"]]  # the samples of the window: its edges'
    assert read and all(f"{ASH_BASE.name} " in x["sql"] for x in read)
    assert sorted(s for x in read for s in range(x["params"]["lo"] + 1, x["params"]["hi"] + 1)) == edges
    totals = [x["params"] for x in body["sql"] if f"FROM {ASH_TOTALS.name}" in x["sql"]]
    assert [(t["lo"], t["hi"], t["period"]) for t in totals] == [(edges[0], edges[-1] - 1, p) for p in (1800, 60)]
