"""Time charts as SVG images, drawn from the numbers on the server (the report's charts, docs/awr-rules.md §28): a
few kilobytes each, no plotting library in the Lambda package, and a downloaded report that needs nothing else.
Every text is XML-escaped; the report shows each chart as an <img> (data: URI), where an SVG runs no script."""

import base64
from datetime import datetime
from math import floor, log10
from xml.sax.saxutils import escape, quoteattr

WIDTH, HEIGHT = 920, 300
LEFT, RIGHT, TOP, BOTTOM = 60, 16, 28, 40  # the plot area's margins
LEGEND_ROW = 18
PALETTE = ("#1f5fd6", "#e46800", "#2ca02c", "#8b1a00", "#9467bd", "#3fa7e8", "#c02800", "#717354")


def data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def _epoch(t: str) -> float:
    return datetime.fromisoformat(t).timestamp()


def _nice(top: float) -> float:
    """The axis' top, at or above `top`: a power of ten times a number whose quarters are short decimals."""
    if top <= 0:
        return 1.0
    power = 10 ** floor(log10(top))
    return next(power * m for m in (1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10) if power * m >= top)  # quarters read well


def _label(v: float) -> str:
    if v < 1:
        return f"{v:.3g}"
    return f"{v:,.2f}".rstrip("0").rstrip(".") if v < 1000 else f"{v:,.0f}"


def time_chart(
    title: str,
    unit: str,
    layers: list[tuple[str, str, list[str], list]],
    stacked: bool,
    lines: list[tuple[str, str, list[str], list]] = (),
) -> str:
    """An SVG chart over time. `layers`: (label, colour, times, values) drawn as stacked areas (`stacked`) or as
    lines; `lines`: more lines on top (a CPU count). A None value, or a time a layer lacks, breaks its shape."""
    series = list(layers) + list(lines)
    epochs = {t: _epoch(t) for t in {t for _, _, ts, _ in series for t in ts}}  # each time parsed once
    times = sorted(epochs, key=epochs.__getitem__)
    legend_rows = (len(series) + 3) // 4
    height = HEIGHT + legend_rows * LEGEND_ROW
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>',
        f'<text x="{LEFT}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]
    if len(times) < 2:
        out.append(f'<text x="{LEFT}" y="{TOP + 40}">Not enough points to draw.</text></svg>')
        return "".join(out)
    x0, x1 = epochs[times[0]], epochs[times[-1]]
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    at = {t: f"{LEFT + (e - x0) / (x1 - x0) * (right - LEFT):.1f}" for t, e in epochs.items()}  # x, as drawn
    values = {}  # (layer index, time) -> value, stacked when asked
    below = dict.fromkeys(times, 0.0)
    for k, (_, _, ts, vs) in enumerate(layers):
        for t, v in zip(ts, vs, strict=True):
            if v is not None:
                values[(k, t)] = (below[t], below[t] + v) if stacked else (0.0, v)
                if stacked:
                    below[t] += v
    tops = [hi for _, hi in values.values()] + [v for _, _, _, vs in lines for v in vs if v is not None]
    ymax = _nice(max(tops, default=1.0) * 1.05)

    def y(v):
        return bottom - v / ymax * (bottom - TOP)

    for k in range(5):  # the value axis: five lines, and the unit
        v = ymax * k / 4
        out.append(
            f'<line x1="{LEFT}" x2="{right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>'
            f'<text x="{LEFT - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{_label(v)}</text>'
        )
    out.append(
        f'<text x="12" y="{(TOP + bottom) / 2:.0f}" transform="rotate(-90 12 {(TOP + bottom) / 2:.0f})" '
        f'text-anchor="middle">{escape(unit)}</text>'
    )
    for k in range(6):  # the time axis: six dates
        epoch = x0 + (x1 - x0) * k / 5
        t = min(times, key=lambda s: abs(epochs[s] - epoch))
        anchor = "start" if k == 0 else "end" if k == 5 else "middle"
        out.append(
            f'<text x="{at[t]}" y="{bottom + 16}" text-anchor="{anchor}">'
            f'{escape(datetime.fromisoformat(t).strftime("%m-%d %H:%M"))}</text>'
        )
    out.append(f'<line x1="{LEFT}" x2="{right}" y1="{bottom}" y2="{bottom}" stroke="#888"/>')
    for k, (_name, colour, _times, _) in enumerate(layers):
        for run in _runs(times, lambda t, k=k: values.get((k, t))):
            if stacked:
                upper = " ".join(f"{at[t]},{y(v[1]):.1f}" for t, v in run)
                lower = " ".join(f"{at[t]},{y(v[0]):.1f}" for t, v in reversed(run))
                out.append(f'<polygon points="{upper} {lower}" fill={quoteattr(colour)} fill-opacity="0.85"/>')
            else:
                out.append(_polyline(run, at, y, colour, lambda v: v[1]))
    for _name, colour, ts, vs in lines:
        got = dict(zip(ts, vs, strict=True))
        for run in _runs(times, got.get):
            out.append(_polyline(run, at, y, colour, lambda v: v, dash=True))
    for k, (label, colour, _, _) in enumerate(series):  # the legend, four to a row
        lx, ly = LEFT + (k % 4) * 215, HEIGHT + (k // 4) * LEGEND_ROW
        out.append(
            f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill={quoteattr(colour)}/>'
            f'<text x="{lx + 14}" y="{ly}">{escape(label)}</text>'
        )
    out.append("</svg>")
    return "".join(out)


def _runs(times, get):
    """The stretches of consecutive times where get(t) has a value."""
    run = []
    for t in times:
        v = get(t)
        if v is None:
            if len(run) > 1:
                yield run
            run = []
        else:
            run.append((t, v))
    if len(run) > 1:
        yield run


def _polyline(run, at, y, colour, value, dash=False):
    """A line through a run's points: `at` each time's x as drawn, y(value(v)) its height."""
    points = " ".join(f"{at[t]},{y(value(v)):.1f}" for t, v in run)
    return (
        f'<polyline points="{points}" fill="none" stroke={quoteattr(colour)} stroke-width="1.5"'
        + (' stroke-dasharray="5 3"' if dash else "")
        + "/>"
    )
