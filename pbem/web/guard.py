"""The web face against slow and greedy clients (issue 27): uvicorn's HTTP protocol with a
deadline for a request's headers and one for its body, a cap on connections from one address
and in all, and its log lines rate-limited.

uvicorn has no header-read timeout: its keep-alive timer runs only between requests and is
reset by every byte, so a client trickling a header line holds its connection for ever, and
about 1,100 of them stopped the pages. Its `limit_concurrency` answers 503 only once a request's
headers are complete, so it cannot count those either. ASGI middleware sees a request only
once its headers are read. So the guard is a subclass of uvicorn's h11 protocol (the class
uvicorn takes as `http=`), which sees every connection from its first byte:

- a connection over `[http] per_address` from one address is answered 503 at once and closed
  (it never holds a slot while it waits); over `connections` in all, the connection that has
  waited longest for a request (the slow attack's, not a player's, whose request arrives whole
  at once) is closed to make room, or the newcomer refused when none waits;
- a request's headers must be complete `header_seconds` after its first byte (or after the
  connection opened), its body `body_seconds` after its headers; else 408 and closed;
- what the app does with a request it has read in full is not timed (an answer's processing
  waits for the store's lock).

Behind a reverse proxy every connection comes from the proxy: there the proxy holds the
per-client limits (docs/web.md) and `per_address` should be `connections`.
"""
from __future__ import annotations

import asyncio
import collections
import logging
import time
from dataclasses import dataclass, field

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from pbem.base import log
from pbem.web.app import CSP, HEADERS


@dataclass(frozen=True)
class Limits:
    header_seconds: float = 10.0  # from a request's first byte (or the connection's start) to its last header
    body_seconds: float = 30.0  # from its last header to its last body byte
    connections: int = 400  # open at once, in all
    per_address: int = 24  # open at once from one client address (a browser opens about 6)


@dataclass
class Counts:
    """The connections open now, shared by the protocol objects of one server (one thread)."""
    total: int = 0
    by_address: collections.Counter = field(default_factory=collections.Counter)
    # the connections waiting for a request (none begun, or between two on a kept link), oldest
    # first: when every slot is taken, the oldest of them makes room for a newcomer
    waiting: collections.OrderedDict = field(default_factory=collections.OrderedDict)
    refused: int = 0  # since the server started: connections answered 503 at once
    timed_out: int = 0  # since the server started: requests closed at a deadline
    evicted: int = 0  # since the server started: waiting connections closed to make room


class RateLimit:
    """At most `per_minute` lines of each kind a minute; the next line let through after a quiet
    spell says how many were held back. An attack makes one line a second, not megabytes."""

    def __init__(self, per_minute: int = 20, clock=time.monotonic):
        self.per_minute, self.clock = per_minute, clock
        self._windows: dict[object, list] = {}  # kind -> [window start, lines let through, held back]

    def allow(self, kind) -> tuple[bool, int]:
        """(let this line through, how many were held back before it)."""
        now = self.clock()
        w = self._windows.get(kind)
        if w is None or now - w[0] >= 60:
            held = w[2] if w else 0
            self._windows[kind] = [now, 1, 0]
            if len(self._windows) > 1000:  # kinds are few (a logger and a message): never grows
                self._windows = {kind: self._windows[kind]}
            return True, held
        if w[1] < self.per_minute:
            w[1] += 1
            held, w[2] = w[2], 0
            return True, held
        w[2] += 1
        return False, 0


class RateLimitedLog(logging.Filter):
    """uvicorn's log (an invalid request, an exception in the app: one line or traceback each)
    rate-limited per message."""

    def __init__(self, per_minute: int = 20):
        super().__init__()
        self.limit = RateLimit(per_minute)

    def filter(self, record: logging.LogRecord) -> bool:
        ok, held = self.limit.allow((record.name, record.msg))
        if ok and held:
            record.msg = f"{record.msg} ({held} more like this were not logged)"
        return ok


def _raw_response(status: int, reason: str, text: str) -> bytes:
    """A response written without h11 (it answers no request it has not read), with the
    security headers every page has."""
    body = text.encode()
    head = [f"HTTP/1.1 {status} {reason}", "content-type: text/plain; charset=utf-8", f"content-length: {len(body)}",
            "connection: close", f"content-security-policy: {CSP}", *(f"{k}: {v}" for k, v in HEADERS.items())]
    if status == 503:
        head.append("retry-after: 10")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


BUSY = _raw_response(503, "Service Unavailable", "Too many connections: try again in a moment.\n")
SLOW = _raw_response(408, "Request Timeout", "The request took too long to arrive.\n")


