"""A database's statements (SQL) under the history API: top SQL, one statement over time, its plans, two plans
line by line, its binds. Thin views, as in history.py."""

from flask import Response

from app import history
from app.api.history_blueprint import api, database_and_range, max_points, requested_database, series_answer
from app.api.params import FORMAT, MAX_POINTS, RANGE, SHAPE, SHOW_SQL, Param, accepts
from app.api.respond import answer, conditional
from app.errors import BadParameter
from app.store.awr.queries import TOP_SQL_ORDER

SQL_ID = Param(
    "sql_id",
    "string",
    "An Oracle SQL_ID: 13 characters, digits and lower-case letters.",
    in_path=True,
    pattern=r"[0-9a-z]{13}",
)
PLAN_HASH = {"kind": "integer", "minimum": 0, "maximum": 2**32 - 1}


@api.get("/dbs/<db>/top-sql")
@accepts(
    *RANGE,
    Param("order_by", "enum", "Sort key.", default="elapsed", choices=tuple(TOP_SQL_ORDER)),
    Param("limit", "integer", "Rows to return.", default=25, minimum=1, maximum=100),
    FORMAT,
    SHOW_SQL,
)
def top_sql(db, args):
    """Top SQL by elapsed time, CPU, gets, reads, executions or rows, with text and plan hash values."""
    d, rng = database_and_range(db, args)
    return answer(history.top_sql.compute(d, rng, args["order_by"], args["limit"]), args, rng, table=_sql_table)


def _sql_table(body):
    return [{**r, "plan_hash_values": " ".join(map(str, r["plan_hash_values"]))} for r in body["rows"]]


@api.get("/dbs/<db>/sql/<sql_id>")
@accepts(
    SQL_ID,
    *RANGE,
    Param(
        "con_dbid",
        "integer",
        "In a CDB root, the container (its CON_DBID, as top SQL gives "
        "it) whose rows to read; default: every container's, summed.",
        minimum=0,
        maximum=2**32 - 1,
    ),
    MAX_POINTS,
    SHAPE,
    FORMAT,
    SHOW_SQL,
)
def sql(db, sql_id, args):
    """One statement over time, one line per plan hash value: elapsed and CPU per execution, gets, executions."""
    SQL_ID.parse(sql_id)
    d, rng = database_and_range(db, args, default_days=45)
    return series_answer(history.sql.compute(d, sql_id, rng, max_points(args), args["con_dbid"]), args, rng)


@api.get("/dbs/<db>/sql/<sql_id>/plans")
@accepts(
    SQL_ID,
    *RANGE,
    Param("plan_hash_value", help="Only this plan (404 names the plans the history holds).", **PLAN_HASH),
    FORMAT,
    SHOW_SQL,
)
def sql_plans(db, sql_id, args):
    """A statement's execution plans (DBA_HIST_SQL_PLAN), each an ordered list of lines with their depth, and per
    line the statement's ASH samples in the range: samples, % of the statement's, CPU against waits."""
    SQL_ID.parse(sql_id)
    d, rng = database_and_range(db, args)
    body = history.plans.compute(d, sql_id, rng, args["plan_hash_value"])
    return answer(body, args, rng, table=history.plans.table)


@api.get("/dbs/<db>/sql/<sql_id>/plans/diff")
@accepts(
    SQL_ID,
    Param("a", help="The first plan's hash value.", **PLAN_HASH),
    Param("b", help="The second plan's hash value.", **PLAN_HASH),
    FORMAT,
    SHOW_SQL,
)
def sql_plan_diff(db, sql_id, args):
    """Two plans of a statement line by line: aligned on (operation, options, object), each row the same, moved (at
    another depth), changed, only in a or only in b."""
    SQL_ID.parse(sql_id)
    for side in ("a", "b"):
        if args[side] is None:
            raise BadParameter(f"{side} is required: a plan hash value of the statement", side)
    d = requested_database(db)
    return answer(history.plans.diff(d, sql_id, args["a"], args["b"]), args, table=history.plans.diff_table)


@api.get("/dbs/<db>/sql/<sql_id>/plans/xplan")
@accepts(
    SQL_ID,
    Param("plan_hash_value", help="The plan (404 names the plans the history holds).", **PLAN_HASH),
    Param(
        "format",
        "enum",
        "json, or text for the plan's text alone (text/plain).",
        default="json",
        choices=("json", "text"),
    ),
    SHOW_SQL,
)
def sql_plan_xplan(db, sql_id, args):
    """One plan of a statement as DBMS_XPLAN.DISPLAY_AWR prints it (TYPICAL): the SQL_ID and text, the plan hash
    value, the plan table, the predicates and the notes; text to paste into a ticket."""
    SQL_ID.parse(sql_id)
    if args["plan_hash_value"] is None:
        raise BadParameter("plan_hash_value is required: a plan hash value of the statement", "plan_hash_value")
    body = history.plans.xplan_text(requested_database(db), sql_id, args["plan_hash_value"])
    if args["format"] == "text":
        return conditional(Response(body["text"], mimetype="text/plain"))
    return answer(body, args)


@api.get("/dbs/<db>/sql/<sql_id>/binds")
@accepts(SQL_ID, *RANGE, FORMAT, SHOW_SQL)
def sql_binds(db, sql_id, args):
    """The bind values AWR captured for a statement in the range (DBA_HIST_SQLBIND), as text."""
    SQL_ID.parse(sql_id)
    d, rng = database_and_range(db, args)
    return answer(history.plans.binds(d, sql_id, rng), args, rng)
