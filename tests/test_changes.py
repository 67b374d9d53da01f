"""Parameters and the changes layer (docs/awr-rules.md §23): the values at a snapshot, their changes, the non-default
ones, and one list of what changed (restarts, parameter changes, new plans, version changes, benchmark runs).

Through the Flask test client on the demo store. Expectations come from the stories and straight from the store's
rows with plain SQL (consecutive snapshots' values compared in the test), never from the code under test.
"""

import csv
import io
import json
import shutil
import sqlite3
from datetime import datetime

import pytest
from conftest import assert_error
from contract import WITH_OFFSET, dbid_of, ok, timestamps, url

from app import create_app
from app.settings import Settings


def all_snaps(sql3, dbid):
    return sql3.execute("select min(snap_id), max(snap_id) from dba_hist_snapshot where dbid = ?", (dbid,)).fetchone()


def changes_by_sql(sql3, dbid, lo, hi):
    """(instance, snap_id, name, old, new): each parameter value that differs from the one at the instance's previous
    snapshot that has the parameter, both in [lo, hi], the later in (lo, hi]."""
    rows = sql3.execute(
        "select instance_number, parameter_name, snap_id, value from dba_hist_parameter where dbid = ? "
        "and snap_id between ? and ? order by 1, 2, 3",
        (dbid, lo, hi),
    ).fetchall()
    out, prev = set(), {}
    for inst, name, snap, value in rows:
        key = (inst, name)
        if key in prev and prev[key] != value and snap > lo:
            out.add((inst, snap, name, prev[key], value))
        prev[key] = value
    return out


def time_of(sql3, dbid, inst, snap):
    return sql3.execute(
        "select end_interval_time from dba_hist_snapshot where dbid = ? and instance_number = ? and snap_id = ?",
        (dbid, inst, snap),
    ).fetchone()[0]


def test_parameter_changes_are_the_values_that_differ_between_consecutive_snapshots(api, dbs, sql3):
    for db in dbs.values():
        dbid = dbid_of(db)
        lo, hi = all_snaps(sql3, dbid)
        body = ok(api, url(db, "/parameters/changes"), begin_snap=lo, end_snap=hi)
        assert body["columns"][:6] == ["time", "snap_id", "instance", "parameter", "old_value", "new_value"]
        got = {(r["instance"], r["snap_id"], r["parameter"], r["old_value"], r["new_value"]) for r in body["rows"]}
        expected = changes_by_sql(sql3, dbid, lo, hi)
        assert got == expected and expected
        for r in body["rows"]:
            assert r["time"].startswith(time_of(sql3, dbid, r["instance"], r["snap_id"]).replace(" ", "T"))
            assert WITH_OFFSET.fullmatch(r["time"])


def test_the_async_io_fix_sets_filesystemio_options_at_the_restart(api, dbs, stories, sql3):
    fix = stories["async_io_fix"]
    first = fix["first_snap_after"]
    body = ok(api, url(dbs["single"], "/parameters/changes"), begin_snap=first - 4, end_snap=first + 4)
    (change,) = [r for r in body["rows"] if r["parameter"] == "filesystemio_options"]
    assert (change["snap_id"], change["old_value"], change["new_value"]) == (first, "none", "SETALL")
    assert change["restart"] == fix["startup_time"] and change["isdefault"] == "FALSE"
    # DISK_ASYNCH_IO was on all along: the file system options kept the I/O synchronous
    for snap in (first - 1, first):
        values = {r["parameter"]: r for r in ok(api, url(dbs["single"], "/parameters"), snap_id=snap)["rows"]}
        assert values["disk_asynch_io"]["value"] == "TRUE"
        assert values["filesystemio_options"]["value"] == ("none" if snap < first else "SETALL")


def test_values_at_a_snapshot_are_the_rows_of_each_instance(api, dbs, stories, sql3):
    db, dbid = dbs["rac"], dbid_of(dbs["rac"])
    missing = stories["restart"]["missing_snap_ids"]
    for snap in (missing[1], stories["plan_regression"]["begin_snap"]):
        body = ok(api, url(db, "/parameters"), snap_id=snap)
        got = {
            (r["instance"], r["snap_id"], r["parameter"], r["value"], r["isdefault"], r["ismodified"])
            for r in body["rows"]
        }
        expected = set()
        for inst in (1, 2):  # each instance's own snapshot at or before (instance 2 was down)
            (own,) = sql3.execute(
                "select max(snap_id) from dba_hist_snapshot where dbid = ? and instance_number = ? and snap_id <= ?",
                (dbid, inst, snap),
            ).fetchone()
            expected |= set(
                sql3.execute(
                    "select instance_number, snap_id, parameter_name, value, isdefault, ismodified "
                    "from dba_hist_parameter where dbid = ? and instance_number = ? and snap_id = ?",
                    (dbid, inst, own),
                )
            )
        assert got == expected and len(got) > 100
    assert {r["instance"] for r in ok(api, url(db, "/parameters"), snap_id=snap, instance=2)["rows"]} == {2}


