"""`flask --app app runs ...`: record benchmark runs from files or by running the field tests.

    flask --app app runs import results.json                  # a whole run as JSON
    flask --app app runs import sweep.csv --slug ebs-sweep --title "EBS sweep" --kind io_sweep
    flask --app app runs import results.json --replace       # replace the stored run with the same slug
    flask --app app runs cpu --max-sessions 4 --repeats 3     # field test 002 (CPU consistency), configured database
    flask --app app runs cpu -m 3 -r 2 --level 60             # the same, small enough for a quick look
    flask --app app runs hang                                 # field test 001 (client hangs), loopback endpoints
    flask --app app runs list

The runs go to the store app.runs.where names. `runs hang` imports the lab (lab/, never shipped to Lambda) only
when it runs.
"""

import click
from flask import current_app
from flask.cli import AppGroup

from app.errors import ApiError
from app.runs import where

runs = AppGroup("runs", help="Benchmark runs: import results, run the field tests, list and delete runs.")

RUN_OPTIONS = (
    ("slug", str),
    ("title", str),
    ("kind", str),
    ("description", str),
    ("visibility", str),
    ("started", str),
    ("finished", str),
)
ENV_OPTIONS = (("host", str), ("instance_type", str), ("vcpus", int), ("cores", int), ("db_version", str))


def fail(exc: ApiError):
    field = f" [{exc.parameter}]" if exc.parameter else ""
    raise click.ClickException(f"{exc.message}{field}")


def save(run, replace=False) -> dict:
    """Store a checked run in the app's store; ApiErrors become a one-line message and exit status 1."""
    from app.runs import repo

    try:
        return repo.save(where.store(), run, replace=replace)
    except ApiError as exc:
        fail(exc)


@runs.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--replace", is_flag=True, help="Replace a stored run with the same slug (otherwise refused).")
@click.option("--slug", help="The run's slug (required for CSV; overrides the JSON's).")
@click.option("--title", help="Title (required for CSV).")
@click.option("--kind", help="cpu_consistency, io_sweep, client_hang, before_after, ab or other (required for CSV).")
@click.option("--description", help="What was measured, how, and what to read in it.")
@click.option("--visibility", type=click.Choice(["public", "private"]), help="Default: public.")
@click.option("--started", help="ISO 8601 start time (no offset: UTC).")
@click.option("--finished", help="ISO 8601 end time.")
@click.option("--host", help="Environment: host name.")
@click.option("--instance-type", help="Environment: instance type, e.g. c4.4xlarge.")
@click.option("--vcpus", type=int, help="Environment: vCPUs.")
@click.option("--cores", type=int, help="Environment: physical cores.")
@click.option("--db-version", help="Environment: database version.")
def import_(file, replace, **options):
    """Import a run from FILE: JSON (a whole run) or CSV (series,x,y,unit[,extra columns]; the run's fields as
    options). All or nothing: one bad row rejects the file, naming the row and the field."""
    from app.runs.files import read_document
    from app.runs.model import parse_run

    stream = click.open_file(file, "rb")
    with stream:
        data = stream.read()
    name = "stdin.json" if file == "-" else file
    try:
        doc, rows_from = read_document(name, data)
        if not isinstance(doc, dict):
            doc = {"measurements": doc}  # parse_run names the problem
        for key, _ in RUN_OPTIONS:
            if options.get(key) is not None:
                doc[key] = options[key]
        env = {k: options[k] for k, _ in ENV_OPTIONS if options.get(k) is not None}
        if env:
            doc["environment"] = {**(doc.get("environment") or {}), **env}
        run = parse_run(doc, targets=where.targets(), where=rows_from)
    except ApiError as exc:
        fail(exc)
    saved = save(run, replace)
    verb = "Replaced" if saved["replaced"] else "Stored"
    click.echo(
        f"{verb} run {run.slug!r} ({run.kind}, {saved['measurements']} measurements, {run.visibility}) "
        f"in {where.store().alias}: /api/v1/benchmarks/{run.slug}"
    )


def _record(doc, label: str):
    """Check a field test's run document, store it and say where it is."""
    from app.runs.model import parse_run

    try:
        run = parse_run(doc, targets=where.targets())
    except ApiError as exc:
        fail(exc)
    save(run)
    awr = (
        f"  AWR {run.awr['target']}.{run.awr['dbid']} snapshots {run.awr['begin_snap']}..{run.awr['end_snap']}"
        if run.awr
        else ""
    )
    click.echo(
        f"Stored {label} run {run.slug!r} ({len(run.measurements)} measurements, {run.visibility}) in "
        f"{where.store().alias}: /api/v1/benchmarks/{run.slug}{awr}"
    )


class _Bar:
    """on_progress(done, total) onto a click progress bar."""

    def __init__(self, bar):
        self.bar, self.shown = bar, 0

    def __call__(self, done, total):
        self.bar.update(done - self.shown)
        self.shown = done


