"""Every number of every answer is asserted (issue 30): each numeric field of each endpoint of
app/api/answer_schemas.BY_ENDPOINT names the tests that compute it independently, from the store's rows under the
documented rule (docs/awr-rules.md) or from values worked out by hand, and check it. The byte-for-byte recorded answers
(tests/test_answers.py) name no rule and do not count; nor does a check of type, presence or sign.

The numeric fields are those the schemas declare and those the answers hold (one set of requests per endpoint on the
demo store, reaching the optional parts: markers, partial points, left-out intervals, each shape). A field of a shared
schema that an endpoint never gives is listed, with why, under NOT_GIVEN, and checked absent. A field listed nowhere, a
test named that does not exist, or an entry for a field no answer holds fails here: a new field needs its test.
"""

import re
from pathlib import Path

import pytest
from contract import AAS, REDO, dbid_of, monitor_report_query, ok, url
from test_segments import STATS as SEGMENT_STATS

from app.api.answer_schemas import BY_ENDPOINT

TESTS = Path(__file__).resolve().parent

# The tests, by file; each named here computes the field it is listed for, from rows or by hand.
AF = "test_answer_fields.py::test_"
ACTIVITY = "test_activity.py::test_"
DATABASES = "test_api_databases.py::test_"
REPORTS = "test_api_reports.py::test_"
RULES = "test_api_rules.py::test_"
SERIES = "test_api_series.py::test_"
CHANGES = "test_changes.py::test_"
COMPARE = "test_compare.py::test_"
HISTOGRAM = "test_event_histogram.py::test_"
GENERATED = "test_generated.py::test_"
CDB = "test_multitenant.py::test_"
MONITOR = "test_oracle_reports.py::test_"
PLANS = "test_plans.py::test_"
XPLAN = "test_xplan.py::test_"
SEGMENTS = "test_segments.py::test_"

RANGE_ECHOED = (AF + "every_answer_echoes_the_snapshots_its_time_range_resolves_to",)
MARKERS = (
    GENERATED + "the_markers_are_the_restarts_gaps_and_merged_snapshots_of_the_range",
    RULES + "per_instance_redo_rate_with_restart_gap_and_manual_snapshot",
)
MARKERS_OF_ANSWERS = (AF + "the_gap_and_left_out_markers_give_the_seconds_between_their_snapshots",)
AXES = (SERIES + "the_axes_shape_holds_the_same_points_with_each_time_list_once",)  # = the points, asserted below
SNAPSHOT_SUMMARY = {
    "dbid": (DATABASES + "dbs_lists_both_databases_with_instances_version_host_and_snapshot_range",),
    "instances[].instance_number": (
        DATABASES + "dbs_lists_both_databases_with_instances_version_host_and_snapshot_range",
    ),
    "snapshots.count": (DATABASES + "dbs_lists_both_databases_with_instances_version_host_and_snapshot_range",),
    "snapshots.first_snap": (DATABASES + "dbs_lists_both_databases_with_instances_version_host_and_snapshot_range",),
    "snapshots.last_snap": (DATABASES + "dbs_lists_both_databases_with_instances_version_host_and_snapshot_range",),
    "snapshots.interval_minutes": (
        DATABASES + "dbs_lists_both_databases_with_instances_version_host_and_snapshot_range",
    ),
}
MARKER_FIELDS = {
    f"markers.{m}": MARKERS + MARKERS_OF_ANSWERS
    for m in (
        "merged_snapshots[].instance",
        "merged_snapshots[].snap_id",
        "missing[].after_snap_id",
        "missing[].before_snap_id",
        "missing[].instance",
        "missing[].seconds",
        "restarts[].instance",
        "restarts[].snap_id",
    )
}
LEFT_OUT = {
    f"left_out[].{f}": (RULES + "no_data_is_not_zero_and_a_restart_left_out_is_named",)
    for f in ("after_snap_id", "before_snap_id", "instance", "seconds")
}
TOP_LIST_ROW = (AF + "top_lists_and_blockers_are_their_samples_with_aas_and_shares",)
CHAINS = (
    GENERATED + "wait_chains_are_the_blocking_columns_of_the_windows_samples",
    ACTIVITY + "the_wait_chain_of_a_window_inside_the_blocking_afternoon",
)
ASHTOP = (
    GENERATED + "ashtop_groups_are_the_windows_samples_by_every_dimension_at_once",
    ACTIVITY + "ashtop_of_the_blocking_window_by_sql_id_and_event",
)
# a wait chain's node, and a waiter's under its blocker
CHAIN_NODE = ("instance", "sid", "serial", "samples", "aas", "on_cpu", "behind", "behind_aas", "doing[].samples")
CHAIN_NODE += ("more_waiters",)
CHAIN_WAITER = ("blocked_samples", "blocked_aas", "waits[].samples", "waits[].current_obj")
LOAD_PROFILE_ROW = (
    REPORTS + "load_profile_matches_the_awr_report_arithmetic",
    GENERATED + "the_load_profile_is_the_clusters_totals_over_the_ranges_time",
)
TOP_EVENTS_ROW = (
    GENERATED + "top_events_are_the_events_deltas_with_db_cpu_against_db_time",
    REPORTS + "top_events_have_db_cpu_and_shares_of_db_time_up_to_100",
)
COMPARED = (AF + "compare_changes_per_second_per_transaction_and_shares_of_db_time",)
TOP_SQL_ROW = (
    AF + "top_sql_rows_are_every_statistic_summed_over_the_range",
    GENERATED + "top_sql_sums_the_statements_deltas_of_the_range_against_db_time",
)
SQL_PLAN = (AF + "one_statement_per_plan_and_snapshot_from_its_deltas",)
PLAN_LINE_STORED = (
    PLANS + "every_plan_of_the_statement_with_its_lines_in_order",
    AF + "each_plans_samples_its_lines_as_stored_and_the_samples_on_no_line",
)
PLAN_LINE_SAMPLES = (
    PLANS + "time_by_plan_line_is_the_statements_samples_grouped_by_line",
    AF + "each_plans_samples_its_lines_as_stored_and_the_samples_on_no_line",
)
PLAN_OPTIMIZER = ("cpu_cost", "io_cost", "time")  # a plan line's cost split and time estimate (§34)
DIFF_LINE = (AF + "each_line_of_a_plan_diff_is_the_plans_line_as_stored",)
SEGMENT_ROW = (AF + "every_statistic_of_a_top_segment_and_of_one_segment_over_time",)
HISTOGRAM_RULE = (
    GENERATED + "the_histogram_is_each_buckets_deltas_with_percentiles_under_a_millisecond",
    HISTOGRAM + "percentiles_follow_the_documented_rule",
)

