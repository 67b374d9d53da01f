"""Numbers as the answers carry them (docs/awr-rules.md §19: four decimals, whole numbers beyond ±1,000,000; §29's
compare: 100 × (B − A) / A, empty when either is missing, ±100 % from 0), on values chosen either side of each bound."""

import pytest

from app.analysis import Point
from app.history.numbers import change_pct, drawn, rates, round4, rounded, shaped

# value -> what the answer carries: four decimals inside ±1,000,000, whole beyond it
CASES = [
    (0.123456, 0.1235),
    (-0.123456, -0.1235),
    (999999.12344, 999999.1234),
    (-999999.12344, -999999.1234),
    (1000000.4, 1000000),
    (-1000000.4, -1000000),
    (1000000.6, 1000001),
    (-1000000.6, -1000001),
    (123456789.5678, 123456790),
]


@pytest.mark.parametrize("value, carried", CASES)
def test_four_decimals_inside_a_million_whole_beyond(value, carried):
    assert round4(value) == carried
    assert drawn([("t", 0.0, value)]) == (["t"], [carried])
    assert rates([Point(1, 0.0, "t", value, 1.0)]) == (["t"], [carried])


def test_an_unknown_value_stays_unknown():
    assert round4(None) is None
    assert drawn([("t1", 1.0, None), ("t2", 2.0, 2.5)]) == (["t1", "t2"], [None, 2.5])


def test_a_rate_is_num_over_den_times_the_scale_which_is_one_unless_given():
    group = [Point(1, 0.0, "t1", 90.0, 60.0), Point(2, 60.0, "t2", 30.0, 120.0)]
    assert rates(group) == (["t1", "t2"], [1.5, 0.25])
    assert rates(group, 100.0) == (["t1", "t2"], [150.0, 25.0])


@pytest.mark.parametrize(
    "a, b, pct",
    [
        (1, 2, 100.0),
        (2, 1, -50.0),
        (1, 1, 0.0),
        (3, 4, 33.3333),
        (-4, -2, -50.0),
        (None, 5, None),
        (5, None, None),
        (None, None, None),
        (0, None, None),
    ],
)
def test_change_from_a_to_b_in_percent(a, b, pct):
    assert change_pct(a, b) == pct


@pytest.mark.parametrize(
    "a, b, pct",
    [
        (0, 5, 100.0),
        (0, 0.0001, 100.0),
        (0.0, 3e9, 100.0),
        (0, -2, -100.0),
        (0, -0.0001, -100.0),
        (0, 0, 0.0),
        (0.0, 0.0, 0.0),
        (5, 0, -100.0),
        (0.0001, 0, -100.0),
    ],
)
def test_what_one_period_alone_holds_is_plus_or_minus_100_percent(a, b, pct):
    """§29: new in B (from 0) is +100 %, or -100 % to a negative value; gone in B (to 0) is -100 %; 0 to 0 is no
    change. The value is exactly that float."""
    got = change_pct(a, b)
    assert got == pct and type(got) is float


def test_rounded_values_are_carried_as_round4_carries_each():
    values = [v for v, _ in CASES]
    assert rounded(values) == [carried for _, carried in CASES]


def _series():
    """Three series as columns: two on one time axis, one on its own (the OpenAPI document's `shape`)."""
    a, b = ["t1", "t2", "t3"], ["t1", "t3"]
    return [
        {"name": "x", "points": (list(a), [1.0, 2.0, 3.0])},
        {"name": "y", "points": (list(b), [4.0, 5.0])},
        {"name": "z", "points": (list(a), [6.0, None, 7.5])},
    ]


def test_the_pairs_shape_gives_each_series_its_time_value_pairs_and_adds_nothing_on_top():
    series = _series()
    assert shaped(series, "pairs") == {}
    assert [s["points"] for s in series] == [
        [["t1", 1.0], ["t2", 2.0], ["t3", 3.0]],
        [["t1", 4.0], ["t3", 5.0]],
        [["t1", 6.0], ["t2", None], ["t3", 7.5]],
    ]
    assert all(set(s) == {"name", "points"} for s in series)


def test_the_axes_shape_sends_each_distinct_time_list_once_and_each_series_its_axis_and_values():
    series = _series()
    assert shaped(series, "axes") == {"axes": [["t1", "t2", "t3"], ["t1", "t3"]]}
    assert [(s["name"], s["axis"], s["values"]) for s in series] == [
        ("x", 0, [1.0, 2.0, 3.0]),
        ("y", 1, [4.0, 5.0]),
        ("z", 0, [6.0, None, 7.5]),
    ]
    assert all("points" not in s for s in series)
    assert shaped([], "axes") == {"axes": []}
