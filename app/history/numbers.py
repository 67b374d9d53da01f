"""Numbers as the answers carry them: rounded to four decimals, points as [time, value] pairs or on shared time
axes, changes in %."""


def drawn(values) -> tuple[list, list]:
    """A series' points as columns, (times, values), from (time, epoch, value) triples; values rounded as round4
    does (inlined: a call per value is a tenth of a full-resolution series' time)."""
    return [t for t, _, _ in values], [
        None if v is None else round(v * 10000) / 10000 if -1e6 < v < 1e6 else round(v) for _, _, v in values
    ]


def rates(group, scale: float = 1.0) -> tuple[list, list]:
    """A series' points as columns, (times, values), from analysis.Points (num / den x scale), rounded as drawn()
    does: one pass where nothing is downsampled (a full-resolution answer's every point)."""
    return [p[2] for p in group], rounded([num / den * scale for _, _, _, num, den in group])


def rounded(values: list[float]) -> list:
    """Known values rounded as round4 does, in one list (inlined: a call per value is a tenth of the time)."""
    return [round(v * 10000) / 10000 if -1e6 < v < 1e6 else round(v) for v in values]


def shaped(series: list[dict], shape: str) -> dict:
    """The answer's points in the shape asked for, from each series' columns (its "points" as (times, values)):
    `pairs`, [[time, value], ...] per series; or `axes`, each distinct time list once in the answer's "axes" and each
    series' "axis" (its index there) and "values". Returns what the answer adds at its top ({"axes": ...})."""
    if shape == "pairs":
        for s in series:
            s["points"] = [[t, v] for t, v in zip(*s["points"], strict=True)]
        return {}
    axes, index = [], {}
    for s in series:
        times, s["values"] = s.pop("points")
        s["axis"] = index.setdefault(tuple(times), len(axes))
        if s["axis"] == len(axes):
            axes.append(times)
    return {"axes": axes}


def round4(x):
    """Four decimals (as round(x, 4), ten times faster: answers hold thousands of values), whole above a million."""
    if x is None:
        return None
    return round(x * 10000) / 10000 if -1e6 < x < 1e6 else round(x)


def places4(x):
    """Four decimals at any size (a Load Profile's rates: Oracle prints a decimal of a rate of millions, §13)."""
    return None if x is None else round(x, 4)


def change_pct(a, b):
    """% change from a to b, 100 x (b - a) / a; None when either is unknown. From 0 it is +100 to a positive b (new in
    B), -100 to a negative one and 0 to 0; to 0 from any a it is -100 (gone in B) (docs/awr-rules.md §29)."""
    if a is None or b is None:
        return None
    if a == 0:
        return 100.0 if b > 0 else -100.0 if b < 0 else 0.0
    return round4(100 * (b - a) / a)