def protocol(limits: Limits, counts: Counts | None = None, said: RateLimit | None = None) -> type[H11Protocol]:
    """uvicorn's h11 protocol with `limits`; pass the class as `uvicorn.Config(http=...)`."""
    tally: Counts = counts if counts is not None else Counts()
    said = said or RateLimit()

    def note(kind: str, **fields) -> None:
        ok, held = said.allow(kind)
        if ok:
            log.get().warning(kind, **fields, **({"not_logged_before": held} if held else {}))

    class Guarded(H11Protocol):
        shared: Counts  # set below: the server's counts, for tests and bench/hostile.py
        _deadline: asyncio.TimerHandle | None = None
        _phase = ""
        _address: str | None = None  # set when counted

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else "?"
            if tally.total >= limits.connections and tally.waiting and tally.by_address[address] < limits.per_address:
                next(iter(tally.waiting))._make_room()  # a slot taken by a connection that sends nothing
            if tally.total >= limits.connections or tally.by_address[address] >= limits.per_address:
                tally.refused += 1
                note("web connection refused: too many open", address=address, open=tally.by_address[address],
                     total=tally.total)
                transport.write(BUSY)
                transport.close()
                return
            self._address = address
            tally.total += 1
            tally.by_address[address] += 1
            tally.waiting[self] = None
            self._arm("headers", limits.header_seconds)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._uncount()
            super().connection_lost(exc)

        def _uncount(self) -> None:
            tally.waiting.pop(self, None)
            if self._address is not None:
                tally.total -= 1
                tally.by_address[self._address] -= 1
                if tally.by_address[self._address] <= 0:
                    del tally.by_address[self._address]
                self._address = None

        def _make_room(self) -> None:
            """Closed (503) for a newcomer: every slot is taken and this one has waited longest
            for a request. A player's request arrives whole in milliseconds; a slow attack's
            connections are the ones still waiting, so they go first."""
            tally.evicted += 1
            note("web connection closed to make room: every slot taken", address=self._address)
            self._disarm()
            self._uncount()
            self.transport.write(BUSY)
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and self.conn.their_state is h11.IDLE:  # the next request on a kept link
                self._arm("headers", limits.header_seconds)
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def _follow(self) -> None:
            """The deadline that applies now: the body's once the headers are in, none once
            the request is read in full."""
            state = self.conn.their_state
            if state is h11.IDLE:
                if self._address is not None and self not in tally.waiting:
                    tally.waiting[self] = None  # a kept link between two requests
                return
            tally.waiting.pop(self, None)
            if state is h11.SEND_BODY:
                if self._phase != "body":
                    self._arm("body", limits.body_seconds)
            else:
                self._disarm()

        def _arm(self, phase: str, seconds: float) -> None:
            self._disarm()
            self._phase = phase
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline, self._phase = None, ""

        def _too_slow(self) -> None:
            phase, self._deadline = self._phase, None
            if self.transport.is_closing():
                return
            tally.timed_out += 1
            note("web request too slow: closed", waited_for=phase, address=self._address)
            if self.conn.our_state is h11.IDLE:  # no response begun: say why
                self.transport.write(SLOW)
            self.transport.close()

        def send_400_response(self, msg: str) -> None:
            """A request h11 could not read: 400 with the security headers (uvicorn's has none)."""
            self.transport.write(_raw_response(400, "Bad Request", msg + "\n"))
            self.transport.close()

    Guarded.shared = tally
    return Guarded


# asyncio accepts up to the listen backlog's length of waiting connections in one go, each a file
# before the guard sees any: uvicorn's 2,048 ran a server with systemd's 1,024 files out of them
# under a burst (every accept then failed and logged a traceback, pages paused a second each).
BACKLOG = 128
FILES_KEPT = 128  # for the store, the daemon, the templates, logs


def within_files(limits: Limits) -> Limits:
    """`limits` with `connections` lowered to what the process's open files allow beside a full
    listen queue (a warning says so)."""
    import dataclasses
    import resource
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    room = soft - BACKLOG - FILES_KEPT if soft != resource.RLIM_INFINITY else limits.connections
    if limits.connections <= room:
        return limits
    log.get().warning("web connections lowered to what open files allow", connections=limits.connections,
                      allowed=max(room, 1), open_files=soft)
    return dataclasses.replace(limits, connections=max(room, 1))


def quiet_server(per_minute: int = 20) -> None:
    """uvicorn's and asyncio's log lines rate-limited (uvicorn's access log is off: a seat's page
    address is its secret)."""
    for name in ("uvicorn.error", "uvicorn.access", "uvicorn.asgi", "asyncio"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RateLimitedLog) for f in logger.filters):
            logger.addFilter(RateLimitedLog(per_minute))
