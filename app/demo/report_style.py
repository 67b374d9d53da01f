"""How Oracle's reports look in the demo store (app/demo/awr_reports.py, app/demo/monitor_reports.py): their style
sheet and the way they write numbers."""

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
