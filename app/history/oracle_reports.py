"""Oracle's own reports (docs/awr-rules.md §27): the AWR report of a snapshot range (one instance, or RAC global) and
the AWR compare-periods report, as Oracle renders them with DBMS_WORKLOAD_REPOSITORY; the SQL monitor reports AWR
captured of a statement (DBA_HIST_REPORTS), listed, and one rendered by DBMS_AUTO_REPORT. The embedded store has no
PL/SQL: it serves the reports the demo builder rendered and stored instead (embedded.reports.AWR_REPORTS,
MONITOR_REPORTS).

A report is markup from the database: the API serves it as a document of its own, never inside the app's pages
(app/api/oracle_reports.py says how it is isolated).
"""

import xml.etree.ElementTree as ElementTree
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from app import analysis
from app.errors import ApiError, BadParameter, MissingGrant, NotFound, NotGranted
from app.history.database import Database, Range
from app.store.awr import queries
from app.store.statspack.views import NotInSource

TYPES = ("html", "text")
SLACK = timedelta(days=1)  # either side of a report's snapshot, for its GENERATION_TIME (generated_between)
SUMMARY_LIMIT = 4000  # REPORT_SUMMARY is a VARCHAR2(4000): anything longer is not Oracle's, and is not parsed
GRANTS = {  # the package -> the optional grant it needs, as infra/oracle/create_user*.sql list them
    "DBMS_WORKLOAD_REPOSITORY": "GRANT EXECUTE ON SYS.DBMS_WORKLOAD_REPOSITORY TO {user}",
    "DBMS_AUTO_REPORT": "GRANT EXECUTE ON SYS.DBMS_AUTO_REPORT TO {user}",
}


@dataclass(frozen=True)
class Report:
    text: str
    type: str  # html | text
    filename: str  # for a download: names the database and the range, as Oracle's scripts name theirs


def renders(db: Database) -> bool:
    """Whether the database renders reports itself (Oracle) rather than keeping rendered ones (the demo store)."""
    return db.store.dialect == "oracle"


def _kept(db: Database, parameter: str):
    """A store that neither renders reports nor keeps them (a demo store built before them), or a database whose
    history is Statspack: 404 saying so."""
    if db.store.source == "statspack":
        raise NotInSource(
            "this database's history is Statspack: Oracle's AWR and SQL monitor reports need AWR (the Diagnostics "
            "Pack); awrlens's own report (/report) reads Statspack"
        )
    if not renders(db) and not db.store.keeps_reports:
        raise NotFound(
            f"{db.store.alias} keeps no Oracle reports: it was built before them; build the demo again "
            "(`flask --app app demo`)",
            parameter,
        )


def instances_of(db: Database, value: str | None) -> list[int]:
    """'all' (or none) -> every instance of the database; 'N' or 'N,M,...' -> those, each a known instance."""
    known = [i["instance_number"] for i in db.instances]
    if value in (None, "", "all"):
        return known
    asked = [int(v) for v in value.split(",")]
    wrong = [n for n in asked if n not in known]
    if wrong:
        raise BadParameter(
            f"instance {wrong[0]} is not an instance of {db.key}; its instances: {', '.join(map(str, known))}",
            "instance",
        )
    return sorted(set(asked))


def _bounds(db: Database, rng: Range, instances: list[int], names: tuple[str, str]) -> tuple[int, int]:
    """The range's first and last snapshot, which every instance asked must have, with no restart between them:
    Oracle refuses a report over a restart, whose counters start again (docs/awr-rules.md §4)."""
    if rng.lo is None or rng.lo == rng.hi:
        raise BadParameter(
            f"an AWR report needs two snapshots: {names[0]} before {names[1]}; the range holds "
            f"{'none' if rng.lo is None else 'only snapshot ' + str(rng.lo)}",
            names[0],
        )
    tl = db.timeline()
    for inst in instances:
        a, b = tl.by_id.get((inst, rng.lo)), tl.by_id.get((inst, rng.hi))
        if a is None or b is None:
            raise BadParameter(
                f"instance {inst} has no snapshot {rng.lo if a is None else rng.hi}; choose other "
                "snapshots or instances",
                names[0] if a is None else names[1],
            )
        if a.startup != b.startup:
            raise BadParameter(
                f"instance {inst} restarted between snapshots {rng.lo} and {rng.hi} (at "
                f"{b.startup_time}): an AWR report cannot span a restart; end the range before it or "
                "start it after",
                names[0],
            )
    return rng.lo, rng.hi


