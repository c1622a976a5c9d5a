"""Nodes of a cluster on a fresh PostgreSQL database and Redis (``cluster_factory`` is in
``tests/conftest.py``), with quick tables, and leases of one second so takeovers come fast."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

FAST = ["--bot-delay", "0", "--pass-delay", "0", "--between-hands", "0", "--rate", "200"]
FAST += ["--redeal-window", "0.2"]  # every deal is on show this long (rules.md, section 11)
FAST += ["--workers", "1", "--lease-ttl", "1"]


@pytest.fixture
def server_fast_args() -> list[str]:
    return FAST
