"""The series question: one or more series over a range, per instance or RAC combined, per second, per transaction
or raw, downsampled. The whole pipeline in one place: fetch each term from the store once, evaluate each series per
instance (docs/awr-rules.md §3-§11), combine across instances, downsample (LTTB), and shape the points.

A range with more intervals than max_points is read in buckets instead (docs/awr-rules.md §21): counters at the
bucket boundaries only (Timeline.sampled), readings and Oracle's rates as running sums there (queries.running_sums),
so the rows fetched stay about max_points per instance and term, however long the range.
"""

import itertools
from datetime import timedelta, timezone

from app import analysis
from app.errors import NotFound
from app.history import catalog
from app.history.catalog import IO_FIELDS, Spec, Term
from app.history.database import Database, Range, offset
from app.history.intervals import snap_ids
from app.history.numbers import drawn, rates, round4, rounded
from app.store.awr import queries
from app.store.awr.views import IO_COLUMNS

TXN = ("user commits", "user rollbacks")  # a transaction, as the AWR report counts them


def compute(db: Database, names, rng: Range, instance="all", rate="per_second", max_points=2000, hours=False) -> dict:
    """The series over the intervals (begin_snap, end_snap] (docs/awr-rules.md §12); each series' points as columns,
    (times, values), for numbers.shaped. With `hours`, one point per local hour: the range read in hourly buckets
    (Timeline.hour_ends, §32), max_points aside."""
    specs = [catalog.spec(db, n) for n in names]
    each = instance == "each"
    inst = None if each else db.instance(instance, each=True)
    span = db.timeline().span(rng.lo, rng.hi, inst) if rng.lo is not None else {}
    expected = [i for i, rows in span.items() if rows]  # the instances the range holds: a combined point sums these
    # readings and Oracle's rates are read at every snapshot of the range, a merged one too (§8, §9, §12)
    every = db.timeline().between(rng.lo, rng.hi, inst) if rng.lo is not None else {}
    if hours and rng.lo is not None:
        full, bounds = span, db.timeline().hour_ends(rng.lo, rng.hi, inst)
    else:
        full, bounds = span, db.timeline().sampled(span, max_points)
    if bounds is not None:
        span = bounds
    totals: dict = {}  # (kind, instance label) -> points_total of a bucketed series
    fetcher = Fetcher(db.store, db.dbid, rng.lo, rng.hi, bounds and snap_ids(bounds)) if rng.lo is not None else None
    # one instance's points drawn as they are: a counter per second is computed as columns in one pass
    alone = (each or inst is not None or len(span) == 1) and all(
        max_points == 0 or len(r) <= max_points for r in span.values()
    )
    out = []
    for spec in specs:
        direct = alone and rng.lo is not None and _per_second(spec, rate)
        if direct:
            per = {
                i: analysis.counter_rates(fetcher.summed(spec.terms, i), rows, spec.scale) for i, rows in span.items()
            }
        elif spec.kind == "detail":
            per, how = _detail(db, spec, rng, inst)
        elif rng.lo is None:
            per, how = {}, "sum_of_ratios"
        else:
            txn = _terms(db, "sysstat", TXN) if rate == "per_txn" and spec.kind == "cumulative" else ()
            per, how = evaluate(spec, fetcher, span, rate, txn, every)
        if each:
            groups = [(i, per[i], {}) for i in sorted(per)]
        elif inst is not None:
            groups = [(inst, per.get(inst, ([], []) if direct else []), {})]
        elif direct:  # a single instance: combining its points changes none of them
            groups = [("all", next(iter(per.values())), {})]
        else:
            groups = [("all", analysis.combine(per, how), analysis.absent(per, expected))]
        for label, group, absent in groups:
            if direct:
                columns = group[0], rounded(group[1])
            elif 3 <= max_points < len(group):
                columns = drawn(analysis.lttb(analysis.values_of(group, spec.scale), max_points))
            else:
                columns = rates(group, spec.scale)
            total = len(columns[0])
            if bounds is not None and spec.kind != "detail" and not hours:  # a band's hours count no points_total
                kind = spec.kind if spec.kind in ("reading", "rate") else "interval"
                if (kind, label) not in totals:
                    totals[(kind, label)] = _unbucketed(full if kind == "interval" else every, kind, label, rng.lo)
                total = totals[(kind, label)]
            out.append(
                {
                    **spec.public(),
                    "unit": spec.unit_for(rate),
                    "instance": label,
                    "rate": rate if spec.kind == "cumulative" else None,
                    "points_total": total,
                    "points": columns,
                    "partial": _partial(group, absent, len(expected), columns[0]),
                }
            )
    markers = db.timeline().markers(rng.lo, rng.hi, inst) if rng.lo is not None else {}
    return {"db": db.key, "range": rng.public(), "instance": instance, "series": out, "markers": markers}


