"""`flask --app app bench ...`: record benchmark runs from files or by running the field tests.

    flask --app app bench import results.json                  # a whole run as JSON
    flask --app app bench import sweep.csv --slug ebs-sweep --title "EBS sweep" --kind io_sweep
    flask --app app bench import results.json --replace       # replace the stored run with the same slug
    flask --app app bench cpu --max-sessions 4 --repeats 3     # seed 002 on the configured database
    flask --app app bench hang                                 # seed 001 against loopback endpoints
    flask --app app bench list
"""
import click
from flask import current_app
from flask.cli import AppGroup

from app.errors import ApiError

bench = AppGroup("bench", help="Benchmark runs: import results, run the field tests, list and delete runs.")

RUN_OPTIONS = (("slug", str), ("title", str), ("kind", str), ("description", str), ("visibility", str),
               ("started", str), ("finished", str))
ENV_OPTIONS = (("host", str), ("instance_type", str), ("vcpus", int), ("cores", int), ("db_version", str))


def _store():
    return next(iter(current_app.extensions["awrlens"].stores.values()))


def _targets():
    return list(current_app.extensions["awrlens"].stores)


def fail(exc: ApiError):
    where = f" [{exc.parameter}]" if exc.parameter else ""
    raise click.ClickException(f"{exc.message}{where}")


def save(run, replace=False) -> dict:
    """Store a checked run in the app's store; ApiErrors become a one-line message and exit status 1."""
    from app.bench import repo
    try:
        return repo.save(_store(), run, replace=replace)
    except ApiError as exc:
        fail(exc)


@bench.command("import")
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
    from app.bench.files import read_document
    from app.bench.model import parse_run
    stream = click.open_file(file, "rb")
    with stream:
        data = stream.read()
    name = "stdin.json" if file == "-" else file
    try:
        doc, where = read_document(name, data)
        if not isinstance(doc, dict):
            doc = {"measurements": doc}  # parse_run names the problem
        for key, _ in RUN_OPTIONS:
            if options.get(key) is not None:
                doc[key] = options[key]
        env = {k: options[k] for k, _ in ENV_OPTIONS if options.get(k) is not None}
        if env:
            doc["environment"] = {**(doc.get("environment") or {}), **env}
        run = parse_run(doc, targets=_targets(), where=where)
    except ApiError as exc:
        fail(exc)
    saved = save(run, replace)
    verb = "Replaced" if saved["replaced"] else "Stored"
    click.echo(f"{verb} run {run.slug!r} ({run.kind}, {saved['measurements']} measurements, {run.visibility}) "
               f"in {_store().alias}: /api/v1/benchmarks/{run.slug}")


@bench.command("list")
def list_():
    """List the stored runs, private ones included."""
    from app.bench import repo
    try:
        rows = repo.list_runs(_store(), private=True)
    except ApiError as exc:
        fail(exc)
    for r in rows:
        click.echo(f"{r['slug']:40} {r['kind']:16} {r['visibility']:8} {r['measurements']:7} {r['title']}")
    if not rows:
        click.echo("no runs")


@bench.command("delete")
@click.argument("slug")
def delete(slug):
    """Delete the run SLUG and its measurements."""
    from app.bench import repo
    try:
        found = repo.delete_run(_store(), slug)
    except ApiError as exc:
        fail(exc)
    if not found:
        raise click.ClickException(f"no run {slug!r}")
    click.echo(f"Deleted run {slug!r}")


@bench.command("ddl")
def ddl():
    """Print the Oracle DDL of the test-result tables (what infra/oracle/bench_tables.sql holds)."""
    click.echo(oracle_ddl())


def oracle_ddl() -> str:
    """CREATE TABLE statements for Oracle, generated from the same Core tables the app queries."""
    from sqlalchemy.dialects import oracle
    from sqlalchemy.schema import CreateTable

    from app.store.bench_schema import TABLES
    out = []
    for t in TABLES:
        text = str(CreateTable(t).compile(dialect=oracle.dialect())).strip()
        out.append("\n".join(line.rstrip() for line in text.splitlines()) + ";")
    return "\n\n".join(out)
