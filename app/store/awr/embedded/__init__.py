"""The embedded store's own tables, beside Oracle's AWR views it keeps under their names (app/store/awr/views.py):
its summaries of the views (summaries), its ASH samples coded under the view and counted (ash), Oracle's reports as
its builder rendered them (reports) and the parameters' runs of values under DBA_HIST_PARAMETER (parameters). A
statement that reads one of them has no counterpart on Oracle, which answers from the views."""

from app.store.awr.embedded.ash import ASH_BASE_NAME, ASH_NAMES_NAME, ASH_TOP_NAME, ASH_TOTALS_NAME
from app.store.awr.embedded.parameters import PARAMETER_BASE_NAME
from app.store.awr.embedded.reports import AWR_REPORTS_NAME, MONITOR_REPORTS_NAME
from app.store.awr.embedded.summaries import CLASS_TOTALS_NAME, PLAN_FIRSTS_NAME, SQLSTAT_BLOCKS_NAME


def store_only_tables() -> tuple[str, ...]:
    """The tables only the embedded store keeps (its summaries of the views, the coded samples and names under its
    ASH view, Oracle's reports as rendered, the parameters' runs of values): a statement that reads one has no
    counterpart on Oracle, which answers from the views."""
    return (
        CLASS_TOTALS_NAME,
        SQLSTAT_BLOCKS_NAME,
        PLAN_FIRSTS_NAME,
        ASH_BASE_NAME,
        ASH_NAMES_NAME,
        ASH_TOTALS_NAME,
        ASH_TOP_NAME,
        AWR_REPORTS_NAME,
        MONITOR_REPORTS_NAME,
        PARAMETER_BASE_NAME,
    )
