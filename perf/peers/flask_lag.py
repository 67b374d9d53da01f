"""A peer for perf/peers.py: the smallest Flask app that answers the same series with the LAG query.

It computes per-second rates in SQL and returns them as JSON, with no restart or gap handling beyond the
query's own filter: the floor of what a hand-written endpoint would do. Run: gunicorn perf.peers.flask_lag:app
"""

import os
import sqlite3

from flask import Flask, jsonify, request

LAG = """
select v.instance_number, s.end_interval_time,
       (v.value - lag(v.value) over w)
       / ((julianday(s.end_interval_time) - julianday(lag(s.end_interval_time) over w)) * 86400) as per_second,
       s.startup_time = lag(s.startup_time) over w as same_startup
from dba_hist_sysstat v join dba_hist_snapshot s
  on s.dbid = v.dbid and s.instance_number = v.instance_number and s.snap_id = v.snap_id
where v.dbid = :dbid and v.stat_id = :stat_id
window w as (partition by v.instance_number order by v.snap_id)"""

app = Flask(__name__)
connection = []


@app.get("/series")
def series():
    if not connection:  # one per worker process, opened on its first request
        connection.append(sqlite3.connect(f"file:{os.environ['STORE']}?mode=ro", uri=True, check_same_thread=False))
    rows = connection[0].execute(LAG, {"dbid": int(request.args["dbid"]), "stat_id": int(request.args["stat_id"])})
    out = {}
    for instance, end, rate, same in rows:
        if same and rate is not None and rate >= 0:
            out.setdefault(instance, []).append([end, rate])
    return jsonify(out)
