"""The SQL awrlens sends to Oracle, checked against Oracle's own column lists of the AWR views.

tests/data/oracle_views.json holds the columns the Oracle Database 19c Reference documents for every view the
app reads (its "_source" and "_evidence" name the pages), and under "_releases" how each supported release differs
(12.1 to 23ai, from each release's Reference). The SQLite stand-in must not have a column Oracle lacks, every
statement, as built for each release, must name only views and columns that release has once compiled for Oracle
(parsed back with sqlglot's Oracle dialect, so what is checked is the text Oracle would receive), values must
travel as named binds, and the same statements must run on a real, empty SQLite database built from the same
tables.
"""

import json
import re
from datetime import datetime
from functools import cache
from pathlib import Path

import pytest
import sqlglot
from sqlalchemy import Table, create_engine
from sqlalchemy.dialects import oracle, sqlite
from sqlalchemy.sql import visitors
from sqlalchemy.sql.elements import BindParameter
from sqlalchemy.sql.schema import Column

from app import create_app
from app.settings import Settings
from app.store import licence
from app.store.awr import queries
from app.store.awr.queries import all_statements, render
from app.store.awr.views import ABSENT, DBA_HIST_ONLY, DICTIONARY, LIVE, PREFIXES, RELEASES, view_name, views
from app.store.statspack.listing import statspack_statements

REFERENCE = json.loads((Path(__file__).parent / "data" / "oracle_views.json").read_text())
ORACLE_VIEWS = {name: cols for name, cols in REFERENCE.items() if not name.startswith("_")}
# Representative values for every bind the API fills at request time.
BINDS = {
    "dbid": 1,
    "lo": 1,
    "hi": 2,
    "item_id": 1,
    "snap_id": 1,
    "snap_ids": [1, 2],
    "names": ["x"],
    "sql_id": "abc",
    "sql_ids": ["abc"],
    "con_dbid": 1,
    "t0": datetime(2026, 11, 20),
    "w0": datetime(2026, 11, 20, 14, 7),
    "w1": datetime(2026, 11, 20, 14, 23),
    "t1": datetime(2026, 11, 21),
    "width": 60,
    "f_sql_id_0": "abc",
    "f_session_0": 1,
    "f_session_1": 2,
    "f_session_2": 3,
    "report_id": 1,
}
ROW_CAP = Settings.row_cap  # AWRLENS_ROW_CAP's default: the snapshot list's bound, and one more for the rest
# Values the code itself puts into statements (bound, never pasted): the only ones allowed at compile time.
CODE_CONSTANTS = {
    queries.METRIC_GROUP,
    queries.TOP_SQL_ROWS,
    "Idle",
    ROW_CAP,
    ROW_CAP + 1,
    queries.ON_CPU,
    queries.CPU,
    queries.SECONDS_PER_DAY,
    queries.TOP_ACTIVITY_ROWS,
    queries.SQL_MONITOR,
    queries.NOT_SET,
    queries.TOP_NEW_PLANS,
    queries.TOP_SEGMENT_ROWS,
    queries.TOP_GROUP_ROWS,
    queries.ZONE_FORMAT,
    *queries.SESSION_SHIFTS,
}
LIMITS = {
    queries.TOP_SQL_ROWS,
    queries.TOP_ACTIVITY_ROWS,
    queries.TOP_NEW_PLANS,
    queries.TOP_SEGMENT_ROWS,
    queries.TOP_GROUP_ROWS,
    ROW_CAP,
    ROW_CAP + 1,
}  # the only literals sent

BINDS.update(item_id2=2, snap_ids_0=[1, 2], snap_ids_1=[3])  # a long range's buckets (docs/awr-rules.md §21)
BINDS.update(obj=1, dataobj=1, objs=[1, 2], users=[1], services=[1])  # a segment; ids named (§25, §22)
BINDS.update(f_instance_0=1)  # the samples of one instance (wait chains in a run of its snapshots, §22)
BINDS.update(sessions=[(1 << 48) + (2 << 32) + 3])  # the top sessions as one number each (§22)


def release_columns(release: str) -> dict[str, set[str]]:
    """{VIEW: columns} of one release: the 19c lists with that release's differences (tests/data/oracle_views.json
    "_releases")."""
    diff = REFERENCE["_releases"][release]
    out = {}
    for view, cols in ORACLE_VIEWS.items():
        if view in diff.get("columns", {}):
            out[view] = set(diff["columns"][view])
        else:
            out[view] = (set(cols) - set(diff.get("absent", {}).get(view, ()))) | set(
                diff.get("added", {}).get(view, ())
            )
    return out