def kind_of(db: Database, instances: list[int], diff: bool) -> str:
    """report (one instance) or global (several, RAC), diff or global_diff for two periods."""
    kind = "global" if db.rac and len(instances) > 1 else "report"
    return (kind + "_diff" if kind == "global" else "diff") if diff else kind


def awr_report(db: Database, a: Range, b: Range | None, instances: list[int], kind_type: str) -> Report:
    """The AWR report of range `a` (or the compare-periods report of `a` and `b`) for `instances`."""
    _kept(db, "begin_snap" if b is None else "a_begin_snap")
    lo, hi = _bounds(db, a, instances, ("begin_snap", "end_snap") if b is None else ("a_begin_snap", "a_end_snap"))
    lo2, hi2 = _bounds(db, b, instances, ("b_begin_snap", "b_end_snap")) if b is not None else (0, 0)
    kind = kind_of(db, instances, b is not None)
    inst = ",".join(map(str, instances))
    ext = "html" if kind_type == "html" else "txt"
    stem = {"report": "awrrpt", "global": "awrgrpt", "diff": "awrdiff", "global_diff": "awrgdiff"}[kind]
    name = f"{stem}_{db.name}_{inst.replace(',', '-')}_{lo}_{hi}" + (f"_{lo2}_{hi2}" if b is not None else "")
    if renders(db):
        binds = {"dbid": db.dbid, "inst": inst if kind.startswith("global") else instances[0], "bid": lo, "eid": hi}
        if b is not None:
            binds.update(dbid2=db.dbid, inst2=binds["inst"], bid2=lo2, eid2=hi2)
        try:
            rows = db.store.rows(queries.awr_report(kind, kind_type), binds, db.store.settings.report_timeout)
        except NotGranted as exc:
            raise _missing(db, "DBMS_WORKLOAD_REPOSITORY", "the AWR report", exc) from None
        text = "\n".join(r[0] or "" for r in rows)
    else:
        found = db.rows(
            queries.stored_awr_report(db.store.views),
            kind=kind,
            instances=inst,
            begin_snap=lo,
            end_snap=hi,
            begin_snap2=lo2,
            end_snap2=hi2,
            type=kind_type,
        )
        if not found:
            raise NotFound(
                f"{db.store.alias} keeps Oracle's AWR reports of some ranges only (the demo's, or the report files "
                f"imported), not for {kind} of "
                f"instances {inst}, snapshots {lo} to {hi}"
                + (f" and {lo2} to {hi2}" if b else "")
                + f"; see /api/v1/dbs/{db.key}/awr-report/stored",
                "begin_snap" if b is None else "a_begin_snap",
            )
        text = zlib.decompress(found[0][0]).decode()
    return Report(text, kind_type, f"{name}.{ext}")


def stored(db: Database) -> dict:
    """The ranges whose AWR report the store can give: any on Oracle, the stored ones in the demo store."""
    if renders(db):
        return {"db": db.key, "any_range": True, "reports": []}
    rows = db.rows(queries.stored_awr_reports(db.store.views)) if db.store.keeps_reports else []
    reports: dict = {}
    for kind, inst, lo, hi, lo2, hi2, kind_type in rows:
        entry = reports.setdefault(
            (kind, inst, lo, hi, lo2, hi2),
            {
                "kind": kind,
                "instances": [int(i) for i in inst.split(",")],
                "begin_snap": lo,
                "end_snap": hi,
                **({"b_begin_snap": lo2, "b_end_snap": hi2} if kind.endswith("diff") else {}),
                "types": [],
            },
        )
        entry["types"].append(kind_type)
    return {"db": db.key, "any_range": False, "reports": list(reports.values())}


# -- SQL monitor ----------------------------------------------------------------------------------------------------


