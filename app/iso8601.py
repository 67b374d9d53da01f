"""ISO 8601: the one parser of the dates and times the app reads (request parameters, uploaded runs, the embedded
store's text columns, the demo's stories), and the one writer of the times it answers."""

from datetime import UTC, datetime

YEARS = range(1980, 3000)  # what a request or an upload may name: keeps offsets and defaults inside datetime's range


def parse(text: str, years: range | None = None) -> datetime:
    """A date or a date-time, with or without an offset ('Z' is UTC). ValueError when it is none, or when its year
    is outside `years`."""
    text = text.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    value = datetime.fromisoformat(text)
    if years is not None and value.year not in years:
        raise ValueError(f"year {value.year} is outside {years.start}..{years.stop - 1}")
    return value


def naive_utc(moment: datetime) -> datetime:
    """A moment as the naive UTC the app's own tables store (a naive one is taken as UTC already)."""
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo is not None else moment


def text(moment: datetime) -> str:
    """To the second, with the offset when the moment has one."""
    return moment.isoformat(timespec="seconds")
