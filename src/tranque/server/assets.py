"""The browser client's files: the page, and its scripts and styles under a versioned prefix.

The page (``index.html``) is sent with ``Cache-Control: no-cache``, its ``/js/``, ``/css/``,
``/icons/`` and manifest URLs rewritten to ``/assets/<release>/...``, where ``<release>`` is a
hash of every file of the client taken at start. Those are cached for a year (``immutable``): a
new release has a new hash, so the browser fetches it at once, and the ES modules' relative
imports resolve under the same prefix; they carry no ``ETag`` nor ``Last-Modified``, having
nothing to revalidate. The unversioned paths still work, revalidated on every use
(``no-cache``, with their validators).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from starlette.responses import Response
from starlette.staticfiles import StaticFiles

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
IMMUTABLE = "public, max-age=31536000, immutable"
# The scripts, the styles, the app's manifest and its icons (the manifest names its icons by
# relative URLs: under the prefix they are this release's too).
_ASSET_URL = re.compile(r'(href|src)="/(js/|css/|icons/|manifest\.webmanifest")')


def release_hash(directory: Path = WEB_DIR) -> str:
    """A short hash of every file under ``directory`` (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(directory)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def render_index(html: str, release: str) -> str:
    return _ASSET_URL.sub(rf'\1="/assets/{release}/\2', html)


class CachedStatic(StaticFiles):
    """StaticFiles with a ``Cache-Control`` of its own."""

    def __init__(self, *args: Any, cache_control: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cache_control = cache_control

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["cache-control"] = self.cache_control
        if self.cache_control == IMMUTABLE:
            # Never revalidated (a new release is a new URL), so the validators and the ranges
            # of a file are bytes on every module of the first load for nothing.
            for name in ("etag", "last-modified", "accept-ranges"):
                if name in response.headers:
                    del response.headers[name]
        return response
