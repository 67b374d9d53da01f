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
    assert views and all(isinstance(v.params, tuple) and v.params for v in views)
