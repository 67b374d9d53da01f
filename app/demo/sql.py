"""The SQL catalog of a demo database: about 200 OLTP statements with skewed weights, three with hostile text,
the nightly batch, and the statement whose plan regresses on RACPROD."""

import random
from dataclasses import dataclass

TABLES = [
    "orders",
    "order_lines",
    "customers",
    "products",
    "inventory",
    "payments",
    "shipments",
    "invoices",
    "warehouses",
    "suppliers",
    "price_lists",
    "audit_log",
    "sessions",
    "carts",
    "returns",
    "promotions",
]
SQL_ID_ALPHABET = "0123456789abcdfghjkmnpqrstuvwxyz"
SQL_ID_LENGTH = 13
STATEMENTS = 214  # OLTP statements per database
HOSTILE_SQL = [  # database text is data: the viewer must show these as text
    ("select '<script>alert(\"awrlens\")</script>' as banner from dual", 3, "<b>web</b>"),
    ("select /* <img src=x onerror=alert(1)> */ count(*) from orders where status = :b1", 3, "JDBC Thin Client"),
    ("update customers set note = '</td></tr><tr><td>injected' where customer_id = :1", 6, "<i>crm</i>"),
]
BATCH_SQL = [  # text, command type, elapsed ms per execution
    ("INSERT /*+ APPEND */ INTO sales_history SELECT * FROM orders WHERE created_at < TRUNC(SYSDATE)", 2, 9e5),
    ("SELECT /*+ FULL(o) PARALLEL(4) */ region, SUM(amount) FROM orders o GROUP BY region", 3, 6e5),
    ("BEGIN dbms_stats.gather_schema_stats('APP'); END;", 47, 4e5),
    ("DELETE FROM audit_log WHERE created_at < SYSDATE - 90", 7, 3e5),
]


@dataclass
class Sql:
    sql_id: str
    text: str
    command_type: int
    module: str
    schema: str
    plan: int
    exec_weight: float  # share of executions
    ms: float  # elapsed per execution
    cpu: float  # CPU share of elapsed
    gets: float  # buffer gets per execution
    reads: float
    rows: float
    batch: bool = False
    bad_plan: int | None = None


def _sql_id(rng):
    return "".join(rng.choice(SQL_ID_ALPHABET) for _ in range(SQL_ID_LENGTH))


def _plan_hash(rng):
    return rng.randrange(10**9, 4 * 10**9)


# the statement whose plan regresses on RACPROD: a good nested-loops plan, then a bad hash-join plan
REGRESSION = Sql(
    _sql_id(random.Random(7)),
    "SELECT o.order_id, o.status, SUM(l.quantity * l.price) FROM orders o "
    "JOIN order_lines l ON l.order_id = o.order_id WHERE o.customer_id = :1 AND o.created_at > "
    "SYSDATE - :2 GROUP BY o.order_id, o.status",
    3,
    "order-service",
    "APP",
    1718423581,
    0,
    3.8,
    0.96,
    900,
    0.5,
    12,
    bad_plan=3904417271,
)


def _statement(rng, k):
    t, u = rng.choice(TABLES), rng.choice(TABLES)
    col = rng.choice(["id", "status", "created_at", "customer_id", "product_id", "region", "amount"])
    forms = [
        (3, f"SELECT * FROM {t} WHERE {t[:-1]}_id = :1"),
        (
            3,
            f"SELECT a.*, b.{col} FROM {t} a JOIN {u} b ON b.id = a.{u[:-1]}_id WHERE a.{col} = :1 "
            f"ORDER BY a.created_at DESC FETCH FIRST 50 ROWS ONLY",
        ),
        (3, f"SELECT {col}, COUNT(*), SUM(amount) FROM {t} WHERE created_at >= :1 GROUP BY {col}"),
        (2, f"INSERT INTO {t} (id, {col}, created_at) VALUES (:1, :2, SYSTIMESTAMP)"),
        (6, f"UPDATE {t} SET {col} = :1, updated_at = SYSTIMESTAMP WHERE id = :2"),
        (7, f"DELETE FROM {t} WHERE id = :1"),
        (47, f"BEGIN pkg_{t}.process_{col}(:1, :2); END;"),
        (
            189,
            f"MERGE INTO {t} d USING (SELECT :1 id, :2 {col} FROM dual) s ON (d.id = s.id) "
            f"WHEN MATCHED THEN UPDATE SET d.{col} = s.{col} WHEN NOT MATCHED THEN INSERT (id, {col}) "
            f"VALUES (s.id, s.{col})",
        ),
    ]
    kind, text = forms[k % len(forms)] if k % 3 else rng.choice(forms)
    return kind, f"{text} /* q{k} */" if k % 4 == 0 else text


def catalog(sql_seed: int) -> list[Sql]:
    """The statements of one database, the same for the same seed."""
    rng = random.Random(1000 + sql_seed)
    modules = ["JDBC Thin Client", "order-service", "billing", "crm-web", "SQL*Plus", "reporting"]
    out = []
    for k in range(STATEMENTS):
        kind, text = _statement(rng, k)
        out.append(
            Sql(
                _sql_id(rng),
                text,
                kind,
                rng.choice(modules),
                rng.choice(["APP", "APP", "REPORTS", "CRM"]),
                _plan_hash(rng),
                rng.paretovariate(1.2),
                rng.lognormvariate(1.0, 1.1),
                rng.uniform(0.3, 0.9),
                rng.lognormvariate(4, 1.2),
                rng.lognormvariate(0, 1.5),
                rng.lognormvariate(1.5, 1),
            )
        )
    for text, kind, module in HOSTILE_SQL:
        out.append(Sql(_sql_id(rng), text, kind, module, "APP", _plan_hash(rng), 0.4, 2.0, 0.5, 40, 1, 1))
    for text, kind, ms in BATCH_SQL:
        out.append(
            Sql(
                _sql_id(rng),
                text,
                kind,
                "BATCH_NIGHTLY",
                "APP",
                _plan_hash(rng),
                0.002,
                ms,
                0.4,
                5e6,
                2e6,
                1e5,
                batch=True,
            )
        )
    return out
