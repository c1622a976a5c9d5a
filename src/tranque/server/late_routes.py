"""Routes of a part of the server that its lifespan makes (friends, pairs, ...).

Starlette takes the app's routes when the app is built, before the lifespan opens the store and
makes the parts that answer them. Each route is therefore bound to a getter of its part and to
the part's own method, named as a function (``FriendRoutes.listing``), not as a string: a reader
and mypy follow a path to the code that answers it. A refusal the part raises (an ``HttpError``
or the room's own typed error, each with a status, a code and a sentence) becomes the same JSON
answer everywhere.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tranque.server.http_schemas import HttpError

Part = TypeVar("Part")
GET, POST = ["GET"], ["POST"]
Handler = Callable[[Part, Request], Awaitable[Response]]


class Refused(Protocol):
    """What every typed refusal carries (``HttpError``, ``FriendError``, ``PairError``...)."""

    status: int
    code: str
    message: str


def refusal(exc: Refused) -> JSONResponse:
    """A refused request's answer: ``{"code", "message"}`` under its status, with the
    headers an ``HttpError`` carries (a ``Retry-After``)."""
    headers = exc.headers if isinstance(exc, HttpError) else None
    body = {"code": exc.code, "message": exc.message}
    return JSONResponse(body, status_code=exc.status, headers=headers)


def late_routes(
    part: Callable[[], Part | None],
    refusals: tuple[type[Exception], ...],
    table: Iterable[tuple[str, Handler[Part], list[str]]],
) -> list[Route]:
    """One route per ``(path, handler, methods)``, answered by ``handler(part(), request)``
    once the lifespan has made the part; the ``refusals`` it raises answer as typed errors."""

    def bound(handler: Handler[Part]) -> Callable[[Request], Awaitable[Response]]:
        async def route(request: Request) -> Response:
            routes = part()
            assert routes is not None, "the lifespan makes the part before the first request"
            try:
                return await handler(routes, request)
            except refusals as exc:
                return refusal(exc)  # type: ignore[arg-type]

        return route

    return [Route(path, bound(handler), methods=methods) for path, handler, methods in table]


__all__ = ["GET", "POST", "late_routes", "refusal"]
