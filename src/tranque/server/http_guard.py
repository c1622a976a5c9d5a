"""Slow HTTP clients and too many connections from one address, cut at uvicorn's protocol.

uvicorn times out nothing of a request's arrival: its only timer is the keep-alive one, armed
after a response and disarmed by the next byte. A client that connects and sends nothing, or
sends a header byte every few seconds (slowloris), or announces a body and trickles it, holds a
connection, a buffer and (for the body) a request task for as long as it likes, and nothing
bounds how many such connections one address opens. These checks must run before the ASGI app
sees anything (a request whose headers never end never reaches it), so they live in a subclass
of uvicorn's own HTTP protocol, given to uvicorn as its ``http`` class (``server.serve``):

- **Headers**: from the first byte of a request (or the connection's opening) its headers must be
  in within ``header_timeout`` seconds, or the client gets 408 and the connection is closed.
- **Body**: a body announced by the headers must be in whole within ``body_timeout`` seconds of
  them: 408 (if no answer has started) and closed.
- **Per address**: at most ``max_per_address`` HTTP connections from one peer address at once;
  one more gets 429 at once and is closed. A peer that uvicorn trusts as a proxy
  (``FORWARDED_ALLOW_IPS``) is not counted: it carries many clients' requests, and the proxy
  limits its own clients. A connection that becomes a WebSocket leaves the count (sockets have
  their own cap, ``--max-sockets-per-ip``, in ``server.ws``).

Only public members of the protocol are read (``cycle``, ``client``, ``transport``, ``config``):
uvicorn's pipelining, keep-alive and upgrade stay its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

log = logging.getLogger("tranque.server")

HEADERS = "headers"
BODY = "body"


@dataclass(frozen=True, slots=True)
class HttpGuard:
    """The settings (``tranque serve --http-header-timeout`` ...; 0: no limit)."""

    header_timeout: float = 10.0  # seconds for a request's headers, from its first byte
    body_timeout: float = 30.0  # seconds for a request's whole body, from its headers
    max_per_address: int = 64  # HTTP connections at once from one peer address


def _answer(status: int, reason: str, code: str, message: str, extra: str = "") -> bytes:
    body = json.dumps({"code": code, "message": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n{extra}\r\n"
    )
    return head.encode() + body


class _Trusted:
    """The addresses uvicorn takes ``X-Forwarded-For`` from (its ``forwarded_allow_ips``)."""

    def __init__(self, config: Any) -> None:
        raw = config.forwarded_allow_ips if getattr(config, "proxy_headers", False) else ""
        items = raw.split(",") if isinstance(raw, str) else list(raw or [])
        items = [i.strip() for i in items if i.strip()]
        self.everyone = "*" in items
        self.literals = set(items)
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for item in items:
            with contextlib.suppress(ValueError):  # a name (a Unix socket's), not a network
                self.networks.append(ipaddress.ip_network(item, strict=False))

    def __contains__(self, address: str) -> bool:
        if self.everyone or address in self.literals:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.networks)


class _Guarded(asyncio.Protocol):
    """Mixed in before one of uvicorn's HTTP protocols (``guarded_protocol``)."""

    guard: ClassVar[HttpGuard]
    per_address: ClassVar[Counter[str]]
    trusted: ClassVar[_Trusted | None] = None
    # uvicorn's, set by its own __init__ / connection_made:
    transport: asyncio.Transport
    cycle: Any
    client: tuple[str, int] | None
    config: Any

    _address: str | None = None  # counted against its address
    _timer: asyncio.TimerHandle | None = None
    _phase = HEADERS
    _seen: Any = None  # the last request whose headers were seen complete

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        cls = type(self)
        if cls.trusted is None:
            cls.trusted = _Trusted(self.config)
        address = self.client[0] if self.client else None
        cap = self.guard.max_per_address
        if cap and address is not None and address not in cls.trusted:
            if self.per_address[address] >= cap:
                log.info("refused an HTTP connection from %s: %d open already", address, cap)
                self.transport.write(
                    _answer(
                        429,
                        "Too Many Requests",
                        "too_many_connections",
                        f"too many connections from your address ({cap}): close some and retry",
                        "retry-after: 1\r\n",
                    )
                )
                self.transport.close()
                return
            self.per_address[address] += 1
            self._address = address
        self._arm(HEADERS)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._release()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._timer is None:  # the first bytes of a request: its headers' time starts
            self._arm(HEADERS)
        super().data_received(data)
        if self.transport.get_protocol() is not self:  # upgraded to a WebSocket
            self._disarm()
            self._release()
            return
        self._look()

    def _look(self) -> None:
        """Move on from the headers' deadline to the body's, and from the body's to none."""
        cycle = self.cycle
        if cycle is not None and cycle is not self._seen:
            self._seen = cycle
            self._disarm()
            if cycle.more_body:
                self._arm(BODY)
        elif self._phase == BODY and cycle is not None and not cycle.more_body:
            self._disarm()

    def _arm(self, phase: str) -> None:
        self._disarm()
        seconds = self.guard.header_timeout if phase == HEADERS else self.guard.body_timeout
        if seconds > 0:
            self._phase = phase
            self._timer = asyncio.get_running_loop().call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _release(self) -> None:
        address, self._address = self._address, None
        if address is not None:
            self.per_address[address] -= 1
            if self.per_address[address] <= 0:
                del self.per_address[address]

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        phase, seen = self._phase, self._seen
        self._look()  # what came meanwhile may have been parsed outside ``data_received``
        if self._seen is not seen or self._timer is not None:
            return  # the headers came (and the body's deadline runs, if there is a body)
        cycle = self.cycle
        if phase == BODY and (cycle is None or not cycle.more_body):
            return
        seconds = self.guard.header_timeout if phase == HEADERS else self.guard.body_timeout
        log.info("cut a slow HTTP client (%s): its %s took over %g s", self.client, phase, seconds)
        # An answer only where none is on its way (a pipelined request may trail one).
        idle = cycle is None or (cycle.response_complete if phase == HEADERS else False)
        if idle or (phase == BODY and not cycle.response_started):
            self.transport.write(
                _answer(
                    408,
                    "Request Timeout",
                    "request_timeout",
                    f"the request's {phase} did not arrive within {seconds:g} s: send it at once",
                )
            )
        self.transport.close()


def guarded_protocol(guard: HttpGuard) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools when installed, as uvicorn's ``auto``; else h11)
    with ``guard``'s timeouts and cap, and a count of connections per address of its own."""
    base: type[asyncio.Protocol]
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        base = HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        base = H11Protocol
    return type(
        "GuardedHTTP",
        (_Guarded, base),
        {"guard": guard, "per_address": Counter(), "trusted": None},
    )
