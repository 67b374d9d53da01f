"""Every statement the API can send to Statspack: the AWR questions its tables answer in the AWR views' shape
(app/store/statspack/views.py), as `flask --app app sql` prints them and the tests compile them. A question Statspack
keeps nothing for (ASH, the system metrics, ...) is not among them: it is answered without a statement (NotInSource)."""

from app.settings import Settings
from app.store.awr.queries import capped, new_plans, plan_returns, statements
from app.store.statspack.tables import OWNER
from app.store.statspack.views import NotInSource, statspack_views


def statspack_statements(
    owner: str | None = OWNER, row_cap: int = Settings.row_cap, max_points: int = Settings.max_points
):
    """(name, Core statement) of each, as sent (queries.capped)."""
    v = statspack_views(owner)
    # the plan questions read plans' first snapshots from STATS$SQL_PLAN_USAGE (views.keeps)
    asked = [
        ("new plans", new_plans(v, True)),
        ("plans back", plan_returns(v, True)),
        *statements(v, row_cap, max_points),
    ]
    seen = set()
    for name, stmt in asked:
        if name in seen:
            continue
        try:
            built = stmt.core()
        except NotInSource:
            continue
        seen.add(name)
        yield name, capped(built, row_cap)
