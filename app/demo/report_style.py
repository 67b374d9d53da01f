"""How Oracle's reports look in the demo store (app/demo/awr_reports.py, app/demo/monitor_reports.py): their style
sheet and the way they write numbers."""

from decimal import ROUND_HALF_UP, Decimal

STYLE = (
    "body{font:10pt Arial,Helvetica,sans-serif;color:#000;background:#fff}h1{font-size:16pt;color:#336699}"
    "h2{font-size:12pt;color:#336699}table{border-collapse:collapse;margin-bottom:1em}"
    "th{background:#0066cc;color:#fff;padding:2px 6px;text-align:left}td{padding:2px 6px;background:#ffffcc}"
    "td.num{text-align:right}"
)


def number(value, digits=1):
    """A number as the reports write it: thousands separated, `digits` decimals; empty for None."""
    if value is None:
        return ""
    return f"{value:,.{digits}f}" if abs(value) < 1e12 else f"{value:.3e}"


# -- Oracle's text reports: numbers as TO_CHAR prints them, in fixed-width columns (docs/report-formats.md) ----------


def half_up(value, decimals):
    """`value` rounded half away from zero to `decimals` places, as Oracle's ROUND does (a Decimal)."""
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def to_char(value, mask: str) -> str:
    """`value` as Oracle's TO_CHAR(value, mask) writes it for a mask of 9, 0, ',' and '.' (e.g. '999,990.9'): rounded
    half away from zero, grouped where the mask groups, a leading zero only where the mask has a 0 before the point,
    right-aligned in len(mask) + 1 characters (the sign's place); '#' in all of them when the digits do not fit.
    None is an empty string."""
    if value is None:
        return ""
    whole_mask, _, frac_mask = mask.partition(".")
    decimals = len(frac_mask)
    rounded = half_up(value, decimals)
    sign = "-" if rounded < 0 else ""
    digits = f"{abs(rounded):.{decimals}f}"
    whole, _, frac = digits.partition(".")
    slots = whole_mask.replace(",", "")
    zero_from = slots.find("0")
    least = len(slots) - zero_from if zero_from >= 0 else 0
    whole = whole.lstrip("0")
    if len(whole) < least:
        whole = whole.rjust(least, "0")
    if len(whole) > len(slots):
        return "#" * (len(mask) + 1)
    if "," in whole_mask and whole:
        whole = f"{int(whole):,}"
    text = sign + whole + ("." + frac if decimals else "")
    if not whole and not decimals:
        text = "0"
    return text.rjust(len(mask) + 1)


def tm(value, decimals=1) -> str:
    """TO_CHAR(ROUND(value, decimals)) with no mask (Oracle's TM format): no trailing zeros, no leading zero before the
    point (.4), 0 for zero, no grouping."""
    if value is None:
        return ""
    text = f"{half_up(value, decimals):f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text.startswith(("0.", "-0.")):
        text = text.replace("0.", ".", 1)
    return "0" if text in ("", "-0") else text


def kilo(value, decimals=1, width=10) -> str:
    """A count or a time as the reports shorten it: below 10,000 as TM rounds it, else in thousands (K), millions (M)
    or billions (G) with one decimal, no trailing zero (30,829 is 30.8K, 37,000 is 37K), none when that does not fit
    `width` (165,359 in 5 characters is 165K)."""
    if value is None:
        return ""
    if abs(value) < 1e4:
        return tm(value, decimals)
    units = [(u, f) for u, f in (("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)) if abs(value) >= f]
    for places in (1, 0):
        for unit, scale in units:
            text = tm(value / scale, places) + unit
            if len(text) <= width:
                return text
    return tm(value / 1e12, 0) + "T"


def avg_wait(micros) -> str:
    """An average wait with its unit, two decimals (19c): seconds from 10 s (52.86 s), milliseconds from 1 ms
    (3524.27ms), microseconds from 1 us (268.69us), else nanoseconds (.00ns)."""
    if micros is None:
        return ""
    for unit, scale, least in ((" s", 1e6, 1e7), ("ms", 1e3, 1e3), ("us", 1, 1)):
        if micros >= least:
            return to_char(micros / scale, "99999990.99").strip() + unit
    return to_char(micros * 1e3, "99999999.99").strip() + "ns"


def size_mb(megabytes) -> str:
    """A size in MB as the IOStat sections write it, suffixed by 1024s: 370M, 11.5G, 2.3T."""
    if megabytes is None:
        return ""
    for unit, scale in (("T", 1024.0 * 1024), ("G", 1024.0)):
        if megabytes >= 10 * scale:
            return f"{half_up(megabytes / scale, 1)}{unit}"
    return f"{half_up(megabytes, 0)}M"


def cell(text: str, width: int, left=False) -> str:
    """A value in its column: padded to `width`, a number too wide for it printed as '#' * width (Oracle's overflow),
    text cut to the width (Oracle's truncation of names)."""
    text = text.strip() if not left else text
    if len(text) > width:
        return text[:width] if left else "#" * width
    return text.ljust(width) if left else text.rjust(width)
