"""The application's objects in a demo database, one numbering for every view that names them: the segments AWR
captures (DBA_HIST_SEG_STAT_OBJ), ASH's CURRENT_OBJ# and the dictionary (DBA_OBJECTS)."""

import re
import zlib

from app.demo.sql import TABLES

# segment -> (type, share of the captured logical reads, of the captured cache reads, of the block changes)
SEGMENTS = {
    "ORDERS": ("TABLE", 16, 14, 12),
    "ORDER_LINES": ("TABLE", 14, 22, 14),
    "PK_ORDERS": ("INDEX", 12, 6, 6),
    "PK_ORDER_LINES": ("INDEX", 9, 8, 7),
    "CUSTOMERS": ("TABLE", 8, 7, 4),
    "PK_CUSTOMERS": ("INDEX", 5, 3, 1),
    "INVENTORY": ("TABLE", 7, 6, 10),
    "PK_INVENTORY": ("INDEX", 4, 2, 3),
    "PRODUCTS": ("TABLE", 6, 4, 1),
    "PAYMENTS": ("TABLE", 4, 6, 8),
    "SHIPMENTS": ("TABLE", 3, 5, 5),
    "INVOICES": ("TABLE", 3, 4, 5),
    "CARTS": ("TABLE", 3, 2, 9),
    "AUDIT_LOG": ("TABLE", 1, 2, 8),
    "PRICE_LISTS": ("TABLE", 2, 1, 1),
    "ORDERS_CUSTOMER_IX": ("INDEX", 3, 8, 6),
    "SALES_HISTORY": ("TABLE", 0, 0, 0),
}
HOSTILE_SEGMENT, HOSTILE_OBJ = "<img src=x onerror=alert(1)>", 69999  # a quoted identifier is data: shown as text


def object_id(text: str) -> int:
    return 70000 + zlib.crc32(text.encode()) % 20000


def object_ids(db, lock) -> dict:
    """NAME -> (OBJ#, type) of the application's tables and indexes in one database: the segments AWR captures
    (SEGMENTS, the row lock's table at its own number), then the tables it never captures (sql.TABLES), each with
    its primary key index; ASH's CURRENT_OBJ# and the dictionary (DBA_OBJECTS) use the same numbers."""
    locked = lock_table(lock)
    out = {}
    for k, (name, (kind, *_)) in enumerate(SEGMENTS.items()):
        obj = object_id(f"{lock.sql_id}:TABLE") if name == locked else 60000 + 97 * k + db.snap_base % 97
        out[name] = (obj, kind)
    out.setdefault(locked, (object_id(f"{lock.sql_id}:TABLE"), "TABLE"))
    for k, table in enumerate(t.upper() for t in TABLES if t.upper() not in out):
        out[table] = (62000 + 97 * k + db.snap_base % 97, "TABLE")
    unindexed = [name for name, (_, kind) in out.items() if kind == "TABLE" and f"PK_{name}" not in out]
    for k, table in enumerate(unindexed):
        out[f"PK_{table}"] = (64000 + 97 * k + db.snap_base % 97, "INDEX")
    return out


def lock_table(lock) -> str:
    """The table the blocking chain's statement (an UPDATE) locks a row of, upper case."""
    return re.match(r"UPDATE (\w+)", lock.text).group(1).upper()


def dictionary_objects(db, lock) -> list[tuple]:
    """DBA_OBJECTS rows (owner, name, subobject, OBJECT_ID, DATA_OBJECT_ID, type) of the application's objects."""
    return [(schema_of(name), name, None, obj, obj, kind) for name, (obj, kind) in object_ids(db, lock).items()]


def schema_of(name: str) -> str:
    return "CRM" if name == HOSTILE_SEGMENT else "APP"
