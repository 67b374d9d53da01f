"""Every statement the API can run, listed by name: for `flask --app app sql`, the embedded store's compiled texts
and the tests."""

from app.settings import Settings
from app.store.awr.queries.ash import (
    DIMENSIONS,
    TOP_LISTS,
    activity,
    activity_group_sessions,
    activity_groups,
    activity_top,
    ash_first_snap,
    blocking,
    live_clock,
    sample_spacing,
    session_details,
    wait_chains,
)
from app.store.awr.queries.changes import (
    new_plans,
    non_default_parameters,
    parameter_changes,
    parameters_at,
    plan_returns,
)
from app.store.awr.queries.core import IN_LIST, capped
from app.store.awr.queries.history import (
    COUNTER_VIEWS,
    IO_VIEWS,
    TOP_SQL_ORDER,
    baselines,
    containers,
    counter_names,
    counter_series,
    counters_at,
    databases,
    event_names,
    event_series,
    events_at,
    io_names,
    io_series,
    metric_detail_series,
    metric_names,
    metric_series,
    running_sums,
    snapshots,
    sql_history,
    sql_texts,
    tablespaces,
    top_sql,
    top_sql_ranked,
    wait_class_series,
)
from app.store.awr.queries.names import dictionary_objects, object_names, service_names, user_names
from app.store.awr.queries.plans import plan_line_activity, sql_binds, sql_plans
from app.store.awr.queries.reports import monitored_execution, monitored_executions
from app.store.awr.queries.segments import (
    SEGMENT_ORDER,
    event_histogram,
    event_histogram_first,
    segment_history,
    top_segments,
)
from app.store.awr.views import Views


def all_statements(v: Views, row_cap: int = Settings.row_cap, max_points: int = Settings.max_points):
    """(name, statement) for every statement the API can run, as sent with AWRLENS_ROW_CAP = `row_cap` and, for a
    range longer than AWRLENS_MAX_POINTS = `max_points` intervals, its bucket boundaries in as many IN lists as
    that many snapshots need, for review and for tests."""
    for name, stmt in statements(v, row_cap, max_points):
        yield name, capped(stmt.core(), row_cap)


