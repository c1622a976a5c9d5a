"""What the server does at its edge before a request reaches a route: limits and headers.

- Bodies: a ``Content-Length`` over ``MAX_BODY`` gets 413 before a byte of the body is read; the
  routes that read a body read it through ``read_body``, which stops at the limit (a chunked body
  with no length is refused the moment it passes it).
- Headers: every HTTP answer carries a Content-Security-Policy without inline script, nosniff, a
  Referrer-Policy and ``frame-ancestors 'none'``; and a ``Cache-Control`` when the route set none
  (``no-store`` for the API, ``no-cache`` for pages and unversioned files).
- Rates and caps: per-client token buckets (guests, tables and accounts created), keyed by the
  client's address, in a table that forgets full buckets and has a cap (``LocalBuckets``); the
  counts of sockets per address and spectators per table live with the sockets.
- Origins: a browser's WebSocket from a page of another site is refused.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tranque.runtime.rate_keys import bucket_key
from tranque.server.http_schemas import MAX_BODY, HttpError

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
# What a script or a style sheet needs of them: the policy, the framing and the opener headers
# govern documents only, and cost a few hundred bytes on each of the page's many modules.
SUBRESOURCE_HEADERS = SECURITY_HEADERS[1:2] + SECURITY_HEADERS[3:4]
# The app's manifest and its PNG icons are never documents either (an SVG may be one: it keeps
# the policy).
SUBRESOURCE_TYPES = (
    b"text/javascript",
    b"application/javascript",
    b"text/css",
    b"image/png",
    b"application/manifest+json",
)


@dataclass(frozen=True, slots=True)
class Limits:
    """The edge's settings (``tranque serve`` flags and ``TRANQUE_*`` variables; 0: no limit)."""

    guests_per_minute: float = 10.0  # new guests per client address, sustained
    guest_burst: int = 20
    tables_per_minute: float = 30.0  # new tables per client address, sustained
    table_burst: int = 30
    max_open_tables: int = 5  # unfinished tables a guest hosts
    max_spectators: int = 50  # spectator sockets per table
    max_sockets_per_ip: int = 64  # open WebSockets per client address
    api_gets_per_minute: float = 600.0  # GETs of /api/... per client address, sustained
    api_get_burst: int = 60
    claims_per_minute: float = 5.0  # account claims per client address, sustained
    claim_burst: int = 10
    rate_keys: int = 50_000  # rate-limit buckets kept in this process's memory, at most
    allow_origins: tuple[str, ...] = ()  # browser Origins allowed on /ws besides the server's own


