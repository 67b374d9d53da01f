"""The history questions a DBA asks, answered from any store: databases, series, Load Profile, top events,
top SQL, one SQL over time, tablespaces, and two periods compared. Flask-free; the API layer calls these."""
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from math import fsum

from app import analysis
from app import catalog as series_catalog
from app.errors import BadParameter, NotFound
from app.store import queries

LOAD_PROFILE = [  # (label, view, statistics summed, scale) -- the AWR report's rows
    ("DB Time(s)", "sys_time_model", ("DB time",), 1e-6),
    ("DB CPU(s)", "sys_time_model", ("DB CPU",), 1e-6),
    ("Background CPU(s)", "sys_time_model", ("background cpu time",), 1e-6),
    ("Redo size (bytes)", "sysstat", ("redo size",), 1),
    ("Logical read (blocks)", "sysstat", ("session logical reads",), 1),
    ("Block changes", "sysstat", ("db block changes",), 1),
    ("Physical read (blocks)", "sysstat", ("physical reads",), 1),
    ("Physical write (blocks)", "sysstat", ("physical writes",), 1),
    ("Read IO requests", "sysstat", ("physical read IO requests",), 1),
    ("Write IO requests", "sysstat", ("physical write IO requests",), 1),
    ("Read IO (MB)", "sysstat", ("physical read bytes",), 1 / 1048576),
    ("Write IO (MB)", "sysstat", ("physical write bytes",), 1 / 1048576),
    ("User calls", "sysstat", ("user calls",), 1),
    ("Parses (SQL)", "sysstat", ("parse count (total)",), 1),
    ("Hard parses (SQL)", "sysstat", ("parse count (hard)",), 1),
    ("Logons", "sysstat", ("logons cumulative",), 1),
    ("Executes (SQL)", "sysstat", ("execute count",), 1),
    ("Rollbacks", "sysstat", ("user rollbacks",), 1),
    ("Transactions", "sysstat", ("user commits", "user rollbacks"), 1),
]
TXN = ("user commits", "user rollbacks")
ALL_INSTANCES = None


@dataclass(frozen=True)
class Range:
    """A resolved range: snapshots lo..hi (None when no snapshot falls inside) and whether it is closed,
    i.e. ends before the newest snapshot so its answer can never change."""
    lo: int | None
    hi: int | None
    start: str | None
    end: str | None
    closed: bool

    def public(self):
        return {"begin_snap": self.lo, "end_snap": self.hi, "from": self.start, "to": self.end}