def prefixes_of(release: str):
    """AWR_PDB_ and AWR_ROOT_ views exist from 12.2 on."""
    return ["dba_hist_"] if release == "12.1" else list(PREFIXES)


def reference_view(table_name: str) -> str:
    """The DBA_HIST_ view a table stands for: AWR_PDB_X and AWR_ROOT_X have the columns of DBA_HIST_X; a dictionary
    view read for names (DBA_USERS, DBA_OBJECTS) and a live view (GV$ACTIVE_SESSION_HISTORY) stand for themselves."""
    name = table_name.upper()
    if name in {view_name("dba_hist_", v).upper() for v in (*DICTIONARY, *LIVE)}:  # the same under every prefix
        return name
    for prefix in PREFIXES:
        if name.startswith(prefix.upper()):
            return "DBA_HIST_" + name[len(prefix) :]
    raise AssertionError(f"{table_name} has none of the view prefixes {PREFIXES}")


def statements():
    return [(prefix, name, stmt) for prefix in PREFIXES for name, stmt in all_statements(views(prefix))]


# every statement under each prefix; the edit loop (make test-fast) checks them under DBA_HIST_ alone, make test under
# the CDB's AWR_PDB_ and AWR_ROOT_ too (the same statements, their view names changed)
STATEMENTS = [
    pytest.param(prefix, name, stmt, id=f"{prefix}{name}", marks=() if prefix == PREFIXES[0] else pytest.mark.slow)
    for prefix, name, stmt in statements()
]


def bind_params(stmt):
    return [e for e in visitors.iterate(stmt) if isinstance(e, BindParameter)]


@cache
def oracle_text(stmt) -> str:
    """The text Oracle receives, with expanding IN lists and the literal_execute row limit rendered (kept per
    statement: two tests read each)."""
    wanted = {b.key: BINDS[b.key] for b in bind_params(stmt) if b.key in BINDS}
    compiled = stmt.params(**wanted).compile(dialect=oracle.dialect(), compile_kwargs={"render_postcompile": True})
    return compiled.string


def oracle_name(identifier) -> str:
    """An identifier as Oracle resolves it: unquoted names fold to upper case, quoted ones keep their case."""
    return identifier.name if identifier.args.get("quoted") else identifier.name.upper()


def view_of(column) -> Table | None:
    """The view a statement's column belongs to, through an alias (a self-join); None for a subquery's column."""
    table = column.table
    table = table if isinstance(table, Table) else getattr(table, "element", None)
    return table if isinstance(table, Table) else None


@cache
def referenced_columns(sql: str) -> tuple[frozenset, frozenset]:
    """{(VIEW, COLUMN)} named by Oracle SQL text, resolving table aliases; unknown qualifiers are an error. A column of
    a subquery (a long range's running sums) is the column of its view that the subquery names. Kept per text: most
    statements compile to the same text for every release, and sqlglot's parse is the tests' costliest step."""
    tree = sqlglot.parse_one(sql, read="oracle")
    derived = {sub.alias.upper() for sub in tree.find_all(sqlglot.exp.Subquery) if sub.alias}
    tables = {}
    for table in tree.find_all(sqlglot.exp.Table):
        view = oracle_name(table.this)
        tables[view] = view
        if table.alias:
            tables[table.alias.upper()] = view
    aliases = {a.alias.upper() for a in tree.find_all(sqlglot.exp.Alias)}
    derived = {q.alias.upper() for q in tree.find_all(sqlglot.exp.Subquery) if q.alias}  # their columns: inside
    found = set()
    for col in tree.find_all(sqlglot.exp.Column):
        name = oracle_name(col.this)
        if col.table.upper() in derived:
            continue
        if col.table:
            qualifier = col.table.upper()
            assert qualifier in tables, f"column {col.sql()} names no table of the statement"
            found.add((tables[qualifier], name))
        elif name in aliases:
            continue  # an ORDER BY on a select-list label
        else:
            assert len(set(tables.values())) == 1, f"unqualified column {col.sql()} in a join"
            found.add((next(iter(tables.values())), name))
    return frozenset(tables.values()), frozenset(found)


# --- the reference itself ---------------------------------------------------------------------------------