def test_non_default_parameters_of_a_range(api, dbs, stories, sql3):
    db, dbid = dbs["rac"], dbid_of(dbs["rac"])
    reg = stories["plan_regression"]
    lo, hi = reg["begin_snap"] - 2, reg["end_snap"] + 2
    body = ok(api, url(db, "/parameters/non-default"), begin_snap=lo, end_snap=hi)
    got = {(r["parameter"], r["instance"], r["value"], r["first_snap"], r["last_snap"]) for r in body["rows"]}
    expected = set(
        sql3.execute(
            "select parameter_name, instance_number, value, min(snap_id), max(snap_id) from dba_hist_parameter where "
            "dbid = ? and snap_id between ? and ? and (isdefault = 'FALSE' or ismodified != 'FALSE') group by 1, 2, 3",
            (dbid, lo, hi),
        )
    )
    assert got == expected
    # the optimizer setting raised for the regression: not at its default, with both values
    assert {v for p, _, v, *_ in got if p == "optimizer_index_cost_adj"} == {"100", "400"}


def new_plans_by_sql(sql3, dbid, lo, hi):
    """{(sql_id, plan): (first snap_id, previous plan)} of the plans whose first row of all history is in (lo, hi], of
    statements seen before with another plan."""
    out = {}
    for sql_id, plan, first in sql3.execute(
        "select sql_id, plan_hash_value, min(snap_id) from dba_hist_sqlstat where dbid = ? group by 1, 2 "
        "having min(snap_id) > ? and min(snap_id) <= ?",
        (dbid, lo, hi),
    ):
        before = sql3.execute(
            "select max(snap_id) from dba_hist_sqlstat where dbid = ? and sql_id = ? and snap_id < ?",
            (dbid, sql_id, first),
        ).fetchone()[0]
        if before is not None:
            (previous,) = sql3.execute(
                "select min(plan_hash_value) from dba_hist_sqlstat where dbid = ? and sql_id = ? and snap_id = ?",
                (dbid, sql_id, before),
            ).fetchone()
            out[(sql_id, plan)] = (first, previous)
    return out


def plans_back_by_sql(sql3, dbid, lo, hi):
    """{(sql_id, plan, snap_id): (first instance, previous plan)} from the rows: a plan at a snapshot in (lo, hi] of a
    statement whose previous snapshot (any instance) ran it nowhere and an earlier snapshot did."""
    at: dict = {}
    for sql_id, snap, inst, plan in sql3.execute(
        "select sql_id, snap_id, instance_number, plan_hash_value from dba_hist_sqlstat "
        "where dbid = ? and snap_id <= ?",
        (dbid, hi),
    ):
        at.setdefault(sql_id, {}).setdefault(snap, {}).setdefault(plan, set()).add(inst)
    out = {}
    for sql_id, per_snap in at.items():
        snaps = sorted(per_snap)
        seen: set = set()  # the plans of the snapshots before the previous one
        for k, snap in enumerate(snaps[1:], 1):
            previous = per_snap[snaps[k - 1]]
            if k > 1:
                seen.update(per_snap[snaps[k - 2]])
            for plan, instances in per_snap[snap].items():
                if lo < snap and plan not in previous and plan in seen:
                    out[(sql_id, plan, snap)] = (min(instances), min(previous))
    return out


