"""Numbers as the answers carry them: rounded to four decimals, points as [time, value], changes in %."""


def points(values) -> list[list]:
    """[[time, value]] from (time, epoch, value) triples, values rounded as round4 does (inlined: a call per value
    is a tenth of a full-resolution series' time)."""
    out = []
    for t, _, v in values:
        if v is not None:
            v = round(v * 10000) / 10000 if -1e6 < v < 1e6 else round(v)
        out.append([t, v])
    return out


def rates(group, scale: float = 1.0) -> list[list]:
    """[[time, num / den x scale]] of analysis.Points, rounded as points() does: one pass where nothing is
    downsampled (a full-resolution answer's every point)."""
    out = []
    for _, _, t, num, den in group:
        v = num / den * scale
        out.append([t, round(v * 10000) / 10000 if -1e6 < v < 1e6 else round(v)])
    return out


def round4(x):
    """Four decimals (as round(x, 4), ten times faster: answers hold thousands of values), whole above a million."""
    if x is None:
        return None
    return round(x * 10000) / 10000 if -1e6 < x < 1e6 else round(x)


def change_pct(a, b):
    """% change from a to b (None when a is 0 or either is unknown)."""
    return round4(100 * (b - a) / a) if a not in (None, 0) and b is not None else None