@runs.command("cpu")
@click.option(
    "--max-sessions",
    "-m",
    type=click.IntRange(1, 256),
    default=None,
    help="Largest N (default: vCPUs + 1, one session more than the machine has CPUs).",
)
@click.option(
    "--repeats", "-r", type=click.IntRange(1, 1000), default=3, show_default=True, help="Times each N is run."
)
@click.option(
    "--level",
    type=click.IntRange(1, 100_000),
    default=200,
    show_default=True,
    help="Rows per side of the four-way cross join (field test 002's 200: 1.6 billion rows per session).",
)
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds one session may take.")
@click.option("--slug", help="Default: cpu-<host>-<UTC time>.")
@click.option("--private", is_flag=True, help="Only visible with the API key.")
@click.option(
    "--snapshots",
    is_flag=True,
    help="Oracle: take an AWR snapshot just before and after (needs EXECUTE on DBMS_WORKLOAD_REPOSITORY).",
)
@click.option("--instance-type", help="Environment: instance type, e.g. c4.4xlarge.")
def cpu(max_sessions, repeats, level, timeout, slug, private, snapshots, instance_type):
    """Field test 002 (CPU consistency): per-session elapsed time of a CPU-only statement as parallel sessions
    grow, on the configured database (the store that holds the runs), each session on its own connection. Stores a
    cpu_consistency run."""
    import os

    from app.runs import cpu_consistency

    store = where.store()
    m = max_sessions or (os.cpu_count() or 1) + 1
    click.echo(f"{store.alias} ({store.dialect}): N = 1..{m}, {repeats} repeats, {level**4:,} rows per session")
    env = {"instance_type": instance_type} if instance_type else None
    try:
        with click.progressbar(length=m * repeats, label="CPU consistency") as bar:
            doc = cpu_consistency.run(
                store,
                m,
                repeats,
                level,
                timeout,
                slug=slug,
                visibility="private" if private else "public",
                take_snapshots=snapshots,
                environment=env,
                on_progress=_Bar(bar),
            )
    except ApiError as exc:
        fail(exc)
    except Exception as exc:  # a session's statement failed or timed out
        raise click.ClickException(f"the test stopped: {type(exc).__name__}: {exc}") from exc
    _record(doc, "cpu_consistency")


@runs.command("hang")
@click.option(
    "--cap",
    type=click.FloatRange(0.5, 3600),
    default=60.0,
    show_default=True,
    help="Longest wait measured; a client still waiting then is recorded as hanging.",
)
@click.option(
    "--delay",
    type=click.FloatRange(0, 60),
    default=0.5,
    show_default=True,
    help="Seconds a call in flight runs before the server dies under it.",
)
@click.option("--connect-timeout", type=float, help="The app's connect bound (default: AWRLENS_CONNECT_TIMEOUT).")
@click.option("--call-timeout", type=float, help="The app's call bound (default: AWRLENS_CALL_TIMEOUT).")
@click.option("--expire-time", type=int, help="Keepalive minutes (default: AWRLENS_EXPIRE_TIME).")
@click.option("--slug", help="Default: hang-<host>-<UTC time>.")
@click.option("--private", is_flag=True, help="Only visible with the API key.")
def hang(cap, delay, connect_timeout, call_timeout, expire_time, slug, private):
    """Field test 001 (client hangs during RDS failover): how long the real driver waits for a new connection, a
    new call on a dead connection and a call in flight, against loopback endpoints that stay silent, drop or reset,
    with the driver's defaults and with the app's bounds. Needs no database. Stores a client_hang run."""
    import dataclasses

    from lab import hang as lab_hang  # lab equipment: imported only here, never at start (not in the Lambda zip)

    s = current_app.config["SETTINGS"]
    changes = {
        k: v
        for k, v in (("connect_timeout", connect_timeout), ("call_timeout", call_timeout), ("expire_time", expire_time))
        if v is not None
    }
    s = dataclasses.replace(s, **changes)
    steps = len(lab_hang.plan())
    click.echo(
        f"{steps} measurements, up to {cap:g} s each: connect {s.connect_timeout:g} s, call "
        f"{s.call_timeout:g} s, keepalive {s.expire_time} min"
    )
    with click.progressbar(length=steps, label="Client hangs") as bar:
        doc = lab_hang.run(
            s, cap=cap, delay=delay, slug=slug, visibility="private" if private else "public", on_progress=_Bar(bar)
        )
    for m in doc["measurements"]:
        click.echo(f"  {m['series']:16} {m['x']:38} {m['y']:8.3f} s  {m['extra']['outcome']}")
    _record(doc, "client_hang")


@runs.command("list")
def list_():
    """List the stored runs, private ones included."""
    from app.runs import repo

    try:
        rows = repo.list_runs(where.store(), private=True)
    except ApiError as exc:
        fail(exc)
    for r in rows:
        click.echo(f"{r['slug']:40} {r['kind']:16} {r['visibility']:8} {r['measurements']:7} {r['title']}")
    if not rows:
        click.echo("no runs")


@runs.command("delete")
@click.argument("slug")
def delete(slug):
    """Delete the run SLUG and its measurements."""
    from app.runs import repo

    try:
        found = repo.delete_run(where.store(), slug)
    except ApiError as exc:
        fail(exc)
    if not found:
        raise click.ClickException(f"no run {slug!r}")
    click.echo(f"Deleted run {slug!r}")


@runs.command("ddl")
def ddl():
    """Print the Oracle DDL of the test-result tables (what infra/oracle/bench_tables.sql holds)."""
    click.echo(oracle_ddl())


def oracle_ddl() -> str:
    """CREATE TABLE statements for Oracle, generated from the same Core tables the app queries."""
    from sqlalchemy.dialects import oracle
    from sqlalchemy.schema import CreateTable

    from app.store.runs_schema import TABLES

    out = []
    for t in TABLES:
        text = str(CreateTable(t).compile(dialect=oracle.dialect())).strip()
        out.append("\n".join(line.rstrip() for line in text.splitlines()) + ";")
    return "\n\n".join(out)