def statements(v: Views, row_cap: int, max_points: int = Settings.max_points):
    """(name, Statement) for every statement the API can run."""
    chunks = -(-max(max_points, 1) // IN_LIST)
    yield "databases", databases(v)
    yield "snapshots", snapshots(v, row_cap)
    yield "baselines", baselines(v)
    yield "containers", containers(v)
    for view in COUNTER_VIEWS:
        yield f"catalog: {view}", counter_names(v, view)
        yield f"series: {view}", counter_series(v, view)
        yield f"load profile: {view}", counters_at(v, view)
    yield "load profile: pgastat", counters_at(v, "pgastat")
    yield "catalog: system_event", event_names(v)
    yield "catalog: sysmetric_summary", metric_names(v)
    yield "catalog: sysmetric_history", metric_names(v, "sysmetric_history")
    for view in IO_VIEWS:
        yield f"catalog: {view}", io_names(v, view)
        yield f"series: {view}", io_series(v, view)
    yield "series: system_event", event_series(v)
    yield "series: wait classes", wait_class_series(v)
    long = "series, a range longer than max_points intervals"  # docs/awr-rules.md §21
    for view in COUNTER_VIEWS:
        yield f"{long}: {view}", counter_series(v, view, chunks)
    for view in ("sysstat", "osstat"):  # the views with readings (docs/awr-rules.md §8)
        yield f"{long}: {view} readings", running_sums(v, view, chunks)
    yield f"{long}: system_event", event_series(v, chunks)
    yield f"{long}: wait classes", wait_class_series(v, False, chunks)
    yield f"{long}: sysmetric_summary", running_sums(v, "sysmetric_summary", chunks)
    yield f"{long}: derived per-second metrics", running_sums(v, "sysmetric_summary", chunks, True)
    for view in IO_VIEWS:
        yield f"{long}: {view}", io_series(v, view, chunks)
    yield "series: sysmetric_summary", metric_series(v)
    yield "series: sysmetric_history", metric_detail_series(v)
    yield "top events", events_at(v)
    for order in TOP_SQL_ORDER:
        yield f"top sql by {order}", top_sql(v, order)
    yield "top sql by elapsed, cpu, gets and reads (the range report)", top_sql_ranked(v)
    yield "sql text", sql_texts(v)
    yield "sql detail", sql_history(v)
    yield "sql detail in one container", sql_history(v, True)
    yield "tablespaces", tablespaces(v)
    yield "parameters at a snapshot", parameters_at(v)
    yield "parameter changes", parameter_changes(v)
    yield "non-default parameters", non_default_parameters(v)
    yield "new plans", new_plans(v)
    yield "plans back", plan_returns(v)
    yield "event histogram", event_histogram(v)
    yield "event histogram: the first snapshot kept", event_histogram_first(v)
    for order in SEGMENT_ORDER:
        yield f"top segments by {order}", top_segments(v, order)
        yield f"top segments by {order} of one instance", top_segments(v, order, True)
    yield "segment detail", segment_history(v)
    yield "names: objects AWR captured", object_names(v)
    yield "names: objects in the dictionary (where granted)", dictionary_objects(v)
    yield "names: users in the dictionary (where granted)", user_names(v)
    yield "names: services", service_names(v)
    yield "ash: sample spacing", sample_spacing(v)
    yield "ash: the first snapshot with samples", ash_first_snap(v)
    for name in DIMENSIONS:
        yield f"ash: activity by {name}", activity(v, name)
    yield "ash: activity by event for one sql_id", activity(v, "event", ("sql_id",))
    yield "ash: activity by sql_id in one session", activity(v, "sql_id", ("session",))
    for name in TOP_LISTS:
        yield f"ash: top {name}", activity_top(v, name)
    yield "ash: blocking sessions", blocking(v)
    yield "ash: ashtop by sql_id and event", activity_groups(v, ("sql_id", "event"))
    yield "ash: wait chains", wait_chains(v)
    yield "ash: wait chains, the samples of one instance", wait_chains(v, False, ("instance",))
    # a time range that cuts the snapshots' intervals (docs/awr-rules.md §22): the window's condition is the same for
    # every dimension, so one activity statement shows it
    within = "in a window of sample times"
    yield f"ash: activity by wait_class {within}", activity(v, "wait_class", window=True)
    for name in TOP_LISTS:
        yield f"ash: top {name} {within}", activity_top(v, name, window=True)
    yield f"ash: blocking sessions {within}", blocking(v, window=True)
    yield "ash: the users, programs and machines of the top sessions", session_details(v)
    yield f"ash: the users, programs and machines of the top sessions {within}", session_details(v, True)
    yield (
        "ash: the users, programs and machines of the top sessions, one instance",
        session_details(v, False, False, ("instance",)),
    )
    yield f"ash: ashtop by sql_id and event {within}", activity_groups(v, ("sql_id", "event"), (), True)
    yield (
        f"ash: ashtop by sql_id and event per session {within}",
        activity_group_sessions(v, ("sql_id", "event"), (), True),
    )
    yield f"ash: wait chains {within}", wait_chains(v, True)
    yield f"ash: wait chains {within}, the samples of one instance", wait_chains(v, True, ("instance",))
    yield f"ash: wait chains {within}, the samples of one session", wait_chains(v, True, ("instance", "session"))
    # the live buffer, GV$ACTIVE_SESSION_HISTORY (docs/awr-rules.md §30): a window of its one-second samples
    live = "of the live buffer"
    yield "ash: the clock of the live buffer", live_clock(v)
    yield f"ash: activity by wait_class {live}", activity(v, "wait_class", (), False, True, True)
    for name in TOP_LISTS:
        yield f"ash: top {name} {live}", activity_top(v, name, (), False, True, True)
    yield f"ash: blocking sessions {live}", blocking(v, (), False, True, True)
    yield f"ash: the users, programs and machines of the top sessions {live}", session_details(v, True, True)
    yield f"ash: ashtop by sql_id and event {live}", activity_groups(v, ("sql_id", "event"), (), True, True)
    yield f"ash: wait chains {live}", wait_chains(v, True, (), True)
    yield "sql monitor: executions of a statement", monitored_executions(v)
    yield "sql monitor: executions of a statement in one container", monitored_executions(v, True)
    yield "sql monitor: one execution", monitored_execution(v)
    yield "sql plans", sql_plans(v)
    yield "ash: samples by plan line of one sql_id", plan_line_activity(v)
    yield "ash: samples by plan line of one sql_id in a window of sample times", plan_line_activity(v, False, True)
    yield (
        "ash: samples by plan line of one sql_id in a window of sample times, the samples of one instance",
        plan_line_activity(v, False, True, ("instance",)),
    )
    yield "sql binds", sql_binds(v)
