"""Names for the ids ASH keeps (docs/awr-rules.md §22), against the store's own rows read with sqlite3: an object by
DBA_HIST_SEG_STAT_OBJ, else by the dictionary's DBA_OBJECTS; a user by DBA_USERS; a service by DBA_HIST_SERVICE_NAME;
the id stays beside the name. On the wire (the loopback stand-in), a user without the dictionary's grant gets ids."""

import pytest
from conftest import ORCL
from contract import ok

from app.history import names

ASH = "dba_hist_active_sess_history"


def _dotted(owner, name, sub):
    return f"{owner}.{name}" + (f".{sub}" if sub else "")


def test_top_objects_are_named_by_awr_then_by_the_dictionary(api, sql3, rac):
    """The top objects of a week: each CURRENT_OBJ# named OWNER.NAME from DBA_HIST_SEG_STAT_OBJ where AWR captured
    it, else from DBA_OBJECTS; its number kept as `name`."""
    awr = {
        obj: _dotted(*n)
        for obj, *n in sql3.execute(
            'SELECT "OBJ#", owner, object_name, subobject_name FROM dba_hist_seg_stat_obj WHERE dbid = ?',
            (rac["dbid"],),
        )
    }
    dictionary = {
        obj: _dotted(*n)
        for obj, *n in sql3.execute(
            "SELECT object_id, owner, object_name, subobject_name FROM dba_objects WHERE dbid = ?", (rac["dbid"],)
        )
    }
    rows = ok(api, f"/api/v1/dbs/{rac['id']}/activity/top")["lists"]["current_obj"]
    assert rows
    for r in rows:
        expected = "no object" if r["name"] is None else awr.get(r["name"]) or dictionary.get(r["name"], r["name"])
        assert r["label"] == expected, r
    named_by = [("awr" if r["name"] in awr else "dictionary") for r in rows if r["name"] is not None]
    assert {"awr", "dictionary"} <= set(named_by)  # the demo has both: captured segments and the rest


@pytest.mark.parametrize(
    "group_by, query",
    [
        ("user", "SELECT user_id, username FROM dba_users WHERE dbid = {dbid}"),  # the embedded store's, per DBID
        ("service", "SELECT service_name_hash, service_name FROM dba_hist_service_name WHERE dbid = {dbid}"),
    ],
)
def test_activity_by_user_and_by_service_is_named(api, sql3, rac, group_by, query):
    """AAS by user: each series the USER_ID (name) named by DBA_USERS; by service: the SERVICE_HASH named by
    DBA_HIST_SERVICE_NAME; `other` as it is."""
    known = dict(sql3.execute(query.format(dbid=int(rac["dbid"]))).fetchall())
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity", group_by=group_by)
    assert body["series"]
    for s in body["series"]:
        assert s["label"] == ("other" if s["name"] == "other" else known[s["name"]]), s
    sampled = sql3.execute(
        f"SELECT count(DISTINCT {'user_id' if group_by == 'user' else 'service_hash'}) FROM {ASH} WHERE dbid = ?",
        (rac["dbid"],),
    ).fetchone()[0]
    assert len([s for s in body["series"] if s["name"] != "other"]) == min(sampled, 10)


def test_the_wait_chains_sessions_name_their_user(api, sql3, rac, stories):
    lock = stories["row_lock"]
    body = ok(api, f"/api/v1/dbs/{rac['id']}/activity/chains", **{"from": lock["from"], "to": lock["to"]})
    users = dict(sql3.execute("SELECT user_id, username FROM dba_users WHERE dbid = ?", (rac["dbid"],)).fetchall())
    nodes, todo = [], list(body["roots"])
    while todo:
        node = todo.pop()
        nodes.append(node)
        todo += node["waiters"]
    assert len(nodes) == 7
    assert all(n["user_name"] == users[n["user"]] == "APP" for n in nodes), nodes


@pytest.mark.wire
@pytest.mark.parametrize("granted", [True, False])
def test_the_dictionary_is_read_where_granted(oracle_app, granted):
    """On the wire: DBA_USERS and DBA_OBJECTS are asked with the ids as binds; where the user lacks the grant
    (ORA-00942) the ids stay ids and nothing fails; objects AWR captured are named either way."""
    refused = (942, "ORA-00942: table or view does not exist")
    client, server = oracle_app(
        answers={
            "from dba_hist_seg_stat_obj": [(ORCL, 78939, "APP", "INVENTORY", "", "TABLE")],  # "": NULL
            "from dba_objects": [(61020, "APP", "SHIPMENTS", "", "TABLE")],
            "from dba_users": [(107, "APP")],
        },
        errors={} if granted else {"from dba_objects": refused, "from dba_users": refused},
    )
    store = client.application.extensions["awrlens"].stores["ora"]
    db = store._cache[("databases",)][1][0]
    with client.application.app_context():
        objects = names.objects(db, {(ORCL, 78939), (ORCL, 61020)})
        users = names.users(db, {(ORCL, 107)})
    assert {k: v["name"] for k, v in objects.items()} == {
        (ORCL, 78939): "APP.INVENTORY",
        **({(ORCL, 61020): "APP.SHIPMENTS"} if granted else {}),
    }
    assert users == ({(ORCL, 107): "APP"} if granted else {})
    asked = [s for s in server.statements if "from dba_objects" in s or "from dba_users" in s]
    assert len(asked) == 2 and all(":objs_1" in s or ":users_1" in s for s in asked), asked
    assert "78939" not in " ".join(asked)  # AWR named it: not asked of the dictionary