def test_the_changes_around_the_plan_regression(api, dbs, stories, sql3):
    db, dbid = dbs["rac"], dbid_of(dbs["rac"])
    reg = stories["plan_regression"]
    lo, hi = reg["begin_snap"] - 3, reg["end_snap"] + 3
    body = ok(api, url(db, "/changes"), begin_snap=lo, end_snap=hi)
    assert body["columns"] == ["time", "snap_id", "instance", "kind", "text", "details"]
    rows = body["rows"]
    plans = {
        (r["details"]["sql_id"], r["details"]["plan_hash_value"]): (r["snap_id"], r["details"]["previous_plan"])
        for r in rows
        if r["kind"] == "plan"
    }
    assert plans == new_plans_by_sql(sql3, dbid, lo, hi) | {
        (sql_id, plan): (snap, previous)
        for (sql_id, plan, snap), (_, previous) in plans_back_by_sql(sql3, dbid, lo, hi).items()
    }
    assert plans[(reg["sql_id"], reg["bad_plan"])] == (reg["begin_snap"], reg["good_plan"])
    assert plans[(reg["sql_id"], reg["good_plan"])] == (reg["end_snap"], reg["bad_plan"])  # the good plan is back
    params = {
        (r["instance"], r["snap_id"], r["details"]["parameter"], r["details"]["old_value"], r["details"]["new_value"])
        for r in rows
        if r["kind"] == "parameter"
    }
    assert params == changes_by_sql(sql3, dbid, lo, hi)
    raised = {(i, s) for i, s, name, old, new in params if name == "optimizer_index_cost_adj" and new == "400"}
    assert raised == {(1, reg["begin_snap"]), (2, reg["begin_snap"])}  # with the bad plan, on both instances
    times = [datetime.fromisoformat(r["time"]) for r in rows]
    assert times == sorted(times) and all(WITH_OFFSET.fullmatch(t) for t in timestamps([r["time"] for r in rows]))
    assert not [r for r in rows if r["kind"] in ("restart", "version", "run")]


def test_the_async_io_fix_shows_the_restart_the_parameter_and_the_run_together(api, dbs, stories):
    fix = stories["async_io_fix"]
    first = fix["first_snap_after"]
    body = ok(api, url(dbs["single"], "/changes"), begin_snap=first - 2, end_snap=first + 2)
    kinds = {r["kind"]: r for r in body["rows"]}
    assert set(kinds) == {"restart", "parameter", "run"}
    assert kinds["restart"]["snap_id"] == kinds["parameter"]["snap_id"] == first
    assert kinds["restart"]["time"] == fix["startup_time"] and kinds["restart"]["instance"] == 1
    assert kinds["parameter"]["text"] == "filesystemio_options: none → SETALL (at the restart)"
    run = kinds["run"]["details"]
    assert run["slug"] == "async-io-fix-orcl" and run["begin_snap"] < first < run["end_snap"]
    # a range after the run's window holds no run
    after = ok(api, url(dbs["single"], "/changes"), begin_snap=run["end_snap"], end_snap=run["end_snap"] + 4)
    assert not [r for r in after["rows"] if r["kind"] == "run"]


def test_the_instance_2_crash_and_the_sga_resize(api, dbs, stories, sql3):
    db, dbid = dbs["rac"], dbid_of(dbs["rac"])
    lo, hi = all_snaps(sql3, dbid)
    rows = ok(api, url(db, "/changes"), begin_snap=lo, end_snap=hi)["rows"]
    restarts = [(r["instance"], r["snap_id"], r["time"]) for r in rows if r["kind"] == "restart"]
    assert restarts == [(2, stories["restart"]["first_snap_after"], stories["restart"]["startup_time"])]
    resized = {
        r["instance"]: r["details"]
        for r in rows
        if r["kind"] == "parameter" and r["details"]["parameter"] == "sga_target"
    }
    assert set(resized) == {1, 2}
    assert {(d["old_value"], d["new_value"]) for d in resized.values()} == {(str(64 << 30), str(80 << 30))}
    only_2 = ok(api, url(db, "/changes"), begin_snap=lo, end_snap=hi, instance=2)["rows"]
    assert {r["instance"] for r in only_2} <= {2, None} and len(only_2) < len(rows)
    # a size reads in binary units in the pins (issue 34): 64 GiB -> 80 GiB, the raw values in the details
    texts = {r["text"] for r in rows if r["kind"] == "parameter" and r["details"]["parameter"] == "sga_target"}
    assert texts == {"sga_target: 64 GB → 80 GB"}
    listed = ok(api, url(db, "/parameters/changes"), begin_snap=lo, end_snap=hi)["rows"]
    assert {r["unit"] for r in listed if r["parameter"] == "sga_target"} == {"bytes"}
    assert {r["unit"] for r in listed if r["parameter"] == "optimizer_index_cost_adj"} == {None}


@pytest.mark.parametrize(
    "name, value, shown",
    [
        ("sga_target", str(64 << 30), "64 GB"),
        ("SGA_TARGET", str(80 << 30), "80 GB"),  # Oracle's names are case-insensitive
        ("db_cache_size", str(1536), "1.5 KB"),
        ("pga_aggregate_target", str(1023 << 20), "1,023 MB"),
        ("pga_aggregate_target", str((1023 << 20) + (600 << 10)), "1 GB"),  # 1,023.6 MB reads 1,024: one of the next
        ("log_buffer", str(12345678), "11.8 MB"),  # 11.77... MiB: one decimal from 10 on
        ("db_32k_cache_size", "0", "0"),  # 0: not set, as Oracle means it
        ("sga_target", "8G", "8G"),  # not digits: as Oracle keeps it
        ("optimizer_index_cost_adj", "400", "400"),  # not a size
        ("sga_target", None, "NULL"),
    ],
)
def test_a_sizes_value_reads_in_binary_units(name, value, shown):
    """parameters.shown: a size parameter's bytes in the largest binary unit (1 KB = 1,024 bytes) that shows it as 1
    or more, as the page's Format.fmtValue does (0, 1 or 2 decimals by size); anything else as Oracle keeps it."""
    from app.history import parameters

    assert parameters.shown(name, value) == shown