def test_reference_covers_exactly_the_views_of_the_schema():
    schema_views = {t.upper() for t in views("dba_hist_").metadata.tables}
    assert schema_views == set(ORACLE_VIEWS)
    assert REFERENCE["_source"].startswith("Oracle Database 19c Reference, https://docs.oracle.com/")
    for view, cols in ORACLE_VIEWS.items():
        assert REFERENCE["_evidence"][view], view
        assert cols and all(c == c.upper() and t for c, t in cols.items()), view


def test_the_reference_names_every_supported_release_with_its_evidence():
    releases = REFERENCE["_releases"]
    assert releases["_supported"] == list(RELEASES)
    for release in RELEASES:
        diff = releases[release]
        for kind in ("absent", "added", "columns"):
            for view in diff.get(kind, {}):
                assert view in ORACLE_VIEWS and diff["_evidence"].get(view), (release, kind, view)
        for view, cols in diff.get("absent", {}).items():
            assert set(cols) <= set(ORACLE_VIEWS[view]), (release, view)  # absent from the 19c list's columns


# --- the SQLite stand-in has no column Oracle lacks -------------------------------------------------------


@pytest.mark.parametrize("table", sorted(views("dba_hist_").metadata.tables))
def test_every_schema_column_exists_in_oracle(table):
    reference = ORACLE_VIEWS[table.upper()]
    t = views("dba_hist_").metadata.tables[table]
    missing = [c.name for c in t.columns if c.name.upper() not in reference]
    assert not missing, f"{table.upper()} has no column(s) {missing} in the Oracle 19c Reference"


@pytest.mark.parametrize("release", RELEASES)
def test_each_release_views_have_the_schema_columns_that_release_documents(release):
    """views(prefix, release) leaves out exactly the schema's columns the release's views lack (awr.views.ABSENT): none
    that the release lacks stays, none that it has is left out."""
    documented = release_columns(release)
    for table, t in views("dba_hist_", release).metadata.tables.items():
        view = table.upper()
        full = {c.name.upper() for c in views("dba_hist_").metadata.tables[table].columns}
        kept = {c.name.upper() for c in t.columns}
        assert kept <= documented[view], f"{release}: {view} has no {sorted(kept - documented[view])}"
        assert full - kept == full - documented[view], f"{release}: {view} leaves out {sorted(full - kept)}"
    assert set(ABSENT) <= set(RELEASES)


@pytest.mark.slow  # every statement of every prefix compiled: about 3 s
def test_views_oracle_has_under_dba_hist_only_are_read_so_under_every_prefix():
    """DBA_HIST_REPORTS has no AWR_PDB_ or AWR_ROOT_ twin (tests/data/oracle_views.json "_dba_hist_only", from the
    Oracle Database Reference): every prefix's statements read it as DBA_HIST_REPORTS, never a name Oracle lacks."""
    only = REFERENCE["_dba_hist_only"]
    assert {f"DBA_HIST_{v.upper()}" for v in DBA_HIST_ONLY} == set(only["views"]) and only["_evidence"]
    for prefix in PREFIXES:
        for name, stmt in all_statements(views(prefix)):
            tables, _ = referenced_columns(oracle_text(stmt))
            for view in only["views"]:
                twin = prefix.upper() + view[len("DBA_HIST_") :]
                assert twin == view or twin not in tables, f"{prefix}{name} reads {twin}, which Oracle lacks"
        monitored = oracle_text(queries.monitored_executions(views(prefix)).core())
        assert "DBA_HIST_REPORTS" in referenced_columns(monitored)[0]


@pytest.mark.parametrize("prefix", [p for p in PREFIXES if p != "dba_hist_"])
def test_multitenant_prefixes_have_the_same_tables_and_columns(prefix):
    base = {reference_view(n): [c.name for c in t.columns] for n, t in views("dba_hist_").metadata.tables.items()}
    other = {reference_view(n): [c.name for c in t.columns] for n, t in views(prefix).metadata.tables.items()}
    assert other == base


# --- every statement, compiled for Oracle, names only real views and columns ---------------------------------


