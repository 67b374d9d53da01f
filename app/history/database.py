"""One database of a store: its identity, its timeline of snapshots, and ranges resolved against it.

The questions asked of a database are modules of this package, each taking a Database and a resolved Range.
"""

import contextvars
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from app import analysis
from app.errors import ApiError, BadParameter, MissingGrant, NotFound, NotGranted
from app.store.awr import queries
from app.units import DAY

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
    window: tuple[float, float] | None = None  # a time range's (from, to), epoch seconds: ASH reads it by sample time
    live: tuple[str, str | None] | None = None  # a window of the live buffer: (its now, its oldest sample), ISO 8601

    def public(self):
        return {"begin_snap": self.lo, "end_snap": self.hi, "from": self.start, "to": self.end}


ROLES = ("start", "end", "begin_snap", "end_snap")


class BadRange(BadParameter):
    """A range that cannot be resolved. The message names the range's parts by role ({start}, {end}, {begin_snap},
    {end_snap}); `named()` gives it in the caller's own words, e.g. a request's parameter names."""

    def __init__(self, template: str, role: str):
        self.template, self.role = template, role
        super().__init__(template.format_map({r: r for r in ROLES}), role)

    def named(self, names: dict) -> BadParameter:
        return BadParameter(self.template.format_map(names), names[self.role])


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
            instances.setdefault(
                r[1], {"instance_number": r[1], "instance_name": r[4], "host_name": r[5], "startups": []}
            )["startups"].append(analysis.as_datetime(r[2]))
        self.instances = [instances[k] for k in sorted(instances)]
        self._startups = rows

    def versions(self) -> dict[int, list[tuple]]:
        """Per instance, its startups in order, each with the VERSION of DBA_HIST_DATABASE_INSTANCE: (startup, version)
        (docs/awr-rules.md §23)."""
        out: dict = {}
        for r in self._startups:
            out.setdefault(r[1], []).append((analysis.as_datetime(r[2]), r[6]))
        return {i: sorted(v, key=lambda x: x[0]) for i, v in out.items()}

    def rows(self, stmt, **params) -> list[tuple]:
        """The rows of one statement about this database (`dbid` bound)."""
        return self.store.rows(stmt, {"dbid": self.dbid, **params})

    def timeline(self) -> analysis.Timeline:
        settings = self.store.settings

        def load():
            bound = settings.row_cap
            rows = self.rows(queries.snapshots(self.store.views, bound))
            if len(rows) >= bound:  # the newest `bound` rows: the oldest snapshot read may lack some instances
                oldest = min(r[1] for r in rows)
                rows = [r for r in rows if r[1] != oldest]
            imported = self.store.imported  # where an interval may be unreported (docs/awr-rules.md §35)
            return analysis.Timeline(
                [analysis.make_snap(r[1], r[0], r[2], r[4], r[5], _seconds(r[6]), imported and r[3]) for r in rows],
                settings.min_interval,
            )

        return self.store.cached(("timeline", self.dbid), settings.snapshot_ttl, load)

    def containers(self) -> dict[int, str]:
        """Container names by CON_DBID in a CDB: each PDB's, and CDB$ROOT for the root's rows, whose CON_DBID is the
        DBID (docs/awr-rules.md §15). Empty in a non-CDB, where no row needs one."""

        def load():
            if self.store.source == "statspack":  # Statspack keeps a database's own statistics, not its containers'
                return {}
            names = dict(self.rows(queries.containers(self.store.views)))
            if names:
                names.setdefault(self.dbid, "CDB$ROOT")
            return names

        return self.store.cached(("containers", self.dbid), self.store.settings.snapshot_ttl, load)

    def tz(self) -> timezone:
        """The database's time zone (of its newest snapshot)."""
        return timezone(timedelta(seconds=offset(self.timeline().newest())))

    def summary(self) -> dict:
        tl = self.timeline()
        first, last = tl.oldest(), tl.newest()
        tz = timezone(timedelta(seconds=offset(last)))
        instances = [
            {**i, "startups": [analysis.iso(s.replace(tzinfo=tz)) for s in i["startups"]]} for i in self.instances
        ]
        return {
            "id": self.key,
            "target": self.store.alias,
            "dbid": self.dbid,
            "db_name": self.name,
            "version": self.version,
            "platform": self.platform,
            "rac": self.rac,
            "instances": instances,
            "snapshots": {
                "first_snap": first and min(tl.snap_ids),
                "last_snap": last and max(tl.snap_ids),
                "from": first and first.time,
                "to": last and last.time,
                "count": len(tl.snap_ids),
                "interval_minutes": round(tl.step / 60),
            },
            **self.store.history_source(),
        }

    def instance(self, value, each: bool = False) -> int | None:
        """'all' -> None, or a known instance number (400 otherwise, naming the choices: `each` too where the
        endpoint takes it)."""
        if value in (None, "all"):
            return ALL_INSTANCES
        known = [i["instance_number"] for i in self.instances]
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = None
        if number not in known:
            raise BadParameter(
                f"instance must be all{', each' if each else ''} or one of {', '.join(map(str, known))}; got {value!r}",
                "instance",
            )
        return number

    def resolve(
        self,
        start: datetime | None = None,
        end: datetime | None = None,
        begin_snap: int | None = None,
        end_snap: int | None = None,
        default_days: float = 7,
        max_days: float = 400,
    ) -> Range:
        """A time range or a snapshot range, checked, as snapshot ids. A date-time without an offset is in the
        database's time zone (docs/awr-rules.md §12, §17). Raises BadRange."""
        tl = self.timeline()
        newest = tl.newest()
        if newest is None:
            return Range(None, None, None, None, False)
        if begin_snap is not None or end_snap is not None:
            lo = begin_snap if begin_snap is not None else min(tl.snap_ids)
            hi = end_snap if end_snap is not None else max(tl.snap_ids)
            if lo > hi:
                raise BadRange(f"{{begin_snap}} {lo} is after {{end_snap}} {hi}", "begin_snap")
            found = tl.with_ids(lo, hi)
            if found is None:
                raise BadRange(
                    f"no snapshot between {{begin_snap}} {lo} and {{end_snap}} {hi}; this database has "
                    f"snap_id {min(tl.snap_ids)}..{max(tl.snap_ids)}",
                    "begin_snap",
                )
            *ids, t0, t1 = found
        else:
            t1 = self._local(end).timestamp() if end else newest.epoch
            t0 = self._local(start).timestamp() if start else t1 - default_days * DAY
            if t0 > t1:
                raise BadRange("{start} must be before {end}", "start")
            oldest = tl.oldest()
            if t1 < oldest.epoch or t0 > newest.epoch:
                raise BadRange(
                    f"the range is outside this database's history, which runs from {oldest.time} to {newest.time}",
                    "end" if t1 < oldest.epoch else "start",
                )
            ids = tl.ending_after(t0, t1)
        if t1 - t0 > max_days * DAY:
            raise BadRange(
                f"the range is wider than {max_days:g} days; narrow it",
                "start" if begin_snap is None and end_snap is None else "begin_snap",
            )
        tz = timezone(timedelta(seconds=offset(newest)))
        start_s = analysis.iso(datetime.fromtimestamp(t0, tz))
        end_s = analysis.iso(datetime.fromtimestamp(t1, tz))
        window = (t0, t1) if begin_snap is None and end_snap is None else None
        # closed: its answer can never change; a store of imported reports can fill a gap at any time (§35)
        closed = t1 < newest.epoch and not self.store.imported
        if ids is None:
            return Range(None, None, start_s, end_s, closed, window)
        return Range(*ids, start_s, end_s, closed, window)

    def _local(self, moment: datetime) -> datetime:
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=self.tz())