# endpoint -> {numeric field: the tests that assert it independently, as "file.py::test_function"}; a field's path
# names its keys, `[]` for the items of a list and `*` for a key of an object whose keys are data (the top lists)
ASSERTED: dict[str, dict[str, tuple[str, ...]]] = {
    "api.databases": {f"databases[].{f}": tests for f, tests in SNAPSHOT_SUMMARY.items()},
    "api.database": {
        f: (DATABASES + "one_database_by_id_and_by_bare_dbid", *tests) for f, tests in SNAPSHOT_SUMMARY.items()
    },
    "api.series": {
        **MARKER_FIELDS,
        "range.begin_snap": (SERIES + "range_by_time_equals_range_by_snapshots", *RANGE_ECHOED),
        "range.end_snap": (SERIES + "range_by_time_equals_range_by_snapshots", *RANGE_ECHOED),
        "series[].axis": AXES,
        "series[].values[]": AXES,
        "series[].instance": (
            SERIES + "series_rates_match_the_sqlite_file",
            GENERATED + "a_counter_per_instance_is_its_own_deltas_over_its_own_seconds",
        ),
        "series[].partial[].instances": (
            GENERATED + "a_counter_of_the_cluster_sums_the_instances_that_have_a_point",
            RULES + "a_combined_point_says_which_instances_it_sums",
        ),
        "series[].partial[].missing[]": (
            GENERATED + "a_counter_of_the_cluster_sums_the_instances_that_have_a_point",
            REPORTS + "combined_points_that_sum_one_instance_say_so",
        ),
        "series[].points[][]": (
            SERIES + "series_rates_match_the_sqlite_file",
            GENERATED + "a_counter_per_instance_is_its_own_deltas_over_its_own_seconds",
            GENERATED + "oracles_rates_are_as_oracle_computed_them_averaged_or_summed_over_instances",
            RULES + "rac_combined_rate_is_the_sum_where_both_instances_count",
        ),
        "series[].points_total": (
            SERIES + "series_rates_match_the_sqlite_file",
            SERIES + "a_range_longer_than_max_points_is_read_in_buckets",
        ),
    },
    "api.wait_classes": {
        **MARKER_FIELDS,
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "series[].axis": AXES,
        "series[].values[]": AXES,
        "series[].instance": (
            REPORTS + "wait_classes_have_db_cpu_every_non_idle_class_and_the_cpu_count",
            AF + "combined_wait_classes_and_cpu_count_say_which_instances_they_sum",
        ),
        "series[].points[][]": (
            AF + "wait_classes_are_each_class_time_waited_over_each_intervals_seconds",
            REPORTS + "every_answer_of_one_range_covers_the_same_intervals",
        ),
        "series[].points_total": (AF + "wait_class_lines_count_every_interval_of_the_range",),
        "series[].partial[].instances": (AF + "combined_wait_classes_and_cpu_count_say_which_instances_they_sum",),
        "series[].partial[].missing[]": (AF + "combined_wait_classes_and_cpu_count_say_which_instances_they_sum",),
        "cpu_count[].points[][]": (REPORTS + "wait_classes_have_db_cpu_every_non_idle_class_and_the_cpu_count",),
        "cpu_count[].points_total": (AF + "wait_class_lines_count_every_interval_of_the_range",),
        "cpu_count[].axis": AXES,
        "cpu_count[].values[]": AXES,
        "cpu_count[].instance": (AF + "combined_wait_classes_and_cpu_count_say_which_instances_they_sum",),
        "cpu_count[].partial[].instances": (AF + "combined_wait_classes_and_cpu_count_say_which_instances_they_sum",),
        "cpu_count[].partial[].missing[]": (AF + "combined_wait_classes_and_cpu_count_say_which_instances_they_sum",),
    },
    "api.sql": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "plans[].plan_hash_value": (REPORTS + "one_sql_over_time_shows_the_plan_regression", *SQL_PLAN),
        "plans[].executions": (REPORTS + "one_sql_over_time_shows_the_plan_regression", *SQL_PLAN),
        "plans[].elapsed_per_exec_ms": (REPORTS + "one_sql_over_time_shows_the_plan_regression", *SQL_PLAN),
        "plans[].elapsed_s": SQL_PLAN,
        "plans[].snapshots": SQL_PLAN,
        "series[].plan_hash_value": SQL_PLAN,
        "series[].points[][]": SQL_PLAN,
        "series[].axis": (SERIES + "the_sql_history_in_axes_shape",),
        "series[].values[]": (SERIES + "the_sql_history_in_axes_shape",),
    },
    "api.activity": {
        "range.begin_snap": (AF + "top_activity_by_object_names_each_object_by_its_number",),
        "range.end_snap": (AF + "top_activity_by_object_names_each_object_by_its_number",),
        "aas": (
            GENERATED + "activity_is_samples_times_spacing_over_each_buckets_own_seconds",
            AF + "top_activity_by_object_names_each_object_by_its_number",
        ),
        "bucket_seconds": (
            ACTIVITY + "aas_by_wait_class_is_samples_times_ten_over_bucket_seconds",
            GENERATED + "activity_is_samples_times_spacing_over_each_buckets_own_seconds",
        ),
        "sample_seconds": (
            ACTIVITY + "aas_by_wait_class_is_samples_times_ten_over_bucket_seconds",
            GENERATED + "activity_is_samples_times_spacing_over_each_buckets_own_seconds",
        ),
        "total_samples": (
            ACTIVITY + "aas_by_wait_class_is_samples_times_ten_over_bucket_seconds",
            GENERATED + "activity_is_samples_times_spacing_over_each_buckets_own_seconds",
        ),
        "series[].points[][]": (
            ACTIVITY + "aas_by_wait_class_is_samples_times_ten_over_bucket_seconds",
            GENERATED + "activity_is_samples_times_spacing_over_each_buckets_own_seconds",
        ),
        "series[].samples": (
            ACTIVITY + "filters_and_the_top_groups_with_other",
            GENERATED + "activity_is_samples_times_spacing_over_each_buckets_own_seconds",
        ),
        "series[].name": (AF + "top_activity_by_object_names_each_object_by_its_number",),
    },
    "api.range_of": {"range.begin_snap": RANGE_ECHOED, "range.end_snap": RANGE_ECHOED},
    "api.baselines": {
        f"rows[].{f}": ("test_baselines.py::test_each_baseline_is_its_row_with_its_snapshots_times",)
        for f in ("baseline_id", "begin_snap", "end_snap", "moving_window_days", "expiration_days")
    },
    "api.snapshots": {
        **MARKER_FIELDS,
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "rows[].instance": (DATABASES + "snapshots_show_the_restart_and_the_missing_snapshots",),
        "rows[].snap_id": (DATABASES + "snapshots_show_the_restart_and_the_missing_snapshots",),
        "rows[].snap_flag": (DATABASES + "snapshots_show_the_restart_and_the_missing_snapshots",),
    },
    "api.catalog": {"count": ("test_api_catalog.py::test_catalog_lists_hundreds_of_series_with_units_and_kinds",)},
    "api.load_profile": {
        **LEFT_OUT,
        "range.begin_snap": (REPORTS + "every_answer_of_one_range_covers_the_same_intervals", *RANGE_ECHOED),
        "range.end_snap": (REPORTS + "every_answer_of_one_range_covers_the_same_intervals", *RANGE_ECHOED),
        "elapsed_seconds": (RULES + "load_profile_sums_within_each_startup", *LOAD_PROFILE_ROW),
        "instances[].instance": (REPORTS + "rac_load_profile_with_an_instance_down_agrees_with_itself_and_the_series",),
        "instances[].seconds": (
            REPORTS + "rac_load_profile_with_an_instance_down_agrees_with_itself_and_the_series",
            GENERATED + "the_load_profile_is_the_clusters_totals_over_the_ranges_time",
        ),
        **{f"rows[].{f}": LOAD_PROFILE_ROW for f in ("per_second", "per_transaction", "per_exec", "per_call", "total")},
    },
    "api.top_events": {
        **LEFT_OUT,
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        **{f"rows[].{f}": TOP_EVENTS_ROW for f in ("avg_ms", "pct_db_time", "time_s")},
        "rows[].waits": (GENERATED + "top_events_are_the_events_deltas_with_db_cpu_against_db_time",),
    },
    "api.top_sql": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "rows[].con_dbid": (
            AF + "top_sql_rows_are_every_statistic_summed_over_the_range",
            CDB + "top_sql_keeps_one_row_per_container_and_sql_id",
        ),
        **{
            f"rows[].{f}": TOP_SQL_ROW
            for f in ("executions", "elapsed_s", "cpu_s", "elapsed_per_exec_ms", "pct_db_time", "plan_hash_values[]")
        },
        **{f"rows[].{f}": TOP_SQL_ROW[:1] for f in ("buffer_gets", "disk_reads", "rows_processed")},
    },
    "api.tablespaces": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "rows[].con_dbid": (CDB + "tablespaces_of_each_container_keep_their_own_name_and_block_size",),
        **{
            f"rows[].{f}": (AF + "tablespace_sizes_in_mb_their_share_of_the_maximum_and_growth",)
            for f in (
                "used_mb",
                "size_mb",
                "max_mb",
                "used_pct_of_max",
                "growth_mb",
                "growth_mb_per_day",
                "projection[][]",
            )
        },
        "series[].con_dbid": (AF + "tablespace_sizes_in_mb_their_share_of_the_maximum_and_growth",),
        "series[].points[][]": (AF + "tablespace_sizes_in_mb_their_share_of_the_maximum_and_growth",),
    },
    "api.activity_top": {
        "range.begin_snap": TOP_LIST_ROW,
        "range.end_snap": TOP_LIST_ROW,
        "sample_seconds": TOP_LIST_ROW,
        "total_samples": TOP_LIST_ROW,
        **{f"lists.*[].{f}": TOP_LIST_ROW for f in ("samples", "aas", "pct_activity", "pct_cpu", "pct_wait", "name")},
        "lists.*[].user": (ACTIVITY + "the_top_sessions_are_named_by_their_own_samples",),
        **{f"blocking[].{f}": TOP_LIST_ROW for f in ("samples", "aas", "waiters")},
        **{
            f"blocking[].{f}": (*TOP_LIST_ROW, CDB + "a_blocker_is_its_instance_sid_and_serial")
            for f in ("blocking_instance", "blocking_session", "blocking_serial")
        },
    },
    "api.wait_chains": {
        **dict.fromkeys(("range.begin_snap", "range.end_snap", "sample_seconds"), CHAINS[:1]),
        **dict.fromkeys(("blocked_samples", "sessions"), CHAINS),
        **dict.fromkeys(
            (
                f"{node}.{f}"
                for node in ("roots[]", "roots[].waiters[]", "roots[].waiters[].waiters[]")
                for f in (*CHAIN_NODE, "user")
            ),
            CHAINS,
        ),
        **dict.fromkeys(
            (f"{node}.{f}" for node in ("roots[].waiters[]", "roots[].waiters[].waiters[]") for f in CHAIN_WAITER),
            CHAINS,
        ),
    },
    "api.activity_groups": {
        **dict.fromkeys(
            ("range.begin_snap", "range.end_snap", "sample_seconds", "total_samples"),
            (GENERATED + "ashtop_groups_are_the_windows_samples_by_every_dimension_at_once",),
        ),
        **dict.fromkeys((f"rows[].{f}" for f in ("samples", "aas", "pct_activity", "sessions")), ASHTOP),
    },
    "api.compare": {
        **{
            f"{p}.{e}": (*COMPARED, REPORTS + "compare_two_ranges_with_percent_change")
            for p in "ab"
            for e in ("begin_snap", "end_snap")
        },
        "elapsed_seconds.a": (COMPARE + "the_time_movers_are_time_per_second_ranked_by_their_share_of_a_db_time",),
        "elapsed_seconds.b": (COMPARE + "the_time_movers_are_time_per_second_ranked_by_their_share_of_a_db_time",),
        "db_time.a": (COMPARE + "the_time_movers_are_time_per_second_ranked_by_their_share_of_a_db_time",),
        "db_time.b": (COMPARE + "the_time_movers_are_time_per_second_ranked_by_their_share_of_a_db_time",),
        "db_time.change_pct": COMPARED,
        "movers.rows[].a": (
            COMPARE + "the_time_movers_are_time_per_second_ranked_by_their_share_of_a_db_time",
            COMPARE + "the_workload_movers_are_volumes_per_second_and_costs_per_transaction",
        ),
        "movers.rows[].b": (
            COMPARE + "the_time_movers_are_time_per_second_ranked_by_their_share_of_a_db_time",
            COMPARE + "the_workload_movers_are_volumes_per_second_and_costs_per_transaction",
        ),
        "movers.rows[].change_pct": (
            COMPARE + "the_workload_movers_are_volumes_per_second_and_costs_per_transaction",
            RULES + "compare_computes_a_change_from_exact_times",
        ),
        "movers.rows[].db_time_change_pct": (
            COMPARE + "the_time_movers_are_time_per_second_ranked_by_their_share_of_a_db_time",
        ),
        **{
            f"load_profile.rows[].{f}": COMPARED
            for f in (
                "a_per_second",
                "b_per_second",
                "a_per_transaction",
                "b_per_transaction",
                "change_pct",
                "change_pct_per_transaction",
            )
        },
        **{
            f"top_events.rows[].{side}_{f}": COMPARED
            for side in "ab"
            for f in ("time_s", "per_second", "pct_db_time", "avg_ms", "waits_per_transaction")
        },
        "top_events.rows[].change_pct": (
            COMPARE + "a_wait_in_one_period_only_is_plus_or_minus_100_percent",
            RULES + "compare_computes_a_change_from_exact_times",
        ),
        "top_events.rows[].waits_per_transaction_change_pct": (
            COMPARE + "a_wait_in_one_period_only_is_plus_or_minus_100_percent",
        ),
    },
    "api.sql_monitor": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        **{
            f"rows[].{f}": (MONITOR + "monitored_executions_are_the_reports_rows_and_add_up_to_top_sqls_elapsed",)
            for f in ("report_id", "instance", "snap_id", "sql_exec_id")
        },
        **{
            f"rows[].{f}": (AF + "monitored_executions_give_the_summarys_statistics",)
            for f in ("duration_s", "plan_hash_value", "elapsed_s", "cpu_s", "buffer_gets", "disk_reads")
        },
    },
    "api.awr_report_stored": {
        f"reports[].{f}": (
            MONITOR + "every_stored_awr_report_is_listed_and_served_as_stored_isolated",
            AF + "stored_awr_reports_list_both_periods_of_a_compare_report",
        )
        for f in ("begin_snap", "end_snap", "b_begin_snap", "b_end_snap", "instances[]")
    },
    "api.parameters": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "snap_id": (AF + "parameter_changes_name_the_snapshot_before_and_the_container",),
        "rows[].instance": (CHANGES + "values_at_a_snapshot_are_the_rows_of_each_instance",),
        "rows[].snap_id": (CHANGES + "values_at_a_snapshot_are_the_rows_of_each_instance",),
    },
    "api.parameter_changes": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "rows[].instance": (CHANGES + "parameter_changes_are_the_values_that_differ_between_consecutive_snapshots",),
        "rows[].snap_id": (CHANGES + "parameter_changes_are_the_values_that_differ_between_consecutive_snapshots",),
        "rows[].old_snap_id": (AF + "parameter_changes_name_the_snapshot_before_and_the_container",),
        "rows[].con_dbid": (
            AF + "parameter_changes_name_the_snapshot_before_and_the_container",
            CDB + "parameter_changes_are_per_container",
        ),
    },
    "api.non_default_parameters": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        **{
            f"rows[].{f}": (CHANGES + "non_default_parameters_of_a_range",)
            for f in ("instance", "first_snap", "last_snap")
        },
    },
    "api.changes": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "rows[].instance": (CHANGES + "the_changes_around_the_plan_regression",),
        "rows[].snap_id": (CHANGES + "the_changes_around_the_plan_regression",),
        "rows[].details.plan_hash_value": (CHANGES + "the_changes_around_the_plan_regression",),
        "rows[].details.previous_plan": (CHANGES + "the_changes_around_the_plan_regression",),
        "rows[].details.elapsed_s": (AF + "a_new_plans_elapsed_time_and_executions_are_its_rows_of_the_range",),
        "rows[].details.executions": (AF + "a_new_plans_elapsed_time_and_executions_are_its_rows_of_the_range",),
        **{
            f"rows[].details.{f}": (AF + "parameter_changes_name_the_snapshot_before_and_the_container",)
            for f in ("old_snap_id", "con_dbid", "begin_snap", "end_snap")
        },
    },
    "api.sql_plans": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "total_samples": PLAN_LINE_SAMPLES,
        "plans[].plan_hash_value": PLAN_LINE_STORED,
        "plans[].con_dbid": PLAN_LINE_STORED[1:],
        "plans[].samples": PLAN_LINE_SAMPLES[1:],
        **{f"plans[].lines[].{f}": PLAN_LINE_STORED for f in ("id", "parent_id", "depth", "cost", "cardinality")},
        **{f"plans[].lines[].{f}": PLAN_LINE_STORED[1:] for f in ("bytes", "position", *PLAN_OPTIMIZER)},
        **{f"plans[].lines[].{f}": PLAN_LINE_SAMPLES for f in ("samples", "pct_samples", "pct_cpu", "pct_wait")},
        **{
            f"unplaced[].{f}": PLAN_LINE_SAMPLES[1:]
            for f in ("plan_hash_value", "samples", "pct_samples", "pct_cpu", "pct_wait")
        },
    },
    "api.sql_plan_diff": {
        "a": DIFF_LINE,
        "b": DIFF_LINE,
        "differing": (
            PLANS + "the_diff_marks_the_full_scan_and_keeps_the_same_lines",
            PLANS + "two_plans_differing_in_an_index_align_line_by_line_and_mark_the_index",
        ),
        **{
            f"rows[].{side}.{f}": DIFF_LINE
            for side in "ab"
            for f in (*("id", "parent_id", "depth", "position", "cost", "cardinality", "bytes"), *PLAN_OPTIMIZER)
        },
    },
    "api.sql_plan_xplan": {"plan_hash_value": (XPLAN + "every_demo_plan_reads_back_as_its_rows",)},
    "api.sql_binds": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        **{
            f"rows[].{f}": (PLANS + "binds_are_the_captured_values_of_the_range_as_text",)
            for f in ("snap_id", "instance_number", "position")
        },
        "rows[].con_dbid": (CDB + "each_captured_bind_is_listed_once_whatever_the_plans",),
    },
    "api.segments": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "captured": (
            SEGMENTS + "top_segments_are_the_summed_deltas",
            GENERATED + "top_segments_sum_the_deltas_of_the_range_with_their_share_of_the_database",
        ),
        "database_total": (
            SEGMENTS + "pct_total_is_of_the_sysstat_counter",
            GENERATED + "top_segments_sum_the_deltas_of_the_range_with_their_share_of_the_database",
        ),
        "rows[].pct_captured": (
            SEGMENTS + "top_segments_are_the_summed_deltas",
            GENERATED + "top_segments_sum_the_deltas_of_the_range_with_their_share_of_the_database",
        ),
        "rows[].pct_total": (
            SEGMENTS + "pct_total_is_of_the_sysstat_counter",
            GENERATED + "top_segments_sum_the_deltas_of_the_range_with_their_share_of_the_database",
        ),
        **{f"rows[].{f}": SEGMENT_ROW for f in SEGMENT_STATS},
        **{
            f"rows[].{f}": (*SEGMENT_ROW, CDB + "top_segments_keep_one_row_per_container_with_its_own_name")
            for f in ("con_dbid", "ts", "obj", "dataobj")
        },
    },
    "api.segment": {
        "range.begin_snap": SEGMENT_ROW,
        "range.end_snap": SEGMENT_ROW,
        "obj": SEGMENT_ROW,
        "dataobj": SEGMENT_ROW,
        "series[].points[][]": (*SEGMENT_ROW, SEGMENTS + "one_segment_over_time"),
    },
    "api.event_histogram": {
        "range.begin_snap": RANGE_ECHOED,
        "range.end_snap": RANGE_ECHOED,
        "event_id": MARKERS_OF_ANSWERS,
        "left_out[].after_snap_id": (
            *MARKERS_OF_ANSWERS,
            HISTOGRAM + "buckets_are_deltas_per_interval_and_skip_the_restart",
        ),
        **{f"left_out[].{f}": MARKERS_OF_ANSWERS for f in ("before_snap_id", "instance", "seconds")},
        "markers.restarts[].instance": MARKERS_OF_ANSWERS,
        "markers.restarts[].snap_id": (
            *MARKERS_OF_ANSWERS,
            HISTOGRAM + "buckets_are_deltas_per_interval_and_skip_the_restart",
        ),
        **dict.fromkeys(
            (
                "buckets[].wait_time_milli",
                "distribution[].pct",
                "distribution[].wait_time_milli",
                "distribution[].waits",
                "intervals[].counts[]",
                "intervals[].p50_ms",
                "intervals[].p95_ms",
                "intervals[].p99_ms",
                "intervals[].snap_id",
                "intervals[].waits",
                "p50_ms",
                "p95_ms",
                "p99_ms",
                "waits",
            ),
            HISTOGRAM_RULE,
        ),
    },
}
# endpoint -> {numeric field its schema declares (a schema shared with other endpoints) that its answers never give
# as a number: why}; the answers are checked not to hold them
NOT_GIVEN: dict[str, dict[str, str]] = {
    "api.sql": dict.fromkeys(
        ("series[].instance", "series[].partial[].instances", "series[].partial[].missing[]", "series[].points_total"),
        "a statement's points are summed over instances at each snapshot (§15), never combined or bucketed",
    ),
    "api.activity": dict.fromkeys(
        (
            "series[].axis",
            "series[].values[]",
            "series[].instance",
            "series[].partial[].instances",
            "series[].partial[].missing[]",
            "series[].points_total",
        ),
        "ASH series are buckets of samples (§22): no instance, no partial point, no downsampling, no axes",
    ),
    "api.segment": dict.fromkeys(
        (
            "series[].axis",
            "series[].values[]",
            "series[].instance",
            "series[].partial[].instances",
            "series[].partial[].missing[]",
            "series[].points_total",
        ),
        "a segment's points are summed over instances at each snapshot (§25), never combined or downsampled",
    ),
    "api.catalog": dict.fromkeys(("range.begin_snap", "range.end_snap"), "the catalog has no range (§10)"),
    "api.baselines": dict.fromkeys(("range.begin_snap", "range.end_snap"), "a baseline is a range; the list has none"),
    "api.wait_chains": dict.fromkeys(
        ("roots[].blocked_samples", "roots[].blocked_aas"), "a root has no node above it: nothing blocked it (§22)"
    ),
    "api.compare": {
        f"{table}.range.{end}": "the periods' ranges are `a` and `b`"
        for table in ("movers", "differences", "load_profile", "top_events")
        for end in ("begin_snap", "end_snap")
    },
    "api.sql_plan_diff": {
        f"rows[].{side}.{f}": "a diff compares what the plans do, not where the samples sat (§26)"
        for side in "ab"
        for f in ("samples", "pct_samples", "pct_cpu", "pct_wait")
    },
    "api.event_histogram": {"instance": "given as text: `all` or the number asked"},
}


