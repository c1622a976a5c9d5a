"""What the server does at its edge before a request reaches a route: limits and headers.

- Bodies: a ``Content-Length`` over ``MAX_BODY`` gets 413 before a byte of the body is read; the
  routes that read a body read it through ``read_body``, which stops at the limit (a chunked body
  with no length is refused the moment it passes it).
- Headers: every HTTP answer carries a Content-Security-Policy without inline script, nosniff, a
  Referrer-Policy and ``frame-ancestors 'none'``; and a ``Cache-Control`` when the route set none
  (``no-store`` for the API, ``no-cache`` for pages and unversioned files).
- Rates and caps: per-client token buckets (guests and tables created), keyed by the client's
  address; the counts of sockets per address and spectators per table live with the sockets.
- Origins: a browser's WebSocket from a page of another site is refused.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
SUBRESOURCE_TYPES = (b"text/javascript", b"application/javascript", b"text/css")


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
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HttpError(*_too_large())
        chunks.append(chunk)
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
    """The buckets in this process's memory."""

    MAX_KEYS = 100_000  # past this many keys, the full (idle) buckets are forgotten

    def __init__(self) -> None:
        self.buckets: dict[tuple[str, str], tuple[float, float, float]] = {}

    async def take(self, name: str, key: str, rate: float, burst: float) -> float:
        now = time.monotonic()
        tokens, then, _ = self.buckets.get((name, key), (burst, now, rate))
        tokens = min(burst, tokens + (now - then) * rate)
        if tokens < 1:
            self.buckets[(name, key)] = (tokens, now, rate)
            return (1 - tokens) / rate
        self.buckets[(name, key)] = (tokens - 1, now, rate)
        if len(self.buckets) > self.MAX_KEYS:
            self._forget(now, burst)
        return 0.0

    async def peek(self, name: str, key: str, rate: float, burst: float) -> float:
        now = time.monotonic()
        tokens, then, _ = self.buckets.get((name, key), (burst, now, rate))
        tokens = min(burst, tokens + (now - then) * rate)
        return 0.0 if tokens >= 1 else (1 - tokens) / rate

    def _forget(self, now: float, burst: float) -> None:
        for k, (tokens, then, rate) in list(self.buckets.items()):
            if tokens + (now - then) * rate >= burst:
                del self.buckets[k]


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