@pytest.mark.parametrize("prefix,name,stmt", STATEMENTS)
def test_oracle_statement_uses_only_documented_views_and_columns(prefix, name, stmt):
    sql = oracle_text(stmt)
    tables, columns = referenced_columns(sql)
    assert tables, sql
    for table in tables:
        only = table in {f"DBA_HIST_{v.upper()}" for v in DBA_HIST_ONLY}  # no AWR_PDB_/AWR_ROOT_ twin: read as it is
        only |= table in {view_name(prefix, v).upper() for v in (*DICTIONARY, *LIVE)}  # names; the live buffer
        assert only or table.startswith(prefix.upper()), f"{name}: {table} is not a {prefix.upper()} view"
        assert reference_view(table) in ORACLE_VIEWS, f"{name}: {table} is not a known AWR view"
    unknown = sorted(f"{t}.{c}" for t, c in columns if c not in ORACLE_VIEWS[reference_view(t)])
    assert not unknown, f"{name}: not columns of the Oracle 19c views: {unknown}\n{sql}"

    # The parse saw every column SQLAlchemy put in the statement (nothing slipped past the parser).
    expected = {
        (view_of(c).name.upper(), c.name if c.name != c.name.lower() else c.name.upper())
        for c in visitors.iterate(stmt)
        if isinstance(c, Column) and view_of(c) is not None
    }
    assert columns == expected, f"{name}: parsed {sorted(columns)} but the statement uses {sorted(expected)}"


# every release in make test (each about 2 s); the edit loop checks the reference's columns (the test above)
@pytest.mark.slow
@pytest.mark.parametrize("release", RELEASES)
def test_every_statement_for_each_release_names_only_that_releases_columns(release):
    """Every statement as the app builds it for a database of `release`, compiled for Oracle and parsed back, names
    only columns that release's views document (tests/data/oracle_views.json "_releases")."""
    documented = release_columns(release)
    wrong = []
    for prefix in prefixes_of(release):
        for name, stmt in all_statements(views(prefix, release)):
            _, columns = referenced_columns(oracle_text(stmt))
            wrong += [f"{name}: {t}.{c}" for t, c in columns if c not in documented[reference_view(t)]]
    assert not wrong, f"not columns of the Oracle {release} views: {wrong}"


def test_columns_that_differ_by_release_are_chosen_from_the_release():
    """On 12.1 DBA_HIST_TABLESPACE has no CON_DBID and no BLOCK_SIZE (awr.views.ABSENT): the tablespaces statement joins
    on DBID and TS# and reads no block size there; from 12.2 on it joins on CON_DBID too (a CDB root repeats TS# in
    every container) and reads the block size."""
    old = oracle_text(queries.tablespaces(views("dba_hist_", "12.1")).core())
    _, old_cols = referenced_columns(old)
    assert ("DBA_HIST_TABLESPACE", "BLOCK_SIZE") not in old_cols and ("DBA_HIST_TABLESPACE", "CON_DBID") not in old_cols
    for release in RELEASES[1:]:
        new = oracle_text(queries.tablespaces(views("dba_hist_", release)).core())
        join = re.search(r"JOIN dba_hist_tablespace ON (.*?)\sWHERE", new, re.S).group(1)
        assert "dba_hist_tablespace.con_dbid = dba_hist_tbspc_space_usage.con_dbid" in join, (release, join)
        assert ("DBA_HIST_TABLESPACE", "BLOCK_SIZE") in referenced_columns(new)[1]


# --- no value from outside the code is pasted into SQL -----------------------------------------------------


@pytest.mark.parametrize("prefix,name,stmt", STATEMENTS)
def test_values_travel_as_named_binds(prefix, name, stmt):
    compiled = stmt.compile(dialect=oracle.dialect())
    text = str(compiled)
    assert "'" not in text, f"{name}: quoted literal in the Oracle text\n{text}"
    assert "?" not in text and "%s" not in text and not re.search(r":\d", text), f"{name}: positional bind\n{text}"
    assert compiled.positiontup is None, f"{name}: the Oracle dialect compiled positional binds"
    # Values fixed when the statement is built come only from the code's own constants.
    built = {k: v for k, v in compiled.params.items() if v is not None}
    assert set(built.values()) <= CODE_CONSTANTS, f"{name}: values built into the statement: {built}"
    # Everything else is a bind filled at request time, and the tests know a value for it.
    assert {k for k, v in compiled.params.items() if v is None} <= set(BINDS), name

    # Rendered as sent, the only literals left are the row limits; no string literal at all.
    tree = sqlglot.parse_one(oracle_text(stmt), read="oracle")
    literals = list(tree.find_all(sqlglot.exp.Literal))
    assert not [lit.sql() for lit in literals if lit.is_string], name
    assert {int(lit.name) for lit in literals} <= LIMITS, f"{name}: {[lit.sql() for lit in literals]}"
    placeholders = [p.name for p in tree.find_all(sqlglot.exp.Placeholder)]
    assert all(re.fullmatch(r"[a-z_][a-z0-9_]*", p) for p in placeholders), f"{name}: {placeholders}"