def summary(text: str | None) -> dict:
    """What a SQL monitor report's REPORT_SUMMARY says of its execution: status, duration (s), and the monitor's
    statistics (elapsed_time, cpu_time, buffer_gets...; times in microseconds). Parsed as data with the standard
    library's parser, which fetches no external entity and expands no entity past its limits; a summary that is not
    well-formed XML, or too long to be Oracle's, says nothing."""
    if not text or len(text) > SUMMARY_LIMIT:
        return {}
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return {}
    sql = root if root.tag == "sql" else root.find("sql")
    if sql is None:
        return {}
    out: dict = {}
    status = sql.findtext("status")
    if status:
        out["status"] = status.strip()
    for key in ("duration", "plan_hash"):
        value = _number(sql.findtext(key))
        if value is not None:
            out[key] = value
    for stat in sql.iter("stat"):
        value = _number(stat.text)
        if stat.get("name") and value is not None:
            out.setdefault("stats", {})[stat.get("name")] = value
    return out


def _number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return int(value) if value.is_integer() else value


def monitored(db: Database, sql_id: str, rng: Range, instance: int | None, con_dbid: int | None = None) -> dict:
    """The monitored executions of a statement that ended in the range: start, end, duration, status, instance; in a
    CDB root, of one container's when `con_dbid` names it (§15)."""
    asked = rng.lo is not None and (renders(db) or db.store.keeps_reports)
    binds = {"sql_id": sql_id, "lo": rng.lo or 0, "hi": rng.hi or 0}
    if con_dbid is not None:
        binds["con_dbid"] = con_dbid
    if con_dbid is not None and (getattr(db.store, "server_version", None) or "").startswith("12.1.0.1"):
        raise BadParameter(
            f"con_dbid: {db.key} runs Oracle {db.store.server_version}, whose DBA_HIST_REPORTS has no CON_DBID "
            "(12.1.0.2 and later): leave con_dbid out to list every container's executions",
            "con_dbid",
        )
    statement = queries.monitored_executions(db.store.views, con_dbid is not None)
    rows = _reports(db, statement, **binds) if asked else []
    tz = db.tz()
    out = []
    for report_id, inst, snap_id, exec_id, exec_start, start, end, sid, serial, text in rows:
        if instance is not None and inst != instance:
            continue
        s = summary(text)
        t0, t1 = (analysis.as_datetime(v) if v is not None else None for v in (start, end))
        stats = s.get("stats", {})
        out.append(
            {
                "report_id": report_id,
                "instance": inst,
                "snap_id": snap_id,
                "sql_exec_id": _int(exec_id),
                "sql_exec_start": exec_start,
                "start": t0 and analysis.iso(t0.replace(tzinfo=tz)),
                "end": t1 and analysis.iso(t1.replace(tzinfo=tz)),
                "duration_s": s.get("duration", round((t1 - t0).total_seconds()) if t0 and t1 else None),
                "status": s.get("status"),
                "plan_hash_value": s.get("plan_hash"),
                "elapsed_s": _seconds(stats.get("elapsed_time")),
                "cpu_s": _seconds(stats.get("cpu_time")),
                "buffer_gets": stats.get("buffer_gets"),
                "disk_reads": stats.get("disk_reads"),
                "session": f"{inst}:{sid},{serial}" if sid is not None else None,
            }
        )
    return {"db": db.key, "sql_id": sql_id, "range": rng.public(), "columns": list(COLUMNS), "rows": out}


COLUMNS = (
    "report_id",
    "instance",
    "sql_exec_id",
    "sql_exec_start",
    "start",
    "end",
    "duration_s",
    "status",
    "plan_hash_value",
    "elapsed_s",
    "cpu_s",
    "buffer_gets",
    "disk_reads",
    "session",
    "snap_id",
)


