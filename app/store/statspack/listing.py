"""Every statement the API can send to Statspack: the AWR questions its tables answer in the AWR views' shape
(app/store/statspack/views.py), as `flask --app app sql` prints them, the embedded store keeps their texts and the
tests compile them. A question Statspack keeps nothing for (ASH, the system metrics, ...) is not among them: it is
answered without a statement (NotInSource)."""

from app.settings import Settings
from app.store.awr.queries import capped, new_plans, plan_returns, statements
from app.store.statspack.tables import OWNER
from app.store.statspack.views import NotInSource, statspack_views


def statspack_questions(v, row_cap: int = Settings.row_cap, max_points: int = Settings.max_points) -> list:
    """(name, Statement) of each question asked of Statspack's views `v`: the plan questions read the plans' first
    snapshots from STATS$SQL_PLAN_USAGE (views.StatspackViews.keeps), and what Statspack does not keep is left out."""
    asked = [
        ("new plans", new_plans(v, True)),
        ("plans back", plan_returns(v, True)),
        *statements(v, row_cap, max_points),
    ]
    out, seen = [], set()
    for name, stmt in asked:
        if name in seen:
            continue
        try:
            stmt.core()
        except NotInSource:
            continue
        seen.add(name)
        out.append((name, stmt))
    return out


def statspack_statements(
    owner: str | None = OWNER, row_cap: int = Settings.row_cap, max_points: int = Settings.max_points
):
    """(name, Core statement) of each, as sent to Oracle (queries.capped)."""
    for name, stmt in statspack_questions(statspack_views(owner), row_cap, max_points):
        yield name, capped(stmt.core(), row_cap)