class History:
    """Every database of every configured store. One target's failure is that target's: the others answer."""

    def __init__(self, stores: dict):
        self.stores = stores

    def survey(self) -> tuple[list[Database], dict[str, ApiError]]:
        """Every database of every target, the targets asked at once (so the slowest bounds the answer, not their
        sum), and the error of each target that could not be asked."""
        stores = list(self.stores.values())
        if len(stores) == 1:
            results = [self._try(stores[0])]
        else:
            with ThreadPoolExecutor(max_workers=len(stores), thread_name_prefix="survey") as pool:
                # each in a copy of this request's context: show_sql's log sees every target's statements
                results = list(pool.map(lambda s: contextvars.copy_context().run(self._try, s), stores))
        found = [db for dbs, _ in results for db in dbs]
        return found, {store.alias: exc for store, (_, exc) in zip(stores, results, strict=True) if exc is not None}

    def _try(self, store) -> tuple[list[Database], ApiError | None]:
        try:
            return self._databases(store), None
        except ApiError as exc:
            return [], exc

    def database(self, key: str) -> Database:
        """One database by its id (`target.dbid`, asked of its own target only: a request never waits on another
        target), or by its bare DBID or DB_NAME where that names one database of every target's (asked of all)."""
        alias, _, dbid = key.rpartition(".")
        store = self.stores.get(alias)
        if store is None and not alias and len(self.stores) == 1:
            store = next(iter(self.stores.values()))  # a bare DBID is enough with one target
        if store is not None:
            for db in self._databases(store):
                if str(db.dbid) == dbid:
                    return db
        if not alias:
            found, _ = self.survey()
            named = [db for db in found if key.upper() in (str(db.dbid), db.name.upper())]
            if len(named) == 1:
                return named[0]
            if named:
                raise NotFound(
                    f"{key!r} names {len(named)} databases ({', '.join(db.key for db in named)}); use one of their ids",
                    "db",
                )
        raise NotFound(f"unknown database {key!r}; see /api/v1/dbs", "db")

    @staticmethod
    def _databases(store) -> list[Database]:
        """The databases of a store: those its AWR views hold, and those only Statspack holds where the store reads
        it (Store.keeps_statspack), or where AWR may not be read (app/store/licence.py); a database read from
        Statspack has its store reading Statspack (Store.reading)."""

        def load():
            found = {dbid: (store, rows) for dbid, rows in _by_dbid(store.rows(queries.databases(store.views))).items()}
            if store.keeps_statspack():
                statspack = store.reading("statspack")
                try:
                    kept = _by_dbid(statspack.rows(queries.databases(statspack.views)))
                except (MissingGrant, NotGranted):  # no Statspack, or none this user may read
                    kept = {}
                awr = store.history_source().get("source") == "awr"
                found |= {dbid: (statspack, rows) for dbid, rows in kept.items() if not (awr and dbid in found)}
            return [Database(source, dbid, rows) for dbid, (source, rows) in found.items()]

        return store.cached(("databases",), store.settings.snapshot_ttl * 10, load)


def _by_dbid(rows: list) -> dict[int, list]:
    grouped: dict = {}
    for r in rows:
        grouped.setdefault(r[0], []).append(r)
    return grouped


def _seconds(value) -> float:
    """SNAP_TIMEZONE: an INTERVAL (timedelta) on Oracle, seconds on SQLite, NULL before 11.2.0.2."""
    if value is None:
        return 0.0
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def offset(snap) -> float:
    """Seconds east of UTC of a snapshot's END_INTERVAL_TIME (0 without one)."""
    return snap.end.replace(tzinfo=UTC).timestamp() - snap.epoch if snap else 0.0
