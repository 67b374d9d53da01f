"""Getting benchmark runs in: the run document's checks, CSV and JSON files through `flask runs import`, and
the store's write path (one transaction, slug conflicts, replace, tables created when missing, a read-only store).

Each test writes to its own SQLite file, never to the session's demo store (whose bytes other tests compare).
"""

import copy
import json
import re
import sqlite3
from pathlib import Path

import pytest

from app import create_app
from app.errors import ApiError, BadParameter, Conflict, ReadOnly
from app.runs import repo
from app.runs.cli import oracle_ddl
from app.runs.files import read_csv
from app.runs.model import MAX_MEASUREMENTS, parse_run
from app.settings import Settings
from app.store.runs_schema import TABLES

ROOT = Path(__file__).resolve().parent.parent

RUN = {
    "slug": "httpd-freebsd-vs-linux",
    "title": "Apache httpd: FreeBSD 13.0 vs Oracle Linux 8.4",
    "kind": "ab",
    "description": "4 vCPU / 4 GB VMs, 1000 virtual users, 20 minutes.",
    "environment": {"host": "lab", "instance_type": "VM 4 vCPU", "vcpus": 4, "cores": 4, "db_version": None},
    "started": "2021-09-01T10:00:00+02:00",
    "finished": "2021-09-01T10:20:00+02:00",
    "parameters": {"users": 1000, "minutes": 20},
    "visibility": "public",
    "measurements": [
        {"series": "Linux", "x": "requests/s", "y": 8800, "unit": "1/s"},
        {"series": "FreeBSD", "x": "requests/s", "y": 10300, "unit": "1/s"},
        {"series": "Linux", "x": "system CPU", "y": 47, "unit": "%", "extra": {"source": "004"}},
        {"series": "FreeBSD", "x": "system CPU", "y": 70, "unit": "%", "extra": {"source": "004"}},
    ],
}


def doc(**changes):
    d = copy.deepcopy(RUN)
    d.update(changes)
    return d


def rows(i, **changes):
    """RUN's measurements with row i (1-based) changed."""
    ms = copy.deepcopy(RUN["measurements"])
    ms[i - 1].update(changes)
    return ms


@pytest.fixture()
def lab(tmp_path):
    """An app whose only target is an empty SQLite file: no AWR views and no test-result tables yet."""
    path = tmp_path / "lab.sqlite"
    sqlite3.connect(path).close()
    app = create_app(Settings.from_env({}, targets={"lab": {"sqlite": str(path)}}))
    app.db_path = path
    return app


def store_of(app):
    return app.extensions["awrlens"].stores["lab"]


def stored(path):
    """{slug: number of measurements} straight from the file."""
    con = sqlite3.connect(path)
    try:
        return dict(
            con.execute(
                "select r.slug, (select count(*) from bench_measurement m where m.run_id = r.run_id) from bench_run r"
            )
        )
    except sqlite3.OperationalError:  # no tables
        return {}
    finally:
        con.close()


def runs(app, *args):
    return app.test_cli_runner().invoke(args=["runs", *args])


# -- the run document --------------------------------------------------------------------------------------------


def test_a_valid_run_is_parsed_and_normalised():
    run = parse_run(RUN, targets=["demo"])
    assert run.slug == RUN["slug"] and run.kind == "ab" and run.visibility == "public"
    assert run.started.isoformat() == "2021-09-01T08:00:00" and run.finished.isoformat() == "2021-09-01T08:20:00"
    assert run.environment == {"host": "lab", "instance_type": "VM 4 vCPU", "vcpus": 4, "cores": 4}
    assert [(m.series, m.x, m.y, m.unit) for m in run.measurements][:2] == [
        ("Linux", "requests/s", 8800.0, "1/s"),
        ("FreeBSD", "requests/s", 10300.0, "1/s"),
    ]
    assert run.measurements[2].extra == {"source": "004"}


