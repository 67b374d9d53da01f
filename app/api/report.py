"""The report of a range as one HTML file (app/api/templates/report.html, docs/awr-rules.md §28): the numbers of
app/history/report.py, the charts as SVG images, every database text escaped by Jinja2's autoescape. The template
lives in app/, the only directory that ships to Lambda (the page's templates/ does not).

The answer forbids every script and every fetch (REPORT_POLICY, also in the file itself, so a saved copy and the
page's Blob URL keep it): the report is text, tables and data: images, and needs nothing else."""

from pathlib import Path

import jinja2
from flask import Response

from app.api import svg
from app.api.respond import disposition

REPORT_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
TEMPLATE = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")), autoescape=True, trim_blocks=False
).get_template("report.html")
CLASS_COLOURS = {  # Enterprise Manager's colours for the wait classes, as the page's (static/js/loaders.js)
    "DB CPU": "#2ca02c",
    "User I/O": "#1f5fd6",
    "System I/O": "#3fa7e8",
    "Concurrency": "#8b1a00",
    "Application": "#c02800",
    "Commit": "#e46800",
    "Configuration": "#5c440b",
    "Administrative": "#717354",
    "Network": "#9f9371",
    "Cluster": "#c9bfae",
    "Queueing": "#c2b79b",
    "Scheduler": "#9fbfa7",
    "Other": "#f06eaa",
}


def file_name(body: dict) -> str:
    """awrlens-<db>-<begin snap>-<end snap>.html (awrlens-<db>-empty.html for a range without a snapshot;
    respond.disposition keeps it to characters every file system takes)."""
    h = body["header"]
    snaps = "empty" if h["begin_snap"] is None else f"{h['begin_snap']}-{h['end_snap']}"
    return f"awrlens-{h['db_name'] or h['dbid']}-{snaps}.html"


def charts(body: dict) -> list[dict]:
    """The report's charts as data: URIs, with their alternative text."""
    if "charts" not in body:
        return []
    classes = body["charts"]["wait_classes"]
    layers = [
        (s["label"], CLASS_COLOURS.get(s["label"], svg.PALETTE[k % len(svg.PALETTE)]), *s["points"])
        for k, s in enumerate(classes["series"])
    ]
    cpus = [
        ("CPUs" + ("" if s["instance"] == "all" else f" (instance {s['instance']})"), "#000", *s["points"])
        for s in classes["cpu_count"]
    ]
    aas = body["charts"]["aas"]["series"]
    lines = [
        (
            "all instances" if s["instance"] == "all" else f"instance {s['instance']}",
            svg.PALETTE[k % len(svg.PALETTE)],
            *s["points"],
        )
        for k, s in enumerate(aas)
    ]
    return [
        {
            "id": "wait-classes",
            "alt": "Average active sessions by wait class over the range, stacked, with the CPU count",
            "src": svg.data_uri(
                svg.time_chart("Average active sessions by wait class", "sessions", layers, True, cpus)
            ),
        },
        {
            "id": "aas",
            "alt": "Average active sessions over the range" + (" per instance" if len(lines) > 1 else ""),
            "src": svg.data_uri(
                svg.time_chart(
                    "Average active sessions" + (" per instance" if len(lines) > 1 else ""), "sessions", lines, False
                )
            ),
        },
    ]


def page(body: dict, download: bool) -> Response:
    """The report as an HTML answer: script-free (REPORT_POLICY), and as an attachment when `download`."""
    html = TEMPLATE.render(r=body, h=body["header"], charts=charts(body), policy=REPORT_POLICY)
    resp = Response(html, mimetype="text/html")
    resp.headers["Content-Security-Policy"] = REPORT_POLICY
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Content-Disposition"] = disposition(file_name(body), download)
    return resp