def _per_second(spec: Spec, rate: str) -> bool:
    """A counter, or a sum of counters, per second: points from deltas over seconds (docs/awr-rules.md §3-§8)."""
    return (spec.kind == "cumulative" and rate == "per_second") or (spec.kind == "ratio" and spec.den == ("seconds",))


def _unbucketed(span: dict[int, list], kind: str, label, lo: int) -> int:
    """The points a bucketed series would have at full resolution, from the snapshot list (a value missing from a
    view is not known without reading it): the intervals not across a restart (kind "interval"), the snapshots of a
    reading, or their intervals for an Oracle rate (docs/awr-rules.md §12), counted once per key over the instances
    drawn; `span` is Timeline.span's for the intervals, Timeline.between's for a reading or a rate (whose snapshots
    after `lo`, begin_snap, are its points)."""
    keys = set()
    for inst, rows in span.items():
        if label in ("all", inst):
            if kind in ("reading", "rate"):
                keys.update(s.snap_id for s in rows if kind == "reading" or s.snap_id > lo)
            else:
                keys.update(b.snap_id for a, b in itertools.pairwise(rows) if b.continues(a))
    return len(keys)


def _partial(group, absent: dict, expected: int, times: list) -> list[dict]:
    """The drawn combined points that sum fewer instances than the range holds: their time, how many instances
    they sum, and the ones without a point there (down, no snapshot, or an interval across a restart: §11)."""
    if not absent:
        return []
    times = set(times)
    return [
        {"time": p.time, "instances": expected - len(absent[p.key]), "missing": absent[p.key]}
        for p in group
        if p.key in absent and p.time in times
    ]


def wait_classes(db: Database, rng: Range, instance="all", max_points=2000) -> dict:
    """Average active sessions by wait class: DB CPU, CPU Wait (cpu_wait) and every non-idle class, with the CPU
    count."""
    cat = catalog.of(db)
    names = ["derived:db_cpu", *sorted(n for n in cat if n.startswith("wait_class:"))]
    run_queue = "derived:aas" in cat and "derived:db_cpu" in cat  # DB time, asked with the rest: one read
    asked = [n for n in names if n in cat] + (["derived:aas"] if run_queue else [])
    answer = compute(db, asked, rng, instance, "per_second", max_points)
    if run_queue:
        totals = [s for s in answer["series"] if s["name"] == "derived:aas"]
        answer["series"] = [s for s in answer["series"] if s["name"] != "derived:aas"]
        after_cpu = sum(s["name"] == "derived:db_cpu" for s in answer["series"])
        answer["series"][after_cpu:after_cpu] = [cpu_wait(t, answer["series"]) for t in totals]
    cpus = (
        compute(db, ["derived:num_cpus"], rng, instance, "per_second", max_points)
        if "derived:num_cpus" in cat
        else {"series": []}
    )
    answer["cpu_count"] = cpus["series"]
    return answer


CPU_WAIT = "cpu_wait"


