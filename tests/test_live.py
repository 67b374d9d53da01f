"""The live buffer (docs/awr-rules.md §30): every ASH answer over GV$ACTIVE_SESSION_HISTORY with ash=live, checked
against the store's own rows of the buffer read with sqlite3: the window's samples at one a second, AAS = samples x
1 s / the window's seconds, the top lists, ashtop and the wait chains from the rows' own columns; the demo's now is its
buffer's newest sample; bad windows are refused by name; on Oracle, the live statements are the Diagnostics Pack's."""

import re
from collections import Counter
from datetime import datetime, timedelta

import pytest
from contract import ok

from app.store import licence
from app.store.awr import queries
from app.store.awr.views import views

LIVE = '"gv$active_session_history"'


def _local(iso: str) -> str:
    """An answer's ISO time as the buffer stamps its samples (local, no offset)."""
    return datetime.fromisoformat(iso).replace(tzinfo=None).isoformat(sep=" ")


def _rows(sql3, dbid, frm, to, columns):
    """The buffer's samples of the window (from, to], the columns asked."""
    return sql3.execute(
        f"SELECT {columns} FROM {LIVE} WHERE dbid = ? AND julianday(sample_time) > julianday(?) "
        "AND julianday(sample_time) <= julianday(?)",
        (dbid, _local(frm), _local(to)),
    ).fetchall()


def test_the_demos_now_is_its_buffers_newest_sample_and_the_window_its_last_minutes(api, sql3, rac, stories):
    """ash=live without a window: the last 15 minutes to now, now the newest sample the buffer holds (the demo's
    hour's end, workload.place_stories), the oldest the latest of the instances' oldest; one-second spacing, and no
    answer kept by a cache."""
    newest, oldest = sql3.execute(
        f"SELECT max(sample_time), (SELECT max(o) FROM (SELECT min(sample_time) o FROM {LIVE} WHERE dbid = ? "
        '  GROUP BY "INST_ID")) FROM ' + LIVE + " WHERE dbid = ?",
        (rac["dbid"], rac["dbid"]),
    ).fetchone()
    r = api.get(f"/api/v1/dbs/{rac['id']}/activity", query_string={"ash": "live"})
    body = r.get_json()
    assert r.headers["Cache-Control"].endswith("max-age=0")
    assert _local(body["live"]["now"]) == newest == _local(stories["live"]["databases"][str(rac["dbid"])]["to"])
    assert _local(body["live"]["oldest_sample"]) == oldest
    to = datetime.fromisoformat(body["range"]["to"])
    assert to - datetime.fromisoformat(body["range"]["from"]) == timedelta(minutes=15)
    assert body["sample_seconds"] == 1 and body["range"]["begin_snap"] is None
    samples = len(_rows(sql3, rac["dbid"], body["range"]["from"], body["range"]["to"], "1"))
    assert body["total_samples"] == samples and body["aas"] == pytest.approx(samples / 900, abs=1e-4)
    assert "aged_out" not in body["live"]


