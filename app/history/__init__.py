"""The history questions a DBA asks, answered from any store, Flask-free: one module per question, each with a
`compute(db, range, ...)` that returns the answer's body.

database      a database's identity, its timeline of snapshots, and ranges resolved against it
catalog       every chartable series of a database
series        one or more series over a range (and the AAS by wait class)
normal_band   what is normal for a series: its percentiles at the same hour of the week in the weeks before
snapshots     the snapshots of a range, with restarts and gaps marked
baselines     AWR baselines: named snapshot ranges and the moving window
load_profile, top_events, top_sql, compare   the AWR report's tables over a range
sql           one statement over time, per plan
tablespaces   used, allocated and maximum size over time
plans         a statement's plans, its ASH samples by plan line, two plans compared, its binds
histograms    how one wait event's waits were spread: latency buckets per interval, percentiles
segments      top segments by a statistic, and one segment over time
activity      top activity from Active Session History: AAS by a dimension, top lists, blocking sessions
ashtop        ASH grouped by several dimensions at once, as ashtop prints it
chains        wait chains from Active Session History: the tree of who blocked whom
live_buffer   a window of the live buffer (GV$ACTIVE_SESSION_HISTORY): the last minutes, one sample a second
names         names for the ids the views keep (objects)
oracle_reports  Oracle's own AWR and SQL monitor reports, rendered by the database (or stored, in the demo)
parameters    initialization parameters: values at a snapshot, changes, non-default ones, differences
changes       what changed in a range: restarts, parameters, new plans, versions, benchmark runs
report        the app's own report of a range: the tables above, time model, I/O, OS, changes, and charts
A new question (ASH, plans, parameters, ...) is one new module beside these, and one view in app/api/.
"""

from app.history import (  # noqa: F401
    activity,
    ashtop,
    baselines,
    catalog,
    chains,
    changes,
    compare,
    histograms,
    live_buffer,
    load_profile,
    normal_band,
    oracle_reports,
    parameters,
    plans,
    report,
    segments,
    series,
    snapshots,
    sql,
    tablespaces,
    top_events,
    top_sql,
)
from app.history.database import Database, History, Range  # noqa: F401
