"""The JSON API under /api/v1: the history questions on one blueprint (history_blueprint.py; their views in
history.py, statements.py, changes.py and oracle_reports.py) and benchmark runs (runs.py), with what they share:
parameters (params.py), answers (respond.py), the API key (auth.py), the answer cache (cache.py) and the OpenAPI
document (openapi.py, its answers' schemas in answer_schemas.py; docs/api.md is made from it by reference.py)."""


def limits(settings) -> dict:
    """The limits a client must respect, as `GET /api/v1/` lists them and the page is rendered with (app/page.py):
    series per request, points per series (the default), days per range, benchmark runs compared at once."""
    from app.api.runs import MAX_COMPARE

    return {
        "max_series": settings.max_series,
        "max_points": settings.max_points,
        "max_range_days": settings.max_range_days,
        "max_compare_runs": MAX_COMPARE,
    }