class Database:
    """One DBID in one store."""

    def __init__(self, store, dbid: int, rows: list):
        self.store, self.dbid = store, dbid
        self.key = f"{store.alias}.{dbid}"
        latest = rows[-1]
        self.name = latest[3]
        self.version, self.platform = latest[6], latest[8]
        self.rac = any((r[7] or "").upper() == "YES" for r in rows)
        instances = {}
        for r in rows:
            instances.setdefault(r[1], {"instance_number": r[1], "instance_name": r[4], "host_name": r[5],
                                        "startups": []})["startups"].append(analysis.as_datetime(r[2]))
        self.instances = [instances[k] for k in sorted(instances)]

    def timeline(self) -> analysis.Timeline:
        settings = self.store.settings

        def load():
            rows = self.store.rows(queries.snapshots(self.store.views), {"dbid": self.dbid})
            return analysis.Timeline([analysis.make_snap(r[1], r[0], r[2], r[4], r[5], _seconds(r[6]))
                                      for r in rows], settings.min_interval)
        return self.store.cached(("timeline", self.dbid), settings.snapshot_ttl, load)

    def catalog(self) -> dict[str, series_catalog.Spec]:
        def load():
            newest = self.timeline().newest()
            if newest is None:
                return {}
            v, params = self.store.views, {"dbid": self.dbid, "snap_id": newest.snap_id}
            names = {view: self.store.rows(queries.counter_names(v, view), params)
                     for view in queries.COUNTER_VIEWS}
            names["system_event"] = self.store.rows(queries.event_names(v), params)
            names["sysmetric_summary"] = self.store.rows(queries.metric_names(v), params)
            names["sysmetric_history"] = self.store.rows(queries.metric_names(v, "sysmetric_history"), params)
            for view in queries.IO_VIEWS:
                names[view] = self.store.rows(queries.io_names(v, view), params)
            return series_catalog.build(names)
        return self.store.cached(("catalog", self.dbid), 10 * self.store.settings.snapshot_ttl, load)

    def summary(self) -> dict:
        tl = self.timeline()
        first, last = tl.oldest(), tl.newest()
        tz = timezone(timedelta(seconds=_offset(last)))
        instances = [{**i, "startups": [analysis.iso(s.replace(tzinfo=tz)) for s in i["startups"]]}
                     for i in self.instances]
        return {"id": self.key, "target": self.store.alias, "dbid": self.dbid, "db_name": self.name,
                "version": self.version, "platform": self.platform, "rac": self.rac,
                "instances": instances,
                "snapshots": {"first_snap": first and min(tl.snap_ids), "last_snap": last and max(tl.snap_ids),
                              "from": first and first.time, "to": last and last.time, "count": len(tl.snap_ids),
                              "interval_minutes": round(tl.step / 60)}}

    def localize(self, moment: datetime) -> datetime:
        """A naive date-time read as the database's local time."""
        return moment.replace(tzinfo=timezone(timedelta(seconds=_offset(self.timeline().newest()))))

    def instance(self, value) -> int | None:
        """'all' -> None, or a known instance number (400 otherwise)."""
        if value in (None, "all"):
            return ALL_INSTANCES
        known = [i["instance_number"] for i in self.instances]
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = None
        if number not in known:
            raise BadParameter(f"instance must be all, each or one of {', '.join(map(str, known))}; got {value!r}",
                               "instance")
        return number

    def resolve(self, start: datetime | None = None, end: datetime | None = None, begin_snap: int | None = None,
                end_snap: int | None = None, default_days: float = 7, max_days: float = 400,
                names=("from", "to", "begin_snap", "end_snap")) -> Range:
        """A time range (aware datetimes) or a snapshot range, checked, as snapshot ids. `names` are the
        request's names for from, to, begin_snap and end_snap, for the errors."""
        tl = self.timeline()
        newest = tl.newest()
        if newest is None:
            return Range(None, None, None, None, False)
        if begin_snap is not None or end_snap is not None:
            lo = begin_snap if begin_snap is not None else min(tl.snap_ids)
            hi = end_snap if end_snap is not None else max(tl.snap_ids)
            if lo > hi:
                raise BadParameter(f"{names[2]} {lo} is after {names[3]} {hi}", names[2])
            chosen = [s for s in tl.by_id.values() if lo <= s.snap_id <= hi]
            if not chosen:
                raise BadParameter(f"no snapshot between {names[2]} {lo} and {names[3]} {hi}; this database has "
                                   f"snap_id {min(tl.snap_ids)}..{max(tl.snap_ids)}", names[2])
            t0, t1 = min(s.epoch for s in chosen), max(s.epoch for s in chosen)
        else:
            t1 = end.timestamp() if end else newest.epoch
            t0 = start.timestamp() if start else t1 - default_days * 86400
            if t0 > t1:
                raise BadParameter(f"{names[0]} must be before {names[1]}", names[0])
            chosen = [s for s in tl.by_id.values() if t0 <= s.epoch <= t1]
        if t1 - t0 > max_days * 86400:
            raise BadParameter(f"the range is wider than {max_days:g} days; narrow it",
                               names[0] if begin_snap is None and end_snap is None else names[2])
        tz = timezone(timedelta(seconds=_offset(newest)))
        start_s = analysis.iso(datetime.fromtimestamp(t0, tz))
        end_s = analysis.iso(datetime.fromtimestamp(t1, tz))
        if not chosen:
            return Range(None, None, start_s, end_s, t1 < newest.epoch)
        return Range(min(s.snap_id for s in chosen), max(s.snap_id for s in chosen), start_s, end_s,
                     t1 < newest.epoch)

    # -- series -----------------------------------------------------------------------------------------

    def spec(self, name: str) -> series_catalog.Spec:
        spec = self.catalog().get(name)
        if spec is None:
            raise NotFound(f"unknown series {name!r}; see /api/v1/dbs/{self.key}/catalog", "name")
        return spec

    def series(self, names, rng: Range, instance="all", rate="per_second", max_points=2000) -> dict:
        specs = [self.spec(n) for n in names]
        each = instance == "each"
        inst = None if each else self.instance(instance)
        out = []
        tl = self.timeline()
        if rng.lo is not None:
            fetch_lo = min((rows[0].snap_id for rows in tl.in_range(rng.lo, rng.hi, inst).values() if rows),
                           default=rng.lo)
            fetcher = series_catalog.Fetcher(self, fetch_lo, rng.hi)
        for spec in specs:
            if spec.kind == "detail":
                per, how = self._detail(spec, rng, inst)
            elif rng.lo is None:
                per, how = {}, "sum_of_ratios"
            else:
                txn = self._terms("sysstat", TXN) if rate == "per_txn" and spec.kind == "cumulative" else ()
                per, how = series_catalog.evaluate(spec, fetcher, tl, rng.lo, rng.hi, inst, rate, txn)
            groups = sorted(per.items()) if each else [(inst if inst is not None else "all",
                                                         analysis.combine(per, how) if inst is None
                                                         else per.get(inst, []))]
            for label, points in groups:
                values = analysis.values_of(points, spec.scale)
                total = len(values)
                values = analysis.lttb(values, max_points)
                out.append({**spec.public(), "unit": spec.unit_for(rate), "instance": label,
                            "rate": rate if spec.kind == "cumulative" else None,
                            "points_total": total, "points": _points(values)})
        markers = tl.markers(rng.lo, rng.hi, inst) if rng.lo is not None else {}
        return {"db": self.key, "range": rng.public(), "instance": instance, "series": out, "markers": markers}

    def _terms(self, view, names):
        cat = self.catalog()
        missing = [n for n in names if f"{view}:{n}" not in cat]
        if missing:
            raise NotFound(f"this database has no {view} statistic {missing[0]!r}", "name")
        return tuple(cat[f"{view}:{n}"].terms[0] for n in names)

    def _detail(self, spec, rng: Range, inst):
        """Per-minute sysmetric history: points keyed by minute, combined like the summary metric."""
        if rng.lo is None:
            return {}, spec.how
        tz = _offset(self.timeline().newest())
        rows = self.store.rows(queries.metric_detail_series(self.store.views),
                               {"dbid": self.dbid, "lo": rng.lo, "hi": rng.hi, "item_id": spec.terms[0].item})
        per: dict[int, list] = {}
        for instance, end_time, value in rows:
            if (inst is not None and instance != inst) or value is None:
                continue
            moment = analysis.as_datetime(end_time).replace(tzinfo=timezone(timedelta(seconds=tz)))
            epoch = moment.timestamp()
            per.setdefault(instance, []).append(analysis.Point(int(epoch // 60), epoch, analysis.iso(moment), value))
        return per, spec.how

    def wait_classes(self, rng: Range, instance="all", max_points=2000) -> dict:
        cat = self.catalog()
        names = ["derived:db_cpu"] + sorted(n for n in cat if n.startswith("wait_class:"))
        answer = self.series([n for n in names if n in cat], rng, instance, "per_second", max_points)
        cpus = self.series(["derived:num_cpus"], rng, instance, "per_second", max_points) \
            if "derived:num_cpus" in cat else {"series": []}
        answer["cpu_count"] = cpus["series"]
        return answer

    # -- tables over a range (AWR report semantics: intervals ending in (begin_snap, end_snap]) -------------

    def _boundaries(self, rng: Range, inst):
        """Per instance, the first and last kept snapshot of each startup inside the range: the counters
        there give the same sums as every interval in between, in a handful of rows."""
        out = {}
        for i, rows in self.timeline().in_range(rng.lo, rng.hi, inst).items():
            rows = [s for s in rows if s.snap_id >= rng.lo]
            keep = [s for k, s in enumerate(rows)
                    if k == 0 or k == len(rows) - 1 or s.startup != rows[k - 1].startup
                    or s.startup != rows[k + 1].startup]
            out[i] = keep
        return out

    def _totals(self, view, names, rng, inst):
        """Sum of valid deltas and of their seconds, per instance and name."""
        bounds = self._boundaries(rng, inst)
        snap_ids = sorted({s.snap_id for rows in bounds.values() for s in rows})
        if not snap_ids:
            return {}, {}
        rows = self.store.rows(queries.counters_at(self.store.views, view),
                               {"dbid": self.dbid, "snap_ids": snap_ids, "names": list(names)})
        values: dict = {}
        for instance, snap, name, value in rows:
            values.setdefault((instance, name), {})[snap] = value
        totals, seconds = {}, {}
        for (instance, name), per in values.items():
            if instance not in bounds:
                continue
            ds = analysis.deltas(per, bounds[instance])
            totals[(instance, name)] = fsum(p.num for p in ds)
            seconds[instance] = max(seconds.get(instance, 0), fsum(p.den for p in ds))
        return totals, seconds

    def load_profile(self, rng: Range, instance="all") -> dict:
        inst = self.instance(instance)
        rows = []
        if rng.lo is not None and rng.lo < rng.hi:
            per_view = {}
            for view in ("sys_time_model", "sysstat"):
                names = {n for _, v, ns, _ in LOAD_PROFILE if v == view for n in ns}
                per_view[view] = self._totals(view, names, rng, inst)
            totals, seconds = per_view["sysstat"]
            txns = fsum(totals.get((i, n), 0) for i in seconds for n in TXN)
            for label, view, names, scale in LOAD_PROFILE:
                t, sec = per_view[view]
                total = fsum(t.get((i, n), 0) for i in sec for n in names) * scale
                per_second = fsum(fsum(t.get((i, n), 0) for n in names) * scale / sec[i] for i in sec if sec[i])
                rows.append({"metric": label, "per_second": _round(per_second),
                             "per_transaction": _round(total / txns) if txns else None, "total": _round(total)})
            elapsed = max(seconds.values(), default=0)
        else:
            elapsed = 0
        return {"db": self.key, "range": rng.public(), "instance": instance, "elapsed_seconds": round(elapsed),
                "columns": ["metric", "per_second", "per_transaction", "total"], "rows": rows}

    def top_events(self, rng: Range, instance="all", limit=10) -> dict:
        inst = self.instance(instance)
        rows = []
        if rng.lo is not None and rng.lo < rng.hi:
            bounds = self._boundaries(rng, inst)
            snap_ids = sorted({s.snap_id for r in bounds.values() for s in r})
            raw = self.store.rows(queries.events_at(self.store.views), {"dbid": self.dbid, "snap_ids": snap_ids})
            waits, micros, classes = {}, {}, {}
            for instance_no, snap, name, wait_class, total_waits, time_micro in raw:
                if instance_no in bounds:
                    waits.setdefault((instance_no, name), {})[snap] = total_waits or 0
                    micros.setdefault((instance_no, name), {})[snap] = time_micro or 0
                    classes[name] = wait_class
            events: dict = {}
            for (instance_no, name), per in micros.items():
                e = events.setdefault(name, [0.0, 0.0])
                e[0] += fsum(p.num for p in analysis.deltas(waits[(instance_no, name)], bounds[instance_no]))
                e[1] += fsum(p.num for p in analysis.deltas(per, bounds[instance_no]))
            db_time, _ = self._totals("sys_time_model", ("DB time", "DB CPU"), rng, inst)
            total_db = fsum(v for (i, n), v in db_time.items() if n == "DB time")
            cpu = fsum(v for (i, n), v in db_time.items() if n == "DB CPU")
            events["DB CPU"] = [None, cpu]
            classes["DB CPU"] = "CPU"
            for name, (count, micro) in events.items():
                rows.append({"event": name, "wait_class": classes[name],
                             "waits": None if count is None else round(count),
                             "time_s": _round(micro / 1e6),
                             "avg_ms": _round(micro / count / 1000) if count else None,
                             "pct_db_time": _round(100 * micro / total_db) if total_db else None})
            rows.sort(key=lambda r: -r["time_s"])
            rows = rows[:limit]
        return {"db": self.key, "range": rng.public(), "instance": instance,
                "columns": ["event", "wait_class", "waits", "time_s", "avg_ms", "pct_db_time"], "rows": rows}

    def top_sql(self, rng: Range, order="elapsed", limit=25) -> dict:
        rows = []
        if rng.lo is not None and rng.lo < rng.hi:
            v = self.store.views
            raw = self.store.rows(queries.top_sql(v, order), {"dbid": self.dbid, "lo": rng.lo, "hi": rng.hi})
            by_sql: dict = {}
            for sql_id, plan, execs, ela, cpu, gets, reads, nrows, module, schema in raw:
                r = by_sql.setdefault(sql_id, {"sql_id": sql_id, "plan_hash_values": [], "executions": 0,
                                               "elapsed_s": 0.0, "cpu_s": 0.0, "buffer_gets": 0, "disk_reads": 0,
                                               "rows_processed": 0, "module": module, "parsing_schema": schema})
                r["plan_hash_values"].append(plan)
                r["executions"] += execs or 0
                r["elapsed_s"] += (ela or 0) / 1e6
                r["cpu_s"] += (cpu or 0) / 1e6
                r["buffer_gets"] += gets or 0
                r["disk_reads"] += reads or 0
                r["rows_processed"] += nrows or 0
            key = {"elapsed": "elapsed_s", "cpu": "cpu_s", "gets": "buffer_gets", "reads": "disk_reads",
                   "executions": "executions", "rows": "rows_processed"}[order]
            rows = sorted(by_sql.values(), key=lambda r: (-r[key], r["sql_id"]))[:limit]
            texts = self._texts([r["sql_id"] for r in rows])
            db_time, _ = self._totals("sys_time_model", ("DB time",), rng, None)
            total_db = fsum(db_time.values()) / 1e6
            for r in rows:
                r["elapsed_per_exec_ms"] = _round(r["elapsed_s"] * 1000 / r["executions"]) if r["executions"] else None
                r["pct_db_time"] = _round(100 * r["elapsed_s"] / total_db) if total_db else None
                r["elapsed_s"], r["cpu_s"] = _round(r["elapsed_s"]), _round(r["cpu_s"])
                r["sql_text"] = (texts.get(r["sql_id"]) or "")[:400]
        return {"db": self.key, "range": rng.public(), "order_by": order,
                "columns": ["sql_id", "elapsed_s", "cpu_s", "executions", "elapsed_per_exec_ms", "buffer_gets",
                            "disk_reads", "rows_processed", "pct_db_time", "plan_hash_values", "module",
                            "parsing_schema", "sql_text"], "rows": rows}

    def _texts(self, sql_ids) -> dict:
        if not sql_ids:
            return {}
        rows = self.store.rows(queries.sql_texts(self.store.views), {"dbid": self.dbid, "sql_ids": list(sql_ids)})
        return {sql_id: _text(text) for sql_id, text, _ in rows}

    def sql(self, sql_id: str, rng: Range, max_points=2000) -> dict:
        texts = self._texts([sql_id])
        raw = self.store.rows(queries.sql_history(self.store.views),
                              {"dbid": self.dbid, "sql_id": sql_id, "lo": rng.lo or 0, "hi": rng.hi or 0}) \
            if rng.lo is not None else []
        if sql_id not in texts and not raw:
            raise NotFound(f"sql_id {sql_id!r} is not in the history of {self.key}", "sql_id")
        tl = self.timeline()
        per_plan: dict = {}
        module = None
        for instance_no, snap, plan, mod, execs, ela, cpu, gets, reads, nrows in raw:
            module = module or mod
            snap_obj = tl.by_id.get((instance_no, snap))
            if snap_obj is None:
                continue
            acc = per_plan.setdefault(plan, {}).setdefault(snap, [snap_obj, 0, 0, 0, 0, 0, 0])
            for k, x in enumerate((execs, ela, cpu, gets, reads, nrows), start=1):
                acc[k] += x or 0
        plans, lines = [], []
        for plan, per_snap in sorted(per_plan.items()):
            pts = [per_snap[k] for k in sorted(per_snap)]
            execs = sum(p[1] for p in pts)
            ela = sum(p[2] for p in pts)
            plans.append({"plan_hash_value": plan, "executions": execs, "elapsed_s": _round(ela / 1e6),
                          "elapsed_per_exec_ms": _round(ela / execs / 1000) if execs else None,
                          "first_seen": pts[0][0].time, "last_seen": pts[-1][0].time, "snapshots": len(pts)})
            for metric, idx, scale, unit, per_exec in (
                    ("elapsed_per_exec", 2, 1e-3, "ms/exec", True), ("cpu_per_exec", 3, 1e-3, "ms/exec", True),
                    ("buffer_gets_per_exec", 4, 1, "gets/exec", True), ("executions", 1, 1, "executions", False),
                    ("elapsed", 2, 1e-6, "s", False)):
                values = [(p[0].time, p[0].epoch, (p[idx] / p[1] if per_exec else p[idx]) * scale)
                          for p in pts if p[1] or not per_exec]
                values = analysis.lttb(values, max_points)
                lines.append({"metric": metric, "plan_hash_value": plan, "unit": unit,
                              "points": _points(values)})
        return {"db": self.key, "sql_id": sql_id, "range": rng.public(), "sql_text": texts.get(sql_id),
                "module": module, "plans": plans, "series": lines}

    def tablespaces(self, rng: Range, max_points=2000) -> dict:
        tl = self.timeline()
        when = {}
        for (instance_no, snap), s in sorted(tl.by_id.items()):
            when.setdefault(snap, s)
        raw = self.store.rows(queries.tablespaces(self.store.views),
                              {"dbid": self.dbid, "lo": rng.lo, "hi": rng.hi}) if rng.lo is not None else []
        per: dict = {}
        for snap, name, contents, block, size, maxsize, used in raw:
            if snap in when:
                per.setdefault((name, contents, block or 8192), []).append((when[snap], size, maxsize, used))
        rows, series = [], []
        for (name, contents, block), pts in sorted(per.items()):
            last = pts[-1]
            rows.append({"tablespace": name, "contents": contents, "used_mb": _round(last[3] * block / 1048576),
                         "size_mb": _round(last[1] * block / 1048576),
                         "max_mb": _round(last[2] * block / 1048576),
                         "used_pct_of_max": _round(100 * last[3] / last[2]) if last[2] else None,
                         "growth_mb": _round((last[3] - pts[0][3]) * block / 1048576)})
            for metric, idx in (("used", 3), ("size", 1), ("max", 2)):
                values = analysis.lttb([(p[0].time, p[0].epoch, p[idx] * block / 1048576) for p in pts], max_points)
                series.append({"tablespace": name, "metric": metric, "unit": "MB",
                               "points": _points(values)})
        return {"db": self.key, "range": rng.public(),
                "columns": ["tablespace", "contents", "used_mb", "size_mb", "max_mb", "used_pct_of_max",
                            "growth_mb"], "rows": rows, "series": series}

    def compare(self, a: Range, b: Range, instance="all") -> dict:
        lp_a, lp_b = self.load_profile(a, instance), self.load_profile(b, instance)
        ev_a, ev_b = self.top_events(a, instance, 15), self.top_events(b, instance, 15)
        profile = []
        for ra, rb in zip(lp_a["rows"], lp_b["rows"]):
            profile.append({"metric": ra["metric"], "a_per_second": ra["per_second"], "b_per_second": rb["per_second"],
                            "change_pct": _change(ra["per_second"], rb["per_second"]),
                            "a_per_transaction": ra["per_transaction"], "b_per_transaction": rb["per_transaction"]})
        by_a = {r["event"]: r for r in ev_a["rows"]}
        by_b = {r["event"]: r for r in ev_b["rows"]}
        events = []
        for name in list(by_a) + [n for n in by_b if n not in by_a]:
            ra, rb = by_a.get(name, {}), by_b.get(name, {})
            events.append({"event": name, "wait_class": ra.get("wait_class") or rb.get("wait_class"),
                           "a_time_s": ra.get("time_s"), "b_time_s": rb.get("time_s"),
                           "change_pct": _change(ra.get("time_s"), rb.get("time_s")),
                           "a_avg_ms": ra.get("avg_ms"), "b_avg_ms": rb.get("avg_ms"),
                           "a_pct_db_time": ra.get("pct_db_time"), "b_pct_db_time": rb.get("pct_db_time")})
        return {"db": self.key, "a": a.public(), "b": b.public(), "instance": instance,
                "load_profile": {"columns": ["metric", "a_per_second", "b_per_second", "change_pct",
                                             "a_per_transaction", "b_per_transaction"], "rows": profile},
                "top_events": {"columns": ["event", "wait_class", "a_time_s", "b_time_s", "change_pct", "a_avg_ms",
                                           "b_avg_ms", "a_pct_db_time", "b_pct_db_time"], "rows": events}}


class History:
    """Every database of every configured store."""

    def __init__(self, stores: dict):
        self.stores = stores

    def databases(self) -> list[Database]:
        out = []
        for store in self.stores.values():
            def load(store=store):
                rows = store.rows(queries.databases(store.views))
                grouped: dict = {}
                for r in rows:
                    grouped.setdefault(r[0], []).append(r)
                return [Database(store, dbid, rs) for dbid, rs in grouped.items()]
            out.extend(store.cached(("databases",), store.settings.snapshot_ttl * 10, load))
        return out

    def database(self, key: str) -> Database:
        alias, _, dbid = key.rpartition(".")
        store = self.stores.get(alias)
        if store is None and not alias and len(self.stores) == 1:
            store = next(iter(self.stores.values()))  # a bare DBID is enough with one target
        if store is not None:
            for db in self.databases():
                if db.store is store and str(db.dbid) == dbid:
                    return db
        raise NotFound(f"unknown database {key!r}; see /api/v1/dbs", "db")


def _seconds(value) -> float:
    """SNAP_TIMEZONE: an INTERVAL (timedelta) on Oracle, seconds on SQLite, NULL before 11.2.0.2."""
    if value is None:
        return 0.0
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def _offset(snap) -> float:
    return snap.end.replace(tzinfo=timezone.utc).timestamp() - snap.epoch if snap else 0.0


def _points(values) -> list[list]:
    """[[time, value]] from (time, epoch, value) triples, values rounded as _round does (inlined: a call per value
    is a tenth of a full-resolution series' time)."""
    out = []
    for t, _, v in values:
        if v is not None:
            v = round(v * 10000) / 10000 if -1e6 < v < 1e6 else round(v)
        out.append([t, v])
    return out


def _round(x):
    """Four decimals (as round(x, 4), ten times faster: answers hold thousands of values), whole above a million."""
    if x is None:
        return None
    return round(x * 10000) / 10000 if -1e6 < x < 1e6 else round(x)


def _change(a, b):
    return _round(100 * (b - a) / a) if a not in (None, 0) and b is not None else None


def _text(value):
    """A CLOB arrives as a LOB object from Oracle (unless fetched as text) and as str from SQLite."""
    return value.read() if hasattr(value, "read") else value