# --- the same statements run on SQLite ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite_engines():
    engines = {}
    for prefix in PREFIXES:
        engine = create_engine("sqlite://")
        views(prefix).metadata.create_all(engine)
        engines[prefix] = engine
    yield engines
    for engine in engines.values():
        engine.dispose()


@pytest.mark.parametrize("prefix,name,stmt", STATEMENTS)
def test_statement_runs_on_empty_sqlite(sqlite_engines, prefix, name, stmt):
    str(stmt.compile(dialect=sqlite.dialect()))
    params = {b.key: BINDS[b.key] for b in bind_params(stmt) if b.value is None}
    with sqlite_engines[prefix].connect() as conn:
        rows = conn.execute(stmt, params).all()
    assert rows == []


# --- `flask --app app sql` prints every statement, compiled for Oracle ------------------------------------


STATSPACK_HEADING = "-- Statspack (PERFSTAT.STATS$*): a database without the Diagnostics Pack (docs/awr-rules.md §31)\n"


@pytest.fixture(scope="module")
def cli_runner():
    app = create_app(Settings.from_env({}, targets={"demo": {"sqlite": "/nonexistent.sqlite"}}))
    return app.test_cli_runner()


@pytest.mark.slow  # a flask subprocess per prefix: over half a second
@pytest.mark.parametrize("prefix", PREFIXES)
def test_sql_command_prints_every_statement_for_oracle(cli_runner, prefix):
    args = ["sql"] if prefix == "dba_hist_" else ["sql", "--prefix", prefix]
    result = cli_runner.invoke(args=args)
    assert result.exit_code == 0, result.output
    out, statspack = result.output.split(STATSPACK_HEADING)  # Statspack's statements follow AWR's
    pairs = list(all_statements(views(prefix)))
    reports = list(queries.report_statements())  # Oracle's own reports, after the reads (docs/awr-rules.md §27)
    headers = re.findall(r"^-- (.+)$", out, flags=re.M)
    assert headers == ["the licence check, before any statement of a management pack"] + [n for n, _ in pairs + reports]
    assert f"{licence.oracle_text()};\n" in out
    for name, stmt in pairs + reports:
        assert f"-- {name}\n{render(stmt, oracle.dialect())};\n" in out, name
    # every statement is bounded in the database: top SQL by its 200 rows, the snapshot list by the row cap, every
    # other one by one row more than the cap, so a question too wide stops there (a 422, test_limits.py)
    tops = 3 * (len(queries.TOP_LISTS) + 1)  # the top lists and the blockers: of snapshots, a window, the live buffer
    assert out.count("FETCH FIRST") == len(pairs)
    assert out.count(f"FETCH FIRST {queries.TOP_SQL_ROWS} ROWS ONLY") == len(queries.TOP_SQL_ORDER)
    assert out.count(f"FETCH FIRST {queries.TOP_ACTIVITY_ROWS} ROWS ONLY") == tops
    # top segments by each statistic, of every instance and of one (docs/awr-rules.md §25)
    assert out.count(f"FETCH FIRST {queries.TOP_SEGMENT_ROWS} ROWS ONLY") == 2 * len(queries.SEGMENT_ORDER)
    assert out.count(f"FETCH FIRST {queries.TOP_GROUP_ROWS} ROWS ONLY") == 3  # ashtop's: snapshots, window, live
    assert out.count(f"FETCH FIRST {ROW_CAP} ROWS ONLY") == 1
    assert out.count(f"FETCH FIRST {queries.TOP_NEW_PLANS} ROWS ONLY") == 2  # new plans and plans back
    assert out.count(f"FETCH FIRST {ROW_CAP + 1} ROWS ONLY") == (
        len(pairs) - len(queries.TOP_SQL_ORDER) - 1 - tops - 3 - 2 * len(queries.SEGMENT_ORDER) - 2
    )
    assert not re.search(r"\bLIMIT\b|\bOFFSET\b|\?", out)
    assert "'" not in out
    other = [p.upper() for p in PREFIXES if p != prefix]
    only = [f"DBA_HIST_{v.upper()}" for v in DBA_HIST_ONLY]
    assert not any(p in re.sub("|".join(only), "", out.upper()) for p in other)
    # Statspack's (docs/awr-rules.md §31): each of its statements, bounded and bound alike, and none of AWR's views
    kept = list(statspack_statements())
    assert re.findall(r"^-- (.+)$", statspack, flags=re.M) == [f"statspack: {n}" for n, _ in kept]
    for name, stmt in kept:
        assert f"-- statspack: {name}\n{render(stmt, oracle.dialect())};\n" in statspack, name
    assert statspack.count("FETCH FIRST") == len(kept)
    assert "'" not in statspack and "?" not in statspack and "DBA_HIST" not in statspack.upper()


