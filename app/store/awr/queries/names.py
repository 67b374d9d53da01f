"""Names for the ids the views keep (docs/awr-rules.md §22): objects by the names AWR keeps of the segments it
captured, services by DBA_HIST_SERVICE_NAME; and, where granted, the dictionary's users and objects (DICTIONARY)."""

from app.store.awr.queries.core import statement
from app.store.awr.views import Views


@statement
def object_names(v: Views):
    """The names AWR keeps (DBA_HIST_SEG_STAT_OBJ) of the objects whose OBJ# are bound as `objs` (at most IN_LIST):
    an object of several segments (a moved table) is named once per container, by its lowest DATAOBJ#'s rows."""
    from sqlalchemy import bindparam, func, select

    o = v.seg_stat_obj
    first = (
        select(o.c.con_dbid, o.c.obj_num, func.min(o.c.dataobj_num).label("dataobj_num"))
        .where(o.c.dbid == bindparam("dbid"), o.c.obj_num.in_(bindparam("objs", expanding=True)))
        .group_by(o.c.con_dbid, o.c.obj_num)
        .subquery()
    )
    return (
        select(o.c.con_dbid, o.c.obj_num, o.c.owner, o.c.object_name, o.c.subobject_name, o.c.object_type)
        .join_from(
            first,
            o,
            (o.c.dbid == bindparam("dbid"))
            & (o.c.con_dbid == first.c.con_dbid)
            & (o.c.obj_num == first.c.obj_num)
            & (o.c.dataobj_num == first.c.dataobj_num),
        )
        .order_by(o.c.con_dbid, o.c.obj_num, o.c.ts_num)
    )


@statement
def dictionary_objects(v: Views):
    """The dictionary's names (DBA_OBJECTS) of the objects whose OBJECT_ID are bound as `objs` (at most IN_LIST):
    those AWR did not capture; the current container's objects (a CDB root's own)."""
    from sqlalchemy import bindparam, select

    o = v.objects
    return (
        select(o.c.object_id, o.c.owner, o.c.object_name, o.c.subobject_name, o.c.object_type)
        .where(o.c.object_id.in_(bindparam("objs", expanding=True)), *_own(o))
        .order_by(o.c.object_id)
    )


def _own(t) -> list:
    """The database's rows of a view of the connected database (the dictionary): all of them on Oracle; on the
    embedded store, which keeps several databases' (views.views `embedded`), those of its DBID."""
    from sqlalchemy import bindparam

    return [t.c.dbid == bindparam("dbid")] if "dbid" in t.c else []


@statement
def user_names(v: Views):
    """The dictionary's user names (DBA_USERS) of the USER_IDs bound as `users` (at most IN_LIST)."""
    from sqlalchemy import bindparam, select

    u = v.users
    return (
        select(u.c.user_id, u.c.username)
        .where(u.c.user_id.in_(bindparam("users", expanding=True)), *_own(u))
        .order_by(u.c.user_id)
    )


@statement
def service_names(v: Views):
    """The services' names AWR keeps (DBA_HIST_SERVICE_NAME), per container, of the hashes bound as `services` (at
    most IN_LIST)."""
    from sqlalchemy import bindparam, select

    s = v.service_name
    return (
        select(s.c.con_dbid, s.c.service_name_hash, s.c.service_name)
        .where(s.c.dbid == bindparam("dbid"), s.c.service_name_hash.in_(bindparam("services", expanding=True)))
        .order_by(s.c.con_dbid, s.c.service_name_hash)
    )
