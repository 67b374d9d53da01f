"""The tables of the benchmark runs (app.runs): BENCH_RUN and BENCH_MEASUREMENT, owned by the app and never mixed
into the AWR views.

The tables keep their BENCH_ names although the code calls them runs: they are data in users' Oracle schemas (and in
every SQLite store built so far), so renaming them would break every existing deployment. The Python names of the
Table objects follow the SQL names.

One definition for both backends. On SQLite the app creates them (the demo build, or the first write to a store
that lacks them); on Oracle infra/oracle/bench_tables.sql creates the same tables. Names are lower case so Oracle
sees them unquoted, i.e. as BENCH_RUN and BENCH_MEASUREMENT.

Text columns hold at most 4000 bytes (VARCHAR2's limit without extended strings), and an empty string is stored
as NULL, as Oracle would. Times are naive UTC. `parameters` and `extra` are JSON objects as text.
"""

from sqlalchemy import (
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Identity,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    UniqueConstraint,
)

from app.runs.model import TEXT_MAX

metadata = MetaData()

bench_run = Table(
    "bench_run",
    metadata,
    Column("run_id", Integer, Identity(start=1)),
    Column("slug", String(80), nullable=False),
    Column("title", String(200), nullable=False),
    Column("kind", String(20), nullable=False),
    Column("description", String(TEXT_MAX)),
    Column("host", String(255)),
    Column("instance_type", String(64)),
    Column("vcpus", Integer),
    Column("cores", Integer),
    Column("db_version", String(100)),
    Column("started_at", DateTime),
    Column("finished_at", DateTime),
    Column("parameters", String(TEXT_MAX)),
    Column("visibility", String(7), nullable=False),
    Column("awr_target", String(64)),
    Column("awr_dbid", Integer),
    Column("awr_begin_snap", Integer),
    Column("awr_end_snap", Integer),
    Column("created_at", DateTime, nullable=False),
    PrimaryKeyConstraint("run_id", name="bench_run_pk"),
    UniqueConstraint("slug", name="bench_run_slug_uk"),
    CheckConstraint("visibility in ('public', 'private')", name="bench_run_visibility_ck"),
    CheckConstraint(
        "(awr_target is null and awr_dbid is null and awr_begin_snap is null and awr_end_snap is null)"
        " or (awr_target is not null and awr_dbid is not null and awr_begin_snap is not null"
        " and awr_end_snap is not null and awr_begin_snap <= awr_end_snap)",
        name="bench_run_awr_ck",
    ),
)

bench_measurement = Table(
    "bench_measurement",
    metadata,
    Column(
        "run_id",
        Integer,
        ForeignKey("bench_run.run_id", ondelete="CASCADE", name="bench_measurement_run_fk"),
        nullable=False,
    ),
    Column("seq", Integer, nullable=False),  # the row's place in the upload, from 1
    Column("series", String(100), nullable=False),
    Column("x", Float),  # a numeric x ...
    Column("x_text", String(100)),  # ... or a category (bar charts); exactly one of the two
    Column("y", Float, nullable=False),
    Column("unit", String(20)),
    Column("extra", String(TEXT_MAX)),
    PrimaryKeyConstraint("run_id", "seq", name="bench_measurement_pk"),
    CheckConstraint(
        "(x is null and x_text is not null) or (x is not null and x_text is null)", name="bench_measurement_x_ck"
    ),
)

TABLES = (bench_run, bench_measurement)