def test_a_whole_number_may_have_a_zero_fraction():
    """8.0 is an integer to JSON Schema, so to the OpenAPI document: accepted, stored as 8 (found by test_fuzz)."""
    run = parse_run(
        doc(
            environment={"vcpus": 8.0, "cores": 4.0},
            awr={"target": "demo", "dbid": 1645932817.0, "begin_snap": 100.0, "end_snap": 104},
        ),
        targets=["demo"],
    )
    assert run.environment == {"vcpus": 8, "cores": 4}
    assert run.awr == {"target": "demo", "dbid": 1645932817, "begin_snap": 100, "end_snap": 104}
    assert all(type(v) is int for v in [*run.environment.values(), run.awr["dbid"], run.awr["begin_snap"]])


BAD = [  # (document, parameter named, words in the message)
    (doc(slug=None), "slug", ["required"]),
    (doc(slug="Has Spaces"), "slug", ["malformed"]),
    (doc(slug="-x"), "slug", ["malformed"]),
    (doc(slug="x" * 81), "slug", ["80"]),
    (doc(slug="compare"), "slug", ["reserved"]),
    (doc(title=""), "title", ["required"]),
    (doc(title="two\nlines"), "title", ["one line"]),
    (doc(kind="speed"), "kind", ["cpu_consistency"]),
    (doc(visibility="secret"), "visibility", ["public or private"]),
    (doc(description="é" * 2001), "description", ["4000 bytes"]),
    (doc(colour="red"), "colour", ["unknown field"]),
    (doc(environment={"vcpus": 0}), "environment.vcpus", ["whole number"]),
    (doc(environment={"vcpus": "16"}), "environment.vcpus", ["whole number"]),
    (doc(environment={"vcpus": 8.5}), "environment.vcpus", ["whole number"]),
    (doc(environment={"vcpus": 8, "cores": 16}), "environment.cores", ["more than"]),
    (doc(environment={"ram": 4}), "environment.ram", ["unknown field"]),
    (doc(environment=[]), "environment", ["object"]),
    (doc(started="yesterday"), "started", ["ISO 8601"]),
    (doc(started="2021-09-01T11:00:00+02:00"), "finished", ["before started"]),
    (doc(parameters=[1, 2]), "parameters", ["object"]),
    (doc(parameters={"a": "x" * 4100}), "parameters", ["4000 bytes"]),
    (doc(awr={"target": "elsewhere", "dbid": 1, "begin_snap": 1, "end_snap": 2}), "awr.target", ["configured"]),
    (doc(awr={"target": "demo", "dbid": 1, "begin_snap": 5, "end_snap": 2}), "awr.begin_snap", ["after"]),
    (doc(awr={"target": "demo", "dbid": "1", "begin_snap": 1, "end_snap": 2}), "awr.dbid", ["whole number"]),
    (doc(awr={"target": "demo", "dbid": 1, "begin_snap": 1}), "awr.end_snap", ["whole number"]),
    (
        doc(awr={"target": "demo", "dbid": 1, "begin_snap": 1, "end_snap": float("inf")}),
        "awr.end_snap",
        ["whole number"],
    ),
    (doc(measurements=[]), "measurements", ["non-empty"]),
    (doc(measurements={"series": "a"}), "measurements", ["list"]),
    (doc(measurements=rows(2, y="fast")), "measurements[2].y", ["row 2", "field y", "'fast'"]),
    (doc(measurements=rows(3, y=None)), "measurements[3].y", ["row 3", "field y"]),
    (doc(measurements=rows(3, y=True)), "measurements[3].y", ["row 3", "field y"]),
    (doc(measurements=rows(4, y=float("inf"))), "measurements[4].y", ["row 4", "finite"]),
    (doc(measurements=rows(4, y=10**400)), "measurements[4].y", ["row 4", "finite"]),
    (doc(measurements=rows(1, series="")), "measurements[1].series", ["row 1", "field series"]),
    (doc(measurements=rows(2, series="x" * 101)), "measurements[2].series", ["row 2", "100"]),
    (doc(measurements=rows(3, x=None)), "measurements[3].x", ["row 3", "field x"]),
    (doc(measurements=rows(3, x=False)), "measurements[3].x", ["row 3", "field x"]),
    (doc(measurements=rows(2, x=5)), "measurements[2].x", ["row 2", "mixes"]),
    (doc(measurements=rows(4, unit="u" * 21)), "measurements[4].unit", ["row 4", "field unit"]),
    (doc(measurements=rows(4, extra=["a"])), "measurements[4].extra", ["row 4", "object"]),
    (doc(measurements=rows(4, extra={"k": "v" * 4000})), "measurements[4].extra", ["row 4", "4000 bytes"]),
    (doc(measurements=rows(4, extra={"k": float("nan")})), "measurements[4].extra", ["row 4", "NaN"]),
    (doc(measurements=rows(3, colour="red")), "measurements[3].colour", ["row 3", "field colour", "unknown"]),
    (doc(measurements=[*RUN["measurements"], "row"]), "measurements[5]", ["row 5", "object"]),
    ([RUN], None, ["JSON object"]),
]