def test_changes_as_csv(api, dbs, stories):
    first = stories["async_io_fix"]["first_snap_after"]
    r = api.get(
        url(dbs["single"], "/changes"), query_string={"begin_snap": first - 2, "end_snap": first + 2, "format": "csv"}
    )
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert list(rows[0]) == ["time", "snap_id", "instance", "kind", "text", "details"]
    param = next(x for x in rows if x["kind"] == "parameter")
    assert json.loads(param["details"])["new_value"] == "SETALL"
    for tail in ("/parameters", "/parameters/changes", "/parameters/non-default"):
        r = api.get(
            url(dbs["single"], tail), query_string={"begin_snap": first - 2, "end_snap": first + 2, "format": "csv"}
        )
        assert r.status_code == 200 and r.get_data(as_text=True).count("\r\n") > 1, tail


@pytest.mark.parametrize(
    "tail,query,parameter",
    [
        ("/changes", {"instance": "9"}, "instance"),
        ("/changes", {"from": "yesterday"}, "from"),
        ("/changes", {"begin_snap": "x"}, "begin_snap"),
        ("/changes", {"kind": "plan"}, "kind"),
        ("/changes", {"from": "2026-11-10", "begin_snap": "1"}, "from"),
        ("/parameters", {"snap_id": "abc"}, "snap_id"),
        ("/parameters", {"snap_id": "-1"}, "snap_id"),
        ("/parameters", {"snap_id": "1"}, "snap_id"),
        ("/parameters", {"snap_id": "99999999"}, "snap_id"),
        ("/parameters/changes", {"instance": "each"}, "instance"),
        ("/parameters/non-default", {"format": "xml"}, "format"),
    ],
)
def test_bad_input_is_a_400_naming_the_parameter(api, dbs, tail, query, parameter):
    assert_error(api.get(url(dbs["rac"], tail), query_string=query), 400, parameter)


def test_every_endpoint_is_in_the_openapi_document(doc):
    for path in (
        "/api/v1/dbs/{db}/changes",
        "/api/v1/dbs/{db}/parameters",
        "/api/v1/dbs/{db}/parameters/changes",
        "/api/v1/dbs/{db}/parameters/non-default",
    ):
        op = doc["paths"][path]["get"]
        assert "text/csv" in op["responses"]["200"]["content"] and "400" in op["responses"]
        assert op["responses"]["200"]["content"]["application/json"]["schema"]["required"] == ["columns", "rows"]


def test_differences_between_two_ranges_for_compare(app, dbs, stories, sql3):
    """history.parameters.differences: the values in force at the end of each range that differ (for compare)."""
    from app.history import parameters

    db = app.extensions["awrlens"].database(dbs["single"])
    first = stories["async_io_fix"]["first_snap_after"]
    a, b = db.resolve(begin_snap=first - 6, end_snap=first - 1), db.resolve(begin_snap=first, end_snap=first + 6)
    expected = []
    ends = {
        s: dict(
            sql3.execute(
                "select parameter_name, value from dba_hist_parameter where dbid = ? and snap_id = ?",
                (dbid_of(dbs["single"]), s),
            )
        )
        for s in (first - 1, first + 6)
    }
    for name in sorted(ends[first - 1]):
        if ends[first - 1][name] != ends[first + 6].get(name):
            expected.append(
                {
                    "parameter": name,
                    "instance": 1,
                    "a_value": ends[first - 1][name],
                    "b_value": ends[first + 6].get(name),
                }
            )
    assert (
        parameters.differences(db, a, b)
        == expected
        == [{"parameter": "filesystemio_options", "instance": 1, "a_value": "none", "b_value": "SETALL"}]
    )


