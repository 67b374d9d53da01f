"""`flask --app app reports ...`: AWR report files into a reports store (docs/awr-rules.md §35).

    flask --app app reports import ~/case-1234/awr/           # every report under a folder
    flask --app app reports import awr_week.zip rac1.html     # zips and files
    flask --app app reports import reports/ --store /data/case.sqlite --utc-offset +01:00
    flask --app app reports list

The store is AWRLENS_REPORTS_PATH (the target `reports`), or --store. An import is all or nothing: a file that cannot
be imported is named with its reason and nothing is written.
"""

from pathlib import Path

import click
from flask import current_app
from flask.cli import AppGroup

from app.errors import ApiError
from app.report_files import files, importer
from app.report_files.importer import ImportRefused, import_files

reports = AppGroup("reports", help="AWR report files: import them as databases to browse, list what was imported.")


def _store(path: str | None):
    from app.store.reports import ReportStore

    settings = current_app.config["SETTINGS"]
    path = path or settings.reports_path
    if not path:
        raise click.UsageError("no reports store: set AWRLENS_REPORTS_PATH or give --store")
    return ReportStore("reports", path, settings)


@reports.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--store", default=None, help="The SQLite file to import into (default: AWRLENS_REPORTS_PATH).")
@click.option(
    "--utc-offset",
    default=None,
    help="The database's offset from UTC, e.g. +01:00 (a report prints its times without one; default: UTC).",
)
def import_command(paths, store, utc_offset):
    """Import AWR report files (HTML or text), folders of them and zips: all of them or none."""
    target = _store(store)
    try:
        offset = importer.utc_offset(utc_offset)
    except ApiError as exc:
        raise click.BadParameter(exc.message, param_hint="--utc-offset") from None
    found = files.gather(list(paths))
    for skipped in found.skipped:
        click.echo(f"skipped {skipped}", err=True)
    with click.progressbar(length=len(found.entries), label=f"Reading {len(found.entries)} files") as bar:
        try:
            outcome = import_files(target, found, on_progress=lambda _name: bar.update(1), offset=offset)
        except ImportRefused as exc:
            bar.render_finish()
            for problem in exc.problems:
                click.echo(f"refused: {problem}", err=True)
            raise click.ClickException(
                f"nothing was imported into {target.path}: {len(exc.problems)} file(s) refused"
            ) from None
    for note in outcome.kept_once:
        click.echo(note)
    dbs = ", ".join(f"{name} ({dbid})" for dbid, name in sorted(outcome.databases.items()))
    click.echo(f"Imported {len(outcome.imported)} report(s) into {Path(target.path)}" + (f": {dbs}" if dbs else ""))
    served = [
        Path(t["reports"]).resolve() for t in current_app.config["SETTINGS"].all_targets().values() if "reports" in t
    ]
    if target.path not in served:
        click.echo(f'To browse it, add a target {{"reports": "{target.path}"}} to AWRLENS_TARGETS', err=True)


@reports.command("list")
@click.option("--store", default=None, help="The SQLite file (default: AWRLENS_REPORTS_PATH).")
def list_command(store):
    """The report files imported, by database and first snapshot."""
    for _sha, name, dbid, instances, lo, hi in sorted(_store(store).report_files(), key=lambda r: (r[2], r[4])):
        click.echo(f"{dbid}  instance {instances}  snapshots {lo}-{hi}  {name}")