@pytest.mark.parametrize("document, parameter, words", BAD, ids=[f"{i}-{b[1]}" for i, b in enumerate(BAD)])
def test_a_bad_document_names_the_row_and_the_field(document, parameter, words):
    with pytest.raises(BadParameter) as info:
        parse_run(document, targets=["demo"])
    assert info.value.parameter == parameter
    for word in words:
        assert word in info.value.message, info.value.message


def test_too_many_measurements():
    many = [{"series": "s", "x": i, "y": 1.0} for i in range(MAX_MEASUREMENTS + 1)]
    with pytest.raises(BadParameter, match=f"at most {MAX_MEASUREMENTS}"):
        parse_run(doc(measurements=many))


# -- CSV --------------------------------------------------------------------------------------------------------


def test_csv_rows_become_measurements_with_numbers_categories_and_extra_columns():
    text = "\ufeffseries,x,y,unit,session,note\nN=1,1,40.1,s,1,\nN=2,2,40.3,s,2,warm\n\nN=2,2.5,1e1,s,3,x\n"
    document, where = read_csv(text)
    assert document["measurements"] == [
        {"series": "N=1", "x": 1, "y": 40.1, "unit": "s", "extra": {"session": 1}},
        {"series": "N=2", "x": 2, "y": 40.3, "unit": "s", "extra": {"session": 2, "note": "warm"}},
        {"series": "N=2", "x": 2.5, "y": 10.0, "unit": "s", "extra": {"session": 3, "note": "x"}},
    ]
    assert where == ["line 2", "line 3", "line 5"]


@pytest.mark.parametrize(
    "text, parameter, words",
    [
        ("", "measurements", ["empty"]),
        ("series,y\na,1\n", "measurements", ["missing x"]),
        ("series,x,y,x\na,1,2,3\n", "measurements", ["repeated"]),
        ("series,x,y\na,1,2\nb,2\n", "measurements[2]", ["row 2 (line 3)", "2 cells"]),
    ],
)
def test_bad_csv_files(text, parameter, words):
    with pytest.raises(BadParameter) as info:
        document, where = read_csv(text)
        parse_run({**doc(), **document}, where=where)
    assert info.value.parameter == parameter
    assert all(w in info.value.message for w in words), info.value.message


def test_a_bad_csv_cell_is_named_by_row_line_and_field():
    document, where = read_csv("series,x,y\na,1,2\na,2,3\na,3,n/a\n")
    with pytest.raises(BadParameter) as info:
        parse_run({**doc(), **document}, where=where)
    assert info.value.parameter == "measurements[3].y"
    assert info.value.message.startswith("row 3 (line 4), field y:")


# -- flask runs import ------------------------------------------------------------------------------------------


def test_import_json_then_list(lab, tmp_path):
    assert stored(lab.db_path) == {}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RUN))
    result = runs(lab, "import", str(path))
    assert result.exit_code == 0, result.output
    assert "Stored run 'httpd-freebsd-vs-linux' (ab, 4 measurements, public)" in result.output
    assert stored(lab.db_path) == {RUN["slug"]: 4}
    listed = runs(lab, "list")
    assert RUN["slug"] in listed.output and "Apache httpd" in listed.output


