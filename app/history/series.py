"""The series question: one or more series over a range, per instance or RAC combined, per second, per transaction
or raw, downsampled. The whole pipeline in one place: fetch each term from the store once, evaluate each series per
instance (docs/awr-rules.md §3-§11), combine across instances, downsample (LTTB), and shape the points.
"""
from datetime import timedelta, timezone

from app import analysis
from app.errors import NotFound
from app.history import catalog
from app.history.catalog import IO_FIELDS, Spec, Term
from app.history.database import Database, Range, offset
from app.history.numbers import drawn, rates
from app.store import queries
from app.store.schema import IO_COLUMNS

TXN = ("user commits", "user rollbacks")  # a transaction, as the AWR report counts them


def compute(db: Database, names, rng: Range, instance="all", rate="per_second", max_points=2000) -> dict:
    """The series over the intervals (begin_snap, end_snap] (docs/awr-rules.md §12); each series' points as columns,
    (times, values), for numbers.shaped."""
    specs = [catalog.spec(db, n) for n in names]
    each = instance == "each"
    inst = None if each else db.instance(instance)
    span = db.timeline().span(rng.lo, rng.hi, inst) if rng.lo is not None else {}
    expected = [i for i, rows in span.items() if rows]  # the instances the range holds: a combined point sums these
    fetcher = Fetcher(db.store, db.dbid, rng.lo, rng.hi) if rng.lo is not None else None
    out = []
    for spec in specs:
        if spec.kind == "detail":
            per, how = _detail(db, spec, rng, inst)
        elif rng.lo is None:
            per, how = {}, "sum_of_ratios"
        else:
            txn = _terms(db, "sysstat", TXN) if rate == "per_txn" and spec.kind == "cumulative" else ()
            per, how = evaluate(spec, fetcher, span, rate, txn)
        if each:
            groups = [(i, per[i], {}) for i in sorted(per)]
        elif inst is not None:
            groups = [(inst, per.get(inst, []), {})]
        else:
            groups = [("all", analysis.combine(per, how), analysis.absent(per, expected))]
        for label, group, absent in groups:
            if 3 <= max_points < len(group):
                columns = drawn(analysis.lttb(analysis.values_of(group, spec.scale), max_points))
            else:
                columns = rates(group, spec.scale)
            out.append({**spec.public(), "unit": spec.unit_for(rate), "instance": label,
                        "rate": rate if spec.kind == "cumulative" else None,
                        "points_total": len(group), "points": columns,
                        "partial": _partial(group, absent, len(expected), columns[0])})
    markers = db.timeline().markers(rng.lo, rng.hi, inst) if rng.lo is not None else {}
    return {"db": db.key, "range": rng.public(), "instance": instance, "series": out, "markers": markers}


def _partial(group, absent: dict, expected: int, times: list) -> list[dict]:
    """The drawn combined points that sum fewer instances than the range holds: their time, how many instances
    they sum, and the ones without a point there (down, no snapshot, or an interval across a restart: §11)."""
    if not absent:
        return []
    times = set(times)
    return [{"time": p.time, "instances": expected - len(absent[p.key]), "missing": absent[p.key]}
            for p in group if p.key in absent and p.time in times]


def wait_classes(db: Database, rng: Range, instance="all", max_points=2000) -> dict:
    """Average active sessions by wait class: DB CPU and every non-idle class, with the CPU count."""
    cat = catalog.of(db)
    names = ["derived:db_cpu"] + sorted(n for n in cat if n.startswith("wait_class:"))
    answer = compute(db, [n for n in names if n in cat], rng, instance, "per_second", max_points)
    cpus = compute(db, ["derived:num_cpus"], rng, instance, "per_second", max_points) \
        if "derived:num_cpus" in cat else {"series": []}
    answer["cpu_count"] = cpus["series"]
    return answer


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
    """Fetches each term once per request: {instance: {snap_id: value}}."""

    def __init__(self, store, dbid: int, lo: int, hi: int):
        self.store, self.params = store, {"dbid": dbid, "lo": lo, "hi": hi}
        self.memo: dict = {}

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
            for inst, snap, value in self._rows(queries.counter_series(v, term.view), item_id=term.item):
                if inst in out:  # (not setdefault: it would build a dict per row, thousands per answer)
                    out[inst][snap] = value
                else:
                    out[inst] = {snap: value}
        elif term.view == "system_event":
            col = 3 if term.field == "time" else 2
            for row in self._rows(queries.event_series(v), item_id=term.item):
                out.setdefault(row[0], {})[row[1]] = row[col]
        elif term.view == "wait_class":
            pairs: dict = {}  # (class, instance) -> {snap_id: value}: one lookup per row, no empty dict per row
            for inst, snap, wait_class, micro in self._rows(queries.wait_class_series(v, self.store.class_totals)):
                per = pairs.get((wait_class, inst))
                if per is None:
                    per = pairs[(wait_class, inst)] = {}
                per[snap] = micro
            for (wait_class, inst), per in pairs.items():
                self.memo.setdefault(("wait_class", wait_class, "value"), {})[inst] = per
            return self.memo.get(("wait_class", term.item, "value"), {})
        elif term.view in queries.IO_VIEWS:
            idx = [2 + IO_COLUMNS.index(c) for c in IO_FIELDS[term.field][0]]
            for row in self._rows(queries.io_series(v, term.view), item_id=term.item):
                out.setdefault(row[0], {})[row[1]] = sum(row[i] or 0 for i in idx)
        elif term.view == "sysmetric_summary":
            for inst, snap, average, _ in self._rows(queries.metric_series(v), item_id=term.item):
                out.setdefault(inst, {})[snap] = average
        else:
            raise ValueError(term.view)
        return out


def evaluate(spec: Spec, fetcher: Fetcher, span: dict[int, list], rate: str, txn_terms=()) -> tuple[dict[int, list], str]:
    """Per-instance points of one series over each instance's span (Timeline.span), and how to combine them."""

    def summed(terms, inst):
        return analysis.add_counters(*(fetcher.values(t).get(inst, {}) for t in terms))

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
        for inst, rows in span.items():
            values = fetcher.values(spec.terms[0]).get(inst, {})
            if len(spec.terms) == 2:  # derived per second: per-txn metric x transactions per second
                tps = fetcher.values(spec.terms[1]).get(inst, {})
                values = {k: x * tps[k] for k, x in values.items() if tps.get(k) is not None and x is not None}
            # a reading is taken at each snapshot of [begin, end]; Oracle's rate at a snapshot is the average over
            # the interval ending there, so the range's first snapshot has none of its intervals (§8, §9, §12)
            per[inst] = analysis.reading_points(values, rows if spec.kind == "reading" else rows[1:])
        return per, spec.how
    raise ValueError(spec.kind)
