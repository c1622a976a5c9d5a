"""The answers of the site itself, not of the game: a path nobody serves, and what makes the
site an installable app (the service worker, bound to this release).

A path nobody serves gets the page (``index.html``) with status 404: the client draws a
"nothing here" screen in the site's look and the visitor's language, with a way home (the
language is the browser's, which only the page knows). A path under ``/api/`` is a program's:
it gets the JSON error every other API refusal has.

The service worker (``web/sw.js``) caches the files of one release (server.assets): it is
served with the release's hash written into it, so every deploy changes its bytes, the browser
installs the new one, and the new one drops the old release's cache. It is never cached by HTTP
(``no-cache``): the browser checks it at every navigation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from tranque.server.assets import WEB_DIR

_RELEASE_MARK = "__RELEASE__"


def not_found(page: str | None) -> Callable[[Request, Exception], Awaitable[Response]]:
    """The app's 404 handler: JSON under ``/api/``, else the page (status 404)."""

    async def handler(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 404
        path = request.url.path
        if path.startswith("/api/") or page is None:
            body = {"code": "not_found", "message": f"nothing is served at {path!r}"}
            return JSONResponse(body, status_code=status)
        return HTMLResponse(page, status_code=status, headers={"cache-control": "no-cache"})

    return handler


def service_worker(release: str) -> bytes | None:
    """``web/sw.js`` with this release's hash in it (None when the client is not installed)."""
    path = WEB_DIR / "sw.js"
    if not path.is_file():
        return None
    # Its comments (whole lines) are for the reader of the repository, not for the wire: the
    # worker counts in the first load's budget.
    lines = path.read_text().replace(_RELEASE_MARK, release).splitlines()
    return "\n".join(x for x in lines if not x.lstrip().startswith("//")).encode() + b"\n"


def service_worker_route(body: bytes | None) -> Callable[[Request], Awaitable[Response]]:
    """``GET /sw.js``: the worker of this release (404 without a client)."""

    async def route(request: Request) -> Response:
        if body is None:
            return JSONResponse({"code": "not_found", "message": "no client"}, status_code=404)
        headers = {"cache-control": "no-cache"}
        return Response(body, media_type="text/javascript", headers=headers)

    return route