class EdgeMiddleware:
    """Refuses bodies over the limit by their length and adds the security and cache headers."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # a socket of /ws never comes here (server.app.TranqueApp)
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        default_cache = b"no-store" if path.startswith("/api/") else b"no-cache"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                extra = (
                    SUBRESOURCE_HEADERS if kind.startswith(SUBRESOURCE_TYPES) else SECURITY_HEADERS
                )
                headers.extend(h for h in extra if h[0] not in names)
                if b"cache-control" not in names:
                    headers.append((b"cache-control", default_cache))
                message = {**message, "headers": headers}
            await send(message)

        length = Headers(scope=scope).get("content-length")
        if length is not None:
            try:
                too_large = int(length) > self.max_body
            except ValueError:
                too_large = False
            if too_large:
                await _send_error(send_with_headers, HttpError(*_too_large()))
                return
        await self.app(scope, receive, send_with_headers)


def _too_large() -> tuple[int, str, str]:
    return 413, "too_large", f"request bodies are limited to {MAX_BODY} bytes"


async def _send_error(send: Send, err: HttpError) -> None:
    import json

    body = json.dumps({"code": err.code, "message": err.message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *((k.lower().encode(), v.encode()) for k, v in err.headers.items()),
    ]
    await send({"type": "http.response.start", "status": err.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request's body, or HttpError 413 as soon as it passes ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise HttpError(*_too_large())
            chunks.append(chunk)
    except ClientDisconnect:
        # Gone before its body was in (or cut for sending it too slowly: server.http_guard):
        # nobody reads this answer, but the route ends as a refusal, not a traceback.
        raise HttpError(400, "disconnected", "the connection closed before the body came") from None
    return b"".join(chunks)


def client_address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class Buckets(Protocol):
    """Token buckets by name and key, where every node of a cluster sees the same (the in-process
    ``LocalBuckets`` on one node, ``runtime.redis_rates.RedisBuckets`` on many)."""

    async def take(self, name: str, key: str, rate: float, burst: float) -> float:
        """Take a token from bucket (``name``, ``key``), refilled at ``rate`` per second up to
        ``burst``: 0.0 if there was one, else the seconds until there is."""
        ...

    async def peek(self, name: str, key: str, rate: float, burst: float) -> float:
        """The seconds until bucket (``name``, ``key``) has a token (0.0: now), taking none:
        the login limit looks at its failure buckets before it lets an attempt through."""
        ...


class LocalBuckets:
    """The buckets in this process's memory, bounded in time and in size.

    A bucket that is full again is forgotten (an unknown key gets a full bucket anyway, so
    nothing changes but the memory): each bucket sits in the slot of the second, rounded up to
    ``SLOT`` s, when it will be full, and every call drops the slots whose time has passed. And
    past ``max_keys`` buckets the one used longest ago goes first, whatever it holds: under a
    flood of new keys the limit of a quiet client may start over, but the table never grows past
    the cap. A key longer than ``rate_keys.MAX_KEY`` is kept as its hash.
    """

    SLOT = 5.0  # seconds: how late past its refill a bucket may be forgotten

    def __init__(self, max_keys: int = 50_000) -> None:
        self.max_keys = max(1, max_keys)
        # (name, key) -> (tokens, when, full at); oldest use first.
        self.buckets: OrderedDict[tuple[str, str], tuple[float, float, float]] = OrderedDict()
        self._slots: dict[int, set[tuple[str, str]]] = {}
        self._swept = -math.inf  # the slots up to this one are gone

    def _level(self, k: tuple[str, str], now: float, rate: float, burst: float) -> float:
        tokens, then, _ = self.buckets.get(k, (burst, now, now))
        return min(burst, tokens + (now - then) * rate)

    async def take(self, name: str, key: str, rate: float, burst: float) -> float:
        now = time.monotonic()
        self._expire(now)
        k = (name, bucket_key(key))
        tokens = self._level(k, now, rate, burst)
        wait = 0.0
        if tokens < 1:
            wait = (1 - tokens) / rate
        else:
            tokens -= 1
        self._keep(k, tokens, now, now + (burst - tokens) / rate)
        return wait

    async def peek(self, name: str, key: str, rate: float, burst: float) -> float:
        now = time.monotonic()
        self._expire(now)
        tokens = self._level((name, bucket_key(key)), now, rate, burst)
        return 0.0 if tokens >= 1 else (1 - tokens) / rate

    def _slot(self, when: float) -> int:
        return math.ceil(when / self.SLOT)

    def _keep(self, k: tuple[str, str], tokens: float, now: float, full: float) -> None:
        old = self.buckets.get(k)
        if old is not None:
            self._slots[self._slot(old[2])].discard(k)
        self.buckets[k] = (tokens, now, full)
        self.buckets.move_to_end(k)
        self._slots.setdefault(self._slot(full), set()).add(k)
        while len(self.buckets) > self.max_keys:
            gone, (_, _, at) = self.buckets.popitem(last=False)
            self._slots[self._slot(at)].discard(gone)

    def _expire(self, now: float) -> None:
        """Forget the buckets full by now (those of every slot that has passed)."""
        last = math.floor(now / self.SLOT)
        if last <= self._swept:
            return
        for slot in [s for s in self._slots if s <= last]:
            for k in self._slots.pop(slot):
                del self.buckets[k]
        self._swept = last


class RateLimiter:
    """A token bucket per client address: ``per_minute`` sustained, ``burst`` at once."""

    def __init__(
        self, per_minute: float, burst: int, what: str, buckets: Buckets | None = None
    ) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(max(burst, 1))
        self.what = what
        self.buckets: Buckets = buckets or LocalBuckets()

    async def take(self, key: str) -> None:
        """Take one token for ``key``, or HttpError 429 with the seconds until the next."""
        if self.rate <= 0:
            return
        wait = await self.buckets.take(self.what, key, self.rate, self.burst)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise HttpError(
                429,
                "rate_limited",
                f"too many {self.what} from your address: try again in {seconds} s",
                {"Retry-After": str(seconds)},
            )


def origin_allowed(headers: Headers, allowed: Iterable[str]) -> bool:
    """No Origin (not a browser), the server's own host, or one of ``allowed``.

    The server's own is the request's ``Host``, whatever the scheme: behind a TLS proxy the
    socket is ``ws`` while the page is ``https``, and a page of another site has another host.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    origin = origin.rstrip("/").lower()
    if origin in {a.rstrip("/").lower() for a in allowed}:
        return True
    host = headers.get("host", "").lower()
    scheme, sep, netloc = origin.partition("://")
    return bool(sep) and scheme in ("http", "https") and bool(host) and netloc == host