@pytest.mark.slow  # the command prints every statement: over half a second
def test_sql_command_shows_the_row_limit_as_sent(cli_runner):
    out = cli_runner.invoke(args=["sql"]).output
    assert "__[POSTCOMPILE" not in out
    assert f"FETCH FIRST {queries.TOP_SQL_ROWS} ROWS ONLY" in out


@pytest.mark.slow  # the command prints every statement: over half a second
def test_sql_command_prints_the_statements_of_a_release(cli_runner):
    old = cli_runner.invoke(args=["sql", "--release", "12.1"])
    assert old.exit_code == 0 and "block_size" not in old.output.lower()
    assert "block_size" in cli_runner.invoke(args=["sql"]).output.lower()  # the newest release by default
    refused = cli_runner.invoke(args=["sql", "--release", "12.1", "--prefix", "awr_pdb_"])
    assert refused.exit_code != 0 and "no AWR_PDB_ views" in refused.output


# --- Active Session History: grouped in the database -----------------------------------------------------------


@pytest.mark.parametrize("group_by", list(queries.DIMENSIONS))
def test_activity_groups_by_bucket_and_dimension_in_oracle(group_by):
    """Top activity's statement, compiled for Oracle, groups the range's samples by a bucket computed in SQL from
    SAMPLE_TIME with bind variables, and by the dimension's columns (from the fixed list), pruned on DBID and SNAP_ID:
    the samples never leave the database (docs/awr-rules.md §22)."""
    stmt = queries.activity(views("dba_hist_"), group_by, ("sql_id",)).core()
    text = str(stmt.compile(dialect=oracle.dialect()))
    assert re.search(
        r"FLOOR\(ROUND\(\(CAST\(dba_hist_active_sess_history\.sample_time AS DATE\) - :t0\) "
        r"\* :seconds_per_day\) / :width\) AS g0",
        text,
    ), text
    inner, outer = text.rsplit(") anon_1", 1)
    assert "GROUP BY" not in inner and "GROUP BY anon_1.g0" in outer, text
    columns = len(queries.DIMENSIONS[group_by](views("dba_hist_").active_sess_history))
    assert outer.strip().startswith("GROUP BY " + ", ".join(f"anon_1.g{k}" for k in range(columns + 1))), outer
    assert ":dbid" in inner and ":lo" in inner and ":hi" in inner and ":f_sql_id_0" in inner
    assert "'" not in text and not re.search(r"\b\d{2,}\b", text.replace("500001", "")), text


# --- Plans, time by plan line and binds (docs/awr-rules.md §26) ------------------------------------------------------


def test_time_by_plan_line_groups_one_statements_samples_in_oracle():
    """The statement's samples are grouped by plan hash value and line in the database, bound and pruned on DBID,
    SNAP_ID and SQL_ID: only counts leave it."""
    text = str(queries.plan_line_activity(views("dba_hist_")).core().compile(dialect=oracle.dialect()))
    inner, outer = text.rsplit(") anon_1", 1)
    assert "GROUP BY" not in inner and outer.strip().startswith("GROUP BY anon_1.g0, anon_1.g1, anon_1.g2, anon_1.g3")
    for bind in (":dbid", ":lo", ":hi", ":sql_id", ":on_cpu"):
        assert bind in inner, (bind, text)
    assert "sql_plan_line_id" in inner and "'" not in text


@pytest.mark.parametrize("build", [queries.sql_plans, queries.sql_binds])
def test_plans_and_binds_are_read_by_bound_dbid_and_sql_id(build):
    text = str(build(views("dba_hist_")).core().compile(dialect=oracle.dialect()))
    assert "dbid = :dbid" in text and "sql_id = :sql_id" in text and "'" not in text, text
    if build is queries.sql_binds:  # binds, like every per-snapshot view, by the range's intervals
        assert "snap_id > :lo" in text and "snap_id <= :hi" in text
