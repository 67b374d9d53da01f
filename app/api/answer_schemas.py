"""The JSON schema of every answer of the history API, by endpoint, and of the error answer every endpoint shares:
the OpenAPI document's (openapi.py) `200` and error content. A view may describe its answers itself instead (its
`openapi` attribute: the reports' documents, the benchmark runs)."""

ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["status", "code", "message"],
            "properties": {
                "status": {"type": "integer"},
                "code": {"type": "string"},
                "message": {"type": "string"},
                "parameter": {"type": "string"},
                "problems": {"type": "array", "items": {"type": "string"}},  # reports_refused: one per file
            },
        }
    },
}
NUM = {"type": ["number", "null"]}
POINTS = {
    "type": "array",
    "items": {"type": "array", "prefixItems": [{"type": "string"}, NUM], "minItems": 2, "maxItems": 2},
}
RANGE = {
    "type": "object",
    "properties": {
        "begin_snap": {"type": ["integer", "null"]},
        "end_snap": {"type": ["integer", "null"]},
        "from": {"type": ["string", "null"]},
        "to": {"type": ["string", "null"]},
    },
}
TABLE = {
    "type": "object",
    "required": ["columns", "rows"],
    "properties": {
        "columns": {"type": "array", "items": {"type": "string"}},
        "rows": {"type": "array", "items": {"type": "object"}},
        "range": RANGE,
    },
}
SERIES = {
    "type": "object",
    "required": ["series"],
    "properties": {
        "range": RANGE,
        "markers": {"type": "object"},
        "axes": {
            "type": "array",
            "description": "shape=axes: each distinct list of times, once.",
            "items": {"type": "array", "items": {"type": "string"}},
        },
        "series": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["unit"],
                "properties": {
                    "name": {"type": "string"},
                    "unit": {"type": "string"},
                    "kind": {"type": "string"},
                    "instance": {"type": ["string", "integer"]},
                    "points": POINTS,
                    "points_total": {"type": "integer"},
                    "axis": {
                        "type": "integer",
                        "description": "shape=axes: the index of this series' times in `axes`.",
                    },
                    "values": {
                        "type": "array",
                        "items": NUM,
                        "description": "shape=axes: one value per time of its axis.",
                    },
                    "partial": {
                        "type": "array",
                        "description": "Combined points that sum fewer instances than the range holds.",
                        "items": {
                            "type": "object",
                            "required": ["time", "instances", "missing"],
                            "properties": {
                                "time": {"type": "string"},
                                "instances": {"type": "integer"},
                                "missing": {"type": "array", "items": {"type": "integer"}},
                            },
                        },
                    },
                },
            },
        },
    },
}
TOP_ROW = {
    "type": "object",
    "required": ["name", "samples", "aas", "pct_activity", "pct_cpu", "pct_wait"],
    "properties": {
        "name": {
            "type": ["string", "integer", "null"],
            "description": "The group: a SQL_ID, a session (instance:sid,serial#), a module, "
            "an event (CPU: on CPU) or an object (CURRENT_OBJ#); null for the samples without one.",
        },
        "label": {
            "type": "string",
            "description": "The group as a DBA reads it: its name (an object's OWNER.NAME, a user's name), else its "
            "id as text, or for the samples without one the group's name (no SQL, no object...; `without=` filters "
            "on it).",
        },
        "samples": {"type": "integer"},
        "aas": NUM,
        "pct_activity": NUM,
        "pct_cpu": NUM,
        "pct_wait": NUM,
        "user": {
            "type": ["integer", "string", "null"],
            "description": "Top sessions: the session's user (USER_ID; con_dbid:id in a PDB, from a CDB root).",
        },
        "user_name": {"type": ["string", "null"], "description": "Top sessions: its name (DBA_USERS), where granted."},
        "program": {"type": ["string", "null"], "description": "Top sessions: the session's program."},
        "machine": {"type": ["string", "null"], "description": "Top sessions: the session's machine."},
    },
}
LIVE = {
    "type": "object",
    "description": "ash=live only: the live buffer's clock (docs/awr-rules.md §30).",
    "required": ["now", "oldest_sample"],
    "properties": {
        "now": {"type": "string", "description": "The database's now (the demo's: its newest sample)."},
        "oldest_sample": {
            "type": ["string", "null"],
            "description": "Since when every instance's one-second samples are in the buffer.",
        },
        "aged_out": {
            "type": "string",
            "description": "Where the window starts before oldest_sample: that one-second samples aged out.",
        },
    },
}
ACTIVITY_TOP = {
    "type": "object",
    "required": ["db", "range", "filters", "lists", "blocking", "columns"],
    "properties": {
        "db": {"type": "string"},
        "range": RANGE,
        "filters": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
        "lists": {
            "type": "object",
            "description": "Per list (sql_id, session, module, event, current_obj), its top rows.",
            "additionalProperties": {"type": "array", "items": TOP_ROW},
        },
        "blocking": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["blocking_session", "samples", "waiters"],
                "properties": {
                    "blocking_instance": {"type": ["integer", "null"]},
                    "blocking_session": {"type": ["integer", "null"]},
                    "blocking_serial": {"type": ["integer", "null"]},
                    "event": {"type": ["string", "null"]},
                    "samples": {"type": "integer"},
                    "waiters": {"type": "integer"},
                    "aas": NUM,
                },
            },
        },
        "columns": {"type": "array", "items": {"type": "string"}, "description": "The columns of the CSV answer."},
        "total_samples": {"type": "integer"},
        "sample_seconds": {"type": "number"},
        "cpu_label": {"type": "string"},
        "reason": {
            "type": "string",
            "description": "Why the answer holds no samples, where the range holds no interval.",
        },
        "live": LIVE,
    },
}
BETTER = {
    "enum": ["lower", "higher", None],
    "description": "Which way is better by nature (docs/awr-rules.md §29); null: neutral, coloured by neither.",
}
COMPARE = {
    "type": "object",
    "required": ["elapsed_seconds", "db_time", "movers", "differences", "load_profile", "top_events"],
    "properties": {
        "a": RANGE,
        "b": RANGE,
        "elapsed_seconds": {"type": "object", "description": "Each period's seconds (docs/awr-rules.md §13)."},
        "db_time": {
            "type": "object",
            "description": "DB time per second (average active sessions) of A and B.",
            "properties": {"a": NUM, "b": NUM, "change_pct": NUM, "unit": {"type": "string"}, "better": BETTER},
        },
        "movers": {
            **TABLE,
            "description": "What changed, largest first: group `time` (time model, wait events, top "
            "SQL, per second, ranked by db_time_change_pct = 100 x (B - A) / A's DB time per second), then group "
            "`workload` (the Load Profile's rows, per second or per transaction, ranked by |change_pct|). Each "
            "row has `better` and `only_in` (a: gone in B, b: new in B); `series` names its catalog series.",
        },
        "differences": {
            **TABLE,
            "description": "What is in one period and not the other, one row each (kind, item, a, "
            "b, change): kind `plan`, a plan hash value of a top statement that appeared or disappeared.",
        },
        "load_profile": TABLE,
        "top_events": TABLE,
    },
}
STR = {"type": ["string", "null"]}
INT = {"type": ["integer", "null"]}
PLAN_LINE = {
    "type": "object",
    "required": ["id", "depth", "operation"],
    "properties": {
        "id": {"type": "integer"},
        "parent_id": INT,
        "depth": INT,
        "position": INT,
        "operation": STR,
        "options": STR,
        "object_owner": STR,
        "object_name": STR,
        "cost": INT,
        "cardinality": INT,
        "bytes": INT,
        "cpu_cost": INT,
        "io_cost": INT,
        "time": {**INT, "description": "The optimizer's estimate of the line's elapsed time, in seconds."},
        "access_predicates": STR,
        "filter_predicates": STR,
        "samples": {"type": "integer"},
        "pct_samples": NUM,
        "pct_cpu": NUM,
        "pct_wait": NUM,
    },
}
PLANS = {
    "type": "object",
    "required": ["sql_id", "plans", "unplaced", "total_samples"],
    "properties": {
        "db": {"type": "string"},
        "sql_id": {"type": "string"},
        "range": RANGE,
        "total_samples": {"type": "integer"},
        "plans": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["plan_hash_value", "lines"],
                "properties": {
                    "plan_hash_value": {"type": "integer"},
                    "con_dbid": INT,
                    "timestamp": STR,
                    "samples": {"type": "integer"},
                    "notes": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "What OTHER_XML says of the plan, as DBMS_XPLAN's Note section words it.",
                    },
                    "lines": {"type": "array", "items": PLAN_LINE},
                },
            },
        },
        "unplaced": {
            "type": "array",
            "description": "ASH samples of the statement on no line of a plan shown.",
            "items": {"type": "object"},
        },
        "reason": {"type": "string"},
        "columns": {"type": "array", "items": {"type": "string"}},
    },
}
PLAN_DIFF = {
    "type": "object",
    "required": ["a", "b", "rows", "differing"],
    "properties": {
        "a": {"type": "integer"},
        "b": {"type": "integer"},
        "differing": {"type": "integer"},
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["change", "a", "b"],
                "properties": {
                    "change": {"enum": ["same", "moved", "changed", "only_a", "only_b"]},
                    "a": {"oneOf": [PLAN_LINE, {"type": "null"}]},
                    "b": {"oneOf": [PLAN_LINE, {"type": "null"}]},
                },
            },
        },
        "columns": {"type": "array", "items": {"type": "string"}},
    },
}
XPLAN = {
    "type": "object",
    "required": ["sql_id", "plan_hash_value", "text"],
    "properties": {
        "db": {"type": "string"},
        "sql_id": {"type": "string"},
        "plan_hash_value": {"type": "integer"},
        "format": {"const": "TYPICAL"},
        "text": {
            "type": "string",
            "description": "The plan as DBMS_XPLAN.DISPLAY_AWR prints it (docs/awr-rules.md §34).",
        },
    },
}
EVENT_HISTOGRAM = {
    "type": "object",
    "required": ["event", "buckets", "intervals", "distribution"],
    "properties": {
        "db": {"type": "string"},
        "event": {"type": "string"},
        "event_id": {"type": ["integer", "null"]},
        "range": RANGE,
        "instance": {"type": ["string", "integer"]},
        "markers": {"type": "object"},
        "waits": {"type": "integer"},
        "p50_ms": NUM,
        "p95_ms": NUM,
        "p99_ms": NUM,
        "buckets": {
            "type": "array",
            "description": "The latency buckets, ascending: waits < wait_time_milli ms (and at "
            "least half of it, but for the first).",
            "items": {
                "type": "object",
                "required": ["wait_time_milli", "label"],
                "properties": {"wait_time_milli": {"type": "integer"}, "label": {"type": "string"}},
            },
        },
        "intervals": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["snap_id", "time", "counts", "waits"],
                "properties": {
                    "snap_id": {"type": "integer"},
                    "time": {"type": "string"},
                    "waits": {"type": "integer"},
                    "counts": {
                        "type": "array",
                        "items": {"type": "integer"},
                        "description": "Waits per bucket, as `buckets`.",
                    },
                    "p50_ms": NUM,
                    "p95_ms": NUM,
                    "p99_ms": NUM,
                },
            },
        },
        "distribution": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "wait_time_milli": {"type": "integer"},
                    "label": {"type": "string"},
                    "waits": {"type": "integer"},
                    "pct": NUM,
                },
            },
        },
        "left_out": {"type": "array"},
        "reason": {"type": ["string", "null"]},
    },
}
ASHTOP = {
    "type": "object",
    "required": ["db", "range", "group_by", "filters", "rows", "columns", "total_samples"],
    "properties": {
        "db": {"type": "string"},
        "range": RANGE,
        "group_by": {"type": "array", "items": {"type": "string"}},
        "filters": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
        "unit": {"type": "string"},
        "sample_seconds": {"type": ["number", "null"]},
        "total_samples": {"type": "integer"},
        "live": LIVE,
        "rows": {
            "type": "array",
            "description": "One row per group, the most samples first: each dimension's value (its id; `<dimension>_"
            "label` its name) and the group's figures.",
            "items": {
                "type": "object",
                "required": ["samples", "aas", "pct_activity", "sessions", "first_seen", "last_seen"],
                "properties": {
                    "samples": {"type": "integer"},
                    "aas": NUM,
                    "pct_activity": NUM,
                    "sessions": {"type": "integer", "description": "Distinct sessions (instance, SID, serial#)."},
                    "first_seen": {"type": "string", "format": "date-time"},
                    "last_seen": {"type": "string", "format": "date-time"},
                },
            },
        },
        "columns": {"type": "array", "items": {"type": "string"}, "description": "The columns of the CSV answer."},
        "reason": {"type": "string"},
    },
}
CHAIN_NODE = {
    "type": "object",
    "required": ["session", "instance", "sid", "serial", "samples", "doing", "behind", "waiters"],
    "properties": {
        "session": {"type": "string", "description": "instance:sid,serial#"},
        "instance": {"type": ["integer", "null"]},
        "sid": {"type": "integer"},
        "serial": {"type": ["integer", "null"]},
        "samples": {"type": "integer", "description": "The session's own samples in the window, any state."},
        "aas": NUM,
        "on_cpu": {"type": "integer"},
        "doing": {
            "type": "array",
            "description": "What the session did meanwhile: its samples by state, event and SQL_ID, most first.",
            "items": {"type": "object", "required": ["state", "event", "sql_id", "samples"]},
        },
        "user": {"type": ["integer", "string", "null"], "description": "USER_ID (con_dbid:id in another container)."},
        "user_name": {"type": ["string", "null"], "description": "The user's name, where the dictionary is granted."},
        "program": {"type": ["string", "null"]},
        "machine": {"type": ["string", "null"]},
        "note": {"type": ["string", "null"]},
        "behind": {"type": "integer", "description": "Blocked samples of its waiters and of theirs."},
        "behind_aas": NUM,
        "cycle": {"type": "boolean", "description": "Blocked by a session it blocks (a deadlock): not expanded."},
        "blocked_samples": {"type": "integer", "description": "Its samples blocked by the node above it."},
        "blocked_aas": NUM,
        "waits": {
            "type": "array",
            "description": "What it waited on behind the node above it: event and object, most samples first.",
            "items": {"type": "object", "required": ["event", "current_obj", "object", "samples"]},
        },
        "more_waiters": {"type": "integer"},
        "waiters": {
            "type": "array",
            "description": "The sessions it blocked, each a node of this shape, most blocked samples first.",
            "items": {"type": "object"},
        },
    },
}
WAIT_CHAINS = {
    "type": "object",
    "required": ["db", "range", "sample_seconds", "blocked_samples", "sessions", "roots"],
    "properties": {
        "db": {"type": "string"},
        "range": RANGE,
        "unit": {"type": "string"},
        "sample_seconds": {"type": ["number", "null"]},
        "blocked_samples": {"type": "integer"},
        "sessions": {"type": "integer"},
        "roots": {"type": "array", "items": CHAIN_NODE, "description": "The root blockers, most waited on first."},
        "truncated": {"type": "boolean"},
        "live": LIVE,
        "reason": {"type": "string"},
    },
}
BY_ENDPOINT = {  # endpoint -> schema of its JSON answer
    "api.databases": {
        "type": "object",
        "required": ["databases"],
        "properties": {
            "databases": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "dbid", "db_name", "rac", "instances", "snapshots", "source"],
                },
            },
            "unreachable": {
                "type": "array",
                "items": {"type": "object", "required": ["target", "status", "code", "message"]},
            },
        },
    },
    "api.database": {"type": "object", "required": ["id", "dbid", "db_name", "instances", "snapshots", "source"]},
    "api.series": SERIES,
    "api.wait_classes": SERIES,
    "api.sql": SERIES,
    "api.activity": {**SERIES, "properties": {**SERIES["properties"], "live": LIVE}},
    "api.range_of": {
        "type": "object",
        "required": ["db", "range"],
        "properties": {
            "db": {"type": "string"},
            "range": {
                **RANGE,
                "properties": {**RANGE["properties"], "begin_time": {"type": "string"}, "end_time": {"type": "string"}},
            },
        },
    },
    "api.snapshots": TABLE,
    "api.catalog": TABLE,
    "api.load_profile": TABLE,
    "api.top_events": TABLE,
    "api.top_sql": TABLE,
    "api.tablespaces": TABLE,
    "api.activity_top": ACTIVITY_TOP,
    "api.wait_chains": WAIT_CHAINS,
    "api.activity_groups": ASHTOP,
    "api.compare": COMPARE,
    "api.sql_monitor": TABLE,
    "api.awr_report_stored": {"type": "object", "required": ["db", "any_range", "reports"]},
    "api.parameters": TABLE,
    "api.baselines": TABLE,
    "api.parameter_changes": TABLE,
    "api.non_default_parameters": TABLE,
    "api.changes": TABLE,
    "api.sql_plans": PLANS,
    "api.sql_plan_diff": PLAN_DIFF,
    "api.sql_plan_xplan": XPLAN,
    "api.sql_binds": TABLE,
    "api.segments": TABLE,
    "api.segment": SERIES,
    "api.event_histogram": EVENT_HISTOGRAM,
}