@pytest.fixture(scope="module")
def upgraded(demo_store, stories, tmp_path_factory):
    """A copy of the demo store where ORCL's startup at the async I/O fix came up on a newer release, and where
    DB_DOMAIN, not set (NULL) before, was set at that restart (SCOPE=SPFILE); and where RACPROD's instance 2 has no
    executions (NULL) for the regression's bad plan; and where RACPROD's instance 2 started once more on its old
    release between two snapshots (no snapshot of that startup) and came back from its crash on a newer one."""
    path = tmp_path_factory.mktemp("upgraded") / "demo.sqlite"
    shutil.copy(demo_store[0], path)
    fix = stories["async_io_fix"]
    with sqlite3.connect(path) as con:
        con.execute(
            "update dba_hist_database_instance set version = '19.24.0.0.0' where dbid = ? and startup_time = ?",
            (fix["dbid"], fix["startup_time"][:19].replace("T", " ")),
        )
        assert con.total_changes == 1
        first, key = fix["first_snap_after"], "dbid = ? and parameter_name = 'db_domain'"
        hash_, last = con.execute(
            f"select parameter_hash, last_snap from awrlens_parameter where {key}", (fix["dbid"],)
        ).fetchone()
        con.execute(f"update awrlens_parameter set last_snap = ? where {key}", (first - 1, fix["dbid"]))
        con.execute(
            "insert into awrlens_parameter values (?, 1, ?, ?, ?, 'db_domain', 'example.com', 'FALSE', 'FALSE')",
            (fix["dbid"], hash_, first, last),
        )
        crash = stories["restart"]
        columns = [c for _, c, *_ in con.execute("pragma table_info(dba_hist_database_instance)")]
        picked = ", ".join("'2026-11-13 15:40:00'" if c == "startup_time" else c for c in columns)
        con.execute(
            f"insert into dba_hist_database_instance select {picked} from dba_hist_database_instance "
            "where dbid = ? and instance_number = 2 and startup_time < ?",
            (crash["dbid"], crash["startup_time"][:19].replace("T", " ")),
        )
        con.execute(
            "update dba_hist_database_instance set version = '19.24.0.0.0' where dbid = ? and startup_time = ?",
            (crash["dbid"], crash["startup_time"][:19].replace("T", " ")),
        )
        reg = stories["plan_regression"]
        con.execute(
            "update dba_hist_sqlstat set executions_delta = null where dbid = ? and instance_number = 2 "
            "and sql_id = ? and plan_hash_value = ?",
            (reg["dbid"], reg["sql_id"], reg["bad_plan"]),
        )
    return create_app(Settings.from_env({}, targets={"demo": {"sqlite": str(path)}})).test_client()


def test_a_version_change_at_a_startup(upgraded, dbs, stories):
    first = stories["async_io_fix"]["first_snap_after"]
    rows = ok(upgraded, url(dbs["single"], "/changes"), begin_snap=first - 2, end_snap=first + 2)["rows"]
    (version,) = [r for r in rows if r["kind"] == "version"]
    assert (version["snap_id"], version["instance"], version["time"]) == (
        first,
        1,
        stories["async_io_fix"]["startup_time"],
    )
    assert version["details"] == {"old_version": "19.0.0.0.0", "new_version": "19.24.0.0.0"}
    later = ok(upgraded, url(dbs["single"], "/changes"), begin_snap=first, end_snap=first + 4)["rows"]
    assert not [r for r in later if r["kind"] == "version"]  # seen at its first snapshot only
    assert version["text"] == "version 19.0.0.0.0 → 19.24.0.0.0"
    # a range that ends at the startup's first snapshot holds it (§12: (begin_snap, end_snap]); so does instance 1's
    for query in ({"end_snap": first}, {"end_snap": first + 2, "instance": 1}):
        rows = ok(upgraded, url(dbs["single"], "/changes"), **{"begin_snap": first - 2, **query})["rows"]
        assert [r["snap_id"] for r in rows if r["kind"] == "version"] == [first], query


def test_a_new_plans_executions_unknown_on_one_instance_add_nothing(upgraded, dbs, stories, sql3):
    """§23: a new plan's executions are its rows' EXECUTIONS_DELTA summed over the range; an instance's NULL (unknown)
    adds nothing: instance 1's executions alone."""
    reg = stories["plan_regression"]
    lo, hi = reg["begin_snap"] - 1, reg["begin_snap"] + 2
    rows = ok(upgraded, url(dbs["rac"], "/changes"), begin_snap=lo, end_snap=hi)["rows"]
    (bad,) = [r for r in rows if r["kind"] == "plan" and r["details"]["plan_hash_value"] == reg["bad_plan"]]
    (one,) = sql3.execute(
        "select sum(executions_delta) from dba_hist_sqlstat where dbid = ? and instance_number = 1 and sql_id = ? "
        "and plan_hash_value = ? and snap_id > ? and snap_id <= ?",
        (reg["dbid"], reg["sql_id"], reg["bad_plan"], lo, hi),
    ).fetchone()
    assert bad["details"]["executions"] == one > 0