def test_import_csv_with_the_run_fields_as_options(lab, tmp_path):
    path = tmp_path / "sweep.csv"
    path.write_text("series,x,y,unit,volume\nio1 MB/s,8,8,MB/s,100 GB\nio1 MB/s,64,32,MB/s,100 GB\n")
    result = runs(
        lab,
        "import",
        str(path),
        "--slug",
        "ebs-sweep",
        "--title",
        "EBS sweep",
        "--kind",
        "io_sweep",
        "--vcpus",
        "16",
        "--cores",
        "8",
        "--visibility",
        "private",
        "--started",
        "2017-03-01T10:00:00",
    )
    assert result.exit_code == 0, result.output
    got = repo.get_run(store_of(lab), "ebs-sweep", private=True)
    assert got["run"]["vcpus"] == 16 and got["run"]["cores"] == 8 and got["run"]["visibility"] == "private"
    assert got["run"]["started"] == "2017-03-01T10:00:00+00:00"
    assert [(r["x"], r["y"], r["extra"]) for r in got["rows"]] == [
        (8.0, 8.0, {"volume": "100 GB"}),
        (64.0, 32.0, {"volume": "100 GB"}),
    ]
    assert got["extra_columns"] == ["volume"]


def test_import_refuses_a_bad_row_and_stores_nothing(lab, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("series,x,y\na,1,2\na,2,3\na,3,slow\na,4,5\n")
    result = runs(lab, "import", str(path), "--slug", "s", "--title", "t", "--kind", "other")
    assert result.exit_code == 1
    assert "row 3 (line 4), field y" in result.output and "[measurements[3].y]" in result.output
    assert stored(lab.db_path) == {}
    missing = runs(lab, "import", str(path), "--title", "t", "--kind", "other")
    assert missing.exit_code == 1 and "slug is required" in missing.output


def test_an_existing_slug_is_refused_unless_replace_is_asked(lab, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RUN))
    assert runs(lab, "import", str(path)).exit_code == 0
    again = runs(lab, "import", str(path))
    assert again.exit_code == 1 and "exists" in again.output and "--replace" in again.output
    path.write_text(json.dumps(doc(measurements=RUN["measurements"][:2], title="Fewer rows")))
    replaced = runs(lab, "import", str(path), "--replace")
    assert replaced.exit_code == 0 and "Replaced run" in replaced.output
    assert stored(lab.db_path) == {RUN["slug"]: 2}
    assert repo.get_run(store_of(lab), RUN["slug"], True)["run"]["title"] == "Fewer rows"


def test_a_run_exported_by_the_api_imports_again(lab, tmp_path, client):
    """GET /api/v1/benchmarks/{slug} from one store, `flask runs import` into another: the same run."""
    answer = client.get("/api/v1/benchmarks/async-io-fix-orcl").get_json()
    path = tmp_path / "exported.json"
    path.write_text(json.dumps(answer))
    result = runs(lab, "import", str(path))
    assert result.exit_code == 1 and "awr.target 'demo' is not a configured target" in result.output
    answer["run"]["awr_db"] = answer["run"]["awr_db"].replace("demo.", "lab.")
    path.write_text(json.dumps(answer))
    result = runs(lab, "import", str(path))
    assert result.exit_code == 0, result.output
    again = repo.get_run(store_of(lab), "async-io-fix-orcl", True)
    for key in (
        "title",
        "kind",
        "visibility",
        "description",
        "parameters",
        "started",
        "finished",
        "vcpus",
        "db_version",
        "awr_begin_snap",
        "awr_end_snap",
    ):
        assert again["run"][key] == answer["run"][key], key
    assert again["run"]["awr_db"] == answer["run"]["awr_db"]
    assert again["rows"] == answer["rows"]


def test_delete(lab, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RUN))
    runs(lab, "import", str(path))
    assert runs(lab, "delete", RUN["slug"]).exit_code == 0
    assert stored(lab.db_path) == {}
    assert runs(lab, "delete", RUN["slug"]).exit_code == 1


# -- the write path: one transaction ---------------------------------------------------------------------------


def test_a_write_that_fails_half_way_leaves_nothing(lab, monkeypatch):
    """The run row is inserted, then the measurements fail: the run row goes too, and on a replace the old run and
    all its measurements are still there."""
    store = store_of(lab)
    repo.save(store, parse_run(RUN))
    before = repo.get_run(store, RUN["slug"], True)
    real = repo._measurement_row

    def failing(run_id, seq, m):
        if seq == 3:
            raise RuntimeError("disk full")
        return real(run_id, seq, m)

    monkeypatch.setattr(repo, "_measurement_row", failing)
    with pytest.raises(ApiError):
        repo.save(store, parse_run(doc(slug="second")))
    with pytest.raises(ApiError):
        repo.save(store, parse_run(doc(title="Replacement")), replace=True)
    assert stored(lab.db_path) == {RUN["slug"]: 4}
    after = repo.get_run(store, RUN["slug"], True)
    assert after == before


