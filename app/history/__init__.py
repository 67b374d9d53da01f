"""The history questions a DBA asks, answered from any store, Flask-free: one module per question, each with a
`compute(db, range, ...)` that returns the answer's body.

database      a database's identity, its timeline of snapshots, and ranges resolved against it
catalog       every chartable series of a database
series        one or more series over a range (and the AAS by wait class)
snapshots     the snapshots of a range, with restarts and gaps marked
load_profile, top_events, top_sql, compare   the AWR report's tables over a range
sql           one statement over time, per plan
tablespaces   used, allocated and maximum size over time
activity      top activity from Active Session History: AAS by a dimension, top lists, blocking sessions
report        the app's own report of a range: the tables above, time model, I/O, OS, changes, and charts
A new question (ASH, plans, parameters, ...) is one new module beside these, and one view in app/api/.
"""
from app.history import (activity, catalog, compare, load_profile, report, series, snapshots, sql,  # noqa: F401
                         tablespaces, top_events, top_sql)
from app.history.database import Database, History, Range  # noqa: F401
