"""AWR's HTML layout (placeholder until written)."""

from app.report_files.model import ReportError


def parse(name, text, known=None):
    raise ReportError(f"{name}: HTML reports are not read yet")
