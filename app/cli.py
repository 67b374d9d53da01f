"""Command-line tools, as Flask commands: `flask --app app demo | sql | settings | openapi | runs | reports`."""

import json
import time
from pathlib import Path

import click

from app.settings import Settings
from app.store.awr.queries import all_statements, render, report_statements
from app.store.awr.views import NEWEST, PREFIXES, RELEASES, views
from app.units import MIB


def register(app):
    @app.cli.command("demo")
    @click.option("--path", default=None, help="Where to write the store (default: AWRLENS_STORE_PATH).")
    @click.option("--days", default=45, show_default=True, help="Days of history.")
    @click.option(
        "--awr-days",
        default=None,
        type=int,
        help="Days of the AWR databases' history, the most recent ones (default: --days; at least 8); the Statspack "
        "database keeps --days.",
    )
    @click.option("--seed", default=42, show_default=True, help="Random seed: the same seed gives the same data.")
    @click.option(
        "--detail-days",
        default=8.0,
        show_default=True,
        help="Days of per-minute sysmetric history, the most recent ones (0 = none).",
    )
    @click.option(
        "--ash-days",
        default=None,
        type=float,
        help="Days of Active Session History, the most recent ones (default: --detail-days).",
    )
    @click.option(
        "--ash-totals/--no-ash-totals",
        default=True,
        show_default=True,
        help="Keep ASH's per-minute and half-hour totals (faster top activity, a bigger store).",
    )
    @click.option(
        "--live-minutes",
        default=None,
        type=click.IntRange(0, 180),
        help="Minutes of one-second samples in the live buffer (GV$ACTIVE_SESSION_HISTORY) after the newest snapshot "
        "(default: an hour; 0 = none).",
    )
    @click.option("--if-missing", is_flag=True, help="Do nothing when the file already exists.")
    def demo(path, days, awr_days, seed, detail_days, ash_days, ash_totals, live_minutes, if_missing):
        """Build the embedded demo AWR history (two databases, 30-minute snapshots)."""
        from app import demo as builder

        target = Path(path or app.config["SETTINGS"].store_path)
        if if_missing and target.exists():
            click.echo(f"{target} exists; keeping it")
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        with click.progressbar(length=100, label=f"Building {target}") as bar:
            state = {"done": 0}

            def progress(done, total):
                pct = int(100 * done / total) if total else 100
                bar.update(pct - state["done"])
                state["done"] = pct

            stories = builder.build(
                target,
                seed=seed,
                days=days,
                awr_days=awr_days,
                detail_days=detail_days,
                on_progress=progress,
                ash_days=ash_days,
                ash_totals=ash_totals,
                **({} if live_minutes is None else {"live_minutes": live_minutes}),
            )
            bar.update(100 - state["done"])
        size = target.stat().st_size / MIB
        names = ", ".join(f"{d['db_name']} ({d['dbid']})" for d in stories.get("databases", []))
        click.echo(f"Built {target} in {time.monotonic() - started:.1f} s, {size:.0f} MiB: {names}")

    @app.cli.command("sql")
    @click.option(
        "--prefix",
        default="dba_hist_",
        type=click.Choice(PREFIXES),
        show_default=True,
        help="View prefix of the target.",
    )
    @click.option(
        "--release",
        default=NEWEST,
        type=click.Choice(RELEASES),
        show_default=True,
        help="Oracle release of the target: the statements use the columns its views have.",
    )
    @click.option(
        "--sqlite",
        is_flag=True,
        help="Instead, the embedded store's statements as "
        "app/store/sqlite_statements.json holds them (redirect the output there after changing one).",
    )
    def sql(prefix, release, sqlite):
        """Print every SQL statement the API can run, compiled for Oracle, for review before granting access: AWR's,
        then Statspack's."""
        if sqlite:
            from app.store.sqlite import statement_texts

            click.echo(json.dumps(statement_texts(), indent=1))
            return
        from sqlalchemy.dialects import oracle  # here, not at import: every cold start on Lambda imports this module

        if release == RELEASES[0] and prefix != "dba_hist_":
            raise click.BadParameter(f"Oracle {release} has no {prefix.upper()} views", param_hint="--prefix")
        from app.store import licence

        dialect = oracle.dialect()
        settings = app.config["SETTINGS"]
        click.echo(f"-- the licence check, before any statement of a management pack\n{licence.oracle_text()};\n")
        for name, stmt in all_statements(views(prefix, release), settings.row_cap, settings.max_points):
            click.echo(f"-- {name}\n{render(stmt, dialect)};\n")
        for name, stmt in report_statements():  # Oracle's own reports (docs/awr-rules.md §27)
            click.echo(f"-- {name}\n{render(stmt, dialect)};\n")
        from app.store.statspack.listing import statspack_statements

        click.echo("-- Statspack (PERFSTAT.STATS$*): a database without the Diagnostics Pack (docs/awr-rules.md §31)\n")
        for name, stmt in statspack_statements(row_cap=settings.row_cap, max_points=settings.max_points):
            click.echo(f"-- statspack: {name}\n{render(stmt, dialect)};\n")

    @app.cli.command("settings")
    @click.option("--markdown", is_flag=True, help="As the table in docs/oracle.md.")
    def settings(markdown):
        """List every setting, its environment variable and default."""
        if markdown:
            click.echo(Settings.markdown(), nl=False)
            return
        for var, default, help_text in Settings.describe():
            click.echo(f"{var:28} {default!s:22} {help_text}")

    @app.cli.command("openapi")
    @click.option("--markdown", is_flag=True, help="As docs/api.md's endpoint reference.")
    def openapi(markdown):
        """Print the OpenAPI document (JSON), as GET /api/v1/openapi.json gives it."""
        if markdown:
            from app.api.reference import markdown as reference

            click.echo(reference(app), nl=False)
            return
        from app.api.openapi import openapi_document

        with app.test_request_context():
            click.echo(json.dumps(openapi_document(app), indent=1))

    from app.report_files.cli import reports
    from app.runs.cli import runs

    app.cli.add_command(runs)
    app.cli.add_command(reports)
