"""Query parameters (app/api/params.py's docstring): what a boolean accepts, and where the length limit falls."""

import pytest

from app.api.params import SHOW_SQL, Param
from app.errors import BadParameter


@pytest.mark.parametrize(
    "raw, value",
    [
        ("1", True),
        ("true", True),
        ("TRUE", True),
        ("Yes", True),
        ("yes", True),
        ("0", False),
        ("false", False),
        ("False", False),
        ("NO", False),
        ("no", False),
        ("", False),
    ],
)
def test_a_boolean_takes_1_0_true_false_yes_no_in_any_case(raw, value):
    assert SHOW_SQL.parse(raw) is value


@pytest.mark.parametrize("raw", ["2", "y", "on", "XXtrueXX", "truee"])
def test_any_other_boolean_is_refused(raw):
    with pytest.raises(BadParameter, match="show_sql must be 1 or 0"):
        SHOW_SQL.parse(raw)


def test_a_value_as_long_as_the_limit_is_accepted_one_longer_is_refused():
    p = Param("name", "string", "a name", max_length=5)
    assert p.parse("abcde") == "abcde"
    with pytest.raises(BadParameter, match="longer than 5 characters"):
        p.parse("abcdef")


def test_an_endpoint_keeps_its_declared_parameters(app):
    """The OpenAPI document is built from each view's declared parameters (app/api/openapi.py)."""
    views = [v for v in app.view_functions.values() if hasattr(v, "params")]
    assert views and all(isinstance(v.params, tuple) for v in views)
    # none declared only where the answer is to a body (POST /reports: its files), which takes no query
    assert all(v.params or "body" in getattr(v, "openapi", {}) for v in views)


# Each kind of parameter as OpenAPI 3.1 describes a query or path parameter (the Parameter and Schema objects): the
# document the fuzzing and the clients read. Written out by hand from the specification, not from the code.
@pytest.mark.parametrize(
    "param, described",
    [
        (
            Param("limit", "integer", "Rows.", default=25, minimum=1, maximum=100),
            {
                "name": "limit",
                "in": "query",
                "description": "Rows.",
                "required": False,
                "allowEmptyValue": True,
                "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 25},
            },
        ),
        (
            Param("from", "datetime", "Start."),
            {
                "name": "from",
                "in": "query",
                "description": "Start.",
                "required": False,
                "allowEmptyValue": True,
                "schema": {"type": "string", "format": "date-time"},
            },
        ),
        (
            Param("rate", "enum", "Rate.", default="raw", choices=("raw", "per_second")),
            {
                "name": "rate",
                "in": "query",
                "description": "Rate.",
                "required": False,
                "allowEmptyValue": True,
                "schema": {"type": "string", "enum": ["raw", "per_second"], "default": "raw"},
            },
        ),
        (
            Param("show_sql", "boolean", "SQL."),
            {
                "name": "show_sql",
                "in": "query",
                "description": "SQL.",
                "required": False,
                "allowEmptyValue": True,
                "schema": {"type": "boolean"},
            },
        ),
        (
            Param("sql_id", "string", "A SQL_ID.", pattern="[0-9a-z]{13}", max_length=13, in_path=True),
            {
                "name": "sql_id",
                "in": "path",
                "description": "A SQL_ID.",
                "required": True,
                "schema": {"type": "string", "maxLength": 13, "minLength": 1, "pattern": "^([0-9a-z]{13})$"},
            },
        ),
        (
            Param("q", "string", "Words."),
            {
                "name": "q",
                "in": "query",
                "description": "Words.",
                "required": False,
                "allowEmptyValue": True,
                "schema": {"type": "string", "maxLength": 200, "minLength": 1},
            },
        ),
        (
            Param("name", "string", "Series.", multi=True, max_length=64),
            {
                "name": "name",
                "in": "query",
                "description": "Series.",
                "required": False,
                "style": "form",
                "explode": True,
                "schema": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": 64, "minLength": 1},
                    "minItems": 1,
                },
            },
        ),
    ],
)
def test_each_kind_of_parameter_is_described_as_openapi_describes_it(param, described):
    assert param.openapi() == described
    assert param.openapi() == described  # the schema's table of kinds is not changed by describing one
