"""The demo's initialization parameters (DBA_HIST_PARAMETER, docs/awr-rules.md §23): about 60 commonly set ones per
instance, and their history from the stories: the async I/O fix (FILESYSTEMIO_OPTIONS none -> SETALL with the restart,
DISK_ASYNCH_IO on all along), an SGA resize on RACPROD, and OPTIMIZER_INDEX_COST_ADJ raised on RACPROD when the plan
regression starts and set back when it ends.

Values are as V$SYSTEM_PARAMETER gives them (sizes in bytes). ISDEFAULT is FALSE for a parameter the parameter file
sets; ISMODIFIED is SYSTEM_MOD after an ALTER SYSTEM of a running instance, until its next startup, which reads the
value from the SPFILE (SCOPE=BOTH) with ISDEFAULT FALSE."""

from datetime import timedelta

from app.demo.names import stat_id
from app.demo.workload import GIB, MIB

FALSE, TRUE, SYSTEM_MOD = "FALSE", "TRUE", "SYSTEM_MOD"

# name: value, set in the parameter file (ISDEFAULT FALSE) or not; per database where they differ
COMMON = {
    "audit_file_dest": ("/u01/app/oracle/admin/{db}/adump", True),
    "audit_trail": ("DB", True),
    "background_dump_dest": ("/u01/app/oracle/product/19.0.0/dbhome_1/rdbms/log", False),
    "cluster_database": ("{rac}", True),
    "compatible": ("19.0.0", True),
    "control_file_record_keep_time": ("7", False),
    "control_files": ("+DATA/{db}/CONTROLFILE/current.261.1143720011", True),
    "cpu_count": ("{cpus}", False),
    "cursor_sharing": ("EXACT", False),
    "db_block_checking": ("FALSE", False),
    "db_block_checksum": ("TYPICAL", False),
    "db_block_size": ("8192", True),
    "db_cache_size": ("0", False),
    "db_create_file_dest": ("+DATA", True),
    "db_domain": ("", False),
    "db_file_multiblock_read_count": ("128", False),
    "db_files": ("200", False),
    "db_name": ("{db}", True),
    "db_recovery_file_dest": ("+RECO", True),
    "db_recovery_file_dest_size": (str(500 * GIB), True),
    "db_securefile": ("PREFERRED", False),
    "db_unique_name": ("{db}", False),
    "db_writer_processes": ("{writers}", False),
    "deferred_segment_creation": ("TRUE", False),
    "diagnostic_dest": ("/u01/app/oracle", True),
    "disk_asynch_io": ("TRUE", False),
    "dispatchers": ("(PROTOCOL=TCP) (SERVICE={db}XDB)", True),
    "enable_pluggable_database": ("FALSE", False),
    "fast_start_mttr_target": ("0", False),
    "filesystemio_options": ("none", False),
    "java_pool_size": ("0", False),
    "job_queue_processes": ("80", False),
    "large_pool_size": ("0", False),
    "local_listener": ("LISTENER_{db}", True),
    "log_archive_format": ("%t_%s_%r.dbf", False),
    "log_buffer": (str(64 * MIB), False),
    "log_checkpoint_interval": ("0", False),
    "memory_target": ("0", False),
    "nls_date_format": ("YYYY-MM-DD HH24:MI:SS", True),
    "nls_language": ("AMERICAN", False),
    "nls_territory": ("AMERICA", False),
    "open_cursors": ("300", True),
    "optimizer_adaptive_plans": ("TRUE", False),
    "optimizer_adaptive_statistics": ("FALSE", False),
    "optimizer_features_enable": ("19.1.0", False),
    "optimizer_index_caching": ("0", False),
    "optimizer_index_cost_adj": ("100", False),
    "optimizer_mode": ("ALL_ROWS", False),
    "parallel_max_servers": ("{px}", False),
    "pga_aggregate_limit": ("{pga_limit}", False),
    "pga_aggregate_target": ("{pga}", True),
    "processes": ("{processes}", True),
    "recyclebin": ("on", False),
    "remote_login_passwordfile": ("EXCLUSIVE", True),
    "resource_manager_plan": ("", False),
    "session_cached_cursors": ("50", False),
    "sessions": ("{sessions}", False),
    "sga_max_size": ("{sga_max}", True),
    "sga_target": ("{sga}", True),
    "shared_pool_size": ("0", False),
    "statistics_level": ("TYPICAL", False),
    "undo_retention": ("900", False),
    "undo_tablespace": ("{undo}", True),
    "use_large_pages": ("TRUE", False),
}
RAC_ONLY = {
    "instance_number": ("{inst}", True),
    "thread": ("{inst}", True),
    "cluster_interconnects": ("", False),
    "remote_listener": ("racprod-scan:1521", True),
}