def _is_number(schema: dict) -> bool:
    types = schema.get("type")
    return bool({"number", "integer"} & set(types if isinstance(types, list) else [types]))


def _item_schema(schema: dict, key: str) -> tuple[str, dict]:
    """A property's path component and schema; `*` where the object's keys are data (additionalProperties)."""
    if key in schema.get("properties", {}):
        return key, schema["properties"][key]
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        return "*", extra
    return key, {}


def _one_of(schema: dict) -> dict:
    return next((s for s in schema.get("oneOf", []) if "properties" in s), schema)


def declared(schema: dict, path: str = "") -> set[str]:
    """The numeric fields a schema declares."""
    schema = _one_of(schema)
    out = {path} if path and _is_number(schema) else set()
    for key, sub in schema.get("properties", {}).items():
        out |= declared(sub, f"{path}.{key}" if path else key)
    if isinstance(schema.get("additionalProperties"), dict):
        out |= declared(schema["additionalProperties"], f"{path}.*" if path else "*")
    for sub in [schema.get("items")] if isinstance(schema.get("items"), dict) else []:
        out |= declared(sub, path + "[]")
    for sub in schema.get("prefixItems", []):
        out |= declared(sub, path + "[]")
    return out


def held(value, schema: dict, path: str = "") -> set[str]:
    """The numeric fields an answer holds, named as `declared` names them."""
    schema = _one_of(schema)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return set()
    if isinstance(value, (int, float)):
        return {path}
    out = set()
    if isinstance(value, dict):
        for key, sub in value.items():
            part, sub_schema = _item_schema(schema, key)
            out |= held(sub, sub_schema, f"{path}.{part}" if path else part)
    else:
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        for sub in value:
            out |= held(sub, items, path + "[]")
    return out