def test_a_version_change_of_one_rac_instance(upgraded, dbs, stories):
    """§23: instance 2's startups: its first, one more on the same release (no change, and no snapshot), then the
    crash's on a newer one: one version change, at the crash's startup, seen at its first snapshot after; it is
    instance 2's change, not instance 1's."""
    crash = stories["restart"]
    first = crash["first_snap_after"]
    for instance, want in ((2, [(first, 2, crash["startup_time"])]), (1, [])):
        rows = ok(upgraded, url(dbs["rac"], "/changes"), begin_snap=first - 1, end_snap=first, instance=instance)
        versions = [r for r in rows["rows"] if r["kind"] == "version"]
        assert [(r["snap_id"], r["instance"], r["time"]) for r in versions] == want, instance
        assert [r["text"] for r in versions] == ["version 19.0.0.0.0 → 19.24.0.0.0"] * len(want)


def test_a_parameter_set_from_null_shows_null(upgraded, dbs, stories):
    """§23: NULL counts as a value: a parameter not set (NULL) and then set is a change, shown as NULL → value."""
    first = stories["async_io_fix"]["first_snap_after"]
    rows = ok(upgraded, url(dbs["single"], "/changes"), begin_snap=first - 2, end_snap=first + 2)["rows"]
    (domain,) = [r for r in rows if r["kind"] == "parameter" and r["details"]["parameter"] == "db_domain"]
    assert domain["text"] == "db_domain: NULL → example.com (at the restart)"
    assert (domain["details"]["old_value"], domain["details"]["new_value"]) == (None, "example.com")


def test_the_oracle_statements_over_the_view_give_what_the_stores_runs_give(app, dbs, sql3):
    """On Oracle the changes are found with LAG over DBA_HIST_PARAMETER and the non-default values grouped from it;
    the embedded store reads its runs of values (docs/awr-rules.md §23). Over the whole history, both give the same
    rows, and the view's LAG gives the changes plain SQL finds."""
    from app.history import parameters
    from app.store.awr import queries

    for db in dbs.values():
        dbid = dbid_of(db)
        d = app.extensions["awrlens"].database(db)
        lo, hi = all_snaps(sql3, dbid)
        v = d.store.views
        lag = d.rows(queries.parameter_changes(v), lo=lo, hi=hi)
        assert lag == d.rows(queries.parameter_changes(v, True), lo=lo, hi=hi)
        assert {(i, s, n, old, new) for i, s, n, old, new, *_ in lag} == changes_by_sql(sql3, dbid, lo, hi)
        for a, b in ((lo, hi), (lo + 100, lo + 300)):
            grouped = d.rows(queries.non_default_parameters(v), lo=a, hi=b)
            runs = d.rows(queries.non_default_parameters(v, True), lo=a, hi=b)
            assert sorted(grouped) == sorted(
                parameters._clipped(d.timeline(), runs, d.resolve(begin_snap=a, end_snap=b))
            )


def test_a_closed_range_of_changes_is_kept_only_as_long_as_the_snapshot_list(api, dbs, stories, app):
    """A benchmark run can be uploaded at any time, so even a closed range's changes may change: kept for
    AWRLENS_SNAPSHOT_TTL, where a closed range's parameters are kept for a day."""
    first = stories["async_io_fix"]["first_snap_after"]
    query = {"begin_snap": first - 2, "end_snap": first + 2}
    changes = api.get(url(dbs["single"], "/changes"), query_string=query)
    params = api.get(url(dbs["single"], "/parameters/changes"), query_string=query)
    assert changes.cache_control.max_age == int(app.config["SETTINGS"].snapshot_ttl) < 86400
    assert params.cache_control.max_age == 86400


@pytest.mark.parametrize("start", ["before", "inside"])
def test_a_plan_back_after_another_is_a_change(api, dbs, stories, sql3, start):
    """The regression's good plan returns at its end_snap: a change whether the range starts before the regression
    (the plan's own snapshots in the range have a gap) or inside it (its earlier snapshots are before the range)."""
    db, dbid = dbs["rac"], dbid_of(dbs["rac"])
    reg = stories["plan_regression"]
    lo = reg["begin_snap"] - 3 if start == "before" else reg["end_snap"] - 2
    hi = reg["end_snap"] + 3
    body = ok(api, url(db, "/changes"), begin_snap=lo, end_snap=hi)
    back = {
        (r["details"]["sql_id"], r["details"]["plan_hash_value"], r["snap_id"]): (
            r["instance"],
            r["details"]["previous_plan"],
        )
        for r in body["rows"]
        if r["kind"] == "plan" and " back " in r["text"]
    }
    assert back == plans_back_by_sql(sql3, dbid, lo, hi)
    assert back[(reg["sql_id"], reg["good_plan"], reg["end_snap"])] == (1, reg["bad_plan"])


