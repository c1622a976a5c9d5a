"""The GETs of the API have a rate per client address (``--api-gets-per-minute``, burst
``--api-get-burst``), through a real server: past the burst a typed 429 with ``Retry-After``;
the page, its files and the health checks are not counted, nor are the writes."""

from __future__ import annotations

import time
from typing import Any

import httpx


def test_api_reads_past_the_burst_get_429_with_retry_after(server_factory: Any) -> None:
    # Through the environment (the variables a deployment sets; the flags are the other test's).
    sp = server_factory(env={"TRANQUE_API_GETS_PER_MINUTE": "6", "TRANQUE_API_GET_BURST": "5"})
    with httpx.Client(base_url=sp.base, timeout=30) as http:
        started = time.monotonic()
        for path in ("/api/stats", "/api/lobby", "/api/tables/none", "/api/games", "/api/stats"):
            assert http.get(path).status_code in (200, 404), path  # five: the burst
        refused = http.get("/api/tables/none/history")
        assert refused.status_code == 429, refused.text
        body = refused.json()
        assert body["code"] == "rate_limited" and "API reads" in body["message"], body
        assert refused.headers["content-type"] == "application/json"
        assert refused.headers["cache-control"] == "no-store"
        wait = int(refused.headers["retry-after"])
        assert 1 <= wait <= 10, wait  # one read every 10 s: the next token within that
        assert http.head("/api/stats").status_code == 429  # a HEAD is a read too
        # Not counted: the page, its files, the health checks, and a write.
        for path in ("/", "/health", "/healthz"):
            assert http.get(path).status_code == 200, path
        assert http.post("/api/guests", json={}).status_code == 200
        if time.monotonic() - started < 9:  # the bucket has not refilled meanwhile
            assert http.get("/api/stats").status_code == 429


def test_the_limit_is_per_address_and_a_token_comes_back(server_factory: Any) -> None:
    """Another client address has its own bucket; after ``Retry-After`` a read goes through."""
    sp = server_factory("--api-gets-per-minute", "120", "--api-get-burst", "1")
    with httpx.Client(base_url=sp.base, timeout=30) as http:
        assert http.get("/api/stats").status_code == 200
        refused = http.get("/api/stats")
        assert refused.status_code == 429
        # The same server through a proxy it trusts (127.0.0.1) for another client.
        other = http.get("/api/stats", headers={"x-forwarded-for": "192.0.2.7"})
        assert other.status_code == 200, other.text
        time.sleep(int(refused.headers["retry-after"]))  # the wait the answer asked for
        assert http.get("/api/stats").status_code == 200
