"""A loopback stand-in for an Oracle listener and server process, for the fault tests.

It speaks just enough of Oracle Net (TNS packets) and the TTC protocol on top for python-oracledb in thin mode to
connect, log in and run queries, written from the public description of the protocol (the driver's open source
thin-mode implementation) and checked against the real driver. Every client round trip is a *stage*:

    connect     CONNECT packet (and its connect data)        -> ACCEPT
    protocol    protocol negotiation                          -> server banner, character sets, capabilities
    data_types  data type negotiation                         -> the (empty) list of data type conversions
    auth1       logon phase one (user name)                   -> session key, verifier data (12c PBKDF2 verifier)
    auth2       logon phase two (encrypted password)          -> session established, server proof
    sql         any later request: SQL execute, rollback,...  -> rows, an ORA error, or a plain status

A fault (`reset`: close with SO_LINGER 0, i.e. a TCP RST; `stall`: keep the connection open and never answer) can
strike when a chosen stage's request arrives; for the `sql` stage it may be narrowed to statements whose text
contains a given fragment (the API's own query rather than SQLAlchemy's first-connect queries). The behaviour can be
changed at any time (`behave`) and applies to the next request on every connection, new or established; a stalled
connection stays stalled, like a zombie server after a failover, until `close()`.

What it answers to SQL: the handful of statements SQLAlchemy's Oracle dialect runs on a first connection (current
schema, decimal character, isolation level) get plausible answers; every other query gets no rows; commits,
rollbacks and pings succeed. It checks nothing: any password is accepted.
"""
import hashlib
import os
import re
import socket
import struct
import threading

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

STAGES = ("connect", "protocol", "data_types", "auth1", "auth2", "sql")

# TNS packet types and TTC message types / codes (public protocol constants)
CONNECT, ACCEPT, DATA = 1, 2, 6
MSG_PROTOCOL, MSG_DATA_TYPES, MSG_ERROR, MSG_ROW_HEADER, MSG_ROW_DATA = 1, 2, 4, 6, 7
MSG_PARAMETER, MSG_STATUS, MSG_DESCRIBE_INFO = 8, 9, 16
VERSION = 317  # protocol version in ACCEPT: >= 315 (12.1, large SDU), < 318 (no OOB check, no end-of-response)
FIELD_VERSION = 12  # TTC field version of 19c
SERVER_VERSION = (19 << 24) | (3 << 16)  # 19.3.0.0.0 in the 18c+ encoding of AUTH_VERSION_NO
VERIFIER_12C = 0x4815
ORA_VARCHAR = 1
CHARSET_UTF8, CHARSET_UTF16 = 873, 2000
NO_DATA_FOUND = 1403


# -- encodings ---------------------------------------------------------------------------------------------------

def ub(value: int) -> bytes:
    """TTC variable-length unsigned integer: a length byte, then the value big-endian in as few bytes as needed."""
    if value == 0:
        return b"\x00"
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return bytes([len(raw)]) + raw


def sb(value: int) -> bytes:
    """TTC variable-length signed integer: the sign is the length byte's top bit."""
    if value >= 0:
        return ub(value)
    raw = ub(-value)
    return bytes([raw[0] | 0x80]) + raw[1:]


def chunk(data: bytes) -> bytes:
    """Bytes with a one-byte length (the short form; everything here is under 253 bytes)."""
    assert len(data) < 253
    return bytes([len(data)]) + data


def text(value: str | bytes) -> bytes:
    """A string with two lengths (ub4, then the bytes with their own length), as key/value pairs are sent."""
    data = value.encode() if isinstance(value, str) else value
    return ub(len(data)) + (chunk(data) if data else b"")


def aes_cbc(key: bytes, data: bytes, decrypt=False) -> bytes:
    """AES-CBC with a zero IV and no padding (`data` is whole blocks)."""
    cipher = Cipher(algorithms.AES(key), modes.CBC(bytes(16)))
    op = cipher.decryptor() if decrypt else cipher.encryptor()
    return op.update(data) + op.finalize()


