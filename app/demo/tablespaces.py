"""The tablespaces of a demo database (DBA_HIST_TABLESPACE) and their space usage (DBA_HIST_TBSPC_SPACE_USAGE):
one row per database and snapshot (no instance), sizes in blocks; the data grows, AUDIT is purged weekly, TEMP
fills during the nightly batch, and a tablespace autoextends as it fills."""

from app.demo.workload import BATCH_END, BATCH_START, GIB, STEP
from app.units import DAY

TABLESPACES = (
    ("SYSTEM", "PERMANENT", 1.1, 0.0002),
    ("SYSAUX", "PERMANENT", 2.4, 0.004),
    ("UNDOTBS1", "UNDO", 3.0, 0.0),
    ("TEMP", "TEMPORARY", 0.5, 0.0),
    ("USERS", "PERMANENT", 0.1, 0.0),
    ("APP_DATA", "PERMANENT", 140.0, 0.35),
    ("APP_INDEX", "PERMANENT", 60.0, 0.16),
    ("AUDIT", "PERMANENT", 12.0, 0.2),
)


class Tablespaces:
    """The tablespaces of one database, and their sizes so far."""

    def __init__(self, db):
        self.db = db
        names = list(TABLESPACES) + ([("UNDOTBS2", "UNDO", 3.0, 0.0)] if db.rac else [])
        self.spaces = [
            (k, n, c, gb * (4 if db.rac else 1), grow * (4 if db.rac else 1))
            for k, (n, c, gb, grow) in enumerate(names)
        ]
        self.sizes = {}

    def rows(self):
        """The DBA_HIST_TABLESPACE rows."""
        return [(self.db.dbid, ts, name, contents, self.db.block_size) for ts, name, contents, _, _ in self.spaces]

    def usage(self, snap_id, t, k):
        """The space usage rows of snapshot `snap_id`, taken at `t`, the `k`-th of the schedule."""
        blocks_per_gb = GIB / self.db.block_size
        elapsed_days = k * STEP / DAY
        rows = []
        for ts, name, _contents, used_gb, grow in self.spaces:
            used = used_gb + grow * elapsed_days
            if name == "AUDIT":  # purged weekly by the batch
                used = used_gb + grow * (elapsed_days % 7)
            if name == "TEMP":
                used = used_gb + (3.0 if BATCH_START <= t.hour < BATCH_END else 0.0)
            size = self.sizes.get(ts, used * 1.25)
            while used > size * 0.92:  # autoextend
                size += max(size * 0.1, 1.0)
            self.sizes[ts] = size
            rows.append(
                (
                    self.db.dbid,
                    snap_id,
                    ts,
                    round(size * blocks_per_gb),
                    round(32 * (size // 32 + 2) * blocks_per_gb),
                    round(used * blocks_per_gb),
                    t.strftime("%m/%d/%Y %H:%M:%S"),
                )
            )
        return rows