@pytest.mark.parametrize("minutes", [1, 7, 60])
def test_live_aas_by_wait_class_per_bucket_are_the_buffers_samples(api, sql3, rac, minutes):
    """Each bucket's AAS per wait class = its samples x 1 s / the bucket's seconds, from the rows (CPU for a sample on
    CPU); buckets counted from the window's start."""
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity", ash="live", minutes=minutes, group_by="wait_class")
    frm, width = datetime.fromisoformat(body["range"]["from"]), body["bucket_seconds"]
    expected = Counter()
    for stamp, state, wait_class in _rows(
        sql3, rac["dbid"], body["range"]["from"], body["range"]["to"], "sample_time, session_state, wait_class"
    ):
        moment = datetime.fromisoformat(stamp).replace(tzinfo=frm.tzinfo)
        bucket = min(int((moment - frm).total_seconds()) // width, minutes * 60 // width - 1)  # the last instant: last
        expected["CPU" if state == "ON CPU" else wait_class, bucket] += 1
    got = {}
    for s in body["series"]:
        for k, (_, aas) in enumerate(s["points"]):
            if aas:
                got[s["name"], k] = aas
    assert got == {key: pytest.approx(n / width, abs=1e-4) for key, n in expected.items()}


def test_live_top_lists_ashtop_and_chains_over_the_live_row_lock(api, sql3, rac, stories):
    """Over the live row lock's window (RACPROD instance 1): top SQL and top events are the rows' counts; ashtop by
    sql_id,event the same groups with their distinct sessions; the wait chain is 1801's, four waiters and two behind
    the first, from BLOCKING_INST_ID, BLOCKING_SESSION and its serial#."""
    lock = stories["live"]["row_lock"]
    base = f"/api/v1/dbs/{rac['id']}/activity"
    window = {"ash": "live", "from": lock["from"], "to": lock["to"]}
    rows = _rows(sql3, rac["dbid"], lock["from"], lock["to"], "sql_id, session_state, event, INST_ID, session_id")
    top = ok(api, base + "/top", **window)
    for name, counted in (
        ("sql_id", Counter(r[0] for r in rows)),
        ("event", Counter("CPU" if r[1] == "ON CPU" else r[2] for r in rows)),
    ):
        listed = {x["name"]: x["samples"] for x in top["lists"][name]}
        assert listed == {k: counted[k] for k in listed}  # each group's samples, the 25 largest
        assert len(listed) == min(25, len(counted)) and min(listed.values()) >= max(
            [n for k, n in counted.items() if k not in listed], default=0
        )
    assert top["live"]["now"] and top["sample_seconds"] == 1
    for r in top["lists"]["session"]:  # each session's user, program and machine: its most sampled in the window
        inst, sid, serial = (int(x) for x in r["name"].replace(",", ":").split(":"))
        seen = Counter(
            sql3.execute(
                f'SELECT user_id, program, machine FROM {LIVE} WHERE dbid = ? AND "INST_ID" = ? AND session_id = ? '
                'AND "SESSION_SERIAL#" = ? AND julianday(sample_time) > julianday(?) '
                "AND julianday(sample_time) <= julianday(?)",
                (rac["dbid"], inst, sid, serial, _local(lock["from"]), _local(lock["to"])),
            ).fetchall()
        )
        per = [Counter() for _ in range(3)]
        for values, n in seen.items():
            for k in range(3):
                per[k][values[k]] += n
        expected = [min(c.items(), key=lambda kv: (-kv[1], str(kv[0])))[0] for c in per]
        assert [r["user"], r["program"], r["machine"]] == expected
    groups = ok(api, base + "/groups", group_by="sql_id,event", **window)
    sessions: dict = {}
    for sql_id, state, event, inst, sid in rows:
        sessions.setdefault((sql_id, "CPU" if state == "ON CPU" else event), set()).add((inst, sid))
    assert {(g["sql_id"], g["event"]): g["sessions"] for g in groups["rows"]} == {
        (g["sql_id"], g["event"]): len(sessions[g["sql_id"], g["event"]]) for g in groups["rows"]
    }
    assert len(groups["rows"]) == min(50, len(sessions)) and groups["total_samples"] == len(rows)
    chains = ok(api, base + "/chains", **window)
    blocked = sql3.execute(
        f"SELECT DISTINCT session_id, blocking_session FROM {LIVE} WHERE dbid = ? AND blocking_session IS NOT NULL "
        "AND julianday(sample_time) > julianday(?) AND julianday(sample_time) <= julianday(?)",
        (rac["dbid"], _local(lock["from"]), _local(lock["to"])),
    ).fetchall()
    under = {}
    for sid, blocker in blocked:
        under.setdefault(blocker, set()).add(sid)
    (root,) = chains["roots"]
    assert root["sid"] not in {s for s, _ in blocked}  # a root blocker waits on no one
    assert {w["sid"] for w in root["waiters"]} == under[root["sid"]]
    first = next(w for w in root["waiters"] if w["sid"] in under)
    assert {w["sid"] for w in first["waiters"]} == under[first["sid"]]
    assert chains["blocked_samples"] == sum(
        1 for _ in _rows(sql3, rac["dbid"], lock["from"], lock["to"], "blocking_session") if _[0] is not None
    )


def test_a_window_before_the_buffers_oldest_sample_says_they_aged_out(api, rac):
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity", ash="live", minutes=60)
    assert "aged_out" not in body["live"]  # the whole hour is there
    frm = datetime.fromisoformat(body["range"]["from"]) - timedelta(minutes=30)
    late = ok(
        api, f"/api/v1/dbs/{rac['id']}/activity/top", ash="live", to=body["range"]["to"], **{"from": frm.isoformat()}
    )
    assert "aged out" in late["live"]["aged_out"] and late["live"]["oldest_sample"] in late["live"]["aged_out"]


@pytest.mark.parametrize(
    "query, parameter",
    [
        ({"ash": "live", "begin_snap": 1, "end_snap": 2}, "begin_snap"),
        ({"minutes": 5}, "minutes"),
        ({"ash": "live", "from": "2026-11-20T07:00:00"}, "to"),
        ({"ash": "live", "minutes": 5, "from": "2026-11-20T07:00:00", "to": "2026-11-20T07:10:00"}, "minutes"),
        ({"ash": "live", "from": "2026-11-20T07:00:00", "to": "2026-11-20T11:00:01"}, "from"),
        ({"ash": "live", "from": "2026-11-20T07:10:00", "to": "2026-11-20T07:00:00"}, "from"),
        ({"ash": "live", "minutes": 0}, "minutes"),
        ({"ash": "now"}, "ash"),
    ],
)
@pytest.mark.parametrize("endpoint", ["", "/top", "/groups", "/chains"])
def test_a_bad_live_window_is_refused_by_name(api, rac, query, parameter, endpoint):
    r = api.get(f"/api/v1/dbs/{rac['id']}/activity{endpoint}", query_string=query)
    assert r.status_code == 400, r.get_data(as_text=True)
    assert r.get_json()["error"]["parameter"] == parameter


@pytest.mark.parametrize("prefix", ["dba_hist_", "awr_pdb_"])
def test_on_oracle_the_live_statements_read_gv_views_and_need_the_diagnostics_pack(prefix):
    """Oracle's text of each live statement names GV$ACTIVE_SESSION_HISTORY (or GV$ASH_INFO) unquoted, its instance
    as INST_ID, no DBID and no SNAP_ID (the buffer has neither); the licence check counts it as the Diagnostics
    Pack's (Oracle Database Licensing Information)."""
    from sqlalchemy.dialects import oracle

    v = views(prefix)
    every = [
        queries.activity(v, "event", ("sql_id",), False, True, True),
        queries.activity_top(v, "sql_id", (), False, True, True),
        queries.blocking(v, (), False, True, True),
        queries.activity_groups(v, ("sql_id", "event"), (), True, True),
        queries.wait_chains(v, True, (), True),
        queries.live_clock(v),
    ]
    for stmt in every:
        text = str(stmt.core().compile(dialect=oracle.dialect())).lower()
        assert ("gv$active_session_history" in text) != ("gv$ash_info" in text), text
        assert '"gv$' not in text and "snap_id" not in text and not re.search(r"[.\s]dbid\b", text), text
        sessions = stmt.build.__name__ in ("wait_chains", "activity_groups", "blocking", "live_clock")
        assert "instance_number" not in text and ("inst_id" in text or not sessions), text
        assert licence.packs_needed(text) == {licence.DIAGNOSTIC}
    clock = str(queries.live_clock(v).core().compile(dialect=oracle.dialect()))
    assert "CAST(SYSTIMESTAMP AS TIMESTAMP)" in clock and "TO_CHAR(SYSTIMESTAMP, :zone_format)" in clock