def test_a_constraint_violation_rolls_back_and_is_a_409(lab):
    """A duplicate slug that gets past the check (two uploads at once) is stopped by the unique key."""
    store = store_of(lab)
    repo.save(store, parse_run(RUN))

    def sneak(conn):
        from sqlalchemy import insert

        from app.store.runs_schema import bench_run

        conn.execute(
            insert(bench_run).values(
                slug="other", title="t", kind="ab", visibility="public", created_at=parse_run(RUN).started
            )
        )
        conn.execute(
            insert(bench_run).values(
                slug=RUN["slug"], title="t", kind="ab", visibility="public", created_at=parse_run(RUN).started
            )
        )

    with pytest.raises(Conflict):
        store.write(sneak)
    assert stored(lab.db_path) == {RUN["slug"]: 4}


def test_tables_are_created_on_the_first_write_and_read_as_empty_before(lab):
    store = store_of(lab)
    assert repo.list_runs(store, private=True) == []
    with pytest.raises(ApiError) as info:
        repo.get_run(store, "nope", True)
    assert info.value.status == 404
    repo.save(store, parse_run(RUN))
    con = sqlite3.connect(lab.db_path)
    names = {r[0] for r in con.execute("select name from sqlite_master where type = 'table'")}
    con.close()
    assert names == {"bench_run", "bench_measurement"}
    assert [r["slug"] for r in repo.list_runs(store, private=True)] == [RUN["slug"]]


def test_reads_stay_read_only(lab):
    """The AWR side of the store is opened read-only: a write through rows() is refused by SQLite itself."""
    from sqlalchemy import text

    store = store_of(lab)
    with pytest.raises(ApiError):
        store.rows(text("create table sneaky (a)"))
    assert stored(lab.db_path) == {}


def test_a_read_only_store_refuses_writes_with_a_clear_503(lab, monkeypatch):
    """What the demo stage on Lambda sees (the package is a read-only file system): SQLite's own read-only error,
    here provoked by opening the write connection read-only, becomes 503 read_only; reads go on."""
    store = store_of(lab)
    repo.save(store, parse_run(RUN))
    monkeypatch.setattr(store, "_write_url", lambda: f"sqlite:///file:{store.path}?mode=ro&uri=true")
    store._writer = None
    with pytest.raises(ReadOnly) as info:
        repo.save(store, parse_run(doc(slug="more")))
    assert info.value.status == 503 and info.value.code == "read_only"
    assert "read-only" in info.value.message and "lab.sqlite" in info.value.message
    assert [r["slug"] for r in repo.list_runs(store, private=True)] == [RUN["slug"]]
    path = Path(store.path).with_name("run.json")
    path.write_text(json.dumps(doc(slug="more")))
    result = runs(lab, "import", str(path))
    assert result.exit_code == 1 and "read-only" in result.output


# -- Oracle DDL ------------------------------------------------------------------------------------------------


def _statements(sql):
    body = "\n".join(line for line in sql.splitlines() if not line.startswith("--"))
    return [re.sub(r"\s+", " ", s).strip() for s in body.split(";") if s.strip()]


def test_the_oracle_ddl_in_infra_matches_the_tables_the_app_uses():
    script = (ROOT / "infra" / "oracle" / "bench_tables.sql").read_text()
    assert _statements(script) == _statements(oracle_ddl())
    for t in TABLES:
        assert f"CREATE TABLE {t.name} (" in script  # unquoted: BENCH_RUN, BENCH_MEASUREMENT in the dictionary
        for c in t.columns:
            assert re.search(rf"^\s*{c.name} ", script, re.M), c.name


# -- Oracle: the same statements, compiled for it ------------------------------------------------------------------


class _Result:
    inserted_primary_key = (7,)

    def scalar(self):
        return None