def requests(api, dbs, stories, sql3) -> dict[str, list[tuple[str, dict]]]:
    """Per endpoint, the requests whose answers hold every numeric field it gives."""
    rac, single = dbs["rac"], dbs["single"]
    crash, manual, fix = stories["restart"], stories["manual_snapshot"], stories["async_io_fix"]
    reg, lock = stories["plan_regression"], stories["row_lock"]
    around_crash = {"begin_snap": crash["first_snap_after"] - 5, "end_snap": crash["first_snap_after"] + 2}
    around_manual = {"begin_snap": manual["snap_id"] - 2, "end_snap": manual["snap_id"] + 2}
    around_fix = {"begin_snap": fix["first_snap_after"] - 3, "end_snap": fix["first_snap_after"] + 3}
    regression = {"begin_snap": reg["begin_snap"], "end_snap": reg["begin_snap"] + 8}
    before = {"begin_snap": reg["begin_snap"] - 14, "end_snap": reg["begin_snap"] - 2}
    short = {"begin_snap": reg["begin_snap"], "end_snap": reg["begin_snap"] + 2}
    sql = f"/sql/{reg['sql_id']}"
    top = ok(api, url(rac, "/segments"), limit=1, **regression)["rows"][0]
    (plsql,) = sql3.execute(  # a statement whose samples sit on no plan line: a PL/SQL block, which has no plan
        "select a.sql_id from dba_hist_active_sess_history a where a.dbid = ? and a.snap_id > ? and a.snap_id <= ? "
        "and a.sql_plan_line_id is null and not exists (select 1 from dba_hist_sql_plan p where p.dbid = a.dbid "
        "and p.sql_id = a.sql_id) and a.sql_id is not null limit 1",
        (dbid_of(rac), *regression.values()),
    ).fetchone()
    dbid, monitored = sql3.execute(  # the statement with the most SQL monitor reports, around its first one's snapshot
        "select dbid, key1 from dba_hist_reports group by dbid, key1 order by count(*) desc limit 1"
    ).fetchone()
    reported = next(d for d in dbs.values() if dbid_of(d) == dbid)
    snap = monitor_report_query(sql3, reported)["snap_id"]
    return {
        "api.databases": [("/api/v1/dbs", {})],
        "api.database": [(url(rac), {}), (url(single), {})],
        "api.series": [
            (url(rac, "/series"), {"name": [AAS, REDO], "max_points": 0, **around_crash}),
            (url(rac, "/series"), {"name": AAS, "instance": "each", "shape": "axes", **around_crash}),
            (url(single, "/series"), {"name": REDO, **around_manual}),
        ],
        "api.wait_classes": [
            (url(rac, "/wait-classes"), around_crash),
            (url(rac, "/wait-classes"), {"instance": "each", "shape": "axes", **regression}),
            (url(single, "/wait-classes"), around_manual),
        ],
        "api.sql": [(url(rac, sql), {"shape": shape, **regression}) for shape in ("pairs", "axes")],
        "api.activity": [(url(rac, "/activity"), {**short, "group_by": "current_obj"})],  # its groups are numbers
        "api.range_of": [(url(rac, "/range"), {"from": reg["from"], "to": reg["to"]})],
        "api.baselines": [(url(rac, "/baselines"), {}), (url(single, "/baselines"), {})],
        "api.snapshots": [(url(rac, "/snapshots"), around_crash), (url(single, "/snapshots"), around_manual)],
        "api.catalog": [(url(rac, "/catalog"), {})],
        "api.load_profile": [(url(rac, "/load-profile"), around_crash)],
        "api.top_events": [(url(rac, "/top-events"), around_crash)],
        "api.top_sql": [(url(rac, "/top-sql"), regression)],
        "api.tablespaces": [(url(rac, "/tablespaces"), around_crash)],
        "api.activity_top": [(url(rac, "/activity/top"), {"from": lock["from"], "to": lock["to"]})],
        "api.wait_chains": [(url(rac, "/activity/chains"), {"from": lock["from"], "to": lock["to"]})],
        "api.activity_groups": [(url(rac, "/activity/groups"), {"from": lock["from"], "to": lock["to"]})],
        "api.compare": [
            (
                url(rac, "/compare"),
                {f"a_{k}": v for k, v in before.items()} | {f"b_{k}": v for k, v in regression.items()},
            )
        ],
        "api.sql_monitor": [(url(reported, f"/sql/{monitored}/monitor"), {"begin_snap": snap - 48, "end_snap": snap})],
        "api.awr_report_stored": [(url(rac, "/awr-report/stored"), {})],
        "api.parameters": [(url(rac, "/parameters"), {})],
        "api.parameter_changes": [(url(single, "/parameters/changes"), {})],
        "api.non_default_parameters": [(url(rac, "/parameters/non-default"), {})],
        "api.changes": [(url(rac, "/changes"), {}), (url(single, "/changes"), {})],
        "api.sql_plans": [(url(rac, f"{sql}/plans"), regression), (url(rac, f"/sql/{plsql}/plans"), regression)],
        "api.sql_plan_diff": [(url(rac, f"{sql}/plans/diff"), {"a": reg["good_plan"], "b": reg["bad_plan"]})],
        "api.sql_binds": [(url(rac, f"{sql}/binds"), regression)],
        "api.sql_plan_xplan": [(url(rac, f"{sql}/plans/xplan"), {"plan_hash_value": reg["bad_plan"]})],
        "api.segments": [(url(rac, "/segments"), regression)],
        "api.segment": [(url(rac, f"/segments/{top['obj']}"), regression)],
        "api.event_histogram": [
            (url(single, "/event-histogram"), {"event": "log file sync", **around_fix}),
            (url(rac, "/event-histogram"), {"event": "log file sync", "instance": "1", **regression}),
        ],
    }