def _base(db, inst) -> dict:
    """name -> (value, isdefault) at the start of the history."""
    processes = 1200 if db.rac else 600
    sga = (64 if db.rac else 12) * GIB
    pga = (24 if db.rac else 4) * GIB
    fill = {
        "db": db.name,
        "rac": "TRUE" if db.rac else "FALSE",
        "cpus": str(db.cpus),
        "inst": str(inst.number),
        "writers": str(max(1, db.cpus // 8)),
        "px": str(db.cpus * 20),
        "pga": str(pga),
        "pga_limit": str(2 * pga),
        "processes": str(processes),
        "sessions": str(int(processes * 1.5) + 22),
        "sga": str(sga),
        "sga_max": str((96 if db.rac else 16) * GIB),
        "undo": f"UNDOTBS{inst.number}",
    }
    params = dict(COMMON, **(RAC_ONLY if db.rac else {}))
    # an empty value is NULL, as Oracle shows it
    return {name: (value.format(**fill) or None, TRUE if not set_ else FALSE) for name, (value, set_) in params.items()}


def changes(db, stories: dict) -> list[tuple]:
    """The story's ALTER SYSTEMs on `db`: (database-local time, name, value, scope), in time order. SCOPE=SPFILE
    takes effect at the next startup; SCOPE=BOTH at once (and is in the SPFILE for the next startup)."""
    out = []
    fix = stories["async_io_fix"]
    if fix["db"] is db:  # before the restart that brings it in (workload.place_stories)
        out.append((fix["startup"] - timedelta(minutes=6), "filesystemio_options", "SETALL", "SPFILE"))
    reg = stories["plan_regression"]
    if reg["db"] is db:  # raised just before the bad plan appears, set back just before the good one returns
        out.append((reg["from"] - timedelta(minutes=6), "optimizer_index_cost_adj", "400", "BOTH"))
        out.append((reg["to"] - timedelta(minutes=5), "optimizer_index_cost_adj", "100", "BOTH"))
        crash = stories["restart"]["startup"]  # an SGA resize two days before instance 2's crash
        out.append((crash - timedelta(days=2, hours=4, minutes=12), "sga_target", str(80 * GIB), "BOTH"))
    return sorted(out)


def rows(db, inst, snaps, stories: dict) -> list[tuple]:
    """The instance's parameters as embedded.parameters.PARAMETER_BASE rows: (dbid, instance_number, parameter_hash,
    first_snap, last_snap, parameter_name, value, isdefault, ismodified), one per value and run of the instance's
    snapshots. `snaps`: the instance's (snap_id, database-local time, startup time), in order."""
    running = _base(db, inst)  # the values in force, as (value, isdefault, ismodified)
    running = {n: (v, d, FALSE) for n, (v, d) in running.items()}
    spfile = {}  # values waiting for the next startup
    pending = changes(db, stories)
    startup = None
    runs: dict = {}  # name -> [first, last, value, isdefault, ismodified]
    out = []

    def alter(until):
        while pending and pending[0][0] <= until:
            _, name, value, scope = pending.pop(0)
            if scope == "SPFILE":
                spfile[name] = value
            else:
                running[name] = (value, running[name][1], SYSTEM_MOD)

    for snap_id, moment, started in snaps:
        if startup is not None and started != startup:  # a startup reads the SPFILE: nothing modified any more
            alter(started)
            running = {
                n: (spfile[n], FALSE, FALSE) if n in spfile else (v, FALSE if m != FALSE else d, FALSE)
                for n, (v, d, m) in running.items()
            }
            spfile.clear()
        startup = started
        alter(moment)
        for name, state in running.items():
            run = runs.get(name)
            if run and tuple(run[2:]) == state:
                run[1] = snap_id
                continue
            if run:
                out.append(_row(db, inst, name, run))
            runs[name] = [snap_id, snap_id, *state]
    out += [_row(db, inst, name, run) for name, run in runs.items()]
    return out


def _row(db, inst, name, run) -> tuple:
    return (db.dbid, inst.number, stat_id(name), run[0], run[1], name, *run[2:])
