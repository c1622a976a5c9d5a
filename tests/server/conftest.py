"""A real server process on a loopback ephemeral port and a temporary SQLite file.

``ServerProcess`` and the ``server_factory`` and ``server`` fixtures are in ``tests/conftest.py``.
"""

from __future__ import annotations

import pytest

FAST = ["--bot-delay", "0", "--pass-delay", "0", "--between-hands", "0", "--rate", "200"]
FAST += ["--redeal-window", "0.2"]  # every deal is on show this long (rules.md, section 11)
FAST += ["--workers", "1"]  # one worker process where bots think: the machine is shared


@pytest.fixture
def server_fast_args() -> list[str]:
    return FAST
