"""Oracle's printed numbers, read back into the views' units (docs/report-formats.md).

AWR and Statspack print through SQL*Plus and PL/SQL formats: thousands separators ("1,062.5"), no leading zero
(".8", "-.1"), scientific notation past a column's width ("1.4E+03"), K/M/G/T/P suffixes for counts (multiples of
1000) and for the IOStat sections' "Data" columns (multiples of 1024: "370M" is 370 MiB), durations with their unit
("52.86 s", "3.23ms", "268.69us", "12ns") and "####" where a figure overflowed its column. A report printed under
another NLS_NUMERIC_CHARACTERS swaps the separators ("1.062,5"): `Separators` says which a report uses, detected
from its header figures.

An overflow, "N/A" or an empty cell is None, never a guessed number; `overflowed` tells an overflow apart so the
caller can note it."""

from dataclasses import dataclass

_COUNT_SUFFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_SIZE_SUFFIX = {"K": 1024.0, "M": 1024.0**2, "G": 1024.0**3, "T": 1024.0**4, "P": 1024.0**5}
# a duration's unit -> seconds; "s" last: every other unit ends with it
_DURATION_UNITS = (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0))
_EMPTY = {"", "N/A", "n/a", "\xa0", "-"}


@dataclass(frozen=True)
class Separators:
    """A report's group and decimal separators (NLS_NUMERIC_CHARACTERS)."""

    group: str = ","
    decimal: str = "."

    def plain(self, text: str) -> str:
        """The figure with Python's separators: the group one removed, the decimal one a point."""
        if self.group == ",":
            return text.replace(",", "")
        return text.replace(self.group, "").replace(self.decimal, ".")


ENGLISH = Separators()
CONTINENTAL = Separators(group=".", decimal=",")


def detect(samples: list[str]) -> Separators:
    """The separators of a report from figures its header prints with decimals (Elapsed "60.00", DB Time "0.89",
    the Load Profile's "4,272.0"): the separator before a figure's last one or two digits is the decimal one.
    English unless a sample says otherwise."""
    for text in samples:
        s = text.strip()
        comma, point = s.rfind(","), s.rfind(".")
        last = max(comma, point)
        if last < 0 or not (0 < len(s) - last - 1 <= 2 and s[last + 1 :].isdigit()):
            continue
        return CONTINENTAL if last == comma else ENGLISH
    return ENGLISH


def overflowed(text: str | None) -> bool:
    """Whether the cell is SQL*Plus's overflow mark: the column filled with '#'."""
    s = (text or "").strip()
    return bool(s) and s.strip("#") == ""


def number(text: str | None, seps: Separators = ENGLISH) -> float | None:
    """A plain figure, with an optional K/M/G/T/P count suffix (x 1000) and '%'; None for an empty cell, N/A or an
    overflow."""
    if text is None:
        return None
    s = text.strip()
    if s in _EMPTY or overflowed(s):
        return None
    if s[-1] == "%":
        s = s[:-1].rstrip()
    scale = 1.0
    last = s[-1]
    if last in _COUNT_SUFFIX and len(s) > 1 and (s[-2].isdigit() or s[-2] in ".,"):
        scale, s = _COUNT_SUFFIX[last], s[:-1]
    try:
        value = float(seps.plain(s))
    except ValueError:
        return None
    return value * scale if scale != 1.0 else value


def integer(text: str | None, seps: Separators = ENGLISH) -> int | None:
    """A count: `number` rounded to an integer."""
    value = number(text, seps)
    return None if value is None else round(value)


def size(text: str | None, seps: Separators = ENGLISH) -> float | None:
    """A size in bytes from an IOStat "Data" cell: a suffix is a multiple of 1024 ("370M", ".801M", "2.8G"); a
    bare figure is megabytes, as the column prints (11.2: "1.02309")."""
    if text is None:
        return None
    s = text.strip()
    if s in _EMPTY or overflowed(s):
        return None
    last = s[-1].upper()
    if last in _SIZE_SUFFIX:
        scale, s = _SIZE_SUFFIX[last], s[:-1]
    else:
        scale = _SIZE_SUFFIX["M"]
    try:
        return float(seps.plain(s)) * scale
    except ValueError:
        return None


def duration(text: str | None, seps: Separators = ENGLISH, bare: float = 1.0) -> float | None:
    """A duration in seconds: "52.86 s", "3.23ms", "268.69us", "12ns"; a bare figure is in `bare` seconds (1e-3
    for a column headed "(ms)")."""
    if text is None:
        return None
    s = text.strip()
    if s in _EMPTY or overflowed(s):
        return None
    for unit, scale in _DURATION_UNITS:
        if s.endswith(unit) and len(s) > len(unit) and not s[-len(unit) - 1].isalpha():
            value = number(s[: -len(unit)], seps)
            return None if value is None else value * scale
    value = number(s, seps)
    return None if value is None else value * bare


def resolution(text: str | None, seps: Separators = ENGLISH) -> float:
    """Half the last printed digit's place of a figure ("0.89" -> 0.005, "53" -> 0.5, "1.2K" -> 50): how far the
    printed figure may be from the value it rounds. Infinite for a cell with no figure."""
    if text is None:
        return float("inf")
    s = text.strip().rstrip("%").strip()
    if s in _EMPTY or overflowed(s):
        return float("inf")
    scale = 1.0
    for unit, unit_scale in _DURATION_UNITS:
        if s.endswith(unit) and len(s) > len(unit) and not s[-len(unit) - 1].isalpha():
            scale, s = unit_scale, s[: -len(unit)].strip()
            break
    else:
        if s[-1] in _COUNT_SUFFIX:
            scale, s = _COUNT_SUFFIX[s[-1]], s[:-1]
    if "E" in s.upper():
        mantissa, _, exponent = s.upper().partition("E")
        digits = len(mantissa.rsplit(seps.decimal, 1)[1]) if seps.decimal in mantissa else 0
        try:
            return 0.5 * 10.0 ** (int(exponent) - digits) * scale
        except ValueError:
            return float("inf")
    digits = len(s.rsplit(seps.decimal, 1)[1]) if seps.decimal in s else 0
    return 0.5 * 10.0 ** (-digits) * scale
