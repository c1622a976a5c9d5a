"""Security headers, compression and caching of the client's files, and the Origin of /ws."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
import pytest
import websockets


def _security_headers(r: httpx.Response) -> None:
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp, csp
    assert "frame-ancestors 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["x-frame-options"] == "DENY"


def test_pages_files_and_api_carry_security_and_cache_headers(server: Any) -> None:
    base = server.base
    with httpx.Client(base_url=base, timeout=30) as http:
        page = http.get("/", headers={"accept-encoding": "gzip"})
        assert page.status_code == 200
        _security_headers(page)
        assert page.headers["cache-control"] == "no-cache"
        # No inline script: every <script> has a src, under the release's prefix.
        scripts = re.findall(r"<script[^>]*>", page.text)
        assert scripts and all("src=" in s for s in scripts), scripts
        urls = re.findall(r'(?:src|href)="(/assets/[0-9a-f]{12}/[^"]+)"', page.text)
        assert any(u.endswith("/js/boot.js") for u in urls), page.text
        assert any(u.endswith("/css/app.css") for u in urls), page.text
        assert http.get("/t/abc").text == page.text

        for url in urls:
            r = http.get(url, headers={"accept-encoding": "gzip"})
            assert r.status_code == 200, url
            assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert not {"etag", "last-modified", "accept-ranges"} & set(r.headers), url
            # Scripts, styles, the app's manifest and icons: no sniffing, no referrer; the
            # document-only headers are the page's (they would be a few hundred bytes on every
            # module for nothing).
            assert r.headers["x-content-type-options"] == "nosniff", url
            assert r.headers["referrer-policy"] == "no-referrer", url
            if url.endswith((".js", ".css", ".png", ".webmanifest")):
                assert "content-security-policy" not in r.headers, url
            else:
                _security_headers(r)
        # The modules' relative imports resolve under the same prefix, cached the same way.
        prefix = urls[0].split("/")[2]
        app = http.get(f"/assets/{prefix}/js/app.js", headers={"accept-encoding": "gzip"})
        assert app.status_code == 200 and "immutable" in app.headers["cache-control"]
        assert app.headers["content-encoding"] == "gzip"
        assert int(app.headers["content-length"]) < len(app.content)  # sent compressed
        # The unversioned paths still work, revalidated on every use.
        plain = http.get("/js/app.js")
        assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"
        again = http.get("/js/app.js", headers={"if-none-match": plain.headers["etag"]})
        assert again.status_code == 304
        assert plain.text == app.text
        # An old release's URL is not served as this one's.
        assert http.get("/assets/000000000000/js/app.js").status_code == 404

        api = http.post("/api/guests", json={})
        _security_headers(api)
        assert api.headers["cache-control"] == "no-store"
        health = http.get("/health")
        _security_headers(health)


def _ws(base: str) -> str:
    return base.replace("http", "ws", 1) + "/ws"


async def _pong(ws: Any) -> bool:
    await ws.send(json.dumps({"type": "ping"}))
    return bool(json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "pong")


def test_a_socket_from_another_sites_page_is_refused(server_factory: Any) -> None:
    server = server_factory("--allow-origin", "https://play.example.org")
    url = _ws(server.base)

    async def go() -> None:
        for origin in ("http://evil.example", "http://127.0.0.1:1", "null"):
            with pytest.raises(websockets.InvalidStatus) as info:
                await websockets.connect(url, origin=origin)  # type: ignore[arg-type]
            assert info.value.response.status_code == 403, origin
        # No Origin (not a browser), the server's own, and one listed in the setting.
        own = server.base
        for origin in (None, own, "https://play.example.org"):
            async with websockets.connect(url, origin=origin) as ws:  # type: ignore[arg-type]
                assert await _pong(ws), origin

    asyncio.run(go())