def drawn(value):
    """A number as answers give it (docs/awr-rules.md §19): four decimals inside ±1,000,000, whole beyond."""
    return round(value, 4) if abs(value) < 1e6 else round(value)


def local_time(sql3, dbid, inst, snap, offset):
    """A snapshot's END_INTERVAL_TIME as ISO 8601 with the database's offset."""
    return time_of(sql3, dbid, inst, snap).replace(" ", "T") + offset


def test_each_change_around_the_plan_regression_in_full(api, dbs, stories, sql3):
    """§23 field by field: a parameter change's text (old → new) and details (the instance's previous snapshot and its
    time, ISDEFAULT and ISMODIFIED of the new value, no restart, its container); a new plan's text, its first instance
    and that snapshot's time, and its elapsed seconds and executions summed over the range's rows; a plan back's text
    and details. RACPROD is at +01:00 (its demo description). In time order, and at one time in the order restart,
    parameter, plan, version, run (the order app/history/changes.py names them), then by instance."""
    db, dbid = dbs["rac"], dbid_of(dbs["rac"])
    reg = stories["plan_regression"]
    lo, hi = reg["begin_snap"] - 3, reg["end_snap"] + 3
    rows = ok(api, url(db, "/changes"), begin_snap=lo, end_snap=hi)["rows"]
    for r in rows:
        if r["kind"] == "parameter":
            d = r["details"]
            i, name = r["instance"], d["parameter"]
            (old_snap,) = sql3.execute(
                "select max(snap_id) from dba_hist_parameter where dbid = ? and instance_number = ? and "
                "parameter_name = ? and snap_id < ?",
                (dbid, i, name, r["snap_id"]),
            ).fetchone()
            (new,) = sql3.execute(
                "select value, isdefault, ismodified, con_dbid from dba_hist_parameter where dbid = ? and "
                "instance_number = ? and parameter_name = ? and snap_id = ?",
                (dbid, i, name, r["snap_id"]),
            ).fetchall()
            assert r["text"] == f"{name}: {d['old_value']} → {d['new_value']}"
            assert d == {
                "parameter": name,
                "old_value": d["old_value"],
                "new_value": new[0],
                "old_snap_id": old_snap,
                "old_time": local_time(sql3, dbid, i, old_snap, "+01:00"),
                "isdefault": new[1],
                "ismodified": new[2],
                "restart": None,
                "con_dbid": new[3],
            }
            assert r["time"] == local_time(sql3, dbid, i, r["snap_id"], "+01:00")
        elif r["kind"] == "plan":
            d = r["details"]
            sql_id, plan = d["sql_id"], d["plan_hash_value"]
            assert r["time"] == local_time(sql3, dbid, r["instance"], r["snap_id"], "+01:00")
            if " back " in r["text"]:
                assert r["text"] == f"plan {plan} of SQL {sql_id} back (before: {d['previous_plan']})"
                assert set(d) == {"sql_id", "plan_hash_value", "previous_plan", "con_dbid"}
                continue
            first, inst, con = sql3.execute(
                "select snap_id, min(instance_number), con_dbid from dba_hist_sqlstat where dbid = ? and sql_id = ? "
                "and plan_hash_value = ? group by snap_id order by snap_id limit 1",
                (dbid, sql_id, plan),
            ).fetchone()
            elapsed, execs = sql3.execute(
                "select sum(elapsed_time_delta), sum(executions_delta) from dba_hist_sqlstat where dbid = ? and "
                "sql_id = ? and plan_hash_value = ? and snap_id > ? and snap_id <= ?",
                (dbid, sql_id, plan, lo, hi),
            ).fetchone()
            assert (r["snap_id"], r["instance"]) == (first, inst)
            assert r["text"] == f"new plan {plan} of SQL {sql_id} (before: {d['previous_plan']})"
            assert d == {
                "sql_id": sql_id,
                "plan_hash_value": plan,
                "previous_plan": d["previous_plan"],
                "con_dbid": con,
                "elapsed_s": drawn(elapsed / 1e6),
                "executions": execs,
            }
    assert {r["kind"] for r in rows} == {"parameter", "plan"}
    order = ("restart", "parameter", "plan", "version", "run")
    keys = [(datetime.fromisoformat(r["time"]), order.index(r["kind"]), r["instance"]) for r in rows]
    assert keys == sorted(keys)
    at_once = {}
    for t, kind, inst in keys:
        at_once.setdefault(t, set()).add((kind, inst))
    assert any(len(both) > 2 for both in at_once.values())  # both instances' parameter and a plan at one time