def pbkdf2(secret: bytes, salt: bytes, length: int, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha512", secret, salt, iterations, length)


# -- one client connection -------------------------------------------------------------------------------------

class Session:
    def __init__(self, server, sock):
        self.server, self.sock = server, sock
        self.large = False  # 4-byte packet lengths once the ACCEPT is sent
        self.cursor = 0
        self.password = server.password.encode()

    # packets
    def _recv_exact(self, n):
        data = b""
        while len(data) < n:
            part = self.sock.recv(n - len(data))
            if not part:
                raise ConnectionError("client closed")
            data += part
        return data

    def read_packet(self):
        header = self._recv_exact(8)
        size = struct.unpack(">I", header[:4])[0] if self.large else struct.unpack(">H", header[:2])[0]
        return header[4], self._recv_exact(size - 8)

    def send(self, ptype, payload):
        size = 8 + len(payload)
        length = struct.pack(">I", size) if self.large else struct.pack(">HH", size, 0)
        self.sock.sendall(length + bytes([ptype, 0, 0, 0]) + payload)

    def send_data(self, payload):
        self.send(DATA, b"\x00\x00" + payload)  # data flags, then the TTC messages

    def read_request(self):
        """The next DATA packet's TTC payload (markers, e.g. a break's reset, are skipped)."""
        while True:
            ptype, body = self.read_packet()
            if ptype == DATA:
                return body[2:]

    # the conversation
    def run(self):
        try:
            ptype, body = self.read_packet()
            assert ptype == CONNECT, ptype
            length, offset = struct.unpack(">HH", body[16:20])
            if length and len(body) + 8 < offset + length:  # long connect data follows in a DATA packet
                self.read_packet()
            if self.strike("connect"):
                return
            # version, options (0x0400: can receive breaks out of band, as on Linux), fields the driver skips,
            # flags (no network encryption required), more skipped fields, the SDU
            self.send(ACCEPT, struct.pack(">HH", VERSION, 0x0400) + bytes(10) + b"\x00" + bytes(9)
                      + struct.pack(">I", 8192))
            self.large = True
            for stage, answer in (("protocol", self.protocol), ("data_types", self.data_types),
                                  ("auth1", self.auth1), ("auth2", self.auth2)):
                request = self.read_request()
                if self.strike(stage, request):
                    return
                self.send_data(answer(request))
            while True:
                request = self.read_request()
                if self.strike("sql", request):
                    return
                self.send_data(self.sql(request))
        except (ConnectionError, OSError, AssertionError):
            pass
        finally:
            if not self.server.keep(self):
                _reset(self.sock)

    def strike(self, stage, request=b""):
        """Apply the fault if it is due at this stage; True when the conversation stops here."""
        self.server.reached.append(stage)
        fault, at, match = self.server.behaviour
        if fault is None or at != stage:
            return False
        if match is not None and match.lower() not in request.lower():
            return False
        self.server.struck.append((stage, fault))
        if fault == "reset":
            _reset(self.sock)
        else:
            self.server.stalled.append(self.sock)  # never answered; reset by close()
        return True

    # answers
    def protocol(self, request):
        fdo = bytes(9) + struct.pack(">H", CHARSET_UTF16)  # national character set at offset 6 + 0 + 0 + 3
        ccaps = bytearray(64)
        ccaps[0], ccaps[4], ccaps[7] = 6, 0x08 | 0x02 | 0x20 | 0x40 | 0x80, FIELD_VERSION
        rcaps = bytearray(16)
        rcaps[0], rcaps[6] = 2, 0x01 | 0x04
        return (bytes([MSG_PROTOCOL, 6, 0]) + b"awrlens fake Oracle\x00" + struct.pack("<HBH", CHARSET_UTF8, 1, 0)
                + struct.pack(">H", len(fdo)) + fdo + chunk(bytes(ccaps)) + chunk(bytes(rcaps)))

    def data_types(self, request):
        return bytes([MSG_DATA_TYPES]) + b"\x00\x00"  # no conversions

    def auth1(self, request):
        self.vfr = os.urandom(16)
        self.csk_salt = os.urandom(16)
        self.vgen, self.sder = 4096, 3
        password_key = pbkdf2(self.password, self.vfr + b"AUTH_PBKDF2_SPEEDY_KEY", 64, self.vgen)
        self.password_hash = hashlib.sha512(password_key + self.vfr).digest()[:32]
        self.server_key = os.urandom(32)
        return params([("AUTH_SESSKEY", aes_cbc(self.password_hash, self.server_key).hex().upper(), 0),
                       ("AUTH_VFR_DATA", self.vfr.hex().upper(), VERIFIER_12C),
                       ("AUTH_PBKDF2_CSK_SALT", self.csk_salt.hex().upper(), 0),
                       ("AUTH_PBKDF2_VGEN_COUNT", str(self.vgen), 0),
                       ("AUTH_PBKDF2_SDER_COUNT", str(self.sder), 0)]) + status()

    def auth2(self, request):
        found = re.search(rb"AUTH_SESSKEY.{1,6}?([0-9A-F]{64})", request, re.S)
        client_key = aes_cbc(self.password_hash, bytes.fromhex(found.group(1).decode()), decrypt=True)
        combo = pbkdf2((client_key + self.server_key).hex().upper().encode(), self.csk_salt, 32, self.sder)
        proof = aes_cbc(combo, os.urandom(16) + b"SERVER_TO_CLIENT")
        return params([("AUTH_VERSION_NO", str(SERVER_VERSION), 0), ("AUTH_SESSION_ID", "42", 0),
                       ("AUTH_SERIAL_NUM", "7", 0), ("AUTH_SVR_RESPONSE", proof.hex().upper(), 0),
                       ("AUTH_MAX_IDEN_LENGTH", "128", 0), ("AUTH_SC_SERVICE_NAME", "svc", 0),
                       ("AUTH_INSTANCENAME", "fake1", 0), ("AUTH_SC_DBUNIQUE_NAME", "FAKE", 0)]) + status()

    def sql(self, request):
        found = re.search(rb"(?i)(select|begin|alter|with)\s[\x09\x0a\x0d\x20-\x7e]*", request)
        if not found:
            return status()  # rollback, commit, ping, logoff
        statement = found.group(0).decode().lower()
        self.server.statements.append(" ".join(statement.split()))
        if statement.startswith("begin"):
            return error(6550, "ORA-06550: line 1, column 7: PLS-00201: identifier must be declared")
        if not statement.startswith(("select", "with")):
            return error(0, "")
        self.cursor += 1
        if "current_schema" in statement:
            rows = [("AWRLENS",)]
        elif "1.1" in statement:
            rows = [("1.1",)]
        else:
            rows = []
        return query(rows, self.cursor)


def params(pairs) -> bytes:
    out = bytes([MSG_PARAMETER]) + ub(len(pairs))
    for key, value, flags in pairs:
        out += text(key) + text(value) + ub(flags)
    return out


def status() -> bytes:
    return bytes([MSG_STATUS]) + ub(0) + ub(0)


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


def _reset(sock):
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    except OSError:
        pass


class FakeOracle:
    """A listener on a free 127.0.0.1 port. The behaviour applies to every round trip from the moment it is set, on
    new and established connections alike (a stalled connection stays stalled)."""

    def __init__(self, password: str, fault: str | None = None, at: str = "sql", match: str | None = None):
        self.password = password
        self.behave(fault, at, match)
        self.reached: list[str] = []  # stages reached, in order, over all connections
        self.struck: list[tuple] = []  # (stage, fault) applied
        self.statements: list[str] = []  # SQL received, normalized
        self.stalled: list[socket.socket] = []
        self._sessions: list[Session] = []
        self._closed = False
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True, name="fake-oracle")
        self._thread.start()

    def behave(self, fault: str | None = None, at: str = "sql", match: str | None = None):
        """From now on: healthy (fault None), or `fault` when a request of stage `at` arrives (for "sql", only a
        statement containing `match`, if given)."""
        assert fault in (None, "reset", "stall") and at in STAGES, (fault, at)
        self.behaviour = (fault, at, match.encode() if isinstance(match, str) else match)

    def _serve(self):
        while not self._closed:
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            session = Session(self, conn)
            self._sessions.append(session)
            threading.Thread(target=session.run, daemon=True, name="fake-oracle-session").start()

    def keep(self, session) -> bool:
        return session.sock in self.stalled and not self._closed

    def close(self):
        self._closed = True
        self._thread.join()
        self.sock.close()
        for sock in self.stalled:
            _reset(sock)
        for session in self._sessions:
            _reset(session.sock)
