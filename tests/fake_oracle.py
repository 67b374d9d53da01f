"""A loopback stand-in for an Oracle listener and server process, for the fault tests.

The handshake and logon are the hang lab's (`lab.endpoints.TnsSession`: enough of Oracle Net and TTC for
python-oracledb in thin mode, written from the driver's open-source thin implementation); this adds answers to
SQL and faults at any round trip. Every client round trip is a *stage*:

    connect     CONNECT packet (and its connect data)        -> ACCEPT
    protocol    protocol negotiation                          -> server banner, character sets, capabilities
    data_types  data type negotiation                         -> the (empty) list of data type conversions
    auth1       logon phase one (user name)                   -> session key, verifier data (12c PBKDF2 verifier)
    auth2       logon phase two (encrypted password)          -> session established, server proof
    sql         any later request: SQL execute, rollback,...  -> rows, an ORA error, or a plain status

A fault (`reset`: close with SO_LINGER 0, i.e. a TCP RST; `stall`: keep the connection open and never answer; `slow`:
answer after `slow` seconds, a server busy rendering) can
strike when a chosen stage's request arrives; for the `sql` stage it may be narrowed to statements whose text
contains a given fragment (the API's own query rather than SQLAlchemy's first-connect queries). The behaviour can be
changed at any time (`behave`) and applies to the next request on every connection, new or established; a stalled
connection stays stalled, like a zombie server after a failover, until `close()`.

What it answers to SQL: the handful of statements SQLAlchemy's Oracle dialect runs on a first connection (current
schema, decimal character, isolation level) get plausible answers; ALTER and SET statements succeed; a query
containing a fragment of `errors` fails with that ORA error; one containing a fragment of `answers` gets those rows
(as text); the licence check (app/store/licence.py) gets an Enterprise Edition's defaults unless `answers` says
otherwise; every other query gets no rows; PL/SQL blocks fail as if the package were not granted (PLS-00201);
commits, rollbacks and pings succeed. It checks nothing: any password is accepted.
"""

import re
import threading
import time

from lab.endpoints import LoopbackServer, TnsSession, chunk, reset, status, text, ub

STAGES = TnsSession.STAGES

# TTC message types / codes (public protocol constants) that answers to SQL need
MSG_ERROR, MSG_ROW_HEADER, MSG_ROW_DATA, MSG_DESCRIBE_INFO = 4, 6, 7, 16
ORA_VARCHAR = 1
CHARSET_UTF8 = 873
NO_DATA_FOUND = 1403
# CONTROL_MANAGEMENT_PACK_ACCESS and the banner of an Enterprise Edition with its default (Database Reference)
ENTERPRISE = ("DIAGNOSTIC+TUNING", "Oracle Database 19c Enterprise Edition Release 19.0.0.0.0 - Production")


def sb(value: int) -> bytes:
    """TTC variable-length signed integer: the sign is the length byte's top bit."""
    if value >= 0:
        return ub(value)
    raw = ub(-value)
    return bytes([raw[0] | 0x80]) + raw[1:]


class Session(TnsSession):
    """One client connection: faults as the server's behaviour says, answers to SQL."""

    def __init__(self, server, sock):
        super().__init__(server.password.encode(), sock)
        self.server, self.cursor = server, 0

    def arrived(self, stage, request):
        """Apply the fault if it is due at this stage; True when the conversation stops here."""
        self.server.reached.append(stage)
        fault, at, match = self.server.behaviour
        if fault is None or at != stage:
            return False
        if match is not None and match.lower() not in request.lower():
            return False
        self.server.struck.append((stage, fault))
        if fault == "slow":  # a server busy for `slow` seconds on the statement, which it then answers
            time.sleep(self.server.slow)
            return False
        if fault == "reset":
            reset(self.sock)
        else:
            self.server.stalled.append(self.sock)  # never answered; reset by close()
        return True

    def ended(self):
        if not self.server.keep(self):
            reset(self.sock)

    def call(self, request):
        found = re.search(rb"(?i)(select|begin|alter|set|with)\s[\x09\x0a\x0d\x20-\x7e]*", request)
        if not found:
            return status()  # rollback, commit, ping, logoff
        statement = found.group(0).decode().lower()
        self.server.statements.append(" ".join(statement.split()))
        if statement.startswith("begin"):
            return error(6550, "ORA-06550: line 1, column 7: PLS-00201: identifier must be declared")
        if not statement.startswith(("select", "with")):
            return error(0, "")
        self.cursor += 1
        refused = next((e for fragment, e in self.server.errors.items() if fragment in statement), None)
        if refused:
            return error(*refused)
        if "current_schema" in statement:
            rows = [("AWRLENS",)]
        elif "1.1" in statement:
            rows = [("1.1",)]
        else:
            rows = next((r for fragment, r in self.server.answers.items() if fragment in statement), None)
            if rows is None:  # the licence check (app/store/licence.py) of an Enterprise Edition as installed
                rows = [ENTERPRISE] if "as pack_access" in statement else []
        return query(rows, self.cursor)


