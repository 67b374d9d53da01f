"""Loopback endpoints for the hang lab (lab.hang): what a database looks like to a client while it fails over.

- `Listener("silent")`: accepts TCP connections and never says a word (a hung listener, or a host that accepted
  the SYN and then vanished behind a stateful firewall).
- `Listener("reset")`: accepts and closes at once with SO_LINGER 0, i.e. a TCP RST (a port nothing serves any
  more, or a VIP that moved: the client's next packet is answered with a reset).
- `DroppedSyn()`: a listening socket whose accept queue is full, so the kernel drops new SYNs, like a host that
  is gone: the client retransmits its SYN until its connect timeout.
- `OracleStandIn`: speaks enough Oracle Net (TNS) and TTC for python-oracledb in thin mode to connect and log in,
  and answers the calls that follow (pings) until told to die: `kill("silent")` makes every established session
  stop answering (its socket stays open, so the kernel still acknowledges what the client sends), `kill("reset")`
  resets them all; `arm(how, after)` does the same to the next call that arrives, `after` seconds into it (a call
  in flight when the server dies). The protocol (`TnsSession`, which tests/fake_oracle.py extends to answer SQL) is
  written from the driver's open-source thin implementation; any password that both sides share works.

Every endpoint's `close()` resets whatever it still holds, which also ends a client left waiting on it.
"""

import hashlib
import os
import socket
import struct
import threading
import time

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

CONNECT, ACCEPT, DATA = 1, 2, 6  # TNS packet types
MSG_PROTOCOL, MSG_DATA_TYPES, MSG_PARAMETER, MSG_STATUS = 1, 2, 8, 9  # TTC message types
VERSION = 317  # TNS version in the ACCEPT: large SDU and 4-byte packet lengths, no end-of-response marker
FIELD_VERSION = 12  # TTC field version of 19c
SERVER_VERSION = (19 << 24) | (3 << 16)  # 19.3.0.0.0
VERIFIER_12C = 0x4815  # the PBKDF2-based password verifier
CHARSET_UTF8, CHARSET_UTF16 = 873, 2000