def cpu_wait(total: dict, stacked: list[dict]) -> dict:
    """CPU Wait (docs/awr-rules.md §16): at each point, DB time (derived:aas, `total`) less DB CPU and every class's
    foreground waits (`stacked`, of the same instance), where positive: sessions ready to run, waiting for a CPU (the
    run queue), which DB time and ASH (as ON CPU) count and no wait class does. A class without a point there waited
    nothing; a point any part of which is unknown is unknown."""
    parts = [dict(zip(*s["points"], strict=True)) for s in stacked if s["instance"] == total["instance"]]
    times, values = total["points"]
    out = []
    for t, v in zip(times, values, strict=True):
        known = [p.get(t, 0.0) for p in parts]
        out.append(None if v is None or None in known else max(0.0, v - sum(known)))
    return {
        **total,
        "name": CPU_WAIT,
        "label": "CPU Wait",
        "description": "DB time less DB CPU and the foreground waits, where positive: the run queue (§16)",
        "points": (times, [None if x is None else round4(x) for x in out]),
    }


def _terms(db, view, names):
    cat = catalog.of(db)
    missing = [n for n in names if f"{view}:{n}" not in cat]
    if missing:
        raise NotFound(f"this database has no {view} statistic {missing[0]!r}", "name")
    return tuple(cat[f"{view}:{n}"].terms[0] for n in names)