class OracleLike:
    """Stands in for an OracleStore: records every statement compiled for Oracle, returns no rows."""

    dialect, alias = "oracle", "prod"

    def __init__(self):
        from sqlalchemy.dialects import oracle

        self.oracle, self.sql = oracle.dialect(), []

    def _record(self, stmt, params):
        compiled = stmt.compile(dialect=self.oracle)
        self.sql.append((str(compiled), params))

    def rows(self, stmt, params=None):
        self._record(stmt, params)
        return []

    def rows_together(self, *stmts):
        return [self.rows(stmt) for stmt in stmts]

    def write(self, work):
        store = self

        class Conn:
            dialect = store.oracle

            def execute(self, stmt, params=None):
                store._record(stmt, params)
                return _Result()

        return work(Conn())


def test_the_statements_on_oracle_use_bind_variables_only():
    store = OracleLike()
    run = parse_run(
        doc(slug="ora-run", awr={"target": "prod", "dbid": 42, "begin_snap": 1, "end_snap": 2}), targets=["prod"]
    )
    saved = repo.save(store, run)
    assert saved["replaced"] is False
    repo.list_runs(store, private=False, kind="ab")
    with pytest.raises(ApiError):
        repo.get_run(store, "ora-run", private=True)  # no rows: 404
    text = "\n".join(sql for sql, _ in store.sql)
    assert "CREATE TABLE" not in text  # on Oracle the DDL is a deploy step (infra/oracle/bench_tables.sql)
    assert "INSERT INTO bench_run" in text and "RETURNING bench_run.run_id INTO" in text
    assert "INSERT INTO bench_measurement" in text and "NULLS LAST" in text
    for literal in ("ora-run", "'public'", "'ab'", "Linux", "8800"):
        assert literal not in text, literal
    assert all(":" in sql for sql, _ in store.sql)


ROUND_TRIP = {
    "slug": "round-trip",
    "title": "Round trip",
    "kind": "other",
    "visibility": "public",
    "measurements": [
        {"series": "a", "x": "=cold", "y": -2.5, "unit": "s", "extra": {"note": "-fast", "n": -3, "ratio": 0.25}},
        {"series": "+b", "x": "@warm", "y": 0, "unit": "s", "extra": {"note": "plain"}},
        {"series": "a", "x": "hot", "y": 1e-7, "extra": {"n": 7}},
        {"series": "c", "x": "-1 dB", "y": 12, "unit": "%", "extra": {"tags": ["x", "=y"], "at": {"k": 1}}},
    ],
}


def test_a_runs_own_csv_imports_back_as_the_same_measurements(lab, tmp_path):
    """A run's CSV (GET /api/v1/benchmarks/{slug}?format=csv: the upload's columns, then one per extra attribute, so
    that it "can be imported again as it is") through `flask runs import`: the same rows, text that the CSV guards
    against formulas included; only a list or object attribute comes back as its JSON text."""
    repo.save(store_of(lab), parse_run(ROUND_TRIP, targets=[]), replace=False)
    resp = lab.test_client().get("/api/v1/benchmarks/round-trip", query_string={"format": "csv"})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    path = tmp_path / "round-trip.csv"
    path.write_bytes(resp.get_data())
    result = runs(lab, "import", str(path), "--slug", "round-trip-again", "--title", "Again", "--kind", "other")
    assert result.exit_code == 0, result.output
    got = repo.get_run(store_of(lab), "round-trip-again", private=True)["rows"]

    def shown(value):
        return json.dumps(value, separators=(",", ":")) if isinstance(value, (dict, list)) else value

    expected = [
        (m["series"], m["x"], m["y"], m.get("unit"), {k: shown(v) for k, v in m.get("extra", {}).items()})
        for m in ROUND_TRIP["measurements"]
    ]
    assert [(r["series"], r["x"], r["y"], r["unit"], r["extra"]) for r in got] == expected


def test_only_the_formula_guards_apostrophe_is_read_away():
    document, _ = read_csv("series,x,y,'@tag\n'=a,'b,1,'-1\n")
    assert document["measurements"] == [{"series": "=a", "x": "'b", "y": 1, "extra": {"@tag": -1}}]
