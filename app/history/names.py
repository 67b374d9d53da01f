"""Names for the ids ASH keeps (docs/awr-rules.md §22): an object (CURRENT_OBJ#) by the names AWR keeps of the segments
it captured (DBA_HIST_SEG_STAT_OBJ), else by the dictionary's (DBA_OBJECTS); a user (USER_ID) by DBA_USERS; a service
(SERVICE_HASH) by DBA_HIST_SERVICE_NAME. The dictionary is read where granted: a user without the grant gets the ids.
The dictionary holds the current container's users and objects, so in a CDB root a PDB's (con_dbid:id) keep their
ids. An id without a name stays an id; the id stays in every answer beside its name."""

from app.errors import NotGranted
from app.history.database import Database
from app.store.awr import queries
from app.store.awr.queries.core import IN_LIST


def _chunks(ids) -> list:
    wanted = sorted({i for i in ids if i is not None})
    return [wanted[k : k + IN_LIST] for k in range(0, len(wanted), IN_LIST)]


def _number(value):
    """An id as a number (a driver may give NUMBER as text); None stays None."""
    return None if value is None else int(value)


def _granted(db: Database, stmt, **binds) -> list:
    """The rows of a statement for names, none where the user may not read the view (or a store lacks it)."""
    try:
        return db.rows(stmt, **binds)
    except NotGranted:
        return []


def _own(db: Database, con) -> bool:
    """Whether a container is the database's own (a non-CDB's every row, a CDB root's own): the dictionary's."""
    return con in (None, db.dbid)


def objects(db: Database, keys) -> dict:
    """{(con_dbid, obj#): {owner, object_name, subobject_name, object_type, name}} of the objects `keys` that AWR or
    the dictionary names; `name` as a DBA reads it: OWNER.NAME, with .SUBOBJECT for a partition."""
    keys = {k for k in keys if k[1] is not None}
    out: dict = {}
    for chunk in _chunks(obj for _, obj in keys):
        for con, obj, *named in db.rows(queries.object_names(db.store.views), objs=chunk):
            out.setdefault((_number(con), int(obj)), _object(*named))
    missing = [obj for con, obj in keys if (con, obj) not in out and _own(db, con)]
    for chunk in _chunks(missing):
        for obj, *named in _granted(db, queries.dictionary_objects(db.store.views), objs=chunk):
            for con in {con for con, o in keys if o == int(obj) and _own(db, con)}:
                out.setdefault((con, int(obj)), _object(*named))
    return out


def _object(owner, name, sub, kind) -> dict:
    return {
        "owner": owner,
        "object_name": name,
        "subobject_name": sub,
        "object_type": kind,
        "name": f"{owner}.{name}" + (f".{sub}" if sub else ""),
    }


def users(db: Database, keys) -> dict:
    """{(con_dbid, user_id): username} of the users `keys` of the database's own container the dictionary names."""
    keys = {k for k in keys if k[1] is not None and _own(db, k[0])}
    found = {}
    for chunk in _chunks(user for _, user in keys):
        found.update((int(user), name) for user, name in _granted(db, queries.user_names(db.store.views), users=chunk))
    return {(con, user): found[user] for con, user in keys if user in found}


def services(db: Database, hashes) -> dict:
    """{SERVICE_HASH: SERVICE_NAME} AWR keeps (one container's name where a hash is named in several: the lowest
    CON_DBID's, as the rows come)."""
    out: dict = {}
    for chunk in _chunks(hashes):
        for _, hashed, name in _granted(db, queries.service_names(db.store.views), services=chunk):
            out.setdefault(int(hashed), name)
    return out
