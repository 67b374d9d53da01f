"""The system metrics of an interval (DBA_HIST_SYSMETRIC_SUMMARY, and per minute DBA_HIST_SYSMETRIC_HISTORY for the
detail days), computed from the same integer deltas the counters hold, so the metrics agree with the counters."""

from datetime import timedelta

from app.demo.names import METRIC_ROWS
from app.demo.workload import CS_PER_S, US_PER_CS, fmt
from app.units import MIB

SYSMETRIC_GROUP = 2  # the long-duration (60 s) system metrics group


def sysmetric_rows(rng, snap_id, key, begin, end, seconds, m, noise, detail):
    """(summary rows, per-minute history rows, empty unless `detail`) of one interval's metric values `m`."""
    minutes = max(round(seconds / 60), 1)
    summary, history = [], []
    stamps = [fmt(begin + timedelta(seconds=60 * k)) for k in range(minutes + 1)] if detail else []
    begin_s, end_s = fmt(begin), fmt(end)
    for metric_id, name, unit, how, per_minute in METRIC_ROWS:
        value = m.get(how, 0.0)
        if per_minute and detail:
            wobble = [rng.gauss(0, 0.06) for _ in range(minutes)]
            base = value * (1 - sum(wobble) / minutes)  # the minutes average to the summary value
            values = [max(base + value * x, 0.0) for x in wobble]
            if "%" in unit:
                values = [min(v, 100.0) for v in values]
            history += [
                (
                    snap_id,
                    *key,
                    SYSMETRIC_GROUP,
                    metric_id,
                    stamps[k],
                    stamps[k + 1],
                    60 * CS_PER_S,
                    name,
                    round(v, 4),
                    unit,
                )
                for k, v in enumerate(values)
            ]
            lo, hi = min(values), max(values)
            sd = (sum((v - value) ** 2 for v in values) / minutes) ** 0.5
        else:
            spread = abs(value) * 0.12 * noise
            lo, hi, sd = max(value - spread, 0.0), value + spread, spread / 2
        summary.append(
            (
                snap_id,
                *key,
                SYSMETRIC_GROUP,
                metric_id,
                begin_s,
                end_s,
                round(seconds * CS_PER_S),
                name,
                unit,
                minutes,
                round(lo, 4),
                round(hi, 4),
                round(value, 4),
                round(sd, 4),
                round(minutes * (sd * sd + value * value), 4),
            )
        )
    return summary, history


def metrics(q: dict, d: dict, seconds: float) -> dict:
    """The sysmetric values of an interval, from the same integer deltas the counters hold."""
    txn = (d["user commits"] + d["user rollbacks"]) or 1
    per = {k: v / seconds for k, v in d.items()}
    m = {
        "txn": per["user commits"] + per["user rollbacks"],
        "commit": per["user commits"],
        "rollback": per["user rollbacks"],
        "exec": per["execute count"],
        "call": per["user calls"],
        "rec": per["recursive calls"],
        "lread": per["session logical reads"],
        "pread": per["physical reads"],
        "pwrite": per["physical writes"],
        "trreq": per["physical read total IO requests"],
        "twreq": per["physical write total IO requests"],
        "trbytes": per["physical read total bytes"],
        "twbytes": per["physical write total bytes"],
        "redo": per["redo size"],
        "redo_writes": per["redo writes"],
        "chg": per["db block changes"],
        "parse": per["parse count (total)"],
        "hard": per["parse count (hard)"],
        "logon": per["logons cumulative"],
        "gc_cr": per["gc cr blocks received"],
        "undo_applied": per["rollback changes - undo records applied"],
        "net": per["bytes sent via SQL*Net to client"] + per["bytes received via SQL*Net from client"],
        "cpu_cs": per["DB CPU"] / US_PER_CS,
        "dbtime_cs": per["DB time"] / US_PER_CS,
        "bgcpu_cs": per["background cpu time"] / US_PER_CS,
        "busy_cs": per["BUSY_TIME"],
    }
    m["aas"] = m["dbtime_cs"] / CS_PER_S
    m["host_pct"] = 100 * d["BUSY_TIME"] / ((d["BUSY_TIME"] + d["IDLE_TIME"]) or 1)
    m["cpu_ratio"] = 100 * d["DB CPU"] / (d["DB time"] or 1)
    m["wait_ratio"] = 100 - m["cpu_ratio"]
    m["io_mb"] = (m["trbytes"] + m["twbytes"]) / MIB
    m["io_req"] = m["trreq"] + m["twreq"]
    m["bchr"] = 100 * (1 - d["physical reads cache"] / (d["session logical reads"] or 1))
    m["soft_pct"] = 100 * (1 - d["parse count (hard)"] / (d["parse count (total)"] or 1))
    m["sread_ms"] = d["db file sequential read:time"] / 1000 / (d["db file sequential read:waits"] or 1)
    for key in list(m):
        m[f"{key}/txn"] = m[key] * seconds / txn
    return m