def _detail(db, spec, rng: Range, inst):
    """Per-minute sysmetric history: points keyed by minute, combined like the summary metric."""
    if rng.lo is None:
        return {}, spec.how
    tz = offset(db.timeline().newest())
    rows = db.rows(queries.metric_detail_series(db.store.views), lo=rng.lo, hi=rng.hi, item_id=spec.terms[0].item)
    per: dict[int, list] = {}
    for instance, end_time, value in rows:
        if (inst is not None and instance != inst) or value is None:
            continue
        moment = analysis.as_datetime(end_time).replace(tzinfo=timezone(timedelta(seconds=tz)))
        epoch = moment.timestamp()
        per.setdefault(instance, []).append(analysis.Point(int(epoch // 60), epoch, analysis.iso(moment), value))
    return per, spec.how


class Fetcher:
    """Fetches each term once per request: {instance: {snap_id: value}}, at every snapshot of [lo, hi], or only at
    `chosen` ones (a long range's bucket boundaries, docs/awr-rules.md §21)."""

    def __init__(self, store, dbid: int, lo: int, hi: int, chosen: list[int] | None = None):
        # more than MOST_CHOSEN (a max_points of tens of thousands): every snapshot's row, at most about twice as many
        lists = queries.in_lists(chosen) if chosen and len(chosen) <= queries.MOST_CHOSEN else {}
        self.store, self.params = store, {"dbid": dbid, "lo": lo, "hi": hi, **lists}
        self.chunks = len(lists)  # 0: every snapshot
        self.bucketed = chosen is not None
        self.memo: dict = {}

    def sums(self, terms) -> dict[int, dict[int, tuple[float, float]]]:
        """The running sums of a reading or an Oracle rate at the chosen snapshots (queries.running_sums), per
        instance; two terms: a per-transaction metric x transactions per second (docs/awr-rules.md §9)."""
        key = ("sums", *terms)
        if key not in self.memo:
            out: dict = {}
            stmt = queries.running_sums(self.store.views, terms[0].view, self.chunks, len(terms) == 2)
            binds = {"item_id2": terms[1].item} if len(terms) == 2 else {}
            for inst, snap, num, den in self._rows(stmt, item_id=terms[0].item, **binds):
                out.setdefault(inst, {})[snap] = (num, den)
            self.memo[key] = out
        return self.memo[key]

    def summed(self, terms, inst: int) -> dict[int, float]:
        """One instance's sum of counters (analysis.add_counters), {snap_id: value}."""
        return analysis.add_counters(*(self.values(t).get(inst, {}) for t in terms))

    def values(self, term: Term) -> dict[int, dict[int, float]]:
        key = (term.view, term.item, term.field)
        if key not in self.memo:
            self.memo[key] = self._load(term)
        return self.memo[key]

    def _rows(self, stmt, **params):
        return self.store.rows(stmt, {**self.params, **params})

    def _load(self, term: Term):
        v = self.store.views
        out: dict[int, dict[int, float]] = {}
        if term.view in queries.COUNTER_VIEWS:
            inst_of = per = None  # the rows come instance by instance: one lookup per instance, not per row
            for inst, snap, value in self._rows(queries.counter_series(v, term.view, self.chunks), item_id=term.item):
                if inst != inst_of:
                    inst_of, per = inst, out.setdefault(inst, {})
                per[snap] = value
        elif term.view == "system_event":
            col = 3 if term.field == "time" else 2
            for row in self._rows(queries.event_series(v, self.chunks), item_id=term.item):
                out.setdefault(row[0], {})[row[1]] = row[col]
        elif term.view == "wait_class":
            pairs: dict = {}  # (class, instance) -> {snap_id: value}: one lookup per row, no empty dict per row
            stmt = queries.wait_class_series(v, self.store.class_totals, self.chunks)
            for inst, snap, wait_class, micro in self._rows(stmt):
                per = pairs.get((wait_class, inst))
                if per is None:
                    per = pairs[(wait_class, inst)] = {}
                per[snap] = micro
            for (wait_class, inst), per in pairs.items():
                self.memo.setdefault(("wait_class", wait_class, "value"), {})[inst] = per
            return self.memo.get(("wait_class", term.item, "value"), {})
        elif term.view in queries.IO_VIEWS:
            idx = [2 + IO_COLUMNS.index(c) for c in IO_FIELDS[term.field][0]]
            for row in self._rows(queries.io_series(v, term.view, self.chunks), item_id=term.item):
                out.setdefault(row[0], {})[row[1]] = sum(row[i] or 0 for i in idx)
        elif term.view == "sysmetric_summary":
            for inst, snap, average, _ in self._rows(queries.metric_series(v), item_id=term.item):
                out.setdefault(inst, {})[snap] = average
        else:
            raise ValueError(term.view)
        return out


def evaluate(
    spec: Spec, fetcher: Fetcher, span: dict[int, list], rate: str, txn_terms=(), every: dict | None = None
) -> tuple[dict[int, list], str]:
    """Per-instance points of one series over each instance's span (Timeline.span), and how to combine them; a
    reading or an Oracle rate at full resolution at `every` snapshot of the range (Timeline.between) instead."""

    summed = fetcher.summed
    per: dict[int, list] = {}
    if spec.kind == "cumulative":
        for inst, rows in span.items():
            txn = None
            if rate == "per_txn":
                txn = analysis.interval_deltas(summed(txn_terms, inst), rows)
            per[inst] = analysis.counter_points(summed(spec.terms, inst), rows, rate, txn)
        return per, "ratio_of_sums" if rate == "per_txn" else "sum_of_ratios"
    if spec.kind == "ratio":
        for inst, rows in span.items():
            num = summed(spec.terms, inst)
            if spec.den == ("seconds",):
                per[inst] = analysis.counter_points(num, rows, "per_second")
            else:
                per[inst] = analysis.ratio_points(num, summed(spec.den, inst), rows)
        return per, "sum_of_ratios" if spec.den == ("seconds",) else "ratio_of_sums"
    if spec.kind in ("reading", "rate"):
        # a reading is taken at each snapshot of [begin, end]; Oracle's rate at a snapshot is the average over the
        # interval ending there, so the range's first snapshot, begin_snap, has none of its intervals: an instance
        # without a snapshot there starts with one of the range's (§8, §9, §12)
        for inst, rows in span.items():
            first = 1 if spec.kind == "rate" and rows and rows[0].snap_id == fetcher.params["lo"] else 0
            if fetcher.bucketed:  # the mean of the rows in each bucket (§21)
                per[inst] = analysis.bucket_means(fetcher.sums(spec.terms).get(inst, {}), rows, first)
                continue
            values = fetcher.values(spec.terms[0]).get(inst, {})
            if len(spec.terms) == 2:  # derived per second: per-txn metric x transactions per second
                tps = fetcher.values(spec.terms[1]).get(inst, {})
                values = {k: x * tps[k] for k, x in values.items() if tps.get(k) is not None and x is not None}
            per[inst] = analysis.reading_points(values, (rows if every is None else every[inst])[first:])
        return per, spec.how
    raise ValueError(spec.kind)