def error(number: int, message: str, cursor: int = 0, rowcount: int = 0) -> bytes:
    """The end-of-call message: error number 0 is success; 1403 after the rows of a query is the end of the fetch."""
    out = bytes([MSG_ERROR]) + ub(0) + ub(0) + ub(0)  # call status, end-to-end sequence, current row
    out += ub(0) + ub(0) + ub(0) + ub(cursor) + sb(0)  # error number, two array element errors, cursor, position
    out += bytes(6)  # sql type, fatal, flags, user cursor options, UPI parameter, warning flags
    out += ub(0) + ub(0) + b"\x00" + ub(0) + ub(0)  # rowid
    out += ub(0) + b"\x00\x00" + ub(0) + ub(0)  # OS error, statement and call numbers, padding, success iterations
    out += ub(0) + ub(0) + ub(0) + ub(0)  # logical rowid, batch error codes, offsets and messages
    out += ub(number) + ub(rowcount)
    if number:
        out += chunk(message.encode())
    return out


def column(name: str, size: int = 4000) -> bytes:
    """Describe information for a VARCHAR2 column (TTC field version 12.2 to 21)."""
    out = bytes([ORA_VARCHAR, 0, 0, 0]) + ub(size) + ub(0) + ub(0)  # type, flags, precision, scale, sizes, cont flags
    out += ub(0) + ub(0) + ub(CHARSET_UTF8) + b"\x01" + ub(size)  # OID, version, charset, form, max size
    out += ub(0) + b"\x01\x00"  # oaccolid, nulls allowed, v7 name length
    out += text(name) + text("") + text("") + ub(0) + ub(0)  # name, schema, type name, position, UDS flags
    return out


def query(rows, cursor) -> bytes:
    """A query's answer in one round trip: describe, every row, then ORA-01403 (no more rows)."""
    width = len(rows[0]) if rows else 1
    out = bytes([MSG_DESCRIBE_INFO]) + b"\x00" + ub(4000 * width) + ub(width) + b"\x01"
    out += b"".join(column(f"C{i}") for i in range(width))
    out += ub(0) + ub(0) + ub(0) + ub(0) + ub(0) + ub(0)  # current date, dcb flags and sizes, query key
    for row in rows:
        out += bytes([MSG_ROW_HEADER]) + b"\x00" + ub(0) + ub(0) + ub(0) + ub(0) + ub(0) + ub(0)
        out += bytes([MSG_ROW_DATA]) + b"".join(chunk(str(v).encode()) for v in row)
    return out + error(NO_DATA_FOUND, "ORA-01403: no data found", cursor, len(rows))


class FakeOracle(LoopbackServer):
    """A listener on a free 127.0.0.1 port. The behaviour applies to every round trip from the moment it is set, on
    new and established connections alike (a stalled connection stays stalled until close())."""

    def __init__(
        self,
        password: str,
        fault: str | None = None,
        at: str = "sql",
        match: str | None = None,
        answers: dict | None = None,
        errors: dict | None = None,
        slow: float = 0.0,
    ):
        self.password, self.answers = password, answers or {}  # statement fragment (lower case) -> rows
        self.slow = slow  # seconds the "slow" fault waits before answering
        self.errors = errors or {}  # statement fragment (lower case) -> (ORA error number, message)
        self.behave(fault, at, match)
        self.reached: list[str] = []  # stages reached, in order, over all connections
        self.struck: list[tuple] = []  # (stage, fault) applied
        self.statements: list[str] = []  # SQL received, normalized
        self.stalled: list = []
        super().__init__()

    def behave(self, fault: str | None = None, at: str = "sql", match: str | None = None):
        """From now on: healthy (fault None), or `fault` when a request of stage `at` arrives (for "sql", only a
        statement containing `match`, if given)."""
        assert fault in (None, "reset", "stall", "slow") and at in STAGES, (fault, at)
        self.behaviour = (fault, at, match.encode() if isinstance(match, str) else match)

    def handle(self, conn):
        self.held.append(conn)  # reset by close()
        threading.Thread(target=Session(self, conn).run, daemon=True, name="fake-oracle-session").start()

    def keep(self, session) -> bool:
        return session.sock in self.stalled and not self._stop.is_set()
