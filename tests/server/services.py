"""PostgreSQL and Redis on their usual local ports, for the tests that need them.

Under ``CI`` a missing one is a failure, never a skip: those tests are required there.
"""

from __future__ import annotations

import os
import socket

import pytest

PG = ("PostgreSQL", 5432)
REDIS = ("Redis", 6379)
PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379"


def need(service: tuple[str, int]) -> None:
    """The service answers on 127.0.0.1, or the test is skipped (failed in CI) saying why."""
    name, port = service
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError as exc:
        message = f"{name} does not answer on 127.0.0.1:{port} ({exc})"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
