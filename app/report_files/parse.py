"""One report file into a Report (docs/report-formats.md): its kind told from its content, never from its name;
decoded as UTF-8 (a byte-order mark dropped), else Latin-1; refused with a ReportError naming the file and the
section when it is no report, is cut short, or lacks the header or the Load Profile."""

import re

from app.report_files import awr_global_text, awr_html, awr_text, statspack_text
from app.report_files.awr_common import KnownNames
from app.report_files.model import Report, ReportError

HEAD = 8192  # the bytes the kind is told from


def decode(name: str, data: bytes) -> str:
    """The text of a file: UTF-8 (with or without a BOM; UTF-16 with its BOM), else Latin-1. Binary data (NUL
    bytes) is no report."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ReportError(f"{name}: not a report (undecodable UTF-16)") from None
    if b"\x00" in data[:HEAD]:
        raise ReportError(f"{name}: not a report (binary data)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def kind(text: str) -> str:
    """ "awr-html", "awr-text", "statspack-text", "awr-diff" or "unknown", from the file's first lines."""
    head = text[:HEAD]
    low = head.lower()
    if "statspack report for" in low:
        return "statspack-text"
    if "compare period" in low or "workload repository compare" in low:
        return "awr-diff"
    if "workload repository" in low:
        stripped = low.lstrip()
        if stripped.startswith(("<", "\ufeff<")) or "<html" in low or "<table" in low:
            return "awr-html"
        return "awr-text"
    return "unknown"


def parse(name: str, data: bytes, known: KnownNames | None = None) -> Report:
    """A report file's content into a Report. `known`: Oracle's full names (a store's, `KnownNames.from_store`)
    that names the text layout cut short are mapped back to."""
    if not data or not data.strip():
        raise ReportError(f"{name}: empty file")
    text = decode(name, data)
    k = kind(text)
    count = len(re.findall(r"^\s*WORKLOAD REPOSITORY (?:report for|REPORT \(RAC\))", text, re.M | re.I)) or len(
        re.findall(r"<html", text, re.I)
    )
    if count > 1:
        raise ReportError(f"{name}: holds {count} reports (one file, one report: split it)")
    if k == "awr-text":
        rep = awr_text.TextReport(name, text)
        if "(RAC)" in rep.title:
            return awr_global_text.parse_global(rep, known)
        return awr_text.parse(rep, known)
    if k == "awr-html":
        return awr_html.parse(name, text, known)
    if k == "statspack-text":
        return statspack_text.parse(name, text, known)
    if k == "awr-diff":
        raise ReportError(f"{name}: an AWR compare-periods report: only single-period reports can be read")
    raise ReportError(f"{name}: not an AWR or Statspack report (no WORKLOAD REPOSITORY heading)")