def _int(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return text


def _seconds(micro):
    return None if micro is None else round(micro / 1e6, 3)


def generated_between(db: Database, snap_id: int | None) -> tuple[datetime, datetime]:
    """When a report of SNAP_ID `snap_id` was generated, bounded: SNAP_ID is the first snapshot taken after the report
    (docs/awr-rules.md §27), so after the snapshot before it and before its end, with a day to spare each side (a
    DATE and a TIMESTAMP of the database, which may differ in time zone). WRP$_REPORTS is partitioned by day on
    GENERATION_TIME: the lookup reads a few partitions, not every one AWR keeps."""
    if snap_id is None:
        raise BadParameter(
            "snap_id is required: the report's SNAP_ID, as the monitored executions list it (it bounds the search by "
            "time)",
            "snap_id",
        )
    tl = db.timeline()
    spans = []
    for rows in tl.all.values():
        at = next((k for k, s in enumerate(rows) if s.snap_id == snap_id), None)
        if at is not None:
            spans.append((rows[at - 1].end if at else rows[at].end - SLACK, rows[at].end))
    if not spans:
        raise NotFound(f"no snapshot {snap_id} in the history of {db.key}", "snap_id")
    return min(a for a, _ in spans) - SLACK, max(b for _, b in spans) + SLACK


def monitor_report(db: Database, report_id: int, snap_id: int | None, kind_type: str) -> Report:
    """One SQL monitor report, by its DBA_HIST_REPORTS.REPORT_ID and SNAP_ID, as html or text."""
    _kept(db, "report_id")
    t0, t1 = generated_between(db, snap_id)
    found = _reports(db, queries.monitored_execution(db.store.views), report_id=report_id, t0=t0, t1=t1)
    if not found:
        raise NotFound(
            f"no SQL monitor report {report_id} of snapshot {snap_id} in the history of {db.key}", "report_id"
        )
    _, inst, sql_id, _exec_id, start = found[0]
    stamp = analysis.as_datetime(start).strftime("%Y%m%d_%H%M%S") if start is not None else "unknown"
    filename = f"sqlmon_{db.name}_{sql_id}_{inst}_{stamp}_{report_id}.{'html' if kind_type == 'html' else 'txt'}"
    if renders(db):
        try:
            rows = db.store.rows(
                queries.monitor_report(),
                {"rid": report_id, "type": kind_type.upper()},
                db.store.settings.report_timeout,
            )
        except NotGranted as exc:
            raise _missing(db, "DBMS_AUTO_REPORT", "the SQL monitor report", exc) from None
        text = rows[0][0] if rows and rows[0][0] is not None else ""
    else:
        stored_rows = db.rows(queries.stored_monitor_report(db.store.views), report_id=report_id, type=kind_type)
        if not stored_rows:
            raise NotFound(f"the demo store keeps no {kind_type} text of SQL monitor report {report_id}", "type")
        text = zlib.decompress(stored_rows[0][0]).decode()
    return Report(text, kind_type, filename)


def _reports(db: Database, statement, **binds) -> list[tuple]:
    """Rows of DBA_HIST_REPORTS, which every release awrlens supports has (12.1 on) under that name only (awr.views.
    DBA_HIST_ONLY): Oracle refusing it is the optional grant missing, named as such; any other refusal (a missing
    view or column) is said as Oracle said it, a 503, not a grant."""
    try:
        return db.rows(statement, **binds)
    except NotGranted as exc:
        if exc.ora_code not in ("ORA-00942", "ORA-01031"):
            raise
        user = getattr(db.store, "user", "the user").upper()
        raise MissingGrant(
            f"SQL monitor reads SYS.DBA_HIST_REPORTS, an optional grant the user {user} lacks: as a DBA, "
            f"GRANT SELECT ON SYS.DBA_HIST_REPORTS TO {user}; (on Amazon RDS: EXEC rdsadmin.rdsadmin_util."
            f"grant_sys_object('DBA_HIST_REPORTS', '{user}', 'SELECT');), see infra/oracle/create_user.sql "
            f"(SQL monitor needs the Tuning Pack as well as the Diagnostics Pack). The database said: {exc.message}"
        ) from None


def _missing(db: Database, package: str, what: str, exc: NotGranted) -> ApiError:
    """The grant a report's package needs, named; a missing view (ORA-00942: none of the package's symptoms) as
    Oracle said it, a 503, not called a grant."""
    if exc.ora_code == "ORA-00942":
        return exc
    user = getattr(db.store, "user", "the user").upper()
    grant = GRANTS[package].format(user=user)
    return MissingGrant(
        f"{what} needs EXECUTE on SYS.{package}, an optional grant the user {user} lacks: as a DBA, "
        f"{grant}; (on Amazon RDS: EXEC rdsadmin.rdsadmin_util.grant_sys_object('{package}', '{user}', "
        f"'EXECUTE');), see infra/oracle/create_user.sql. The database said: {exc.message}"
    )
