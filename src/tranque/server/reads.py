"""``ApiReadLimit``: a token bucket per client address for the GETs of the API.

The writes of the API have their own rates (guests, tables, logins); the reads had none, and a
read may cost the node more than a write (a table's history, a record, a rebuild from the log):
one client asking for them as fast as it could kept the node's event loop from its sockets
(issue 28). Every ``GET`` (and ``HEAD``) of a path under ``/api/`` takes a token of the client's
bucket (``--api-gets-per-minute`` sustained, ``--api-get-burst`` at once); without one it gets
429 ``{"code": "rate_limited", "message"}`` with ``Retry-After``, and the route never runs. The
page, its files, ``/health`` and ``/healthz`` are not counted. The default is far above what the
browser client asks for (a few reads when a page opens, one every 1.5 s while an analysis is
being made), and leaves room for a few people behind one address.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from tranque.server.edge import RateLimiter, client_address
from tranque.server.http_schemas import HttpError

READS = ("GET", "HEAD")


class ApiReadLimit:
    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in READS
            and scope["path"].startswith("/api/")
        ):
            try:
                await self.limiter.take(client_address(scope))
            except HttpError as exc:
                body = {"code": exc.code, "message": exc.message}
                refusal = JSONResponse(body, status_code=exc.status, headers=exc.headers)
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


__all__ = ["ApiReadLimit"]
