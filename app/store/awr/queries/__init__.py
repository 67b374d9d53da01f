"""Every statement the API runs, built with SQLAlchemy Core and named bind parameters only.

Nothing from a request is pasted into SQL text: values travel as binds, and choices (which view, which
column to sort by) are picked from fixed lists in this package. `flask --app app sql` prints them all
compiled for Oracle, so a DBA can review them before granting access.

Calling a statement's function gives its Statement (the function and its arguments), not the Core statement: a
store builds that with `core()` when it needs it, once per view prefix, release and argument (`cache`), and a
request reuses it with its own bind values. The embedded store runs the statements' SQLite text instead
(app/store/sqlite_statements.json, compiled from the same Core statements), so its reads never import SQLAlchemy,
which is most of a cold start (BENCHMARKS.md); that is why these modules import SQLAlchemy only where they build.

A module per question: core (the Statement machinery and the range helpers), history (series, Load Profile, top
events, top SQL, tablespaces), changes, segments, ash (from the view; ash_coded and ash_counts from the embedded
store's coded samples and counts), reports, plans, names (the names of ids); listing names them all.
"""

from app.store.awr.queries.ash import *  # noqa: F403
from app.store.awr.queries.ash_coded import *  # noqa: F403
from app.store.awr.queries.ash_counts import *  # noqa: F403
from app.store.awr.queries.changes import *  # noqa: F403
from app.store.awr.queries.core import *  # noqa: F403
from app.store.awr.queries.history import *  # noqa: F403
from app.store.awr.queries.listing import *  # noqa: F403
from app.store.awr.queries.names import *  # noqa: F403
from app.store.awr.queries.plans import *  # noqa: F403
from app.store.awr.queries.reports import *  # noqa: F403
from app.store.awr.queries.segments import *  # noqa: F403