def test_a_restart_in_full_and_only_after_the_ranges_first_snapshot(api, dbs, stories, sql3):
    """§4, §23: a restart is timed at the new STARTUP_TIME, with the end time of the instance's first snapshot after it;
    it belongs to a range whose (begin_snap, end_snap] holds that snapshot, so not to a range that starts there."""
    db, dbid, crash = dbs["rac"], dbid_of(dbs["rac"]), stories["restart"]
    first = crash["first_snap_after"]
    rows = ok(api, url(db, "/changes"), begin_snap=first - 1, end_snap=first)["rows"]
    assert [r for r in rows if r["kind"] == "restart"] == [
        {
            "time": crash["startup_time"],
            "snap_id": first,
            "instance": 2,
            "kind": "restart",
            "text": "instance 2 restarted",
            "details": {"first_snapshot_time": local_time(sql3, dbid, 2, first, "+01:00")},
        }
    ]
    one = ok(api, url(db, "/changes"), begin_snap=first - 1, end_snap=first, instance=1)["rows"]
    assert not [r for r in one if r["kind"] == "restart"]  # instance 2's restart is not instance 1's change
    after = ok(api, url(db, "/changes"), begin_snap=first, end_snap=first + 2)["rows"]
    assert not [r for r in after if r["kind"] == "restart"]
    assert ok(api, url(db, "/changes"), begin_snap=first, end_snap=first)["rows"] == []  # one snapshot: no interval


def run_of(db_key, begin, end, **more):
    return {
        "awr_db": db_key,
        "awr_begin_snap": begin,
        "awr_end_snap": end,
        "slug": "load-test",
        "title": "Charge à 200 utilisateurs",
        "kind": "load",
        "started": None,
        "finished": None,
        **more,
    }


def test_a_benchmark_run_is_a_change_where_its_window_overlaps_the_range(app, dbs, window, sql3):
    """§23: a run linked to this database whose AWR window (awr_begin_snap, awr_end_snap] overlaps (begin_snap,
    end_snap], timed at its start in the database's time zone (RACPROD: +01:00), or at its window's first snapshot's end
    (the lowest instance's) when it has no start, and skipped when neither is known; a run of another database, or
    without a window, is not one."""
    from app.history import changes

    d = app.extensions["awrlens"].database(dbs["rac"])
    b, e = window[0] + 2, window[0] + 5
    run = run_of(d.key, b, e, started="2026-11-17T10:00:00+00:00", finished="2026-11-17T11:00:00+00:00")

    def found(lo, hi, runs):
        return changes.runs(d, d.resolve(begin_snap=lo, end_snap=hi), runs)

    (got,) = found(b - 2, b + 1, [run])
    assert got == {
        "time": "2026-11-17T11:00:00+01:00",
        "snap_id": b,
        "instance": None,
        "kind": "run",
        "text": "benchmark run: Charge à 200 utilisateurs",
        "details": {
            "slug": "load-test",
            "title": "Charge à 200 utilisateurs",
            "kind": "load",
            "started": "2026-11-17T10:00:00+00:00",
            "finished": "2026-11-17T11:00:00+00:00",
            "begin_snap": b,
            "end_snap": e,
        },
    }
    assert found(b - 2, b, [run]) == [] and found(e, e + 2, [run]) == []  # the windows only touch
    assert len(found(e - 1, e + 2, [run])) == 1
    assert found(b - 2, e, [{**run, "awr_db": "other.1"}, {**run, "awr_begin_snap": None}]) == []
    (unstarted,) = found(b - 2, e, [{**run, "started": None}])
    assert unstarted["time"] == local_time(sql3, dbid_of(dbs["rac"]), 1, b, "+01:00")
    assert found(b - 2, e, [{**run, "started": None, "awr_begin_snap": 1}]) == []  # no snapshot 1, no start
    # a range of one snapshot inside the window has no interval, so no change (§12)
    assert changes.compute(d, d.resolve(begin_snap=b + 1, end_snap=b + 1), "all", [run])["rows"] == []


def test_the_csv_details_are_json_with_sorted_keys_and_text_as_it_is(app, dbs):
    """The CSV's details column: the details as JSON, keys sorted (one text per set of details), non-ASCII text as
    written (the file is UTF-8)."""
    from app.history import changes

    body = {"rows": [{"time": "t", "kind": "run", "details": {"title": "Charge à 200", "begin_snap": 3}}]}
    assert changes.table(body) == [
        {"time": "t", "kind": "run", "details": '{"begin_snap": 3, "title": "Charge à 200"}'}
    ]