def reset(sock: socket.socket):
    """Close with a TCP RST instead of a FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    except OSError:
        pass


class LoopbackServer:
    """A listening socket on a free 127.0.0.1 port with an accept loop in a daemon thread."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept_loop, daemon=True, name=type(self).__name__)
        self._thread.start()

    @property
    def dsn(self) -> str:
        return f"127.0.0.1:{self.port}/standin"

    def _accept_loop(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            self.handle(conn)

    def handle(self, conn):
        raise NotImplementedError

    def close(self):
        self._stop.set()
        self._thread.join(2)
        self.sock.close()
        for conn in list(self.held):
            reset(conn)
        self.held.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Listener(LoopbackServer):
    def __init__(self, mode: str):
        assert mode in ("silent", "reset"), mode
        self.mode = mode
        super().__init__()

    def handle(self, conn):
        if self.mode == "reset":
            reset(conn)
        else:
            self.held.append(conn)


class DroppedSyn:
    """A port whose accept queue is full: the kernel drops further SYNs (the client sees no answer at all)."""

    def __init__(self):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(0)
        self.port = self.server.getsockname()[1]
        self.fillers = []
        for _ in range(3):  # never accepted: they fill the queue
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", self.port))
            self.fillers.append(filler)
        time.sleep(0.1)

    @property
    def dsn(self) -> str:
        return f"127.0.0.1:{self.port}/standin"

    def close(self):
        for sock in [*self.fillers, self.server]:
            sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# -- a stand-in for an Oracle server process --------------------------------------------------------------------


def ub(value: int) -> bytes:
    """TTC variable-length unsigned integer: a length byte, then the value big-endian."""
    if value == 0:
        return b"\x00"
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return bytes([len(raw)]) + raw


def chunk(data: bytes) -> bytes:
    return bytes([len(data)]) + data


def text(value: str | bytes) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return ub(len(data)) + (chunk(data) if data else b"")


def params(pairs) -> bytes:
    out = bytes([MSG_PARAMETER]) + ub(len(pairs))
    for key, value, flags in pairs:
        out += text(key) + text(value) + ub(flags)
    return out


def status() -> bytes:
    return bytes([MSG_STATUS]) + ub(0) + ub(0)


def _aes(key: bytes, data: bytes, decrypt=False) -> bytes:
    cipher = Cipher(algorithms.AES(key), modes.CBC(bytes(16)))
    op = cipher.decryptor() if decrypt else cipher.encryptor()
    return op.update(data) + op.finalize()


def _pbkdf2(secret: bytes, salt: bytes, length: int, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha512", secret, salt, iterations, length)


class TnsSession:
    """One client connection as an Oracle server process sees it: the handshake and logon, then the calls. Every
    round trip is a stage of STAGES; a subclass decides what each gets: `arrived(stage, request)` may end the
    conversation there (True), `call(request)` answers a call after logon (a plain success by default), `ended()`
    runs when the conversation is over, however it ended."""

    STAGES = ("connect", "protocol", "data_types", "auth1", "auth2", "sql")

    def __init__(self, password: bytes, sock: socket.socket):
        self.password, self.sock = password, sock
        self.large = False  # 4-byte packet lengths after the ACCEPT
        self.mute = False
        self.logged_on = threading.Event()

    def arrived(self, stage: str, request: bytes) -> bool:
        return False

    def call(self, request: bytes) -> bytes:
        return status()  # pings, commits, rollbacks

    def ended(self):
        pass

    def _recv(self, n):
        data = b""
        while len(data) < n:
            part = self.sock.recv(n - len(data))
            if not part:
                raise ConnectionError("client closed")
            data += part
        return data

    def _packet(self):
        header = self._recv(8)
        size = struct.unpack(">I", header[:4])[0] if self.large else struct.unpack(">H", header[:2])[0]
        return header[4], self._recv(size - 8)

    def _send(self, ptype, payload):
        size = 8 + len(payload)
        length = struct.pack(">I", size) if self.large else struct.pack(">HH", size, 0)
        self.sock.sendall(length + bytes([ptype, 0, 0, 0]) + payload)

    def _reply(self, payload):
        if not self.mute:
            self._send(DATA, b"\x00\x00" + payload)  # data flags, then the TTC messages

    def _request(self):
        """The next DATA packet's TTC payload (markers, e.g. a break's reset, are skipped)."""
        while True:
            ptype, body = self._packet()
            if ptype == DATA:
                return body[2:]

    def run(self):
        try:
            ptype, body = self._packet()
            if ptype != CONNECT:
                raise ConnectionError("not a CONNECT")
            length, offset = struct.unpack(">HH", body[16:20])
            if length and len(body) + 8 < offset + length:  # the connect data follows in a packet of its own
                self._packet()
            if self.arrived("connect", b""):
                return
            # version, options (0x0400: breaks out of band, as on Linux), skipped fields, flags (no network
            # encryption required), more skipped fields, the SDU
            self._send(
                ACCEPT, struct.pack(">HH", VERSION, 0x0400) + bytes(10) + b"\x00" + bytes(9) + struct.pack(">I", 8192)
            )
            self.large = True
            for stage, answer in (
                ("protocol", self._protocol),
                ("data_types", self._data_types),
                ("auth1", self._auth1),
                ("auth2", self._auth2),
            ):
                request = self._request()
                if self.arrived(stage, request):
                    return
                self._reply(answer(request))
            self.logged_on.set()
            while True:
                request = self._request()
                if self.arrived("sql", request):
                    return
                self._reply(self.call(request))
        except (ConnectionError, OSError, ValueError, AttributeError, StopIteration):
            pass
        finally:
            self.ended()

    def _protocol(self, _):
        fdo = bytes(9) + struct.pack(">H", CHARSET_UTF16)  # national character set at offset 6 + 0 + 0 + 3
        ccaps = bytearray(64)
        ccaps[0], ccaps[4], ccaps[7] = 6, 0x08 | 0x02 | 0x20 | 0x40 | 0x80, FIELD_VERSION
        rcaps = bytearray(16)
        rcaps[0], rcaps[6] = 2, 0x01 | 0x04
        return (
            bytes([MSG_PROTOCOL, 6, 0])
            + b"awrlens stand-in\x00"
            + struct.pack("<HBH", CHARSET_UTF8, 1, 0)
            + struct.pack(">H", len(fdo))
            + fdo
            + chunk(bytes(ccaps))
            + chunk(bytes(rcaps))
        )

    def _data_types(self, _):
        return bytes([MSG_DATA_TYPES]) + b"\x00\x00"  # no conversions

    def _auth1(self, _):
        self.vfr, self.salt = os.urandom(16), os.urandom(16)
        self.vgen, self.sder = 4096, 3
        key = _pbkdf2(self.password, self.vfr + b"AUTH_PBKDF2_SPEEDY_KEY", 64, self.vgen)
        self.password_hash = hashlib.sha512(key + self.vfr).digest()[:32]
        self.server_key = os.urandom(32)
        return (
            params(
                [
                    ("AUTH_SESSKEY", _aes(self.password_hash, self.server_key).hex().upper(), 0),
                    ("AUTH_VFR_DATA", self.vfr.hex().upper(), VERIFIER_12C),
                    ("AUTH_PBKDF2_CSK_SALT", self.salt.hex().upper(), 0),
                    ("AUTH_PBKDF2_VGEN_COUNT", str(self.vgen), 0),
                    ("AUTH_PBKDF2_SDER_COUNT", str(self.sder), 0),
                ]
            )
            + status()
        )

    def _auth2(self, request):
        at = request.find(b"AUTH_SESSKEY")
        hexdigits = b"0123456789ABCDEF"
        start = next(i for i in range(at + 12, len(request)) if request[i] in hexdigits)
        client_key = _aes(self.password_hash, bytes.fromhex(request[start : start + 64].decode()), decrypt=True)
        combo = _pbkdf2((client_key + self.server_key).hex().upper().encode(), self.salt, 32, self.sder)
        proof = _aes(combo, os.urandom(16) + b"SERVER_TO_CLIENT")
        return (
            params(
                [
                    ("AUTH_VERSION_NO", str(SERVER_VERSION), 0),
                    ("AUTH_SESSION_ID", "1", 0),
                    ("AUTH_SERIAL_NUM", "1", 0),
                    ("AUTH_SVR_RESPONSE", proof.hex().upper(), 0),
                    ("AUTH_MAX_IDEN_LENGTH", "128", 0),
                    ("AUTH_SC_SERVICE_NAME", "standin", 0),
                    ("AUTH_INSTANCENAME", "standin1", 0),
                    ("AUTH_SC_DBUNIQUE_NAME", "STANDIN", 0),
                ]
            )
            + status()
        )


class _StandInSession(TnsSession):
    """Logs on, then answers every call until the server dies under an armed call."""

    def __init__(self, server: "OracleStandIn", sock: socket.socket):
        super().__init__(server.password, sock)
        self.server = server

    def arrived(self, stage, request):
        if stage != "sql":
            return False
        how, after = self.server.take_armed()
        if how:
            time.sleep(after)  # the call runs for a while, then the server dies under it
            self.server.apply(self, how)
        return bool(how)


class OracleStandIn(LoopbackServer):
    def __init__(self, password: str):
        self.password = password.encode()
        self.sessions: list[TnsSession] = []
        self._armed: tuple[str | None, float] = (None, 0.0)
        self._lock = threading.Lock()
        super().__init__()

    def handle(self, conn):
        session = _StandInSession(self, conn)
        self.sessions.append(session)
        self.held.append(conn)
        threading.Thread(target=session.run, daemon=True, name="oracle-stand-in-session").start()

    def kill(self, how: str):
        """The server dies now: every established session goes `how` ("silent" or "reset")."""
        for session in list(self.sessions):
            self.apply(session, how)

    def arm(self, how: str, after: float):
        """The next call that arrives, on any session, is the one the server dies under, `after` seconds in."""
        with self._lock:
            self._armed = (how, after)

    def take_armed(self):
        with self._lock:
            armed, self._armed = self._armed, (None, 0.0)
            return armed

    @staticmethod
    def apply(session: TnsSession, how: str):
        if how == "reset":
            reset(session.sock)
        else:
            session.mute = True  # the socket stays open and unanswered; close() resets it
