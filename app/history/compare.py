"""Two periods side by side: the Load Profile and the top events of each, with the % change from A to B."""
from app.history import load_profile, top_events
from app.history.database import Database, Range
from app.history.numbers import change_pct

EVENTS_COMPARED = 15  # top events of each period


def compute(db: Database, a: Range, b: Range, instance="all") -> dict:
    lp_a, lp_b = load_profile.compute(db, a, instance), load_profile.compute(db, b, instance)
    ev_a, ev_b = (top_events.compute(db, a, instance, EVENTS_COMPARED),
                  top_events.compute(db, b, instance, EVENTS_COMPARED))
    profile = []
    for ra, rb in zip(lp_a["rows"], lp_b["rows"], strict=True):
        profile.append({"metric": ra["metric"], "a_per_second": ra["per_second"], "b_per_second": rb["per_second"],
                        "change_pct": change_pct(ra["per_second"], rb["per_second"]),
                        "a_per_transaction": ra["per_transaction"], "b_per_transaction": rb["per_transaction"]})
    by_a = {r["event"]: r for r in ev_a["rows"]}
    by_b = {r["event"]: r for r in ev_b["rows"]}
    events = []
    for name in list(by_a) + [n for n in by_b if n not in by_a]:
        ra, rb = by_a.get(name, {}), by_b.get(name, {})
        events.append({"event": name, "wait_class": ra.get("wait_class") or rb.get("wait_class"),
                       "a_time_s": ra.get("time_s"), "b_time_s": rb.get("time_s"),
                       "change_pct": change_pct(ra.get("time_s"), rb.get("time_s")),
                       "a_avg_ms": ra.get("avg_ms"), "b_avg_ms": rb.get("avg_ms"),
                       "a_pct_db_time": ra.get("pct_db_time"), "b_pct_db_time": rb.get("pct_db_time")})
    return {"db": db.key, "a": a.public(), "b": b.public(), "instance": instance,
            "load_profile": {"columns": ["metric", "a_per_second", "b_per_second", "change_pct",
                                         "a_per_transaction", "b_per_transaction"], "rows": profile},
            "top_events": {"columns": ["event", "wait_class", "a_time_s", "b_time_s", "change_pct", "a_avg_ms",
                                       "b_avg_ms", "a_pct_db_time", "b_pct_db_time"], "rows": events}}