@pytest.fixture(scope="module")
def answered(api, dbs, stories, sql3):
    """endpoint -> the numeric fields its answers hold."""
    out = {}
    for endpoint, asked in requests(api, dbs, stories, sql3).items():
        out[endpoint] = set()
        for path, query in asked:
            out[endpoint] |= held(ok(api, path, **query), BY_ENDPOINT[endpoint])
    return out


def test_every_endpoint_is_asked_and_listed(answered):
    assert set(answered) == set(BY_ENDPOINT) == set(ASSERTED)


def test_every_declared_numeric_field_names_its_tests():
    listed = {e: set(ASSERTED.get(e, {})) | set(NOT_GIVEN.get(e, {})) for e in BY_ENDPOINT}
    missing = {e: sorted(declared(s) - listed[e]) for e, s in BY_ENDPOINT.items()}
    assert not {e: f for e, f in missing.items() if f}
    assert not {e: set(f) & set(ASSERTED[e]) for e, f in NOT_GIVEN.items() if set(f) & set(ASSERTED[e])}


def test_every_numeric_field_of_the_answers_names_its_tests(answered):
    missing = {e: sorted(fields - set(ASSERTED.get(e, {}))) for e, fields in answered.items()}
    assert not {e: f for e, f in missing.items() if f}
    unasked = {e: sorted(set(f) - answered[e]) for e, f in ASSERTED.items()}
    assert not {e: f for e, f in unasked.items() if f}, "fields the requests here do not reach, or no answer holds"
    given = {e: sorted(set(f) & answered[e]) for e, f in NOT_GIVEN.items()}
    assert not {e: f for e, f in given.items() if f}, "given after all: name their tests"


def _functions(file: str) -> set[str]:
    return set(re.findall(r"^def (test_\w+)\(", (TESTS / file).read_text(), re.M))


def test_every_named_test_exists():
    named = {t for fields in ASSERTED.values() for tests in fields.values() for t in tests}
    assert all(tests for fields in ASSERTED.values() for tests in fields.values())
    found = {}
    for name in sorted(named):
        file, _, function = name.partition("::")
        if file not in found:
            found[file] = _functions(file) if (TESTS / file).is_file() else set()
        assert function in found[file], name
