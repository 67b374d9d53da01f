"""A 400-day history read in buckets (docs/awr-rules.md §21), on a lean two-instance store (tests/long_history.py).

The rows fetched are counted at the store (Store.rows), the statements are compiled for Oracle as sent, and every
bucketed point is checked against the rules applied to the store's own rows: a counter's bucket is the sum of its
interval deltas over the sum of their seconds (restarts left out, §3-§5), a reading's the mean of the readings in
it, an Oracle rate's the mean of its averages weighted by their interval (§8, §9).
"""

import itertools
import re
import sqlite3
from bisect import bisect_right
from datetime import UTC, datetime
from math import fsum

import pytest
import sqlglot
from contract import ok
from long_history import CLEAN_RESTART, DBID
from sqlalchemy.dialects import oracle

from app import create_app
from app.settings import Settings
from app.store.awr import queries
from app.store.awr.queries import IN_LIST, capped
from app.store.base import Store

# A 400-day history built for the module, then every series read over it: about 25 s, not the edit loop's.
pytestmark = pytest.mark.slow

MAX_POINTS = 2000
SERIES = [
    "sysstat:redo size",
    "derived:aas",
    "derived:host_cpu_pct",
    "sysstat:logons current",
    "sysmetric:Host CPU Utilization (%)",
    "derived:Response Time Per Sec",
    "wait_class:User I/O",
    "iostat_function:LGWR:megabytes",
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import long_history

    path = tmp_path_factory.mktemp("long") / "long.sqlite"
    long_history.build(path)
    return path


@pytest.fixture(scope="module")
def api(store):
    return create_app(Settings.from_env({}, targets={"l": {"sqlite": str(store)}}, answer_cache_mb=0)).test_client()


@pytest.fixture(scope="module")
def sql3(store):
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    yield con
    con.close()


@pytest.fixture()
def fetched(monkeypatch):
    """Every statement a request runs, with its binds and the rows it fetched."""
    log = []
    rows = Store.rows

    def counted(self, stmt, params=None):
        out = rows(self, stmt, params)
        log.append((stmt, params or {}, len(out)))
        return out

    monkeypatch.setattr(Store, "rows", counted)
    return log


def ask(api, path, **query):
    return ok(api, f"/api/v1/dbs/l.{DBID}{path}", begin_snap=1, end_snap=10**6, **query)


def test_a_400_day_question_fetches_about_max_points_rows_per_instance_and_statement(api, fetched):
    ask(api, "/series", name=SERIES[:1], max_points=0)  # the snapshot list and the catalog, read once and kept
    fetched.clear()
    full = ask(api, "/series", name=SERIES, max_points=0)
    full_rows = sum(n for _, _, n in fetched)
    for path, query in (("/series", {"name": SERIES}), ("/wait-classes", {})):
        fetched.clear()
        body = ask(api, path, max_points=MAX_POINTS, **query)
        assert all(len(s["points"]) <= MAX_POINTS for s in body["series"])
        assert all(s["points_total"] > 19_000 for s in body["series"]), "points_total counts the full resolution"
        for stmt, params, n in fetched:
            ids = {i for k, v in params.items() if k.startswith("snap_ids_") for i in v}
            assert len(ids) <= MAX_POINTS, "the chosen snapshots: at most max_points"
            assert n <= 2 * len(ids) * (2 if "wait_class" in stmt.key else 1), stmt.key  # 2 instances, 2 classes
        assert sum(n for _, _, n in fetched) <= len(fetched) * 2 * 2 * MAX_POINTS
    fetched.clear()
    ask(api, "/series", name=SERIES, max_points=MAX_POINTS)
    bucketed_rows = sum(n for _, _, n in fetched)
    assert full_rows > 9 * bucketed_rows  # 19,200 snapshots per instance, about 2,000 of them read
    assert full["series"][0]["points_total"] == len(full["series"][0]["points"])


def test_the_statements_for_oracle_bound_the_rows_in_valid_in_lists(api, fetched):
    """Compiled for Oracle as sent (IN lists expanded, the row limit rendered): at most IN_LIST expressions per IN
    list (ORA-01795), the chosen snapshots no more than max_points, the row cap in the statement, and the text
    parses as Oracle SQL."""
    ask(api, "/series", name=SERIES, max_points=MAX_POINTS)
    fetched.clear()
    ask(api, "/series", name=SERIES, max_points=MAX_POINTS)
    ask(api, "/wait-classes", max_points=MAX_POINTS)
    assert len(fetched) >= 8
    for stmt, params, _ in fetched:
        compiled = (
            capped(queries.core(stmt), Settings.row_cap)
            .params(**params)
            .compile(dialect=oracle.dialect(), compile_kwargs={"render_postcompile": True})
        )
        text = compiled.string
        lists = re.findall(r"snap_id IN \(([^)]*)\)", text)
        assert len(lists) == 2 and all(0 < s.count(":snap_ids_") <= IN_LIST for s in lists), text[:400]
        assert len({i for k, v in params.items() if k.startswith("snap_ids_") for i in v}) <= MAX_POINTS
        assert text.endswith(f"FETCH FIRST {Settings.row_cap + 1} ROWS ONLY")
        sqlglot.parse_one(text, read="oracle")


# -- the rules applied to the store's rows -----------------------------------------------------------------------


def iso(text):
    return datetime.fromisoformat(text).replace(tzinfo=UTC).isoformat()


def snapshots(sql3, inst):
    """(snap_id, startup, end as in answers, epoch) of one instance, and the kept ones: a snapshot less than 300 s
    after the previous kept one of the same startup is merged (§6)."""
    rows = sql3.execute(
        "select snap_id, startup_time, end_interval_time from dba_hist_snapshot where dbid = ? and "
        "instance_number = ? order by snap_id",
        (DBID, inst),
    ).fetchall()
    every = [(s, up, iso(end), datetime.fromisoformat(end).timestamp()) for s, up, end in rows]
    kept = []
    for s in every:
        if not kept or s[1] != kept[-1][1] or s[3] - kept[-1][3] >= 300:
            kept.append(s)
    return every, kept


def intervals(sql3, inst, query):
    """[(end, delta, seconds)] of every valid interval of one instance's counter (§3, §4): `query` gives (snap_id,
    value) of the instance (? = dbid, instance)."""
    values = dict(sql3.execute(query, (DBID, inst)).fetchall())
    _, kept = snapshots(sql3, inst)
    return [
        (b[2], values[b[0]] - values[a[0]], b[3] - a[3])
        for a, b in itertools.pairwise(kept)
        if a[1] == b[1] and values[b[0]] >= values[a[0]]
    ]


def buckets(points, rows, start):
    """For each point (time, value), the rows (end, ...), in time order, with end in (previous point's time, its
    time]; `start`: the time before the first point's bucket."""
    ends = [r[0] for r in rows]
    cuts = [bisect_right(ends, t) for t in [start] + [t for t, _ in points]]
    return [rows[a:b] for a, b in itertools.pairwise(cuts)]


STAT = "select snap_id, {} from dba_hist_{} where dbid = ? and instance_number = ? and stat_name {} group by snap_id"


@pytest.mark.parametrize(
    "name,query,scale,den",
    [
        ("sysstat:redo size", STAT.format("sum(value)", "sysstat", "= 'redo size'"), 1, None),
        ("derived:aas", STAT.format("sum(value)", "sys_time_model", "= 'DB time'"), 1e-6, None),
        (
            "wait_class:User I/O",
            "select snap_id, sum(time_waited_micro_fg) from dba_hist_system_event where dbid = ? and "
            "instance_number = ? and wait_class = 'User I/O' group by snap_id",
            1e-6,
            None,
        ),
        (
            "iostat_function:LGWR:megabytes",
            "select snap_id, small_write_megabytes from dba_hist_iostat_function where "
            "dbid = ? and instance_number = ?",
            1,
            None,
        ),
        (
            "derived:host_cpu_pct",
            STAT.format("sum(value)", "osstat", "= 'BUSY_TIME'"),
            100,
            STAT.format("sum(value)", "osstat", "in ('BUSY_TIME', 'IDLE_TIME')"),
        ),
    ],
)
def test_a_counters_bucket_is_its_intervals_deltas_over_their_seconds(api, sql3, name, query, scale, den):
    """Per instance, each point is Σ delta / Σ seconds (or / Σ delta of the denominator) of the valid intervals since
    the previous point, at that point's real snapshot time: the totals of the range are those of every interval,
    across instance 2's crash and restart and instance 1's gap and manual snapshot."""
    body = ask(api, "/series", name=name, instance="each", max_points=MAX_POINTS)
    for s in body["series"]:
        inst = s["instance"]
        every, _ = snapshots(sql3, inst)
        full = intervals(sql3, inst, query)
        dens = {end: d for end, d, _ in intervals(sql3, inst, den)} if den else None
        parts = buckets(s["points"], full, every[0][2])
        assert all(parts) and sum(map(len, parts)) == len(full), "every interval in one bucket"
        for (t, value), part in zip(s["points"], parts, strict=True):
            under = fsum(dens[end] for end, _, _ in part) if den else fsum(sec for _, _, sec in part)
            assert value == pytest.approx(fsum(d for _, d, _ in part) / under * scale, rel=1e-6, abs=1e-4), t
        assert {t for t, _ in s["points"]} <= {end for end, _, _ in full}


def test_a_restart_inside_a_bucket_is_left_out_and_the_combined_point_says_so(api, sql3):
    """Instance 2's crash and clean restart bound buckets: the interval across each is in none (the raw total is the
    sum of the valid deltas), and the combined point at the first snapshot after each restart sums instance 1 only."""
    raw = ask(api, "/series", name="sysstat:redo size", rate="raw", instance="each", max_points=MAX_POINTS)["series"]
    query = STAT.format("sum(value)", "sysstat", "= 'redo size'")
    for s in raw:
        assert fsum(v for _, v in s["points"]) == pytest.approx(
            fsum(d for _, d, _ in intervals(sql3, s["instance"], query)), rel=1e-9
        )
    (combined,) = ask(api, "/series", name="sysstat:redo size", max_points=MAX_POINTS)["series"]
    every, _ = snapshots(sql3, 2)
    after = {s[2] for a, s in itertools.pairwise(every) if a[1] != s[1]}
    assert len(after) == 2
    assert {p["time"] for p in combined["partial"] if p["missing"] == [2]} >= after
    each = {
        s["instance"]: dict(map(tuple, s["points"]))
        for s in ask(api, "/series", name="sysstat:redo size", instance="each", max_points=MAX_POINTS)["series"]
    }
    for t, value in combined["points"]:
        assert value == pytest.approx(sum(each[i][t] for i in each if t in each[i]), rel=1e-6, abs=1e-3)


def test_a_readings_bucket_is_the_mean_of_its_readings(api, sql3):
    body = ask(api, "/series", name="sysstat:logons current", instance="each", max_points=MAX_POINTS)
    for s in body["series"]:
        inst = s["instance"]
        every, _ = snapshots(sql3, inst)
        value = dict(sql3.execute(STAT.format("value", "sysstat", "= 'logons current'"), (DBID, inst)).fetchall())
        rows = [(end, value[snap]) for snap, _, end, _ in every]
        assert s["points"][0] == [rows[0][0], rows[0][1]]  # the range's first snapshot: its own reading (§12)
        for (t, v), part in zip(s["points"][1:], buckets(s["points"][1:], rows, rows[0][0]), strict=True):
            assert part and v == pytest.approx(fsum(x for _, x in part) / len(part), rel=1e-6, abs=1e-4), t


@pytest.mark.parametrize(
    "name,metrics",
    [
        ("sysmetric:Host CPU Utilization (%)", ("Host CPU Utilization (%)",)),
        ("derived:Response Time Per Sec", ("Response Time Per Txn", "User Transaction Per Sec")),
    ],
)
def test_an_oracle_rates_bucket_is_its_averages_weighted_by_their_intervals(api, sql3, name, metrics):
    body = ask(api, "/series", name=name, instance="each", max_points=MAX_POINTS)
    for s in body["series"]:
        inst = s["instance"]
        every, _ = snapshots(sql3, inst)
        end = {snap: e for snap, _, e, _ in every}
        per: dict = {}
        for snap, metric, intsize, average in sql3.execute(
            "select snap_id, metric_name, intsize, average from dba_hist_sysmetric_summary where dbid = ? and "
            "instance_number = ?",
            (DBID, inst),
        ):
            per.setdefault(snap, {})[metric] = (intsize, average)
        rows = []
        for snap, m in per.items():
            product = 1.0
            for metric in metrics:
                product *= m[metric][1]
            rows.append((end[snap], m[metrics[0]][0] * product, m[metrics[0]][0]))
        rows.sort()
        for (t, v), part in zip(s["points"], buckets(s["points"], rows[1:], rows[0][0]), strict=True):
            assert part and v == pytest.approx(
                fsum(x for _, x, _ in part) / fsum(w for _, _, w in part), rel=1e-6, abs=1e-4
            ), t


def test_a_range_with_fewer_intervals_than_max_points_is_read_as_before(api, fetched):
    """A week (336 intervals) at the default max_points: every point, every snapshot's row, as before §21."""
    lo = CLEAN_RESTART - 100
    week = {"begin_snap": lo, "end_snap": lo + 336}
    default = ok(api, f"/api/v1/dbs/l.{DBID}/series", name=SERIES, instance="each", **week)
    every = ok(api, f"/api/v1/dbs/l.{DBID}/series", name=SERIES, instance="each", max_points=0, **week)
    assert default == every
    fetched.clear()
    ok(api, f"/api/v1/dbs/l.{DBID}/series", name="sysstat:redo size", max_points=300, **week)
    ((_stmt, params, rows),) = fetched
    assert rows <= 2 * 300 and any(k.startswith("snap_ids_") for k in params)  # past max_points: in buckets


def test_past_most_chosen_snapshots_every_row_is_read_into_the_same_buckets(api, fetched, monkeypatch):
    """More boundaries than queries.MOST_CHOSEN (binds: SQLite allows 32,766 in a statement): the range's rows are
    read as at full resolution, and the buckets are the same."""
    bucketed = ask(api, "/series", name=SERIES, instance="each", max_points=MAX_POINTS)
    monkeypatch.setattr(queries, "MOST_CHOSEN", MAX_POINTS // 2)
    fetched.clear()
    assert ask(api, "/series", name=SERIES, instance="each", max_points=MAX_POINTS) == bucketed
    assert fetched and not any(k.startswith("snap_ids_") for _, params, _ in fetched for k in params)
