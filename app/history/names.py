"""Names for the ids ASH and the other views keep (docs/awr-rules.md §22): an object (CURRENT_OBJ#) by the names AWR
keeps of the segments it captured (DBA_HIST_SEG_STAT_OBJ). An id without a kept name stays an id."""

from app.history.database import Database
from app.store.awr import queries
from app.store.awr.queries.core import IN_LIST


def objects(db: Database, keys) -> dict:
    """{(con_dbid, obj#): {owner, object_name, subobject_name, object_type, name}} of the objects `keys` that AWR
    named; `name` as a DBA reads it: OWNER.NAME, with .SUBOBJECT for a partition."""
    wanted = sorted({obj for _, obj in keys if obj is not None})
    out: dict = {}
    for k in range(0, len(wanted), IN_LIST):
        for con, obj, owner, name, sub, kind in db.rows(
            queries.object_names(db.store.views), objs=wanted[k : k + IN_LIST]
        ):
            out.setdefault(
                (con, obj),
                {
                    "owner": owner,
                    "object_name": name,
                    "subobject_name": sub,
                    "object_type": kind,
                    "name": f"{owner}.{name}" + (f".{sub}" if sub else ""),
                },
            )
    return out
