"""What one report file holds, whatever its layout (docs/report-formats.md): the parsers fill a Report, the importer
writes it into a store's DBA_HIST_* tables.

Values are as the report prints them, in the views' units: counters are the interval's totals (the report's
"Total" column, never a rate), times in seconds, sizes in bytes. A section the report does not print is None (its
question has no data), never an empty dict, which means the section was printed and held no row."""

from dataclasses import dataclass, field
from datetime import datetime


class ReportError(ValueError):
    """A file that cannot be read as a report: the message names the file, the section and what was wrong."""


@dataclass
class Instance:
    """One instance of the report's header (one in an instance report, each of a RAC global report's)."""

    number: int
    name: str
    host: str | None = None
    startup: datetime | None = None  # database-local, as printed (to the minute in AWR's header)
    platform: str | None = None
    cpus: int | None = None
    cores: int | None = None
    sockets: int | None = None
    memory_gb: float | None = None


@dataclass
class Event:
    """One wait event's interval totals on one instance: the foreground's and the background's (AWR prints the two in
    separate sections; Statspack's foreground section and its background one)."""

    wait_class: str | None
    waits_fg: int | None = None
    timeouts_fg: int | None = None  # the printed %Time-outs x waits / 100, rounded
    time_fg: float | None = None  # seconds
    waits_bg: int | None = None
    timeouts_bg: int | None = None
    time_bg: float | None = None


@dataclass
class Sql:
    """One statement of the SQL sections, the union of what each section printed of it (elapsed, CPU and I/O
    times in seconds; gets, reads, executions and rows as counts). None: no section printed that column."""

    sql_id: str  # AWR's SQL_ID; Statspack's OLD_HASH_VALUE as text
    elapsed: float | None = None
    cpu: float | None = None
    io_wait: float | None = None
    executions: int | None = None
    buffer_gets: int | None = None
    disk_reads: int | None = None
    rows: int | None = None
    plan_hash_value: int | None = None
    module: str | None = None
    container: str | None = None  # "PDB: NAME" under the statement in a CDB's report
    text: str | None = None  # the "Complete List of SQL Text" where printed, else the first line shown


@dataclass
class Segment:
    """One segment of the "Segments by ..." sections: its name and each statistic a section printed (the
    section's column name as DBA_HIST_SEG_STAT's *_DELTA column, e.g. "logical_reads": 1234)."""

    owner: str
    object_name: str
    subobject_name: str | None
    object_type: str | None
    tablespace: str | None
    values: dict[str, float] = field(default_factory=dict)


@dataclass
class IoFunction:
    """One row of "IOStat by Function summary": bytes and requests read and written, waits and their time."""

    read_bytes: float | None = None
    write_bytes: float | None = None
    read_reqs: float | None = None
    write_reqs: float | None = None
    waits: float | None = None
    wait_time: float | None = None  # seconds


@dataclass
class InstanceData:
    """What the report prints of one instance's interval. A RAC global report has one per instance (its
    per-instance sections); an instance report, one."""

    sysstat: dict[str, float] | None = None  # Instance Activity Stats: name -> the interval's total
    time_model: dict[str, float] | None = None  # Time Model Statistics: name -> seconds
    events: dict[str, Event] | None = None  # Foreground and Background Wait Events (and Top events' classes)
    wait_classes: dict[str, tuple[int | None, float]] | None = None  # Wait Classes: name -> (waits, seconds)
    osstat: dict[str, float] | None = None  # Operating System Statistics: the interval's value ("Value" column)
    io_functions: dict[str, IoFunction] | None = None
    parameters: dict[str, str] | None = None  # init.ora Parameters: name -> the end value (the begin one if none)
    event_histograms: dict[str, dict[float, int]] | None = None  # event -> bucket upper bound in ms -> waits
    sessions: tuple[int | None, int | None] | None = None  # header: sessions at the begin and end snapshot


@dataclass
class Report:
    """One report file's interval of one database."""

    source: str  # "awr" or "statspack"
    layout: str  # e.g. "awr-text-19", "awr-html-11.2", "statspack-text-19": docs/report-formats.md
    dbid: int
    db_name: str
    release: str  # "19.0.0.0.0" as printed
    rac: bool
    begin_snap: int
    end_snap: int
    begin_time: datetime  # database-local, naive, as printed (to the second)
    end_time: datetime
    elapsed_minutes: float  # as printed in the header
    db_time_minutes: float | None  # as printed in the header
    instances: list[Instance]
    data: dict[int, InstanceData]  # instance number -> its sections
    load_profile: dict[str, tuple[float | None, float | None]] | None = None  # as printed: label -> (/s, /txn)
    top_events: list[tuple[str, float]] | None = None  # Top events as printed: (event or "DB CPU", seconds)
    sql: list[Sql] | None = None  # across instances in a global report, as printed
    segments: list[Segment] | None = None
    cdb: bool = False
    edition: str | None = None
    missing: list[str] = field(default_factory=list)  # the sections a full report of this layout prints and it lacks
    notes: list[str] = field(default_factory=list)  # what was read with doubt: truncated names kept, overflows
    utc_offset: float | None = None  # the database's seconds east of UTC, given at import: a report prints none
